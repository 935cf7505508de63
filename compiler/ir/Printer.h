// Prints TIR as text that the TIR parser reads back to an equal function.
//
// Format (see README "TIR"):
//   prim_func NAME(A: i8[2048], ...) -> (C: i8[2048]) context(ctx: handle) {   (ctx: the final C parameter)
//     allocate T: i16[4, 8] scope "local.vtcm" { ... }
//     for i in range(0, 2048) { ... }          (range | vectorized | unrolled | parallel)
//     let x: handle = call_extern("HexagonBackendAllocateVTCM", 2048, 2048, ctx)   (scopes the rest of the block)
//     decl_buffer x: i8[2048] scope "local.vtcm"                             (likewise)
//     if cond { ... } else { ... }
//     C[i, j] = expr
//     throw_last_error()
//   }
//   packed_func __dspc_call_NAME(args: handle, num_args: i32, ctx: handle) wraps NAME(A: u8[64, 128], ...) -> (...) {
//     if num_args != 3 { return(call_extern("dspc_report_bad_arg", func_desc(), args, num_args, -1, 128, ctx)) }
//     ...
//     return(call_kernel(arg_data(args, 0), ..., ctx))
//   }
// Packed entries (make-packed-api) print after every prim_func.
// Literals: i32 bare (5), others with a suffix (5i8, 200u8, 1.5f32), bool true/false.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/IR.h"

namespace dspc {

std::string print_expr(const Expr& e);
// Extents as TIR writes them: "[4, 8]". Messages about shapes use it too.
std::string shape_str(const std::vector<int64_t>& shape);
// A graph's order and device groups as comment lines (--print-after shows them above the TIR;
// they are not TIR, so print_module leaves them out).
std::string print_graph_plan(const GraphPlan& p);
std::string print_stmt(const Stmt& s, int indent = 0);
std::string print_func(const PrimFunc& f);
std::string print_packed_func(const PackedFunc& f);
std::string print_module(const Module& m);
// A constant tensor's elements as .dsp graphs and TIR write them: "[1.5, -2, 3]". Floats have
// 9 significant digits in f32 and 17 in f64, so they read back exactly; infinities and NaN
// are `inf`, `-inf` and `nan`, bool elements 0 and 1. `bytes` holds the little-endian elements.
std::string format_constant_values(DataType t, const std::vector<uint8_t>& bytes);
// `constant NAME: DTYPE[EXTENTS] = [...]`, a module constant as TIR prints it.
std::string print_constant(const ModuleConstant& c);

}  // namespace dspc
