// What the two compile-time benchmarks share (bench/README.md, "Compile time"). They are two
// executables because libHalide14 carries LLVM 14 and dspc links LLVM 19: one process cannot
// hold both. This header includes neither.
#pragma once

#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace bench_compile {

// Set when any compile fails, so that main exits non-zero (Google Benchmark itself exits 0
// after SkipWithError, and the smoke test must notice a compile that broke).
inline std::atomic<bool> g_failed{false};

// A Hexagon ELF relocatable object: ELF magic, 32-bit, e_machine EM_HEXAGON (164).
inline bool is_hexagon_object(const std::string& path, size_t& size) {
  std::ifstream f(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  size = bytes.size();
  return bytes.size() > 20 &&
         bytes.compare(0, 4,
                       "\x7f"
                       "ELF") == 0 &&
         bytes[4] == 1 && static_cast<unsigned char>(bytes[18]) == 164 && bytes[19] == 0;
}

// Process CPU seconds, for the per-phase counters (Google Benchmark times the whole compile).
inline double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// A per-compile average in milliseconds, from seconds summed over the timed iterations.
inline benchmark::Counter per_compile_ms(double seconds) {
  return benchmark::Counter(1e3 * seconds, benchmark::Counter::kAvgIterations);
}

// Our own flags, taken out of argv before Google Benchmark sees the rest.
struct Flags {
  int iterations = 0;      // --iterations=N: a fixed count per run (the smoke test uses 1); 0: automatic
  std::string kernel_dir;  // --kernel-dir=DIR (dspc only): where the .dsp files are
  std::string object_dir;  // --object-dir=DIR: keep the objects there (default: a scratch folder)
};

inline Flags take_flags(int& argc, char** argv) {
  Flags f;
  int out = 1;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a.rfind("--iterations=", 0) == 0) {
      f.iterations = std::atoi(a.c_str() + 13);
      continue;
    }
    if (a.rfind("--kernel-dir=", 0) == 0) {
      f.kernel_dir = a.substr(13);
      continue;
    }
    if (a.rfind("--object-dir=", 0) == 0) {
      f.object_dir = a.substr(13);
      continue;
    }
    argv[out++] = argv[i];
  }
  argc = out;
  return f;
}

// Where the objects go: `keep` if given, else a fresh scratch folder removed by the destructor.
struct ScratchDir {
  std::filesystem::path path;
  bool remove = true;
  ScratchDir(const char* tag, const std::string& keep) {
    if (!keep.empty()) {
      path = keep;
      remove = false;
      std::filesystem::create_directories(path);
      return;
    }
    std::string t = (std::filesystem::temp_directory_path() / (std::string(tag) + "-XXXXXX")).string();
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) {
      std::perror("mkdtemp");
      std::exit(1);
    }
    path = buf.data();
  }
  ~ScratchDir() {
    if (!remove) return;
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Registers `fn` as NAME/KERNEL for each kernel, timed in milliseconds of process CPU time
// (robust against other processes on a loaded machine; wall time is reported too).
template <class Fn>
void register_kernels(const char* name, const std::vector<std::string>& kernels, const Flags& flags, Fn fn) {
  for (const auto& k : kernels) {
    auto* b = benchmark::RegisterBenchmark((std::string(name) + "/" + k).c_str(),
                                           [fn, k](benchmark::State& s) { fn(s, k); });
    b->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
    if (flags.iterations > 0) b->Iterations(flags.iterations);
  }
}

// The measurement both executables make of one kernel: one untimed compile first (one-time
// initialisation of LLVM, and Halide's, must not land in a measured run), then one compile per
// iteration. `compile(phases, error)` writes `object` and returns false on failure. A failed
// compile, or an output that is not a Hexagon object, fails the benchmark and the executable.
// Returns false then; otherwise the object's size is in the `object_bytes` counter.
template <class Phases, class Compile>
bool time_compiles(benchmark::State& state, const std::string& what, const std::string& object, Phases& phases,
                   Compile compile) {
  static std::vector<std::string> warmed;
  std::string error;
  if (std::find(warmed.begin(), warmed.end(), what) == warmed.end()) {
    warmed.push_back(what);
    Phases ignored;
    compile(ignored, error);
  }
  for (auto _ : state) {
    if (!compile(phases, error)) {
      g_failed = true;
      state.SkipWithError(("compiling " + what + " failed: " + error).c_str());
      return false;
    }
  }
  size_t size = 0;
  if (!is_hexagon_object(object, size)) {
    g_failed = true;
    state.SkipWithError(("not a Hexagon object: " + object).c_str());
    return false;
  }
  state.counters["object_bytes"] = static_cast<double>(size);
  return true;
}

inline int run_benchmarks(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return g_failed ? 1 : 0;
}

}  // namespace bench_compile
