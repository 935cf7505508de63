// Workspace allocation (device/workspace.c), the last error (device/errors.c) and bounded
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

TEST(Workspace, AllocatesAlignedZeroedWritableMemory) {
  for (uint32_t align : {0u, 1u, 8u, 128u, 4096u, 65536u}) {
    auto* p = static_cast<uint8_t*>(DspcWorkspaceAlloc(10000, align));
    ASSERT_NE(p, nullptr) << align;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (align ? align : 128), 0u) << align;
    for (int i = 0; i < 10000; i++) ASSERT_EQ(p[i], 0);
    std::memset(p, 0xAB, 10000);
    EXPECT_EQ(DspcWorkspaceFree(p), 0);
  }
}

TEST(Workspace, FreeReturnsMemoryInAnyOrder) {
  int before = dspc_test_live_mappings();
  std::vector<void*> blocks;
  for (uint32_t n : {1u, 0u, 4096u, 100000u, 77u}) blocks.push_back(DspcWorkspaceAlloc(n, 128));
  for (void* p : blocks) ASSERT_NE(p, nullptr);
  EXPECT_EQ(dspc_test_live_mappings(), before + 5);
  for (int i : {2, 0, 4, 1, 3}) EXPECT_EQ(DspcWorkspaceFree(blocks[i]), 0);
  EXPECT_EQ(dspc_test_live_mappings(), before);
}

TEST(Workspace, BadAlignmentAndBadFreeAreErrors) {
  EXPECT_EQ(DspcWorkspaceAlloc(100, 48), nullptr);
  EXPECT_EQ(std::string(dspc_get_last_error()),
            "workspace allocation of 100 bytes failed: alignment is not a power of two");
  int x;
  EXPECT_NE(DspcWorkspaceFree(&x), 0);
  EXPECT_NE(std::string(dspc_get_last_error()).find("not a workspace allocation"), std::string::npos);
  void* p = DspcWorkspaceAlloc(16, 16);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(DspcWorkspaceFree(p), 0);
  EXPECT_NE(DspcWorkspaceFree(p), 0);  // a double free
}

TEST(LastError, SetGetAndTruncation) {
  dspc_set_last_error("boom");
  EXPECT_STREQ(dspc_get_last_error(), "boom");
  dspc_set_last_error(nullptr);
  EXPECT_STREQ(dspc_get_last_error(), "");
  std::string long_message(2000, 'x');
  dspc_set_last_error(long_message.c_str());
  EXPECT_EQ(std::strlen(dspc_get_last_error()), 511u);
  dspc_set_last_error("short");
  dspc_set_last_error(dspc_get_last_error());  // setting it to itself keeps it
  EXPECT_STREQ(dspc_get_last_error(), "short");
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
