// Shared by the .dsp and TIR parsers: the error log, the token cursor, the expression syntax
// tree (ParserCommon.cpp) and the elaborator that types it and builds IR (ExprTyping.cpp).
//
// Expressions are parsed to a small syntax tree first and typed afterwards, because a
// reduction's variables are written after its body and a literal's dtype comes from the
// other operand.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/Diagnostics.h"
#include "compiler/frontend/Lexer.h"
#include "compiler/ir/IR.h"

namespace dspc::frontend {

// Expression depth (parentheses, operators, calls): enough for people in .dsp; TIR allows
// more, as passes build deeper expressions than anyone types.
inline constexpr int kMaxNesting = 256;
inline constexpr int kMaxTirNesting = 1024;
// Each intermediate stage nests one allocation level in the TIR; this keeps every pass's
// recursion shallow.
inline constexpr size_t kMaxStages = 1024;
inline constexpr int kMaxErrors = 50;  // a parse stops after this many errors
inline constexpr int kMaxImportDepth = 64;           // import "a" importing "b" importing ...
inline constexpr size_t kMaxImportBytes = 64 << 20;  // an imported file's size

// Errors of one parse. Errors found in different phases (syntax first, types later) are
// flushed sorted by location so that they read in source order.
class ErrorLog {
 public:
  void error(Span span, std::string message);
  void flush(Diagnostics& diag);
  // Moves `other`'s pending errors here, each message followed by `suffix` (an
  // instantiation's errors name the instantiation).
  void absorb(ErrorLog& other, const std::string& suffix);
  int total() const { return total_; }

 private:
  std::vector<std::pair<Span, std::string>> pending_;
  int total_ = 0;
};

// Thrown after an error has been logged (or when an earlier error already explains the
// failure) to abandon the current stage, statement or function.
struct Abort {};

// Runs `make`, an IR make() call, and reports an IRError it throws (a type error the
// checks before it did not catch) at `span`, then throws Abort.
template <class F>
auto checked(ErrorLog& log, Span span, F&& make) -> decltype(make()) {
  try {
    return make();
  } catch (const IRError& e) {
    log.error(span, e.what());
    throw Abort{};
  }
}

// Runs one whole parse, `parse(log)`, which returns a std::optional result, with `source` as
// the diagnostics' source unless the caller set one, and flushes its errors. Nothing escapes:
// an exception, or a failure that logged no error, is reported as an internal error in the
// parser (a compiler bug, exit code 2), so a failed parse always says why.
template <class F>
auto run_parser(const SourceFile& source, Diagnostics& diag, F&& parse) {
  const SourceFile* previous = diag.source();
  if (!previous) diag.set_source(&source);
  ErrorLog log;
  decltype(parse(log)) result;
  std::string internal;
  try {
    result = parse(log);
  } catch (const std::bad_alloc&) {
    internal = "out of memory";
  } catch (const std::exception& e) {
    internal = e.what();
  } catch (const Abort&) {
  }
  if (!internal.empty()) result.reset();
  if (!result && log.total() == 0 && internal.empty()) internal = "no diagnostic for a failure";
  log.flush(diag);
  if (!internal.empty()) diag.internal_error("the parser", source.path + ": " + internal);
  diag.set_source(previous);
  return result;
}

class TokenStream {
 public:
  TokenStream(std::vector<Token> tokens, ErrorLog& log) : tokens_(std::move(tokens)), log_(&log) {}

  const Token& peek(size_t k = 0) const { return tokens_[std::min(pos_ + k, tokens_.size() - 1)]; }
  const Token& next();
  const Token& token(size_t i) const { return tokens_[std::min(i, tokens_.size() - 1)]; }
  bool at(Tok k) const { return peek().kind == k; }
  bool at_word(const char* word) const { return peek().kind == Tok::Ident && peek().text == word; }
  bool accept(Tok k);
  // Consumes a token of kind k or reports "expected WHAT, found ..." and throws Abort.
  const Token& expect(Tok k, const std::string& what = "");
  [[noreturn]] void fail_expected(const std::string& what);
  [[noreturn]] void fail(Span span, std::string message);
  size_t pos() const { return pos_; }
  void seek(size_t pos) { pos_ = std::min(pos, tokens_.size() - 1); }  // to instantiate a generic func
  ErrorLog& log() { return *log_; }
  void set_log(ErrorLog& log) { log_ = &log; }

 private:
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  ErrorLog* log_;
};

struct ReduceAxisAst {
  std::string name;
  Span span;
  uint64_t extent = 0;
  Span extent_span;
};

struct Ast {
  enum class Kind : uint8_t { Literal, Bool, Name, Read, Call, Extern, Reduce, Unary, Binary };
  Kind kind = Kind::Literal;
  Span span;   // the token naming the node: operator, identifier or literal
  Span start;  // the node's first token
  int height = 1;
  std::string name;  // Name, Read, Call, Extern
  // Literal: magnitude and sign kept apart so that -128 fits i8.
  bool is_float = false;
  bool negative = false;
  uint64_t magnitude = 0;
  double fvalue = 0;
  std::optional<DataType> suffix;
  std::string text;
  bool bool_value = false;
  BinaryOp bop = BinaryOp::Add;
  UnaryOp uop = UnaryOp::Neg;
  ReduceOp rop = ReduceOp::Sum;
  std::vector<std::unique_ptr<Ast>> args;  // operands, indices, call arguments, reduction source
  std::vector<ReduceAxisAst> axes;
};
using AstPtr = std::unique_ptr<Ast>;

enum class Dialect : uint8_t { Dsp, Tir };

// The compile-time integer parameters of a generic func (`func f<H, W>(...)`, README "Generic
// functions") while its text is parsed: at its declaration (syntax only, no values) or at an
// instantiation (each parameter bound to a positive value).
struct GenericEnv {
  std::vector<std::string> names;
  const std::map<std::string, int64_t>* values = nullptr;  // null: syntax only
  bool has(const std::string& name) const {
    return std::find(names.begin(), names.end(), name) != names.end();
  }
};

// Parses one expression. In TIR a binary operator at the start of a line ends the
// expression, since statements there are one per line. With `generic`, a reduction extent may
// be a constant expression over the parameters (`sum(..., k: C / 4)`).
AstPtr parse_expr(TokenStream& ts, Dialect dialect, const GenericEnv* generic = nullptr);

// The value of a constant integer expression over a generic func's parameters: integer
// literals, parameters, `+ - * / %` (floor division and modulo), comparisons, `! && ||`
// (0 or 1), `min(a, b)`, `max(a, b)`, parentheses. Reports anything else, a division by zero
// and an overflow of i64 at its token and throws Abort. Syntax only (no values): checks the
// form and gives 1.
int64_t eval_generic(const Ast& a, const GenericEnv& env, TokenStream& ts);

// Replaces each name of a generic parameter in `a` by an integer literal of its value (a
// parameter in an expression stands for its value, as a literal does). Reports a reduction
// variable named like a parameter.
void substitute_generic(Ast& a, const GenericEnv& env, TokenStream& ts);

// Types an expression tree and builds IR. Subclasses resolve names.
class Elaborator {
 public:
  Elaborator(ErrorLog& log, Dialect dialect) : log_(log), dialect_(dialect) {}
  virtual ~Elaborator() = default;

  // A literal with no typed operand takes `hint` if given, else i32 (f32 for a float literal).
  Expr build(const Ast& a, std::optional<DataType> hint = std::nullopt);
  [[noreturn]] void fail(Span span, std::string message);

 protected:
  // Both report and throw Abort when the name is unknown.
  virtual VarRef find_var(const std::string& name, Span span) = 0;
  virtual Buffer find_buffer(const std::string& name, Span span) = 0;
  // Hooks for the .dsp checks (bounds, shadowing).
  virtual void on_load(const Ast& /*read*/, const Load& /*load*/) {}
  virtual void on_reduce_var(const ReduceAxisAst& /*axis*/, const VarRef& /*var*/) {}
  // Around each branch of a select: the branch runs only when `cond` is `taken`.
  virtual void enter_branch(const Expr& /*cond*/, bool /*taken*/) {}
  virtual void leave_branch() {}
  Dialect dialect() const { return dialect_; }
  // Above 0 while elaborating code that never runs: a stage without elements (an extent 0), or
  // the body of a reduction over an empty domain. Its reads need no bounds proof.
  int empty_domain_ = 0;

 private:
  struct Lit {
    bool is_float = false;
    bool negative = false;
    uint64_t magnitude = 0;
    double value = 0;
    std::string text;
    Span span;
  };
  struct Val {
    Expr e;  // null while an untyped literal
    Lit lit;
  };

  Val elab(const Ast& a, std::optional<DataType> hint);
  Expr finalize(const Val& v, std::optional<DataType> hint);
  Expr coerce(const Lit& lit, DataType t);
  void unify(const std::vector<Val*>& vals, std::optional<DataType> hint, Span at, const std::string& what);
  Expr read(const Ast& a);
  Val unary(const Ast& a, std::optional<DataType> hint);
  Expr binary(const Ast& a, std::optional<DataType> hint);
  Val call(const Ast& a, std::optional<DataType> hint);
  Val branch(const Expr& cond, bool taken, const Ast& a, std::optional<DataType> hint);
  Expr extern_call(const Ast& a);
  Expr reduce(const Ast& a, std::optional<DataType> hint);
  std::optional<DataType> cast_type(const Ast& a);
  int lanes_arg(const Ast& a);
  VarRef lookup_var(const std::string& name, Span span);

  ErrorLog& log_;
  Dialect dialect_;
  std::vector<std::pair<std::string, VarRef>> reduce_vars_;  // innermost last
};

std::string plural(size_t n, const char* one, const char* many);

// The elements of a constant tensor after its `=`: `[1.5, -2, 3]` (format_constant_values'
// form: numbers with an optional '-', `inf`, `nan`, and for bool also `true` and `false`),
// exactly `count` of them, as little-endian bytes. Reports a value that does not fit the
// dtype, a float for an integer dtype, or a wrong count (naming `what`), and throws Abort.
std::vector<uint8_t> parse_constant_values(TokenStream& ts, DataType t, uint64_t count, const std::string& what);

// Size limits: the runtime's allocation size and loop bounds are i32, so every tensor or
// buffer has at most kMaxSize bytes (hence, no element being smaller than a byte, at most as
// many elements), and every loop and reduction extent is at most kMaxSize.
inline constexpr uint64_t kMaxSize = INT32_MAX;
// The product of `extents`, saturated above 2^31 (so it cannot overflow).
uint64_t element_count(const std::vector<uint64_t>& extents);
// Why `what` (e.g. "tensor 'A'") is too large, or nullopt if it is not. Without a dtype
// (a stage before its body is typed) only the element count is checked.
std::optional<std::string> size_error(const std::string& what, uint64_t elements,
                                      std::optional<DataType> dtype);

}  // namespace dspc::frontend
