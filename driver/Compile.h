// The embedding API: source text in, lowered TIR out. The dspc driver is a thin layer on it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/Diagnostics.h"
#include "compiler/frontend/Parser.h"
#include "compiler/ir/IR.h"
#include "compiler/onnx/OnnxImport.h"
#include "passes/support/PassOptions.h"

namespace dspc {

struct Compilation {
  // The parsed tensor program, when the input was .dsp (absent for TIR input).
  std::optional<TensorProgram> program;
  Module module;  // after every pass
  // fold-constant-stages' specializations of funcs (`f_folded`), each one's func.
  std::map<std::string, std::string> folded_from;
};

// Why a generic func cannot be used without instantiation, with an example of one.
std::string uninstantiated_message(const GenericFuncInfo& g);

// Parses `source` (.dsp, or TIR when it starts with `prim_func`) and runs the pipeline.
// Reports user errors through `diag` and returns nullopt if there were any. `instances` asks
// for instantiations of the file's generic funcs (README "Generic funcs"): each is compiled
// under its mangled name, `mangled_name({"conv2d", {56, 56, 64, 64}})` = conv2d_56_56_64_64.
// `import "NAME"` finds NAME.dsp in the source's directory, else in each of `import_dirs`
// in order (the dspc command adds its -I directories, then library_dir()). When every func
// of the file is generic and none is instantiated, the error names `wanted` (the func the
// user asked for, `dspc run --func`) if it is one of them, else the first.
std::optional<Compilation> compile_source(const SourceFile& source, const LowerOptions& options,
                                          Diagnostics& diag, const std::vector<FuncInstance>& instances = {},
                                          const std::vector<std::string>& import_dirs = {},
                                          const std::string& wanted = "");

// An ONNX model (docs/onnx.md): reads the file at `path`, imports it (compiler/onnx/) as a .dsp
// program, which it leaves in `imported` (diagnostics point into it, so keep it while `diag`
// is used), and compiles that as compile_source does, with `import_dirs` and then the op library
// (library_dir()) to find the importer's funcs. A bad model is an error through `diag` (at the
// model's path); returns nullopt after any error.
std::optional<Compilation> compile_model(const std::string& path, const OnnxImportOptions& onnx,
                                         const LowerOptions& options, Diagnostics& diag, SourceFile& imported,
                                         std::vector<std::string> import_dirs = {});

// The op library that comes with dspc (`import "nn"`; README "The op library"), from the
// path of the running program: schedules/ beside it in a build tree (a folder with a
// CMakeCache.txt), else ../share/dspc/schedules from an installed bin/. Empty if neither exists.
std::string library_dir();

}  // namespace dspc
