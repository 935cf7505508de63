// verify-vtcm-limit: the compile-time VTCM capacity check of the VTCM contract.
#pragma once

#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// Checks that the VTCM live at every point of each function fits in
// options.effective_vtcm_capacity(). Live VTCM at an allocation is its own size plus that of
// every enclosing VTCM allocation (siblings do not add up). Counts `allocate` with scope
// "local.vtcm" and, for already lowered input, lets bound to HexagonBackendAllocateVTCM
// with a constant size. Over capacity, reports one error per function through `diag` at
// the allocation that went over, with a note for each other live allocation.
// Takes and gives back any TIR module, unchanged.
Module verify_vtcm_limit(const Module& m, const LowerOptions& options, Diagnostics& diag);

}  // namespace dspc
