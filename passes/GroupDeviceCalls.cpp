// group-device-calls
//  1. Per graph, order the calls: from each starting side, greedy phases (take every ready node
//     of the current side, including those it makes ready, then switch sides); keep the start
//     with fewer device phases, then fewer phases. With two sides, each greedy run has the
//     fewest phases of any order that starts on its side, so the better one has the fewest
//     device groups (tests/unit/GroupDeviceCallsTest.cpp checks it against brute force).
//  2. Each device phase becomes a group: its parameters are the tensors it reads from outside
//     (first use order) and those it produces that a graph result or a node outside reads.
//  3. The group function allocates the other tensors it produces and calls the kernels in
//     order; a status buffer carries the first failure past the later calls, then out of the
//     allocations, so that what the group allocated is always freed.
#include "passes/GroupDeviceCalls.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/ir/Check.h"
#include "compiler/ir/Externs.h"

namespace dspc {

int PlacementOrder::device_phases() const {
  int n = 0;
  for (const auto& p : phases) n += p.first == Placement::Device;
  return n;
}

namespace {

Placement other(Placement p) { return p == Placement::Device ? Placement::Host : Placement::Device; }

std::vector<std::vector<int>> successors(const std::vector<std::vector<int>>& preds) {
  std::vector<std::vector<int>> succs(preds.size());
  for (size_t i = 0; i < preds.size(); ++i)
    for (int p : preds[i]) succs[static_cast<size_t>(p)].push_back(static_cast<int>(i));
  return succs;
}

PlacementOrder greedy(const std::vector<std::vector<int>>& preds, const std::vector<Placement>& side, Placement start) {
  auto succs = successors(preds);
  size_t n = preds.size();
  std::vector<size_t> missing(n);
  std::set<int> ready[2];
  for (size_t i = 0; i < n; ++i) {
    missing[i] = preds[i].size();
    if (!missing[i]) ready[static_cast<int>(side[i])].insert(static_cast<int>(i));
  }
  PlacementOrder out;
  Placement cur = start;
  while (out.order.size() < n) {
    std::set<int>& r = ready[static_cast<int>(cur)];
    if (r.empty()) {
      cur = other(cur);
      DSPC_CHECK(!ready[static_cast<int>(cur)].empty(), "group-device-calls: the graph has a cycle");
      continue;
    }
    std::vector<int> phase;
    while (!r.empty()) {
      int v = *r.begin();
      r.erase(r.begin());
      phase.push_back(v);
      out.order.push_back(v);
      for (int s : succs[static_cast<size_t>(v)])
        if (--missing[static_cast<size_t>(s)] == 0) ready[static_cast<int>(side[static_cast<size_t>(s)])].insert(s);
    }
    out.phases.push_back({cur, std::move(phase)});
    cur = other(cur);
  }
  return out;
}

}  // namespace

PlacementOrder order_by_placement(const std::vector<std::vector<int>>& preds, const std::vector<Placement>& side) {
  PlacementOrder a = greedy(preds, side, Placement::Host);
  PlacementOrder b = greedy(preds, side, Placement::Device);
  auto key = [](const PlacementOrder& o) { return std::make_pair(o.device_phases(), o.phases.size()); };
  return key(b) < key(a) ? b : a;
}

PlacementOrder order_one_call_per_node(const std::vector<std::vector<int>>& preds, const std::vector<Placement>& side) {
  auto succs = successors(preds);
  size_t n = preds.size();
  std::vector<size_t> missing(n);
  std::set<int> ready;
  for (size_t i = 0; i < n; ++i)
    if (!(missing[i] = preds[i].size())) ready.insert(static_cast<int>(i));
  PlacementOrder out;
  while (!ready.empty()) {
    int v = *ready.begin();
    ready.erase(ready.begin());
    out.order.push_back(v);
    Placement p = side[static_cast<size_t>(v)];
    if (p == Placement::Host && !out.phases.empty() && out.phases.back().first == Placement::Host)
      out.phases.back().second.push_back(v);
    else
      out.phases.push_back({p, {v}});
    for (int s : succs[static_cast<size_t>(v)])
      if (--missing[static_cast<size_t>(s)] == 0) ready.insert(s);
  }
  DSPC_CHECK(out.order.size() == n, "group-device-calls: the graph has a cycle");
  return out;
}

namespace {

// The device function of one group. A constant tensor is no parameter: the function binds its
// buffer to the module's read-only copy, `constant_data(constants[t])`.
PrimFunc group_function(const Graph& g, GraphStep& step, const std::set<std::string>& taken,
                        const std::map<int, int>& constants) {
  std::set<int> inside(step.nodes.begin(), step.nodes.end());
  std::vector<int> produced;
  std::set<int> produced_set, inputs_set;
  for (int n : step.nodes) {
    for (int t : g.nodes[static_cast<size_t>(n)].inputs)
      if (!produced_set.count(t) && !constants.count(t) && inputs_set.insert(t).second) step.inputs.push_back(t);
    for (int t : g.nodes[static_cast<size_t>(n)].outputs)
      if (produced_set.insert(t).second) produced.push_back(t);
  }
  std::vector<int> internal;
  for (int t : produced) {
    bool leaves = std::count(g.outputs.begin(), g.outputs.end(), t) > 0;
    for (size_t n = 0; n < g.nodes.size() && !leaves; ++n)
      if (!inside.count(static_cast<int>(n)))
        leaves = std::count(g.nodes[n].inputs.begin(), g.nodes[n].inputs.end(), t) > 0;
    (leaves ? step.outputs : internal).push_back(t);
  }

  std::vector<Buffer> buffers(g.tensors.size());
  auto buffer = [&](int t) {
    const GraphTensor& gt = g.tensors[static_cast<size_t>(t)];
    if (!buffers[static_cast<size_t>(t)])
      buffers[static_cast<size_t>(t)] = BufferNode::make(gt.name, gt.dtype, gt.shape, StorageScope::Global, gt.span);
    return buffers[static_cast<size_t>(t)];
  };
  PrimFunc f;
  f.name = step.func;
  f.span = g.span;
  for (int t : step.inputs) f.inputs.push_back(buffer(t));
  for (int t : step.outputs) f.outputs.push_back(buffer(t));

  std::string status_name = "status";
  auto name_taken = [&](const std::string& s) {
    for (const GraphTensor& t : g.tensors)
      if (t.name == s) return true;
    return taken.count(s) > 0;
  };
  while (name_taken(status_name)) status_name += "_";
  std::vector<std::string> names(taken.begin(), taken.end());
  for (const GraphTensor& t : g.tensors) names.push_back(t.name);
  names.push_back(status_name);
  f.ctx = VarNode::make(context_param_name(names), DataType::handle());
  Buffer status = BufferNode::make(status_name, DataType::i32(), {1});
  Expr status_value = Load::make(status, {make_i32(0)});

  std::vector<Stmt> calls;
  for (int n : step.nodes) {
    const GraphNode& node = g.nodes[static_cast<size_t>(n)];
    std::vector<Expr> args;
    for (int t : node.inputs) args.push_back(var_expr(buffer(t)->data));
    for (int t : node.outputs) args.push_back(var_expr(buffer(t)->data));
    args.push_back(var_expr(f.ctx));  // the group's own context, handed down
    Stmt call = Store::make(status, {make_i32(0)}, Call::make(CallKind::Func, node.func, args, node.span), node.span);
    // After the first call, a call runs only while every call before it succeeded.
    calls.push_back(calls.empty() ? call
                                  : IfThenElse::make(Binary::make(BinaryOp::EQ, status_value, make_i32(0)), call));
  }
  Stmt body = Seq::make(calls);
  for (auto it = internal.rbegin(); it != internal.rend(); ++it) body = Allocate::make(buffer(*it), body, g.tensors[static_cast<size_t>(*it)].span);
  std::set<int> bound;
  for (auto n = step.nodes.rbegin(); n != step.nodes.rend(); ++n)
    for (int t : g.nodes[static_cast<size_t>(*n)].inputs)
      if (auto c = constants.find(t); c != constants.end() && bound.insert(t).second)
        body = LetStmt::make(buffer(t)->data, Call::make(CallKind::Intrinsic, kConstantData, {make_i32(c->second)}), body);
  Stmt fail = IfThenElse::make(Binary::make(BinaryOp::NE, status_value, make_i32(0)),
                               Evaluate::make(Call::make(CallKind::Intrinsic, kThrowLastError, {})));
  f.body = Allocate::make(status, Seq::make({body, fail}));
  return f;
}

}  // namespace

Module group_device_calls(const Module& m, const TensorProgram& program, const LowerOptions& options) {
  Module out = m;
  std::set<std::string> taken;
  for (const PrimFunc& f : m.funcs) taken.insert(f.name);
  for (const Graph& g : program.graphs) {
    std::map<int, int> constants;  // tensor -> its index in out.constants
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      const GraphTensor& gt = g.tensors[t];
      if (!gt.is_constant()) continue;
      constants[static_cast<int>(t)] = static_cast<int>(out.constants.size());
      out.constants.push_back({gt.name, gt.dtype, gt.shape, gt.constant});
    }
    std::vector<Placement> side;
    for (const GraphNode& n : g.nodes) side.push_back(n.placement);
    auto preds = g.predecessors();
    PlacementOrder order = options.group_device_calls ? order_by_placement(preds, side)
                                                      : order_one_call_per_node(preds, side);
    GraphPlan plan;
    plan.graph = g.name;
    plan.order = order.order;
    plan.grouped = options.group_device_calls;
    for (const GraphTensor& t : g.tensors) plan.tensor_names.push_back(t.name);
    for (const GraphNode& n : g.nodes) {
      std::string text = n.placement == Placement::Host ? "@host " : "";
      for (size_t i = 0; i < n.outputs.size(); ++i) text += (i ? ", " : "") + g.tensors[static_cast<size_t>(n.outputs[i])].name;
      text += " = " + n.func + "(";
      for (size_t i = 0; i < n.inputs.size(); ++i) text += (i ? ", " : "") + g.tensors[static_cast<size_t>(n.inputs[i])].name;
      plan.node_text.push_back(text + ")");
    }
    int k = 0;
    for (auto& [p, nodes] : order.phases) {
      GraphStep step;
      step.side = p;
      step.nodes = nodes;
      if (p == Placement::Device) {
        step.func = "__dspc_group_" + g.name + "_" + std::to_string(k++);
        while (taken.count(step.func)) step.func += "_";  // a user's func took the name
        taken.insert(step.func);
        out.funcs.push_back(group_function(g, step, taken, constants));
      }
      plan.steps.push_back(std::move(step));
    }
    out.graph_plans.push_back(std::move(plan));
  }
  return out;
}

}  // namespace dspc
