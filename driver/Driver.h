// The dspc command-line driver (see README "CLI reference").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/onnx/OnnxImport.h"
#include "driver/Compile.h"
#include "passes/support/PassOptions.h"

namespace dspc {

struct CodegenOptions;  // codegen/Codegen.h

struct DriverOptions {
  std::string input;  // path, or "-" for stdin
  std::vector<std::string> more_inputs;  // further .dsp files (with C/C++ sources only)
  std::vector<std::string> c_sources;    // .c (C) and .cc/.cpp/.cxx (C++) files: a program
  std::string emit = "obj";
  std::string output;  // -o; empty: default for the emit kind
  std::string target_name = kDefaultTarget;
  LowerOptions lower;
  int opt_level = 2;
  bool auto_hvx = true;
  bool time_passes = false;  // --time-passes: time dspc's passes, LLVM's and Clang's
  bool quiet = false;        // --quiet: no progress line on stderr
  std::string runtime_dir;  // where runtime-support/<target>/libdspc_rt.a live
  std::vector<std::string> import_dirs;  // -I DIR, then the op library's directory
  bool depfile = false;      // -MD
  std::string depfile_path;  // -MF; empty: the output's path with .d for its extension
  // dspc run
  bool run = false;
  std::string func;                     // for `--func='f<3, 4>'`, the instantiation's name (f_3_4)
  std::vector<FuncInstance> instances;  // `--func='f<3, 4>'`: the generic funcs to instantiate
  std::vector<std::pair<std::string, std::string>> inputs;   // NAME=FILE
  std::vector<std::pair<std::string, std::string>> outputs;  // NAME=FILE
  bool random_inputs = false;
  uint64_t seed = 1;
  bool check = false;
  int64_t sim_vtcm_capacity = -1;
  std::string qemu;
  int timeout_seconds = 600;
  int start_timeout_seconds = 30;  // a session's start-up deadline (SessionOptions::start_deadline)
  bool start_timeout_given = false;
  bool keep_temps = false;
  bool session = false;  // run through dspc::Session (a shared module) instead of a linked runner
  bool json = false;     // --json: one JSON report on stdout instead of the printed outputs
  int64_t json_max_values = 64;  // --json includes the values of outputs at most this large
  bool json_max_values_given = false;
  int repeat = 1;  // --repeat: a graph's inferences (timed together)
  bool lazy_calls = false;  // --lazy-calls: a graph's device calls go through the lazy call queue
  bool profile = false;     // --profile: a graph's packets per node (DriverProfile.h)
  OnnxImportOptions onnx;   // --input-shape, --input-layout, --output-layout
  bool onnx_options_given = false;
};

// Exit codes: 0 success, 1 a user error (bad input, options or data), 2 an internal error (a
// compiler bug: "dspc: internal error in ..."). Never an abort.
int driver_main(int argc, char** argv);

// The exit code for a failed compile: 2 if `diag` saw an internal error, else 1.
int failure_status(const Diagnostics& diag);

int run_command(const DriverOptions& o);

// C/C++ sources with kernels (DriverProgram.cpp): builds the program, or with `run` builds it
// in a temporary directory and runs it. Returns the exit code. `imported` gets the paths of
// the files the kernels' `import`s read.
int program_command(const DriverOptions& o, std::vector<std::string>* imported = nullptr);
// The program's path without -o: the first C/C++ source's stem + .elf.
std::string program_default_output(const DriverOptions& o);

// Shared by the compile path (Driver.cpp) and `dspc run` (DriverRun.cpp).
// The largest program dspc reads (64 MiB): a bigger file, or an endless one such as /dev/zero,
// is an error rather than an exhausted memory.
inline constexpr size_t kMaxSourceBytes = size_t(64) << 20;
// Reads FILE, or standard input for "-"; reports an unreadable or oversized file on stderr.
bool read_source(const std::string& path, SourceFile& out);
// An .onnx input (DriverOnnx.cpp): reads o.input and imports it as a .dsp program into `out`
// (its path: the model's with ".dsp" added). Reports a bad model on stderr.
bool read_onnx_source(const DriverOptions& o, SourceFile& out);
// --input-shape NAME=1x3x224x224, --input-layout and --output-layout; false with `error` set.
bool parse_onnx_option(const std::string& option, const std::string& value, DriverOptions& o, std::string& error);
// Reads and lowers o.input (an .onnx model through read_onnx_source), printing traced TIR
// (--print-after) to stderr.
std::optional<Compilation> compile_input(const DriverOptions& o, SourceFile& source, Diagnostics& diag);
// Wall times of emit_executable and emit_shared, for `dspc run --json`.
struct EmitTimings {
  double codegen_ms = 0;  // LLVM: IR, optimisation, object
  double link_ms = 0;     // lld
};
// Emits an object with the runner's entry table and links it with runtime-support into out_path.
bool emit_executable(const DriverOptions& o, const Compilation& c, const std::string& out_path, Diagnostics& diag,
                     EmitTimings* timings = nullptr);
// Compiles position-independent code and links a shared module (--emit=so).
bool emit_shared(const DriverOptions& o, const Compilation& c, const std::string& out_path, Diagnostics& diag,
                 EmitTimings* timings = nullptr);
// --emit=json: the module description with the passes and the code size.
bool describe_module(const DriverOptions& o, const Compilation& c, std::string& out, Diagnostics& diag);
// The code generation options the driver's options ask for (target, -O, --no-auto-hvx,
// --time-passes, --inject-internal-error=codegen:KIND).
CodegenOptions codegen_options(const DriverOptions& o);

}  // namespace dspc
