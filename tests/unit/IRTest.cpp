// IR construction: make() builds well-typed nodes and rejects ill-typed ones.
#include <gtest/gtest.h>

#include "compiler/ir/IR.h"
#include "compiler/ir/IRVisitor.h"
#include "compiler/ir/Printer.h"

namespace dspc {
namespace {

Expr i32(int64_t v) { return IntImm::make(DataType::i32(), v); }

TEST(DataType, ParsePrintAndSizes) {
  for (const char* name : {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "bool", "handle"}) {
    auto t = DataType::parse(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_EQ(t->str(), name);
  }
  EXPECT_EQ(DataType::parse("i8x128")->lanes, 128);
  EXPECT_EQ(DataType::parse("i8x128")->str(), "i8x128");
  EXPECT_FALSE(DataType::parse("i7").has_value());
  EXPECT_FALSE(DataType::parse("i8x").has_value());
  EXPECT_FALSE(DataType::parse("i8x1").has_value());
  EXPECT_FALSE(DataType::parse("handlex4").has_value());
  EXPECT_EQ(DataType::i16().bytes(), 2);
  EXPECT_EQ(DataType::boolean().bytes(), 1);
  EXPECT_EQ(DataType::u64().bytes(), 8);
}

TEST(DataType, LiteralRanges) {
  EXPECT_TRUE(DataType::i8().fits(127, false));
  EXPECT_FALSE(DataType::i8().fits(128, false));
  EXPECT_TRUE(DataType::i8().fits(128, true));
  EXPECT_FALSE(DataType::i8().fits(129, true));
  EXPECT_TRUE(DataType::u8().fits(255, false));
  EXPECT_FALSE(DataType::u8().fits(256, false));
  EXPECT_FALSE(DataType::u8().fits(1, true));
  EXPECT_TRUE(DataType::u64().fits(~uint64_t(0), false));
  EXPECT_TRUE(DataType::i64().fits(uint64_t(1) << 63, true));
  EXPECT_FALSE(DataType::i64().fits(uint64_t(1) << 63, false));
}

TEST(DataType, WrapTo) {
  EXPECT_EQ(wrap_to(DataType::i8(), 128), -128);
  EXPECT_EQ(wrap_to(DataType::i8(), -129), 127);
  EXPECT_EQ(wrap_to(DataType::u8(), -1), 255);
  EXPECT_EQ(wrap_to(DataType::u16(), 65536 + 5), 5);
  EXPECT_EQ(wrap_to(DataType::i32(), int64_t(1) << 31), -(int64_t(1) << 31));
  EXPECT_EQ(wrap_to(DataType::boolean(), 7), 1);
}

TEST(IR, LiteralsWrapToTheirType) {
  EXPECT_EQ(IntImm::make(DataType::i8(), 200).as<IntImm>()->value, -56);
  EXPECT_EQ(print_expr(IntImm::make(DataType::u8(), 200)), "200u8");
  EXPECT_EQ(print_expr(i32(-3)), "-3");
  EXPECT_THROW(IntImm::make(DataType::f32(), 1), IRError);
  EXPECT_THROW(FloatImm::make(DataType::i32(), 1.0), IRError);
  EXPECT_EQ(FloatImm::make(DataType::f32(), 0.1).as<FloatImm>()->value, static_cast<double>(0.1f));
}

TEST(IR, BinaryRequiresEqualTypes) {
  auto x = VarNode::make("x");
  auto a = Binary::make(BinaryOp::Add, var_expr(x), i32(1));
  EXPECT_EQ(a.dtype(), DataType::i32());
  EXPECT_THROW(Binary::make(BinaryOp::Add, var_expr(x), IntImm::make(DataType::i8(), 1)), IRError);
  try {
    Binary::make(BinaryOp::Mul, var_expr(x), IntImm::make(DataType::u8(), 1));
    FAIL() << "expected IRError";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("i32 and u8"), std::string::npos) << e.what();
  }
}

TEST(IR, ComparisonsAndLogic) {
  auto x = var_expr(VarNode::make("x"));
  auto lt = Binary::make(BinaryOp::LT, x, i32(4));
  EXPECT_EQ(lt.dtype(), DataType::boolean());
  EXPECT_EQ(Binary::make(BinaryOp::And, lt, lt).dtype(), DataType::boolean());
  EXPECT_THROW(Binary::make(BinaryOp::And, x, x), IRError);
  EXPECT_THROW(Binary::make(BinaryOp::Add, lt, lt), IRError);
  EXPECT_THROW(Binary::make(BinaryOp::Shl, lt, lt), IRError);
  EXPECT_THROW(Unary::make(UnaryOp::Not, x), IRError);
  EXPECT_THROW(Unary::make(UnaryOp::BitNot, FloatImm::make(DataType::f32(), 1)), IRError);
  EXPECT_THROW(Binary::make(BinaryOp::BitAnd, FloatImm::make(DataType::f32(), 1), FloatImm::make(DataType::f32(), 1)),
               IRError);
}

TEST(IR, SelectAndCast) {
  auto x = var_expr(VarNode::make("x"));
  auto c = Binary::make(BinaryOp::GT, x, i32(0));
  EXPECT_EQ(Select::make(c, x, i32(0)).dtype(), DataType::i32());
  EXPECT_THROW(Select::make(x, x, x), IRError);
  EXPECT_THROW(Select::make(c, x, IntImm::make(DataType::i16(), 0)), IRError);
  EXPECT_EQ(Cast::make(DataType::u8(), x).dtype(), DataType::u8());
  EXPECT_THROW(Cast::make(DataType::handle(), x), IRError);
}

TEST(IR, LoadsAndStoresCheckBuffers) {
  auto a = BufferNode::make("A", DataType::i16(), {4, 8});
  auto i = var_expr(VarNode::make("i"));
  auto ld = Load::make(a, {i, i});
  EXPECT_EQ(ld.dtype(), DataType::i16());
  EXPECT_THROW(Load::make(a, {i}), IRError);
  EXPECT_THROW(Load::make(a, {i, FloatImm::make(DataType::f32(), 0)}), IRError);
  EXPECT_NO_THROW(Store::make(a, {i, i}, IntImm::make(DataType::i16(), 1)));
  EXPECT_THROW(Store::make(a, {i, i}, i32(1)), IRError);
  EXPECT_EQ(a->size_bytes(), 64);
  EXPECT_EQ(BufferNode::make("Z", DataType::i8(), {4, 0})->size_bytes(), 0);  // no elements
  EXPECT_THROW(BufferNode::make("Z", DataType::i8(), {-1}), IRError);
}

TEST(IR, StorageScopesHaveOneNameEach) {
  EXPECT_STREQ(storage_scope_name(StorageScope::Global), "global");
  EXPECT_STREQ(storage_scope_name(StorageScope::Local), "local");
  EXPECT_STREQ(storage_scope_name(StorageScope::Vtcm), "local.vtcm");
  for (StorageScope s : {StorageScope::Global, StorageScope::Local, StorageScope::Vtcm})
    EXPECT_EQ(parse_storage_scope(storage_scope_name(s)), s) << storage_scope_name(s);
  // The alias parses to the canonical scope, which prints under its own name.
  EXPECT_EQ(parse_storage_scope("global.vtcm"), StorageScope::Vtcm);
  EXPECT_EQ(parse_storage_scope("shared"), std::nullopt);
  EXPECT_EQ(parse_storage_scope("vtcm"), std::nullopt);
  EXPECT_EQ(parse_storage_scope(""), std::nullopt);  // "" marks "no alias" in the table
  EXPECT_EQ(BufferNode::make("V", DataType::i8(), {4})->scope, StorageScope::Global);
  // set_scope offers what a user may choose; "local" is the compiler's own.
  EXPECT_TRUE(is_schedulable_scope(StorageScope::Global));
  EXPECT_FALSE(is_schedulable_scope(StorageScope::Local));
  EXPECT_TRUE(is_schedulable_scope(StorageScope::Vtcm));
  EXPECT_EQ(schedulable_scope_names(), "\"global\" or \"local.vtcm\"");
}

TEST(IR, CallsCheckTheExternTable) {
  auto ctx = VarNode::make("ctx", DataType::handle());
  auto alloc = Call::make(CallKind::Extern, "HexagonBackendAllocateVTCM", {i32(2048), i32(2048), var_expr(ctx)});
  EXPECT_EQ(alloc.dtype(), DataType::handle());
  EXPECT_THROW(Call::make(CallKind::Extern, "HexagonBackendAllocateVTCM", {i32(2048)}), IRError);
  // The context is the final argument of every runtime call; without it the call is ill-typed.
  EXPECT_THROW(Call::make(CallKind::Extern, "HexagonBackendAllocateVTCM", {i32(2048), i32(2048)}), IRError);
  EXPECT_THROW(Call::make(CallKind::Extern, "HexagonBackendAllocateVTCM", {i32(2048), i32(2048), i32(0)}), IRError);
  EXPECT_THROW(Call::make(CallKind::Extern, "malloc", {i32(1)}), IRError);
  EXPECT_THROW(Call::make(CallKind::Intrinsic, "isnullptr", {i32(1)}), IRError);
  EXPECT_EQ(print_expr(alloc), "call_extern(\"HexagonBackendAllocateVTCM\", 2048, 2048, ctx)");
}

TEST(IR, StatementsCheckTypes) {
  auto i = VarNode::make("i");
  auto body = Evaluate::make(i32(0));
  EXPECT_THROW(For::make(VarNode::make("j", DataType::i64()), i32(0), i32(4), ForKind::Serial, body), IRError);
  EXPECT_THROW(IfThenElse::make(i32(1), body), IRError);
  EXPECT_THROW(LetStmt::make(VarNode::make("h", DataType::handle()), i32(0), body), IRError);
  EXPECT_THROW(Seq::make({}), IRError);
  // Nested sequences flatten, and a single statement stays itself.
  auto seq = Seq::make({Seq::make({body, body}), body});
  ASSERT_NE(seq.as<Seq>(), nullptr);
  EXPECT_EQ(seq.as<Seq>()->stmts.size(), 3u);
  EXPECT_TRUE(Seq::make({body}).same_as(body));
}

TEST(IR, ReduceNeedsAxes) {
  auto k = VarNode::make("k");
  auto src = var_expr(k);
  EXPECT_EQ(Reduce::make(ReduceOp::Sum, src, {{k, 4}}).dtype(), DataType::i32());
  EXPECT_THROW(Reduce::make(ReduceOp::Sum, src, {}), IRError);
  EXPECT_THROW(Reduce::make(ReduceOp::Sum, src, {{k, 0}}), IRError);
}

// A mutator that changes nothing must return the very same nodes.
TEST(IRMutator, IdentityKeepsSharing) {
  auto a = BufferNode::make("A", DataType::i8(), {16});
  auto i = VarNode::make("i");
  Stmt s = For::make(i, i32(0), i32(16), ForKind::Serial,
                     Store::make(a, {var_expr(i)}, Binary::make(BinaryOp::Add, Load::make(a, {var_expr(i)}),
                                                                IntImm::make(DataType::i8(), 1))));
  IRMutator m;
  EXPECT_TRUE(m.mutate(s).same_as(s));
}

// A mutator that rewrites literals rebuilds only the path to them.
TEST(IRMutator, RebuildsChangedPath) {
  struct Bump : IRMutator {
    Expr mutate_IntImm(const IntImm* op, const Expr&) override { return IntImm::make(op->dtype, op->value + 1); }
  };
  auto x = var_expr(VarNode::make("x"));
  Expr e = Binary::make(BinaryOp::Mul, Binary::make(BinaryOp::Add, x, i32(1)), i32(2));
  Bump b;
  EXPECT_EQ(print_expr(b.mutate(e)), "(x + 2) * 3");
}

TEST(IRVisitor, VisitsEveryNode) {
  struct Count : IRVisitor {
    int loads = 0, vars = 0;
    void visit_Load(const Load* op) override {
      ++loads;
      IRVisitor::visit_Load(op);
    }
    void visit_Var(const Var*) override { ++vars; }
  };
  auto a = BufferNode::make("A", DataType::i8(), {16});
  auto i = VarNode::make("i");
  Stmt s = For::make(i, i32(0), i32(16), ForKind::Serial,
                     Store::make(a, {var_expr(i)}, Binary::make(BinaryOp::Add, Load::make(a, {var_expr(i)}),
                                                                Load::make(a, {i32(0)}))));
  Count c;
  c.visit(s);
  EXPECT_EQ(c.loads, 2);
  EXPECT_EQ(c.vars, 2);
}

TEST(Printer, PrecedenceAndParentheses) {
  auto a = var_expr(VarNode::make("a")), b = var_expr(VarNode::make("b")), c = var_expr(VarNode::make("c"));
  EXPECT_EQ(print_expr(Binary::make(BinaryOp::Mul, Binary::make(BinaryOp::Add, a, b), c)), "(a + b) * c");
  EXPECT_EQ(print_expr(Binary::make(BinaryOp::Add, a, Binary::make(BinaryOp::Mul, b, c))), "a + b * c");
  EXPECT_EQ(print_expr(Binary::make(BinaryOp::Sub, a, Binary::make(BinaryOp::Sub, b, c))), "a - (b - c)");
  EXPECT_EQ(print_expr(Binary::make(BinaryOp::Sub, Binary::make(BinaryOp::Sub, a, b), c)), "a - b - c");
  EXPECT_EQ(print_expr(Binary::make(BinaryOp::Shr, Binary::make(BinaryOp::Add, a, b), i32(4))), "(a + b) >> 4");
  EXPECT_EQ(print_expr(Unary::make(UnaryOp::Neg, Binary::make(BinaryOp::Add, a, b))), "-(a + b)");
  EXPECT_EQ(print_expr(Unary::make(UnaryOp::Neg, i32(-5))), "-(-5)");
  EXPECT_EQ(print_expr(Binary::make(BinaryOp::Sub, a, i32(-5))), "a - -5");
  EXPECT_EQ(print_expr(Binary::make(BinaryOp::Min, a, b)), "min(a, b)");
  EXPECT_EQ(print_expr(FloatImm::make(DataType::f32(), 2)), "2.0f32");
}

TEST(Printer, LetInTheMiddleOfASequenceGetsABlock) {
  auto a = BufferNode::make("A", DataType::i32(), {1});
  auto x = VarNode::make("x");
  Stmt let = LetStmt::make(x, i32(3), Store::make(a, {i32(0)}, var_expr(x)));
  Stmt s = Seq::make({let, Store::make(a, {i32(0)}, i32(4))});
  EXPECT_EQ(print_stmt(s), "{\n  let x: i32 = 3\n  A[0] = x\n}\nA[0] = 4\n");
}

}  // namespace
}  // namespace dspc
