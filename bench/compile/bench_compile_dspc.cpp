// Compile time of dspc, per benchmark kernel: what `dspc bench/kernels/K.dsp --emit=obj` does,
// in-process through the embedding API. Each iteration parses the source, runs every pass
// (compile_source), generates LLVM IR and a Hexagon object for hexagon-v68 at -O2 with
// auto-HVX (emit_module, the CLI's defaults), and writes the object to a file, as the CLI does.
// Reading the .dsp file is not timed. The Halide peer is bench_compile_halide.cpp; run both
// with bench/compile_time.py.
#include <fstream>
#include <iostream>
#include <sstream>

#include "bench_common.h"
#include "codegen/Codegen.h"
#include "driver/Compile.h"
#include "targets/Target.h"

#ifndef DSPC_BENCH_KERNEL_DIR
#define DSPC_BENCH_KERNEL_DIR "bench/kernels"
#endif

namespace {

using namespace bench_compile;

const std::vector<std::string> kKernels = {
    "vadd_u8",   "conv3x3a16", "dilate3x3",      "median3x3",    "gaussian5x5",  "sobel",
    "dense",     "downscale2x2_u8", "row_sad_u8", "fir16_i16",   "matmul_i8",    "box5x5_u8",
    "add_sat_u16", "rgb_to_gray_u8", "transpose_u8", "threshold_u8", "box3x3_u16",
    "conv3x3a32", "blur3x3_u16", "upscale2x_u8", "deinterleave_rgb_u8", "interleave_rgb_u8",
    "rgba_to_gray_u8", "hist16_u8", "argmax_u8", "gemv_u8i8", "mulhi_rnd_i16", "narrow_sat_i32",
    "avg_rnd_u16", "fir31_u8", "blend4_u8", "depthwise3x3_u8", "maxpool2x2_u8", "transpose_u16",
    "color_matrix_i16"};

// Process CPU seconds in each phase, summed over calls.
struct Phases {
  double lower = 0;    // compile_source: parse and every pass
  double codegen = 0;  // emit_module: LLVM IR, LLVM 19's -O2 pipeline, the Hexagon backend
};

// One `dspc K.dsp --emit=obj -o PATH`; on failure, the diagnostics in `error`.
bool compile_once(const dspc::SourceFile& source, const std::string& out_path, std::string& error,
                  Phases& phases) {
  std::ostringstream messages;
  dspc::Diagnostics diag(messages);
  dspc::LowerOptions lo;
  lo.target = *dspc::lookup_target(dspc::kDefaultTarget);
  double t0 = cpu_seconds();
  auto c = dspc::compile_source(source, lo, diag);
  double t1 = cpu_seconds();
  std::string obj;
  dspc::CodegenOptions co{lo.target};  // the CLI's defaults: -O2, dspc's vectorizer
  bool ok = c && dspc::emit_module(c->module, {}, dspc::EmitKind::Obj, co, obj, diag);
  phases.lower += t1 - t0;
  phases.codegen += cpu_seconds() - t1;
  if (!ok) {
    error = messages.str();
    return false;
  }
  std::ofstream(out_path, std::ios::binary).write(obj.data(), static_cast<std::streamsize>(obj.size()));
  return true;
}

std::string g_kernel_dir;
ScratchDir* g_scratch = nullptr;

void compile_kernel(benchmark::State& state, const std::string& k) {
  dspc::SourceFile source{g_kernel_dir + "/" + k + ".dsp", ""};
  std::ifstream in(source.path);
  if (!in) {
    g_failed = true;
    state.SkipWithError(("cannot read " + source.path).c_str());
    return;
  }
  std::stringstream text;
  text << in.rdbuf();
  source.text = text.str();
  std::string out = (g_scratch->path / (k + ".o")).string();
  Phases phases;
  auto compile = [&](Phases& p, std::string& error) { return compile_once(source, out, error, p); };
  if (!time_compiles(state, source.path, out, phases, compile)) return;
  state.counters["lower_ms"] = per_compile_ms(phases.lower);
  state.counters["codegen_ms"] = per_compile_ms(phases.codegen);
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags = take_flags(argc, argv);
  g_kernel_dir = flags.kernel_dir.empty() ? DSPC_BENCH_KERNEL_DIR : flags.kernel_dir;
  ScratchDir scratch("bench_compile_dspc", flags.object_dir);
  g_scratch = &scratch;
  register_kernels("dspc", kKernels, flags, compile_kernel);
  return run_benchmarks(argc, argv);
}
