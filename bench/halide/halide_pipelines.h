// The Halide 14 peers of the benchmark kernels: one definition of each algorithm and
// schedule, used by the packet harness's generator (halide_kernels.cpp) and by the
// compile-time benchmark (bench/compile/bench_compile_halide.cpp). Host-only code that links
// libHalide14 (and with it LLVM 14): never link it into a process that links dspc's LLVM 19.
#pragma once

#include <string>
#include <vector>

#include "Halide.h"

namespace bench_halide {

struct Kernel {
  Halide::Pipeline pipeline;
  std::vector<Halide::Argument> args;  // in the order the harness passes them
};

// The kernels, in the order of bench/run.py's table.
const std::vector<std::string>& kernel_names();

// The target every kernel is compiled for: Hexagon with 128-byte HVX, no runtime, no asserts,
// no bounds queries (bench/README.md says why).
const Halide::Target& bench_target();

// Defines kernel `name`'s algorithm and schedule into `out` (fresh Funcs on every call).
// Returns false for an unknown name.
bool define_kernel(const std::string& name, Kernel& out);

// Process CPU seconds spent in each phase of compile_kernel, added to on every call.
struct Phases {
  double define = 0;  // building the Funcs and the schedule
  double lower = 0;   // compile_to_module: Halide's lowering passes
  double llvm = 0;    // Module::compile: LLVM IR, LLVM 14's passes and the Hexagon backend
};

// define_kernel, then what compile_to_object does for bench_target() (compile_to_module, then
// Module::compile to an object file), split so that the phases can be timed: an object
// defining halide_NAME(halide_buffer_t*...). Returns false for an unknown name; Halide's own
// errors throw Halide::CompileError (or its siblings).
bool compile_kernel(const std::string& name, const std::string& object_path, Phases* phases = nullptr);

}  // namespace bench_halide
