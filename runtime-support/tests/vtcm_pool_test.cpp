// The VTCM pool (device/vtcm_pool.c), compiled unchanged with the host compiler. The pool lives
// in a dspc_context: each test gets a fresh one from the fixture, and the last tests check that
// two contexts are two independent pools (also from two threads at once).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <thread>
#include <string>
#include <vector>

#include "dspc_runtime.h"

extern "C" int dspc_test_live_mappings(void);

namespace {

constexpr uint32_t kDefaultCapacity = DSPC_VTCM_DEFAULT_CAPACITY;  // of this test build
static_assert(kDefaultCapacity == 262144, "the expected messages below spell out the capacity");

class VtcmPool : public ::testing::Test {
 protected:
  void SetUp() override {
    dspc_context_init(&ctx_);
    ASSERT_EQ(dspc_vtcm_bytes_in_use(&ctx_), 0u);
    ASSERT_EQ(dspc_vtcm_set_capacity(kDefaultCapacity, &ctx_), 0);
    dspc_set_last_error("", &ctx_);
  }
  void TearDown() override {
    for (void* p : live_) HexagonBackendFreeVTCM(p, &ctx_);
    live_.clear();
    EXPECT_EQ(dspc_vtcm_bytes_in_use(&ctx_), 0u) << "the test leaked VTCM";
    dspc_context_release(&ctx_);
  }
  void* alloc(uint32_t n, uint32_t align) {
    void* p = HexagonBackendAllocateVTCM(n, align, &ctx_);
    if (p) live_.push_back(p);
    return p;
  }
  int release(void* p) {
    live_.erase(std::remove(live_.begin(), live_.end(), p), live_.end());
    return HexagonBackendFreeVTCM(p, &ctx_);
  }
  std::vector<void*> live_;
  dspc_context ctx_;
};

uintptr_t addr(void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

TEST_F(VtcmPool, DefaultCapacityIsTheBuildsTargetCapacity) {
  EXPECT_EQ(dspc_vtcm_capacity(&ctx_), kDefaultCapacity);
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&ctx_), 0u);
  EXPECT_EQ(dspc_vtcm_num_blocks(&ctx_), 1u);
  EXPECT_EQ(dspc_vtcm_largest_free_block(&ctx_), kDefaultCapacity);
}

TEST_F(VtcmPool, AllocationsAreDisjointAndWritable) {
  void* a = alloc(2048, 0);
  void* b = alloc(2048, 0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(addr(a) + 2048 <= addr(b) || addr(b) + 2048 <= addr(a));
  std::fill_n(static_cast<char*>(a), 2048, 1);
  std::fill_n(static_cast<char*>(b), 2048, 2);
  EXPECT_EQ(static_cast<char*>(a)[2047], 1);
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&ctx_), 4096u);
}

// The pool uses the alignment the build passed (the default target's row of the target
// table), and that is targets/Targets.def's 2048.
TEST_F(VtcmPool, DefaultAlignmentIs2048) {
  EXPECT_EQ(DSPC_VTCM_DEFAULT_ALIGN, 2048u);
  for (uint32_t n : {1u, 100u, 2047u, 2049u, 5000u}) {
    void* p = alloc(n, 0);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(addr(p) % DSPC_VTCM_DEFAULT_ALIGN, 0u) << n;
  }
}

TEST_F(VtcmPool, HonoursEveryPowerOfTwoAlignment) {
  ASSERT_EQ(dspc_vtcm_set_capacity(1 << 20, &ctx_), 0);  // room for the padding of large alignments
  // Odd sizes first, so that later blocks start at awkward offsets.
  ASSERT_NE(alloc(3, 1), nullptr);
  ASSERT_NE(alloc(77, 1), nullptr);
  for (uint32_t align = 1; align <= 65536; align *= 2) {
    void* p = alloc(align + 3, align);
    ASSERT_NE(p, nullptr) << align;
    EXPECT_EQ(addr(p) % align, 0u) << align;
  }
}

TEST_F(VtcmPool, AlignedBlocksPackExactlyUpTo64KiBAlignment) {
  // The compile-time check adds sizes; the pool's base alignment makes that exact.
  ASSERT_EQ(dspc_vtcm_set_capacity(4096, &ctx_), 0);
  EXPECT_NE(alloc(2048, 2048), nullptr);
  EXPECT_NE(alloc(2048, 2048), nullptr);
  TearDown();
  ASSERT_EQ(dspc_vtcm_set_capacity(131072, &ctx_), 0);
  EXPECT_NE(alloc(65536, 65536), nullptr);
  EXPECT_NE(alloc(65536, 65536), nullptr);
}

TEST_F(VtcmPool, NonPowerOfTwoAlignmentIsAnError) {
  EXPECT_EQ(alloc(64, 3), nullptr);
  EXPECT_EQ(alloc(64, 96), nullptr);
  EXPECT_NE(std::string(dspc_get_last_error(&ctx_)).find("VTCM allocation of 64 bytes failed"), std::string::npos);
  EXPECT_NE(std::string(dspc_get_last_error(&ctx_)).find("power of two"), std::string::npos);
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&ctx_), 0u);
}

TEST_F(VtcmPool, ExhaustionReturnsNullAndNamesTheSize) {
  ASSERT_NE(alloc(kDefaultCapacity - 4096, 0), nullptr);
  EXPECT_EQ(alloc(8192, 0), nullptr);
  EXPECT_EQ(std::string(dspc_get_last_error(&ctx_)),
            "VTCM allocation of 8192 bytes failed: only 4096 of 262144 bytes free, largest free block 4096");
  EXPECT_NE(alloc(4096, 0), nullptr);  // what is left still serves
  EXPECT_EQ(dspc_vtcm_largest_free_block(&ctx_), 0u);
  EXPECT_EQ(alloc(1, 1), nullptr);
}

TEST_F(VtcmPool, RequestLargerThanCapacityFails) {
  EXPECT_EQ(alloc(kDefaultCapacity + 1, 0), nullptr);
  EXPECT_NE(std::string(dspc_get_last_error(&ctx_))
                .find("VTCM allocation of 262145 bytes failed: only 262144 of 262144"),
            std::string::npos);
  EXPECT_NE(alloc(kDefaultCapacity, 0), nullptr);  // exactly the capacity fits
}

TEST_F(VtcmPool, BestFitPicksTheSmallestHoleThatFits) {
  // Carve holes of 8 KiB, 2 KiB, 4 KiB separated by used blocks.
  void* h8 = alloc(8192, 2048);
  void* s1 = alloc(2048, 2048);
  void* h2 = alloc(2048, 2048);
  void* s2 = alloc(2048, 2048);
  void* h4 = alloc(4096, 2048);
  void* s3 = alloc(2048, 2048);
  ASSERT_TRUE(h8 && s1 && h2 && s2 && h4 && s3);
  uintptr_t a8 = addr(h8), a2 = addr(h2), a4 = addr(h4);
  release(h8);
  release(h2);
  release(h4);
  EXPECT_EQ(addr(alloc(3000, 2048)), a4);  // 4 KiB hole, not the 8 KiB one or the tail
  EXPECT_EQ(addr(alloc(2048, 2048)), a2);
  EXPECT_EQ(addr(alloc(8000, 2048)), a8);
}

TEST_F(VtcmPool, FragmentationLimitsTheLargestBlock) {
  std::vector<void*> blocks;
  for (int i = 0; i < 64; i++) blocks.push_back(alloc(4096, 4096));  // fills 256 KiB
  ASSERT_EQ(std::count(blocks.begin(), blocks.end(), nullptr), 0);
  for (size_t i = 0; i < blocks.size(); i += 2) release(blocks[i]);  // every other one
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&ctx_), 32u * 4096);
  EXPECT_EQ(dspc_vtcm_largest_free_block(&ctx_), 4096u);
  EXPECT_EQ(alloc(8192, 0), nullptr);  // 128 KiB free, but no two adjacent blocks
  EXPECT_NE(
      std::string(dspc_get_last_error(&ctx_)).find("only 131072 of 262144 bytes free, largest free block 4096"),
      std::string::npos);
  release(blocks[1]);  // joins blocks 0..2 into 12 KiB
  EXPECT_EQ(dspc_vtcm_largest_free_block(&ctx_), 12288u);
  EXPECT_NE(alloc(12288, 4096), nullptr);
}

TEST_F(VtcmPool, FreeInEveryOrderCoalescesToOneBlock) {
  std::vector<int> order = {0, 1, 2, 3, 4};
  int permutations = 0;
  do {
    void* p[5];
    for (int i = 0; i < 5; i++) {
      p[i] = HexagonBackendAllocateVTCM(1000 * (i + 1), 128 << i, &ctx_);
      ASSERT_NE(p[i], nullptr);
    }
    for (int i : order) ASSERT_EQ(HexagonBackendFreeVTCM(p[i], &ctx_), 0);
    ASSERT_EQ(dspc_vtcm_num_blocks(&ctx_), 1u);
    ASSERT_EQ(dspc_vtcm_largest_free_block(&ctx_), kDefaultCapacity);
    ASSERT_EQ(dspc_vtcm_bytes_in_use(&ctx_), 0u);
    permutations++;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(permutations, 120);
}

TEST_F(VtcmPool, RandomAllocFreeKeepsBlocksDisjointAndReturnsToEmpty) {
  std::mt19937 rng(1234);
  struct Live {
    uintptr_t at;
    uint32_t n;
  };
  std::vector<Live> live;
  uint64_t expected_in_use = 0;
  for (int step = 0; step < 5000; step++) {
    if (live.empty() || rng() % 3 != 0) {
      uint32_t n = rng() % 9000;
      uint32_t align = 1u << (rng() % 13);
      void* p = HexagonBackendAllocateVTCM(n, align, &ctx_);
      if (!p) {
        EXPECT_NE(std::string(dspc_get_last_error(&ctx_)).find("VTCM allocation of " + std::to_string(n)),
                  std::string::npos);
        continue;
      }
      ASSERT_EQ(addr(p) % align, 0u);
      for (const Live& l : live)
        ASSERT_TRUE(addr(p) + std::max(n, 1u) <= l.at || l.at + std::max(l.n, 1u) <= addr(p));
      live.push_back({addr(p), n});
      expected_in_use += n;
    } else {
      size_t i = rng() % live.size();
      ASSERT_EQ(HexagonBackendFreeVTCM(reinterpret_cast<void*>(live[i].at), &ctx_), 0);
      expected_in_use -= live[i].n;
      live.erase(live.begin() + i);
    }
    ASSERT_EQ(dspc_vtcm_bytes_in_use(&ctx_), expected_in_use);
  }
  for (const Live& l : live) ASSERT_EQ(HexagonBackendFreeVTCM(reinterpret_cast<void*>(l.at), &ctx_), 0);
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&ctx_), 0u);
  EXPECT_EQ(dspc_vtcm_num_blocks(&ctx_), 1u);
}

TEST_F(VtcmPool, BadFreeIsReportedAndChangesNothing) {
  void* p = alloc(4096, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_NE(HexagonBackendFreeVTCM(static_cast<char*>(p) + 16, &ctx_), 0);
  EXPECT_NE(std::string(dspc_get_last_error(&ctx_)).find("not a block allocated from the VTCM pool"),
            std::string::npos);
  EXPECT_NE(HexagonBackendFreeVTCM(nullptr, &ctx_), 0);
  int on_stack;
  EXPECT_NE(HexagonBackendFreeVTCM(&on_stack, &ctx_), 0);
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&ctx_), 4096u);
  EXPECT_EQ(release(p), 0);
  EXPECT_NE(HexagonBackendFreeVTCM(p, &ctx_), 0);  // a double free
}

TEST_F(VtcmPool, CapacityOverride) {
  ASSERT_EQ(dspc_vtcm_set_capacity(8192, &ctx_), 0);
  EXPECT_EQ(dspc_vtcm_capacity(&ctx_), 8192u);
  void* p = alloc(8192, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_NE(dspc_vtcm_set_capacity(1 << 20, &ctx_), 0);  // not while blocks are out
  EXPECT_NE(std::string(dspc_get_last_error(&ctx_)).find("cannot change the VTCM capacity"), std::string::npos);
  EXPECT_EQ(dspc_vtcm_capacity(&ctx_), 8192u);
  EXPECT_EQ(alloc(1, 1), nullptr);
  EXPECT_NE(std::string(dspc_get_last_error(&ctx_)).find("of 8192 bytes free"), std::string::npos);
  release(p);
  ASSERT_EQ(dspc_vtcm_set_capacity(1 << 20, &ctx_), 0);  // empty again: allowed
  EXPECT_NE(alloc((1 << 20) - 2048, 0), nullptr);
}

TEST_F(VtcmPool, ZeroCapacityFailsEveryAllocation) {
  ASSERT_EQ(dspc_vtcm_set_capacity(0, &ctx_), 0);
  EXPECT_EQ(alloc(1, 0), nullptr);
  EXPECT_EQ(std::string(dspc_get_last_error(&ctx_)),
            "VTCM allocation of 1 bytes failed: only 0 of 0 bytes free, largest free block 0");
}

TEST_F(VtcmPool, CapacityChangeReleasesTheBackingMemory) {
  ASSERT_EQ(dspc_vtcm_set_capacity(65536, &ctx_), 0);
  int before = dspc_test_live_mappings();
  ASSERT_NE(alloc(100, 0), nullptr);
  EXPECT_EQ(dspc_test_live_mappings(), before + 1);  // mapped lazily, once
  ASSERT_NE(alloc(100, 0), nullptr);
  EXPECT_EQ(dspc_test_live_mappings(), before + 1);
  TearDown();
  ASSERT_EQ(dspc_vtcm_set_capacity(131072, &ctx_), 0);
  EXPECT_EQ(dspc_test_live_mappings(), before);
}

TEST_F(VtcmPool, ZeroByteAllocationsAreDistinctAndFreeable) {
  void* a = alloc(0, 1);
  void* b = alloc(0, 1);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&ctx_), 0u);
  EXPECT_EQ(release(a), 0);
  EXPECT_EQ(release(b), 0);
}

TEST_F(VtcmPool, BlockTableExhaustion) {
  // 1-byte blocks with alignment 1 use one table entry each (plus the free tail).
  std::vector<void*> blocks;
  for (;;) {
    void* p = alloc(1, 1);
    if (!p) break;
    blocks.push_back(p);
    ASSERT_LE(blocks.size(), 256u);
  }
  EXPECT_EQ(blocks.size(), 255u);
  EXPECT_EQ(dspc_vtcm_num_blocks(&ctx_), 256u);
  EXPECT_NE(std::string(dspc_get_last_error(&ctx_))
                .find("VTCM allocation of 1 bytes failed: the pool's block table is full"),
            std::string::npos);
  // The last free block can still be taken whole: no new table entry needed.
  release(blocks.back());
  blocks.pop_back();
  EXPECT_NE(alloc(1, 1), nullptr);
  void* whole_tail = alloc(kDefaultCapacity - 255, 1);
  EXPECT_NE(whole_tail, nullptr);
  EXPECT_EQ(dspc_vtcm_largest_free_block(&ctx_), 0u);
}

}  // namespace

// The device server serves VTCM from the arena it shares with the host.
namespace {
TEST_F(VtcmPool, ServesCallerMemoryWithoutMappingOrUnmappingIt) {
  alignas(65536) static char memory[128 << 10];
  int mappings = dspc_test_live_mappings();
  ASSERT_EQ(dspc_vtcm_use_memory(memory, sizeof memory, &ctx_), 0) << dspc_get_last_error(&ctx_);
  EXPECT_EQ(dspc_vtcm_capacity(&ctx_), sizeof memory);
  char* a = static_cast<char*>(alloc(4096, 2048));
  char* b = static_cast<char*>(alloc(64 << 10, 2048));
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(a >= memory && a + 4096 <= memory + sizeof memory);
  EXPECT_TRUE(b >= memory && b + (64 << 10) <= memory + sizeof memory);
  EXPECT_EQ(alloc(64 << 10, 2048), nullptr); // 128 KiB, not the default capacity
  EXPECT_EQ(dspc_test_live_mappings(), mappings);
  EXPECT_NE(dspc_vtcm_use_memory(memory, sizeof memory, &ctx_), 0); // blocks are allocated
  EXPECT_EQ(release(a), 0);
  EXPECT_EQ(release(b), 0);
  EXPECT_NE(dspc_vtcm_use_memory(memory + 4096, 65536, &ctx_), 0); // not 64 KiB aligned
  EXPECT_NE(std::string(dspc_get_last_error(&ctx_)).find("64 KiB aligned"), std::string::npos);
  EXPECT_EQ(dspc_vtcm_set_capacity(kDefaultCapacity, &ctx_), 0); // back to a lazy mapping of its own
  EXPECT_EQ(dspc_test_live_mappings(), mappings);
}
}  // namespace

// Two contexts: two pools, two last errors.
namespace {

TEST(VtcmContexts, EachContextHasItsOwnPoolAndLastError) {
  dspc_context a, b;
  dspc_context_init(&a);
  dspc_context_init(&b);
  ASSERT_EQ(dspc_vtcm_set_capacity(8192, &a), 0);
  void* pa = HexagonBackendAllocateVTCM(8192, 0, &a);
  void* pb = HexagonBackendAllocateVTCM(8192, 0, &b);
  ASSERT_TRUE(pa && pb);
  EXPECT_TRUE(addr(pa) + 8192 <= addr(pb) || addr(pb) + 8192 <= addr(pa));
  EXPECT_EQ(dspc_vtcm_capacity(&b), kDefaultCapacity);  // a's override is a's alone
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&a), 8192u);
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&b), 8192u);
  // A block belongs to the pool that gave it: b cannot free a's.
  EXPECT_NE(HexagonBackendFreeVTCM(pa, &b), 0);
  EXPECT_NE(std::string(dspc_get_last_error(&b)).find("not a block allocated from the VTCM pool"), std::string::npos);
  EXPECT_STREQ(dspc_get_last_error(&a), "");
  EXPECT_EQ(HexagonBackendFreeVTCM(pa, &a), 0);
  EXPECT_EQ(HexagonBackendFreeVTCM(pb, &b), 0);
  dspc_context_release(&a);
  dspc_context_release(&b);
}

TEST(VtcmContexts, ExhaustingOnePoolLeavesTheOtherWorking) {
  dspc_context full, other;
  dspc_context_init(&full);
  dspc_context_init(&other);
  ASSERT_EQ(dspc_vtcm_set_capacity(65536, &full), 0);
  ASSERT_EQ(dspc_vtcm_set_capacity(65536, &other), 0);
  void* all = HexagonBackendAllocateVTCM(65536, 0, &full);
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(HexagonBackendAllocateVTCM(2048, 0, &full), nullptr);
  EXPECT_EQ(std::string(dspc_get_last_error(&full)),
            "VTCM allocation of 2048 bytes failed: only 0 of 65536 bytes free, largest free block 0");
  for (int i = 0; i < 32; i++) {  // the whole of other's pool, again and again
    void* p = HexagonBackendAllocateVTCM(65536, 0, &other);
    ASSERT_NE(p, nullptr) << dspc_get_last_error(&other);
    ASSERT_EQ(HexagonBackendFreeVTCM(p, &other), 0);
  }
  EXPECT_STREQ(dspc_get_last_error(&other), "");
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&full), 65536u);
  // Releasing a context returns what is still allocated in it.
  dspc_context_release(&full);
  EXPECT_EQ(dspc_vtcm_bytes_in_use(&full), 0u);
  void* again = HexagonBackendAllocateVTCM(65536, 0, &full);
  EXPECT_NE(again, nullptr);
  dspc_context_release(&full);
  dspc_context_release(&other);
}

// Two threads, each with its own context, allocate and free at random at the same time. Each
// checks its own pool's accounting and that its blocks stay its own (a fill pattern per thread),
// and the errors it provokes land in its own last error only.
TEST(VtcmContexts, TwoThreadsWithTwoContextsDoNotInterfere) {
  constexpr int kThreads = 2;
  std::string failures[kThreads];
  auto work = [&](int id) {
    dspc_context ctx;
    dspc_context_init(&ctx);
    std::mt19937 rng(1234u + id);
    struct Live { uint8_t* p; uint32_t n; };
    std::vector<Live> live;
    uint32_t in_use = 0;
    const uint8_t fill = static_cast<uint8_t>(0x40 + id);
    for (int step = 0; step < 20000 && failures[id].empty(); step++) {
      if (live.empty() || rng() % 2) {
        uint32_t n = 1 + rng() % 8192;
        auto* p = static_cast<uint8_t*>(HexagonBackendAllocateVTCM(n, 128u << (rng() % 4), &ctx));
        if (!p) {
          if (std::string(dspc_get_last_error(&ctx)).find("VTCM allocation of " + std::to_string(n)) != 0)
            failures[id] = "unexpected error: " + std::string(dspc_get_last_error(&ctx));
          continue;
        }
        std::fill(p, p + n, fill);
        live.push_back({p, n});
        in_use += n;
      } else {
        size_t i = rng() % live.size();
        for (uint32_t k = 0; k < live[i].n; k++)
          if (live[i].p[k] != fill) failures[id] = "another thread wrote into this thread's block";
        if (HexagonBackendFreeVTCM(live[i].p, &ctx) != 0) failures[id] = dspc_get_last_error(&ctx);
        in_use -= live[i].n;
        live.erase(live.begin() + static_cast<long>(i));
      }
      if (dspc_vtcm_bytes_in_use(&ctx) != in_use) failures[id] = "bytes in use disagree";
    }
    // A bad free names this context's pool and leaves the other thread's last error alone.
    int on_stack = 0;
    if (HexagonBackendFreeVTCM(&on_stack, &ctx) == 0) failures[id] = "a bad free succeeded";
    dspc_context_release(&ctx);
    if (dspc_vtcm_bytes_in_use(&ctx) != 0) failures[id] = "release left VTCM in use";
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++) threads.emplace_back(work, i);
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; i++) EXPECT_EQ(failures[i], "") << "thread " << i;
}

}  // namespace
