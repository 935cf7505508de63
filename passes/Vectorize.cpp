// vectorize
//  1. Bottom-up over the function: a loop's body is handled before the loop, so an inner
//     vectorized loop is already vector code (or serial) when its enclosing loop is looked at.
//  2. A `vectorized` loop for v in [min, min + L) is rewritten by LaneWidener with
//     v -> Ramp(min, 1, L). Each expression comes back scalar (it does not depend on the lanes)
//     or with L lanes. Integer index algebra keeps ramps as ramps: Ramp + s, Ramp - s, Ramp * s,
//     Ramp + Ramp and same-width casts of a ramp give ramps (exact under wrap-around), so an
//     index y * W + x stays a stride-1 ramp and codegen emits one dense vector access.
//     Other mixes broadcast the scalar operand.
//     A let whose value becomes a ramp or a broadcast is substituted into its body, for the
//     same reason; other vector lets bind a vector variable.
//  3. "local" allocations inside the loop hold one value per lane: their shape is multiplied
//     by L and element i of lane l lives at i * L + l, so a scalar index i becomes
//     Ramp(i * L, 1, L).
//  4. Anything LaneWidener cannot express throws CannotVectorize; the loop then stays a serial
//     loop (see Vectorize.h for the cases).
//  5. A reduction along the vectorized loop: a one-element "local" integer accumulator allocated
//     outside it, which the loop only updates (acc = acc + g, min(acc, g), max(acc, g): wrapping
//     sums, minima and maxima may be reassociated), becomes a vector of M partial results, M
//     lanes of one vector register of its type. A vector update folds the loop's L lanes of g
//     into M (VectorReduce: on HVX one vrmpy for bytes summed into words) and combines them
//     lane-wise; the init fills every lane with the operator's identity (and lane 0 with the
//     init when it is another value), a scalar update (a remainder loop) updates lane 0, and a
//     read is the reduction of the M lanes to one: the horizontal reduction runs once, after
//     the loops. The M lanes always combine to the accumulator's value, whatever lane of them
//     each value went to.
//  6. After the loops are vector code, a select of integer lanes decided by a comparison is
//     computed in the lanes of the narrowest data the comparison reads when every value it
//     compares and chooses fits there, and a vector reduction folds it or its comparison is
//     already in those lanes (NarrowLaneSelects: a histogram's `select(i32(I >> 4) == b, 1,
//     0)` is a byte compare and a byte select, widened once); a lane shift right by
//     a constant compared with a uniform value is a mask or a bound instead (without_shift).
//  7. A vector min (max) reduction of select(C, index ramp, F) along a serial loop, the first
//     (last) index where C holds, keeps per lane the loop's first (last) iteration where C
//     holds in C's own lanes, and turns it into indices once after the loop (first_index).
#include "passes/Vectorize.h"

#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>

#include "compiler/arith/Semantics.h"
#include "compiler/ir/Externs.h"
#include "compiler/ir/IRVisitor.h"
#include "compiler/ir/ScalarOnly.h"
#include "compiler/arith/IndexBounds.h"
#include "compiler/arith/LaneOffsets.h"
#include "passes/support/StageLoopNest.h"
#include "compiler/arith/Simplify.h"

namespace dspc {

namespace {

struct CannotVectorize {
  std::string why;
};

bool is_vector(const Expr& e) { return e.dtype().lanes > 1; }

// A reduction accumulator kept as a vector of partial results (step 5): the vector buffer that
// replaces the one-element accumulator, its operator and its lanes.
struct VectorAccumulator {
  Buffer vec;
  ReduceOp op;
  int lanes;
};
using VectorAccumulators = std::unordered_map<const BufferNode*, VectorAccumulator>;

// The operator of `value` as an update of the accumulator `acc`, acc[0] = acc[0] op g (either
// operand order), with g (returned in `g`) not reading acc; nullopt otherwise.
std::optional<ReduceOp> accumulator_update(const Buffer& acc, const Expr& value, Expr& g) {
  const auto* b = value.as<Binary>();
  if (!b) return std::nullopt;
  std::optional<ReduceOp> op;
  if (b->op == BinaryOp::Add) op = ReduceOp::Sum;
  if (b->op == BinaryOp::Min) op = ReduceOp::Min;
  if (b->op == BinaryOp::Max) op = ReduceOp::Max;
  if (!op) return std::nullopt;
  auto is_acc = [&](const Expr& e) {
    const auto* l = e.as<Load>();
    const IntImm* i = l && l->indices.size() == 1 ? as_int(l->indices[0]) : nullptr;
    return l && l->buffer == acc && i && i->value == 0;
  };
  struct Reads : IRVisitor {
    const BufferNode* acc;
    bool found = false;
    void visit_Load(const Load* op) override {
      found |= op->buffer.get() == acc;
      IRVisitor::visit_Load(op);
    }
  };
  for (int order = 0; order < 2; ++order) {
    const Expr& a = order ? b->b : b->a;
    const Expr& other = order ? b->a : b->b;
    if (!is_acc(a)) continue;
    Reads r;
    r.acc = acc.get();
    r.visit(other);
    if (r.found) return std::nullopt;
    g = other;
    return op;
  }
  return std::nullopt;
}

// The operator when `acc` (a one-element local integer buffer) is a reduction along a
// vectorized loop inside `body` (step 5): some vectorized loop stores to it, and every
// vectorized loop that touches it only updates it with that one operator (nothing else there
// reads it, so its lanes may be reassociated). nullopt otherwise.
std::optional<ReduceOp> vector_accumulation(const Stmt& body, const Buffer& acc) {
  struct Scan : IRVisitor {
    const Buffer* acc;
    int depth = 0;  // vectorized loops around
    bool ok = true, updated = false;
    std::optional<ReduceOp> op;
    int loads = 0, updates = 0;  // inside vectorized loops
    using IRVisitor::visit;
    void visit_For(const For* f) override {
      depth += f->for_kind == ForKind::Vectorized;
      IRVisitor::visit_For(f);
      depth -= f->for_kind == ForKind::Vectorized;
    }
    void visit_Load(const Load* l) override {
      if (depth && l->buffer == *acc) ++loads;
      IRVisitor::visit_Load(l);
    }
    void visit_Store(const Store* s) override {
      if (depth && s->buffer == *acc) {
        Expr g;
        std::optional<ReduceOp> o = accumulator_update(*acc, s->value, g);
        if (!o || (op && *op != *o)) ok = false;
        op = o;
        ++updates;
        updated = true;
      }
      IRVisitor::visit_Store(s);
    }
  } scan;
  scan.acc = &acc;
  scan.visit(body);
  if (!scan.ok || !scan.updated || scan.loads != scan.updates) return std::nullopt;
  return scan.op;
}

// The scalar a broadcast holds, or the expression itself when it is scalar; null otherwise.
Expr scalar_of(const Expr& e) {
  if (!is_vector(e)) return e;
  if (const auto* b = e.as<Broadcast>()) return b->value;
  return Expr();
}

class LaneWidener : public IRMutator {
 public:
  LaneWidener(const VarNode* var, Expr ramp, int lanes, const VectorAccumulators* accs = nullptr)
      : lanes_(lanes), accs_(accs) {
    replace_[var] = std::move(ramp);
  }
  // Two loop variables at once, each given its lane values (a fused pair of loops).
  LaneWidener(const VarNode* outer, Expr outer_lanes, const VarNode* inner, Expr inner_lanes, int lanes)
      : lanes_(lanes), fused_(true) {
    replace_[outer] = std::move(outer_lanes);
    replace_[inner] = std::move(inner_lanes);
  }

  // A scalar value for a variable (a loop of one iteration between a fused pair).
  void bind(const VarNode* var, Expr value) { replace_[var] = std::move(value); }

  Expr widen(const Expr& e) const {
    if (is_vector(e)) return e;
    return Broadcast::make(e, lanes_, e->span);
  }

  Expr mutate_Var(const Var* op, const Expr& self) override {
    auto it = replace_.find(op);
    return it == replace_.end() ? self : it->second;
  }

  Expr mutate_Binary(const Binary* op, const Expr& self) override {
    Expr a = mutate(op->a), b = mutate(op->b);
    if (!is_vector(a) && !is_vector(b)) {
      if (a.same_as(op->a) && b.same_as(op->b)) return self;
      return Binary::make(op->op, a, b, op->span);
    }
    if (op->dtype.is_integer())
      if (Expr r = ramp_algebra(op->op, a, b, op->span)) return r;
    return Binary::make(op->op, widen(a), widen(b), op->span);
  }

  Expr mutate_Cast(const Cast* op, const Expr& self) override {
    Expr v = mutate(op->value);
    if (!is_vector(v)) return v.same_as(op->value) ? self : Cast::make(op->dtype, v, op->span);
    DataType to = op->dtype.with_lanes(lanes_);
    if (const auto* r = v.as<Ramp>()) {
      // Truncating or same-width integer casts commute with base + i * stride (mod 2^bits).
      DataType from = r->base.dtype();
      if (to.is_integer() && to.bits <= from.bits) {
        DataType s = to.with_lanes(1);
        return Ramp::make(simplify_expr(Cast::make(s, r->base)), simplify_expr(Cast::make(s, r->stride)), lanes_,
                          op->span);
      }
    }
    if (const auto* bc = v.as<Broadcast>())
      return Broadcast::make(Cast::make(op->dtype, bc->value, op->span), lanes_, op->span);
    return Cast::make(to, v, op->span);
  }

  Expr mutate_Select(const Select* op, const Expr& self) override {
    Expr c = mutate(op->cond), t = mutate(op->t), f = mutate(op->f);
    if (!is_vector(c) && !is_vector(t) && !is_vector(f)) {
      if (c.same_as(op->cond) && t.same_as(op->t) && f.same_as(op->f)) return self;
      return Select::make(c, t, f, op->span);
    }
    return Select::make(widen(c), widen(t), widen(f), op->span);
  }

  Expr mutate_Load(const Load* op, const Expr& self) override {
    if (accs_ && accs_->count(op->buffer.get()))
      throw CannotVectorize{"a read of the accumulator " + op->buffer->name + " other than its update"};
    partial_results(op->buffer);
    std::vector<Expr> idx = mutate_indices(op->indices);
    auto w = widened_.find(op->buffer.get());
    if (w != widened_.end()) return Load::make(w->second, lane_slots(idx), op->span);
    if (all_same(idx, op->indices)) return self;
    return Load::make(op->buffer, idx, op->span);
  }

  Expr mutate_Call(const Call* op, const Expr& self) override {
    Expr e = IRMutator::mutate_Call(op, self);
    for (const Expr& a : e.as<Call>()->args)
      if (is_vector(a)) throw CannotVectorize{"call of '" + op->name + "' on vector operands"};
    return e;
  }

  // A ramp or broadcast already in the body (an inner loop's vector code) must not depend on
  // the lanes: checked on its operands, before a vector one could be made into a ramp's base.
  Expr mutate_Ramp(const Ramp* op, const Expr& self) override {
    nested(mutate(op->base), op->base);
    nested(mutate(op->stride), op->stride);
    return self;
  }
  Expr mutate_Broadcast(const Broadcast* op, const Expr& self) override {
    nested(mutate(op->value), op->value);
    return self;
  }
  Expr mutate_Reduce(const Reduce*, const Expr&) override { throw CannotVectorize{"a reduction"}; }

  Stmt mutate_Store(const Store* op, const Stmt& self) override {
    if (accs_)
      if (auto it = accs_->find(op->buffer.get()); it != accs_->end()) return accumulate(op, it->second);
    partial_results(op->buffer);
    std::vector<Expr> idx = mutate_indices(op->indices);
    Expr value = mutate(op->value);
    auto w = widened_.find(op->buffer.get());
    if (w != widened_.end()) return Store::make(w->second, lane_slots(idx), widen(value), op->span);
    bool vector_index = false;
    for (const Expr& i : idx) vector_index |= is_vector(i);
    if (!vector_index) {
      // Every lane would store to the same address: only a store that does not depend on the
      // lanes at all could stay, and it would then run once instead of L times.
      throw CannotVectorize{"a store to " + op->buffer->name + " at an address that does not depend on the lanes"};
    }
    if (all_same(idx, op->indices) && value.same_as(op->value)) return self;
    return Store::make(op->buffer, idx, widen(value), op->span);
  }

  Stmt mutate_Allocate(const Allocate* op, const Stmt&) override {
    const Buffer& b = op->buffer;
    if (b->scope != StorageScope::Local) throw CannotVectorize{"an allocation of " + b->name + " inside the loop"};
    std::vector<int64_t> shape = b->shape;
    shape.back() *= lanes_;
    if (shape.size() != 1) throw CannotVectorize{"a multi-dimensional local allocation"};
    Buffer wide = BufferNode::make(b->name, b->dtype, shape, b->scope, b->span);
    widened_[b.get()] = wide;
    return Allocate::make(wide, mutate(op->body), op->span);
  }

  Stmt mutate_LetStmt(const LetStmt* op, const Stmt& self) override {
    Expr v = mutate(op->value);
    if (!is_vector(v)) {
      // A fresh variable: power_of_two_pieces widens the body more than once, and each copy
      // binds its own (the verifier rejects a variable bound twice).
      VarRef fresh = VarNode::make(op->var->name, op->var->dtype, op->var->span);
      replace_[op->var.get()] = var_expr(fresh);
      return LetStmt::make(fresh, v, mutate(op->body), op->span);
    }
    if (v.as<Ramp>() || v.as<Broadcast>() || (fused_ && v.dtype().is_integer() && !reads_memory(v))) {
      // Substituted, so that index algebra on it still sees a ramp (dense accesses); in a
      // fused pair of loops, any index arithmetic (x0 + j / L, j % L), whose lane offsets the
      // accesses are then checked and emitted from.
      replace_[op->var.get()] = v;
      return mutate(op->body);
    }
    VarRef lanes_var = VarNode::make(op->var->name, v.dtype(), op->var->span);
    replace_[op->var.get()] = var_expr(lanes_var);
    return LetStmt::make(lanes_var, v, mutate(op->body), op->span);
  }

  Stmt mutate_For(const For* op, const Stmt& self) override {
    if (op->for_kind == ForKind::Vectorized) throw CannotVectorize{"a vectorized loop inside"};
    Expr lo = mutate(op->min), ext = mutate(op->extent);
    if (is_vector(lo) || is_vector(ext)) throw CannotVectorize{"a loop whose bounds depend on the lanes"};
    // A fresh loop variable, as for a LetStmt above.
    VarRef fresh = VarNode::make(op->var->name, op->var->dtype, op->var->span);
    replace_[op->var.get()] = var_expr(fresh);
    return For::make(fresh, lo, ext, op->for_kind, mutate(op->body), op->span);
  }

  Stmt mutate_IfThenElse(const IfThenElse* op, const Stmt& self) override {
    Stmt s = IRMutator::mutate_IfThenElse(op, self);
    if (is_vector(s.as<IfThenElse>()->cond)) throw CannotVectorize{"a condition that depends on the lanes"};
    return s;
  }

  Stmt mutate_Evaluate(const Evaluate* op, const Stmt& self) override {
    Stmt s = IRMutator::mutate_Evaluate(op, self);
    const Expr& v = s.as<Evaluate>()->value;
    if (const auto* c = v.as<Call>(); c && call_has_side_effects(c->call_kind, c->name))
      throw CannotVectorize{"a call of '" + c->name + "' in the loop"};
    return s;
  }

 private:
  // Ramp-preserving integer algebra; null when the operands do not fit a rule.
  Expr ramp_algebra(BinaryOp op, const Expr& a, const Expr& b, Span span) const {
    const auto* ra = a.as<Ramp>();
    const auto* rb = b.as<Ramp>();
    Expr sa = scalar_of(a), sb = scalar_of(b);
    auto ramp = [&](Expr base, Expr stride) {
      return Ramp::make(simplify_expr(std::move(base)), simplify_expr(std::move(stride)), lanes_, span);
    };
    switch (op) {
      case BinaryOp::Add:
        if (ra && sb) return ramp(Binary::make(op, ra->base, sb), ra->stride);
        if (sa && rb) return ramp(Binary::make(op, sa, rb->base), rb->stride);
        if (ra && rb)
          return ramp(Binary::make(op, ra->base, rb->base), Binary::make(op, ra->stride, rb->stride));
        return Expr();
      case BinaryOp::Sub:
        if (ra && sb) return ramp(Binary::make(op, ra->base, sb), ra->stride);
        if (ra && rb)
          return ramp(Binary::make(op, ra->base, rb->base), Binary::make(op, ra->stride, rb->stride));
        return Expr();
      case BinaryOp::Mul:
        if (ra && sb) return ramp(Binary::make(op, ra->base, sb), Binary::make(op, ra->stride, sb));
        if (sa && rb) return ramp(Binary::make(op, sa, rb->base), Binary::make(op, sa, rb->stride));
        return Expr();
      default: return Expr();
    }
  }

  std::vector<Expr> mutate_indices(const std::vector<Expr>& in) {
    std::vector<Expr> out;
    bool vector = false;
    for (const Expr& i : in) {
      out.push_back(mutate(i));
      vector |= is_vector(out.back());
    }
    if (vector)
      for (Expr& i : out) i = widen(i);
    return out;
  }

  // Element i of a widened buffer, one slot per lane: Ramp(i * L, 1, L).
  std::vector<Expr> lane_slots(const std::vector<Expr>& idx) const {
    if (idx.size() != 1 || is_vector(idx[0])) throw CannotVectorize{"a lane-dependent index into local state"};
    const Expr& i = idx[0];
    Expr base = simplify_expr(Binary::make(BinaryOp::Mul, i, make_const(i.dtype(), lanes_)));
    return {Ramp::make(base, make_const(i.dtype(), 1), lanes_, i->span)};
  }

  static bool all_same(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    for (size_t k = 0; k < a.size(); ++k)
      if (!a[k].same_as(b[k])) return false;
    return true;
  }

  static Expr nested(const Expr& e, const Expr& self) {
    if (!e.same_as(self)) throw CannotVectorize{"a vector expression that depends on the lanes"};
    return e;
  }

  // acc[0] = acc[0] op g over the loop's lanes, with acc a vector accumulator: its M partial
  // results combined lane-wise with g's L lanes folded into M.
  Stmt accumulate(const Store* op, const VectorAccumulator& acc) {
    Expr g;
    std::optional<ReduceOp> rop = accumulator_update(op->buffer, op->value, g);
    if (!rop || *rop != acc.op)
      throw CannotVectorize{"an update of " + op->buffer->name + " that is not its reduction"};
    // Into all M partial results, or, for a lane count M does not divide (a loop of 100
    // lanes, before it is cut into power-of-two pieces), into as many of them as divide it.
    int m = std::gcd(acc.lanes, lanes_);
    Expr value = widen(mutate(g));
    if (lanes_ > m) value = VectorReduce::make(acc.op, value, m, op->span);
    Expr slots = m > 1 ? Ramp::make(make_i32(0), make_i32(1), m, op->span) : make_i32(0);
    Expr old = Load::make(acc.vec, {slots}, op->span);
    return Store::make(acc.vec, {slots}, Binary::make(reduce_combine_op(acc.op), old, value, op->span),
                       op->span);
  }

  // The partial results of an accumulator (an inner vectorized loop's reduction) inside
  // another vectorized loop: a reduction across both loops' lanes is not done.
  void partial_results(const Buffer& b) const {
    if (accs_)
      for (const auto& [acc, v] : *accs_)
        if (v.vec == b)
          throw CannotVectorize{"the partial results of " + b->name + " in an outer vectorized loop"};
  }

  static bool reads_memory(const Expr& e) {
    struct Loads : IRVisitor {
      bool found = false;
      using IRVisitor::visit;
      void visit_Load(const Load* op) override {
        found = true;
        IRVisitor::visit_Load(op);
      }
      void visit_Call(const Call* op) override {
        found = true;
        IRVisitor::visit_Call(op);
      }
    } l;
    l.visit(e);
    return l.found;
  }

  int lanes_;
  bool fused_ = false;
  const VectorAccumulators* accs_ = nullptr;
  std::unordered_map<const VarNode*, Expr> replace_;
  std::unordered_map<const BufferNode*, Buffer> widened_;
};

// After the loops inside an accumulator's allocation are vectorized (step 5): its remaining
// scalar accesses as accesses of the vector of partial results. A scalar update updates lane 0;
// another store sets lane 0 and the init value into the others; a read reduces the lanes.
class AccumulatorAccesses : public IRMutator {
 public:
  AccumulatorAccesses(Buffer acc, VectorAccumulator vec) : acc_(std::move(acc)), vec_(std::move(vec)) {}

  Expr mutate_Load(const Load* op, const Expr& self) override {
    if (op->buffer != acc_) return IRMutator::mutate_Load(op, self);
    return VectorReduce::make(vec_.op, Load::make(vec_.vec, {slots(op->span)}, op->span), 1, op->span);
  }

  Stmt mutate_Store(const Store* op, const Stmt& self) override {
    if (op->buffer != acc_) return IRMutator::mutate_Store(op, self);
    Expr g;
    Span s = op->span;
    Expr lane0 = make_i32(0);
    if (accumulator_update(acc_, op->value, g) == std::optional<ReduceOp>(vec_.op)) {
      Expr old = Load::make(vec_.vec, {lane0}, s);
      return Store::make(vec_.vec, {lane0}, Binary::make(reduce_combine_op(vec_.op), old, mutate(g), s), s);
    }
    DataType t = vec_.vec->dtype;
    Expr init = make_value(t, reduce_init(vec_.op, t), s);
    Stmt fill = Store::make(vec_.vec, {slots(s)}, Broadcast::make(init, vec_.lanes, s), s);
    Expr folded = simplify_expr(op->value);
    const IntImm* k = as_int(folded);
    if (k && k->value == as_int(init)->value) return fill;
    return Seq::make({fill, Store::make(vec_.vec, {lane0}, mutate(op->value), s)}, s);
  }

 private:
  Expr slots(Span s) const { return Ramp::make(make_i32(0), make_i32(1), vec_.lanes, s); }
  Buffer acc_;
  VectorAccumulator vec_;
};

class LoopVectorizer : public IRMutator {
 public:
  explicit LoopVectorizer(const Target& target)
      : hexagon_(target.arch == Arch::hexagon), vector_bytes_(target.vector_bytes) {}

  // A reduction along a vectorized loop inside (step 5): the accumulator becomes a vector of
  // partial results, one register of its type.
  Stmt mutate_Allocate(const Allocate* op, const Stmt& self) override {
    const Buffer& b = op->buffer;
    int m = static_cast<int>(vector_bytes_ / std::max(b->dtype.bytes(), 1));
    std::optional<ReduceOp> rop;
    if (b->scope != StorageScope::Local || b->shape != std::vector<int64_t>{1} || !b->dtype.is_integer() ||
        b->dtype.lanes != 1 || m < 2 || !(rop = vector_accumulation(op->body, b)) ||
        (hexagon_ && b->dtype.bits == 64))
      return IRMutator::mutate_Allocate(op, self);
    VectorAccumulator acc{BufferNode::make(b->name, b->dtype, {m}, b->scope, b->span), *rop, m};
    accs_[b.get()] = acc;
    Stmt body = mutate(op->body);
    accs_.erase(b.get());
    body = AccumulatorAccesses(b, acc).mutate(body);
    return Allocate::make(acc.vec, body, op->span);
  }

  Stmt mutate_For(const For* op, const Stmt& self) override {
    // A serial loop of one iteration at a constant value around vectorized loops (cq of one
    // group of four channels): that value in its body, so that the accesses' lane offsets
    // inside see a constant (min(cq * 4 + j, 2) in a fused loop's index: per-lane constants).
    if (op->for_kind == ForKind::Serial)
      if (const IntImm* e = as_int(op->extent); e && e->value == 1 && as_int(op->min) && has_vectorized_loop(op->body)) {
        Stmt loop = For::make(op->var, op->min, op->extent, op->for_kind,
                              substitute(op->body, {{op->var.get(), op->min}}), op->span);
        return IRMutator::mutate_For(loop.as<For>(), loop);
      }
    if (hexagon_)
      if (Stmt fused = fuse_short_vector(op)) return fused;
    Stmt inner = IRMutator::mutate_For(op, self);
    const auto* loop = inner.as<For>();
    if (loop->for_kind != ForKind::Vectorized) return inner;
    const IntImm* extent = as_int(loop->extent);
    if (extent && extent->value == 1)
      return LetStmt::make(loop->var, loop->min, loop->body, loop->span);
    if (extent && extent->value > 1 && extent->value <= kMaxLanes && !must_stay_scalar(loop->body, hexagon_)) {
      int lanes = static_cast<int>(extent->value);
      try {
        Stmt whole = widen_at(loop, loop->min, lanes);
        if (!hexagon_) return whole;
        // On Hexagon a loop whose widest vector of values is narrower than one vector register
        // runs as scalar code: LLVM 19 widens such short vectors to HVX registers and, in
        // corners found by tools/difftest.py, aborts (HexagonISD::VEXTRACTW, a v4i1
        // truncate, a <2 x i8> compare), crashes, or stores wrong lanes (overlapping <4 x
        // i16> stores to VTCM). A fraction of one register gains little over scalar code.
        int64_t lane_bytes = widest_lane_bytes(whole);
        if (lanes * lane_bytes < vector_bytes_) return scalar_loop(loop, loop->min, lanes);
        if ((lanes & (lanes - 1)) != 0) return power_of_two_pieces(loop, lanes, vector_bytes_ / lane_bytes);
        return whole;
      } catch (const CannotVectorize&) {
      }
    }
    return For::make(loop->var, loop->min, loop->extent, ForKind::Serial, loop->body, loop->span);
  }

 private:
  // The body with the loop variable replaced by lanes [at, at + lanes).
  Stmt widen_at(const For* loop, const Expr& at, int lanes) const {
    LaneWidener w(loop->var.get(), Ramp::make(at, make_i32(1), lanes, loop->span), lanes, &accs_);
    return w.mutate(loop->body);
  }

  // On Hexagon, a vectorized loop v of L lanes (a power of two) whose values fill only 1/k of a
  // vector register (64 u8 channels: half of one), directly inside a loop x (through loops of
  // extent 1 only), runs as one loop of k * L lanes over k consecutive x at once: lane j is
  // x = x0 + j / L, v = v.min + j % L. A stage stored row-major with v innermost and x next
  // (O[y, x, c] with c's extent L) then stores whole dense vectors, and its loads are dense or
  // runs of L consecutive elements, which codegen reads without gathers. Only when every
  // store outside the body's local state is dense in the fused lanes, every load's lanes are
  // runs of at least an eighth of a register (16 bytes on HVX: a u8 NHWC pixel of 16 channels), and the body stores only what it does not read (so
  // that lanes are independent, and a last group shifted inwards may recompute a few x).
  // Null when the pair does not qualify: the loops are then handled one by one.
  Stmt fuse_short_vector(const For* op) {
    const IntImm* extent = as_int(op->extent);
    if (op->for_kind == ForKind::Vectorized || !extent || extent->value < 2) return Stmt();
    std::vector<const For*> units;
    Stmt s = op->body;
    while (const auto* f = s.as<For>()) {
      if (f->for_kind == ForKind::Vectorized) break;
      const IntImm* e = as_int(f->extent);
      if (!e || e->value != 1) return Stmt();
      units.push_back(f);
      s = f->body;
    }
    const auto* v = s.as<For>();
    if (!v || v->for_kind != ForKind::Vectorized) return Stmt();
    const IntImm* ve = as_int(v->extent);
    if (!ve || ve->value < 2) return Stmt();
    // What is inside the vector loop first, as mutate_For does; simplified while its indices
    // are scalar (x + 1 - 1 is x), as the simplifier folds little of vector index algebra.
    Stmt vbody = simplify_stmt(mutate(v->body));
    if (must_stay_scalar(vbody, hexagon_) || !stores_only_what_it_does_not_read(vbody)) return Stmt();
    int64_t L = ve->value;
    Stmt inner_loop = For::make(v->var, v->min, v->extent, v->for_kind, vbody, v->span);
    // k from the narrowest element the body loads or stores, as a vectorized loop's lanes are a
    // vector of its narrowest type (u8 pixels averaged in u16: 128 lanes, the u16 values a
    // register pair); the loop is short when its widest values fill less than a vector.
    int64_t lane_bytes = 0, widest = 0;
    try {
      Stmt widened = widen_at(inner_loop.as<For>(), v->min, static_cast<int>(L));
      lane_bytes = narrowest_access_bytes(widened);
      // HVX lanes are at most 32 bits: a 64-bit intermediate is a 32-bit idiom (a rounding
      // multiply-high written through i64, codegen's match_wide_arith) or scalar code either way,
      // so it does not make the loop's vectors whole (ONNX's requantization of 16 channels).
      widest = std::min<int64_t>(widest_lane_bytes(widened), 4);
    } catch (const CannotVectorize&) {
      return Stmt();
    }
    // Short when its narrowest accesses fill less than a vector, even where its widest values
    // fill one or more (a depthwise convolution of 32 u8 channels accumulating in i32: four
    // pixels' dense 128-byte loads, the i32 lanes four registers, instead of quarter-vector
    // loads per pixel).
    if (L * lane_bytes >= vector_bytes_ || vector_bytes_ % widest) return Stmt();
    bool wide_fills = L * widest >= vector_bytes_;
    // One register of k * L lanes when L's lanes fill a power-of-two fraction of a vector of the
    // narrowest element and every load is then runs (fused_accesses_ok); else L registers, k a
    // register's lanes of the widest values, when every load is then windowed (three u8 planes
    // to [y, x, 3]: each register of the output reads 43 consecutive x of each plane).
    int64_t k_runs = (L & (L - 1)) == 0 && vector_bytes_ % (L * lane_bytes) == 0 ? vector_bytes_ / (L * lane_bytes) : 0;
    if (Stmt f = fuse_as(op, v, vbody, units, k_runs, Fuse::Runs)) return f;
    if (wide_fills) return Stmt();
    // Windowed: the fewest x whose k * L lanes are whole registers of the widest values (L = 3:
    // 128 u8 x in three registers; L = 8: 16 x in one), so that extents of x below a register's
    // lanes (a 64-pixel row of 8 channels) still fuse.
    int64_t per = vector_bytes_ / widest;
    int64_t kw = per / std::gcd(per, L);
    if (Stmt f = fuse_as(op, v, vbody, units, kw, Fuse::Windowed, per)) return f;
    // Reads that give each pixel's few elements to all its lanes (I[y + r, x + t, c] in a fused
    // loop over x and k, k the output channels of a convolution): with the small reduction loops
    // around them unrolled, their offsets are constants, and each register's lanes lie in aligned
    // vectors that codegen reads whole and permutes.
    if (Stmt unrolled = unroll_small_loops(vbody); !unrolled.same_as(vbody))
      return fuse_as(op, v, simplify_stmt(unrolled), units, k_runs, Fuse::RunsOrWindows);
    return Stmt();
  }

  static bool has_vectorized_loop(const Stmt& body) {
    struct Find : IRVisitor {
      bool found = false;
      using IRVisitor::visit;
      void visit_For(const For* op) override {
        if (op->for_kind == ForKind::Vectorized) found = true;
        if (!found) IRVisitor::visit_For(op);
      }
    } find;
    find.visit(body);
    return find.found;
  }

  // The body with every serial loop of constant bounds inside it written out, when the copies
  // number at most kMaxUnrolledCopies in all (the same body otherwise).
  static Stmt unroll_small_loops(const Stmt& body) {
    int64_t copies = 1;
    bool all_constant = true;
    struct Count : IRVisitor {
      int64_t* copies;
      bool* ok;
      using IRVisitor::visit;
      void visit_For(const For* op) override {
        const IntImm* m = as_int(op->min);
        const IntImm* e = as_int(op->extent);
        if (!m || !e || op->for_kind == ForKind::Vectorized || op->for_kind == ForKind::Parallel) *ok = false;
        else *copies *= std::max<int64_t>(e->value, 1);
        IRVisitor::visit_For(op);
      }
    } count;
    count.copies = &copies;
    count.ok = &all_constant;
    count.visit(body);
    if (!all_constant || copies <= 1 || copies > kMaxUnrolledCopies) return body;
    struct Unroll : IRMutator {
      using IRMutator::mutate;
      Stmt mutate_For(const For* op, const Stmt& self) override {
        Stmt inner = mutate(op->body);
        int64_t m = as_int(op->min)->value, e = as_int(op->extent)->value;
        std::vector<Stmt> stmts;
        for (int64_t i = 0; i < e; ++i)
          stmts.push_back(substitute(inner, {{op->var.get(), make_const(op->var->dtype, m + i)}}));
        if (stmts.empty()) return Seq::make({}, op->span);
        return stmts.size() == 1 ? stmts[0] : Seq::make(std::move(stmts), op->span);
      }
    } unroll;
    return unroll.mutate(body);
  }

  // fuse_short_vector's loop of k * L lanes over k consecutive x; null when k is 0, when the
  // loops do not qualify, or when some access is not as `windowed` (false: runs of at least an
  // eighth of a register; true: within a window of two registers per register of lanes) requires.
  enum class Fuse { Runs, Windowed, RunsOrWindows };
  Stmt fuse_as(const For* op, const For* v, const Stmt& vbody, const std::vector<const For*>& units, int64_t k,
               Fuse mode, int64_t register_lanes = 0) {
    bool windowed = mode == Fuse::Windowed;
    int64_t L = as_int(v->extent)->value, E = as_int(op->extent)->value;
    if (!k || E < k || k * L > kMaxLanes) return Stmt();
    int N = static_cast<int>(k * L);
    DataType xt = op->var->dtype, vt = v->var->dtype;
    VarRef xo = VarNode::make(op->var->name + "_f", xt, op->span);
    // Windowed: one statement per register (lanes r * n .. r * n + n - 1), so that every
    // vector is one register and codegen's shuffles are of single registers (LLVM 19 splits a
    // shuffle of three registers lane by lane).
    // (register_lanes: the lanes of one register of the widest values, which divide k * L.)
    int pieces = windowed ? static_cast<int>(N / register_lanes) : 1, n = windowed ? static_cast<int>(register_lanes) : N;
    // The fused body for the group of k x from x0; null when an access does not qualify.
    auto group = [&](const Expr& x0) -> Stmt {
      std::vector<Stmt> stmts;
      for (int r = 0; r < pieces; ++r) {
        Expr j = Ramp::make(make_const(xt, int64_t(r) * n), make_const(xt, 1), n, op->span);
        Expr xl = Binary::make(BinaryOp::Add, Broadcast::make(x0, n),
                               Binary::make(BinaryOp::Div, j, Broadcast::make(make_const(xt, L), n)));
        Expr jv = Ramp::make(make_const(vt, int64_t(r) * n), make_const(vt, 1), n, op->span);
        Expr vl = Binary::make(BinaryOp::Add, Broadcast::make(v->min, n),
                               Binary::make(BinaryOp::Mod, jv, Broadcast::make(make_const(vt, L), n)));
        Stmt piece;
        try {
          LaneWidener w(op->var.get(), xl, v->var.get(), vl, n);
          // The one-iteration loops between the pair are their first values, substituted so
          // that the accesses' lane offsets and alignment see through them.
          for (const For* u : units) w.bind(u->var.get(), u->min);
          piece = w.mutate(vbody);
        } catch (const CannotVectorize&) {
          return Stmt();
        }
        if (windowed ? widest_lane_bytes(piece) * n != vector_bytes_ || !windowed_accesses_ok(piece, vector_bytes_)
                     : narrowest_access_bytes(piece) * N != vector_bytes_ ||
                           !fused_accesses_ok(piece, vector_bytes_ / 8, mode == Fuse::RunsOrWindows))
          return Stmt();
        piece = RampIndices().mutate(piece);
        stmts.push_back(piece);
      }
      return stmts.size() == 1 ? stmts[0] : Seq::make(std::move(stmts), op->span);
    };
    Expr start = Binary::make(BinaryOp::Mul, var_expr(xo), make_const(xt, k));
    if (mode == Fuse::RunsOrWindows && E % k) {
      // Window reads need the group's start at a known multiple of k: the whole groups from
      // x.min + xo * k, then the last k x as one more group where its reads qualify too, else
      // the x left over in the loop as it was (scalar code).
      Stmt main = group(simplify_expr(Binary::make(BinaryOp::Add, op->min, start)));
      if (!main) return Stmt();
      Stmt loop = For::make(xo, make_const(xt, 0), make_const(xt, E / k), op->for_kind, main, op->span);
      Stmt tail = group(simplify_expr(Binary::make(BinaryOp::Add, op->min, make_const(xt, E - k))));
      if (!tail) {
        Expr rest = simplify_expr(Binary::make(BinaryOp::Add, op->min, make_const(xt, E / k * k)));
        Stmt left = For::make(op->var, rest, make_const(xt, E % k), op->for_kind, op->body, op->span);
        tail = IRMutator::mutate_For(left.as<For>(), left);
      }
      return Seq::make({loop, tail}, op->span);
    }
    // x0 = x.min + xo * k, the last group shifted inwards when k does not divide E.
    if (E % k) start = Binary::make(BinaryOp::Min, start, make_const(xt, E - k));
    Stmt body = group(simplify_expr(Binary::make(BinaryOp::Add, op->min, start)));
    if (!body) return Stmt();
    return For::make(xo, make_const(xt, 0), make_const(xt, (E + k - 1) / k), op->for_kind, body, op->span);
  }

  // A fused body's strided loads (strided_load) written as their ramp: over consecutive x,
  // ((x0 + j / L) * L + j % L) * 4 is ramp(x0 * L * 4, 4, N), which codegen's matchers (a dot
  // product's dense span of strided loads) read as such. (Dense accesses codegen reads in
  // either form.)
  struct RampIndices : IRMutator {
    static Expr as_ramp(const Expr& idx) {
      int lanes = idx.dtype().lanes;
      if (lanes < 2 || idx.as<Ramp>() || !idx.dtype().is_integer()) return idx;
      Expr base;
      std::vector<int64_t> off;
      if (!lane_offsets(idx, lanes, base, off) || !strided_load(off)) return idx;
      int64_t stride = off[1] - off[0];
      DataType t = idx.dtype().element_of();
      Expr first = simplify_expr(Binary::make(BinaryOp::Add, base, make_const(t, off[0])));
      return Ramp::make(first, make_const(t, stride), lanes, idx->span);
    }
    Expr mutate_Load(const Load* op, const Expr& self) override {
      Expr e = IRMutator::mutate_Load(op, self);
      const auto* l = e.as<Load>();
      if (l->indices.size() != 1) return e;
      Expr idx = as_ramp(l->indices[0]);
      return idx.same_as(l->indices[0]) ? e : Load::make(l->buffer, {idx}, l->span);
    }
  };

  // Lane i of a fused index as base + off[i] (compiler/arith/LaneOffsets.h); a constant base
  // is added into the offsets, and constant_base says so.
  static bool fused_offsets(const Expr& e, int lanes, std::vector<int64_t>& off, bool& constant_base) {
    Expr base;
    if (!lane_offsets(e, lanes, base, off)) return false;
    const IntImm* k = as_int(base);
    constant_base = k != nullptr;
    if (k)
      for (int64_t& o : off) o += k->value;
    return true;
  }

  // f(buffer, indices, value type, is_store) for every load and store of the body outside its
  // local state (the buffers it allocates itself).
  template <typename F>
  static void for_each_access(const Stmt& body, F f) {
    struct Walk : IRVisitor {
      F& f;
      std::unordered_map<const BufferNode*, bool> local;
      explicit Walk(F& fn) : f(fn) {}
      using IRVisitor::visit;
      void visit_Allocate(const Allocate* op) override {
        local[op->buffer.get()] = true;
        IRVisitor::visit_Allocate(op);
      }
      void visit_Load(const Load* op) override {
        if (!local.count(op->buffer.get())) f(op->buffer, op->indices, op->dtype, false);
        IRVisitor::visit_Load(op);
      }
      void visit_Store(const Store* op) override {
        if (!local.count(op->buffer.get())) f(op->buffer, op->indices, op->value.dtype(), true);
        IRVisitor::visit_Store(op);
      }
    } walk(f);
    walk.visit(body);
  }

  // A vector access's lane offsets (fused_offsets), null when its index is not of that form.
  static std::optional<std::vector<int64_t>> access_offsets(const std::vector<Expr>& idx) {
    if (idx.size() != 1 || !is_vector(idx[0])) return std::nullopt;
    std::vector<int64_t> off;
    bool cb = false;
    if (!fused_offsets(idx[0], idx[0].dtype().lanes, off, cb)) return std::nullopt;
    return off;
  }

  // Lanes at a constant stride of 2 to 4 elements (in_u8[4 * x + r] over consecutive x fused:
  // x = x0 * L + j is one ramp): as a vectorized loop of the fused lanes reads them, each
  // register's worth within four aligned vectors (codegen's window loads), or one dense span
  // with the loads of its other phases (the dot products).
  static bool strided_load(const std::vector<int64_t>& off) {
    if (off.size() < 2) return false;
    int64_t stride = off[1] - off[0];
    if (stride < 2 || stride > 4) return false;
    for (size_t i = 1; i < off.size(); ++i)
      if (off[i] - off[i - 1] != stride) return false;
    return true;
  }

  // Every store of the fused body (outside its local state) dense, every vector load's lanes
  // runs of consecutive elements at least `min_run_bytes` long (or dense), or strided
  // (strided_load); with `windows`, also within aligned windows (registers_in_windows).
  static bool fused_accesses_ok(const Stmt& body, int64_t min_run_bytes, bool windows = false) {
    bool ok = true;
    for_each_access(body, [&](const Buffer& buf, const std::vector<Expr>& idx, DataType t, bool store) {
      if (!store && t.lanes == 1) return;
      std::optional<std::vector<int64_t>> off = access_offsets(idx);
      if (!off) {
        ok = false;
        return;
      }
      int lanes = static_cast<int>(off->size());
      int64_t run = 1, elem_bytes = buf->dtype.bytes();
      if (!store && repeats_one_window(*off, min_run_bytes * 8 / elem_bytes)) return;
      if (!store && windows && registers_in_windows(idx[0], elem_bytes, min_run_bytes * 8)) return;
      if (!store && strided_load(*off)) return;
      for (int i = 1; i <= lanes; ++i) {
        if (i < lanes && (*off)[i] == (*off)[i - 1] + 1) {
          ++run;
          continue;
        }
        if (store ? run != lanes : run * elem_bytes < min_run_bytes || (run & (run - 1)) != 0) ok = false;
        run = 1;
      }
    });
    return ok;
  }

  // Whether a load's lane offsets repeat one period of n lanes (off[i] == off[i - n]; n a power
  // of two dividing the lanes, below them) whose elements lie within `per` consecutive
  // elements: a per-channel read of a fused NHWC loop (the weights F[r, t, c] of a depthwise
  // convolution, a bias B[c]), the same for every pixel. Codegen's window loads read it as one
  // or two aligned vectors and a permute, which LLVM hoists out of the pixel loop.
  static bool repeats_one_window(const std::vector<int64_t>& off, int64_t per) {
    int lanes = static_cast<int>(off.size());
    for (int n = 1; n < lanes; n *= 2) {
      if (lanes % n) break;
      bool periodic = true;
      for (int i = n; i < lanes && periodic; ++i) periodic = off[i] == off[i - n];
      if (!periodic) continue;
      auto [lo, hi] = std::minmax_element(off.begin(), off.begin() + n);
      return *hi - *lo < per;
    }
    return false;
  }

  // Whether each register's worth of a load's lanes (index `e`, elements of `eb` bytes) is what
  // codegen's window loads read without a lane-by-lane gather, not all one element: from a base
  // known to start an aligned vector, lanes within four aligned vectors (window_load); else
  // within one aligned chunk of the base's known alignment (unaligned_window_load).
  static bool registers_in_windows(const Expr& e, int64_t eb, int64_t vector_bytes) {
    int lanes = e.dtype().lanes;
    int64_t per = vector_bytes / eb;
    Expr base;
    std::vector<int64_t> off;
    if (per < 2 || lanes % per || !lane_offsets(e, lanes, base, off)) return false;
    // The base's constant term goes into the offsets, as codegen splits it out ((r + 1) * 4: 4).
    int64_t chunk = std::min(known_multiple(base, /*skip_constant=*/true) * eb, vector_bytes);
    int64_t c = constant_term(base);
    for (int64_t& o : off) o += c;
    auto floor_div = [](int64_t x, int64_t d) { return x >= 0 ? x / d : -((-x + d - 1) / d); };
    for (int p = 0; p < lanes; p += static_cast<int>(per)) {
      auto [lo, hi] = std::minmax_element(off.begin() + p, off.begin() + p + per);
      if (*hi == *lo) return false;
      if (chunk == vector_bytes ? floor_div(*hi, per) - floor_div(*lo, per) >= 4
                                : floor_div(*lo * eb, chunk) != floor_div(*hi * eb, chunk))
        return false;
    }
    return true;
  }

  // The largest power of two (up to 2^20) known to divide a scalar index from its form alone
  // (a loop variable: 1), no more than codegen's known_multiple sees.
  // With skip_constant, of the index less its constant term (constant_term).
  static int64_t known_multiple(const Expr& e, bool skip_constant = false) {
    constexpr int64_t kMax = int64_t(1) << 20;
    auto low_pow2 = [&](int64_t v) { return v == 0 ? kMax : std::min<int64_t>(v & -v, kMax); };
    if (const IntImm* k = as_int(e)) return skip_constant ? kMax : low_pow2(k->value < 0 ? -k->value : k->value);
    const auto* op = e.as<Binary>();
    if (!op) return 1;
    if (op->op == BinaryOp::Add || op->op == BinaryOp::Sub)
      return std::min(known_multiple(op->a, skip_constant), known_multiple(op->b, skip_constant));
    if (op->op == BinaryOp::Min || op->op == BinaryOp::Max) return std::min(known_multiple(op->a), known_multiple(op->b));
    if (op->op == BinaryOp::Mul) {
      if (const IntImm* k = as_int(op->b))
        return std::min(known_multiple(op->a, skip_constant) * low_pow2(k->value < 0 ? -k->value : k->value), kMax);
      return std::min(known_multiple(op->a) * known_multiple(op->b), kMax);
    }
    return 1;
  }

  // The constant term of a sum of products by constants ((r + 1) * 4 + 2: 6).
  static int64_t constant_term(const Expr& e) {
    if (const IntImm* k = as_int(e)) return k->value;
    const auto* op = e.as<Binary>();
    if (!op) return 0;
    if (op->op == BinaryOp::Add) return constant_term(op->a) + constant_term(op->b);
    if (op->op == BinaryOp::Sub) return constant_term(op->a) - constant_term(op->b);
    if (op->op == BinaryOp::Mul)
      if (const IntImm* k = as_int(op->b)) return constant_term(op->a) * k->value;
    return 0;
  }

  // Every store of the fused body (outside its local state) dense; every vector load's lanes,
  // one register's worth at a time, within two registers' worth of elements from the register's
  // lowest (codegen's window loads: one or two vector loads and a shuffle per register).
  static bool windowed_accesses_ok(const Stmt& body, int64_t vector_bytes) {
    bool ok = true;
    for_each_access(body, [&](const Buffer& buf, const std::vector<Expr>& idx, DataType t, bool store) {
      if (!store && t.lanes == 1) return;
      std::optional<std::vector<int64_t>> off = access_offsets(idx);
      if (!off) {
        ok = false;
        return;
      }
      int lanes = static_cast<int>(off->size());
      if (store) {
        for (int i = 1; i < lanes; ++i)
          if ((*off)[i] != (*off)[0] + i) ok = false;
        return;
      }
      int64_t per = vector_bytes / buf->dtype.bytes();
      if (per < 1 || lanes % per) {
        ok = false;
        return;
      }
      for (int p = 0; p < lanes; p += static_cast<int>(per)) {
        int64_t lo = (*off)[p], hi = (*off)[p];
        for (int i = p; i < p + per; ++i) lo = std::min(lo, (*off)[i]), hi = std::max(hi, (*off)[i]);
        if (hi - lo >= 2 * per) ok = false;
      }
    });
    return ok;
  }

  static Expr plus(const Expr& a, int64_t k) {
    return k == 0 ? a : simplify_expr(Binary::make(BinaryOp::Add, a, make_i32(k)));
  }

  // The narrowest element a vector access of the body (outside its local state) loads or
  // stores, in bytes; the widest lane when it has none.
  static int64_t narrowest_access_bytes(const Stmt& body) {
    int64_t bytes = 0;
    for_each_access(body, [&](const Buffer& buf, const std::vector<Expr>&, DataType t, bool) {
      if (t.lanes > 1) bytes = bytes ? std::min<int64_t>(bytes, buf->dtype.bytes()) : buf->dtype.bytes();
    });
    return bytes ? bytes : widest_lane_bytes(body);
  }

  // The bytes per lane of the widest vector values in a widened body (at least 1): loaded,
  // stored or computed values, not the index vectors of gathers and scatters, nor ramps and
  // broadcasts inside expressions (as wide as the values they feed), nor integer vectors whose
  // every lane is a constant (a fused loop's c = j % 3 in select(c == 0, ...): codegen folds
  // them into constant vectors).
  static int64_t widest_lane_bytes(const Stmt& body) {
    struct Widest : IRVisitor {
      int64_t bits = 8;
      void note(const DataType& t) {
        if (t.lanes > 1) bits = std::max<int64_t>(bits, t.bits);
      }
      using IRVisitor::visit;
      void visit(const Expr& e) override {
        if (!e) return;
        if (e.dtype().is_integer() && e.dtype().lanes > 1 && !e.as<Ramp>() && !e.as<Broadcast>()) {
          Expr base;
          std::vector<int64_t> off;
          if (lane_offsets(e, e.dtype().lanes, base, off) && as_int(base)) return;
        }
        if (!e.as<Ramp>() && !e.as<Broadcast>()) note(e.dtype());
        IRVisitor::visit(e);
      }
      void visit_Load(const Load*) override {}
      void visit_Store(const Store* op) override {
        note(op->value.dtype());
        visit(op->value);
      }
    } w;
    w.visit(body);
    return w.bits / 8;
  }

  // Lanes [at, at + lanes) as scalar code: unrolled when short, a serial loop otherwise.
  static Stmt scalar_loop(const For* loop, const Expr& at, int lanes) {
    return For::make(loop->var, at, make_i32(lanes), lanes <= kMaxUnrolledLanes ? ForKind::Unrolled : ForKind::Serial,
                     loop->body, loop->span);
  }

  // On Hexagon a vector of L lanes, L not a power of two, becomes power-of-two vectors: LLVM 19's
  // Hexagon backend widens odd vectors (<127 x i16>, <10 x i8>) and aborts in some of those
  // ("Cannot select: HexagonISD::VEXTRACTW", found by tools/difftest.py). With P the largest
  // power of two below L, a body that only stores what it does not read (every store is then
  // idempotent) runs as two overlapping P-lane vectors at min and min + L - P, as a split's
  // last iteration shifts inwards; other bodies (an update of an accumulator) run as
  // non-overlapping pieces P, P/2, ... down to `min_piece` lanes (one HVX register of values),
  // and the remaining iterations as scalar code.
  Stmt power_of_two_pieces(const For* loop, int lanes, int64_t min_piece) {
    int p = 1;
    while (p * 2 < lanes) p *= 2;
    std::vector<Stmt> pieces;
    if (p >= min_piece && stores_only_what_it_does_not_read(loop->body)) {
      pieces.push_back(widen_at(loop, loop->min, p));
      pieces.push_back(widen_at(loop, plus(loop->min, lanes - p), p));
      return Seq::make(std::move(pieces), loop->span);
    }
    int done = 0;
    for (; p >= min_piece; p /= 2) {
      if (lanes - done < p) continue;
      pieces.push_back(widen_at(loop, plus(loop->min, done), p));
      done += p;
    }
    if (done < lanes) pieces.push_back(scalar_loop(loop, plus(loop->min, done), lanes - done));
    return Seq::make(std::move(pieces), loop->span);
  }

  static bool stores_only_what_it_does_not_read(const Stmt& body) {
    struct Access : IRVisitor {
      std::unordered_map<const BufferNode*, int> seen;  // bit 1: loaded, bit 2: stored
      std::unordered_map<const BufferNode*, bool> local;
      void visit_Load(const Load* op) override {
        seen[op->buffer.get()] |= 1;
        IRVisitor::visit_Load(op);
      }
      void visit_Store(const Store* op) override {
        seen[op->buffer.get()] |= 2;
        IRVisitor::visit_Store(op);
      }
      void visit_Allocate(const Allocate* op) override {
        local[op->buffer.get()] = true;
        IRVisitor::visit_Allocate(op);
      }
    } a;
    a.visit(body);
    for (const auto& [buffer, bits] : a.seen)
      if (bits == 3 && !a.local.count(buffer)) return false;
    return true;
  }

  static constexpr int64_t kMaxLanes = 2048;  // a transposing stage's 16 u8 registers
  static constexpr int64_t kMaxUnrolledLanes = 16;  // longer scalar remainders stay loops
  static constexpr int64_t kMaxUnrolledCopies = 64;  // unroll_small_loops: a 3x3 window of 4-channel groups
  bool hexagon_;
  int64_t vector_bytes_;  // one vector register of the target (HVX: the 128-byte mode)
  VectorAccumulators accs_;  // the accumulators of the allocations being vectorized (step 5)
};

// Step 6: a select of integer lanes decided by a comparison, where the comparison's operands,
// and both values chosen, fit in the lanes of the narrowest data the comparison reads (an
// 8-bit image: 128 lanes per HVX register), is computed in those lanes and widened once:
// `select(i32(I >> 4) == b, u32(1), u32(0))` becomes `u32(select(I >> 4 == u8(b), 1u8,
// 0u8))`, one byte compare and one byte select instead of four word compares and selects (and
// a sum of it is then a sum of widened bytes: vrmpy by 1s on HVX). The ranges come from
// interval arithmetic over the loops' ranges (IndexBounds), so the values are exact in the
// narrow type and the rewrite never changes a result. An operand computed in wide lanes from
// narrow data (`(i32(A) + i32(B)) >> 5`) is rewritten in the narrowest lanes that hold each of
// its values (the sum in 16 bits, the shift's result in 8).
class NarrowLaneSelects : public IRMutator {
 public:
  Stmt mutate_For(const For* op, const Stmt& self) override {
    Interval lo = bounds_.of(op->min), ext = bounds_.of(op->extent);
    bounds_.set(op->var.get(), {lo.lo, lo.hi + std::max<i128>(ext.hi, 1) - 1});
    Stmt s = IRMutator::mutate_For(op, self);
    if (Stmt r = first_index(s.as<For>())) return r;
    return s;
  }
  Stmt mutate_LetStmt(const LetStmt* op, const Stmt& self) override {
    bounds_.set(op->var.get(), bounds_.of(op->value));
    return IRMutator::mutate_LetStmt(op, self);
  }
  // A select folded by a vector reduction (directly, or through casts and masking selects)
  // may narrow a comparison computed in wider lanes too: the reduction of the widened narrow
  // lanes is one instruction (vrmpy by 1s for bytes summed into words). Elsewhere the widening
  // would cost more than the wide comparison it saves (a u32 count per lane: each bin's bytes
  // unpacked to four word vectors), and only a select whose comparison is already in the
  // narrow lanes is narrowed (its predicate then needs no widening).
  Expr mutate_VectorReduce(const VectorReduce* op, const Expr& self) override {
    bool saved = reduced_;
    reduced_ = true;
    Expr e = IRMutator::mutate_VectorReduce(op, self);
    reduced_ = saved;
    return e;
  }
  Expr mutate_Load(const Load* op, const Expr& self) override {
    bool saved = reduced_;
    reduced_ = false;
    Expr e = IRMutator::mutate_Load(op, self);
    reduced_ = saved;
    return e;
  }
  Expr mutate_Binary(const Binary* op, const Expr& self) override {
    bool saved = reduced_;
    reduced_ = false;
    Expr e = IRMutator::mutate_Binary(op, self);
    reduced_ = saved;
    const auto* b = e.as<Binary>();
    if (!b || !is_comparison(b->op) || b->a.dtype().lanes < 2) return e;
    return without_shift(b->op, b->a, b->b, b->span);
  }
  Expr mutate_Select(const Select* op, const Expr& self) override {
    // A comparison deciding it: its operands first, the comparison itself after the narrowing
    // is tried (a shift it would lose is what tells the narrow operand's range).
    Expr e;
    const auto* oc = op->cond.as<Binary>();
    if (oc && is_comparison(oc->op) && oc->a.dtype().lanes > 1) {
      bool saved = reduced_;
      reduced_ = false;
      Expr cond = Binary::make(oc->op, mutate(oc->a), mutate(oc->b), oc->span);
      reduced_ = saved;
      e = Select::make(cond, mutate(op->t), mutate(op->f), op->span);
      if (Expr n = narrowed_select(e.as<Select>())) return n;
      const auto* c = cond.as<Binary>();
      return Select::make(without_shift(c->op, c->a, c->b, c->span), e.as<Select>()->t, e.as<Select>()->f, op->span);
    }
    bool saved = reduced_;
    reduced_ = false;
    Expr cond = mutate(op->cond);
    reduced_ = saved;
    e = Select::make(cond, mutate(op->t), mutate(op->f), op->span);
    if (Expr n = narrowed_select(e.as<Select>())) return n;
    return e;
  }

 private:
  // The select narrowed (step 6), or null.
  Expr narrowed_select(const Select* sel) {
    if (!sel) return Expr();
    DataType t = sel->dtype;
    const auto* cmp = sel->cond.as<Binary>();
    if (!cmp || !is_comparison(cmp->op) || !t.is_integer() || t.lanes < 2) return Expr();
    DataType ct = cmp->a.dtype();
    if (!ct.is_integer() || ct.lanes != t.lanes) return Expr();
    int n = narrowest_load_bits(cmp->a, cmp->b);
    if (n == 0 || n >= t.bits || n > ct.bits || (n < ct.bits && !reduced_)) return Expr();
    bounds_.refuel();
    std::optional<DataType> sc = fit_type({bounds_.of(cmp->a), bounds_.of(cmp->b)}, n, t.lanes);
    std::optional<DataType> sv = fit_type({bounds_.of(sel->t), bounds_.of(sel->f)}, n, t.lanes);
    if (!sc || !sv) return Expr();
    Expr c = without_shift(cmp->op, narrow_to(cmp->a, *sc), narrow_to(cmp->b, *sc), cmp->span);
    return Cast::make(t, Select::make(c, narrow_to(sel->t, *sv), narrow_to(sel->f, *sv), sel->span), sel->span);
  }

 private:
  static int narrowest_load_bits(const Expr& a, const Expr& b) {
    struct Scan : IRVisitor {
      int bits = 0;
      using IRVisitor::visit;
      void visit_Load(const Load* l) override {
        if (l->dtype.is_integer() && l->dtype.lanes > 1 && (bits == 0 || l->dtype.bits < bits)) bits = l->dtype.bits;
        IRVisitor::visit_Load(l);
      }
    } scan;
    scan.visit(a);
    scan.visit(b);
    return scan.bits;
  }

  // `a op b` without a right shift of vector lanes by a constant c against a uniform value k
  // (HVX has no byte shifts): with floor shifts, x >> c == k is x & -2^c == k << c, x >> c < k
  // is x < k << c, and x >> c <= k is x <= (k << c) + 2^c - 1 (likewise !=, >=, >), when every
  // value of k << c (plus 2^c - 1) fits x's type. `a op b` itself otherwise.
  Expr without_shift(BinaryOp op, const Expr& a, const Expr& b, Span sp) {
    for (int order = 0; order < 2; ++order) {
      const auto* sh = (order ? b : a).as<Binary>();
      Expr k = scalar_of(order ? a : b);
      BinaryOp o = order ? mirrored(op) : op;
      DataType t = (order ? b : a).dtype();
      if (!sh || sh->op != BinaryOp::Shr || !k || !t.is_integer() || t.lanes < 2) continue;
      const IntImm* c = as_int(scalar_of(sh->b));
      if (!c || c->value <= 0 || c->value >= t.bits) continue;
      bounds_.refuel();
      Interval rk = bounds_.of(k);
      i128 step = i128(1) << c->value;
      i128 tlo = t.is_uint() ? 0 : -(i128(1) << (t.bits - 1));
      i128 thi = t.is_uint() ? (i128(1) << t.bits) - 1 : (i128(1) << (t.bits - 1)) - 1;
      if (rk.lo * step < tlo || rk.hi * step + step - 1 > thi) continue;
      DataType te = t.element_of();
      Expr kc = Cast::make(te, k, sp);
      Expr shifted = Binary::make(BinaryOp::Mul, kc, make_const(te, static_cast<int64_t>(step)), sp);
      Expr x = sh->a, rhs;
      switch (o) {
        case BinaryOp::EQ:
        case BinaryOp::NE:
          x = Binary::make(BinaryOp::BitAnd, x, Broadcast::make(make_const(te, -static_cast<int64_t>(step)), t.lanes, sp), sp);
          rhs = shifted;
          break;
        case BinaryOp::LT:
        case BinaryOp::GE: rhs = shifted; break;
        default:  // LE, GT
          rhs = Binary::make(BinaryOp::Add, shifted, make_const(te, static_cast<int64_t>(step - 1)), sp);
          break;
      }
      return Binary::make(o, x, Broadcast::make(simplify_expr(rhs), t.lanes, sp), sp);
    }
    return Binary::make(op, a, b, sp);
  }

  // The integer type of `bits` bits (unsigned when no value is negative) that holds every
  // value of the intervals; nullopt when none does.
  static std::optional<DataType> fit_type(std::initializer_list<Interval> rs, int bits, int lanes) {
    i128 lo = 0, hi = 0;
    bool first = true;
    for (const Interval& r : rs) {
      lo = first ? r.lo : std::min(lo, r.lo);
      hi = first ? r.hi : std::max(hi, r.hi);
      first = false;
    }
    if (lo >= 0 && hi <= (i128(1) << bits) - 1) return DataType(TypeCode::UInt, static_cast<uint8_t>(bits), static_cast<uint16_t>(lanes));
    if (lo >= -(i128(1) << (bits - 1)) && hi <= (i128(1) << (bits - 1)) - 1)
      return DataType(TypeCode::Int, static_cast<uint8_t>(bits), static_cast<uint16_t>(lanes));
    return std::nullopt;
  }

  // `e` (whose every value fits `s`) computed in `s`'s lanes.
  Expr narrow_to(const Expr& e, DataType s) {
    DataType t = e.dtype();
    if (t == s) return e;
    if (const auto* imm = e.as<IntImm>()) return make_const(s, imm->value, e->span);
    if (const auto* b = e.as<Broadcast>()) return Broadcast::make(narrow_to(b->value, s.element_of()), b->lanes, e->span);
    if (const auto* c = e.as<Cast>()) {
      DataType v = c->value.dtype();
      // A cast of a value no wider than `s`: every value of e is the value itself.
      bool exact = (v.bits < t.bits && (v.is_uint() || t.is_int())) || (v.bits == t.bits && v.code == t.code);
      if (v.is_integer() && exact && v.bits <= s.bits)
        return v == s ? c->value : Cast::make(s, c->value, e->span);
    }
    if (const auto* b = e.as<Binary>(); b && t.is_integer()) {
      Interval ra = bounds_.of(b->a), rb = bounds_.of(b->b);
      switch (b->op) {
        case BinaryOp::Add:
        case BinaryOp::Sub:
        case BinaryOp::Min:
        case BinaryOp::Max:
          if (fit_type({ra, rb}, s.bits, s.lanes) == std::optional<DataType>(s))
            return Binary::make(b->op, narrow_to(b->a, s), narrow_to(b->b, s), e->span);
          break;
        case BinaryOp::Shr: {
          // A right shift by a constant: its operand in the narrowest lanes of at least s's
          // bits that hold it, then the result in s.
          const IntImm* k = as_int(scalar_of(b->b));
          if (!k || k->value < 0) break;
          for (int bits = s.bits; bits < t.bits; bits *= 2) {
            std::optional<DataType> w = fit_type({ra}, bits, s.lanes);
            if (!w || k->value >= bits) continue;
            Expr shifted = Binary::make(BinaryOp::Shr, narrow_to(b->a, *w), narrow_to(b->b, *w), e->span);
            return *w == s ? shifted : Cast::make(s, shifted, e->span);
          }
          break;
        }
        default: break;
      }
    }
    return Cast::make(s, e, e->span);
  }

  // Step 7: the first (or last) index of a condition along a vectorized reduction. A serial
  // loop x whose one statement folds into a vector accumulator
  //   acc = min(acc, vector_min(select(C, ramp(x * K + c, 1, L), F), M))
  // (max for the last index), where C compares n-bit lanes (a u8 row: 128 lanes, one
  // register), F (loop-invariant) lies beyond every index (above them for min, below for
  // max) and the loop's extent N fits below n bits' largest value, keeps per lane, in n-bit
  // lanes, the first (last) iteration j = x - x.min + 1 where C holds, 0 standing for none:
  //   k = select(C, j, none); ku = min(ku, k)   (none = 2^n - 1 for min, 0 for max)
  // one compare, one select and one min or max per vector in C's own lanes, instead of C's
  // predicate widened to the index's lanes and L indices selected and folded. After the loop
  // each lane's j becomes its index (j - 1 + x.min) * K + c + l (computed in the index's
  // own type: every value it takes, none's too, is checked to fit), or F where none, folded
  // into acc once. Per lane this is exact: the index grows with x, so the first x where C
  // holds gives the least one, and F, beyond every index, only counts where C never holds.
  Stmt first_index(const For* loop) {
    if (!loop || loop->for_kind != ForKind::Serial) return {};
    const IntImm* ext = as_int(loop->extent);
    const auto* st = loop->body.as<Store>();
    if (!ext || ext->value < 1 || !st || st->indices.size() != 1) return {};
    const auto* comb = st->value.as<Binary>();
    if (!comb || (comb->op != BinaryOp::Min && comb->op != BinaryOp::Max)) return {};
    ReduceOp rop = comb->op == BinaryOp::Min ? ReduceOp::Min : ReduceOp::Max;
    const Load* old = comb->a.as<Load>();
    Expr other = comb->b;
    if (!old || old->buffer != st->buffer) {
      old = comb->b.as<Load>();
      other = comb->a;
    }
    if (!old || old->buffer != st->buffer || old->indices.size() != 1 || !same_expr(old->indices[0], st->indices[0]) ||
        st->buffer->scope != StorageScope::Local)
      return {};
    const auto* red = other.as<VectorReduce>();
    const auto* sel = red && red->op == rop ? red->value.as<Select>() : nullptr;
    const auto* cmp = sel ? sel->cond.as<Binary>() : nullptr;
    const auto* ramp = sel ? sel->t.as<Ramp>() : nullptr;
    Expr f = sel ? scalar_of(sel->f) : Expr();
    if (!cmp || !is_comparison(cmp->op) || !ramp || !f || !as_int(ramp->stride) || as_int(ramp->stride)->value != 1)
      return {};
    DataType t = sel->dtype;
    int lanes = ramp->lanes, n = cmp->a.dtype().bits;
    if (!t.is_integer() || !cmp->a.dtype().is_integer() || n >= t.bits || ext->value + 1 > (int64_t(1) << n) - 1)
      return {};
    const VarNode* x = loop->var.get();
    if (mentions(f, x)) return {};
    // base = x * K + c, K > 0.
    Expr base = ramp->base;
    Expr c0 = simplify_expr(substitute(base, {{x, make_const(base.dtype(), 0)}}));
    Expr c1 = simplify_expr(substitute(base, {{x, make_const(base.dtype(), 1)}}));
    Expr step = simplify_expr(Binary::make(BinaryOp::Sub, c1, c0));  // held: as_int points into it
    const IntImm* k = as_int(step);
    if (!k || k->value <= 0 || mentions(c0, x)) return {};
    Expr linear = Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Mul, loop->var, make_const(base.dtype(), k->value)), c0);
    Expr rest = simplify_expr(Binary::make(BinaryOp::Sub, base, linear));
    const IntImm* diff = as_int(rest);
    if (!diff || diff->value != 0) return {};
    // F beyond every index.
    bounds_.refuel();
    Interval rb = bounds_.of(base), rf = bounds_.of(f);
    if (rop == ReduceOp::Min ? rf.lo <= rb.hi + lanes - 1 : rf.hi >= rb.lo) return {};
    Span sp = loop->span;
    DataType kt(TypeCode::UInt, static_cast<uint8_t>(n), 1);
    Buffer kb = BufferNode::make(st->buffer->name + "_at", kt, {lanes}, StorageScope::Local, sp);
    Expr slots = Ramp::make(make_i32(0), make_i32(1), lanes, sp);
    int64_t none = rop == ReduceOp::Min ? (int64_t(1) << n) - 1 : 0;
    Expr none_v = Broadcast::make(make_const(kt, none), lanes, sp);
    Expr j = Cast::make(kt, simplify_expr(Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Sub, loop->var, loop->min), make_i32(1))), sp);
    Stmt update = Store::make(kb, {slots},
                              Binary::make(comb->op, Load::make(kb, {slots}, sp),
                                           Select::make(sel->cond, Broadcast::make(j, lanes, sp), none_v, sp), sp),
                              sp);
    Stmt new_loop = For::make(loop->var, loop->min, loop->extent, ForKind::Serial, update, sp);
    // Lane l's index: (j - 1 + x.min) * K + c + l = j * K + base(x.min) - K + l.
    DataType te = t.element_of();
    Expr kw = Cast::make(t, Load::make(kb, {slots}, sp), sp);
    Expr start = simplify_expr(Binary::make(BinaryOp::Sub, substitute(base, {{x, loop->min}}), make_const(base.dtype(), k->value)));
    Expr index = Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Mul, kw, Broadcast::make(make_const(te, k->value), lanes, sp), sp),
                              Ramp::make(start, make_const(base.dtype(), 1), lanes, sp), sp);
    // Where C never held, the lane's j is `none`, whose index formula lands beyond F when the
    // loop is short (none * K + start + l >= F for a minimum): then min(index, F) (max for a
    // maximum) is F there and the index elsewhere, without a compare; otherwise a select.
    Interval rs = bounds_.of(start);
    i128 s_lo = i128(none) * k->value + rs.lo, s_hi = i128(none) * k->value + rs.hi + lanes - 1;
    i128 t_lo = te.is_uint() ? 0 : -(i128(1) << (te.bits - 1));
    i128 t_hi = te.is_uint() ? (i128(1) << te.bits) - 1 : (i128(1) << (te.bits - 1)) - 1;
    Expr value;
    if (s_lo >= t_lo && s_hi <= t_hi && (rop == ReduceOp::Min ? s_lo >= rf.hi : s_hi <= rf.lo)) {
      value = Binary::make(comb->op, index, sel->f, sp);
    } else {
      Expr found = Binary::make(BinaryOp::NE, kw, Broadcast::make(make_const(te, none), lanes, sp), sp);
      value = Select::make(found, index, sel->f, sp);
    }
    Stmt fold = Store::make(st->buffer, st->indices,
                            Binary::make(comb->op, Load::make(old->buffer, old->indices, sp),
                                         VectorReduce::make(rop, value, red->lanes, sp), sp),
                            sp);
    return Allocate::make(kb, Seq::make({Store::make(kb, {slots}, none_v, sp), new_loop, fold}, sp), sp);
  }

  IndexBounds bounds_;
  bool reduced_ = false;  // inside a vector reduction's value (mutate_VectorReduce)
};

}  // namespace

Stmt vectorize_stmt(const Stmt& s, const Target& target) {
  return NarrowLaneSelects().mutate(LoopVectorizer(target).mutate(s));
}

Module vectorize(const Module& m, const LowerOptions& options) {
  return mutate_module<NarrowLaneSelects>(mutate_module<LoopVectorizer>(m, options.target));
}

}  // namespace dspc
