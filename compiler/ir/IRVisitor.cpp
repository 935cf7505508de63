#include "compiler/ir/IRVisitor.h"

namespace dspc {

void IRVisitor::visit(const Expr& e) {
  if (!e) return;
  switch (e.kind()) {
#define DSPC_CASE(N)                            \
  case NodeKind::N:                             \
    visit_##N(static_cast<const N*>(e.get())); \
    return;
    DSPC_EXPR_NODES(DSPC_CASE)
#undef DSPC_CASE
    default: return;
  }
}

void IRVisitor::visit(const Stmt& s) {
  if (!s) return;
  switch (s.kind()) {
#define DSPC_CASE(N)                            \
  case NodeKind::N:                             \
    visit_##N(static_cast<const N*>(s.get())); \
    return;
    DSPC_STMT_NODES(DSPC_CASE)
#undef DSPC_CASE
    default: return;
  }
}

void IRVisitor::visit_IntImm(const IntImm*) {}
void IRVisitor::visit_FloatImm(const FloatImm*) {}
void IRVisitor::visit_Var(const Var*) {}
void IRVisitor::visit_Cast(const Cast* op) { visit(op->value); }
void IRVisitor::visit_Binary(const Binary* op) {
  visit(op->a);
  visit(op->b);
}
void IRVisitor::visit_Unary(const Unary* op) { visit(op->value); }
void IRVisitor::visit_Select(const Select* op) {
  visit(op->cond);
  visit(op->t);
  visit(op->f);
}
void IRVisitor::visit_Load(const Load* op) {
  visit_buffer(op->buffer);
  for (const auto& i : op->indices) visit(i);
}
void IRVisitor::visit_Call(const Call* op) {
  for (const auto& a : op->args) visit(a);
}
void IRVisitor::visit_Reduce(const Reduce* op) { visit(op->source); }
void IRVisitor::visit_Ramp(const Ramp* op) {
  visit(op->base);
  visit(op->stride);
}
void IRVisitor::visit_Broadcast(const Broadcast* op) { visit(op->value); }
void IRVisitor::visit_VectorReduce(const VectorReduce* op) {
  visit(op->value);
}

void IRVisitor::visit_LetStmt(const LetStmt* op) {
  visit(op->value);
  visit(op->body);
}
void IRVisitor::visit_For(const For* op) {
  visit(op->min);
  visit(op->extent);
  visit(op->body);
}
void IRVisitor::visit_IfThenElse(const IfThenElse* op) {
  visit(op->cond);
  visit(op->then_case);
  visit(op->else_case);
}
void IRVisitor::visit_Allocate(const Allocate* op) {
  visit_buffer(op->buffer);
  visit(op->body);
}
void IRVisitor::visit_DeclBuffer(const DeclBuffer* op) {
  visit_buffer(op->buffer);
  visit(op->body);
}
void IRVisitor::visit_Store(const Store* op) {
  visit_buffer(op->buffer);
  for (const auto& i : op->indices) visit(i);
  visit(op->value);
}
void IRVisitor::visit_Evaluate(const Evaluate* op) { visit(op->value); }
void IRVisitor::visit_Seq(const Seq* op) {
  for (const auto& s : op->stmts) visit(s);
}

// ---------------------------------------------------------------- mutator

namespace {

template <class T>
bool same(const T& a, const T& b) {
  return a.same_as(b);
}

bool same_list(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i].same_as(b[i])) return false;
  return true;
}

}  // namespace

Expr IRMutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e.kind()) {
#define DSPC_CASE(N) \
  case NodeKind::N:  \
    return mutate_##N(static_cast<const N*>(e.get()), e);
    DSPC_EXPR_NODES(DSPC_CASE)
#undef DSPC_CASE
    default: return e;
  }
}

Stmt IRMutator::mutate(const Stmt& s) {
  if (!s) return s;
  switch (s.kind()) {
#define DSPC_CASE(N) \
  case NodeKind::N:  \
    return mutate_##N(static_cast<const N*>(s.get()), s);
    DSPC_STMT_NODES(DSPC_CASE)
#undef DSPC_CASE
    default: return s;
  }
}

Expr IRMutator::mutate_IntImm(const IntImm*, const Expr& self) { return self; }
Expr IRMutator::mutate_FloatImm(const FloatImm*, const Expr& self) { return self; }
Expr IRMutator::mutate_Var(const Var*, const Expr& self) { return self; }

Expr IRMutator::mutate_Cast(const Cast* op, const Expr& self) {
  Expr v = mutate(op->value);
  return same(v, op->value) ? self : Cast::make(op->dtype, v, op->span);
}

Expr IRMutator::mutate_Binary(const Binary* op, const Expr& self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  return same(a, op->a) && same(b, op->b) ? self : Binary::make(op->op, a, b, op->span);
}

Expr IRMutator::mutate_Unary(const Unary* op, const Expr& self) {
  Expr v = mutate(op->value);
  return same(v, op->value) ? self : Unary::make(op->op, v, op->span);
}

Expr IRMutator::mutate_Select(const Select* op, const Expr& self) {
  Expr c = mutate(op->cond), t = mutate(op->t), f = mutate(op->f);
  if (same(c, op->cond) && same(t, op->t) && same(f, op->f)) return self;
  return Select::make(c, t, f, op->span);
}

Expr IRMutator::mutate_Load(const Load* op, const Expr& self) {
  Buffer b = mutate_buffer(op->buffer);
  std::vector<Expr> idx;
  for (const auto& i : op->indices) idx.push_back(mutate(i));
  if (b == op->buffer && same_list(idx, op->indices)) return self;
  return Load::make(b, idx, op->span);
}

Expr IRMutator::mutate_Call(const Call* op, const Expr& self) {
  std::vector<Expr> args;
  for (const auto& a : op->args) args.push_back(mutate(a));
  if (same_list(args, op->args)) return self;
  return Call::make(op->call_kind, op->name, args, op->span);
}

Expr IRMutator::mutate_Reduce(const Reduce* op, const Expr& self) {
  Expr s = mutate(op->source);
  return same(s, op->source) ? self : Reduce::make(op->op, s, op->axes, op->span);
}

Expr IRMutator::mutate_Ramp(const Ramp* op, const Expr& self) {
  Expr b = mutate(op->base), s = mutate(op->stride);
  return same(b, op->base) && same(s, op->stride) ? self : Ramp::make(b, s, op->lanes, op->span);
}

Expr IRMutator::mutate_Broadcast(const Broadcast* op, const Expr& self) {
  Expr v = mutate(op->value);
  return same(v, op->value) ? self : Broadcast::make(v, op->lanes, op->span);
}

Expr IRMutator::mutate_VectorReduce(const VectorReduce* op, const Expr& self) {
  Expr v = mutate(op->value);
  return same(v, op->value) ? self : VectorReduce::make(op->op, v, op->lanes, op->span);
}

Stmt IRMutator::mutate_LetStmt(const LetStmt* op, const Stmt& self) {
  Expr v = mutate(op->value);
  Stmt b = mutate(op->body);
  return same(v, op->value) && same(b, op->body) ? self : LetStmt::make(op->var, v, b, op->span);
}

Stmt IRMutator::mutate_For(const For* op, const Stmt& self) {
  Expr mn = mutate(op->min), ext = mutate(op->extent);
  Stmt b = mutate(op->body);
  if (same(mn, op->min) && same(ext, op->extent) && same(b, op->body)) return self;
  return For::make(op->var, mn, ext, op->for_kind, b, op->span);
}

Stmt IRMutator::mutate_IfThenElse(const IfThenElse* op, const Stmt& self) {
  Expr c = mutate(op->cond);
  Stmt t = mutate(op->then_case), e = mutate(op->else_case);
  if (same(c, op->cond) && same(t, op->then_case) && same(e, op->else_case)) return self;
  return IfThenElse::make(c, t, e, op->span);
}

Stmt IRMutator::mutate_Allocate(const Allocate* op, const Stmt& self) {
  Buffer buf = mutate_buffer(op->buffer);
  Stmt b = mutate(op->body);
  return buf == op->buffer && same(b, op->body) ? self : Allocate::make(buf, b, op->span);
}

Stmt IRMutator::mutate_DeclBuffer(const DeclBuffer* op, const Stmt& self) {
  Buffer buf = mutate_buffer(op->buffer);
  Stmt b = mutate(op->body);
  return buf == op->buffer && same(b, op->body) ? self : DeclBuffer::make(buf, b, op->span);
}

Stmt IRMutator::mutate_Store(const Store* op, const Stmt& self) {
  Buffer buf = mutate_buffer(op->buffer);
  std::vector<Expr> idx;
  for (const auto& i : op->indices) idx.push_back(mutate(i));
  Expr v = mutate(op->value);
  if (buf == op->buffer && same_list(idx, op->indices) && same(v, op->value)) return self;
  return Store::make(buf, idx, v, op->span);
}

Stmt IRMutator::mutate_Evaluate(const Evaluate* op, const Stmt& self) {
  Expr v = mutate(op->value);
  return same(v, op->value) ? self : Evaluate::make(v, op->span);
}

Stmt IRMutator::mutate_Seq(const Seq* op, const Stmt& self) {
  std::vector<Stmt> out;
  bool changed = false;
  for (const auto& s : op->stmts) {
    out.push_back(mutate(s));
    changed |= !out.back().same_as(s);
  }
  return changed ? Seq::make(out, op->span) : self;
}

namespace {
struct FindVar : IRVisitor {
  const VarNode* v;
  bool found = false;
  void visit_Var(const VarNode* op) override { found |= op == v; }
};
}  // namespace

bool mentions(const Expr& e, const VarNode* v) {
  FindVar f;
  f.v = v;
  f.visit(e);
  return f.found;
}

bool mentions(const Stmt& s, const VarNode* v) {
  FindVar f;
  f.v = v;
  f.visit(s);
  return f.found;
}

std::set<const BufferNode*> buffers_loaded(const Expr& e) {
  struct Loads : IRVisitor {
    std::set<const BufferNode*> buffers;
    void visit_Load(const Load* op) override {
      buffers.insert(op->buffer.get());
      IRVisitor::visit_Load(op);
    }
  } l;
  l.visit(e);
  return l.buffers;
}

}  // namespace dspc
