// Structural checks between passes, and structural equality.
#pragma once

#include <string>

#include "compiler/ir/IR.h"

namespace dspc {

// Checks well-formedness of a lowered function: every variable and buffer used is defined
// and in scope, no Reduce remains, a variable is bound once, loads/stores match the buffer's
// dimension count, loop bounds are i32. Returns false with a message naming the problem.
bool verify_func(const PrimFunc& f, std::string& error);
bool verify_module(const Module& m, std::string& error);

// Equal up to renaming of bound variables and buffers (names are compared too, since the
// printer shows them): same structure, dtypes, constants, scopes, shapes.
bool structural_equal(const PrimFunc& a, const PrimFunc& b);
bool structural_equal(const Module& a, const Module& b);

}  // namespace dspc
