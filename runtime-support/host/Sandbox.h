// The device server's process (qemu-hexagon running dspc_server): what it is started with, and
// the confinement it runs under (docs/security.md). Internal to dspc_host.
#pragma once

#include <string>
#include <vector>

namespace dspc::detail {

// The arena's descriptor in the server: fixed, whatever number the host's memfd has.
constexpr int kServerArenaFd = 3;

// What the forked child needs to become the server, prepared before fork: a child forked from
// a multi-threaded process may only make async-signal-safe calls, so it allocates nothing.
struct ServerLaunch {
  ServerLaunch(const std::string& qemu, const std::vector<std::string>& args, const std::vector<std::string>& env);
  ~ServerLaunch();
  ServerLaunch(const ServerLaunch&) = delete;
  ServerLaunch& operator=(const ServerLaunch&) = delete;

  // The parent's side, once the child is forked: closes what only the child uses.
  void forked() noexcept;

  // In the child: descriptor 0 /dev/null, 1 and 2 the output pipe, kServerArenaFd the arena,
  // nothing else open; signal dispositions and mask at their defaults; a session of its own (a
  // terminal's signals go to the host, which takes the server down); no core dumps; then
  // execve with exactly `env`. Never returns: on failure it says why on the pipe and exits 127.
  [[noreturn]] void exec_in_child() noexcept;

  int arena_fd = -1;                            // the host's memfd (the child's is kServerArenaFd)
  int out_read = -1, out_write = -1;            // the pipe: its read end stays with the host
  int null_fd = -1;

 private:
  std::vector<std::string> strings_;
  std::vector<char*> argv_, envp_;
};

}  // namespace dspc::detail
