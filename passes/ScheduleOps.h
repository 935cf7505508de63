// schedule-ops: the tensor program (stages + schedule) -> TIR.
#pragma once

#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// Turns every TensorFunc into a PrimFunc over the same input/output Buffer objects. Each
// stage becomes a serial loop nest over its index variables around one store; each Reduce
// becomes a one-element "local" accumulator (named <stage>_<op>) with an init, a loop nest
// over its axes and an update; intermediate stages get an `allocate` with their scheduled
// scope, opened right before their loop nest and closed after their last reader.
// Takes: a type-checked TensorProgram. Gives: a Module with multi-dimensional buffers,
// no Reduce, Allocate nodes spanning the stages that asked for them.
Module schedule_ops(const TensorProgram& program, const LowerOptions& options);

}  // namespace dspc
