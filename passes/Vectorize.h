// vectorize: turns loops marked `vectorized` into vector code (Ramp / Broadcast expressions,
// vector loads and stores), so codegen emits LLVM vector IR and never relies on LLVM's loop
// vectoriser for scheduled loops.
#pragma once

#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// Every `vectorized` loop with a constant extent L > 1 becomes its body evaluated once on L
// lanes: the loop variable is Ramp(min, 1, L), scalar operands are broadcast, loads and stores
// whose index depends on the variable become vector accesses (dense when the index is a
// stride-1 ramp), and one-element-per-lane state inside the loop ("local" allocations, e.g.
// reduction accumulators) is widened to L lanes. Serial and unrolled loops nested inside stay
// loops with vector bodies. Extent 1 loops become their body. On Hexagon, a loop whose widest
// vector of values would be narrower than one HVX register (128 bytes: fewer than 128 u8
// lanes, 64 i16, 32 i32 or f32, 16 i64) becomes scalar code, unrolled up to 16 lanes and a
// serial loop beyond (LLVM 19 widens such short vectors to HVX registers and, in corners
// tools/difftest.py found, aborts, crashes or stores wrong lanes); other lane counts that are
// not a power of two become power-of-two vectors of at least one register.
//
// A loop whose body cannot be vectorized (a condition or a nested loop bound that depends on
// the lanes, an extern call on vector operands, a store of a lane-dependent value to one
// address, a vectorized loop inside it, a non-constant extent, or code that must stay scalar
// on the target: compiler/ir/ScalarOnly.h) becomes a serial loop: correct, never an error. Runs after flatten-buffers (one index per access).
Module vectorize(const Module& m, const LowerOptions& options);

// The same on one statement.
Stmt vectorize_stmt(const Stmt& s, const Target& target);

}  // namespace dspc
