// The .dsp frontend: parse_dsp (grammar in docs/language.md).
//
// 1. Lex the whole file (bad bytes become Error tokens, reported where the parser meets them).
// 2. Per `func`, syntax: signature, each stage's index list and body (as an Ast), schedule
//    (one call per primitive, chains split). A syntax error in a stage skips to the next
//    stage; one in the signature skips the func.
// 3. Per `func`, meaning: parameters, then the set_scope calls (scopes must be known before
//    the stage buffers are made), then each stage in order: name, index extents, body typed
//    by the Elaborator, every tensor read checked against its extents by interval arithmetic
//    (IndexBounds.h), then the stage's size in bytes, which needs the body's dtype.
//    A stage whose check failed is "poisoned": reading it fails quietly, so one mistake
//    gives one error. Then the other primitives, which need the stages' loops
//    (DspSchedule.h); every primitive ends up on its stage, in source order.
// 4. Errors of a func are reported in source order.
#include <cctype>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "compiler/frontend/DspSchedule.h"
#include "compiler/frontend/GraphParser.h"
#include "compiler/arith/IndexBounds.h"
#include "compiler/frontend/Parser.h"
#include "compiler/frontend/ParserCommon.h"

namespace dspc {

namespace {

using namespace frontend;

// ---------------------------------------------------------------- syntax

struct Extent {
  uint64_t value;
  Span span;
  GenericExtent form;  // in a generic func, the extent as `mul * param + add`, if it has that form
};

struct ParamDecl {
  std::string name;
  Span span;
  std::string dtype;
  Span dtype_span;
  std::vector<Extent> extents;
};

struct IndexDecl {
  std::string name;
  Span span;
  std::optional<Extent> extent;
};

struct StageDecl {
  std::string name;
  Span span;
  std::vector<IndexDecl> indices;
  AstPtr body;
  bool ok = false;  // false after a syntax error
};

struct FuncDecl {
  std::string name;
  Span span;
  std::vector<std::pair<std::string, Span>> generic_params;  // `func f<H, W>`
  std::vector<ParamDecl> inputs, outputs;
  std::vector<StageDecl> stages;
  std::vector<SchedCall> schedule;
  bool truncated = false;  // the body was cut short by an error; its results may look uncomputed
};

class DspSyntax {
 public:
  // `values`: the parameters' values when instantiating a generic func (else its declaration
  // is parsed for syntax only).
  DspSyntax(TokenStream& ts, ErrorLog& log, const std::map<std::string, int64_t>* values = nullptr)
      : ts_(ts), log_(log), values_(values) {}

  // Parses a func whose `func` keyword is the current token; nullopt after a signature error.
  std::optional<FuncDecl> func() {
    FuncDecl f;
    env_.reset();
    try {
      ts_.next();
      const Token& name = ts_.expect(Tok::Ident, "function name");
      f.name = name.text;
      f.span = name.span;
      if (ts_.accept(Tok::Lt)) generic_params(f);
      ts_.expect(Tok::LParen);
      if (!ts_.at(Tok::RParen)) params(f.inputs);
      ts_.expect(Tok::RParen);
      ts_.expect(Tok::Arrow);
      ts_.expect(Tok::LParen);
      params(f.outputs);
      ts_.expect(Tok::RParen);
      ts_.expect(Tok::LBrace);
    } catch (const Abort&) {
      skip_to_func();
      return std::nullopt;
    }
    body(f);
    return f;
  }

  void skip_to_func() {
    while (!ts_.at(Tok::End) &&
           !((ts_.at_word("func") || ts_.at_word("graph") || ts_.at_word("import")) && ts_.peek().line_start))
      ts_.next();
  }

  // Reports "expected WHAT, found ..." at the current token without throwing.
  void log_expected(const std::string& what) {
    try {
      ts_.fail_expected(what);
    } catch (const Abort&) {
    }
  }

 private:
  // `<H, W>`, after the '<'.
  void generic_params(FuncDecl& f) {
    GenericEnv env;
    env.values = values_;
    do {
      const Token& p = ts_.expect(Tok::Ident, "parameter name");
      if (env.has(p.text)) ts_.fail(p.span, "duplicate parameter '" + p.text + "'");
      env.names.push_back(p.text);
      f.generic_params.emplace_back(p.text, p.span);
    } while (ts_.accept(Tok::Comma));
    ts_.expect(Tok::Gt, "',' or '>'");
    env_ = std::move(env);
  }

  // `e` as `mul * param + add` with at most one parameter (empty for none), or nullopt for
  // another form. Coefficients stay below 2^31 so that inference cannot overflow.
  std::optional<GenericExtent> affine(const Ast& e) {
    constexpr int64_t kLimit = INT32_MAX;
    auto small = [&](const GenericExtent& r) -> std::optional<GenericExtent> {
      if (r.mul < -kLimit || r.mul > kLimit || r.add < -kLimit || r.add > kLimit) return std::nullopt;
      return r;
    };
    switch (e.kind) {
      case Ast::Kind::Literal:
        if (e.is_float || e.suffix || e.magnitude > static_cast<uint64_t>(kLimit)) return std::nullopt;
        return GenericExtent{
            "", 0, e.negative ? -static_cast<int64_t>(e.magnitude) : static_cast<int64_t>(e.magnitude)};
      case Ast::Kind::Name:
        if (!env_->has(e.name)) return std::nullopt;
        return GenericExtent{e.name, 1, 0};
      case Ast::Kind::Binary: {
        auto a = affine(*e.args[0]), b = affine(*e.args[1]);
        if (!a || !b) return std::nullopt;
        if (e.bop == BinaryOp::Add || e.bop == BinaryOp::Sub) {
          if (!a->param.empty() && !b->param.empty() && a->param != b->param) return std::nullopt;
          int64_t s = e.bop == BinaryOp::Add ? 1 : -1;
          return small({a->param.empty() ? b->param : a->param, a->mul + s * b->mul, a->add + s * b->add});
        }
        if (e.bop == BinaryOp::Mul) {
          if (a->param.empty()) std::swap(a, b);
          if (!b->param.empty()) return std::nullopt;
          return small({a->param, a->mul * b->add, a->add * b->add});
        }
        return std::nullopt;
      }
      default: return std::nullopt;
    }
  }

  // In a generic func, a tensor or variable may not take a parameter's name.
  void not_param(const Token& t, const char* what) {
    if (env_ && env_->has(t.text))
      ts_.fail(t.span, std::string(what) + " '" + t.text + "' has the name of a parameter of the func");
  }

  void params(std::vector<ParamDecl>& out) {
    do {
      ParamDecl p;
      const Token& name = ts_.expect(Tok::Ident, "parameter name");
      not_param(name, "tensor");
      p.name = name.text;
      p.span = name.span;
      ts_.expect(Tok::Colon);
      const Token& dt = ts_.expect(Tok::Ident, "dtype");
      p.dtype = dt.text;
      p.dtype_span = dt.span;
      ts_.expect(Tok::LBracket);
      do {
        p.extents.push_back(extent());
      } while (ts_.accept(Tok::Comma));
      ts_.expect(Tok::RBracket);
      out.push_back(std::move(p));
    } while (ts_.accept(Tok::Comma));
  }

  Extent extent() {
    const Token& t = ts_.peek();
    if (env_) {  // a compile-time expression over the parameters
      Span at = t.span;
      AstPtr x = parse_expr(ts_, Dialect::Dsp);
      int64_t v = eval_generic(*x, *env_, ts_);
      if (v < 0 && values_) ts_.fail(at, "extent must not be negative, got " + std::to_string(v));
      GenericExtent form;
      if (auto a = affine(*x); a && !a->param.empty() && a->mul > 0) form = *a;
      return {values_ ? static_cast<uint64_t>(v) : 1, at, form};
    }
    if (t.kind != Tok::Int || t.suffix) ts_.fail_expected("extent");
    ts_.next();
    return {t.int_value, t.span, GenericExtent{}};
  }

  void body(FuncDecl& f) {
    for (;;) {
      if (log_.total() >= kMaxErrors) return;
      const Token& t = ts_.peek();
      if (t.kind == Tok::End) return log_expected("'}'");
      if (ts_.accept(Tok::RBrace)) return;
      if (ts_.accept(Tok::Semi)) continue;
      if (ts_.at_word("schedule") && ts_.peek(1).kind == Tok::LBrace) {
        schedule(f);
        if (ts_.accept(Tok::RBrace)) return;
        if (log_.total() < kMaxErrors) log_expected("'}' after the schedule");
        return skip_to_func();
      }
      if (ts_.at_word("func") && t.line_start) return log_expected("'}'");
      if (f.stages.size() >= kMaxStages) {
        log_.error(t.span, "function '" + f.name + "' has more than " + std::to_string(kMaxStages) +
                               " stages");
        f.truncated = true;
        return skip_to_func();
      }
      size_t start = ts_.pos();
      StageDecl& s = f.stages.emplace_back();
      try {
        stage(s);
        s.ok = true;
      } catch (const Abort&) {
        skip(start, Tok::LBracket);
      }
    }
  }

  void stage(StageDecl& s) {
    const Token& name = ts_.expect(Tok::Ident, "stage name or '}'");
    s.name = name.text;
    s.span = name.span;
    not_param(name, "stage");
    ts_.expect(Tok::LBracket);
    do {
      const Token& v = ts_.expect(Tok::Ident, "index variable");
      not_param(v, "index variable");
      IndexDecl idx{v.text, v.span, std::nullopt};
      if (ts_.accept(Tok::Colon)) idx.extent = extent();
      s.indices.push_back(idx);
    } while (ts_.accept(Tok::Comma));
    ts_.expect(Tok::RBracket);
    ts_.expect(Tok::Assign);
    s.body = parse_expr(ts_, Dialect::Dsp, env_ ? &*env_ : nullptr);
    if (env_) substitute_generic(*s.body, *env_, ts_);
  }

  void schedule(FuncDecl& f) {
    ts_.next();
    ts_.next();
    lines(f, true);
  }

  // `if (COND) { LINES } else if (COND) { LINES } else { LINES }` in a generic func's schedule:
  // the lines of the branch whose condition holds apply; every branch is checked for syntax.
  void if_lines(FuncDecl& f, bool keep) {
    struct Depth {
      int& d;
      explicit Depth(int& x) : d(++x) {}
      ~Depth() { --d; }
    } depth(if_depth_);
    if (if_depth_ > kMaxNesting) ts_.fail(ts_.peek().span, "schedule 'if' blocks are nested too deeply");
    ts_.next();
    ts_.expect(Tok::LParen);
    AstPtr c = parse_expr(ts_, Dialect::Dsp);
    ts_.expect(Tok::RParen);
    bool taken = eval_generic(*c, *env_, ts_) != 0;
    ts_.expect(Tok::LBrace, "'{'");
    lines(f, keep && taken);
    if (!ts_.at_word("else")) return;
    ts_.next();
    if (ts_.at_word("if") && ts_.peek(1).kind == Tok::LParen) return if_lines(f, keep && !taken);
    ts_.expect(Tok::LBrace, "'{' or 'if'");
    lines(f, keep && !taken);
  }

  // `require(COND)` in a generic func's schedule: an instantiation where COND is 0 is an error.
  void require(bool keep) {
    const Token& word = ts_.next();
    ts_.expect(Tok::LParen);
    size_t from = ts_.pos();
    AstPtr c = parse_expr(ts_, Dialect::Dsp);
    size_t to = ts_.pos();
    ts_.expect(Tok::RParen);
    bool holds = eval_generic(*c, *env_, ts_) != 0;
    if (!keep || !values_ || holds) return;
    std::string text;
    for (size_t i = from; i < to; ++i) {
      const Token& t = ts_.token(i);
      bool tight =
          i == from || t.kind == Tok::RParen || t.kind == Tok::Comma || ts_.token(i - 1).kind == Tok::LParen;
      text += (tight ? "" : " ") + t.text;
    }
    log_.error(word.span, "requirement '" + text + "' does not hold");
  }

  // A factor written as a compile-time expression (`W / 4`), in a generic func: its value,
  // as an integer token at the expression's start.
  SchedArg generic_arg() {
    Span at = ts_.peek().span;
    AstPtr x = parse_expr(ts_, Dialect::Dsp);
    int64_t v = eval_generic(*x, *env_, ts_);
    SchedArg a;
    a.negative = v < 0;
    a.tok.kind = Tok::Int;
    a.tok.span = at;
    a.tok.int_value = v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    a.tok.text = (v < 0 ? "-" : "") + std::to_string(a.tok.int_value);
    return a;
  }

  // Schedule lines up to the closing '}'; the calls are kept when `keep`.
  void lines(FuncDecl& f, bool keep) {
    for (;;) {
      if (log_.total() >= kMaxErrors) return;
      const Token& t = ts_.peek();
      if (t.kind == Tok::End) return log_expected("'}'");
      if (ts_.accept(Tok::RBrace)) return;
      if (ts_.accept(Tok::Semi)) continue;
      size_t start = ts_.pos();
      if (env_ && (ts_.at_word("if") || ts_.at_word("require")) && ts_.peek(1).kind == Tok::LParen) {
        try {
          if (ts_.at_word("if"))
            if_lines(f, keep);
          else
            require(keep);
        } catch (const Abort&) {
          skip(start, Tok::Dot);
        }
        continue;
      }
      try {
        const Token& target = ts_.expect(Tok::Ident, "stage name or '}'");
        ts_.expect(Tok::Dot);
        do {
          SchedCall c;
          const Token& prim = ts_.expect(Tok::Ident, "schedule primitive");
          c.target = target.text;
          c.target_span = target.span;
          c.prim = prim.text;
          c.prim_span = prim.span;
          c.lparen_span = ts_.expect(Tok::LParen).span;
          if (!ts_.at(Tok::RParen)) {
            do {
              const Token& t = ts_.peek();
              bool plain = t.kind == Tok::String ||
                           (t.kind == Tok::Ident && (!env_ || !env_->has(t.text)) &&
                            (ts_.peek(1).kind == Tok::Comma || ts_.peek(1).kind == Tok::RParen));
              if (env_ && !plain) {
                c.args.push_back(generic_arg());
                continue;
              }
              SchedArg a;
              a.negative = ts_.at(Tok::Minus) && ts_.peek(1).kind == Tok::Int;
              if (a.negative) ts_.next();
              Tok k = ts_.peek().kind;
              if (k != Tok::String && k != Tok::Int && k != Tok::Ident) ts_.fail_expected("argument");
              a.tok = ts_.next();
              c.args.push_back(std::move(a));
            } while (ts_.accept(Tok::Comma));
          }
          ts_.expect(Tok::RParen);
          if (keep) f.schedule.push_back(std::move(c));
        } while (ts_.accept(Tok::Dot));
      } catch (const Abort&) {
        skip(start, Tok::Dot);
      }
    }
  }

  // Error recovery: skips to the next item (a line starting with `NAME follow`, a `;`, or the
  // closing brace), consuming at least one token.
  void skip(size_t start, Tok follow) {
    int depth = 0;
    for (;;) {
      const Token& t = ts_.peek();
      if (t.kind == Tok::End) return;
      if (depth <= 0 && ts_.pos() > start) {
        if (ts_.accept(Tok::Semi) || t.kind == Tok::RBrace) return;
        if (t.line_start && t.kind == Tok::Ident &&
            (ts_.peek(1).kind == follow || t.text == "schedule" || t.text == "func"))
          return;
      }
      if (t.kind == Tok::LParen || t.kind == Tok::LBracket || t.kind == Tok::LBrace) ++depth;
      if (t.kind == Tok::RParen || t.kind == Tok::RBracket || t.kind == Tok::RBrace) --depth;
      ts_.next();
    }
  }

  TokenStream& ts_;
  ErrorLog& log_;
  const std::map<std::string, int64_t>* values_;
  std::optional<GenericEnv> env_;  // in a generic func
  int if_depth_ = 0;               // nested `if` and `else if` in a schedule (bounded, as recursion)
};

// ---------------------------------------------------------------- meaning

enum class ParamKind { Input, Output };

class FuncChecker;

class StageElaborator : public Elaborator {
 public:
  StageElaborator(FuncChecker& fc, size_t stage,
                  const std::vector<std::pair<std::string, VarRef>>& index_vars, ErrorLog& log)
      : Elaborator(log, Dialect::Dsp), fc_(fc), stage_(stage), index_vars_(index_vars) {}
  // A stage without elements: its expression is checked, but never runs.
  void set_empty(bool empty) { empty_domain_ = empty ? 1 : 0; }

 protected:
  VarRef find_var(const std::string& name, Span span) override;
  Buffer find_buffer(const std::string& name, Span span) override;
  void on_load(const Ast& read, const Load& load) override;
  void on_reduce_var(const ReduceAxisAst& axis, const VarRef& var) override;
  void enter_branch(const Expr& cond, bool taken) override;
  void leave_branch() override;

 private:
  FuncChecker& fc_;
  size_t stage_;
  const std::vector<std::pair<std::string, VarRef>>& index_vars_;
  IndexBounds::Undo undo_;  // how to leave the select branches being elaborated
  std::vector<size_t> marks_;
};

class FuncChecker {
 public:
  FuncChecker(const FuncDecl& f, ErrorLog& log) : f_(f), log_(log) {}

  std::optional<TensorFunc> run() {
    int errors = log_.total();
    out_.name = f_.name;
    out_.span = f_.span;
    for (const auto& p : f_.inputs) param(p, ParamKind::Input);
    for (const auto& p : f_.outputs) param(p, ParamKind::Output);
    for (size_t i = 0; i < f_.stages.size(); ++i)
      if (!f_.stages[i].name.empty()) first_stage_.emplace(f_.stages[i].name, i);
    for (size_t n = 0; n < f_.schedule.size(); ++n)
      if (schedule_kind_named(f_.schedule[n].prim) == ScheduleKind::SetScope && set_scope(f_.schedule[n]))
        scope_calls_.insert(n);
    for (size_t i = 0; i < f_.stages.size(); ++i) {
      if (log_.total() >= kMaxErrors) return std::nullopt;
      stage(i);
    }
    ScheduleScope scope;
    for (const auto& [name, kind] : kinds_) {
      scope.tensors.insert(name);
      if (kind == ParamKind::Input) scope.inputs.insert(name);
    }
    for (const auto& [name, index] : first_stage_) {
      scope.tensors.insert(name);
      scope.stage_names.insert(name);
    }
    scope.stage_index = stage_index_;
    check_schedule(f_.schedule, scope_calls_, scope, out_.stages, log_);
    for (const auto& p : f_.outputs)
      if (!f_.truncated && !computed_.count(p.name) && !poisoned_.count(p.name) && outputs_.count(p.name))
        log_.error(p.span, "result '" + p.name + "' is not computed by any stage");
    if (log_.total() != errors) return std::nullopt;
    return std::move(out_);
  }

  Buffer read_buffer(const std::string& name, Span span, size_t stage) {
    if (poisoned_.count(name)) throw Abort{};
    if (auto it = inputs_.find(name); it != inputs_.end()) return it->second;
    if (auto it = computed_.find(name); it != computed_.end()) return it->second;
    const std::string& me = f_.stages[stage].name;
    if (name == me) fail(span, "stage '" + me + "' reads itself");
    if (first_stage_.count(name))
      fail(span, "stage '" + me + "' reads '" + name + "', which is computed later");
    if (outputs_.count(name)) throw Abort{};  // reported as "not computed by any stage"
    fail(span, "unknown tensor '" + name + "'");
  }

  bool is_tensor(const std::string& name) const { return kinds_.count(name) || first_stage_.count(name); }

  IndexBounds bounds;

 private:
  [[noreturn]] void fail(Span span, std::string message) {
    log_.error(span, std::move(message));
    throw Abort{};
  }

  // The extents of tensor `name`, or nullopt after reporting a zero extent or a size over the
  // limits. A stage's dtype comes from its body, so its bytes are checked after the body.
  std::optional<std::vector<int64_t>> shape(const std::string& name, Span span,
                                            const std::vector<Extent>& extents,
                                            std::optional<DataType> dtype) {
    std::vector<uint64_t> values;
    for (const auto& e : extents) {
      values.push_back(e.value);  // 0: a tensor without elements
    }
    if (auto message = size_error("tensor '" + name + "'", element_count(values), dtype)) {
      log_.error(span, std::move(*message));
      return std::nullopt;
    }
    return std::vector<int64_t>(values.begin(), values.end());
  }

  void param(const ParamDecl& p, ParamKind kind) {
    if (kinds_.count(p.name)) return log_.error(p.span, "duplicate parameter '" + p.name + "'");
    kinds_[p.name] = kind;
    poisoned_.insert(p.name);
    static const std::set<std::string> kDtypes = {"i8",  "i16", "i32", "i64", "u8",  "u16",
                                                  "u32", "u64", "f32", "f64", "bool"};
    if (p.dtype == "f16") return log_.error(p.dtype_span, "f16 is not supported yet");
    if (!kDtypes.count(p.dtype)) return log_.error(p.dtype_span, "unknown dtype '" + p.dtype + "'");
    DataType dtype = *DataType::parse(p.dtype);
    auto extents = shape(p.name, p.span, p.extents, dtype);
    if (!extents) return;
    Buffer b = BufferNode::make(p.name, dtype, *extents, StorageScope::Global, p.span);
    poisoned_.erase(p.name);
    (kind == ParamKind::Input ? inputs_ : outputs_)[p.name] = b;
    (kind == ParamKind::Input ? out_.inputs : out_.outputs).push_back(b);
  }

  // Checks a set_scope call and records its scope; false after an error.
  bool set_scope(const SchedCall& c) {
    auto error = [&](Span span, std::string message) {
      log_.error(span, std::move(message));
      return false;
    };
    if (auto k = kinds_.find(c.target); k != kinds_.end())
      return error(c.target_span, std::string("cannot set the scope of ") +
                                      (k->second == ParamKind::Input ? "parameter '" : "result '") + c.target +
                                      "'");
    if (!first_stage_.count(c.target)) {
      // A stage that cache_read or cache_write adds (A_vtcm, C_global, C_vtcm_2, ...) gets the
      // scope that primitive names, which set_scope cannot change.
      for (const SchedCall& cache : f_.schedule) {
        std::optional<ScheduleKind> kind = schedule_kind_named(cache.prim);
        if (!kind || schedule_role(*kind) != ScheduleRole::Rewrite) continue;
        std::string base = kind == ScheduleKind::CacheWrite || cache.args.empty() ? cache.target : cache.args[0].tok.text;
        for (const char* suffix : {"_vtcm", "_global"})
          if (c.target.rfind(base + suffix, 0) == 0)
            return error(c.target_span, "cannot set the scope of '" + c.target + "': " + cache.prim +
                                            " makes it in the scope it names; change that scope instead");
      }
      return error(c.target_span, "unknown stage '" + c.target + "' in schedule");
    }
    if (c.args.size() != 1 || c.args[0].tok.kind != Tok::String || c.args[0].negative)
      return error(c.args.empty() ? c.lparen_span : c.args[0].tok.span,
                   schedule_usage(ScheduleKind::SetScope));
    const std::string& s = c.args[0].tok.text;
    auto scope = parse_storage_scope(s);
    if (!scope || !is_schedulable_scope(*scope))
      return error(c.args[0].tok.span, "unknown scope '" + s + "' (expected " + schedulable_scope_names() + ")");
    scopes_[c.target] = *scope;
    return true;
  }

  void stage(size_t i) {
    const StageDecl& s = f_.stages[i];
    if (s.name.empty()) return;
    auto kind = kinds_.find(s.name);
    bool is_input = kind != kinds_.end() && kind->second == ParamKind::Input;
    if (s.ok && is_input) return log_.error(s.span, "cannot assign to input '" + s.name + "'");
    if (s.ok && defined_.count(s.name))
      return log_.error(s.span, "'" + s.name + "' is already computed by an earlier stage");
    if (is_input || defined_.count(s.name)) return;
    defined_.insert(s.name);
    try {
      if (!s.ok) throw Abort{};
      check_stage(i, kind != kinds_.end());
    } catch (const Abort&) {
      poisoned_.insert(s.name);
    }
  }

  void check_stage(size_t i, bool is_result) {
    const StageDecl& s = f_.stages[i];
    if (is_result && !outputs_.count(s.name)) throw Abort{};  // its declaration was wrong
    bounds.refuel();
    std::vector<std::pair<std::string, VarRef>> vars;
    for (size_t d = 0; d < s.indices.size(); ++d)
      for (size_t e = 0; e < d; ++e)
        if (s.indices[e].name == s.indices[d].name)
          fail(s.indices[d].span, "duplicate index variable '" + s.indices[d].name + "'");
    Buffer out;
    std::vector<int64_t> extents;
    if (is_result) {
      out = outputs_.at(s.name);
      if (s.indices.size() != out->shape.size())
        fail(s.span, "result '" + s.name + "' has " + plural(out->shape.size(), "dimension", "dimensions") +
                         " but the stage has " + plural(s.indices.size(), "index", "indices"));
      for (size_t d = 0; d < s.indices.size(); ++d) {
        const auto& e = s.indices[d].extent;
        if (e && e->value != static_cast<uint64_t>(out->shape[d]))
          fail(e->span, "extent " + std::to_string(e->value) + " does not match the extent " +
                            std::to_string(out->shape[d]) + " of result '" + s.name + "' in dimension " +
                            std::to_string(d));
      }
      extents = out->shape;
    } else {
      std::vector<Extent> given;
      for (const auto& idx : s.indices) {
        if (!idx.extent)
          fail(idx.span,
               "missing extent for index '" + idx.name + "' of intermediate stage '" + s.name + "'");
        given.push_back(*idx.extent);
      }
      auto e = shape(s.name, s.span, given, std::nullopt);
      if (!e) throw Abort{};
      extents = *e;
    }
    for (size_t d = 0; d < s.indices.size(); ++d) {
      VarRef v = VarNode::make(s.indices[d].name, DataType::i32(), s.indices[d].span);
      bounds.set(v.get(), {0, extents[d] - 1});
      vars.emplace_back(s.indices[d].name, v);
    }
    StageElaborator el(*this, i, vars, log_);
    el.set_empty(std::count(extents.begin(), extents.end(), int64_t(0)) != 0);
    Expr body = el.build(*s.body, is_result ? std::optional<DataType>(out->dtype) : std::nullopt);
    if (is_result && body.dtype() != out->dtype)
      fail(s.body->start, "result '" + s.name + "' has dtype " + out->dtype.str() +
                              " but its expression has dtype " + body.dtype().str() + " (use a cast, e.g. " +
                              out->dtype.str() + "(...))");
    if (!is_result) {
      std::vector<uint64_t> sizes(extents.begin(), extents.end());
      if (auto message = size_error("tensor '" + s.name + "'", element_count(sizes), body.dtype()))
        fail(s.span, std::move(*message));
      auto scope = scopes_.find(s.name);
      out = BufferNode::make(s.name, body.dtype(), extents,
                             scope == scopes_.end() ? StorageScope::Global : scope->second, s.span);
    }
    Stage st;
    st.out = out;
    for (const auto& [n, v] : vars) st.index_vars.push_back(v);
    st.body = body;
    st.is_result = is_result;
    st.span = s.span;
    stage_index_[s.name] = out_.stages.size();
    out_.stages.push_back(std::move(st));
    computed_[s.name] = out;
  }

  const FuncDecl& f_;
  ErrorLog& log_;
  TensorFunc out_;
  std::map<std::string, ParamKind> kinds_;
  std::map<std::string, Buffer> inputs_, outputs_, computed_;
  std::set<std::string> poisoned_;  // names whose definition failed: reading them fails quietly
  std::set<std::string> defined_;   // stage names seen so far
  std::map<std::string, size_t> first_stage_;
  std::map<std::string, StorageScope> scopes_;
  std::set<size_t> scope_calls_;                 // the set_scope calls that passed their checks
  std::map<std::string, size_t> stage_index_;   // checked stages, by name, in out_.stages
};

VarRef StageElaborator::find_var(const std::string& name, Span span) {
  for (const auto& [n, v] : index_vars_)
    if (n == name) return v;
  if (fc_.is_tensor(name)) fail(span, "tensor '" + name + "' needs indices, e.g. " + name + "[i]");
  fail(span, "unknown variable '" + name + "'");
}

Buffer StageElaborator::find_buffer(const std::string& name, Span span) {
  return fc_.read_buffer(name, span, stage_);
}

void StageElaborator::on_reduce_var(const ReduceAxisAst& axis, const VarRef& var) {
  for (const auto& [n, v] : index_vars_)
    if (n == axis.name) fail(axis.span, "reduction variable '" + n + "' shadows index variable '" + n + "'");
  fc_.bounds.set(var.get(), {0, static_cast<i128>(axis.extent) - 1});
}

void StageElaborator::enter_branch(const Expr& cond, bool taken) {
  marks_.push_back(undo_.size());
  fc_.bounds.narrow(cond, taken, undo_);
}

void StageElaborator::leave_branch() {
  fc_.bounds.restore(undo_, marks_.back());
  marks_.pop_back();
}

void StageElaborator::on_load(const Ast& read, const Load& load) {
  if (empty_domain_ > 0) return;  // never runs (a stage without elements, an empty reduction)
  for (size_t d = 0; d < load.indices.size(); ++d) {
    Interval r = fc_.bounds.of(load.indices[d]);
    int64_t extent = load.buffer->shape[d];
    // A tensor without elements has no index in bounds: only a read that never runs passes (a
    // select's branch whose condition leaves r empty, as in a concatenation with an empty
    // operand, `select(i < N, A[i], B[i - N])` with B of extent 0).
    if (r.lo >= 0 && r.hi < extent) continue;
    fail(read.args[d]->start, "index of " + load.buffer->name + " may be out of bounds: dimension " +
                                  std::to_string(d) + " has extent " + std::to_string(extent) +
                                  " but the index ranges over [" + format_i128(r.lo) + ", " +
                                  format_i128(r.hi) + "]");
  }
}

// A generic func: its declaration (checked for syntax), re-parsed at each instantiation with
// its parameters bound, from the token `pos` (its `func`).
struct GenericDecl : GenericSignature {
  Span span;
  TokenStream* ts = nullptr;  // the tokens of the file that declares it
  size_t pos = 0;
};

std::string show_instance(const std::string& name, const std::vector<int64_t>& args) {
  std::string s = name + "<";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + std::to_string(args[i]);
  return s + ">";
}

class ProgramParser : public GenericInstantiator {
 public:
  ProgramParser(const SourceFile& source, ErrorLog& log, Diagnostics& diag,
                const std::vector<FuncInstance>& requests, const std::vector<std::string>& import_dirs)
      : log_(log), diag_(diag), requests_(requests), import_dirs_(import_dirs) {
    streams_.emplace_back(lex(source.text), log);
    main_path_ = source.path;
    main_dir_ = source.path == "<stdin>" ? "." : std::filesystem::path(source.path).parent_path().string();
    if (main_dir_.empty()) main_dir_ = ".";
    std::error_code ec;
    if (source.path != "<stdin>") seen_.insert(std::filesystem::weakly_canonical(source.path, ec).string());
  }

  std::optional<TensorProgram> run() {
    if (streams_.front().at(Tok::End)) {
      log_.error(Span{1, 1}, "empty program: expected 'func'");
      return std::nullopt;
    }
    parse_file(streams_.front(), main_dir_, 0);
    if (log_.total() > 0) return std::nullopt;
    for (const FuncInstance& r : requests_) requested(r);
    if (log_.total() > 0) return std::nullopt;
    for (const GraphDecl& g : graphs_)
      if (auto checked = check_graph(g, program_, *this, log_))
        program_.graphs.push_back(std::move(*checked));
    if (log_.total() > 0) return std::nullopt;
    return std::move(program_);
  }

  // The top-level items of one file: imports (parsed at once, depth first), graphs (checked
  // once every func is known) and funcs.
  void parse_file(TokenStream& ts, const std::string& dir, int depth) {
    DspSyntax syntax(ts, log_);
    while (!ts.at(Tok::End) && log_.total() < kMaxErrors) {
      if (ts.at_word("import")) {
        import(ts, dir, depth);
        log_.flush(diag_);
        continue;
      }
      if (ts.at_word("graph")) {
        if (auto g = parse_graph_syntax(ts, log_)) {
          if (!names_.insert(g->name).second) duplicate(g->name, g->span);
          first_span_.emplace(g->name, g->span);
          graphs_.push_back(std::move(*g));
        }
        log_.flush(diag_);
        continue;
      }
      if (!ts.at_word("func")) {
        syntax.log_expected("'func', 'graph' or 'import'");
        ts.next();
        syntax.skip_to_func();
        continue;
      }
      size_t pos = ts.pos();
      std::optional<FuncDecl> f = syntax.func();
      if (f) {
        if (!names_.insert(f->name).second) duplicate(f->name, f->span);
        if (!f->generic_params.empty())
          declare_generic(*f, ts, pos);
        else if (auto tf = FuncChecker(*f, log_).run())
          program_.funcs.push_back(std::move(*tf));
        first_span_.emplace(f->name, f->span);
      }
      log_.flush(diag_);
    }
  }

  // `import "NAME"`: the file NAME (NAME.dsp when NAME has no extension) in the importing
  // file's directory, else in each import directory in order. A file is read once, however
  // often it is imported; its funcs and graphs join the program.
  void import(TokenStream& ts, const std::string& dir, int depth) {
    const Token& kw = ts.next();
    if (!ts.at(Tok::String)) {
      DspSyntax(ts, log_).log_expected("a library name in quotes after 'import' (import \"nn\")");
      DspSyntax(ts, log_).skip_to_func();
      return;
    }
    const Token& name = ts.next();
    Span at = name.span;
    (void)kw;
    if (name.text.empty()) return log_.error(at, "empty name in 'import'");
    if (depth >= kMaxImportDepth)
      return log_.error(at, "imports nest more than " + std::to_string(kMaxImportDepth) + " deep");
    namespace fs = std::filesystem;
    std::string file = name.text;
    if (fs::path(file).extension().empty()) file += ".dsp";
    std::vector<std::string> tried;
    std::vector<std::string> dirs;
    if (fs::path(file).is_absolute()) {
      dirs.push_back("");
    } else {
      dirs.push_back(dir);
      dirs.insert(dirs.end(), import_dirs_.begin(), import_dirs_.end());
    }
    std::error_code ec;
    for (const std::string& d : dirs) {
      fs::path path = d.empty() || d == "." ? fs::path(file) : fs::path(d) / file;
      tried.push_back(d.empty() ? file : d);
      if (!fs::is_regular_file(path, ec)) continue;
      std::string canonical = fs::weakly_canonical(path, ec).string();
      if (!seen_.insert(canonical).second) return;  // already read (or being read)
      uintmax_t size = fs::file_size(path, ec);
      if (ec || size > kMaxImportBytes)
        return log_.error(at, ec ? "cannot read '" + path.string() + "' to import: " + ec.message()
                                 : "'" + path.string() + "' is larger than " + std::to_string(kMaxImportBytes >> 20) +
                                       " MiB, too large to import");
      std::ifstream in(path, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      if (!in && !in.eof()) return log_.error(at, "cannot read '" + path.string() + "' to import");
      uint32_t id = diag_.add_imported({path.string(), text.str()});
      std::vector<Token> tokens = lex(text.str());
      for (Token& t : tokens) t.span.file = id;
      TokenStream& sub = streams_.emplace_back(std::move(tokens), log_);
      std::string sub_dir = path.parent_path().string();
      parse_file(sub, sub_dir.empty() ? "." : sub_dir, depth + 1);
      return;
    }
    std::string where;
    for (const std::string& t : tried) where += (where.empty() ? "" : ", ") + t;
    log_.error(at, "cannot find '" + file + "' to import (looked in " + where +
                       "; add a directory with -I DIR)");
  }

  // "duplicate function", with where the first one is when either is in an imported file.
  void duplicate(const std::string& name, Span span) {
    auto it = first_span_.find(name);
    std::string first;
    if (it != first_span_.end() && (it->second.file != 0 || span.file != 0)) {
      Span f = it->second;
      std::string path = f.file == 0 ? main_path_ : diag_.imported()[f.file - 1].path;
      first = " (first defined at " + path + ":" + std::to_string(f.line) + ":" + std::to_string(f.col) + ")";
    }
    log_.error(span, "duplicate function '" + name + "'" + first);
  }

  const GenericSignature* generic(const std::string& name) override {
    auto it = generics_.find(name);
    return it == generics_.end() ? nullptr : &it->second;
  }

  std::optional<std::string> instantiate(const std::string& name, const std::vector<int64_t>& args,
                                         Span at) override {
    const GenericDecl& g = generics_.at(name);
    // The call's file is named when it is not the func's.
    std::string file = at.file == g.span.file ? "line "
                       : at.file == 0         ? main_path_ + ":"
                                              : diag_.imported()[at.file - 1].path + ":";
    return instantiate(g, args, at, ", called at " + file + std::to_string(at.line) + ":" + std::to_string(at.col));
  }

 private:
  void declare_generic(const FuncDecl& f, TokenStream& ts, size_t pos) {
    GenericDecl g;
    g.name = f.name;
    g.span = f.span;
    g.ts = &ts;
    g.pos = pos;
    for (const auto& [p, span] : f.generic_params) g.params.push_back(p);
    for (const ParamDecl& in : f.inputs) {
      g.input_names.push_back(in.name);
      auto& dims = g.input_dims.emplace_back();
      for (const Extent& e : in.extents) dims.push_back(e.form);
    }
    program_.generics.push_back({g.name, g.params, g.span});
    generics_.emplace(g.name, std::move(g));
  }

  // An instantiation the caller asked for (`--func='f<3, 4>'`, or the C++ API).
  void requested(const FuncInstance& r) {
    std::string shown = show_instance(r.name, r.args);
    auto it = generics_.find(r.name);
    if (it == generics_.end()) {
      for (const TensorFunc& f : program_.funcs)
        if (f.name == r.name)
          return log_.error(
              f.span, "'" + r.name + "' is not a generic func, so '" + shown + "' cannot instantiate it");
      std::string known;
      for (const auto& [n, g] : generics_) known += (known.empty() ? "" : ", ") + n;
      return log_.error(Span{}, "no generic func '" + r.name + "' to instantiate as '" + shown +
                                    "' (generic funcs: " + (known.empty() ? "none" : known) + ")");
    }
    const GenericDecl& g = it->second;
    if (r.args.size() != g.params.size()) {
      std::string params;
      for (const auto& p : g.params) params += (params.empty() ? "" : ", ") + p;
      return log_.error(g.span, "'" + g.name + "' takes " +
                                    plural(g.params.size(), "parameter", "parameters") + " <" + params +
                                    ">, but '" + shown + "' gives " + std::to_string(r.args.size()));
    }
    for (size_t i = 0; i < r.args.size(); ++i)
      if (r.args[i] < 0 || static_cast<uint64_t>(r.args[i]) > kMaxSize)
        return log_.error(g.span, "parameter '" + g.params[i] + "' of '" + shown +
                                      "' must be a whole number from 0 to 2^31 - 1, got " +
                                      std::to_string(r.args[i]));
    instantiate(g, r.args, g.span, ", requested by --func or the API");
  }

  std::optional<std::string> instantiate(const GenericDecl& g, const std::vector<int64_t>& args, Span at,
                                         const std::string& where) {
    std::string mangled = mangled_name({g.name, args});
    if (auto it = done_.find(mangled); it != done_.end()) {
      if (it->second) return mangled;
      return std::nullopt;
    }
    done_[mangled] = false;
    std::string shown = show_instance(g.name, args);
    if (names_.count(mangled)) {
      log_.error(at, "the instantiation '" + shown + "' is named '" + mangled +
                         "', which is already the name of a function of the file");
      return std::nullopt;
    }
    for (int64_t a : args)
      if (a < 0 || static_cast<uint64_t>(a) > kMaxSize) {
        log_.error(at, "'" + shown + "': a parameter must be a whole number from 0 to 2^31 - 1");
        return std::nullopt;
      }
    std::map<std::string, int64_t> values;
    for (size_t i = 0; i < g.params.size(); ++i) values[g.params[i]] = args[i];
    ErrorLog sub;
    TokenStream& ts = *g.ts;
    size_t saved = ts.pos();
    ts.seek(g.pos);
    ts.set_log(sub);
    std::optional<TensorFunc> tf;
    try {
      DspSyntax syntax(ts, sub, &values);
      if (std::optional<FuncDecl> f = syntax.func()) {
        f->name = mangled;
        tf = FuncChecker(*f, sub).run();
      }
    } catch (const Abort&) {
    }
    ts.set_log(log_);
    ts.seek(saved);
    if (sub.total() > 0 || !tf) {
      if (sub.total() == 0) sub.error(at, "cannot instantiate '" + shown + "'");
      log_.absorb(sub, " (in " + shown + where + ")");
      return std::nullopt;
    }
    tf->span = g.span;
    program_.funcs.push_back(std::move(*tf));
    names_.insert(mangled);
    done_[mangled] = true;
    return mangled;
  }

  ErrorLog& log_;
  Diagnostics& diag_;
  const std::vector<FuncInstance>& requests_;
  const std::vector<std::string>& import_dirs_;
  std::deque<TokenStream> streams_;  // the file's tokens, then each imported file's
  std::string main_path_, main_dir_;
  std::set<std::string> seen_;  // canonical paths of the files read
  std::vector<GraphDecl> graphs_;
  std::map<std::string, Span> first_span_;  // where each function name was first defined
  TensorProgram program_;
  std::set<std::string> names_;
  std::map<std::string, GenericDecl> generics_;
  std::map<std::string, bool> done_;  // instantiations by mangled name: whether they checked
};

std::optional<TensorProgram> parse_program(const SourceFile& source, ErrorLog& log, Diagnostics& diag,
                                           const std::vector<FuncInstance>& requests,
                                           const std::vector<std::string>& import_dirs) {
  return ProgramParser(source, log, diag, requests, import_dirs).run();
}

}  // namespace

std::optional<TensorProgram> parse_dsp(const SourceFile& source, Diagnostics& diag,
                                       const std::vector<FuncInstance>& instances,
                                       const std::vector<std::string>& import_dirs) {
  return run_parser(source, diag, [&](ErrorLog& log) {
    return parse_program(source, log, diag, instances, import_dirs);
  });
}

std::string mangled_name(const FuncInstance& instance) {
  std::string s = instance.name;
  for (int64_t a : instance.args) s += "_" + std::to_string(a);
  return s;
}

bool parse_func_instance(const std::string& text, FuncInstance& out, std::string& why) {
  size_t lt = text.find('<');
  out = {};
  out.name = text.substr(0, lt);
  bool ident = !out.name.empty() && !std::isdigit(static_cast<unsigned char>(out.name[0]));
  for (char c : out.name) ident &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  if (!ident) {
    why = "expected a function name before '<'";
    return false;
  }
  if (lt == std::string::npos) return true;
  if (text.back() != '>') {
    why = "expected '>' at the end";
    return false;
  }
  std::string list = text.substr(lt + 1, text.size() - lt - 2);
  size_t i = 0;
  for (;;) {
    size_t comma = list.find(',', i);
    std::string item = list.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    bool digits = !item.empty() && item.size() <= 10;
    for (char c : item) digits &= std::isdigit(static_cast<unsigned char>(c)) != 0;
    int64_t v = digits ? std::stoll(item) : 0;
    if (!digits || v < 0 || v > INT32_MAX) {
      why = "argument " + std::to_string(out.args.size() + 1) +
            " must be a whole number from 0 to 2^31 - 1, got '" + item + "'";
      return false;
    }
    out.args.push_back(v);
    if (comma == std::string::npos) return true;
    i = comma + 1;
  }
}

}  // namespace dspc
