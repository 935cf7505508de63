// The embedding API: source text in, lowered TIR out. The dspc driver is a thin layer on it.
#pragma once

#include <optional>

#include "compiler/frontend/Diagnostics.h"
#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

struct Compilation {
  // The parsed tensor program, when the input was .dsp (absent for TIR input).
  std::optional<TensorProgram> program;
  Module module;  // after every pass
};

// Parses `source` (.dsp, or TIR when it starts with `prim_func`) and runs the pipeline.
// Reports user errors through `diag` and returns nullopt if there were any.
std::optional<Compilation> compile_source(const SourceFile& source, const LowerOptions& options,
                                          Diagnostics& diag);

}  // namespace dspc
