// Compile time of Halide 14, per benchmark kernel: each iteration defines the kernel's
// algorithm and schedule (bench/halide/halide_pipelines.cpp, the same definition the packet
// harness compiles) and compiles it as compile_to_object does (compile_to_module, then
// Module::compile) to a Hexagon object file for the harness's target string. Defining the
// Funcs is timed, as parsing is on dspc's side. The dspc peer is bench_compile_dspc.cpp; run
// both with bench/compile_time.py.
#include <exception>

#include "bench_common.h"
#include "halide_pipelines.h"

namespace {

using namespace bench_compile;

bool compile_once(const std::string& kernel, const std::string& out_path, std::string& error,
                  bench_halide::Phases& phases) {
  try {
    if (bench_halide::compile_kernel(kernel, out_path, &phases)) return true;
    error = "unknown kernel";
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown exception";
  }
  return false;
}

ScratchDir* g_scratch = nullptr;

void compile_kernel(benchmark::State& state, const std::string& k) {
  std::string out = (g_scratch->path / (k + ".o")).string();
  bench_halide::Phases phases;
  auto compile = [&](bench_halide::Phases& p, std::string& error) { return compile_once(k, out, error, p); };
  if (!time_compiles(state, k, out, phases, compile)) return;
  state.counters["define_ms"] = per_compile_ms(phases.define);
  state.counters["lower_ms"] = per_compile_ms(phases.lower);
  state.counters["codegen_ms"] = per_compile_ms(phases.llvm);
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags = take_flags(argc, argv);
  ScratchDir scratch("bench_compile_halide", flags.object_dir);
  g_scratch = &scratch;
  register_kernels("halide", bench_halide::kernel_names(), flags, compile_kernel);
  return run_benchmarks(argc, argv);
}
