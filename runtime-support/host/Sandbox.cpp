// See Sandbox.h. The child's code runs between fork and execve in a copy of a multi-threaded
// process: only async-signal-safe calls (system calls, no allocation, no locks).
#include "Sandbox.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "dspc/host.h"

namespace dspc::detail {
namespace {

std::string system_error(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// The child's end of the socket that carries its seccomp listener to the host.
constexpr int kChildSocketFd = kServerArenaFd + 1;

// A value no pid takes (pids stay below 2^22): the filter's "this process" until the child
// writes its own pid over it.
constexpr uint32_t kPidPlaceholder = 0x5eccf11d;

// ---- the system-call filter ------------------------------------------------------------------
//
// What qemu-hexagon 7.2 and the device server call, found with `strace -f` over the session
// tests (start-up, every operation, crashes, shutdown), and what they need of each call's
// arguments. Anything else stops the calling thread and notifies the host.

struct Rule {
  const char* name;
  std::vector<scmp_arg_cmp> args;  // all must hold
};

std::vector<Rule> allowed_calls() {
  const uint64_t mask32 = 0xffffffffu;
  std::vector<Rule> rules;
  for (const char* name :
       {// files the server already holds, and reading what the user can read
        "read", "readv", "pread64", "write", "writev", "lseek", "close", "fstat", "newfstatat", "statx",
        "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getdents64", "getcwd",
        // memory
        "mmap", "munmap", "mprotect", "mremap", "brk",
        // threads and their bookkeeping
        "futex", "set_robust_list", "rseq", "set_tid_address", "sched_yield", "sched_getaffinity",
        "get_mempolicy", "set_mempolicy", "exit", "exit_group", "restart_syscall",
        // signals (delivering them is checked below)
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend", "sigaltstack",
        // information about itself and the machine, and time
        "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getrandom", "uname",
        "sysinfo", "clock_gettime", "clock_getres", "gettimeofday", "time", "clock_nanosleep", "nanosleep",
        // qemu's stand-ins for the guest's /proc/self files
        "memfd_create"})
    rules.push_back({name, {}});
  // Opens are read-only: no write access, no creating, truncating or appending.
  const uint64_t writing = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | 020000000 /* __O_TMPFILE */;
  rules.push_back({"openat", {SCMP_A2(SCMP_CMP_MASKED_EQ, writing, 0)}});
  // Threads, never a process: clone with the thread flags; clone3 (whose flags a filter cannot
  // read) fails with ENOSYS below, and glibc falls back to clone.
  const uint64_t thread = CLONE_VM | CLONE_THREAD | CLONE_SIGHAND;
  rules.push_back({"clone", {SCMP_A0(SCMP_CMP_MASKED_EQ, thread, thread)}});
  // Signals to itself only (kPidPlaceholder becomes the child's pid); tkill only to its first
  // thread, whose id is the pid.
  for (const char* name : {"kill", "tgkill", "tkill"})
    rules.push_back({name, {SCMP_A0(SCMP_CMP_MASKED_EQ, mask32, kPidPlaceholder)}});
  // fcntl: duplicating and flags, but no signal-driven I/O (F_SETOWN, F_SETSIG, O_ASYNC),
  // leases, notifications or locks.
  for (int cmd : {F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL})
    rules.push_back({"fcntl", {SCMP_A1(SCMP_CMP_EQ, uint64_t(cmd))}});
  rules.push_back({"fcntl", {SCMP_A1(SCMP_CMP_EQ, F_SETFL), SCMP_A2(SCMP_CMP_MASKED_EQ, O_ASYNC, 0)}});
  // Its own limits, read only (a CPU-time limit would deliver SIGXCPU, a timer).
  rules.push_back({"prlimit64", {SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0)}});
  // Thread-local storage, and qemu's guest base in %gs.
  for (int code : {0x1001 /* ARCH_SET_GS */, 0x1002 /* ARCH_SET_FS */, 0x1003 /* ARCH_GET_FS */, 0x1004 /* ARCH_GET_GS */})
    rules.push_back({"arch_prctl", {SCMP_A0(SCMP_CMP_EQ, uint64_t(code))}});
  for (int advice : {MADV_NORMAL, MADV_DONTNEED, MADV_FREE, MADV_WILLNEED, MADV_HUGEPAGE, MADV_NOHUGEPAGE,
                     MADV_DONTDUMP})
    rules.push_back({"madvise", {SCMP_A2(SCMP_CMP_EQ, uint64_t(advice))}});
  // The child's one message to the host, before it runs qemu (the socket is close-on-exec).
  rules.push_back({"sendmsg", {SCMP_A0(SCMP_CMP_EQ, kChildSocketFd)}});
  return rules;
}

struct Program {
  std::vector<sock_filter> code;
  std::vector<size_t> pid_slots;  // the instructions that compare with kPidPlaceholder
  std::string error;              // why there is none
};

// The filter as BPF, built once per process with libseccomp (exported through a memfd).
const Program& program() {
  static Program p;
  static std::once_flag once;
  std::call_once(once, [] {
    std::unique_ptr<void, void (*)(void*)> ctx(seccomp_init(SCMP_ACT_NOTIFY), seccomp_release);
    auto failed = [](const std::string& what, int rc) { return what + ": " + std::strerror(-rc); };
    if (!ctx) {
      p.error = "seccomp_init failed";
      return;
    }
    int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    if (rc == 0) rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0);  // the child sets it
    if (rc == 0) rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2);  // a binary tree
    if (rc != 0) {
      p.error = failed("seccomp_attr_set", rc);
      return;
    }
    for (const Rule& r : allowed_calls()) {
      int nr = seccomp_syscall_resolve_name(r.name);
      if (nr == __NR_SCMP_ERROR) continue;  // not a system call of this architecture
      rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ALLOW, nr, unsigned(r.args.size()), r.args.data());
      if (rc != 0) {
        p.error = failed(std::string("seccomp_rule_add(") + r.name + ")", rc);
        return;
      }
    }
    rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    if (rc != 0) {
      p.error = failed("seccomp_rule_add(clone3)", rc);
      return;
    }
    int fd = memfd_create("dspc-seccomp", MFD_CLOEXEC);
    rc = fd < 0 ? -errno : seccomp_export_bpf(ctx.get(), fd);
    off_t size = rc == 0 ? lseek(fd, 0, SEEK_END) : -1;
    if (size > 0 && size % sizeof(sock_filter) == 0) {
      p.code.resize(size_t(size) / sizeof(sock_filter));
      if (pread(fd, p.code.data(), size_t(size), 0) != size) p.code.clear();
    }
    if (fd >= 0) close(fd);
    if (p.code.empty()) {
      p.error = rc ? failed("seccomp_export_bpf", rc) : "seccomp_export_bpf wrote no program";
      return;
    }
    for (size_t i = 0; i < p.code.size(); i++)
      if (BPF_CLASS(p.code[i].code) == BPF_JMP && p.code[i].k == kPidPlaceholder) p.pid_slots.push_back(i);
  });
  return p;
}

// ---- Landlock (its constants, as the kernel defines them: the distribution's headers may be
// older than the running kernel) -------------------------------------------------------------

struct LandlockRuleset {
  uint64_t handled_access_fs, handled_access_net, scoped;
};
struct __attribute__((packed)) LandlockPathBeneath {
  uint64_t allowed_access;
  int32_t parent_fd;
};
enum : uint64_t { kExecute = 1ull << 0, kReadFile = 1ull << 2, kReadDir = 1ull << 3 };

// Every file system access right the ABI knows: execute, write, read, remove, make (1), refer
// (2), truncate (3), ioctl on devices (5). All are denied but those the rules below grant.
uint64_t landlock_fs_rights(int abi) {
  uint64_t rights = (1ull << 13) - 1;
  if (abi >= 2) rights |= 1ull << 13;
  if (abi >= 3) rights |= 1ull << 14;
  if (abi >= 5) rights |= 1ull << 15;
  return rights;
}

// A ruleset that lets the server read and run the system's libraries and programs, qemu's own
// directory and the server, and read /proc (its own files: other processes' private ones stay
// behind Landlock's ptrace check) and /sys/devices/system, as qemu does at start-up; nothing
// else, and no writes at all. -1 without Landlock.
int landlock_ruleset(const std::string& qemu, const std::string& server) {
  int abi = landlock_abi();
  if (abi < 1) return -1;
  LandlockRuleset attr{landlock_fs_rights(abi), 0, 0};
  if (abi >= 4) attr.handled_access_net = 3;  // BIND_TCP, CONNECT_TCP
  if (abi >= 6) attr.scoped = 3;              // ABSTRACT_UNIX_SOCKET, SIGNAL
  int ruleset = int(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (ruleset < 0) return -1;
  const uint64_t run = kReadFile | kReadDir | kExecute, read = kReadFile | kReadDir;
  std::string qemu_dir = qemu.substr(0, qemu.find_last_of('/') + 1);
  const std::pair<std::string, uint64_t> beneath[] = {
      {"/usr", run}, {"/lib", run}, {"/lib64", run}, {"/lib32", run}, {"/bin", run},
      {"/etc/ld.so.cache", read}, {"/etc/ld.so.preload", read}, {"/proc", read}, {"/sys/devices/system", read},
      {qemu_dir.empty() ? "." : qemu_dir, run}, {qemu, run}, {server, read}};
  for (const auto& [path, access] : beneath) {
    int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) continue;  // not on this system
    struct stat st;
    LandlockPathBeneath rule{access, fd};
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) rule.allowed_access &= ~kReadDir;  // a file's rights
    syscall(SYS_landlock_add_rule, ruleset, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &rule, 0);
    close(fd);
  }
  return ruleset;
}

// ---- the child -------------------------------------------------------------------------------

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

// The kernel's struct sigaction (raw rt_sigaction: no sanitizer or libc wrapper in the child).
struct KernelSigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)();
  uint64_t mask;
};

// A one-byte message with room for one descriptor (SCM_RIGHTS): the listener's way to the host.
struct FdMessage {
  char byte = 0;
  iovec io{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  FdMessage() {
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
  }
  FdMessage(const FdMessage&) = delete;
};

bool send_fd(int socket, int fd) {
  FdMessage m;
  cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return sendmsg(socket, &m.msg, MSG_NOSIGNAL) == 1;
}

}  // namespace

int landlock_abi() {
  long v = syscall(SYS_landlock_create_ruleset, nullptr, 0, 1u /* LANDLOCK_CREATE_RULESET_VERSION */);
  return v > 0 ? int(v) : 0;
}

ServerLaunch::ServerLaunch(const std::string& qemu, const std::string& server, const std::vector<std::string>& args,
                           const std::vector<std::string>& env) {
  for (const std::string& e : env)
    if (e.find('=') == std::string::npos || e.front() == '=')
      throw Error(ErrorKind::Usage, "SessionOptions::qemu_env: '" + e + "' is not NAME=VALUE");
  const Program& p = program();
  if (p.code.empty())
    throw Error(ErrorKind::System, "cannot build the device server's system-call filter (" + p.error +
                                       "); the sandbox needs seccomp user notification, Linux 5.5 or later");
  filter_ = p.code;
  pid_slots_ = p.pid_slots;
  strings_.push_back(qemu);
  strings_.insert(strings_.end(), args.begin(), args.end());
  strings_.insert(strings_.end(), env.begin(), env.end());
  for (size_t i = 0; i <= args.size(); i++) argv_.push_back(strings_[i].data());
  argv_.push_back(nullptr);
  for (size_t i = args.size() + 1; i < strings_.size(); i++) envp_.push_back(strings_[i].data());
  envp_.push_back(nullptr);
  int out[2], sock[2];
  if (pipe2(out, O_CLOEXEC) != 0) throw Error(ErrorKind::System, system_error("pipe"));
  out_read = out[0];
  out_write = out[1];
  // Room for a burst of the server's output between two of the host's reads (1 MiB, the
  // default most a user may set; a smaller pipe only means more reads).
  fcntl(out_write, F_SETPIPE_SZ, 1 << 20);
  fcntl(out_read, F_SETFL, O_NONBLOCK);
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) != 0)
    throw Error(ErrorKind::System, system_error("socketpair"));
  listener_socket = sock[0];
  child_socket_ = sock[1];
  null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) throw Error(ErrorKind::System, system_error("/dev/null"));
  ruleset_fd_ = landlock_ruleset(qemu, server);  // -1 without Landlock: the filter stands alone
}

ServerLaunch::~ServerLaunch() {
  forked();
  if (out_read >= 0) close(out_read);
  if (listener_socket >= 0) close(listener_socket);
}

void ServerLaunch::forked() noexcept {
  for (int* fd : {&out_write, &null_fd, &child_socket_, &ruleset_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

void ServerLaunch::exec_in_child() noexcept {
  int err_fd = out_write;
  pid_t self = getpid();
  for (size_t slot : pid_slots_) filter_[slot].k = uint32_t(self);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(err_fd, "PR_SET_NO_NEW_PRIVS");
  if (ruleset_fd_ >= 0 && syscall(SYS_landlock_restrict_self, ruleset_fd_, 0) != 0)
    child_fail(err_fd, "landlock_restrict_self");
  // Every descriptor the child keeps goes above the ones it places, then into place: dup2
  // clears close-on-exec on the copy, dup3 keeps it on the socket.
  int null_hi = fcntl(null_fd, F_DUPFD_CLOEXEC, kChildSocketFd + 1);
  int out_hi = fcntl(out_write, F_DUPFD_CLOEXEC, kChildSocketFd + 1);
  int arena_hi = fcntl(arena_fd, F_DUPFD_CLOEXEC, kChildSocketFd + 1);
  int socket_hi = fcntl(child_socket_, F_DUPFD_CLOEXEC, kChildSocketFd + 1);
  if (null_hi < 0 || out_hi < 0 || arena_hi < 0 || socket_hi < 0) child_fail(err_fd, "fcntl(F_DUPFD)");
  if (dup2(null_hi, 0) < 0 || dup2(out_hi, 1) < 0 || dup2(out_hi, 2) < 0 || dup2(arena_hi, kServerArenaFd) < 0 ||
      dup3(socket_hi, kChildSocketFd, O_CLOEXEC) < 0)
    child_fail(out_hi, "dup2");
  err_fd = 2;
  if (syscall(SYS_close_range, kChildSocketFd + 1, ~0u, 0) != 0) {
    // Before Linux 5.9: one by one, up to the descriptor limit.
    struct rlimit r;
    long most = getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY ? long(r.rlim_cur) : 65536;
    for (long fd = kChildSocketFd + 1; fd < most; fd++) close(int(fd));
  }
  // The host's signal dispositions and mask are not the server's (execve keeps ignored
  // signals ignored and the mask as it is).
  uint64_t none = 0;
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, nullptr, sizeof none);
  KernelSigaction dfl{SIG_DFL, 0, nullptr, 0};
  for (int sig = 1; sig <= 64; sig++)
    if (sig != SIGKILL && sig != SIGSTOP) syscall(SYS_rt_sigaction, sig, &dfl, nullptr, sizeof dfl.mask);
  setsid();
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  sock_fprog prog{static_cast<unsigned short>(filter_.size()), filter_.data()};
  long listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  if (listener < 0) child_fail(err_fd, "seccomp");
  if (!send_fd(kChildSocketFd, int(listener))) child_fail(err_fd, "sending the seccomp listener");
  // Stops until the host, holding the listener, lets it continue.
  syscall(SYS_execve, argv_[0], argv_.data(), envp_.data());
  child_fail(err_fd, "execve");
}

// ---- the host's side -------------------------------------------------------------------------

int receive_listener(int socket, int ms) {
  pollfd p{socket, POLLIN, 0};
  if (poll(&p, 1, ms) != 1 || !(p.revents & POLLIN)) return -1;
  FdMessage m;
  if (recvmsg(socket, &m.msg, MSG_CMSG_CLOEXEC) != 1) return -1;
  cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
  if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
    return -1;
  int fd;
  std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

bool next_notification(int listener, int ms, SandboxNotification& n) {
  pollfd p{listener, POLLIN, 0};
  if (listener < 0 || poll(&p, 1, ms) != 1 || !(p.revents & POLLIN)) return false;
  seccomp_notif req;
  std::memset(&req, 0, sizeof req);  // the kernel wants it zeroed
  // A caller killed since poll leaves no notification: ENOENT, never a wait.
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) return false;
  n.id = req.id;
  n.pid = req.pid;
  n.nr = req.data.nr;
  for (int i = 0; i < 6; i++) n.args[i] = req.data.args[i];
  return true;
}

bool continue_call(int listener, const SandboxNotification& n) {
  seccomp_notif_resp resp;
  std::memset(&resp, 0, sizeof resp);
  resp.id = n.id;
  resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  return ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0;
}

bool is_exec(const SandboxNotification& n) {
  return n.nr == SYS_execve;
}

std::string SandboxNotification::describe() const {
  char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
  std::string text = name ? name : "system call " + std::to_string(nr);
  std::free(name);
  char args_text[160];
  std::snprintf(args_text, sizeof args_text, "(0x%llx, 0x%llx, 0x%llx, ...)", (unsigned long long)args[0],
                (unsigned long long)args[1], (unsigned long long)args[2]);
  return text + args_text;
}

}  // namespace dspc::detail
