// Fuzz target: the ONNX importer (compiler/onnx/), then the .dsp parser and checker on the
// program it writes. Input: an ONNX model's bytes. A model the importer accepts must give a
// program that parses and checks, or a located error there (never an internal error); a model
// it refuses must say why.
#include <exception>

#include "FuzzSupport.h"
#include "compiler/frontend/Parser.h"
#include "compiler/onnx/OnnxImport.h"

#ifndef DSPC_SOURCE_DIR
#define DSPC_SOURCE_DIR "."
#endif

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
  // The imported program through the .dsp frontend, with the op library of the tree.
  SourceFile source{"fuzz.onnx.dsp", dsp};
  std::ostringstream out;
  Diagnostics diag(out, &source);
  auto program = parse_dsp(source, diag, {}, {DSPC_SOURCE_DIR "/schedules"});
  fuzz::check_outcome(program.has_value(), diag, out);
  fuzz::report(program.has_value(), out);
  return 0;
}
