// simplify: constant folding and index algebra.
#pragma once

#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// Folds constants with the semantics of compiler/interp/Semantics.h (shared with the interpreter); simplifies
// integer index algebra (x + 0, x * 1, x * 0, (x + c1) + c2, (x - c1) + c2, (x * c1) * c2,
// c + x -> x + c, x - x, x + -c -> x - c); removes casts to the same type; picks the branch
// of a select or `if` with a constant condition; removes loops with extent <= 0 and
// statements that do nothing. Lets of constants are kept, extent-1 loops stay loops.
// Idempotent. Takes and gives back any TIR module.
Module simplify(const Module& m, const LowerOptions& options);

// The same rewrites on one expression or statement.
Expr simplify_expr(const Expr& e);
Stmt simplify_stmt(const Stmt& s);

}  // namespace dspc
