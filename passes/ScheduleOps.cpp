// schedule-ops
//  1. Collect the names the function uses (buffers, index, reduction and schedule variables)
//     so that accumulators and inlined reduction axes get fresh ones.
//  2. Inline: in source order, substitute each compute_inline stage into the later stages
//     that read it (Inliner); inlined stages are not materialised. Then collect the set of
//     buffers each remaining stage reads.
//  3. Lower each remaining stage with build_stage_loop_nest (passes/support/StageLoopNest.h)
//     over its whole shape: the loops its schedule gives (split, tile, reorder, kinds), the
//     index variables substituted by their split expressions, each Reduce a "local"
//     accumulator with its init, axes' loops and update inside the innermost stage loop.
//     A compute_at stage has no nest of its own: its consumer's nest computes it inside the
//     named loop, over the region each iteration reads.
//  4. Place intermediate buffers: walk the stages with a stack of open allocations; open a
//     stage's allocation right before its loop nest (for a compute_at stage, where its nest
//     would be: its buffer keeps its whole shape, and its consumer, its only reader, comes
//     later); after each stage, close the top allocation while no later stage reads its
//     buffer; close the rest at the end.
#include "passes/ScheduleOps.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/IRVisitor.h"
#include "passes/support/StageLoopNest.h"

namespace dspc {

namespace {

class NameCollector : public IRVisitor {
 public:
  explicit NameCollector(std::set<std::string>& names) : names_(names) {}
  void visit_Reduce(const Reduce* op) override {
    for (const auto& a : op->axes) names_.insert(a.var->name);
    IRVisitor::visit_Reduce(op);
  }
  void visit_Var(const Var* op) override { names_.insert(op->name); }
  void visit_buffer(const Buffer& b) override { names_.insert(b->name); }

 private:
  std::set<std::string>& names_;
};

class ReadCollector : public IRVisitor {
 public:
  std::set<const BufferNode*> reads;
  void visit_Load(const Load* op) override {
    reads.insert(op->buffer.get());
    IRVisitor::visit_Load(op);
  }
};

// Substitutes inlined stages into their readers: a load P[e0, e1] of an inlined P becomes
// P's body with P's index variables replaced by e0, e1, and P's reduction axes by fresh
// variables with fresh names (one set per load, so no Var is bound twice and no printed loop
// shadows another).
class Inliner : public IRMutator {
 public:
  explicit Inliner(std::set<std::string>& used) : used_(used) {}

  // `stage` (its body already free of earlier inlined stages) is inlined from now on.
  void add(const Stage& stage) { inlined_[stage.out.get()] = stage; }

  Expr mutate_Load(const Load* op, const Expr& self) override {
    Expr e = IRMutator::mutate_Load(op, self);
    const Load* load = e.as<Load>();
    auto it = inlined_.find(load->buffer.get());
    if (it == inlined_.end()) return e;
    const Stage& p = it->second;
    std::map<const VarNode*, Expr> values;
    for (size_t d = 0; d < p.index_vars.size(); ++d) values[p.index_vars[d].get()] = load->indices[d];
    return substitute(p.body, values, &used_);
  }

 private:
  std::set<std::string>& used_;
  std::map<const BufferNode*, Stage> inlined_;
};

// An allocation still open while later stages are emitted into it (step 3).
struct OpenAllocation {
  Buffer buffer;  // null for the function body itself
  Span span;
  std::vector<Stmt> stmts;
};

bool is_param(const TensorFunc& f, const Buffer& b) {
  for (const auto& p : f.inputs)
    if (p == b) return true;
  for (const auto& p : f.outputs)
    if (p == b) return true;
  return false;
}

Stmt seq_or_nop(const std::vector<Stmt>& stmts) {
  if (stmts.empty()) return Evaluate::make(make_i32(0));
  return Seq::make(stmts);
}

PrimFunc lower_func(const TensorFunc& f) {
  std::set<std::string> used;
  NameCollector names(used);
  for (const auto& b : f.inputs) used.insert(b->name);
  for (const auto& b : f.outputs) used.insert(b->name);
  for (const auto& st : f.stages) {
    DSPC_CHECK(st.index_vars.size() == st.out->shape.size(), "one index variable per dimension");
    used.insert(st.out->name);
    for (const auto& v : st.index_vars) used.insert(v->name);
    for (const auto& p : st.schedule) {
      used.insert(p.vars.begin(), p.vars.end());
      used.insert(p.new_names.begin(), p.new_names.end());
    }
    names.visit(st.body);
  }
  // Inlined stages first (step 2): the stages that remain, and what each reads after it.
  std::vector<Stage> stages;
  Inliner inliner(used);
  for (const auto& st : f.stages) {
    Stage lowered = st;
    lowered.body = inliner.mutate(st.body);
    if (st.is_inlined()) {
      inliner.add(lowered);
      continue;
    }
    stages.push_back(std::move(lowered));
  }
  std::vector<std::set<const BufferNode*>> reads;
  for (const auto& st : stages) {
    ReadCollector rc;
    rc.visit(st.body);
    reads.push_back(std::move(rc.reads));
  }
  auto read_after = [&](const Buffer& b, size_t stage) {
    for (size_t later = stage + 1; later < reads.size(); ++later)
      if (reads[later].count(b.get())) return true;
    return false;
  };

  std::vector<OpenAllocation> open(1);
  auto close_top = [&] {
    OpenAllocation top = std::move(open.back());
    open.pop_back();
    open.back().stmts.push_back(Allocate::make(top.buffer, seq_or_nop(top.stmts), top.span));
  };
  // compute_at producers, by consumer: their nests go inside the consumer's loops (step 3).
  std::map<std::string, std::vector<ComputedAt>> computed_at;
  for (const auto& stage : stages)
    if (const SchedulePrimitive* p = stage.computed_at())
      computed_at[p->consumer].push_back({&stage, p->vars.at(0)});
  for (size_t s = 0; s < stages.size(); ++s) {
    const Stage& stage = stages[s];
    if (!is_param(f, stage.out)) open.push_back({stage.out, stage.span, {}});
    if (!stage.computed_at())
      open.back().stmts.push_back(
          build_stage_loop_nest(stage, full_ranges(stage), used, computed_at[stage.out->name]));
    while (open.size() > 1 && !read_after(open.back().buffer, s)) close_top();
  }
  while (open.size() > 1) close_top();

  PrimFunc out;
  out.name = f.name;
  out.inputs = f.inputs;
  out.outputs = f.outputs;
  out.body = seq_or_nop(open[0].stmts);
  out.span = f.span;
  return out;
}

}  // namespace

Module schedule_ops(const TensorProgram& program, const LowerOptions& options) {
  Module m;
  for (const auto& f : program.funcs) m.funcs.push_back(lower_func(f));
  return m;
}

}  // namespace dspc
