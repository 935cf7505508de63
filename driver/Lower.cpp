#include "driver/Lower.h"

#include <algorithm>

#include "compiler/ir/Printer.h"
#include "compiler/ir/Verifier.h"
#include "passes/FlattenBuffers.h"
#include "passes/LowerVtcmAlloc.h"
#include "passes/LowerWorkspaceAlloc.h"
#include "passes/ScheduleOps.h"
#include "passes/Simplify.h"
#include "passes/VerifyVtcmLimit.h"

namespace dspc {

namespace {

// Prints the module after `pass` if asked to, and verifies it when verification is on.
// Returns false (after reporting) if the verifier rejects it: that is a compiler bug.
bool trace(const char* pass, const Module& m, const LowerOptions& o, Diagnostics& diag) {
  bool wanted = o.print_after_all ||
                std::find(o.print_after.begin(), o.print_after.end(), pass) != o.print_after.end();
  if (wanted && o.trace) *o.trace << "// ----- TIR after " << pass << " -----\n" << print_module(m);
#ifdef DSPC_DEBUG
  constexpr bool kVerify = true;
#else
  constexpr bool kVerify = false;
#endif
  if (!kVerify && !o.verify_each) return true;
  std::string error;
  if (verify_module(m, error)) return true;
  diag.error("internal error: invalid TIR after " + std::string(pass) + ": " + error);
  return false;
}

}  // namespace

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names = {"schedule-ops", "verify-vtcm-limit", "flatten-buffers",
                                                 "lower-vtcm-alloc", "lower-workspace-alloc", "simplify"};
  return names;
}

std::optional<Module> lower_tir(const Module& input, const LowerOptions& o, Diagnostics& diag) {
  Module m = verify_vtcm_limit(input, o, diag);
  if (diag.has_errors() || !trace("verify-vtcm-limit", m, o, diag)) return std::nullopt;
  m = flatten_buffers(m, o);
  if (!trace("flatten-buffers", m, o, diag)) return std::nullopt;
  m = lower_vtcm_alloc(m, o);
  if (!trace("lower-vtcm-alloc", m, o, diag)) return std::nullopt;
  m = lower_workspace_alloc(m, o);
  if (!trace("lower-workspace-alloc", m, o, diag)) return std::nullopt;
  m = simplify(m, o);
  if (!trace("simplify", m, o, diag)) return std::nullopt;
  return m;
}

std::optional<Module> lower(const TensorProgram& program, const LowerOptions& o, Diagnostics& diag) {
  Module m = schedule_ops(program, o);
  if (!trace("schedule-ops", m, o, diag)) return std::nullopt;
  return lower_tir(m, o, diag);
}

}  // namespace dspc
