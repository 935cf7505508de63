// lower-vtcm-alloc: VTCM allocations -> runtime calls (docs/design.md, "Contracts").
#pragma once

#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// Replaces each `allocate` with scope "local.vtcm" by
//   let NAME: handle = call_extern("HexagonBackendAllocateVTCM", NBYTES, options.target.vtcm_alignment)
//   if isnullptr(NAME) { <free the enclosing runtime allocations, innermost first>; throw_last_error() }
//   else { decl_buffer NAME: DT[shape] scope "local.vtcm"; <body>; call_extern("HexagonBackendFreeVTCM",
//   NAME) }
// with NBYTES = elements x dtype bytes, so frees run in reverse order of allocation and no
// path leaks VTCM. Takes: TIR (normally flattened). Gives: TIR without VTCM `allocate`.
Module lower_vtcm_alloc(const Module& m, const LowerOptions& options);

}  // namespace dspc
