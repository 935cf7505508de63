// Shared by build_stage_loop_nest and the automatic schedule (a helper, not a pass): the
// region of a producer that one iteration of a consumer's loop reads, for compute_at, and the
// box of a tensor that prefetch fetches ahead.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/IR.h"
#include "passes/support/StageLoopNest.h"

namespace dspc {

// One loop of the consumer's nest: its Var and its bounds.
struct LoopBounds {
  VarRef var;
  Expr min;
  int64_t extent = 0;
};

// The ranges of `producer`, one per dimension, that `body` (the consumer's body with its
// index variables substituted by its loops) reads in one iteration of the compute_at loop.
// `inside`: the consumer's loops inside that loop, which range (with the reduction axes of
// `body`); `outside`: that loop and the ones around it, which are fixed. Per dimension: the
// union [lo, hi] of the read indices by symbolic interval arithmetic; its extent, the largest
// hi - lo + 1 over every iteration of the `outside` loops (enumerated when their mins are
// constant and they make at most 2^20 iterations); its min, min(lo, shape - extent), so the
// range stays inside the shape. A dimension the rules cannot bound (a load, a select, a
// product of two loop variables, ...) is the whole dimension, (0, shape).
std::vector<LoopRange> compute_at_region(const Stage& producer, const Expr& body,
                                         const std::vector<LoopBounds>& inside,
                                         const std::vector<LoopBounds>& outside);

// prefetch(T, v, d)'s hint: the region of T (compute_at_region's rules; `inside` and `outside`
// as there, `at` the prefetch's loop, one of `outside`) that iteration at + d reads, kept
// inside T's shape, as one box of rows over T's innermost two dimensions (outer dimensions
// at the region's first index): the `prefetch` intrinsic with T's storage (its `padded`
// buffer if storage_align pads it), the box's byte offset, width, height and row stride.
// Null when `body` reads no T (a min/max the bounds decide may have dropped the read).
Stmt prefetch_hint(const SchedulePrimitive& p, const Expr& body, const VarRef& at,
                   const std::vector<LoopBounds>& inside, const std::vector<LoopBounds>& outside,
                   const PaddedStorage& padded);

}  // namespace dspc
