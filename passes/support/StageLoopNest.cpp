#include "passes/support/StageLoopNest.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

#include "compiler/interp/Semantics.h"
#include "compiler/ir/IRVisitor.h"
#include "compiler/ir/LoopSchedule.h"

namespace dspc {

namespace {

class Substituter : public IRMutator {
 public:
  Substituter(std::map<const VarNode*, Expr> values, std::set<std::string>* used)
      : values_(std::move(values)), used_(used) {}

  Expr mutate_Var(const Var* op, const Expr& self) override {
    auto it = values_.find(op);
    return it == values_.end() ? self : it->second;
  }

  Expr mutate_Reduce(const Reduce* op, const Expr&) override {
    std::vector<ReduceAxis> axes;
    for (const auto& a : op->axes) {
      VarRef fresh =
          VarNode::make(used_ ? fresh_name(a.var->name, *used_) : a.var->name, a.var->dtype, a.var->span);
      values_[a.var.get()] = var_expr(fresh);
      axes.push_back({fresh, a.extent});
    }
    Expr source = mutate(op->source);
    for (const auto& a : op->axes) values_.erase(a.var.get());
    return Reduce::make(op->op, source, std::move(axes), op->span);
  }

 private:
  std::map<const VarNode*, Expr> values_;
  std::set<std::string>* used_;
};

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

// Replaces the Reduce nodes of one stage body by accumulator loads: post-order, so a
// reduction nested in another's source is lowered inside the outer one's loops.
class ReductionLowering : public IRMutator {
 public:
  ReductionLowering(std::string stage_name, std::set<std::string>& used)
      : stage_name_(std::move(stage_name)), used_(used) {}

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
    Buffer acc = BufferNode::make(fresh_name(stage_name_ + "_" + reduce_op_name(op->op), used_), op->dtype,
                                  {1}, StorageScope::Local, s);
    Expr acc_value = Load::make(acc, {make_i32(0)}, s);
    Stmt loops = wrap_reductions(
        inner,
        Store::make(acc, {make_i32(0)}, Binary::make(reduce_combine_op(op->op), acc_value, source, s), s));
    for (auto it = op->axes.rbegin(); it != op->axes.rend(); ++it)
      loops = For::make(it->var, make_i32(0), make_i32(it->extent), ForKind::Serial, loops, s);
    Stmt init = Store::make(acc, {make_i32(0)}, make_value(op->dtype, reduce_init(op->op, op->dtype), s), s);
    out_->push_back({acc, Seq::make({init, loops}), s});
    return acc_value;
  }

 private:
  std::string stage_name_;
  std::set<std::string>& used_;
  std::vector<PendingReduction>* out_ = nullptr;
};

Expr add(Expr a, Expr b) {
  return Binary::make(BinaryOp::Add, std::move(a), std::move(b));
}

// One loop of the nest: the fresh Var and its bounds.
struct Loop {
  VarRef var;
  Expr min;
  int64_t extent = 0;
};

bool is_zero(const Expr& e) {
  const IntImm* i = as_int(e);
  return i && i->value == 0;
}

// ---- compute_at: the region of a producer that one iteration of a consumer's loop reads.

// A symbolic interval [lo, hi] of an i32 expression. lo.same_as(hi) marks a point: an
// expression that does not change inside the loop (a Var of the loop or of a loop outside).
struct Interval {
  Expr lo, hi;
  bool point() const { return lo.same_as(hi); }
};

// Interval arithmetic over the consumer's index expressions: the Vars of `inner` (loops
// inside the compute_at loop, reduction axes) range over their intervals; every other Var is
// fixed during one iteration. nullopt where the rules stop (loads, selects, products of
// varying values, ...): the caller then takes the whole dimension.
class RegionBounds {
 public:
  std::map<const VarNode*, Interval> inner;

  std::optional<Interval> of(const Expr& e) const {
    if (as_int(e)) return Interval{e, e};
    if (const Var* v = e.as<Var>()) {
      auto it = inner.find(v);
      return it == inner.end() ? Interval{e, e} : it->second;
    }
    if (const Cast* c = e.as<Cast>()) {
      auto x = of(c->value);
      if (x && x->point() && c->dtype == DataType::i32() && c->value.dtype() == DataType::i32()) return x;
      return std::nullopt;
    }
    const Binary* b = e.as<Binary>();
    if (!b || b->dtype != DataType::i32()) return std::nullopt;
    auto x = of(b->a), y = of(b->b);
    if (!x || !y) return std::nullopt;
    auto bin = [](BinaryOp op, const Expr& l, const Expr& r) {
      if ((op == BinaryOp::Add || op == BinaryOp::Sub) && is_zero(r)) return l;
      if (op == BinaryOp::Add && is_zero(l)) return r;
      return Binary::make(op, l, r);
    };
    if (x->point() && y->point()) {
      Expr v = bin(b->op, x->lo, y->lo);
      return Interval{v, v};
    }
    const IntImm* cy = y->point() ? as_int(y->lo) : nullptr;
    const IntImm* cx = x->point() ? as_int(x->lo) : nullptr;
    switch (b->op) {
      case BinaryOp::Add: return Interval{bin(BinaryOp::Add, x->lo, y->lo), bin(BinaryOp::Add, x->hi, y->hi)};
      case BinaryOp::Sub: return Interval{bin(BinaryOp::Sub, x->lo, y->hi), bin(BinaryOp::Sub, x->hi, y->lo)};
      case BinaryOp::Min: return Interval{bin(BinaryOp::Min, x->lo, y->lo), bin(BinaryOp::Min, x->hi, y->hi)};
      case BinaryOp::Max: return Interval{bin(BinaryOp::Max, x->lo, y->lo), bin(BinaryOp::Max, x->hi, y->hi)};
      case BinaryOp::Mul: {
        const IntImm* c = cy ? cy : cx;
        const Interval& v = cy ? *x : *y;
        if (!c) return std::nullopt;
        Expr k = make_i32(c->value);
        if (c->value >= 0) return Interval{bin(BinaryOp::Mul, v.lo, k), bin(BinaryOp::Mul, v.hi, k)};
        return Interval{bin(BinaryOp::Mul, v.hi, k), bin(BinaryOp::Mul, v.lo, k)};
      }
      case BinaryOp::Div:
        if (!cy || cy->value <= 0) return std::nullopt;
        return Interval{bin(BinaryOp::Div, x->lo, y->lo), bin(BinaryOp::Div, x->hi, y->lo)};
      case BinaryOp::Mod:
        if (!cy || cy->value <= 0) return std::nullopt;
        return Interval{make_i32(0), make_i32(cy->value - 1)};
      default: return std::nullopt;
    }
  }
};

// The value of an i32 expression of IntImm, Var (bound in `env`) and the arithmetic the
// bounds above build; nullopt for anything else.
std::optional<int64_t> evaluate(const Expr& e, const std::map<const VarNode*, int64_t>& env) {
  if (const IntImm* i = as_int(e)) return i->value;
  if (const Var* v = e.as<Var>()) {
    auto it = env.find(v);
    if (it == env.end()) return std::nullopt;
    return it->second;
  }
  const Binary* b = e.as<Binary>();
  if (!b) return std::nullopt;
  auto x = evaluate(b->a, env), y = evaluate(b->b, env);
  if (!x || !y) return std::nullopt;
  switch (b->op) {
    case BinaryOp::Add: return *x + *y;
    case BinaryOp::Sub: return *x - *y;
    case BinaryOp::Mul: return *x * *y;
    case BinaryOp::Min: return std::min(*x, *y);
    case BinaryOp::Max: return std::max(*x, *y);
    case BinaryOp::Div:
      if (*y <= 0) return std::nullopt;
      return *x >= 0 ? *x / *y : -((-*x + *y - 1) / *y);
    case BinaryOp::Mod: {
      if (*y <= 0) return std::nullopt;
      int64_t r = *x % *y;
      return r < 0 ? r + *y : r;
    }
    default: return std::nullopt;
  }
}

// Loads of `buffer` in an expression, and the intervals of the reduction axes around them.
class ReadFinder : public IRVisitor {
 public:
  ReadFinder(const BufferNode* buffer, RegionBounds& bounds) : buffer_(buffer), bounds_(bounds) {}
  std::vector<const Load*> loads;

  void visit_Load(const Load* op) override {
    if (op->buffer.get() == buffer_) loads.push_back(op);
    IRVisitor::visit_Load(op);
  }
  void visit_Reduce(const Reduce* op) override {
    for (const auto& a : op->axes) bounds_.inner[a.var.get()] = {make_i32(0), make_i32(a.extent - 1)};
    IRVisitor::visit_Reduce(op);
  }

 private:
  const BufferNode* buffer_;
  RegionBounds& bounds_;
};

// At most this many iterations of the loops outside the region are enumerated to find the
// region's largest extent; beyond, the region is the whole dimension.
constexpr int64_t kMaxEnumeration = int64_t{1} << 20;

// The ranges of `producer` that `body` (the consumer's substituted body) reads in one
// iteration of the loop at dims[at]: per dimension, the symbolic union [lo, hi] of the
// reads, its largest extent over every iteration of the loops outside, and a min that keeps
// the range inside the shape (min(lo, shape - extent): lo >= 0 and hi < shape, as the
// frontend proved every read in bounds and interval arithmetic only narrows with fixed loops).
std::vector<LoopRange> region_read(const Stage& producer, const Expr& body, const std::vector<LoopDim>& dims,
                                   size_t at, const std::map<std::string, Loop>& loops) {
  RegionBounds bounds;
  for (size_t d = 0; d < at; ++d) {
    const Loop& l = loops.at(dims[d].name);
    bounds.inner[l.var.get()] = {l.min, Binary::make(BinaryOp::Add, l.min, make_i32(l.extent - 1))};
  }
  ReadFinder finder(producer.out.get(), bounds);
  finder.visit(body);
  DSPC_CHECK(!finder.loads.empty(), "a compute_at consumer reads its producer");

  // The loops at and outside `at`, for the enumeration; only constant mins can be enumerated.
  std::vector<std::pair<const VarNode*, std::pair<int64_t, int64_t>>> outside;
  int64_t iterations = 1;
  bool enumerable = true;
  for (size_t d = at; d < dims.size(); ++d) {
    const Loop& l = loops.at(dims[d].name);
    const IntImm* m = as_int(l.min);
    if (!m) enumerable = false;
    outside.push_back({l.var.get(), {m ? m->value : 0, l.extent}});
    iterations = l.extent == 0 ? 0 : std::min(kMaxEnumeration + 1, iterations * l.extent);
  }
  if (iterations > kMaxEnumeration) enumerable = false;

  std::vector<LoopRange> out;
  for (size_t d = 0; d < producer.out->shape.size(); ++d) {
    int64_t shape = producer.out->shape[d];
    LoopRange whole(0, shape);
    Expr lo, hi;
    bool known = enumerable;
    for (const Load* load : finder.loads) {
      auto i = bounds.of(load->indices[d]);
      if (!i) {
        known = false;
        break;
      }
      lo = lo ? Binary::make(BinaryOp::Min, lo, i->lo) : i->lo;
      hi = hi ? Binary::make(BinaryOp::Max, hi, i->hi) : i->hi;
    }
    int64_t extent = 0;
    std::map<const VarNode*, int64_t> env;
    // Odometer over the outside loops: the largest hi - lo + 1.
    std::function<bool(size_t)> walk = [&](size_t k) {
      if (k == outside.size()) {
        auto l = evaluate(lo, env), h = evaluate(hi, env);
        if (!l || !h || *l < 0 || *h >= shape) return false;
        extent = std::max(extent, *h - *l + 1);
        return true;
      }
      for (int64_t v = 0; v < outside[k].second.second; ++v) {
        env[outside[k].first] = outside[k].second.first + v;
        if (!walk(k + 1)) return false;
      }
      return true;
    };
    if (!known || !walk(0) || extent <= 0 || extent >= shape) {
      out.push_back(whole);
      continue;
    }
    out.push_back(LoopRange(Binary::make(BinaryOp::Min, lo, make_i32(shape - extent)), extent));
  }
  return out;
}

}  // namespace

std::string fresh_name(const std::string& base, std::set<std::string>& used) {
  std::string name = base;
  for (int n = 1; used.count(name); ++n) name = base + "_" + std::to_string(n);
  used.insert(name);
  return name;
}

Expr substitute(const Expr& e, const std::map<const VarNode*, Expr>& values, std::set<std::string>* used) {
  return Substituter(values, used).mutate(e);
}

LoopRange::LoopRange(int64_t min, int64_t extent) : min(make_i32(min)), extent(extent) {}

std::vector<LoopRange> full_ranges(const Stage& stage) {
  std::vector<LoopRange> out;
  for (int64_t e : stage.out->shape) out.emplace_back(0, e);
  return out;
}

namespace {

// `renamed`: the loops get names <stage>_<loop> fresh among `used`, as a nest computed inside
// another stage's loops must not reuse the names of the loops around it.
Stmt build_nest(const Stage& stage, const std::vector<LoopRange>& ranges, std::set<std::string>& used,
                const std::vector<ComputedAt>& computed_at, bool renamed) {
  DSPC_CHECK(stage.index_vars.size() == stage.out->shape.size(), "one index variable per dimension");
  DSPC_CHECK(ranges.size() == stage.index_vars.size(), "one range per index variable");
  for (size_t d = 0; d < ranges.size(); ++d) {
    const IntImm* m = as_int(ranges[d].min);
    DSPC_CHECK(ranges[d].min && ranges[d].min.dtype() == DataType::i32(), "range min is i32");
    DSPC_CHECK(ranges[d].extent >= 0 && ranges[d].extent <= stage.out->shape[d] &&
                   (!m || (m->value >= 0 && m->value + ranges[d].extent <= stage.out->shape[d])),
               "range inside the stage's shape");
  }
  // Loop bounds are i32; the frontend must reject larger extents.
  for (int64_t e : stage.out->shape) DSPC_CHECK(e <= INT32_MAX, "stage extent does not fit a loop bound");
  LoopSchedule schedule = loop_schedule_of(stage);

  // Forward through the splits: every loop name's min and extent, as of when it was made.
  std::map<std::string, Loop> loops;
  for (size_t d = 0; d < ranges.size(); ++d)
    loops[stage.index_vars[d]->name] = {nullptr, ranges[d].min, ranges[d].extent};
  std::vector<Loop> split_bounds;
  for (const auto& s : schedule.splits()) {
    Loop old = loops.at(s.old_var);
    split_bounds.push_back(old);
    int64_t f = s.factor;
    int64_t outer = old.extent < f ? 1 : (old.extent + f - 1) / f;
    int64_t inner = old.extent < f ? old.extent : f;
    loops[s.outer] = {nullptr, make_i32(0), outer};
    loops[s.inner] = {nullptr, make_i32(0), inner};
  }

  // The loops that remain get fresh Vars; backward through the splits, each split variable's
  // value in terms of them.
  std::map<std::string, Expr> value;
  for (const auto& d : schedule.dims()) {
    Loop& l = loops.at(d.name);
    std::string name = renamed ? fresh_name(stage.out->name + "_" + d.name, used) : d.name;
    l.var = VarNode::make(name, DataType::i32(), stage.span);
    value[d.name] = var_expr(l.var);
  }
  for (size_t k = schedule.splits().size(); k-- > 0;) {
    const LoopSplit& s = schedule.splits()[k];
    int64_t e = split_bounds[k].extent, f = s.factor;
    Expr inner = value.at(s.inner);
    Expr v;
    if (e < f) {
      v = inner;
    } else {
      Expr base = Binary::make(BinaryOp::Mul, value.at(s.outer), make_i32(f));
      if (e % f != 0) base = Binary::make(BinaryOp::Min, base, make_i32(e - f));
      v = add(base, inner);
    }
    if (!is_zero(split_bounds[k].min)) v = add(v, split_bounds[k].min);
    value[s.old_var] = v;
  }

  std::map<const VarNode*, Expr> index_values;
  std::vector<Expr> indices;
  for (const auto& v : stage.index_vars) {
    index_values[v.get()] = value.at(v->name);
    indices.push_back(value.at(v->name));
  }
  Expr body = substitute(stage.body, index_values);

  // Producers computed at a loop: their nests, over the region one iteration reads, open
  // that loop's body (in the order given).
  std::vector<std::vector<Stmt>> at_dim(schedule.dims().size());
  for (const auto& c : computed_at) {
    size_t at = schedule.dims().size();
    for (size_t d = 0; d < schedule.dims().size(); ++d)
      if (schedule.dims()[d].name == c.loop) at = d;
    DSPC_CHECK(at < schedule.dims().size(), "compute_at loop '" + c.loop + "' of stage " + stage.out->name);
    std::vector<LoopRange> region = region_read(*c.producer, body, schedule.dims(), at, loops);
    at_dim[at].push_back(build_nest(*c.producer, region, used, {}, true));
  }

  std::vector<PendingReduction> pending;
  ReductionLowering lowering(stage.out->name, used);
  Expr stored = lowering.lower(body, pending);
  Stmt nest = wrap_reductions(pending, Store::make(stage.out, indices, stored, stage.span));
  for (size_t d = 0; d < schedule.dims().size(); ++d) {
    const Loop& l = loops.at(schedule.dims()[d].name);
    if (!at_dim[d].empty()) {
      at_dim[d].push_back(nest);
      nest = Seq::make(at_dim[d]);
    }
    nest = For::make(l.var, l.min, make_i32(l.extent), schedule.dims()[d].kind, nest, stage.span);
  }
  return nest;
}

}  // namespace

Stmt build_stage_loop_nest(const Stage& stage, const std::vector<LoopRange>& ranges,
                           std::set<std::string>& used, const std::vector<ComputedAt>& computed_at) {
  return build_nest(stage, ranges, used, computed_at, false);
}

}  // namespace dspc
