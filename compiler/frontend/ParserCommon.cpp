// The token cursor, the error log and expression parsing shared by the .dsp and TIR parsers
// (typing is in ExprTyping.cpp).
//
// parse_expr: precedence climbing over the C-like operator table into an Ast; nesting is
// bounded (recursion depth and tree height) so no input can exhaust the stack.
#include "compiler/frontend/ParserCommon.h"

#include <cmath>
#include <cstring>

namespace dspc::frontend {

// ---------------------------------------------------------------- errors and tokens

void ErrorLog::error(Span span, std::string message) {
  pending_.emplace_back(span, std::move(message));
  ++total_;
}

void ErrorLog::absorb(ErrorLog& other, const std::string& suffix) {
  for (auto& [span, message] : other.pending_) error(span, message + suffix);
  other.pending_.clear();
}

void ErrorLog::flush(Diagnostics& diag) {
  std::stable_sort(pending_.begin(), pending_.end(), [](const auto& a, const auto& b) {
    return a.first.line != b.first.line ? a.first.line < b.first.line : a.first.col < b.first.col;
  });
  for (const auto& [span, message] : pending_) diag.error(span, message);
  pending_.clear();
}

const Token& TokenStream::next() {
  const Token& t = tokens_[pos_];
  if (t.kind != Tok::End) ++pos_;
  return t;
}

bool TokenStream::accept(Tok k) {
  if (!at(k)) return false;
  next();
  return true;
}

const Token& TokenStream::expect(Tok k, const std::string& what) {
  if (at(k)) return next();
  fail_expected(what.empty() ? tok_name(k) : what);
}

void TokenStream::fail_expected(const std::string& what) {
  const Token& t = peek();
  if (t.kind == Tok::Error) fail(t.span, t.text);
  fail(t.span, "expected " + what + ", found " + describe_token(t));
}

void TokenStream::fail(Span span, std::string message) {
  log_->error(span, std::move(message));
  throw Abort{};
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::vector<uint8_t> parse_constant_values(TokenStream& ts, DataType t, uint64_t count, const std::string& what) {
  Span open = ts.expect(Tok::LBracket, "'[' (the constant's elements)").span;
  std::vector<uint8_t> out;
  size_t n = static_cast<size_t>(t.bytes());
  out.reserve(static_cast<size_t>(std::min<uint64_t>(count, uint64_t(1) << 24)) * n);
  uint64_t seen = 0;
  auto put = [&](uint64_t bits) {
    for (size_t k = 0; k < n; ++k) out.push_back(static_cast<uint8_t>(bits >> (8 * k)));
  };
  if (!ts.at(Tok::RBracket)) {
    do {
      const Token& first = ts.peek();
      bool negative = ts.accept(Tok::Minus);
      const Token& v = ts.peek();
      if (++seen > count)
        ts.fail(first.span, what + " has more elements than its shape holds (" + std::to_string(count) + ")");
      bool word = v.kind == Tok::Ident && (v.text == "inf" || v.text == "nan" || v.text == "true" || v.text == "false");
      if ((v.kind != Tok::Int && v.kind != Tok::Float && !word) || v.suffix)
        ts.fail_expected("a number (an element of " + what + ")");
      ts.next();
      if (t.is_float()) {
        double d = v.kind == Tok::Int     ? static_cast<double>(v.int_value)
                   : v.kind == Tok::Float ? v.float_value
                   : v.text == "inf"      ? HUGE_VAL
                   : v.text == "nan"      ? std::nan("")
                                          : -1;
        if (d < 0 && !std::isinf(d)) ts.fail(v.span, "'" + v.text + "' is not an element of " + t.str() + " " + what);
        if (negative) d = -d;
        if (t.bits == 32) {
          float f = static_cast<float>(d);
          if (std::isinf(f) && !std::isinf(d)) ts.fail(v.span, "'" + v.text + "' is out of range for f32");
          uint32_t b;
          std::memcpy(&b, &f, 4);
          put(b);
        } else {
          uint64_t b;
          std::memcpy(&b, &d, 8);
          put(b);
        }
        continue;
      }
      uint64_t magnitude = 0;
      if (v.kind == Tok::Int) magnitude = v.int_value;
      else if (t.is_bool() && (v.text == "true" || v.text == "false") && !negative) magnitude = v.text == "true";
      else ts.fail(v.span, "'" + v.text + "' is not an element of " + t.str() + " " + what);
      if (t.is_bool() ? (negative && magnitude) || magnitude > 1 : !t.fits(magnitude, negative))
        ts.fail(v.span, std::string(negative ? "-" : "") + v.text + " does not fit " + t.str() + " (" + what + ")");
      put(negative ? uint64_t(0) - magnitude : magnitude);
    } while (ts.accept(Tok::Comma));
  }
  Span close = ts.expect(Tok::RBracket, "',' or ']'").span;
  if (seen != count)
    ts.fail(seen ? close : open, what + " has " + plural(seen, "element", "elements") + ", but its shape holds " +
                                     std::to_string(count));
  return out;
}

// ---------------------------------------------------------------- sizes

namespace {
constexpr uint64_t kElementCap = uint64_t(1) << 31;
}

uint64_t element_count(const std::vector<uint64_t>& extents) {
  uint64_t n = 1;
  for (uint64_t e : extents) n = e > kElementCap || n * e > kElementCap ? kElementCap + 1 : n * e;
  return n;
}

std::optional<std::string> size_error(const std::string& what, uint64_t elements,
                                      std::optional<DataType> dtype) {
  // Past 2^31 elements the byte count is not worth computing (and may overflow).
  if (elements > kElementCap) return what + " is too large: more than 2^31 elements";
  if (!dtype) return std::nullopt;
  uint64_t bytes = elements * static_cast<uint64_t>(dtype->bytes());
  if (bytes <= kMaxSize) return std::nullopt;
  return what + " needs " + std::to_string(bytes) + " bytes, more than the limit of " +
         std::to_string(kMaxSize);
}

// ---------------------------------------------------------------- parsing

namespace {

// The infix operator a token spells; precedence comes from the IR's operator table.
std::optional<BinaryOp> infix_op(Tok k) {
  switch (k) {
    case Tok::PipePipe: return BinaryOp::Or;
    case Tok::AmpAmp: return BinaryOp::And;
    case Tok::Pipe: return BinaryOp::BitOr;
    case Tok::Caret: return BinaryOp::BitXor;
    case Tok::Amp: return BinaryOp::BitAnd;
    case Tok::EqEq: return BinaryOp::EQ;
    case Tok::Ne: return BinaryOp::NE;
    case Tok::Lt: return BinaryOp::LT;
    case Tok::Le: return BinaryOp::LE;
    case Tok::Gt: return BinaryOp::GT;
    case Tok::Ge: return BinaryOp::GE;
    case Tok::Shl: return BinaryOp::Shl;
    case Tok::Shr: return BinaryOp::Shr;
    case Tok::Plus: return BinaryOp::Add;
    case Tok::Minus: return BinaryOp::Sub;
    case Tok::Star: return BinaryOp::Mul;
    case Tok::Slash: return BinaryOp::Div;
    case Tok::Percent: return BinaryOp::Mod;
    default: return std::nullopt;
  }
}

class ExprParser {
 public:
  ExprParser(TokenStream& ts, Dialect d, const GenericEnv* generic)
      : ts_(ts), d_(d), max_nesting_(d == Dialect::Dsp ? kMaxNesting : kMaxTirNesting), generic_(generic) {}
  AstPtr binary(int min_prec);

 private:
  AstPtr unary();
  AstPtr primary();
  AstPtr call(const Token& name);
  AstPtr literal(const Token& t);

  AstPtr node(Ast::Kind k, const Token& t) {
    auto a = std::make_unique<Ast>();
    a->kind = k;
    a->span = a->start = t.span;
    a->name = t.text;
    return a;
  }
  void add(Ast& parent, AstPtr child) {
    parent.height = std::max(parent.height, child->height + 1);
    parent.args.push_back(std::move(child));
    if (parent.height > max_nesting_) ts_.fail(parent.span, "expression is too deeply nested");
  }

  TokenStream& ts_;
  Dialect d_;
  int max_nesting_;
  int depth_ = 0;
  const GenericEnv* generic_;
};

AstPtr ExprParser::binary(int min_prec) {
  AstPtr lhs = unary();
  for (;;) {
    const Token& t = ts_.peek();
    std::optional<BinaryOp> op = infix_op(t.kind);
    if (!op) return lhs;
    int p = binary_op_precedence(*op);
    if (p < min_prec) return lhs;
    if (d_ == Dialect::Tir && t.line_start) return lhs;
    AstPtr n = node(Ast::Kind::Binary, ts_.next());
    n->bop = *op;
    n->start = lhs->start;
    add(*n, std::move(lhs));
    add(*n, binary(p + 1));
    lhs = std::move(n);
  }
}

AstPtr ExprParser::unary() {
  struct Depth {
    int& d;
    explicit Depth(int& x) : d(++x) {}
    ~Depth() { --d; }
  } depth(depth_);
  const Token& t = ts_.peek();
  if (depth_ > max_nesting_) ts_.fail(t.span, "expression is too deeply nested");
  // -5 is one literal (so -128 fits i8), but -0 and -nan stay negations: no literal prints
  // that way, and the printer's output must read back to itself.
  const Token& n = ts_.peek(1);
  bool foldable =
      (n.kind == Tok::Int && n.int_value != 0) || (n.kind == Tok::Float && !std::isnan(n.float_value));
  if (t.kind == Tok::Minus && foldable) {
    ts_.next();
    AstPtr lit = literal(ts_.next());
    lit->negative = true;
    lit->span = lit->start = t.span;
    return lit;
  }
  if (t.kind == Tok::Minus || t.kind == Tok::Bang || t.kind == Tok::Tilde) {
    AstPtr n = node(Ast::Kind::Unary, ts_.next());
    n->uop = t.kind == Tok::Minus ? UnaryOp::Neg : t.kind == Tok::Bang ? UnaryOp::Not : UnaryOp::BitNot;
    add(*n, unary());
    return n;
  }
  return primary();
}

AstPtr ExprParser::literal(const Token& t) {
  AstPtr n = node(Ast::Kind::Literal, t);
  n->is_float = t.kind == Tok::Float;
  n->magnitude = t.int_value;
  n->fvalue = t.float_value;
  n->suffix = t.suffix;
  n->text = t.text;
  return n;
}

AstPtr ExprParser::primary() {
  const Token& t = ts_.peek();
  if (t.kind == Tok::Int || t.kind == Tok::Float) return literal(ts_.next());
  if (t.kind == Tok::LParen) {
    ts_.next();
    AstPtr e = binary(1);
    ts_.expect(Tok::RParen);
    e->start = t.span;
    return e;
  }
  if (t.kind != Tok::Ident) ts_.fail_expected("expression");
  ts_.next();
  if (t.text == "true" || t.text == "false") {
    AstPtr n = node(Ast::Kind::Bool, t);
    n->bool_value = t.text == "true";
    return n;
  }
  if (ts_.at(Tok::LParen)) return call(t);
  if (!ts_.at(Tok::LBracket)) return node(Ast::Kind::Name, t);
  AstPtr n = node(Ast::Kind::Read, t);
  ts_.next();
  do {
    add(*n, binary(1));
  } while (ts_.accept(Tok::Comma));
  ts_.expect(Tok::RBracket);
  return n;
}

AstPtr ExprParser::call(const Token& name) {
  ts_.next();  // '('
  if (d_ == Dialect::Tir && (name.text == "call_extern" || name.text == "call_func")) {
    AstPtr n = node(Ast::Kind::Extern, name);
    n->text = name.text;
    n->name = ts_.expect(Tok::String, name.text == "call_func" ? "function name" : "extern function name").text;
    while (ts_.accept(Tok::Comma)) add(*n, binary(1));
    ts_.expect(Tok::RParen);
    return n;
  }
  AstPtr n = node(Ast::Kind::Call, name);
  if (ts_.accept(Tok::RParen)) return n;
  add(*n, binary(1));
  bool is_sum = name.text == "sum";
  bool axes_follow = ts_.at(Tok::Comma) && ts_.peek(1).kind == Tok::Ident && ts_.peek(2).kind == Tok::Colon;
  if (is_sum || ((name.text == "min" || name.text == "max") && axes_follow)) {
    n->kind = Ast::Kind::Reduce;
    n->rop = is_sum ? ReduceOp::Sum : name.text == "min" ? ReduceOp::Min : ReduceOp::Max;
    ts_.expect(Tok::Comma);
    do {
      const Token& v = ts_.expect(Tok::Ident, "reduction variable");
      ts_.expect(Tok::Colon);
      const Token& e = ts_.peek();
      if (generic_) {
        Span at = e.span;
        AstPtr x = binary(1);
        int64_t value = eval_generic(*x, *generic_, ts_);
        if (value < 0 && generic_->values)
          ts_.fail(at, "reduction extent must not be negative, got " + std::to_string(value));
        n->axes.push_back({v.text, v.span, static_cast<uint64_t>(value), at});
        continue;
      }
      if (e.kind != Tok::Int || e.suffix) ts_.fail_expected("reduction extent");
      ts_.next();
      n->axes.push_back({v.text, v.span, e.int_value, e.span});
    } while (ts_.accept(Tok::Comma));
    ts_.expect(Tok::RParen);
    return n;
  }
  while (ts_.accept(Tok::Comma)) add(*n, binary(1));
  ts_.expect(Tok::RParen);
  return n;
}

}  // namespace

AstPtr parse_expr(TokenStream& ts, Dialect dialect, const GenericEnv* generic) {
  return ExprParser(ts, dialect, generic).binary(1);
}

int64_t eval_generic(const Ast& a, const GenericEnv& env, TokenStream& ts) {
  auto overflow = [&]() -> int64_t { ts.fail(a.span, "this compile-time expression overflows i64"); };
  switch (a.kind) {
    case Ast::Kind::Literal:
      if (a.is_float || a.suffix)
        ts.fail(a.span, "expected an integer in a compile-time expression, found '" + a.text + "'");
      if (a.magnitude > static_cast<uint64_t>(INT64_MAX)) return overflow();
      return a.negative ? -static_cast<int64_t>(a.magnitude) : static_cast<int64_t>(a.magnitude);
    case Ast::Kind::Name:
      if (!env.has(a.name))
        ts.fail(
            a.span, "unknown name '" + a.name +
                        "' in a compile-time expression (it may use the func's parameters " +
                        [&] {
                          std::string s;
                          for (const auto& n : env.names) s += (s.empty() ? "" : ", ") + n;
                          return s;
                        }() +
                        ")");
      return env.values ? env.values->at(a.name) : 1;
    case Ast::Kind::Unary: {
      int64_t x = eval_generic(*a.args[0], env, ts);
      if (a.uop == UnaryOp::Neg) return x == INT64_MIN ? overflow() : -x;
      if (a.uop == UnaryOp::Not) return x == 0;
      break;
    }
    case Ast::Kind::Call:
      if ((a.name == "min" || a.name == "max") && a.args.size() == 2) {
        int64_t x = eval_generic(*a.args[0], env, ts), y = eval_generic(*a.args[1], env, ts);
        return a.name == "min" ? std::min(x, y) : std::max(x, y);
      }
      break;
    case Ast::Kind::Binary: {
      int64_t x = eval_generic(*a.args[0], env, ts), y = eval_generic(*a.args[1], env, ts);
      int64_t r = 0;
      switch (a.bop) {
        case BinaryOp::Add: return __builtin_add_overflow(x, y, &r) ? overflow() : r;
        case BinaryOp::Sub: return __builtin_sub_overflow(x, y, &r) ? overflow() : r;
        case BinaryOp::Mul: return __builtin_mul_overflow(x, y, &r) ? overflow() : r;
        case BinaryOp::Div:
        case BinaryOp::Mod: {
          if (!env.values) return 1;
          if (y == 0) ts.fail(a.span, "division by zero in a compile-time expression");
          if (x == INT64_MIN && y == -1) return overflow();
          int64_t q = x / y, m = x % y;
          if (m != 0 && ((m < 0) != (y < 0))) --q, m += y;  // floor, as the language's / and %
          return a.bop == BinaryOp::Div ? q : m;
        }
        case BinaryOp::EQ: return x == y;
        case BinaryOp::NE: return x != y;
        case BinaryOp::LT: return x < y;
        case BinaryOp::LE: return x <= y;
        case BinaryOp::GT: return x > y;
        case BinaryOp::GE: return x >= y;
        case BinaryOp::And: return x != 0 && y != 0;
        case BinaryOp::Or: return x != 0 || y != 0;
        default: break;
      }
      break;
    }
    default: break;
  }
  ts.fail(a.start,
          "a compile-time expression holds integers, the func's parameters, + - * / %, comparisons, "
          "! && ||, min and max");
}

void substitute_generic(Ast& a, const GenericEnv& env, TokenStream& ts) {
  for (const auto& axis : a.axes)
    if (env.has(axis.name))
      ts.fail(axis.span, "reduction variable '" + axis.name + "' has the name of a parameter of the func");
  for (auto& c : a.args) substitute_generic(*c, env, ts);
  if (a.kind != Ast::Kind::Name || !env.has(a.name) || !env.values) return;
  a.kind = Ast::Kind::Literal;
  a.magnitude = static_cast<uint64_t>(env.values->at(a.name));
  a.text = std::to_string(a.magnitude);
}

}  // namespace dspc::frontend
