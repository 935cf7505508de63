// schedule-ops
//  1. Collect the names the function uses (buffers, index and reduction variables) so that
//     accumulators get fresh ones, and the set of buffers each stage reads.
//  2. Lower each stage: replace every Reduce, innermost first (post-order), by a load of a
//     fresh one-element "local" accumulator; the accumulator's init and loop nest (with the
//     update, and any reduction nested in its source lowered inside it) wrap what follows.
//     Then wrap the store in the stage's loop nest, first index variable outermost.
//  3. Place intermediate buffers: walk the stages with a stack of open allocations; open a
//     stage's allocation right before its loop nest; after each stage, close the top
//     allocation while no later stage reads its buffer; close the rest at the end.
#include "passes/ScheduleOps.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/interp/Semantics.h"
#include "compiler/ir/IRVisitor.h"
#include "passes/support/Partition.h"

namespace dspc {

namespace {

// A lowered reduction waiting to be wrapped around the code that uses its result.
struct PendingReduction {
  Buffer acc;
  Stmt prelude;  // init; loop nest with the update
  Span span;
};

// Each allocation brackets the init, the loops and everything after them, so nesting
// mirrors the order the reductions were found in: the first one outermost.
Stmt wrap_reductions(const std::vector<PendingReduction>& pending, Stmt body) {
  for (auto it = pending.rbegin(); it != pending.rend(); ++it)
    body = Allocate::make(it->acc, Seq::make({it->prelude, body}), it->span);
  return body;
}

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

// Replaces variables by expressions.
class Substitute : public IRMutator {
 public:
  explicit Substitute(std::map<const VarNode*, Expr> map) : map_(std::move(map)) {}
  Expr mutate_Var(const Var* op, const Expr& self) override {
    auto it = map_.find(op);
    return it == map_.end() ? self : it->second;
  }

 private:
  std::map<const VarNode*, Expr> map_;
};

// A product of two bytes widened to 32 bits (a constant counts as a byte), the shape of a
// u8/i8 dot product.
bool is_byte_product(const Expr& e) {
  const auto* m = e.as<Binary>();
  if (!m || m->op != BinaryOp::Mul || m->dtype.bits != 32 || !m->dtype.is_integer()) return false;
  auto byte = [](const Expr& x) {
    if (x.as<IntImm>()) return true;
    const auto* c = x.as<Cast>();
    return c && c->value.dtype().is_integer() && c->value.dtype().bits == 8;
  };
  return byte(m->a) && byte(m->b);
}

// Replaces the Reduce nodes of one stage body by accumulator loads (see step 2).
class ReductionLowering : public IRMutator {
 public:
  // With group_dot_products, an integer sum of byte products over an innermost axis whose
  // extent is a multiple of 4 adds four consecutive products per step (exact: wrapping
  // addition is associative), the form of HVX's 4-way dot products (vrmpy).
  ReductionLowering(std::string stage_name, std::set<std::string>& used, bool group_dot_products = false)
      : stage_name_(std::move(stage_name)), used_(used), group_(group_dot_products) {}

  // Lowers `body`, appending the reductions it needs to `out` in post-order.
  Expr lower(const Expr& body, std::vector<PendingReduction>& out) {
    out_ = &out;
    return mutate(body);
  }

  Expr mutate_Reduce(const Reduce* op, const Expr&) override {
    std::vector<PendingReduction> inner;
    std::vector<PendingReduction>* outer = out_;
    out_ = &inner;
    Expr source = mutate(op->source);
    out_ = outer;

    Span s = op->span;
    for (const auto& a : op->axes)
      DSPC_CHECK(a.extent <= INT32_MAX, "reduction extent does not fit a loop bound");
    Buffer acc = BufferNode::make(fresh_name(stage_name_ + "_" + reduce_op_name(op->op)), op->dtype, {1},
                                  StorageScope::Local, s);
    Expr acc_value = Load::make(acc, {make_i32(0)}, s);
    std::vector<ReduceAxis> axes = op->axes;
    const ReduceAxis& last = axes.back();
    if (group_ && inner.empty() && op->op == ReduceOp::Sum && is_byte_product(source) && last.extent >= 4 &&
        last.extent % 4 == 0) {
      VarRef outer_var = VarNode::make(last.var->name + "_o", DataType::i32(), last.var->span);
      Expr group;
      for (int j = 0; j < 4; ++j) {
        Expr k = Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Mul, var_expr(outer_var), make_i32(4)), make_i32(j));
        Expr term = Substitute({{last.var.get(), k}}).mutate(source);
        group = group ? Binary::make(BinaryOp::Add, group, term, s) : term;
      }
      source = group;
      axes.back() = {outer_var, last.extent / 4};
    }
    Stmt loops = wrap_reductions(
        inner,
        Store::make(acc, {make_i32(0)}, Binary::make(reduce_combine_op(op->op), acc_value, source, s), s));
    for (auto it = axes.rbegin(); it != axes.rend(); ++it)
      loops = For::make(it->var, make_i32(0), make_i32(it->extent), ForKind::Serial, loops, s);
    Stmt init = Store::make(acc, {make_i32(0)}, make_value(op->dtype, reduce_init(op->op, op->dtype), s), s);
    out_->push_back({acc, Seq::make({init, loops}), s});
    return acc_value;
  }

 private:
  std::string fresh_name(const std::string& base) {
    std::string name = base;
    for (int n = 1; used_.count(name); ++n) name = base + "_" + std::to_string(n);
    used_.insert(name);
    return name;
  }

  std::string stage_name_;
  std::set<std::string>& used_;
  bool group_;
  std::vector<PendingReduction>* out_ = nullptr;
};

// The automatic schedule's vector width: a full HVX vector of the narrowest type the stage
// reads or writes.
int auto_lanes(const Stage& stage, const Target& target) {
  struct Narrowest : IRVisitor {
    int bytes;
    void visit_Load(const Load* op) override {
      bytes = std::min(bytes, op->buffer->dtype.bytes());
      IRVisitor::visit_Load(op);
    }
  } n;
  n.bytes = stage.out->dtype.bytes();
  n.visit(stage.body);
  return target.vector_bytes / std::max(n.bytes, 1);
}

int count_reductions(const Expr& e) {
  struct Counter : IRVisitor {
    int n = 0;
    void visit_Reduce(const Reduce* op) override {
      ++n;
      IRVisitor::visit_Reduce(op);
    }
  } c;
  c.visit(e);
  return c.n;
}

// Loop fusion of two independent statements of the same shape: loops with equal constant
// bounds become one loop (b's variable renamed to a's), sequences fuse element by element,
// anything else runs a then b.
Stmt fuse(const Stmt& a, const Stmt& b) {
  const auto* fa = a.as<For>();
  const auto* fb = b.as<For>();
  const IntImm *amin = fa ? as_int(fa->min) : nullptr, *aext = fa ? as_int(fa->extent) : nullptr;
  const IntImm *bmin = fb ? as_int(fb->min) : nullptr, *bext = fb ? as_int(fb->extent) : nullptr;
  if (amin && aext && bmin && bext && amin->value == bmin->value && aext->value == bext->value &&
      fa->for_kind == fb->for_kind) {
    Stmt body_b = Substitute({{fb->var.get(), var_expr(fa->var)}}).mutate(fb->body);
    return For::make(fa->var, fa->min, fa->extent, fa->for_kind, fuse(fa->body, body_b), fa->span);
  }
  const auto* sa = a.as<Seq>();
  const auto* sb = b.as<Seq>();
  if (sa && sb && sa->stmts.size() == sb->stmts.size()) {
    std::vector<Stmt> parts;
    for (size_t i = 0; i < sa->stmts.size(); ++i) parts.push_back(fuse(sa->stmts[i], sb->stmts[i]));
    return Seq::make(parts, a->span);
  }
  return Seq::make({a, b}, a->span);
}

// The automatic schedule's unroll-and-jam of a reduction: with one reduction in the body, the
// stage computes kJam consecutive values of its second-innermost variable per iteration with
// one fused reduction loop nest, so the vector loads that do not depend on that variable
// (dense's rows of B; a stencil's shared rows) are loaded once for all of them.
constexpr int64_t kJam = 2;

bool can_jam(const Stage& stage, const Region& region, int lanes) {
  size_t dims = stage.index_vars.size();
  return lanes > 1 && dims >= 2 && region[dims - 1].extent >= lanes && region[dims - 2].extent >= kJam &&
         region[dims - 2].extent % kJam == 0 && count_reductions(stage.body) == 1;
}

// One loop nest over `region`, first index variable outermost. With lanes > 1 and an
// innermost extent of at least `lanes`, the innermost loop is split into an outer loop and a
// vectorized inner one of `lanes` iterations; when lanes does not divide the extent the last
// vector is shifted inwards (it recomputes a few elements, which a pure stage allows).
Stmt lower_region(const Stage& stage, const Region& region, int lanes, std::set<std::string>& used) {
  Expr source = drop_decided_minmax(stage.body, stage, region);
  std::vector<Expr> indices;
  for (const auto& v : stage.index_vars) indices.push_back(var_expr(v));
  size_t inner = stage.index_vars.size() - 1;
  bool jam = can_jam(stage, region, lanes);
  VarRef jam_var;
  Stmt body;
  if (!jam) {
    std::vector<PendingReduction> pending;
    ReductionLowering lowering(stage.out->name, used, lanes > 1);
    Expr value = lowering.lower(source, pending);
    body = wrap_reductions(pending, Store::make(stage.out, indices, value, stage.span));
  } else {
    const VarRef& v = stage.index_vars[inner - 1];
    jam_var = VarNode::make(v->name + "_o", DataType::i32(), v->span);
    std::vector<PendingReduction> accs;
    std::vector<Stmt> stores;
    Stmt preludes;
    for (int64_t j = 0; j < kJam; ++j) {
      Expr vj = Binary::make(BinaryOp::Add,
                             Binary::make(BinaryOp::Add, make_i32(region[inner - 1].min),
                                          Binary::make(BinaryOp::Mul, var_expr(jam_var), make_i32(kJam))),
                             make_i32(j));
      Substitute sub({{v.get(), vj}});
      std::vector<PendingReduction> pending;
      ReductionLowering lowering(stage.out->name, used, true);
      Expr value = lowering.lower(sub.mutate(source), pending);
      DSPC_CHECK(pending.size() == 1, "a jammed stage has one reduction");
      std::vector<Expr> idx;
      for (const Expr& i : indices) idx.push_back(sub.mutate(i));
      stores.push_back(Store::make(stage.out, idx, value, stage.span));
      preludes = preludes ? fuse(preludes, pending[0].prelude) : pending[0].prelude;
      accs.push_back(pending[0]);
    }
    body = Seq::make({preludes, Seq::make(stores)});
    for (auto it = accs.rbegin(); it != accs.rend(); ++it) body = Allocate::make(it->acc, body, it->span);
  }
  for (size_t i = stage.index_vars.size(); i-- > 0;) {
    const VarRef& v = stage.index_vars[i];
    int64_t lo = region[i].min, extent = region[i].extent;
    if (i == inner && lanes > 1 && extent >= lanes) {
      VarRef vo = VarNode::make(v->name + "_o", DataType::i32(), v->span);
      VarRef vi = VarNode::make(v->name + "_v", DataType::i32(), v->span);
      Expr start = Binary::make(BinaryOp::Mul, var_expr(vo), make_i32(lanes));
      if (extent % lanes != 0) start = Binary::make(BinaryOp::Min, start, make_i32(extent - lanes));
      Expr value_of_v = Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Add, make_i32(lo), start), var_expr(vi));
      body = LetStmt::make(v, value_of_v, body, stage.span);
      body = For::make(vi, make_i32(0), make_i32(lanes), ForKind::Vectorized, body, stage.span);
      body = For::make(vo, make_i32(0), make_i32((extent + lanes - 1) / lanes), ForKind::Serial, body, stage.span);
      continue;
    }
    if (jam && i == inner - 1) {
      body = For::make(jam_var, make_i32(0), make_i32(extent / kJam), ForKind::Serial, body, stage.span);
      continue;
    }
    body = For::make(v, make_i32(lo), make_i32(extent), ForKind::Serial, body, stage.span);
  }
  return body;
}

// A copy of `stage` with fresh index and reduction variables (same names), so that a stage
// lowered once per box binds each variable once.
class FreshVars : public IRMutator {
 public:
  Stage copy(const Stage& stage) {
    Stage out = stage;
    out.index_vars.clear();
    for (const VarRef& v : stage.index_vars) out.index_vars.push_back(fresh(v));
    out.body = mutate(stage.body);
    return out;
  }
  Expr mutate_Var(const Var* op, const Expr& self) override {
    auto it = map_.find(op);
    return it == map_.end() ? self : var_expr(it->second);
  }
  Expr mutate_Reduce(const Reduce* op, const Expr&) override {
    std::vector<ReduceAxis> axes;
    for (const auto& a : op->axes) axes.push_back({fresh(a.var), a.extent});
    return Reduce::make(op->op, mutate(op->source), axes, op->span);
  }

 private:
  VarRef fresh(const VarRef& v) {
    VarRef f = VarNode::make(v->name, v->dtype, v->span);
    map_[v.get()] = f;
    return f;
  }
  std::map<const VarNode*, VarRef> map_;
};

Stmt lower_stage(const Stage& stage, std::set<std::string>& used, const LowerOptions& options) {
  DSPC_CHECK(stage.index_vars.size() == stage.out->shape.size(), "one index variable per dimension");
  // Loop bounds are i32; the frontend must reject larger extents.
  for (int64_t e : stage.out->shape) DSPC_CHECK(e <= INT32_MAX, "stage extent does not fit a loop bound");
  if (!options.auto_schedule) {
    Region full;
    for (int64_t e : stage.out->shape) full.push_back({0, e});
    return lower_region(stage, full, 1, used);
  }
  int lanes = auto_lanes(stage, options.target);
  std::vector<Stmt> parts;
  std::vector<Region> regions = boundary_regions(stage);
  for (size_t i = 0; i < regions.size(); ++i)
    parts.push_back(lower_region(i == 0 ? stage : FreshVars().copy(stage), regions[i], lanes, used));
  return Seq::make(parts);
}

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

PrimFunc lower_func(const TensorFunc& f, const LowerOptions& options) {
  std::set<std::string> used;
  NameCollector names(used);
  for (const auto& b : f.inputs) used.insert(b->name);
  for (const auto& b : f.outputs) used.insert(b->name);
  std::vector<std::set<const BufferNode*>> reads;
  for (const auto& st : f.stages) {
    used.insert(st.out->name);
    for (const auto& v : st.index_vars) used.insert(v->name);
    names.visit(st.body);
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
  for (size_t s = 0; s < f.stages.size(); ++s) {
    const Stage& stage = f.stages[s];
    if (!is_param(f, stage.out)) open.push_back({stage.out, stage.span, {}});
    open.back().stmts.push_back(lower_stage(stage, used, options));
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
  for (const auto& f : program.funcs) m.funcs.push_back(lower_func(f, options));
  return m;
}

}  // namespace dspc
