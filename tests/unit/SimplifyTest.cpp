// simplify: constant folding with the brief's semantics (tables written by hand), index
// algebra, statement clean-up, idempotence and value preservation on random expressions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>

#include "compiler/ir/IR.h"
#include "compiler/ir/IRVisitor.h"
#include "compiler/ir/Printer.h"
#include "passes/FlattenBuffers.h"
#include "passes/LowerVtcmAlloc.h"
#include "passes/Simplify.h"
#include "compiler/arith/Simplify.h"

namespace dspc {
namespace {

using T = DataType;
constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kU64Max = -1;  // u64 constants hold their bit pattern

struct IntCase {
  DataType t;
  BinaryOp op;
  int64_t a, b, want;
};

void check_table(const std::vector<IntCase>& cases) {
  for (const auto& c : cases) {
    Expr r = simplify_expr(Binary::make(c.op, IntImm::make(c.t, c.a), IntImm::make(c.t, c.b)));
    const auto* k = r.as<IntImm>();
    ASSERT_NE(k, nullptr) << print_expr(r);
    DataType want_t = is_comparison(c.op) ? T::boolean() : c.t;
    EXPECT_EQ(k->dtype, want_t);
    EXPECT_EQ(k->value, c.want) << c.t.str() << ": " << c.a << " " << binary_op_symbol(c.op) << " " << c.b;
  }
}

TEST(Simplify, FoldsAddSubMulWrappingToEveryIntegerType) {
  using B = BinaryOp;
  // clang-format off
  check_table({
      {T::i8(), B::Add, 127, 1, -128},       {T::u8(), B::Add, 255, 1, 0},
      {T::i16(), B::Add, 32767, 1, -32768},  {T::u16(), B::Add, 65535, 2, 1},
      {T::i32(), B::Add, kI32Max, 1, kI32Min}, {T::u32(), B::Add, 4294967295, 1, 0},
      {T::i64(), B::Add, kI64Max, 1, kI64Min}, {T::u64(), B::Add, kU64Max, 1, 0},
      {T::i8(), B::Sub, -128, 1, 127},       {T::u8(), B::Sub, 0, 1, 255},
      {T::i16(), B::Sub, -32768, 1, 32767},  {T::u16(), B::Sub, 0, 1, 65535},
      {T::i32(), B::Sub, kI32Min, 1, kI32Max}, {T::u32(), B::Sub, 0, 1, 4294967295},
      {T::i64(), B::Sub, kI64Min, 1, kI64Max}, {T::u64(), B::Sub, 0, 1, kU64Max},
      {T::i8(), B::Mul, 16, 8, -128},        {T::i8(), B::Mul, 100, 3, 44},
      {T::u8(), B::Mul, 16, 16, 0},          {T::u8(), B::Mul, 200, 2, 144},
      {T::i16(), B::Mul, 300, 300, 24464},   {T::u16(), B::Mul, 256, 256, 0},
      {T::i32(), B::Mul, 46341, 46341, -2147479015}, {T::u32(), B::Mul, 65536, 65537, 65536},
      {T::i64(), B::Mul, int64_t(1) << 32, int64_t(1) << 32, 0}, {T::u64(), B::Mul, kI64Min, 2, 0},
      {T::i32(), B::Mul, -7, 6, -42},        {T::i64(), B::Mul, kI64Min, -1, kI64Min},
  });
  // clang-format on
}

TEST(Simplify, FoldsFloorDivisionAndModuloWithZeroAndMinusOneRules) {
  using B = BinaryOp;
  // clang-format off
  check_table({
      {T::i8(), B::Div, 7, 2, 3},            {T::i8(), B::Div, -7, 2, -4},
      {T::i8(), B::Div, 7, -2, -4},          {T::i8(), B::Div, -7, -2, 3},
      {T::i8(), B::Div, -6, 3, -2},          {T::i8(), B::Div, -128, -1, -128},
      {T::i8(), B::Div, 5, 0, 0},            {T::i16(), B::Div, -1, 32767, -1},
      {T::i32(), B::Div, kI32Min, -1, kI32Min}, {T::i32(), B::Div, -1, 2, -1},
      {T::i64(), B::Div, kI64Min, -1, kI64Min}, {T::i64(), B::Div, -7, 2, -4},
      {T::i64(), B::Div, -9, 0, 0},          {T::u8(), B::Div, 255, 2, 127},
      {T::u8(), B::Div, 200, 0, 0},          {T::u16(), B::Div, 65535, 256, 255},
      {T::u32(), B::Div, 4294967295, 2, 2147483647}, {T::u64(), B::Div, kU64Max, 2, kI64Max},
      {T::u64(), B::Div, kU64Max, 0, 0},
      {T::i8(), B::Mod, 7, 2, 1},            {T::i8(), B::Mod, -7, 2, 1},
      {T::i8(), B::Mod, 7, -2, -1},          {T::i8(), B::Mod, -7, -2, -1},
      {T::i8(), B::Mod, -6, 3, 0},           {T::i8(), B::Mod, -128, -1, 0},
      {T::i8(), B::Mod, 5, 0, 0},            {T::i16(), B::Mod, -1, 32767, 32766},
      {T::i32(), B::Mod, kI32Min, -1, 0},    {T::i32(), B::Mod, -1, 2, 1},
      {T::i32(), B::Mod, kI32Min, 3, 1},     {T::i64(), B::Mod, kI64Min, -1, 0},
      {T::i64(), B::Mod, -7, 3, 2},          {T::i64(), B::Mod, 7, 0, 0},
      {T::u8(), B::Mod, 255, 16, 15},        {T::u8(), B::Mod, 9, 0, 0},
      {T::u16(), B::Mod, 65535, 1000, 535},  {T::u32(), B::Mod, 4294967295, 10, 5},
      {T::u64(), B::Mod, kU64Max, 10, 5},
  });
  // clang-format on
}

TEST(Simplify, FoldsMinMaxAndBitwiseWithTheTypesSignedness) {
  using B = BinaryOp;
  // clang-format off
  check_table({
      {T::i8(), B::Min, -1, 1, -1},          {T::u8(), B::Min, 255, 1, 1},
      {T::i16(), B::Max, -5, -7, -5},        {T::u16(), B::Min, 65535, 0, 0},
      {T::i32(), B::Max, kI32Min, -1, -1},   {T::u32(), B::Max, 2147483648, 1, 2147483648},
      {T::i64(), B::Min, kI64Min, kI64Max, kI64Min}, {T::u64(), B::Max, kU64Max, 1, kU64Max},
      {T::u64(), B::Min, kI64Min, kI64Max, kI64Max},
      {T::i8(), B::BitAnd, -1, 15, 15},      {T::u8(), B::BitOr, 0xF0, 0x0F, 255},
      {T::i16(), B::BitXor, -1, 1, -2},      {T::u32(), B::BitXor, 4294967295, 1, 4294967294},
      {T::i64(), B::BitAnd, kI64Min, -1, kI64Min}, {T::u64(), B::BitOr, kI64Min, 1, kI64Min + 1},
  });
  // clang-format on
}

TEST(Simplify, FoldsShiftsIncludingAmountsOutOfRange) {
  using B = BinaryOp;
  // clang-format off
  check_table({
      {T::i8(), B::Shl, 1, 7, -128},         {T::i8(), B::Shl, 1, 8, 0},
      {T::i8(), B::Shl, 1, -1, 0},           {T::u8(), B::Shl, 1, 7, 128},
      {T::u8(), B::Shl, 3, 7, 128},          {T::u8(), B::Shl, 1, 8, 0},
      {T::i16(), B::Shl, 1, 15, -32768},     {T::u16(), B::Shl, 1, 16, 0},
      {T::i32(), B::Shl, 1, 31, kI32Min},    {T::i32(), B::Shl, 1, 32, 0},
      {T::u32(), B::Shl, 1, 4294967295, 0},  {T::i64(), B::Shl, 1, 63, kI64Min},
      {T::i64(), B::Shl, 1, 64, 0},          {T::u64(), B::Shl, 1, 63, kI64Min},
      {T::u64(), B::Shl, 1, kU64Max, 0},
      {T::i8(), B::Shr, -128, 7, -1},        {T::i8(), B::Shr, -128, 8, -1},
      {T::i8(), B::Shr, 64, 8, 0},           {T::i8(), B::Shr, -1, -1, -1},
      {T::i8(), B::Shr, 5, -1, 0},           {T::u8(), B::Shr, 128, 7, 1},
      {T::u8(), B::Shr, 255, 8, 0},          {T::i16(), B::Shr, -32768, 15, -1},
      {T::i16(), B::Shr, -4, 1, -2},         {T::u16(), B::Shr, 32768, 15, 1},
      {T::i32(), B::Shr, -1, 31, -1},        {T::i32(), B::Shr, kI32Min, 32, -1},
      {T::i32(), B::Shr, kI32Max, 32, 0},    {T::u32(), B::Shr, 2147483648, 31, 1},
      {T::i64(), B::Shr, kI64Min, 63, -1},   {T::i64(), B::Shr, -5, 1, -3},
      {T::u64(), B::Shr, kI64Min, 63, 1},    {T::u64(), B::Shr, kU64Max, 64, 0},
  });
  // clang-format on
}

TEST(Simplify, FoldsComparisonsWithTheTypesSignedness) {
  using B = BinaryOp;
  // clang-format off
  check_table({
      {T::i8(), B::LT, -1, 1, 1},            {T::u8(), B::LT, 255, 1, 0},
      {T::i16(), B::LE, -3, -3, 1},          {T::u16(), B::GT, 65535, 0, 1},
      {T::i32(), B::GE, kI32Min, 0, 0},      {T::u32(), B::GT, 2147483648, 1, 1},
      {T::i64(), B::LT, kI64Min, 0, 1},      {T::u64(), B::GT, kU64Max, 1, 1},
      {T::u64(), B::LT, kI64Max, kI64Min, 1}, {T::i32(), B::EQ, 7, 7, 1},
      {T::i32(), B::NE, 7, 7, 0},            {T::u8(), B::NE, 1, 2, 1},
      {T::boolean(), B::And, 1, 0, 0},       {T::boolean(), B::Or, 1, 0, 1},
      {T::boolean(), B::EQ, 0, 0, 1},        {T::boolean(), B::BitXor, 1, 1, 0},
  });
  // clang-format on
}

double fold_float(DataType t, BinaryOp op, double a, double b) {
  Expr r = simplify_expr(Binary::make(op, FloatImm::make(t, a), FloatImm::make(t, b)));
  const auto* k = r.as<FloatImm>();
  EXPECT_NE(k, nullptr) << print_expr(r);
  return k ? k->value : -12345.0;
}

bool fold_float_cmp(BinaryOp op, double a, double b) {
  Expr r = simplify_expr(Binary::make(op, FloatImm::make(T::f32(), a), FloatImm::make(T::f32(), b)));
  return r.as<IntImm>()->value != 0;
}

TEST(Simplify, FoldsFloatsRoundingF32AfterEveryOperation) {
  EXPECT_EQ(fold_float(T::f32(), BinaryOp::Add, 16777216.0, 1.0), 16777216.0);
  EXPECT_EQ(fold_float(T::f64(), BinaryOp::Add, 16777216.0, 1.0), 16777217.0);
  EXPECT_EQ(fold_float(T::f32(), BinaryOp::Add, 0.1, 0.2), static_cast<double>(0.1f + 0.2f));
  EXPECT_EQ(fold_float(T::f32(), BinaryOp::Div, 1.0, 3.0), static_cast<double>(1.0f / 3.0f));
  EXPECT_EQ(fold_float(T::f32(), BinaryOp::Div, 1.0, 0.0), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(fold_float(T::f64(), BinaryOp::Div, 0.0, 0.0)));
  EXPECT_EQ(fold_float(T::f32(), BinaryOp::Mod, -7.5, 2.0), 0.5);
  EXPECT_EQ(fold_float(T::f32(), BinaryOp::Mod, 7.5, -2.0), -0.5);
  EXPECT_EQ(fold_float(T::f64(), BinaryOp::Mod, 5.0, 2.5), 0.0);
  EXPECT_EQ(fold_float(T::f32(), BinaryOp::Min, 1.0, 2.0), 1.0);
  EXPECT_EQ(fold_float(T::f32(), BinaryOp::Max, -1.0, 2.0), 2.0);
  // min(a, b) = a < b ? a : b, so a NaN on either side decides differently.
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(fold_float(T::f32(), BinaryOp::Min, nan, 1.0), 1.0);
  EXPECT_TRUE(std::isnan(fold_float(T::f32(), BinaryOp::Min, 1.0, nan)));
  EXPECT_EQ(fold_float(T::f32(), BinaryOp::Max, nan, 1.0), 1.0);
  EXPECT_FALSE(fold_float_cmp(BinaryOp::EQ, nan, nan));
  EXPECT_TRUE(fold_float_cmp(BinaryOp::NE, nan, nan));
  EXPECT_FALSE(fold_float_cmp(BinaryOp::LT, nan, 1.0));
  EXPECT_FALSE(fold_float_cmp(BinaryOp::GE, nan, 1.0));
  EXPECT_TRUE(fold_float_cmp(BinaryOp::LE, -0.0, 0.0));
}

std::string fold_cast(DataType to, const Expr& value) {
  return print_expr(simplify_expr(Cast::make(to, value)));
}
Expr k(DataType t, int64_t v) {
  return IntImm::make(t, v);
}
Expr kf(DataType t, double v) {
  return FloatImm::make(t, v);
}

TEST(Simplify, FoldsCasts) {
  // int -> int wraps, extending by the source's signedness.
  EXPECT_EQ(fold_cast(T::i8(), k(T::i32(), 300)), "44i8");
  EXPECT_EQ(fold_cast(T::u8(), k(T::i8(), -1)), "255u8");
  EXPECT_EQ(fold_cast(T::i32(), k(T::i8(), -1)), "-1");
  EXPECT_EQ(fold_cast(T::i32(), k(T::u8(), 255)), "255");
  EXPECT_EQ(fold_cast(T::i8(), k(T::u8(), 255)), "-1i8");
  EXPECT_EQ(fold_cast(T::u64(), k(T::i8(), -1)), "18446744073709551615u64");
  EXPECT_EQ(fold_cast(T::i64(), k(T::u32(), 4294967295)), "4294967295i64");
  EXPECT_EQ(fold_cast(T::u32(), k(T::i32(), -1)), "4294967295u32");
  EXPECT_EQ(fold_cast(T::i16(), k(T::u64(), kU64Max)), "-1i16");
  // float -> int truncates toward zero and saturates; NaN is 0.
  EXPECT_EQ(fold_cast(T::i32(), kf(T::f32(), 3.9)), "3");
  EXPECT_EQ(fold_cast(T::i32(), kf(T::f32(), -3.9)), "-3");
  EXPECT_EQ(fold_cast(T::i32(), kf(T::f32(), 1e10)), "2147483647");
  EXPECT_EQ(fold_cast(T::i32(), kf(T::f32(), -1e10)), "-2147483648");
  EXPECT_EQ(fold_cast(T::i32(), kf(T::f32(), std::nan(""))), "0");
  EXPECT_EQ(fold_cast(T::u8(), kf(T::f32(), -1.0)), "0u8");
  EXPECT_EQ(fold_cast(T::u8(), kf(T::f32(), 300.0)), "255u8");
  EXPECT_EQ(fold_cast(T::i8(), kf(T::f64(), -128.9)), "-128i8");
  EXPECT_EQ(fold_cast(T::i64(), kf(T::f64(), 1e30)), "9223372036854775807i64");
  EXPECT_EQ(fold_cast(T::u64(), kf(T::f64(), 1e30)), "18446744073709551615u64");
  EXPECT_EQ(fold_cast(T::u64(), kf(T::f64(), -1e30)), "0u64");
  // int -> float rounds to nearest even.
  EXPECT_EQ(fold_cast(T::f32(), k(T::i32(), 16777217)), "16777216.0f32");
  EXPECT_EQ(fold_cast(T::f32(), k(T::i32(), 16777219)), "16777220.0f32");
  EXPECT_EQ(fold_cast(T::f64(), k(T::i64(), (int64_t(1) << 53) + 1)), "9007199254740992.0f64");
  EXPECT_EQ(fold_cast(T::f32(), k(T::u64(), kU64Max)), "1.8446744073709552e+19f32");
  EXPECT_EQ(fold_cast(T::f32(), k(T::i8(), -1)), "-1.0f32");
  EXPECT_EQ(fold_cast(T::f32(), k(T::u8(), 255)), "255.0f32");
  // float -> float rounds; x -> bool is x != 0; bool -> number is 0 or 1.
  EXPECT_EQ(fold_cast(T::f32(), kf(T::f64(), 0.1)), print_expr(kf(T::f32(), 0.1f)));
  EXPECT_EQ(fold_cast(T::boolean(), k(T::i32(), 5)), "true");
  EXPECT_EQ(fold_cast(T::boolean(), k(T::u8(), 0)), "false");
  EXPECT_EQ(fold_cast(T::boolean(), kf(T::f32(), std::nan(""))), "true");
  EXPECT_EQ(fold_cast(T::boolean(), kf(T::f32(), -0.0)), "false");
  EXPECT_EQ(fold_cast(T::i32(), k(T::boolean(), 1)), "1");
  EXPECT_EQ(fold_cast(T::f64(), k(T::boolean(), 1)), "1.0f64");
}

TEST(Simplify, FoldsUnaryOperators) {
  auto un = [](UnaryOp op, Expr x) { return print_expr(simplify_expr(Unary::make(op, x))); };
  EXPECT_EQ(un(UnaryOp::Neg, k(T::i8(), -128)), "-128i8");
  EXPECT_EQ(un(UnaryOp::Neg, k(T::u8(), 1)), "255u8");
  EXPECT_EQ(un(UnaryOp::Neg, k(T::i64(), kI64Min)), "-9223372036854775808i64");
  EXPECT_EQ(un(UnaryOp::Abs, k(T::i8(), -128)), "-128i8");
  EXPECT_EQ(un(UnaryOp::Abs, k(T::i32(), -5)), "5");
  EXPECT_EQ(un(UnaryOp::Abs, k(T::u16(), 65535)), "65535u16");
  EXPECT_EQ(un(UnaryOp::BitNot, k(T::u8(), 0)), "255u8");
  EXPECT_EQ(un(UnaryOp::BitNot, k(T::i16(), 0)), "-1i16");
  EXPECT_EQ(un(UnaryOp::Not, k(T::boolean(), 1)), "false");
  EXPECT_EQ(un(UnaryOp::Neg, kf(T::f32(), 1.5)), "-1.5f32");
  EXPECT_EQ(un(UnaryOp::Abs, kf(T::f64(), -2.5)), "2.5f64");
}

// ---------------------------------------------------------------- algebra

VarRef x_var = VarNode::make("x");
VarRef y_var = VarNode::make("y");
Expr x() {
  return var_expr(x_var);
}
Expr y() {
  return var_expr(y_var);
}
Expr c(int64_t v) {
  return make_i32(v);
}
Expr bin(BinaryOp op, Expr a, Expr b) {
  return Binary::make(op, a, b);
}
std::string s(const Expr& e) {
  return print_expr(simplify_expr(e));
}

TEST(Simplify, IndexAlgebra) {
  using B = BinaryOp;
  EXPECT_EQ(s(bin(B::Add, x(), c(0))), "x");
  EXPECT_EQ(s(bin(B::Add, c(0), x())), "x");
  EXPECT_EQ(s(bin(B::Sub, x(), c(0))), "x");
  EXPECT_EQ(s(bin(B::Mul, x(), c(1))), "x");
  EXPECT_EQ(s(bin(B::Mul, c(1), x())), "x");
  EXPECT_EQ(s(bin(B::Mul, x(), c(0))), "0");
  EXPECT_EQ(s(bin(B::Mul, c(0), x())), "0");
  EXPECT_EQ(s(bin(B::Add, bin(B::Add, x(), c(1)), c(2))), "x + 3");
  EXPECT_EQ(s(bin(B::Add, bin(B::Sub, x(), c(1)), c(3))), "x + 2");
  EXPECT_EQ(s(bin(B::Add, bin(B::Sub, x(), c(3)), c(1))), "x - 2");
  EXPECT_EQ(s(bin(B::Sub, bin(B::Add, x(), c(1)), c(3))), "x - 2");
  EXPECT_EQ(s(bin(B::Sub, bin(B::Sub, x(), c(1)), c(3))), "x - 4");
  EXPECT_EQ(s(bin(B::Add, bin(B::Add, x(), c(1)), c(-1))), "x");
  EXPECT_EQ(s(bin(B::Mul, bin(B::Mul, x(), c(2)), c(3))), "x * 6");
  EXPECT_EQ(s(bin(B::Add, c(2), x())), "x + 2");
  EXPECT_EQ(s(bin(B::Mul, c(4), x())), "x * 4");
  EXPECT_EQ(s(bin(B::Add, c(2), bin(B::Add, x(), c(3)))), "x + 5");
  EXPECT_EQ(s(bin(B::Add, x(), c(-1))), "x - 1");
  EXPECT_EQ(s(bin(B::Sub, x(), c(-1))), "x + 1");
  EXPECT_EQ(s(bin(B::Add, x(), c(kI32Min))), "x + -2147483648");
  EXPECT_EQ(s(bin(B::Sub, x(), x())), "0");
  EXPECT_EQ(s(bin(B::Sub, bin(B::Mul, x(), y()), bin(B::Mul, x(), y()))), "0");
  EXPECT_EQ(s(bin(B::Sub, x(), y())), "x - y");
  EXPECT_EQ(s(bin(B::Div, x(), c(1))), "x");
  EXPECT_EQ(s(bin(B::Mod, x(), c(1))), "0");
  EXPECT_EQ(s(bin(B::Add, bin(B::Mul, c(1), x()), bin(B::Mul, y(), c(0)))), "x");
  // The flattened index of a constant position folds completely.
  EXPECT_EQ(s(bin(B::Add, bin(B::Mul, c(3), c(16)), c(4))), "52");
}

TEST(Simplify, FloatsKeepTheirAlgebra) {
  VarRef f = VarNode::make("f", T::f32());
  Expr fv = var_expr(f);
  EXPECT_EQ(s(bin(BinaryOp::Mul, fv, kf(T::f32(), 0.0))), "f * 0.0f32");  // NaN * 0 is NaN
  EXPECT_EQ(s(bin(BinaryOp::Sub, fv, fv)), "f - f");                      // inf - inf is NaN
  EXPECT_EQ(s(bin(BinaryOp::Add, fv, kf(T::f32(), 0.0))), "f + 0.0f32");  // -0 + 0 is +0
}

TEST(Simplify, CastsSelectsMinMaxAndLogic) {
  EXPECT_EQ(s(Cast::make(T::i32(), x())), "x");
  EXPECT_EQ(s(Cast::make(T::i16(), bin(BinaryOp::Add, c(1), c(2)))), "3i16");
  EXPECT_EQ(s(Cast::make(T::i16(), x())), "i16(x)");
  Expr cond = bin(BinaryOp::LT, x(), y());
  EXPECT_EQ(s(Select::make(k(T::boolean(), 1), x(), y())), "x");
  EXPECT_EQ(s(Select::make(k(T::boolean(), 0), x(), y())), "y");
  EXPECT_EQ(s(Select::make(bin(BinaryOp::LT, c(1), c(2)), c(5), c(6))), "5");
  EXPECT_EQ(s(Select::make(cond, x(), y())), "select(x < y, x, y)");
  EXPECT_EQ(s(bin(BinaryOp::Min, c(3), c(5))), "3");
  EXPECT_EQ(s(bin(BinaryOp::Max, c(3), c(5))), "5");
  EXPECT_EQ(s(bin(BinaryOp::Min, bin(BinaryOp::Max, c(300), c(0)), c(255))), "255");
  Expr t = k(T::boolean(), 1), f = k(T::boolean(), 0);
  EXPECT_EQ(s(bin(BinaryOp::And, t, cond)), "x < y");
  EXPECT_EQ(s(bin(BinaryOp::And, cond, f)), "false");
  EXPECT_EQ(s(bin(BinaryOp::Or, cond, t)), "true");
  EXPECT_EQ(s(bin(BinaryOp::Or, f, cond)), "x < y");
}

// ---------------------------------------------------------------- statements

Buffer out_buf() {
  static Buffer b = BufferNode::make("C", T::i32(), {16});
  return b;
}
Stmt store(Expr idx, Expr value) {
  return Store::make(out_buf(), {idx}, value);
}
Stmt loop(const VarRef& v, int64_t extent, Stmt body) {
  return For::make(v, c(0), c(extent), ForKind::Serial, body);
}
std::string ss(const Stmt& st) {
  return print_stmt(simplify_stmt(st));
}

TEST(Simplify, IfWithConstantConditionBecomesItsBranch) {
  Stmt a = store(c(0), c(1)), b = store(c(1), c(2));
  EXPECT_EQ(ss(IfThenElse::make(k(T::boolean(), 1), a, b)), "C[0] = 1\n");
  EXPECT_EQ(ss(IfThenElse::make(bin(BinaryOp::GT, c(1), c(2)), a, b)), "C[1] = 2\n");
  EXPECT_EQ(ss(Seq::make({a, IfThenElse::make(k(T::boolean(), 0), b)})), "C[0] = 1\n");
  EXPECT_EQ(ss(IfThenElse::make(bin(BinaryOp::LT, x(), y()), a, b)),
            "if x < y {\n  C[0] = 1\n} else {\n  C[1] = 2\n}\n");
}

// (x * k + d) / c and % c with c dividing k fold where the loop ranges prove x * k + d does
// not wrap, as a reduction axis split by 4 leaves them: Bq[k / 4, k % 4] with k = ko * 4 + j.
TEST(Simplify, DivisionOfAMultipleInsideItsLoopRange) {
  using B = BinaryOp;
  VarRef ko = VarNode::make("ko");
  Expr v = var_expr(ko);
  auto in_loop = [&](int64_t extent, Expr idx) { return ss(loop(ko, extent, store(c(0), idx))); };
  auto body = [](const std::string& e) { return "for ko in range(0, 64) {\n  C[0] = " + e + "\n}\n"; };
  EXPECT_EQ(in_loop(64, bin(B::Div, bin(B::Add, bin(B::Mul, v, c(4)), c(3)), c(4))), body("ko"));
  EXPECT_EQ(in_loop(64, bin(B::Mod, bin(B::Add, bin(B::Mul, v, c(4)), c(3)), c(4))), body("3"));
  EXPECT_EQ(in_loop(64, bin(B::Div, bin(B::Mul, v, c(4)), c(4))), body("ko"));
  EXPECT_EQ(in_loop(64, bin(B::Mod, bin(B::Mul, v, c(4)), c(4))), body("0"));
  EXPECT_EQ(in_loop(64, bin(B::Div, bin(B::Add, bin(B::Mul, v, c(12)), c(9)), c(4))), body("ko * 3 + 2"));
  EXPECT_EQ(in_loop(64, bin(B::Mod, bin(B::Add, bin(B::Mul, v, c(12)), c(9)), c(4))), body("1"));
  // Floor semantics: (ko * 4 - 1) / 4 is ko - 1 and (ko * 4 - 1) % 4 is 3, also at ko = 0.
  EXPECT_EQ(in_loop(64, bin(B::Div, bin(B::Sub, bin(B::Mul, v, c(4)), c(1)), c(4))), body("ko - 1"));
  EXPECT_EQ(in_loop(64, bin(B::Mod, bin(B::Sub, bin(B::Mul, v, c(4)), c(1)), c(4))), body("3"));
  // Not folded: c does not divide k; x's range unknown (outside any loop); a range where
  // ko * 4 wraps in i32.
  EXPECT_EQ(in_loop(64, bin(B::Div, bin(B::Mul, v, c(6)), c(4))), body("ko * 6 / 4"));
  EXPECT_EQ(s(bin(B::Div, bin(B::Mul, x(), c(4)), c(4))), "x * 4 / 4");
  EXPECT_EQ(ss(loop(ko, int64_t(1) << 30, store(c(0), bin(B::Div, bin(B::Mul, v, c(4)), c(4))))),
            "for ko in range(0, 1073741824) {\n  C[0] = ko * 4 / 4\n}\n");
}

TEST(Simplify, LoopsWithoutIterationsGoExtentOneLoopsStay) {
  VarRef i = VarNode::make("i");
  Stmt body = store(var_expr(i), c(7));
  EXPECT_EQ(ss(Seq::make({loop(i, 0, body), store(c(0), c(1))})), "C[0] = 1\n");
  EXPECT_EQ(ss(loop(i, 1, body)), "for i in range(0, 1) {\n  C[i] = 7\n}\n");
  EXPECT_EQ(ss(For::make(i, c(0), bin(BinaryOp::Sub, c(2), c(5)), ForKind::Serial, body)), "0\n");
  // A loop whose body disappears disappears with it; so does a body that is all gone.
  EXPECT_EQ(ss(loop(i, 4, IfThenElse::make(k(T::boolean(), 0), body))), "0\n");
}

TEST(Simplify, LetOfAConstantIsKept) {
  VarRef n = VarNode::make("n");
  Stmt let = LetStmt::make(n, bin(BinaryOp::Add, c(2), c(3)),
                           store(var_expr(n), bin(BinaryOp::Add, var_expr(n), c(0))));
  EXPECT_EQ(ss(let), "let n: i32 = 5\nC[n] = n\n");
}

TEST(Simplify, KeepsRuntimeCallsAndTheirChecks) {
  Buffer t = BufferNode::make("T", T::i8(), {128}, StorageScope::Vtcm);
  PrimFunc f;
  f.name = "f";
  f.body = Allocate::make(t, Store::make(t, {bin(BinaryOp::Add, c(0), c(5))}, k(T::i8(), 1)));
  Module m;
  m.funcs.push_back(f);
  Module lowered = lower_vtcm_alloc(m, LowerOptions{});
  std::string text = print_module(simplify(lowered, LowerOptions{}));
  EXPECT_NE(text.find("call_extern(\"HexagonBackendAllocateVTCM\", 128, 2048, ctx)"), std::string::npos) << text;
  EXPECT_NE(text.find("if isnullptr(T) {\n    throw_last_error()\n  } else {"), std::string::npos) << text;
  EXPECT_NE(text.find("    T[5] = 1i8\n    call_extern(\"HexagonBackendFreeVTCM\", T, ctx)\n"), std::string::npos)
      << text;
}

TEST(Simplify, FlattenedIndicesOfConstantPositionsFold) {
  Buffer a = BufferNode::make("A", T::i32(), {4, 16});
  PrimFunc f;
  f.name = "f";
  f.outputs = {a};
  VarRef j = VarNode::make("j");
  f.body = loop(j, 16, Store::make(a, {c(3), var_expr(j)}, c(1)));
  Module m;
  m.funcs.push_back(f);
  Module out = simplify(flatten_buffers(m, LowerOptions{}), LowerOptions{});
  EXPECT_EQ(print_stmt(out.funcs[0].body), "for j in range(0, 16) {\n  A[j + 48] = 1\n}\n");
}

// ---------------------------------------------------------------- random expressions

// Replaces variables by constants.
class Bind : public IRMutator {
 public:
  std::map<const VarNode*, Expr> values;
  Expr mutate_Var(const Var* op, const Expr& self) override {
    auto it = values.find(op);
    return it == values.end() ? self : it->second;
  }
};

class RandomExpr {
 public:
  explicit RandomExpr(uint64_t seed) : rng_(seed) {}
  std::vector<VarRef> vars;

  Expr gen(DataType t, int depth) {
    if (depth == 0 || pick(4) == 0) return leaf(t);
    switch (pick(6)) {
      case 0: return Cast::make(t, gen(pick(2) ? T::i32() : T::u8(), depth - 1));
      case 1:
        return Select::make(Binary::make(BinaryOp::LT, gen(t, depth - 1), gen(t, depth - 1)),
                            gen(t, depth - 1), gen(t, depth - 1));
      default: {
        static const BinaryOp ops[] = {BinaryOp::Add,   BinaryOp::Add, BinaryOp::Sub, BinaryOp::Sub,
                                       BinaryOp::Mul,   BinaryOp::Mul, BinaryOp::Div, BinaryOp::Mod,
                                       BinaryOp::Min,   BinaryOp::Max, BinaryOp::Shl, BinaryOp::Shr,
                                       BinaryOp::BitXor};
        return Binary::make(ops[pick(sizeof ops / sizeof ops[0])], gen(t, depth - 1), gen(t, depth - 1));
      }
    }
  }

  int64_t value() {
    static const int64_t interesting[] = {0, 1, -1, 2, 3, 7, 8, 31, 32, 255, -128, kI32Min, kI32Max};
    return pick(2) ? interesting[pick(13)] : static_cast<int64_t>(rng_());
  }

 private:
  Expr leaf(DataType t) {
    if (pick(2)) return IntImm::make(t, value() % (pick(2) ? 5 : 1000000));
    for (const auto& v : vars)
      if (v->dtype == t && pick(2)) return var_expr(v);
    for (const auto& v : vars)
      if (v->dtype == t) return var_expr(v);
    return IntImm::make(t, 1);
  }
  size_t pick(size_t n) { return static_cast<size_t>(rng_() % n); }
  std::mt19937_64 rng_;
};

TEST(Simplify, RandomExpressionsKeepTheirValueAndSimplifyIsIdempotent) {
  RandomExpr gen(12345);
  gen.vars = {VarNode::make("a"), VarNode::make("b"), VarNode::make("p", T::u8())};
  for (int n = 0; n < 3000; ++n) {
    Expr e = gen.gen(n % 2 ? T::i32() : T::u8(), 4);
    Expr once = simplify_expr(e);
    ASSERT_EQ(print_expr(simplify_expr(once)), print_expr(once)) << print_expr(e);
    for (int trial = 0; trial < 3; ++trial) {
      Bind bind;
      for (const auto& v : gen.vars) bind.values[v.get()] = IntImm::make(v->dtype, gen.value());
      Expr want = simplify_expr(bind.mutate(e));
      Expr got = simplify_expr(bind.mutate(once));
      ASSERT_TRUE(want.as<IntImm>() && got.as<IntImm>()) << print_expr(want) << " / " << print_expr(got);
      ASSERT_EQ(want.as<IntImm>()->value, got.as<IntImm>()->value)
          << print_expr(e) << "\n simplified: " << print_expr(once);
    }
  }
}

TEST(Simplify, ModuleSimplifyIsIdempotent) {
  VarRef i = VarNode::make("i"), j = VarNode::make("j");
  Buffer a = BufferNode::make("A", T::i32(), {4, 8});
  Buffer t = BufferNode::make("T", T::i32(), {4, 8}, StorageScope::Vtcm);
  Stmt fill = loop(i, 4,
                   loop(j, 8,
                        Store::make(t, {var_expr(i), var_expr(j)},
                                    bin(BinaryOp::Add, bin(BinaryOp::Mul, c(1), var_expr(j)), c(0)))));
  Stmt copy = loop(i, 4,
                   loop(j, 8,
                        Store::make(a, {bin(BinaryOp::Sub, var_expr(i), c(0)), var_expr(j)},
                                    Load::make(t, {var_expr(i), bin(BinaryOp::Add, c(0), var_expr(j))}))));
  PrimFunc f;
  f.name = "f";
  f.outputs = {a};
  f.body = Allocate::make(t, Seq::make({fill, IfThenElse::make(k(T::boolean(), 1), copy)}));
  Module m;
  m.funcs.push_back(f);
  LowerOptions o;
  Module once = simplify(lower_vtcm_alloc(flatten_buffers(m, o), o), o);
  Module twice = simplify(once, o);
  EXPECT_EQ(print_module(twice), print_module(once));
  EXPECT_TRUE(twice.funcs[0].body.same_as(once.funcs[0].body));
  EXPECT_NE(print_module(once).find("      T[i * 8 + j] = j\n"), std::string::npos) << print_module(once);
}

}  // namespace
}  // namespace dspc
