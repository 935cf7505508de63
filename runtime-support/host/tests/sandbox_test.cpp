// The device server as a sandbox (docs/security.md): what a module cannot do to the host, and
// what the host does not hand to the server. The attacks are the functions of
// tests/sandbox_kernels.c, a Hexagon module; each one leaves the host untouched, and a new
// session works after it (FailureTest's teardown).
#include <dirent.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "common.h"

namespace {

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

// The attacks: each function of the module, called in a fresh session.
class Attack {
 public:
  Attack() : m_(Module::load(s, attacks())) {}
  // Calls `name` with the buffers; the error it ends with (kind and message checked).
  template <class... B>
  std::string stopped(const std::string& name, const std::string& text, const B&... args) {
    return expect_error(ErrorKind::SandboxViolation, text, [&] { m_.function(name)(args...); });
  }
  template <class... B>
  void call(const std::string& name, const B&... args) {
    m_.function(name)(args...);
  }
  Session s;

 private:
  Module m_;
};

// A u8[256] buffer holding a NUL-terminated path.
DeviceBuffer path_buffer(Session& s, const std::string& path) {
  DeviceBuffer b(s, DType::u8(), {256});
  std::vector<char> bytes(256, 0);
  std::memcpy(bytes.data(), path.data(), std::min<size_t>(path.size(), 255));
  b.copy_from_host(bytes.data(), 256);
  return b;
}

// What each attack found in the host: these stay as they are.
volatile uint64_t host_secret = 0x5ec2e7c0ffee5eedull;
volatile int host_signals = 0;

TEST_F(Sandbox, WritingAFileIsStopped) {
  std::string path = testing::TempDir() + "/dspc-sandbox-written-by-a-module";
  std::remove(path.c_str());
  Attack a;
  DeviceBuffer P = path_buffer(a.s, path), R(a.s, DType::i32(), {1});
  a.stopped("write_file", "the device server attempted openat(", P, R);
  expect_closed(a.s);
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "the module created " << path;
}

// /proc/<host>/mem: opening it to write is a violation; opening it read-only passes the
// system-call filter, and Landlock refuses it (EACCES), even to root.
TEST_F(Sandbox, HostMemoryIsOutOfReach) {
  std::string mem = "/proc/" + std::to_string(getpid()) + "/mem";
  uint64_t where = uint64_t(uintptr_t(&host_secret)), before = host_secret;
  {
    Attack a;
    DeviceBuffer P = path_buffer(a.s, mem), A(a.s, DType::u64(), {1}), R(a.s, DType::i32(), {1});
    A.copy_from_host(&where, 8);
    a.stopped("proc_mem_write", "the device server attempted openat(", P, A, R);
    expect_closed(a.s);
  }
  EXPECT_EQ(host_secret, before);
  if (syscall(SYS_landlock_create_ruleset, nullptr, 0, 1u) < 1) GTEST_SKIP() << "no Landlock in this kernel: the host's memory can be read";
  Attack a;
  DeviceBuffer P = path_buffer(a.s, mem), A(a.s, DType::u64(), {1}), R(a.s, DType::i64(), {2});
  A.copy_from_host(&where, 8);
  a.call("read_at", P, A, R);
  int64_t r[2];
  R.copy_to_host(r, sizeof r);
  EXPECT_EQ(r[0], -13) << "opening " << mem << " read-only did not fail with EACCES";  // EACCES
  EXPECT_NE(uint64_t(r[1]), before) << "the module read the host's memory";
  expect_add_i32_works(a.s, Module::load(a.s, module_path(kHex, "v1")));
}

// The user's files: a read-only open passes the system-call filter, and Landlock refuses
// what lies outside the system's libraries, qemu's and the server's files, /proc and /sys.
TEST_F(Sandbox, TheUsersFilesAreOutOfReach) {
  if (syscall(SYS_landlock_create_ruleset, nullptr, 0, 1u) < 1) GTEST_SKIP() << "no Landlock in this kernel";
  std::string path = testing::TempDir() + "/dspc-sandbox-secret";
  const uint64_t secret = 0x7365637265742121ull;
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&secret), 8);
  }
  Attack a;
  DeviceBuffer P = path_buffer(a.s, path), A(a.s, DType::u64(), {1}), R(a.s, DType::i64(), {2});
  uint64_t zero = 0;
  A.copy_from_host(&zero, 8);
  a.call("read_at", P, A, R);
  int64_t r[2];
  R.copy_to_host(r, sizeof r);
  std::remove(path.c_str());
  EXPECT_EQ(r[0], -13) << "opening " << path << " read-only did not fail with EACCES";
  EXPECT_NE(uint64_t(r[1]), secret) << "the module read the user's file";
  expect_add_i32_works(a.s, Module::load(a.s, module_path(kHex, "v1")));
}

TEST_F(Sandbox, ForkingAProcessIsStopped) {
  Attack a;
  DeviceBuffer R(a.s, DType::i32(), {1});
  a.stopped("fork_child", "the device server attempted clone(", R);  // qemu forks with clone
  expect_closed(a.s);
}

TEST_F(Sandbox, OpeningASocketIsStopped) {
  Attack a;
  DeviceBuffer R(a.s, DType::i32(), {1});
  a.stopped("open_socket", "the device server attempted socket(0x2, 0x1, 0x0, ...)", R);
  expect_closed(a.s);
}

TEST_F(Sandbox, RunningAProgramIsStopped) {
  Attack a;
  DeviceBuffer P = path_buffer(a.s, "/bin/sh"), R(a.s, DType::i32(), {1});
  a.stopped("run_program", "the device server attempted execve(", P, R);
  expect_closed(a.s);
}

// qemu-hexagon does not implement ptrace for its guest (ENOSYS), and the host's ptrace is a
// violation if it ever does: either way nothing attaches to the host.
TEST_F(Sandbox, PtraceOfTheHostFails) {
  Attack a;
  DeviceBuffer X(a.s, DType::i32(), {1}), R(a.s, DType::i32(), {1});
  int32_t host = getpid(), r = 0;
  X.copy_from_host(&host, 4);
  try {
    a.call("ptrace_host", X, R);
    R.copy_to_host(&r, 4);
    EXPECT_EQ(r, -38) << "ptrace returned " << r;  // ENOSYS
  } catch (const dspc::Error& e) {
    EXPECT_EQ(int(e.kind()), int(ErrorKind::SandboxViolation)) << e.what();
    EXPECT_EQ(contains(e.what(), "the device server attempted ptrace("), "");
  }
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("TracerPid:", 0) == 0) {
      EXPECT_EQ(line, "TracerPid:\t0");
    }
  }
}

TEST_F(Sandbox, SignallingTheHostIsStopped) {
  struct sigaction count {}, old {};
  count.sa_handler = [](int) { host_signals = host_signals + 1; };
  sigaction(SIGUSR1, &count, &old);
  {
    Attack a;
    DeviceBuffer X(a.s, DType::i32(), {1}), R(a.s, DType::i32(), {1});
    int32_t host = getpid();
    X.copy_from_host(&host, 4);
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%x, 0xa,", unsigned(host));
    a.stopped("signal_host", std::string("the device server attempted kill(") + hex, X, R);
    expect_closed(a.s);
  }
  sigaction(SIGUSR1, &old, nullptr);
  EXPECT_EQ(host_signals, 0);
}

// Calls the attack `name` on A: i32[1024], whose call returns, then copies A out: the copy
// must fail with a SandboxViolation saying `text`, close the session and leave the host's
// vector as it was. Returns the message.
std::string copy_after(const std::string& name, const std::string& text) {
  dspc::SessionOptions o;
  o.deadline = std::chrono::milliseconds(1000);
  Session s(o);
  auto m = Module::load(s, attacks());
  DeviceBuffer A(s, DType::i32(), {1024});
  m.function(name)(A);
  std::vector<int32_t> out(1024, -7);
  std::string msg = expect_error(ErrorKind::SandboxViolation, text, [&] { A.copy_to_host(out); });
  expect_closed(s);
  EXPECT_EQ(out, std::vector<int32_t>(1024, -7));
  return msg;
}

// Replies cannot be forged into a read of device memory while the device runs: a module that
// answers its own call with a success reply and keeps writing its output is found running
// when the host is about to copy the output, and stopped.
TEST_F(Sandbox, AForgedReplyDoesNotLetTheHostReadWhileTheDeviceRuns) {
  std::string msg = copy_after("forge_reply", "the device kept running after its call returned");
  EXPECT_EQ(contains(msg, "within 1000 ms"), "");
}

// A module that answers twice (reply_seq moves on with no request) and then waits as the
// server does is found out by the reply count, though it looks parked.
TEST_F(Sandbox, ASecondReplyIsFoundOut) {
  copy_after("forge_twice", "the device server answered a request the host did not send");
}

// A thread a module leaves running after its call returned: the copy that follows finds the
// server with a thread more than it started with.
TEST_F(Sandbox, AThreadLeftRunningIsFoundOut) {
  copy_after("start_thread", "threads, not the");
}

// The check costs nothing on the way back to back calls go, and once per stretch of copies.
TEST_F(Sandbox, CopiesAfterACallWaitForTheDeviceToStop) {
  Session s;
  auto m = Module::load(s, module_path(kHex, "v1"));
  auto add = m.function("add_i32");
  std::vector<int32_t> one(1024, 1), out(1024);
  DeviceBuffer A(s, DType::i32(), {1024}), C(s, DType::i32(), {1024});
  for (int round = 0; round < 20; round++) {
    A.copy_from_host(one);
    add(A, A, C);
    add(C, C, C);
    C.copy_to_host(out);
    ASSERT_EQ(out[round], 4);
    C.copy_to_host(out);
  }
}

}  // namespace
