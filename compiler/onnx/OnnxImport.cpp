// The ONNX importer (OnnxImport.h).
//
// 1. Parse the ModelProto, run onnx's checker, fix the inputs' shapes (--input-shape) and run
//    onnx's shape inference.
// 2. Read the graph's values: inputs (an input with an initializer of the same name is that
//    constant), initializers, and the types shape inference gives every node output.
// 3. Walk the nodes in order (ONNX keeps them sorted). Each supported op becomes calls of the
//    op library's funcs (OnnxOps.cpp) at its shapes; constant-only nodes are folded at compile time;
//    each value remembers its layout (NCHW or NHWC for 4-D tensors), so layout conversions happen
//    only where an op needs the other order.
// 4. Print the program: `import`s, then `graph NAME(inputs) -> (results) { consts; calls }`.
#include "compiler/onnx/OnnxImport.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
// onnx/checker.h's macro would rename dspc's fail_check (compiler/ir/Check.h).
#undef fail_check

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <cerrno>
#include <exception>
#include <mutex>

#include "compiler/onnx/OnnxModel.h"

namespace dspc {

bool is_onnx_path(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

namespace onnx_import {

namespace {

DataType onnx_dtype(int32_t t, bool& ok) {
  ok = true;
  switch (t) {
    case onnx::TensorProto::FLOAT: return DataType::f32();
    case onnx::TensorProto::DOUBLE: return DataType::f64();
    case onnx::TensorProto::INT8: return DataType::i8();
    case onnx::TensorProto::INT16: return DataType::i16();
    case onnx::TensorProto::INT32: return DataType::i32();
    case onnx::TensorProto::INT64: return DataType::i64();
    case onnx::TensorProto::UINT8: return DataType::u8();
    case onnx::TensorProto::UINT16: return DataType::u16();
    case onnx::TensorProto::UINT32: return DataType::u32();
    case onnx::TensorProto::UINT64: return DataType::u64();
    case onnx::TensorProto::BOOL: return DataType::boolean();
    // float16 and bfloat16 are held as their bits (the Importer knows which from the value's
    // ONNX type: half_of).
    case onnx::TensorProto::FLOAT16: return DataType::u16();
    case onnx::TensorProto::BFLOAT16: return DataType::u16();
    default: ok = false; return DataType::f32();
  }
}

std::string onnx_dtype_name(int32_t t) {
  const google::protobuf::EnumDescriptor* d = onnx::TensorProto_DataType_descriptor();
  const google::protobuf::EnumValueDescriptor* v = d->FindValueByNumber(t);
  return v ? v->name() : "type " + std::to_string(t);
}

}  // namespace

std::string elem_type_name(int32_t t) {
  switch (t) {
    case onnx::TensorProto::FLOAT: return "f32";
    case onnx::TensorProto::DOUBLE: return "f64";
    case onnx::TensorProto::FLOAT16: return "f16";
    case onnx::TensorProto::BFLOAT16: return "bf16";
    case onnx::TensorProto::INT8: return "i8";
    case onnx::TensorProto::INT16: return "i16";
    case onnx::TensorProto::INT32: return "i32";
    case onnx::TensorProto::INT64: return "i64";
    case onnx::TensorProto::UINT8: return "u8";
    case onnx::TensorProto::UINT16: return "u16";
    case onnx::TensorProto::UINT32: return "u32";
    case onnx::TensorProto::UINT64: return "u64";
    case onnx::TensorProto::BOOL: return "bool";
    default: return onnx_dtype_name(t);
  }
}

Half half_kind(int32_t t) {
  return t == onnx::TensorProto::FLOAT16 ? Half::F16 : t == onnx::TensorProto::BFLOAT16 ? Half::BF16 : Half::None;
}

DataType tensor_dtype(int32_t t, const std::string& what) {
  bool ok = false;
  DataType d = onnx_dtype(t, ok);
  if (!ok)
    throw ImportError(what + " has element type " + onnx_dtype_name(t) + ", which dspc does not support" +
                      (t == onnx::TensorProto::STRING ? " (dspc's tensors hold numbers: no strings)" : ""));
  return d;
}

// An initializer's or a Constant's elements, little-endian, from raw_data or the typed field.
std::shared_ptr<std::vector<uint8_t>> tensor_bytes(const onnx::TensorProto& t, DataType dt,
                                                   const std::vector<int64_t>& shape, const std::string& what) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    throw ImportError(what + " keeps its data in an external file, which dspc does not read");
  int64_t count = 1;
  for (int64_t e : shape) {
    // An empty constant (a ReduceSum's empty axes) is read; a call never takes one.
    if (e < 0) throw ImportError(what + " has a negative extent (" + std::to_string(e) + ")");
    if (e > (int64_t(1) << 31) || count * e > (int64_t(1) << 31))
      throw ImportError(what + " is too large: more than 2^31 elements");
    count *= e;
  }
  size_t n = static_cast<size_t>(dt.bytes());
  auto out = std::make_shared<std::vector<uint8_t>>();
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    if (raw.size() != static_cast<size_t>(count) * n)
      throw ImportError(what + " has " + std::to_string(raw.size()) + " bytes of data, but its shape and type need " +
                        std::to_string(static_cast<size_t>(count) * n));
    out->assign(raw.begin(), raw.end());
    return out;
  }
  out->resize(static_cast<size_t>(count) * n);
  auto put = [&](size_t i, uint64_t bits) {
    for (size_t k = 0; k < n; ++k) (*out)[i * n + k] = static_cast<uint8_t>(bits >> (8 * k));
  };
  auto check = [&](int have) {
    if (have != count)
      throw ImportError(what + " has " + std::to_string(have) + " elements, but its shape holds " +
                        std::to_string(count));
  };
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      check(t.float_data_size());
      for (int i = 0; i < t.float_data_size(); ++i) {
        float f = t.float_data(i);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        put(static_cast<size_t>(i), b);
      }
      break;
    case onnx::TensorProto::DOUBLE:
      check(t.double_data_size());
      for (int i = 0; i < t.double_data_size(); ++i) {
        double d = t.double_data(i);
        uint64_t b;
        std::memcpy(&b, &d, 8);
        put(static_cast<size_t>(i), b);
      }
      break;
    case onnx::TensorProto::INT64:
      check(t.int64_data_size());
      for (int i = 0; i < t.int64_data_size(); ++i) put(static_cast<size_t>(i), static_cast<uint64_t>(t.int64_data(i)));
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      check(t.uint64_data_size());
      for (int i = 0; i < t.uint64_data_size(); ++i) put(static_cast<size_t>(i), t.uint64_data(i));
      break;
    default:  // int8, int16, int32, uint8, uint16, bool: int32_data
      check(t.int32_data_size());
      for (int i = 0; i < t.int32_data_size(); ++i)
        put(static_cast<size_t>(i), static_cast<uint64_t>(static_cast<int64_t>(t.int32_data(i))));
      break;
  }
  return out;
}

namespace {

// A value's type from a ValueInfoProto: dtype and fixed shape, or why not.
bool value_type(const onnx::ValueInfoProto& v, DataType& dt, std::vector<int64_t>& shape, std::string& why) {
  if (!v.has_type() || !v.type().has_tensor_type()) {
    why = "is not a tensor";
    return false;
  }
  const auto& tt = v.type().tensor_type();
  bool ok = false;
  dt = onnx_dtype(tt.elem_type(), ok);
  if (!ok) {
    why = "has element type " + onnx_dtype_name(tt.elem_type()) + ", which dspc does not support" +
          (tt.elem_type() == onnx::TensorProto::STRING ? " (dspc's tensors hold numbers: no strings)" : "");
    return false;
  }
  if (!tt.has_shape()) {
    why = "has no known shape";
    return false;
  }
  shape.clear();
  for (int d = 0; d < tt.shape().dim_size(); ++d) {
    const auto& dim = tt.shape().dim(d);
    // An extent 0 is a tensor without elements (docs/onnx.md).
    if (!dim.has_dim_value() || dim.dim_value() < 0) {
      why = "has a dynamic or empty dimension " + std::to_string(d) +
            (dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : "");
      return false;
    }
    shape.push_back(dim.dim_value());
  }
  return true;
}

}  // namespace

namespace {

// onnx's shape inference, in a child process: libonnx 1.12 reads out of bounds on some malformed
// models (a Conv whose input and weights differ in rank, ConvTranspose's attributes), and such a
// crash must be the model's error, not dspc's. The child lives on and serves every import of this
// process (a fork per model made the fuzzer run at 90 models a second): it reads a model, infers
// its shapes and sends the inferred model back. A child that dies is the model's error, and the
// next import forks a new one. It exits when this process closes its end of the socket.
class ShapeInferenceChild {
 public:
  // The inferred model's bytes; throws ImportError.
  std::string infer(const std::string& model) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pid_ <= 0) start();
    if (!send_frame('M', model)) {
      stop();
      throw ImportError("cannot run shape inference: the inference process does not read");
    }
    char kind = 0;
    std::string reply;
    if (!receive_frame(fd_, kind, reply)) {
      stop();
      throw ImportError("ONNX shape inference crashed on the model (libonnx cannot read it; is it malformed?)");
    }
    if (kind == 'E') throw ImportError("ONNX shape inference fails: " + reply);
    return reply;
  }
  ~ShapeInferenceChild() { stop(); }

 private:
  static bool write_all(int fd, const char* p, size_t n) {
    while (n) {
      ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      p += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }
  static bool read_all(int fd, char* p, size_t n) {
    while (n) {
      ssize_t r = read(fd, p, n);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      p += r;
      n -= static_cast<size_t>(r);
    }
    return true;
  }
  // A frame: its kind, its length (8 bytes) and its bytes.
  static bool write_frame(int fd, char kind, const std::string& bytes) {
    char head[9] = {kind};
    uint64_t n = bytes.size();
    std::memcpy(head + 1, &n, 8);
    return write_all(fd, head, 9) && write_all(fd, bytes.data(), bytes.size());
  }
  static bool receive_frame(int fd, char& kind, std::string& bytes) {
    char head[9];
    if (!read_all(fd, head, 9)) return false;
    kind = head[0];
    uint64_t n = 0;
    std::memcpy(&n, head + 1, 8);
    if (n > (uint64_t(1) << 32)) return false;
    bytes.resize(static_cast<size_t>(n));
    return read_all(fd, bytes.data(), bytes.size());
  }
  bool send_frame(char kind, const std::string& bytes) { return write_frame(fd_, kind, bytes); }

  [[noreturn]] static void serve(int fd) {
    // A crash here is the model's error, which the parent reports: the child dies of the signal,
    // whatever handlers it inherited (a fuzzer's or a sanitizer's would report it as dspc's).
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(sig, SIG_DFL);
    for (;;) {
      char kind = 0;
      std::string bytes;
      if (!receive_frame(fd, kind, bytes)) _exit(0);
      onnx::ModelProto model;
      std::string reply;
      char status = 'M';
      try {
        if (!model.ParseFromString(bytes)) throw std::runtime_error("the model does not parse");
        onnx::shape_inference::InferShapes(model);
        reply = model.SerializeAsString();
      } catch (const std::exception& e) {
        status = 'E';
        reply = first_line(e.what());
      }
      if (!write_frame(fd, status, reply)) _exit(0);
    }
  }

  void start() {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
      throw ImportError("cannot run shape inference: no socket");
    pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      throw ImportError("cannot run shape inference: no process");
    }
    if (pid == 0) {
      close(fds[0]);
      serve(fds[1]);
    }
    close(fds[1]);
    fd_ = fds[0];
    pid_ = pid;
  }
  void stop() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    pid_ = -1;
  }

  std::mutex mutex_;
  pid_t pid_ = -1;
  int fd_ = -1;
};

void infer_shapes(onnx::ModelProto& model) {
  static ShapeInferenceChild child;
  std::string inferred = child.infer(model.SerializeAsString());
  if (!model.ParseFromString(inferred)) throw ImportError("ONNX shape inference gave back an unreadable model");
}

}  // namespace

bool Importer::run(const std::string& bytes, std::string& dsp) {
  onnx::ModelProto model;
  if (bytes.empty()) throw ImportError("the file is empty, not an ONNX model");
  if (bytes.size() > (size_t(1) << 31) || !model.ParseFromString(bytes))
    throw ImportError("cannot read the file as an ONNX model (truncated, corrupt, or not ONNX protobuf)");
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw ImportError(std::string("the ONNX checker rejects the model: ") + first_line(e.what()));
  }
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = static_cast<int>(o.version());
  if (opset_ == 0) throw ImportError("the model imports no opset of the default ONNX domain");
  onnx::GraphProto& g = *model.mutable_graph();

  // Initializers, then the inputs that are not initializers (with --input-shape applied).
  std::set<std::string> initialized;
  for (const auto& t : g.initializer()) initialized.insert(t.name());
  std::set<std::string> given;
  for (auto& in : *g.mutable_input()) {
    if (initialized.count(in.name())) continue;
    auto it = options_.input_shapes.find(in.name());
    if (it == options_.input_shapes.end()) continue;
    given.insert(in.name());
    auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t e : it->second) shape->add_dim()->set_dim_value(e);
  }
  for (const auto& [name, shape] : options_.input_shapes)
    if (!given.count(name)) {
      std::string inputs;
      for (const auto& in : g.input())
        if (!initialized.count(in.name())) inputs += (inputs.empty() ? "'" : ", '") + in.name() + "'";
      throw ImportError("--input-shape " + name + "=...: the model has no input '" + name + "' (its inputs: " +
                        (inputs.empty() ? "none" : inputs) + ")");
    }
  // Unsupported operators are refused before shape inference runs on them (libonnx 1.12's
  // inference of some operators, ConvTranspose's, crashes on malformed attributes).
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    node_ = &n;
    node_index_ = i;
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      throw ImportError(where() + "operator domain '" + comment_text(n.domain()) +
                        "' is not supported (only the default ONNX domain is)");
    if (!supported_op(n.op_type())) throw ImportError(where() + unsupported_op_message(n.op_type()));
  }
  node_ = nullptr;
  // The inputs' types are checked before shape inference reads them (libonnx 1.12's inference
  // of Conv crashes on some malformed dimensions), and the model's own value_info is dropped:
  // inference gives every intermediate type again.
  for (const auto& in : g.input()) {
    if (initialized.count(in.name())) continue;
    Val v;
    std::string why;
    if (!value_type(in, v.dt, v.shape, why))
      throw ImportError("graph input '" + in.name() + "' " + why +
                        (why.find("dynamic") == std::string::npos
                             ? std::string()
                             : "; give its shape with --input-shape " + in.name() + "=1x3x224x224 (for example)"));
    declare_input(in.name(), v);
  }
  g.clear_value_info();
  infer_shapes(model);

  fold_qdq(g);
  for (const auto& t : g.initializer()) {
    std::string what = "initializer '" + t.name() + "'";
    DataType dt = tensor_dtype(t.data_type(), what);
    std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
    Val v;
    v.dt = dt;
    v.shape = shape;
    v.data = tensor_bytes(t, dt, shape, what);
    values_[t.name()] = std::move(v);
  }
  std::map<std::string, const onnx::ValueInfoProto*> infos;
  for (const auto& v : g.value_info()) infos[v.name()] = &v;
  for (const auto& v : g.output()) infos[v.name()] = &v;
  for (const auto& [name, info] : infos) {
    Val v;
    std::string why;
    if (value_type(*info, v.dt, v.shape, why)) inferred_[name] = {v.dt, v.shape};
    if (info->has_type() && info->type().has_tensor_type()) elem_types_[name] = info->type().tensor_type().elem_type();
  }
  for (const auto& in : g.input())
    if (in.has_type() && in.type().has_tensor_type()) elem_types_[in.name()] = in.type().tensor_type().elem_type();
  for (const auto& t : g.initializer()) elem_types_[t.name()] = t.data_type();

  // The results' names first, so that no intermediate tensor takes one.
  for (const auto& o : g.output()) output_tensor_[o.name()] = unique(identifier(o.name(), "y_"));
  // Uses, for folding BatchNormalization into the Conv before it.
  for (const auto& n : g.node())
    for (const auto& i : n.input()) ++uses_[i];
  for (const auto& o : g.output()) ++uses_[o.name()];

  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    node_ = &n;
    node_index_ = i;
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      throw ImportError(where() + "operator domain '" + comment_text(n.domain()) +
                        "' is not supported (only the default ONNX domain is)");
    // The location is added here: the node lives as long as the model, which is this function's.
    try {
      convert_node(n);
    } catch (const ImportError& e) {
      throw ImportError(where() + e.what());
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      throw ImportError(where() + "cannot convert it: " + e.what());
    }
  }
  node_ = nullptr;

  std::string name = identifier(g.name().empty() ? "model" : g.name(), "g_");
  if (name.rfind("dspc", 0) == 0 || name.rfind("Dspc", 0) == 0 || name.rfind('_', 0) == 0 || name == "main")
    name = "model_" + name;
  for (const auto& o : g.output()) finish_output(o.name());
  drop_unread_batch_copies();
  drop_dead_calls();
  dsp = print(name);
  return true;
}

// Nodes whose results nothing reads (ONNX allows them: a branch a tool left behind, an output
// that was removed) are dropped, and the results of a call that nothing reads are named '_',
// as dspc's graphs require of a result not used.
void Importer::drop_dead_calls() {
  for (bool changed = true; changed;) {
    changed = false;
    std::set<std::string> read;
    for (const Call& c : calls_) read.insert(c.args.begin(), c.args.end());
    for (const Param& p : outputs_) read.insert(p.name);
    size_t before = calls_.size();
    calls_.erase(std::remove_if(calls_.begin(), calls_.end(),
                                [&](const Call& c) {
                                  return std::none_of(c.outs.begin(), c.outs.end(),
                                                      [&](const std::string& o) { return read.count(o) > 0; });
                                }),
                 calls_.end());
    changed = calls_.size() != before;
    if (!changed)
      for (Call& c : calls_)
        for (std::string& o : c.outs)
          if (!read.count(o)) o = "_";
  }
}

void Importer::declare_input(const std::string& onnx_name, Val v) {
  if (num_elements(v.shape) > kMaxExtent)
    throw ImportError("graph input '" + comment_text(onnx_name) + "' is too large: more than 2^31 elements");
  v.tensor = unique(identifier(onnx_name, "x_"));
  bool four = v.shape.size() == 4;
  v.nhwc = four && options_.input_layout == OnnxLayout::NHWC;
  inputs_.push_back({v.tensor, v.dt, physical(v)});
  input_names_.push_back(onnx_name);
  values_[onnx_name] = std::move(v);
}

void Importer::finish_output(const std::string& onnx_name) {
  auto it = values_.find(onnx_name);
  if (it == values_.end()) throw ImportError("graph output '" + onnx_name + "' is computed by no node");
  Val v = it->second;
  bool want_nhwc = v.shape.size() == 4 && options_.output_layout == OnnxLayout::NHWC;
  if (v.data) {
    // A constant result: a copy of it, so that a call computes the result.
    v.tensor = emit_const(v, want_nhwc);
    v.nhwc = want_nhwc;
    v.data = nullptr;
  } else {
    v = layout(v, want_nhwc);
  }
  std::string name = output_tensor_.at(onnx_name);
  if (std::count(output_names_.begin(), output_names_.end(), onnx_name))
    name = unique(identifier(onnx_name, "y_"));  // the same value twice among the results
  // The result is the call that computes its tensor, renamed; a tensor that is already a graph
  // input or result gets a copy.
  Call* producer = nullptr;
  for (Call& c : calls_)
    for (std::string& out : c.outs)
      if (out == v.tensor) producer = &c;
  bool taken = !producer;
  for (const Param& p : outputs_) taken |= p.name == v.tensor;
  if (taken) {
    std::vector<int64_t> shape = physical(v);
    v.tensor = copy(v.tensor, v.dt, shape);
    producer = &calls_.back();
  }
  rename(v.tensor, name);
  outputs_.push_back({name, v.dt, physical(v)});
  output_names_.push_back(onnx_name);
}

void Importer::rename(const std::string& from, const std::string& to) {
  for (Call& c : calls_) {
    for (std::string& o : c.outs)
      if (o == from) o = to;
    for (std::string& a : c.args)
      if (a == from) a = to;
  }
  for (auto& [k, v] : values_)
    if (v.tensor == from) v.tensor = to;
}

std::string Importer::print(const std::string& graph) const {
  std::string s = "# Imported from " + path_ + " by dspc (opset " + std::to_string(opset_) + ").\n";
  // An input no call reads (a Shape's, whose result is a constant) is left out: a graph reads
  // every input it declares.
  std::set<std::string> read;
  for (const Call& c : calls_) read.insert(c.args.begin(), c.args.end());
  std::vector<Param> inputs;
  for (size_t i = 0; i < input_names_.size(); ++i) {
    if (!read.count(inputs_[i].name)) {
      s += "# ONNX input '" + comment_text(input_names_[i]) + "' is not read (only its shape is used).\n";
      continue;
    }
    inputs.push_back(inputs_[i]);
    if (input_names_[i] != inputs_[i].name)
      s += "# ONNX input '" + comment_text(input_names_[i]) + "' is " + inputs_[i].name + ".\n";
  }
  for (size_t i = 0; i < output_names_.size(); ++i)
    if (output_names_[i] != outputs_[i].name)
      s += "# ONNX output '" + comment_text(output_names_[i]) + "' is " + outputs_[i].name + ".\n";
  // float16 and bfloat16 inputs and results are their bits (u16).
  auto half_note = [&](const char* kind, const std::string& onnx_name, const std::string& name) {
    Half h = half_of(onnx_name);
    if (h != Half::None)
      s += std::string("# ONNX ") + kind + " '" + comment_text(onnx_name) + "' (" + name + ") is " +
           (h == Half::F16 ? "float16" : "bfloat16") + ", held as its bits in u16.\n";
  };
  for (size_t i = 0; i < input_names_.size(); ++i)
    if (read.count(inputs_[i].name)) half_note("input", input_names_[i], inputs_[i].name);
  for (size_t i = 0; i < output_names_.size(); ++i) half_note("output", output_names_[i], outputs_[i].name);
  for (const std::string& lib : imports_) s += "import \"" + lib + "\"\n";
  auto params = [](const std::vector<Param>& ps) {
    std::string t;
    for (const Param& p : ps) t += (t.empty() ? "" : ", ") + p.name + ": " + p.dt.str() + shape_text(p.shape);
    return t;
  };
  s += "\ngraph " + graph + "(" + params(inputs) + ") -> (" + params(outputs_) + ") {\n";
  for (const Const& c : consts_)
    s += "  const " + c.name + ": " + c.dt.str() + shape_text(c.shape) + " = " +
         format_constant_values(c.dt, *c.data) + "\n";
  for (const Call& c : calls_) {
    std::string line = "  ";
    for (size_t i = 0; i < c.outs.size(); ++i) line += (i ? ", " : "") + c.outs[i];
    line += " = " + c.func;
    if (!c.targs.empty()) {
      line += "<";
      for (size_t i = 0; i < c.targs.size(); ++i) line += (i ? ", " : "") + std::to_string(c.targs[i]);
      line += ">";
    }
    line += "(";
    for (size_t i = 0; i < c.args.size(); ++i) line += (i ? ", " : "") + c.args[i];
    line += ")";
    if (!c.comment.empty()) line += "  # " + c.comment;
    s += line + "\n";
  }
  return s + "}\n";
}

}  // namespace onnx_import

bool import_onnx(const std::string& bytes, const std::string& path, const OnnxImportOptions& options,
                 std::string& dsp, std::string& error) {
  onnx_import::Importer importer(path, options);
  try {
    return importer.run(bytes, dsp);
  } catch (const onnx_import::ImportError& e) {
    error = e.what();
  } catch (const std::bad_alloc&) {
    error = "out of memory while importing the model";
  } catch (const std::exception& e) {
    error = std::string("cannot import the model: ") + e.what();
  }
  return false;
}

}  // namespace dspc
