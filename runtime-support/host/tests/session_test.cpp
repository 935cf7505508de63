// Sessions that work: on hexagon-v68 (qemu-hexagon + the device server) and host (in-process),
// the same code. Failures are in failure_test.cpp.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>

#include "common.h"

namespace {

class SessionTest : public ::testing::TestWithParam<std::string> {
 protected:
  dspc::SessionOptions options() {
    dspc::SessionOptions o;
    o.target = GetParam();
    return o;
  }
  dspc::SessionOptions lazy_options() {
    dspc::SessionOptions o = options();
    o.lazy_calls = true;
    return o;
  }
};

TEST_P(SessionTest, AddsThroughThePackedEntry) {
  Session s(options());
  auto m = Module::load(s, module_path(GetParam(), "v1"));
  auto add = m.function("add_i32");
  ASSERT_EQ(add.params().size(), 3u);
  EXPECT_EQ(add.params()[1].name, "B");
  EXPECT_TRUE(add.params()[2].is_output);
  EXPECT_EQ(add.params()[0].shape, std::vector<int64_t>{1024});
  EXPECT_EQ(add.params()[0].dtype, DType::i32());
  std::vector<int32_t> a(1024), b(1024), c(1024);
  for (int i = 0; i < 1024; i++) a[i] = i * 7 - 100, b[i] = -i * i;
  DeviceBuffer A(s, DType::i32(), {1024}), B(s, DType::i32(), {1024}), C(s, DType::i32(), {1024});
  A.copy_from_host(a);
  B.copy_from_host(b);
  add(A, B, C);
  C.copy_to_host(c);
  for (int i = 0; i < 1024; i++) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  m.function("empty")();
}

// The round-trip counter: a call is one message, a copy none (it is a memcpy into the shared
// arena); an in-process session sends no messages at all.
TEST_P(SessionTest, CountsRoundTripsOfCallsNotCopies) {
  Session s(options());
  auto m = Module::load(s, module_path(GetParam(), "v1"));
  auto add = m.function("add_i32");
  std::vector<int32_t> a(1024, 5), c(1024);
  DeviceBuffer A(s, DType::i32(), {1024}), B(s, DType::i32(), {1024}), C(s, DType::i32(), {1024});
  bool remote = GetParam() != "host";
  uint64_t setup = s.round_trips();
  EXPECT_EQ(setup > 0, remote);  // open, load, lookup, three allocations
  A.copy_from_host(a);
  B.copy_from_host(a);
  EXPECT_EQ(s.round_trips(), setup);
  for (int i = 0; i < 3; i++) add(A, B, C);
  C.copy_to_host(c);
  EXPECT_EQ(c[7], 10);
  EXPECT_EQ(s.round_trips() - setup, remote ? 3u : 0u);
}

// The lazy call queue: twelve calls are one round trip, sent at the copy out; without it, twelve.
TEST_P(SessionTest, LazyQueueSendsQueuedCallsAsOneRequest) {
  for (bool lazy : {true, false}) {
    dspc::SessionOptions o = options();
    o.lazy_calls = lazy;
    Session s(o);
    auto m = Module::load(s, module_path(GetParam(), "v1"));
    auto add = m.function("add_i32");
    std::vector<int32_t> one(1024, 1), out(1024);
    DeviceBuffer A(s, DType::i32(), {1024}), B(s, DType::i32(), {1024}), C(s, DType::i32(), {1024});
    A.copy_from_host(one);
    B.copy_from_host(one);
    uint64_t before = s.round_trips();
    for (int i = 0; i < 6; i++) {  // C = A + B, then A = C + B: A grows by 2 per pair
      add(A, B, C);
      add(C, B, A);
    }
    EXPECT_EQ(s.queued_calls(), lazy ? 12u : 0u);
    bool remote = GetParam() != "host";
    EXPECT_EQ(s.round_trips() - before, lazy || !remote ? 0u : 12u);
    A.copy_to_host(out);  // the synchronization point
    EXPECT_EQ(s.queued_calls(), 0u);
    EXPECT_EQ(s.round_trips() - before, !remote ? 0u : lazy ? 1u : 12u) << (lazy ? "lazy" : "eager");
    EXPECT_EQ(out[5], 13);
  }
}

// A copy of a buffer that no queued call uses waits for nothing and sends nothing; a copy into
// a buffer a queued call reads waits for the queue, so the call sees the value it was queued
// with (a graph's host step results, copied in between device calls).
TEST_P(SessionTest, LazyQueueCopiesOfOtherBuffersDoNotFlush) {
  Session s(lazy_options());
  auto m = Module::load(s, module_path(GetParam(), "v1"));
  auto add = m.function("add_i32");
  std::vector<int32_t> one(1024, 1), two(1024, 2), out(1024);
  DeviceBuffer A(s, DType::i32(), {1024}), B(s, DType::i32(), {1024}), C(s, DType::i32(), {1024});
  DeviceBuffer D(s, DType::i32(), {1024}), E(s, DType::i32(), {1024});
  A.copy_from_host(one);
  B.copy_from_host(one);
  uint64_t before = s.round_trips();
  add(A, B, C);            // C = 2
  D.copy_from_host(two);   // D is not used by the queue: no flush
  D.copy_to_host(out);     // nor is this
  EXPECT_EQ(out[3], 2);
  EXPECT_EQ(s.queued_calls(), 1u);
  add(C, D, E);            // E = 4
  EXPECT_EQ(s.queued_calls(), 2u);
  EXPECT_EQ(s.round_trips(), before);
  B.copy_from_host(two);   // B is read by the first queued call: the queue goes first
  EXPECT_EQ(s.queued_calls(), 0u);
  bool remote = GetParam() != "host";
  EXPECT_EQ(s.round_trips() - before, remote ? 1u : 0u);
  E.copy_to_host(out);
  EXPECT_EQ(out[9], 4);    // the first call saw B = 1, not 2
  add(A, B, C);            // C = 3
  C.copy_to_host(out);     // C is written by a queued call: the queue goes first
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(s.round_trips() - before, remote ? 2u : 0u);
}

// A queued call that fails is reported at the flush, by its place in the queue and its name;
// the calls queued after it do not run, and the session keeps working.
TEST_P(SessionTest, LazyQueueNamesTheFailingCall) {
  Session s(lazy_options());
  auto m = Module::load(s, module_path(GetParam(), "v1"));
  auto add = m.function("add_i32");
  std::vector<int32_t> one(1024, 1), out(1024);
  DeviceBuffer A(s, DType::i32(), {1024}), B(s, DType::i32(), {1024}), C(s, DType::i32(), {1024});
  DeviceBuffer Wrong(s, DType::i8(), {1024});
  A.copy_from_host(one);
  B.copy_from_host(one);
  add(A, B, C);
  add(A, Wrong, C);  // queued: the checked entry refuses it on the device
  add(C, B, A);
  try {
    s.sync();
    FAIL() << "the bad call was not reported";
  } catch (const dspc::Error& e) {
    EXPECT_EQ(e.kind(), dspc::ErrorKind::BadArgument);
    std::string what = e.what();
    EXPECT_NE(what.find("queued call 2 of 3 (add_i32) failed: "), std::string::npos) << what;
    EXPECT_NE(what.find("argument 1 (B): expected "), std::string::npos) << what;
    EXPECT_NE(what.find("got i8[1024]"), std::string::npos) << what;
    EXPECT_NE(what.find("(the 1 call queued after it did not run)"), std::string::npos) << what;
  }
  A.copy_to_host(out);
  EXPECT_EQ(out[0], 1);  // the third call did not run
  C.copy_to_host(out);
  EXPECT_EQ(out[0], 2);  // the first did
  add(C, B, A);
  A.copy_to_host(out);
  EXPECT_EQ(out[0], 3);
}

// A queued call that fails after an eager call failed: the batch reply's index and status
// arrive whole. (lld 19 had corrupted the device server's stores of
// them, so bytes of the previous reply's error text showed through; the session closed with
// "malformed reply", or the failure came back as the wrong kind.)
TEST_P(SessionTest, LazyFailureAfterAnEagerFailure) {
  Session s(options());
  auto m = Module::load(s, module_path(GetParam(), "v1"));
  auto add = m.function("add_i32");
  DeviceBuffer A(s, DType::i32(), {1024}), B(s, DType::i32(), {1024}), C(s, DType::i32(), {1024});
  DeviceBuffer Wrong(s, DType::i8(), {1024});
  for (int round = 0; round < 2; round++) {
    try {
      add(A, Wrong, C);  // eager: its reply's error text fills the bytes after the status
      FAIL() << "the bad call was accepted";
    } catch (const dspc::Error& e) {
      EXPECT_EQ(e.kind(), dspc::ErrorKind::BadArgument) << e.what();
    }
    s.set_lazy_calls(true);
    add(A, B, C);
    add(A, Wrong, C);
    try {
      s.sync();
      FAIL() << "the bad queued call was not reported";
    } catch (const dspc::Error& e) {
      EXPECT_EQ(e.kind(), dspc::ErrorKind::BadArgument) << e.what();
      EXPECT_EQ(e.status(), 2);
      EXPECT_NE(std::string(e.what()).find("queued call 2 of 2 (add_i32) failed: add_i32: argument 1 (B)"),
                std::string::npos)
          << e.what();
    }
    EXPECT_TRUE(s.is_open());
    s.set_lazy_calls(false);
  }
}

TEST_P(SessionTest, StagesThroughVtcmWithVtcmArguments) {
  Session s(options());
  auto m = Module::load(s, module_path(GetParam(), "v1"));
  std::vector<int8_t> a(2048), c(2048);
  for (int i = 0; i < 2048; i++) a[i] = int8_t(i * 13);
  DeviceBuffer A(s, DType::i8(), {2048}, dspc::Memory::VTCM), C(s, DType::i8(), {2048});
  A.copy_from_host(a);
  m.function("stage_vtcm")(A, C);
  C.copy_to_host(c);
  for (int i = 0; i < 2048; i++) ASSERT_EQ(c[i], int8_t(a[i] + 1)) << i;
}

// No RPC buffer limits a tensor: 64 MiB goes in, through a kernel (memcpy on the device) and
// out, bit-exact.
TEST_P(SessionTest, SixtyFourMebibyteTensorRoundTripsBitExact) {
  // A 64 MiB device memcpy under qemu is work, not a hang: on a loaded CI machine it once took
  // longer than the default 5 s deadline, so this test (which checks the bytes, not the
  // deadline; the failure tests check that) gives it a minute.
  dspc::SessionOptions o = options();
  o.deadline = std::chrono::milliseconds(60000);
  Session s(o);
  auto m = Module::load(s, module_path(GetParam(), "v1"));
  const size_t n = 64u << 20;
  std::vector<uint8_t> in(n), out(n), back(n);
  std::mt19937_64 rng(10);
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = rng();
    std::memcpy(&in[i], &v, 8);
  }
  DeviceBuffer A(s, DType::u8(), {int64_t(n)}), C(s, DType::u8(), {int64_t(n)});
  A.copy_from_host(in);
  A.copy_to_host(back);
  EXPECT_TRUE(back == in);
  m.function("copy_big")(A, C);
  C.copy_to_host(out);
  EXPECT_TRUE(out == in);
}

// Load, unload, reload at the same address: the new code runs, not a stale translation.
TEST_P(SessionTest, ReloadAtTheSameAddressRunsTheNewCode) {
  Session s(options());
  std::vector<int32_t> x(2);
  DeviceBuffer X(s, DType::i32(), {2});
  int32_t first_address = 0;
  for (int round = 0; round < 3; round++) {
    const char* variant = round % 2 ? "v2" : "v1";
    // Through bytes, so that the host target cannot hand back its cached copy of the path.
    auto m = Module::load_bytes(s, read_bytes(module_path(GetParam(), variant)));
    m.function("version")(X);
    X.copy_to_host(x);
    EXPECT_EQ(x[0], round % 2 ? 2 : 1) << "round " << round;
    if (round == 0) first_address = x[1];
    if (GetParam() != "host") {
      EXPECT_EQ(x[1], first_address) << "the module moved; the test proves nothing";
    }
    m.unload();
  }
}

TEST_P(SessionTest, NormalShutdownIsNotAnError) {
  int fds = open_fds();
  {
    Session s(options());
    DeviceBuffer A(s, DType::i32(), {16});
    auto m = Module::load(s, module_path(GetParam(), "v1"));
    EXPECT_NO_THROW(s.close());
    EXPECT_FALSE(s.is_open());
    EXPECT_EQ(s.server_pid(), -1);
    EXPECT_THROW(m.function("empty"), dspc::Error);  // closed, reported, no crash
  }  // buffers and modules of a closed session are destroyed quietly
  EXPECT_TRUE(no_children());
  EXPECT_EQ(open_fds(), fds);
  { Session s(options()); }  // the destructor shuts down too
  EXPECT_TRUE(no_children());
  EXPECT_EQ(open_fds(), fds);
}

TEST_P(SessionTest, LookupOfAMissingFunctionNamesIt) {
  Session s(options());
  auto m = Module::load(s, module_path(GetParam(), "v1"));
  try {
    m.function("no_such_kernel");
    FAIL() << "no error";
  } catch (const dspc::Error& e) {
    EXPECT_EQ(e.kind(), dspc::ErrorKind::NotFound);
    EXPECT_NE(std::string(e.what()).find("no function 'no_such_kernel'"), std::string::npos) << e.what();
  }
}

// A bare file name is a file in the current directory on both targets (in-process, dlopen
// searched its library path for it).
TEST_P(SessionTest, LoadsAModuleByABareFileName) {
  Session s(options());
  std::string path = module_path(GetParam(), "v1");
  char* cwd = getcwd(nullptr, 0);
  ASSERT_EQ(chdir(path.substr(0, path.rfind('/')).c_str()), 0);
  try {
    auto m = Module::load(s, "kernels_v1.so");
    expect_add_i32_works(s, m);
  } catch (const dspc::Error& e) {
    ADD_FAILURE() << e.what();
  }
  EXPECT_EQ(chdir(cwd), 0);
  std::free(cwd);
}

// What a call through a session carries, alike on both targets, eager or queued: at most 64
// parameters and arguments, tensors of rank 8 at most. A queued call beyond that is refused
// when it is made, and the calls queued before it still run.
TEST_P(SessionTest, CallLimitsAreTheSameOnBothTargetsAndQueued) {
  Session s(options());
  auto m = Module::load(s, module_path(GetParam(), "v1"));
  try {
    m.function("many_params");
    ADD_FAILURE() << "a function of 65 parameters was looked up";
  } catch (const dspc::Error& e) {
    EXPECT_EQ(int(e.kind()), int(dspc::ErrorKind::Usage));
    EXPECT_EQ(std::string(e.what()),
              "looking up 'many_params': the function has more than 64 parameters, the most a call through a "
              "session passes");
  }
  auto empty = m.function("empty");
  auto add = m.function("add_i32");
  std::vector<DeviceBuffer> many;
  for (int i = 0; i < 65; i++) many.emplace_back(s, DType::i32(), std::vector<int64_t>{1});
  std::vector<const DeviceBuffer*> args;
  for (auto& b : many) args.push_back(&b);
  DeviceBuffer rank9(s, DType::i8(), {1, 1, 1, 1, 1, 1, 1, 1, 1});
  std::vector<int32_t> one(1024, 1), out(1024);
  DeviceBuffer A(s, DType::i32(), {1024}), C(s, DType::i32(), {1024});
  A.copy_from_host(one);
  for (bool lazy : {false, true}) {
    SCOPED_TRACE(lazy ? "lazy" : "eager");
    s.set_lazy_calls(lazy);
    add(A, A, C);  // a valid call first: queued, in lazy mode
    try {
      empty.call(args);
      ADD_FAILURE() << "65 arguments were accepted";
    } catch (const dspc::Error& e) {
      EXPECT_EQ(int(e.kind()), int(dspc::ErrorKind::Usage));
      EXPECT_EQ(std::string(e.what()), "empty: 65 arguments; a call through a session passes at most 64");
    }
    try {
      empty(rank9);
      ADD_FAILURE() << "a rank-9 argument was accepted";
    } catch (const dspc::Error& e) {
      EXPECT_EQ(int(e.kind()), int(dspc::ErrorKind::Usage));
      EXPECT_EQ(std::string(e.what()),
                "empty: argument 0 has rank 9; a call through a session passes tensors of rank 8 at most");
    }
    EXPECT_EQ(s.queued_calls(), lazy ? 1u : 0u);
    s.sync();
    C.copy_to_host(out);
    EXPECT_EQ(out[17], 2);  // the valid call ran
    std::vector<int32_t> zero(1024, 0);
    C.copy_from_host(zero);
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, SessionTest, ::testing::Values("hexagon-v68", "host"),
                         [](const auto& info) {
                           return info.param == "host" ? std::string("host") : std::string("hexagon_v68");
                         });

}  // namespace
