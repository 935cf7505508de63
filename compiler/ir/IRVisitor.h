// Visitor and mutator bases, driven by the node-kind X-macro lists in IR.h.
//
// IRVisitor walks every child by default; override visit_X and call the base to keep walking.
// IRMutator rebuilds a node only when a child changed, so unchanged subtrees stay shared.
#pragma once

#include <set>
#include <type_traits>
#include <utility>

#include "compiler/ir/IR.h"

namespace dspc {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  virtual void visit(const Expr& e);
  virtual void visit(const Stmt& s);
  // Visits the buffer referenced by a Load/Store/Allocate/DeclBuffer; nothing by default.
  virtual void visit_buffer(const Buffer&) {}

#define DSPC_DECL(N) virtual void visit_##N(const N* op);
  DSPC_EXPR_NODES(DSPC_DECL)
  DSPC_STMT_NODES(DSPC_DECL)
#undef DSPC_DECL
};

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Expr mutate(const Expr& e);
  virtual Stmt mutate(const Stmt& s);
  // Maps a referenced buffer (e.g. to its flattened version); identity by default.
  virtual Buffer mutate_buffer(const Buffer& b) { return b; }

  // `self` is the handle owning `op`, returned as is when nothing changed.
#define DSPC_DECL_E(N) virtual Expr mutate_##N(const N* op, const Expr& self);
#define DSPC_DECL_S(N) virtual Stmt mutate_##N(const N* op, const Stmt& self);
  DSPC_EXPR_NODES(DSPC_DECL_E)
  DSPC_STMT_NODES(DSPC_DECL_S)
#undef DSPC_DECL_E
#undef DSPC_DECL_S
};

// Whether mutator M has `set_context(VarRef)`: it is told the function's context parameter.
template <typename M, typename = void>
struct has_set_context : std::false_type {};
template <typename M>
struct has_set_context<M, std::void_t<decltype(std::declval<M&>().set_context(VarRef()))>> : std::true_type {};

// Mutates every function body of a module with a fresh mutator per function.
template <class M, class... Args>
Module mutate_module(const Module& m, Args&&... args) {
  Module out = m;
  for (auto& f : out.funcs) {
    M mut(args...);
    // A mutator that makes runtime calls is told the function's context parameter.
    if constexpr (has_set_context<M>::value) mut.set_context(f.ctx);
    f.body = mut.mutate(f.body);
  }
  return out;
}

// Whether the variable v occurs in e, or anywhere in s.
bool mentions(const Expr& e, const VarNode* v);
bool mentions(const Stmt& s, const VarNode* v);

// The buffers e loads from.
std::set<const BufferNode*> buffers_loaded(const Expr& e);

}  // namespace dspc
