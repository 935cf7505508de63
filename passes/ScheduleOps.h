// schedule-ops: the tensor program (stages + schedule) -> TIR.
#pragma once

#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// Turns every TensorFunc into a PrimFunc over the same input/output Buffer objects. A
// compute_inline stage is substituted into the stages that read it; a compute_at stage is
// computed inside its consumer's loop, over the region each iteration reads. Every other
// stage becomes the loop nest its schedule gives (build_stage_loop_nest in
// passes/support/StageLoopNest.h; without primitives, a serial nest over its index
// variables, first outermost) around one store; each Reduce becomes a one-element "local"
// accumulator (named <stage>_<op>) with an init, a loop nest over its axes and an update,
// inside the stage's loops; intermediate stages get an `allocate` with their scheduled scope,
// opened right before their loop nest (or where it would be) and closed after their last
// reader.
// Takes: a type-checked TensorProgram. Gives: a Module with multi-dimensional buffers,
// no Reduce, Allocate nodes spanning the stages that asked for them.
Module schedule_ops(const TensorProgram& program, const LowerOptions& options);

}  // namespace dspc
