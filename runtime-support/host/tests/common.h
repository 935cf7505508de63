// Helpers of the session tests: module paths, and the leak checks (descriptors, children).
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
