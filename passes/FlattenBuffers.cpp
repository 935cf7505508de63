// flatten-buffers
//  1. Map each buffer of rank > 1 to a rank-1 buffer over the same data variable, once per
//     buffer (memoized by identity), starting with the function parameters.
//  2. Rewrite every access to a mapped buffer: cast each index to i32 (keeping its lanes)
//     and fold them row-major, index = index * extent + next; scalar terms are broadcast
//     when another index is a vector.
//  3. Allocate / DeclBuffer pick up the mapped buffer through mutate_buffer.
#include "passes/FlattenBuffers.h"

#include <algorithm>
#include <map>

#include "compiler/ir/IRVisitor.h"

namespace dspc {

namespace {

Expr to_i32(const Expr& e) {
  DataType want = DataType::i32().with_lanes(e.dtype().lanes);
  return e.dtype() == want ? e : Cast::make(want, e, e->span);
}

Expr with_lanes(const Expr& e, int lanes) {
  return e.dtype().lanes == lanes ? e : Broadcast::make(e, lanes, e->span);
}

// Row-major linear index of `indices` into `shape`, in i32.
Expr linear_index(const std::vector<Expr>& indices, const std::vector<int64_t>& shape) {
  int lanes = 1;
  for (const auto& i : indices) lanes = std::max<int>(lanes, i.dtype().lanes);
  Expr linear = with_lanes(to_i32(indices[0]), lanes);
  for (size_t d = 1; d < indices.size(); ++d) {
    Expr extent = with_lanes(make_i32(shape[d]), lanes);
    Expr scaled = Binary::make(BinaryOp::Mul, linear, extent);
    linear = Binary::make(BinaryOp::Add, scaled, with_lanes(to_i32(indices[d]), lanes));
  }
  return linear;
}

class Flattener : public IRMutator {
 public:
  Buffer mutate_buffer(const Buffer& b) override {
    if (b->shape.size() <= 1) return b;
    auto it = flat_.find(b.get());
    if (it != flat_.end()) return it->second;
    Buffer flat = BufferNode::make_with_data(b->data, b->dtype, {b->num_elements()}, b->scope, b->span);
    flat_.emplace(b.get(), flat);
    return flat;
  }

  Expr mutate_Load(const Load* op, const Expr& self) override {
    if (op->buffer->shape.size() <= 1) return IRMutator::mutate_Load(op, self);
    return Load::make(mutate_buffer(op->buffer), {linear_index(mutate_all(op->indices), op->buffer->shape)},
                      op->span);
  }

  Stmt mutate_Store(const Store* op, const Stmt& self) override {
    if (op->buffer->shape.size() <= 1) return IRMutator::mutate_Store(op, self);
    return Store::make(mutate_buffer(op->buffer), {linear_index(mutate_all(op->indices), op->buffer->shape)},
                       mutate(op->value), op->span);
  }

 private:
  std::vector<Expr> mutate_all(const std::vector<Expr>& v) {
    std::vector<Expr> out;
    for (const auto& e : v) out.push_back(mutate(e));
    return out;
  }

  // Keyed by identity; the originals stay alive in the input module.
  std::map<const BufferNode*, Buffer> flat_;
};

std::vector<Buffer> flatten_params(Flattener& f, const std::vector<Buffer>& params) {
  std::vector<Buffer> out;
  for (const auto& b : params) out.push_back(f.mutate_buffer(b));
  return out;
}

}  // namespace

Module flatten_buffers(const Module& m, const LowerOptions& options) {
  Module out = m;
  for (auto& f : out.funcs) {
    Flattener flattener;
    f.inputs = flatten_params(flattener, f.inputs);
    f.outputs = flatten_params(flattener, f.outputs);
    f.body = flattener.mutate(f.body);
  }
  return out;
}

}  // namespace dspc
