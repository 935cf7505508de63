// The TIR text frontend: parse_tir reads what print_module prints (format in Printer.h).
//
// 1. Per `prim_func`: the signature makes the parameter buffers; their data variables are in
//    scope too, as later TIR passes them to calls by name.
// 2. A block is a list of statements. `let` and `decl_buffer` scope the rest of their block,
//    so a block is assembled back to front, each of them wrapping what follows it.
// 3. Names are lexically scoped; variables and buffers live apart (`x` vs `x[...]`), since a
//    lowered VTCM buffer and its handle share a name.
// 4. The first error in a function abandons it; parsing resumes at the next `prim_func`.
#include <algorithm>

#include "compiler/frontend/Parser.h"
#include "compiler/frontend/ParserCommon.h"
#include "compiler/ir/Externs.h"
#include "compiler/ir/IRVisitor.h"

namespace dspc {

namespace {

using namespace frontend;

constexpr int kMaxStmtNesting = 1024;  // blocks plus the lets and decl_buffers they hold

struct Scopes {
  std::vector<std::pair<std::string, VarRef>> vars;
  std::vector<std::pair<std::string, Buffer>> buffers;

  struct Mark {
    size_t vars, buffers;
  };
  Mark mark() const { return {vars.size(), buffers.size()}; }
  void restore(Mark m) {
    vars.resize(m.vars);
    buffers.resize(m.buffers);
  }
  void add(const Buffer& b) {
    buffers.emplace_back(b->name, b);
    vars.emplace_back(b->name, b->data);
  }
};

class TirElaborator : public Elaborator {
 public:
  TirElaborator(ErrorLog& log, Scopes& scopes) : Elaborator(log, Dialect::Tir), scopes_(scopes) {}

  VarRef find_var(const std::string& name, Span span) override {
    for (auto it = scopes_.vars.rbegin(); it != scopes_.vars.rend(); ++it)
      if (it->first == name) return it->second;
    fail(span, "unknown variable '" + name + "'");
  }
  Buffer find_buffer(const std::string& name, Span span) override {
    for (auto it = scopes_.buffers.rbegin(); it != scopes_.buffers.rend(); ++it)
      if (it->first == name) return it->second;
    fail(span, "unknown buffer '" + name + "'");
  }

 private:
  Scopes& scopes_;
};

class TirParser {
 public:
  TirParser(TokenStream& ts, ErrorLog& log) : ts_(ts), log_(log), el_(log, scopes_) {}

  std::optional<Module> module() {
    if (ts_.at(Tok::End)) {
      log_.error(Span{1, 1}, "empty module: expected 'prim_func'");
      return std::nullopt;
    }
    Module m;
    while (!ts_.at(Tok::End) && log_.total() < kMaxErrors) {
      scopes_ = Scopes{};
      nesting_ = 0;
      try {
        if (ts_.at_word("constant")) {
          m.constants.push_back(constant());
          continue;
        }
        if (!m.constants.empty()) ts_.fail_expected("'constant' (constants follow every function)");
        if (ts_.at_word("packed_func")) {
          m.packed.push_back(packed_func());
          for (size_t i = 0; i + 1 < m.packed.size(); ++i)
            if (m.packed[i].name == m.packed.back().name || m.packed[i].kernel == m.packed.back().kernel)
              log_.error(m.packed.back().span, "duplicate packed entry '" + m.packed.back().name + "'");
          continue;
        }
        if (!m.packed.empty()) ts_.fail_expected("'packed_func' (packed entries follow every prim_func)");
        if (!ts_.at_word("prim_func")) ts_.fail_expected("'prim_func'");
        m.funcs.push_back(func());
        for (size_t i = 0; i + 1 < m.funcs.size(); ++i)
          if (m.funcs[i].name == m.funcs.back().name)
            log_.error(m.funcs.back().span, "duplicate function '" + m.funcs.back().name + "'");
      } catch (const Abort&) {
        if (!ts_.at(Tok::End)) ts_.next();
        while (!ts_.at(Tok::End) &&
               !((ts_.at_word("prim_func") || ts_.at_word("packed_func") || ts_.at_word("constant")) &&
                 ts_.peek().line_start))
          ts_.next();
      }
    }
    if (log_.total() > 0) return std::nullopt;
    for (const PackedFunc& p : m.packed) {
      bool wraps = std::any_of(m.funcs.begin(), m.funcs.end(), [&](const PrimFunc& f) { return f.name == p.kernel; });
      if (!wraps) log_.error(p.span, "packed entry '" + p.name + "' wraps '" + p.kernel + "', which is not a prim_func here");
    }
    check_calls(m);
    if (log_.total() > 0) return std::nullopt;
    return m;
  }

 private:
  // call_func(NAME, buffers..., ctx) calls a prim_func of this module with its buffers, then
  // the context: the callee must be here, and take that many.
  void check_calls(const Module& m) {
    struct Calls : IRVisitor {
      const Module* m = nullptr;
      ErrorLog* log = nullptr;
      void visit_Call(const Call* op) override {
        IRVisitor::visit_Call(op);
        if (op->call_kind == CallKind::Intrinsic && op->name == kConstantData) {
          const IntImm* k = op->args.empty() ? nullptr : as_int(op->args[0]);
          if (!k || k->value < 0 || static_cast<size_t>(k->value) >= m->constants.size())
            log->error(op->span, "constant_data(...) takes the index of one of the module's " +
                                     std::to_string(m->constants.size()) + " constants, as an integer literal");
          return;
        }
        if (op->call_kind != CallKind::Func) return;
        auto f = std::find_if(m->funcs.begin(), m->funcs.end(), [&](const PrimFunc& g) { return g.name == op->name; });
        if (f == m->funcs.end()) {
          log->error(op->span, "call_func(\"" + op->name + "\"): no prim_func '" + op->name + "' in this module");
          return;
        }
        size_t buffers = f->inputs.size() + f->outputs.size();
        if (op->args.size() != buffers + 1)
          log->error(op->span, "call_func(\"" + op->name + "\") passes " + std::to_string(op->args.size()) +
                                   " arguments; '" + op->name + "' takes " + std::to_string(buffers + 1) + " (its " +
                                   std::to_string(buffers) + " buffers, then the context)");
      }
    } calls;
    calls.m = &m;
    calls.log = &log_;
    for (const PrimFunc& f : m.funcs)
      if (f.body) calls.visit(f.body);
  }

  enum class ItemKind { Stmt, Let, Decl };
  struct Item {
    ItemKind kind = ItemKind::Stmt;
    Stmt stmt;
    VarRef var;
    Expr value;
    Buffer buffer;
    Span span;
  };

  Expr expr(std::optional<DataType> hint = std::nullopt) {
    AstPtr a = parse_expr(ts_, Dialect::Tir);
    return el_.build(*a, hint);
  }

  DataType dtype() {
    const Token& t = ts_.expect(Tok::Ident, "dtype");
    auto dt = DataType::parse(t.text);
    if (!dt) ts_.fail(t.span, "unknown dtype '" + t.text + "'");
    return *dt;
  }

  void expect_word(const char* w) {
    if (!ts_.at_word(w)) ts_.fail_expected(std::string("'") + w + "'");
    ts_.next();
  }

  // `N: DT[e, ...]` as a new buffer of the given scope.
  Buffer buffer_decl(const std::string& scope_word) {
    const Token& name = ts_.expect(Tok::Ident, "buffer name");
    ts_.expect(Tok::Colon);
    DataType dt = dtype();
    std::vector<uint64_t> extents;
    ts_.expect(Tok::LBracket);
    do {
      const Token& e = ts_.peek();
      if (e.kind != Tok::Int || e.suffix) ts_.fail_expected("extent");
      ts_.next();
      extents.push_back(e.int_value);
    } while (ts_.accept(Tok::Comma));
    ts_.expect(Tok::RBracket);
    // An extent 0 is a buffer without elements (0 bytes), as in .dsp.
    auto too_large = size_error("buffer '" + name.text + "'", element_count(extents), dt);
    if (too_large) ts_.fail(name.span, std::move(*too_large));
    std::vector<int64_t> shape;
    for (uint64_t e : extents) shape.push_back(static_cast<int64_t>(std::min<uint64_t>(e, INT64_MAX)));
    StorageScope scope = StorageScope::Global;
    if (!scope_word.empty()) {
      expect_word(scope_word.c_str());
      const std::string& text = ts_.expect(Tok::String, "scope string").text;
      auto parsed = parse_storage_scope(text);
      if (!parsed) ts_.fail(name.span, "unknown storage scope '" + text + "'");
      scope = *parsed;
    }
    return checked(ts_.log(), name.span,
                   [&] { return BufferNode::make(name.text, dt, shape, scope, name.span); });
  }

  // The extent of loop `var` starting at `min`. A literal one must fit in i32, and so must the
  // loop's end, min + extent, when min is a literal too: generated code computes it in i32.
  Expr loop_extent(const Token& var, const Expr& min) {
    AstPtr a = parse_expr(ts_, Dialect::Tir);
    if (a->kind == Ast::Kind::Literal && !a->is_float && !a->negative && a->magnitude > kMaxSize)
      ts_.fail(a->span, "loop extent " + std::to_string(a->magnitude) + " is more than the limit of " +
                            std::to_string(kMaxSize));
    Expr extent = el_.build(*a, DataType::i32());
    const IntImm* lo = as_int(min);
    const IntImm* n = as_int(extent);
    if (lo && n && min.dtype() == DataType::i32() && extent.dtype() == DataType::i32() &&
        lo->value + n->value > static_cast<int64_t>(kMaxSize))
      ts_.fail(a->start, "loop '" + var.text + "' ends at " + std::to_string(lo->value + n->value) +
                             " (min + extent), more than the limit of " + std::to_string(kMaxSize));
    return extent;
  }

  void params(std::vector<Buffer>& out) {
    ts_.expect(Tok::LParen);
    if (ts_.accept(Tok::RParen)) return;
    do {
      Span at = ts_.peek().span;
      Buffer b = buffer_decl("");
      for (const auto& [n, other] : scopes_.buffers)
        if (n == b->name) ts_.fail(at, "duplicate parameter '" + n + "'");
      scopes_.add(b);
      out.push_back(b);
    } while (ts_.accept(Tok::Comma));
    ts_.expect(Tok::RParen);
  }

  PrimFunc func() {
    ts_.next();
    PrimFunc f;
    const Token& name = ts_.expect(Tok::Ident, "function name");
    f.name = name.text;
    f.span = name.span;
    params(f.inputs);
    ts_.expect(Tok::Arrow);
    params(f.outputs);
    // `context(NAME: handle)`, the final parameter; when left out, a fresh one (ctx, or ctx_N
    // when a parameter has that name), so hand-written TIR may omit it.
    if (ts_.at_word("context")) {
      ts_.next();
      ts_.expect(Tok::LParen);
      f.ctx = scalar_param(DataType::handle(), "the context parameter");
      for (const auto& [n, other] : scopes_.buffers)
        if (n == f.ctx->name) ts_.fail(f.ctx->span, "duplicate parameter '" + n + "'");
      ts_.expect(Tok::RParen);
    } else {
      std::vector<std::string> names;
      for (const auto& [n, other] : scopes_.buffers) names.push_back(n);
      f.ctx = VarNode::make(context_param_name(names), DataType::handle(), name.span);
      scopes_.vars.emplace_back(f.ctx->name, f.ctx);
    }
    ts_.expect(Tok::LBrace);
    f.body = block();
    return f;
  }

  // `NAME: DT` as a scalar parameter (of a packed entry, or a function's context) of the dtype
  // it must have.
  // constant NAME: DTYPE[EXTENTS] = [ELEMENTS]
  ModuleConstant constant() {
    ts_.next();
    ModuleConstant c;
    const Token& name = ts_.expect(Tok::Ident, "constant name");
    c.name = name.text;
    ts_.expect(Tok::Colon);
    const Token& dt = ts_.expect(Tok::Ident, "dtype");
    std::optional<DataType> t = DataType::parse(dt.text);
    if (!t || t->is_handle() || t->is_vector() || dt.text == "f16") ts_.fail(dt.span, "unknown dtype '" + dt.text + "'");
    c.dtype = *t;
    ts_.expect(Tok::LBracket);
    std::vector<uint64_t> extents;
    do {
      const Token& e = ts_.peek();
      if (e.kind != Tok::Int || e.suffix || e.int_value > kMaxSize)
        ts_.fail_expected("an extent");  // 0: a constant without elements
      ts_.next();
      extents.push_back(e.int_value);
      c.shape.push_back(static_cast<int64_t>(e.int_value));
    } while (ts_.accept(Tok::Comma));
    ts_.expect(Tok::RBracket);
    uint64_t count = element_count(extents);
    if (auto m = size_error("constant '" + c.name + "'", count, c.dtype)) ts_.fail(name.span, *m);
    ts_.expect(Tok::Assign, "'=' and the constant's elements");
    c.data = std::make_shared<const std::vector<uint8_t>>(
        parse_constant_values(ts_, c.dtype, count, "constant '" + c.name + "'"));
    return c;
  }

  VarRef scalar_param(DataType want, const char* what = "this packed_func parameter") {
    const Token& name = ts_.expect(Tok::Ident, "parameter name");
    ts_.expect(Tok::Colon);
    const Token& t = ts_.peek();
    DataType dt = dtype();
    if (dt != want) ts_.fail(t.span, std::string(what) + " must be " + want.str() + ", got " + dt.str());
    for (const auto& [n, v] : scopes_.vars)
      if (n == name.text) ts_.fail(name.span, "duplicate parameter '" + n + "'");
    VarRef v = VarNode::make(name.text, dt, name.span);
    scopes_.vars.emplace_back(name.text, v);
    return v;
  }

  // packed_func NAME(args: handle, num_args: i32, ctx: handle) wraps KERNEL(PARAMS) -> (PARAMS) { ... }
  // The wrapped parameters are only a description: they bind no names in the body.
  PackedFunc packed_func() {
    ts_.next();
    PackedFunc f;
    const Token& name = ts_.expect(Tok::Ident, "function name");
    f.name = name.text;
    f.span = name.span;
    ts_.expect(Tok::LParen);
    f.args = scalar_param(DataType::handle());
    ts_.expect(Tok::Comma);
    f.num_args = scalar_param(DataType::i32());
    ts_.expect(Tok::Comma);
    f.ctx = scalar_param(DataType::handle());
    ts_.expect(Tok::RParen);
    expect_word("wraps");
    f.kernel = ts_.expect(Tok::Ident, "wrapped function name").text;
    for (auto* list : {&f.inputs, &f.outputs}) {
      if (list == &f.outputs) ts_.expect(Tok::Arrow);
      ts_.expect(Tok::LParen);
      if (ts_.accept(Tok::RParen)) continue;
      do {
        list->push_back(buffer_decl(""));
      } while (ts_.accept(Tok::Comma));
      ts_.expect(Tok::RParen);
    }
    ts_.expect(Tok::LBrace);
    f.body = block();
    if (!f.body) ts_.fail(name.span, "empty packed_func body");
    return f;
  }

  void nest(Span at, int n) {
    nesting_ += n;
    if (nesting_ > kMaxStmtNesting) ts_.fail(at, "statements are too deeply nested");
  }

  // The statements after a '{', through the closing '}'; null if there are none.
  Stmt block() {
    Span open = ts_.peek().span;
    nest(open, 1);
    Scopes::Mark mark = scopes_.mark();
    std::vector<Item> items;
    int scoped = 0;
    for (;;) {
      if (ts_.accept(Tok::RBrace)) break;
      if (ts_.at(Tok::End)) ts_.fail_expected("'}'");
      if (ts_.accept(Tok::Semi)) continue;
      items.push_back(statement());
      if (items.back().kind != ItemKind::Stmt) {
        ++scoped;
        nest(items.back().span, 1);
      }
    }
    scopes_.restore(mark);
    nesting_ -= 1 + scoped;
    std::vector<Stmt> rest;  // statements after the current item, reversed
    for (auto it = items.rbegin(); it != items.rend(); ++it) {
      if (it->kind == ItemKind::Stmt) {
        rest.push_back(it->stmt);
        continue;
      }
      if (rest.empty())
        ts_.fail(it->span, std::string(it->kind == ItemKind::Let ? "let" : "decl_buffer") +
                               " must be followed by statements in its block");
      std::reverse(rest.begin(), rest.end());
      Stmt body = Seq::make(rest);
      Stmt s =
          it->kind == ItemKind::Let
              ? checked(ts_.log(), it->span,
                        [&] { return LetStmt::make(it->var, it->value, body, it->span); })
              : checked(ts_.log(), it->span, [&] { return DeclBuffer::make(it->buffer, body, it->span); });
      rest = {s};
    }
    if (rest.empty()) return Stmt();
    std::reverse(rest.begin(), rest.end());
    return Seq::make(rest, open);
  }

  Stmt nonempty_block(Span at) {
    ts_.expect(Tok::LBrace);
    Stmt s = block();
    if (!s) ts_.fail(at, "empty block");
    return s;
  }

  // Does `NAME[ ... ]` at the cursor start a store (followed by '=')?
  bool at_store() const {
    int depth = 0;
    for (size_t k = 1;; ++k) {
      Tok t = ts_.peek(k).kind;
      if (t == Tok::End) return false;
      if (t == Tok::LBracket || t == Tok::LParen) ++depth;
      if (t == Tok::RBracket || t == Tok::RParen) --depth;
      if (depth == 0) return ts_.peek(k + 1).kind == Tok::Assign;
    }
  }

  Item statement() {
    const Token& t = ts_.peek();
    Item item;
    item.span = t.span;
    bool keyword = t.kind == Tok::Ident && ts_.peek(1).kind != Tok::LBracket;
    if (keyword && t.text == "let") {
      ts_.next();
      const Token& name = ts_.expect(Tok::Ident, "variable name");
      ts_.expect(Tok::Colon);
      DataType dt = dtype();
      ts_.expect(Tok::Assign);
      item.value = expr(dt);
      if (item.value.dtype() != dt)
        ts_.fail(t.span, "let " + name.text + " has type " + dt.str() + " but its value has type " +
                             item.value.dtype().str());
      item.var = VarNode::make(name.text, dt, name.span);
      item.kind = ItemKind::Let;
      scopes_.vars.emplace_back(name.text, item.var);
      return item;
    }
    if (keyword && t.text == "decl_buffer") {
      ts_.next();
      const Token& name = ts_.peek();
      Buffer proto = buffer_decl("scope");
      VarRef data = el_.find_var(name.text, name.span);
      if (!data->dtype.is_handle())
        ts_.fail(name.span, "decl_buffer " + name.text + " needs a handle variable, but it has dtype " +
                                data->dtype.str());
      item.buffer = checked(ts_.log(), name.span, [&] {
        return BufferNode::make_with_data(data, proto->dtype, proto->shape, proto->scope, name.span);
      });
      item.kind = ItemKind::Decl;
      scopes_.buffers.emplace_back(name.text, item.buffer);
      return item;
    }
    if (keyword && t.text == "allocate") {
      ts_.next();
      Buffer b = buffer_decl("scope");
      Scopes::Mark mark = scopes_.mark();
      scopes_.add(b);
      Stmt body = nonempty_block(t.span);
      scopes_.restore(mark);
      item.stmt = checked(ts_.log(), t.span, [&] { return Allocate::make(b, body, t.span); });
      return item;
    }
    if (keyword && t.text == "for") {
      ts_.next();
      const Token& name = ts_.expect(Tok::Ident, "loop variable");
      expect_word("in");
      const Token& kind = ts_.expect(Tok::Ident, "loop kind");
      std::optional<ForKind> fk;
      for (ForKind k : {ForKind::Serial, ForKind::Vectorized, ForKind::Unrolled, ForKind::Parallel})
        if (kind.text == for_kind_name(k)) fk = k;
      if (!fk) ts_.fail(kind.span, "unknown loop kind '" + kind.text + "'");
      ts_.expect(Tok::LParen);
      Expr min = expr(DataType::i32());
      ts_.expect(Tok::Comma);
      Expr extent = loop_extent(name, min);
      ts_.expect(Tok::RParen);
      VarRef v = VarNode::make(name.text, DataType::i32(), name.span);
      Scopes::Mark mark = scopes_.mark();
      scopes_.vars.emplace_back(name.text, v);
      Stmt body = nonempty_block(t.span);
      scopes_.restore(mark);
      item.stmt = checked(ts_.log(), t.span, [&] { return For::make(v, min, extent, *fk, body, t.span); });
      return item;
    }
    if (keyword && t.text == "if") {
      ts_.next();
      Expr cond = expr();
      Stmt then_case = nonempty_block(t.span);
      Stmt else_case;
      if (ts_.at_word("else")) {
        ts_.next();
        ts_.expect(Tok::LBrace);
        else_case = block();
      }
      item.stmt =
          checked(ts_.log(), t.span, [&] { return IfThenElse::make(cond, then_case, else_case, t.span); });
      return item;
    }
    if (t.kind == Tok::LBrace) {
      item.stmt = nonempty_block(t.span);
      return item;
    }
    if (t.kind == Tok::Ident && ts_.peek(1).kind == Tok::LBracket && at_store()) {
      ts_.next();
      Buffer b = el_.find_buffer(t.text, t.span);
      ts_.expect(Tok::LBracket);
      std::vector<Expr> indices;
      do {
        indices.push_back(expr());
      } while (ts_.accept(Tok::Comma));
      ts_.expect(Tok::RBracket);
      ts_.expect(Tok::Assign);
      Expr value = expr(b->dtype);
      item.stmt = checked(ts_.log(), t.span, [&] { return Store::make(b, indices, value, t.span); });
      return item;
    }
    Expr e = expr();
    item.stmt = checked(ts_.log(), t.span, [&] { return Evaluate::make(e, t.span); });
    return item;
  }

  TokenStream& ts_;
  ErrorLog& log_;
  Scopes scopes_;
  TirElaborator el_;
  int nesting_ = 0;
};

}  // namespace

std::optional<Module> parse_tir(const SourceFile& source, Diagnostics& diag) {
  return run_parser(source, diag, [&](ErrorLog& log) {
    TokenStream ts(lex(source.text), log);
    return TirParser(ts, log).module();
  });
}

bool looks_like_tir(const std::string& text) {
  Token t = Lexer(text).next();
  return t.kind == Tok::Ident && (t.text == "prim_func" || t.text == "packed_func");
}

}  // namespace dspc
