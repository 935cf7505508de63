// group-device-calls: the greedy order has the fewest device groups of all topological orders
// (brute force over random small DAGs with fixed seeds, and the diamond of seed 002), and the
// group functions take and give exactly the tensors that cross a group's boundary.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <set>
#include <sstream>

#include "compiler/frontend/Parser.h"
#include "compiler/ir/Printer.h"
#include "passes/GroupDeviceCalls.h"
#include "passes/ScheduleOps.h"

namespace dspc {
namespace {

using Preds = std::vector<std::vector<int>>;

int device_runs(const std::vector<int>& order, const std::vector<Placement>& side) {
  int runs = 0;
  for (size_t i = 0; i < order.size(); ++i)
    if (side[static_cast<size_t>(order[i])] == Placement::Device &&
        (i == 0 || side[static_cast<size_t>(order[i - 1])] != Placement::Device))
      ++runs;
  return runs;
}

// The fewest device runs over every topological order (and how many orders there were).
int brute_force(const Preds& preds, const std::vector<Placement>& side, long& orders) {
  size_t n = preds.size();
  std::vector<bool> done(n, false);
  std::vector<int> order;
  int best = 1 << 30;
  std::function<void()> rec = [&] {
    if (order.size() == n) {
      ++orders;
      best = std::min(best, device_runs(order, side));
      return;
    }
    for (size_t v = 0; v < n; ++v) {
      if (done[v]) continue;
      bool ready = true;
      for (int p : preds[v]) ready = ready && done[static_cast<size_t>(p)];
      if (!ready) continue;
      done[v] = true;
      order.push_back(static_cast<int>(v));
      rec();
      order.pop_back();
      done[v] = false;
    }
  };
  rec();
  return best;
}

// `o` is a topological order of every node, and its phases split it into alternating runs.
void expect_valid(const PlacementOrder& o, const Preds& preds, const std::vector<Placement>& side,
                  bool alternating = true) {
  ASSERT_EQ(o.order.size(), preds.size());
  std::vector<int> pos(preds.size(), -1);
  for (size_t i = 0; i < o.order.size(); ++i) {
    ASSERT_EQ(pos[static_cast<size_t>(o.order[i])], -1) << "node twice";
    pos[static_cast<size_t>(o.order[i])] = static_cast<int>(i);
  }
  for (size_t v = 0; v < preds.size(); ++v)
    for (int p : preds[v]) EXPECT_LT(pos[static_cast<size_t>(p)], pos[v]);
  std::vector<int> flat;
  for (size_t k = 0; k < o.phases.size(); ++k) {
    EXPECT_FALSE(o.phases[k].second.empty());
    if (k && alternating) EXPECT_NE(o.phases[k].first, o.phases[k - 1].first);
    for (int v : o.phases[k].second) {
      EXPECT_EQ(side[static_cast<size_t>(v)], o.phases[k].first);
      flat.push_back(v);
    }
  }
  EXPECT_EQ(flat, o.order);
  if (alternating) EXPECT_EQ(o.device_phases(), device_runs(o.order, side));
}

TEST(GroupDeviceCalls, GreedyMatchesBruteForceOnRandomDags) {
  int checked = 0, improved = 0;
  for (uint32_t seed = 1; seed <= 600; ++seed) {
    std::mt19937 rng(seed);
    int n = 1 + static_cast<int>(rng() % 8);
    double density = (rng() % 100) / 100.0;
    Preds preds(static_cast<size_t>(n));
    std::vector<Placement> side;
    for (int v = 0; v < n; ++v) {
      side.push_back(rng() % 2 ? Placement::Device : Placement::Host);
      for (int u = 0; u < v; ++u)
        if ((rng() % 1000) / 1000.0 < density) preds[static_cast<size_t>(v)].push_back(u);
    }
    long orders = 0;
    int best = brute_force(preds, side, orders);
    PlacementOrder o = order_by_placement(preds, side);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(n) + " nodes");
    expect_valid(o, preds, side);
    EXPECT_EQ(o.device_phases(), best);
    PlacementOrder base = order_one_call_per_node(preds, side);
    expect_valid(base, preds, side, false);
    int devices = 0;
    for (Placement p : side) devices += p == Placement::Device;
    EXPECT_EQ(base.device_phases(), devices);
    improved += best < device_runs(base.order, side);
    ++checked;
  }
  EXPECT_EQ(checked, 600);
  EXPECT_GT(improved, 50);  // the DAGs are not all trivial: grouping beats source order often
}

// Seed 002: f0 and f2 on the DSP, f1 and f3 on the host. Source order (f0, f1, f2, f3) makes
// two device calls; f0, f2 then f1, f3 makes one.
TEST(GroupDeviceCalls, SeedDiamond) {
  Preds preds = {{}, {0}, {0}, {1, 2}};
  std::vector<Placement> side = {Placement::Device, Placement::Host, Placement::Device, Placement::Host};
  PlacementOrder o = order_by_placement(preds, side);
  expect_valid(o, preds, side);
  EXPECT_EQ(o.order, (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(o.device_phases(), 1);
  EXPECT_EQ(device_runs({0, 1, 2, 3}, side), 2);
}

// The greedy start matters: starting on the host side here needs two device groups.
TEST(GroupDeviceCalls, TriesBothStartingSides) {
  // d0 -> h1 -> d3, and h2 alone: from the host side, h1 is not ready until d0 has run.
  Preds preds = {{}, {0}, {}, {1}};
  std::vector<Placement> side = {Placement::Device, Placement::Host, Placement::Host, Placement::Device};
  long orders = 0;
  EXPECT_EQ(order_by_placement(preds, side).device_phases(), brute_force(preds, side, orders));
}

TEST(GroupDeviceCalls, GroupFunctionsKeepInternalTensorsInside) {
  const char* text = R"(
func inc(x: u8[256]) -> (y: u8[256]) {
  y[i] = x[i] + 1
}
func add(a: u8[256], b: u8[256]) -> (y: u8[256]) {
  y[i] = a[i] + b[i]
}
graph g(x: u8[256]) -> (out: u8[256], keep: u8[256]) {
  a = inc(x)
  b = @host inc(a)
  c = inc(a)
  d = inc(c)
  keep = inc(d)
  out = add(b, d)
}
)";
  SourceFile src{"g.dsp", text};
  std::ostringstream errors;
  Diagnostics diag(errors, &src);
  auto p = parse_dsp(src, diag);
  ASSERT_TRUE(p) << errors.str();
  LowerOptions o;
  Module m = group_device_calls(schedule_ops(*p, o), *p, o);
  ASSERT_EQ(m.graph_plans.size(), 1u);
  const GraphPlan& plan = m.graph_plans[0];
  EXPECT_EQ(plan.device_groups(), 2);
  std::string printed = print_graph_plan(plan);
  // a, c, d and keep in one group; d leaves it (add reads it in the next group), a leaves it
  // for the host, c stays inside.
  EXPECT_NE(printed.find("device __dspc_group_g_0(x) -> (a, d, keep): a = inc(x); c = inc(a); d = inc(c); keep = inc(d)"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("host: @host b = inc(a)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("device __dspc_group_g_1(b, d) -> (out): out = add(b, d)"), std::string::npos) << printed;
  std::string tir = print_module(m);
  EXPECT_NE(tir.find("allocate c: u8[256]"), std::string::npos) << tir;

  o.group_device_calls = false;
  Module base = group_device_calls(schedule_ops(*p, o), *p, o);
  EXPECT_EQ(base.graph_plans[0].device_groups(), 5);
}

}  // namespace
}  // namespace dspc
