// The ONNX frontend (docs/onnx.md): an ONNX model, read through libonnx (its protobuf model, its
// checker and its shape inference), becomes a .dsp program: one `graph` whose every node is a
// call of an op-library func (schedules/onnx_*.dsp, nn.dsp) instantiated at the node's shapes,
// with the initializers as `const` tensors. dspc compiles that program as any .dsp file, and
// `--emit=dsp` prints it.
//
// Layout: ONNX is NCHW, the op library NHWC. The importer keeps a 4-D activation in NHWC from
// the first op that wants it (Conv, the pools, BatchNormalization) through the ops that work in
// either layout (elementwise, Pad, Concat, reductions that keep their dimensions), so transposes
// sit only at the graph's inputs and outputs (and before an op that needs the logical order, such
// as Reshape or Softmax, unless the two orders hold the same bytes). Constant weights are
// transposed at compile time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dspc {

enum class OnnxLayout : uint8_t { NCHW, NHWC };

struct OnnxImportOptions {
  // --input-shape NAME=1x3x224x224: the shape of an input whose ONNX shape is not fixed (or to
  // override it).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // The layout of the graph's 4-D inputs and results (--input-layout, --output-layout).
  OnnxLayout input_layout = OnnxLayout::NCHW;
  OnnxLayout output_layout = OnnxLayout::NCHW;
};

// Imports the model in `bytes` (read from `path`, which the messages name). On success returns
// true with the .dsp program in `dsp`; otherwise false with one message in `error`, located at
// the model, a graph input or output, or a node: "node 3 'conv1' (Conv, opset 13): ..." (the
// caller puts the path first). Never throws.
bool import_onnx(const std::string& bytes, const std::string& path, const OnnxImportOptions& options,
                 std::string& dsp, std::string& error);

// The operators the importer supports, one line each with the opsets it covers
// (`dspc --list-onnx-ops`).
std::string onnx_supported_ops();

// Whether `path` names an ONNX model (its extension is .onnx).
bool is_onnx_path(const std::string& path);

}  // namespace dspc
