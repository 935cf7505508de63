// Builders the unit tests share: tensor programs written by hand with the make() functions,
// for tests that must not depend on the .dsp parser.
#pragma once

#include <utility>
#include <vector>

#include "compiler/ir/IR.h"

namespace dspc::testing {

inline Expr v(const VarRef& x) {
  return var_expr(x);
}

inline Stage stage(Buffer out, std::vector<VarRef> vars, Expr body, bool is_result = false, Span span = {}) {
  Stage s;
  s.out = std::move(out);
  s.index_vars = std::move(vars);
  s.body = std::move(body);
  s.is_result = is_result;
  s.span = span;
  return s;
}

// The seed example (examples/alloc_vtcm.dsp): A_buf and B_buf staged in VTCM, C = A_buf + B_buf, all i8[2048].
inline TensorFunc alloc_vtcm() {
  TensorFunc f;
  f.name = "alloc_vtcm";
  Buffer a = BufferNode::make("A", DataType::i8(), {2048});
  Buffer b = BufferNode::make("B", DataType::i8(), {2048});
  Buffer c = BufferNode::make("C", DataType::i8(), {2048});
  Buffer a_buf = BufferNode::make("A_buf", DataType::i8(), {2048}, StorageScope::Vtcm);
  Buffer b_buf = BufferNode::make("B_buf", DataType::i8(), {2048}, StorageScope::Vtcm);
  f.inputs = {a, b};
  f.outputs = {c};
  VarRef i1 = VarNode::make("i"), i2 = VarNode::make("i"), i3 = VarNode::make("i");
  f.stages.push_back(stage(a_buf, {i1}, Load::make(a, {v(i1)})));
  f.stages.push_back(stage(b_buf, {i2}, Load::make(b, {v(i2)})));
  f.stages.push_back(stage(
      c, {i3}, Binary::make(BinaryOp::Add, Load::make(a_buf, {v(i3)}), Load::make(b_buf, {v(i3)})), true));
  return f;
}

}  // namespace dspc::testing
