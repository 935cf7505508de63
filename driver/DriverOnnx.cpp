// `.onnx` inputs (docs/onnx.md): the model is imported by compiler/onnx/ as a .dsp program,
// which every command then compiles and runs as it would a .dsp file.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "driver/Driver.h"

namespace dspc {

namespace {

// The largest model dspc reads: 1 GiB (protobuf's own limit is 2 GiB).
constexpr size_t kMaxModelBytes = size_t(1) << 30;

}  // namespace

bool parse_onnx_option(const std::string& option, const std::string& value, DriverOptions& o, std::string& error) {
  o.onnx_options_given = true;
  if (option == "--input-shape") {
    auto eq = value.find('=');
    std::string name = eq == std::string::npos ? "" : value.substr(0, eq);
    std::vector<int64_t> shape;
    std::string dims = eq == std::string::npos ? "" : value.substr(eq + 1);
    size_t i = 0;
    while (!dims.empty() && i <= dims.size()) {
      size_t x = dims.find('x', i);
      std::string d = dims.substr(i, x == std::string::npos ? std::string::npos : x - i);
      bool digits = !d.empty() && d.size() <= 10;
      for (char c : d) digits &= c >= '0' && c <= '9';
      if (!digits || std::stoll(d) > INT32_MAX) {  // 0: a tensor without elements
        shape.clear();
        break;
      }
      shape.push_back(std::stoll(d));
      if (x == std::string::npos) break;
      i = x + 1;
    }
    if (name.empty() || shape.empty() || shape.size() > 6) {
      error = "--input-shape needs NAME=DIMS with 1 to 6 extents (whole numbers, 0 or more) joined by 'x' (data=1x3x224x224), got '" +
              value + "'";
      return false;
    }
    if (o.onnx.input_shapes.count(name)) {
      error = "--input-shape " + name + " is given more than once";
      return false;
    }
    o.onnx.input_shapes[name] = shape;
    return true;
  }
  OnnxLayout& layout = option == "--input-layout" ? o.onnx.input_layout : o.onnx.output_layout;
  if (value == "nchw" || value == "NCHW") layout = OnnxLayout::NCHW;
  else if (value == "nhwc" || value == "NHWC") layout = OnnxLayout::NHWC;
  else {
    error = option + " must be nchw or nhwc, got '" + value + "'";
    return false;
  }
  return true;
}

namespace {

// Reads the model at `path` and imports it into `out`; false with the message (which names
// the file) in `error`.
bool import_model(const std::string& path, const OnnxImportOptions& onnx, SourceFile& out, std::string& error) {
  out.path = path + ".dsp";
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    error = "dspc: error: cannot read '" + path + "': it is a directory";
    return false;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    error = "dspc: error: cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::string bytes;
  char buf[1 << 16];
  while (f.read(buf, sizeof buf) || f.gcount() > 0) {
    bytes.append(buf, static_cast<size_t>(f.gcount()));
    if (bytes.size() > kMaxModelBytes) {
      error = "dspc: error: cannot read '" + path + "': larger than 1 GiB, the most dspc reads";
      return false;
    }
    if (!f) break;
  }
  if (f.bad()) {
    error = "dspc: error: cannot read '" + path + "'";
    return false;
  }
  if (!import_onnx(bytes, path, onnx, out.text, error)) {
    error = path + ": error: " + error;
    return false;
  }
  return true;
}

}  // namespace

bool read_onnx_source(const DriverOptions& o, SourceFile& out) {
  std::string error;
  if (import_model(o.input, o.onnx, out, error)) return true;
  std::cerr << error << "\n";
  return false;
}

std::optional<Compilation> compile_model(const std::string& path, const OnnxImportOptions& onnx,
                                         const LowerOptions& options, Diagnostics& diag, SourceFile& imported,
                                         std::vector<std::string> import_dirs) {
  std::string error;
  if (!import_model(path, onnx, imported, error)) {
    if (error.rfind("dspc: error: ", 0) == 0) {
      diag.error(error.substr(13));  // the file cannot be read
    } else {
      imported = {path, ""};  // "model.onnx: error: node ...: ..."
      diag.set_source(&imported);
      diag.error(Span{}, error.substr(error.find(": error: ") + 9));
    }
    return std::nullopt;
  }
  if (std::string lib = library_dir(); !lib.empty()) import_dirs.push_back(lib);
  return compile_source(imported, options, diag, {}, import_dirs);
}

}  // namespace dspc
