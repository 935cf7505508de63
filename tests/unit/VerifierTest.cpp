// The TIR verifier on valid and broken functions, and structural equality.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/ir/Externs.h"
#include "compiler/ir/Verifier.h"

namespace dspc {
namespace {

Expr v(const VarRef& x) {
  return var_expr(x);
}
Expr i32(int64_t c) {
  return make_i32(c);
}
Expr ld(const Buffer& b, std::vector<Expr> idx) {
  return Load::make(b, std::move(idx));
}
Stmt loop(const VarRef& var, int64_t extent, Stmt body, ForKind kind = ForKind::Serial) {
  return For::make(var, i32(0), i32(extent), kind, std::move(body));
}

// alloc_vtcm after lower-vtcm-alloc: each staged buffer is a let of the allocation call, a
// null check, then a decl_buffer over the handle.
PrimFunc lowered_alloc_vtcm() {
  auto A = BufferNode::make("A", DataType::i8(), {2048});
  auto B = BufferNode::make("B", DataType::i8(), {2048});
  auto C = BufferNode::make("C", DataType::i8(), {2048});
  auto ha = VarNode::make("A_buf", DataType::handle()), hb = VarNode::make("B_buf", DataType::handle());
  auto Ab = BufferNode::make_with_data(ha, DataType::i8(), {2048}, StorageScope::Vtcm);
  auto Bb = BufferNode::make_with_data(hb, DataType::i8(), {2048}, StorageScope::Vtcm);
  auto i0 = VarNode::make("i"), i1 = VarNode::make("i"), i2 = VarNode::make("i");
  auto ctx = VarNode::make("ctx", DataType::handle());
  auto alloc = [&] { return Call::make(CallKind::Extern, kAllocateVtcm, {i32(2048), i32(2048), v(ctx)}); };
  auto fail = [] { return Evaluate::make(Call::make(CallKind::Intrinsic, "throw_last_error", {})); };
  auto free_ = [&](const VarRef& h) {
    return Evaluate::make(Call::make(CallKind::Extern, kFreeVtcm, {v(h), v(ctx)}));
  };
  Stmt compute = Seq::make(
      {loop(i0, 2048, Store::make(Ab, {v(i0)}, ld(A, {v(i0)}))),
       loop(i1, 2048, Store::make(Bb, {v(i1)}, ld(B, {v(i1)}))),
       loop(i2, 2048, Store::make(C, {v(i2)}, Binary::make(BinaryOp::Add, ld(Ab, {v(i2)}), ld(Bb, {v(i2)}))),
            ForKind::Vectorized),
       free_(hb)});
  Stmt inner = LetStmt::make(hb, alloc(),
                             IfThenElse::make(Call::make(CallKind::Intrinsic, "isnullptr", {v(hb)}), fail(),
                                              DeclBuffer::make(Bb, compute)));
  Stmt body = LetStmt::make(ha, alloc(),
                            IfThenElse::make(Call::make(CallKind::Intrinsic, "isnullptr", {v(ha)}), fail(),
                                             DeclBuffer::make(Ab, Seq::make({inner, free_(ha)}))));
  return PrimFunc{"alloc_vtcm", {A, B}, {C}, body, {}, ctx};
}

// schedule-ops style: an Allocate scoping a temporary.
PrimFunc with_allocate(bool use_outside) {
  auto A = BufferNode::make("A", DataType::i32(), {4, 8});
  auto C = BufferNode::make("C", DataType::i32(), {4, 8});
  auto T = BufferNode::make("T", DataType::i32(), {4, 8}, StorageScope::Vtcm);
  auto y = VarNode::make("y"), x = VarNode::make("x"), y2 = VarNode::make("y"), x2 = VarNode::make("x");
  Stmt fill = loop(y, 4, loop(x, 8, Store::make(T, {v(y), v(x)}, ld(A, {v(y), v(x)}))));
  Stmt use = loop(y2, 4, loop(x2, 8, Store::make(C, {v(y2), v(x2)}, ld(T, {v(y2), v(x2)}))));
  Stmt body =
      use_outside ? Seq::make({Allocate::make(T, fill), use}) : Allocate::make(T, Seq::make({fill, use}));
  return PrimFunc{"staged", {A}, {C}, body, {}};
}

PrimFunc simple(Stmt body, const Buffer& A, const Buffer& C) {
  return PrimFunc{"f", {A}, {C}, std::move(body), {}};
}

void expect_error(const PrimFunc& f, const std::string& fragment) {
  std::string err;
  EXPECT_FALSE(verify_func(f, err)) << "accepted:\n" << fragment;
  EXPECT_NE(err.find(fragment), std::string::npos) << err;
  EXPECT_EQ(err.rfind("in " + f.name + ": ", 0), 0u) << err;
}

TEST(VerifierTest, AcceptsValidFunctions) {
  std::string err;
  EXPECT_TRUE(verify_func(lowered_alloc_vtcm(), err)) << err;
  EXPECT_TRUE(verify_func(with_allocate(false), err)) << err;
  Module m{{lowered_alloc_vtcm(), with_allocate(false)}};
  EXPECT_TRUE(verify_module(m, err)) << err;
}

TEST(VerifierTest, CatchesUnboundAndMisscopedVariables) {
  auto A = BufferNode::make("A", DataType::i8(), {16});
  auto C = BufferNode::make("C", DataType::i8(), {16});
  auto i = VarNode::make("i"), j = VarNode::make("j");
  expect_error(simple(loop(i, 16, Store::make(C, {v(j)}, ld(A, {v(i)}))), A, C),
               "variable j is used but never bound");
  // A loop variable used after its loop.
  expect_error(simple(Seq::make({loop(i, 16, Store::make(C, {v(i)}, ld(A, {v(i)}))),
                                 Store::make(C, {v(i)}, ld(A, {i32(0)}))}),
                      A, C),
               "variable i is used outside its scope");
  // A let variable used in its own value.
  auto x = VarNode::make("x");
  expect_error(simple(LetStmt::make(x, Binary::make(BinaryOp::Add, v(x), i32(1)),
                                    Store::make(C, {v(x)}, ld(A, {i32(0)}))),
                      A, C),
               "variable x is used but never bound");
}

TEST(VerifierTest, CatchesDoubleBinding) {
  auto A = BufferNode::make("A", DataType::i8(), {16});
  auto C = BufferNode::make("C", DataType::i8(), {16});
  auto i = VarNode::make("i");
  Stmt s = Store::make(C, {v(i)}, ld(A, {v(i)}));
  // Disjoint scopes still count: passes rely on a variable having one binding site.
  expect_error(simple(Seq::make({loop(i, 16, s), loop(i, 16, s)}), A, C), "variable i is bound twice");
  expect_error(simple(loop(i, 16, loop(i, 16, s)), A, C), "variable i is bound twice");
  // A parameter listed twice binds its data variable twice.
  expect_error(PrimFunc{"f", {A, A}, {C}, loop(i, 16, s), {}}, "variable A is bound twice");
}

TEST(VerifierTest, CatchesBufferUsedOutsideItsAllocation) {
  expect_error(with_allocate(true), "load of buffer T outside the allocation");
  auto A = BufferNode::make("A", DataType::i8(), {16});
  auto C = BufferNode::make("C", DataType::i8(), {16});
  auto T = BufferNode::make("T", DataType::i8(), {16});
  auto i = VarNode::make("i");
  expect_error(simple(loop(i, 16, Store::make(T, {v(i)}, ld(A, {v(i)}))), A, C), "store of buffer T outside");
}

TEST(VerifierTest, CatchesDeclBufferOverUnboundHandle) {
  auto A = BufferNode::make("A", DataType::i8(), {16});
  auto C = BufferNode::make("C", DataType::i8(), {16});
  auto h = VarNode::make("T", DataType::handle());
  auto T = BufferNode::make_with_data(h, DataType::i8(), {16}, StorageScope::Vtcm);
  auto i = VarNode::make("i");
  expect_error(simple(DeclBuffer::make(T, loop(i, 16, Store::make(T, {v(i)}, ld(A, {v(i)})))), A, C),
               "decl_buffer T uses handle T that is not bound");
}

TEST(VerifierTest, CatchesWrongIndexCount) {
  auto A = BufferNode::make("A", DataType::i8(), {4, 4});
  auto C = BufferNode::make("C", DataType::i8(), {16});
  auto i = VarNode::make("i");
  // make() refuses this, so build the node directly as a buggy pass might.
  Expr bad = std::make_shared<Load>(DataType::i8(), A, std::vector<Expr>{v(i)}, Span{});
  expect_error(simple(loop(i, 16, Store::make(C, {v(i)}, bad)), A, C),
               "load of buffer A has 1 indices for 2 dimensions");
  Stmt bad_store = std::make_shared<Store>(C, std::vector<Expr>{v(i), v(i)}, ld(A, {i32(0), i32(0)}), Span{});
  expect_error(simple(loop(i, 16, bad_store), A, C), "store of buffer C has 2 indices for 1 dimensions");
}

TEST(VerifierTest, CatchesReduceLeftInTir) {
  auto A = BufferNode::make("A", DataType::i32(), {4, 8});
  auto C = BufferNode::make("C", DataType::i32(), {4});
  auto i = VarNode::make("i"), k = VarNode::make("k");
  Expr red = Reduce::make(ReduceOp::Sum, ld(A, {v(i), v(k)}), {{k, 8}});
  expect_error(simple(loop(i, 4, Store::make(C, {v(i)}, red)), A, C), "a reduction over k remains in TIR");
}

TEST(VerifierTest, CatchesNonI32LoopVariable) {
  auto A = BufferNode::make("A", DataType::i8(), {16});
  auto C = BufferNode::make("C", DataType::i8(), {16});
  auto i = VarNode::make("i", DataType::i64());
  Stmt body = Store::make(C, {v(i)}, ld(A, {v(i)}));
  Stmt bad = std::make_shared<For>(i, IntImm::make(DataType::i64(), 0), IntImm::make(DataType::i64(), 16),
                                   ForKind::Serial, body, Span{});
  expect_error(simple(bad, A, C), "loop variable must be i32");
}

// ---------------------------------------------------------------- structural equality

struct Variant {
  int64_t constant = 3;
  DataType dtype = DataType::i16();
  std::string var_name = "i";
  ForKind kind = ForKind::Serial;
  double fconst = 0.5;
  StorageScope scope = StorageScope::Vtcm;
};

// A fresh function each call: no node is shared between two results.
PrimFunc build(const Variant& o) {
  auto A = BufferNode::make("A", o.dtype, {8, 16});
  auto F = BufferNode::make("F", DataType::f32(), {16});
  auto C = BufferNode::make("C", o.dtype, {8, 16});
  auto T = BufferNode::make("T", o.dtype, {16}, o.scope);
  auto i = VarNode::make(o.var_name), j = VarNode::make("j"), k = VarNode::make("k");
  Stmt fill = loop(k, 16,
                   Store::make(T, {v(k)},
                               Cast::make(o.dtype, Binary::make(BinaryOp::Mul, ld(F, {v(k)}),
                                                                FloatImm::make(DataType::f32(), o.fconst)))));
  Expr val = Binary::make(BinaryOp::Add, ld(A, {v(i), v(j)}),
                          Binary::make(BinaryOp::Mul, ld(T, {v(j)}), IntImm::make(o.dtype, o.constant)));
  Stmt body = Allocate::make(
      T, Seq::make({fill, loop(i, 8, loop(j, 16, Store::make(C, {v(i), v(j)}, val)), o.kind)}));
  return PrimFunc{"g", {A, F}, {C}, body, {}};
}

TEST(VerifierTest, StructuralEqualPositives) {
  Variant o;
  EXPECT_TRUE(structural_equal(build(o), build(o)));
  PrimFunc f = build(o);
  EXPECT_TRUE(structural_equal(f, f));
  EXPECT_TRUE(structural_equal(lowered_alloc_vtcm(), lowered_alloc_vtcm()));
  Variant nan = o;
  nan.fconst = std::nan("");
  EXPECT_TRUE(structural_equal(build(nan), build(nan)));  // bitwise: NaN equals itself
  EXPECT_TRUE(
      structural_equal(Module{{build(o), lowered_alloc_vtcm()}}, Module{{build(o), lowered_alloc_vtcm()}}));
  std::string err;
  EXPECT_TRUE(verify_func(build(o), err)) << err;
}

TEST(VerifierTest, StructuralEqualNegatives) {
  Variant o;
  PrimFunc base = build(o);
  Variant c = o;
  c.constant = 4;
  EXPECT_FALSE(structural_equal(base, build(c))) << "constant";
  Variant d = o;
  d.dtype = DataType::u16();
  EXPECT_FALSE(structural_equal(base, build(d))) << "dtype";
  Variant n = o;
  n.var_name = "ii";
  EXPECT_FALSE(structural_equal(base, build(n))) << "renamed variable";
  Variant k = o;
  k.kind = ForKind::Parallel;
  EXPECT_FALSE(structural_equal(base, build(k))) << "loop kind";
  Variant z = o;
  z.fconst = -0.0;
  Variant pz = o;
  pz.fconst = 0.0;
  EXPECT_FALSE(structural_equal(build(pz), build(z))) << "float constants compare bitwise";
  Variant s = o;
  s.scope = StorageScope::Global;
  EXPECT_FALSE(structural_equal(base, build(s))) << "scope";
  EXPECT_FALSE(structural_equal(Module{{base}}, Module{{base, base}}));
  EXPECT_FALSE(structural_equal(lowered_alloc_vtcm(), base));
}

// Same names everywhere, but b reads the outer loop's variable where a reads the inner one's:
// only the binding map tells them apart.
TEST(VerifierTest, StructuralEqualMatchesVariablesByBinding) {
  auto make = [](bool swap) {
    auto A = BufferNode::make("A", DataType::i8(), {4});
    auto C = BufferNode::make("C", DataType::i8(), {4});
    auto outer = VarNode::make("i"), inner = VarNode::make("i");
    const VarRef& used = swap ? outer : inner;
    return PrimFunc{
        "h", {A}, {C}, loop(outer, 4, loop(inner, 4, Store::make(C, {v(inner)}, ld(A, {v(used)})))), {}};
  };
  EXPECT_TRUE(structural_equal(make(false), make(false)));
  EXPECT_TRUE(structural_equal(make(true), make(true)));
  EXPECT_FALSE(structural_equal(make(false), make(true)));
}

}  // namespace
}  // namespace dspc
