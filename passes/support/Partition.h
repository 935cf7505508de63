// Boundary partitioning of a stage's domain (used by schedule-ops), as Halide's loop
// partitioning: a stage that clamps its reads (repeat-edge borders) is computed as a
// clamp-free interior box and thin edge boxes, so the interior vectorizes with plain dense
// loads.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/IR.h"

namespace dspc {

// The values [min, min + extent) of one pure index variable.
struct DimRange {
  int64_t min, extent;
  // Only the first `ends` and the last `ends` values of the range are computed (by two
  // vectors of `ends` lanes); another box computes the values between them. 0: all values.
  int64_t ends = 0;
};
// One range per index variable of a stage, first variable first.
using Region = std::vector<DimRange>;

// Boxes that tile the stage's whole domain, in row-major order of the pieces. For each index
// variable v, the "interior" of v is the range where every integer min/max whose operand
// depends on v is decided (one operand is provably never above, or never below, the other),
// whatever the other variables and the reduction axes are; v's pieces are the part before
// the interior, the interior and the part after it (empty pieces are left out). A variable
// with no such min/max, or whose interior cannot be proved, is one piece. Gives the single
// full box when nothing is gained or there would be more than `max_regions` boxes. Only the
// variables from `first_dim` on are partitioned (the others are one piece each).
//
// With `lanes` > 1 the innermost variable's interior is cut into a main piece of whole vectors
// from the first multiple of `lanes` in it (aligned loads and stores, when rows are aligned),
// and, unless the main piece is the whole interior, the vectors the main piece leaves out: the
// interior's first vector, its last, or both as one `ends` piece over the whole interior.
// They overlap the main piece by less than a vector: the overlap is computed twice, which a stage (a pure function of its index) allows.
// The innermost edges stay as they are, but in a stage without a reduction whose range is
// whole vectors and whose edges are at most a quarter of a vector each: there the edges and
// the interior's end vectors are the range's first and last vectors (an `ends` piece over the
// whole range, or the one vector of the side that has an edge), clamps and all. An outer variable's two edges, when they are as wide
// as each other, are one `ends` piece over the whole range (one box for the top and the
// bottom rows, whose clamps stay). These pieces are used only in the boxes where every outer
// variable is in its interior. Falls back to the plain pieces when the interior holds no
// aligned vector.
// Dimensions after `last_dim` are not cut.
std::vector<Region> boundary_regions(const Stage& stage, size_t max_regions = 27, size_t first_dim = 0,
                                     int64_t lanes = 1, size_t last_dim = SIZE_MAX);

// `e` (a stage body) with every integer min/max that the region's ranges decide replaced by
// the operand it always picks. Reduction axes range over their extents.
Expr drop_decided_minmax(const Expr& e, const Stage& stage, const Region& region);

}  // namespace dspc
