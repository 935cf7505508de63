// Runtime allocation lowering shared by lower-vtcm-alloc and lower-workspace-alloc.
//  1. Keep a stack of the runtime allocations live at the current point: a let of an
//     allocation call is live in the else branch of its null check (or in its whole body
//     when it has no null check).
//  2. An Allocate the subclass picks becomes let + null check + decl_buffer + free; its
//     failure path frees the stack innermost first, then throws.
//  3. A null check already in the input gets its failure path rebuilt the same way.
#include "passes/support/RuntimeAllocLowering.h"

#include <limits>

namespace dspc {

namespace {

bool is_call_to(const Stmt& s, CallKind kind, const std::string& name) {
  const auto* ev = s.as<Evaluate>();
  const auto* call = ev ? ev->value.as<Call>() : nullptr;
  return call && call->call_kind == kind && call->name == name;
}

bool is_free_call(const Stmt& s) {
  const auto* ev = s.as<Evaluate>();
  const auto* call = ev ? ev->value.as<Call>() : nullptr;
  return call && call->call_kind == CallKind::Extern && is_free_function(call->name);
}

// A failure path this helper makes: frees, then throw_last_error(). Anything else the input
// put in a then-branch is left alone.
bool is_failure_path(const Stmt& s) {
  std::vector<Stmt> stmts;
  if (const auto* seq = s.as<Seq>())
    stmts = seq->stmts;
  else
    stmts.push_back(s);
  if (!is_call_to(stmts.back(), CallKind::Intrinsic, kThrowLastError)) return false;
  for (size_t i = 0; i + 1 < stmts.size(); ++i)
    if (!is_free_call(stmts[i])) return false;
  return true;
}

// Both failure paths call the same functions on the same variables.
bool same_calls(const Stmt& a, const Stmt& b) {
  auto flat = [](const Stmt& s) { return s.as<Seq>() ? s.as<Seq>()->stmts : std::vector<Stmt>{s}; };
  std::vector<Stmt> x = flat(a), y = flat(b);
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    const auto* cx = x[i].as<Evaluate>()->value.as<Call>();
    const auto* cy = y[i].as<Evaluate>()->value.as<Call>();
    if (cx->name != cy->name || cx->args.size() != cy->args.size()) return false;
    for (size_t j = 0; j < cx->args.size(); ++j)
      if (cx->args[j].as<Var>() != cy->args[j].as<Var>()) return false;
  }
  return true;
}

// isnullptr(var)
bool is_null_check_of(const Expr& cond, const VarRef& var) {
  const auto* call = cond.as<Call>();
  if (!call || call->call_kind != CallKind::Intrinsic || call->name != kIsNullptr) return false;
  const auto* arg = call->args[0].as<Var>();
  return arg == var.get();
}

}  // namespace

Stmt RuntimeAllocLowering::free_call(const VarRef& var, const char* free_fn, Span s) const {
  DSPC_CHECK(ctx_ != nullptr, "runtime allocation lowering without the function's context");
  return Evaluate::make(Call::make(CallKind::Extern, free_fn, {var_expr(var), var_expr(ctx_)}, s), s);
}

Stmt RuntimeAllocLowering::failure_path(Span span) const {
  std::vector<Stmt> stmts;
  for (auto it = live_.rbegin(); it != live_.rend(); ++it)
    stmts.push_back(free_call(it->var, it->free_fn, span));
  stmts.push_back(Evaluate::make(Call::make(CallKind::Intrinsic, kThrowLastError, {}, span), span));
  return Seq::make(stmts, span);
}

Stmt RuntimeAllocLowering::mutate_Allocate(const Allocate* op, const Stmt& self) {
  const RuntimeAllocator* allocator = allocator_for(op->buffer);
  if (!allocator) return IRMutator::mutate_Allocate(op, self);
  const Buffer& buf = op->buffer;
  Span s = op->span;
  // The runtime takes the size as i32; the frontends must reject larger tensors.
  DSPC_CHECK(buf->size_bytes() <= std::numeric_limits<int32_t>::max(), "runtime allocation too large for i32");

  Stmt on_failure = failure_path(s);
  const ExternFunction& fn = *allocator->fn;
  live_.push_back({buf->data, fn.free_fn});
  Stmt body = mutate(op->body);
  live_.pop_back();

  Stmt on_success = DeclBuffer::make(buf, Seq::make({body, free_call(buf->data, fn.free_fn, s)}), s);
  std::vector<Expr> args(fn.signature.params.size());
  args[fn.bytes_arg] = make_i32(buf->size_bytes());
  args[fn.align_arg] = make_i32(allocator->alignment);
  DSPC_CHECK(ctx_ != nullptr, "runtime allocation lowering without the function's context");
  args.back() = var_expr(ctx_);
  Expr alloc = Call::make(CallKind::Extern, fn.name, args, s);
  Expr is_null = Call::make(CallKind::Intrinsic, kIsNullptr, {var_expr(buf->data)}, s);
  return LetStmt::make(buf->data, alloc, IfThenElse::make(is_null, on_failure, on_success, s), s);
}

Stmt RuntimeAllocLowering::mutate_LetStmt(const LetStmt* op, const Stmt& self) {
  const ExternFunction* fn = called_allocator(op->value);
  if (!fn) return IRMutator::mutate_LetStmt(op, self);
  const char* free_fn = fn->free_fn;
  const auto* check = op->body.as<IfThenElse>();
  if (!check || !is_null_check_of(check->cond, op->var) || !is_failure_path(check->then_case)) {
    live_.push_back({op->var, free_fn});
    Stmt body = mutate(op->body);
    live_.pop_back();
    return body.same_as(op->body) ? self : LetStmt::make(op->var, op->value, body, op->span);
  }

  Stmt on_failure = failure_path(check->then_case->span);
  live_.push_back({op->var, free_fn});
  Stmt on_success = mutate(check->else_case);
  live_.pop_back();
  if (on_success.same_as(check->else_case) && same_calls(on_failure, check->then_case)) return self;
  Stmt body = IfThenElse::make(check->cond, on_failure, on_success, check->span);
  return LetStmt::make(op->var, op->value, body, op->span);
}

}  // namespace dspc
