// A vector index as one scalar base plus a constant offset per lane: base + off[i] in lane i.
// The vectorizer (passes/Vectorize.cpp) asks it whether a fused loop's loads are runs of
// consecutive elements; codegen (codegen/CodegenExpr.cpp) lowers such loads and stores to
// whole-vector accesses and shuffles.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "compiler/ir/IR.h"

namespace dspc {

// The largest power of two known to divide a scalar integer expression (1 when nothing is
// known). Callers that know more than the expression itself (e.g. codegen knows each loop
// variable's step) pass their own; the default knows constants only.
using KnownMultiple = std::function<int64_t(const Expr&)>;

// `e`, an integer vector index of `lanes` lanes, as base + off[i] in lane i, with a scalar
// base and constant offsets; false when it is not of that form. It sees through ramps,
// broadcasts, + and -, products by a constant, min and max with a constant of a constant-base
// index (an edge vector, every lane known), and division and modulo by a positive constant c
// when the base is a multiple of c (a constant, or `known_multiple` says so), so that they act
// on the offsets alone (exact for dspc's floor division). A constant base is returned as an
// IntImm.
bool lane_offsets(const Expr& e, int lanes, Expr& base, std::vector<int64_t>& off,
                  const KnownMultiple& known_multiple = {});

}  // namespace dspc
