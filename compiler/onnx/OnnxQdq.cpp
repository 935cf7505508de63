// QDQ folding (docs/onnx.md, "Quantized models"): quantization tools write a quantized
// operator as float operators between DequantizeLinear (DQ) and QuantizeLinear (Q). The fold
// rewrites these chains before the operators are converted, as TVM and onnxruntime fold them:
//
//   Q(Conv(DQ(x), DQ(w), bias) [-> Relu])  ->  QLinearConv(x, w, bias / (x_scale * w_scale))
//   Q(MatMul(DQ(a), DQ(b)) [-> Relu])      ->  QLinearMatMul(a, b)                   (2-D)
//   Q(Gemm(DQ(a), DQ(w), bias) [-> Relu])  ->  Reshape -> 1 x 1 QLinearConv -> Reshape
//   Q(Add(DQ(a), DQ(b)) [-> Relu])         ->  QLinearAdd(a, b)       (fixed point, broadcasting)
//   Q(MaxPool(DQ(x)))                      ->  MaxPool(x)        (the same scale and zero point)
//   Q(AveragePool(DQ(x))), Q(GlobalAveragePool(DQ(x)))  ->  QLinearAveragePool(x)        (the same)
//   Q(Relu(DQ(x)))                         ->  Max(x, zero point)  (the same scale and zero point)
//
// The convolution and the product accumulate exactly in integers instead of in f32 and round
// once, so their results are within one quantum of the float ones (the bias is rounded too), as
// is the sum's (its scale ratios are exact to 2^-13);
// MaxPool and Relu commute with the monotone DQ and Q, so theirs are exact; an average pool's
// is its integer sum's quotient rounded half to even, within one quantum. A Relu after a
// convolution or a product folds when the output's zero point is the lowest value of its dtype
// (then the saturation is the Relu). A DequantizeLinear that other nodes also read stays for
// them.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/onnx/OnnxModel.h"

namespace dspc::onnx_import {

namespace {

struct GraphIndex {
  std::map<std::string, int> producer;
  std::map<std::string, int> uses;
  std::map<std::string, const onnx::TensorProto*> init;
  std::map<std::string, std::vector<int64_t>> dims;  // of the values with a known shape (-1: unknown)
};

GraphIndex index_graph(const onnx::GraphProto& g) {
  GraphIndex ix;
  for (int i = 0; i < g.node_size(); ++i) {
    for (const auto& o : g.node(i).output()) ix.producer[o] = i;
    for (const auto& in : g.node(i).input()) ++ix.uses[in];
  }
  for (const auto& o : g.output()) ++ix.uses[o.name()];
  for (const auto& t : g.initializer()) {
    ix.init[t.name()] = &t;
    ix.dims[t.name()].assign(t.dims().begin(), t.dims().end());
  }
  auto note = [&](const onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
    std::vector<int64_t>& d = ix.dims[v.name()];
    d.clear();
    for (const auto& dim : v.type().tensor_type().shape().dim()) d.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  };
  for (const auto& v : g.value_info()) note(v);
  for (const auto& v : g.input()) note(v);
  for (const auto& v : g.output()) note(v);
  return ix;
}

int rank_of(const GraphIndex& ix, const std::string& value) {
  auto it = ix.dims.find(value);
  return it == ix.dims.end() ? -1 : static_cast<int>(it->second.size());
}

// The node that computes `value` with op type `op` (or null); when `single_use`, only if
// nothing else reads the value.
const onnx::NodeProto* producer(const onnx::GraphProto& g, const GraphIndex& ix, const std::string& value, const char* op,
                                bool single_use = true) {
  auto p = ix.producer.find(value);
  auto u = ix.uses.find(value);
  if (p == ix.producer.end() || u == ix.uses.end() || (single_use && u->second != 1)) return nullptr;
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

int64_t int_attribute(const onnx::NodeProto& n, const char* name, int64_t fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

// A DequantizeLinear's or QuantizeLinear's constant parameters (inputs 1 and 2): its scales,
// zero points (none: 0) and quantized dtype (without a zero point: u8), and the axis they run
// along when there are several.
struct QParams {
  std::vector<double> scale, zero;
  DataType dt = DataType::u8();
  int64_t axis = 1;
};

bool qparams(const GraphIndex& ix, const onnx::NodeProto& n, QParams& p) {
  DataType t;
  if (n.input_size() < 2 || !init_values(ix, n, 1, p.scale, t) || p.scale.empty()) return false;
  if (n.input_size() > 2 && !n.input(2).empty() && !init_values(ix, n, 2, p.zero, p.dt)) return false;
  if (p.zero.empty()) p.zero.assign(1, 0);
  if (p.zero.size() != 1 && p.zero.size() != p.scale.size()) return false;
  p.axis = int_attribute(n, "axis", 1);
  return p.dt == DataType::u8() || p.dt == DataType::i8();
}

// One scale and zero point, the same on both sides (a DQ's and a Q's): the quantized values
// mean the same reals.
bool same_scalar_params(const QParams& a, const QParams& b) {
  return a.scale.size() == 1 && b.scale.size() == 1 && a.zero.size() == 1 && b.zero.size() == 1 &&
         static_cast<float>(a.scale[0]) == static_cast<float>(b.scale[0]) && a.zero[0] == b.zero[0] && a.dt == b.dt;
}

// Whether a Relu between the float op and Q is Q's saturation: its zero point is the lowest
// value of its dtype.
bool relu_is_saturation(const QParams& y) {
  return y.zero.size() == 1 && y.zero[0] == (y.dt == DataType::u8() ? 0 : std::numeric_limits<int8_t>::min());
}

std::string input_or_empty(const onnx::NodeProto& n, int k) { return k < n.input_size() ? n.input(k) : std::string(); }

class Folder {
 public:
  explicit Folder(onnx::GraphProto& g)
      : g_(g), ix_(index_graph(g)), removed_(static_cast<size_t>(g.node_size()), false) {}

  int run() {
    for (int i = 0; i < g_.node_size(); ++i) {
      const onnx::NodeProto& q = g_.node(i);
      QParams y;
      if (q.op_type() != "QuantizeLinear" || !qparams(ix_, q, y) || y.scale.size() != 1 || y.zero.size() != 1) continue;
      const onnx::NodeProto* relu = producer(g_, ix_, q.input(0), "Relu");
      const std::string& in = relu ? relu->input(0) : q.input(0);
      if (const onnx::NodeProto* conv = producer(g_, ix_, in, "Conv")) {
        if (!relu || relu_is_saturation(y)) fold_conv(i, q, relu, *conv);
      } else if (const onnx::NodeProto* gemm = producer(g_, ix_, in, "Gemm")) {
        if (!relu || relu_is_saturation(y)) fold_gemm(i, q, relu, *gemm);
      } else if (const onnx::NodeProto* mm = producer(g_, ix_, in, "MatMul")) {
        if (!relu || relu_is_saturation(y)) fold_matmul(i, q, relu, *mm);
      } else if (const onnx::NodeProto* add = producer(g_, ix_, in, "Add")) {
        if (!relu || relu_is_saturation(y)) fold_add(i, q, y, relu, *add);
      } else if (const onnx::NodeProto* pool = producer(g_, ix_, in, "MaxPool"); pool && !relu) {
        fold_maxpool(i, q, y, *pool);
      } else if (const onnx::NodeProto* avg = producer(g_, ix_, in, "AveragePool"); avg && !relu) {
        fold_avgpool(i, q, y, *avg, false);
      } else if (const onnx::NodeProto* gavg = producer(g_, ix_, in, "GlobalAveragePool"); gavg && !relu) {
        fold_avgpool(i, q, y, *gavg, true);
      } else if (relu) {
        fold_relu(i, q, y, *relu);
      }
    }
    return finish();
  }

 private:
  // Q(Conv(DQ(x), DQ(w), bias)) with constant weights: QLinearConv with the bias in the
  // accumulator's units, rounded half to even as QuantizeLinear rounds.
  void fold_conv(int qi, const onnx::NodeProto& q, const onnx::NodeProto* relu, const onnx::NodeProto& conv) {
    if (conv.input_size() < 2) return;
    const onnx::NodeProto* dqx = producer(g_, ix_, conv.input(0), "DequantizeLinear", false);
    const onnx::NodeProto* dqw = producer(g_, ix_, conv.input(1), "DequantizeLinear");
    QParams xp, wp;
    if (!dqx || !dqw || !ix_.init.count(dqw->input(0)) || !qparams(ix_, *dqx, xp) || xp.scale.size() != 1 ||
        !qparams(ix_, *dqw, wp))
      return;
    // Per-channel weight scales must be along the output channels (axis 0; the default is 1).
    if (wp.scale.size() > 1 && wp.axis != 0) return;
    const onnx::TensorProto& w = *ix_.init.at(dqw->input(0));
    int64_t m = w.dims_size() > 0 ? w.dims(0) : 0;
    if (m <= 0 || (wp.scale.size() != 1 && static_cast<int64_t>(wp.scale.size()) != m)) return;
    std::vector<double> bias;
    if (conv.input_size() > 2 && !conv.input(2).empty()) {
      DataType bt;
      if (!init_values(ix_, conv, 2, bias, bt) || static_cast<int64_t>(bias.size()) != m) return;
    }
    onnx::TensorProto b = accumulator_bias(conv.name().empty() ? q.output(0) : conv.name(), bias, m, xp, wp);
    onnx::NodeProto n = node("QLinearConv", conv, q,
                             {dqx->input(0), input_or_empty(*dqx, 1), input_or_empty(*dqx, 2), dqw->input(0),
                              input_or_empty(*dqw, 1), input_or_empty(*dqw, 2), q.input(1), input_or_empty(q, 2), b.name()});
    for (const auto& a : conv.attribute()) *n.add_attribute() = a;
    inits_.push_back(b);
    replace(qi, std::move(n), {dqx, dqw, &conv, relu});
  }

  // Q(Gemm(DQ(a), DQ(w), bias)) with constant weights, alpha = beta = 1 and a not transposed:
  // a 1 x 1 QLinearConv over a batch of M rows, a reshaped to [M, K, 1, 1] and the result back
  // to [M, N]; the weights become [N, K, 1, 1] (transposed here when transB is 0).
  void fold_gemm(int qi, const onnx::NodeProto& q, const onnx::NodeProto* relu, const onnx::NodeProto& gemm) {
    if (gemm.input_size() < 2 || rank_of(ix_, gemm.input(0)) != 2) return;
    for (const auto& a : gemm.attribute())
      if ((a.name() == "alpha" || a.name() == "beta") ? a.f() != 1.0f : a.name() == "transA" ? a.i() != 0 : false) return;
    bool trans_b = int_attribute(gemm, "transB", 0) != 0;
    const onnx::NodeProto* dqa = producer(g_, ix_, gemm.input(0), "DequantizeLinear", false);
    const onnx::NodeProto* dqw = producer(g_, ix_, gemm.input(1), "DequantizeLinear");
    QParams ap, wp;
    if (!dqa || !dqw || !ix_.init.count(dqw->input(0)) || !qparams(ix_, *dqa, ap) || ap.scale.size() != 1 ||
        ap.zero.size() != 1 || !qparams(ix_, *dqw, wp))
      return;
    const onnx::TensorProto& w = *ix_.init.at(dqw->input(0));
    if (w.dims_size() != 2) return;
    int64_t n = trans_b ? w.dims(0) : w.dims(1), k = trans_b ? w.dims(1) : w.dims(0);
    // Per-channel weight scales must be along N, the output columns.
    int64_t axis = wp.axis < 0 ? wp.axis + 2 : wp.axis;
    if (wp.scale.size() > 1 && (static_cast<int64_t>(wp.scale.size()) != n || axis != (trans_b ? 0 : 1))) return;
    std::vector<double> bias;
    if (gemm.input_size() > 2 && !gemm.input(2).empty()) {
      DataType bt;
      if (!init_values(ix_, gemm, 2, bias, bt) || static_cast<int64_t>(bias.size()) != n) return;
    }
    onnx::TensorProto w4;
    try {
      DataType dt = tensor_dtype(w.data_type(), "Gemm's weights");
      auto bytes = tensor_bytes(w, dt, {w.dims(0), w.dims(1)}, "Gemm's weights");
      if (!trans_b) bytes = permute(*bytes, dt, {k, n}, {1, 0});
      w4.set_data_type(w.data_type());
      w4.set_raw_data(std::string(bytes->begin(), bytes->end()));
    } catch (const std::exception&) {
      return;
    }
    std::string base = gemm.name().empty() ? q.output(0) : gemm.name();
    w4.set_name(base + "_weights_nk11");
    for (int64_t d : {n, k, int64_t(1), int64_t(1)}) w4.add_dims(d);
    onnx::TensorProto b = accumulator_bias(base, bias, n, ap, wp);
    onnx::TensorProto in_shape = i64_tensor(base + "_shape_mk11", {gemm_rows(gemm), k, 1, 1});
    onnx::TensorProto out_shape = i64_tensor(base + "_shape_mn", {gemm_rows(gemm), n});
    if (in_shape.int64_data(0) <= 0) return;
    onnx::NodeProto reshape_in = node("Reshape", gemm, q, {dqa->input(0), in_shape.name()});
    reshape_in.set_output(0, base + "_rows_mk11");
    onnx::NodeProto conv = node("QLinearConv", gemm, q,
                                {reshape_in.output(0), dqa->input(1), input_or_empty(*dqa, 2), w4.name(),
                                 dqw->input(1), input_or_empty(*dqw, 2), q.input(1), input_or_empty(q, 2), b.name()});
    conv.set_output(0, base + "_conv_mn11");
    onnx::NodeProto reshape_out = node("Reshape", gemm, q, {conv.output(0), out_shape.name()});
    for (auto* t : {&w4, &b, &in_shape, &out_shape}) inits_.push_back(*t);
    replace(qi, {reshape_in, conv, reshape_out}, {dqa, dqw, &gemm, relu});
  }

  // Gemm's M: its first input's first dimension, or 0 when shape inference did not give it.
  int64_t gemm_rows(const onnx::NodeProto& gemm) const {
    auto it = ix_.dims.find(gemm.input(0));
    return it == ix_.dims.end() || it->second.empty() ? 0 : it->second[0];
  }

  static onnx::TensorProto i64_tensor(const std::string& name, const std::vector<int64_t>& values) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t.add_int64_data(v);
    return t;
  }

  // The float bias in the accumulator's units (x_scale * w_scale), rounded half to even as
  // QuantizeLinear rounds.
  static onnx::TensorProto accumulator_bias(const std::string& base, const std::vector<double>& bias, int64_t m,
                                            const QParams& xp, const QParams& wp) {
    onnx::TensorProto b;
    b.set_name(base + "_bias_q");
    b.set_data_type(onnx::TensorProto::INT32);
    b.add_dims(m);
    for (int64_t k = 0; k < m; ++k) {
      double v = bias.empty() ? 0 : bias[static_cast<size_t>(k)];
      double s = static_cast<double>(static_cast<float>(xp.scale[0]) *
                                     static_cast<float>(wp.scale[wp.scale.size() == 1 ? 0 : static_cast<size_t>(k)]));
      b.add_int32_data(static_cast<int32_t>(std::nearbyint(std::clamp(v / s, -2147483648.0, 2147483647.0))));
    }
    return b;
  }

  // Q(MatMul(DQ(a), DQ(b))) of 2-D operands, a's parameters per tensor, b's per tensor or per
  // column: QLinearMatMul.
  void fold_matmul(int qi, const onnx::NodeProto& q, const onnx::NodeProto* relu, const onnx::NodeProto& mm) {
    if (mm.input_size() != 2 || rank_of(ix_, mm.input(0)) != 2 || rank_of(ix_, mm.input(1)) != 2) return;
    const onnx::NodeProto* dqa = producer(g_, ix_, mm.input(0), "DequantizeLinear", false);
    const onnx::NodeProto* dqb = producer(g_, ix_, mm.input(1), "DequantizeLinear", false);
    QParams ap, bp;
    if (!dqa || !dqb || !qparams(ix_, *dqa, ap) || !qparams(ix_, *dqb, bp) || ap.scale.size() != 1 || ap.zero.size() != 1)
      return;
    if (bp.scale.size() > 1 && bp.axis != 1 && bp.axis != -1) return;  // per column of b only
    onnx::NodeProto n = node("QLinearMatMul", mm, q,
                             {dqa->input(0), dqa->input(1), input_or_empty(*dqa, 2), dqb->input(0), dqb->input(1),
                              input_or_empty(*dqb, 2), q.input(1), input_or_empty(q, 2)});
    replace(qi, std::move(n), {dqa, dqb, &mm, relu});
  }

  // Q(Add(DQ(a), DQ(b))) with per-tensor parameters: the fold's QLinearAdd.
  void fold_add(int qi, const onnx::NodeProto& q, const QParams& y, const onnx::NodeProto* relu, const onnx::NodeProto& add) {
    if (add.input_size() != 2) return;
    const onnx::NodeProto* dqa = producer(g_, ix_, add.input(0), "DequantizeLinear", false);
    const onnx::NodeProto* dqb = producer(g_, ix_, add.input(1), "DequantizeLinear", false);
    QParams ap, bp;
    if (!dqa || !dqb || !qparams(ix_, *dqa, ap) || !qparams(ix_, *dqb, bp) || ap.scale.size() != 1 ||
        bp.scale.size() != 1 || ap.zero.size() != 1 || bp.zero.size() != 1 ||
        qlinear_add_shift(ap.scale[0] / y.scale[0], bp.scale[0] / y.scale[0]) < 0)
      return;
    onnx::NodeProto n = node(kFoldedQLinearAdd, add, q,
                             {dqa->input(0), dqa->input(1), input_or_empty(*dqa, 2), dqb->input(0), dqb->input(1),
                              input_or_empty(*dqb, 2), q.input(1), input_or_empty(q, 2)});
    replace(qi, std::move(n), {dqa, dqb, &add, relu});
  }

  // Q(MaxPool(DQ(x))) with the same parameters on both sides: MaxPool(x), exact.
  void fold_maxpool(int qi, const onnx::NodeProto& q, const QParams& y, const onnx::NodeProto& pool) {
    if (pool.output_size() != 1) return;  // no Indices output
    const onnx::NodeProto* dq = producer(g_, ix_, pool.input(0), "DequantizeLinear", false);
    QParams xp;
    if (!dq || !qparams(ix_, *dq, xp) || !same_scalar_params(xp, y)) return;
    onnx::NodeProto n = node("MaxPool", pool, q, {dq->input(0)});
    for (const auto& a : pool.attribute()) *n.add_attribute() = a;
    replace(qi, std::move(n), {dq, &pool});
  }

  // Q(AveragePool(DQ(x))) of a 4-D x with the same parameters on both sides (a global one as a
  // window of the whole image): the fold's QLinearAveragePool.
  void fold_avgpool(int qi, const onnx::NodeProto& q, const QParams& y, const onnx::NodeProto& pool, bool global) {
    auto dims = ix_.dims.find(pool.input(0));
    if (dims == ix_.dims.end() || dims->second.size() != 4 || dims->second[2] <= 0 || dims->second[3] <= 0) return;
    const onnx::NodeProto* dq = producer(g_, ix_, pool.input(0), "DequantizeLinear", false);
    QParams xp;
    if (!dq || !qparams(ix_, *dq, xp) || !same_scalar_params(xp, y)) return;
    onnx::NodeProto n = node(kFoldedQAveragePool, pool, q, {dq->input(0), dq->input(1), input_or_empty(*dq, 2)});
    if (global) {
      onnx::AttributeProto* k = n.add_attribute();
      k->set_name("kernel_shape");
      k->set_type(onnx::AttributeProto::INTS);
      k->add_ints(dims->second[2]);
      k->add_ints(dims->second[3]);
    } else {
      for (const auto& a : pool.attribute()) *n.add_attribute() = a;
    }
    replace(qi, std::move(n), {dq, &pool});
  }

  // Q(Relu(DQ(x))) with the same parameters on both sides: Max(x, zero point), exact.
  void fold_relu(int qi, const onnx::NodeProto& q, const QParams& y, const onnx::NodeProto& relu) {
    const onnx::NodeProto* dq = producer(g_, ix_, relu.input(0), "DequantizeLinear", false);
    QParams xp;
    if (!dq || !qparams(ix_, *dq, xp) || !same_scalar_params(xp, y)) return;
    onnx::TensorProto z;
    z.set_name(q.output(0) + "_zero_point");
    z.set_data_type(y.dt == DataType::u8() ? onnx::TensorProto::UINT8 : onnx::TensorProto::INT8);
    z.add_int32_data(static_cast<int32_t>(y.zero[0]));
    onnx::NodeProto n = node("Max", relu, q, {dq->input(0), z.name()});
    inits_.push_back(z);
    replace(qi, std::move(n), {dq, &relu});
  }

  // A node of type `op` named after `from` (or Q's output), reading `inputs`, writing Q's output.
  static onnx::NodeProto node(const char* op, const onnx::NodeProto& from, const onnx::NodeProto& q,
                              std::initializer_list<std::string> inputs) {
    onnx::NodeProto n;
    n.set_op_type(op);
    n.set_name((from.name().empty() ? q.output(0) : from.name()) + " (QDQ folded)");
    for (const std::string& s : inputs) n.add_input(s);
    n.add_output(q.output(0));
    return n;
  }

  // `n` takes the place of Q (node qi); the chain's other nodes go, but a DequantizeLinear that
  // something else reads (finish() keeps it when it still has a reader).
  void replace(int qi, onnx::NodeProto n, std::initializer_list<const onnx::NodeProto*> chain) {
    replace(qi, std::vector<onnx::NodeProto>{std::move(n)}, chain);
  }
  void replace(int qi, std::vector<onnx::NodeProto> nodes, std::initializer_list<const onnx::NodeProto*> chain) {
    for (const onnx::NodeProto* d : chain)
      if (d) removed_[static_cast<size_t>(ix_.producer.at(d->output(0)))] = true;
    removed_[static_cast<size_t>(qi)] = true;
    replacement_[qi] = std::move(nodes);
  }

  int finish() {
    if (replacement_.empty()) return 0;
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    std::map<std::string, int> uses;  // of the values the kept nodes and the graph's outputs read
    for (const auto& o : g_.output()) ++uses[o.name()];
    for (int i = 0; i < g_.node_size(); ++i) {
      if (auto r = replacement_.find(i); r != replacement_.end()) {
        for (const auto& n : r->second)
          for (const auto& in : n.input()) ++uses[in];
      } else if (!removed_[static_cast<size_t>(i)]) {
        for (const auto& in : g_.node(i).input()) ++uses[in];
      }
    }
    for (int i = 0; i < g_.node_size(); ++i) {
      const onnx::NodeProto& n = g_.node(i);
      if (auto r = replacement_.find(i); r != replacement_.end())
        for (const auto& m : r->second) *nodes.Add() = m;
      else if (!removed_[static_cast<size_t>(i)] || (n.op_type() == "DequantizeLinear" && uses[n.output(0)] > 0))
        *nodes.Add() = n;
    }
    g_.mutable_node()->Swap(&nodes);
    for (auto& t : inits_) *g_.add_initializer() = t;
    return static_cast<int>(replacement_.size());
  }

  onnx::GraphProto& g_;
  GraphIndex ix_;
  std::vector<bool> removed_;
  std::map<int, std::vector<onnx::NodeProto>> replacement_;  // at the QuantizeLinear's place
  std::vector<onnx::TensorProto> inits_;
};

}  // namespace

int fold_qdq(onnx::GraphProto& g) { return Folder(g).run(); }

int qlinear_add_shift(double ratio_a, double ratio_b) {
  if (!(ratio_a > 0) || !(ratio_b > 0) || !std::isfinite(ratio_a) || !std::isfinite(ratio_b)) return -1;
  for (int s = 24; s >= 12; --s) {
    double ma = std::nearbyint(std::ldexp(ratio_a, s)), mb = std::nearbyint(std::ldexp(ratio_b, s));
    // |a - za| and |b - zb| are at most 255 for u8 and i8.
    if (255.0 * (ma + mb) + std::ldexp(1.0, s - 1) < 2147483648.0) return s;
  }
  return -1;
}

}  // namespace dspc::onnx_import
