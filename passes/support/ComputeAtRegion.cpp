#include "passes/support/ComputeAtRegion.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "compiler/ir/Externs.h"
#include "compiler/ir/IRVisitor.h"

namespace dspc {

namespace {

bool is_zero(const Expr& e) {
  const IntImm* i = as_int(e);
  return i && i->value == 0;
}

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

}  // namespace

// lo >= 0 and hi < shape in min(lo, shape - extent): the frontend proved every read in
// bounds over whole loops, and interval arithmetic only narrows when loops are fixed.
std::vector<LoopRange> compute_at_region(const Stage& producer, const Expr& body,
                                         const std::vector<LoopBounds>& inside,
                                         const std::vector<LoopBounds>& outside_loops) {
  RegionBounds bounds;
  for (const auto& l : inside)
    bounds.inner[l.var.get()] = {l.min, Binary::make(BinaryOp::Add, l.min, make_i32(l.extent - 1))};
  ReadFinder finder(producer.out.get(), bounds);
  finder.visit(body);
  DSPC_CHECK(!finder.loads.empty(), "a compute_at consumer reads its producer");

  // The loops outside, for the enumeration; only constant mins can be enumerated.
  std::vector<std::pair<const VarNode*, std::pair<int64_t, int64_t>>> outside;
  int64_t iterations = 1;
  bool enumerable = true;
  for (const auto& l : outside_loops) {
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
    int64_t extent = 0, highest_lo = 0;
    std::map<const VarNode*, int64_t> env;
    // Odometer over the outside loops: the largest hi - lo + 1.
    std::function<bool(size_t)> walk = [&](size_t k) {
      if (k == outside.size()) {
        auto l = evaluate(lo, env), h = evaluate(hi, env);
        if (!l || !h || *l < 0 || *h >= shape) return false;
        extent = std::max(extent, *h - *l + 1);
        highest_lo = std::max(highest_lo, *l);
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
    // The min only when some iteration needs it (a shorter region near the end).
    if (highest_lo <= shape - extent)
      out.push_back(LoopRange(lo, extent));
    else
      out.push_back(LoopRange(Binary::make(BinaryOp::Min, lo, make_i32(shape - extent)), extent));
  }
  return out;
}

Stmt prefetch_hint(const SchedulePrimitive& p, const Expr& body, const VarRef& at,
                   const std::vector<LoopBounds>& inside, const std::vector<LoopBounds>& outside,
                   const PaddedStorage& padded) {
  struct FindBuffer : IRVisitor {
    std::string name;
    Buffer found;
    void visit_Load(const Load* op) override {
      if (!found && op->buffer->name == name) found = op->buffer;
      IRVisitor::visit_Load(op);
    }
  } find;
  find.name = p.tensor;
  find.visit(body);
  // The stage reads the tensor (the frontend checked), but the read may be gone: a min/max
  // whose result the bounds decide drops its other operand (min(i32(B[...]), -2147483647)
  // is -2147483647 for u16 B; found by tools/difftest.py). Nothing is read, so nothing to fetch.
  if (!find.found) return Stmt();
  Stage tensor;
  tensor.out = find.found;
  std::vector<LoopRange> region = compute_at_region(tensor, body, inside, outside);
  std::map<const VarNode*, Expr> ahead = {{at.get(), Binary::make(BinaryOp::Add, var_expr(at), make_i32(p.factors[0]))}};
  // The region stays within T's logical shape; the addresses are those of T's storage (its
  // storage_align padding, which changes the row stride and the buffer's data variable).
  const Buffer& t = find.found;
  auto storage_it = padded.find(t.get());
  const Buffer& storage = storage_it == padded.end() ? t : storage_it->second;
  size_t rank = t->shape.size();
  int64_t eb = t->dtype.bytes(), stride = 1;
  Expr offset = make_i32(0);
  for (size_t d = rank; d-- > 0;) {
    Expr lo = substitute(region[d].min, ahead);
    lo = Binary::make(BinaryOp::Max, Binary::make(BinaryOp::Min, lo, make_i32(t->shape[d] - region[d].extent)),
                      make_i32(0));
    offset = Binary::make(BinaryOp::Add, offset, Binary::make(BinaryOp::Mul, lo, make_i32(stride * eb)));
    stride *= storage->shape[d];
  }
  int64_t width = region[rank - 1].extent * eb;
  int64_t height = rank >= 2 ? region[rank - 2].extent : 1;
  int64_t row = rank >= 2 ? storage->shape[rank - 1] * eb : width;
  Expr hint = Call::make(CallKind::Intrinsic, kPrefetch,
                         {var_expr(storage->data), offset, make_i32(width), make_i32(height), make_i32(row)}, p.span);
  return Evaluate::make(hint, p.span);
}

}  // namespace dspc
