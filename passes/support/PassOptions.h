// Options passed explicitly down the pipeline (no environment knobs).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "targets/Target.h"

namespace dspc {

// How an injected failure fails: a DSPC_CHECK that does not hold, a make() with ill-typed
// operands (IRError), or a pass that returns TIR the verifier rejects. For the pseudo-pass
// "codegen" (LLVM's optimisation and code generation): a crash (SIGSEGV) or a fatal LLVM error.
enum class InjectedFailure { Check, Make, InvalidTir, Crash, Fatal };

// Told before and after each pass of the pipeline runs; the driver's --time-passes times the
// passes through it. Never told about a pass that is skipped after a failure.
class PassObserver {
 public:
  virtual ~PassObserver() = default;
  virtual void before_pass(const char* name) = 0;
  virtual void after_pass(const char* name) = 0;
};

struct LowerOptions {
  Target target = *lookup_target(kDefaultTarget);
  // VTCM bytes available to one function; negative means the target's capacity.
  int64_t vtcm_capacity = -1;
  // Stages without a schedule get the automatic one (vectorized innermost dimension,
  // partitioned boundaries); false leaves them as plain serial loop nests.
  bool auto_schedule = true;
  // schedule-ops writes to `trace`, for each stage, the schedule it gets (written, automatic,
  // inlined) and what keeps it from HVX speed: reads whose lanes are not neighbours in memory,
  // lane types HVX code has no instructions for, an innermost extent below one vector.
  bool explain_schedule = false;
  // group-device-calls orders a graph's calls so that device calls run together, one device
  // function per group; false: source order, one device function per device call (a baseline).
  bool group_device_calls = true;
  // fold-constant-stages evaluates a graph call's stages that read only constant tensors at
  // compile time (passes/FoldConstantStages.h); false computes them on every call.
  bool fold_constant_stages = true;
  // plan-vtcm packs a function's VTCM buffers into one arena (one allocation call); false
  // keeps one allocation call per buffer, checked by verify-vtcm-limit.
  bool plan_vtcm = true;
  // Run the verifier after every pass (always on in debug builds).
  bool verify_each = false;
  // Print the TIR after these passes (kebab-case names), or after all of them.
  std::vector<std::string> print_after;
  bool print_after_all = false;
  std::ostream* trace = nullptr;  // where printed TIR goes; null: nowhere
  PassObserver* observer = nullptr;  // null: none
  // Tests of the internal-error path: the pass named here fails the way a compiler bug does
  // (see driver/Lower.cpp); empty for never.
  std::string inject_failure_pass;
  InjectedFailure inject_failure = InjectedFailure::Check;

  int64_t effective_vtcm_capacity() const { return vtcm_capacity >= 0 ? vtcm_capacity : target.vtcm_capacity; }
};

}  // namespace dspc
