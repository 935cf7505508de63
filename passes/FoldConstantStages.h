// fold-constant-stages: the stages of a graph call that read only the call's constant tensors
// (graph `const`s: an ONNX model's weights) are evaluated once, at compile time, by the reference
// interpreter, and the call reads their values as new constants instead of computing them on
// every inference (a convolution's weights re-laid for vrmpy, `Fq`). docs/design.md, "Graphs".
#pragma once

#include <map>
#include <set>
#include <string>

#include "compiler/ir/IR.h"

namespace dspc {

// For each graph node with a constant argument: the stages of its func that are no results and
// read (transitively) only constant arguments, where some other stage reads them ("the
// frontier"), are computed by interpret(); the node then calls a specialization of its func,
// `<func>_folded` (one per func and set of constant parameters: the values are arguments, so
// nodes of the same func share it), whose parameters are the func's non-constant ones, its
// constant ones that its remaining stages still read, and the frontier stages' values (new graph
// constants named `<node's first result>_<stage>`), in that order. A frontier whose values would
// take more than twice the bytes of the constants they are computed from plus 64 KiB is left
// alone (a broadcast of a small constant is cheaper to compute than to store). Funcs that only
// graph calls instantiated (generic instantiations not in `keep`) and no call reads any more, and
// constants nothing reads any more, are dropped. Returns each specialization's func, by name (the
// profile's resource bounds are the func's).
std::map<std::string, std::string> fold_constant_stages(TensorProgram& p, const std::set<std::string>& keep);

}  // namespace dspc
