// collapse-loops: a nest of two serial loops whose body only walks memory along both of them
// as one run (every index a function of N y + x, N the inner loop's extent: a pointwise stage
// over whole contiguous rows) becomes one loop over N times as many iterations. LLVM then
// unrolls and software-pipelines one long loop instead of one short loop per row, whose
// prologue and epilogue ran once per row. Takes and gives back any TIR module.
#pragma once

#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

Module collapse_loops(const Module& m, const LowerOptions& options);

}  // namespace dspc
