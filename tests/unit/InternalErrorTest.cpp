// The internal-error contract: DSPC_CHECK stays on in Release builds, and a failure inside a
// pass comes back from the pipeline as a reported internal error, never as an exception.
#include <gtest/gtest.h>

#include <sstream>

#include "compiler/ir/Check.h"
#include "compiler/ir/IR.h"
#include "driver/Compile.h"
#include "driver/Lower.h"
#include "tests/unit/TestPrograms.h"

namespace dspc {
namespace {

TEST(InternalError, CheckThrowsWithLocationAndMessage) {
  int x = 3;
  try {
    DSPC_CHECK(x == 4, "x is " + std::to_string(x));
    FAIL() << "DSPC_CHECK did not throw";
  } catch (const InternalError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("InternalErrorTest.cpp:"), std::string::npos) << what;
    EXPECT_NE(what.find("check failed: x == 4: x is 3"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(DSPC_CHECK(x == 3, "never built"));
}

TEST(InternalError, IllTypedMakeIsAnInternalError) {
  EXPECT_THROW(Binary::make(BinaryOp::Add, make_const(DataType::i8(), 1), make_i32(1)), InternalError);
}

// Every pass, every way of failing: lower() returns nothing, reports the pass by name, and
// marks the error internal so that the driver exits with 2.
TEST(InternalError, EveryPassFailureIsReportedNotThrown) {
  TensorProgram program;
  program.funcs.push_back(testing::alloc_vtcm());
  for (const std::string& pass : pass_names()) {
    for (InjectedFailure kind : {InjectedFailure::Check, InjectedFailure::Make, InjectedFailure::InvalidTir}) {
      std::ostringstream out;
      Diagnostics diag(out);
      LowerOptions o;
      o.target = *lookup_target(kDefaultTarget);
      o.verify_each = true;
      o.inject_failure_pass = pass;
      o.inject_failure = kind;
      std::optional<Module> m;
      ASSERT_NO_THROW(m = lower(program, o, diag)) << pass;
      EXPECT_FALSE(m.has_value()) << pass;
      EXPECT_TRUE(diag.has_internal_errors()) << pass;
      EXPECT_EQ(out.str().rfind("dspc: internal error in pass " + pass + ": ", 0), 0u) << out.str();
    }
  }
}

// Not injected: a real invariant of a pass. schedule-ops needs one index variable per
// dimension, which the parser guarantees; a hand-built stage that breaks it must come back as
// that pass's internal error, naming the check.
TEST(InternalError, RealCheckInsideAPassIsReported) {
  TensorFunc f = testing::alloc_vtcm();
  f.stages[0].index_vars.push_back(VarNode::make("extra"));
  TensorProgram program;
  program.funcs.push_back(f);
  std::ostringstream out;
  Diagnostics diag(out);
  LowerOptions o;
  o.target = *lookup_target(kDefaultTarget);
  std::optional<Module> m;
  ASSERT_NO_THROW(m = lower(program, o, diag));
  EXPECT_FALSE(m.has_value());
  EXPECT_TRUE(diag.has_internal_errors());
  EXPECT_EQ(out.str().rfind("dspc: internal error in pass schedule-ops: passes/ScheduleOps.cpp:", 0), 0u) << out.str();
  EXPECT_NE(out.str().find("check failed: "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("one index variable per dimension"), std::string::npos) << out.str();
}

TEST(InternalError, UserErrorsAreNotInternal) {
  SourceFile src{"over.dsp", "func f(A: i8[64]) -> (C: i8[64]) {\n  T[i: 64] = A[i]\n  C[i] = T[i]\n"
                             "  schedule { T.set_scope(\"local.vtcm\") }\n}\n"};
  std::ostringstream out;
  Diagnostics diag(out);
  LowerOptions o;
  o.target = *lookup_target(kDefaultTarget);
  o.vtcm_capacity = 10;
  EXPECT_FALSE(compile_source(src, o, diag).has_value());
  EXPECT_TRUE(diag.has_errors());
  EXPECT_FALSE(diag.has_internal_errors()) << out.str();
}

TEST(InternalError, CleanCompileHasNoErrors) {
  TensorProgram program;
  program.funcs.push_back(testing::alloc_vtcm());
  std::ostringstream out;
  Diagnostics diag(out);
  LowerOptions o;
  o.target = *lookup_target(kDefaultTarget);
  o.verify_each = true;
  EXPECT_TRUE(lower(program, o, diag).has_value()) << out.str();
  EXPECT_FALSE(diag.has_errors());
}

}  // namespace
}  // namespace dspc
