// flatten-buffers: multi-dimensional buffers -> one-dimensional ones.
#pragma once

#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// Gives every buffer of rank > 1 (parameters, `allocate`, `decl_buffer`) the shape
// [num_elements], keeping its name, dtype, scope and data variable, and rewrites its loads
// and stores to the row-major linear index ((i0 * s1 + i1) * s2 + i2) in i32 (indices of
// other integer types are cast to i32 first). Rank-1 buffers and their accesses are left alone.
// Takes: any TIR module. Gives: the same module with only rank-1 buffers.
Module flatten_buffers(const Module& m, const LowerOptions& options);

}  // namespace dspc
