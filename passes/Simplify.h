// simplify: constant folding and index algebra (the simplifier of compiler/arith/Simplify.h,
// on every function). Idempotent. Takes and gives back any TIR module.
#pragma once

#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

Module simplify(const Module& m, const LowerOptions& options);

}  // namespace dspc
