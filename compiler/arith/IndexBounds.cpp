// Interval arithmetic for index bounds (interface and limits in IndexBounds.h).
//
// 1. Every expression's interval is computed in 128 bits from its operands' intervals, then
//    `fit` to its dtype: a result that leaves the dtype's range may have wrapped, so it
//    becomes the whole range.
// 2. Division and modulo follow the floor semantics, with x / 0 == 0 and x % 0 == 0.
// 3. A select's value is the hull of its branches, each evaluated with the variables
//    narrowed by the condition (taken, then not taken).
#include "compiler/arith/IndexBounds.h"

#include <algorithm>
#include <initializer_list>

namespace dspc {

namespace {

constexpr i128 kHuge = static_cast<i128>(1) << 100;  // "any value" for floats

Interval full(DataType t) {
  if (t.is_bool()) return {0, 1};
  if (t.is_int()) return {t.min_int(), t.max_int_signed()};
  if (t.is_uint()) return {0, (static_cast<i128>(1) << t.bits) - 1};
  return {-kHuge, kHuge};
}

// Wrapping arithmetic can give any value of the dtype once a bound leaves its range.
Interval fit(DataType t, Interval r) {
  Interval f = full(t);
  return r.lo < f.lo || r.hi > f.hi ? f : r;
}

i128 floor_div(i128 a, i128 b) {
  i128 q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

bool small(Interval r) {
  i128 lim = static_cast<i128>(1) << 64;
  return r.lo >= -lim && r.hi <= lim;
}

Interval hull(std::initializer_list<i128> v) {
  return {std::min(v), std::max(v)};
}

Interval div_range(DataType t, Interval a, Interval b) {
  std::vector<i128> c;
  auto part = [&](i128 lo, i128 hi) {
    for (i128 x : {a.lo, a.hi})
      for (i128 d : {lo, hi}) c.push_back(floor_div(x, d));
  };
  if (b.lo <= -1) part(b.lo, std::min<i128>(b.hi, -1));
  if (b.hi >= 1) part(std::max<i128>(b.lo, 1), b.hi);
  if (b.lo <= 0 && b.hi >= 0) c.push_back(0);  // x / 0 == 0
  return fit(t, {*std::min_element(c.begin(), c.end()), *std::max_element(c.begin(), c.end())});
}

Interval mod_range(DataType t, Interval a, Interval b) {
  if (b.lo > 0) {
    if (a.lo >= 0 && a.hi < b.lo) return a;
    return {0, a.lo >= 0 ? std::min(a.hi, b.hi - 1) : b.hi - 1};
  }
  if (b.hi < 0) return {b.lo + 1, 0};
  return fit(t, {std::min<i128>(b.lo + 1, 0), std::max<i128>(b.hi - 1, 0)});
}

BinaryOp negated(BinaryOp op) {
  switch (op) {
    case BinaryOp::LT: return BinaryOp::GE;
    case BinaryOp::LE: return BinaryOp::GT;
    case BinaryOp::GT: return BinaryOp::LE;
    case BinaryOp::GE: return BinaryOp::LT;
    case BinaryOp::EQ: return BinaryOp::NE;
    default: return BinaryOp::EQ;  // NE
  }
}

}  // namespace

std::string format_i128(i128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  for (; u; u /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
  return neg ? "-" + s : s;
}

void IndexBounds::restore(Undo& undo, size_t mark) {
  while (undo.size() > mark) {
    vars_[undo.back().first] = undo.back().second;
    undo.pop_back();
  }
}

void IndexBounds::narrow(const Expr& cond, bool taken, Undo& undo) {
  if (--fuel_ < 0) return;
  if (const auto* u = cond.as<Unary>(); u && u->op == UnaryOp::Not) return narrow(u->value, !taken, undo);
  const auto* b = cond.as<Binary>();
  if (!b) return;
  if ((b->op == BinaryOp::And && taken) || (b->op == BinaryOp::Or && !taken)) {
    narrow(b->a, taken, undo);
    narrow(b->b, taken, undo);
    return;
  }
  if (!is_comparison(b->op)) return;
  BinaryOp op = taken ? b->op : negated(b->op);
  auto bound = [&](const Expr& side, const Expr& other, BinaryOp o) {
    const auto* v = side.as<Var>();
    if (!v || !vars_.count(v)) return;
    Interval r = of(other);
    Interval x = vars_[v];
    undo.emplace_back(v, x);
    if (o == BinaryOp::LT || o == BinaryOp::LE || o == BinaryOp::EQ)
      x.hi = std::min(x.hi, o == BinaryOp::LT ? r.hi - 1 : r.hi);
    if (o == BinaryOp::GT || o == BinaryOp::GE || o == BinaryOp::EQ)
      x.lo = std::max(x.lo, o == BinaryOp::GT ? r.lo + 1 : r.lo);
    vars_[v] = x;
  };
  bound(b->a, b->b, op);
  bound(b->b, b->a, mirrored(op));
}

Interval IndexBounds::binary(const Binary* op) {
  DataType t = op->dtype;
  if (!t.is_integer()) return full(t);
  Interval a = of(op->a), b = of(op->b);
  switch (op->op) {
    case BinaryOp::Add: return fit(t, {a.lo + b.lo, a.hi + b.hi});
    case BinaryOp::Sub: return fit(t, {a.lo - b.hi, a.hi - b.lo});
    case BinaryOp::Mul:
      if (!small(a) || !small(b) || a.hi - a.lo > (i128(1) << 62) || b.hi - b.lo > (i128(1) << 62))
        return full(t);
      return fit(t, hull({a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}));
    case BinaryOp::Div: return div_range(t, a, b);
    case BinaryOp::Mod: return mod_range(t, a, b);
    case BinaryOp::Min: return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    case BinaryOp::Max: return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    case BinaryOp::BitAnd:
      if (a.lo >= 0 && b.lo >= 0) return {0, std::min(a.hi, b.hi)};
      if (a.lo >= 0) return {0, a.hi};
      if (b.lo >= 0) return {0, b.hi};
      return full(t);
    case BinaryOp::Shl:
      if (b.lo != b.hi || b.lo < 0 || b.lo >= t.bits || b.lo > 62 || !small(a)) return full(t);
      return fit(t, {a.lo * (i128(1) << static_cast<int>(b.lo)), a.hi * (i128(1) << static_cast<int>(b.lo))});
    case BinaryOp::Shr:
      if (b.lo != b.hi || b.lo < 0 || b.lo >= t.bits) return full(t);
      return {floor_div(a.lo, i128(1) << static_cast<int>(b.lo)),
              floor_div(a.hi, i128(1) << static_cast<int>(b.lo))};
    default: return full(t);
  }
}

Interval IndexBounds::of(const Expr& e) {
  DataType t = e.dtype();
  if (--fuel_ < 0) return full(t);
  if (const auto* op = e.as<IntImm>()) {
    i128 v = t.is_uint() ? static_cast<i128>(static_cast<uint64_t>(op->value)) : static_cast<i128>(op->value);
    return {v, v};
  }
  if (const auto* op = e.as<Var>()) {
    auto it = vars_.find(op);
    return it == vars_.end() ? full(t) : it->second;
  }
  if (const auto* op = e.as<Cast>()) {
    DataType from = op->value.dtype();
    if (!t.is_integer() || !(from.is_integer() || from.is_bool())) return full(t);
    return fit(t, of(op->value));
  }
  if (const auto* op = e.as<Binary>()) return binary(op);
  // Every lane of a broadcast holds its value.
  if (const auto* op = e.as<Broadcast>()) return of(op->value);
  if (const auto* op = e.as<Unary>()) {
    if (!t.is_integer()) return full(t);
    Interval a = of(op->value);
    switch (op->op) {
      case UnaryOp::Neg: return fit(t, {-a.hi, -a.lo});
      case UnaryOp::BitNot: return fit(t, {-a.hi - 1, -a.lo - 1});
      case UnaryOp::Abs:
        if (a.lo >= 0) return a;
        if (a.hi <= 0) return fit(t, {-a.hi, -a.lo});
        return fit(t, {0, std::max(-a.lo, a.hi)});
      case UnaryOp::Not: return full(t);
      case UnaryOp::Clz:
      case UnaryOp::Popcount: return {0, t.bits};
    }
  }
  if (const auto* op = e.as<Select>()) {
    Undo undo;
    narrow(op->cond, true, undo);
    Interval a = of(op->t);
    restore(undo, 0);
    narrow(op->cond, false, undo);
    Interval b = of(op->f);
    restore(undo, 0);
    return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
  }
  if (const auto* op = e.as<Reduce>()) {
    if (!t.is_integer()) return full(t);
    Interval s = of(op->source);
    if (op->op != ReduceOp::Sum) return s;
    i128 n = 1;
    for (const auto& ax : op->axes) n = std::min<i128>(n * ax.extent, i128(1) << 50);
    if (!small(s)) return full(t);
    return fit(t, {s.lo * n, s.hi * n});
  }
  return full(t);  // loads and anything else: the dtype's whole range
}

}  // namespace dspc
