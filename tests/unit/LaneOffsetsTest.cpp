// lane_offsets (compiler/arith/LaneOffsets.h): a vector index as a scalar base plus constant
// per-lane offsets, which the vectorizer's fusion check and codegen's vector accesses share.
#include <gtest/gtest.h>

#include <optional>
#include <utility>

#include "compiler/arith/LaneOffsets.h"

namespace dspc {
namespace {

Expr i32(int64_t v) { return IntImm::make(DataType::i32(), v); }
Expr splat(int64_t v, int lanes) { return Broadcast::make(i32(v), lanes); }
Expr bin(BinaryOp op, Expr a, Expr b) { return Binary::make(op, std::move(a), std::move(b)); }

std::optional<int64_t> constant_base(const Expr& base) {
  if (const IntImm* k = as_int(base)) return k->value;
  return std::nullopt;
}

TEST(LaneOffsets, RampsBroadcastsSumsAndProducts) {
  VarRef x = VarNode::make("x");
  Expr base;
  std::vector<int64_t> off;
  // 2 * ramp(x, 3, 4) + broadcast(5): base 2x + 5, offsets 0, 6, 12, 18.
  Expr e = bin(BinaryOp::Add, bin(BinaryOp::Mul, splat(2, 4), Ramp::make(x, i32(3), 4)), splat(5, 4));
  ASSERT_TRUE(lane_offsets(e, 4, base, off));
  EXPECT_EQ(off, (std::vector<int64_t>{0, 6, 12, 18}));
  EXPECT_FALSE(constant_base(base));
  // Constant bases fold: ramp(3, 1, 4) * 2 - broadcast(1) has the constant base 5.
  ASSERT_TRUE(lane_offsets(bin(BinaryOp::Sub, bin(BinaryOp::Mul, Ramp::make(i32(3), i32(1), 4), splat(2, 4)), splat(1, 4)),
                           4, base, off));
  EXPECT_EQ(constant_base(base), 5);
  EXPECT_EQ(off, (std::vector<int64_t>{0, 2, 4, 6}));
  // Lanes that do not match, a variable stride, a product of two vectors: not of the form.
  EXPECT_FALSE(lane_offsets(Ramp::make(x, i32(1), 8), 4, base, off));
  EXPECT_FALSE(lane_offsets(Ramp::make(x, x, 4), 4, base, off));
  EXPECT_FALSE(lane_offsets(bin(BinaryOp::Mul, Ramp::make(x, i32(1), 4), Ramp::make(x, i32(1), 4)), 4, base, off));
}

TEST(LaneOffsets, EdgeClampAtAConstantPosition) {
  Expr base;
  std::vector<int64_t> off;
  // min(ramp(6, 1, 4), 7): lanes 6, 7, 7, 7.
  ASSERT_TRUE(lane_offsets(bin(BinaryOp::Min, Ramp::make(i32(6), i32(1), 4), splat(7, 4)), 4, base, off));
  EXPECT_EQ(constant_base(base), 0);
  EXPECT_EQ(off, (std::vector<int64_t>{6, 7, 7, 7}));
  // The same clamp of a variable position is not known per lane.
  EXPECT_FALSE(lane_offsets(bin(BinaryOp::Min, Ramp::make(VarNode::make("x"), i32(1), 4), splat(7, 4)), 4, base, off));
}

TEST(LaneOffsets, DivisionAndModuloOfAKnownMultiple) {
  VarRef x = VarNode::make("x");
  Expr base;
  std::vector<int64_t> off;
  Expr x8 = bin(BinaryOp::Mul, x, i32(8));
  // ramp(8x, 1, 8) / 4 and % 4: floor division acts on the offsets alone when 4 divides 8x...
  auto eight = [](const Expr&) { return int64_t(8); };
  ASSERT_TRUE(lane_offsets(bin(BinaryOp::Div, Ramp::make(x8, i32(1), 8), splat(4, 8)), 8, base, off, eight));
  EXPECT_EQ(off, (std::vector<int64_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  ASSERT_TRUE(lane_offsets(bin(BinaryOp::Mod, Ramp::make(x8, i32(1), 8), splat(4, 8)), 8, base, off, eight));
  EXPECT_EQ(constant_base(base), 0);
  EXPECT_EQ(off, (std::vector<int64_t>{0, 1, 2, 3, 0, 1, 2, 3}));
  // ...and not when nothing says it does.
  EXPECT_FALSE(lane_offsets(bin(BinaryOp::Div, Ramp::make(x8, i32(1), 8), splat(4, 8)), 8, base, off));
  auto two = [](const Expr&) { return int64_t(2); };
  EXPECT_FALSE(lane_offsets(bin(BinaryOp::Div, Ramp::make(x8, i32(1), 8), splat(4, 8)), 8, base, off, two));
  // A constant base the divisor does not divide goes into the offsets: ramp(-3, 1, 4) / 2 is
  // -2, -1, -1, 0 (floor division), % 2 is 1, 0, 1, 0.
  ASSERT_TRUE(lane_offsets(bin(BinaryOp::Div, Ramp::make(i32(-3), i32(1), 4), splat(2, 4)), 4, base, off));
  EXPECT_EQ(constant_base(base), 0);
  EXPECT_EQ(off, (std::vector<int64_t>{-2, -1, -1, 0}));
  ASSERT_TRUE(lane_offsets(bin(BinaryOp::Mod, Ramp::make(i32(-3), i32(1), 4), splat(2, 4)), 4, base, off));
  EXPECT_EQ(off, (std::vector<int64_t>{1, 0, 1, 0}));
  // A divisor that is not a positive constant: not of the form.
  EXPECT_FALSE(lane_offsets(bin(BinaryOp::Div, Ramp::make(i32(0), i32(1), 4), splat(0, 4)), 4, base, off));
}

}  // namespace
}  // namespace dspc
