// flatten-buffers: rank-1 buffers over the same data variables, row-major index math.
#include <gtest/gtest.h>

#include "compiler/ir/IR.h"
#include "compiler/ir/IRVisitor.h"
#include "compiler/ir/Printer.h"
#include "passes/FlattenBuffers.h"

namespace dspc {
namespace {

Expr v(const VarRef& x) {
  return var_expr(x);
}

Stmt loop(const VarRef& var, int64_t extent, Stmt body) {
  return For::make(var, make_i32(0), make_i32(extent), ForKind::Serial, std::move(body));
}

PrimFunc func(std::string name, std::vector<Buffer> in, std::vector<Buffer> out, Stmt body) {
  PrimFunc f;
  f.name = std::move(name);
  f.inputs = std::move(in);
  f.outputs = std::move(out);
  f.body = std::move(body);
  return f;
}

Module flatten(PrimFunc f) {
  Module m;
  m.funcs.push_back(std::move(f));
  return flatten_buffers(m, LowerOptions{});
}

TEST(FlattenBuffers, TwoDimensionalIndexIsRowMajor) {
  Buffer a = BufferNode::make("A", DataType::i16(), {4, 64});
  Buffer c = BufferNode::make("C", DataType::i16(), {4, 64});
  VarRef i = VarNode::make("i"), j = VarNode::make("j");
  Stmt body = loop(i, 4, loop(j, 64, Store::make(c, {v(i), v(j)}, Load::make(a, {v(i), v(j)}))));
  Module m = flatten(func("f", {a}, {c}, body));
  EXPECT_EQ(print_module(m),
            "prim_func f(A: i16[256]) -> (C: i16[256]) context(ctx: handle) {\n"
            "  for i in range(0, 4) {\n"
            "    for j in range(0, 64) {\n"
            "      C[i * 64 + j] = A[i * 64 + j]\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(FlattenBuffers, ThreeDimensionalIndexNestsTheProducts) {
  Buffer a = BufferNode::make("A", DataType::f32(), {2, 3, 4});
  Buffer c = BufferNode::make("C", DataType::f32(), {24});
  VarRef i = VarNode::make("i"), j = VarNode::make("j"), k = VarNode::make("k");
  Stmt store = Store::make(c, {make_i32(0)}, Load::make(a, {v(i), v(j), v(k)}));
  Module m = flatten(func("f", {a}, {c}, store));
  EXPECT_EQ(print_module(m),
            "prim_func f(A: f32[24]) -> (C: f32[24]) context(ctx: handle) {\n"
            "  C[0] = A[(i * 3 + j) * 4 + k]\n"
            "}\n");
}

TEST(FlattenBuffers, KeepsNameScopeDtypeAndDataVariable) {
  Buffer a = BufferNode::make("A", DataType::u8(), {8, 16});
  Buffer t = BufferNode::make("T", DataType::i32(), {2, 5}, StorageScope::Vtcm);
  Buffer c = BufferNode::make("C", DataType::u8(), {8, 16});
  Stmt body = Allocate::make(
      t, Seq::make({Store::make(t, {make_i32(1), make_i32(2)}, make_i32(7)),
                    Store::make(c, {make_i32(0), make_i32(1)}, Load::make(a, {make_i32(3), make_i32(4)}))}));
  Module m = flatten(func("f", {a}, {c}, body));
  const PrimFunc& f = m.funcs[0];
  ASSERT_EQ(f.inputs[0]->shape, std::vector<int64_t>{128});
  EXPECT_EQ(f.inputs[0]->name, "A");
  EXPECT_EQ(f.inputs[0]->data, a->data);
  EXPECT_EQ(f.outputs[0]->data, c->data);
  const auto* alloc = f.body.as<Allocate>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(alloc->buffer->shape, std::vector<int64_t>{10});
  EXPECT_EQ(alloc->buffer->scope, StorageScope::Vtcm);
  EXPECT_EQ(alloc->buffer->dtype, DataType::i32());
  EXPECT_EQ(alloc->buffer->data, t->data);
  // Every access refers to the very buffer object that is declared.
  const auto* seq = alloc->body.as<Seq>();
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->stmts[0].as<Store>()->buffer, alloc->buffer);
  EXPECT_EQ(seq->stmts[1].as<Store>()->buffer, f.outputs[0]);
  EXPECT_EQ(seq->stmts[1].as<Store>()->value.as<Load>()->buffer, f.inputs[0]);
  EXPECT_EQ(print_stmt(f.body),
            "allocate T: i32[10] scope \"local.vtcm\" {\n"
            "  T[1 * 5 + 2] = 7\n"
            "  C[0 * 16 + 1] = A[3 * 16 + 4]\n"
            "}\n");
}

TEST(FlattenBuffers, OtherIndexTypesAreCastToI32) {
  Buffer a = BufferNode::make("A", DataType::i8(), {4, 4});
  Buffer c = BufferNode::make("C", DataType::i8(), {1});
  VarRef x = VarNode::make("x", DataType::i64()), y = VarNode::make("y", DataType::u8());
  Stmt store = Store::make(c, {make_i32(0)}, Load::make(a, {v(x), v(y)}));
  Module m = flatten(func("f", {a}, {c}, store));
  EXPECT_EQ(print_stmt(m.funcs[0].body), "C[0] = A[i32(x) * 4 + i32(y)]\n");
}

TEST(FlattenBuffers, RankOneBuffersAreUntouched) {
  Buffer a = BufferNode::make("A", DataType::i8(), {16});
  Buffer c = BufferNode::make("C", DataType::i8(), {16});
  VarRef x = VarNode::make("x", DataType::i64());
  Stmt body = Store::make(c, {v(x)}, Load::make(a, {v(x)}));
  Module m = flatten(func("f", {a}, {c}, body));
  EXPECT_EQ(m.funcs[0].inputs[0], a);
  EXPECT_EQ(m.funcs[0].outputs[0], c);
  EXPECT_TRUE(m.funcs[0].body.same_as(body));
}

TEST(FlattenBuffers, DeclBufferIsFlattenedAndVectorIndicesBroadcastScalars) {
  Buffer t = BufferNode::make("T", DataType::i8(), {2, 128}, StorageScope::Vtcm);
  VarRef i = VarNode::make("i");
  Expr ramp = Ramp::make(make_i32(0), make_i32(1), 128);
  Stmt store = Store::make(t, {v(i), ramp}, Broadcast::make(IntImm::make(DataType::i8(), 1), 128));
  Stmt body = DeclBuffer::make(t, loop(i, 2, store));
  Module m = flatten(func("f", {}, {}, body));
  EXPECT_EQ(print_stmt(m.funcs[0].body),
            "decl_buffer T: i8[256] scope \"local.vtcm\"\n"
            "for i in range(0, 2) {\n"
            "  T[broadcast(i, 128) * broadcast(128, 128) + ramp(0, 1, 128)] = broadcast(1i8, 128)\n"
            "}\n");
}

TEST(FlattenBuffers, IsIdempotent) {
  Buffer a = BufferNode::make("A", DataType::i16(), {4, 64});
  VarRef i = VarNode::make("i"), j = VarNode::make("j");
  Stmt body = loop(i, 4, loop(j, 64, Store::make(a, {v(i), v(j)}, IntImm::make(DataType::i16(), 3))));
  Module once = flatten(func("f", {}, {a}, body));
  Module twice = flatten_buffers(once, LowerOptions{});
  EXPECT_EQ(print_module(once), print_module(twice));
  EXPECT_TRUE(twice.funcs[0].body.same_as(once.funcs[0].body));
}

}  // namespace
}  // namespace dspc
