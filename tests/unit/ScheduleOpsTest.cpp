// schedule-ops: stage loop nests, reduction accumulators, allocation placement.
#include <gtest/gtest.h>

#include "compiler/ir/IR.h"
#include "compiler/ir/Printer.h"
#include "passes/ScheduleOps.h"
#include "tests/unit/TestPrograms.h"

namespace dspc {
namespace {

using testing::alloc_vtcm;
using testing::stage;
using testing::v;

Expr i32(int64_t x) {
  return make_i32(x);
}
Expr add(Expr a, Expr b) {
  return Binary::make(BinaryOp::Add, a, b);
}
Expr sub(Expr a, Expr b) {
  return Binary::make(BinaryOp::Sub, a, b);
}
Expr mul(Expr a, Expr b) {
  return Binary::make(BinaryOp::Mul, a, b);
}
Expr clamp(Expr x, Expr lo, Expr hi) {
  return Binary::make(BinaryOp::Min, Binary::make(BinaryOp::Max, x, lo), hi);
}

// Stages as plain serial loop nests (the automatic schedule has its own tests).
LowerOptions plain() {
  LowerOptions o;
  o.auto_schedule = false;
  return o;
}

std::string lower_one(const TensorFunc& f) {
  TensorProgram p;
  p.funcs.push_back(f);
  return print_module(schedule_ops(p, plain()));
}

TEST(ScheduleOps, AllocVtcmNestsAllocationsUntilTheLastReader) {
  EXPECT_EQ(lower_one(alloc_vtcm()),
            "prim_func alloc_vtcm(A: i8[2048], B: i8[2048]) -> (C: i8[2048]) context(ctx: handle) {\n"
            "  allocate A_buf: i8[2048] scope \"local.vtcm\" {\n"
            "    for i in range(0, 2048) {\n"
            "      A_buf[i] = A[i]\n"
            "    }\n"
            "    allocate B_buf: i8[2048] scope \"local.vtcm\" {\n"
            "      for i in range(0, 2048) {\n"
            "        B_buf[i] = B[i]\n"
            "      }\n"
            "      for i in range(0, 2048) {\n"
            "        C[i] = A_buf[i] + B_buf[i]\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(ScheduleOps, KeepsParameterBuffersAndSpans) {
  TensorFunc f = alloc_vtcm();
  f.stages[0].span = {3, 3};
  TensorProgram p;
  p.funcs.push_back(f);
  Module m = schedule_ops(p, plain());
  ASSERT_EQ(m.funcs.size(), 1u);
  EXPECT_EQ(m.funcs[0].inputs[0], f.inputs[0]);
  EXPECT_EQ(m.funcs[0].outputs[0], f.outputs[0]);
  const auto* alloc = m.funcs[0].body.as<Allocate>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(alloc->buffer, f.stages[0].out);
  EXPECT_EQ(alloc->span.line, 3u);
  EXPECT_EQ(alloc->span.col, 3u);
}

TEST(ScheduleOps, DenseSumGetsALocalAccumulatorInsideTheStageLoops) {
  TensorFunc f;
  f.name = "dense";
  Buffer a = BufferNode::make("A", DataType::u8(), {64, 256});
  Buffer b = BufferNode::make("B", DataType::u8(), {256, 128});
  Buffer c = BufferNode::make("C", DataType::i32(), {64, 128});
  f.inputs = {a, b};
  f.outputs = {c};
  VarRef m = VarNode::make("m"), n = VarNode::make("n"), k = VarNode::make("k");
  Expr prod = mul(Cast::make(DataType::i32(), Load::make(a, {v(m), v(k)})),
                  Cast::make(DataType::i32(), Load::make(b, {v(k), v(n)})));
  f.stages.push_back(stage(c, {m, n}, Reduce::make(ReduceOp::Sum, prod, {{k, 256}}), true));
  EXPECT_EQ(lower_one(f),
            "prim_func dense(A: u8[64, 256], B: u8[256, 128]) -> (C: i32[64, 128]) context(ctx: handle) {\n"
            "  for m in range(0, 64) {\n"
            "    for n in range(0, 128) {\n"
            "      allocate C_sum: i32[1] scope \"local\" {\n"
            "        C_sum[0] = 0\n"
            "        for k in range(0, 256) {\n"
            "          C_sum[0] = C_sum[0] + i32(A[m, k]) * i32(B[k, n])\n"
            "        }\n"
            "        C[m, n] = C_sum[0]\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(ScheduleOps, Conv3x3SumNestedInCastsLoopsOverBothAxesFirstOutermost) {
  TensorFunc f;
  f.name = "conv3x3";
  Buffer in = BufferNode::make("I", DataType::u8(), {256, 1024});
  Buffer kw = BufferNode::make("K", DataType::i8(), {3, 3});
  Buffer out = BufferNode::make("O", DataType::u8(), {256, 1024});
  f.inputs = {in, kw};
  f.outputs = {out};
  VarRef y = VarNode::make("y"), x = VarNode::make("x"), r = VarNode::make("r"), s = VarNode::make("s");
  Expr pixel = Load::make(in, {clamp(sub(add(v(y), v(r)), i32(1)), i32(0), i32(255)),
                               clamp(sub(add(v(x), v(s)), i32(1)), i32(0), i32(1023))});
  Expr term =
      mul(Cast::make(DataType::i16(), pixel), Cast::make(DataType::i16(), Load::make(kw, {v(r), v(s)})));
  Expr sum = Reduce::make(ReduceOp::Sum, term, {{r, 3}, {s, 3}});
  Expr shifted = Binary::make(BinaryOp::Shr, sum, IntImm::make(DataType::i16(), 4));
  Expr body = Cast::make(
      DataType::u8(), clamp(shifted, IntImm::make(DataType::i16(), 0), IntImm::make(DataType::i16(), 255)));
  f.stages.push_back(stage(out, {y, x}, body, true));
  EXPECT_EQ(
      lower_one(f),
      "prim_func conv3x3(I: u8[256, 1024], K: i8[3, 3]) -> (O: u8[256, 1024]) context(ctx: handle) {\n"
      "  for y in range(0, 256) {\n"
      "    for x in range(0, 1024) {\n"
      "      allocate O_sum: i16[1] scope \"local\" {\n"
      "        O_sum[0] = 0i16\n"
      "        for r in range(0, 3) {\n"
      "          for s in range(0, 3) {\n"
      "            O_sum[0] = O_sum[0] + i16(I[min(max(y + r - 1, 0), 255), min(max(x + s - 1, 0), 1023)]) * "
      "i16(K[r, s])\n"
      "          }\n"
      "        }\n"
      "        O[y, x] = u8(min(max(O_sum[0] >> 4i16, 0i16), 255i16))\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n");
}

TEST(ScheduleOps, InnerReductionIsLoweredInsideTheOuterLoops) {
  // C[i] = sum(max(A[i, k, j], j: 8), k: 4)
  TensorFunc f;
  f.name = "nested";
  Buffer a = BufferNode::make("A", DataType::i16(), {2, 4, 8});
  Buffer c = BufferNode::make("C", DataType::i16(), {2});
  f.inputs = {a};
  f.outputs = {c};
  VarRef i = VarNode::make("i"), k = VarNode::make("k"), j = VarNode::make("j");
  Expr inner = Reduce::make(ReduceOp::Max, Load::make(a, {v(i), v(k), v(j)}), {{j, 8}});
  Expr outer = Reduce::make(ReduceOp::Sum, inner, {{k, 4}});
  f.stages.push_back(stage(c, {i}, outer, true));
  EXPECT_EQ(lower_one(f),
            "prim_func nested(A: i16[2, 4, 8]) -> (C: i16[2]) context(ctx: handle) {\n"
            "  for i in range(0, 2) {\n"
            "    allocate C_sum: i16[1] scope \"local\" {\n"
            "      C_sum[0] = 0i16\n"
            "      for k in range(0, 4) {\n"
            "        allocate C_max: i16[1] scope \"local\" {\n"
            "          C_max[0] = -32768i16\n"
            "          for j in range(0, 8) {\n"
            "            C_max[0] = max(C_max[0], A[i, k, j])\n"
            "          }\n"
            "          C_sum[0] = C_sum[0] + C_max[0]\n"
            "        }\n"
            "      }\n"
            "      C[i] = C_sum[0]\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(ScheduleOps, SiblingReductionsNestInOrderAndGetUniqueNames) {
  // C[i] = sum(A[i, k], k: 4) + sum(A[i, k2], k2: 4), with a parameter already called C_sum.
  TensorFunc f;
  f.name = "two";
  Buffer a = BufferNode::make("A", DataType::i32(), {2, 4});
  Buffer taken = BufferNode::make("C_sum", DataType::i32(), {1});
  Buffer c = BufferNode::make("C", DataType::i32(), {2});
  f.inputs = {a, taken};
  f.outputs = {c};
  VarRef i = VarNode::make("i"), k = VarNode::make("k"), k2 = VarNode::make("k2");
  Expr s1 = Reduce::make(ReduceOp::Sum, Load::make(a, {v(i), v(k)}), {{k, 4}});
  Expr s2 = Reduce::make(ReduceOp::Sum, Load::make(a, {v(i), v(k2)}), {{k2, 4}});
  f.stages.push_back(stage(c, {i}, add(s1, s2), true));
  EXPECT_EQ(lower_one(f),
            "prim_func two(A: i32[2, 4], C_sum: i32[1]) -> (C: i32[2]) context(ctx: handle) {\n"
            "  for i in range(0, 2) {\n"
            "    allocate C_sum_1: i32[1] scope \"local\" {\n"
            "      C_sum_1[0] = 0\n"
            "      for k in range(0, 4) {\n"
            "        C_sum_1[0] = C_sum_1[0] + A[i, k]\n"
            "      }\n"
            "      allocate C_sum_2: i32[1] scope \"local\" {\n"
            "        C_sum_2[0] = 0\n"
            "        for k2 in range(0, 4) {\n"
            "          C_sum_2[0] = C_sum_2[0] + A[i, k2]\n"
            "        }\n"
            "        C[i] = C_sum_1[0] + C_sum_2[0]\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(ScheduleOps, InnerReductionIsNamedFirst) {
  // C[i] = sum(sum(A[i, k, j], j: 8), k: 4): post-order naming gives the inner one C_sum.
  TensorFunc f;
  f.name = "nested";
  Buffer a = BufferNode::make("A", DataType::i16(), {2, 4, 8});
  Buffer c = BufferNode::make("C", DataType::i16(), {2});
  f.inputs = {a};
  f.outputs = {c};
  VarRef i = VarNode::make("i"), k = VarNode::make("k"), j = VarNode::make("j");
  Expr inner = Reduce::make(ReduceOp::Sum, Load::make(a, {v(i), v(k), v(j)}), {{j, 8}});
  f.stages.push_back(stage(c, {i}, Reduce::make(ReduceOp::Sum, inner, {{k, 4}}), true));
  std::string text = lower_one(f);
  EXPECT_NE(text.find("          C_sum[0] = C_sum[0] + A[i, k, j]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("        C_sum_1[0] = C_sum_1[0] + C_sum[0]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      C[i] = C_sum_1[0]\n"), std::string::npos) << text;
}

// The init value of min/max reductions is the dtype's extreme value.
std::string init_of(ReduceOp op, DataType t) {
  TensorFunc f;
  f.name = "r";
  Buffer a = BufferNode::make("A", t, {4});
  Buffer c = BufferNode::make("C", t, {1});
  f.inputs = {a};
  f.outputs = {c};
  VarRef i = VarNode::make("i"), k = VarNode::make("k");
  f.stages.push_back(stage(c, {i}, Reduce::make(op, Load::make(a, {v(k)}), {{k, 4}}), true));
  TensorProgram p;
  p.funcs.push_back(f);
  Module m = schedule_ops(p, plain());
  const auto* loop = m.funcs[0].body.as<For>();
  const auto* alloc = loop->body.as<Allocate>();
  const auto* init = alloc->body.as<Seq>()->stmts[0].as<Store>();
  return print_expr(init->value);
}

TEST(ScheduleOps, ReductionInitValues) {
  EXPECT_EQ(init_of(ReduceOp::Sum, DataType::u8()), "0u8");
  EXPECT_EQ(init_of(ReduceOp::Sum, DataType::f32()), "0.0f32");
  EXPECT_EQ(init_of(ReduceOp::Min, DataType::u8()), "255u8");
  EXPECT_EQ(init_of(ReduceOp::Min, DataType::i8()), "127i8");
  EXPECT_EQ(init_of(ReduceOp::Min, DataType::i32()), "2147483647");
  EXPECT_EQ(init_of(ReduceOp::Min, DataType::u64()), "18446744073709551615u64");
  EXPECT_EQ(init_of(ReduceOp::Min, DataType::f32()), "inff32");
  EXPECT_EQ(init_of(ReduceOp::Max, DataType::u16()), "0u16");
  EXPECT_EQ(init_of(ReduceOp::Max, DataType::i64()), "-9223372036854775808i64");
  EXPECT_EQ(init_of(ReduceOp::Max, DataType::f64()), "-inff64");
}

TEST(ScheduleOps, ChainedStagesAndDeadStagesCloseWhereTheStackRuleSays) {
  // T1 -> T2 -> C; D is read by nobody; E is read by C.
  TensorFunc f;
  f.name = "chain";
  Buffer a = BufferNode::make("A", DataType::i32(), {4});
  Buffer c = BufferNode::make("C", DataType::i32(), {4});
  Buffer t1 = BufferNode::make("T1", DataType::i32(), {4});
  Buffer d = BufferNode::make("D", DataType::i32(), {4});
  Buffer t2 = BufferNode::make("T2", DataType::i32(), {4}, StorageScope::Vtcm);
  f.inputs = {a};
  f.outputs = {c};
  VarRef i[4] = {VarNode::make("i"), VarNode::make("i"), VarNode::make("i"), VarNode::make("i")};
  f.stages.push_back(stage(t1, {i[0]}, Load::make(a, {v(i[0])})));
  f.stages.push_back(stage(d, {i[1]}, Load::make(t1, {v(i[1])})));
  f.stages.push_back(stage(t2, {i[2]}, Load::make(t1, {v(i[2])})));
  f.stages.push_back(stage(c, {i[3]}, Load::make(t2, {v(i[3])}), true));
  EXPECT_EQ(lower_one(f),
            "prim_func chain(A: i32[4]) -> (C: i32[4]) context(ctx: handle) {\n"
            "  allocate T1: i32[4] scope \"global\" {\n"
            "    for i in range(0, 4) {\n"
            "      T1[i] = A[i]\n"
            "    }\n"
            "    allocate D: i32[4] scope \"global\" {\n"
            "      for i in range(0, 4) {\n"
            "        D[i] = T1[i]\n"
            "      }\n"
            "    }\n"
            "    allocate T2: i32[4] scope \"local.vtcm\" {\n"
            "      for i in range(0, 4) {\n"
            "        T2[i] = T1[i]\n"
            "      }\n"
            "      for i in range(0, 4) {\n"
            "        C[i] = T2[i]\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(ScheduleOps, EveryFunctionOfTheProgramIsLowered) {
  TensorProgram p;
  p.funcs.push_back(alloc_vtcm());
  TensorFunc g = alloc_vtcm();
  g.name = "second";
  p.funcs.push_back(g);
  Module m = schedule_ops(p, plain());
  ASSERT_EQ(m.funcs.size(), 2u);
  EXPECT_EQ(m.funcs[0].name, "alloc_vtcm");
  EXPECT_EQ(m.funcs[1].name, "second");
}

}  // namespace
}  // namespace dspc
