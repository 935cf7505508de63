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
std::vector<Region> boundary_regions(const Stage& stage, size_t max_regions = 27, size_t first_dim = 0);

// `e` (a stage body) with every integer min/max that the region's ranges decide replaced by
// the operand it always picks. Reduction axes range over their extents.
Expr drop_decided_minmax(const Expr& e, const Stage& stage, const Region& region);

}  // namespace dspc
