// Workspace allocation (device/workspace.c), the last error (device/context.c) and bounded
// text (common/text.c), compiled unchanged with the host compiler.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "dspc_runtime.h"
#include "runtime-support/common/text.h"

extern "C" int dspc_test_live_mappings(void);

namespace {

// The context these tests share (they run one after another).
dspc_context* ctx() {
  static dspc_context* c = [] {
    static dspc_context storage;
    dspc_context_init(&storage);
    return &storage;
  }();
  return c;
}

TEST(Workspace, AllocatesAlignedZeroedWritableMemory) {
  for (uint32_t align : {0u, 1u, 8u, 128u, 4096u, 65536u}) {
    auto* p = static_cast<uint8_t*>(DspcWorkspaceAlloc(10000, align, ctx()));
    ASSERT_NE(p, nullptr) << align;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (align ? align : 128), 0u) << align;
    for (int i = 0; i < 10000; i++) ASSERT_EQ(p[i], 0);
    std::memset(p, 0xAB, 10000);
    EXPECT_EQ(DspcWorkspaceFree(p, ctx()), 0);
  }
}

TEST(Workspace, FreeReturnsMemoryInAnyOrder) {
  int before = dspc_test_live_mappings();
  std::vector<void*> blocks;
  for (uint32_t n : {1u, 0u, 4096u, 100000u, 77u}) blocks.push_back(DspcWorkspaceAlloc(n, 128, ctx()));
  for (void* p : blocks) ASSERT_NE(p, nullptr);
  EXPECT_EQ(dspc_test_live_mappings(), before + 5);
  for (int i : {2, 0, 4, 1, 3}) EXPECT_EQ(DspcWorkspaceFree(blocks[i], ctx()), 0);
  EXPECT_EQ(dspc_test_live_mappings(), before);
}

TEST(Workspace, BadAlignmentAndBadFreeAreErrors) {
  EXPECT_EQ(DspcWorkspaceAlloc(100, 48, ctx()), nullptr);
  EXPECT_EQ(std::string(dspc_get_last_error(ctx())),
            "workspace allocation of 100 bytes failed: alignment is not a power of two");
  int x;
  EXPECT_NE(DspcWorkspaceFree(&x, ctx()), 0);
  EXPECT_NE(std::string(dspc_get_last_error(ctx())).find("not a workspace allocation"), std::string::npos);
  void* p = DspcWorkspaceAlloc(16, 16, ctx());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(DspcWorkspaceFree(p, ctx()), 0);
  EXPECT_NE(DspcWorkspaceFree(p, ctx()), 0);  // a double free
}

TEST(Workspace, BelongsToItsContextAndIsReleasedWithIt) {
  int before = dspc_test_live_mappings();
  dspc_context a, b;
  dspc_context_init(&a);
  dspc_context_init(&b);
  void* p = DspcWorkspaceAlloc(4096, 128, &a);
  void* q = DspcWorkspaceAlloc(4096, 128, &a);
  ASSERT_TRUE(p && q);
  EXPECT_NE(DspcWorkspaceFree(p, &b), 0);  // not b's
  EXPECT_NE(std::string(dspc_get_last_error(&b)).find("not a workspace allocation"), std::string::npos);
  EXPECT_STREQ(dspc_get_last_error(&a), "");
  EXPECT_EQ(DspcWorkspaceFree(p, &a), 0);
  dspc_context_release(&a);  // unmaps q
  EXPECT_EQ(dspc_test_live_mappings(), before);
  dspc_context_release(&b);
}

TEST(LastError, EachContextHasItsOwn) {
  dspc_context a, b;
  dspc_context_init(&a);
  dspc_context_init(&b);
  dspc_set_last_error("a failed", &a);
  EXPECT_STREQ(dspc_get_last_error(&a), "a failed");
  EXPECT_STREQ(dspc_get_last_error(&b), "");
  // NULL is the default context.
  dspc_set_last_error("default", nullptr);
  EXPECT_STREQ(dspc_get_last_error(dspc_context_default()), "default");
  EXPECT_STREQ(dspc_get_last_error(&a), "a failed");
  dspc_set_last_error("", nullptr);
}

TEST(LastError, SetGetAndTruncation) {
  dspc_set_last_error("boom", ctx());
  EXPECT_STREQ(dspc_get_last_error(ctx()), "boom");
  dspc_set_last_error(nullptr, ctx());
  EXPECT_STREQ(dspc_get_last_error(ctx()), "");
  std::string long_message(2000, 'x');
  dspc_set_last_error(long_message.c_str(), ctx());
  EXPECT_EQ(std::strlen(dspc_get_last_error(ctx())), 511u);
  dspc_set_last_error("short", ctx());
  dspc_set_last_error(dspc_get_last_error(ctx()), ctx());  // setting it to itself keeps it
  EXPECT_STREQ(dspc_get_last_error(ctx()), "short");
}

TEST(Text, TruncatesAndFormatsNumbers) {
  char buf[8];
  dspc_text t;
  dspc_text_init(&t, buf, sizeof buf);
  dspc_text_str(&t, "abcdefghij");
  EXPECT_STREQ(buf, "abcdefg");
  char big[64];
  dspc_text_init(&t, big, sizeof big);
  dspc_text_u64(&t, UINT64_MAX);
  dspc_text_char(&t, ' ');
  dspc_text_i64(&t, INT64_MIN);
  dspc_text_char(&t, ' ');
  dspc_text_hex(&t, 0xdeadbeef);
  dspc_text_char(&t, ' ');
  dspc_text_u64(&t, 0);
  EXPECT_STREQ(big, "18446744073709551615 -9223372036854775808 0xdeadbeef 0");
  uint64_t v = 0;
  EXPECT_EQ(dspc_parse_u64("4194304", &v), 0);
  EXPECT_EQ(v, 4194304u);
  EXPECT_NE(dspc_parse_u64("", &v), 0);
  EXPECT_NE(dspc_parse_u64("12k", &v), 0);
  EXPECT_NE(dspc_parse_u64("18446744073709551616", &v), 0);
  EXPECT_EQ(dspc_parse_u64("18446744073709551615", &v), 0);
}

}  // namespace
