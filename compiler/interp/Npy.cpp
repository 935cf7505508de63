// NumPy .npy reading and writing, and a numpy-like text rendering of tensors.
//
// The format itself lives in runtime-support/common/npy.c, the codec the device runner uses
// too: header parsing, the data size against the file, header writing. This file adds the
// compiler's side:
// 1. read: the file's first bytes to the C parser, the data size it accepts (equal to what
//    the file holds, so no allocation is sized by a lying header), dtype and tensor.
// 2. write: the dtype's descr and the header from the C codec, then the data.
// 3. format: nested brackets, at most 16 elements per dimension shown in full.
#include "compiler/interp/Npy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "compiler/arith/Semantics.h"
#include "compiler/ir/Printer.h"
#include "runtime-support/common/npy.h"

namespace dspc {

namespace {

// Collects a C codec message.
struct CodecError {
  char buf[512];
  dspc_text text;
  CodecError() { dspc_text_init(&text, buf, sizeof buf); }
};

// The codec accepts only kinds and sizes dspc has: i/u 1, 2, 4, 8; f 2, 4, 8; b 1.
DataType dtype_of(const dspc_npy_header& h) {
  if (h.kind == 'b') return DataType::boolean();
  TypeCode code = h.kind == 'i' ? TypeCode::Int : h.kind == 'u' ? TypeCode::UInt : TypeCode::Float;
  return DataType(code, static_cast<uint8_t>(h.bytes * 8));
}

// The .npy kind of a dtype, or 0 if .npy cannot hold it.
char kind_of(DataType t) {
  if (!t.is_scalar()) return 0;
  if (t.is_int()) return 'i';
  if (t.is_uint()) return 'u';
  if (t.is_float()) return 'f';
  if (t.is_bool()) return 'b';
  return 0;
}

// The shortest decimal that reads back to the same value of the dtype.
std::string format_float(DataType t, double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  int max_prec = t.bits == 16 ? 5 : t.bits == 32 ? 9 : 17;
  char buf[64];
  for (int prec = 1; prec <= max_prec; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (round_to_float(t, std::strtod(buf, nullptr)) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string format_element(const Tensor& t, int64_t k) {
  Value v = load_value(t.dtype, t.data.data() + k * t.dtype.bytes());
  if (t.dtype.is_bool()) return v.i ? "true" : "false";
  if (t.dtype.is_float()) return format_float(t.dtype, v.f);
  if (t.dtype.is_uint()) return std::to_string(v.u());
  return std::to_string(v.i);
}

constexpr int64_t kSummariseAbove = 16;
constexpr int64_t kEdgeItems = 3;

void format_dim(const Tensor& t, size_t dim, int64_t offset, size_t indent, std::string& out) {
  if (dim == t.shape.size()) {
    out += format_element(t, offset);
    return;
  }
  int64_t n = t.shape[dim];
  int64_t stride = 1;  // never overflows: format_tensor prints an empty tensor as []
  for (size_t d = dim + 1; d < t.shape.size(); ++d) stride *= t.shape[d];
  bool inner = dim + 1 == t.shape.size();
  std::string sep =
      inner ? ", " : "," + std::string(t.shape.size() - dim - 1, '\n') + std::string(indent + dim + 1, ' ');
  out += '[';
  for (int64_t i = 0; i < n; ++i) {
    if (i) out += sep;
    if (n > kSummariseAbove && i == kEdgeItems) {
      out += "...";
      i = n - kEdgeItems - 1;
      continue;
    }
    format_dim(t, dim + 1, offset + i * stride, indent, out);
  }
  out += ']';
}

}  // namespace

bool read_npy(const std::string& path, Tensor& out, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open the file";
    return false;
  }
  return read_npy(in, out, error);
}

bool read_npy(std::istream& in, Tensor& out, std::string& error) {
  // Messages leave out the path: callers name the file (or the tensor) themselves.
  auto fail = [&](const std::string& msg) {
    error = msg;
    return false;
  };
  in.seekg(0, std::ios::end);
  std::streamoff file_size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (file_size < 0 || !in) return fail("cannot read the file");
  // The longest header the codec accepts: a 12-byte preamble and DSPC_NPY_MAX_HEADER bytes.
  std::vector<uint8_t> head(
      static_cast<size_t>(std::min<std::streamoff>(file_size, 12 + DSPC_NPY_MAX_HEADER)));
  if (!in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size())))
    return fail("cannot read the file");

  dspc_npy_header h;
  size_t data_offset = 0;
  uint64_t nbytes = 0;
  CodecError err;
  if (dspc_npy_parse(head.data(), head.size(), &h, &data_offset, &err.text) != 0 ||
      dspc_npy_data_size(&h, static_cast<uint64_t>(file_size) - data_offset, &nbytes, &err.text) != 0)
    return fail(err.buf);
  Tensor t;
  t.dtype = dtype_of(h);
  t.shape.assign(h.shape, h.shape + h.ndim);
  t.data.resize(static_cast<size_t>(nbytes));
  in.seekg(static_cast<std::streamoff>(data_offset));
  if (nbytes && !in.read(reinterpret_cast<char*>(t.data.data()), static_cast<std::streamsize>(nbytes)))
    return fail("cannot read the data");
  if (t.dtype.is_bool())
    for (auto& b : t.data) b = b != 0;
  out = std::move(t);
  return true;
}

bool write_npy(const std::string& path, const Tensor& t, std::string& error) {
  char kind = kind_of(t.dtype);
  if (!kind) {
    error = "cannot write " + t.dtype.str() + " to .npy";
    return false;
  }
  if (static_cast<int64_t>(t.data.size()) != t.num_elements() * t.dtype.bytes()) {
    error = "tensor data does not match its shape";
    return false;
  }
  char descr[4];
  dspc_npy_descr(kind, static_cast<unsigned>(t.dtype.bytes()), descr);
  std::vector<uint8_t> header(DSPC_NPY_MAX_HEADER);
  size_t header_len = dspc_npy_write_header(header.data(), header.size(), descr,
                                            static_cast<uint32_t>(t.shape.size()), t.shape.data());
  if (header_len == 0) {
    error = "cannot write " + std::to_string(t.shape.size()) + " dimensions to .npy (at most " +
            std::to_string(DSPC_NPY_MAX_DIMS) + ")";
    return false;
  }

  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  if (!os) {
    error = "cannot open " + path + " for writing";
    return false;
  }
  os.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header_len));
  os.write(reinterpret_cast<const char*>(t.data.data()), static_cast<std::streamsize>(t.data.size()));
  os.close();
  if (!os) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

std::string format_tensor(const std::string& name, const Tensor& t) {
  std::string s = name + ": " + t.dtype.str() + shape_str(t.shape) + " = ";
  if (static_cast<int64_t>(t.data.size()) != t.num_elements() * t.dtype.bytes()) return s + "<invalid data>";
  // An empty tensor is `[]`, as numpy prints it: its nested brackets alone, one per index of
  // the extents before a zero one, could run to gigabytes (the shape is in the header).
  if (!t.shape.empty() && t.num_elements() == 0) return s + "[]";
  format_dim(t, 0, 0, s.size(), s);
  return s;
}

}  // namespace dspc
