// lower-vtcm-alloc: the VTCM contract of docs/design.md (sizes in bytes, null checks, frees in
// reverse order, failure paths free what is already taken).
#include <gtest/gtest.h>

#include "compiler/ir/IR.h"
#include "compiler/ir/IRVisitor.h"
#include "compiler/ir/Printer.h"
#include "passes/FlattenBuffers.h"
#include "passes/LowerVtcmAlloc.h"
#include "passes/ScheduleOps.h"
#include "tests/unit/TestPrograms.h"

namespace dspc {
namespace {

using testing::alloc_vtcm;
using testing::stage;
using testing::v;

// schedule-ops (plain loop nests: no automatic schedule), flatten-buffers, lower-vtcm-alloc.
Module lower(const TensorFunc& f, LowerOptions o = LowerOptions{}) {
  TensorProgram p;
  p.funcs.push_back(f);
  o.auto_schedule = false;
  return lower_vtcm_alloc(flatten_buffers(schedule_ops(p, o), o), o);
}

// `T[i...] = IN[i...]` staged in VTCM, then `OUT[i...] = T[i...]`.
TensorFunc staged_copy(DataType t, std::vector<int64_t> shape) {
  TensorFunc f;
  f.name = "copy";
  Buffer in = BufferNode::make("IN", t, shape);
  Buffer out = BufferNode::make("OUT", t, shape);
  Buffer tmp = BufferNode::make("T", t, shape, StorageScope::Vtcm);
  f.inputs = {in};
  f.outputs = {out};
  std::vector<VarRef> a, b;
  std::vector<Expr> ia, ib;
  for (size_t d = 0; d < shape.size(); ++d) {
    a.push_back(VarNode::make("i" + std::to_string(d)));
    b.push_back(VarNode::make("i" + std::to_string(d)));
    ia.push_back(v(a.back()));
    ib.push_back(v(b.back()));
  }
  f.stages.push_back(stage(tmp, a, Load::make(in, ia)));
  f.stages.push_back(stage(out, b, Load::make(tmp, ib), true));
  return f;
}

struct CallCollector : IRVisitor {
  std::vector<std::string> calls;
  void visit_Call(const Call* op) override {
    calls.push_back(print_expr(Expr(std::make_shared<Call>(*op))));
    IRVisitor::visit_Call(op);
  }
};

std::vector<std::string> calls_in(const Module& m) {
  CallCollector c;
  for (const auto& f : m.funcs) c.visit(f.body);
  return c.calls;
}

TEST(LowerVtcmAlloc, SeedExampleFollowsTheContract) {
  EXPECT_EQ(print_module(lower(alloc_vtcm())),
            "prim_func alloc_vtcm(A: i8[2048], B: i8[2048]) -> (C: i8[2048]) context(ctx: handle) {\n"
            "  let A_buf: handle = call_extern(\"HexagonBackendAllocateVTCM\", 2048, 2048, ctx)\n"
            "  if isnullptr(A_buf) {\n"
            "    throw_last_error()\n"
            "  } else {\n"
            "    decl_buffer A_buf: i8[2048] scope \"local.vtcm\"\n"
            "    for i in range(0, 2048) {\n"
            "      A_buf[i] = A[i]\n"
            "    }\n"
            "    {\n"
            "      let B_buf: handle = call_extern(\"HexagonBackendAllocateVTCM\", 2048, 2048, ctx)\n"
            "      if isnullptr(B_buf) {\n"
            "        call_extern(\"HexagonBackendFreeVTCM\", A_buf, ctx)\n"
            "        throw_last_error()\n"
            "      } else {\n"
            "        decl_buffer B_buf: i8[2048] scope \"local.vtcm\"\n"
            "        for i in range(0, 2048) {\n"
            "          B_buf[i] = B[i]\n"
            "        }\n"
            "        for i in range(0, 2048) {\n"
            "          C[i] = A_buf[i] + B_buf[i]\n"
            "        }\n"
            "        call_extern(\"HexagonBackendFreeVTCM\", B_buf, ctx)\n"
            "      }\n"
            "    }\n"
            "    call_extern(\"HexagonBackendFreeVTCM\", A_buf, ctx)\n"
            "  }\n"
            "}\n");
}

TEST(LowerVtcmAlloc, CallsComeInAllocationOrderAndFreesInReverse) {
  EXPECT_EQ(calls_in(lower(alloc_vtcm())),
            (std::vector<std::string>{"call_extern(\"HexagonBackendAllocateVTCM\", 2048, 2048, ctx)",
                                      "isnullptr(A_buf)", "throw_last_error()",
                                      "call_extern(\"HexagonBackendAllocateVTCM\", 2048, 2048, ctx)",
                                      "isnullptr(B_buf)", "call_extern(\"HexagonBackendFreeVTCM\", A_buf, ctx)",
                                      "throw_last_error()", "call_extern(\"HexagonBackendFreeVTCM\", B_buf, ctx)",
                                      "call_extern(\"HexagonBackendFreeVTCM\", A_buf, ctx)"}));
}

TEST(LowerVtcmAlloc, LetBindsTheBuffersOwnDataVariable) {
  TensorFunc f = alloc_vtcm();
  Module m = lower(f);
  const auto* let = m.funcs[0].body.as<LetStmt>();
  ASSERT_NE(let, nullptr);
  EXPECT_EQ(let->var, f.stages[0].out->data);
  const auto* check = let->body.as<IfThenElse>();
  ASSERT_NE(check, nullptr);
  const auto* decl = check->else_case.as<DeclBuffer>();
  ASSERT_NE(decl, nullptr);
  EXPECT_EQ(decl->buffer->data, let->var);
  EXPECT_EQ(decl->buffer->scope, StorageScope::Vtcm);
}

TEST(LowerVtcmAlloc, BytesAreElementsTimesDtypeSize) {
  Module m = lower(staged_copy(DataType::i32(), {256}));
  std::vector<std::string> calls = calls_in(m);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls[0], "call_extern(\"HexagonBackendAllocateVTCM\", 1024, 2048, ctx)");
  EXPECT_NE(print_module(m).find("decl_buffer T: i32[256] scope \"local.vtcm\"\n"), std::string::npos);
}

TEST(LowerVtcmAlloc, TwoDimensionalStageIsFlattenedFirst) {
  Module m = lower(staged_copy(DataType::i16(), {4, 64}));
  EXPECT_EQ(print_module(m),
            "prim_func copy(IN: i16[256]) -> (OUT: i16[256]) context(ctx: handle) {\n"
            "  let T: handle = call_extern(\"HexagonBackendAllocateVTCM\", 512, 2048, ctx)\n"
            "  if isnullptr(T) {\n"
            "    throw_last_error()\n"
            "  } else {\n"
            "    decl_buffer T: i16[256] scope \"local.vtcm\"\n"
            "    for i0 in range(0, 4) {\n"
            "      for i1 in range(0, 64) {\n"
            "        T[i0 * 64 + i1] = IN[i0 * 64 + i1]\n"
            "      }\n"
            "    }\n"
            "    for i0 in range(0, 4) {\n"
            "      for i1 in range(0, 64) {\n"
            "        OUT[i0 * 64 + i1] = T[i0 * 64 + i1]\n"
            "      }\n"
            "    }\n"
            "    call_extern(\"HexagonBackendFreeVTCM\", T, ctx)\n"
            "  }\n"
            "}\n");
}

TEST(LowerVtcmAlloc, VtcmStageReadByAReduction) {
  // T[i: 64] = A[i] in VTCM; C[j] = sum(T[k], k: 64): the accumulator stays a local allocate.
  TensorFunc f;
  f.name = "reduce";
  Buffer a = BufferNode::make("A", DataType::i32(), {64});
  Buffer c = BufferNode::make("C", DataType::i32(), {1});
  Buffer t = BufferNode::make("T", DataType::i32(), {64}, StorageScope::Vtcm);
  f.inputs = {a};
  f.outputs = {c};
  VarRef i = VarNode::make("i"), j = VarNode::make("j"), k = VarNode::make("k");
  f.stages.push_back(stage(t, {i}, Load::make(a, {v(i)})));
  f.stages.push_back(stage(c, {j}, Reduce::make(ReduceOp::Sum, Load::make(t, {v(k)}), {{k, 64}}), true));
  EXPECT_EQ(print_module(lower(f)),
            "prim_func reduce(A: i32[64]) -> (C: i32[1]) context(ctx: handle) {\n"
            "  let T: handle = call_extern(\"HexagonBackendAllocateVTCM\", 256, 2048, ctx)\n"
            "  if isnullptr(T) {\n"
            "    throw_last_error()\n"
            "  } else {\n"
            "    decl_buffer T: i32[64] scope \"local.vtcm\"\n"
            "    for i in range(0, 64) {\n"
            "      T[i] = A[i]\n"
            "    }\n"
            "    for j in range(0, 1) {\n"
            "      allocate C_sum: i32[1] scope \"local\" {\n"
            "        C_sum[0] = 0\n"
            "        for k in range(0, 64) {\n"
            "          C_sum[0] = C_sum[0] + T[k]\n"
            "        }\n"
            "        C[j] = C_sum[0]\n"
            "      }\n"
            "    }\n"
            "    call_extern(\"HexagonBackendFreeVTCM\", T, ctx)\n"
            "  }\n"
            "}\n");
}

TEST(LowerVtcmAlloc, AlignmentComesFromTheTarget) {
  LowerOptions o;
  EXPECT_EQ(
      calls_in(lower(staged_copy(DataType::u8(), {128}), o))[0],
      "call_extern(\"HexagonBackendAllocateVTCM\", 128, " + std::to_string(o.target.vtcm_alignment) + ", ctx)");
  o.target.vtcm_alignment = 4096;
  EXPECT_EQ(calls_in(lower(staged_copy(DataType::u8(), {128}), o))[0],
            "call_extern(\"HexagonBackendAllocateVTCM\", 128, 4096, ctx)");
}

TEST(LowerVtcmAlloc, InnermostFailurePathFreesEveryEnclosingAllocationInnermostFirst) {
  Buffer a = BufferNode::make("A_buf", DataType::i8(), {16}, StorageScope::Vtcm);
  Buffer b = BufferNode::make("B_buf", DataType::i8(), {16}, StorageScope::Vtcm);
  Buffer c = BufferNode::make("C_buf", DataType::i8(), {16}, StorageScope::Vtcm);
  Buffer g = BufferNode::make("G", DataType::i8(), {16});  // global: not lowered here
  Stmt use = Store::make(c, {make_i32(0)}, Load::make(a, {make_i32(0)}));
  PrimFunc f;
  f.name = "f";
  f.body = Allocate::make(a, Allocate::make(g, Allocate::make(b, Allocate::make(c, use))));
  Module m;
  m.funcs.push_back(f);
  std::string text = print_module(lower_vtcm_alloc(m, LowerOptions{}));
  EXPECT_NE(text.find("          if isnullptr(C_buf) {\n"
                      "            call_extern(\"HexagonBackendFreeVTCM\", B_buf, ctx)\n"
                      "            call_extern(\"HexagonBackendFreeVTCM\", A_buf, ctx)\n"
                      "            throw_last_error()\n"
                      "          } else {\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    allocate G: i8[16] scope \"global\" {\n"), std::string::npos) << text;
}

TEST(LowerVtcmAlloc, IsIdempotent) {
  Module once = lower(alloc_vtcm());
  Module twice = lower_vtcm_alloc(once, LowerOptions{});
  EXPECT_EQ(print_module(twice), print_module(once));
  EXPECT_TRUE(twice.funcs[0].body.same_as(once.funcs[0].body));
}

TEST(LowerVtcmAlloc, LeavesOtherScopesAlone) {
  Module m = lower(staged_copy(DataType::i8(), {64}));
  TensorFunc f = staged_copy(DataType::i8(), {64});
  f.stages[0].out = BufferNode::make("T", DataType::i8(), {64}, StorageScope::Global);
  f.stages[1].body = Load::make(f.stages[0].out, {v(f.stages[1].index_vars[0])});
  std::string text = print_module(lower(f));
  EXPECT_EQ(text.find("HexagonBackend"), std::string::npos) << text;
  EXPECT_NE(text.find("allocate T: i8[64] scope \"global\""), std::string::npos) << text;
}

}  // namespace
}  // namespace dspc
