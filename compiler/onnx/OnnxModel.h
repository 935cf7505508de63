// The importer's state (internal to compiler/onnx/): the values of the ONNX graph as dspc
// tensors with their layout, and the graph being written (inputs, constants, calls, results).
// OnnxImport.cpp reads the model and prints the program; OnnxOps.cpp converts each operator.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ir/DataType.h"
#include "compiler/ir/Printer.h"
#include "compiler/onnx/OnnxImport.h"

namespace onnx {
class GraphProto;
class NodeProto;
class TensorProto;
class AttributeProto;
}  // namespace onnx

namespace dspc::onnx_import {

// A user's error in the model; the importer adds where it is (the node).
struct ImportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One ONNX value. `shape` is ONNX's (logical) shape; a 4-D value with `nhwc` is stored as
// [N, H, W, C]. A constant has `data` (logical row-major order) and no tensor until a call reads
// it; any other value is the dspc tensor `tensor`.
struct Val {
  DataType dt;
  std::vector<int64_t> shape;
  bool nhwc = false;
  std::string tensor;
  std::shared_ptr<std::vector<uint8_t>> data;
  std::string hint;  // a constant's name to print (its initializer's)
  int conv = -1;  // the calls_ index of the conv2d that computes it (BatchNormalization folds into it)
};

struct Param {
  std::string name;
  DataType dt;
  std::vector<int64_t> shape;
};

struct Const {
  std::string name;
  DataType dt;
  std::vector<int64_t> shape;
  std::shared_ptr<std::vector<uint8_t>> data;
};

struct Call {
  std::vector<std::string> outs;
  std::string func;
  std::vector<int64_t> targs;
  std::vector<std::string> args;
  std::string comment;
};

DataType tensor_dtype(int32_t onnx_type, const std::string& what);
// ONNX's float16 and bfloat16, which dspc holds as their bits in u16 tensors.
enum class Half { None, F16, BF16 };
Half half_kind(int32_t onnx_type);
// An ONNX element type in dspc's spelling ("f32", "f16", "bf16", "bool"), or ONNX's name
// ("STRING") for one dspc has no type for.
std::string elem_type_name(int32_t onnx_type);
// float16 and bfloat16 bits <-> double: f16 rounds to nearest even (subnormals, infinities,
// NaN); bf16 truncates a float's bits, as ONNX 1.12's reference does.
double half_to_double(Half h, uint16_t bits);
uint16_t double_to_half(Half h, double v);
// QDQ folding (OnnxQdq.cpp): rewrites each DequantizeLinear -> op -> QuantizeLinear chain it
// knows (Conv, MatMul and Gemm, each with an optional Relu; MaxPool; Relu) with constant parameters as
// the integer op; gives how many it folded.
int fold_qdq(onnx::GraphProto& g);
// The fold's DequantizeLinear -> Add -> QuantizeLinear, inputs as QLinearMatMul's (a, a_scale,
// a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point): an operator type only the fold
// writes (ONNX's checker refuses it in a model), computed in fixed point.
inline constexpr const char* kFoldedQLinearAdd = "QLinearAdd";
// Its fixed point: the shift S with the ratios a_scale / y_scale and b_scale / y_scale times 2^S
// exact enough (S >= 12) and the sum in i32, or -1 when the ratios are too large for that.
int qlinear_add_shift(double ratio_a, double ratio_b);
// The fold's DequantizeLinear -> AveragePool (or GlobalAveragePool, as a window of the whole
// image) -> QuantizeLinear with one scale and zero point on both sides: inputs x, x_scale,
// x_zero_point; AveragePool's attributes; 2-D pooling only.
inline constexpr const char* kFoldedQAveragePool = "QLinearAveragePool";
// The bytes of an i32 tensor holding v (OnnxQuant.cpp).
std::shared_ptr<std::vector<uint8_t>> i32_bytes(const std::vector<int64_t>& v);
// B = A transposed: B's dimension k is A's dimension perm[k].
std::shared_ptr<std::vector<uint8_t>> permute(const std::vector<uint8_t>& a, DataType dt,
                                              const std::vector<int64_t>& shape, const std::vector<int64_t>& perm);
// A 2-D operator's pads {top, left, bottom, right}: the attribute's, or those auto_pad gives.
std::vector<int64_t> conv_pads(const std::string& auto_pad, const std::vector<int64_t>& pads, int64_t h, int64_t w,
                               const std::vector<int64_t>& k, const std::vector<int64_t>& s,
                               const std::vector<int64_t>& d, const std::function<void(const std::string&)>& fail);
std::shared_ptr<std::vector<uint8_t>> tensor_bytes(const onnx::TensorProto& t, DataType dt,
                                                   const std::vector<int64_t>& shape, const std::string& what);

// Element access on little-endian bytes, through double (floats and integers up to 2^53) or
// int64 (integers, exactly).
double get_f(DataType t, const std::vector<uint8_t>& b, size_t i);
int64_t get_i(DataType t, const std::vector<uint8_t>& b, size_t i);
void put_f(DataType t, std::vector<uint8_t>& b, size_t i, double v);
void put_i(DataType t, std::vector<uint8_t>& b, size_t i, int64_t v);

// The largest extent or element count the importer handles (2^31; dspc's tensors are smaller).
inline constexpr int64_t kMaxExtent = int64_t(1) << 31;
// The product of the extents; kMaxExtent + 1 when it is larger (never an overflow).
int64_t num_elements(const std::vector<int64_t>& shape);
std::string shape_text(const std::vector<int64_t>& shape);  // "[1, 3]"
std::string first_line(const std::string& s);
std::string comment_text(const std::string& s);  // printable, one line
// A .dsp identifier for an ONNX name (letters, digits and '_'; `prefix` when it starts with a digit).
std::string identifier(const std::string& name, const std::string& prefix);

class Importer {
 public:
  Importer(std::string path, const OnnxImportOptions& options) : path_(std::move(path)), options_(options) {}
  bool run(const std::string& bytes, std::string& dsp);
  // "node 3 'conv1' (Conv, opset 13): " while a node is converted, else "".
  std::string where() const;

 private:
  // OnnxOps.cpp
  static std::string empty_tensor_ops();
  static bool supported_op(const std::string& op);
  static std::string unsupported_op_message(const std::string& op);
  void convert_node(const onnx::NodeProto& n);
  void elementwise(const std::string& op);
  void unary(const std::string& op);
  void clip();
  void cast();
  void conv();
  struct ConvGeometry {
    int64_t g, n, c, h, w, m, cg, kh, kw, oh, ow;
    std::vector<int64_t> s, d, p;  // strides, dilations, pads {top, left, bottom, right}
    std::vector<int64_t> targs() const;  // conv2d's <G, SH, ..., K>
  };
  ConvGeometry conv_geometry(const Val& x, const Val& w);
  std::string conv_weights(const Val& w, const ConvGeometry& k);  // [KH, KW, C/G, K]
  // OnnxQuant.cpp
  void quantize();
  void dequantize();
  void matmul_integer(bool qlinear);
  void conv_integer(bool qlinear);
  void qlinear_add();
  Val broadcast_param(size_t input, DataType dt, const Val& x, int64_t axis, const char* what);
  std::vector<int64_t> zero_points(size_t input, int64_t count, DataType& dt, const char* what);
  std::vector<double> scales(size_t input, int64_t count, const char* what);
  struct Requantization {
    std::vector<float> multipliers;  // per output channel: x_scale * w_scale / y_scale in f32
    int64_t zero_point = 0;
    DataType dt;
  };
  Requantization requantization(int64_t channels);
  DataType requantization_args(int64_t channels, std::vector<std::string>& args);
  // QLinearConv on the op library's fast funcs (nn.dsp's conv2d_requant, qnn.dsp's
  // depthwise_conv2d_requant) when they compute ONNX's result exactly; false when they do not.
  bool qlinear_conv_oplib(const Val& x, const Val& w, const ConvGeometry& k, int64_t zx, const std::vector<int64_t>& zw,
                          const std::vector<int64_t>& bias);
  std::string drop_batch(const Val& x);  // a batch-1 NHWC u8 value as [H, W, C]
  void drop_unread_batch_copies();
  void drop_dead_calls();
  void batch_norm();
  void batch_norm_training();
  void pool(bool max, bool quantized = false);
  void pool_1d(bool max);
  void pool_3d(bool max);
  struct Pool1d {
    std::vector<int64_t> k, s, d, p;
  };
  const Pool1d* pool1d_ = nullptr;  // while pool_1d runs pool on the [N, C, 1, L] view
  void global_pool(bool max);
  void reduce(const std::string& op);
  void softmax(bool log);
  void matmul();
  void gemm();
  void reshape_like(const std::string& op);
  void transpose();
  void concat();
  void slice();
  void gather();
  void pad();
  void constant();

  // Attributes and inputs of the current node.
  const onnx::AttributeProto* attr(const char* name) const;
  int64_t attr_int(const char* name, int64_t def) const;
  float attr_float(const char* name, float def) const;
  std::vector<int64_t> attr_ints(const char* name, std::vector<int64_t> def = {}) const;
  std::string attr_string(const char* name, const std::string& def) const;
  size_t num_inputs() const;
  bool has_input(size_t i) const;
  Val& input(size_t i);
  Val& const_input(size_t i, const char* what);
  std::vector<int64_t> const_ints(size_t i, const char* what);
  void set_output(size_t i, Val v);
  void unsupported_attr(const std::string& text);
  [[noreturn]] void fail(const std::string& message) const;
  // `v`, or an error naming `what` when it is beyond +-2^31 (attributes the arithmetic uses).
  int64_t small(int64_t v, const char* what) const;
  void need_dtype(const Val& v, const std::vector<DataType>& ok, const char* what);

  // Building the graph.
  std::string unique(const std::string& base);
  std::string emit_const(const Val& v, bool nhwc);  // a const tensor holding v in that layout
  std::string emit_const(DataType dt, const std::vector<int64_t>& shape, std::shared_ptr<std::vector<uint8_t>> data,
                         const std::string& base);
  std::string call(const std::string& lib, const std::string& func, std::vector<int64_t> targs,
                   std::vector<std::string> args, DataType dt, const std::vector<int64_t>& out_shape);
  // A call of a func with `results` results (named after the node's outputs).
  std::vector<std::string> call_n(const std::string& lib, const std::string& func, std::vector<int64_t> targs,
                                  std::vector<std::string> args, size_t results);
  std::string tensor_of(const Val& v);  // its tensor in its own layout (a const for a constant)
  Val binary(const std::string& op, Val a, Val b);
  Val broadcast_operands(Val& a, Val& b, size_t max_rank);
  Val layout(const Val& v, bool nhwc);  // the value in that layout (a transpose call when needed)
  Val reshape(const Val& v, const std::vector<int64_t>& shape);  // logical reshape, identity layout
  std::string copy(const std::string& tensor, DataType dt, const std::vector<int64_t>& shape);
  static std::vector<int64_t> physical(const Val& v);
  void declare_input(const std::string& onnx_name, Val v);
  void finish_output(const std::string& onnx_name);
  void rename(const std::string& from, const std::string& to);
  std::string print(const std::string& graph) const;

  std::string path_;
  const OnnxImportOptions& options_;
  int opset_ = 0;
  const onnx::NodeProto* node_ = nullptr;
  int node_index_ = 0;
  std::map<std::string, Val> values_;
  std::map<std::string, std::pair<DataType, std::vector<int64_t>>> inferred_;
  std::map<std::string, int32_t> elem_types_;  // each value's ONNX element type, where known
  Half half_of(const std::string& onnx_name) const;
  Half input_half(size_t i) const;
  void check_dtypes(const std::string& op);  // the node's element types against its op's list
  Val half_to_f32(const Val& v, Half h);  // a float16 or bfloat16 value (u16 bits) as f32
  Val f32_to_half(const Val& v, Half h);  // and back
  Val plain_cast(const Val& x, DataType to);  // a cast between dspc's dtypes
  std::map<std::string, int> uses_;
  std::set<std::string> names_;
  std::set<std::string> imports_;
  std::map<std::string, std::string> converted_;  // tensor + layout -> converted tensor
  std::map<std::string, std::string> batch_of_;  // [1, H, W, C] tensor -> the [H, W, C] tensor it copies
  std::vector<Param> inputs_, outputs_;
  std::vector<std::string> input_names_, output_names_;
  std::map<std::string, std::string> output_tensor_;  // each graph result's tensor name
  std::vector<Const> consts_;
  std::vector<Call> calls_;
  // Emitted constants by data and layout (holding the data, so that its address stays its own).
  std::map<std::pair<const void*, bool>, std::pair<std::string, std::shared_ptr<std::vector<uint8_t>>>> const_names_;
  struct ConvConsts {
    size_t weights, bias;  // consts_ indices, the conv's own
  };
  std::map<int, ConvConsts> conv_consts_;  // by calls_ index
};

}  // namespace dspc::onnx_import
