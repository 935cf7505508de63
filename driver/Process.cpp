#include "driver/Process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>

namespace dspc {

namespace {

// ---- What the interrupt handler cleans up. It may run at any moment on any thread, so it
// reads only these fixed tables (written before their flag is set) and makes only
// async-signal-safe calls.
constexpr int kMaxTempDirs = 8;
constexpr size_t kMaxPath = 4096;
char g_temp_dirs[kMaxTempDirs][kMaxPath];
std::atomic<bool> g_temp_dir_live[kMaxTempDirs];
std::mutex g_temp_dir_mutex;  // between threads that register (never taken by the handler)
std::atomic<pid_t> g_child{0};

struct Dirent64 {  // the kernel's linux_dirent64
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

// Removes `name` (relative to `parent`) and, for a folder, everything in it, with system calls
// only. Our folders are shallow; the depth bound keeps the stack small regardless.
void remove_tree_at(int parent, const char* name, int depth) {
  if (unlinkat(parent, name, 0) == 0 || (errno != EISDIR && errno != EPERM) || depth > 8) return;
  for (int pass = 0; pass < 3; ++pass) {
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    alignas(8) char buf[2048];
    long n;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
      for (long off = 0; off < n;) {
        const auto* d = reinterpret_cast<const Dirent64*>(buf + off);
        off += d->d_reclen;
        if (std::strcmp(d->d_name, ".") != 0 && std::strcmp(d->d_name, "..") != 0) remove_tree_at(fd, d->d_name, depth + 1);
      }
    }
    close(fd);
    if (unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY) return;
  }
}

void on_interrupt(int sig) {
  int saved = errno;
  if (pid_t child = g_child.load()) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
  }
  for (int i = 0; i < kMaxTempDirs; ++i)
    if (g_temp_dir_live[i].load(std::memory_order_acquire)) remove_tree_at(AT_FDCWD, g_temp_dirs[i], 0);
  static const char kMessage[] = "dspc: interrupted\n";
  [[maybe_unused]] ssize_t w = write(2, kMessage, sizeof kMessage - 1);
  errno = saved;
  _exit(128 + sig);  // not a target fact: a signal death exits 128 + the signal
}

int register_temp_dir(const std::string& path) {
  if (path.size() >= kMaxPath) return -1;
  std::lock_guard<std::mutex> lock(g_temp_dir_mutex);
  for (int i = 0; i < kMaxTempDirs; ++i) {
    if (g_temp_dir_live[i].load()) continue;
    std::memcpy(g_temp_dirs[i], path.c_str(), path.size() + 1);
    g_temp_dir_live[i].store(true, std::memory_order_release);
    return i;
  }
  return -1;  // more than kMaxTempDirs at once: removed on exit, not on an interrupt
}

void unregister_temp_dir(int slot) {
  if (slot < 0) return;
  std::lock_guard<std::mutex> lock(g_temp_dir_mutex);
  g_temp_dir_live[slot].store(false, std::memory_order_release);
}

}  // namespace

void install_interrupt_cleanup() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::string temp_root() {
  const char* env = std::getenv("TMPDIR");
  return env && *env ? env : "/tmp";
}

bool TempDir::create(const std::string& kind, bool keep, std::string& error) {
  std::string templ = temp_root() + "/dspc-" + kind + "-XXXXXX";
  if (!mkdtemp(templ.data())) {
    error = "cannot create a temporary directory in " + temp_root() + ": " + std::strerror(errno);
    return false;
  }
  path_ = templ;
  keep_ = keep;
  if (keep) std::cerr << "dspc: keeping temporary files in " << path_ << "\n";
  else slot_ = register_temp_dir(path_);
  return true;
}

TempDir::~TempDir() {
  if (path_.empty() || keep_) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  unregister_temp_dir(slot_);
}

int run_process(const std::vector<std::string>& argv, int timeout_seconds, std::string& captured_stderr,
                std::string& error, bool capture_stdout) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return -1;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("cannot fork: ") + std::strerror(errno);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return -1;
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // even a SIGKILL of dspc takes the child with it
    dup2(pipe_fds[1], 2);
    if (capture_stdout) dup2(pipe_fds[1], 1);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run '%s': %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  g_child.store(pid);
  close(pipe_fds[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool timed_out = false;
  char buf[4096];
  for (;;) {
    pollfd p{pipe_fds[0], POLLIN, 0};
    int ready = poll(&p, 1, 100);
    if (ready > 0) {
      ssize_t n = read(pipe_fds[0], buf, sizeof buf);
      if (n > 0) {
        if (captured_stderr.size() < (1u << 20)) captured_stderr.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n == 0) break;  // the child closed stderr (exited)
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      timed_out = true;
      break;
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child.store(0);
  if (timed_out) {
    error = "timed out after " + std::to_string(timeout_seconds) + " s";
    return -1;
  }
  if (WIFSIGNALED(status)) {
    error = std::string("killed by signal ") + strsignal(WTERMSIG(status));
    return -1;
  }
  return WEXITSTATUS(status);
}

bool check_executable(const std::string& program, std::string& error) {
  auto usable = [](const std::string& path, int& err) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return err = errno, false;
    if (S_ISDIR(st.st_mode)) return err = EISDIR, false;
    if (access(path.c_str(), X_OK) != 0) return err = errno, false;
    return true;
  };
  int err = ENOENT;
  if (program.find('/') != std::string::npos) {
    if (usable(program, err)) return true;
  } else {
    const char* env = std::getenv("PATH");
    std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
    for (size_t start = 0;;) {
      size_t colon = path.find(':', start);
      std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      int e = ENOENT;
      if (usable((dir.empty() ? "." : dir) + "/" + program, e)) return true;
      if (e != ENOENT) err = e;
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  error = "'" + program + "': " + std::strerror(err);
  return false;
}

}  // namespace dspc
