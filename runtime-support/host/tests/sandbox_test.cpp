// The device server as a sandbox (docs/security.md): what a module cannot do to the host, and
// what the host does not hand to the server. The attacks are the functions of
// tests/sandbox_kernels.c, a Hexagon module; each one leaves the host untouched, and a new
// session works after it (FailureTest's teardown).
#include <dirent.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "common.h"

namespace {

using dspc::DeviceBuffer;
using dspc::DType;
using dspc::ErrorKind;
using dspc::Module;
using dspc::Session;

using Sandbox = FailureTest;

// The module of attacks, tests/sandbox_kernels.c.
std::string attacks() {
  return std::string(DSPC_SESSION_MODULES) + "/" + kHex + "/sandbox.so";
}

// The descriptors open in process pid.
std::set<int> descriptors_of(int pid) {
  std::set<int> fds;
  DIR* d = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str());
  while (dirent* e = d ? readdir(d) : nullptr)
    if (e->d_name[0] != '.') fds.insert(std::atoi(e->d_name));
  if (d) closedir(d);
  return fds;
}

// The environment of process pid, NAME=VALUE entries.
std::vector<std::string> environment_of(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  std::vector<std::string> env;
  for (std::string e; std::getline(in, e, '\0');) env.push_back(e);
  return env;
}

// Whether some socket listens on TCP port `port` (IPv4 or IPv6), from /proc/net/tcp{,6}.
bool listening_on(int port) {
  char hex[8];
  std::snprintf(hex, sizeof hex, ":%04X", port);
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    for (std::string line; std::getline(in, line);) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      fields >> slot >> local >> remote >> state;
      if (state == "0A" && local.size() > 5 && local.substr(local.size() - 5) == hex) return true;
    }
  }
  return false;
}

// The server inherits nothing: no host descriptor (a socket the host closes sees EOF at its
// peer at once), no host environment (QEMU_GDB made qemu listen on a port), only what
// SessionOptions::qemu_env passes.
TEST_F(Sandbox, NothingOfTheHostReachesTheServer) {
  int pair[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);  // not close-on-exec
  setenv("QEMU_GDB", "23456", 1);
  dspc::SessionOptions o;
  o.qemu_env = {"DSPC_SANDBOX_TEST=1"};
  {
    Session s(o);
    unsetenv("QEMU_GDB");
    EXPECT_EQ(descriptors_of(s.server_pid()), (std::set<int>{0, 1, 2, 3}));
    EXPECT_EQ(environment_of(s.server_pid()), std::vector<std::string>{"DSPC_SANDBOX_TEST=1"});
    EXPECT_FALSE(listening_on(23456));
    close(pair[0]);
    char c;
    EXPECT_EQ(recv(pair[1], &c, 1, MSG_DONTWAIT), 0) << "the peer of a closed socket saw no EOF";
    close(pair[1]);
    auto m = Module::load(s, attacks());
    DeviceBuffer X(s, DType::i32(), {1}), R(s, DType::i32(), {1});
    int32_t fd = pair[1], r = 0;
    X.copy_from_host(&fd, 4);
    m.function("probe_fd")(X, R);
    R.copy_to_host(&r, 4);
    EXPECT_EQ(r, -9) << "descriptor " << fd << " is open in the server";  // EBADF
    expect_add_i32_works(s, Module::load(s, module_path(kHex, "v1")));
  }
  unsetenv("QEMU_GDB");
  dspc::SessionOptions bad;
  bad.qemu_env = {"NO_VALUE"};
  expect_error(ErrorKind::Usage, "SessionOptions::qemu_env: 'NO_VALUE' is not NAME=VALUE", [&] { Session s(bad); });
}

// 10 MiB written to stdout in one call: the host reads the server's output while it waits, so
// the pipe never fills and stalls the call (it did at 64 KiB).
TEST_F(Sandbox, TenMebibytesOfOutputInACall) {
  Session s;
  auto m = Module::load(s, attacks());
  std::vector<uint8_t> chunk(65536, 'x');
  for (size_t i = 0; i < chunk.size(); i += 64) chunk[i] = '\n';
  DeviceBuffer C(s, DType::u8(), {65536}), T(s, DType::i32(), {1});
  int32_t times = 160;
  C.copy_from_host(chunk);
  T.copy_from_host(&times, 4);
  auto t0 = Clock::now();
  m.function("write_stdout")(C, T);
  EXPECT_LT(seconds_since(t0), 4.0);
  expect_add_i32_works(s, Module::load(s, module_path(kHex, "v1")));
}

}  // namespace
