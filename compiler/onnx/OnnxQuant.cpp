// The quantized operators of the ONNX importer (schedules/onnx_quant.dsp): QuantizeLinear,
// DequantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv. Scales and zero
// points are constants; rounding is half to even, as numpy's rint (ONNX's reference).
#include <onnx/onnx_pb.h>

#include <cmath>

#include "compiler/onnx/OnnxModel.h"

namespace dspc::onnx_import {

namespace {

std::shared_ptr<std::vector<uint8_t>> i32_bytes(const std::vector<int64_t>& v) {
  auto b = std::make_shared<std::vector<uint8_t>>(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) put_i(DataType::i32(), *b, i, v[i]);
  return b;
}

}  // namespace

std::vector<int64_t> Importer::zero_points(size_t input, int64_t count, DataType& dt, const char* what) {
  std::vector<int64_t> out(static_cast<size_t>(count), 0);
  if (!has_input(input)) return out;
  Val& z = const_input(input, what);
  int64_t n = num_elements(z.shape);
  if (n != 1 && n != count) fail(std::string(what) + " must hold 1 or " + std::to_string(count) + " values");
  if (z.dt != DataType::u8() && z.dt != DataType::i8() && z.dt != DataType::i32())
    fail(std::string(what) + " is " + z.dt.str() + "; u8, i8 and i32 are supported");
  dt = z.dt;
  for (int64_t i = 0; i < count; ++i) out[static_cast<size_t>(i)] = get_i(z.dt, *z.data, static_cast<size_t>(n == 1 ? 0 : i));
  return out;
}

std::vector<double> Importer::scales(size_t input, int64_t count, const char* what) {
  Val& s = const_input(input, what);
  int64_t n = num_elements(s.shape);
  if (n != 1 && n != count) fail(std::string(what) + " must hold 1 or " + std::to_string(count) + " values");
  if (s.dt != DataType::f32()) fail(std::string(what) + " must be f32");
  std::vector<double> out;
  for (int64_t i = 0; i < count; ++i) out.push_back(get_f(s.dt, *s.data, static_cast<size_t>(n == 1 ? 0 : i)));
  return out;
}

// A scale or zero point (input `input`, a scalar or one value per index of `axis`) as a constant
// of x's rank that broadcasts against it, in x's layout.
Val Importer::broadcast_param(size_t input, DataType dt, const Val& x, int64_t axis, const char* what) {
  Val v;
  v.dt = dt;
  size_t r = std::max<size_t>(x.shape.size(), 1);
  v.shape.assign(r, 1);
  int64_t count = 1;
  if (has_input(input)) {
    Val& p = const_input(input, what);
    count = num_elements(p.shape);
    if (p.dt != dt) fail(std::string(what) + " is " + p.dt.str() + ", not " + dt.str());
    if (count != 1) {
      if (axis < 0 || axis >= static_cast<int64_t>(x.shape.size()) || count != x.shape[static_cast<size_t>(axis)])
        fail(std::string(what) + " holds " + std::to_string(count) + " values, which fit neither the tensor nor axis " +
             std::to_string(axis));
      v.shape[static_cast<size_t>(axis)] = count;
    }
    v.data = std::make_shared<std::vector<uint8_t>>(*p.data);
  } else {
    v.data = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(dt.bytes()), 0);
  }
  v.hint = what;
  return layout(v, x.nhwc);
}

void Importer::quantize() {
  Val x = input(0);
  need_dtype(x, {DataType::f32()}, "the input");
  int64_t axis = attr_int("axis", 1);
  if (axis < 0) axis += static_cast<int64_t>(x.shape.size());
  DataType dt = DataType::u8();
  if (has_input(2)) dt = const_input(2, "y_zero_point").dt;
  need_dtype(Val{dt}, {DataType::u8(), DataType::i8()}, "y_zero_point");
  Val s = broadcast_param(1, DataType::f32(), x, axis, "y_scale");
  Val z = broadcast_param(2, dt, x, axis, "y_zero_point");
  std::vector<int64_t> targs = physical(x), ps = physical(s);
  if (targs.size() > 4) fail("more than 4 dimensions are not supported");
  targs.insert(targs.end(), ps.begin(), ps.end());
  Val out = x;
  out.dt = dt;
  out.data = nullptr;
  out.conv = -1;
  out.tensor = call("onnx_quant", "quantize_" + dt.str() + "_" + std::to_string(ps.size()), targs,
                    {tensor_of(x), tensor_of(s), tensor_of(z)}, dt, physical(x));
  set_output(0, out);
}

void Importer::dequantize() {
  Val x = input(0);
  need_dtype(x, {DataType::u8(), DataType::i8(), DataType::i32()}, "the input");
  int64_t axis = attr_int("axis", 1);
  if (axis < 0) axis += static_cast<int64_t>(x.shape.size());
  Val s = broadcast_param(1, DataType::f32(), x, axis, "x_scale");
  Val z = broadcast_param(2, x.dt, x, axis, "x_zero_point");
  std::vector<int64_t> targs = physical(x), ps = physical(s);
  if (targs.size() > 4) fail("more than 4 dimensions are not supported");
  targs.insert(targs.end(), ps.begin(), ps.end());
  Val out = x;
  out.dt = DataType::f32();
  out.data = nullptr;
  out.conv = -1;
  out.tensor = call("onnx_quant", "dequantize_" + x.dt.str() + "_" + std::to_string(ps.size()), targs,
                    {tensor_of(x), tensor_of(s), tensor_of(z)}, out.dt, physical(x));
  set_output(0, out);
}

// QLinearMatMul's and QLinearConv's requantization: inputs 1 and 4 are the operands' scales
// (the second per output channel or per-tensor), 6 and 7 the result's scale and zero point. Adds
// the per-channel multipliers (in f32, as the reference multiplies f32 scales) and the result's
// zero point to `args`; gives the result's dtype.
DataType Importer::requantization(int64_t channels, std::vector<std::string>& args) {
  std::vector<double> sa = scales(1, 1, "the first scale"), sb = scales(4, channels, "the second scale");
  std::vector<double> sy = scales(6, 1, "y_scale");
  DataType yt = DataType::u8();
  std::vector<int64_t> zy = zero_points(7, 1, yt, "y_zero_point");
  need_dtype(Val{yt}, {DataType::u8(), DataType::i8()}, "y_zero_point");
  auto mul = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(channels) * 4);
  for (int64_t j = 0; j < channels; ++j)
    put_f(DataType::f32(), *mul, static_cast<size_t>(j),
          static_cast<float>(static_cast<float>(sa[0]) * static_cast<float>(sb[static_cast<size_t>(j)])) /
              static_cast<float>(sy[0]));
  args.push_back(emit_const(DataType::f32(), {channels}, mul, "multiplier"));
  args.push_back(emit_const(DataType::i32(), {1}, i32_bytes(zy), "y_zero_point"));
  return yt;
}

// MatMulInteger(A, B, a_zero_point, b_zero_point) and
// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point).
void Importer::matmul_integer(bool qlinear) {
  size_t ia = 0, ib = qlinear ? 3 : 1;
  Val a = layout(input(ia), false), b = layout(input(ib), false);
  const std::vector<DataType> q = {DataType::u8(), DataType::i8()};
  need_dtype(a, q, "A");
  need_dtype(b, q, "B");
  if (a.shape.size() != 2 || b.shape.size() != 2) fail("only 2-D operands are supported");
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  if (b.shape[0] != k) fail("the inner dimensions differ: " + shape_text(a.shape) + " x " + shape_text(b.shape));
  DataType zt;
  std::vector<int64_t> za = zero_points(qlinear ? 2 : 2, m, zt, "a_zero_point");
  std::vector<int64_t> zb = zero_points(qlinear ? 5 : 3, n, zt, "b_zero_point");
  std::vector<std::string> args = {tensor_of(a), tensor_of(b), emit_const(DataType::i32(), {m}, i32_bytes(za), "a_zero_point"),
                                   emit_const(DataType::i32(), {n}, i32_bytes(zb), "b_zero_point")};
  Val out;
  out.shape = {m, n};
  std::string func = "_" + a.dt.str() + "_" + b.dt.str();
  if (qlinear) {
    out.dt = requantization(n, args);
    func = "qlinear_matmul" + func + "_" + out.dt.str();
  } else {
    out.dt = DataType::i32();
    func = "matmul_integer" + func;
  }
  out.tensor = call("onnx_quant", func, {m, k, n}, args, out.dt, out.shape);
  set_output(0, out);
}

// ConvInteger(x, w, x_zero_point, w_zero_point) and
// QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B).
void Importer::conv_integer(bool qlinear) {
  Val x = input(0), w = layout(input(qlinear ? 3 : 1), false);
  const std::vector<DataType> q = {DataType::u8(), DataType::i8()};
  need_dtype(x, q, "x");
  need_dtype(w, q, "w");
  ConvGeometry k = conv_geometry(x, w);
  DataType zt;
  std::vector<int64_t> zx = zero_points(2, 1, zt, "x_zero_point");
  std::vector<int64_t> zw = zero_points(qlinear ? 5 : 3, k.m, zt, "w_zero_point");
  x = layout(x, true);
  std::vector<std::string> args = {x.tensor.empty() ? tensor_of(x) : x.tensor, conv_weights(w, k),
                                   emit_const(DataType::i32(), {1}, i32_bytes(zx), "x_zero_point"),
                                   emit_const(DataType::i32(), {k.m}, i32_bytes(zw), "w_zero_point")};
  Val out;
  out.shape = {k.n, k.m, k.oh, k.ow};
  out.nhwc = true;
  std::string func = "_" + x.dt.str() + "_" + w.dt.str();
  if (qlinear) {
    std::vector<int64_t> bias(static_cast<size_t>(k.m), 0);
    if (has_input(8)) {
      Val& b = const_input(8, "B");
      if (b.dt != DataType::i32() || num_elements(b.shape) != k.m) fail("B must be i32[" + std::to_string(k.m) + "]");
      for (int64_t i = 0; i < k.m; ++i) bias[static_cast<size_t>(i)] = get_i(b.dt, *b.data, static_cast<size_t>(i));
    }
    args.push_back(emit_const(DataType::i32(), {k.m}, i32_bytes(bias), "bias"));
    out.dt = requantization(k.m, args);
    func = "qlinear_conv2d" + func + "_" + out.dt.str();
  } else {
    out.dt = DataType::i32();
    func = "conv2d_integer" + func;
  }
  out.tensor = call("onnx_quant", func, k.targs(), args, out.dt, physical(out));
  set_output(0, out);
}

}  // namespace dspc::onnx_import
