// Session round trip and copy throughput, as a timed loop.
//
//   session_bench [--iterations=N] [--spin-us=US] [--server-spin=POLLS] MODULE.so PIPE_ECHO [DSPC.so]
//
// 1. Round trip: a call of MODULE's function `empty` (no arguments, no work) through a
//    hexagon-v68 session (SessionOptions' defaults; and the host spinning --spin-us with the
//    server polling --server-spin times), against a one-byte ping-pong over pipes with
//    PIPE_ECHO, a trivial qemu-hexagon program (the ratio's goal: < 1). The pipe is timed with
//    both processes pinned to one core and to two different cores: the kernel's wake-up differs
//    by 8x between the two, so the ratio is given against the faster. Also timed: a request that
//    calls nothing (LAST_ERROR), and, given DSPC.so (`dspc --emit=so` of bench/empty.dsp), its
//    `empty(A: u8[1]) -> (B: u8[1])` through the generated checked entry.
// 2. Copy throughput: copy_from_host + copy_to_host of 1 MiB and 64 MiB device buffers,
//    against host memcpy of the same bytes there and back (ratio: session time / memcpy time).
// 3. A call followed by a 4-byte copy out, which first waits for the device to stop, against
//    the call alone and the copy alone.
// Wall time of host-visible operations; each figure is the best of 5 runs of N iterations.
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "dspc/host.h"

namespace {

using Clock = std::chrono::steady_clock;

// Seconds per iteration of f, the best of 5 runs of n iterations.
double time_per(int n, const std::function<void()>& f) {
  double best = 1e30;
  for (int run = 0; run < 5; run++) {
    auto t0 = Clock::now();
    for (int i = 0; i < n; i++) f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count() / n);
  }
  return best;
}

// cpus: the cores for this process and for qemu (-1: not pinned).
double pipe_round_trip(const std::string& echo, int n, int host_cpu, int qemu_cpu) {
  int to[2], from[2];
  if (pipe(to) || pipe(from)) return -1;
  cpu_set_t old;
  sched_getaffinity(0, sizeof old, &old);
  auto pin = [](int cpu) {
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
  };
  pid_t pid = fork();
  if (pid == 0) {
    pin(qemu_cpu);
    dup2(to[0], 0);
    dup2(from[1], 1);
    close(to[1]);
    close(from[0]);
    execl(DSPC_BENCH_QEMU, DSPC_BENCH_QEMU, "-cpu", DSPC_BENCH_QEMU_CPU, echo.c_str(), (char*)nullptr);
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  pin(host_cpu);
  char c = 'x';
  bool ok = true;
  auto ping = [&] { ok = ok && write(to[1], &c, 1) == 1 && read(from[0], &c, 1) == 1; };
  for (int i = 0; i < 100; i++) ping();  // qemu started and translated the loop
  double t = time_per(n, ping);
  close(to[1]);
  close(from[0]);
  waitpid(pid, nullptr, 0);
  sched_setaffinity(0, sizeof old, &old);
  return ok ? t : -1;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 2000;
  long spin_us = 100, server_spin = 20000;
  std::vector<std::string> files;
  for (int i = 1; i < argc; i++) {
    if (std::strncmp(argv[i], "--iterations=", 13) == 0)
      n = std::max(1, std::atoi(argv[i] + 13));
    else if (std::strncmp(argv[i], "--spin-us=", 10) == 0)
      spin_us = std::max(0L, std::atol(argv[i] + 10));
    else if (std::strncmp(argv[i], "--server-spin=", 14) == 0)
      server_spin = std::max(0L, std::atol(argv[i] + 14));
    else
      files.push_back(argv[i]);
  }
  if (files.size() != 2 && files.size() != 3) {
    std::fprintf(stderr,
                 "usage: session_bench [--iterations=N] [--spin-us=US] [--server-spin=POLLS] MODULE.so "
                 "PIPE_ECHO [DSPC.so]\n");
    return 2;
  }
  try {
    bool two_cores = sysconf(_SC_NPROCESSORS_ONLN) > 1;
    double pipe_same = pipe_round_trip(files[1], n, 0, 0);
    double pipe_cross = two_cores ? pipe_round_trip(files[1], n, 0, 1) : pipe_same;
    if (pipe_same < 0 || pipe_cross < 0) throw std::runtime_error("the pipe ping-pong failed");
    double pipe = std::min(pipe_same, pipe_cross);
    // The default (the host sleeps on the futex at once), and spinning on both sides first.
    double call_spin = 0;
    {
      dspc::SessionOptions o;
      o.spin = std::chrono::microseconds(spin_us);
      o.server_spin = uint32_t(server_spin);
      dspc::Session blocking(o);
      auto empty = dspc::Module::load(blocking, files[0]).function("empty");
      for (int i = 0; i < 100; i++) empty();
      call_spin = time_per(n, [&] { empty(); });
    }
    dspc::Session session;
    auto module = dspc::Module::load(session, files[0]);
    auto empty = module.function("empty");
    for (int i = 0; i < 100; i++) empty();
    double call = time_per(n, [&] { empty(); });
    double request = time_per(n, [&] { session.last_error(); });
    // A copy after a call first waits for the device to stop (quiescence: docs/security.md);
    // back-to-back calls and back-to-back copies do not.
    dspc::DeviceBuffer word(session, dspc::DType::u8(), {4});
    uint8_t bytes[4];
    double call_copy = time_per(n, [&] {
      empty();
      word.copy_to_host(bytes, 4);
    });
    double copy_only = time_per(n, [&] { word.copy_to_host(bytes, 4); });
    std::printf("pipe ping-pong: %.2f us on one core, %.2f us across two\n", pipe_same * 1e6,
                pipe_cross * 1e6);
    std::printf(
        "round trip: empty call %.2f us (host spin %ld us, server %ld polls: %.2f us), "
        "pipe ping-pong %.2f us, ratio %.3f (%.3f)\n",
        call * 1e6, spin_us, server_spin, call_spin * 1e6, pipe * 1e6, call / pipe, call_spin / pipe);
    std::printf("a request that calls nothing (LAST_ERROR): %.2f us, ratio %.3f\n", request * 1e6,
                request / pipe);
    std::printf("a call, then a 4-byte copy out: %.2f us (the call alone %.2f us, the copy alone %.2f us)\n",
                call_copy * 1e6, call * 1e6, copy_only * 1e6);
    if (files.size() == 3) {
      auto dspc_module = dspc::Module::load(session, files[2]);
      auto f = dspc_module.function("empty");
      dspc::DeviceBuffer a(session, dspc::DType::u8(), {1}), b(session, dspc::DType::u8(), {1});
      for (int i = 0; i < 100; i++) f(a, b);
      double t = time_per(n, [&] { f(a, b); });
      std::printf("dspc-compiled empty(A: u8[1]) -> (B: u8[1]), checked entry: %.2f us, ratio %.3f\n",
                  t * 1e6, t / pipe);
    }
    for (uint64_t bytes : {uint64_t(1) << 20, uint64_t(64) << 20}) {
      std::vector<uint8_t> src(bytes, 7), dst(bytes), host_copy(bytes);
      dspc::DeviceBuffer buf(session, dspc::DType::u8(), {int64_t(bytes)});
      int reps = bytes > (1u << 20) ? std::max(1, n / 200) : std::max(1, n / 10);
      double dev = time_per(reps, [&] {
        buf.copy_from_host(src.data(), bytes);
        buf.copy_to_host(dst.data(), bytes);
      });
      double mem = time_per(reps, [&] {
        std::memcpy(host_copy.data(), src.data(), bytes);
        std::memcpy(dst.data(), host_copy.data(), bytes);
      });
      if (dst != src) throw std::runtime_error("copy mismatch");
      std::printf("copy %3llu MiB in+out: session %.3f ms (%.2f GB/s), memcpy %.3f ms, ratio %.3f\n",
                  (unsigned long long)(bytes >> 20), dev * 1e3, 2.0 * bytes / dev / 1e9, mem * 1e3,
                  dev / mem);
    }
    session.close();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
