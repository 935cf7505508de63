// See Sandbox.h. The child's code runs between fork and execve in a copy of a multi-threaded
// process: only async-signal-safe calls (raw system calls, no allocation, no locks).
#include "Sandbox.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "dspc/host.h"

namespace dspc::detail {
namespace {

std::string system_error(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// Writes "dspc: cannot start the device server: WHAT (errno N)" to fd and exits 127.
[[noreturn]] void child_fail(int fd, const char* what) noexcept {
  int err = errno;
  char msg[160];
  size_t n = 0;
  auto put = [&](const char* s) {
    while (*s && n < sizeof msg - 1) msg[n++] = *s++;
  };
  put("dspc: cannot start the device server: ");
  put(what);
  put(" (errno ");
  char digits[12];
  int k = 0;
  do digits[k++] = char('0' + err % 10);
  while ((err /= 10) && k < 11);
  while (k && n < sizeof msg - 1) msg[n++] = digits[--k];
  put(")\n");
  ssize_t ignored = write(fd, msg, n);
  (void)ignored;
  _exit(127);
}

}  // namespace

ServerLaunch::ServerLaunch(const std::string& qemu, const std::vector<std::string>& args,
                           const std::vector<std::string>& env) {
  for (const std::string& e : env)
    if (e.find('=') == std::string::npos || e.front() == '=')
      throw Error(ErrorKind::Usage, "SessionOptions::qemu_env: '" + e + "' is not NAME=VALUE");
  strings_.push_back(qemu);
  strings_.insert(strings_.end(), args.begin(), args.end());
  strings_.insert(strings_.end(), env.begin(), env.end());
  for (size_t i = 0; i <= args.size(); i++) argv_.push_back(strings_[i].data());
  argv_.push_back(nullptr);
  for (size_t i = args.size() + 1; i < strings_.size(); i++) envp_.push_back(strings_[i].data());
  envp_.push_back(nullptr);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) throw Error(ErrorKind::System, system_error("pipe"));
  out_read = out[0];
  out_write = out[1];
  // Room for a burst of the server's output between two of the host's reads (1 MiB, the
  // default most a user may set; a smaller pipe only means more reads).
  fcntl(out_write, F_SETPIPE_SZ, 1 << 20);
  fcntl(out_read, F_SETFL, O_NONBLOCK);
  null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) throw Error(ErrorKind::System, system_error("/dev/null"));
}

ServerLaunch::~ServerLaunch() {
  forked();
  if (out_read >= 0) close(out_read);
}

void ServerLaunch::forked() noexcept {
  if (out_write >= 0) close(out_write);
  if (null_fd >= 0) close(null_fd);
  out_write = null_fd = -1;
}

void ServerLaunch::exec_in_child() noexcept {
  int err_fd = out_write;
  // Every descriptor the child keeps goes above the ones it places, then into place: dup2
  // clears close-on-exec on the copy.
  int null_hi = fcntl(null_fd, F_DUPFD_CLOEXEC, kServerArenaFd + 1);
  int out_hi = fcntl(out_write, F_DUPFD_CLOEXEC, kServerArenaFd + 1);
  int arena_hi = fcntl(arena_fd, F_DUPFD_CLOEXEC, kServerArenaFd + 1);
  if (null_hi < 0 || out_hi < 0 || arena_hi < 0) child_fail(err_fd, "fcntl(F_DUPFD)");
  if (dup2(null_hi, 0) < 0 || dup2(out_hi, 1) < 0 || dup2(out_hi, 2) < 0 || dup2(arena_hi, kServerArenaFd) < 0)
    child_fail(out_hi, "dup2");
  err_fd = 2;
  if (syscall(SYS_close_range, kServerArenaFd + 1, ~0u, 0) != 0) {
    // Before Linux 5.9: one by one, up to the descriptor limit.
    struct rlimit r;
    long most = getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY ? long(r.rlim_cur) : 65536;
    for (long fd = kServerArenaFd + 1; fd < most; fd++) close(int(fd));
  }
  // The host's signal dispositions and mask are not the server's (execve keeps ignored
  // signals ignored and the mask as it is).
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
  setsid();
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  execve(argv_[0], argv_.data(), envp_.data());
  child_fail(err_fd, "execve");
}

}  // namespace dspc::detail
