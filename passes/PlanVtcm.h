// plan-vtcm: one VTCM arena per function, with buffers at fixed offsets.
#pragma once

#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// Takes: TIR whose VTCM buffers are `allocate`s with scope "local.vtcm" (normally flattened,
// before lower-vtcm-alloc). For each function:
//  - each VTCM buffer's lifetime is the span of statements, in execution order, from its first
//    to its last access; a loop inside the buffer's `allocate` that touches it makes the
//    buffer live for the whole loop;
//  - buffers are packed into one arena at offsets that are multiples of the target's VTCM
//    alignment, largest first, each at the lowest offset that overlaps no buffer whose
//    lifetime overlaps its own; buffers that are never live together share bytes;
//  - the arena's size (alignment included) is checked against the VTCM capacity: over it is
//    an error at the buffer that ends the arena, with a note per buffer (verify-vtcm-limit
//    checks only the unplanned form);
//  - with two or more buffers, the function becomes
//      allocate vtcm_arena: u8[ARENA] scope "local.vtcm" { ... }
//    and each buffer's `allocate` becomes
//      let NAME: handle = handle_add(vtcm_arena, OFFSET) { decl_buffer NAME ... }
//    so lower-vtcm-alloc makes one HexagonBackendAllocateVTCM and one FreeVTCM call per
//    function, with its null check. A function with one VTCM buffer is left as it is.
// Gives: the same TIR with at most one VTCM `allocate` per function. Off with
// options.plan_vtcm = false (`--no-vtcm-plan`).
Module plan_vtcm(const Module& m, const LowerOptions& options, Diagnostics& diag);

// Whether plan-vtcm lays out this function body: it has VTCM `allocate`s and no VTCM allocation
// call yet (TIR input that is already lowered is left as it is).
bool vtcm_plannable(const Stmt& body);

// The planned layout of one function (for tests): each VTCM buffer's offset, and the arena size.
struct VtcmPlan {
  struct Slot {
    Buffer buffer;
    int64_t offset = 0;
    int64_t first = 0, last = -1;  // lifetime, in statement positions (last < first: never used)
  };
  std::vector<Slot> slots;
  int64_t arena_bytes = 0;
};
VtcmPlan plan_vtcm_layout(const Stmt& body, int64_t alignment);

}  // namespace dspc
