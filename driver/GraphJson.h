// --emit=graph-json: a program's graphs as JSON, close to TVM's graph-executor JSON (README,
// "Graphs").
#pragma once

#include <string>

#include "compiler/ir/IR.h"

namespace dspc {

// The graphs of `program`, with the order and groups of `m.graph_plans`.
std::string graph_json(const TensorProgram& program, const Module& m);

}  // namespace dspc
