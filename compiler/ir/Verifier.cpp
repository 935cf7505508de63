// Structural checks on TIR, and structural equality.
//
// verify_func:
// 1. Bind the parameters' buffers and data variables.
// 2. Walk the body keeping what is in scope: let/loop variables and allocated buffers in
//    their bodies, declared buffers in theirs. Every binding is recorded function-wide, so
//    binding a variable twice is caught even in disjoint scopes.
// 3. At each use check the variable or buffer is in scope and loads/stores give one index per
//    dimension; any Reduce is an error (schedule-ops lowers them all).
// structural_equal walks both functions in lockstep, mapping the variables and buffers of `a`
// to those of `b` where they are bound and comparing uses through the map.
#include "compiler/ir/Verifier.h"

#include <cstring>
#include <unordered_map>
#include <unordered_set>

namespace dspc {

namespace {

struct VerifyError {
  std::string message;
};

enum class Binder : uint8_t { Param, Let, Loop, Allocate };

class Checker {
 public:
  void func(const PrimFunc& f) {
    for (const auto* list : {&f.inputs, &f.outputs}) {
      for (const auto& b : *list) {
        if (!b) fail("a parameter buffer is null");
        bind(b->data.get(), Binder::Param);
        enter(b.get());
      }
    }
    if (f.ctx) {
      if (!f.ctx->dtype.is_handle()) fail("the context parameter must be a handle");
      bind(f.ctx.get(), Binder::Param);
    }
    if (f.body) stmt(f.body);  // a prim_func with an empty body (`{}` in TIR) has none
  }

  // A packed entry binds its three scalar parameters; the wrapped signature binds nothing
  // (the body reaches arguments only through the arg_* intrinsics).
  void packed(const PackedFunc& f) {
    if (!f.args || !f.num_args || !f.ctx) fail("a packed entry parameter is null");
    if (!f.args->dtype.is_handle() || !f.ctx->dtype.is_handle() || f.num_args->dtype != DataType::i32())
      fail("packed entry parameters must be (handle, i32, handle)");
    for (const auto* list : {&f.inputs, &f.outputs})
      for (const auto& b : *list)
        if (!b) fail("a wrapped parameter buffer is null");
    bind(f.args.get(), Binder::Param);
    bind(f.num_args.get(), Binder::Param);
    bind(f.ctx.get(), Binder::Param);
    stmt(f.body);
  }

 private:
  [[noreturn]] static void fail(const std::string& msg) { throw VerifyError{msg}; }

  void bind(const VarNode* v, Binder how) {
    if (!v) fail("a binding has a null variable");
    if (!ever_bound_.insert(v).second) fail("variable " + v->name + " is bound twice");
    in_scope_[v] = how;
  }
  void unbind(const VarNode* v) { in_scope_.erase(v); }

  void enter(const BufferNode* b) {
    if (!buffers_.insert(b).second) fail("buffer " + b->name + " is defined twice in the same scope");
  }
  void leave(const BufferNode* b) { buffers_.erase(b); }

  void use_buffer(const Buffer& b, size_t nindices, const char* what) {
    if (!b) fail(std::string(what) + " of a null buffer");
    if (!buffers_.count(b.get()))
      fail(std::string(what) + " of buffer " + b->name +
           " outside the allocation or declaration that defines it");
    if (nindices != b->shape.size())
      fail(std::string(what) + " of buffer " + b->name + " has " + std::to_string(nindices) +
           " indices for " + std::to_string(b->shape.size()) + " dimensions");
  }

  void stmt(const Stmt& s) {
    if (!s) fail("a statement is null");
    if (const auto* op = s.as<LetStmt>()) {
      expr(op->value);
      bind(op->var.get(), Binder::Let);
      stmt(op->body);
      unbind(op->var.get());
    } else if (const auto* op = s.as<For>()) {
      expr(op->min);
      expr(op->extent);
      if (!op->var || op->var->dtype != DataType::i32()) fail("loop variable must be i32");
      if (op->min.dtype() != DataType::i32() || op->extent.dtype() != DataType::i32())
        fail("bounds of loop " + op->var->name + " must be i32");
      bind(op->var.get(), Binder::Loop);
      stmt(op->body);
      unbind(op->var.get());
    } else if (const auto* op = s.as<IfThenElse>()) {
      expr(op->cond);
      stmt(op->then_case);
      if (op->else_case) stmt(op->else_case);
    } else if (const auto* op = s.as<Allocate>()) {
      if (!op->buffer) fail("allocate of a null buffer");
      bind(op->buffer->data.get(), Binder::Allocate);
      enter(op->buffer.get());
      stmt(op->body);
      leave(op->buffer.get());
      unbind(op->buffer->data.get());
    } else if (const auto* op = s.as<DeclBuffer>()) {
      decl_buffer(op);
    } else if (const auto* op = s.as<Store>()) {
      use_buffer(op->buffer, op->indices.size(), "store");
      for (const auto& i : op->indices) expr(i);
      expr(op->value);
    } else if (const auto* op = s.as<Evaluate>()) {
      expr(op->value);
    } else if (const auto* op = s.as<Seq>()) {
      for (const auto& st : op->stmts) stmt(st);
    }
  }

  // The declared buffer's address comes from a handle bound outside: a let of an allocation
  // call, or (for a reshaped view) a parameter or an allocation.
  void decl_buffer(const DeclBuffer* op) {
    if (!op->buffer) fail("decl_buffer of a null buffer");
    const VarNode* data = op->buffer->data.get();
    if (!data || !in_scope_.count(data))
      fail("decl_buffer " + op->buffer->name + " uses handle " + (data ? data->name : "<null>") +
           " that is not bound");
    if (!data->dtype.is_handle()) fail("decl_buffer " + op->buffer->name + " uses a non-handle variable");
    enter(op->buffer.get());
    stmt(op->body);
    leave(op->buffer.get());
  }

  void expr(const Expr& e) {
    if (!e) fail("an expression is null");
    if (const auto* op = e.as<Var>()) {
      if (in_scope_.count(op)) return;
      if (ever_bound_.count(op)) fail("variable " + op->name + " is used outside its scope");
      fail("variable " + op->name + " is used but never bound");
    }
    if (const auto* op = e.as<Load>()) {
      use_buffer(op->buffer, op->indices.size(), "load");
      for (const auto& i : op->indices) expr(i);
      return;
    }
    if (const auto* op = e.as<Reduce>()) {
      std::string axes;
      for (const auto& a : op->axes) axes += (axes.empty() ? "" : ", ") + a.var->name;
      fail("a reduction over " + axes + " remains in TIR");
    }
    if (const auto* op = e.as<Cast>()) return expr(op->value);
    if (const auto* op = e.as<Binary>()) {
      expr(op->a);
      return expr(op->b);
    }
    if (const auto* op = e.as<Unary>()) return expr(op->value);
    if (const auto* op = e.as<Select>()) {
      expr(op->cond);
      expr(op->t);
      return expr(op->f);
    }
    if (const auto* op = e.as<Call>()) {
      for (const auto& a : op->args) expr(a);
      return;
    }
    if (const auto* op = e.as<Ramp>()) {
      expr(op->base);
      return expr(op->stride);
    }
    if (const auto* op = e.as<Broadcast>()) return expr(op->value);
    if (const auto* op = e.as<VectorReduce>()) return expr(op->value);
  }

  std::unordered_map<const VarNode*, Binder> in_scope_;
  std::unordered_set<const VarNode*> ever_bound_;
  std::unordered_set<const BufferNode*> buffers_;
};

class Equal {
 public:
  bool func(const PrimFunc& a, const PrimFunc& b) {
    if (a.name != b.name || a.inputs.size() != b.inputs.size() || a.outputs.size() != b.outputs.size())
      return false;
    for (size_t i = 0; i < a.inputs.size(); ++i)
      if (!bind_buffer(a.inputs[i], b.inputs[i])) return false;
    for (size_t i = 0; i < a.outputs.size(); ++i)
      if (!bind_buffer(a.outputs[i], b.outputs[i])) return false;
    if (!bind_var(a.ctx, b.ctx)) return false;
    return stmt(a.body, b.body);
  }

  bool packed(const PackedFunc& a, const PackedFunc& b) {
    if (a.name != b.name || a.kernel != b.kernel || a.inputs.size() != b.inputs.size() ||
        a.outputs.size() != b.outputs.size())
      return false;
    for (size_t i = 0; i < a.inputs.size(); ++i)
      if (!same_fields(a.inputs[i], b.inputs[i])) return false;
    for (size_t i = 0; i < a.outputs.size(); ++i)
      if (!same_fields(a.outputs[i], b.outputs[i])) return false;
    if (!bind_var(a.args, b.args) || !bind_var(a.num_args, b.num_args) || !bind_var(a.ctx, b.ctx)) return false;
    return stmt(a.body, b.body);
  }

 private:
  bool bind_var(const VarRef& a, const VarRef& b) {
    if (!a || !b) return !a && !b;
    if (a->name != b->name || a->dtype != b->dtype) return false;
    vars_[a.get()] = b.get();
    return true;
  }
  // A use maps through the bindings; a free variable must match by name and type, consistently.
  bool use_var(const VarNode* a, const VarNode* b) {
    auto it = vars_.find(a);
    if (it != vars_.end()) return it->second == b;
    if (a->name != b->name || a->dtype != b->dtype) return false;
    vars_[a] = b;
    return true;
  }
  static bool same_fields(const Buffer& a, const Buffer& b) {
    return a->name == b->name && a->dtype == b->dtype && a->shape == b->shape && a->scope == b->scope;
  }
  bool bind_buffer(const Buffer& a, const Buffer& b) {
    if (!a || !b) return !a && !b;
    if (!same_fields(a, b) || !bind_var(a->data, b->data)) return false;
    buffers_[a.get()] = b.get();
    return true;
  }
  bool use_buffer(const Buffer& a, const Buffer& b) {
    if (!a || !b) return !a && !b;
    auto it = buffers_.find(a.get());
    if (it != buffers_.end()) return it->second == b.get();
    if (!same_fields(a, b) || !use_var(a->data.get(), b->data.get())) return false;
    buffers_[a.get()] = b.get();
    return true;
  }

  bool exprs(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!expr(a[i], b[i])) return false;
    return true;
  }

  bool expr(const Expr& a, const Expr& b) {
    if (!a || !b) return !a && !b;
    if (a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
    switch (a.kind()) {
      case NodeKind::IntImm: return a.as<IntImm>()->value == b.as<IntImm>()->value;
      case NodeKind::FloatImm: {
        double x = a.as<FloatImm>()->value, y = b.as<FloatImm>()->value;
        return std::memcmp(&x, &y, sizeof x) == 0;
      }
      case NodeKind::Var: return use_var(a.as<Var>(), b.as<Var>());
      case NodeKind::Cast: return expr(a.as<Cast>()->value, b.as<Cast>()->value);
      case NodeKind::Binary: {
        const auto *x = a.as<Binary>(), *y = b.as<Binary>();
        return x->op == y->op && expr(x->a, y->a) && expr(x->b, y->b);
      }
      case NodeKind::Unary: {
        const auto *x = a.as<Unary>(), *y = b.as<Unary>();
        return x->op == y->op && expr(x->value, y->value);
      }
      case NodeKind::Select: {
        const auto *x = a.as<Select>(), *y = b.as<Select>();
        return expr(x->cond, y->cond) && expr(x->t, y->t) && expr(x->f, y->f);
      }
      case NodeKind::Load: {
        const auto *x = a.as<Load>(), *y = b.as<Load>();
        return use_buffer(x->buffer, y->buffer) && exprs(x->indices, y->indices);
      }
      case NodeKind::Call: {
        const auto *x = a.as<Call>(), *y = b.as<Call>();
        return x->call_kind == y->call_kind && x->name == y->name && exprs(x->args, y->args);
      }
      case NodeKind::Reduce: {
        const auto *x = a.as<Reduce>(), *y = b.as<Reduce>();
        if (x->op != y->op || x->axes.size() != y->axes.size()) return false;
        for (size_t i = 0; i < x->axes.size(); ++i)
          if (x->axes[i].extent != y->axes[i].extent || !bind_var(x->axes[i].var, y->axes[i].var))
            return false;
        return expr(x->source, y->source);
      }
      case NodeKind::Ramp: {
        const auto *x = a.as<Ramp>(), *y = b.as<Ramp>();
        return x->lanes == y->lanes && expr(x->base, y->base) && expr(x->stride, y->stride);
      }
      case NodeKind::Broadcast: {
        const auto *x = a.as<Broadcast>(), *y = b.as<Broadcast>();
        return x->lanes == y->lanes && expr(x->value, y->value);
      }
      case NodeKind::VectorReduce: {
        const auto *x = a.as<VectorReduce>(), *y = b.as<VectorReduce>();
        return x->op == y->op && x->lanes == y->lanes && expr(x->value, y->value);
      }
      default: return false;
    }
  }

  bool stmt(const Stmt& a, const Stmt& b) {
    if (!a || !b) return !a && !b;
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
      case NodeKind::LetStmt: {
        const auto *x = a.as<LetStmt>(), *y = b.as<LetStmt>();
        return expr(x->value, y->value) && bind_var(x->var, y->var) && stmt(x->body, y->body);
      }
      case NodeKind::For: {
        const auto *x = a.as<For>(), *y = b.as<For>();
        return x->for_kind == y->for_kind && expr(x->min, y->min) && expr(x->extent, y->extent) &&
               bind_var(x->var, y->var) && stmt(x->body, y->body);
      }
      case NodeKind::IfThenElse: {
        const auto *x = a.as<IfThenElse>(), *y = b.as<IfThenElse>();
        return expr(x->cond, y->cond) && stmt(x->then_case, y->then_case) && stmt(x->else_case, y->else_case);
      }
      case NodeKind::Allocate: {
        const auto *x = a.as<Allocate>(), *y = b.as<Allocate>();
        return bind_buffer(x->buffer, y->buffer) && stmt(x->body, y->body);
      }
      case NodeKind::DeclBuffer: {
        // The data variable is bound elsewhere (a let): compare it as a use.
        const auto *x = a.as<DeclBuffer>(), *y = b.as<DeclBuffer>();
        if (!x->buffer || !y->buffer) return !x->buffer && !y->buffer && stmt(x->body, y->body);
        if (!same_fields(x->buffer, y->buffer) || !use_var(x->buffer->data.get(), y->buffer->data.get()))
          return false;
        buffers_[x->buffer.get()] = y->buffer.get();
        return stmt(x->body, y->body);
      }
      case NodeKind::Store: {
        const auto *x = a.as<Store>(), *y = b.as<Store>();
        return use_buffer(x->buffer, y->buffer) && exprs(x->indices, y->indices) && expr(x->value, y->value);
      }
      case NodeKind::Evaluate: return expr(a.as<Evaluate>()->value, b.as<Evaluate>()->value);
      case NodeKind::Seq: {
        const auto *x = a.as<Seq>(), *y = b.as<Seq>();
        if (x->stmts.size() != y->stmts.size()) return false;
        for (size_t i = 0; i < x->stmts.size(); ++i)
          if (!stmt(x->stmts[i], y->stmts[i])) return false;
        return true;
      }
      default: return false;
    }
  }

  std::unordered_map<const VarNode*, const VarNode*> vars_;
  std::unordered_map<const BufferNode*, const BufferNode*> buffers_;
};

}  // namespace

bool verify_func(const PrimFunc& f, std::string& error) {
  try {
    Checker().func(f);
    return true;
  } catch (const VerifyError& e) {
    error = "in " + f.name + ": " + e.message;
    return false;
  }
}

bool verify_module(const Module& m, std::string& error) {
  for (const auto& f : m.funcs)
    if (!verify_func(f, error)) return false;
  for (const auto& f : m.packed) {
    bool wraps = false;
    for (const auto& k : m.funcs) wraps = wraps || k.name == f.kernel;
    if (!wraps) {
      error = "in " + f.name + ": it wraps '" + f.kernel + "', which the module does not define";
      return false;
    }
    try {
      Checker().packed(f);
    } catch (const VerifyError& e) {
      error = "in " + f.name + ": " + e.message;
      return false;
    }
  }
  return true;
}

bool structural_equal(const PrimFunc& a, const PrimFunc& b) {
  return Equal().func(a, b);
}

bool structural_equal(const Module& a, const Module& b) {
  if (a.funcs.size() != b.funcs.size() || a.packed.size() != b.packed.size()) return false;
  for (size_t i = 0; i < a.funcs.size(); ++i)
    if (!structural_equal(a.funcs[i], b.funcs[i])) return false;
  for (size_t i = 0; i < a.packed.size(); ++i)
    if (!Equal().packed(a.packed[i], b.packed[i])) return false;
  return true;
}

}  // namespace dspc
