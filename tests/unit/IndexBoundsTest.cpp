// IndexBounds (compiler/arith/IndexBounds.h) on vector expressions: a broadcast's interval is
// its value's, so codegen can prove a splat shift amount in range (eval_shift drops its guard).
#include <gtest/gtest.h>

#include "compiler/arith/IndexBounds.h"

namespace dspc {
namespace {

TEST(IndexBounds, BroadcastHoldsItsValuesInterval) {
  VarRef y = VarNode::make("y", DataType::i32());
  Expr masked = Binary::make(BinaryOp::Mod, Cast::make(DataType::u16(), y), IntImm::make(DataType::u16(), 16));
  Interval r = IndexBounds().of(Broadcast::make(masked, 64));
  EXPECT_EQ(r.lo, 0);
  EXPECT_EQ(r.hi, 15);
  // An unknown u16 under a broadcast is the whole u16 range, as it is alone.
  Interval w = IndexBounds().of(Broadcast::make(Cast::make(DataType::u16(), y), 64));
  EXPECT_EQ(w.lo, 0);
  EXPECT_EQ(w.hi, 65535);
}

}  // namespace
}  // namespace dspc
