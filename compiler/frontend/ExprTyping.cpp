// Elaborator::build: bottom-up typing of the expression syntax tree shared by the .dsp and
// TIR parsers (declared in ParserCommon.h).
//
// 1. A literal stays untyped until an operand, call or context gives it a dtype (unify /
//    finalize).
// 2. Then make() builds the node, and any IRError it throws is reported at the node.
// 3. Names are resolved by the subclass (find_var, find_buffer); reduction variables are
//    scoped here, innermost last.
#include <cmath>

#include "compiler/ir/Externs.h"
#include "compiler/frontend/ParserCommon.h"
#include "compiler/arith/Semantics.h"

namespace dspc::frontend {

namespace {

std::string lit_text(bool negative, bool is_float, uint64_t magnitude, const std::string& text) {
  return (negative ? "-" : "") + (is_float ? text : std::to_string(magnitude));
}

// The cast a user most likely wants when two dtypes meet: towards float, then wider.
DataType wider(DataType a, DataType b) {
  if (a.is_float() != b.is_float()) return a.is_float() ? a : b;
  return b.bits > a.bits ? b : a;
}

}  // namespace

void Elaborator::fail(Span span, std::string message) {
  log_.error(span, std::move(message));
  throw Abort{};
}

Expr Elaborator::build(const Ast& a, std::optional<DataType> hint) {
  return finalize(elab(a, hint), hint);
}

Expr Elaborator::coerce(const Lit& lit, DataType t) {
  DataType e = t.element_of();
  std::string text = lit_text(lit.negative, lit.is_float, lit.magnitude, lit.text);
  if (e.is_float()) {
    double v = lit.is_float ? lit.value : static_cast<double>(lit.magnitude);
    // Rounded to the dtype, a finite literal must stay finite: f16's largest is 65504 (65520
    // and up round to infinity), f32's FLT_MAX. (TIR writes infinity itself as `inf`.)
    bool overflows = std::isfinite(v) && (e.bits == 16   ? v >= 65520.0
                                          : e.bits == 32 ? std::isinf(static_cast<float>(v))
                                                         : false);
    if (overflows) fail(lit.span, "float literal " + text + " does not fit in " + e.str() + " (it would be infinity)");
    return FloatImm::make(e, lit.negative ? -v : v, lit.span);
  }
  if (e.is_integer() || e.is_bool()) {
    if (lit.is_float)
      fail(lit.span,
           "float literal " + text + " cannot have " + (e.is_bool() ? "dtype " : "integer dtype ") + e.str());
    if (!e.fits(lit.magnitude, lit.negative))
      fail(lit.span, "integer literal " + text + " does not fit in " + e.str());
    uint64_t bits = lit.negative ? 0 - lit.magnitude : lit.magnitude;
    return IntImm::make(e, static_cast<int64_t>(bits), lit.span);
  }
  fail(lit.span, "a literal cannot have dtype " + e.str());
}

Expr Elaborator::finalize(const Val& v, std::optional<DataType> hint) {
  if (v.e) return v.e;
  if (hint && !hint->is_handle() && (hint->is_float() || !v.lit.is_float)) return coerce(v.lit, *hint);
  return coerce(v.lit, v.lit.is_float ? DataType::f32() : DataType::i32());
}

void Elaborator::unify(const std::vector<Val*>& vals, std::optional<DataType> hint, Span at,
                       const std::string& what) {
  std::optional<DataType> t;
  bool any_float = false;
  for (Val* v : vals) {
    if (v->e && !t) t = v->e.dtype();
    if (!v->e) any_float |= v->lit.is_float;
  }
  if (!t && hint && !hint->is_handle() && (hint->is_float() || !any_float)) t = hint;
  if (!t) t = any_float ? DataType::f32() : DataType::i32();
  for (Val* v : vals)
    if (!v->e) v->e = coerce(v->lit, *t);
  DataType first = vals[0]->e.dtype();
  for (Val* v : vals) {
    DataType d = v->e.dtype();
    if (d == first) continue;
    fail(at, what + " have different dtypes: " + first.str() + " and " + d.str() + " (use a cast, e.g. " +
                 wider(first, d).str() + "(...))");
  }
}

Elaborator::Val Elaborator::branch(const Expr& cond, bool taken, const Ast& a, std::optional<DataType> hint) {
  struct Leave {
    Elaborator* self;
    ~Leave() { self->leave_branch(); }
  };
  enter_branch(cond, taken);
  Leave leave{this};
  return elab(a, hint);
}

VarRef Elaborator::lookup_var(const std::string& name, Span span) {
  for (auto it = reduce_vars_.rbegin(); it != reduce_vars_.rend(); ++it)
    if (it->first == name) return it->second;
  return find_var(name, span);
}

Elaborator::Val Elaborator::elab(const Ast& a, std::optional<DataType> hint) {
  switch (a.kind) {
    case Ast::Kind::Literal: {
      Val v;
      v.lit = Lit{a.is_float, a.negative, a.magnitude, a.fvalue, a.text, a.span};
      if (a.suffix) v.e = coerce(v.lit, *a.suffix);
      return v;
    }
    case Ast::Kind::Bool: return Val{IntImm::make(DataType::boolean(), a.bool_value, a.span), {}};
    case Ast::Kind::Name: return Val{var_expr(lookup_var(a.name, a.span)), {}};
    case Ast::Kind::Read: return Val{read(a), {}};
    case Ast::Kind::Unary: return unary(a, hint);
    case Ast::Kind::Binary: return Val{binary(a, hint), {}};
    case Ast::Kind::Call: return call(a, hint);
    case Ast::Kind::Extern: return Val{extern_call(a), {}};
    case Ast::Kind::Reduce: return Val{reduce(a, hint), {}};
  }
  fail(a.span, "unsupported expression");
}

Expr Elaborator::read(const Ast& a) {
  const char* noun = dialect_ == Dialect::Dsp ? "tensor" : "buffer";
  Buffer b = find_buffer(a.name, a.span);
  if (a.args.size() != b->shape.size())
    fail(a.span, std::string(noun) + " '" + a.name + "' has " +
                     plural(b->shape.size(), "dimension", "dimensions") + " but " +
                     plural(a.args.size(), "index was", "indices were") + " given");
  std::vector<Expr> indices;
  for (const auto& arg : a.args) {
    Expr e = build(*arg);
    if (!e.dtype().is_integer())
      fail(arg->start, "index of '" + a.name + "' must be an integer, got " + e.dtype().str());
    indices.push_back(e);
  }
  Expr load = checked(log_, a.span, [&] { return Load::make(b, indices, a.span); });
  on_load(a, *load.as<Load>());
  return load;
}

Elaborator::Val Elaborator::unary(const Ast& a, std::optional<DataType> hint) {
  if (a.uop == UnaryOp::Not) {
    Expr x = build(*a.args[0]);
    return Val{checked(log_, a.span, [&] { return Unary::make(UnaryOp::Not, x, a.span); }), {}};
  }
  Val v = elab(*a.args[0], hint);
  // In .dsp, -(5) is still a literal that can take its operand's dtype; TIR keeps the node.
  if (!v.e && a.uop == UnaryOp::Neg && dialect_ == Dialect::Dsp) {
    v.lit.negative = !v.lit.negative;
    v.lit.span = a.span;
    return v;
  }
  Expr x = finalize(v, hint);
  return Val{checked(log_, a.span, [&] { return Unary::make(a.uop, x, a.span); }), {}};
}

Expr Elaborator::binary(const Ast& a, std::optional<DataType> hint) {
  BinaryOp op = a.bop;
  if (is_comparison(op) || is_logical(op)) hint.reset();
  Val x = elab(*a.args[0], hint);
  Val y = elab(*a.args[1], hint);
  unify({&x, &y}, hint, a.span, std::string("operands of '") + binary_op_symbol(op) + "'");
  return checked(log_, a.span, [&] { return Binary::make(op, x.e, y.e, a.span); });
}

std::optional<DataType> Elaborator::cast_type(const Ast& a) {
  auto t = DataType::parse(a.name);
  if (!t || t->is_handle()) return std::nullopt;
  if (dialect_ == Dialect::Tir) return t;
  if (t->is_vector()) return std::nullopt;
  if (*t == DataType::f16()) fail(a.span, "f16 is not supported yet");
  return t;
}

int Elaborator::lanes_arg(const Ast& a) {
  if (a.kind != Ast::Kind::Literal || a.is_float || a.negative || a.suffix || a.magnitude < 2 ||
      a.magnitude > 4096)
    fail(a.start, "lanes must be an integer literal between 2 and 4096");
  return static_cast<int>(a.magnitude);
}

Elaborator::Val Elaborator::call(const Ast& a, std::optional<DataType> hint) {
  const std::string& n = a.name;
  auto arity = [&](size_t k) {
    if (a.args.size() != k)
      fail(a.span, "'" + n + "' takes " + plural(k, "argument", "arguments") + ", got " +
                       std::to_string(a.args.size()));
  };
  auto args = [&](size_t i) -> const Ast& { return *a.args[i]; };
  if (auto t = cast_type(a)) {
    arity(1);
    Val v = elab(args(0), std::nullopt);
    // .dsp: a literal that the cast's dtype can hold becomes a literal of that dtype
    // (f64(0.1) keeps its precision). Any other literal is read at 64 bits and converted like
    // any value: u8(-1) is 255, i8(300) is 44, i32(2.7) is 2.
    if (!v.e && dialect_ == Dialect::Dsp) {
      bool fits = t->is_float() || (!v.lit.is_float && t->fits(v.lit.magnitude, v.lit.negative));
      if (fits) return Val{coerce(v.lit, *t), {}};
      DataType wide = v.lit.is_float ? DataType::f64()
                      : DataType::i64().fits(v.lit.magnitude, v.lit.negative) ? DataType::i64()
                                                                                : DataType::u64();
      v = Val{coerce(v.lit, wide), {}};
    }
    Expr x = finalize(v, std::nullopt);
    return Val{checked(log_, a.span, [&] { return Cast::make(*t, x, a.span); }), {}};
  }
  if (n == "min" || n == "max") {
    arity(2);
    Val x = elab(args(0), hint), y = elab(args(1), hint);
    unify({&x, &y}, hint, a.span, "arguments of '" + n + "'");
    BinaryOp op = n == "min" ? BinaryOp::Min : BinaryOp::Max;
    return Val{checked(log_, a.span, [&] { return Binary::make(op, x.e, y.e, a.span); }), {}};
  }
  if (n == "abs") {
    arity(1);
    Expr x = build(args(0), hint);
    return Val{checked(log_, a.span, [&] { return Unary::make(UnaryOp::Abs, x, a.span); }), {}};
  }
  if (n == "count_leading_zeros" || n == "popcount") {
    arity(1);
    Expr x = build(args(0), hint);
    UnaryOp op = n == "popcount" ? UnaryOp::Popcount : UnaryOp::Clz;
    return Val{checked(log_, a.span, [&] { return Unary::make(op, x, a.span); }), {}};
  }
  if (n == "clamp") {
    arity(3);
    Val x = elab(args(0), hint), lo = elab(args(1), hint), hi = elab(args(2), hint);
    unify({&x, &lo, &hi}, hint, a.span, "arguments of 'clamp'");
    return Val{checked(log_, a.span,
                       [&] {
                         return Binary::make(BinaryOp::Min, Binary::make(BinaryOp::Max, x.e, lo.e, a.span),
                                             hi.e, a.span);
                       }),
               {}};
  }
  if (n == "select") {
    arity(3);
    Expr c = build(args(0));
    if (!c.dtype().is_bool())
      fail(args(0).start, "condition of 'select' must be bool, got " + c.dtype().str());
    Val t = branch(c, true, args(1), hint), f = branch(c, false, args(2), hint);
    unify({&t, &f}, hint, a.span, "branches of 'select'");
    return Val{checked(log_, a.span, [&] { return Select::make(c, t.e, f.e, a.span); }), {}};
  }
  if (dialect_ == Dialect::Tir && n == "ramp") {
    arity(3);
    Val base = elab(args(0), std::nullopt), stride = elab(args(1), std::nullopt);
    unify({&base, &stride}, std::nullopt, a.span, "arguments of 'ramp'");
    int lanes = lanes_arg(args(2));
    return Val{checked(log_, a.span, [&] { return Ramp::make(base.e, stride.e, lanes, a.span); }), {}};
  }
  if (dialect_ == Dialect::Tir && n == "broadcast") {
    arity(2);
    Expr v = build(args(0));
    int lanes = lanes_arg(args(1));
    return Val{checked(log_, a.span, [&] { return Broadcast::make(v, lanes, a.span); }), {}};
  }
  if (dialect_ == Dialect::Tir && (n == "vector_sum" || n == "vector_min" || n == "vector_max")) {
    arity(2);
    Expr v = build(args(0));
    const Ast& l = args(1);
    if (l.kind != Ast::Kind::Literal || l.is_float || l.negative || l.suffix || l.magnitude < 1 ||
        l.magnitude > 4096)
      fail(l.start, "lanes must be an integer literal between 1 and 4096");
    int lanes = static_cast<int>(l.magnitude);
    ReduceOp op = n == "vector_sum" ? ReduceOp::Sum : n == "vector_min" ? ReduceOp::Min : ReduceOp::Max;
    return Val{checked(log_, a.span, [&] { return VectorReduce::make(op, v, lanes, a.span); }), {}};
  }
  if (dialect_ == Dialect::Tir) {
    if (auto sig = lookup_intrinsic(n)) {
      if (!sig->rest || a.args.size() < sig->params.size()) arity(sig->params.size());
      std::vector<Expr> xs;
      for (size_t i = 0; i < a.args.size(); ++i)
        xs.push_back(build(args(i), i < sig->params.size() ? sig->params[i] : *sig->rest));
      return Val{checked(log_, a.span, [&] { return Call::make(CallKind::Intrinsic, n, xs, a.span); }), {}};
    }
  }
  fail(a.span, "unknown function '" + n + "'");
}

Expr Elaborator::extern_call(const Ast& a) {
  if (a.text == "call_func") {  // a function of the module: data handles only
    std::vector<Expr> xs;
    for (const auto& arg : a.args) xs.push_back(build(*arg, DataType::handle()));
    return checked(log_, a.span, [&] { return Call::make(CallKind::Func, a.name, xs, a.span); });
  }
  auto sig = lookup_extern(a.name);
  if (!sig) fail(a.span, "unknown extern function '" + a.name + "'");
  if (a.args.size() != sig->params.size())
    fail(a.span, "'" + a.name + "' takes " + plural(sig->params.size(), "argument", "arguments") + ", got " +
                     std::to_string(a.args.size()));
  std::vector<Expr> xs;
  for (size_t i = 0; i < a.args.size(); ++i) xs.push_back(build(*a.args[i], sig->params[i]));
  return checked(log_, a.span, [&] { return Call::make(CallKind::Extern, a.name, xs, a.span); });
}

Expr Elaborator::reduce(const Ast& a, std::optional<DataType> hint) {
  struct Pop {
    std::vector<std::pair<std::string, VarRef>>& v;
    size_t mark;
    ~Pop() { v.resize(mark); }
  } pop{reduce_vars_, reduce_vars_.size()};
  std::vector<ReduceAxis> axes;
  for (const auto& ax : a.axes) {
    if (ax.extent > kMaxSize)
      fail(ax.span, "reduction variable '" + ax.name + "' has extent " + std::to_string(ax.extent) +
                        ", more than the limit of " + std::to_string(kMaxSize));
    for (size_t i = 0; i < reduce_vars_.size(); ++i) {
      if (reduce_vars_[i].first != ax.name) continue;
      if (i >= pop.mark) fail(ax.span, "duplicate reduction variable '" + ax.name + "'");
      if (dialect_ == Dialect::Dsp)
        fail(ax.span, "reduction variable '" + ax.name + "' shadows an enclosing reduction variable");
    }
    VarRef v = VarNode::make(ax.name, DataType::i32(), ax.span);
    on_reduce_var(ax, v);
    reduce_vars_.emplace_back(ax.name, v);
    axes.push_back({v, static_cast<int64_t>(ax.extent)});
  }
  // A reduction over an empty domain (an axis of extent 0) is its operator's identity: 0 for a
  // sum, the dtype's largest value for a minimum (+inf for floats), its smallest for a maximum.
  // Its body is typed and checked as any other, but never runs, so its reads need no bounds.
  bool empty = false;
  for (auto& ax : axes)
    if (ax.extent == 0) {
      empty = true;
      ax.extent = 1;  // for Reduce::make's checks of the body's dtype
    }
  if (empty) ++empty_domain_;
  Expr source = build(*a.args[0], hint);
  if (empty) --empty_domain_;
  Expr r = checked(log_, a.span, [&] { return Reduce::make(a.rop, source, axes, a.span); });
  if (empty) return make_value(r.dtype(), reduce_init(a.rop, r.dtype()), a.span);
  return r;
}

}  // namespace dspc::frontend
