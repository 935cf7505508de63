// The explicit device context (README "The device context"): a host module from
// `dspc --emit=so --target=host`, whose kernels stage through VTCM, called through its checked
// entries with contexts of our own. This process provides the runtime (the pool, errors, ...).
//  - two threads, each with its own context and a pool that holds exactly one call's arena,
//    call at the same time, bit-exact every time: shared pool state would exhaust or corrupt;
//  - exhausting one context's pool fails that context's calls with its own message, and the
//    other context keeps working;
//  - a graph's group function hands its context down to the kernels it calls.
#include <dlfcn.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <memory>

#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "dspc_runtime.h"
#include "tests/so/HostModule.h"

namespace {

constexpr int64_t kN = 4096;
constexpr uint32_t kArena = 4096;  // one call's VTCM: T, u8[4096]

class Contexts : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    ASSERT_TRUE(module_.load("contexts", error)) << error;
  }
  static void TearDownTestSuite() { module_.unload(); }
  static dspc_call_fn entry(const char* name) { return module_.entry(name); }
  static inline dspc::testing::HostModule module_;
};

struct Buffers {
  alignas(128) uint8_t a[kN];
  alignas(128) uint8_t c[kN];
  int64_t shape[1] = {kN};
  dspc_arg args[2];
  Buffers() {
    args[0] = {a, shape, 1, DSPC_TYPE_UINT, 8, 0};
    args[1] = {c, shape, 1, DSPC_TYPE_UINT, 8, 0};
  }
};

uint8_t stage_ref(uint8_t a) { return static_cast<uint8_t>((a + 1) * 3); }

TEST_F(Contexts, TwoThreadsEachWithItsOwnContextRunSideBySide) {
  dspc_call_fn stage = entry("__dspc_call_stage");
  ASSERT_NE(stage, nullptr);
  constexpr int kThreads = 2, kCalls = 20000;
  std::string failures[kThreads];
  std::atomic<int> ready{0};
  auto work = [&](int id) {
    dspc_context ctx;
    dspc_context_init(&ctx);
    // Room for exactly one arena: a pool shared with the other thread would run out.
    if (dspc_vtcm_set_capacity(kArena, &ctx) != 0) failures[id] = dspc_get_last_error(&ctx);
    auto b = std::make_unique<Buffers>();
    ready++;
    while (ready.load() < kThreads) {  // start together, so that the calls overlap
    }
    for (int call = 0; call < kCalls && failures[id].empty(); ++call) {
      for (int64_t i = 0; i < kN; ++i) b->a[i] = static_cast<uint8_t>(i * 7 + call * 13 + id * 101);
      if (stage(b->args, 2, &ctx) != DSPC_OK) {
        failures[id] = "call " + std::to_string(call) + ": " + dspc_get_last_error(&ctx);
        break;
      }
      for (int64_t i = 0; i < kN; ++i)
        if (b->c[i] != stage_ref(b->a[i])) failures[id] = "call " + std::to_string(call) + ": wrong result";
      if (dspc_vtcm_bytes_in_use(&ctx) != 0) failures[id] = "the call left VTCM allocated";
    }
    if (dspc_get_last_error(&ctx)[0]) failures[id] += std::string(" (last error: ") + dspc_get_last_error(&ctx) + ")";
    dspc_context_release(&ctx);
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(work, i);
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(failures[i], "") << "thread " << i;
}

TEST_F(Contexts, ExhaustingOneContextsPoolLeavesTheOtherWorking) {
  dspc_call_fn stage = entry("__dspc_call_stage");
  ASSERT_NE(stage, nullptr);
  dspc_context full, other;
  dspc_context_init(&full);
  dspc_context_init(&other);
  ASSERT_EQ(dspc_vtcm_set_capacity(kArena, &full), 0);
  ASSERT_EQ(dspc_vtcm_set_capacity(kArena, &other), 0);
  void* hog = HexagonBackendAllocateVTCM(kArena, 0, &full);  // full's pool: nothing left
  ASSERT_NE(hog, nullptr);
  Buffers b;
  for (int64_t i = 0; i < kN; ++i) b.a[i] = static_cast<uint8_t>(i);
  std::memset(b.c, 0xA5, kN);
  // The kernel's allocation fails cleanly in `full`: DSPC_ERR_KERNEL (dspc_runtime.h), the
  // pool's message in full's last error, nothing written, nothing leaked.
  EXPECT_EQ(stage(b.args, 2, &full), DSPC_ERR_KERNEL);
  EXPECT_EQ(std::string(dspc_get_last_error(&full)),
            "VTCM allocation of 4096 bytes failed: only 0 of 4096 bytes free, largest free block 0");
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&full), kArena);
  bool untouched = true;
  for (int64_t i = 0; i < kN; ++i) untouched = untouched && b.c[i] == 0xA5;
  EXPECT_TRUE(untouched);
  // `other` is untouched by full's failure and works, again and again.
  EXPECT_STREQ(dspc_get_last_error(&other), "");
  for (int k = 0; k < 3; ++k) {
    ASSERT_EQ(stage(b.args, 2, &other), DSPC_OK) << dspc_get_last_error(&other);
    for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(b.c[i], stage_ref(b.a[i])) << i;
  }
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&other), 0u);
  // Freed, full works again.
  ASSERT_EQ(HexagonBackendFreeVTCM(hog, &full), 0);
  EXPECT_EQ(stage(b.args, 2, &full), DSPC_OK) << dspc_get_last_error(&full);
  dspc_context_release(&full);
  dspc_context_release(&other);
}

TEST_F(Contexts, AGroupFunctionHandsItsContextDownToItsKernels) {
  dspc_call_fn group = entry("__dspc_call___dspc_group_twice_0");
  ASSERT_NE(group, nullptr);
  dspc_context small, enough;
  dspc_context_init(&small);
  dspc_context_init(&enough);
  ASSERT_EQ(dspc_vtcm_set_capacity(kArena - 1, &small), 0);
  ASSERT_EQ(dspc_vtcm_set_capacity(kArena, &enough), 0);
  Buffers b;
  for (int64_t i = 0; i < kN; ++i) b.a[i] = static_cast<uint8_t>(i * 5);
  // The kernels allocate from the group's context: too small a pool fails there, with its message.
  EXPECT_EQ(group(b.args, 2, &small), DSPC_ERR_KERNEL);
  EXPECT_EQ(std::string(dspc_get_last_error(&small)).rfind("VTCM allocation of 4096 bytes failed", 0), 0u)
      << dspc_get_last_error(&small);
  EXPECT_STREQ(dspc_get_last_error(&enough), "");
  ASSERT_EQ(group(b.args, 2, &enough), DSPC_OK) << dspc_get_last_error(&enough);
  for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(b.c[i], stage_ref(stage_ref(b.a[i]))) << i;
  dspc_context_release(&small);
  dspc_context_release(&enough);
}

}  // namespace
