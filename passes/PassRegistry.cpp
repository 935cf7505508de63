#include "passes/PassRegistry.h"

#include <type_traits>

#include "passes/CollapseLoops.h"
#include "passes/FlattenBuffers.h"
#include "passes/GroupDeviceCalls.h"
#include "passes/LowerVtcmAlloc.h"
#include "passes/LowerWorkspaceAlloc.h"
#include "passes/MakePackedApi.h"
#include "passes/PlanVtcm.h"
#include "passes/ScheduleOps.h"
#include "passes/Simplify.h"
#include "passes/Vectorize.h"
#include "passes/VerifyVtcmLimit.h"

namespace dspc {

namespace {

// Adapters for the passes that take more than the module and the options.
Module run_schedule_ops(const Module&, const PassContext& c) { return schedule_ops(*c.program, c.options); }
Module run_group_device_calls(const Module& m, const PassContext& c) {
  return group_device_calls(m, *c.program, c.options);
}
Module run_verify_vtcm_limit(const Module& m, const PassContext& c) { return verify_vtcm_limit(m, c.options, c.diag); }
Module run_plan_vtcm(const Module& m, const PassContext& c) { return plan_vtcm(m, c.options, c.diag); }
Module run_make_packed_api(const Module& m, const PassContext& c) { return make_packed_api(m, *c.tir_input, c.options); }

// A row's function as a registry entry: the adapters above as they are, and the passes that
// take only the module and the options with those.
template <auto F>
Module run_pass(const Module& m, const PassContext& c) {
  if constexpr (std::is_invocable_r_v<Module, decltype(F), const Module&, const PassContext&>)
    return F(m, c);
  else
    return F(m, c.options);
}

}  // namespace

const std::vector<PassInfo>& passes() {
  static const std::vector<PassInfo> table = {
#define DSPC_PASS(name, fn, input, description, options) \
  {name, run_pass<&fn>, PassInput::input, description, options},
#include "passes/Passes.def"
  };
  return table;
}

}  // namespace dspc
