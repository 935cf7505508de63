// The pass pipeline: tensor program -> lowered TIR module, by the passes of the registry
// (passes/Passes.def), in order, each inside a boundary that reports its failures.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// The passes in pipeline order, by their CLI names (passes/Passes.def).
const std::vector<std::string>& pass_names();

// Runs every pass on a parsed .dsp program. On a user error, reports through `diag` and
// returns nullopt.
std::optional<Module> lower(const TensorProgram& program, const LowerOptions& options, Diagnostics& diag);

// Runs the TIR passes (everything after schedule-ops) on an already lowered module, as for
// `dspc file.tir`. The passes are idempotent, so feeding back dspc's own output is harmless.
std::optional<Module> lower_tir(const Module& module, const LowerOptions& options, Diagnostics& diag);

}  // namespace dspc
