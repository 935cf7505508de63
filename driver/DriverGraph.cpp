// `dspc run` on a graph:
//  1. compile the device module (--emit=so for the target: kernels and group functions) and, if
//     a call runs @host, the same program for the host target;
//  2. describe the run (tensors, steps: one call of a group function per device group, host
//     kernels one by one) and run it in sessions (DriverSession.cpp), --repeat times;
//  3. print or save the results, check them against the reference interpreter run node by node
//     in the plan's order, and report the device round trips per inference.
#include "driver/DriverGraph.h"

#include <cstdio>
#include <iostream>
#include <set>

#include "compiler/interp/Npy.h"
#include "compiler/ir/Printer.h"
#include "driver/DriverSession.h"

namespace dspc {

namespace {

int fail(const std::string& msg) {
  std::cerr << "dspc: error: " << msg << "\n";
  return 1;
}

const TensorFunc* find_func(const TensorProgram& p, const std::string& name) {
  for (const TensorFunc& f : p.funcs)
    if (f.name == name) return &f;
  return nullptr;
}

std::optional<int> runtime_code(DataType t) {
  if (t.is_bool()) return 3;
  if (t.is_float()) return 2;
  if (t.is_uint()) return 1;
  if (t.is_int()) return 0;
  return std::nullopt;
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

int run_graph(const DriverOptions& o, const Compilation& c, const Graph& g, const SourceFile& source,
              nlohmann::ordered_json& j, const std::function<void(const std::string&, const std::string&)>& finish) {
  using Json = nlohmann::ordered_json;
  auto error_exit = [&](const std::string& msg) {
    fail(msg);
    finish("error", msg);
    return 1;
  };
  j["function"] = g.name;
  j["mode"] = "graph";
  Json& times = j["timings_ms"];
  const GraphPlan* plan = nullptr;
  for (const GraphPlan& p : c.module.graph_plans)
    if (p.graph == g.name) plan = &p;
  if (!plan) return error_exit("internal: no plan for graph " + g.name);

  // --input names an input, --output a result, each at most once.
  std::set<std::string> ins, outs;
  for (int t : g.inputs) ins.insert(g.tensors[size_t(t)].name);
  for (int t : g.outputs) outs.insert(g.tensors[size_t(t)].name);
  for (bool in : {true, false}) {
    const char* opt = in ? "--input" : "--output";
    std::set<std::string> seen;
    for (const auto& b : in ? o.inputs : o.outputs) {
      if (!(in ? ins : outs).count(b.first))
        return error_exit(std::string(opt) + " " + b.first + "=" + b.second + ": graph " + g.name + " has no " +
                          (in ? "input" : "result") + " '" + b.first + "'");
      if (!seen.insert(b.first).second) return error_exit(std::string(opt) + " " + b.first + " is given more than once");
    }
  }

  std::string error;
  std::string tmp = make_temp_dir(o.keep_temps, error);
  if (tmp.empty()) return error_exit(error);
  struct Cleanup {
    std::string path;
    ~Cleanup() { remove_temp_dir(path); }
  } cleanup{o.keep_temps ? "" : tmp};
  if (o.keep_temps) std::cerr << "dspc: keeping temporary files in " << tmp << "\n";

  // 1. The modules.
  Diagnostics diag(std::cerr);
  GraphRun run;
  run.device_module = tmp + "/" + g.name + ".so";
  EmitTimings emit_times;
  if (!emit_shared(o, c, run.device_module, diag, &emit_times)) {
    finish("error", "code generation or linking failed (diagnostics on standard error)");
    return failure_status(diag);
  }
  times["codegen"] = emit_times.codegen_ms;
  times["link"] = emit_times.link_ms;
  bool any_host = false;
  for (const GraphStep& s : plan->steps) any_host |= s.side == Placement::Host;
  if (any_host) {
    DriverOptions ho = o;
    ho.lower.target = *lookup_target("host");
    ho.lower.print_after.clear();
    ho.lower.print_after_all = false;
    LowerOptions lo = ho.lower;
    lo.trace = nullptr;
    auto hc = compile_source(source, lo, diag, o.instances, o.import_dirs);
    if (!hc) {
      finish("error", "compiling the @host calls for the host failed (diagnostics on standard error)");
      return failure_status(diag);
    }
    run.host_module = tmp + "/" + g.name + ".host.so";
    if (!emit_shared(ho, *hc, run.host_module, diag)) {
      finish("error", "code generation or linking for the host failed (diagnostics on standard error)");
      return failure_status(diag);
    }
  }

  // 2. Tensors, inputs and steps.
  for (const GraphTensor& t : g.tensors) {
    GraphRunTensor rt;
    rt.name = t.name;
    rt.type_code = uint8_t(*runtime_code(t.dtype));
    rt.bits = uint8_t(t.dtype.bytes() * 8);  // bool is stored in a byte (DType's bits are storage)
    rt.shape = t.shape;
    rt.nbytes = uint64_t(t.num_bytes());
    run.tensors.push_back(rt);
  }
  run.inputs = g.inputs;
  run.outputs = g.outputs;
  std::vector<Tensor> inputs;
  uint64_t index = 0;
  for (int id : g.inputs) {
    const GraphTensor& gt = g.tensors[size_t(id)];
    const std::string* given = nullptr;
    for (const auto& b : o.inputs)
      if (b.first == gt.name) given = &b.second;
    Tensor t;
    if (given) {
      if (!read_npy(*given, t, error)) return error_exit(*given + ": " + error);
      if (t.dtype != gt.dtype || t.shape != gt.shape)
        return error_exit(*given + " holds " + t.dtype.str() + shape_str(t.shape) + " but " + gt.name + " is " +
                          gt.dtype.str() + shape_str(gt.shape));
    } else if (o.random_inputs) {
      t = random_tensor(gt.dtype, gt.shape, o.seed * 1000003 + index);
    } else {
      return error_exit("no value for input " + gt.name + ": give --input " + gt.name + "=FILE.npy or --random-inputs");
    }
    ++index;
    run.input_bytes.push_back(t.data);
    inputs.push_back(std::move(t));
  }
  for (const GraphStep& s : plan->steps) {
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
    run.steps.push_back(step);
  }
  run.target = o.lower.target.is_hexagon ? o.lower.target.name : "host";
  run.qemu = o.qemu;
  run.timeout_seconds = o.timeout_seconds;
  run.vtcm_capacity = o.sim_vtcm_capacity;
  run.iterations = o.repeat;
  run.lazy_calls = o.lazy_calls;

  // 3. Run.
  std::vector<std::vector<uint8_t>> bytes;
  GraphRunStats stats;
  auto t0 = std::chrono::steady_clock::now();
  bool ran = run_graph_in_session(run, bytes, stats, error);
  times["run"] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!ran) return error_exit(g.name + ": " + error);
  double per_inference_rt = double(stats.inference_round_trips) / run.iterations;
  double per_inference_ms = stats.inference_ms / run.iterations;
  char ms_text[32];
  std::snprintf(ms_text, sizeof ms_text, "%.3f", per_inference_ms);
  std::cerr << "graph " << g.name << ": " << plan->device_groups() << " device group"
            << (plan->device_groups() == 1 ? "" : "s") << (plan->grouped ? "" : " (grouping off)") << (o.lazy_calls ? " (lazy calls)" : "") << ", "
            << per_inference_rt << " device round trip" << (per_inference_rt == 1 ? "" : "s")
            << " per inference (" << stats.setup_round_trips << " to set up, " << stats.teardown_round_trips
            << " to close), " << stats.crossings << " host<->device copies, " << run.iterations << " inference"
            << (run.iterations == 1 ? "" : "s") << " of " << ms_text << " ms\n";
  Json gj;
  gj["name"] = g.name;
  gj["grouped"] = plan->grouped;
  gj["lazy_calls"] = o.lazy_calls;
  gj["device_groups"] = plan->device_groups();
  gj["device_calls_per_inference"] = stats.device_calls;
  gj["host_calls_per_inference"] = stats.host_calls;
  gj["inferences"] = run.iterations;
  Json per_inference = stats.inference_round_trips % uint64_t(run.iterations) == 0
                           ? Json(stats.inference_round_trips / uint64_t(run.iterations))
                           : Json(per_inference_rt);
  gj["round_trips"] = Json{{"per_inference", per_inference},
                           {"inferences", stats.inference_round_trips},
                           {"setup", stats.setup_round_trips},
                           {"teardown", stats.teardown_round_trips}};
  gj["crossings_per_inference"] = Json{{"copies", stats.crossings}, {"bytes", stats.crossing_bytes}};
  gj["inference_ms"] = per_inference_ms;
  j["graph"] = gj;

  std::vector<Tensor> outputs;
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const GraphTensor& gt = g.tensors[size_t(g.outputs[k])];
    Tensor t = Tensor::zeros(gt.dtype, gt.shape);
    t.data = std::move(bytes[k]);
    const std::string* dest = nullptr;
    for (const auto& b : o.outputs)
      if (b.first == gt.name) dest = &b.second;
    if (dest) {
      if (!write_npy(*dest, t, error)) return error_exit(error);
    } else if (!o.json) {
      std::cout << format_tensor(gt.name, t) << "\n";
    }
    if (o.json) {
      Json out{{"name", gt.name}, {"dtype", t.dtype.str()}, {"shape", t.shape}, {"elements", t.num_elements()},
               {"file", dest ? Json(*dest) : Json(nullptr)}};
      if (t.num_elements() <= o.json_max_values) {
        Json values = Json::array();
        for (int64_t i = 0; i < t.num_elements(); ++i) values.push_back(tensor_element_json(t, i));
        out["values"] = values;
      }
      j["outputs"].push_back(out);
    }
    outputs.push_back(std::move(t));
  }
  if (!o.check) {
    finish("ok", "");
    return 0;
  }

  // The reference: every node through the interpreter, in the plan's order.
  t0 = std::chrono::steady_clock::now();
  std::vector<Tensor> values(g.tensors.size());
  for (size_t k = 0; k < g.inputs.size(); ++k) values[size_t(g.inputs[k])] = inputs[k];
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (g.tensors[t].is_constant()) values[t] = Tensor{g.tensors[t].dtype, g.tensors[t].shape, *g.tensors[t].constant};
  for (int n : plan->order) {
    const GraphNode& node = g.nodes[size_t(n)];
    std::vector<Tensor> args, results;
    for (int t : node.inputs) args.push_back(values[size_t(t)]);
    if (!interpret(*find_func(*c.program, node.func), args, results, error))
      return error_exit("reference interpreter: " + node.func + ": " + error);
    for (size_t k = 0; k < node.outputs.size(); ++k) values[size_t(node.outputs[k])] = std::move(results[k]);
  }
  times["check"] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  int64_t bad = 0;
  Json check{{"passed", false}, {"outputs", Json::array()}};
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const std::string& name = g.tensors[size_t(g.outputs[k])].name;
    const Tensor& want = values[size_t(g.outputs[k])];
    int64_t b = compare_tensors(name, outputs[k], want, std::cerr);
    if (b) std::cerr << "check: " << name << ": " << b << " of " << want.num_elements() << " elements differ\n";
    else std::cerr << "check: " << name << " matches the reference interpreter (" << want.num_elements() << " elements)\n";
    check["outputs"].push_back(Json{{"name", name}, {"mismatches", b}, {"elements", want.num_elements()}});
    bad += b;
  }
  check["passed"] = bad == 0;
  j["check"] = check;
  finish(bad ? "mismatch" : "ok", "");
  return bad ? 1 : 0;
}

}  // namespace dspc
