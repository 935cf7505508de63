#include "driver/Lower.h"

#include <algorithm>
#include <functional>
#include <new>

#include "compiler/ir/Check.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/Verifier.h"
#include "passes/PassRegistry.h"

namespace dspc {

namespace {

// Runs passes in order on one module. Each pass runs inside the boundary docs/design.md
// describes: whatever it throws (a failed DSPC_CHECK, an IRError from make(), bad_alloc) is
// reported as "dspc: internal error in pass NAME: ..." and nothing escapes. After a failure,
// or a user error reported by a pass, the remaining passes are skipped.
class Pipeline {
 public:
  Pipeline(const LowerOptions& o, Diagnostics& diag) : o_(o), diag_(diag) {}

  // Runs `pass` (on the current module) as the pass `name`, then prints and verifies.
  void run(const char* name, const std::function<Module()>& pass) {
    if (failed()) return;
    // The observer hears the end of the pass whatever way it ends.
    struct Observe {
      PassObserver* observer;
      const char* name;
      Observe(PassObserver* o, const char* n) : observer(o), name(n) { if (observer) observer->before_pass(name); }
      ~Observe() { if (observer) observer->after_pass(name); }
    };
    try {
      {
        Observe observe(o_.observer, name);
        m_ = pass();
      }
      if (o_.inject_failure_pass == name) inject(o_.inject_failure);
      if (diag_.has_errors()) return;  // a user error the pass reported itself
      trace(name);
    } catch (const std::bad_alloc&) {
      fail(name, "out of memory");
    } catch (const std::exception& e) {
      fail(name, e.what());
    }
  }
  void start(Module m) { m_ = std::move(m); }

  const Module& module() const { return m_; }
  bool failed() const { return diag_.has_errors(); }
  std::optional<Module> result() const { return failed() ? std::nullopt : std::optional<Module>(m_); }

 private:
  void fail(const char* name, const std::string& what) { diag_.internal_error(std::string("pass ") + name, what); }

  // Prints the module after the pass if asked to, and verifies it when verification is on.
  void trace(const char* name) {
    bool wanted = o_.print_after_all ||
                  std::find(o_.print_after.begin(), o_.print_after.end(), name) != o_.print_after.end();
    if (wanted && o_.trace) {
      *o_.trace << "// ----- TIR after " << name << " -----\n";
      if (std::string(name) == "group-device-calls")
        for (const GraphPlan& plan : m_.graph_plans) *o_.trace << print_graph_plan(plan);
      *o_.trace << print_module(m_);
    }
#ifdef DSPC_DEBUG
    constexpr bool kVerify = true;
#else
    constexpr bool kVerify = false;
#endif
    if (!kVerify && !o_.verify_each) return;
    std::string error;
    if (!verify_module(m_, error)) fail(name, "invalid TIR: " + error);
  }

  // Fails as a bug in the pass would, for the tests of this boundary.
  void inject(InjectedFailure kind) {
    switch (kind) {
      case InjectedFailure::Check: {
        bool invariant_holds = false;
        DSPC_CHECK(invariant_holds, "failure injected for testing");
        return;
      }
      case InjectedFailure::Make:
        Binary::make(BinaryOp::Add, make_const(DataType::i8(), 1), make_const(DataType::i32(), 1));
        DSPC_CHECK(false, "an ill-typed make() did not throw");
        return;
      case InjectedFailure::InvalidTir: {
        // A store to a buffer nothing declares: the verifier must reject it.
        if (m_.funcs.empty()) return;
        Buffer stray = BufferNode::make("stray", DataType::i8(), {1});
        m_.funcs[0].body = Seq::make({m_.funcs[0].body, Store::make(stray, {make_i32(0)}, make_const(DataType::i8(), 0))});
        return;
      }
      case InjectedFailure::Crash:
      case InjectedFailure::Fatal:
        return;  // failures of the code generator, injected there (Driver.cpp passes them on)
    }
  }

  const LowerOptions& o_;
  Diagnostics& diag_;
  Module m_;
};

}  // namespace

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const PassInfo& p : passes()) out.push_back(p.name);
    return out;
  }();
  return names;
}

namespace {

// Runs the registry's passes in order, from the first whose input is `from`, on `start`.
std::optional<Module> run_passes(PassInput from, Module start, PassContext c, Diagnostics& diag) {
  Pipeline p(c.options, diag);
  p.start(std::move(start));
  Module tir_input;  // the module the Tir passes start from, unless the caller gave it
  bool started = false;
  for (const PassInfo& pass : passes()) {
    started |= pass.input == from;
    if (!started) continue;
    if (pass.input == PassInput::Tir && !c.tir_input) {
      if (p.failed()) return std::nullopt;
      tir_input = p.module();
      c.tir_input = &tir_input;
    }
    p.run(pass.name, [&] { return pass.run(p.module(), c); });
  }
  return p.result();
}

}  // namespace

std::optional<Module> lower_tir(const Module& input, const LowerOptions& o, Diagnostics& diag) {
  PassContext c{o, diag};
  c.tir_input = &input;
  return run_passes(PassInput::Tir, input, c, diag);
}

std::optional<Module> lower(const TensorProgram& program, const LowerOptions& o, Diagnostics& diag) {
  PassContext c{o, diag};
  c.program = &program;
  return run_passes(PassInput::Program, Module(), c, diag);
}

}  // namespace dspc
