#include "compiler/arith/Semantics.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace dspc {

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "load_value/store_value assume a little-endian host"
#endif

namespace {

// Rounds a non-negative finite double to an integer, ties to even, whatever the FP mode.
double round_half_even(double x) {
  double fl = std::floor(x);
  double frac = x - fl;
  if (frac > 0.5) return fl + 1;
  if (frac < 0.5) return fl;
  return std::fmod(fl, 2.0) == 0 ? fl : fl + 1;
}

Value wrap(DataType t, uint64_t bits) {
  return Value::of_int(wrap_to(t, static_cast<int64_t>(bits)));
}

Value of_bool(bool b) {
  return Value::of_int(b ? 1 : 0);
}

Value float_result(DataType t, double v) {
  return Value::of_float(round_to_float(t, v));
}

Value int_div(DataType t, Value a, Value b, bool want_mod) {
  if (b.i == 0) return Value::of_int(0);
  if (!t.is_int()) return Value::of_int(want_mod ? int64_t(a.u() % b.u()) : int64_t(a.u() / b.u()));
  // INT64_MIN / -1 overflows in C++; narrower types have room and wrap below.
  if (b.i == -1 && a.i == std::numeric_limits<int64_t>::min()) return Value::of_int(want_mod ? 0 : a.i);
  int64_t q = a.i / b.i, r = a.i % b.i;
  if (r != 0 && ((r < 0) != (b.i < 0))) {
    q -= 1;
    r += b.i;
  }
  return wrap(t, static_cast<uint64_t>(want_mod ? r : q));
}

Value int_shift(BinaryOp op, DataType t, Value a, Value b) {
  bool out_of_range = t.is_int() ? (b.i < 0 || b.i >= t.bits) : b.u() >= t.bits;
  if (out_of_range) {
    if (op == BinaryOp::Shr && t.is_int() && a.i < 0) return Value::of_int(-1);
    return Value::of_int(0);
  }
  if (op == BinaryOp::Shl) return wrap(t, a.u() << b.i);
  if (t.is_int()) return Value::of_int(a.i >> b.i);
  return Value::of_int(static_cast<int64_t>(a.u() >> b.i));
}

// Integers and bool (bool compares and combines as the unsigned values 0 and 1).
Value eval_int_binary(BinaryOp op, DataType t, Value a, Value b) {
  bool sgn = t.is_int();
  auto less = [&](Value x, Value y) { return sgn ? x.i < y.i : x.u() < y.u(); };
  switch (op) {
    case BinaryOp::Add: return wrap(t, a.u() + b.u());
    case BinaryOp::Sub: return wrap(t, a.u() - b.u());
    case BinaryOp::Mul: return wrap(t, a.u() * b.u());
    case BinaryOp::Div: return int_div(t, a, b, false);
    case BinaryOp::Mod: return int_div(t, a, b, true);
    case BinaryOp::Min: return less(a, b) ? a : b;
    case BinaryOp::Max: return less(b, a) ? a : b;
    case BinaryOp::BitAnd: return wrap(t, a.u() & b.u());
    case BinaryOp::BitOr: return wrap(t, a.u() | b.u());
    case BinaryOp::BitXor: return wrap(t, a.u() ^ b.u());
    case BinaryOp::Shl:
    case BinaryOp::Shr: return int_shift(op, t, a, b);
    case BinaryOp::EQ: return of_bool(a.i == b.i);
    case BinaryOp::NE: return of_bool(a.i != b.i);
    case BinaryOp::LT: return of_bool(less(a, b));
    case BinaryOp::LE: return of_bool(!less(b, a));
    case BinaryOp::GT: return of_bool(less(b, a));
    case BinaryOp::GE: return of_bool(!less(a, b));
    case BinaryOp::And: return of_bool(a.i != 0 && b.i != 0);
    case BinaryOp::Or: return of_bool(a.i != 0 || b.i != 0);
  }
  return Value();
}

// Computing in double and rounding once is exact for + - * / of f16/f32 operands: double
// has more than 2p+2 bits, so the double rounding is innocuous.
Value eval_float_binary(BinaryOp op, DataType t, Value a, Value b) {
  double x = a.f, y = b.f;
  switch (op) {
    case BinaryOp::Add: return float_result(t, x + y);
    case BinaryOp::Sub: return float_result(t, x - y);
    case BinaryOp::Mul: return float_result(t, x * y);
    case BinaryOp::Div: return float_result(t, x / y);
    case BinaryOp::Mod: {
      double q = std::floor(round_to_float(t, x / y));
      return float_result(t, x - round_to_float(t, y * q));
    }
    case BinaryOp::Min: return x < y ? a : b;
    case BinaryOp::Max: return x > y ? a : b;
    case BinaryOp::EQ: return of_bool(x == y);
    case BinaryOp::NE: return of_bool(x != y);
    case BinaryOp::LT: return of_bool(x < y);
    case BinaryOp::LE: return of_bool(x <= y);
    case BinaryOp::GT: return of_bool(x > y);
    case BinaryOp::GE: return of_bool(x >= y);
    default: return Value();  // bitwise and logical ops do not apply to floats
  }
}

Value float_to_int(DataType to, double x) {
  if (std::isnan(x)) return Value::of_int(0);
  x = std::trunc(x);
  if (to.is_int()) {
    double hi = std::ldexp(1.0, to.bits - 1);  // exclusive
    if (x < -hi) return Value::of_int(to.min_int());
    if (x >= hi) return Value::of_int(to.max_int_signed());
    return Value::of_int(static_cast<int64_t>(x));
  }
  if (x <= 0) return Value::of_int(0);
  if (x >= std::ldexp(1.0, to.bits)) return wrap(to, ~uint64_t(0));
  return Value::of_int(static_cast<int64_t>(static_cast<uint64_t>(x)));
}

Value int_to_float(DataType to, DataType from, Value v) {
  bool sgn = from.is_int();
  // Convert straight to float: going through double could round twice for |v| > 2^53.
  if (to.bits == 32) return Value::of_float(sgn ? double(float(v.i)) : double(float(v.u())));
  // f64 rounds once; f16 overflows long before double loses exactness.
  double d = sgn ? double(v.i) : double(v.u());
  return Value::of_float(round_to_float(to, d));
}

}  // namespace

uint16_t double_to_half_bits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return sign | 0x7e00;
  double a = std::fabs(v);
  // 65520 is halfway between the largest half (65504) and 2^16; the tie goes to even (inf).
  if (a >= 65520.0) return sign | 0x7c00;
  if (a < std::ldexp(1.0, -14)) return sign | static_cast<uint16_t>(round_half_even(std::ldexp(a, 24)));
  int e;
  std::frexp(a, &e);                                    // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1;                                      // a in [2^exp, 2^(exp+1))
  double q = round_half_even(std::ldexp(a, 10 - exp));  // in [1024, 2048]
  // q == 2048 carries into the exponent field, which the addition does by itself.
  return sign | static_cast<uint16_t>(((exp + 15) << 10) + static_cast<int>(q) - 1024);
}

double half_bits_to_double(uint16_t h) {
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  int exp = (h >> 10) & 0x1f;
  int man = h & 0x3ff;
  if (exp == 0) return sign * std::ldexp(man, -24);
  if (exp == 31) return man ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
  return sign * std::ldexp(1024 + man, exp - 25);
}

double round_to_float(DataType t, double v) {
  if (t.bits == 32) return static_cast<double>(static_cast<float>(v));
  if (t.bits == 16) return half_bits_to_double(double_to_half_bits(v));
  return v;
}

Value eval_binary(BinaryOp op, DataType t, Value a, Value b) {
  if (t.is_float()) return eval_float_binary(op, t, a, b);
  return eval_int_binary(op, t, a, b);
}

Value eval_unary(UnaryOp op, DataType t, Value v) {
  if (t.is_float()) {
    if (op == UnaryOp::Neg) return Value::of_float(-v.f);
    if (op == UnaryOp::Abs) return Value::of_float(std::fabs(v.f));
    return Value();
  }
  switch (op) {
    case UnaryOp::Neg: return wrap(t, uint64_t(0) - v.u());
    case UnaryOp::Abs: return t.is_int() && v.i < 0 ? wrap(t, uint64_t(0) - v.u()) : v;
    case UnaryOp::Not: return of_bool(v.i == 0);
    case UnaryOp::BitNot: return wrap(t, ~v.u());
    case UnaryOp::Clz:
    case UnaryOp::Popcount: {
      // Of the value's t.bits bits (a negative value's two's complement); clz(0) is t.bits.
      uint64_t bits = t.bits >= 64 ? v.u() : v.u() & ((uint64_t(1) << t.bits) - 1);
      int n = 0;
      if (op == UnaryOp::Popcount) {
        for (; bits; bits &= bits - 1) ++n;
      } else {
        for (int k = t.bits - 1; k >= 0 && !((bits >> k) & 1); --k) ++n;
      }
      return wrap(t, uint64_t(n));
    }
  }
  return Value();
}

Value eval_cast(DataType to, DataType from, Value v) {
  if (from.is_float()) {
    if (to.is_float()) return Value::of_float(round_to_float(to, v.f));
    if (to.is_bool()) return of_bool(v.f != 0);
    return float_to_int(to, v.f);
  }
  if (to.is_float()) return int_to_float(to, from, v);
  // Canonical integers are already sign- or zero-extended by the source's signedness.
  return Value::of_int(wrap_to(to, v.i));
}

Value reduce_init(ReduceOp op, DataType t) {
  if (t.is_float()) {
    if (op == ReduceOp::Sum) return Value::of_float(0.0);
    return Value::of_float(op == ReduceOp::Min ? HUGE_VAL : -HUGE_VAL);
  }
  if (op == ReduceOp::Sum) return Value::of_int(0);
  if (op == ReduceOp::Max) return Value::of_int(t.min_int());
  return t.is_int() ? Value::of_int(t.max_int_signed()) : wrap(t, ~uint64_t(0));
}

Value reduce_combine(ReduceOp op, DataType t, Value acc, Value x) {
  return eval_binary(reduce_combine_op(op), t, acc, x);
}

Value load_value(DataType t, const uint8_t* p) {
  switch (t.code) {
    case TypeCode::Float: {
      if (t.bits == 16) {
        uint16_t h;
        std::memcpy(&h, p, 2);
        return Value::of_float(half_bits_to_double(h));
      }
      if (t.bits == 32) {
        float f;
        std::memcpy(&f, p, 4);
        return Value::of_float(f);
      }
      double d;
      std::memcpy(&d, p, 8);
      return Value::of_float(d);
    }
    case TypeCode::Bool: return of_bool(*p != 0);
    default: break;
  }
  uint64_t bits = 0;
  std::memcpy(&bits, p, static_cast<size_t>(t.bytes()));
  return wrap(t, bits);
}

void store_value(DataType t, Value v, uint8_t* p) {
  if (t.is_float()) {
    if (t.bits == 16) {
      uint16_t h = double_to_half_bits(v.f);
      std::memcpy(p, &h, 2);
    } else if (t.bits == 32) {
      float f = static_cast<float>(v.f);
      std::memcpy(p, &f, 4);
    } else {
      std::memcpy(p, &v.f, 8);
    }
    return;
  }
  uint64_t bits = v.u();
  std::memcpy(p, &bits, static_cast<size_t>(t.bytes()));
}

bool const_value(const Expr& e, Value& out) {
  if (const auto* i = e.as<IntImm>()) {
    out = Value::of_int(i->value);
    return true;
  }
  if (const auto* f = e.as<FloatImm>()) {
    out = Value::of_float(f->value);
    return true;
  }
  return false;
}

Expr make_value(DataType t, Value v, Span s) {
  if (t.is_float()) return FloatImm::make(t, v.f, s);
  return IntImm::make(t, v.i, s);
}

}  // namespace dspc
