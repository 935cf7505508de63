#include "compiler/arith/LaneOffsets.h"

#include <algorithm>
#include <optional>

namespace dspc {

namespace {

// The integer a constant (or a broadcast constant) holds.
std::optional<int64_t> constant(const Expr& e) {
  if (const IntImm* i = as_int(e)) return i->value;
  if (const auto* b = e.as<Broadcast>()) return constant(b->value);
  return std::nullopt;
}

int64_t floor_div(int64_t x, int64_t d) { return x >= 0 ? x / d : -((-x + d - 1) / d); }

// a op b, folded when both are constants (so that a constant base stays an IntImm).
Expr combine(BinaryOp op, const Expr& a, const Expr& b) {
  std::optional<int64_t> ka = constant(a), kb = constant(b);
  if (ka && kb) {
    switch (op) {
      case BinaryOp::Add: return make_const(a.dtype(), *ka + *kb);
      case BinaryOp::Sub: return make_const(a.dtype(), *ka - *kb);
      case BinaryOp::Mul: return make_const(a.dtype(), *ka * *kb);
      default: break;
    }
  }
  return Binary::make(op, a, b);
}

}  // namespace

bool lane_offsets(const Expr& e, int lanes, Expr& base, std::vector<int64_t>& off,
                  const KnownMultiple& known_multiple) {
  if (const auto* r = e.as<Ramp>()) {
    std::optional<int64_t> stride = constant(r->stride);
    if (!stride || r->lanes != lanes) return false;
    base = r->base;
    off.clear();
    for (int i = 0; i < lanes; ++i) off.push_back(i * *stride);
    return true;
  }
  if (const auto* bc = e.as<Broadcast>()) {
    if (bc->lanes != lanes) return false;
    base = bc->value;
    off.assign(lanes, 0);
    return true;
  }
  const auto* op = e.as<Binary>();
  if (!op) return false;
  std::optional<int64_t> c;
  if (const auto* bc = op->b.as<Broadcast>()) c = constant(bc->value);
  Expr ba, bb;
  std::vector<int64_t> oa, ob;
  switch (op->op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
      if (!lane_offsets(op->a, lanes, ba, oa, known_multiple) || !lane_offsets(op->b, lanes, bb, ob, known_multiple))
        return false;
      base = combine(op->op, ba, bb);
      off.resize(lanes);
      for (int i = 0; i < lanes; ++i) off[i] = op->op == BinaryOp::Add ? oa[i] + ob[i] : oa[i] - ob[i];
      return true;
    case BinaryOp::Mul:
      if (const auto* bl = op->a.as<Broadcast>(); !c && bl && constant(bl->value)) {
        // A constant on the left (2 * x): the same product.
        c = constant(bl->value);
        if (!lane_offsets(op->b, lanes, ba, oa, known_multiple)) return false;
      } else if (!c || !lane_offsets(op->a, lanes, ba, oa, known_multiple)) {
        return false;
      }
      base = combine(BinaryOp::Mul, ba, make_const(ba.dtype(), *c));
      off.resize(lanes);
      for (int i = 0; i < lanes; ++i) off[i] = oa[i] * *c;
      return true;
    case BinaryOp::Min:
    case BinaryOp::Max: {
      // A clamp at a constant position (an edge vector): every lane's value is known.
      if (!c || !lane_offsets(op->a, lanes, ba, oa, known_multiple)) return false;
      std::optional<int64_t> k = constant(ba);
      if (!k) return false;
      base = make_const(ba.dtype(), 0);
      off.resize(lanes);
      for (int i = 0; i < lanes; ++i)
        off[i] = op->op == BinaryOp::Min ? std::min(*k + oa[i], *c) : std::max(*k + oa[i], *c);
      return true;
    }
    case BinaryOp::Div:
    case BinaryOp::Mod: {
      if (!c || *c <= 0 || !lane_offsets(op->a, lanes, ba, oa, known_multiple)) return false;
      std::optional<int64_t> k = constant(ba);
      if (k && *k % *c != 0) {
        // A constant base the divisor does not divide: the offsets take it whole.
        for (int64_t& o : oa) o += *k;
        k = 0;
      }
      if (!k && *c > 1 && (!known_multiple || known_multiple(ba) % *c != 0)) return false;
      off.resize(lanes);
      for (int i = 0; i < lanes; ++i)
        off[i] = op->op == BinaryOp::Div ? floor_div(oa[i], *c) : oa[i] - floor_div(oa[i], *c) * *c;
      if (op->op == BinaryOp::Mod)
        base = make_const(ba.dtype(), 0);
      else
        base = k ? make_const(ba.dtype(), *k / *c) : Binary::make(BinaryOp::Div, ba, make_const(ba.dtype(), *c));
      return true;
    }
    default: return false;
  }
}

}  // namespace dspc
