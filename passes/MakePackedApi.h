// make-packed-api: the checked packed entry of every function.
#pragma once

#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// Adds to `m`, for each function f without one, the packed entry
//   packed_func __dspc_call_f(args: handle, num_args: i32, ctx: handle) wraps f(<declared params>)
// with the C ABI `int32_t __dspc_call_f(const dspc_arg* args, int32_t num_args, dspc_context* ctx)`
// of runtime-support/device/include/dspc_runtime.h. Its body checks, in this order and before it
// touches any data: num_args (and a non-null args), then per argument a non-null data pointer
// aligned to options.target.alloc_alignment, type_code, bits, ndim and a non-null shape, then
// every extent. A mismatch returns dspc_report_bad_arg(...) (DSPC_ERR_BAD_ARGUMENT, with the
// message in ctx's last error); otherwise it returns call_kernel(data pointers..., ctx): the
// kernel runs with the caller's context.
// `declared` holds the functions' signatures as callers see them, before flatten-buffers (the
// checked shapes are the declared ones, not the flat ones `m` has by now).
// Takes: lowered TIR. Gives: the same functions, and one packed entry for each.
Module make_packed_api(const Module& m, const Module& declared, const LowerOptions& options);

}  // namespace dspc
