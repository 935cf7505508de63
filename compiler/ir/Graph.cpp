#include "compiler/ir/Graph.h"

#include <algorithm>

namespace dspc {

const char* placement_name(Placement p) { return p == Placement::Host ? "host" : "device"; }

int64_t GraphTensor::num_bytes() const {
  int64_t n = dtype.bytes();
  for (int64_t e : shape) n *= e;
  return n;
}

std::vector<std::vector<int>> Graph::predecessors() const {
  std::vector<std::vector<int>> preds(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (int t : nodes[i].inputs) {
      int p = tensors[static_cast<size_t>(t)].producer;
      if (p >= 0) preds[i].push_back(p);
    }
    std::sort(preds[i].begin(), preds[i].end());
    preds[i].erase(std::unique(preds[i].begin(), preds[i].end()), preds[i].end());
  }
  return preds;
}

int GraphPlan::device_groups() const {
  int n = 0;
  for (const GraphStep& s : steps) n += s.side == Placement::Device;
  return n;
}

}  // namespace dspc
