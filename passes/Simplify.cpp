#include "passes/Simplify.h"

#include "compiler/arith/Simplify.h"

namespace dspc {

Module simplify(const Module& m, const LowerOptions&) { return simplify_module(m); }

}  // namespace dspc
