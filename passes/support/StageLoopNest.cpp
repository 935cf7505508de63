#include "passes/support/StageLoopNest.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "compiler/arith/Semantics.h"
#include "compiler/ir/Externs.h"
#include "compiler/ir/IRVisitor.h"
#include "compiler/ir/LoopSchedule.h"
#include "compiler/arith/Simplify.h"
#include "passes/support/ComputeAtRegion.h"
#include "passes/support/Partition.h"

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

// A product of two bytes widened to 32 bits (a constant counts as a byte), the shape of a
// u8/i8 dot product.
bool is_byte_product(const Expr& e) {
  const auto* m = e.as<Binary>();
  if (!m || m->op != BinaryOp::Mul || m->dtype.bits != 32 || !m->dtype.is_integer()) return false;
  auto byte = [](const Expr& x) {
    if (x.as<IntImm>()) return true;
    const auto* c = x.as<Cast>();
    return c && c->value.dtype().is_integer() && c->value.dtype().bits == 8;
  };
  return byte(m->a) && byte(m->b);
}

// A product of two bytes made in a narrower type and widened, where it cannot wrap there
// (i32(i16(u8) * i16(i8)): |255 * -128| < 2^15), as the same product of the bytes widened to
// the sum's type, i32(u8) * i32(i8), which is_byte_product takes: a depthwise window's sum is
// then vrmpy's groups of four taps, not a 16-bit product widened per tap. Null otherwise
// (u8 x u8 in i16 can wrap: 255 * 255 > 2^15 - 1).
Expr widened_byte_product(const Expr& e) {
  const auto* c = e.as<Cast>();
  if (!c || !c->dtype.is_integer() || c->dtype.bits != 32 || c->dtype.lanes != 1) return Expr();
  const auto* m = c->value.as<Binary>();
  DataType narrow = c->value.dtype();
  if (!m || m->op != BinaryOp::Mul || !narrow.is_integer() || narrow.bits >= 32 || narrow.lanes != 1) return Expr();
  // Each side: a byte widened (its range) or a constant; the byte itself.
  auto side = [](const Expr& x, Expr& byte, int64_t& lo, int64_t& hi) {
    if (const IntImm* k = as_int(x)) {
      lo = hi = k->value;
      byte = x;
      return true;
    }
    const auto* cx = x.as<Cast>();
    if (!cx || !cx->value.dtype().is_integer() || cx->value.dtype().bits != 8 || cx->dtype.bits < 8) return false;
    DataType b = cx->value.dtype();
    lo = b.is_uint() ? 0 : -(int64_t(1) << (b.bits - 1));
    hi = b.is_uint() ? (int64_t(1) << b.bits) - 1 : (int64_t(1) << (b.bits - 1)) - 1;
    byte = cx->value;
    return true;
  };
  Expr a8, b8;
  int64_t alo, ahi, blo, bhi;
  if (!side(m->a, a8, alo, ahi) || !side(m->b, b8, blo, bhi)) return Expr();
  int64_t corners[] = {alo * blo, alo * bhi, ahi * blo, ahi * bhi};
  int64_t lo = *std::min_element(std::begin(corners), std::end(corners));
  int64_t hi = *std::max_element(std::begin(corners), std::end(corners));
  int64_t nmin = narrow.is_int() ? -(int64_t(1) << (narrow.bits - 1)) : 0;
  int64_t nmax = narrow.is_int() ? (int64_t(1) << (narrow.bits - 1)) - 1 : (int64_t(1) << narrow.bits) - 1;
  if (lo < nmin || hi > nmax) return Expr();
  // The value is the exact product (it did not wrap in `narrow`), so the sum's type holds it.
  auto wide = [&](const Expr& byte) {
    if (const IntImm* k = as_int(byte)) return make_const(c->dtype, k->value);
    return Cast::make(c->dtype, byte, e->span);
  };
  Expr r = Binary::make(BinaryOp::Mul, wide(a8), wide(b8), e->span);
  return is_byte_product(r) ? r : Expr();
}

// The most terms of a byte-product reduction written out four by four when its innermost
// extent is not a multiple of 4 (a 5x5 stencil's 25 fit).
constexpr int64_t kMaxUnrolledDotTerms = 32;

// The narrowest integer type x is widened from through casts that never narrow (i32(u32(u8))
// is a u8), or 0 when x is not a cast.
int widened_from_bits(const Expr& x) {
  int bits = 0;
  Expr v = x;
  while (const auto* c = v.as<Cast>()) {
    DataType from = c->value.dtype();
    if (!from.is_integer() || !c->dtype.is_integer() || from.bits > c->dtype.bits) break;
    bits = from.bits;
    v = c->value;
  }
  return bits;
}

// A term HVX's small sums of products take (vrmpy and vdmpy across lanes, vtmpy and vrmpy's
// windows along them) in 16- or 32-bit lanes: a product of two values of at most half the
// lanes' bits (widened by casts, or constants), or one such widened value alone (its product
// by 1): u32(in_u8[4 * x + r]), i32(in_i16[2 * x + r]) * 3, i16(in_i8[x + r]).
bool is_narrow_product(const Expr& e) {
  DataType t = e.dtype();
  if (!t.is_integer() || (t.bits != 16 && t.bits != 32)) return false;
  auto narrow = [&](const Expr& x) {
    int bits = widened_from_bits(x);
    return x.as<IntImm>() || (bits > 0 && 2 * bits <= t.bits);
  };
  if (const auto* m = e.as<Binary>(); m && m->op == BinaryOp::Mul) return narrow(m->a) && narrow(m->b);
  return !e.as<IntImm>() && narrow(e);
}

// A term of the sum `e` (adds of its type) that is 0 once simplified.
bool vanishing_term(const Expr& e) {
  const auto* add = e.as<Binary>();
  if (add && add->op == BinaryOp::Add && add->dtype == e.dtype()) return vanishing_term(add->a) || vanishing_term(add->b);
  Expr simplified = simplify_expr(e);  // held here: as_int's pointer is into it
  const IntImm* k = as_int(simplified);
  return k && k->value == 0;
}

// The most terms of such a small sum written out (vrmpy's four; vdmpy's two, vtmpy's three).
constexpr int64_t kMaxUnrolledNarrowTerms = 4;

// The number of points of a reduction's domain.
int64_t domain_size(const std::vector<ReduceAxis>& axes) {
  int64_t total = 1;
  for (const ReduceAxis& a : axes) total *= a.extent;
  return total;
}

// `source` at every point of the domain, in loop order (the last axis fastest).
std::vector<Expr> written_out_terms(const Expr& source, const std::vector<ReduceAxis>& axes) {
  std::vector<Expr> terms;
  int64_t total = domain_size(axes);
  for (int64_t flat = 0; flat < total; ++flat) {
    std::map<const VarNode*, Expr> at;
    int64_t rest = flat;
    for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
      at[it->var.get()] = make_i32(rest % it->extent);
      rest /= it->extent;
    }
    terms.push_back(substitute(source, at));
  }
  return terms;
}

// Replaces the Reduce nodes of one stage body by accumulator loads: post-order, so a
// reduction nested in another's source is lowered inside the outer one's loops.
class ReductionLowering : public IRMutator {
 public:
  ReductionLowering(std::string stage_name, std::set<std::string>& used, bool group_dot_products,
                    int vector_lanes)
      : stage_name_(std::move(stage_name)),
        used_(used),
        group_(group_dot_products),
        vector_lanes_(vector_lanes) {}

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
    if (group_ && inner.empty() && op->op == ReduceOp::Sum)
      if (Expr w = widened_byte_product(source)) source = w;
    Buffer acc = BufferNode::make(fresh_name(stage_name_ + "_" + reduce_op_name(op->op), used_), op->dtype,
                                  {1}, StorageScope::Local, s);
    Expr acc_value = Load::make(acc, {make_i32(0)}, s);
    std::vector<ReduceAxis> axes = op->axes;
    const ReduceAxis& last = axes.back();
    // (A four-long sum of other narrow products too: one group, whose weights stay a register
    // when one of them is 0, below.)
    if (group_ && inner.empty() && op->op == ReduceOp::Sum &&
        ((is_byte_product(source) && last.extent >= 4 && last.extent % 4 == 0) ||
         (axes.size() == 1 && last.extent == 4 && is_narrow_product(source)))) {
      VarRef outer = VarNode::make(fresh_name(last.var->name + "_o", used_), DataType::i32(), last.var->span);
      Expr group;
      for (int j = 0; j < 4; ++j) {
        Expr k = Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Mul, var_expr(outer), make_i32(4)), make_i32(j));
        Expr term = substitute(source, {{last.var.get(), k}});
        group = group ? Binary::make(BinaryOp::Add, group, term, s) : term;
      }
      source = group;
      axes.back() = {outer, last.extent / 4};
    } else if (group_ && inner.empty() && op->op == ReduceOp::Sum && is_byte_product(source) &&
               !(vector_lanes_ > 0 && last.extent >= vector_lanes_)) {
      // A small reduction whose innermost extent is not a multiple of 4 (a 3x3 stencil's 9
      // taps): every term written out, in loop order, four by four, the last group shorter.
      int64_t total = domain_size(axes);
      if (total >= 4 && total <= kMaxUnrolledDotTerms) {
        Expr sum, group;
        int in_group = 0;
        std::vector<Expr> terms = written_out_terms(source, axes);
        for (size_t i = 0; i < terms.size(); ++i) {
          group = group ? Binary::make(BinaryOp::Add, group, terms[i], s) : terms[i];
          if (++in_group == 4 || i + 1 == terms.size()) {
            sum = sum ? Binary::make(BinaryOp::Add, sum, group, s) : group;
            group = Expr();
            in_group = 0;
          }
        }
        source = sum;
        axes.clear();
      }
    } else if (group_ && inner.empty() && op->op == ReduceOp::Sum && is_narrow_product(source)) {
      // A sum of two to four narrow products (or widened narrow values) along one small axis
      // or several: every term written out, so that codegen sees them as one sum (vdmpy's two
      // terms, vtmpy's window of three, vrmpy's four in 16-bit lanes or by 1s).
      int64_t total = domain_size(axes);
      if (total >= 2 && total <= kMaxUnrolledNarrowTerms) {
        Expr sum;
        for (const Expr& term : written_out_terms(source, axes))
          sum = sum ? Binary::make(BinaryOp::Add, sum, term, s) : term;
        source = sum;
        axes.clear();
      }
    }
    // An axis of one value is that value (a group of four of a four-long axis), unless a term
    // of the sum then vanishes (sum(u32(in_u8[4 * x + r]) * u32(u8(r)), r: 4): its weight 0
    // would leave three products, which no vrmpy takes, where the loop's weights, a register,
    // keep four).
    for (size_t j = 0; j < axes.size();) {
      Expr at = axes[j].extent == 1 && inner.empty() ? substitute(source, {{axes[j].var.get(), make_i32(0)}}) : Expr();
      if (at && !vanishing_term(at)) {
        source = at;
        axes.erase(axes.begin() + static_cast<std::ptrdiff_t>(j));
      } else {
        ++j;
      }
    }
    if (axes.empty() && op->op == ReduceOp::Sum && op->dtype.is_integer()) {
      // Every term written out: the sum is stored at once, not added to a 0 (which would keep a
      // zeroed register per vector of it).
      out_->push_back({acc, wrap_reductions(inner, Store::make(acc, {make_i32(0)}, source, s)), s});
      return acc_value;
    }
    auto update = [&](const Expr& value) {
      return Store::make(acc, {make_i32(0)}, Binary::make(reduce_combine_op(op->op), acc_value, value, s), s);
    };
    Stmt loops;
    int64_t lanes = vector_lanes_;
    if (lanes > 0 && inner.empty() && !axes.empty() && axes.back().extent >= lanes) {
      // The innermost axis in vectors (lower_reductions).
      const ReduceAxis inner_axis = axes.back();
      int64_t n = inner_axis.extent, rem = n % lanes;
      VarRef ro = VarNode::make(fresh_name(inner_axis.var->name + "_o", used_), DataType::i32(), inner_axis.var->span);
      VarRef rv = VarNode::make(fresh_name(inner_axis.var->name + "_v", used_), DataType::i32(), inner_axis.var->span);
      Expr k = Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Mul, var_expr(ro), make_i32(lanes)),
                            var_expr(rv));
      Stmt body = For::make(rv, make_i32(0), make_i32(lanes), ForKind::Vectorized,
                            update(substitute(source, {{inner_axis.var.get(), k}})), s);
      loops = For::make(ro, make_i32(0), make_i32(n / lanes), ForKind::Serial, body, s);
      if (rem) {
        VarRef rt = VarNode::make(fresh_name(inner_axis.var->name + "_t", used_), DataType::i32(), inner_axis.var->span);
        Expr at = Binary::make(BinaryOp::Add, make_i32(n - lanes), var_expr(rt));
        Expr value = substitute(source, {{inner_axis.var.get(), at}});
        if (op->op == ReduceOp::Sum)
          value = Select::make(Binary::make(BinaryOp::GE, var_expr(rt), make_i32(lanes - rem)), value,
                               make_value(op->dtype, reduce_init(op->op, op->dtype), s), s);
        loops = Seq::make(
            {loops, For::make(rt, make_i32(0), make_i32(lanes), ForKind::Vectorized, update(value), s)}, s);
      }
      axes.pop_back();
    } else {
      loops = wrap_reductions(inner, update(source));
    }
    for (auto it = axes.rbegin(); it != axes.rend(); ++it)
      loops = For::make(it->var, make_i32(0), make_i32(it->extent), ForKind::Serial, loops, s);
    Stmt init = Store::make(acc, {make_i32(0)}, make_value(op->dtype, reduce_init(op->op, op->dtype), s), s);
    out_->push_back({acc, Seq::make({init, loops}), s});
    return acc_value;
  }

 private:
  std::string stage_name_;
  std::set<std::string>& used_;
  bool group_;
  int vector_lanes_;
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

}  // namespace

Stmt wrap_reductions(const std::vector<PendingReduction>& pending, Stmt body) {
  for (auto it = pending.rbegin(); it != pending.rend(); ++it)
    body = Allocate::make(it->acc, Seq::make({it->prelude, body}), it->span);
  return body;
}

Expr lower_reductions(const Expr& body, const std::string& stage_name, std::set<std::string>& used,
                      bool group_dot_products, std::vector<PendingReduction>& out, int vector_lanes) {
  return ReductionLowering(stage_name, used, group_dot_products, vector_lanes).lower(body, out);
}

std::string fresh_name(const std::string& base, std::set<std::string>& used) {
  std::string name = base;
  for (int n = 1; used.count(name); ++n) name = base + "_" + std::to_string(n);
  used.insert(name);
  return name;
}

Expr substitute(const Expr& e, const std::map<const VarNode*, Expr>& values, std::set<std::string>* used) {
  return Substituter(values, used).mutate(e);
}

Stmt substitute(const Stmt& s, const std::map<const VarNode*, Expr>& values) {
  return Substituter(values, nullptr).mutate(s);
}

LoopRange::LoopRange(int64_t min, int64_t extent) : min(make_i32(min)), extent(extent) {}

std::vector<LoopRange> full_ranges(const Stage& stage) {
  std::vector<LoopRange> out;
  for (int64_t e : stage.out->shape) out.emplace_back(0, e);
  return out;
}

namespace {

Stmt build_nest(const Stage& stage, const std::vector<LoopRange>& ranges, std::set<std::string>& used,
                const std::vector<ComputedAt>& computed_at, bool renamed, bool group, const PaddedStorage& padded);

// A store_at producer's nest over `region`. When the region's innermost range is the same at
// every iteration (a constant min), it is widened to whole vectors of the producer's
// vectorized innermost split (its min rounded down and its end up to multiples of the
// factor, within the shape: aligned stores into its buffer), `region` is updated, and the
// range is partitioned as boundary_regions partitions the whole stage along that dimension:
// clamp-free vectors inside, the clamped edges apart.
Stmt build_local_producer(const Stage& producer, std::vector<LoopRange>& region, std::set<std::string>& used,
                          bool group, const PaddedStorage& padded) {
  size_t inner = region.size() - 1;
  Expr min = simplify_expr(region[inner].min);  // kept alive: `m` points into it
  const IntImm* m = as_int(min);
  if (!m) return build_nest(producer, region, used, {}, true, group, padded);
  int64_t shape = producer.out->shape[inner];
  LoopSchedule schedule = loop_schedule_of(producer);
  int64_t lanes = 1;
  for (const auto& s : schedule.splits())
    if (s.old_var == producer.index_vars[inner]->name)
      for (const auto& d : schedule.dims())
        if (d.name == s.inner && d.kind == ForKind::Vectorized) lanes = s.factor;
  int64_t lo = m->value, hi = lo + region[inner].extent;
  lo = lo / lanes * lanes;
  hi = std::min(shape, (hi + lanes - 1) / lanes * lanes);
  region[inner] = LoopRange(lo, hi - lo);
  std::vector<Stmt> parts;
  std::set<std::pair<int64_t, int64_t>> done;
  for (const Region& box : boundary_regions(producer, 27, inner)) {
    int64_t a = std::max(lo, box[inner].min), b = std::min(hi, box[inner].min + box[inner].extent);
    if (a >= b || !done.insert({a, b}).second) continue;
    Region decided;
    for (int64_t e : producer.out->shape) decided.push_back({0, e});
    decided[inner] = {a, b - a};
    Stage piece = producer;
    piece.body = drop_decided_minmax(producer.body, producer, decided);
    std::vector<LoopRange> ranges = region;
    ranges[inner] = LoopRange(a, b - a);
    parts.push_back(build_nest(piece, ranges, used, {}, true, group, padded));
  }
  return parts.size() == 1 ? parts[0] : Seq::make(parts);
}

// `renamed`: the loops get names <stage>_<loop> fresh among `used`, as a nest computed inside
// another stage's loops must not reuse the names of the loops around it.
Stmt build_nest(const Stage& stage, const std::vector<LoopRange>& ranges, std::set<std::string>& used,
                const std::vector<ComputedAt>& computed_at, bool renamed, bool group, const PaddedStorage& padded) {
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
  std::vector<std::vector<Buffer>> at_local(schedule.dims().size());
  for (const auto& c : computed_at) {
    size_t at = schedule.dims().size();
    for (size_t d = 0; d < schedule.dims().size(); ++d)
      if (schedule.dims()[d].name == c.loop) at = d;
    DSPC_CHECK(at < schedule.dims().size(), "compute_at loop '" + c.loop + "' of stage " + stage.out->name);
    std::vector<LoopBounds> inside, outside;
    for (size_t d = 0; d < schedule.dims().size(); ++d) {
      const Loop& l = loops.at(schedule.dims()[d].name);
      (d < at ? inside : outside).push_back({l.var, l.min, l.extent});
    }
    std::vector<LoopRange> region = compute_at_region(*c.producer, body, inside, outside);
    Stmt produce = c.local ? build_local_producer(*c.producer, region, used, group, padded)
                           : build_nest(*c.producer, region, used, {}, true, group, padded);
    if (c.local) {
      // store_at: the region's own buffer, indices relative to the region's min.
      const Buffer& whole = c.producer->out;
      std::vector<int64_t> shape;
      for (const auto& r : region) shape.push_back(r.extent);
      shape = aligned_shape(shape, c.producer->schedule);
      Buffer local = BufferNode::make(whole->name, whole->dtype, shape, whole->scope, whole->span);
      struct Relocate : IRMutator {
        const BufferNode* from;
        Buffer to;
        std::vector<Expr> mins;
        std::vector<Expr> shift(const std::vector<Expr>& indices) {
          std::vector<Expr> out;
          for (size_t d = 0; d < indices.size(); ++d)
            out.push_back(is_zero(mins[d]) ? indices[d] : Binary::make(BinaryOp::Sub, indices[d], mins[d]));
          return out;
        }
        Expr mutate_Load(const Load* op, const Expr& self) override {
          Expr e = IRMutator::mutate_Load(op, self);
          const Load* l = e.as<Load>();
          if (l->buffer.get() != from) return e;
          return Load::make(to, shift(l->indices), l->span);
        }
        Stmt mutate_Store(const Store* op, const Stmt& self) override {
          Stmt st = IRMutator::mutate_Store(op, self);
          const Store* s = st.as<Store>();
          if (s->buffer.get() != from) return st;
          return Store::make(to, shift(s->indices), s->value, s->span);
        }
      } relocate;
      relocate.from = whole.get();
      relocate.to = local;
      for (const auto& r : region) relocate.mins.push_back(r.min);
      produce = relocate.mutate(produce);
      body = relocate.mutate(body);
      at_local[at].push_back(local);
    }
    at_dim[at].push_back(produce);
  }

  // prefetch(T, v, d): at the start of each iteration of loop v, a hint for the region of T
  // that iteration v + d reads.
  for (const auto& p : stage.schedule) {
    if (p.kind != ScheduleKind::Prefetch) continue;
    size_t at = schedule.dims().size();
    for (size_t d = 0; d < schedule.dims().size(); ++d)
      if (schedule.dims()[d].name == p.vars[0]) at = d;
    DSPC_CHECK(at < schedule.dims().size(), "prefetch loop '" + p.vars[0] + "' of stage " + stage.out->name);
    std::vector<LoopBounds> inside, outside;
    for (size_t d = 0; d < schedule.dims().size(); ++d) {
      const Loop& l = loops.at(schedule.dims()[d].name);
      (d < at ? inside : outside).push_back({l.var, l.min, l.extent});
    }
    if (Stmt hint = prefetch_hint(p, body, loops.at(p.vars[0]).var, inside, outside, padded))
      at_dim[at].insert(at_dim[at].begin(), hint);
  }

  std::vector<PendingReduction> pending;
  Expr stored = lower_reductions(body, stage.out->name, used, group, pending);
  Stmt nest = wrap_reductions(pending, Store::make(stage.out, indices, stored, stage.span));
  for (size_t d = 0; d < schedule.dims().size(); ++d) {
    const Loop& l = loops.at(schedule.dims()[d].name);
    if (!at_dim[d].empty()) {
      at_dim[d].push_back(nest);
      nest = Seq::make(at_dim[d]);
    }
    for (auto it = at_local[d].rbegin(); it != at_local[d].rend(); ++it) nest = Allocate::make(*it, nest, (*it)->span);
    nest = For::make(l.var, l.min, make_i32(l.extent), schedule.dims()[d].kind, nest, stage.span);
  }
  return nest;
}

}  // namespace

Stmt build_stage_loop_nest(const Stage& stage, const std::vector<LoopRange>& ranges,
                           std::set<std::string>& used, const std::vector<ComputedAt>& computed_at,
                           bool group_dot_products, const PaddedStorage& padded) {
  return build_nest(stage, ranges, used, computed_at, false, group_dot_products, padded);
}

}  // namespace dspc
