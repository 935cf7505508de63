// Parsers: the .dsp language (tensor stages + schedule) and TIR text (the printer's output).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/IR.h"

namespace dspc {

// An instantiation of a generic func: `conv2d<56, 56, 64, 64>` is {"conv2d", {56, 56, 64, 64}}.
struct FuncInstance {
  std::string name;
  std::vector<int64_t> args;
};

// The instantiation's function name: the func's name and each argument in decimal, joined by
// '_' (`conv2d_56_56_64_64`).
std::string mangled_name(const FuncInstance& instance);

// Reads `NAME<A, B, ...>` (spaces allowed around the numbers; each a whole number from 0 to
// 2^31 - 1). False, with the reason in `why`, otherwise.
bool parse_func_instance(const std::string& text, FuncInstance& out, std::string& why);

// Parses and type-checks a .dsp file. Reports every error it can through `diag` (located,
// `file:line:col: error: ...`) and returns nullopt if there was any. Each of `instances` names
// a generic func of the file and its arguments; its instantiation is added to the program's
// funcs (as graph calls add theirs), named by mangled_name().
// `import "NAME"` reads NAME.dsp from the source's directory, else from each of
// `import_dirs` in order; `diag` keeps the imported files (Diagnostics::imported()), and the
// spans of their tokens carry their ids.
std::optional<TensorProgram> parse_dsp(const SourceFile& source, Diagnostics& diag,
                                       const std::vector<FuncInstance>& instances = {},
                                       const std::vector<std::string>& import_dirs = {});

// Parses TIR as printed by print_module(). Same error reporting.
std::optional<Module> parse_tir(const SourceFile& source, Diagnostics& diag);

// True if the first token of `text` (after comments) is `prim_func`.
bool looks_like_tir(const std::string& text);

}  // namespace dspc
