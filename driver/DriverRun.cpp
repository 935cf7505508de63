// `dspc run`: compile, pick the func or graph, and run it through RunSteps.cpp's steps. A func
// runs as an executable with the runner on qemu-hexagon (or natively for the host), which reads
// and writes .npy files, or with --session as a shared module in a dspc::Session (a graph of one
// device call, DriverGraph.cpp); a graph runs in sessions.
#include <iostream>
#include <set>
#include <sstream>

#include "codegen/Codegen.h"
#include "compiler/interp/Npy.h"
#include "compiler/ir/IRVisitor.h"
#include "driver/Compile.h"
#include "driver/Driver.h"
#include "driver/DriverGraph.h"
#include "driver/Process.h"
#include "driver/Progress.h"
#include "driver/RunSteps.h"

namespace dspc {

namespace {

// What --func names among the file's funcs. Null, with the report finished (exit code 1), when
// nothing runs.
const EntryInfo* pick_func(const DriverOptions& o, const Compilation& c, const SourceFile& source,
                           const std::vector<EntryInfo>& entries, Diagnostics& diag, RunReport& report) {
  if (c.program)
    for (const GenericFuncInfo& g : c.program->generics)
      if (g.name == o.func) {
        diag.error(g.span, uninstantiated_message(g));
        report.finish("error", "'" + g.name + "' is a generic func");
        return nullptr;
      }
  std::string names, graphs;
  const EntryInfo* entry = nullptr;
  for (const auto& e : entries) {
    names += (names.empty() ? "" : ", ") + e.name;
    if (e.name == o.func) entry = &e;
  }
  // The file's graphs. None of them was picked: without --func there are several (a lone one
  // would have run), and with it --func names no graph.
  if (c.program)
    for (const Graph& g : c.program->graphs) graphs += (graphs.empty() ? "" : ", ") + g.name;
  std::string why;
  if (o.func.empty() && !graphs.empty())
    why = source.path + " has several graphs (" + graphs + ")" +
          (names.empty() ? "" : " and functions (" + names + ")") + ": choose one with --func";
  else if (o.func.empty() && entries.size() != 1)
    why = source.path + " has several functions (" + names + "): choose one with --func";
  else if (o.func.empty())
    entry = &entries[0];
  else if (!entry)
    why = "no function " + std::string(graphs.empty() ? "" : "or graph ") + "'" + o.func + "' in " + source.path +
          " (functions: " + names + (graphs.empty() ? "" : "; graphs: " + graphs) + ")";
  if (!why.empty()) report.fail(why);
  return entry;
}

// What running func `name` needs of `c`: that func, the funcs it calls (call_func, at any
// depth), and their entries. The pipeline has lowered and checked the whole file; only the
// machine code of the rest is left out, so a file of many funcs runs each without compiling
// them all. Constants stay (LLVM drops those no kept function reads).
Compilation only_func(const Compilation& c, const std::string& name) {
  struct Callees : IRVisitor {
    std::vector<std::string> names;
    void visit_Call(const Call* op) override {
      if (op->call_kind == CallKind::Func) names.push_back(op->name);
      IRVisitor::visit_Call(op);
    }
  };
  std::set<std::string> keep{name};
  std::vector<std::string> todo{name};
  while (!todo.empty()) {
    std::string n = todo.back();
    todo.pop_back();
    for (const PrimFunc& f : c.module.funcs) {
      if (f.name != n) continue;
      Callees callees;
      callees.visit(f.body);
      for (const std::string& callee : callees.names)
        if (keep.insert(callee).second) todo.push_back(callee);
    }
  }
  Compilation out;
  out.module.graph_plans = c.module.graph_plans;
  out.module.constants = c.module.constants;
  for (const PrimFunc& f : c.module.funcs)
    if (keep.count(f.name)) out.module.funcs.push_back(f);
  for (const PackedFunc& f : c.module.packed)
    if (keep.count(f.kernel)) out.module.packed.push_back(f);
  if (c.program) {
    out.program.emplace();
    for (const TensorFunc& f : c.program->funcs)
      if (keep.count(f.name)) out.program->funcs.push_back(f);
  }
  return out;
}

RunSignature func_signature(const EntryInfo& entry) {
  RunSignature sig;
  sig.kind = "function";
  sig.name = entry.name;
  for (const auto& p : entry.params) (p.is_output ? sig.outputs : sig.inputs).push_back({p.name, p.dtype, p.shape});
  return sig;
}

// The runner's own "error: ..." lines, folded into one message; the rest of what the program
// said (qemu's messages) goes to stderr as it is.
std::string runner_message(const std::string& err_text) {
  std::istringstream in(err_text);
  std::string line, message;
  while (std::getline(in, line)) {
    if (line.rfind("error: ", 0) == 0) message += (message.empty() ? "" : "; ") + line.substr(7);
    else std::cerr << line << "\n";
  }
  return message;
}

// The runner: inputs as .npy files in `dir`, the program on the simulator, outputs read back.
bool execute_runner(const DriverOptions& o, const RunSignature& sig, const std::string& exe, const std::string& dir,
                    const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, std::string& error) {
  std::vector<std::string> cmd;
  if (o.lower.target.arch == Arch::hexagon) cmd = {o.qemu, "-cpu", DSPC_QEMU_CPU};
  cmd.push_back(exe);
  cmd.push_back("--func=" + sig.name);
  if (o.sim_vtcm_capacity >= 0) cmd.push_back("--vtcm-capacity=" + std::to_string(o.sim_vtcm_capacity));
  for (size_t k = 0; k < sig.inputs.size(); ++k) {
    std::string path = dir + "/" + sig.inputs[k].name + ".npy";
    if (!write_npy(path, inputs[k], error)) return false;
    cmd.push_back(sig.inputs[k].name + "=" + path);
  }
  for (const RunTensor& p : sig.outputs) cmd.push_back(p.name + "=" + dir + "/" + p.name + ".npy");
  std::string err_text;
  int status = run_process(cmd, o.timeout_seconds, err_text, error, /*capture_stdout=*/true);
  std::string said = runner_message(err_text);
  if (status < 0) return error = sig.name + ": " + error, false;
  if (status != 0) {
    error = sig.name + " failed on " + o.lower.target.name + (said.empty() ? "" : ": " + said) + " (exit code " +
            std::to_string(status) + ")";
    return false;
  }
  for (const RunTensor& p : sig.outputs) {
    Tensor t;
    if (!read_npy(dir + "/" + p.name + ".npy", t, error)) return error = "reading output " + p.name + ": " + error, false;
    outputs.push_back(std::move(t));
  }
  return true;
}

int run_func(const DriverOptions& o, const Compilation& c, const EntryInfo& entry, RunReport& report) {
  report.json()["function"] = entry.name;
  RunSignature sig = func_signature(entry);
  std::string module;  // the executable or shared module, once built
  RunHooks hooks;
  hooks.mode = o.session ? RunMode::Session : RunMode::Runner;
  hooks.build = [&](const std::string& dir) {
    module = dir + "/" + entry.name + (o.session ? ".so" : ".elf");
    Diagnostics diag(std::cerr);
    EmitTimings times;
    Compilation only = only_func(c, entry.name);
    bool built = o.session ? emit_shared(o, only, module, diag, &times) : emit_executable(o, only, module, diag, &times);
    report.time("codegen", times.codegen_ms);
    report.time("link", times.link_ms);
    if (built) return -1;
    return report.fail_after_diagnostics("code generation or linking failed (diagnostics on standard error)",
                                         failure_status(diag));
  };
  hooks.execute = [&](const std::string& dir, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                      std::string& error) {
    if (!o.session) return execute_runner(o, sig, module, dir, inputs, outputs, error);
    // A graph of one device call: the func's checked entry, on every tensor.
    GraphRun run = session_run(o, "--session", module);
    std::vector<int> all;
    for (const auto* side : {&sig.inputs, &sig.outputs})
      for (const RunTensor& t : *side) {
        (side == &sig.inputs ? run.inputs : run.outputs).push_back(int(run.tensors.size()));
        all.push_back(int(run.tensors.size()));
        run.tensors.push_back(session_tensor(t.name, t.dtype, t.shape));
      }
    run.steps.push_back(GraphRunStep{true, {GraphRunCall{entry.name, all, sig.inputs.size()}}});
    GraphRunStats stats;
    return execute_in_session(run, sig, inputs, outputs, stats, error);
  };
  hooks.reference = [&](const std::vector<Tensor>& inputs, std::vector<Tensor>& want, std::string& error) {
    for (const auto& f : c.program->funcs)
      if (f.name == entry.name)
        return interpret(f, inputs, want, error, [](const std::string& stage, size_t k, size_t n) {
          progress_detail("stage " + stage + ", " + std::to_string(k) + " of " + std::to_string(n));
        });
    return error = "no func " + entry.name, false;
  };
  return run_signature(o, sig, hooks, report);
}

}  // namespace

int run_command(const DriverOptions& o) {
  RunReport report(o);
  SourceFile source;
  Diagnostics diag(std::cerr);
  auto t0 = std::chrono::steady_clock::now();
  auto c = compile_input(o, source, diag);
  report.time("compile", ms_since(t0));
  if (!c) return report.fail_after_diagnostics("compilation failed (diagnostics on standard error)", failure_status(diag));

  if (const Graph* g = pick_graph(*c, o.func)) return run_graph(o, *c, *g, source, report);
  auto entries = c->program ? entries_of(*c->program) : entries_of(c->module);
  const EntryInfo* entry = pick_func(o, *c, source, entries, diag, report);
  if (!entry) return 1;
  // Only once the func is chosen: a file with several graphs and no --func is told that first.
  if (o.repeat != 1) return report.fail("--repeat goes with a graph ('" + entry->name + "' is a func)");
  if (o.lazy_calls) return report.fail("--lazy-calls goes with a graph ('" + entry->name + "' is a func)");
  if (o.profile) return report.fail("--profile goes with a graph ('" + entry->name + "' is a func)");
  if (o.start_timeout_given && !o.session)  // a linked runner starts no device server
    return report.fail("--start-timeout goes with --session or a graph ('" + entry->name +
                       "' is a func, run without --session)");
  report.json()["function"] = entry->name;
  if (o.check && !c->program)
    return report.fail("--check needs .dsp input (the reference interpreter reads tensor programs)");
  return run_func(o, *c, *entry, report);
}

}  // namespace dspc
