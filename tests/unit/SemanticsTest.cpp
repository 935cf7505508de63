// The scalar semantics of the brief, checked against independent reference computations
// (done in __int128 where the operation could overflow) on edge values of every dtype.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/arith/Semantics.h"

namespace dspc {
namespace {

using i128 = __int128;

const DataType kIntTypes[] = {DataType::i8(), DataType::i16(), DataType::i32(), DataType::i64(),
                              DataType::u8(), DataType::u16(), DataType::u32(), DataType::u64()};

i128 type_min(DataType t) {
  return t.is_int() ? -(i128(1) << (t.bits - 1)) : 0;
}
i128 type_max(DataType t) {
  return t.is_int() ? (i128(1) << (t.bits - 1)) - 1 : (i128(1) << t.bits) - 1;
}

// Math value of a canonical integer.
i128 math(DataType t, Value v) {
  return t.is_int() ? i128(v.i) : i128(v.u());
}

// Reduces a mathematical value modulo 2^bits into the dtype's range.
i128 wrap128(DataType t, i128 v) {
  i128 m = i128(1) << t.bits;
  i128 r = v % m;
  if (r < 0) r += m;
  if (t.is_int() && r > type_max(t)) r -= m;
  return r;
}

Value canon(DataType t, i128 v) {
  return Value::of_int(wrap_to(t, static_cast<int64_t>(static_cast<uint64_t>(wrap128(t, v)))));
}

std::vector<i128> edge_values(DataType t) {
  i128 lo = type_min(t), hi = type_max(t);
  std::vector<i128> v = {0,      1,          2,          3,    7,      -1,         -2,
                         -7,     lo,         lo + 1,     hi,   hi - 1, hi / 2,     lo / 2,
                         t.bits, t.bits - 1, t.bits + 1, 0x5a, -0x33,  0x12345678, -0x7654321};
  // A few fixed pseudo-random values.
  uint64_t s = 0x1234;
  for (int k = 0; k < 6; ++k) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v.push_back(i128(static_cast<int64_t>(s)));
  }
  std::vector<i128> out;
  for (i128 x : v) out.push_back(wrap128(t, x));
  return out;
}

i128 floor_div(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Reference for one binary op on mathematical values, per the brief.
i128 reference(BinaryOp op, DataType t, i128 a, i128 b) {
  switch (op) {
    case BinaryOp::Add: return wrap128(t, a + b);
    case BinaryOp::Sub: return wrap128(t, a - b);
    case BinaryOp::Mul: {
      // a * b may overflow __int128 for 64-bit operands: multiply modulo 2^64 instead.
      uint64_t r = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
      return wrap128(t, i128(r));
    }
    case BinaryOp::Div:
      if (b == 0) return 0;
      return wrap128(t, floor_div(a, b));
    case BinaryOp::Mod:
      if (b == 0) return 0;
      return wrap128(t, a - floor_div(a, b) * b);
    case BinaryOp::Min: return a < b ? a : b;
    case BinaryOp::Max: return a > b ? a : b;
    case BinaryOp::BitAnd: return wrap128(t, a & b);
    case BinaryOp::BitOr: return wrap128(t, a | b);
    case BinaryOp::BitXor: return wrap128(t, a ^ b);
    case BinaryOp::Shl:
      if (b < 0 || b >= t.bits) return 0;
      return wrap128(t, i128(static_cast<uint64_t>(a) << int(b)));
    case BinaryOp::Shr:
      if (b < 0 || b >= t.bits) return a < 0 ? -1 : 0;
      return floor_div(a, i128(1) << int(b));
    case BinaryOp::EQ: return a == b;
    case BinaryOp::NE: return a != b;
    case BinaryOp::LT: return a < b;
    case BinaryOp::LE: return a <= b;
    case BinaryOp::GT: return a > b;
    case BinaryOp::GE: return a >= b;
    default: return 0;
  }
}

const BinaryOp kIntOps[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul,    BinaryOp::Div,   BinaryOp::Mod,
                            BinaryOp::Min, BinaryOp::Max, BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor,
                            BinaryOp::Shl, BinaryOp::Shr, BinaryOp::EQ,     BinaryOp::NE,    BinaryOp::LT,
                            BinaryOp::LE,  BinaryOp::GT,  BinaryOp::GE};

std::string show(i128 v) {
  bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  do {
    s.insert(s.begin(), char('0' + int(u % 10)));
    u /= 10;
  } while (u);
  return neg ? "-" + s : s;
}

TEST(SemanticsTest, EveryIntegerOpOnEdgeValues) {
  int checked = 0;
  for (DataType t : kIntTypes) {
    auto values = edge_values(t);
    for (BinaryOp op : kIntOps) {
      bool cmp = is_comparison(op);
      for (i128 a : values) {
        for (i128 b : values) {
          Value r = eval_binary(op, t, canon(t, a), canon(t, b));
          i128 want = reference(op, t, a, b);
          i128 got = cmp ? i128(r.i) : math(t, r);
          ASSERT_EQ(show(got), show(want))
              << t.str() << " " << show(a) << " " << binary_op_symbol(op) << " " << show(b);
          if (!cmp) {
            ASSERT_EQ(r.i, canon(t, want).i) << "result not canonical for " << t.str();
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 50000);
}

TEST(SemanticsTest, FloorDivisionAndModuloOfNegatives) {
  DataType t = DataType::i32();
  auto div = [&](int64_t a, int64_t b) {
    return eval_binary(BinaryOp::Div, t, Value::of_int(a), Value::of_int(b)).i;
  };
  auto mod = [&](int64_t a, int64_t b) {
    return eval_binary(BinaryOp::Mod, t, Value::of_int(a), Value::of_int(b)).i;
  };
  EXPECT_EQ(div(-7, 2), -4);
  EXPECT_EQ(mod(-7, 2), 1);
  EXPECT_EQ(div(7, -2), -4);
  EXPECT_EQ(mod(7, -2), -1);
  EXPECT_EQ(div(-7, -2), 3);
  EXPECT_EQ(mod(-7, -2), -1);
  EXPECT_EQ(div(7, 2), 3);
  EXPECT_EQ(mod(7, 2), 1);
  EXPECT_EQ(div(-8, 2), -4);
  EXPECT_EQ(mod(-8, 2), 0);
  EXPECT_EQ(div(5, 0), 0);
  EXPECT_EQ(mod(5, 0), 0);
  EXPECT_EQ(div(-5, 0), 0);
  // Unsigned: ordinary.
  DataType u = DataType::u8();
  EXPECT_EQ(eval_binary(BinaryOp::Div, u, Value::of_int(250), Value::of_int(7)).i, 35);
  EXPECT_EQ(eval_binary(BinaryOp::Mod, u, Value::of_int(250), Value::of_int(7)).i, 5);
  EXPECT_EQ(eval_binary(BinaryOp::Div, u, Value::of_int(250), Value::of_int(0)).i, 0);
}

TEST(SemanticsTest, MinDividedByMinusOne) {
  for (DataType t : {DataType::i8(), DataType::i16(), DataType::i32(), DataType::i64()}) {
    Value mn = Value::of_int(t.min_int()), m1 = Value::of_int(-1);
    EXPECT_EQ(eval_binary(BinaryOp::Div, t, mn, m1).i, t.min_int()) << t.str();
    EXPECT_EQ(eval_binary(BinaryOp::Mod, t, mn, m1).i, 0) << t.str();
    EXPECT_EQ(eval_unary(UnaryOp::Neg, t, mn).i, t.min_int()) << t.str();
    EXPECT_EQ(eval_unary(UnaryOp::Abs, t, mn).i, t.min_int()) << t.str();
    EXPECT_EQ(eval_unary(UnaryOp::Abs, t, Value::of_int(-5)).i, 5) << t.str();
  }
}

TEST(SemanticsTest, Shifts) {
  for (DataType t : kIntTypes) {
    Value one = Value::of_int(1), neg = canon(t, -8), seven = Value::of_int(7);
    for (int64_t amount : {int64_t(-1), int64_t(t.bits), int64_t(t.bits) + 1}) {
      Value a = canon(t, amount);
      EXPECT_EQ(eval_binary(BinaryOp::Shl, t, one, a).i, 0) << t.str() << " << " << amount;
      EXPECT_EQ(eval_binary(BinaryOp::Shr, t, seven, a).i, 0) << t.str() << " >> " << amount;
      // -1 read as unsigned is a huge amount: also everything shifted out.
      int64_t want_neg = t.is_int() ? -1 : 0;
      EXPECT_EQ(eval_binary(BinaryOp::Shr, t, neg, a).i, want_neg) << t.str() << " >> " << amount;
    }
    Value last = Value::of_int(t.bits - 1);
    EXPECT_EQ(math(t, eval_binary(BinaryOp::Shl, t, one, last)),
              t.is_int() ? type_min(t) : (i128(1) << (t.bits - 1)));
    EXPECT_EQ(math(t, eval_binary(BinaryOp::Shr, t, neg, Value::of_int(1))),
              t.is_int() ? -4 : (type_max(t) - 7) / 2);
  }
  EXPECT_EQ(eval_binary(BinaryOp::Shr, DataType::i8(), Value::of_int(-128), Value::of_int(7)).i, -1);
  EXPECT_EQ(eval_binary(BinaryOp::Shr, DataType::u8(), Value::of_int(128), Value::of_int(7)).i, 1);
  EXPECT_EQ(eval_binary(BinaryOp::Shl, DataType::i8(), Value::of_int(1), Value::of_int(7)).i, -128);
  EXPECT_EQ(eval_binary(BinaryOp::Shl, DataType::u8(), Value::of_int(0x81), Value::of_int(1)).i, 2);
}

TEST(SemanticsTest, BitCounts) {
  // Of the type's bits (a negative value's two's complement); count_leading_zeros(0) is the width.
  for (DataType t : kIntTypes) {
    EXPECT_EQ(eval_unary(UnaryOp::Clz, t, Value::of_int(0)).i, t.bits) << t.str();
    EXPECT_EQ(eval_unary(UnaryOp::Clz, t, Value::of_int(1)).i, t.bits - 1) << t.str();
    EXPECT_EQ(eval_unary(UnaryOp::Clz, t, canon(t, -1)).i, 0) << t.str();
    EXPECT_EQ(eval_unary(UnaryOp::Popcount, t, Value::of_int(0)).i, 0) << t.str();
    EXPECT_EQ(eval_unary(UnaryOp::Popcount, t, canon(t, -1)).i, t.bits) << t.str();
    EXPECT_EQ(eval_unary(UnaryOp::Popcount, t, Value::of_int(0x55)).i, 4) << t.str();
  }
  EXPECT_EQ(eval_unary(UnaryOp::Clz, DataType::i8(), Value::of_int(-128)).i, 0);
  EXPECT_EQ(eval_unary(UnaryOp::Clz, DataType::i16(), Value::of_int(127)).i, 9);
  EXPECT_EQ(eval_unary(UnaryOp::Clz, DataType::u32(), Value::of_int(65536)).i, 15);
  EXPECT_EQ(eval_unary(UnaryOp::Popcount, DataType::i16(), Value::of_int(-2)).i, 15);
  EXPECT_EQ(eval_unary(UnaryOp::Popcount, DataType::u64(), Value::of_int(-1)).i, 64);
}

TEST(SemanticsTest, UnaryOps) {
  EXPECT_EQ(eval_unary(UnaryOp::Neg, DataType::u8(), Value::of_int(1)).i, 255);
  EXPECT_EQ(eval_unary(UnaryOp::Abs, DataType::u8(), Value::of_int(200)).i, 200);
  EXPECT_EQ(eval_unary(UnaryOp::BitNot, DataType::i8(), Value::of_int(0)).i, -1);
  EXPECT_EQ(eval_unary(UnaryOp::BitNot, DataType::u16(), Value::of_int(0)).i, 65535);
  EXPECT_EQ(eval_unary(UnaryOp::BitNot, DataType::u64(), Value::of_int(0)).u(), ~uint64_t(0));
  EXPECT_EQ(eval_unary(UnaryOp::Not, DataType::boolean(), Value::of_int(1)).i, 0);
  EXPECT_EQ(eval_unary(UnaryOp::Not, DataType::boolean(), Value::of_int(0)).i, 1);
  EXPECT_EQ(eval_unary(UnaryOp::Neg, DataType::f32(), Value::of_float(1.5)).f, -1.5);
  EXPECT_EQ(eval_unary(UnaryOp::Abs, DataType::f64(), Value::of_float(-2.25)).f, 2.25);
}

TEST(SemanticsTest, BoolOps) {
  DataType b = DataType::boolean();
  Value t = Value::of_int(1), f = Value::of_int(0);
  EXPECT_EQ(eval_binary(BinaryOp::And, b, t, f).i, 0);
  EXPECT_EQ(eval_binary(BinaryOp::And, b, t, t).i, 1);
  EXPECT_EQ(eval_binary(BinaryOp::Or, b, f, t).i, 1);
  EXPECT_EQ(eval_binary(BinaryOp::Or, b, f, f).i, 0);
  EXPECT_EQ(eval_binary(BinaryOp::BitXor, b, t, t).i, 0);
  EXPECT_EQ(eval_binary(BinaryOp::BitOr, b, t, f).i, 1);
  EXPECT_EQ(eval_binary(BinaryOp::BitAnd, b, t, f).i, 0);
  EXPECT_EQ(eval_binary(BinaryOp::EQ, b, f, f).i, 1);
  EXPECT_EQ(eval_binary(BinaryOp::NE, b, t, f).i, 1);
}

TEST(SemanticsTest, FloatOps) {
  DataType f32 = DataType::f32(), f64 = DataType::f64();
  auto bin = [](BinaryOp op, DataType t, double a, double b) {
    return eval_binary(op, t, Value::of_float(a), Value::of_float(b)).f;
  };
  // f32 rounds every operation: 1 + 2^-30 is 1 in f32 but not in f64.
  EXPECT_EQ(bin(BinaryOp::Add, f32, 1.0, std::ldexp(1.0, -30)), 1.0);
  EXPECT_NE(bin(BinaryOp::Add, f64, 1.0, std::ldexp(1.0, -30)), 1.0);
  EXPECT_EQ(bin(BinaryOp::Div, f32, 1.0, 3.0), double(1.0f / 3.0f));
  EXPECT_EQ(bin(BinaryOp::Div, f64, 1.0, 3.0), 1.0 / 3.0);
  EXPECT_EQ(bin(BinaryOp::Mul, f32, 0.1f, 0.1f), double(0.1f * 0.1f));
  EXPECT_TRUE(std::isinf(bin(BinaryOp::Div, f32, 1.0, 0.0)));
  EXPECT_TRUE(std::isinf(bin(BinaryOp::Mul, f32, 1e30, 1e30)));  // overflows f32, not f64
  // % is a - b * floor(a / b).
  EXPECT_EQ(bin(BinaryOp::Mod, f64, -7.0, 2.0), 1.0);
  EXPECT_EQ(bin(BinaryOp::Mod, f64, 7.0, -2.0), -1.0);
  EXPECT_EQ(bin(BinaryOp::Mod, f32, 5.5, 2.0), 1.5);
  EXPECT_EQ(bin(BinaryOp::Mod, f32, -5.5, 2.0), 0.5);
  EXPECT_TRUE(std::isnan(bin(BinaryOp::Mod, f32, 1.0, 0.0)));
  // min/max: a < b ? a : b, a > b ? a : b, so a NaN second operand wins.
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(bin(BinaryOp::Min, f32, 1.0, 2.0), 1.0);
  EXPECT_EQ(bin(BinaryOp::Max, f32, 1.0, 2.0), 2.0);
  EXPECT_TRUE(std::isnan(bin(BinaryOp::Min, f32, 1.0, nan)));
  EXPECT_EQ(bin(BinaryOp::Min, f32, nan, 1.0), 1.0);
  EXPECT_EQ(bin(BinaryOp::Max, f32, nan, 1.0), 1.0);
  // Ordered comparisons: NaN compares false except !=.
  for (BinaryOp op : {BinaryOp::EQ, BinaryOp::LT, BinaryOp::LE, BinaryOp::GT, BinaryOp::GE})
    EXPECT_EQ(eval_binary(op, f32, Value::of_float(nan), Value::of_float(nan)).i, 0) << binary_op_symbol(op);
  EXPECT_EQ(eval_binary(BinaryOp::NE, f32, Value::of_float(nan), Value::of_float(nan)).i, 1);
  EXPECT_EQ(eval_binary(BinaryOp::LE, f64, Value::of_float(2.0), Value::of_float(2.0)).i, 1);
}

TEST(SemanticsTest, IntToIntCasts) {
  auto cast = [](DataType to, DataType from, int64_t v) { return eval_cast(to, from, Value::of_int(v)).i; };
  EXPECT_EQ(cast(DataType::i8(), DataType::i32(), 200), -56);
  EXPECT_EQ(cast(DataType::u8(), DataType::i32(), -1), 255);
  EXPECT_EQ(cast(DataType::i32(), DataType::i8(), -1), -1);    // sign-extends
  EXPECT_EQ(cast(DataType::i32(), DataType::u8(), 255), 255);  // zero-extends
  EXPECT_EQ(cast(DataType::u32(), DataType::i8(), -1), 0xffffffffll);
  EXPECT_EQ(cast(DataType::u64(), DataType::i8(), -1), -1);  // all ones
  EXPECT_EQ(cast(DataType::i16(), DataType::u64(), -1), -1);
  EXPECT_EQ(cast(DataType::u16(), DataType::u64(), -1), 65535);
  EXPECT_EQ(cast(DataType::i64(), DataType::u32(), 0xffffffffll), 0xffffffffll);
  EXPECT_EQ(cast(DataType::boolean(), DataType::i32(), 256), 1);
  EXPECT_EQ(cast(DataType::boolean(), DataType::i32(), 0), 0);
  EXPECT_EQ(cast(DataType::i32(), DataType::boolean(), 1), 1);
  EXPECT_EQ(cast(DataType::u8(), DataType::boolean(), 1), 1);
}

TEST(SemanticsTest, FloatToIntCastsSaturate) {
  auto cast = [](DataType to, double v) { return eval_cast(to, DataType::f64(), Value::of_float(v)); };
  double nan = std::numeric_limits<double>::quiet_NaN(), inf = HUGE_VAL;
  EXPECT_EQ(cast(DataType::i8(), 1000.0).i, 127);
  EXPECT_EQ(cast(DataType::i8(), -1000.0).i, -128);
  EXPECT_EQ(cast(DataType::i8(), 127.9).i, 127);
  EXPECT_EQ(cast(DataType::i8(), -128.9).i, -128);
  EXPECT_EQ(cast(DataType::i8(), -2.7).i, -2);  // truncates toward zero
  EXPECT_EQ(cast(DataType::i8(), 2.7).i, 2);
  EXPECT_EQ(cast(DataType::u8(), -5.0).i, 0);
  EXPECT_EQ(cast(DataType::u8(), -0.9).i, 0);
  EXPECT_EQ(cast(DataType::u8(), 300.0).i, 255);
  EXPECT_EQ(cast(DataType::u8(), 255.99).i, 255);
  EXPECT_EQ(cast(DataType::i32(), 3e9).i, 2147483647);
  EXPECT_EQ(cast(DataType::i32(), -3e9).i, -2147483648ll);
  EXPECT_EQ(cast(DataType::u32(), 5e9).i, 0xffffffffll);
  EXPECT_EQ(cast(DataType::i64(), 1e19).i, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(cast(DataType::i64(), -1e19).i, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(cast(DataType::i64(), -9223372036854775808.0).i, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(cast(DataType::u64(), 1e20).u(), ~uint64_t(0));
  EXPECT_EQ(cast(DataType::u64(), 18446744073709549568.0).u(), 18446744073709549568ull);
  for (DataType t : kIntTypes) {
    EXPECT_EQ(cast(t, nan).i, 0) << t.str();
    EXPECT_EQ(cast(t, inf).i, canon(t, type_max(t)).i) << t.str();
    EXPECT_EQ(cast(t, -inf).i, canon(t, type_min(t)).i) << t.str();
  }
  // x -> bool is x != 0, and NaN != 0.
  EXPECT_EQ(cast(DataType::boolean(), 0.0).i, 0);
  EXPECT_EQ(cast(DataType::boolean(), -0.0).i, 0);
  EXPECT_EQ(cast(DataType::boolean(), 0.25).i, 1);
  EXPECT_EQ(cast(DataType::boolean(), nan).i, 1);
}

TEST(SemanticsTest, IntToFloatRoundsToNearestEven) {
  auto cast = [](DataType to, DataType from, int64_t v) { return eval_cast(to, from, Value::of_int(v)).f; };
  // 2^24 + 1 is a tie between 2^24 and 2^24 + 2 in f32: even mantissa wins.
  EXPECT_EQ(cast(DataType::f32(), DataType::i32(), (1 << 24) + 1), 16777216.0);
  EXPECT_EQ(cast(DataType::f32(), DataType::i32(), (1 << 24) + 3), 16777220.0);
  EXPECT_EQ(cast(DataType::f64(), DataType::i32(), (1 << 24) + 1), 16777217.0);
  // Just above a tie in f32 but a tie after rounding to f64 first: must round up, once.
  int64_t v = (int64_t(1) << 62) + (int64_t(1) << 38) + 1;
  EXPECT_EQ(cast(DataType::f32(), DataType::i64(), v), std::ldexp(1.0, 62) + std::ldexp(1.0, 39));
  EXPECT_EQ(cast(DataType::f32(), DataType::u64(), -1), std::ldexp(1.0, 64));
  EXPECT_EQ(cast(DataType::f64(), DataType::u64(), -1), std::ldexp(1.0, 64));
  EXPECT_EQ(cast(DataType::f32(), DataType::u8(), 255), 255.0);
  EXPECT_EQ(cast(DataType::f32(), DataType::i8(), -128), -128.0);
  EXPECT_EQ(cast(DataType::f32(), DataType::boolean(), 1), 1.0);
  EXPECT_EQ(cast(DataType::f16(), DataType::i32(), 2049), 2048.0);  // tie to even in f16
  EXPECT_EQ(cast(DataType::f16(), DataType::i32(), 2051), 2052.0);
  EXPECT_TRUE(std::isinf(cast(DataType::f16(), DataType::i32(), 70000)));
}

TEST(SemanticsTest, FloatToFloatCasts) {
  auto cast = [](DataType to, DataType from, double v) { return eval_cast(to, from, Value::of_float(v)).f; };
  EXPECT_EQ(cast(DataType::f32(), DataType::f64(), 0.1), double(0.1f));
  EXPECT_EQ(cast(DataType::f64(), DataType::f32(), double(0.1f)), double(0.1f));
  EXPECT_TRUE(std::isinf(cast(DataType::f32(), DataType::f64(), 1e300)));
  EXPECT_TRUE(std::isnan(cast(DataType::f32(), DataType::f64(), std::nan(""))));
  EXPECT_EQ(cast(DataType::f16(), DataType::f64(), 65504.0), 65504.0);
  EXPECT_TRUE(std::isinf(cast(DataType::f16(), DataType::f64(), 65520.0)));
  EXPECT_EQ(cast(DataType::f16(), DataType::f64(), 65519.0), 65504.0);
  EXPECT_EQ(cast(DataType::f16(), DataType::f64(), std::ldexp(1.0, -24)), std::ldexp(1.0, -24));
  EXPECT_EQ(cast(DataType::f16(), DataType::f64(), std::ldexp(1.0, -25)), 0.0);  // tie to even (0)
  EXPECT_EQ(cast(DataType::f16(), DataType::f64(), std::ldexp(3.0, -26)), std::ldexp(1.0, -24));
  EXPECT_EQ(cast(DataType::f16(), DataType::f32(), 1.0 + std::ldexp(1.0, -11)), 1.0);
  EXPECT_EQ(cast(DataType::f16(), DataType::f32(), 1.0 + std::ldexp(3.0, -11)), 1.0 + std::ldexp(1.0, -9));
}

TEST(SemanticsTest, HalfBitsRoundTrip) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    double d = half_bits_to_double(static_cast<uint16_t>(h));
    if (std::isnan(d)) continue;
    ASSERT_EQ(double_to_half_bits(d), h) << std::hex << h;
  }
  EXPECT_EQ(double_to_half_bits(1.0), 0x3c00);
  EXPECT_EQ(double_to_half_bits(-2.0), 0xc000);
  EXPECT_EQ(double_to_half_bits(HUGE_VAL), 0x7c00);
}

TEST(SemanticsTest, Reductions) {
  EXPECT_EQ(reduce_init(ReduceOp::Sum, DataType::i32()).i, 0);
  EXPECT_EQ(reduce_init(ReduceOp::Min, DataType::i8()).i, 127);
  EXPECT_EQ(reduce_init(ReduceOp::Max, DataType::i8()).i, -128);
  EXPECT_EQ(reduce_init(ReduceOp::Min, DataType::u8()).i, 255);
  EXPECT_EQ(reduce_init(ReduceOp::Max, DataType::u8()).i, 0);
  EXPECT_EQ(reduce_init(ReduceOp::Min, DataType::u64()).u(), ~uint64_t(0));
  EXPECT_EQ(reduce_init(ReduceOp::Min, DataType::f32()).f, HUGE_VAL);
  EXPECT_EQ(reduce_init(ReduceOp::Max, DataType::f64()).f, -HUGE_VAL);
  EXPECT_EQ(reduce_combine(ReduceOp::Sum, DataType::i8(), Value::of_int(127), Value::of_int(1)).i, -128);
  EXPECT_EQ(reduce_combine(ReduceOp::Min, DataType::u8(), Value::of_int(3), Value::of_int(200)).i, 3);
  EXPECT_EQ(reduce_combine(ReduceOp::Max, DataType::i8(), Value::of_int(-3), Value::of_int(-2)).i, -2);
}

TEST(SemanticsTest, LoadStoreAndConstants) {
  uint8_t buf[8] = {0xff, 0xff, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(load_value(DataType::i16(), buf).i, -1);
  EXPECT_EQ(load_value(DataType::u16(), buf).i, 65535);
  store_value(DataType::f32(), Value::of_float(1.5), buf);
  float f;
  std::memcpy(&f, buf, 4);
  EXPECT_EQ(f, 1.5f);
  EXPECT_EQ(load_value(DataType::f32(), buf).f, 1.5);
  store_value(DataType::i32(), Value::of_int(-2), buf);
  EXPECT_EQ(buf[0], 0xfe);
  EXPECT_EQ(buf[3], 0xff);
  Value v;
  ASSERT_TRUE(const_value(IntImm::make(DataType::u8(), 200), v));
  EXPECT_EQ(v.i, 200);
  Expr e = make_value(DataType::f32(), Value::of_float(0.5));
  ASSERT_TRUE(const_value(e, v));
  EXPECT_EQ(v.f, 0.5);
  EXPECT_EQ(e.dtype(), DataType::f32());
  EXPECT_FALSE(const_value(var_expr(VarNode::make("x")), v));
}

}  // namespace
}  // namespace dspc
