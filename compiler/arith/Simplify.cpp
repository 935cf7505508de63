// The simplifier (Simplify.h)
//  1. Bottom-up: simplify the children, then the node. A rewrite that builds a new node
//     simplifies that node again (its children already are), so one pass reaches a fixed
//     point and simplify is idempotent.
//  2. Expressions: fold constant operands with compiler/arith/Semantics (the interpreter's own
//     definition, so folding cannot disagree with it), then integer algebra with the
//     constant on the right: identities, constant reassociation, x - x; constants end up
//     non-negative (x + -3 -> x - 3). Operands with side effects (extern calls) are never
//     dropped.
//  3. Statements: a removed statement becomes the no-op `evaluate 0`; sequences drop no-ops,
//     an `if` with a constant condition becomes its branch, a loop with a non-positive
//     constant extent or a no-op body goes away.
#include "compiler/arith/Simplify.h"

#include "compiler/arith/IndexBounds.h"
#include "compiler/arith/Semantics.h"
#include "compiler/ir/Externs.h"
#include "compiler/ir/IRVisitor.h"

namespace dspc {

namespace {

class SideEffectFinder : public IRVisitor {
 public:
  bool found = false;
  void visit_Call(const Call* op) override {
    if (call_has_side_effects(op->call_kind, op->name)) found = true;
    IRVisitor::visit_Call(op);
  }
};

bool is_const(const Expr& e) {
  return e.as<IntImm>() || e.as<FloatImm>();
}

Expr fold_binary(BinaryOp op, const Expr& a, const Expr& b, Span s) {
  Value x, y;
  if (!const_value(a, x) || !const_value(b, y)) return Expr();
  DataType result = is_comparison(op) ? DataType::boolean() : a.dtype();
  return make_value(result, eval_binary(op, a.dtype(), x, y), s);
}

Expr fold_unary(UnaryOp op, const Expr& a, Span s) {
  Value x;
  if (!const_value(a, x)) return Expr();
  return make_value(a.dtype(), eval_unary(op, a.dtype(), x), s);
}

Expr fold_cast(DataType to, const Expr& a, Span s) {
  Value x;
  if (!const_value(a, x)) return Expr();
  return make_value(to, eval_cast(to, a.dtype(), x), s);
}

bool is_pure(const Expr& e) {
  SideEffectFinder f;
  f.visit(e);
  return !f.found;
}

bool is_int_value(const Expr& e, int64_t v) {
  return as_int(e) && as_int(e)->value == v;
}

// A negative signed constant whose negation is representable.
bool negatable_negative(const Expr& c) {
  const IntImm* k = as_int(c);
  return k && k->dtype.is_int() && k->value < 0 && k->value != k->dtype.min_int();
}

Expr simplify_binary(BinaryOp op, Expr a, Expr b, Span s);

// Integer scalar rules; null if none applies.
Expr integer_algebra(BinaryOp op, const Expr& a, const Expr& b, Span s) {
  DataType t = a.dtype();
  const auto* ab = a.as<Binary>();
  bool a_has_const = ab && as_int(ab->b);
  switch (op) {
    case BinaryOp::Add:
      if (as_int(a) && !as_int(b)) return simplify_binary(op, b, a, s);
      if (!as_int(b)) return Expr();
      if (is_int_value(b, 0)) return a;
      if (a_has_const && ab->op == BinaryOp::Add)
        return simplify_binary(op, ab->a, fold_binary(BinaryOp::Add, ab->b, b, s), s);
      if (a_has_const && ab->op == BinaryOp::Sub)
        return simplify_binary(op, ab->a, fold_binary(BinaryOp::Sub, b, ab->b, s), s);
      if (negatable_negative(b)) return Binary::make(BinaryOp::Sub, a, fold_unary(UnaryOp::Neg, b, s), s);
      return Expr();
    case BinaryOp::Sub:
      if (same_expr(a, b) && is_pure(a)) return make_const(t, 0, s);
      if (!as_int(b)) return Expr();
      if (is_int_value(b, 0)) return a;
      if (a_has_const && ab->op == BinaryOp::Add)
        return simplify_binary(BinaryOp::Add, ab->a, fold_binary(BinaryOp::Sub, ab->b, b, s), s);
      if (a_has_const && ab->op == BinaryOp::Sub)
        return simplify_binary(op, ab->a, fold_binary(BinaryOp::Add, ab->b, b, s), s);
      if (negatable_negative(b)) return Binary::make(BinaryOp::Add, a, fold_unary(UnaryOp::Neg, b, s), s);
      return Expr();
    case BinaryOp::Mul:
      if (as_int(a) && !as_int(b)) return simplify_binary(op, b, a, s);
      if (!as_int(b)) return Expr();
      if (is_int_value(b, 0) && is_pure(a)) return b;
      if (is_int_value(b, 1)) return a;
      if (a_has_const && ab->op == BinaryOp::Mul)
        return simplify_binary(op, ab->a, fold_binary(BinaryOp::Mul, ab->b, b, s), s);
      return Expr();
    case BinaryOp::Div: return is_int_value(b, 1) ? a : Expr();
    case BinaryOp::Mod: return is_int_value(b, 1) && is_pure(a) ? make_const(t, 0, s) : Expr();
    default: return Expr();
  }
}

// true && x -> x, false && x -> false, and the same for ||, in either operand order.
Expr logical_algebra(BinaryOp op, const Expr& a, const Expr& b) {
  bool absorbing = op == BinaryOp::Or;  // the value that decides the result alone
  for (int side = 0; side < 2; ++side) {
    const Expr& c = side ? b : a;
    const Expr& other = side ? a : b;
    const IntImm* k = as_int(c);
    if (!k) continue;
    if ((k->value != 0) != absorbing) return other;
    if (is_pure(other)) return c;
  }
  return Expr();
}

// Lane-wise rules for vectors: an operation on two broadcasts is the broadcast of the
// operation on their values, and an integer vector plus or minus broadcast 0, or times
// broadcast 1, is itself (times broadcast 0 is broadcast 0). Null if none applies.
Expr vector_algebra(BinaryOp op, const Expr& a, const Expr& b, Span s) {
  const auto* ba = a.as<Broadcast>();
  const auto* bb = b.as<Broadcast>();
  if (ba && bb && ba->lanes == bb->lanes) return Broadcast::make(simplify_binary(op, ba->value, bb->value, s), ba->lanes, s);
  if (!a.dtype().is_integer()) return Expr();
  if (ba && as_int(ba->value) && !bb && (op == BinaryOp::Add || op == BinaryOp::Mul))
    return simplify_binary(op, b, a, s);  // the constant on the right, as for scalars
  if (!bb || !as_int(bb->value)) return Expr();
  int64_t k = as_int(bb->value)->value;
  if ((op == BinaryOp::Add || op == BinaryOp::Sub) && k == 0) return a;
  if (op == BinaryOp::Mul && k == 1) return a;
  if (op == BinaryOp::Mul && k == 0 && is_pure(a)) return b;
  // (x + c1) + c2, (x + c1) - c2, (x - c1) + c2, (x - c1) - c2: one constant.
  const auto* ab = a.as<Binary>();
  const Broadcast* c1 = ab ? ab->b.as<Broadcast>() : nullptr;
  if ((op == BinaryOp::Add || op == BinaryOp::Sub) && c1 && as_int(c1->value) &&
      (ab->op == BinaryOp::Add || ab->op == BinaryOp::Sub)) {
    Expr c = simplify_binary(op == ab->op ? BinaryOp::Add : BinaryOp::Sub, c1->value, bb->value, s);
    return simplify_binary(ab->op, ab->a, Broadcast::make(c, bb->lanes, s), s);
  }
  return Expr();
}

Expr simplify_binary(BinaryOp op, Expr a, Expr b, Span s) {
  if (Expr folded = fold_binary(op, a, b, s)) return folded;
  DataType t = a.dtype();
  if (t.is_vector())
    if (Expr r = vector_algebra(op, a, b, s)) return r;
  if (t.is_integer() && t.is_scalar())
    if (Expr r = integer_algebra(op, a, b, s)) return r;
  if (is_logical(op) && t.is_scalar())
    if (Expr r = logical_algebra(op, a, b)) return r;
  return Binary::make(op, a, b, s);
}

bool is_nop(const Stmt& s) {
  const auto* ev = s.as<Evaluate>();
  return ev && is_const(ev->value);
}

Stmt nop() {
  return Evaluate::make(make_i32(0));
}

// a = x * k + d (or x * k, or x * k - d) with constants k and d: x, k and d; false otherwise.
bool as_scaled_plus_const(const Expr& a, Expr& x, int64_t& k, int64_t& d) {
  d = 0;
  Expr m = a;
  if (const auto* add = a.as<Binary>(); add && (add->op == BinaryOp::Add || add->op == BinaryOp::Sub) && as_int(add->b)) {
    d = add->op == BinaryOp::Add ? as_int(add->b)->value : -as_int(add->b)->value;
    m = add->a;
  }
  const auto* mul = m.as<Binary>();
  if (!mul || mul->op != BinaryOp::Mul || !as_int(mul->b)) return false;
  x = mul->a;
  k = as_int(mul->b)->value;
  return true;
}

class Simplifier : public IRMutator {
 public:
  Expr mutate_Cast(const Cast* op, const Expr& self) override {
    Expr v = mutate(op->value);
    if (v.dtype() == op->dtype) return v;
    if (Expr folded = fold_cast(op->dtype, v, op->span)) return folded;
    if (const auto* bv = v.as<Broadcast>())
      return Broadcast::make(mutate(Cast::make(op->dtype.element_of(), bv->value, op->span)), bv->lanes, op->span);
    return v.same_as(op->value) ? self : Cast::make(op->dtype, v, op->span);
  }

  Expr mutate_Binary(const Binary* op, const Expr& self) override {
    Expr a = mutate(op->a), b = mutate(op->b);
    if (Expr r = div_mod_of_multiple(op->op, a, b, op->span)) return r;
    Expr r = simplify_binary(op->op, a, b, op->span);
    // Keep the original node when nothing changed, so untouched trees stay shared.
    if (const auto* rb = r.as<Binary>())
      if (rb->op == op->op && rb->a.same_as(op->a) && rb->b.same_as(op->b)) return self;
    return r;
  }

  Expr mutate_Unary(const Unary* op, const Expr& self) override {
    Expr v = mutate(op->value);
    if (Expr folded = fold_unary(op->op, v, op->span)) return folded;
    return v.same_as(op->value) ? self : Unary::make(op->op, v, op->span);
  }

  Expr mutate_Select(const Select* op, const Expr& self) override {
    Expr c = mutate(op->cond), t = mutate(op->t), f = mutate(op->f);
    if (const IntImm* k = as_int(c)) {
      const Expr& kept = k->value ? t : f;
      const Expr& dropped = k->value ? f : t;
      if (is_pure(dropped)) return kept;
    }
    if (c.same_as(op->cond) && t.same_as(op->t) && f.same_as(op->f)) return self;
    return Select::make(c, t, f, op->span);
  }

  // (x * k + d) / c and (x * k + d) % c, where c > 0 divides k, and the loop ranges prove
  // that x * k + d does not wrap: x * (k / c) + floor(d / c), and floor(d mod c). Exact for
  // floor division (dspc's signed `/` and `%`) and for unsigned division with d >= 0. This is
  // what a reduction axis split by 4 leaves in an index, as in Bq[k / 4, n * 4 + k % 4].
  Expr div_mod_of_multiple(BinaryOp op, const Expr& a, const Expr& b, Span s) {
    if ((op != BinaryOp::Div && op != BinaryOp::Mod) || !a.dtype().is_integer() || !a.dtype().is_scalar())
      return Expr();
    const IntImm* cb = as_int(b);
    Expr x;
    int64_t k = 0, d = 0;
    if (!cb || cb->value <= 0 || !as_scaled_plus_const(a, x, k, d) || k % cb->value != 0) return Expr();
    if (!a.dtype().is_int() && d < 0) return Expr();
    // No wrap: x's range, times k, plus d, stays inside the dtype (checked in 128 bits).
    bounds_.refuel();
    Interval xr = bounds_.of(x);
    i128 lo = std::min(xr.lo * k, xr.hi * k) + d, hi = std::max(xr.lo * k, xr.hi * k) + d;
    DataType t = a.dtype();
    i128 tmin = t.is_int() ? -(static_cast<i128>(1) << (t.bits - 1)) : 0;
    i128 tmax = t.is_int() ? (static_cast<i128>(1) << (t.bits - 1)) - 1 : (static_cast<i128>(1) << t.bits) - 1;
    if (xr.lo <= tmin || xr.hi >= tmax || lo < tmin || hi > tmax) return Expr();
    int64_t c = cb->value;
    int64_t q = d >= 0 ? d / c : -((-d + c - 1) / c);  // floor(d / c)
    int64_t r = d - q * c;                               // in [0, c)
    if (op == BinaryOp::Mod) return is_pure(x) ? make_const(t, r, s) : Expr();
    Expr scaled = simplify_binary(BinaryOp::Mul, x, make_const(t, k / c, s), s);
    return simplify_binary(BinaryOp::Add, scaled, make_const(t, q, s), s);
  }

  Stmt mutate_IfThenElse(const IfThenElse* op, const Stmt& self) override {
    Expr c = mutate(op->cond);
    if (const IntImm* k = as_int(c)) {
      if (k->value) return mutate(op->then_case);
      return op->else_case ? mutate(op->else_case) : nop();
    }
    Stmt t = mutate(op->then_case);
    Stmt e = op->else_case ? mutate(op->else_case) : Stmt();
    if (e && is_nop(e)) e = Stmt();
    if (is_nop(t) && !e && is_pure(c)) return nop();
    if (c.same_as(op->cond) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
    return IfThenElse::make(c, t, e, op->span);
  }

  Stmt mutate_For(const For* op, const Stmt& self) override {
    Expr mn = mutate(op->min), ext = mutate(op->extent);
    if (const IntImm* k = as_int(ext); k && k->value <= 0) return nop();
    if (as_int(mn) && as_int(ext))
      bounds_.set(op->var.get(), {as_int(mn)->value, static_cast<i128>(as_int(mn)->value) + as_int(ext)->value - 1});
    Stmt body = mutate(op->body);
    if (is_nop(body)) return nop();
    if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return self;
    return For::make(op->var, mn, ext, op->for_kind, body, op->span);
  }

 private:
  IndexBounds bounds_;  // the ranges of the enclosing loops' variables
 public:

  Stmt mutate_LetStmt(const LetStmt* op, const Stmt& self) override {
    Expr v = mutate(op->value);
    Stmt body = mutate(op->body);
    if (is_nop(body) && is_pure(v)) return nop();
    if (v.same_as(op->value) && body.same_as(op->body)) return self;
    return LetStmt::make(op->var, v, body, op->span);
  }

  Stmt mutate_Evaluate(const Evaluate* op, const Stmt& self) override {
    Expr v = mutate(op->value);
    if (is_const(v) || !is_pure(v)) return v.same_as(op->value) ? self : Evaluate::make(v, op->span);
    // A pure expression evaluated for nothing.
    return nop();
  }

  Stmt mutate_Seq(const Seq* op, const Stmt& self) override {
    std::vector<Stmt> out;
    bool changed = false;
    for (const auto& s : op->stmts) {
      Stmt m = mutate(s);
      changed |= !m.same_as(s);
      if (is_nop(m)) {
        changed = true;
        continue;
      }
      out.push_back(m);
    }
    if (!changed) return self;
    if (out.empty()) return nop();
    return Seq::make(out, op->span);
  }
};

}  // namespace

Expr simplify_expr(const Expr& e) {
  Simplifier s;
  return s.mutate(e);
}

Stmt simplify_stmt(const Stmt& s) {
  Simplifier simplifier;
  return simplifier.mutate(s);
}

Module simplify_module(const Module& m) {
  return mutate_module<Simplifier>(m);
}

}  // namespace dspc
