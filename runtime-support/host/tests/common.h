// Helpers of the session tests: module paths, the leak checks (descriptors, children), and
// the checks of failures (the error, its kind and time; the session closed).
#pragma once

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "dspc/host.h"

using dspc::DeviceBuffer;
using dspc::DType;
using dspc::ErrorKind;
using dspc::Module;
using dspc::Session;

inline std::string module_path(const std::string& target, const std::string& variant) {
  return std::string(DSPC_SESSION_MODULES) + "/" + target + "/kernels_" + variant + ".so";
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline int open_fds() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

// True when this process has no child left, running or unreaped.
inline bool no_children() {
  return waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The module's add_i32 gives the right answer in the session.
inline void expect_add_i32_works(dspc::Session& s, const dspc::Module& m) {
  std::vector<int32_t> a(1024), b(1024), c(1024);
  for (int i = 0; i < 1024; i++) a[i] = i, b[i] = 3 * i;
  dspc::DeviceBuffer A(s, dspc::DType::i32(), {1024}), B(s, dspc::DType::i32(), {1024}),
      C(s, dspc::DType::i32(), {1024});
  A.copy_from_host(a);
  B.copy_from_host(b);
  m.function("add_i32")(A, B, C);
  C.copy_to_host(c);
  for (int i = 0; i < 1024; i++) ASSERT_EQ(c[i], 4 * i);
}

// A new session of the target works: add_i32 gives the right answer.
inline void expect_new_session_works(const std::string& target) {
  dspc::SessionOptions o;
  o.target = target;
  dspc::Session s(o);
  expect_add_i32_works(s, dspc::Module::load(s, module_path(target, "v1")));
}

const std::string kHex = "hexagon-v68";

inline std::string contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos ? "" : "'" + haystack + "' lacks '" + needle + "'";
}

// Runs body, which must throw dspc::Error of the kind, with a message containing text, within
// 5 s; returns the message.
template <class F>
std::string expect_error(dspc::ErrorKind kind, const std::string& text, F body) {
  auto t0 = Clock::now();
  try {
    body();
  } catch (const dspc::Error& e) {
    EXPECT_EQ(int(e.kind()), int(kind)) << e.what();
    EXPECT_EQ(contains(e.what(), text), "");
    EXPECT_LT(seconds_since(t0), 5.0);
    return e.what();
  }
  ADD_FAILURE() << "no error (expected one containing '" << text << "')";
  return "";
}

// Tests of failures: none leaves a descriptor or a child behind, and a new session works after.
class FailureTest : public ::testing::Test {
 protected:
  void SetUp() override { fds_ = open_fds(); }
  void TearDown() override {
    EXPECT_TRUE(no_children()) << "a server was left running or unreaped";
    EXPECT_EQ(open_fds(), fds_) << "descriptors leaked";
    expect_new_session_works(kHex);
  }
  int fds_ = 0;
};

// The session died with the server: closed, reaped, further use reported.
inline void expect_closed(dspc::Session& s) {
  EXPECT_FALSE(s.is_open());
  EXPECT_EQ(s.server_pid(), -1);
  EXPECT_TRUE(no_children());
  expect_error(dspc::ErrorKind::Closed, "the session is closed",
               [&] { dspc::DeviceBuffer b(s, dspc::DType::u8(), {4}); });
}
