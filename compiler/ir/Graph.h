// A dataflow graph of calls (the `graph` form of .dsp), and the order and device groups the
// group-device-calls pass gives it. Tensors are numbered; nodes name funcs of the same program.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/DataType.h"
#include "compiler/ir/SourceLocation.h"

namespace dspc {

enum class Placement : uint8_t { Device, Host };
const char* placement_name(Placement p);  // "device", "host"

struct GraphTensor {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
  Span span;          // where it is defined (a graph parameter or the name a call assigns)
  int producer = -1;  // the node that computes it; -1 for a graph input or a constant
  int output = 0;     // which result of the producer
  // A constant tensor (`const w: f32[2] = [...]` in a graph): its elements, little-endian
  // (bool: a byte each), num_bytes() of them. Null for every other tensor. A constant is
  // compiled into the module as read-only data and passed to the kernels that read it.
  std::shared_ptr<const std::vector<uint8_t>> constant;
  int64_t num_bytes() const;
  bool is_constant() const { return constant != nullptr; }
};

struct GraphNode {
  std::string func;  // a func of the same program
  std::vector<int> inputs;   // tensor ids, in the func's parameter order
  std::vector<int> outputs;  // tensor ids, in the func's result order
  Placement placement = Placement::Device;
  Span span;  // the callee's name
};

struct Graph {
  std::string name;
  Span span;
  std::vector<GraphTensor> tensors;
  std::vector<int> inputs, outputs;  // tensor ids, in signature order
  std::vector<GraphNode> nodes;      // in source order (any order that respects dependencies runs)

  // For each node, the nodes it reads from (sorted, no duplicates).
  std::vector<std::vector<int>> predecessors() const;
};

// One step of a graph's execution order: a run of host nodes (each its own native call), or
// a device group, which is one device function `func` that calls the group's kernels directly.
struct GraphStep {
  Placement side = Placement::Device;
  std::vector<int> nodes;  // in execution order
  std::string func;        // device groups: the group function's name
  std::vector<int> inputs, outputs;  // device groups: the tensors its function takes and gives
};

struct GraphPlan {
  std::string graph;
  std::vector<int> order;  // every node once, dependencies first
  std::vector<GraphStep> steps;
  bool grouped = true;     // false: --no-group-device-calls, one device step per node
  // For printing: each node as "a, b = f(x)" ("@host ..." on the host), and the tensors' names.
  std::vector<std::string> node_text;
  std::vector<std::string> tensor_names;
  int device_groups() const;
};

}  // namespace dspc
