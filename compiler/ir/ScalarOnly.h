// Code that must not be vectorized, by dspc's vectorize pass or by LLVM's loop vectoriser.
#pragma once

#include <optional>

#include "compiler/ir/IR.h"

namespace dspc {

// True when `body` divides integers by a non-constant (no vector divide anywhere) or, on
// Hexagon, computes with 64-bit or floating-point lanes (HVX has no 64-bit lanes, and dspc
// writes no HVX floating point: qemu has none). Vectorized, such code is expanded lane by lane
// during instruction selection, which costs minutes of compile time and memory and is slower
// at run time than the scalar loop (measured in llc: 77 s for an i8 division loop of
// tests/e2e int_i8_divmod, 65 s for u64 -> bool over 4096 elements in
// tests/golden/codegen/compile-time.dsp; a 130-lane i64 loop exhausted memory; the op
// library's conv2d_requant_f32 at 8x8x128, whose requantization is f32: 191311 packets and
// 73 KB as 128 split lanes, 87845 packets and 34 KB as a scalar loop).
bool must_stay_scalar(const Stmt& body, bool hexagon);

// True when `body` computes with 64-bit integers or floats (not handles).
bool computes_64bit(const Stmt& body);

// A 32-bit fixed-point multiply written with a 64-bit product, which HVX has instructions for
// (codegen/HvxIdioms.def, fixed_mul), so it does not keep a loop scalar on Hexagon:
//   i32((i64(a) * i64(b)) / 2^32)                      the high word of the product
//   i32(min(i64(a) * i64(b) / 2^31, 2^31 - 1))         the doubled product's high word
//   i32(min((i64(a) * i64(b) + 2^30) / 2^31, 2^31 - 1))  ... rounded
// with >> for the floor division, a and b 32-bit signed (either may be a constant in i32's
// range), max(..., -2^31) allowed (it never binds). The min may be left out of the 2^31 forms
// when a factor is a constant other than -2^31: only (-2^31)^2 / 2^31 leaves i32's range.
struct FixedPointMul {
  Expr a, b;          // the i32 factors (a constant factor as an i32 constant)
  int shift = 0;      // 31 or 32
  bool round = false;  // + 2^30 before the shift
};
std::optional<FixedPointMul> match_fixed_point_mul(const Expr& e);

// 32-bit arithmetic written through a 64-bit intermediate so that it cannot wrap (Halide's
// saturating_add, halving_add, rounding_halving_add, halving_sub and rounding_shift_right with
// a saturating cast, as its FindIntrinsics names them), which HVX computes in 32-bit lanes, so
// it does not keep a loop scalar on Hexagon. a and b are 32-bit vectors of one type T (i32 or
// u32) widened to 64 bits (signed for i32, and for a difference), or a constant in T's range:
//   SatAdd, SatSub   T(clamp(wide(a) +- wide(b), T's range))   a bound the value cannot pass may
//                                                              be left out
//   Avg, AvgRound    T((wide(a) + wide(b) [+ 1]) >> 1)         or / 2
//   NegAvg           T((wide(a) - wide(b)) >> 1)               or / 2; result i32 or u32
//   RoundShift       C((wide(a) + 2^(k-1)) >> k) for k in [1, 31] (or / 2^k), C a 32-bit
//                    type, or C of 8 or 16 bits with the value clamped to C's range as above
// `lowered` is the same value computed exactly in 32-bit lanes, without a 64-bit value (for a
// form no single instruction computes): the averages as (a >> 1) + (b >> 1) + the carry of the
// low bits, the rounding shift as (a >> k) + ((a >> (k - 1)) & 1), which cannot overflow, then
// the clamp in T. Null for the saturating adds, which every HVX version computes directly.
struct WideArith {
  enum Kind { SatAdd, SatSub, Avg, AvgRound, NegAvg, RoundShift } kind = SatAdd;
  Expr a, b;           // b null for RoundShift
  int shift = 0;       // RoundShift: k
  DataType result;     // the cast's type
  bool saturate = false;  // RoundShift: clamped to a narrower result's range
  Expr lowered;
};
std::optional<WideArith> match_wide_arith(const Expr& e);

}  // namespace dspc
