// TIR -> LLVM IR -> object/asm, and in-process linking with lld. This header keeps LLVM out
// of everything that includes it; LLVM headers live only in codegen/*.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/IR.h"
#include "targets/Target.h"

namespace dspc {

struct CodegenOptions {
  Target target;
  int opt_level = 2;     // 0..3, the new-pass-manager pipeline level
  // Run LLVM's loop vectoriser on Hexagon code (it never uses HVX: see CodegenHexagon.cpp).
  // Off by default: dspc's vectorize pass vectorizes; the driver turns it on with
  // --no-auto-schedule, unless --no-auto-hvx.
  bool auto_hvx = false;
  // Position-independent code, for a shared module (--emit=so).
  bool pic = false;
  // Time the optimisation pipeline's passes (--time-passes; the report goes to standard
  // error). Code generation's passes are timed through llvm::TimePassesIsEnabled.
  bool time_passes = false;
  // For testing dspc itself (--inject-internal-error=codegen:KIND): "crash" raises SIGSEGV and
  // "fatal" reports a fatal LLVM error inside LLVM's optimisation and code generation.
  std::string inject_failure;
};

// What the runner needs to call a function: its parameters in call order with the shapes
// the user declared (before flattening).
struct ParamInfo {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
  bool is_output = false;
};
struct EntryInfo {
  std::string name;
  std::vector<ParamInfo> params;  // inputs then outputs
};

// Signatures from the lowered module (flattened shapes), or from the .dsp program (declared shapes).
std::vector<EntryInfo> entries_of(const Module& m);
std::vector<EntryInfo> entries_of(const TensorProgram& p);
// The program's funcs (declared shapes), then the functions the passes added to `m` (a
// graph's device groups).
std::vector<EntryInfo> entries_of(const TensorProgram& p, const Module& m);

enum class EmitKind { LLVM, Asm, Obj };

// True once emit_module has recovered from a crash inside LLVM (reported as an internal error
// in codegen): the memory LLVM held then is lost, so a program may want to exit at once.
bool llvm_crash_recovered();

// Compiles `m` for options.target. With `entries` non-empty, also emits the packed wrappers and
// the descriptor table that runtime-support's runner reads (see runtime-support/device/dspc_runtime.h).
// Returns false after reporting through `diag` on failure.
bool emit_module(const Module& m, const std::vector<EntryInfo>& entries, EmitKind kind,
                 const CodegenOptions& options, std::string& out, Diagnostics& diag);

// Links object files with runtime-support (and its runner) for `target` into a static executable.
// `runtime_dir` holds the per-target runtime-support builds (see runtime-support/CMakeLists.txt).
bool link_executable(const std::vector<std::string>& object_paths, const Target& target,
                     const std::string& runtime_dir, const std::string& out_path, Diagnostics& diag);

// Links one object into a position-independent shared module (--emit=so):
//   ld.lld -shared -Bsymbolic --exclude-libs=ALL -o OUT OBJECT [RUNTIME_DIR/TARGET/libdspc_builtins.a]
// Runtime-support symbols stay undefined (the loader resolves them); on Hexagon the compiler
// helpers (division, soft double, memcpy, ...) come from runtime-support's PIC builtins archive
// and stay hidden inside the module. -Bsymbolic binds the module's own symbols locally, so its
// dynamic relocations are only RELATIVE, GLOB_DAT and JMP_SLOT.
bool link_shared(const std::string& object_path, const Target& target, const std::string& runtime_dir,
                 const std::string& out_path, Diagnostics& diag);

// The code in an object file (--emit=json): the bytes of its executable sections, and the size
// of each defined function symbol (ELF st_size). Returns false with `error` if `object` is not
// an object file LLVM reads.
struct ObjectCodeSize {
  int64_t text_bytes = 0;
  std::map<std::string, int64_t> functions;
};
bool object_code_size(const std::string& object, ObjectCodeSize& out, std::string& error);

// C and C++ sources compiled with Clang's libraries in-process (ClangCompile.cpp), for programs
// that call kernels: `dspc main.c kernels.dsp -o app.elf`.
struct CSourceOptions {
  std::vector<std::string> include_dirs;  // -I, e.g. where the kernels' generated headers are
  int opt_level = 2;
  bool time_passes = false;  // Clang's -ftime-report
  // When set, gets the path of every file the compile read (the source, its headers), for -MD.
  std::vector<std::string>* read = nullptr;
};
// The clang flags of a C (or C++) compile for `target`: runtime-support's device flags
// (freestanding, no PIC, -G0 and HVX on Hexagon), the language standard and the include dirs.
std::vector<std::string> c_compile_flags(const Target& target, const CSourceOptions& options, bool cxx);
// Compiles `source` (.c: C11; .cc/.cpp/.cxx: C++17) to the object `object_path`. Clang's
// diagnostics go to standard error in their usual form; on an error, also one dspc
// diagnostic through `diag`, and false.
bool compile_c_source(const std::string& source, const Target& target, const CSourceOptions& options,
                      const std::string& object_path, Diagnostics& diag);

// C prototypes of every function, for --emit=header. A parameter whose name is a C or C++
// keyword, or a type name the header uses, is written with a '_' after it (int becomes int_);
// so is a function's (`int32_t signed_(...) __asm__("signed")`, which calls symbol `signed`).
std::string emit_c_header(const Module& m);

// Whether `name` is a keyword of C (C11/C23) or C++ (C++20), which no C or C++ declaration can
// use as a name.
bool is_c_keyword(const std::string& name);

// The HVX idiom table (codegen/HvxIdioms.def), as data for tests and docs: each row's intrinsic
// name, instruction, pattern (empty for a custom row's, and for a fuse row) and oldest
// Hexagon version.
struct HvxIdiomInfo {
  std::string name, instruction, pattern;
  int min_version = 0;
  bool fuse = false;  // a DSPC_HVX_FUSE row: `name` is the pair's instruction, `pattern` empty
};
std::vector<HvxIdiomInfo> hvx_idioms();
// The first defect of the table: a pattern that does not parse, or a row naming no LLVM
// intrinsic; nullopt when there is none.
std::optional<std::string> hvx_table_error();
// The parse error of one pattern in the table's language (tests), nullopt when it parses.
std::optional<std::string> hvx_pattern_error(const std::string& pattern);

}  // namespace dspc
