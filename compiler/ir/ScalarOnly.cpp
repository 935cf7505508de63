#include "compiler/ir/ScalarOnly.h"

#include <cstdint>

#include "compiler/ir/IRVisitor.h"

namespace dspc {

namespace {

// The integer value of a constant, a broadcast constant or a constant 1 << k (as in
// `i64(1) << 32`, which the simplifier folds only after vectorization).
std::optional<int64_t> constant_of(const Expr& e) {
  if (const IntImm* i = as_int(e)) return i->value;
  if (const auto* b = e.as<Broadcast>()) return constant_of(b->value);
  if (const auto* s = e.as<Binary>(); s && s->op == BinaryOp::Shl && s->dtype.bits == 64) {
    std::optional<int64_t> one = constant_of(s->a), k = constant_of(s->b);
    if (one == 1 && k && *k >= 0 && *k < 63) return int64_t(1) << *k;
  }
  return std::nullopt;
}

// A 32-bit factor of the 64-bit product: i64(x) of an i32 x, or a constant in i32's range (as
// an i32 constant of x's lanes).
Expr factor_of(const Expr& e) {
  DataType t = e.dtype();
  if (const auto* b = e.as<Broadcast>(); b && b->value.as<Cast>())
    if (Expr x = factor_of(b->value)) return Broadcast::make(x, t.lanes);
  if (const auto* c = e.as<Cast>()) {
    DataType from = c->value.dtype();
    if (from.is_int() && from.bits == 32 && from.lanes == t.lanes) return c->value;
    return Expr();
  }
  std::optional<int64_t> v = constant_of(e);
  if (!v || *v < INT32_MIN || *v > INT32_MAX) return Expr();
  Expr k = make_i32(*v);
  return t.lanes > 1 ? Broadcast::make(k, t.lanes) : k;
}

// The operands of `e` if it is the binary `op` with a constant operand equal to `k` (either
// side): the other operand, or null.
Expr other_than_constant(const Expr& e, BinaryOp op, int64_t k) {
  const auto* b = e.as<Binary>();
  if (!b || b->op != op) return Expr();
  if (constant_of(b->b) == std::optional<int64_t>(k)) return b->a;
  if (constant_of(b->a) == std::optional<int64_t>(k)) return b->b;
  return Expr();
}

}  // namespace

std::optional<FixedPointMul> match_fixed_point_mul(const Expr& e) {
  const auto* cast = e.as<Cast>();
  if (!cast || !cast->dtype.is_int() || cast->dtype.bits != 32) return std::nullopt;
  Expr x = cast->value;
  if (!x.dtype().is_int() || x.dtype().bits != 64) return std::nullopt;
  // min(., 2^31 - 1) and max(., -2^31), in either order, each at most once.
  bool saturated = false, floor_seen = false;
  for (int peel = 0; peel < 2; ++peel) {
    if (Expr inner = other_than_constant(x, BinaryOp::Min, INT32_MAX); inner && !saturated) {
      x = inner;
      saturated = true;
    } else if (Expr inner2 = other_than_constant(x, BinaryOp::Max, INT32_MIN); inner2 && !floor_seen) {
      x = inner2;
      floor_seen = true;
    }
  }
  // The shift: floor division by 2^31 or 2^32, or >> 31 or 32.
  const auto* shift = x.as<Binary>();
  if (!shift) return std::nullopt;
  std::optional<int64_t> k = constant_of(shift->b);
  int by = 0;
  if (shift->op == BinaryOp::Div && k == (int64_t(1) << 31)) by = 31;
  if (shift->op == BinaryOp::Div && k == (int64_t(1) << 32)) by = 32;
  if (shift->op == BinaryOp::Shr && (k == 31 || k == 32)) by = int(*k);
  if (!by) return std::nullopt;
  Expr product = shift->a;
  bool round = false;
  if (Expr p = other_than_constant(product, BinaryOp::Add, int64_t(1) << 30); p && by == 31) {
    product = p;
    round = true;
  }
  const auto* mul = product.as<Binary>();
  if (!mul || mul->op != BinaryOp::Mul) return std::nullopt;
  Expr a = factor_of(mul->a), b = factor_of(mul->b);
  if (!a || !b) return std::nullopt;
  if (as_int(a) || a.as<Broadcast>()) std::swap(a, b);  // a constant factor second
  if (by == 31 && !saturated) {
    // Without the min, the instruction's saturation must never bind: a constant factor other
    // than -2^31.
    std::optional<int64_t> kb = constant_of(b);
    if (!kb || *kb == INT32_MIN) return std::nullopt;
  }
  return FixedPointMul{a, b, by, round};
}

bool must_stay_scalar(const Stmt& body, bool hexagon) {
  struct Finder : IRVisitor {
    using IRVisitor::visit;
    bool hexagon = false;
    bool found = false;
    void visit(const Expr& e) override {
      if (found || !e) return;
      if (hexagon && e.dtype().is_int() && e.dtype().bits == 32) {
        if (std::optional<FixedPointMul> m = match_fixed_point_mul(e)) {
          visit(m->a);
          visit(m->b);
          return;
        }
      }
      if (hexagon && (e.dtype().is_float() || (e.dtype().bits == 64 && !e.dtype().is_handle()))) {
        found = true;
        return;
      }
      IRVisitor::visit(e);
    }
    void visit_Binary(const Binary* op) override {
      if ((op->op == BinaryOp::Div || op->op == BinaryOp::Mod) && op->dtype.is_integer() && !as_int(op->b))
        found = true;
      IRVisitor::visit_Binary(op);
    }
  } f;
  f.hexagon = hexagon;
  f.visit(body);
  return f.found;
}

bool computes_64bit(const Stmt& body) {
  struct Finder : IRVisitor {
    using IRVisitor::visit;
    bool found = false;
    void visit(const Expr& e) override {
      if (found || !e) return;
      if (e.dtype().bits == 64 && !e.dtype().is_handle()) {
        found = true;
        return;
      }
      IRVisitor::visit(e);
    }
  } f;
  f.visit(body);
  return f.found;
}

}  // namespace dspc
