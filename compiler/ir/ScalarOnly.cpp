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

namespace {

using i128 = __int128;

// A constant of `t`'s element type, broadcast to its lanes.
Expr const_like(DataType t, int64_t v) {
  Expr k = make_const(t.element_of(), v);
  return t.lanes > 1 ? Broadcast::make(k, t.lanes) : k;
}

// One operand of a 64-bit sum or difference: the 32-bit vector it widens (the cast signed when
// the vector is, or when `need_signed`), or a constant.
struct WideOperand {
  Expr x;
  std::optional<int64_t> k;
};
std::optional<WideOperand> wide_operand(const Expr& e, bool need_signed) {
  DataType t = e.dtype();
  if (!t.is_integer() || t.bits != 64) return std::nullopt;
  if (std::optional<int64_t> c = constant_of(e)) return WideOperand{Expr(), c};
  const auto* c = e.as<Cast>();
  if (!c) return std::nullopt;
  DataType from = c->value.dtype();
  if (!from.is_integer() || from.bits != 32 || from.lanes != t.lanes) return std::nullopt;
  if ((from.is_int() || need_signed) && !t.is_int()) return std::nullopt;
  return WideOperand{c->value, std::nullopt};
}

i128 type_min(DataType t) { return t.is_int() ? -(i128(1) << (t.bits - 1)) : 0; }
i128 type_max(DataType t) { return t.is_int() ? (i128(1) << (t.bits - 1)) - 1 : (i128(1) << t.bits) - 1; }

// The two operands of a 64-bit add or subtract as 32-bit values of one type (a constant
// operand in that type's range): false when either is not such an operand.
// The values each can take go to `range` (a constant's own, else T's).
bool wide_pair(const Binary* op, bool need_signed, Expr& a, Expr& b, i128 range[2][2] = nullptr) {
  std::optional<WideOperand> x = wide_operand(op->a, need_signed), y = wide_operand(op->b, need_signed);
  if (!x || !y || (!x->x && !y->x)) return false;
  DataType t = (x->x ? x->x : y->x).dtype();
  int at = 0;
  for (WideOperand* w : {&*x, &*y}) {
    i128 lo = type_min(t.element_of()), hi = type_max(t.element_of());
    if (w->x) {
      if (w->x.dtype() != t) return false;
    } else {
      if (*w->k < lo || *w->k > hi) return false;
      w->x = const_like(t, *w->k);
      lo = hi = *w->k;
    }
    if (range) {
      range[at][0] = lo;
      range[at][1] = hi;
    }
    ++at;
  }
  a = x->x;
  b = y->x;
  return true;
}

// x >> k or x / 2^k (floor division: the same), k in [lo, hi]: x and k.
bool shifted_right(const Expr& e, int lo, int hi, Expr& x, int& k) {
  const auto* op = e.as<Binary>();
  if (!op) return false;
  std::optional<int64_t> c = constant_of(op->b);
  if (!c) return false;
  if (op->op == BinaryOp::Shr && *c >= lo && *c <= hi) {
    k = int(*c);
  } else if (op->op == BinaryOp::Div && *c > 0 && (*c & (*c - 1)) == 0) {
    k = 0;
    while ((int64_t(1) << k) != *c) ++k;
    if (k < lo || k > hi) return false;
  } else {
    return false;
  }
  x = op->a;
  return true;
}

}  // namespace

std::optional<WideArith> match_wide_arith(const Expr& e) {
  const auto* cast = e.as<Cast>();
  if (!cast || !cast->dtype.is_integer() || cast->dtype.bits > 32) return std::nullopt;
  DataType c = cast->dtype.element_of();
  Expr v = cast->value;
  if (!v.dtype().is_integer() || v.dtype().bits != 64) return std::nullopt;
  // The clamps of v to constants: min(v, hi) and max(v, lo), in either nesting.
  std::optional<int64_t> lo, hi;
  for (int peel = 0; peel < 2; ++peel) {
    const auto* op = v.as<Binary>();
    if (!op || (op->op != BinaryOp::Min && op->op != BinaryOp::Max)) break;
    std::optional<int64_t>& bound = op->op == BinaryOp::Min ? hi : lo;
    if (bound) break;
    if (std::optional<int64_t> k = constant_of(op->b)) {
      bound = k;
      v = op->a;
    } else if (std::optional<int64_t> k2 = constant_of(op->a)) {
      bound = k2;
      v = op->b;
    } else {
      break;
    }
  }
  if (v.dtype().is_uint()) {  // u64 constants: their bit patterns, kept below 2^63
    if ((lo && *lo < 0) || (hi && *hi < 0)) return std::nullopt;
  }
  // With lo <= hi, min(max(v, lo), hi) and max(min(v, hi), lo) are the same.
  if (lo && hi && *lo > *hi) return std::nullopt;
  const auto* op = v.as<Binary>();
  if (!op) return std::nullopt;
  WideArith w;
  w.result = c;
  i128 nlo = 0, nhi = 0;  // the values v can take
  Expr inner;
  int k = 0;
  if (op->op == BinaryOp::Add || op->op == BinaryOp::Sub) {
    bool sub = op->op == BinaryOp::Sub;
    if (sub && !v.dtype().is_int()) return std::nullopt;
    i128 range[2][2];
    if (!wide_pair(op, sub, w.a, w.b, range)) return std::nullopt;
    DataType t = w.a.dtype().element_of();
    if (c != t) return std::nullopt;
    w.kind = sub ? WideArith::SatSub : WideArith::SatAdd;
    nlo = sub ? range[0][0] - range[1][1] : range[0][0] + range[1][0];
    nhi = sub ? range[0][1] - range[1][0] : range[0][1] + range[1][1];
    // Saturated to T: each bound clamped to T's, or one the sum cannot pass.
    if (!(lo ? i128(*lo) == type_min(t) : nlo >= type_min(t))) return std::nullopt;
    if (!(hi ? i128(*hi) == type_max(t) : nhi <= type_max(t))) return std::nullopt;
    return w;
  }
  if (!shifted_right(v, 1, 31, inner, k)) return std::nullopt;
  const auto* sum = inner.as<Binary>();
  auto lower_cast = [&](Expr r) { return r.dtype().element_of() == c ? r : Cast::make(c.with_lanes(r.dtype().lanes), r); };
  auto K = [&](const Expr& like, int64_t x) { return const_like(like.dtype(), x); };
  auto bin = [](BinaryOp o, Expr x, Expr y) { return Binary::make(o, std::move(x), std::move(y)); };
  if (k == 1 && !lo && !hi && sum && (sum->op == BinaryOp::Add || sum->op == BinaryOp::Sub)) {
    // The averages: (a + b) >> 1, (a + b + 1) >> 1, (a - b) >> 1.
    bool rounds = false;
    const Binary* pair = sum;
    if (sum->op == BinaryOp::Add) {
      Expr rest = other_than_constant(inner, BinaryOp::Add, 1);
      const auto* p2 = rest ? rest.as<Binary>() : nullptr;
      if (p2 && p2->op == BinaryOp::Add && !constant_of(rest)) {
        Expr a2, b2;
        if (wide_pair(p2, false, a2, b2)) {
          pair = p2;
          rounds = true;
        }
      }
    }
    bool sub = pair->op == BinaryOp::Sub;
    if (sub && !v.dtype().is_int()) return std::nullopt;
    if (!wide_pair(pair, sub, w.a, w.b)) return std::nullopt;
    DataType t = w.a.dtype().element_of();
    if (sub ? c.bits != 32 : c != t) return std::nullopt;
    w.kind = sub ? WideArith::NegAvg : rounds ? WideArith::AvgRound : WideArith::Avg;
    Expr one = K(w.a, 1);
    Expr halves = bin(sub ? BinaryOp::Sub : BinaryOp::Add, bin(BinaryOp::Shr, w.a, one), bin(BinaryOp::Shr, w.b, one));
    Expr carry = sub ? bin(BinaryOp::BitAnd, Unary::make(UnaryOp::BitNot, w.a), w.b)
                     : bin(rounds ? BinaryOp::BitOr : BinaryOp::BitAnd, w.a, w.b);
    w.lowered = lower_cast(bin(sub ? BinaryOp::Sub : BinaryOp::Add, halves, bin(BinaryOp::BitAnd, carry, one)));
    return w;
  }
  // The rounding shift: (wide(a) + 2^(k-1)) >> k.
  Expr a = other_than_constant(inner, BinaryOp::Add, int64_t(1) << (k - 1));
  if (!a) return std::nullopt;
  std::optional<WideOperand> x = wide_operand(a, false);
  if (!x || !x->x) return std::nullopt;
  w.kind = WideArith::RoundShift;
  w.a = x->x;
  w.shift = k;
  DataType t = w.a.dtype().element_of();
  nlo = (type_min(t) + (i128(1) << (k - 1))) >> k;
  nhi = (type_max(t) + (i128(1) << (k - 1))) >> k;
  // The clamps, applied in T: each must be a value of T or one that never binds.
  Expr r = bin(BinaryOp::Add, bin(BinaryOp::Shr, w.a, K(w.a, k)),
               bin(BinaryOp::BitAnd, bin(BinaryOp::Shr, w.a, K(w.a, k - 1)), K(w.a, 1)));
  if (lo && i128(*lo) > nlo) {
    if (*lo < type_min(t) || *lo > type_max(t)) return std::nullopt;
    r = bin(BinaryOp::Max, r, K(w.a, *lo));
  }
  if (hi && i128(*hi) < nhi) {
    if (*hi < type_min(t) || *hi > type_max(t)) return std::nullopt;
    r = bin(BinaryOp::Min, r, K(w.a, *hi));
  }
  // Saturating to C: both of C's bounds held, by the clamps or by the values.
  bool lo_held = lo ? i128(*lo) == type_min(c) || (i128(*lo) <= nlo && nlo >= type_min(c)) : nlo >= type_min(c);
  bool hi_held = hi ? i128(*hi) == type_max(c) || (i128(*hi) >= nhi && nhi <= type_max(c)) : nhi <= type_max(c);
  w.saturate = lo_held && hi_held;
  w.lowered = lower_cast(r);
  return w;
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
      if (hexagon && e.dtype().is_integer() && e.dtype().bits <= 32) {
        if (std::optional<WideArith> w = match_wide_arith(e)) {
          visit(w->a);
          if (w->b) visit(w->b);
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
