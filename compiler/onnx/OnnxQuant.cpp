// The quantized operators of the ONNX importer (schedules/onnx_quant.dsp): QuantizeLinear,
// DequantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv, and the QDQ fold's
// QLinearAdd (OnnxQdq.cpp). Scales and zero
// points are constants; rounding is half to even, as numpy's rint (ONNX's reference).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "compiler/onnx/OnnxModel.h"

namespace dspc::onnx_import {

std::shared_ptr<std::vector<uint8_t>> i32_bytes(const std::vector<int64_t>& v) {
  auto b = std::make_shared<std::vector<uint8_t>>(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) put_i(DataType::i32(), *b, i, v[i]);
  return b;
}

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
  Val y;
  y.dt = dt;
  need_dtype(y, {DataType::u8(), DataType::i8()}, "y_zero_point");
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
// (the second per output channel or per-tensor), 6 and 7 the result's scale and zero point. The
// per-channel multipliers are f32, as the reference multiplies f32 scales.
Importer::Requantization Importer::requantization(int64_t channels) {
  std::vector<double> sa = scales(1, 1, "the first scale"), sb = scales(4, channels, "the second scale");
  std::vector<double> sy = scales(6, 1, "y_scale");
  Requantization r;
  r.dt = DataType::u8();
  r.zero_point = zero_points(7, 1, r.dt, "y_zero_point")[0];
  Val y;
  y.dt = r.dt;
  need_dtype(y, {DataType::u8(), DataType::i8()}, "y_zero_point");
  for (int64_t j = 0; j < channels; ++j)
    r.multipliers.push_back(static_cast<float>(static_cast<float>(sa[0]) * static_cast<float>(sb[static_cast<size_t>(j)])) /
                            static_cast<float>(sy[0]));
  return r;
}

// The generic funcs' requantization arguments: the multipliers and the result's zero point.
DataType Importer::requantization_args(int64_t channels, std::vector<std::string>& args) {
  Requantization r = requantization(channels);
  auto mul = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(channels) * 4);
  for (int64_t j = 0; j < channels; ++j) put_f(DataType::f32(), *mul, static_cast<size_t>(j), r.multipliers[static_cast<size_t>(j)]);
  args.push_back(emit_const(DataType::f32(), {channels}, mul, "multiplier"));
  args.push_back(emit_const(DataType::i32(), {1}, i32_bytes({r.zero_point}), "y_zero_point"));
  return r.dt;
}

// MatMulInteger(A, B, a_zero_point, b_zero_point) and
// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point).
void Importer::matmul_integer(bool qlinear) {
  size_t ia = 0, ib = qlinear ? 3 : 1;
  Val a = layout(input(ia), false), b = layout(input(ib), false);
  const std::vector<DataType> q = {DataType::u8(), DataType::i8()};
  need_dtype(a, q, "A");
  need_dtype(b, q, "B");
  if (a.shape.empty() || b.shape.empty()) fail("a scalar operand");
  // numpy's matmul: a 1-D operand gains a dimension that the result drops; batch dimensions
  // (ranks 3 and 4) broadcast.
  bool a_vec = a.shape.size() == 1, b_vec = b.shape.size() == 1;
  if (a_vec) a = reshape(a, {1, a.shape[0]});
  if (b_vec) b = reshape(b, {b.shape[0], 1});
  size_t r = std::max(a.shape.size(), b.shape.size());
  if (r > 4) fail("operands of more than 4 dimensions are not supported");
  auto expand = [&](Val v) {
    if (v.shape.size() == r) return v;
    std::vector<int64_t> s(r - v.shape.size(), 1);
    s.insert(s.end(), v.shape.begin(), v.shape.end());
    return reshape(v, s);
  };
  a = expand(a);
  b = expand(b);
  int64_t m = a.shape[r - 2], k = a.shape[r - 1], n = b.shape[r - 1];
  if (b.shape[r - 2] != k) fail("the inner dimensions differ: " + shape_text(a.shape) + " x " + shape_text(b.shape));
  std::vector<int64_t> batch_targs, out_shape;
  for (size_t i = 0; i + 2 < r; ++i) batch_targs.push_back(a.shape[i]);
  for (size_t i = 0; i + 2 < r; ++i) {
    batch_targs.push_back(b.shape[i]);
    if (a.shape[i] != b.shape[i] && a.shape[i] != 1 && b.shape[i] != 1) fail("the batch dimensions do not broadcast");
    out_shape.push_back(std::max(a.shape[i], b.shape[i]));
  }
  out_shape.insert(out_shape.end(), {m, n});
  DataType zt;
  std::vector<int64_t> za = zero_points(qlinear ? 2 : 2, m, zt, "a_zero_point");
  std::vector<int64_t> zb = zero_points(qlinear ? 5 : 3, n, zt, "b_zero_point");
  std::vector<std::string> args = {tensor_of(a), tensor_of(b), emit_const(DataType::i32(), {m}, i32_bytes(za), "a_zero_point"),
                                   emit_const(DataType::i32(), {n}, i32_bytes(zb), "b_zero_point")};
  Val out;
  out.shape = out_shape;
  std::string func = "_" + a.dt.str() + "_" + b.dt.str();
  if (qlinear) {
    out.dt = requantization_args(n, args);
    func = "qlinear_matmul" + func + "_" + out.dt.str();
  } else {
    out.dt = DataType::i32();
    func = "matmul_integer" + func;
  }
  if (r > 2) func += "_" + std::to_string(r);
  batch_targs.insert(batch_targs.end(), {m, k, n});
  out.tensor = call("onnx_quant", func, batch_targs, args, out.dt, out.shape);
  std::vector<int64_t> final_shape(out_shape.begin(), out_shape.end() - 2);
  if (!a_vec) final_shape.push_back(m);
  if (!b_vec) final_shape.push_back(n);
  if (final_shape != out.shape) out = reshape(out, final_shape);
  set_output(0, out);
}

// The fold's QLinearAdd (kFoldedQLinearAdd): C = saturate(round((a - za) sa / sc + (b - zb) sb / sc) + zc),
// in fixed point (onnx_quant.dsp's qlinear_add): within one quantum of the float result, as
// the error of the two ratios times 2^S is at most 2 * 255 * 2^-(S+1) < 0.07 of a quantum.
void Importer::qlinear_add() {
  Val a = input(0), b = input(3);
  const std::vector<DataType> q = {DataType::u8(), DataType::i8()};
  need_dtype(a, q, "A");
  need_dtype(b, q, "B");
  double sa = scales(1, 1, "A's scale")[0], sb = scales(4, 1, "B's scale")[0], sc = scales(6, 1, "C's scale")[0];
  DataType t = a.dt;
  int64_t za = zero_points(2, 1, t, "A's zero point")[0];
  t = b.dt;
  int64_t zb = zero_points(5, 1, t, "B's zero point")[0];
  DataType ct = DataType::u8();
  int64_t zc = zero_points(7, 1, ct, "C's zero point")[0];
  if (ct != DataType::u8() && ct != DataType::i8()) fail("C's zero point must be u8 or i8");
  int shift = qlinear_add_shift(sa / sc, sb / sc);
  if (shift < 0) fail("the scale ratios are too large for the fixed-point sum");
  Val out = broadcast_operands(a, b, 4);
  out.dt = ct;
  auto fixed = [&](double ratio) { return static_cast<int64_t>(std::llround(std::ldexp(ratio, shift))); };
  std::vector<int64_t> p = {za, zb, fixed(sa / sc), fixed(sb / sc), shift, int64_t(1) << (shift - 1), zc};
  std::vector<int64_t> targs = physical(a), pb = physical(b);
  targs.insert(targs.end(), pb.begin(), pb.end());
  std::string func = "qlinear_add_" + a.dt.str() + "_" + b.dt.str() + "_" + ct.str() + "_" +
                     std::to_string(std::max<size_t>(out.shape.size(), 1));
  out.tensor = call("onnx_quant", func, targs,
                    {tensor_of(a), tensor_of(b), emit_const(DataType::i32(), {7}, i32_bytes(p), "qadd_params")}, ct,
                    physical(out));
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
  std::vector<int64_t> bias(static_cast<size_t>(k.m), 0);
  if (qlinear && has_input(8)) {
    Val& b = const_input(8, "B");
    if (b.dt != DataType::i32() || num_elements(b.shape) != k.m) fail("B must be i32[" + std::to_string(k.m) + "]");
    for (int64_t i = 0; i < k.m; ++i) bias[static_cast<size_t>(i)] = get_i(b.dt, *b.data, static_cast<size_t>(i));
  }
  x = layout(x, true);
  if (qlinear && qlinear_conv_oplib(x, w, k, zx[0], zw, bias)) return;
  std::vector<std::string> args = {x.tensor.empty() ? tensor_of(x) : x.tensor, conv_weights(w, k),
                                   emit_const(DataType::i32(), {1}, i32_bytes(zx), "x_zero_point"),
                                   emit_const(DataType::i32(), {k.m}, i32_bytes(zw), "w_zero_point")};
  Val out;
  out.shape = {k.n, k.m, k.oh, k.ow};
  out.nhwc = true;
  std::string func = "_" + x.dt.str() + "_" + w.dt.str();
  if (qlinear) {
    args.push_back(emit_const(DataType::i32(), {k.m}, i32_bytes(bias), "bias"));
    out.dt = requantization_args(k.m, args);
    func = "qlinear_conv2d" + func + "_" + out.dt.str();
  } else {
    out.dt = DataType::i32();
    func = "conv2d_integer" + func;
  }
  out.tensor = call("onnx_quant", func, k.targs(), args, out.dt, physical(out));
  set_output(0, out);
}

namespace {

// ONNX's requantization of an accumulator to u8 (the reference's and the generic funcs'): the f32
// product rounded half to even, plus the zero point, saturated.
int64_t onnx_requantized(int64_t acc, float multiplier, int64_t zero_point) {
  double r = std::nearbyint(static_cast<float>(acc) * multiplier) + static_cast<double>(zero_point);
  return static_cast<int64_t>(std::clamp(r, 0.0, 255.0));
}

// nn.dsp's requantize (TFLite's MultiplyByQuantizedMultiplier, schedules/README.md) with
// q = {m, shift, zero_point}, in its 32-bit arithmetic.
int64_t oplib_requantized(int64_t acc, int64_t m, int shift, int64_t zero_point) {
  auto a = static_cast<int32_t>(static_cast<uint32_t>(static_cast<int32_t>(acc)) << std::max(shift, 0));
  int64_t x = a == INT32_MIN && m == INT32_MIN ? INT32_MAX : (int64_t(a) * m + (int64_t(1) << 30)) >> 31;
  int e = std::max(-shift, 0);
  int64_t mask = (int64_t(1) << e) - 1;
  int64_t r = (x >> e) + ((x & mask) > (mask >> 1) + (x < 0 ? 1 : 0) ? 1 : 0);
  auto sum = static_cast<int32_t>(static_cast<uint32_t>(r) + static_cast<uint32_t>(zero_point));
  return std::clamp<int64_t>(sum, 0, 255);
}

// Whether q = {m, shift} gives ONNX's result for every accumulator in [lo, hi]. Both
// requantizations are monotone in the accumulator (with no overflow of the shift left, checked),
// so they agree on [lo, hi] when each output level 1..255 starts at the same accumulator.
bool same_requantization(int64_t lo, int64_t hi, float multiplier, int64_t m, int shift, int64_t zero_point) {
  if (shift > 0 && (std::max(-lo, hi) << shift) >= (int64_t(1) << 31)) return false;
  auto onnx = [&](int64_t a) { return onnx_requantized(a, multiplier, zero_point); };
  auto oplib = [&](int64_t a) { return oplib_requantized(a, m, shift, zero_point); };
  auto first = [&](const auto& f, int64_t level) {  // the least accumulator with f >= level, or hi + 1
    if (f(hi) < level) return hi + 1;
    int64_t a = lo, b = hi;
    while (a < b) {
      int64_t mid = a + (b - a) / 2;
      if (f(mid) >= level)
        b = mid;
      else
        a = mid + 1;
    }
    return a;
  };
  for (int64_t level = 1; level <= 255; ++level)
    if (first(onnx, level) != first(oplib, level)) return false;
  return true;
}

// q = {m, shift} for `multiplier` (TFLite's QuantizeMultiplier: multiplier = m * 2^(shift - 31),
// m in [2^30, 2^31)) or a neighbour of m, such that nn.dsp's requantize gives ONNX's result on
// [lo, hi]; false when none does.
bool oplib_multiplier(double multiplier, int64_t lo, int64_t hi, int64_t zero_point, int64_t& m, int& shift) {
  if (!(multiplier > 0) || !std::isfinite(multiplier)) return false;
  int e = 0;
  double frac = std::frexp(multiplier, &e);
  int64_t m0 = std::llround(frac * 2147483648.0);
  if (m0 == (int64_t(1) << 31)) {
    m0 /= 2;
    ++e;
  }
  if (e < -30 || e > 30) return false;
  for (int64_t d : {0, 1, -1, 2, -2, 3, -3}) {
    int64_t c = m0 + d;
    if (c < (int64_t(1) << 30) || c >= (int64_t(1) << 31)) continue;
    if (same_requantization(lo, hi, static_cast<float>(multiplier), c, e, zero_point)) {
      m = c;
      shift = e;
      return true;
    }
  }
  return false;
}

// qnn.dsp's conv2d_requant_exact's generic arguments {MH, SH, CA, WS, ZY} for `multiplier`
// (docs/requant.md, design C2): false when the multiplier is outside [2^-23, 1/4) or an
// accumulator in [lo, hi] reaches 2^24 (then f32 rounds the accumulator itself, which the
// formula does not model), or the zero point is not a u8's.
bool exact_requantization(float multiplier, int64_t lo, int64_t hi, int64_t zero_point, std::vector<int64_t>& args) {
  if (!(multiplier > 0) || !std::isfinite(multiplier) || std::max(-lo, hi) >= (int64_t(1) << 24)) return false;
  if (zero_point < 0 || zero_point > 255) return false;
  int e = 0;
  double frac = std::frexp(static_cast<double>(multiplier), &e);  // multiplier = frac 2^e, frac in [1/2, 1)
  auto mantissa = static_cast<int64_t>(std::ldexp(frac, 24));     // 24 bits: the f32's whole mantissa
  int exponent = 24 - e;                                           // multiplier = mantissa 2^-exponent
  if (exponent < 26 || exponent > 46) return false;
  int k = std::min(exponent + 7, 47);
  int64_t m = mantissa << (k - exponent);  // even, below 2^31
  args = {m / 2, k - 32, int64_t(1) << (k - 33), k - 25, zero_point};
  return true;
}

}  // namespace

std::string Importer::drop_batch(const Val& x) {
  if (auto it = batch_of_.find(x.tensor); it != batch_of_.end()) return it->second;
  std::string key = x.tensor + ":hwc";
  if (auto it = converted_.find(key); it != converted_.end()) return it->second;
  std::vector<int64_t> p = physical(x);
  std::string t = call("qnn", "drop_batch_u8", {p[1], p[2], p[3]}, {x.tensor}, x.dt, {p[1], p[2], p[3]});
  calls_.back().comment += " (to H, W, C)";
  converted_[key] = t;
  return t;
}

// u8 x i8 -> u8 with per-tensor scales, zero weight zero points, a batch of one, square strides,
// dilations and equal pads on every side (the input zero point 0 when there are pads: the op
// library pads with 0), an ordinary or a depthwise convolution; the requantization nn.dsp's
// fixed-point one where it is exact over the accumulators the weights allow, else qnn.dsp's exact
// integer one (docs/requant.md) where its range allows, else qnn.dsp's f32 one.
bool Importer::qlinear_conv_oplib(const Val& x, const Val& w, const ConvGeometry& k, int64_t zx,
                                  const std::vector<int64_t>& zw, const std::vector<int64_t>& bias) {
  if (x.dt != DataType::u8() || w.dt != DataType::i8() || !w.data || x.data || x.tensor.empty() || k.n != 1) return false;
  if (k.s[0] != k.s[1] || k.d[0] != k.d[1] || std::count(k.p.begin(), k.p.end(), k.p[0]) != 4) return false;
  if (k.p[0] != 0 && zx != 0) return false;
  if (std::count(zw.begin(), zw.end(), 0) != static_cast<std::ptrdiff_t>(zw.size())) return false;
  bool depthwise = k.g > 1 && k.cg == 1 && k.g == k.c && k.m == k.c;
  if (k.g != 1 && !depthwise) return false;
  Requantization r = requantization(k.m);
  if (r.dt != DataType::u8()) return false;
  for (float f : r.multipliers)
    if (f != r.multipliers[0]) return false;
  // The accumulators' range, and the bias with the input zero point's share taken out
  // (sum (x - zx) w = sum x w - zx sum w).
  int64_t taps = k.kh * k.kw * k.cg, lo = INT64_MAX, hi = INT64_MIN;
  std::vector<int64_t> b = bias;
  for (int64_t j = 0; j < k.m; ++j) {
    int64_t l = bias[static_cast<size_t>(j)], h = l, sum = 0;
    for (int64_t i = 0; i < taps; ++i) {
      int64_t v = get_i(w.dt, *w.data, static_cast<size_t>(j * taps + i));
      l += std::min(v * -zx, v * (255 - zx));
      h += std::max(v * -zx, v * (255 - zx));
      sum += v;
    }
    b[static_cast<size_t>(j)] -= zx * sum;
    lo = std::min(lo, l);
    hi = std::max(hi, h);
  }
  if (lo < INT32_MIN || hi > INT32_MAX) return false;
  for (int64_t v : b)
    if (v < INT32_MIN || v > INT32_MAX) return false;
  // nn.dsp's fixed-point requantization where it gives ONNX's result exactly, else qnn.dsp's f32 one.
  int64_t m = 0;
  int shift = 0;
  bool fixed = oplib_multiplier(r.multipliers[0], lo, hi, r.zero_point, m, shift);
  // Else qnn.dsp's exact integer requantization where its range allows, else its f32 one.
  std::vector<int64_t> exact;
  bool integer = !fixed && exact_requantization(r.multipliers[0], lo, hi, r.zero_point, exact);

  std::string x3 = drop_batch(x);
  std::vector<int64_t> wshape = {k.kh, k.kw, k.cg, k.m};
  if (depthwise) wshape = {k.kh, k.kw, k.m};
  std::string wt = emit_const(w.dt, wshape, permute(*w.data, w.dt, w.shape, {2, 3, 1, 0}), w.hint);
  std::vector<std::string> args = {x3, wt, emit_const(DataType::i32(), {k.m}, i32_bytes(b), "bias")};
  if (fixed) {
    args.push_back(emit_const(DataType::i32(), {3}, i32_bytes({m, shift, r.zero_point}), "q"));
  } else if (integer) {
    // The parameters are generic arguments (exact_requantization).
  } else {
    auto mul = std::make_shared<std::vector<uint8_t>>(4);
    put_f(DataType::f32(), *mul, 0, r.multipliers[0]);
    args.push_back(emit_const(DataType::f32(), {1}, mul, "multiplier"));
    args.push_back(emit_const(DataType::i32(), {1}, i32_bytes({r.zero_point}), "y_zero_point"));
  }
  std::vector<int64_t> targs = {k.s[0], k.p[0], k.d[0], k.h, k.w, k.c, k.kh, k.kw};
  if (!depthwise) targs.push_back(k.m);
  if (integer) targs.insert(targs.end(), exact.begin(), exact.end());
  // Fewer than 32 output channels fill less than a vector of i32 accumulators: qnn.dsp's
  // _narrow variant, whose vectors hold several pixels, takes them.
  std::string func = std::string(depthwise ? "depthwise_conv2d_requant" : "conv2d_requant") +
                     (fixed ? "" : integer ? (!depthwise && k.m < 32 ? "_exact_narrow" : "_exact") : "_f32");
  std::string o3 = call(fixed && !depthwise ? "nn" : "qnn", func, targs, args, r.dt, {k.oh, k.ow, k.m});
  Val out;
  out.dt = r.dt;
  out.shape = {k.n, k.m, k.oh, k.ow};
  out.nhwc = true;
  out.tensor = call("qnn", "add_batch_u8", {k.oh, k.ow, k.m}, {o3}, r.dt, physical(out));
  calls_.back().comment += " (to N, H, W, C)";
  batch_of_[out.tensor] = o3;
  set_output(0, out);
  return true;
}

// The [1, H, W, C] copies of qlinear_conv_oplib's results that only the next such convolution
// read (it reads the [H, W, C] tensor instead) are dropped.
void Importer::drop_unread_batch_copies() {
  std::set<std::string> read;
  for (const Call& c : calls_) read.insert(c.args.begin(), c.args.end());
  for (const Param& p : outputs_) read.insert(p.name);
  calls_.erase(std::remove_if(calls_.begin(), calls_.end(),
                              [&](const Call& c) { return c.func == "add_batch_u8" && !read.count(c.outs[0]); }),
               calls_.end());
}

}  // namespace dspc::onnx_import
