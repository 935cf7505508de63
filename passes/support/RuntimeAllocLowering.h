// Shared by lower-vtcm-alloc and lower-workspace-alloc (a helper, not a pass): turns an
// `allocate` into a runtime allocation call with a null check, and keeps every failure
// path freeing the runtime allocations that are live there.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/Externs.h"
#include "compiler/ir/IRVisitor.h"

namespace dspc {

// How a class of buffers is allocated at run time.
struct RuntimeAllocator {
  const ExternFunction* fn;  // an allocator of compiler/ir/Externs.h
  int alignment;
};

// Lowers the Allocates that `allocator_for` picks to
//   let NAME: handle = call_extern(fn, NBYTES, ALIGN, ctx)   (arguments where fn's row puts them)
//   if isnullptr(NAME) { <free each enclosing runtime allocation, innermost first>; throw_last_error() }
//   else { decl_buffer NAME ...; <body>; call_extern(fn's free function, NAME, ctx) }
// where ctx is the function's context parameter (set_context), every runtime call's last argument.
// The let binds the buffer's own data variable, so accesses keep resolving. Enclosing
// runtime allocations are the enclosing lets of allocation calls, whichever pass made them;
// failure paths already in the input (made by an earlier pass, which could not know of
// allocations lowered later) are rebuilt from the same rule, so running both passes in
// either order, or twice, frees the same things.
class RuntimeAllocLowering : public IRMutator {
 public:
  // The allocator for `b`, or null to leave its Allocate alone.
  virtual const RuntimeAllocator* allocator_for(const Buffer& b) const = 0;

  // The function's context parameter; set before mutating its body.
  void set_context(VarRef ctx) { ctx_ = std::move(ctx); }

  Stmt mutate_Allocate(const Allocate* op, const Stmt& self) override;
  Stmt mutate_LetStmt(const LetStmt* op, const Stmt& self) override;

 private:
  struct LiveAlloc {
    VarRef var;
    const char* free_fn;
  };
  Stmt failure_path(Span span) const;
  Stmt free_call(const VarRef& var, const char* free_fn, Span s) const;
  std::vector<LiveAlloc> live_;
  VarRef ctx_;
};

}  // namespace dspc
