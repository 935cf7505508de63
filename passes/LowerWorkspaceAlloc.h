// lower-workspace-alloc: large global temporaries -> the runtime's workspace.
#pragma once

#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// Replaces each `allocate` with scope "global" of more than options.target.max_stack_alloc
// bytes by
//   let NAME: handle = call_extern("DspcWorkspaceAlloc", NBYTES, options.target.alloc_alignment)
//   if isnullptr(NAME) { <free the enclosing runtime allocations, innermost first>; throw_last_error() }
//   else { decl_buffer NAME: DT[shape] scope "global"; <body>; call_extern("DspcWorkspaceFree", NAME) }
// Smaller global and all "local" allocations stay; codegen puts them on the stack. Failure
// paths of VTCM allocations inside a lowered one are rebuilt to free it too.
// Takes: TIR (normally after lower-vtcm-alloc). Gives: TIR whose remaining `allocate`s fit the stack.
Module lower_workspace_alloc(const Module& m, const LowerOptions& options);

}  // namespace dspc
