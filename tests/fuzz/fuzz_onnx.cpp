// Fuzz target: the ONNX importer (compiler/onnx/): libonnx's reader, checker and shape
// inference, then the importer's own reading of the model and its conversion of every operator.
// Input: an ONNX model's bytes. A model it refuses must say why; one it accepts must give a
// program with a graph. (The .dsp frontend on that program is left to the dsp and pipeline
// targets: reading the op library for each input would cost a second per execution.)
#include <exception>

#include "FuzzSupport.h"
#include "compiler/onnx/OnnxImport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dspc;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  std::string dsp, error;
  OnnxImportOptions options;
  bool imported = false;
  try {
    imported = import_onnx(bytes, "fuzz.onnx", options, dsp, error);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("exception escaped import_onnx: ") + e.what(), "");
  }
  if (!imported) {
    if (error.empty()) fuzz::finding("import_onnx failed without a message", "");
    fuzz::report(error.substr(0, error.find('\n')));
    return 0;
  }
  if (dsp.find("\ngraph ") == std::string::npos) fuzz::finding("import_onnx accepted a model but wrote no graph", dsp);
  fuzz::report("ok");
  return 0;
}
