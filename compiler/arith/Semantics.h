// Scalar semantics of the IR operators: the one definition the interpreter, the
// simplifier's constant folding and schedule-ops' reduction initial values share (codegen
// must agree with it bit for bit).
//
// A `Value` is an untyped 64-bit scalar; the dtype travels separately, as in the IR.
//   - integers: the value wrapped to the dtype (IntImm's convention: sign-extended for signed,
//     zero-extended for unsigned, u64 as its bit pattern);
//   - bool: 0 or 1 in `i`;
//   - floats: a double holding a value exactly representable in the dtype (f16/f32 rounded).
// Every function below takes canonical values and returns a canonical value.
#pragma once

#include <cstdint>

#include "compiler/ir/IR.h"

namespace dspc {

struct Value {
  union {
    int64_t i;
    double f;
  };
  Value() : i(0) {}
  static Value of_int(int64_t v) {
    Value r;
    r.i = v;
    return r;
  }
  static Value of_float(double v) {
    Value r;
    r.f = v;
    return r;
  }
  uint64_t u() const { return static_cast<uint64_t>(i); }
};

// Rounds `v` to the float dtype `t` (f16 / f32 / f64), round-to-nearest-even.
double round_to_float(DataType t, double v);

// `a op b` with operands of scalar dtype `t`. Comparisons and &&, || give bool (0/1).
// Integer ops wrap; signed / and % are floor division/modulo; x/0 == x%0 == 0; shifts by an
// amount outside [0, bits) give 0 (or -1 for >> of a negative signed value). Float % is
// a - b * floor(a / b) with each step rounded to `t`; float min/max are a<b?a:b / a>b?a:b.
Value eval_binary(BinaryOp op, DataType t, Value a, Value b);

// `op v` with operand of scalar dtype `t`. -MIN == MIN and abs(MIN) == MIN.
Value eval_unary(UnaryOp op, DataType t, Value v);

// Converts `v` of scalar dtype `from` to scalar dtype `to`: int->int wraps, int->float rounds
// to nearest even, float->int truncates and saturates (NaN -> 0), x->bool is x != 0.
Value eval_cast(DataType to, DataType from, Value v);

// Initial accumulator and combining step of a reduction over scalar dtype `t`.
Value reduce_init(ReduceOp op, DataType t);
Value reduce_combine(ReduceOp op, DataType t, Value acc, Value x);

// Reads / writes one little-endian element of scalar dtype `t` (bool: one byte, 0 or 1).
Value load_value(DataType t, const uint8_t* p);
void store_value(DataType t, Value v, uint8_t* p);

// The constant's value (IntImm or FloatImm), and a constant of dtype `t` holding `v`.
bool const_value(const Expr& e, Value& out);
Expr make_value(DataType t, Value v, Span s = {});

// IEEE half precision bits <-> double (round-to-nearest-even, overflow to infinity).
uint16_t double_to_half_bits(double v);
double half_bits_to_double(uint16_t h);

}  // namespace dspc
