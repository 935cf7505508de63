// Load and soak: sessions open together, each called from several threads at once with
// checked results, then sessions opened and closed one after another. Fails if anything of the
// host process grows with the work: resident memory, address space, descriptors, memfds,
// threads or child processes.
//
//   dspc_soak_test [--sessions=N] [--threads=M] [--calls=K] [--cycles=C]
//
// N hexagon-v68 sessions at once, M threads on each, K checked calls per session (add_i32 of
// the test module on fresh random data, copied in and out and compared); then C cycles of
// open, load, one call, close. Each phase runs once small to warm up (the keeper thread, the
// sandbox's filter are made once per process), then in full;
// what is measured after the full run must equal (descriptors, memfds, threads, children) or
// stay within a few MiB of (memory) what was measured after the warm-up. ctest runs it short
// (runtime/soak/short) and, with `ctest -C soak -L soak`, at full size (runtime/soak/long:
// 32 sessions x 3,000 calls, 1,000 cycles).
#include <dirent.h>
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "dspc/host.h"

namespace {

struct Usage {
  long rss_kib = 0, size_kib = 0, threads = 0;
  int fds = 0, memfds = 0, children = 0;
};

long status_field(const std::string& name) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(name + ":", 0) == 0) return std::atol(line.c_str() + name.size() + 1);
  return -1;
}

Usage measure() {
  Usage u;
  u.rss_kib = status_field("VmRSS");
  u.size_kib = status_field("VmSize");
  u.threads = status_field("Threads");
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      u.fds++;
      char target[256];
      ssize_t n = readlink(("/proc/self/fd/" + std::string(e->d_name)).c_str(), target, sizeof target - 1);
      if (n > 0 && std::strncmp(target, "/memfd:", 7) == 0) u.memfds++;
    }
    closedir(d);
  }
  u.fds--;  // opendir's own
  std::string self = std::to_string(getpid());
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
      std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
      std::string line;
      std::getline(stat, line);
      size_t close = line.rfind(')');
      char state;
      int ppid;
      if (close != std::string::npos && std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) == 2 &&
          std::to_string(ppid) == self)
        u.children++;
    }
    closedir(d);
  }
  return u;
}

void print(const char* what, const Usage& u) {
  std::printf("%-28s RSS %7ld KiB, address space %8ld KiB, %3d descriptors (%d memfds), %2ld threads, %d children\n",
              what, u.rss_kib, u.size_kib, u.fds, u.memfds, u.threads, u.children);
}

// Whether `after` shows no growth over `before`: equal counts, memory within 16 MiB (resident)
// and 64 MiB (address space: one leaked arena alone is 256 MiB).
bool no_growth(const char* phase, const Usage& before, const Usage& after) {
  bool ok = after.fds == before.fds && after.memfds == before.memfds && after.threads == before.threads &&
            after.children == before.children && after.rss_kib - before.rss_kib < 16 * 1024 &&
            after.size_kib - before.size_kib < 64 * 1024;
  if (!ok) std::printf("soak: %s: something grew\n", phase);
  return ok;
}

std::string module() {
  return std::string(DSPC_SESSION_MODULES) + "/hexagon-v68/kernels_v1.so";
}

// K calls on a session from M threads at once, each on buffers of its own: add_i32 of random
// data, checked. Returns the number of wrong results (a failure is reported and counted).
long calls_on(dspc::Session& s, int threads, long calls, unsigned seed) {
  auto m = dspc::Module::load(s, module());
  auto add = m.function("add_i32");
  std::atomic<long> wrong{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; t++)
    workers.emplace_back([&, t] {
      std::mt19937 rng(seed * 131 + unsigned(t));
      std::vector<int32_t> a(1024), b(1024), c(1024);
      dspc::DeviceBuffer A(s, dspc::DType::i32(), {1024}), B(s, dspc::DType::i32(), {1024}),
          C(s, dspc::DType::i32(), {1024});
      for (long i = t; i < calls; i += threads) {
        for (int k = 0; k < 1024; k++) a[k] = int32_t(rng()), b[k] = int32_t(rng());
        try {
          A.copy_from_host(a);
          B.copy_from_host(b);
          add(A, B, C);
          C.copy_to_host(c);
        } catch (const dspc::Error& e) {
          std::printf("soak: call %ld: %s\n", i, e.what());
          wrong++;
          return;
        }
        for (int k = 0; k < 1024; k++)
          if (c[k] != int32_t(uint32_t(a[k]) + uint32_t(b[k]))) {
            wrong++;
            break;
          }
      }
    });
  for (auto& w : workers) w.join();
  return wrong;
}

// N sessions at once, K calls each from M threads.
long sessions_phase(int sessions, int threads, long calls) {
  std::vector<std::unique_ptr<dspc::Session>> open;
  for (int i = 0; i < sessions; i++) open.push_back(std::make_unique<dspc::Session>());
  std::atomic<long> wrong{0};
  std::vector<std::thread> runners;
  for (int i = 0; i < sessions; i++)
    runners.emplace_back([&, i] { wrong += calls_on(*open[size_t(i)], threads, calls, unsigned(i)); });
  for (auto& r : runners) r.join();
  for (auto& s : open) s->close();
  return wrong;
}

long cycles_phase(int cycles) {
  long wrong = 0;
  for (int i = 0; i < cycles; i++) {
    dspc::Session s;
    wrong += calls_on(s, 1, 1, unsigned(i));
    s.close();
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  int sessions = 4, threads = 2, cycles = 40;
  long calls = 200;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (!std::strncmp(a, "--sessions=", 11)) sessions = std::atoi(a + 11);
    else if (!std::strncmp(a, "--threads=", 10)) threads = std::atoi(a + 10);
    else if (!std::strncmp(a, "--calls=", 8)) calls = std::atol(a + 8);
    else if (!std::strncmp(a, "--cycles=", 9)) cycles = std::atoi(a + 9);
    else {
      std::fprintf(stderr, "usage: dspc_soak_test [--sessions=N] [--threads=M] [--calls=K] [--cycles=C]\n");
      return 2;
    }
  }
  if (sessions < 1 || threads < 1 || calls < 1 || cycles < 1) {
    std::fprintf(stderr, "dspc_soak_test: every count must be at least 1\n");
    return 2;
  }
  // One malloc arena: glibc adds a 64 MiB arena (address space, not memory) whenever threads
  // contend, up to 8 per core, which would hide a leaked mapping among growth that is none.
  mallopt(M_ARENA_MAX, 1);
  try {
    long wrong = 0;
    auto t0 = std::chrono::steady_clock::now();
    auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    print("start", measure());
    wrong += sessions_phase(sessions, threads, std::min(calls, 20L));  // warm-up
    Usage before = measure();
    print("after a warm-up", before);
    wrong += sessions_phase(sessions, threads, calls);
    Usage after = measure();
    std::printf("soak: %d sessions x %d threads, %ld checked calls each: %.1f s\n", sessions, threads, calls,
                seconds());
    print("after the sessions", after);
    bool ok = no_growth("sessions", before, after);
    wrong += cycles_phase(std::max(1, cycles / 10));  // warm-up
    before = measure();
    t0 = std::chrono::steady_clock::now();
    wrong += cycles_phase(cycles);
    after = measure();
    std::printf("soak: %d open/close cycles: %.1f s\n", cycles, seconds());
    print("after the cycles", after);
    ok = no_growth("cycles", before, after) && ok;
    std::printf("soak: %ld wrong results\n", wrong);
    if (wrong || !ok) return 1;
    std::printf("soak: no growth\n");
    return 0;
  } catch (const std::exception& e) {
    std::printf("soak: %s\n", e.what());
    return 1;
  }
}
