// `dspc run` on a graph:
//  1. compile the device module (--emit=so for the target: kernels and group functions) and, if
//     a call runs @host, the same program for the host target;
//  2. describe the run (tensors, steps: one call of a group function per device group, host
//     kernels one by one) and run it in sessions (DriverSession.cpp), --repeat times;
//  3. print or save the results, check them against the reference interpreter run node by node
//     in the plan's order, and report the device round trips per inference.
// Steps 2's inputs and 3's printing and checking are RunSteps.cpp's, as for a func.
#include "driver/DriverGraph.h"

#include <cstdio>
#include <iostream>

#include "compiler/ir/Printer.h"
#include "driver/DriverProfile.h"
#include "driver/Progress.h"

namespace dspc {

namespace {

using Json = nlohmann::ordered_json;

const TensorFunc* find_func(const TensorProgram& p, const std::string& name) {
  for (const TensorFunc& f : p.funcs)
    if (f.name == name) return &f;
  return nullptr;
}

uint8_t runtime_code(DataType t) {
  if (t.is_bool()) return 3;
  if (t.is_float()) return 2;
  if (t.is_uint()) return 1;
  return 0;
}

RunSignature graph_signature(const Graph& g) {
  RunSignature sig;
  sig.kind = "graph";
  sig.name = g.name;
  for (int t : g.inputs) sig.inputs.push_back({g.tensors[size_t(t)].name, g.tensors[size_t(t)].dtype, g.tensors[size_t(t)].shape});
  for (int t : g.outputs)
    sig.outputs.push_back({g.tensors[size_t(t)].name, g.tensors[size_t(t)].dtype, g.tensors[size_t(t)].shape});
  for (const GraphTensor& t : g.tensors) sig.reference_extra_bytes += uint64_t(t.num_bytes());
  return sig;
}

// The plan's steps: a device group is one call of its group function, a run of host nodes one
// call per node.
std::vector<GraphRunStep> graph_steps(const Graph& g, const GraphPlan& plan) {
  std::vector<GraphRunStep> steps;
  for (const GraphStep& s : plan.steps) {
    GraphRunStep step;
    step.device = s.side == Placement::Device;
    if (step.device) {
      GraphRunCall call{s.func, s.inputs, s.inputs.size()};
      call.args.insert(call.args.end(), s.outputs.begin(), s.outputs.end());
      step.calls.push_back(call);
    } else {
      for (int n : s.nodes) {
        const GraphNode& node = g.nodes[size_t(n)];
        GraphRunCall call{node.func, node.inputs, node.inputs.size()};
        call.args.insert(call.args.end(), node.outputs.begin(), node.outputs.end());
        step.calls.push_back(call);
      }
    }
    steps.push_back(step);
  }
  return steps;
}

// Step 1: the device module and, for @host calls, the host one. -1 to go on, else the status.
int build_graph_modules(const DriverOptions& o, const Compilation& c, const SourceFile& source, bool any_host,
                        GraphRun& run, RunReport& report) {
  Diagnostics diag(std::cerr);
  EmitTimings emit_times;
  if (!emit_shared(o, c, run.device_module, diag, &emit_times))
    return report.fail_after_diagnostics("code generation or linking failed (diagnostics on standard error)",
                                         failure_status(diag));
  report.time("codegen", emit_times.codegen_ms);
  report.time("link", emit_times.link_ms);
  if (!any_host) return -1;
  DriverOptions ho = o;
  ho.lower.target = *lookup_target("host");
  LowerOptions lo = ho.lower;
  lo.print_after.clear();
  lo.print_after_all = false;
  lo.trace = nullptr;
  auto hc = compile_source(source, lo, diag, o.instances, o.import_dirs);
  if (!hc)
    return report.fail_after_diagnostics(
        "compiling the @host calls for the host failed (diagnostics on standard error)", failure_status(diag));
  run.host_module = run.device_module.substr(0, run.device_module.size() - 3) + ".host.so";
  if (!emit_shared(ho, *hc, run.host_module, diag))
    return report.fail_after_diagnostics(
        "code generation or linking for the host failed (diagnostics on standard error)", failure_status(diag));
  return -1;
}

// "graph g: 1 device group, 1 device round trip per inference (...)" on stderr, and the
// report's graph object.
void report_graph(const DriverOptions& o, const Graph& g, const GraphPlan& plan, const GraphRunStats& stats,
                  RunReport& report) {
  double per_inference_rt = double(stats.inference_round_trips) / o.repeat;
  double per_inference_ms = stats.inference_ms / o.repeat;
  char ms_text[32];
  std::snprintf(ms_text, sizeof ms_text, "%.3f", per_inference_ms);
  int groups = plan.device_groups();
  std::cerr << "graph " << g.name << ": " << groups << " device group" << (groups == 1 ? "" : "s")
            << (plan.grouped ? "" : " (grouping off)") << (o.lazy_calls ? " (lazy calls)" : "") << ", "
            << per_inference_rt << " device round trip" << (per_inference_rt == 1 ? "" : "s") << " per inference ("
            << stats.setup_round_trips << " to set up, " << stats.teardown_round_trips << " to close), "
            << stats.crossings << " host<->device copies, " << o.repeat << " inference" << (o.repeat == 1 ? "" : "s")
            << " of " << ms_text << " ms\n";
  Json per_inference = stats.inference_round_trips % uint64_t(o.repeat) == 0
                           ? Json(stats.inference_round_trips / uint64_t(o.repeat))
                           : Json(per_inference_rt);
  report.json()["graph"] = Json{
      {"name", g.name},
      {"grouped", plan.grouped},
      {"lazy_calls", o.lazy_calls},
      {"device_groups", groups},
      {"device_calls_per_inference", stats.device_calls},
      {"host_calls_per_inference", stats.host_calls},
      {"inferences", o.repeat},
      {"round_trips", Json{{"per_inference", per_inference},
                           {"inferences", stats.inference_round_trips},
                           {"setup", stats.setup_round_trips},
                           {"teardown", stats.teardown_round_trips}}},
      {"crossings_per_inference", Json{{"copies", stats.crossings}, {"bytes", stats.crossing_bytes}}},
      {"inference_ms", per_inference_ms}};
}

// The reference: every node through the interpreter, in the plan's order.
bool graph_reference(const TensorProgram& p, const Graph& g, const GraphPlan& plan, const std::vector<Tensor>& inputs,
                     std::vector<Tensor>& want, std::string& error) {
  std::vector<Tensor> values(g.tensors.size());
  for (size_t k = 0; k < g.inputs.size(); ++k) values[size_t(g.inputs[k])] = inputs[k];
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (g.tensors[t].is_constant()) values[t] = Tensor{g.tensors[t].dtype, g.tensors[t].shape, *g.tensors[t].constant};
  int done = 0;
  for (int n : plan.order) {
    const GraphNode& node = g.nodes[size_t(n)];
    std::string where = "node " + std::to_string(++done) + " of " + std::to_string(plan.order.size()) + ", " + node.func;
    std::vector<Tensor> args, results;
    for (int t : node.inputs) args.push_back(values[size_t(t)]);
    auto stage = [&](const std::string& name, size_t k, size_t n) {
      progress_detail(where + ": stage " + name + ", " + std::to_string(k) + " of " + std::to_string(n));
    };
    if (!interpret(*find_func(p, node.func), args, results, error, stage)) return error = node.func + ": " + error, false;
    for (size_t k = 0; k < node.outputs.size(); ++k) values[size_t(node.outputs[k])] = std::move(results[k]);
  }
  for (int t : g.outputs) want.push_back(values[size_t(t)]);
  return true;
}

}  // namespace

const Graph* pick_graph(const Compilation& c, const std::string& func) {
  if (!c.program) return nullptr;
  const auto& graphs = c.program->graphs;
  for (const Graph& g : graphs)
    if (g.name == func) return &g;
  if (func.empty() && graphs.size() == 1) return &graphs[0];
  return nullptr;
}

GraphRunTensor session_tensor(const std::string& name, DataType dtype, const std::vector<int64_t>& shape) {
  GraphRunTensor rt;
  rt.name = name;
  rt.type_code = runtime_code(dtype);
  rt.bits = uint8_t(dtype.bytes() * 8);  // bool is stored in a byte (DType's bits are storage)
  rt.shape = shape;
  rt.nbytes = uint64_t(dtype.bytes());
  for (int64_t e : shape) rt.nbytes *= uint64_t(e);
  return rt;
}

GraphRun session_run(const DriverOptions& o, const std::string& what, const std::string& device_module) {
  GraphRun run;
  run.what = what;
  run.device_module = device_module;
  run.target = o.lower.target.arch == Arch::hexagon ? o.lower.target.name : "host";
  run.qemu = o.qemu;
  run.timeout_seconds = o.timeout_seconds;
  run.start_timeout_seconds = o.start_timeout_seconds;
  run.vtcm_capacity = o.sim_vtcm_capacity;
  run.iterations = o.repeat;
  run.lazy_calls = o.lazy_calls;
  if (o.repeat > 1)
    run.on_inference = [](int done, int total) {
      progress_detail("inference " + std::to_string(done + (done < total)) + " of " + std::to_string(total));
    };
  return run;
}

bool execute_in_session(GraphRun& run, const RunSignature& sig, const std::vector<Tensor>& inputs,
                        std::vector<Tensor>& outputs, GraphRunStats& stats, std::string& error) {
  run.input_bytes.clear();
  for (const Tensor& t : inputs) run.input_bytes.push_back(t.data);
  std::vector<std::vector<uint8_t>> bytes;
  if (!run_graph_in_session(run, bytes, stats, error)) {
    if (error.rfind(sig.name + ": ", 0) != 0) error = sig.name + ": " + error;
    return false;
  }
  for (size_t k = 0; k < sig.outputs.size(); ++k) {
    Tensor t = Tensor::zeros(sig.outputs[k].dtype, sig.outputs[k].shape);
    if (k >= bytes.size() || bytes[k].size() != t.data.size()) {
      error = "the module's output " + sig.outputs[k].name + " does not match the signature " + t.dtype.str() +
              shape_str(t.shape);
      return false;
    }
    t.data = std::move(bytes[k]);
    outputs.push_back(std::move(t));
  }
  return true;
}

int run_graph(const DriverOptions& o, const Compilation& c, const Graph& g, const SourceFile& source,
              RunReport& report) {
  report.json()["function"] = g.name;
  report.json()["mode"] = "graph";
  const GraphPlan* plan = nullptr;
  for (const GraphPlan& p : c.module.graph_plans)
    if (p.graph == g.name) plan = &p;
  if (!plan) return report.fail("internal: no plan for graph " + g.name);
  RunSignature sig = graph_signature(g);
  GraphRun run = session_run(o, "running a graph", "");
  for (const GraphTensor& t : g.tensors) run.tensors.push_back(session_tensor(t.name, t.dtype, t.shape));
  run.inputs = g.inputs;
  run.outputs = g.outputs;
  run.steps = graph_steps(g, *plan);
  bool any_host = false, any_device = false;
  for (const GraphRunStep& s : run.steps) (s.device ? any_device : any_host) = true;

  RunHooks hooks;
  hooks.mode = RunMode::Graph;
  hooks.needs_qemu = any_device;
  hooks.build = [&](const std::string& dir) {
    std::string error;  // the profile's executable is linked before the graph's modules (DriverProfile.h)
    if (o.profile && !profile_graph(o, c, g, *plan, dir, report.json(), error)) return report.fail(error);
    run.device_module = dir + "/" + g.name + ".so";
    return build_graph_modules(o, c, source, any_host, run, report);
  };
  hooks.execute = [&](const std::string&, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                      std::string& error) {
    GraphRunStats stats;
    if (!execute_in_session(run, sig, inputs, outputs, stats, error)) return false;
    report_graph(o, g, *plan, stats, report);
    return true;
  };
  hooks.reference = [&](const std::vector<Tensor>& inputs, std::vector<Tensor>& want, std::string& error) {
    return graph_reference(*c.program, g, *plan, inputs, want, error);
  };
  return run_signature(o, sig, hooks, report);
}

}  // namespace dspc
