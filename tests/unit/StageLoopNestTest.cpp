// build_stage_loop_nest: the loop nest of one stage over given ranges of its index variables
// (the whole stage, or sub-ranges such as boundary regions), from its schedule.
#include <gtest/gtest.h>

#include <sstream>

#include "compiler/frontend/Parser.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/Verifier.h"
#include "passes/support/StageLoopNest.h"

namespace dspc {
namespace {

TensorFunc parse_func(const std::string& text) {
  SourceFile src{"test.dsp", text};
  std::ostringstream out;
  Diagnostics diag(out, &src);
  auto p = parse_dsp(src, diag);
  EXPECT_TRUE(p.has_value()) << out.str();
  return p ? p->funcs.at(0) : TensorFunc{};
}

const char* kSplitStage =
    "func f(A: i16[10, 100]) -> (C: i16[10, 100]) {\n"
    "  C[y, x] = A[y, x] + sum(A[y, k], k: 2)\n"
    "  schedule { C.split(x, xo, xi, 8).vectorize(xi) }\n"
    "}\n";

TEST(StageLoopNest, WholeStageIsTheDefaultRange) {
  TensorFunc f = parse_func(kSplitStage);
  std::set<std::string> used = {"C", "A", "x", "y", "k", "xo", "xi"};
  const Stage& c = f.stages[0];
  ASSERT_EQ(full_ranges(c).size(), 2u);
  EXPECT_EQ(as_int(full_ranges(c)[1].min)->value, 0);
  EXPECT_EQ(full_ranges(c)[1].extent, 100);
  std::string text = print_stmt(build_stage_loop_nest(c, full_ranges(c), used));
  EXPECT_NE(
      text.find("for y in range(0, 10) {\n  for xo in range(0, 13) {\n    for xi in vectorized(0, 8) {"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("C[y, min(xo * 8, 92) + xi] = A[y, min(xo * 8, 92) + xi] + C_sum[0]"),
            std::string::npos)
      << text;
}

// Sub-ranges: splits use the range's extent, the substitution adds its min, an unsplit
// variable loops over range(min, extent); each call binds fresh Vars, so several nests of one
// stage form a valid function.
TEST(StageLoopNest, SubRangesAddTheirMinAndSplitTheirExtent) {
  TensorFunc f = parse_func(kSplitStage);
  std::set<std::string> used = {"C", "A", "x", "y", "k", "xo", "xi"};
  const Stage& c = f.stages[0];
  Stmt left = build_stage_loop_nest(c, {{0, 10}, {0, 1}}, used);
  Stmt middle = build_stage_loop_nest(c, {{2, 5}, {1, 98}}, used);
  Stmt exact = build_stage_loop_nest(c, {{0, 10}, {3, 16}}, used);
  std::string text = print_stmt(middle);
  EXPECT_NE(text.find("for y in range(2, 5) {\n  for xo in range(0, 13) {\n    for xi in vectorized(0, 8) {"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("C[y, min(xo * 8, 90) + xi + 1] = "), std::string::npos) << text;
  EXPECT_NE(text.find("allocate C_sum_1: i16[1]"), std::string::npos) << text;  // fresh per call
  text = print_stmt(left);
  EXPECT_NE(text.find("for xo in range(0, 1) {\n    for xi in vectorized(0, 1) {"), std::string::npos)
      << text;
  EXPECT_NE(text.find("C[y, xi] = "), std::string::npos) << text;
  text = print_stmt(exact);
  EXPECT_NE(text.find("C[y, xo * 8 + xi + 3] = "), std::string::npos) << text;

  PrimFunc func;
  func.name = "f";
  func.inputs = f.inputs;
  func.outputs = f.outputs;
  func.body = Seq::make({left, middle, exact});
  std::string error;
  EXPECT_TRUE(verify_func(func, error)) << error;
}

}  // namespace
}  // namespace dspc
