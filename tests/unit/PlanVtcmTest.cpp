// plan-vtcm's layout: lifetimes from first to last access, whole loops when a loop inside a
// buffer's allocate touches it, per-iteration buffers inside a loop, packing at aligned
// offsets, and the rewrite to one arena.
#include <gtest/gtest.h>

#include <sstream>

#include "compiler/ir/IR.h"
#include "compiler/ir/Printer.h"
#include "passes/PlanVtcm.h"

namespace dspc {
namespace {

Buffer vtcm(const std::string& name, int64_t bytes) {
  return BufferNode::make(name, DataType::u8(), {bytes}, StorageScope::Vtcm);
}
Buffer global(const std::string& name, int64_t bytes) {
  return BufferNode::make(name, DataType::u8(), {bytes});
}
Stmt put(const Buffer& b, Expr v) { return Store::make(b, {make_i32(0)}, v); }
Expr get(const Buffer& b) { return Load::make(b, {make_i32(0)}); }
Stmt loop(const std::string& name, Stmt body) {
  return For::make(VarNode::make(name), make_i32(0), make_i32(4), ForKind::Serial, std::move(body));
}
int64_t offset_of(const VtcmPlan& plan, const std::string& name) {
  for (const auto& s : plan.slots)
    if (s.buffer->name == name) return s.offset;
  ADD_FAILURE() << "no slot " << name;
  return -1;
}

// allocate T { T = 1; allocate U { U = T; allocate V { V = U; OUT = V } } }: T dies when U is
// written, so V takes T's place although the allocations nest.
TEST(PlanVtcm, ANestedChainSharesByLifetimeNotByNesting) {
  Buffer t = vtcm("T", 1000), u = vtcm("U", 3000), v = vtcm("V", 1000), out = global("OUT", 1);
  Stmt body = Allocate::make(
      t, Seq::make({put(t, make_const(DataType::u8(), 1)),
                    Allocate::make(u, Seq::make({put(u, get(t)),
                                                 Allocate::make(v, Seq::make({put(v, get(u)), put(out, get(v))}))}))}));
  VtcmPlan plan = plan_vtcm_layout(body, 2048);
  EXPECT_EQ(offset_of(plan, "U"), 0);     // largest first
  EXPECT_EQ(offset_of(plan, "T"), 4096);  // overlaps U (T is read where U is written)
  EXPECT_EQ(offset_of(plan, "V"), 4096);  // overlaps U, not T
  EXPECT_EQ(plan.arena_bytes, 4096 + 1000);
}

// A buffer allocated outside a loop and touched inside it is live for the whole loop, so a
// buffer used only at the loop's end still may not share with it.
TEST(PlanVtcm, ALoopInsideTheAllocateKeepsItsBuffersLiveThroughout) {
  Buffer a = vtcm("A", 100), b = vtcm("B", 100), out = global("OUT", 1);
  Stmt body = Allocate::make(
      a, Allocate::make(b, loop("i", Seq::make({put(a, get(out)), put(out, get(a)), put(b, get(out)), put(out, get(b))}))));
  VtcmPlan plan = plan_vtcm_layout(body, 128);
  EXPECT_NE(offset_of(plan, "A"), offset_of(plan, "B"));
  EXPECT_EQ(plan.arena_bytes, 228);
}

// Buffers allocated inside the loop body are fresh each iteration: used one after the other
// there, they share.
TEST(PlanVtcm, PerIterationBuffersUsedOneAfterTheOtherShare) {
  Buffer a = vtcm("A", 100), b = vtcm("B", 100), out = global("OUT", 1);
  Stmt body = loop("i", Seq::make({Allocate::make(a, Seq::make({put(a, get(out)), put(out, get(a))})),
                                    Allocate::make(b, Seq::make({put(b, get(out)), put(out, get(b))}))}));
  VtcmPlan plan = plan_vtcm_layout(body, 128);
  EXPECT_EQ(offset_of(plan, "A"), 0);
  EXPECT_EQ(offset_of(plan, "B"), 0);
  EXPECT_EQ(plan.arena_bytes, 100);
}

// The pass: one arena allocate around the body, a let of handle_add per buffer (equal sizes:
// the earlier lifetime first); a single
// buffer is left alone; over the capacity is an error naming the buffer that ends the arena.
TEST(PlanVtcm, RewritesToOneArenaAndChecksItsSize) {
  Buffer a = vtcm("A", 100), b = vtcm("B", 100), out = global("OUT", 1);
  Stmt two = Allocate::make(a, Allocate::make(b, Seq::make({put(a, get(out)), put(b, get(a)), put(out, get(b))})));
  PrimFunc f;
  f.name = "f";
  f.outputs = {out};
  f.body = two;
  Module m{{f}};
  LowerOptions o;
  std::ostringstream text;
  Diagnostics diag(text);
  Module planned = plan_vtcm(m, o, diag);
  EXPECT_FALSE(diag.has_errors()) << text.str();
  std::string tir = print_stmt(planned.funcs[0].body);
  EXPECT_NE(tir.find("allocate vtcm_arena: u8[2148] scope \"local.vtcm\""), std::string::npos) << tir;
  EXPECT_NE(tir.find("let A: handle = handle_add(vtcm_arena, 0)"), std::string::npos) << tir;
  EXPECT_NE(tir.find("let B: handle = handle_add(vtcm_arena, 2048)"), std::string::npos) << tir;

  o.vtcm_capacity = 2147;
  Diagnostics over(text);
  plan_vtcm(m, o, over);
  EXPECT_TRUE(over.has_errors());
  EXPECT_NE(text.str().find("needs 2148 bytes, over the capacity of 2147 bytes"), std::string::npos) << text.str();

  o.plan_vtcm = false;
  Module off = plan_vtcm(m, o, diag);
  EXPECT_EQ(print_stmt(off.funcs[0].body), print_stmt(two));
}

}  // namespace
}  // namespace dspc
