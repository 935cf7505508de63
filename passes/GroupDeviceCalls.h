// group-device-calls: orders each graph's calls so that host<->device switches are fewest, and
// makes each maximal run of device calls one device function.
#pragma once

#include <vector>

#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// An order of a DAG's nodes and its phases (maximal runs of nodes on one side).
struct PlacementOrder {
  std::vector<int> order;
  std::vector<std::pair<Placement, std::vector<int>>> phases;
  int device_phases() const;
};

// The order with the fewest device phases (then the fewest phases): greedy phases, "run every
// ready node of the current side, then switch", once starting on each side, keeping the better.
// `preds[i]` are node i's predecessors; `side[i]` its placement. Ties go to the lower index.
PlacementOrder order_by_placement(const std::vector<std::vector<int>>& preds, const std::vector<Placement>& side);

// Source order (a ready node with the lowest index first), one phase per device node: the
// baseline that --no-group-device-calls gives.
PlacementOrder order_one_call_per_node(const std::vector<std::vector<int>>& preds, const std::vector<Placement>& side);

// For each graph of `program`, orders its calls (order_by_placement, or one call per device
// node when options.group_device_calls is false) and adds to `m` one function per device group,
// `__dspc_group_<graph>_<k>`: its parameters are the tensors the group reads from outside and
// those it gives to the outside (graph results, or tensors a later host node reads); tensors
// that stay inside the group are allocated in it and never leave the device. It calls the
// group's kernels in order with call_func, handing each its own context parameter (the kernels
// run with the caller's VTCM pool, workspace and last error), and stops at the first non-zero status
// (throw_last_error: the kernel's message is the device's last error). Records each graph's
// GraphPlan in m.graph_plans.
// Takes: the TIR of schedule-ops. Gives: the same functions, and the group functions.
Module group_device_calls(const Module& m, const TensorProgram& program, const LowerOptions& options);

}  // namespace dspc
