// The operators of the ONNX importer: each node becomes op-library calls (or, when all its
// inputs are constants, a constant computed here). Supported ops and their opsets are listed in
// kOps (dspc --list-onnx-ops).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "compiler/arith/Semantics.h"
#include "compiler/onnx/OnnxModel.h"

namespace dspc {

namespace onnx_import {

namespace {

struct OpInfo {
  const char* name;
  int first_opset;  // the first opset whose form the importer reads (1: every version)
  const char* dtypes;  // the ONNX element types every input and output of the node may have
  const char* note;
};

// The dtype lists, in dspc's names (f16 and bf16 are ONNX's float16 and bfloat16, held as their
// u16 bits). A node whose input or output has another element type gets a located error, and
// tests/onnx/node_tests.py counts a node test as applicable when each of its nodes' operator and
// element types are in this list.
#define DSPC_NUM "i8 i16 i32 i64 u8 u16 u32 u64 f32 f64"
#define DSPC_ALL DSPC_NUM " bool f16 bf16"
// Opset 17 is the newest libonnx 1.12 knows.
const OpInfo kOps[] = {
    {"Add", 1, DSPC_NUM " f16 bf16", "broadcasting, every numeric dtype (f16 and bf16 computed in f32, rounded once)"},
    {"AveragePool", 1, "f32", "1-D, 2-D and 3-D; pads, strides, ceil_mode, count_include_pad"},
    {"BatchNormalization", 1, "f32", "inference (constant statistics; folded into the Conv before it) and training mode from opset 14 (batch statistics; the running mean and variance outputs)"},
    {"Cast", 1, DSPC_ALL, "between every dtype but strings; f16 rounds to nearest even (subnormals, inf, NaN), bf16 truncates as ONNX 1.12's reference"},
    {"Clip", 1, DSPC_NUM, "min and max as attributes or constant inputs"},
    {"Concat", 1, DSPC_ALL, "up to 4-D"},
    {"ConvInteger", 10, "u8 i8 i32", "2-D, u8 and i8; per-channel weight zero points"},
    {"Constant", 1, DSPC_ALL, "value, value_float(s), value_int(s)"},
    {"Conv", 1, "f32", "2-D, f32; groups and depthwise, pads, strides, dilations, auto_pad"},
    {"DequantizeLinear", 10, "u8 i8 i32 f32", "u8, i8 and i32; per-tensor and per-axis, constant scale and zero point"},
    {"Div", 1, DSPC_NUM " f16 bf16", "broadcasting; integers truncate"},
    {"Dropout", 1, "f32 f64 f16 bf16 bool", "the identity in inference and in training mode with ratio 0 (mask all true); a random mask is not supported"},
    {"Flatten", 1, DSPC_ALL, ""},
    {"Gather", 1, DSPC_ALL, "constant indices, up to 4-D data"},
    {"Gemm", 1, "f32", "f32; transA, transB, alpha, beta"},
    {"GlobalAveragePool", 1, "f32 f64", ""},
    {"GlobalMaxPool", 1, DSPC_NUM, ""},
    {"Identity", 1, DSPC_ALL, ""},
    {"LeakyRelu", 1, DSPC_NUM, ""},
    {"LogSoftmax", 1, "f32", "f32, up to 4-D"},
    {"MatMul", 1, "f32 f64", "f32 and f64, broadcast batch dimensions, up to 4-D"},
    {"MatMulInteger", 10, "u8 i8 i32", "u8 and i8, 1-D to 4-D (numpy matmul: batch dimensions broadcast); per-row and per-column zero points"},
    {"Max", 1, DSPC_NUM " f16 bf16", "variadic, broadcasting"},
    {"MaxPool", 1, "f32 f64 u8 i8 i64", "1-D, 2-D and 3-D; pads, strides, dilations, ceil_mode; the Indices output (i64; storage_order) of 1-D and 2-D pools"},
    {"Min", 1, DSPC_NUM " f16 bf16", "variadic, broadcasting"},
    {"Mul", 1, DSPC_NUM " f16 bf16", "broadcasting"},
    {"Pad", 1, DSPC_NUM " bool", "modes constant, edge and reflect; constant pads, up to 4-D"},
    {"QLinearConv", 10, "u8 i8 i32 f32", "2-D, u8 and i8; per-channel weight scales; rounding half to even"},
    {"QLinearMatMul", 10, "u8 i8 f32", "u8 and i8, 1-D to 4-D (numpy matmul: batch dimensions broadcast); rounding half to even"},
    {"QuantizeLinear", 10, "f32 u8 i8", "to u8 and i8; per-tensor and per-axis; rounding half to even"},
    {"ReduceMax", 1, DSPC_NUM, "constant axes"},
    {"ReduceMean", 1, "f32 f64", "constant axes, floats"},
    {"ReduceSum", 1, DSPC_NUM, "constant axes"},
    {"Relu", 1, DSPC_NUM, ""},
    {"Reshape", 1, DSPC_ALL, "constant shape"},
    {"Shape", 1, DSPC_ALL, "a constant (shapes are static)"},
    {"Sigmoid", 1, "f32", "f32"},
    {"Slice", 1, DSPC_ALL, "constant starts, ends, axes and steps, up to 4-D"},
    {"Softmax", 1, "f32", "f32, up to 4-D"},
    {"Squeeze", 1, DSPC_ALL, ""},
    {"Sub", 1, DSPC_NUM " f16 bf16", "broadcasting"},
    {"Sum", 1, DSPC_NUM " f16 bf16", "variadic, broadcasting"},
    {"Tanh", 1, "f32", "f32"},
    {"Transpose", 1, DSPC_ALL, "up to 4-D"},
    {"Unsqueeze", 1, DSPC_ALL, ""},
};
#undef DSPC_NUM
#undef DSPC_ALL

const OpInfo* op_info(const std::string& op) {
  for (const OpInfo& info : kOps)
    if (op == info.name) return &info;
  return nullptr;
}

const std::vector<DataType>& numeric() {
  static const std::vector<DataType> t = {DataType::i8(), DataType::i16(), DataType::i32(), DataType::i64(),
                                          DataType::u8(), DataType::u16(), DataType::u32(), DataType::u64(),
                                          DataType::f32(), DataType::f64()};
  return t;
}

std::string supported_list() {
  std::string s;
  for (const OpInfo& op : kOps) s += (s.empty() ? "" : ", ") + std::string(op.name);
  return s;
}

// Row-major strides.
std::vector<int64_t> strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> st(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) st[k - 1] = st[k] * shape[k];
  return st;
}

}  // namespace

std::shared_ptr<std::vector<uint8_t>> permute(const std::vector<uint8_t>& a, DataType dt,
                                              const std::vector<int64_t>& shape, const std::vector<int64_t>& perm) {
  size_t n = static_cast<size_t>(dt.bytes());
  std::vector<int64_t> out_shape;
  for (int64_t p : perm) out_shape.push_back(shape[static_cast<size_t>(p)]);
  std::vector<int64_t> ast = strides(shape);
  auto out = std::make_shared<std::vector<uint8_t>>(a.size());
  int64_t total = num_elements(out_shape);
  std::vector<int64_t> idx(out_shape.size(), 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t src = 0;
    for (size_t k = 0; k < perm.size(); ++k) src += idx[k] * ast[static_cast<size_t>(perm[k])];
    std::memcpy(out->data() + static_cast<size_t>(i) * n, a.data() + static_cast<size_t>(src) * n, n);
    for (size_t k = out_shape.size(); k-- > 0;) {
      if (++idx[k] < out_shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

namespace {

const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};
const std::vector<int64_t> kToNchw = {0, 3, 1, 2};

std::string perm_name(const std::vector<int64_t>& perm) {
  std::string s;
  for (int64_t p : perm) s += std::to_string(p);
  return s;
}

std::vector<int64_t> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, bool& ok) {
  size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r);
  ok = true;
  for (size_t k = 0; k < r; ++k) {
    int64_t x = k + a.size() >= r ? a[k + a.size() - r] : 1;
    int64_t y = k + b.size() >= r ? b[k + b.size() - r] : 1;
    if (x != y && x != 1 && y != 1) ok = false;
    out[k] = std::max(x, y);
  }
  return out;
}

int64_t normalize_axis(int64_t axis, size_t rank, const std::function<void(const std::string&)>& fail) {
  int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    fail("axis " + std::to_string(axis) + " is out of range for a " + std::to_string(rank) + "-D input");
  return axis < 0 ? axis + r : axis;
}

}  // namespace

// ------------------------------------------------------------------ helpers

int64_t num_elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t e : shape) {
    if (e < 0 || e > kMaxExtent || n * e > kMaxExtent) return kMaxExtent + 1;  // saturated: too large
    n *= e;
  }
  return n;
}

int64_t Importer::small(int64_t v, const char* what) const {
  if (v < -kMaxExtent || v > kMaxExtent) fail(std::string(what) + " " + std::to_string(v) + " is out of range");
  return v;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string first_line(const std::string& s) {
  std::string t = s.substr(0, s.find('\n'));
  return t.size() > 400 ? t.substr(0, 400) + "..." : t;
}

std::string comment_text(const std::string& s) {
  std::string t;
  for (char c : s.substr(0, 200)) t += (static_cast<unsigned char>(c) < 32 || c == 127) ? '?' : c;
  return t;
}

std::string identifier(const std::string& name, const std::string& prefix) {
  std::string s;
  for (char c : name.substr(0, 64)) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '_') s = prefix + s;
  return s;
}

double get_f(DataType t, const std::vector<uint8_t>& b, size_t i) {
  if (t.is_float()) {
    if (t.bits == 32) {
      float f;
      std::memcpy(&f, b.data() + i * 4, 4);
      return f;
    }
    double d;
    std::memcpy(&d, b.data() + i * 8, 8);
    return d;
  }
  int64_t v = get_i(t, b, i);
  return t.is_uint() && t.bits == 64 ? static_cast<double>(static_cast<uint64_t>(v)) : static_cast<double>(v);
}

int64_t get_i(DataType t, const std::vector<uint8_t>& b, size_t i) {
  if (t.is_float()) return static_cast<int64_t>(get_f(t, b, i));
  size_t n = static_cast<size_t>(t.bytes());
  uint64_t bits = 0;
  for (size_t k = 0; k < n; ++k) bits |= uint64_t(b[i * n + k]) << (8 * k);
  if (t.is_int()) return wrap_to(t, static_cast<int64_t>(bits));
  return static_cast<int64_t>(bits);
}

void put_i(DataType t, std::vector<uint8_t>& b, size_t i, int64_t v) {
  if (t.is_float()) return put_f(t, b, i, static_cast<double>(v));
  size_t n = static_cast<size_t>(t.bytes());
  if (t.is_bool()) v = v != 0;
  for (size_t k = 0; k < n; ++k) b[i * n + k] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * k));
}

void put_f(DataType t, std::vector<uint8_t>& b, size_t i, double v) {
  if (!t.is_float()) {
    // The language's casts: to an integer, truncate and saturate, NaN to 0; to bool, x != 0
    // (so NaN is true, as ONNX's Cast has it).
    return put_i(t, b, i, eval_cast(t, DataType::f64(), Value::of_float(v)).i);
  }
  if (t.bits == 32) {
    float f = static_cast<float>(v);
    std::memcpy(b.data() + i * 4, &f, 4);
  } else {
    std::memcpy(b.data() + i * 8, &v, 8);
  }
}

double half_to_double(Half h, uint16_t bits) {
  if (h == Half::BF16) {
    uint32_t b = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  int e = (bits >> 10) & 31, m = bits & 1023;
  double v = e == 31 ? (m ? std::nan("") : INFINITY) : e == 0 ? std::ldexp(m, -24) : std::ldexp(m + 1024, e - 25);
  return bits & 0x8000 ? -v : v;
}

uint16_t double_to_half(Half h, double v) {
  if (h == Half::BF16) {  // through f32, whose bits are truncated (ONNX 1.12's reference)
    float f = static_cast<float>(v);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return std::isnan(f) ? static_cast<uint16_t>((b >> 16 & 0x8000) | 0x7FC0) : static_cast<uint16_t>(b >> 16);
  }
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v);
  if (std::isnan(v)) return 0x7E00;
  if (a >= 65520.0) return sign | 0x7C00;
  if (a < std::ldexp(1.0, -14)) return sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(a, 24)));  // ties to even
  int e = 0;
  double m = std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
  double r = std::nearbyint(std::ldexp(m, 11));  // in [1024, 2048]
  return sign | static_cast<uint16_t>((e + 13) * 1024 + static_cast<int>(r));
}

Half Importer::half_of(const std::string& onnx_name) const {
  auto it = elem_types_.find(onnx_name);
  return it == elem_types_.end() ? Half::None : half_kind(it->second);
}

Half Importer::input_half(size_t i) const {
  return has_input(i) ? half_of(node_->input(static_cast<int>(i))) : Half::None;
}

void Importer::check_dtypes(const std::string& op) {
  const OpInfo* info = op_info(op);
  if (!info) return;
  std::string list = std::string(" ") + info->dtypes + " ";
  auto check = [&](const std::string& name, const char* kind, int k) {
    auto it = elem_types_.find(name);
    if (name.empty() || it == elem_types_.end()) return;
    std::string t = elem_type_name(it->second);
    if (list.find(" " + t + " ") == std::string::npos)
      fail(std::string(kind) + " " + std::to_string(k) + " ('" + comment_text(name) + "') is " + t + "; " + op +
           " takes " + info->dtypes);
  };
  for (int k = 0; k < node_->input_size(); ++k) check(node_->input(k), "input", k);
  for (int k = 0; k < node_->output_size(); ++k) check(node_->output(k), "output", k);
}

std::string Importer::where() const {
  if (!node_) return "";
  std::string name = node_->name().empty() ? "" : " '" + comment_text(node_->name()) + "'";
  return "node " + std::to_string(node_index_) + name + " (" + comment_text(node_->op_type()) + ", opset " +
         std::to_string(opset_) + "): ";
}

void Importer::fail(const std::string& message) const { throw ImportError(message); }

void Importer::unsupported_attr(const std::string& text) { fail(text + " is not supported"); }

const onnx::AttributeProto* Importer::attr(const char* name) const {
  for (const auto& a : node_->attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t Importer::attr_int(const char* name, int64_t def) const {
  const auto* a = attr(name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::INT) fail(std::string("attribute ") + name + " must be an integer");
  return a->i();
}

float Importer::attr_float(const char* name, float def) const {
  const auto* a = attr(name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::FLOAT) fail(std::string("attribute ") + name + " must be a float");
  return a->f();
}

std::vector<int64_t> Importer::attr_ints(const char* name, std::vector<int64_t> def) const {
  const auto* a = attr(name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::INTS) fail(std::string("attribute ") + name + " must be a list of integers");
  return {a->ints().begin(), a->ints().end()};
}

std::string Importer::attr_string(const char* name, const std::string& def) const {
  const auto* a = attr(name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::STRING) fail(std::string("attribute ") + name + " must be a string");
  return a->s();
}

size_t Importer::num_inputs() const { return static_cast<size_t>(node_->input_size()); }

bool Importer::has_input(size_t i) const { return i < num_inputs() && !node_->input(static_cast<int>(i)).empty(); }

Val& Importer::input(size_t i) {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is missing");
  auto it = values_.find(node_->input(static_cast<int>(i)));
  if (it == values_.end())
    fail("input '" + comment_text(node_->input(static_cast<int>(i))) + "' is computed by no earlier node");
  return it->second;
}

Val& Importer::const_input(size_t i, const char* what) {
  Val& v = input(i);
  if (!v.data)
    fail("input " + std::to_string(i) + " (" + what + ", '" + comment_text(node_->input(static_cast<int>(i))) +
         "') must be a constant (an initializer or a Constant node): dspc compiles static graphs");
  return v;
}

std::vector<int64_t> Importer::const_ints(size_t i, const char* what) {
  Val& v = const_input(i, what);
  if (!v.dt.is_integer()) fail(std::string(what) + " must be integers");
  std::vector<int64_t> out;
  for (int64_t k = 0; k < num_elements(v.shape); ++k) out.push_back(get_i(v.dt, *v.data, static_cast<size_t>(k)));
  return out;
}

void Importer::need_dtype(const Val& v, const std::vector<DataType>& ok, const char* what) {
  if (std::find(ok.begin(), ok.end(), v.dt) != ok.end()) return;
  std::string list;
  for (DataType t : ok) list += (list.empty() ? "" : ", ") + t.str();
  fail(std::string(what) + " is " + v.dt.str() + "; this operator takes " + list);
}

// Tensors without elements (an extent 0) computed at run time: these data movement operators
// take and give them (their op-library funcs then run no loop). Other operators refuse them
// with a located error: their shape rules and funcs assume elements (a pool's window, a
// convolution's channels, a broadcast of 0 against other extents).
static bool takes_empty_tensors(const std::string& op) {
  static const std::set<std::string> kOps = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity",
                                             "Transpose", "Slice", "Shape", "Cast"};
  return kOps.count(op) > 0;
}

void Importer::set_output(size_t i, Val v) {
  if (static_cast<int>(i) >= node_->output_size() || node_->output(static_cast<int>(i)).empty()) return;
  const std::string& name = node_->output(static_cast<int>(i));
  auto inf = inferred_.find(name);
  if (inf != inferred_.end() && (inf->second.first != v.dt || inf->second.second != v.shape))
    fail("output '" + comment_text(name) + "' comes out as " + v.dt.str() + shape_text(v.shape) +
         ", but ONNX's shape inference gives " + inf->second.first.str() + shape_text(inf->second.second));
  if (!v.data && num_elements(physical(v)) > (int64_t(1) << 31)) fail("output is too large: more than 2^31 elements");
  if (!v.data && num_elements(v.shape) == 0 && !takes_empty_tensors(node_->op_type()))
    fail("output '" + comment_text(name) + "' is " + v.dt.str() + shape_text(v.shape) +
         ", a tensor without elements; only " + empty_tensor_ops() + " give those");
  values_[name] = std::move(v);
}

std::vector<int64_t> Importer::physical(const Val& v) {
  if (v.shape.empty()) return {1};
  if (v.nhwc) return {v.shape[0], v.shape[2], v.shape[3], v.shape[1]};
  return v.shape;
}

std::string Importer::unique(const std::string& base) {
  static const std::set<std::string> reserved = {"const", "graph", "func", "import", "schedule"};
  std::string s = base;
  for (int k = 1; names_.count(s) || reserved.count(s); ++k) s = base + "_" + std::to_string(k);
  names_.insert(s);
  return s;
}

std::string Importer::emit_const(DataType dt, const std::vector<int64_t>& shape,
                                 std::shared_ptr<std::vector<uint8_t>> data, const std::string& base) {
  // A constant without elements is `const c: f32[0] = []` (0 bytes), for the operators that
  // take tensors without elements.
  if (num_elements(shape) == 0 && node_ && !takes_empty_tensors(node_->op_type()))
    fail("a constant input is " + dt.str() + shape_text(shape) + ", a tensor without elements; only " +
         empty_tensor_ops() + " take those");
  Const c{unique(identifier(base.empty() ? "c" : base, "c_")), dt, shape.empty() ? std::vector<int64_t>{1} : shape,
          std::move(data)};
  consts_.push_back(c);
  return c.name;
}

std::string Importer::emit_const(const Val& v, bool nhwc) {
  auto key = std::make_pair(static_cast<const void*>(v.data.get()), nhwc);
  if (auto it = const_names_.find(key); it != const_names_.end()) return it->second.first;
  std::shared_ptr<std::vector<uint8_t>> data = v.data;
  std::vector<int64_t> shape = v.shape;
  if (nhwc) {
    data = permute(*v.data, v.dt, v.shape, kToNhwc);
    shape = {v.shape[0], v.shape[2], v.shape[3], v.shape[1]};
  }
  std::string name = emit_const(v.dt, shape, data, v.hint);
  const_names_[key] = {name, v.data};
  return name;
}

std::string Importer::call(const std::string& lib, const std::string& func, std::vector<int64_t> targs,
                           std::vector<std::string> args, DataType dt, const std::vector<int64_t>& out_shape) {
  (void)dt;
  (void)out_shape;
  imports_.insert(lib);
  std::string base = node_ && node_->output_size() > 0 && !node_->output(0).empty() ? node_->output(0) : "t";
  Call c;
  c.outs = {unique(identifier(base, "t_"))};
  c.func = func;
  c.targs = std::move(targs);
  c.args = std::move(args);
  c.comment = node_ ? (node_->name().empty() ? "" : comment_text(node_->name()) + ": ") + comment_text(node_->op_type())
                    : "graph result";
  calls_.push_back(std::move(c));
  return calls_.back().outs[0];
}

std::vector<std::string> Importer::call_n(const std::string& lib, const std::string& func, std::vector<int64_t> targs,
                                          std::vector<std::string> args, size_t results) {
  call(lib, func, std::move(targs), std::move(args), DataType::f32(), {});
  Call& c = calls_.back();
  for (size_t i = 1; i < results; ++i) {
    std::string base = static_cast<int>(i) < node_->output_size() && !node_->output(static_cast<int>(i)).empty()
                           ? node_->output(static_cast<int>(i))
                           : "t";
    c.outs.push_back(unique(identifier(base, "t_")));
  }
  return c.outs;
}

std::string Importer::tensor_of(const Val& v) { return v.data ? emit_const(v, v.nhwc) : v.tensor; }

Val Importer::layout(const Val& v, bool nhwc) {
  if (v.shape.size() != 4 || v.nhwc == nhwc) return v;
  Val out = v;
  out.nhwc = nhwc;
  out.conv = -1;
  if (v.data) return out;
  std::string key = v.tensor + (nhwc ? ":nhwc" : ":nchw");
  if (auto it = converted_.find(key); it != converted_.end()) {
    out.tensor = it->second;
    return out;
  }
  const std::vector<int64_t>& perm = nhwc ? kToNhwc : kToNchw;
  out.tensor = call("onnx_move", "transpose_" + v.dt.str() + "_" + perm_name(perm), physical(v), {v.tensor}, v.dt,
                    physical(out));
  calls_.back().comment += nhwc ? " (to NHWC)" : " (to NCHW)";
  converted_[key] = out.tensor;
  return out;
}

std::string Importer::copy(const std::string& tensor, DataType dt, const std::vector<int64_t>& shape) {
  std::vector<int64_t> targs = shape;
  targs.insert(targs.end(), shape.begin(), shape.end());
  std::string r = std::to_string(shape.size());
  return call("onnx_move", "reshape_" + dt.str() + "_" + r + "_" + r, targs, {tensor}, dt, shape);
}

Val Importer::reshape(const Val& v, const std::vector<int64_t>& shape) {
  if (num_elements(shape) != num_elements(v.shape))
    fail("cannot reshape " + shape_text(v.shape) + " to " + shape_text(shape) + ": the element counts differ");
  Val out;
  out.dt = v.dt;
  out.shape = shape;
  out.hint = v.hint;
  if (v.data) {
    out.data = v.data;
    return out;
  }
  Val src = v;
  // NHWC and NCHW hold the same bytes when the channels or the pixels are one.
  bool same_bytes = v.nhwc && (v.shape[1] == 1 || (v.shape[2] == 1 && v.shape[3] == 1));
  if (v.nhwc && !same_bytes) src = layout(v, false);
  std::vector<int64_t> from = physical(src), to = physical(out);
  if (from == to) {
    out.tensor = src.tensor;
    return out;
  }
  if (from.size() > 6 || to.size() > 6) fail("tensors of more than 6 dimensions are not supported");
  std::vector<int64_t> targs = from;
  targs.insert(targs.end(), to.begin(), to.end());
  out.tensor = call("onnx_move", "reshape_" + v.dt.str() + "_" + std::to_string(from.size()) + "_" +
                                     std::to_string(to.size()),
                    targs, {src.tensor}, v.dt, to);
  return out;
}

// ------------------------------------------------------------------ operators

void Importer::convert_node(const onnx::NodeProto& n) {
  const std::string& op = n.op_type();
  check_dtypes(op);
  if (!takes_empty_tensors(op))
    for (size_t i = 0; i < num_inputs(); ++i)
      if (has_input(i)) {
        const Val& v = input(i);
        if (!v.data && num_elements(v.shape) == 0)
          fail("input " + std::to_string(i) + " ('" + comment_text(node_->input(static_cast<int>(i))) + "') is " +
               v.dt.str() + shape_text(v.shape) + ", a tensor without elements; only " + empty_tensor_ops() +
               " take those");
      }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Max" || op == "Min" || op == "Sum") {
    std::string f = op == "Sum" ? "add" : op;
    std::transform(f.begin(), f.end(), f.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
    return elementwise(f);
  }
  if (op == "Relu" || op == "LeakyRelu" || op == "Sigmoid" || op == "Tanh" || op == "Identity" || op == "Dropout")
    return unary(op);
  if (op == "Clip") return clip();
  if (op == "Cast") return cast();
  if (op == "Conv") return conv();
  if (op == "BatchNormalization") return batch_norm();
  if (op == "MaxPool" || op == "AveragePool") return pool(op == "MaxPool");
  if (op == "GlobalMaxPool" || op == "GlobalAveragePool") return global_pool(op == "GlobalMaxPool");
  if (op == "ReduceSum" || op == "ReduceMean" || op == "ReduceMax")
    return reduce(op == "ReduceSum" ? "sum" : op == "ReduceMean" ? "mean" : "max");
  if (op == "Softmax" || op == "LogSoftmax") return softmax(op == "LogSoftmax");
  if (op == "MatMul") return matmul();
  if (op == "Gemm") return gemm();
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") return reshape_like(op);
  if (op == "Transpose") return transpose();
  if (op == "Concat") return concat();
  if (op == "Slice") return slice();
  if (op == "Gather") return gather();
  if (op == "Pad") return pad();
  if (op == "Constant") return constant();
  if (op == "QuantizeLinear") return quantize();
  if (op == "DequantizeLinear") return dequantize();
  if (op == "MatMulInteger" || op == "QLinearMatMul") return matmul_integer(op == "QLinearMatMul");
  if (op == "ConvInteger" || op == "QLinearConv") return conv_integer(op == "QLinearConv");
  if (op == kFoldedQLinearAdd) return qlinear_add();
  if (op == kFoldedQAveragePool) return pool(false, true);
  if (op == "Shape") {
    Val& x = input(0);
    int64_t r = static_cast<int64_t>(x.shape.size());
    int64_t start = attr_int("start", 0), end = attr_int("end", r);
    start = std::clamp(start < 0 ? start + r : start, int64_t(0), r);
    end = std::clamp(end < 0 ? end + r : end, int64_t(0), r);
    if (end <= start) fail("the shape slice is empty");
    Val out;
    out.dt = DataType::i64();
    out.shape = {end - start};
    out.data = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(end - start) * 8);
    for (int64_t k = start; k < end; ++k) put_i(out.dt, *out.data, static_cast<size_t>(k - start), x.shape[static_cast<size_t>(k)]);
    return set_output(0, out);
  }
  fail(unsupported_op_message(op));
}

std::string Importer::empty_tensor_ops() {
  return "Reshape, Flatten, Squeeze, Unsqueeze, Identity, Transpose, Slice, Shape and Cast";
}

bool Importer::supported_op(const std::string& op) {
  for (const OpInfo& info : kOps)
    if (op == info.name) return true;
  return false;
}

std::string Importer::unsupported_op_message(const std::string& op) {
  return "operator '" + comment_text(op) + "' is not supported; dspc supports " + supported_list() +
         " (dspc --list-onnx-ops)";
}

Val Importer::binary(const std::string& op, Val a, Val b) {
  need_dtype(a, numeric(), "the input");
  if (a.dt != b.dt) fail("the inputs' dtypes differ (" + a.dt.str() + " and " + b.dt.str() + ")");
  bool ok = false;
  std::vector<int64_t> shape = broadcast(a.shape, b.shape, ok);
  if (!ok) fail("shapes " + shape_text(a.shape) + " and " + shape_text(b.shape) + " do not broadcast");
  if (a.data && b.data) {  // folded at compile time
    Val out;
    out.dt = a.dt;
    out.shape = shape;
    int64_t total = num_elements(shape);
    out.data = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(total * a.dt.bytes()));
    std::vector<int64_t> st = strides(shape);
    auto index = [&](const Val& v, int64_t i) {
      int64_t src = 0, mul = 1;
      for (size_t k = v.shape.size(); k-- > 0;) {
        size_t ok_dim = k + shape.size() - v.shape.size();
        int64_t ix = (i / st[ok_dim]) % shape[ok_dim];
        if (v.shape[k] > 1) src += ix * mul;
        mul *= v.shape[k];
      }
      return static_cast<size_t>(src);
    };
    for (int64_t i = 0; i < total; ++i) {
      size_t ia = index(a, i), ib = index(b, i);
      if (a.dt.is_float()) {
        double x = get_f(a.dt, *a.data, ia), y = get_f(a.dt, *b.data, ib);
        double r = op == "add" ? x + y : op == "sub" ? x - y : op == "mul" ? x * y : op == "div" ? x / y
                 : op == "max" ? std::max(x, y) : std::min(x, y);
        put_f(a.dt, *out.data, static_cast<size_t>(i), r);
      } else {
        int64_t x = get_i(a.dt, *a.data, ia), y = get_i(a.dt, *b.data, ib);
        uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
        int64_t r = op == "add" ? static_cast<int64_t>(ux + uy) : op == "sub" ? static_cast<int64_t>(ux - uy)
                  : op == "mul" ? static_cast<int64_t>(ux * uy)
                  : op == "div" ? (y == 0 ? 0 : a.dt.is_uint() ? static_cast<int64_t>(ux / uy) : (x == INT64_MIN && y == -1 ? x : x / y))
                  : op == "max" ? (a.dt.is_uint() ? static_cast<int64_t>(std::max(ux, uy)) : std::max(x, y))
                                : (a.dt.is_uint() ? static_cast<int64_t>(std::min(ux, uy)) : std::min(x, y));
        put_i(a.dt, *out.data, static_cast<size_t>(i), r);
      }
    }
    return out;
  }
  Val out = broadcast_operands(a, b, 6);
  out.dt = a.dt;
  std::vector<int64_t> targs = physical(a), pb = physical(b);
  targs.insert(targs.end(), pb.begin(), pb.end());
  out.tensor = call("onnx_math", op + "_" + a.dt.str() + "_" + std::to_string(std::max<size_t>(out.shape.size(), 1)),
                    targs, {tensor_of(a), tensor_of(b)}, a.dt, physical(out));
  return out;
}

// a and b at the rank of their broadcast shape (leading extents of 1) and in one layout (NHWC
// when a 4-D operand computed on the graph is); the result's Val without its tensor and dtype.
Val Importer::broadcast_operands(Val& a, Val& b, size_t max_rank) {
  bool ok = false;
  std::vector<int64_t> shape = broadcast(a.shape, b.shape, ok);
  if (!ok) fail("shapes " + shape_text(a.shape) + " and " + shape_text(b.shape) + " do not broadcast");
  size_t r = std::max<size_t>(shape.size(), 1);
  if (r > max_rank) fail("tensors of more than " + std::to_string(max_rank) + " dimensions are not supported");
  bool nhwc = r == 4 && ((!a.data && a.nhwc) || (!b.data && b.nhwc));
  auto prepare = [&](Val v) {
    if (v.shape.size() < r) {
      std::vector<int64_t> s(r - v.shape.size(), 1);
      s.insert(s.end(), v.shape.begin(), v.shape.end());
      v = reshape(v, s);
    }
    return layout(v, nhwc);
  };
  a = prepare(a);
  b = prepare(b);
  Val out;
  out.shape = shape;
  out.nhwc = nhwc;
  return out;
}

void Importer::elementwise(const std::string& op) {
  if (num_inputs() == 0) fail("no inputs");
  if ((op == "add" || op == "sub" || op == "mul" || op == "div") && opset_ < 7 && attr("broadcast") &&
      attr_int("broadcast", 0) && attr("axis"))
    unsupported_attr("the legacy broadcast with an axis (opset < 7)");
  // float16 and bfloat16 compute in f32 and round once: exact for max and min, and correctly
  // rounded for + - * / (f32's 24 bits are at least twice 11 bits plus 2: the double rounding is
  // innocuous).
  Half h = Half::None;
  for (size_t i = 0; i < num_inputs(); ++i)
    if (input_half(i) != Half::None) h = input_half(i);
  auto operand = [&](size_t i) { return h == Half::None ? input(i) : half_to_f32(input(i), h); };
  Val acc = operand(0);
  for (size_t i = 1; i < num_inputs(); ++i) acc = binary(op, acc, operand(i));
  if (h != Half::None) acc = f32_to_half(acc, h);
  acc.conv = -1;
  set_output(0, acc);
}

void Importer::unary(const std::string& op) {
  Val x = input(0);
  if (op == "Identity" || op == "Dropout") {
    if (op == "Dropout") {
      bool training = attr_int("is_test", 1) == 0 && opset_ < 7;
      if (has_input(2)) {
        Val& t = const_input(2, "training_mode");
        training = num_elements(t.shape) == 1 && get_i(t.dt, *t.data, 0) != 0;
      }
      if (training) {
        // Training mode drops each element with probability `ratio` (0.5 by default): with
        // ratio 0 it is the identity; otherwise the mask is random, and ONNX leaves the generator
        // open (its test data are numpy's draws), so no result could be checked.
        double ratio = opset_ < 12 ? attr_float("ratio", 0.5f) : 0.5;
        if (opset_ >= 12 && has_input(1)) {
          Val& r = const_input(1, "ratio");
          if (num_elements(r.shape) != 1 || (!r.dt.is_float() && input_half(1) == Half::None))
            fail("ratio must be a float scalar");
          ratio = input_half(1) != Half::None ? half_to_double(input_half(1), static_cast<uint16_t>(get_i(r.dt, *r.data, 0)))
                                              : get_f(r.dt, *r.data, 0);
        }
        if (ratio != 0) {
          char text[32];
          std::snprintf(text, sizeof text, "%g", ratio);
          fail(std::string("Dropout in training mode with ratio ") + text +
               " draws a random mask, which is not supported (ONNX leaves the generator open); with ratio 0 it is "
               "the identity");
        }
      }
      // In inference, and in training with ratio 0, the mask is all true.
      Val mask;
      mask.dt = DataType::boolean();
      mask.shape = x.shape;
      mask.data = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(num_elements(x.shape)), 1);
      set_output(1, mask);
    }
    x.conv = -1;
    return set_output(0, x);
  }
  if (op == "Sigmoid" || op == "Tanh") need_dtype(x, {DataType::f32()}, "the input");
  else need_dtype(x, numeric(), "the input");
  if (x.data && op == "Relu") {  // folded
    Val out = x;
    out.data = std::make_shared<std::vector<uint8_t>>(*x.data);
    for (int64_t i = 0; i < num_elements(x.shape); ++i)
      if (get_f(x.dt, *x.data, static_cast<size_t>(i)) < 0) put_i(x.dt, *out.data, static_cast<size_t>(i), 0);
    return set_output(0, out);
  }
  std::vector<int64_t> shape = physical(x);
  if (shape.size() > 6) fail("tensors of more than 6 dimensions are not supported");
  std::string r = std::to_string(shape.size());
  std::vector<std::string> args = {tensor_of(x)};
  std::string f = op == "Relu" ? "relu" : op == "LeakyRelu" ? "leaky_relu" : op == "Sigmoid" ? "sigmoid" : "tanh";
  if (op == "LeakyRelu") {
    auto v = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(x.dt.bytes()));
    put_f(x.dt, *v, 0, attr_float("alpha", 0.01f));
    args.push_back(emit_const(x.dt, {1}, v, "alpha"));
  }
  Val out = x;
  out.data = nullptr;
  out.conv = -1;
  out.tensor = call("onnx_math", f + "_" + x.dt.str() + "_" + r, shape, args, x.dt, shape);
  set_output(0, out);
}

void Importer::clip() {
  Val x = input(0);
  need_dtype(x, numeric(), "the input");
  double lo, hi;
  if (x.dt.is_float()) {
    lo = -INFINITY;
    hi = INFINITY;
  } else {
    lo = static_cast<double>(x.dt.min_int());
    hi = x.dt.is_uint() && x.dt.bits == 64 ? 18446744073709551615.0 : static_cast<double>(x.dt.max_int_signed());
  }
  auto v = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(2 * x.dt.bytes()));
  put_f(x.dt, *v, 0, lo);
  put_f(x.dt, *v, 1, hi);
  if (opset_ < 11) {
    if (attr("min")) put_f(x.dt, *v, 0, attr_float("min", 0));
    if (attr("max")) put_f(x.dt, *v, 1, attr_float("max", 0));
  } else {
    for (size_t i : {size_t(1), size_t(2)}) {
      if (!has_input(i)) continue;
      Val& b = const_input(i, i == 1 ? "min" : "max");
      if (num_elements(b.shape) != 1 || b.dt != x.dt) fail(std::string(i == 1 ? "min" : "max") + " must be a scalar of the input's dtype");
      std::memcpy(v->data() + (i - 1) * static_cast<size_t>(x.dt.bytes()), b.data->data(), static_cast<size_t>(x.dt.bytes()));
    }
  }
  std::vector<int64_t> shape = physical(x);
  if (shape.size() > 6) fail("tensors of more than 6 dimensions are not supported");
  Val out = x;
  out.data = nullptr;
  out.conv = -1;
  out.tensor = call("onnx_math", "clip_" + x.dt.str() + "_" + std::to_string(shape.size()), shape,
                    {tensor_of(x), emit_const(x.dt, {2}, v, "bounds")}, x.dt, shape);
  set_output(0, out);
}

// A float16 or bfloat16 value (its u16 bits) as f32, exactly; folded for a constant.
Val Importer::half_to_f32(const Val& v, Half h) {
  Val out = v;
  out.dt = DataType::f32();
  out.conv = -1;
  if (v.data) {
    size_t n = static_cast<size_t>(num_elements(v.shape));
    out.data = std::make_shared<std::vector<uint8_t>>(n * 4);
    for (size_t i = 0; i < n; ++i)
      put_f(out.dt, *out.data, i, half_to_double(h, static_cast<uint16_t>(get_i(DataType::u16(), *v.data, i))));
    return out;
  }
  std::vector<int64_t> shape = physical(v);
  if (shape.size() > 6) fail("tensors of more than 6 dimensions are not supported");
  out.tensor = call("onnx_move", std::string(h == Half::F16 ? "cast_f16" : "cast_bf16") + "_f32_" + std::to_string(shape.size()),
                    shape, {v.tensor}, out.dt, shape);
  return out;
}

// An f32 (or, for float16, f64) value as float16 or bfloat16 bits; folded for a constant.
Val Importer::f32_to_half(const Val& v, Half h) {
  Val out = v;
  out.dt = DataType::u16();
  out.conv = -1;
  if (v.data) {
    size_t n = static_cast<size_t>(num_elements(v.shape));
    out.data = std::make_shared<std::vector<uint8_t>>(n * 2);
    for (size_t i = 0; i < n; ++i) put_i(out.dt, *out.data, i, double_to_half(h, get_f(v.dt, *v.data, i)));
    return out;
  }
  std::vector<int64_t> shape = physical(v);
  if (shape.size() > 6) fail("tensors of more than 6 dimensions are not supported");
  out.tensor = call("onnx_move", "cast_" + v.dt.str() + (h == Half::F16 ? "_f16_" : "_bf16_") + std::to_string(shape.size()),
                    shape, {v.tensor}, out.dt, shape);
  return out;
}

Val Importer::plain_cast(const Val& x, DataType to) {
  if (x.dt == to) return x;
  Val out = x;
  out.dt = to;
  out.conv = -1;
  if (x.data) {
    size_t n = static_cast<size_t>(num_elements(x.shape));
    out.data = std::make_shared<std::vector<uint8_t>>(n * static_cast<size_t>(to.bytes()));
    for (size_t i = 0; i < n; ++i) {
      if (x.dt.is_float()) put_f(to, *out.data, i, get_f(x.dt, *x.data, i));
      else if (to.is_float()) put_f(to, *out.data, i, get_f(x.dt, *x.data, i));
      else put_i(to, *out.data, i, get_i(x.dt, *x.data, i));
    }
    return out;
  }
  std::vector<int64_t> shape = physical(x);
  if (shape.size() > 6) fail("tensors of more than 6 dimensions are not supported");
  out.tensor = call("onnx_move", "cast_" + x.dt.str() + "_" + to.str() + "_" + std::to_string(shape.size()), shape,
                    {x.tensor}, to, shape);
  return out;
}

// Cast. float16 and bfloat16 (u16 bits) go through f32, which holds every float16 and bfloat16
// exactly: f32 and f64 round to float16 directly (once), anything else is first an f32 (exact for
// every value that does not overflow float16 anyway); bfloat16 truncates the f32.
void Importer::cast() {
  Val x = input(0);
  int32_t to_type = static_cast<int32_t>(attr_int("to", 0));
  DataType to = tensor_dtype(to_type, "the target type ('to')");
  Half from_h = input_half(0), to_h = half_kind(to_type);
  if (x.dt == to && from_h == to_h) {
    x.conv = -1;
    return set_output(0, x);
  }
  if (from_h == Half::None && to_h == Half::None) return set_output(0, plain_cast(x, to));
  Val cur = x;
  if (from_h != Half::None) {
    cur = half_to_f32(cur, from_h);
    cur = to_h == Half::None ? plain_cast(cur, to) : f32_to_half(cur, to_h);
  } else {
    if (!(to_h == Half::F16 && x.dt == DataType::f64())) cur = plain_cast(cur, DataType::f32());
    cur = f32_to_half(cur, to_h);
  }
  set_output(0, cur);
}

std::vector<int64_t> conv_pads(const std::string& auto_pad, const std::vector<int64_t>& pads, int64_t h, int64_t w,
                               const std::vector<int64_t>& k, const std::vector<int64_t>& s,
                               const std::vector<int64_t>& d, const std::function<void(const std::string&)>& fail) {
  if (auto_pad == "NOTSET") {
    if (pads.size() != 4) fail("pads must have 4 values for a 2-D operator");
    for (int64_t p : pads)
      if (p < 0) fail("negative pads are not supported");
    return pads;
  }
  if (auto_pad == "VALID") return {0, 0, 0, 0};
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") fail("auto_pad '" + auto_pad + "' is not supported");
  std::vector<int64_t> out(4);
  int64_t in[2] = {h, w};
  for (int a = 0; a < 2; ++a) {
    int64_t o = (in[a] + s[a] - 1) / s[a];
    int64_t total = std::max<int64_t>(0, (o - 1) * s[a] + (k[a] - 1) * d[a] + 1 - in[a]);
    int64_t small = total / 2, big = total - small;
    out[a] = auto_pad == "SAME_UPPER" ? small : big;
    out[a + 2] = auto_pad == "SAME_UPPER" ? big : small;
  }
  return out;
}

Importer::ConvGeometry Importer::conv_geometry(const Val& x, const Val& w) {
  auto failf = [this](const std::string& m) { fail(m); };
  if (x.shape.size() != 4) fail("only 2-D convolutions (4-D inputs) are supported, got " + shape_text(x.shape));
  if (w.shape.size() != 4) fail("the weights must be 4-D, got " + shape_text(w.shape));
  ConvGeometry k;
  k.g = attr_int("group", 1);
  k.n = x.shape[0], k.c = x.shape[1], k.h = x.shape[2], k.w = x.shape[3];
  k.m = w.shape[0], k.cg = w.shape[1], k.kh = w.shape[2], k.kw = w.shape[3];
  if (k.g < 1 || k.c != k.g * k.cg || k.m % k.g != 0)
    fail("group " + std::to_string(k.g) + " does not fit " + std::to_string(k.c) + " input channels and weights " +
         shape_text(w.shape));
  if (attr_ints("kernel_shape", {k.kh, k.kw}) != std::vector<int64_t>{k.kh, k.kw})
    fail("kernel_shape does not match the weights");
  k.s = attr_ints("strides", {1, 1});
  k.d = attr_ints("dilations", {1, 1});
  for (int64_t v : k.s) small(v, "a stride");
  for (int64_t v : k.d) small(v, "a dilation");
  for (int64_t v : attr_ints("pads", {})) small(v, "a pad");
  if (k.s.size() != 2 || k.d.size() != 2 || k.s[0] < 1 || k.s[1] < 1 || k.d[0] < 1 || k.d[1] < 1)
    fail("strides and dilations must be 2 positive values");
  k.p = conv_pads(attr_string("auto_pad", "NOTSET"), attr_ints("pads", {0, 0, 0, 0}), k.h, k.w, {k.kh, k.kw}, k.s, k.d,
                  failf);
  k.oh = (k.h + k.p[0] + k.p[2] - k.d[0] * (k.kh - 1) - 1) / k.s[0] + 1;
  k.ow = (k.w + k.p[1] + k.p[3] - k.d[1] * (k.kw - 1) - 1) / k.s[1] + 1;
  if (k.oh < 1 || k.ow < 1) fail("the output would be empty");
  return k;
}

std::vector<int64_t> Importer::ConvGeometry::targs() const {
  return {g, s[0], s[1], p[0], p[1], p[2], p[3], d[0], d[1], n, h, w, c, kh, kw, cg, m};
}

std::string Importer::conv_weights(const Val& w, const ConvGeometry& k) {
  if (w.data) return emit_const(w.dt, {k.kh, k.kw, k.cg, k.m}, permute(*w.data, w.dt, w.shape, {2, 3, 1, 0}), w.hint);
  std::string t = call("onnx_move", "transpose_" + w.dt.str() + "_2310", w.shape, {w.tensor}, w.dt, {k.kh, k.kw, k.cg, k.m});
  calls_.back().comment += " (weights to HWIO)";
  return t;
}

void Importer::conv() {
  Val x = input(0), w = layout(input(1), false);
  need_dtype(x, {DataType::f32()}, "the input");
  if (w.dt != x.dt) fail("the weights must be " + x.dt.str());
  ConvGeometry k = conv_geometry(x, w);
  x = layout(x, true);
  std::string wt = conv_weights(w, k);
  size_t wconst = w.data ? consts_.size() - 1 : SIZE_MAX, bconst = SIZE_MAX;
  std::string bt;
  if (has_input(2)) {
    Val b = input(2);
    if (b.shape != std::vector<int64_t>{k.m} || b.dt != x.dt) fail("the bias must be " + x.dt.str() + "[" + std::to_string(k.m) + "]");
    if (b.data) {
      bt = emit_const(b.dt, {k.m}, std::make_shared<std::vector<uint8_t>>(*b.data), b.hint);
      bconst = consts_.size() - 1;
    } else {
      bt = b.tensor;
    }
  } else {
    bt = emit_const(x.dt, {k.m}, std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(k.m * 4)), "bias");
    bconst = consts_.size() - 1;
  }
  Val out;
  out.dt = x.dt;
  out.shape = {k.n, k.m, k.oh, k.ow};
  out.nhwc = true;
  out.tensor = call("onnx_nn", "conv2d_f32", k.targs(), {x.tensor, wt, bt}, x.dt, physical(out));
  if (wconst != SIZE_MAX && bconst != SIZE_MAX) {
    out.conv = static_cast<int>(calls_.size()) - 1;
    conv_consts_[out.conv] = {wconst, bconst};
  }
  set_output(0, out);
}

void Importer::batch_norm() {
  Val x = input(0);
  need_dtype(x, {DataType::f32()}, "the input");
  if (x.shape.size() < 2) fail("the input must have a channel dimension");
  bool outputs = false;
  for (int i = 1; i < node_->output_size(); ++i) outputs |= !node_->output(i).empty();
  if (opset_ >= 14 && (attr_int("training_mode", 0) != 0 || outputs)) return batch_norm_training();
  if (outputs) unsupported_attr("training mode before opset 14 (the mean, variance and saved statistics outputs)");
  int64_t c = x.shape[1];
  const char* names[4] = {"scale", "B", "mean", "var"};
  std::vector<double> v[4];
  for (size_t i = 0; i < 4; ++i) {
    Val& t = const_input(i + 1, names[i]);
    if (num_elements(t.shape) != c || !t.dt.is_float()) fail(std::string(names[i]) + " must hold " + std::to_string(c) + " floats");
    for (int64_t k = 0; k < c; ++k) v[i].push_back(get_f(t.dt, *t.data, static_cast<size_t>(k)));
  }
  double eps = attr_float("epsilon", 1e-5f);
  std::vector<double> scale(static_cast<size_t>(c)), shift(static_cast<size_t>(c));
  for (size_t k = 0; k < static_cast<size_t>(c); ++k) {
    scale[k] = v[0][k] / std::sqrt(v[3][k] + eps);
    shift[k] = v[1][k] - v[2][k] * scale[k];
  }
  const std::string& xname = node_->input(0);
  if (x.conv >= 0 && uses_[xname] == 1) {
    // Folded into the conv: its weights scaled per output channel, its bias shifted.
    ConvConsts cc = conv_consts_.at(x.conv);
    Const& w = consts_[cc.weights];
    Const& b = consts_[cc.bias];
    auto wd = std::make_shared<std::vector<uint8_t>>(*w.data);
    auto bd = std::make_shared<std::vector<uint8_t>>(*b.data);
    int64_t total = num_elements(w.shape);
    for (int64_t i = 0; i < total; ++i) {
      size_t k = static_cast<size_t>(i % c);
      put_f(w.dt, *wd, static_cast<size_t>(i), get_f(w.dt, *wd, static_cast<size_t>(i)) * scale[k]);
    }
    for (size_t k = 0; k < static_cast<size_t>(c); ++k) put_f(b.dt, *bd, k, get_f(b.dt, *bd, k) * scale[k] + shift[k]);
    w.data = wd;
    b.data = bd;
    calls_[static_cast<size_t>(x.conv)].comment += " + " + (node_->name().empty() ? "" : comment_text(node_->name()) + ": ") +
                                                   "BatchNormalization (folded)";
    x.conv = -1;
    return set_output(0, x);
  }
  std::vector<int64_t> cshape(x.shape.size(), 1);
  cshape[1] = c;
  auto make = [&](const std::vector<double>& vals, const char* hint) {
    Val k;
    k.dt = x.dt;
    k.shape = cshape;
    k.hint = hint;
    k.data = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(c * x.dt.bytes()));
    for (size_t i = 0; i < vals.size(); ++i) put_f(x.dt, *k.data, i, vals[i]);
    return k;
  };
  if (x.shape.size() == 4) x = layout(x, true);
  Val out = binary("mul", x, make(scale, "bn_scale"));
  out = binary("add", out, make(shift, "bn_shift"));
  set_output(0, out);
}

// BatchNormalization in training mode (opset 14 on): normalized with the batch's mean and
// population variance per channel, and the running mean and variance outputs, input * momentum +
// batch * (1 - momentum), as ONNX's reference (onnx_nn.dsp's batchnorm_train_f32 on x viewed as
// [N, C, S]). The statistics inputs are constants, as in inference.
void Importer::batch_norm_training() {
  Val x = layout(input(0), false);
  int64_t c = x.shape[1];
  const char* names[4] = {"scale", "B", "input_mean", "input_var"};
  auto p = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(4 * c * 4));
  for (size_t i = 0; i < 4; ++i) {
    Val& t = const_input(i + 1, names[i]);
    if (num_elements(t.shape) != c || !t.dt.is_float()) fail(std::string(names[i]) + " must hold " + std::to_string(c) + " floats");
    for (int64_t k = 0; k < c; ++k)
      put_f(DataType::f32(), *p, static_cast<size_t>(static_cast<int64_t>(i) * c + k), get_f(t.dt, *t.data, static_cast<size_t>(k)));
  }
  auto e = std::make_shared<std::vector<uint8_t>>(8);
  put_f(DataType::f32(), *e, 0, attr_float("epsilon", 1e-5f));
  put_f(DataType::f32(), *e, 1, attr_float("momentum", 0.9f));
  int64_t n = x.shape[0], spatial = num_elements(x.shape) / (n * c);
  Val x3 = reshape(x, {n, c, spatial});
  if (x3.data) x3.tensor = tensor_of(x3), x3.data = nullptr;
  std::vector<std::string> outs = call_n("onnx_nn", "batchnorm_train_f32", {n, c, spatial},
                                         {x3.tensor, emit_const(DataType::f32(), {4, c}, p, "bn_params"),
                                          emit_const(DataType::f32(), {2}, e, "bn_eps_momentum")},
                                         3);
  Val y;
  y.dt = DataType::f32();
  y.shape = {n, c, spatial};
  y.tensor = outs[0];
  set_output(0, reshape(y, x.shape));
  for (size_t i = 1; i < 3; ++i) {
    Val r;
    r.dt = DataType::f32();
    r.shape = {c};
    r.tensor = outs[i];
    set_output(i, r);
  }
}

void Importer::pool(bool max, bool quantized) {
  Val x = input(0);
  auto failf = [this](const std::string& m) { fail(m); };
  if (x.shape.size() == 3 && !quantized) return pool_1d(max);
  if (x.shape.size() == 5 && !quantized) return pool_3d(max);
  if (x.shape.size() != 4) fail("only 1-D, 2-D and 3-D pooling (3-D to 5-D inputs) is supported, got " + shape_text(x.shape));
  if (max || quantized) need_dtype(x, {DataType::f32(), DataType::f64(), DataType::u8(), DataType::i8()}, "the input");
  else need_dtype(x, {DataType::f32()}, "the input");
  if (quantized) need_dtype(x, {DataType::u8(), DataType::i8()}, "the input");
  bool indices = max && node_->output_size() > 1 && !node_->output(1).empty();
  int64_t storage_order = max ? attr_int("storage_order", 0) : 0;
  if (storage_order != 0 && storage_order != 1) fail("storage_order must be 0 or 1");
  std::vector<int64_t> k = pool1d_ ? pool1d_->k : attr_ints("kernel_shape");
  if (k.size() != 2 || k[0] < 1 || k[1] < 1) fail("kernel_shape must be 2 positive values");
  std::vector<int64_t> s = pool1d_ ? pool1d_->s : attr_ints("strides", {1, 1});
  std::vector<int64_t> d = pool1d_ ? pool1d_->d : attr_ints("dilations", {1, 1});
  if (s.size() != 2 || d.size() != 2 || s[0] < 1 || s[1] < 1 || d[0] < 1 || d[1] < 1)
    fail("strides and dilations must be 2 positive values");
  if (!max && (d[0] != 1 || d[1] != 1)) unsupported_attr("dilations in AveragePool");
  for (const auto* list : {&k, &s, &d})
    for (int64_t v : *list) small(v, "a window, stride or dilation value");
  if (!pool1d_)
    for (int64_t v : attr_ints("pads", {})) small(v, "a pad");
  int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  std::vector<int64_t> p = pool1d_ ? pool1d_->p
                                   : conv_pads(attr_string("auto_pad", "NOTSET"), attr_ints("pads", {0, 0, 0, 0}), h, w,
                                               k, s, d, failf);
  bool ceil_mode = attr_int("ceil_mode", 0) != 0;
  int64_t out_hw[2];
  int64_t in[2] = {h, w};
  for (int a = 0; a < 2; ++a) {
    int64_t span = in[a] + p[a] + p[a + 2] - ((k[a] - 1) * d[a] + 1);
    if (span < 0) fail("the window is larger than the padded input");
    out_hw[a] = (ceil_mode ? (span + s[a] - 1) / s[a] : span / s[a]) + 1;
    // As ONNX's reference does: with ceil_mode, a window may not start in the end padding.
    if (ceil_mode && (out_hw[a] - 1) * s[a] >= in[a] + p[a]) --out_hw[a];
  }
  if (node_->output_size() > 0 && !pool1d_) {
    auto inf = inferred_.find(node_->output(0));
    if (inf != inferred_.end() && inf->second.second.size() == 4) {
      out_hw[0] = inf->second.second[2];
      out_hw[1] = inf->second.second[3];
    }
  }
  int64_t extra[2];
  for (int a = 0; a < 2; ++a)
    extra[a] = std::max<int64_t>(0, (out_hw[a] - 1) * s[a] + (k[a] - 1) * d[a] + 1 - (in[a] + p[a] + p[a + 2]));
  x = layout(x, true);
  Val out;
  out.dt = x.dt;
  out.shape = {n, c, out_hw[0], out_hw[1]};
  out.nhwc = true;
  if (max) {
    out.tensor = call("onnx_nn", "maxpool_" + x.dt.str(),
                      {k[0], k[1], s[0], s[1], p[0], p[1], p[2] + extra[0], p[3] + extra[1], d[0], d[1], n, h, w, c},
                      {x.tensor}, x.dt, physical(out));
    if (indices) {
      // Indices: each maximum's position in the input flattened in ONNX's NCHW order (the
      // [N, C, 1, L] view of a 1-D pool flattens as [N, C, L]).
      Val ix = out;
      ix.dt = DataType::i64();
      ix.tensor = call("onnx_nn", "maxpool_index_" + x.dt.str(),
                       {k[0], k[1], s[0], s[1], p[0], p[1], p[2] + extra[0], p[3] + extra[1], d[0], d[1], storage_order, n,
                        h, w, c},
                       {x.tensor}, ix.dt, physical(ix));
      set_output(1, ix);
    }
  } else {
    int64_t cip = attr_int("count_include_pad", 0) != 0;
    std::vector<std::string> args = {x.tensor};
    if (quantized) {  // the zero point (one scale on both sides: the fold checked it)
      DataType zt = x.dt;
      args.push_back(emit_const(DataType::i32(), {1}, i32_bytes({zero_points(2, 1, zt, "x_zero_point")[0]}), "zero_point"));
    }
    out.tensor = call("onnx_nn", quantized ? "avgpool_q_" + x.dt.str() : "avgpool_f32",
                      {k[0], k[1], s[0], s[1], p[0], p[1], p[2], p[3], extra[0], extra[1], cip, n, h, w, c}, args,
                      x.dt, physical(out));
  }
  set_output(0, out);
}

// 1-D pooling is 2-D pooling of a [N, C, 1, L] image with a 1 x K window.
void Importer::pool_1d(bool max) {
  Val x = input(0);
  auto failf = [this](const std::string& m) { fail(m); };
  std::vector<int64_t> k = attr_ints("kernel_shape"), s = attr_ints("strides", {1}), d = attr_ints("dilations", {1});
  std::vector<int64_t> pads = attr_ints("pads", {});
  for (const auto* list : {&k, &s, &d, &pads})
    for (int64_t v : *list) small(v, "a window, stride, dilation or pad value");
  if (k.size() != 1 || s.size() != 1 || d.size() != 1 || k[0] < 1 || s[0] < 1 || d[0] < 1)
    fail("kernel_shape, strides and dilations must be one positive value each");
  std::vector<int64_t> p2 = conv_pads(attr_string("auto_pad", "NOTSET"),
                                      [&] {
                                        std::vector<int64_t> p = attr_ints("pads", {0, 0});
                                        if (p.size() != 2) fail("pads must have 2 values for a 1-D operator");
                                        return std::vector<int64_t>{0, p[0], 0, p[1]};
                                      }(),
                                      1, x.shape[2], {1, k[0]}, {1, s[0]}, {1, d[0]}, failf);
  Pool1d saved{{1, k[0]}, {1, s[0]}, {1, d[0]}, p2};
  Val x4 = reshape(x, {x.shape[0], x.shape[1], 1, x.shape[2]});
  std::string name = node_->input(0);
  Val original = values_[name];
  values_[name] = x4;
  pool1d_ = &saved;
  std::map<std::string, std::pair<DataType, std::vector<int64_t>>> keep;  // the outputs' 1-D types
  for (const std::string& out_name : node_->output()) {
    auto inferred = inferred_.find(out_name);
    if (inferred != inferred_.end()) keep.insert(*inferred), inferred_.erase(inferred);
  }
  try {
    pool(max);
  } catch (...) {
    pool1d_ = nullptr;
    values_[name] = original;
    throw;
  }
  pool1d_ = nullptr;
  values_[name] = original;
  for (const auto& kv : keep) inferred_.insert(kv);
  for (int i = 0; i < node_->output_size() && i < 2; ++i) {
    if (node_->output(i).empty()) continue;
    Val y = values_[node_->output(i)];
    set_output(static_cast<size_t>(i), reshape(y, {y.shape[0], y.shape[1], y.shape[3]}));
  }
}

// 3-D pooling of [N, C, D, H, W] in that layout (onnx_nn.dsp's maxpool3d and avgpool3d).
void Importer::pool_3d(bool max) {
  Val x = input(0);
  if (max) need_dtype(x, {DataType::f32(), DataType::f64(), DataType::u8(), DataType::i8()}, "the input");
  else need_dtype(x, {DataType::f32()}, "the input");
  if (max && node_->output_size() > 1 && !node_->output(1).empty()) unsupported_attr("MaxPool's Indices output of a 3-D pool");
  std::vector<int64_t> k = attr_ints("kernel_shape"), s = attr_ints("strides", {1, 1, 1}), d = attr_ints("dilations", {1, 1, 1});
  if (k.size() != 3 || s.size() != 3 || d.size() != 3) fail("kernel_shape, strides and dilations must have 3 values");
  for (int a = 0; a < 3; ++a)
    if (k[a] < 1 || s[a] < 1 || d[a] < 1) fail("kernel_shape, strides and dilations must be positive");
  if (!max && (d[0] != 1 || d[1] != 1 || d[2] != 1)) unsupported_attr("dilations in AveragePool");
  for (const auto* list : {&k, &s, &d})
    for (int64_t v : *list) small(v, "a window, stride or dilation value");
  std::vector<int64_t> in = {x.shape[2], x.shape[3], x.shape[4]};
  std::vector<int64_t> p = attr_ints("pads", {0, 0, 0, 0, 0, 0});
  for (int64_t v : p) small(v, "a pad");
  std::string auto_pad = attr_string("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    p.assign(6, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (int a = 0; a < 3; ++a) {
      int64_t o = (in[a] + s[a] - 1) / s[a];
      int64_t total = std::max<int64_t>(0, (o - 1) * s[a] + (k[a] - 1) * d[a] + 1 - in[a]);
      int64_t lo = total / 2, hi = total - lo;
      p[a] = auto_pad == "SAME_UPPER" ? lo : hi;
      p[a + 3] = auto_pad == "SAME_UPPER" ? hi : lo;
    }
  } else if (auto_pad != "NOTSET") {
    fail("auto_pad '" + comment_text(auto_pad) + "' is not supported");
  }
  if (p.size() != 6) fail("pads must have 6 values for a 3-D operator");
  for (int64_t v : p)
    if (v < 0) fail("negative pads are not supported");
  bool ceil_mode = attr_int("ceil_mode", 0) != 0;
  std::vector<int64_t> o(3), extra(3);
  for (int a = 0; a < 3; ++a) {
    int64_t span = in[a] + p[a] + p[a + 3] - ((k[a] - 1) * d[a] + 1);
    if (span < 0) fail("the window is larger than the padded input");
    o[a] = (ceil_mode ? (span + s[a] - 1) / s[a] : span / s[a]) + 1;
    if (ceil_mode && (o[a] - 1) * s[a] >= in[a] + p[a]) --o[a];
    extra[a] = std::max<int64_t>(0, (o[a] - 1) * s[a] + (k[a] - 1) * d[a] + 1 - (in[a] + p[a] + p[a + 3]));
  }
  Val out;
  out.dt = x.dt;
  out.shape = {x.shape[0], x.shape[1], o[0], o[1], o[2]};
  std::vector<int64_t> tail = {x.shape[0], x.shape[1], in[0], in[1], in[2]};
  if (max) {
    std::vector<int64_t> targs = {k[0], k[1], k[2], s[0], s[1], s[2], p[0], p[1], p[2], p[3] + extra[0], p[4] + extra[1],
                                  p[5] + extra[2], d[0], d[1], d[2]};
    targs.insert(targs.end(), tail.begin(), tail.end());
    out.tensor = call("onnx_nn", "maxpool3d_" + x.dt.str(), targs, {tensor_of(x)}, x.dt, out.shape);
  } else {
    std::vector<int64_t> targs = {k[0], k[1], k[2], s[0], s[1], s[2], p[0], p[1], p[2], p[3], p[4], p[5],
                                  extra[0], extra[1], extra[2], attr_int("count_include_pad", 0) != 0};
    targs.insert(targs.end(), tail.begin(), tail.end());
    out.tensor = call("onnx_nn", "avgpool3d_f32", targs, {tensor_of(x)}, x.dt, out.shape);
  }
  set_output(0, out);
}

void Importer::global_pool(bool max) {
  Val x = input(0);
  if (max) need_dtype(x, numeric(), "the input");
  else need_dtype(x, {DataType::f32(), DataType::f64()}, "the input");
  size_t r = x.shape.size();
  if (r < 3 || r > 6) fail("the input must have 3 to 6 dimensions");
  if (r == 4) x = layout(x, true);
  std::vector<int64_t> mask(r, 1);
  mask[0] = 0;
  if (r == 4) mask[3] = 0;  // NHWC: C is last
  else mask[1] = 0;
  std::vector<int64_t> targs = mask, phys = physical(x);
  targs.insert(targs.end(), phys.begin(), phys.end());
  Val out;
  out.dt = x.dt;
  out.shape = x.shape;
  for (size_t k = 2; k < r; ++k) out.shape[k] = 1;
  out.nhwc = r == 4;
  out.tensor = call("onnx_math", std::string("reduce_") + (max ? "max_" : "mean_") + x.dt.str() + "_" + std::to_string(r),
                    targs, {x.tensor}, x.dt, physical(out));
  set_output(0, out);
}

void Importer::reduce(const std::string& op) {
  Val x = input(0);
  if (op == "mean") need_dtype(x, {DataType::f32(), DataType::f64()}, "the input");
  else need_dtype(x, numeric(), "the input");
  size_t r = x.shape.size();
  auto failf = [this](const std::string& m) { fail(m); };
  std::vector<int64_t> axes;
  bool from_input = op == "sum" && opset_ >= 13;
  if (from_input) {
    if (has_input(1)) axes = const_ints(1, "axes");
  } else {
    axes = attr_ints("axes");
  }
  bool keep = attr_int("keepdims", 1) != 0;
  if (axes.empty() && from_input && attr_int("noop_with_empty_axes", 0)) {
    x.conv = -1;
    return set_output(0, x);
  }
  std::vector<int64_t> mask(std::max<size_t>(r, 1), 0);
  if (axes.empty()) std::fill(mask.begin(), mask.end(), 1);
  for (int64_t a : axes) mask[static_cast<size_t>(normalize_axis(a, r, failf))] = 1;
  if (r > 6) fail("tensors of more than 6 dimensions are not supported");
  if (x.data || !keep) x = layout(x, false);
  if (x.data) x.tensor = tensor_of(x), x.data = nullptr;
  std::vector<int64_t> pmask = mask;
  if (x.nhwc) pmask = {mask[0], mask[2], mask[3], mask[1]};
  std::vector<int64_t> targs = pmask, phys = physical(x);
  targs.insert(targs.end(), phys.begin(), phys.end());
  Val out;
  out.dt = x.dt;
  out.nhwc = x.nhwc;
  out.shape = x.shape;
  for (size_t k = 0; k < r; ++k)
    if (mask[k]) out.shape[k] = 1;
  out.tensor = call("onnx_math", "reduce_" + op + "_" + x.dt.str() + "_" + std::to_string(phys.size()), targs,
                    {x.tensor}, x.dt, physical(out));
  if (!keep) {
    std::vector<int64_t> s;
    for (size_t k = 0; k < r; ++k)
      if (!mask[k]) s.push_back(x.shape[k]);
    out = reshape(out, s);
  }
  set_output(0, out);
}

void Importer::softmax(bool log) {
  Val x = input(0);
  need_dtype(x, {DataType::f32()}, "the input");
  size_t r = x.shape.size();
  auto failf = [this](const std::string& m) { fail(m); };
  if (r == 0) fail("the input must have at least 1 dimension");
  int64_t axis = normalize_axis(attr_int("axis", opset_ >= 13 ? -1 : 1), r, failf);
  std::vector<int64_t> shape = x.shape;
  Val v = layout(x, false);
  bool flatten = opset_ < 13 && axis != static_cast<int64_t>(r) - 1;
  if (flatten) {
    int64_t outer = 1, inner = 1;
    for (size_t k = 0; k < r; ++k) (static_cast<int64_t>(k) < axis ? outer : inner) *= x.shape[k];
    v = reshape(v, {outer, inner});
    axis = 1;
  }
  if (v.shape.size() > 4) fail("softmax of more than 4 dimensions is not supported");
  if (v.data) v.tensor = tensor_of(v), v.data = nullptr;
  Val out = v;
  out.conv = -1;
  out.tensor = call("onnx_math", std::string(log ? "log_softmax" : "softmax") + "_f32_" + std::to_string(v.shape.size()) +
                                     "_" + std::to_string(axis),
                    v.shape, {v.tensor}, v.dt, v.shape);
  if (flatten) out = reshape(out, shape);
  set_output(0, out);
}

void Importer::matmul() {
  Val a = layout(input(0), false), b = layout(input(1), false);
  need_dtype(a, {DataType::f32(), DataType::f64()}, "the input");
  if (a.dt != b.dt) fail("the inputs' dtypes differ");
  if (a.shape.empty() || b.shape.empty()) fail("MatMul of a scalar");
  bool a_vec = a.shape.size() == 1, b_vec = b.shape.size() == 1;
  if (a_vec) a = reshape(a, {1, a.shape[0]});
  if (b_vec) b = reshape(b, {b.shape[0], 1});
  size_t r = std::max(a.shape.size(), b.shape.size());
  if (r > 4) fail("MatMul of more than 4 dimensions is not supported");
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
  std::vector<int64_t> targs, out_shape;
  for (size_t i = 0; i + 2 < r; ++i) targs.push_back(a.shape[i]);
  for (size_t i = 0; i + 2 < r; ++i) {
    targs.push_back(b.shape[i]);
    if (a.shape[i] != b.shape[i] && a.shape[i] != 1 && b.shape[i] != 1) fail("the batch dimensions do not broadcast");
    out_shape.push_back(std::max(a.shape[i], b.shape[i]));
  }
  targs.insert(targs.end(), {m, k, n});
  out_shape.insert(out_shape.end(), {m, n});
  Val out;
  out.dt = a.dt;
  out.shape = out_shape;
  out.tensor = call("onnx_nn", "matmul_" + a.dt.str() + "_" + std::to_string(r), targs, {tensor_of(a), tensor_of(b)},
                    a.dt, out_shape);
  // ONNX drops the dimension a vector operand gained.
  std::vector<int64_t> final_shape(out_shape.begin(), out_shape.end() - 2);
  if (!a_vec) final_shape.push_back(m);
  if (!b_vec) final_shape.push_back(n);
  if (final_shape != out.shape) out = reshape(out, final_shape);
  set_output(0, out);
}

void Importer::gemm() {
  Val a = input(0), b = input(1);
  need_dtype(a, {DataType::f32()}, "the input");
  if (a.shape.size() != 2 || b.shape.size() != 2 || b.dt != a.dt) fail("A and B must be 2-D f32");
  bool ta = attr_int("transA", 0) != 0, tb = attr_int("transB", 0) != 0;
  int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  int64_t kb = tb ? b.shape[1] : b.shape[0], n = tb ? b.shape[0] : b.shape[1];
  if (k != kb) fail("the inner dimensions differ: " + shape_text(a.shape) + " and " + shape_text(b.shape));
  float alpha = attr_float("alpha", 1.0f), beta = attr_float("beta", 1.0f);
  Val c;
  if (has_input(2)) {
    c = input(2);
    if (c.dt != a.dt) fail("C's dtype differs");
    if (c.shape.size() > 2) fail("C must have at most 2 dimensions");
    std::vector<int64_t> s = c.shape;
    while (s.size() < 2) s.insert(s.begin(), 1);
    if ((s[0] != 1 && s[0] != m) || (s[1] != 1 && s[1] != n)) fail("C " + shape_text(c.shape) + " does not broadcast to [M, N]");
    if (s != c.shape) c = reshape(c, s);
  } else {
    c.dt = a.dt;
    c.shape = {1, 1};
    c.data = std::make_shared<std::vector<uint8_t>>(4);
    beta = 0;
  }
  auto v = std::make_shared<std::vector<uint8_t>>(8);
  put_f(a.dt, *v, 0, alpha);
  put_f(a.dt, *v, 1, beta);
  Val out;
  out.dt = a.dt;
  out.shape = {m, n};
  out.tensor = call("onnx_nn", std::string("gemm_f32_") + (ta ? "t" : "n") + (tb ? "t" : "n"),
                    {m, k, n, c.shape[0], c.shape[1]},
                    {tensor_of(a), tensor_of(b), tensor_of(c), emit_const(a.dt, {2}, v, "alpha_beta")}, a.dt, {m, n});
  set_output(0, out);
}

void Importer::reshape_like(const std::string& op) {
  Val x = input(0);
  size_t r = x.shape.size();
  auto failf = [this](const std::string& m) { fail(m); };
  std::vector<int64_t> shape;
  if (op == "Reshape") {
    std::vector<int64_t> want = opset_ >= 5 ? const_ints(1, "shape") : attr_ints("shape");
    bool allowzero = attr_int("allowzero", 0) != 0;
    int64_t known = 1, infer = -1;
    for (size_t i = 0; i < want.size(); ++i) {
      int64_t e = want[i];
      if (e == 0 && !allowzero) {
        if (i >= r) fail("shape has a 0 beyond the input's dimensions");
        e = x.shape[i];
      }
      if (e == -1) {
        if (infer >= 0) fail("shape has more than one -1");
        infer = static_cast<int64_t>(i);
        shape.push_back(1);
        continue;
      }
      if (e < 0) fail("shape has extent " + std::to_string(e));
      if (e > kMaxExtent || known * e > kMaxExtent) fail("shape " + shape_text(want) + " is too large");
      shape.push_back(e);
      known *= e;
    }
    if (infer >= 0) {
      // With allowzero, a 0 and a -1 together leave the -1 open (ONNX makes it an error).
      if (known == 0) fail("shape " + shape_text(want) + " has both a -1 and an extent 0");
      if (num_elements(x.shape) % known != 0) fail("cannot infer the -1 of shape " + shape_text(want));
      shape[static_cast<size_t>(infer)] = num_elements(x.shape) / known;
    }
  } else if (op == "Flatten") {
    int64_t axis = attr_int("axis", 1);
    if (axis < 0) axis += static_cast<int64_t>(r);
    if (axis < 0 || axis > static_cast<int64_t>(r)) fail("axis is out of range");
    int64_t outer = 1, inner = 1;
    for (size_t k = 0; k < r; ++k) (static_cast<int64_t>(k) < axis ? outer : inner) *= x.shape[k];
    shape = {outer, inner};
  } else {
    std::vector<int64_t> axes = opset_ >= 13 ? (has_input(1) ? const_ints(1, "axes") : std::vector<int64_t>{})
                                             : attr_ints("axes");
    if (op == "Squeeze") {
      std::set<int64_t> drop;
      for (int64_t a : axes) {
        int64_t k = normalize_axis(a, r, failf);
        if (x.shape[static_cast<size_t>(k)] != 1) fail("axis " + std::to_string(a) + " has extent " + std::to_string(x.shape[static_cast<size_t>(k)]) + ", not 1");
        drop.insert(k);
      }
      for (size_t k = 0; k < r; ++k)
        if (!(axes.empty() ? x.shape[k] == 1 : drop.count(static_cast<int64_t>(k)) > 0)) shape.push_back(x.shape[k]);
    } else {
      size_t out_rank = r + axes.size();
      std::set<int64_t> add;
      for (int64_t a : axes) add.insert(normalize_axis(a, out_rank, failf));
      if (add.size() != axes.size()) fail("axes repeat");
      size_t src = 0;
      for (size_t k = 0; k < out_rank; ++k) shape.push_back(add.count(static_cast<int64_t>(k)) ? 1 : x.shape[src++]);
    }
  }
  Val out = reshape(x, shape);
  if (!out.data && out.tensor == x.tensor && x.nhwc) out = x, out.conv = -1;  // nothing moved
  out.conv = -1;
  set_output(0, out);
}

void Importer::transpose() {
  Val x = input(0);
  size_t r = x.shape.size();
  std::vector<int64_t> perm = attr_ints("perm");
  if (perm.empty())
    for (size_t k = r; k-- > 0;) perm.push_back(static_cast<int64_t>(k));
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 0; k < sorted.size(); ++k)
    if (sorted.size() != r || sorted[k] != static_cast<int64_t>(k)) fail("perm " + shape_text(perm) + " is not a permutation of the input's dimensions");
  std::vector<int64_t> shape;
  for (int64_t p : perm) shape.push_back(x.shape[static_cast<size_t>(p)]);
  bool identity = true;
  for (size_t k = 0; k < r; ++k) identity &= perm[k] == static_cast<int64_t>(k);
  if (identity) {
    x.conv = -1;
    return set_output(0, x);
  }
  if (x.data) {
    Val out = x;
    out.shape = shape;
    out.nhwc = false;
    out.data = permute(*x.data, x.dt, x.shape, perm);
    return set_output(0, out);
  }
  // The model's own NCHW -> NHWC transpose of an NHWC value is a relabelling.
  x = layout(x, false);
  if (r > 4) fail("Transpose of more than 4 dimensions is not supported");
  Val out;
  out.dt = x.dt;
  out.shape = shape;
  out.tensor = call("onnx_move", "transpose_" + x.dt.str() + "_" + perm_name(perm), x.shape, {x.tensor}, x.dt, shape);
  set_output(0, out);
}

void Importer::concat() {
  if (num_inputs() == 0) fail("no inputs");
  std::vector<Val> in;
  for (size_t i = 0; i < num_inputs(); ++i) in.push_back(input(i));
  size_t r = in[0].shape.size();
  auto failf = [this](const std::string& m) { fail(m); };
  int64_t axis = normalize_axis(attr_int("axis", 0), r, failf);
  for (const Val& v : in) {
    if (v.dt != in[0].dt || v.shape.size() != r) fail("the inputs differ in dtype or rank");
    for (size_t k = 0; k < r; ++k)
      if (static_cast<int64_t>(k) != axis && v.shape[k] != in[0].shape[k]) fail("the inputs' shapes differ off the axis");
  }
  bool all_const = std::all_of(in.begin(), in.end(), [](const Val& v) { return v.data != nullptr; });
  std::vector<int64_t> shape = in[0].shape;
  for (size_t i = 1; i < in.size(); ++i) shape[static_cast<size_t>(axis)] += in[i].shape[static_cast<size_t>(axis)];
  if (all_const) {
    Val out;
    out.dt = in[0].dt;
    out.shape = shape;
    size_t n = static_cast<size_t>(out.dt.bytes());
    int64_t outer = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= shape[static_cast<size_t>(k)];
    out.data = std::make_shared<std::vector<uint8_t>>();
    for (int64_t o = 0; o < outer; ++o)
      for (const Val& v : in) {
        size_t chunk = static_cast<size_t>(num_elements(v.shape) / outer) * n;
        out.data->insert(out.data->end(), v.data->begin() + static_cast<long>(static_cast<size_t>(o) * chunk),
                         v.data->begin() + static_cast<long>(static_cast<size_t>(o + 1) * chunk));
      }
    return set_output(0, out);
  }
  if (in.size() == 1) return set_output(0, in[0]);
  if (r > 4) fail("Concat of more than 4 dimensions is not supported");
  bool nhwc = r == 4 && std::all_of(in.begin(), in.end(), [](const Val& v) { return v.data || v.nhwc; });
  int64_t pax = axis;
  if (nhwc) pax = axis == 0 ? 0 : axis == 1 ? 3 : axis - 1;
  Val acc = layout(in[0], nhwc);
  for (size_t i = 1; i < in.size(); ++i) {
    Val b = layout(in[i], nhwc);
    std::vector<int64_t> targs = physical(acc);
    targs.push_back(physical(b)[static_cast<size_t>(pax)]);
    Val out = acc;
    out.data = nullptr;
    out.conv = -1;
    out.shape[static_cast<size_t>(axis)] += b.shape[static_cast<size_t>(axis)];
    out.tensor = call("onnx_move", "concat2_" + acc.dt.str() + "_" + std::to_string(r) + "_" + std::to_string(pax), targs,
                      {tensor_of(acc), tensor_of(b)}, acc.dt, physical(out));
    acc = out;
  }
  set_output(0, acc);
}

void Importer::slice() {
  Val x = input(0);
  size_t r = x.shape.size();
  auto failf = [this](const std::string& m) { fail(m); };
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset_ < 10) {
    starts = attr_ints("starts");
    ends = attr_ints("ends");
    axes = attr_ints("axes");
  } else {
    starts = const_ints(1, "starts");
    ends = const_ints(2, "ends");
    if (has_input(3)) axes = const_ints(3, "axes");
    if (has_input(4)) steps = const_ints(4, "steps");
  }
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != starts.size())
    fail("starts, ends, axes and steps differ in length");
  std::vector<int64_t> s(r, 0), t(r, 1), count = x.shape;
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = static_cast<size_t>(normalize_axis(axes[i], r, failf));
    int64_t d = x.shape[a], st = steps[i];
    if (st == 0) fail("a step is 0");
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b += d;
    if (e < 0) e += d;
    if (st > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      count[a] = e > b ? (e - b + st - 1) / st : 0;
    } else {
      b = std::clamp<int64_t>(b, -1, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      count[a] = b > e ? (b - e - st - 1) / -st : 0;
    }
    s[a] = count[a] == 0 ? 0 : b;  // an empty slice reads nothing (and b may be -1)
    t[a] = st;
  }
  Val out;
  out.dt = x.dt;
  out.shape = count;
  if (x.data) {
    size_t n = static_cast<size_t>(x.dt.bytes());
    std::vector<int64_t> xst = strides(x.shape), ost = strides(count);
    int64_t total = num_elements(count);
    out.data = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(total) * n);
    for (int64_t i = 0; i < total; ++i) {
      int64_t src = 0;
      for (size_t k = 0; k < r; ++k) src += (s[k] + (i / ost[k]) % count[k] * t[k]) * xst[k];
      std::memcpy(out.data->data() + static_cast<size_t>(i) * n, x.data->data() + static_cast<size_t>(src) * n, n);
    }
    return set_output(0, out);
  }
  x = layout(x, false);
  if (r > 4) fail("Slice of more than 4 dimensions is not supported");
  std::vector<int64_t> targs = s;
  for (int64_t st : t) targs.push_back(st > 0 ? st : 0);
  for (int64_t st : t) targs.push_back(st < 0 ? -st : 0);
  targs.insert(targs.end(), x.shape.begin(), x.shape.end());
  targs.insert(targs.end(), count.begin(), count.end());
  out.tensor = call("onnx_move", "slice_" + x.dt.str() + "_" + std::to_string(r), targs, {x.tensor}, x.dt, count);
  set_output(0, out);
}

void Importer::gather() {
  Val x = input(0);
  Val& ix = const_input(1, "indices");
  if (!ix.dt.is_integer()) fail("indices must be integers");
  size_t r = x.shape.size();
  auto failf = [this](const std::string& m) { fail(m); };
  int64_t axis = normalize_axis(attr_int("axis", 0), r, failf);
  int64_t d = x.shape[static_cast<size_t>(axis)];
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < num_elements(ix.shape); ++i) {
    int64_t v = get_i(ix.dt, *ix.data, static_cast<size_t>(i));
    if (v < -d || v >= d) fail("index " + std::to_string(v) + " is out of range for extent " + std::to_string(d));
    idx.push_back(v < 0 ? v + d : v);
  }
  std::vector<int64_t> shape(x.shape.begin(), x.shape.begin() + axis);
  shape.insert(shape.end(), ix.shape.begin(), ix.shape.end());
  shape.insert(shape.end(), x.shape.begin() + axis + 1, x.shape.end());
  int64_t q = static_cast<int64_t>(idx.size());
  if (x.data) {
    Val out;
    out.dt = x.dt;
    out.shape = shape;
    size_t n = static_cast<size_t>(x.dt.bytes());
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= x.shape[static_cast<size_t>(k)];
    for (size_t k = static_cast<size_t>(axis) + 1; k < r; ++k) inner *= x.shape[k];
    out.data = std::make_shared<std::vector<uint8_t>>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j : idx) {
        auto b = x.data->begin() + static_cast<long>(static_cast<size_t>((o * d + j) * inner) * n);
        out.data->insert(out.data->end(), b, b + static_cast<long>(static_cast<size_t>(inner) * n));
      }
    return set_output(0, out);
  }
  x = layout(x, false);
  if (r > 4) fail("Gather from more than 4 dimensions is not supported");
  auto ib = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(q) * 4);
  for (size_t i = 0; i < idx.size(); ++i) put_i(DataType::i32(), *ib, i, idx[i]);
  std::vector<int64_t> targs = x.shape;
  targs.push_back(q);
  Val out;
  out.dt = x.dt;
  out.shape = x.shape;
  out.shape[static_cast<size_t>(axis)] = q;
  out.tensor = call("onnx_move", "gather_" + x.dt.str() + "_" + std::to_string(r) + "_" + std::to_string(axis), targs,
                    {x.tensor, emit_const(DataType::i32(), {q}, ib, "indices")}, x.dt, out.shape);
  if (out.shape != shape) out = reshape(out, shape);
  set_output(0, out);
}

void Importer::pad() {
  Val x = input(0);
  std::string mode = attr_string("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") unsupported_attr("mode '" + comment_text(mode) + "'");
  size_t r = x.shape.size();
  std::vector<int64_t> pads;
  double value = 0;
  bool value_given = false;
  std::shared_ptr<std::vector<uint8_t>> vbytes;
  if (opset_ < 11) {
    pads = attr_ints(opset_ < 2 ? "paddings" : "pads");
    value = attr_float("value", 0.0f);
  } else {
    pads = const_ints(1, "pads");
    if (has_input(2)) {
      Val& cv = const_input(2, "constant_value");
      if (cv.dt != x.dt || num_elements(cv.shape) != 1) fail("constant_value must be a scalar of the input's dtype");
      vbytes = std::make_shared<std::vector<uint8_t>>(*cv.data);
      value_given = true;
    }
    if (has_input(3)) unsupported_attr("the axes input");
  }
  if (pads.size() != 2 * r) fail("pads must have 2 values per dimension");
  for (int64_t p : pads)
    if (p < 0) unsupported_attr("negative pads (cropping)");
    else small(p, "a pad");
  if (!value_given) {
    vbytes = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(x.dt.bytes()));
    put_f(x.dt, *vbytes, 0, value);
  }
  if (r > 4 || r == 0) fail("Pad of more than 4 dimensions is not supported");
  if (x.data) x = layout(x, false);
  std::vector<int64_t> pb(pads.begin(), pads.begin() + static_cast<long>(r)), pe(pads.begin() + static_cast<long>(r), pads.end());
  Val out;
  out.dt = x.dt;
  out.shape = x.shape;
  for (size_t k = 0; k < r; ++k) out.shape[k] += pb[k] + pe[k];
  out.nhwc = x.nhwc;
  if (x.nhwc) {
    pb = {pb[0], pb[2], pb[3], pb[1]};
    pe = {pe[0], pe[2], pe[3], pe[1]};
  }
  std::vector<int64_t> targs = pb, phys = physical(x);
  targs.insert(targs.end(), pe.begin(), pe.end());
  targs.insert(targs.end(), phys.begin(), phys.end());
  if (mode == "reflect")
    for (size_t k = 0; k < r; ++k)
      if (pb[k] >= phys[k] || pe[k] >= phys[k]) fail("reflect pads must be smaller than the dimension they pad");
  if (mode != "constant")
    out.tensor = call("onnx_move", "pad_" + mode + "_" + x.dt.str() + "_" + std::to_string(r), targs, {tensor_of(x)},
                      x.dt, physical(out));
  else
    out.tensor = call("onnx_move", "pad_" + x.dt.str() + "_" + std::to_string(r), targs,
                      {tensor_of(x), emit_const(x.dt, {1}, vbytes, "pad_value")}, x.dt, physical(out));
  set_output(0, out);
}

void Importer::constant() {
  Val out;
  const onnx::AttributeProto* a = node_->attribute_size() == 1 ? &node_->attribute(0) : nullptr;
  if (!a) fail("a Constant needs exactly one attribute");
  out.hint = node_->output_size() > 0 ? node_->output(0) : "c";
  if (a->name() == "value") {
    out.dt = tensor_dtype(a->t().data_type(), "the constant");
    out.shape.assign(a->t().dims().begin(), a->t().dims().end());
    out.data = tensor_bytes(a->t(), out.dt, out.shape, "the constant");
  } else if (a->name() == "value_float" || a->name() == "value_floats" || a->name() == "value_int" ||
             a->name() == "value_ints") {
    // A scalar (value_float, value_int) or a list (value_floats, value_ints), f32 or i64.
    bool is_float = a->name().rfind("value_float", 0) == 0, list = a->name().back() == 's';
    out.dt = is_float ? DataType::f32() : DataType::i64();
    std::vector<double> v;
    if (is_float) v = list ? std::vector<double>(a->floats().begin(), a->floats().end()) : std::vector<double>{a->f()};
    std::vector<int64_t> iv = list ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{a->i()};
    size_t count = is_float ? v.size() : iv.size();
    if (count == 0) fail("the constant is empty");
    if (list) out.shape = {static_cast<int64_t>(count)};
    out.data = std::make_shared<std::vector<uint8_t>>(count * static_cast<size_t>(out.dt.bytes()));
    for (size_t i = 0; i < count; ++i) is_float ? put_f(out.dt, *out.data, i, v[i]) : put_i(out.dt, *out.data, i, iv[i]);
  } else {
    unsupported_attr("a Constant's attribute '" + comment_text(a->name()) + "'");
  }
  set_output(0, out);
}

}  // namespace onnx_import

std::string onnx_supported_ops() {
  std::string s;
  for (const onnx_import::OpInfo& op : onnx_import::kOps) {
    std::string line = std::string(op.name) + " (opsets " + std::to_string(op.first_opset) + "-17) [" + op.dtypes + "]";
    if (*op.note) line += ": " + std::string(op.note);
    s += line + "\n";
  }
  return s;
}

}  // namespace dspc
