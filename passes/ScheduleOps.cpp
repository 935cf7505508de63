// schedule-ops
//  1. Collect the names the function uses (buffers, index, reduction and schedule variables)
//     so that accumulators and inlined reduction axes get fresh ones.
//  2. Inline: in source order, substitute each compute_inline stage into the later stages
//     that read it (Inliner); inlined stages are not materialised. Then collect the set of
//     buffers each remaining stage reads.
//  2b. With the automatic schedule, a stage without a schedule whose reduction is a separable
//     window becomes two (separate_window): its first pass, a stage of its own, then the stage
//     reading it.
//  2c. With the automatic schedule, a stage without a schedule that is a byte matrix product
//     along its vectorized variable gets the operand read along it packed for vrmpy
//     (pack_byte_product): the packing stage (and, for a signed operand, a row-sum stage),
//     then the stage reading the packed copy.
//  3. A stage without a schedule gets the automatic one, when on (lower_auto): boundary
//     partitioning into boxes (passes/support/Partition.h), each box's innermost loop
//     vectorized at the HVX width, unroll-and-jam of one-reduction stages, byte dot products
//     grouped by 4. A scheduled stage that vectorizes is partitioned the same way, each box
//     built by build_stage_loop_nest. Otherwise:
//     lower each remaining stage with build_stage_loop_nest (passes/support/StageLoopNest.h)
//     over its whole shape: the loops its schedule gives (split, tile, reorder, kinds), the
//     index variables substituted by their split expressions, each Reduce a "local"
//     accumulator with its init, axes' loops and update inside the innermost stage loop.
//     A compute_at stage has no nest of its own: its consumer's nest computes it inside the
//     named loop, over the region each iteration reads.
//  4. Place intermediate buffers: walk the stages with a stack of open allocations; open a
//     stage's allocation right before its loop nest (for a compute_at stage, where its nest
//     would be: its buffer keeps its whole shape, and its consumer, its only reader, comes
//     later); after each stage, close the top allocation while no later stage reads its
//     buffer (a stage computed at another reads where its consumer is); close the rest at
//     the end. A store_at stage opens nothing here: its consumer's nest allocates its region
//     inside the loop it is computed at (StageLoopNest.h).
//  5. storage_align: allocate each aligned stage with its padded shape (aligned_shape) and
//     send every access of it through that buffer, indices unchanged (align_storage).
#include "passes/ScheduleOps.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "compiler/arith/IndexBounds.h"
#include "compiler/arith/Simplify.h"
#include "compiler/ir/IRVisitor.h"
#include "compiler/ir/LoopSchedule.h"
#include "compiler/ir/Printer.h"
#include "passes/support/ComputeAtRegion.h"
#include "passes/support/Partition.h"
#include "passes/support/StageLoopNest.h"

namespace dspc {

namespace {

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

// Substitutes inlined stages into their readers: a load P[e0, e1] of an inlined P becomes
// P's body with P's index variables replaced by e0, e1, and P's reduction axes by fresh
// variables with fresh names (one set per load, so no Var is bound twice and no printed loop
// shadows another).
class Inliner : public IRMutator {
 public:
  explicit Inliner(std::set<std::string>& used) : used_(used) {}

  // `stage` (its body already free of earlier inlined stages) is inlined from now on.
  void add(const Stage& stage) { inlined_[stage.out.get()] = stage; }

  Expr mutate_Load(const Load* op, const Expr& self) override {
    Expr e = IRMutator::mutate_Load(op, self);
    const Load* load = e.as<Load>();
    auto it = inlined_.find(load->buffer.get());
    if (it == inlined_.end()) return e;
    const Stage& p = it->second;
    std::map<const VarNode*, Expr> values;
    for (size_t d = 0; d < p.index_vars.size(); ++d) values[p.index_vars[d].get()] = load->indices[d];
    return substitute(p.body, values, &used_);
  }

 private:
  std::set<std::string>& used_;
  std::map<const BufferNode*, Stage> inlined_;
};


// ---------------------------------------------------------------- the automatic schedule

// The bytes of the narrowest of `bytes` and the element types `e` loads.
int narrowest_bytes(const Expr& e, int bytes) {
  struct Narrowest : IRVisitor {
    int bytes;
    void visit_Load(const Load* op) override {
      bytes = std::min(bytes, op->buffer->dtype.bytes());
      IRVisitor::visit_Load(op);
    }
  } n;
  n.bytes = bytes;
  n.visit(e);
  return std::max(n.bytes, 1);
}

// The vector width of a stage: a full vector of the narrowest type it reads or writes.
int auto_lanes(const Stage& stage, const Target& target) {
  int lanes = target.vector_bytes / narrowest_bytes(stage.body, stage.out->dtype.bytes());
  // An innermost extent below that (a conv2d's 64 output channels of i32 from u8 reads): the
  // widest power of two within the extent that still fills a whole vector of the stage's own
  // type, rather than no vectors at all.
  int64_t extent = stage.out->shape.empty() ? 0 : stage.out->shape.back();
  if (lanes > 1 && extent < lanes) {
    // Of those powers of two, the one that computes the fewest outputs twice (the last vector
    // shifted inwards), the wider on a tie: 96 i32 as three vectors of 32, not two of 64.
    int best = 0;
    for (int64_t fit = 1; fit <= extent; fit *= 2) {
      if (fit * stage.out->dtype.bytes() < target.vector_bytes) continue;
      if (!best || (extent + fit - 1) / fit * fit <= (extent + best - 1) / best * best) best = static_cast<int>(fit);
    }
    if (best) return best;
  }
  return lanes;
}

// An innermost extent E below a vector of the stage's narrowest type, E a power of two, inside
// another loop: the stage's loop over it vectorized by E lanes, a fraction of one register. The vectorizer then
// runs k neighbouring iterations of the loop outside it as one full vector where the stage's
// stores are dense in them and its loads are runs of consecutive elements (an NHWC tensor of 32
// u8 channels: four pixels per vector), and otherwise as scalar code, as before.
int short_vector_lanes(const Stage& stage, int lanes) {
  int64_t extent = stage.out->shape.empty() ? 0 : stage.out->shape.back();
  if (lanes > 1 && stage.index_vars.size() >= 2 && extent >= 2 && extent < lanes && (extent & (extent - 1)) == 0)
    return static_cast<int>(extent);
  return lanes;
}

// The widest value a stage computes, in bytes (its accumulators included; not the index
// arithmetic of its reads).
int widest_bytes(const Stage& stage) {
  struct Widest : IRVisitor {
    int bytes = 1;
    void visit(const Expr& e) override {
      if (e.get()) bytes = std::max(bytes, e->dtype.bytes());
      IRVisitor::visit(e);
    }
    void visit_Load(const Load* op) override { bytes = std::max(bytes, op->dtype.bytes()); }
  } w;
  w.bytes = std::max(1, stage.out->dtype.bytes());
  w.visit(stage.body);
  return w.bytes;
}

// Whether every load in `e` has `v` in one of its indices.
bool every_read_indexed_by(const Expr& e, const VarNode* v) {
  struct Reads : IRVisitor {
    const VarNode* v;
    bool all = true;
    void visit_Load(const Load* op) override {
      bool uses = false;
      for (const Expr& i : op->indices) uses |= mentions(i, v);
      all &= uses;
      IRVisitor::visit_Load(op);
    }
  } r;
  r.v = v;
  r.visit(e);
  return r.all;
}

// `e` with the reduction node R replaced by `with`.
Expr replace_reduce(const Expr& e, const Reduce* R, const Expr& with) {
  struct Replace : IRMutator {
    const Reduce* R;
    Expr with;
    Expr mutate_Reduce(const Reduce* op, const Expr& self) override {
      return op == R ? with : IRMutator::mutate_Reduce(op, self);
    }
  } r;
  r.R = R;
  r.with = with;
  return r.mutate(e);
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

std::optional<int64_t> stride_along(const Expr& e, const VarNode* x, bool& reads_memory);

// The elements between neighbouring lanes of a read `load` when `x` steps by one (0: a
// broadcast), from its row-major strides; nullopt when the index is not affine in x, or when x
// is under a select, a division or a load there (which a vector read along x turns into a
// gather), or, unless `clamps_ok` (an index variable: the automatic schedule's partitioning
// drops its clamps inside the boundaries), under a clamp.
std::optional<int64_t> flat_stride_along(const Load* load, const VarNode* x, bool clamps_ok) {
  struct Mentions : IRVisitor {
    const VarNode* x;
    bool found = false;
    void visit_Var(const VarNode* op) override { found |= op == x; }
  };
  struct Guarded : IRVisitor {
    const VarNode* x;
    bool bad = false;
    bool clamps_ok = false;
    void visit_Binary(const Binary* op) override {
      bool clamp = op->op == BinaryOp::Min || op->op == BinaryOp::Max;
      if ((clamp && !clamps_ok) || op->op == BinaryOp::Div || op->op == BinaryOp::Mod) {
        Mentions m;
        m.x = x;
        m.visit(op->a);
        m.visit(op->b);
        bad |= m.found;
      }
      IRVisitor::visit_Binary(op);
    }
    void visit_Select(const Select* op) override {
      Mentions m;
      m.x = x;
      m.visit(op->cond);
      bad |= m.found;
      IRVisitor::visit_Select(op);
    }
  };
  int64_t step = 0, row = 1;
  const Buffer& buf = load->buffer;
  for (size_t d = load->indices.size(); d-- > 0;) {
    Guarded g;
    g.x = x;
    g.clamps_ok = clamps_ok;
    g.visit(load->indices[d]);
    bool reads_memory = false;
    std::optional<int64_t> st = stride_along(load->indices[d], x, reads_memory);
    if (g.bad || reads_memory || !st) return std::nullopt;
    step += *st * row;
    row *= d < buf->shape.size() ? buf->shape[d] : 1;
  }
  return step;
}

// Whether every read of `e` is dense or a broadcast along x (stride 0 or 1), and, with
// `one_dense` (a reduction axis: no partitioning drops its clamps), at least one is dense and
// none clamps x.
bool reads_dense_along(const Expr& e, const VarNode* x, bool one_dense) {
  struct Reads : IRVisitor {
    const VarNode* x;
    bool one_dense;
    bool ok = true, dense = false;
    void visit_Load(const Load* op) override {
      std::optional<int64_t> st = flat_stride_along(op, x, !one_dense);
      ok &= st && (*st == 0 || *st == 1);
      dense |= st == std::optional<int64_t>(1);
      IRVisitor::visit_Load(op);
    }
  } r;
  r.x = x;
  r.one_dense = one_dense;
  r.visit(e);
  return r.ok && (r.dense || !one_dense);
}

// Whether some read of `e` is dense along x (stride 1).
bool reads_some_dense_along(const Expr& e, const VarNode* x) {
  struct Reads : IRVisitor {
    const VarNode* x;
    bool dense = false;
    void visit_Load(const Load* op) override {
      dense |= flat_stride_along(op, x, true) == std::optional<int64_t>(1);
      IRVisitor::visit_Load(op);
    }
  } r;
  r.x = x;
  r.visit(e);
  return r.dense;
}

// The one Reduce of a stage body, or null.
const Reduce* only_reduction(const Expr& body) {
  struct Find : IRVisitor {
    const Reduce* found = nullptr;
    int n = 0;
    void visit_Reduce(const Reduce* op) override {
      found = op;
      ++n;
      IRVisitor::visit_Reduce(op);
    }
  } f;
  f.visit(body);
  return f.n == 1 ? f.found : nullptr;
}

// The automatic schedule's reductions along the contiguous axis: the lanes L of the vectors
// along a stage's reduction axis, or 0 to vectorize its innermost index variable as usual.
// A stage with one reduction whose innermost axis k every read of the reduction meets densely
// or not at all (stride 1 or 0 along k, at least one dense, no clamp on k), when its own
// innermost variable x does not give dense vectors (a read with another stride along x, or an
// extent below a vector): a row sum, a dot product of two rows, a row maximum. L is a vector of
// the narrowest type the reduction reads or gives; k must be at least that long. Only
// reductions that may be reassociated: integer sums (they wrap), minima and maxima; not float
// ones. `why` (when given) gets the reason when the rule does not apply to a stage with a
// reduction whose output vectors are not dense.
int reduce_axis_lanes(const Stage& stage, const Target& target, std::string* why = nullptr) {
  const Reduce* r = only_reduction(stage.body);
  if (!r || target.vector_bytes <= 1 || stage.index_vars.empty()) return 0;
  const VarNode* x = stage.index_vars.back().get();
  int lanes = auto_lanes(stage, target);
  // Not when no read is dense along x either (every read a broadcast along it: a histogram
  // over 64 bins, whose bins only meet the pixel in a comparison): vectors along x would load
  // each value alone and broadcast it.
  if (lanes > 1 && stage.out->shape.back() >= lanes && reads_dense_along(stage.body, x, false) &&
      reads_some_dense_along(stage.body, x))
    return 0;
  const ReduceAxis& k = r->axes.back();
  auto no = [&](const std::string& text) {
    if (why) *why = text;
    return 0;
  };
  const std::string& kn = k.var->name;
  if (!r->dtype.is_integer())
    return no("the " + std::string(reduce_op_name(r->op)) + " over " + kn + " is of " + r->dtype.str() +
              " values, which vectors along " + kn + " would reassociate (inexact for floats)");
  if (target.arch == Arch::hexagon && r->dtype.bits == 64)
    return no("it is of 64-bit values, which HVX has no lanes for");
  if (!reads_dense_along(r->source, k.var.get(), true))
    return no(
        kn +
        " is not contiguous in what it reads (a read with another stride along it, a clamp or a gather)");
  int reduce_lanes = static_cast<int>(target.vector_bytes / narrowest_bytes(r->source, r->dtype.bytes()));
  if (k.extent < reduce_lanes)
    return no(kn + "'s extent " + std::to_string(k.extent) + " is below one vector (" +
              std::to_string(reduce_lanes) + " lanes)");
  return reduce_lanes;
}

// Whether some load in `e` has `v` in its indices.
bool loads_mention(const Expr& e, const VarNode* v) {
  struct Scan : IRVisitor {
    const VarNode* v;
    bool found = false;
    using IRVisitor::visit;
    void visit_Load(const Load* l) override {
      for (const Expr& i : l->indices) found |= mentions(i, v);
      IRVisitor::visit_Load(l);
    }
  } scan;
  scan.v = v;
  scan.visit(e);
  return scan.found;
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
    Stmt body_b = substitute(fb->body, {{fb->var.get(), var_expr(fa->var)}});
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

// Unroll-and-jam: consecutive values of a stage's second-innermost variable per iteration (its
// jam factor), with one fused reduction loop nest, so that vector loads that do not depend on
// that variable (dense's rows of B; a stencil's shared rows) are made once. Measured on bench/
// (packets per 128 outputs): with a reduction, 2 (4 costs registers: dense 230 -> 326,
// conv3x3a16 9.5 -> 10.0, dilate3x3 7.5 -> 8.1); without, 4 (median3x3 14.6 -> 14.2,
// gaussian5x5 19.1 -> 18.1 against 2).
constexpr int64_t kJamReduction = 2;
constexpr int64_t kJamPure = 4;
constexpr int64_t kJamAlongReduction = 4;

// Whether the stage reads some tensor at two different points along `v` (a stencil's rows):
// then jammed values of `v` share loads.
bool reads_neighbours_along(const Expr& body, const VarNode* v) {
  struct Reads : IRVisitor {
    const VarNode* v = nullptr;
    bool found = false;  // v in the current index
    std::map<const BufferNode*, std::set<std::string>> points;
    void visit_Var(const VarNode* op) override { found |= op == v; }
    void visit_Load(const Load* op) override {
      std::string key;
      bool uses = false;
      for (const Expr& i : op->indices) {  // the indices that v takes part in
        found = false;
        visit(i);
        uses |= found;
        key += (found ? print_expr(i) : std::string("*")) + ";";
      }
      if (uses) points[op->buffer.get()].insert(key);
    }
  } r;
  r.v = v;
  r.visit(body);
  for (const auto& [buffer, keys] : r.points)
    if (keys.size() >= 2) return true;
  return false;
}

// Whether the expression widens an integer (a cast to more bits).
bool widens(const Expr& e) {
  struct Casts : IRVisitor {
    bool found = false;
    void visit_Cast(const Cast* op) override {
      DataType from = op->value.dtype();
      found |= from.is_integer() && op->dtype.is_integer() && op->dtype.bits > from.bits;
      IRVisitor::visit_Cast(op);
    }
  } c;
  c.visit(e);
  return c.found;
}

// The jam factor of a box (0: none). A one-reduction stage, or one without reductions that
// reads neighbours along its second-innermost variable (median's column sort, gaussian's
// vertical pass). Not a stage that also widens and reads neighbours along the innermost
// variable (sobel): measured, jammed rows cost it the unrolling along x that shares its
// realignments (sobel 19.4 -> 20.4 packets per 128 outputs). Not a stage whose innermost loop
// is a short vector (short_vector_lanes): the vectorizer fills vectors from the loop around it,
// which jammed copies would hide.
int64_t jam_factor(const Stage& stage, const Region& region, int lanes, bool short_vector) {
  size_t dims = stage.index_vars.size();
  if (short_vector) return 0;
  if (!(lanes > 1 && dims >= 2 && region[dims - 2].ends == 0 && region[dims - 1].extent >= lanes)) return 0;
  int reductions = count_reductions(stage.body);
  int64_t factor = 0;
  if (reductions == 1) {
    factor = kJamReduction;
  } else if (reductions == 0 && reads_neighbours_along(stage.body, stage.index_vars[dims - 2].get()) &&
             !(widens(stage.body) && reads_neighbours_along(stage.body, stage.index_vars[dims - 1].get()))) {
    factor = kJamPure;
  }
  // Fewer rows than the factor, or not a multiple of it: try 2, else none.
  int64_t extent = region[dims - 2].extent;
  if (factor > 2 && extent % factor != 0) factor = 2;
  return factor && extent >= factor && extent % factor == 0 ? factor : 0;
}

// A short innermost loop c (extent E, 2 <= E <= kMaxSplitShortAxis, below a vector) whose reads
// index c in an axis before their last (O[y, x, c] = I[c, y, x], an NCHW -> NHWC layout change
// of a few channels: each c's lanes in another plane) reads each value of c's lanes apart:
// select(c == c0, I[c0, y, x], select(c == c0 + 1, ...)). The vectorizer then fuses the pair
// (x, c) into whole registers whose loads are each a window of consecutive x (one plane), as
// for separate planes (passes/Vectorize.cpp, fuse_short_vector: an interleave, a permute per
// plane and vmux merges on HVX); scalar code folds the selects.
constexpr int64_t kMaxSplitShortAxis = 16;

Expr split_short_axis_reads(const Expr& e, const VarRef& var, const VarRef& outer, int64_t lo, int64_t extent) {
  // Only where every such read is then, for each value of c, consecutive along the loop x
  // around c (its last index x plus terms without x, x in no other index): windows of one
  // plane. Other reads (reversed, strided) stay whole, and the loop scalar as before.
  struct Reads : IRVisitor {
    const VarNode *c, *x;
    bool all_windows = true, any = false;
    void visit_Load(const Load* op) override {
      IRVisitor::visit_Load(op);
      size_t m = op->indices.size();
      bool across = false;
      for (size_t d = 0; d + 1 < m; ++d) across |= mentions(op->indices[d], c);
      if (!across) return;
      any = true;
      for (size_t d = 0; d + 1 < m; ++d) all_windows &= !mentions(op->indices[d], x);
      Expr rest = simplify_expr(Binary::make(BinaryOp::Sub, op->indices[m - 1], var_expr(VarRef(x_ref))));
      all_windows &= !mentions(rest, x);
    }
    VarRef x_ref;
  } reads;
  reads.c = var.get();
  reads.x = outer.get();
  reads.x_ref = outer;
  reads.visit(e);
  if (!reads.any || !reads.all_windows) return e;
  struct Split : IRMutator {
    const VarNode* c;
    Expr cv;
    int64_t lo, extent;
    using IRMutator::mutate;
    Expr mutate_Load(const Load* op, const Expr& self) override {
      Expr m = IRMutator::mutate_Load(op, self);
      const auto* ld = m.as<Load>();
      bool across = false;
      for (size_t d = 0; d + 1 < ld->indices.size(); ++d) across |= mentions(ld->indices[d], c);
      if (!across) return m;
      Expr out = substitute(m, {{c, IntImm::make(c->dtype, lo + extent - 1)}});
      for (int64_t v = lo + extent - 2; v >= lo; --v)
        out = Select::make(Binary::make(BinaryOp::EQ, cv, IntImm::make(c->dtype, v)),
                           substitute(m, {{c, IntImm::make(c->dtype, v)}}), out, op->span);
      return out;
    }
  } split;
  split.c = var.get();
  split.cv = var_expr(var);
  split.lo = lo;
  split.extent = extent;
  return split.mutate(e);
}

// The automatic schedule of one box: a loop nest over `region`, first index variable
// outermost; with lanes > 1 and an innermost extent of at least `lanes`, the innermost loop is
// split into an outer loop and a vectorized inner one of `lanes` iterations, the last vector
// shifted inwards when lanes does not divide the extent (it recomputes a few elements, which
// a pure stage allows). The stage's variables are fresh copies, so boxes bind their own.
// A prefetch of the stage's (a Hint: the stage keeps this schedule) goes at the start of the
// loop that runs over its index variable: the outer vector loop when that variable is split
// into vectors, the jammed loop when rows are jammed; its distance counts iterations of that
// loop.
Stmt lower_auto_box(const Stage& stage, const Region& region, int lanes, std::set<std::string>& used,
                    const PaddedStorage& padded, int reduce_lanes, bool short_vector) {
  // Fresh index variables (same names), and through substitute fresh reduction axes.
  std::vector<VarRef> vars;
  std::map<const VarNode*, Expr> fresh;
  for (const VarRef& v : stage.index_vars) {
    vars.push_back(VarNode::make(v->name, v->dtype, v->span));
    fresh[v.get()] = var_expr(vars.back());
  }
  Stage box = stage;
  box.index_vars = vars;
  box.body = substitute(stage.body, fresh);
  Expr source = drop_decided_minmax(box.body, box, region);

  std::vector<Expr> indices;
  for (const auto& v : vars) indices.push_back(var_expr(v));
  size_t inner = vars.size() - 1;
  int64_t kJam = jam_factor(box, region, lanes, short_vector);
  // A short innermost loop the vectorizer fuses with the one around it (the plan below): its
  // reads across rows one per value of it (split_short_axis_reads).
  int64_t short_extent = region[inner].extent;
  if (inner > 0 && !reduce_lanes && region[inner].ends == 0 && short_extent >= 2 && short_extent <= kMaxSplitShortAxis &&
      ((short_vector && short_extent == lanes) ||
       (lanes > 1 && kJam == 0 && short_extent < lanes && count_reductions(stage.body) == 0)))
    source = split_short_axis_reads(source, vars[inner], vars[inner - 1], region[inner].min, region[inner].extent);
  // Jammed: the second-innermost variable, or, when the reduction runs along its vectors (no
  // index variable is vectorized), the innermost: four outputs per iteration (else two), whose
  // horizontal reductions, each a chain of dependent rotations and adds, fill each other's
  // packets; their reduction loops stay apart (below). Measured on bench/ (row_sad_u8, packets
  // per 128 outputs): 3842 with one output per iteration, 3330 with two (loops fused), 2851
  // with four (3106.5 with the four loops fused into one: LLVM schedules the interleaved loads
  // worse; 2851 too with two fused pairs).
  size_t jam_dim = inner - 1;
  if (reduce_lanes) {
    jam_dim = inner;
    kJam = 0;
    for (int64_t f : {kJamAlongReduction, int64_t(2)})
      if (!kJam && region[inner].ends == 0 && region[inner].extent >= f && region[inner].extent % f == 0) kJam = f;
  }
  bool jam = kJam > 0;
  VarRef jam_var;
  Stmt body;
  if (!jam) {
    std::vector<PendingReduction> pending;
    Expr value = lower_reductions(source, stage.out->name, used, lanes > 1, pending, reduce_lanes);
    body = wrap_reductions(pending, Store::make(stage.out, indices, value, stage.span));
  } else {
    const VarRef& v = vars[jam_dim];
    jam_var = VarNode::make(v->name + "_o", DataType::i32(), v->span);
    std::vector<PendingReduction> accs;
    std::vector<Stmt> stores, parts;
    for (int64_t j = 0; j < kJam; ++j) {
      Expr vj = Binary::make(BinaryOp::Add,
                             Binary::make(BinaryOp::Add, make_i32(region[jam_dim].min),
                                          Binary::make(BinaryOp::Mul, var_expr(jam_var), make_i32(kJam))),
                             make_i32(j));
      // One copy per j, each with its own reduction axes (fused below).
      std::map<const VarNode*, Expr> at_j = {{v.get(), vj}};
      std::vector<PendingReduction> pending;
      Expr value = lower_reductions(substitute(source, at_j), stage.out->name, used, reduce_lanes == 0,
                                    pending, reduce_lanes);
      DSPC_CHECK(pending.size() <= 1, "a jammed stage has at most one reduction");
      std::vector<Expr> idx;
      for (const Expr& i : indices) idx.push_back(substitute(i, at_j));
      stores.push_back(Store::make(stage.out, idx, value, stage.span));
      if (pending.empty()) continue;
      parts.push_back(pending[0].prelude);
      accs.push_back(pending[0]);
    }
    // One fused reduction loop nest; or, along the reduction's vectors, each output's loop on
    // its own, their horizontal reductions (in the stores) together after them, unless no
    // read depends on the jammed variable (a histogram's bins, `b` only in what a pixel is
    // compared with): then one fused loop reads each vector once for all the outputs
    // (hist16_u8 131776 -> 64576 packets per 128 outputs).
    bool shared_reads = reduce_lanes && !loads_mention(source, v.get());
    Stmt preludes;
    if (shared_reads) {
      // Fused in pairs, then pairs of pairs: statements of the same shape at each level.
      std::vector<Stmt> level = parts;
      while (level.size() > 1) {
        std::vector<Stmt> next;
        for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(fuse(level[i], level[i + 1]));
        if (level.size() % 2) next.push_back(level.back());
        level = next;
      }
      if (!level.empty()) preludes = level[0];
    } else {
      for (const Stmt& p : parts)
        preludes = !preludes ? p : reduce_lanes ? Seq::make({preludes, p}) : fuse(preludes, p);
    }
    body = preludes ? Seq::make({preludes, Seq::make(stores)}) : Seq::make(stores);
    for (auto it = accs.rbegin(); it != accs.rend(); ++it) body = Allocate::make(it->acc, body, it->span);
  }
  // Each index variable's loops, innermost variable first: an outer loop, and an inner one
  // when the variable is split into vectors (vectorized) or jammed (`j`: not a loop of the
  // nest, the jammed copies above; only the prefetch hints see it), and the variable's value
  // in them (null: the outer loop is the variable itself).
  struct AutoLoop {
    LoopBounds outer, inner;
    bool emit_inner = false;
    bool vector_outer = false;  // the outer loop itself vectorized (a short innermost extent)
    Expr value;
  };
  std::vector<AutoLoop> plan(vars.size());
  for (size_t i = vars.size(); i-- > 0;) {
    const VarRef& v = vars[i];
    AutoLoop& l = plan[i];
    int64_t lo = region[i].min, extent = region[i].extent;
    bool whole_short = i == inner && i > 0 && short_vector && extent == lanes && region[i].ends == 0;
    if (i == inner && lanes > 1 && extent >= lanes && !whole_short && (region[i].ends == 0 || region[i].ends == lanes)) {
      VarRef vo = VarNode::make(v->name + "_o", DataType::i32(), v->span);
      VarRef vi = VarNode::make(v->name + "_v", DataType::i32(), v->span);
      Expr start = Binary::make(BinaryOp::Mul, var_expr(vo), make_i32(lanes));
      if (region[i].ends == lanes) {
        // The first and the last vector only (Partition.h).
        start = Binary::make(BinaryOp::Mul, var_expr(vo), make_i32(extent - lanes));
        extent = 2 * lanes;
      } else if (extent % lanes != 0) {
        start = Binary::make(BinaryOp::Min, start, make_i32(extent - lanes));
      }
      l.value = Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Add, make_i32(lo), start), var_expr(vi));
      l.inner = {vi, make_i32(0), lanes};
      l.emit_inner = true;
      l.outer = {vo, make_i32(0), (extent + lanes - 1) / lanes};
    } else if (whole_short || (i == inner && i > 0 && lanes > 1 && !jam && extent >= 2 && extent < lanes &&
                               region[i].ends == 0 && count_reductions(stage.body) == 0)) {
      // An innermost extent below a vector (O[y, x, c] with 3 channels; or a power of two,
      // short_vector_lanes): the whole loop vectorized, which the vectorizer fuses with the
      // loop around it into whole registers over several x when the accesses allow
      // (passes/Vectorize.cpp, fuse_short_vector), and otherwise unrolls as scalar code.
      l.outer = {v, make_i32(lo), extent};
      l.vector_outer = true;
    } else if (jam && i == jam_dim) {
      VarRef j = VarNode::make(v->name + "_j", DataType::i32(), v->span);
      l.value = Binary::make(
          BinaryOp::Add,
          Binary::make(BinaryOp::Add, make_i32(lo), Binary::make(BinaryOp::Mul, var_expr(jam_var), make_i32(kJam))),
          var_expr(j));
      l.inner = {j, make_i32(0), kJam};
      l.outer = {jam_var, make_i32(0), extent / kJam};
    } else if (region[i].ends > 0) {
      // The first and the last `ends` values: v = lo + k + (k / ends) * (extent - 2 * ends).
      int64_t ends = region[i].ends;
      VarRef k = VarNode::make(v->name + "_e", DataType::i32(), v->span);
      Expr jump = Binary::make(BinaryOp::Mul, Binary::make(BinaryOp::Div, var_expr(k), make_i32(ends)),
                               make_i32(extent - 2 * ends));
      l.value = Binary::make(BinaryOp::Add, make_i32(lo), Binary::make(BinaryOp::Add, var_expr(k), jump));
      l.outer = {k, make_i32(0), 2 * ends};
    } else {
      l.outer = {v, make_i32(lo), extent};
    }
  }
  // The prefetch hints of index variable i, at the start of its outer loop's body.
  auto open_hints = [&](size_t i, Stmt body) {
    std::vector<LoopBounds> inside, outside;
    std::map<const VarNode*, Expr> values;
    for (size_t k = vars.size(); k-- > 0;) {
      if (plan[k].inner.var) (k >= i ? inside : outside).push_back(plan[k].inner);
      (k > i ? inside : outside).push_back(plan[k].outer);
      if (plan[k].value) values[vars[k].get()] = plan[k].value;
    }
    std::vector<Stmt> stmts;
    for (const auto& p : stage.schedule)
      if (p.kind == ScheduleKind::Prefetch && p.vars[0] == stage.index_vars[i]->name)
        if (Stmt hint = prefetch_hint(p, substitute(source, values), plan[i].outer.var, inside, outside, padded))
          stmts.push_back(hint);
    if (stmts.empty()) return body;
    stmts.push_back(body);
    return Seq::make(stmts);
  };
  for (size_t i = vars.size(); i-- > 0;) {
    const AutoLoop& l = plan[i];
    bool jammed = l.inner.var && !l.emit_inner;  // its copies are substituted above
    if (l.value && !jammed) body = LetStmt::make(vars[i], l.value, body, stage.span);
    if (l.emit_inner)
      body = For::make(l.inner.var, l.inner.min, make_i32(l.inner.extent), ForKind::Vectorized, body, stage.span);
    body = open_hints(i, body);
    body = For::make(l.outer.var, l.outer.min, make_i32(l.outer.extent),
                     l.vector_outer ? ForKind::Vectorized : ForKind::Serial, body, stage.span);
  }
  return body;
}

// ---------------------------------------------------------------- transposing stages

// A stage without a schedule whose vectorized (innermost) variable x indexes a row axis of a
// tensor whose contiguous axis another output variable y indexes (O[i, j] = I[j, i]: lanes one
// row of I apart) is a transpose: gathered, it costs a scalar load per lane. Instead the
// automatic schedule transposes L x L blocks (L: elements of I per vector), y and x each
// blocked by L (the last block shifted inwards when L does not divide the extent), in two
// passes through a block of scratch T, each a register transpose (codegen's transposing_load):
//  - pass A, for each group g of R1 rows of I: the R1 rows as vectors along y, and log2(R1)
//    rounds of 2x2 block transposes of ever wider blocks, 1 to R1 / 2 elements: T's R1 vectors
//    (u8: 8 rows, 3 rounds of 4 vshuffs);
//  - pass B, for each k < R1: R2 = L / R1 vectors of T, log2(R2) rounds of transposes of
//    blocks of R1 to L / 2 elements: R2 whole output rows y = k, k + R1, ... of the block, each
//    computed by the stage's body with its transposed read replaced by them, stored as vectors.
// With L = R1 * R2 every pair of lane bits is exchanged once: per output vector, two loads, two
// stores and log2(L) / 2 two-register shuffles. R1 = 2^floor(log2(L) / 2) (u8: R1 = 8, R2 = 16;
// measured on bench/transpose_u8: 4.88 packets per 128 outputs, 5.05 the other way round).
struct TransposedRead {
  Expr load;             // the transposed read, I[...]
  size_t dy = 0;         // the dimension of y, the output variable that indexes I's last axis
  int64_t lanes = 0;     // L
  bool candidate = false;  // some read's lanes lie in different rows along x (transposed or not)
  std::string why_not;   // empty: the stage transposes
};

bool is_var(const Expr& e, const VarNode* v) { return e.as<VarNode>() == v; }

std::vector<Region> stage_boxes(const Stage& stage, int64_t lanes = 1, bool short_vector = false);

TransposedRead transposed_read(const Stage& stage, const Target& target) {
  TransposedRead tr;
  size_t n = stage.index_vars.size();
  if (n < 2 || target.vector_bytes <= 0) {
    tr.why_not = "no second variable to block";
    return tr;
  }
  const VarNode* x = stage.index_vars[n - 1].get();
  struct Reads : IRVisitor {
    std::vector<const Load*> loads;
    void visit_Load(const Load* op) override {
      loads.push_back(op);
      IRVisitor::visit_Load(op);
    }
  } reads;
  reads.visit(stage.body);
  std::string key;
  for (const Load* ld : reads.loads) {
    size_t m = ld->indices.size();
    bool reads_x = false;
    for (const Expr& i : ld->indices) reads_x |= mentions(i, x);
    if (!reads_x) continue;
    // Dense along x: x is the last index, and in no other.
    bool dense = is_var(ld->indices[m - 1], x);
    for (size_t d = 0; d + 1 < m && dense; ++d) dense = !mentions(ld->indices[d], x);
    if (dense) continue;
    bool across_rows = false;  // x in an index before the last: lanes in different rows
    for (size_t d = 0; d + 1 < m; ++d) across_rows |= mentions(ld->indices[d], x);
    if (!across_rows) continue;  // a strided or reversed read within rows: read_notes says how
    tr.candidate = true;
    // Transposed: the last index is another output variable y, x is one other index, and
    // neither is in any other index.
    size_t dy = n;
    for (size_t d = 0; d + 1 < n; ++d)
      if (m > 0 && is_var(ld->indices[m - 1], stage.index_vars[d].get())) dy = d;
    int x_count = 0;
    bool plain = dy < n;
    for (size_t d = 0; d + 1 < m && plain; ++d) {
      if (is_var(ld->indices[d], x)) {
        ++x_count;
      } else if (mentions(ld->indices[d], x) || mentions(ld->indices[d], stage.index_vars[dy].get())) {
        plain = false;
      }
    }
    if (!plain || x_count != 1) {
      tr.why_not = "reads " + print_expr(Load::make(ld->buffer, ld->indices)) +
                   " with x in an index that is not one variable, or with the contiguous axis not indexed by another "
                   "output variable alone";
      return tr;
    }
    std::string k = print_expr(Load::make(ld->buffer, ld->indices));
    if (!key.empty() && k != key) {
      tr.why_not = "two different transposed reads (" + key + ", " + k + ")";
      return tr;
    }
    key = k;
    tr.load = Load::make(ld->buffer, ld->indices);
    tr.dy = dy;
  }
  if (key.empty()) {
    tr.why_not = "no transposed read";
    return tr;
  }
  if (count_reductions(stage.body) > 0) {
    tr.why_not = "a reduction";
    return tr;
  }
  for (const auto& p : stage.schedule)
    if (p.kind == ScheduleKind::Prefetch) {
      tr.why_not = "a prefetch hint (the blocked loops have no loop of its variable to hint in)";
      return tr;
    }
  DataType et = tr.load.as<Load>()->buffer->dtype;
  if (!et.is_integer()) {
    tr.why_not = "its elements are not integers (dspc's vector shuffles move integer lanes)";
    return tr;
  }
  int64_t eb = et.bytes();
  int64_t L = target.vector_bytes / std::max<int64_t>(eb, 1);
  if (eb == 0 || eb > 4 || L < 4 || (L & (L - 1)) != 0) {
    tr.why_not = "the transposed tensor's elements do not fill power-of-two vectors";
    return tr;
  }
  tr.lanes = L;
  const std::string& yname = stage.index_vars[tr.dy]->name;
  if (stage.out->shape[n - 1] < L || stage.out->shape[tr.dy] < L) {
    tr.why_not = "the extents of " + stage.index_vars[n - 1]->name + " and " + yname + " (" +
                 std::to_string(stage.out->shape[n - 1]) + ", " + std::to_string(stage.out->shape[tr.dy]) +
                 ") are not both at least one vector (" + std::to_string(L) + ")";
    return tr;
  }
  if (stage_boxes(stage, auto_lanes(stage, target)).size() != 1) {
    tr.why_not = "clamps on the vectorized variable (the boundary boxes)";
    return tr;
  }
  return tr;
}

Stmt lower_transpose_box(const Stage& stage, const TransposedRead& tr, std::set<std::string>& used) {
  size_t n = stage.index_vars.size();
  const int64_t L = tr.lanes;
  int P = 0;
  while ((int64_t(1) << P) < L) ++P;
  const int64_t R1 = int64_t(1) << (P / 2), R2 = L / R1;  // the explanation says the same
  const Load* ld = tr.load.as<Load>();
  Span span = stage.span;
  Buffer tile = BufferNode::make(fresh_name(stage.out->name + "_tile", used), ld->buffer->dtype, {L * L},
                                 StorageScope::Global, span);
  auto i32 = [](int64_t v) { return make_i32(v); };
  auto add = [](Expr a, Expr b) { return Binary::make(BinaryOp::Add, std::move(a), std::move(b)); };
  auto mul = [](Expr a, int64_t b) { return Binary::make(BinaryOp::Mul, std::move(a), make_i32(b)); };
  auto div = [](Expr a, int64_t b) { return Binary::make(BinaryOp::Div, std::move(a), make_i32(b)); };
  auto mod = [](Expr a, int64_t b) { return Binary::make(BinaryOp::Mod, std::move(a), make_i32(b)); };
  auto var = [&](const std::string& name) { return VarNode::make(fresh_name(name, used), DataType::i32(), span); };
  const VarRef& X = stage.index_vars[n - 1];
  const VarRef& Y = stage.index_vars[tr.dy];
  int64_t Ex = stage.out->shape[n - 1], Ey = stage.out->shape[tr.dy];
  VarRef bx = var(X->name + "_b"), by = var(Y->name + "_b");
  auto block_start = [&](const VarRef& b, int64_t extent) {
    Expr start = mul(var_expr(b), L);
    return extent % L ? Binary::make(BinaryOp::Min, start, i32(extent - L)) : start;
  };
  VarRef x0 = var(X->name + "_0"), y0 = var(Y->name + "_0");
  // The other variables keep their own loops (fresh copies, outermost, in order).
  std::map<const VarNode*, Expr> others;
  std::vector<VarRef> outer;
  std::vector<size_t> outer_dim;
  for (size_t d = 0; d < n; ++d) {
    if (d == n - 1 || d == tr.dy) continue;
    outer_dim.push_back(d);
    outer.push_back(VarNode::make(stage.index_vars[d]->name, DataType::i32(), span));
    others[stage.index_vars[d].get()] = var_expr(outer.back());
  }
  // Pass A: lane l of group g is row x0 + g * R1 + l % R1, column y0 + (l / R1 % R2) * R1 + l / L.
  VarRef g = var("g"), la = var("l");
  std::map<const VarNode*, Expr> at_a = others;
  at_a[X.get()] = add(add(var_expr(x0), mul(var_expr(g), R1)), mod(var_expr(la), R1));
  at_a[Y.get()] = add(add(var_expr(y0), mul(mod(div(var_expr(la), R1), R2), R1)), div(var_expr(la), L));
  Stmt pass_a = Store::make(tile, {add(mul(var_expr(g), R1 * L), var_expr(la))}, substitute(tr.load, at_a), span);
  pass_a = For::make(la, i32(0), i32(R1 * L), ForKind::Vectorized, pass_a, span);
  pass_a = For::make(g, i32(0), i32(R2), ForKind::Serial, pass_a, span);
  // Pass B: lane l of step k is x = x0 + l % L, y = y0 + k + (l / L) * R1, from T at
  // (l % L / R1) * R1 * L + k * L + (l / L) * R1 + l % R1.
  VarRef k = var("k"), lb = var("l");
  Expr jj = mod(var_expr(lb), L);
  Expr t_at = add(add(add(mul(div(jj, R1), R1 * L), mul(var_expr(k), L)), mul(div(var_expr(lb), L), R1)), mod(jj, R1));
  struct Replace : IRMutator {
    std::string key;
    Expr with;
    Expr mutate_Load(const Load* op, const Expr& self) override {
      if (print_expr(self) == key) return with;
      return IRMutator::mutate_Load(op, self);
    }
  } replace;
  replace.key = print_expr(tr.load);
  replace.with = Load::make(tile, {t_at}, span);
  std::map<const VarNode*, Expr> at_b = others;
  at_b[X.get()] = add(var_expr(x0), jj);
  at_b[Y.get()] = add(add(var_expr(y0), var_expr(k)), mul(div(var_expr(lb), L), R1));
  std::vector<Expr> idx;
  for (const VarRef& v : stage.index_vars) idx.push_back(substitute(var_expr(v), at_b));
  Stmt pass_b = Store::make(stage.out, idx, substitute(replace.mutate(stage.body), at_b, &used), span);
  pass_b = For::make(lb, i32(0), i32(R2 * L), ForKind::Vectorized, pass_b, span);
  pass_b = For::make(k, i32(0), i32(R1), ForKind::Serial, pass_b, span);
  Stmt body = Seq::make({pass_a, pass_b});
  body = LetStmt::make(x0, block_start(bx, Ex), body, span);
  body = For::make(bx, i32(0), i32((Ex + L - 1) / L), ForKind::Serial, body, span);
  body = LetStmt::make(y0, block_start(by, Ey), body, span);
  body = For::make(by, i32(0), i32((Ey + L - 1) / L), ForKind::Serial, body, span);
  for (size_t d = outer.size(); d-- > 0;)
    body = For::make(outer[d], i32(0), i32(stage.out->shape[outer_dim[d]]), ForKind::Serial, body, span);
  return Allocate::make(tile, body, span);
}

bool vectorizes(const Stage& stage) {
  for (const auto& p : stage.schedule)
    if (p.kind == ScheduleKind::Vectorize) return true;
  return false;
}

// The automatic schedule inlines a stage without a schedule that every reader reads only at
// the point it is computing (the same index variables, in order, over the same shape): such a
// stage costs a store and a load per element and no value of it is read twice.
// Not: results, stages with a reduction (the reader's loops would nest), stages in VTCM,
// stages another stage prefetches (they must be in memory to be fetched), stages another stage
// is computed at (inlined, they would have no loops to compute it in, and it would never be
// computed: tests/difftest/regressions/compute_at_auto_inlined.dsp).
std::set<const BufferNode*> pointwise_stages(const TensorFunc& f) {
  std::set<std::string> prefetched, hosts;
  for (const auto& st : f.stages)
    for (const auto& p : st.schedule) {
      if (p.kind == ScheduleKind::Prefetch) prefetched.insert(p.tensor);
      if (p.kind == ScheduleKind::ComputeAt) hosts.insert(p.consumer);
    }
  struct Reads : IRVisitor {
    const Stage* reader = nullptr;
    const BufferNode* target = nullptr;
    bool pointwise = true;
    void visit_Load(const Load* op) override {
      if (op->buffer.get() == target) {
        bool same = op->indices.size() == reader->index_vars.size() && reader->out->shape == op->buffer->shape;
        for (size_t d = 0; same && d < op->indices.size(); ++d)
          same = op->indices[d].as<VarNode>() == reader->index_vars[d].get();
        pointwise &= same;
      }
      IRVisitor::visit_Load(op);
    }
  };
  std::set<const BufferNode*> out;
  for (size_t s = 0; s < f.stages.size(); ++s) {
    const Stage& st = f.stages[s];
    if (st.is_result || !st.schedule.empty() || st.out->scope != StorageScope::Global ||
        count_reductions(st.body) > 0 || prefetched.count(st.out->name) || hosts.count(st.out->name))
      continue;
    Reads r;
    r.target = st.out.get();
    for (size_t later = s + 1; later < f.stages.size() && r.pointwise; ++later) {
      r.reader = &f.stages[later];
      r.visit(f.stages[later].body);
    }
    if (r.pointwise) out.insert(st.out.get());
  }
  return out;
}

// The boxes of a stage. A clamp on the vectorized (innermost) variable turns dense vector
// loads into gathers, so that variable is always partitioned. A clamp on an outer variable
// is scalar index arithmetic once per row: those are partitioned only for stages with a
// reduction, whose jammed rows then share their loads (measured on bench/: conv3x3a16 15.7
// packets per 128 outputs with all variables partitioned, 20.3 with the innermost only;
// stages without a reduction gain nothing and triple their vector code, which costs compile
// time: median3x3 1.64 -> 1.46 times Halide's, gaussian5x5 1.36 -> 0.81).
// With lanes > 1 (the automatic schedule) the innermost pieces are whole vectors, and the
// edges single vectors at constant positions whose clamped loads codegen reads as a window
// (measured on bench/: ...).
// A short innermost vector (short_vector_lanes) is fused with the variable around it, whose
// clamps would then turn the fused loads into gathers: that variable is partitioned too (the
// padded copy of an NHWC tensor of 8 channels, I[clamp(yy - 1, 0, H - 1), clamp(xx - 1, 0, W - 1), c]).
std::vector<Region> stage_boxes(const Stage& stage, int64_t lanes, bool short_vector) {
  size_t n = stage.index_vars.size();
  size_t first = count_reductions(stage.body) > 0 ? 0 : n - 1;
  // A short innermost vector is not cut (min(c, C - 1) in a channel padding): the vectorizer
  // fuses it whole with the loop around it, whose edges are cut instead.
  if (first > 0 && short_vector) return boundary_regions(stage, 27, n - 2, lanes, n - 2);
  return boundary_regions(stage, 27, first, lanes);
}

// The factor F of the split whose inner loop a loop schedule vectorizes, when that split is of
// the stage's innermost index variable (vectorize(x, F); split(x, xo, xi, F) then
// vectorize(xi); tile); 1 otherwise (a whole variable vectorized, or another variable).
int64_t vectorized_split_factor(const Stage& stage) {
  if (stage.index_vars.empty()) return 1;
  LoopSchedule schedule = loop_schedule_of(stage);
  const std::string& innermost = stage.index_vars.back()->name;
  for (const LoopDim& d : schedule.dims()) {
    if (d.kind != ForKind::Vectorized) continue;
    for (const LoopSplit& s : schedule.splits())
      if (s.inner == d.name && s.old_var == innermost && s.factor > 1) return s.factor;
  }
  return 1;
}

// Regions whose `ends` pieces (see Partition.h) are each made two boxes: the first `ends`
// values of the range and its last `ends` values.
std::vector<Region> split_ends(const std::vector<Region>& regions) {
  std::vector<Region> out;
  for (const Region& r : regions) {
    std::vector<Region> acc(1);
    for (const DimRange& d : r) {
      std::vector<DimRange> pieces;
      if (d.ends > 0 && 2 * d.ends < d.extent) pieces = {{d.min, d.ends}, {d.min + d.extent - d.ends, d.ends}};
      else pieces = {{d.min, d.extent}};
      std::vector<Region> next;
      for (const Region& a : acc)
        for (const DimRange& p : pieces) {
          next.push_back(a);
          next.back().push_back(p);
        }
      acc = std::move(next);
    }
    out.insert(out.end(), acc.begin(), acc.end());
  }
  return out;
}

// One stage's loops (step 3).
Stmt lower_stage(const Stage& stage, std::set<std::string>& used, const LowerOptions& options,
                 const std::vector<ComputedAt>& computed_at, const PaddedStorage& padded) {
  if (!computed_at.empty() || (!stage.has_loop_schedule() && !options.auto_schedule))
    return build_stage_loop_nest(stage, full_ranges(stage), used, computed_at, false, padded);
  std::vector<Stmt> boxes;
  if (!stage.has_loop_schedule()) {
    if (TransposedRead tr = transposed_read(stage, options.target); tr.why_not.empty())
      return lower_transpose_box(stage, tr, used);
    int lanes = auto_lanes(stage, options.target);
    // A reduction along the contiguous axis: that axis in vectors, the stage's loops scalar.
    int reduce_lanes = reduce_axis_lanes(stage, options.target);
    int full = lanes;
    if (reduce_lanes) lanes = 1;
    else lanes = short_vector_lanes(stage, lanes);
    bool short_vector = lanes < full && lanes * widest_bytes(stage) < options.target.vector_bytes;
    // Also short where its widest values fill a register but its narrowest accesses do not (a
    // depthwise convolution's 32 channels of i32 sums of u8 products, a padded copy of 32 u8
    // channels whose bounds tests compare i32 indices), when the whole innermost variable is
    // one vector and every read of the stage is indexed by it: fused pixels then load whole
    // vectors, and jammed rows would share no read.
    int narrow_full = options.target.vector_bytes / narrowest_bytes(stage.body, stage.out->dtype.bytes());
    if (!short_vector && !reduce_lanes && lanes > 1 && lanes < narrow_full && stage.index_vars.size() >= 2 &&
        stage.out->shape.back() == lanes && every_read_indexed_by(stage.body, stage.index_vars.back().get()))
      short_vector = true;
    for (const Region& r : stage_boxes(stage, lanes, short_vector))
      boxes.push_back(lower_auto_box(stage, r, lanes, used, padded, reduce_lanes, short_vector));
    return Seq::make(boxes);
  }
  if (!vectorizes(stage)) return build_stage_loop_nest(stage, full_ranges(stage), used, computed_at, false, padded);
  // A vectorized schedule: the same boxes, each built by the stage's own schedule. When the
  // vectorized loop is the inner loop of a split of the innermost variable by F
  // (vectorize(x, F), split(x, xo, xi, F).vectorize(xi), tile), the innermost interior is cut
  // into whole vectors of F from a multiple of F, as the automatic schedule's boxes are, so
  // that its vectors load and store aligned; the vectors at the interior's two ends are boxes
  // of one vector each, overlapping the main piece (computed twice, which a stage allows).
  for (const Region& r : split_ends(stage_boxes(stage, vectorized_split_factor(stage)))) {
    Stage box = stage;
    box.body = drop_decided_minmax(stage.body, stage, r);
    std::vector<LoopRange> ranges;
    for (const DimRange& d : r) ranges.emplace_back(d.min, d.extent);
    boxes.push_back(build_stage_loop_nest(box, ranges, used, {}, true, padded));
  }
  return Seq::make(boxes);
}

// ---------------------------------------------------------------- separable windows

// A window reduction over two groups of axes that no index of its data read mixes, of which
// the first pass of a separated form can share its partial results between outputs:
//   O[y, x] = F(sum(u16(I[clamp(y + r - 2, 0, 255), clamp(x + s - 2, 0, 1023)]), r: 5, s: 5))
// computes, per output, 25 terms; its partial sums over s (the group that indexes the input's
// innermost dimension) do not depend on y beyond the row they read, so the automatic schedule
// computes them once per input row, as a stage of their own, and O sums five of them:
//   O_win[y, c] = sum(u16(I[y, clamp(c + s - 2, 0, 1023)]), s: 5)      (c: I's column)
//   O[y, x]     = F(sum(O_win[clamp(y + r - 2, 0, 255), x], r: 5))
// 10 terms per output instead of 25, and the first pass realigns the narrow input once per
// row. Exact for integers: wrapping sums, minima and maxima may be regrouped, and a sum of
// products whose weights factor by group (w(r) * v(s), a rank-1 window: gaussian's 1 4 6 4 1
// twice) distributes over the regrouping (the ring of integers modulo 2^n). Float reductions
// are never regrouped.
//
// The rule, for a stage without a schedule whose body holds one reduction R (sum, min or max
// of an integer type, two or more axes):
//  - R's source is a product of factors (a sum; a minimum or maximum: one factor, the source
//    itself). Exactly one factor, the data, reads the reduction's axes through loads of one
//    tensor at one point L = I[i_0, ..., i_{m-1}] and refers to no variable outside L's indices;
//  - the axes split into groups, two axes in one group when one index of L holds both; A is
//    the group of the innermost index of L that holds an axis, B the others (at least one);
//  - every other factor (a weight) refers to axes of one group only; a weight of A refers to
//    nothing but A's axes (it is computed in the first pass, which has no output variables);
//  - an index i_d that holds no axis of B holds exactly one output variable v, which no other
//    such index holds (the first pass runs over v there; `c + 1`, `clamp(y + r - 1, 0, H - 1)`),
//    or none (a constant index: extent 1);
//  - every read of the first pass is in bounds over its whole domain (a select around the
//    reduction may guard the stage's reads: `select(x > 0 && x < 149, sum(...I[.., x + s - 1]..))`);
//  - each group has at least 3 taps (a 2 x 2 window saves nothing: 4 terms against 2 + 2 and
//    a round trip through memory), and the first pass holds at most twice the output's
//    elements (an index of B's dims over the range it reads, not the whole input).
// The first pass's dimensions are L's: over v where i_d holds no axis of B, over the range
// [lo, hi] that i_d takes (IndexBounds) where it does; its rows padded to whole vectors. A pass
// of at most kUnrolledTaps taps is written out as a sum (min, max) of its terms, a balanced
// tree, which the automatic schedule jams across rows (a reduction's nest it jams by 2 and
// partitions on every variable: box5x5_u8 24.06 packets per 128 outputs that way, 20.98 with
// explicit terms in a chain, 19.48 in a tree).
constexpr int64_t kUnrolledTaps = 16;

std::set<const VarNode*> vars_in(const Expr& e) {
  struct Vars : IRVisitor {
    std::set<const VarNode*> found;
    void visit_Var(const VarNode* op) override { found.insert(op); }
  } v;
  v.visit(e);
  return v.found;
}

void flatten_product(const Expr& e, std::vector<Expr>& out) {
  if (const auto* b = e.as<Binary>(); b && b->op == BinaryOp::Mul) {
    flatten_product(b->a, out);
    flatten_product(b->b, out);
    return;
  }
  out.push_back(e);
}

// The reduction of `source` over `axes` with `op`: written out term by term when there are
// few, else a Reduce.
Expr reduce_over(ReduceOp op, const Expr& source, const std::vector<ReduceAxis>& axes, Span span) {
  int64_t taps = 1;
  for (const auto& a : axes) taps *= a.extent;
  if (taps > kUnrolledTaps) return Reduce::make(op, source, axes, span);
  std::vector<Expr> terms;
  for (int64_t t = 0; t < taps; ++t) {
    int64_t rest = t;
    std::map<const VarNode*, Expr> values;
    for (size_t k = axes.size(); k-- > 0;) {
      values[axes[k].var.get()] = make_i32(rest % axes[k].extent);
      rest /= axes[k].extent;
    }
    terms.push_back(substitute(source, values));
  }
  // A balanced tree, neighbouring terms first: pairs of widened narrow values are one widening
  // instruction each (HVX vadd(Vu.ub, Vv.ub)), where a chain widens all but the first pair one
  // by one (box5x5_u8: 20.98 -> 19.48 packets per 128 outputs).
  while (terms.size() > 1) {
    std::vector<Expr> next;
    for (size_t i = 0; i + 1 < terms.size(); i += 2)
      next.push_back(Binary::make(reduce_combine_op(op), terms[i], terms[i + 1], span));
    if (terms.size() % 2) next.push_back(terms.back());
    terms = std::move(next);
  }
  return terms[0];
}

// Whether two loads read the same tensor at the same point.
bool same_point(const Load* a, const Load* b) {
  if (a->buffer != b->buffer || a->indices.size() != b->indices.size()) return false;
  for (size_t d = 0; d < a->indices.size(); ++d)
    if (!same_expr(a->indices[d], b->indices[d])) return false;
  return true;
}

// The stages and tensors other stages' schedules name (compute_at consumers and producers,
// prefetched and cached tensors): the window rule leaves them as they are.
std::set<std::string> names_in_schedules(const TensorFunc& f) {
  std::set<std::string> out;
  for (const auto& st : f.stages)
    for (const auto& p : st.schedule) {
      if (!p.consumer.empty()) out.insert(p.consumer);
      if (!p.tensor.empty()) out.insert(p.tensor);
      if (p.kind == ScheduleKind::ComputeAt || p.kind == ScheduleKind::StoreAt) out.insert(st.out->name);
    }
  return out;
}

struct SeparatedWindow {
  Stage first, second;
};

std::optional<SeparatedWindow> separate_window(const Stage& st, std::set<std::string>& used,
                                               const std::set<std::string>& not_readable, const Target& target) {
  if (!st.schedule.empty() || count_reductions(st.body) != 1) return std::nullopt;
  const Reduce* R = only_reduction(st.body);
  if (!R || !R->dtype.is_integer() || R->dtype.lanes != 1 || R->axes.size() < 2) return std::nullopt;
  std::map<const VarNode*, size_t> axis_pos;
  for (size_t k = 0; k < R->axes.size(); ++k) axis_pos[R->axes[k].var.get()] = k;
  std::set<const VarNode*> out_vars;
  for (const auto& v : st.index_vars) out_vars.insert(v.get());
  auto axes_of = [&](const Expr& e) {
    std::set<const VarNode*> s;
    for (const VarNode* v : vars_in(e))
      if (axis_pos.count(v)) s.insert(v);
    return s;
  };

  std::vector<Expr> factors;
  if (R->op == ReduceOp::Sum) flatten_product(R->source, factors);
  else factors.push_back(R->source);
  // The data factor and its one load.
  int data = -1;
  const Load* L = nullptr;
  for (size_t i = 0; i < factors.size(); ++i) {
    struct AxisLoads : IRVisitor {
      const std::map<const VarNode*, size_t>* axes = nullptr;
      std::vector<const Load*> loads;
      bool nested_reduce = false;
      void visit_Reduce(const Reduce* op) override { nested_reduce = true; IRVisitor::visit_Reduce(op); }
      void visit_Load(const Load* op) override {
        bool uses = false;
        for (const Expr& i : op->indices)
          for (const VarNode* v : vars_in(i)) uses |= axes->count(v) > 0;
        if (uses) loads.push_back(op);
        IRVisitor::visit_Load(op);
      }
    } al;
    al.axes = &axis_pos;
    al.visit(factors[i]);
    if (al.nested_reduce) return std::nullopt;
    bool multi_dim = false;
    for (const Load* ld : al.loads) {
      int dims_with_axes = 0;
      for (const Expr& ix : ld->indices) dims_with_axes += !axes_of(ix).empty();
      multi_dim |= dims_with_axes >= 2;
    }
    if (!multi_dim) continue;
    if (data >= 0) return std::nullopt;  // two factors read the window
    data = int(i);
    for (const Load* ld : al.loads) {
      if (L && !same_point(ld, L)) return std::nullopt;
      L = ld;
    }
  }
  if (data < 0 || !L || not_readable.count(L->buffer->name)) return std::nullopt;
  // The data factor refers to no variable outside L's indices.
  {
    struct Outside : IRVisitor {
      const Load* L = nullptr;
      bool bad = false;
      void visit_Load(const Load* op) override {
        if (!same_point(op, L)) IRVisitor::visit_Load(op);
      }
      void visit_Var(const VarNode*) override { bad = true; }
    } o;
    o.L = L;
    o.visit(factors[data]);
    if (o.bad) return std::nullopt;
  }
  // The groups: union of axes sharing an index.
  size_t m = L->indices.size();
  std::vector<size_t> group(R->axes.size());
  for (size_t k = 0; k < group.size(); ++k) group[k] = k;
  std::function<size_t(size_t)> find = [&](size_t k) { return group[k] == k ? k : group[k] = find(group[k]); };
  std::vector<std::set<const VarNode*>> dim_axes(m);
  for (size_t d = 0; d < m; ++d) {
    dim_axes[d] = axes_of(L->indices[d]);
    const VarNode* first = nullptr;
    for (const VarNode* a : dim_axes[d]) {
      if (first) group[find(axis_pos[a])] = find(axis_pos[first]);
      else first = a;
    }
  }
  // A: the group of the innermost index that holds an axis.
  size_t a_root = SIZE_MAX;
  for (size_t d = m; d-- > 0 && a_root == SIZE_MAX;)
    if (!dim_axes[d].empty()) a_root = find(axis_pos[*dim_axes[d].begin()]);
  std::vector<ReduceAxis> a_axes, b_axes;
  std::set<const VarNode*> in_a;
  int64_t a_taps = 1, b_taps = 1;
  for (size_t k = 0; k < R->axes.size(); ++k) {
    if (find(k) == a_root) {
      a_axes.push_back(R->axes[k]);
      in_a.insert(R->axes[k].var.get());
      a_taps *= R->axes[k].extent;
    } else {
      b_axes.push_back(R->axes[k]);
      b_taps *= R->axes[k].extent;
    }
  }
  if (b_axes.empty() || a_taps < 3 || b_taps < 3) return std::nullopt;
  // The weights.
  std::vector<Expr> a_weights, b_weights;
  for (size_t i = 0; i < factors.size(); ++i) {
    if (int(i) == data) continue;
    std::set<const VarNode*> ax = axes_of(factors[i]);
    bool has_a = false, has_b = false;
    for (const VarNode* v : ax) (in_a.count(v) ? has_a : has_b) = true;
    if (has_a && has_b) return std::nullopt;
    if (has_a) {
      for (const VarNode* v : vars_in(factors[i]))
        if (!in_a.count(v)) return std::nullopt;
      a_weights.push_back(factors[i]);
    } else {
      b_weights.push_back(factors[i]);
    }
  }
  // The first pass's dimensions.
  std::vector<int64_t> shape(m);
  std::vector<VarRef> t_vars(m);
  std::vector<Expr> first_idx(m), second_idx(m);
  std::set<const VarNode*> mapped;
  IndexBounds bounds;
  for (size_t k = 0; k < st.index_vars.size(); ++k) bounds.set(st.index_vars[k].get(), {0, st.out->shape[k] - 1});
  for (const auto& a : R->axes) bounds.set(a.var.get(), {0, a.extent - 1});
  for (size_t d = 0; d < m; ++d) {
    const Expr& ix = L->indices[d];
    bool b_dim = false;
    for (const VarNode* a : dim_axes[d]) b_dim |= !in_a.count(a);
    std::set<const VarNode*> outs;
    for (const VarNode* v : vars_in(ix))
      if (out_vars.count(v)) outs.insert(v);
    if (b_dim) {
      bounds.refuel();
      Interval r = bounds.of(ix);
      if (r.lo < 0 || r.hi >= L->buffer->shape[d]) return std::nullopt;
      int64_t lo = int64_t(r.lo);
      shape[d] = int64_t(r.hi - r.lo) + 1;
      std::string name = outs.size() == 1 ? (*outs.begin())->name : fresh_name("i" + std::to_string(d), used);
      t_vars[d] = VarNode::make(name, DataType::i32(), st.span);
      first_idx[d] = lo ? Binary::make(BinaryOp::Add, var_expr(t_vars[d]), make_i32(lo)) : var_expr(t_vars[d]);
      second_idx[d] = lo ? Binary::make(BinaryOp::Sub, ix, make_i32(lo)) : ix;
      continue;
    }
    if (outs.size() > 1) return std::nullopt;
    if (outs.empty()) {  // a constant index (or one of A's axes alone)
      shape[d] = 1;
      t_vars[d] = VarNode::make(fresh_name("i" + std::to_string(d), used), DataType::i32(), st.span);
      first_idx[d] = ix;
      second_idx[d] = make_i32(0);
      continue;
    }
    const VarNode* v = *outs.begin();
    if (mapped.count(v)) return std::nullopt;
    mapped.insert(v);
    size_t k = 0;
    while (st.index_vars[k].get() != v) ++k;
    shape[d] = st.out->shape[k];
    t_vars[d] = VarNode::make(v->name, DataType::i32(), st.span);
    first_idx[d] = substitute(ix, {{v, var_expr(t_vars[d])}});
    second_idx[d] = var_expr(st.index_vars[k]);
  }
  // Every read of the first pass is in bounds over its whole domain (the stage may read I only
  // where a select around the reduction holds: then the first pass would read outside it).
  IndexBounds first_bounds;
  for (size_t d = 0; d < m; ++d) first_bounds.set(t_vars[d].get(), {0, shape[d] - 1});
  for (const auto& a : R->axes) first_bounds.set(a.var.get(), {0, a.extent - 1});
  for (size_t d = 0; d < m; ++d) {
    first_bounds.refuel();
    Interval r = first_bounds.of(first_idx[d]);
    if (r.lo < 0 || r.hi >= L->buffer->shape[d]) return std::nullopt;
  }
  int64_t elements = 1;
  for (int64_t e : shape) elements *= e;
  if (elements > 2 * st.out->num_elements()) return std::nullopt;

  // The first pass: the data factor at I[first_idx], times A's weights, reduced over A.
  struct Replace : IRMutator {
    const Load* L = nullptr;
    Expr with;
    Expr mutate_Load(const Load* op, const Expr& self) override {
      return same_point(op, L) ? with : IRMutator::mutate_Load(op, self);
    }
  } rep;
  rep.L = L;
  rep.with = Load::make(L->buffer, first_idx, L->span);
  Expr first_src = rep.mutate(factors[data]);
  for (const Expr& w : a_weights) first_src = Binary::make(BinaryOp::Mul, first_src, w, st.span);
  SeparatedWindow out;
  out.first.out = BufferNode::make(fresh_name(st.out->name + "_win", used), R->dtype, shape, StorageScope::Global, st.span);
  out.first.index_vars = t_vars;
  out.first.body = reduce_over(R->op, first_src, a_axes, R->span);
  out.first.span = st.span;
  // Its rows start on vector boundaries (storage_align), so that the second pass reads them,
  // and the first stores them, in whole aligned vectors.
  if (m >= 2 && target.vector_bytes > R->dtype.bytes()) {
    int64_t per_vector = target.vector_bytes / R->dtype.bytes();
    if (shape[m - 1] % per_vector != 0) {
      SchedulePrimitive align;
      align.kind = ScheduleKind::StorageAlign;
      align.stage = out.first.out->name;
      align.factors = {int64_t(m) - 2, per_vector};
      out.first.schedule.push_back(align);
    }
  }
  // The second: the first pass read at second_idx, times B's weights, reduced over B, in
  // place of R.
  Expr second_src = Load::make(out.first.out, second_idx, L->span);
  for (const Expr& w : b_weights) second_src = Binary::make(BinaryOp::Mul, second_src, w, st.span);
  out.second = st;
  out.second.body = replace_reduce(st.body, R, reduce_over(R->op, second_src, b_axes, R->span));
  return out;
}

// ---------------------------------------------------------------- packed byte products

// A matrix product of bytes, C[.., n] = sum(wA(A(.., k)) * wB(B[.., k, n]), k: K) with n the
// stage's innermost (vectorized) variable, wA and wB widening casts of 8-bit values into the
// sum's 32 bits, and A(.., k) not reading n: each vector of C needs, per k, B's row k along n,
// and HVX's vrmpy sums four byte products per 32-bit lane, so the four rows k .. k + 3 must be
// interleaved byte by byte (a permute network per vrmpy, redone for every two rows of C).
// Instead the automatic schedule packs B once, before the product (as Halide's matmul
// schedules and the dense bench schedule do by hand):
//   C_pk[.., ko, l] = B[.., 4 ko + l % 4, l / 4]           (ko < K / 4, l < 4 N)
// whose 32-bit lane n of row ko holds B[4 ko .. 4 ko + 3, n]; the product then reads
// C_pk[.., k / 4, 4 n + k % 4], four consecutive k one dense span: vector loads and one vrmpy
// per 32 lanes, no permute. The packing is vectorized by four vectors of bytes (codegen's
// transposing load: four row loads and vshuff), its rows padded to whole vectors; rows of
// fewer than one vector of columns are padded to one, the padding read within B's row
// (l / 4 % N) and never read back. vrmpy multiplies a vector of unsigned bytes by scalar
// bytes of either signedness (A's four bytes are one word); a signed B is packed offset by
// 128 (u8(B) ^ 128 = B + 128) and the sum corrected by 128 times A's sum over k, computed
// once per row as a stage of its own, C_rs (exact: wrapping arithmetic):
//   C[.., n] = sum(wA(A(.., k)) * i32(C_pk[..]), k: K - K % 4) - 128 * C_rs[..] + (last terms)
// The last K % 4 terms are written out, reading B itself. Only a stage without a schedule, on
// HVX, with one reduction, a 32-bit integer sum over one axis k of one product of two such
// factors, B read as above (its other indices free of k and n), n at least one vector of the
// sum's lanes, and, measured (bench/ and tests/golden/codegen/packed-matmul.dsp), where it
// pays: K of at least 4; at least kPackMinReuse outputs reading each element of B per n (a
// matrix-vector product of one row: 329 -> 551 packets packed); not rows of B that are
// aligned pieces of a vector (N = 64, 32: four rows are one span, which one vshuff
// interleaves; a 6 x 32 by 32 x 64 product: 144 -> 254 packed). `why` gets the reason a stage
// of this shape is not packed.
constexpr int64_t kPackMinReuse = 4;
constexpr int64_t kByteOffset = 128;  // not a target fact: -128 .. 127 + 128 is 0 .. 255

struct PackedProduct {
  Stage pack;                   // B's rows four by four, interleaved (offset by 128 if signed)
  std::optional<Stage> rowsum;  // A's sum over k, for a signed B
  Stage product;
};

// The 8-bit value under a chain of integer casts that each widen, or null; value_preserving
// false when an inner cast changes the value (a signed byte made unsigned, then widened).
Expr widened_byte(const Expr& e, bool& value_preserving) {
  Expr v = e;
  value_preserving = true;
  bool first = true;
  while (const auto* c = v.as<Cast>()) {
    DataType to = c->dtype, from = c->value.dtype();
    if (!to.is_integer() || !from.is_integer() || to.bits <= from.bits) return Expr();
    // An inner cast from signed to unsigned changes the value the outer one widens.
    if (!first && from.is_int() && to.is_uint()) value_preserving = false;
    first = false;
    v = c->value;
  }
  if (first || !v.dtype().is_integer() || v.dtype().bits != 8 || v.dtype().lanes != 1) return Expr();
  return v;
}

std::optional<PackedProduct> pack_byte_product(const Stage& st, std::set<std::string>& used,
                                               const std::set<std::string>& not_readable, const Target& target,
                                               std::string* why = nullptr) {
  auto no = [&](const std::string& reason) -> std::optional<PackedProduct> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (!st.schedule.empty() || st.index_vars.empty() || count_reductions(st.body) != 1) return std::nullopt;
  const Reduce* R = only_reduction(st.body);
  if (!R || R->op != ReduceOp::Sum || !R->dtype.is_integer() || R->dtype.lanes != 1 || R->axes.size() != 1)
    return std::nullopt;
  std::vector<Expr> factors;
  flatten_product(R->source, factors);
  if (factors.size() != 2) return std::nullopt;
  const VarNode* n = st.index_vars.back().get();
  const VarNode* k = R->axes[0].var.get();
  int64_t K = R->axes[0].extent, N = st.out->shape.back();
  // B: the factor that reads n, a widened byte load whose last two indices are k and n.
  int b = vars_in(factors[0]).count(n) ? 0 : 1;
  if (!vars_in(factors[b]).count(n) || vars_in(factors[1 - b]).count(n)) return std::nullopt;
  bool b_exact = true, a_exact = true;
  Expr bv = widened_byte(factors[b], b_exact), av = widened_byte(factors[1 - b], a_exact);
  const auto* L = bv.as<Load>();
  size_t d = L ? L->indices.size() : 0;
  if (!L || d < 2 || !is_var(L->indices[d - 1], n) || !is_var(L->indices[d - 2], k)) return std::nullopt;
  for (size_t i = 0; i + 2 < d; ++i) {
    std::set<const VarNode*> vs = vars_in(L->indices[i]);
    if (vs.count(n) || vs.count(k)) return std::nullopt;
  }
  // From here on the stage is a byte matrix product along n: say why it is not packed.
  if (target.arch != Arch::hexagon) return no("not packed for vrmpy: the target has no HVX");
  if (R->dtype.bits != 32) return no("not packed for vrmpy: the sum is not in 32 bits");
  if (!av) return no("not packed for vrmpy: the factor without " + n->name + " is not a widened byte");
  if (!b_exact || !a_exact) return no("not packed for vrmpy: a cast changes a byte's value before it widens");
  if (not_readable.count(L->buffer->name)) return no("not packed for vrmpy: another stage's schedule names " + L->buffer->name);
  if (N * R->dtype.bytes() < target.vector_bytes)
    return no("not packed for vrmpy: " + n->name + "'s extent " + std::to_string(N) + " is below one vector of the sum");
  if (K > L->buffer->shape[d - 2] || N > L->buffer->shape[d - 1]) return std::nullopt;
  bool offset = L->dtype.is_int();
  int64_t Kf = K - K % 4, K4 = Kf / 4;
  if (N < target.vector_bytes && target.vector_bytes % N == 0)
    return no("not packed for vrmpy: " + L->buffer->name + "'s rows of " + std::to_string(N) +
              " bytes are aligned pieces of vectors, interleaved by vshuff as cheaply as a packed copy is read "
              "(measured)");
  if (Kf == 0) return no("not packed for vrmpy: " + k->name + " has fewer than four terms");
  // Each element of B is read by `reuse` outputs per n; the unpacked product interleaves B's
  // rows once per two of them (two rows jammed), the packing once in all, and its copy costs a
  // store and a load: measured, one or two rows (a matrix-vector product) lose by packing.
  int64_t reuse = 1;
  {
    std::set<const VarNode*> in_b;
    for (const Expr& ix : L->indices)
      for (const VarNode* v : vars_in(ix)) in_b.insert(v);
    for (size_t i = 0; i + 1 < st.index_vars.size(); ++i)
      if (!in_b.count(st.index_vars[i].get())) reuse *= st.out->shape[i];
  }
  if (reuse < kPackMinReuse)
    return no("not packed for vrmpy: each element of " + L->buffer->name + " is read by " + std::to_string(reuse) +
              " output row(s), below " + std::to_string(kPackMinReuse) + ": packing would cost more than it saves");
  // The packed rows hold at least one vector of columns (four vectors of bytes): a row of
  // fewer columns is padded to that, its padding read from within B's row (l / 4 % N), which
  // the product never reads.
  int64_t V = target.vector_bytes, Np = std::max(N, V);

  PackedProduct out;
  // The packed copy: B's leading dimensions, then ko and l.
  std::vector<int64_t> shape(L->buffer->shape.begin(), L->buffer->shape.begin() + (d - 2));
  shape.push_back(K4);
  shape.push_back(4 * Np);
  std::vector<VarRef> pv;
  for (size_t i = 0; i + 2 < d; ++i) pv.push_back(VarNode::make(fresh_name("i" + std::to_string(i), used), DataType::i32(), st.span));
  VarRef ko = VarNode::make(fresh_name("ko", used), DataType::i32(), st.span);
  VarRef l = VarNode::make(fresh_name("l", used), DataType::i32(), st.span);
  pv.push_back(ko);
  pv.push_back(l);
  Expr row = Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Mul, var_expr(ko), make_i32(4)),
                          Binary::make(BinaryOp::Mod, var_expr(l), make_i32(4)));
  Expr col = Binary::make(BinaryOp::Div, var_expr(l), make_i32(4));
  if (Np > N) col = Binary::make(BinaryOp::Mod, col, make_i32(N));
  std::vector<Expr> bidx;
  for (size_t i = 0; i + 2 < d; ++i) bidx.push_back(var_expr(pv[i]));
  bidx.push_back(row);
  bidx.push_back(col);
  Expr packed = Load::make(L->buffer, bidx, L->span);
  if (offset)
    packed = Binary::make(BinaryOp::BitXor, Cast::make(DataType::u8(), packed), make_const(DataType::u8(), kByteOffset));
  out.pack.out = BufferNode::make(fresh_name(st.out->name + "_pk", used), DataType::u8(), shape, StorageScope::Global, st.span);
  out.pack.index_vars = pv;
  out.pack.body = packed;
  out.pack.span = st.span;
  // Four vectors of bytes per step, V columns of four rows: dense row loads and two rounds of
  // vshuff (codegen's transposing load), the last step shifted inwards where 4 V does not
  // divide the row; rows padded to whole vectors, so that the product's loads are aligned.
  {
    SchedulePrimitive vec;
    vec.kind = ScheduleKind::Vectorize;
    vec.stage = out.pack.out->name;
    vec.span = vec.stage_span = st.span;
    vec.vars = {l->name};
    vec.var_spans = {st.span};
    if (4 * Np > 4 * V) {  // else the whole row is one step (no loop of one iteration)
      vec.new_names = {fresh_name(l->name + "_v", used)};
      vec.new_name_spans = {st.span};
      vec.factors = {4 * V};
      vec.factor_spans = {st.span};
    }
    out.pack.schedule.push_back(vec);
    if ((4 * Np) % V != 0) {
      SchedulePrimitive align;
      align.kind = ScheduleKind::StorageAlign;
      align.stage = out.pack.out->name;
      align.factors = {int64_t(shape.size()) - 2, V};
      out.pack.schedule.push_back(align);
    }
  }

  // The product: B's factor read from the packed copy at (kk / 4, 4 n + kk % 4).
  auto packed_factor = [&](const Expr& kk) {
    std::vector<Expr> idx(L->indices.begin(), L->indices.begin() + (d - 2));
    idx.push_back(Binary::make(BinaryOp::Div, kk, make_i32(4)));
    idx.push_back(Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Mul, var_expr(st.index_vars.back()), make_i32(4)),
                               Binary::make(BinaryOp::Mod, kk, make_i32(4))));
    return Cast::make(R->dtype, Load::make(out.pack.out, idx, L->span), st.span);
  };
  const Expr& A = factors[1 - b];
  Expr sum;
  if (Kf > 0) {
    VarRef kv = VarNode::make(k->name, DataType::i32(), R->span);
    Expr a = substitute(A, {{k, var_expr(kv)}});
    sum = Reduce::make(ReduceOp::Sum, Binary::make(BinaryOp::Mul, a, packed_factor(var_expr(kv)), R->span),
                       {{kv, Kf}}, R->span);
  }
  // The last K % 4 terms written out, reading B itself (a vector by a scalar each).
  for (int64_t r = Kf; r < K; ++r)
    sum = Binary::make(BinaryOp::Add, sum, substitute(R->source, {{k, make_i32(r)}}), R->span);
  if (offset) {
    // A's sum over k, once per point of the other variables.
    std::vector<VarRef> rv;
    std::vector<int64_t> rshape;
    std::map<const VarNode*, Expr> to_rv;
    std::vector<Expr> ridx;
    for (size_t i = 0; i + 1 < st.index_vars.size(); ++i) {
      rv.push_back(VarNode::make(st.index_vars[i]->name, DataType::i32(), st.span));
      rshape.push_back(st.out->shape[i]);
      to_rv[st.index_vars[i].get()] = var_expr(rv.back());
      ridx.push_back(var_expr(st.index_vars[i]));
    }
    if (rv.empty()) {  // C has one dimension: one sum, a tensor of one element
      rv.push_back(VarNode::make(fresh_name("i", used), DataType::i32(), st.span));
      rshape.push_back(1);
      ridx.push_back(make_i32(0));
    }
    VarRef kv = VarNode::make(k->name, DataType::i32(), R->span);
    to_rv[k] = var_expr(kv);
    Stage rs;
    rs.out = BufferNode::make(fresh_name(st.out->name + "_rs", used), R->dtype, rshape, StorageScope::Global, st.span);
    rs.index_vars = rv;
    rs.body = Reduce::make(ReduceOp::Sum, substitute(A, to_rv), {{kv, Kf}}, R->span);
    rs.span = st.span;
    Expr corr = Binary::make(BinaryOp::Mul, Load::make(rs.out, ridx, st.span), make_const(R->dtype, kByteOffset), st.span);
    sum = Binary::make(BinaryOp::Sub, sum, corr, st.span);
    out.rowsum = std::move(rs);
  }
  out.product = st;
  out.product.body = replace_reduce(st.body, R, sum);
  return out;
}

// Sibling fusion (step 3b): stage `next` joins the group [first, next) when all of them are
// pure stages without a schedule of the same shape and the same automatic boxes, and none of
// them reads another (siblings, as median3x3's Lo, Hi and Mid, which read the same rows: in
// one loop nest they share those loads). Only stages without a reduction: a jammed reduction
// nest has its own loop structure.
bool fusable_sibling(const std::vector<Stage>& stages, const std::vector<std::set<const BufferNode*>>& reads,
                     size_t first, size_t next, const Target& target) {
  auto plain = [&](const Stage& st) {
    return st.schedule.empty() && count_reductions(st.body) == 0 && st.out->scope == StorageScope::Global;
  };
  const Stage& a = stages[first];
  const Stage& b = stages[next];
  if (!plain(a) || !plain(b) || a.out->shape != b.out->shape || auto_lanes(a, target) != auto_lanes(b, target))
    return false;
  if (transposed_read(a, target).why_not.empty() || transposed_read(b, target).why_not.empty()) return false;
  for (size_t k = first; k < next; ++k)
    if (reads[next].count(stages[k].out.get())) return false;
  std::vector<Region> ra = stage_boxes(a, auto_lanes(a, target)), rb = stage_boxes(b, auto_lanes(b, target));
  if (ra.size() != rb.size()) return false;
  for (size_t i = 0; i < ra.size(); ++i)
    for (size_t d = 0; d < ra[i].size(); ++d)
      if (ra[i][d].min != rb[i][d].min || ra[i][d].extent != rb[i][d].extent || ra[i][d].ends != rb[i][d].ends)
        return false;
  return true;
}

// An allocation still open while later stages are emitted into it (step 4).
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

// storage_align (step 5): a stage whose aligned shape differs from its shape is allocated with
// the aligned shape, and every access goes through that buffer: the indices keep their
// logical ranges, so flatten-buffers gives the padded strides, and verify-vtcm-limit sees the
// padded size. padded_storage makes the buffers before the loop nests are built (a prefetch
// of an aligned stage addresses its padded rows: StageLoopNest.h); align_storage swaps them in.
PaddedStorage padded_storage(const std::vector<Stage>& stages) {
  PaddedStorage padded;
  for (const auto& st : stages) {
    std::vector<int64_t> shape = aligned_shape(st.out->shape, st.schedule);
    if (shape == st.out->shape) continue;
    DSPC_CHECK(!st.is_result, "storage_align on a result");
    padded[st.out.get()] = BufferNode::make(st.out->name, st.out->dtype, shape, st.out->scope, st.out->span);
  }
  return padded;
}

Stmt align_storage(const PaddedStorage& padded, const Stmt& body) {
  struct Swap : IRMutator {
    const PaddedStorage* to = nullptr;
    Buffer mutate_buffer(const Buffer& b) override {
      auto it = to->find(b.get());
      return it == to->end() ? b : it->second;
    }
  } swap;
  swap.to = &padded;
  return padded.empty() ? body : swap.mutate(body);
}

// The stages that compute something: a stage without elements (an extent 0) has no loops and no
// storage, and neither has a stage computed at it (its consumer never runs). The frontend
// proved that every read of an empty tensor sits in a stage or reduction that never runs, and
// an empty reduction is already its identity, so no stage left reads a dropped one.
std::vector<Stage> nonempty_stages(const std::vector<Stage>& stages) {
  std::set<std::string> dropped;
  std::vector<bool> keep(stages.size(), true);
  for (size_t s = stages.size(); s-- > 0;) {
    const Stage& st = stages[s];
    const SchedulePrimitive* at = st.computed_at();
    if (st.out->num_elements() == 0 || (at && dropped.count(at->consumer))) {
      keep[s] = false;
      dropped.insert(st.out->name);
    }
  }
  std::vector<Stage> out;
  for (size_t s = 0; s < stages.size(); ++s)
    if (keep[s]) out.push_back(stages[s]);
  return out;
}

PrimFunc lower_func(const TensorFunc& full, const LowerOptions& options) {
  TensorFunc f = full;
  f.stages = nonempty_stages(full.stages);
  std::set<std::string> used;
  NameCollector names(used);
  for (const auto& b : f.inputs) used.insert(b->name);
  for (const auto& b : f.outputs) used.insert(b->name);
  for (const auto& st : f.stages) {
    DSPC_CHECK(st.index_vars.size() == st.out->shape.size(), "one index variable per dimension");
    used.insert(st.out->name);
    for (const auto& v : st.index_vars) used.insert(v->name);
    for (const auto& p : st.schedule) {
      used.insert(p.vars.begin(), p.vars.end());
      used.insert(p.new_names.begin(), p.new_names.end());
    }
    names.visit(st.body);
  }
  // Inlined stages first (step 2): the stages that remain, and what each reads after it.
  std::set<const BufferNode*> auto_inlined = options.auto_schedule ? pointwise_stages(f) : std::set<const BufferNode*>{};
  std::vector<Stage> stages;
  Inliner inliner(used);
  std::set<std::string> scheduled_with = names_in_schedules(f);
  for (const auto& st : f.stages) {
    Stage lowered = st;
    lowered.body = inliner.mutate(st.body);
    if (st.is_inlined() || auto_inlined.count(st.out.get())) {
      inliner.add(lowered);
      continue;
    }
    // A separable window: its first pass as a stage of its own (step 2b).
    if (options.auto_schedule && !scheduled_with.count(st.out->name))
      if (auto sep = separate_window(lowered, used, scheduled_with, options.target)) {
        stages.push_back(std::move(sep->first));
        stages.push_back(std::move(sep->second));
        continue;
      }
    // A byte matrix product: its operand read along k packed for vrmpy (step 2c).
    if (options.auto_schedule && !scheduled_with.count(st.out->name))
      if (auto pk = pack_byte_product(lowered, used, scheduled_with, options.target)) {
        stages.push_back(std::move(pk->pack));
        if (pk->rowsum) stages.push_back(std::move(*pk->rowsum));
        stages.push_back(std::move(pk->product));
        continue;
      }
    stages.push_back(std::move(lowered));
  }
  std::vector<std::set<const BufferNode*>> reads;
  for (const auto& st : stages) reads.push_back(buffers_loaded(st.body));
  // A stage computed at another reads what it reads there, inside its consumer's nest: the
  // buffers it reads stay allocated until then (a store_at stage has no allocation of its own
  // to keep them open: tests/difftest/regressions/store_at_reads_vtcm.dsp).
  for (size_t s = 0; s < stages.size(); ++s)
    if (const SchedulePrimitive* p = stages[s].computed_at())
      for (size_t c = s + 1; c < stages.size(); ++c)
        if (stages[c].out->name == p->consumer) reads[c].insert(reads[s].begin(), reads[s].end());
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
  PaddedStorage padded = padded_storage(stages);  // step 5's buffers
  // compute_at producers, by consumer: their nests go inside the consumer's loops (step 3).
  std::map<std::string, std::vector<ComputedAt>> computed_at;
  for (const auto& stage : stages)
    if (const SchedulePrimitive* p = stage.computed_at())
      computed_at[p->consumer].push_back({&stage, p->vars.at(0), stage.stored_at() != nullptr});
  for (size_t s = 0; s < stages.size();) {
    // Sibling stages the automatic schedule computes in one loop nest (step 3b).
    size_t end = s + 1;
    if (options.auto_schedule)
      while (end < stages.size() && fusable_sibling(stages, reads, s, end, options.target)) ++end;
    Stmt fused;
    for (size_t k = s; k < end; ++k) {
      const Stage& stage = stages[k];
      // A store_at stage's storage is allocated inside its consumer's loop (StageLoopNest.h).
      if (!is_param(f, stage.out) && !stage.stored_at()) open.push_back({stage.out, stage.span, {}});
      if (stage.computed_at()) continue;
      Stmt nest = lower_stage(stage, used, options, computed_at[stage.out->name], padded);
      fused = fused ? fuse(fused, nest) : nest;  // box by box (fuse zips sequences)
    }
    if (fused) open.back().stmts.push_back(fused);
    while (open.size() > 1 && !read_after(open.back().buffer, end - 1)) close_top();
    s = end;
  }
  while (open.size() > 1) close_top();

  PrimFunc out;
  out.name = f.name;
  out.inputs = f.inputs;
  out.outputs = f.outputs;
  out.body = align_storage(padded, seq_or_nop(open[0].stmts));
  out.span = f.span;
  // Every name the function uses (parameters, stages, loop and reduction variables) is in `used`.
  out.ctx = VarNode::make(context_param_name(std::vector<std::string>(used.begin(), used.end())), DataType::handle());
  return out;
}

// ---------------------------------------------------------------- --explain-schedule

// How an index moves when `x` steps by one: its stride along x (0: x does not appear), or
// nullopt when it is not affine in x (x / 2, a load, a select on x). Clamps (min, max), which
// the automatic schedule drops inside the boundaries, keep the stride of their moving side.
std::optional<int64_t> stride_along(const Expr& e, const VarNode* x, bool& reads_memory) {
  if (e.as<IntImm>() || e.as<FloatImm>()) return 0;
  if (const auto* v = e.as<VarNode>()) return v == x ? 1 : 0;
  if (const auto* c = e.as<Cast>()) return c->dtype.is_float() ? std::nullopt : stride_along(c->value, x, reads_memory);
  if (e.as<Load>()) {
    reads_memory = true;
    return std::nullopt;
  }
  const auto* b = e.as<Binary>();
  if (!b) return std::nullopt;
  std::optional<int64_t> sa = stride_along(b->a, x, reads_memory), sb = stride_along(b->b, x, reads_memory);
  if (!sa || !sb) return std::nullopt;
  switch (b->op) {
    case BinaryOp::Add: return *sa + *sb;
    case BinaryOp::Sub: return *sa - *sb;
    case BinaryOp::Mul: {
      const auto* ka = b->a.as<IntImm>();
      const auto* kb = b->b.as<IntImm>();
      if (kb) return *sa * kb->value;
      if (ka) return *sb * ka->value;
      return *sa == 0 && *sb == 0 ? std::optional<int64_t>(0) : std::nullopt;
    }
    case BinaryOp::Min:
    case BinaryOp::Max:
      if (*sa == *sb || *sb == 0) return *sa;
      if (*sa == 0) return *sb;
      return std::nullopt;
    default: return *sa == 0 && *sb == 0 ? std::optional<int64_t>(0) : std::nullopt;
  }
}

// The reads of a stage whose lanes, one element of x apart, are not neighbours in memory.
std::vector<std::string> read_notes(const Stage& stage, const VarNode* x) {
  struct Reads : IRVisitor {
    const VarNode* x;
    std::vector<std::string> notes;
    void visit_Load(const Load* op) override {
      IRVisitor::visit_Load(op);
      const Buffer& buf = op->buffer;
      std::string what = "reads " + print_expr(Load::make(buf, op->indices));
      bool reads_memory = false;
      int64_t step = 0;  // elements between neighbouring lanes
      bool affine = true;
      int64_t row = 1;
      for (size_t d = op->indices.size(); d-- > 0;) {
        std::optional<int64_t> s = stride_along(op->indices[d], x, reads_memory);
        if (!s) {
          affine = false;
          break;
        }
        step += *s * row;
        row *= d < buf->shape.size() ? buf->shape[d] : 1;
      }
      const std::string along = " along " + x->name;
      const std::string aligned_or_scalar =
          "vector loads and a shuffle where the index less its constant term starts on a vector "
          "boundary, else one scalar load per lane";
      if (reads_memory) {
        notes.push_back(what + ": an index read from memory (a gather): one scalar load per lane");
      } else if (!affine) {
        const auto* div = op->indices.back().as<Binary>();
        bool reads_memory_too = false;
        std::optional<int64_t> inner = div && div->op == BinaryOp::Div && div->b.as<IntImm>()
                                           ? stride_along(div->a, x, reads_memory_too)
                                           : std::nullopt;
        if (inner == std::optional<int64_t>(1) && div->b.as<IntImm>()->value > 1)
          notes.push_back(what + ": each element feeds " + std::to_string(div->b.as<IntImm>()->value) +
                          " neighbouring lanes (an upsample): " + aligned_or_scalar);
        else
          notes.push_back(what + ": the index does not step evenly" + along +
                          " (a division, a select): one scalar load per lane");
      } else if (step == 0 || step == 1) {
        return;  // one value for every lane (a broadcast), or neighbouring lanes: a vector load
      } else if (step == -1) {
        notes.push_back(what + ": backwards" + along + ": " + aligned_or_scalar + " (a reversal)");
      } else if (step >= 2 && step <= 4) {
        notes.push_back(what + ": lanes " + std::to_string(step) + " elements apart" + along + " (a strided read): " +
                        aligned_or_scalar + (step > 2 ? " (a vector's lanes must lie in four aligned vectors)" : ""));
      } else {
        notes.push_back(what + ": lanes " + std::to_string(step) + " elements apart" + along +
                        " (a strided or transposed read): one scalar load per lane");
      }
    }
  } r;
  r.x = x;
  r.visit(stage.body);
  std::sort(r.notes.begin(), r.notes.end());
  r.notes.erase(std::unique(r.notes.begin(), r.notes.end()), r.notes.end());
  return r.notes;
}

// Lane types HVX has no instructions for (dspc writes no HVX floating point), read or written.
std::vector<std::string> scalar_type_notes(const Stage& stage, const Target& target) {
  std::vector<std::string> notes;
  if (target.arch != Arch::hexagon) return notes;
  struct Types : IRVisitor {
    std::set<std::string> found;
    void note(DataType t) {
      if (t.is_float() || t.bits == 64) found.insert(t.element_of().str());
    }
    void visit(const Expr& e) override {
      if (e.get()) note(e->dtype);
      IRVisitor::visit(e);
    }
  } v;
  v.note(stage.out->dtype);
  v.visit(stage.body);
  for (const auto& t : v.found)
    notes.push_back(t + " values: HVX has no " + t + " lanes in dspc's code (no HVX floating point, no 64-bit lanes), "
                    "so the stage runs in scalar code");
  return notes;
}

void explain_func(const TensorFunc& f, const LowerOptions& options, std::ostream& os) {
  std::set<const BufferNode*> inlined = options.auto_schedule ? pointwise_stages(f) : std::set<const BufferNode*>{};
  // Each stage's body with the inlined stages substituted, as lower_func lowers it.
  std::set<std::string> used;
  NameCollector names(used);
  for (const auto& st : f.stages) names.visit(st.body);
  Inliner inliner(used);
  std::set<std::string> scheduled_with = names_in_schedules(f);
  for (const auto& st : f.stages) {
    Stage with_inlined = st;
    with_inlined.body = inliner.mutate(st.body);
    if (st.is_inlined() || inlined.count(st.out.get())) inliner.add(with_inlined);
    std::string head =
        "explain-schedule: " + f.name + ": " + st.out->name + " (" + st.out->dtype.str() + shape_str(st.out->shape) + ")";
    auto line = [&](const std::string& text) { os << head << ": " << text << "\n"; };
    if (st.out->num_elements() == 0) {  // nonempty_stages drops it
      line("no elements (an extent 0): no loop and no storage");
      continue;
    }
    if (st.is_inlined() || inlined.count(st.out.get())) {
      line(st.is_inlined() ? "inlined into its readers (compute_inline)"
                           : "inlined into its readers by the automatic schedule (each reads it at the point it computes)");
      continue;
    }
    if (const SchedulePrimitive* p = st.computed_at())
      line("computed inside " + p->consumer + "'s loop over " + p->vars.at(0) + " (compute_at)");
    if (options.auto_schedule && !scheduled_with.count(st.out->name)) {
      std::set<std::string> scratch = used;
      if (auto sep = separate_window(with_inlined, scratch, scheduled_with, options.target)) {
        line(std::string("automatic schedule: a separable window: its reduction over the axes that index ") +
             "the input's innermost dimension becomes a stage of its own, " + sep->first.out->name + " (" + sep->first.out->dtype.str() + shape_str(sep->first.out->shape) +
             "), computed once per input row; " + st.out->name + " reduces " + sep->first.out->name +
             " over the other axes (below: the stage before the split)");
      }
      std::string why;
      if (auto pk = pack_byte_product(with_inlined, scratch, scheduled_with, options.target, &why)) {
        line("automatic schedule: a product of bytes summed along " + only_reduction(st.body)->axes[0].var->name +
             ": its operand read along " + st.index_vars.back()->name + " is packed once for vrmpy into " +
             pk->pack.out->name + " (" + pk->pack.out->dtype.str() + shape_str(pk->pack.out->shape) +
             ", four rows interleaved byte by byte" +
             (pk->rowsum ? ", offset by 128 to unsigned bytes; " + pk->rowsum->out->name +
                               " holds the other factor's sum, which corrects the offset"
                         : std::string()) +
             "), which " + st.out->name + " reads with dense loads (below: the stage before packing)");
      } else if (!why.empty()) {
        line(why);
      }
    }
    const VarNode* x = st.index_vars.empty() ? nullptr : st.index_vars.back().get();
    if (st.has_loop_schedule() || st.computed_at()) {
      std::string written;
      for (const auto& p : st.schedule) written += std::string(written.empty() ? "" : ", ") + schedule_kind_name(p.kind);
      line("written schedule (" + written + ")" + (vectorizes(st) ? "" : ": no vectorize, so its loops are scalar"));
      x = nullptr;  // the written loops decide the lanes: no guess at them here
    } else if (!options.auto_schedule) {
      line("no schedule and --no-auto-schedule: serial scalar loops");
      x = nullptr;
    } else if (!x) {
      line("a single value: no loop to vectorize");
    } else if (TransposedRead tr = transposed_read(with_inlined, options.target); tr.why_not.empty()) {
      int P = 0;
      while ((int64_t(1) << P) < tr.lanes) ++P;
      int64_t R1 = int64_t(1) << (P / 2), R2 = tr.lanes / R1;  // as lower_transpose_box
      std::string L = std::to_string(tr.lanes);
      line("automatic schedule: a transpose of " + print_expr(tr.load) + ": " + st.index_vars[tr.dy]->name + " and " +
           x->name + " blocked by " + L + ", each " + L + " x " + L +
           " block transposed in registers in two passes through a scratch block (vector loads of " +
           std::to_string(R1) + ", then " + std::to_string(R2) +
           " rows, rounds of 2x2 block transposes: vshuff on HVX; vector stores), a last block shifted inwards where " + L + " does not divide the extent");
      x = nullptr;
    } else if (int rl = reduce_axis_lanes(st, options.target)) {
      const Reduce* r = only_reduction(st.body);
      line("automatic schedule: the reduction over " + r->axes.back().var->name + " vectorized by " +
           std::to_string(rl) + " lanes (its reads are contiguous along it, and not along " + x->name +
           "): partial results in vector registers, one horizontal reduction per output; " + x->name +
           "'s loop is scalar, four outputs per iteration (two where 4 does not divide its extent)" +
           (loads_mention(r->source, x) ? std::string()
                                        : ", their reductions in one loop (no read depends on " + x->name +
                                              ": each vector is read once for all of them)"));
      x = nullptr;
    } else {
      int lanes = auto_lanes(st, options.target);
      int64_t extent = st.out->shape.back();
      std::string why;
      reduce_axis_lanes(st, options.target, &why);
      std::string how = "automatic schedule: " + x->name + " vectorized by " + std::to_string(lanes) +
                        " lanes (a vector of its narrowest type), the boundaries partitioned";
      int short_lanes = reduce_axis_lanes(st, options.target) ? lanes : short_vector_lanes(st, lanes);
      if (lanes <= 1)
        how = "automatic schedule: scalar loops (the target has no vectors)";
      else if (short_lanes < lanes)
        how = "automatic schedule: " + x->name + " vectorized by its whole extent, " + std::to_string(short_lanes) +
              " lanes (below a vector of its narrowest type); where they fill less than one vector register, the "
              "vectorizer runs neighbouring iterations of the loop around it as one full vector when the stores are "
              "dense and the reads runs of consecutive elements (HVX), and the short vector in scalar code otherwise";
      else if (extent < lanes)
        how += "; but " + x->name + "'s extent " + std::to_string(extent) +
               " is below one vector, so the stage runs in scalar code (a wider innermost dimension, or a "
               "written schedule that vectorizes another, would fill vectors)";
      line(how);
      if (tr.candidate) line("not transposed in blocks: " + tr.why_not);
      if (!why.empty()) line("its reduction is not vectorized along its innermost axis instead: " + why);
      if (lanes <= 1 || (extent < lanes && short_lanes == lanes)) x = nullptr;
    }
    if (x)
      for (const auto& n : read_notes(st, x)) line(n);
    for (const auto& n : scalar_type_notes(st, options.target)) line(n);
  }
}

}  // namespace

Module schedule_ops(const TensorProgram& program, const LowerOptions& options) {
  Module m;
  for (const auto& f : program.funcs) {
    if (options.explain_schedule && options.trace) explain_func(f, options, *options.trace);
    m.funcs.push_back(lower_func(f, options));
  }
  return m;
}

}  // namespace dspc
