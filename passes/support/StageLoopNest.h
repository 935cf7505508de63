// Shared by schedule-ops and whatever calls it per sub-range (a helper, not a pass): the loop
// nest that computes one stage, built from the stage's schedule (LoopSchedule.h) over given
// ranges of its index variables, with its reductions lowered to accumulators inside.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/IR.h"

namespace dspc {

// The values one pure index variable takes: min, min + 1, ..., min + extent - 1.
// `min` is an i32 expression: a constant, or (for compute_at) one of the loops outside.
struct LoopRange {
  Expr min;
  int64_t extent = 0;
  LoopRange(int64_t min, int64_t extent);
  LoopRange(Expr min, int64_t extent) : min(std::move(min)), extent(extent) {}
};

// Stages stored with another shape than their own (storage_align's padding), by their
// buffer: the buffer schedule-ops allocates for each.
using PaddedStorage = std::map<const BufferNode*, Buffer>;

// A stage computed inside a loop of the stage being built (compute_at): at the start of
// each iteration of `loop`, the nest of `producer` over the region that iteration reads.
// `local` (store_at at the same loop): the producer's storage is that region only, allocated
// inside the loop's body, instead of its whole buffer.
struct ComputedAt {
  const Stage* producer;
  std::string loop;
  bool local = false;
};

// (0, shape[d]) for every dimension d of `stage`: the whole stage.
std::vector<LoopRange> full_ranges(const Stage& stage);

// Builds the loop nest that stores `stage` at every point of `ranges` (one per index
// variable, in index order; each inside the stage's shape):
//  - the loops are the stage's LoopSchedule dims, outermost first, each with its kind. A loop
//    that is an unsplit index variable runs over range(min, extent); every loop a split made
//    runs from 0;
//  - a split of a variable v with extent E (the range's, or the split loop's) by F gives an
//    outer loop vo and an inner loop vi, and v = min + vo * F + vi when E % F == 0;
//    v = min + min(vo * F, E - F) + vi when E > F and E % F != 0 (Halide's "shift inwards":
//    the last outer iteration recomputes a few points, which is harmless because stages are
//    pure); v = min + vi with extents 1 and E when E < F. `min` is the range's min for an
//    index variable and 0 for a loop made by an earlier split;
//  - the index variables are substituted into the body and the store by these expressions
//    (no let); every loop variable is a fresh Var, so calling this several times for one
//    stage (say, per boundary region) never binds one Var twice;
//  - every Reduce becomes a one-element "local" accumulator named <stage>_<op> (fresh among
//    `used`, which gets the new names) with its init, its axes' serial loops (fresh Vars
//    with the axes' names, first axis outermost) and its update, all inside the innermost
//    stage loop, around the store; the first reduction found is outermost.
//  - each `computed_at` producer's nest opens the body of its loop: built by this function
//    over the region one iteration of that loop reads (compute_at_region, ComputeAtRegion.h),
//    its loops named <producer>_<loop> (fresh among `used`) so that no loop shadows one
//    around it. The producer itself must not be computed at another stage. A `local`
//    producer is stored in a new buffer of the region's extents (its storage_align padding
//    applied), allocated around the loop's body: every store and load of the producer in
//    that body goes to it, each index minus the region's min in its dimension.
// Ignores compute_inline (schedule-ops substitutes inlined stages before calling this).
// With `group_dot_products`, reductions are lowered as lower_reductions says.
// `padded` maps each stage schedule-ops stores with storage_align's padded shape to the buffer
// it allocates for it: a prefetch of such a stage addresses that buffer's rows.
Stmt build_stage_loop_nest(const Stage& stage, const std::vector<LoopRange>& ranges,
                           std::set<std::string>& used, const std::vector<ComputedAt>& computed_at = {},
                           bool group_dot_products = false, const PaddedStorage& padded = {});

// A reduction lowered to a one-element "local" accumulator, waiting to be wrapped around the
// code that uses its result.
struct PendingReduction {
  Buffer acc;
  Stmt prelude;  // init; loop nest with the update
  Span span;
};

// `body` with every Reduce replaced by a load of its accumulator (named <stage_name>_<op>,
// fresh among `used`), post-order, appending each reduction's accumulator, init and loops to
// `out`. With `group_dot_products`, an integer sum of byte products over an innermost axis
// whose extent is a multiple of 4 adds four consecutive products per step (exact: wrapping
// addition is associative), the form of HVX's 4-way dot products (vrmpy).
//
// With `vector_lanes` L > 0 (the automatic schedule's choice for a stage with one reduction
// whose innermost axis is contiguous in its reads), that axis (extent N >= L) runs as N / L
// iterations of a `vectorized` loop of L lanes, and, when L does not divide N, one more
// vectorized loop over the last L elements with the lanes already counted masked to the
// operator's identity (a sum's; a minimum or maximum counts them twice, which changes nothing).
// The vectorizer then keeps the accumulator as a vector of partial results (Vectorize.cpp).
Expr lower_reductions(const Expr& body, const std::string& stage_name, std::set<std::string>& used,
                      bool group_dot_products, std::vector<PendingReduction>& out, int vector_lanes = 0);

// Wraps `body` in the pending reductions: each allocation brackets its init, its loops and
// everything after them, the first reduction outermost.
Stmt wrap_reductions(const std::vector<PendingReduction>& pending, Stmt body);

// Replaces the Vars of `values` in `e` by their expressions, and gives each Reduce it meets
// fresh axis Vars, so that each occurrence (a Reduce substituted twice, say) binds its own.
// With `used`, the fresh axes also get names not in `used` (k becomes k_1, added to `used`);
// without, they keep their names.
Expr substitute(const Expr& e, const std::map<const VarNode*, Expr>& values,
                std::set<std::string>* used = nullptr);
// The same on a statement.
Stmt substitute(const Stmt& s, const std::map<const VarNode*, Expr>& values);

// `base`, or base_1, base_2, ... : the first not in `used`, which gets it.
std::string fresh_name(const std::string& base, std::set<std::string>& used);

}  // namespace dspc
