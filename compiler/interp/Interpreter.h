// The reference interpreter: evaluates .dsp semantics directly on the host, stage by stage,
// with no lowering. It is the oracle the end-to-end tests compare compiled code against.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/IR.h"

namespace dspc {

// A dense row-major tensor; data holds little-endian elements (bool: one byte each).
struct Tensor {
  DataType dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  int64_t num_elements() const;
  static Tensor zeros(DataType dtype, std::vector<int64_t> shape);
};

// Told before each stage: its output's name, and that it is stage k (from 1) of n.
using InterpretProgress = std::function<void(const std::string& stage, size_t k, size_t n)>;

// Runs `f` on `inputs` (in parameter order) and fills `outputs` (in result order).
// Returns false with a message if the inputs do not match the signature.
bool interpret(const TensorFunc& f, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
               std::string& error, const InterpretProgress& progress = nullptr);

// Deterministic pseudo-random tensor (full range of the dtype for integers; [-8, 8) for floats).
Tensor random_tensor(DataType dtype, std::vector<int64_t> shape, uint64_t seed);

}  // namespace dspc
