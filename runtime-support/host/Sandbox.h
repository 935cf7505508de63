// The device server's process (qemu-hexagon running dspc_server): what it is started with, and
// the confinement it runs under (docs/security.md). Internal to dspc_host.
//
// Under qemu-user a module's system call is a system call of the qemu process, so the sandbox
// goes on that process, from the host's side, in the forked child before it runs qemu:
//   - PR_SET_NO_NEW_PRIVS;
//   - Landlock where the kernel has it: no file system writes anywhere, reads only of the
//     system's libraries, qemu's and the server's files, /proc and /sys/devices/system; no
//     TCP; no ptrace of (or /proc/<pid>/mem access to) any process outside the sandbox, no
//     signals to them;
//   - a seccomp filter that allows only the system calls qemu-hexagon and the server make
//     (opens read-only, threads but no processes, signals to itself only, ...): any other call
//     stops the calling thread and notifies the host (SECCOMP_RET_USER_NOTIF), which kills the
//     server and reports the call by name (Error kind SandboxViolation). The one execve the
//     child itself makes, of qemu, is the first notification; the host lets it continue.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dspc::detail {

// The arena's descriptor in the server: fixed, whatever number the host's memfd has.
constexpr int kServerArenaFd = 3;

// What the forked child needs to become the server, prepared before fork: a child forked from
// a multi-threaded process may only make async-signal-safe calls, so it allocates nothing.
struct ServerLaunch {
  // Throws Error(System) when the kernel cannot confine the server.
  // qemu runs `args` (which name the server) with exactly `env`.
  ServerLaunch(const std::string& qemu, const std::string& server, const std::vector<std::string>& args,
               const std::vector<std::string>& env);
  ~ServerLaunch();
  ServerLaunch(const ServerLaunch&) = delete;
  ServerLaunch& operator=(const ServerLaunch&) = delete;

  // The parent's side, once the child is forked: closes what only the child uses.
  void forked() noexcept;

  // In the child: descriptor 0 /dev/null, 1 and 2 the output pipe, kServerArenaFd the arena,
  // nothing else open; signal dispositions and mask at their defaults; a session of its own (a
  // terminal's signals go to the host, which takes the server down); no core dumps; confined
  // (above); then execve with exactly `env`. Never returns: on failure it says why on the
  // pipe and exits 127.
  [[noreturn]] void exec_in_child() noexcept;

  int arena_fd = -1;                  // the host's memfd (the child's is kServerArenaFd)
  int out_read = -1, out_write = -1;  // the pipe: its read end stays with the host
  int listener_socket = -1;           // the host's end: the child sends its seccomp listener here
  int null_fd = -1;

 private:
  std::vector<std::string> strings_;
  std::vector<char*> argv_, envp_;
  std::vector<sock_filter> filter_;  // the seccomp program; the child writes its pid into it
  std::vector<size_t> pid_slots_;
  int child_socket_ = -1, ruleset_fd_ = -1;
};

// The Landlock ABI version of the running kernel, 0 without Landlock.
int landlock_abi();

// A system call the sandbox stopped, as the kernel reports it (never as the server does).
struct SandboxNotification {
  uint64_t id = 0;
  uint32_t pid = 0;
  int nr = -1;
  uint64_t args[6] = {};
  std::string describe() const;  // "socket(0x2, 0x1, 0x0, ...)"
};

// Receives the seccomp listener the child sends on `socket`, waiting at most `ms`: the
// descriptor, -1 if none came in time (or the child closed its end).
int receive_listener(int socket, int ms);
// Whether a notification is pending on `listener` (waiting at most `ms`); if so, fills `n`.
bool next_notification(int listener, int ms, SandboxNotification& n);
// Lets the notified call run (the child's own execve of qemu).
bool continue_call(int listener, const SandboxNotification& n);
// Whether `n` is the child's execve of qemu, the one call the host lets through.
bool is_exec(const SandboxNotification& n);

}  // namespace dspc::detail
