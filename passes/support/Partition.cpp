// Boundary partitioning (interface in Partition.h).
//
// 1. Ranges: every index variable over its extent, every reduction axis over its extent.
// 2. For each index variable v and each integer min/max whose operands mention v: which
//    operand it picks when v is one value p (IndexBounds, the others over their ranges).
//    Around the middle of v's extent it usually picks one operand for sure (the clamp is a
//    no-op there); binary search finds how far that holds on each side (clamped indices are
//    monotone in v). Nodes undecided in the middle cannot be removed and are ignored.
// 3. v's interior is the intersection over its nodes. It is only a heuristic: the removal
//    itself (drop_decided_minmax) re-proves each min/max over the whole region, so a wrong
//    guess costs speed, never correctness.
#include "passes/support/Partition.h"

#include <algorithm>
#include <optional>

#include "compiler/arith/IndexBounds.h"
#include "compiler/ir/IRVisitor.h"

namespace dspc {

namespace {

enum class Pick { A, B, None };

bool is_minmax(const Binary* op) {
  return (op->op == BinaryOp::Min || op->op == BinaryOp::Max) && op->dtype.is_integer() &&
         op->dtype.is_scalar();
}

Pick decide(IndexBounds& bounds, const Binary* op) {
  bounds.refuel();
  Interval a = bounds.of(op->a), b = bounds.of(op->b);
  if (op->op == BinaryOp::Min) {
    if (a.hi <= b.lo) return Pick::A;
    if (b.hi <= a.lo) return Pick::B;
  } else {
    if (a.lo >= b.hi) return Pick::A;
    if (b.lo >= a.hi) return Pick::B;
  }
  return Pick::None;
}

class Collector : public IRVisitor {
 public:
  std::vector<const Binary*> minmax;
  std::vector<ReduceAxis> axes;
  void visit_Binary(const Binary* op) override {
    if (is_minmax(op)) minmax.push_back(op);
    IRVisitor::visit_Binary(op);
  }
  void visit_Reduce(const Reduce* op) override {
    for (const auto& a : op->axes) axes.push_back(a);
    IRVisitor::visit_Reduce(op);
  }
};

void set_ranges(IndexBounds& bounds, const Stage& stage, const Region& region, const std::vector<ReduceAxis>& axes) {
  for (size_t d = 0; d < stage.index_vars.size(); ++d)
    bounds.set(stage.index_vars[d].get(), {region[d].min, region[d].min + region[d].extent - 1});
  for (const auto& a : axes) bounds.set(a.var.get(), {0, static_cast<i128>(a.extent) - 1});
}

// The interior [lo, hi] of dimension d, or nullopt when nothing can be removed there.
std::optional<std::pair<int64_t, int64_t>> interior(const Stage& stage, size_t d, const Collector& c) {
  const VarNode* v = stage.index_vars[d].get();
  int64_t n = stage.out->shape[d];
  IndexBounds bounds;
  Region full;
  for (int64_t e : stage.out->shape) full.push_back({0, e});
  set_ranges(bounds, stage, full, c.axes);
  auto pick_at = [&](const Binary* op, int64_t p) {
    bounds.set(v, {p, p});
    return decide(bounds, op);
  };
  int64_t lo = 0, hi = n - 1;
  bool any = false;
  int64_t mid = (n - 1) / 2;
  for (const Binary* op : c.minmax) {
    if (!mentions(op->a, v) && !mentions(op->b, v)) continue;
    Pick want = pick_at(op, mid);
    if (want == Pick::None) continue;
    // Smallest p <= mid with the same pick on [p, mid], assuming monotonicity.
    int64_t l = 0, r = mid;
    while (l < r) {
      int64_t m = l + (r - l) / 2;
      if (pick_at(op, m) == want) r = m; else l = m + 1;
    }
    int64_t node_lo = l;
    l = mid, r = n - 1;
    while (l < r) {
      int64_t m = r - (r - l) / 2;
      if (pick_at(op, m) == want) l = m; else r = m - 1;
    }
    lo = std::max(lo, node_lo);
    hi = std::min(hi, l);
    any = true;
  }
  if (!any || lo > hi || (lo == 0 && hi == n - 1)) return std::nullopt;
  return std::make_pair(lo, hi);
}

class MinMaxDropper : public IRMutator {
 public:
  explicit MinMaxDropper(IndexBounds& bounds) : bounds_(bounds) {}
  Expr mutate_Binary(const Binary* op, const Expr& self) override {
    Expr e = IRMutator::mutate_Binary(op, self);
    const auto* b = e.as<Binary>();
    if (!b || !is_minmax(b)) return e;
    switch (decide(bounds_, b)) {
      case Pick::A: return b->a;
      case Pick::B: return b->b;
      case Pick::None: return e;
    }
    return e;
  }
  // A select whose condition the region decides (a padded copy's interior, where every
  // `yy >= P && yy < H + P` holds): its taken side.
  Expr mutate_Select(const Select* op, const Expr& self) override {
    Expr e = IRMutator::mutate_Select(op, self);
    const auto* s = e.as<Select>();
    if (!s || !s->cond.dtype().is_scalar()) return e;
    std::optional<bool> c = decided(s->cond);
    if (c) return *c ? s->t : s->f;
    Expr cond = drop_decided_terms(s->cond);
    return cond.same_as(s->cond) ? e : Select::make(cond, s->t, s->f, s->span);
  }

 private:
  // The value of a condition over the whole region, when its comparisons of integer scalars
  // (joined by && and ||) are each decided there.
  std::optional<bool> decided(const Expr& cond) {
    const auto* b = cond.as<Binary>();
    if (!b) return std::nullopt;
    if (b->op == BinaryOp::And || b->op == BinaryOp::Or) {
      std::optional<bool> x = decided(b->a), y = decided(b->b);
      bool is_and = b->op == BinaryOp::And;
      if ((x && *x != is_and) || (y && *y != is_and)) return !is_and;  // false && _, true || _
      if (x && y) return is_and;
      return std::nullopt;
    }
    if (!is_comparison(b->op) || !b->a.dtype().is_integer() || !b->a.dtype().is_scalar()) return std::nullopt;
    bounds_.refuel();
    Interval x = bounds_.of(b->a), y = bounds_.of(b->b);
    switch (b->op) {
      case BinaryOp::LT:
        if (x.hi < y.lo) return true;
        if (x.lo >= y.hi) return false;
        break;
      case BinaryOp::LE:
        if (x.hi <= y.lo) return true;
        if (x.lo > y.hi) return false;
        break;
      case BinaryOp::GT:
        if (x.lo > y.hi) return true;
        if (x.hi <= y.lo) return false;
        break;
      case BinaryOp::GE:
        if (x.lo >= y.hi) return true;
        if (x.hi < y.lo) return false;
        break;
      case BinaryOp::EQ:
        if (x.lo == x.hi && y.lo == y.hi && x.lo == y.lo) return true;
        if (x.hi < y.lo || y.hi < x.lo) return false;
        break;
      case BinaryOp::NE:
        if (x.lo == x.hi && y.lo == y.hi && x.lo == y.lo) return false;
        if (x.hi < y.lo || y.hi < x.lo) return true;
        break;
      default:
        break;
    }
    return std::nullopt;
  }

  // A condition without its && / || terms that the region decides (true && c: c), where the
  // rest is not decided as a whole.
  Expr drop_decided_terms(const Expr& cond) {
    const auto* b = cond.as<Binary>();
    if (!b || (b->op != BinaryOp::And && b->op != BinaryOp::Or)) return cond;
    bool is_and = b->op == BinaryOp::And;
    std::optional<bool> x = decided(b->a), y = decided(b->b);
    if (x && *x == is_and) return drop_decided_terms(b->b);  // true && c, false || c
    if (y && *y == is_and) return drop_decided_terms(b->a);
    Expr a = drop_decided_terms(b->a), c = drop_decided_terms(b->b);
    if (a.same_as(b->a) && c.same_as(b->b)) return cond;
    return Binary::make(b->op, a, c, b->span);
  }

  IndexBounds& bounds_;
};

}  // namespace

// Whether `e` holds a reduction. Its clamped reads in an edge vector would index by the
// reduction's axes, which codegen reads lane by lane: such a stage keeps scalar edges.
bool has_reduction(const Expr& e) {
  struct Finder : IRVisitor {
    bool found = false;
    void visit_Reduce(const Reduce* op) override { found = true; }
  } f;
  f.visit(e);
  return f.found;
}

// The innermost variable's pieces for `lanes` > 1 (see Partition.h), or nullopt when the
// interior [a, b) of [0, n) holds no aligned vector.
std::optional<std::vector<DimRange>> vector_pieces(int64_t n, int64_t a, int64_t b, int64_t lanes, bool whole_edges) {
  int64_t first = (a + lanes - 1) / lanes * lanes;
  if (b - first < lanes) return std::nullopt;
  int64_t end = first + (b - first) / lanes * lanes;
  std::vector<DimRange> p;
  // Edges of at most a quarter of a vector (a stencil's few clamped columns), when the range
  // is whole vectors: the range's first vector and its last, both aligned, hold them, clamps
  // and all (codegen reads a clamped window of an aligned vector at a constant position as a
  // shuffle of one or two aligned vectors), instead of scalar edge pieces and the interior's
  // unaligned end vectors. Wider edges (a clamp that repeats one element over much of a
  // vector) keep their own pieces, and so does a range that is not whole vectors (its last
  // vector would be unaligned, and its clamped window a gather).
  if (whole_edges && n % lanes == 0 && 4 * a <= lanes && 4 * (n - b) <= lanes && n - end <= lanes &&
      (a > 0 || end < n)) {
    p.push_back({first, end - first});
    if (a > 0 && end < n) p.push_back({0, n, lanes});
    else if (a > 0) p.push_back({0, lanes});
    else p.push_back({n - lanes, lanes});
    return p;
  }
  if (a > 0) p.push_back({0, a});
  p.push_back({first, end - first});
  if (first > a && end < b) p.push_back({a, b - a, lanes});
  else if (first > a) p.push_back({a, lanes});
  else if (end < b) p.push_back({b - lanes, lanes});
  if (b < n) p.push_back({b, n - b});
  return p;
}

std::vector<Region> boundary_regions(const Stage& stage, size_t max_regions, size_t first_dim, int64_t lanes,
                                     size_t last_dim) {
  Region full;
  for (int64_t e : stage.out->shape) full.push_back({0, e});
  Collector c;
  c.visit(stage.body);
  // Each variable's pieces, and which of them is its interior (-1: none).
  std::vector<std::vector<DimRange>> pieces;
  std::vector<int> interior_piece;
  std::optional<std::vector<DimRange>> vector_innermost;
  size_t count = 1;
  for (size_t d = 0; d < stage.index_vars.size(); ++d) {
    int64_t n = stage.out->shape[d];
    std::vector<DimRange> p;
    std::optional<std::pair<int64_t, int64_t>> in;
    if (d >= first_dim && d <= last_dim) in = interior(stage, d, c);
    interior_piece.push_back(-1);
    if (in) {
      auto [lo, hi] = *in;
      bool merge_ends = lanes > 1 && d + 1 < stage.index_vars.size() && lo > 0 && lo == n - 1 - hi;
      if (lo > 0 && !merge_ends) p.push_back({0, lo});
      interior_piece.back() = static_cast<int>(p.size());
      p.push_back({lo, hi - lo + 1});
      if (merge_ends) p.push_back({0, n, lo});
      else if (hi < n - 1) p.push_back({hi + 1, n - 1 - hi});
      if (lanes > 1 && d + 1 == stage.index_vars.size() && n >= lanes)
        vector_innermost = vector_pieces(n, lo, hi + 1, lanes, !has_reduction(stage.body));
    } else {
      p.push_back({0, n});
    }
    count *= std::max(p.size(), vector_innermost ? vector_innermost->size() : 0);
    pieces.push_back(std::move(p));
  }
  if ((count == 1 && !vector_innermost) || count > max_regions) return {full};
  // The vector pieces of the innermost variable are used only where every outer variable is
  // in its interior: the edge rows are a small part of the work, and cutting them too would
  // multiply the vector code to compile (measured: conv3x3a16's compile 0.94 -> 1.83 times
  // Halide's).
  std::vector<std::pair<Region, bool>> out(1, {Region(), true});
  for (size_t d = 0; d < pieces.size(); ++d) {
    std::vector<std::pair<Region, bool>> next;
    for (const auto& [r, inside] : out) {
      const std::vector<DimRange>& choice =
          d + 1 == pieces.size() && inside && vector_innermost ? *vector_innermost : pieces[d];
      for (size_t k = 0; k < choice.size(); ++k) {
        next.push_back({r, inside && (interior_piece[d] < 0 || interior_piece[d] == static_cast<int>(k))});
        next.back().first.push_back(choice[k]);
      }
    }
    out = std::move(next);
  }
  std::vector<Region> regions;
  for (auto& [r, inside] : out) regions.push_back(std::move(r));
  return regions;
}

Expr drop_decided_minmax(const Expr& e, const Stage& stage, const Region& region) {
  Collector c;
  c.visit(e);
  IndexBounds bounds;
  set_ranges(bounds, stage, region, c.axes);
  return MinMaxDropper(bounds).mutate(e);
}

}  // namespace dspc
