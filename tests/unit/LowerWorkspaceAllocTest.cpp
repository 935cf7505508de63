// lower-workspace-alloc: global temporaries over target.max_stack_alloc come from the
// runtime's workspace, with the same null check / free discipline as VTCM.
#include <gtest/gtest.h>

#include "compiler/ir/IR.h"
#include "compiler/ir/Printer.h"
#include "passes/LowerVtcmAlloc.h"
#include "passes/LowerWorkspaceAlloc.h"

namespace dspc {
namespace {

LowerOptions hexagon() {
  LowerOptions o;
  o.target = *lookup_target("hexagon-v68");
  return o;
}

Stmt touch(const Buffer& b) {
  return Store::make(b, {make_i32(0)}, make_const(b->dtype, 1));
}

Module module_of(Stmt body) {
  PrimFunc f;
  f.name = "f";
  f.body = std::move(body);
  Module m;
  m.funcs.push_back(f);
  return m;
}

std::string lower(const Module& m, const LowerOptions& o = hexagon()) {
  return print_module(lower_workspace_alloc(lower_vtcm_alloc(m, o), o));
}

TEST(LowerWorkspaceAlloc, ThresholdIsMaxStackAlloc) {
  LowerOptions o = hexagon();
  ASSERT_EQ(o.target.max_stack_alloc, 32 * 1024);
  Buffer fits = BufferNode::make("S", DataType::i8(), {32 * 1024});
  Buffer over = BufferNode::make("W", DataType::i8(), {32 * 1024 + 1});
  std::string kept = lower(module_of(Allocate::make(fits, touch(fits))));
  EXPECT_NE(kept.find("allocate S: i8[32768] scope \"global\" {"), std::string::npos) << kept;
  EXPECT_EQ(kept.find("DspcWorkspace"), std::string::npos) << kept;

  EXPECT_EQ(lower(module_of(Allocate::make(over, touch(over)))),
            "prim_func f() -> () context(ctx: handle) {\n"
            "  let W: handle = call_extern(\"DspcWorkspaceAlloc\", 32769, 128, ctx)\n"
            "  if isnullptr(W) {\n"
            "    throw_last_error()\n"
            "  } else {\n"
            "    decl_buffer W: i8[32769] scope \"global\"\n"
            "    W[0] = 1i8\n"
            "    call_extern(\"DspcWorkspaceFree\", W, ctx)\n"
            "  }\n"
            "}\n");
}

TEST(LowerWorkspaceAlloc, BytesCountTheDtypeAndAlignmentIsTheTargets) {
  LowerOptions o = hexagon();
  o.target.alloc_alignment = 256;
  Buffer w = BufferNode::make("W", DataType::i32(), {16384});
  std::string text = lower(module_of(Allocate::make(w, touch(w))), o);
  EXPECT_NE(text.find("let W: handle = call_extern(\"DspcWorkspaceAlloc\", 65536, 256, ctx)\n"), std::string::npos)
      << text;
}

TEST(LowerWorkspaceAlloc, LocalAllocationsStayWhateverTheirSize) {
  Buffer l = BufferNode::make("L", DataType::i8(), {1 << 20}, StorageScope::Local);
  std::string text = lower(module_of(Allocate::make(l, touch(l))));
  EXPECT_EQ(text.find("DspcWorkspace"), std::string::npos) << text;
  EXPECT_NE(text.find("allocate L: i8[1048576] scope \"local\" {"), std::string::npos) << text;
}

TEST(LowerWorkspaceAlloc, VtcmFailurePathInsideAWorkspaceFreesTheWorkspace) {
  Buffer w = BufferNode::make("W", DataType::i32(), {16384});
  Buffer t = BufferNode::make("T", DataType::i8(), {128}, StorageScope::Vtcm);
  Stmt use = Store::make(t, {make_i32(0)}, Cast::make(DataType::i8(), Load::make(w, {make_i32(0)})));
  EXPECT_EQ(lower(module_of(Allocate::make(w, Allocate::make(t, use)))),
            "prim_func f() -> () context(ctx: handle) {\n"
            "  let W: handle = call_extern(\"DspcWorkspaceAlloc\", 65536, 128, ctx)\n"
            "  if isnullptr(W) {\n"
            "    throw_last_error()\n"
            "  } else {\n"
            "    decl_buffer W: i32[16384] scope \"global\"\n"
            "    {\n"
            "      let T: handle = call_extern(\"HexagonBackendAllocateVTCM\", 128, 2048, ctx)\n"
            "      if isnullptr(T) {\n"
            "        call_extern(\"DspcWorkspaceFree\", W, ctx)\n"
            "        throw_last_error()\n"
            "      } else {\n"
            "        decl_buffer T: i8[128] scope \"local.vtcm\"\n"
            "        T[0] = i8(W[0])\n"
            "        call_extern(\"HexagonBackendFreeVTCM\", T, ctx)\n"
            "      }\n"
            "    }\n"
            "    call_extern(\"DspcWorkspaceFree\", W, ctx)\n"
            "  }\n"
            "}\n");
}

TEST(LowerWorkspaceAlloc, FailurePathsFreeInnermostFirstAcrossBothKinds) {
  // VTCM A { workspace W { VTCM B { ... } } }: B's failure path frees W, then A.
  Buffer a = BufferNode::make("A_buf", DataType::i8(), {64}, StorageScope::Vtcm);
  Buffer w = BufferNode::make("W", DataType::i8(), {40000});
  Buffer b = BufferNode::make("B_buf", DataType::i8(), {64}, StorageScope::Vtcm);
  std::string text = lower(module_of(Allocate::make(a, Allocate::make(w, Allocate::make(b, touch(b))))));
  EXPECT_NE(text.find("  if isnullptr(W) {\n"
                      "        call_extern(\"HexagonBackendFreeVTCM\", A_buf, ctx)\n"
                      "        throw_last_error()\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  if isnullptr(B_buf) {\n"
                      "            call_extern(\"DspcWorkspaceFree\", W, ctx)\n"
                      "            call_extern(\"HexagonBackendFreeVTCM\", A_buf, ctx)\n"
                      "            throw_last_error()\n"),
            std::string::npos)
      << text;
}

TEST(LowerWorkspaceAlloc, IsIdempotent) {
  Buffer w = BufferNode::make("W", DataType::i32(), {16384});
  Buffer t = BufferNode::make("T", DataType::i8(), {128}, StorageScope::Vtcm);
  Module m = module_of(Allocate::make(w, Allocate::make(t, touch(t))));
  LowerOptions o = hexagon();
  Module once = lower_workspace_alloc(lower_vtcm_alloc(m, o), o);
  Module twice = lower_workspace_alloc(lower_vtcm_alloc(once, o), o);
  EXPECT_EQ(print_module(twice), print_module(once));
  EXPECT_TRUE(twice.funcs[0].body.same_as(once.funcs[0].body));
}

}  // namespace
}  // namespace dspc
