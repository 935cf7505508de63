// verify-vtcm-limit: live VTCM against the capacity; nested allocations add up, siblings don't.
#include <gtest/gtest.h>

#include <sstream>

#include "compiler/ir/IR.h"
#include "passes/FlattenBuffers.h"
#include "passes/LowerVtcmAlloc.h"
#include "passes/VerifyVtcmLimit.h"

namespace dspc {
namespace {

const char* kSource =
    "func alloc_vtcm(A: i8[2048], B: i8[2048]) -> (C: i8[2048]) {\n"
    "  A_buf[i: 2048] = A[i]\n"
    "  B_buf[i: 2048] = B[i]\n"
    "  C[i] = A_buf[i] + B_buf[i]\n"
    "}\n";

Buffer vtcm(const std::string& name, DataType t, std::vector<int64_t> shape) {
  return BufferNode::make(name, t, std::move(shape), StorageScope::Vtcm);
}

Stmt touch(const Buffer& b) {
  std::vector<Expr> idx(b->shape.size(), make_i32(0));
  return Store::make(b, idx, make_const(b->dtype, 1));
}

Module module_of(Stmt body, const std::string& name = "f") {
  PrimFunc f;
  f.name = name;
  f.body = std::move(body);
  Module m;
  m.funcs.push_back(f);
  return m;
}

LowerOptions options(int64_t capacity, const char* target = "hexagon-v68") {
  LowerOptions o;
  o.target = *lookup_target(target);
  o.vtcm_capacity = capacity;
  o.plan_vtcm = false;  // verify-vtcm-limit checks the unplanned form (--no-vtcm-plan)
  return o;
}

struct Result {
  int errors;
  std::string text;
};

Result check(const Module& m, const LowerOptions& o) {
  static const SourceFile source{"test.dsp", kSource};
  std::ostringstream out;
  Diagnostics diag(out, &source);
  Module same = verify_vtcm_limit(m, o, diag);
  EXPECT_TRUE(same.funcs[0].body.same_as(m.funcs[0].body)) << "verify-vtcm-limit must not change the module";
  return {diag.error_count(), out.str()};
}

// A_buf (line 2) encloses B_buf (line 3), as schedule-ops nests the seed example.
Module seed_example() {
  Buffer a = vtcm("A_buf", DataType::i8(), {2048});
  Buffer b = vtcm("B_buf", DataType::i8(), {2048});
  Stmt inner = Allocate::make(b, Seq::make({touch(b), touch(a)}), Span{3, 3});
  return module_of(Allocate::make(a, Seq::make({touch(a), inner}), Span{2, 3}));
}

TEST(VerifyVtcmLimit, NestedAllocationsAtCapacityPass) {
  Result r = check(seed_example(), options(4096));
  EXPECT_EQ(r.errors, 0);
  EXPECT_EQ(r.text, "");
}

TEST(VerifyVtcmLimit, OverCapacityPointsAtTheAllocationThatWentOverAndNotesTheOthers) {
  Result r = check(seed_example(), options(4095));
  EXPECT_EQ(r.errors, 1);
  EXPECT_EQ(
      r.text,
      "test.dsp:3:3: error: allocating 2048 bytes of VTCM for B_buf brings live VTCM use to 4096 bytes, "
      "over the capacity of 4095 bytes (set by --vtcm-capacity)\n"
      "  B_buf[i: 2048] = B[i]\n"
      "  ^\n"
      "test.dsp:2:3: note: A_buf uses 2048 bytes of VTCM here\n"
      "  A_buf[i: 2048] = A[i]\n"
      "  ^\n");
}

TEST(VerifyVtcmLimit, SiblingAllocationsDoNotAddUp) {
  Buffer a = vtcm("A_buf", DataType::i8(), {2048});
  Buffer b = vtcm("B_buf", DataType::i8(), {2048});
  Module m = module_of(
      Seq::make({Allocate::make(a, touch(a), Span{2, 3}), Allocate::make(b, touch(b), Span{3, 3})}));
  EXPECT_EQ(check(m, options(2048)).errors, 0);
  EXPECT_EQ(check(m, options(2047)).errors, 1);
}

TEST(VerifyVtcmLimit, BytesAreElementsTimesDtypeSize) {
  Buffer t = vtcm("T", DataType::i16(), {4, 64});  // 512 bytes
  Module m = module_of(Allocate::make(t, touch(t), Span{2, 3}));
  EXPECT_EQ(check(m, options(512)).errors, 0);
  Result r = check(m, options(511));
  EXPECT_EQ(r.errors, 1);
  EXPECT_NE(r.text.find("allocating 512 bytes of VTCM for T brings live VTCM use to 512 bytes"),
            std::string::npos)
      << r.text;
  EXPECT_EQ(r.text.find("note:"), std::string::npos) << "nothing else is live";
}

TEST(VerifyVtcmLimit, OtherScopesDoNotCount) {
  Buffer g = BufferNode::make("G", DataType::i8(), {1 << 20});
  Buffer l = BufferNode::make("L", DataType::i8(), {1 << 20}, StorageScope::Local);
  Buffer a = vtcm("A_buf", DataType::i8(), {2048});
  Module m = module_of(Allocate::make(g, Allocate::make(l, Allocate::make(a, touch(a)))));
  EXPECT_EQ(check(m, options(2048)).errors, 0);
}

TEST(VerifyVtcmLimit, ReportsOncePerFunction) {
  Buffer a = vtcm("A_buf", DataType::i8(), {2048});
  Buffer b = vtcm("B_buf", DataType::i8(), {2048});
  Buffer c = vtcm("C_buf", DataType::i8(), {2048});
  Stmt body =
      Allocate::make(a, Allocate::make(b, Allocate::make(c, touch(c), Span{4, 3}), Span{3, 3}), Span{2, 3});
  Module m = module_of(body);
  Result r = check(m, options(1000));
  EXPECT_EQ(r.errors, 1);
  EXPECT_NE(r.text.find("test.dsp:2:3: error: allocating 2048 bytes of VTCM for A_buf"), std::string::npos)
      << r.text;

  Module two = m;
  PrimFunc g = m.funcs[0];
  g.name = "g";
  two.funcs.push_back(g);
  EXPECT_EQ(check(two, options(1000)).errors, 2);
}

TEST(VerifyVtcmLimit, DefaultCapacityIsTheTargets) {
  Buffer big = vtcm("Big", DataType::i8(), {256 * 1024 + 1});
  Module m = module_of(Allocate::make(big, touch(big), Span{2, 3}));
  Result r = check(m, options(-1, "hexagon-v65"));
  EXPECT_EQ(r.errors, 1);
  EXPECT_NE(r.text.find("over the capacity of 262144 bytes (hexagon-v65)"), std::string::npos) << r.text;
  EXPECT_EQ(check(m, options(-1, "hexagon-v68")).errors, 0);
}

TEST(VerifyVtcmLimit, CountsAlreadyLoweredVtcmAllocations) {
  Module lowered = lower_vtcm_alloc(flatten_buffers(seed_example(), options(-1)), options(-1));
  EXPECT_EQ(check(lowered, options(4096)).errors, 0);
  Result r = check(lowered, options(4095));
  EXPECT_EQ(r.errors, 1);
  EXPECT_NE(
      r.text.find("test.dsp:3:3: error: allocating 2048 bytes of VTCM for B_buf brings live VTCM use to "
                  "4096 bytes"),
      std::string::npos)
      << r.text;
}

}  // namespace
}  // namespace dspc
