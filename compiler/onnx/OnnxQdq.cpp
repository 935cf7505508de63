// QDQ folding (docs/onnx.md, "Quantized models"): quantization tools write a quantized
// convolution as float operators between DequantizeLinear and QuantizeLinear,
//
//   DequantizeLinear(x) -> Conv(., DequantizeLinear(w), bias) [-> Relu] -> QuantizeLinear -> y
//
// which is QLinearConv(x, w, bias / (x_scale * w_scale)) computed in integers, as TVM and
// onnxruntime fold it. The fold rewrites the graph before the operators are converted; its
// result is within one quantum of the float one (the bias is rounded, and the accumulation is
// exact instead of in f32). A Relu folds when the output's zero point is the lowest value of its
// dtype (then the saturation is the Relu).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "compiler/onnx/OnnxModel.h"

namespace dspc::onnx_import {

namespace {

struct GraphIndex {
  std::map<std::string, int> producer;
  std::map<std::string, int> uses;
  std::map<std::string, const onnx::TensorProto*> init;
};

GraphIndex index_graph(const onnx::GraphProto& g) {
  GraphIndex ix;
  for (int i = 0; i < g.node_size(); ++i) {
    for (const auto& o : g.node(i).output()) ix.producer[o] = i;
    for (const auto& in : g.node(i).input()) ++ix.uses[in];
  }
  for (const auto& o : g.output()) ++ix.uses[o.name()];
  for (const auto& t : g.initializer()) ix.init[t.name()] = &t;
  return ix;
}

// The node that computes `value` with op type `op`, used only once, or null.
const onnx::NodeProto* single_use_producer(const onnx::GraphProto& g, const GraphIndex& ix, const std::string& value,
                                           const char* op) {
  auto p = ix.producer.find(value);
  auto u = ix.uses.find(value);
  if (p == ix.producer.end() || u == ix.uses.end() || u->second != 1) return nullptr;
  const onnx::NodeProto& n = g.node(p->second);
  return n.op_type() == op ? &n : nullptr;
}

// An initializer's elements as doubles (or as integers for zero points), when it is one.
bool init_values(const GraphIndex& ix, const onnx::NodeProto& n, int input, std::vector<double>& out, DataType& dt) {
  if (input >= n.input_size() || n.input(input).empty()) return false;
  auto it = ix.init.find(n.input(input));
  if (it == ix.init.end()) return false;
  bool ok = true;
  try {
    dt = tensor_dtype(it->second->data_type(), "a quantization parameter");
    std::vector<int64_t> shape(it->second->dims().begin(), it->second->dims().end());
    auto bytes = tensor_bytes(*it->second, dt, shape, "a quantization parameter");
    out.clear();
    for (int64_t i = 0; i < num_elements(shape); ++i) out.push_back(get_f(dt, *bytes, static_cast<size_t>(i)));
  } catch (const std::exception&) {
    ok = false;
  }
  return ok;
}

}  // namespace

int fold_qdq(onnx::GraphProto& g) {
  GraphIndex ix = index_graph(g);
  std::vector<bool> removed(static_cast<size_t>(g.node_size()), false);
  std::map<int, onnx::NodeProto> replacement;  // at the QuantizeLinear's place
  std::vector<onnx::TensorProto> biases;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& q = g.node(i);
    if (q.op_type() != "QuantizeLinear" || q.input_size() < 2) continue;
    const onnx::NodeProto* relu = single_use_producer(g, ix, q.input(0), "Relu");
    const onnx::NodeProto* conv = single_use_producer(g, ix, relu ? relu->input(0) : q.input(0), "Conv");
    if (!conv || conv->input_size() < 2) continue;
    const onnx::NodeProto* dqx = single_use_producer(g, ix, conv->input(0), "DequantizeLinear");
    const onnx::NodeProto* dqw = single_use_producer(g, ix, conv->input(1), "DequantizeLinear");
    if (!dqx || !dqw || !ix.init.count(dqw->input(0))) continue;
    std::vector<double> xs, ws, ys, yz, bias;
    DataType t, yt = DataType::u8();
    if (!init_values(ix, *dqx, 1, xs, t) || xs.size() != 1 || !init_values(ix, *dqw, 1, ws, t) ||
        !init_values(ix, q, 1, ys, t) || ys.size() != 1)
      continue;
    if (q.input_size() > 2 && !q.input(2).empty() && !init_values(ix, q, 2, yz, yt)) continue;
    if (yz.size() > 1) continue;
    // Per-channel weight scales must be along the output channels (axis 0; the default is 1).
    if (ws.size() > 1) {
      bool axis0 = false;
      for (const auto& a : dqw->attribute()) axis0 |= a.name() == "axis" && a.i() == 0;
      if (!axis0) ws.clear();
    }
    if (ws.empty()) continue;
    double zero = yz.empty() ? 0 : yz[0];
    if (relu && !(yt == DataType::u8() ? zero == 0 : zero == std::numeric_limits<int8_t>::min())) continue;
    const onnx::TensorProto& w = *ix.init.at(dqw->input(0));
    int64_t m = w.dims_size() > 0 ? w.dims(0) : 0;
    if (m <= 0 || (ws.size() != 1 && static_cast<int64_t>(ws.size()) != m)) continue;
    if (conv->input_size() > 2 && !conv->input(2).empty()) {
      DataType bt;
      if (!init_values(ix, *conv, 2, bias, bt) || static_cast<int64_t>(bias.size()) != m) continue;
    }
    // The bias in the accumulator's units, rounded half to even as QuantizeLinear rounds.
    onnx::TensorProto b;
    b.set_name(conv->name().empty() ? q.output(0) + "_bias_q" : conv->name() + "_bias_q");
    b.set_data_type(onnx::TensorProto::INT32);
    b.add_dims(m);
    for (int64_t k = 0; k < m; ++k) {
      double v = bias.empty() ? 0 : bias[static_cast<size_t>(k)];
      double s = static_cast<double>(static_cast<float>(xs[0]) * static_cast<float>(ws[ws.size() == 1 ? 0 : static_cast<size_t>(k)]));
      b.add_int32_data(static_cast<int32_t>(std::nearbyint(std::clamp(v / s, -2147483648.0, 2147483647.0))));
    }
    onnx::NodeProto n;
    n.set_op_type("QLinearConv");
    n.set_name((conv->name().empty() ? q.output(0) : conv->name()) + " (QDQ folded)");
    auto in = [](const onnx::NodeProto& p, int k) { return k < p.input_size() ? p.input(k) : std::string(); };
    for (const std::string& s : {dqx->input(0), in(*dqx, 1), in(*dqx, 2), dqw->input(0), in(*dqw, 1), in(*dqw, 2),
                                 q.input(1), in(q, 2), b.name()})
      n.add_input(s);
    n.add_output(q.output(0));
    for (const auto& a : conv->attribute()) *n.add_attribute() = a;
    biases.push_back(b);
    for (const onnx::NodeProto* d : {dqx, dqw, conv, relu})
      if (d) removed[static_cast<size_t>(ix.producer.at(d->output(0)))] = true;
    removed[static_cast<size_t>(i)] = true;
    replacement[i] = std::move(n);
  }
  if (replacement.empty()) return 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < g.node_size(); ++i) {
    if (auto r = replacement.find(i); r != replacement.end()) *nodes.Add() = r->second;
    else if (!removed[static_cast<size_t>(i)]) *nodes.Add() = g.node(i);
  }
  g.mutable_node()->Swap(&nodes);
  for (auto& b : biases) *g.add_initializer() = b;
  return static_cast<int>(replacement.size());
}

}  // namespace dspc::onnx_import
