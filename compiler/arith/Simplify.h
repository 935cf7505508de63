// The simplifier: constant folding and index algebra, as Halide's Simplify and TVM's
// arith::Analyzer do it. The simplify pass (passes/Simplify.h) runs it on a module; passes
// that build index expressions call it directly.
#pragma once

#include "compiler/ir/IR.h"

namespace dspc {

// Folds constants with the semantics of compiler/arith/Semantics.h (shared with the
// interpreter); simplifies integer index algebra (x + 0, x * 1, x * 0, (x + c1) + c2,
// (x - c1) + c2, (x * c1) * c2, c + x -> x + c, x - x, x + -c -> x - c); removes casts to the
// same type; picks the branch of a select or `if` with a constant condition; removes loops
// with extent <= 0 and statements that do nothing. Lets of constants are kept, extent-1 loops
// stay loops. Idempotent.
Expr simplify_expr(const Expr& e);
Stmt simplify_stmt(const Stmt& s);
// The same on every function of a module.
Module simplify_module(const Module& m);

}  // namespace dspc
