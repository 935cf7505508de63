// Parsers: the .dsp language (tensor stages + schedule) and TIR text (the printer's output).
#pragma once

#include <optional>
#include <string>

#include "compiler/frontend/Diagnostics.h"
#include "compiler/ir/IR.h"

namespace dspc {

// Parses and type-checks a .dsp file. Reports every error it can through `diag` (located,
// `file:line:col: error: ...`) and returns nullopt if there was any.
std::optional<TensorProgram> parse_dsp(const SourceFile& source, Diagnostics& diag);

// Parses TIR as printed by print_module(). Same error reporting.
std::optional<Module> parse_tir(const SourceFile& source, Diagnostics& diag);

// True if the first token of `text` (after comments) is `prim_func`.
bool looks_like_tir(const std::string& text);

}  // namespace dspc
