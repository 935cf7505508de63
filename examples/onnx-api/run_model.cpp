// A host program that compiles an ONNX model with dspc's C++ API and runs it on the DSP
// (docs/onnx.md, "The C++ API"):
//   1. build a small model with the ONNX protobuf API (a 3 x 3 convolution with its weights as
//      initializers, then Relu) and save it;
//   2. dspc::compile_model imports and compiles it; dspc::emit_shared writes the shared module
//      (the kernels, the graph's group function and the weights as read-only data);
//   3. a dspc::Session loads the module and calls the group function once: one device round
//      trip per inference; the result is compared with a reference computed here.
//
//   run_model [hexagon-v68|host]
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <dspc/host.h>
#include <onnx/onnx_pb.h>

#include "examples/onnx-api/compile_step.h"

namespace {

constexpr int kH = 6, kW = 6, kK = 2;  // a 1 x 1 x 6 x 6 image, 2 output channels

onnx::ModelProto make_model(const std::vector<float>& w, const std::vector<float>& b) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("conv_relu");
  auto value = [](onnx::ValueInfoProto* v, const char* name, std::vector<int64_t> shape) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  value(g->add_input(), "x", {1, 1, kH, kW});
  value(g->add_output(), "y", {1, kK, kH, kW});
  auto init = [&](const char* name, std::vector<int64_t> dims, const std::vector<float>& data) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float f : data) t->add_float_data(f);
  };
  init("W", {kK, 1, 3, 3}, w);
  init("B", {kK}, b);
  onnx::NodeProto* conv = g->add_node();
  conv->set_op_type("Conv");
  conv->set_name("conv");
  conv->add_input("x");
  conv->add_input("W");
  conv->add_input("B");
  conv->add_output("c");
  onnx::AttributeProto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  onnx::NodeProto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu");
  relu->add_input("c");
  relu->add_output("y");
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  std::string target = argc > 1 ? argv[1] : "hexagon-v68";
  std::vector<float> w(kK * 9), b = {0.5f, -0.25f}, x(kH * kW);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5) / 4;
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 5 % 13) - 6) / 3;

  std::string dir = DSPC_EXAMPLE_WORK_DIR;
  std::string model_path = dir + "/conv_relu.onnx", so_path = dir + "/conv_relu-" + target + ".so";
  {
    std::ofstream f(model_path, std::ios::binary);
    if (!make_model(w, b).SerializeToOstream(&f)) {
      std::fprintf(stderr, "run_model: cannot write %s\n", model_path.c_str());
      return 1;
    }
  }

  // Import and compile; then the shared module (compile_step.cpp: the compiler's API and the
  // host runtime's each declare a dspc::Module, so one file sees one of them).
  std::string group = compile_step(model_path, target, so_path);
  if (group.empty()) return 1;

  try {
    dspc::SessionOptions options;
    options.target = target;
    dspc::Session session(options);
    dspc::DeviceBuffer X(session, dspc::DType::f32(), {1, 1, kH, kW});
    dspc::DeviceBuffer Y(session, dspc::DType::f32(), {1, kK, kH, kW});
    X.copy_from_host(x);
    dspc::Module module = dspc::Module::load(session, so_path);
    dspc::Function infer = module.function(group);
    uint64_t before = session.round_trips();
    infer(X, Y);
    uint64_t trips = session.round_trips() - before;
    std::vector<float> y(kK * kH * kW);
    Y.copy_to_host(y);

    int same = 0;
    for (int k = 0; k < kK; ++k)
      for (int r = 0; r < kH; ++r)
        for (int s = 0; s < kW; ++s) {
          float acc = b[k];
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
              int rr = r + i - 1, ss = s + j - 1;
              if (rr >= 0 && rr < kH && ss >= 0 && ss < kW) acc += x[rr * kW + ss] * w[k * 9 + i * 3 + j];
            }
          float want = std::max(acc, 0.0f);
          same += std::fabs(y[(k * kH + r) * kW + s] - want) <= 1e-5f * (1 + std::fabs(want));
        }
    // (In-process on the host: no messages, so 0.)
    std::printf("%llu device round trip%s per inference; y matches the reference: %d/%d\n",
                static_cast<unsigned long long>(trips), trips == 1 ? "" : "s", same, kK * kH * kW);
    session.close();
    return same == kK * kH * kW ? 0 : 1;
  } catch (const dspc::Error& e) {
    std::fprintf(stderr, "run_model: error: %s\n", e.what());
    return 1;
  }
}
