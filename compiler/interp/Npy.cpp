// NumPy .npy reading and writing, and a numpy-like text rendering of tensors.
//
// 1. read: magic and version (1.0, 2.0, 3.0), header length, the header dict (a small parser
//    for the python literal numpy writes: 'descr', 'fortran_order', 'shape'), then the data,
//    whose length must match the shape exactly. Every malformed input is an error, never a
//    crash or a huge allocation: sizes are checked against the file before reading.
// 2. write: version 1.0 (2.0 if the header would not fit), numpy's header layout and padding.
// 3. format: nested brackets, at most 16 elements per dimension shown in full.
#include "compiler/interp/Npy.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>

#include "compiler/interp/Semantics.h"

namespace dspc {

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

struct DescrEntry {
  const char* descr;
  DataType dtype;
};

const DescrEntry kDescrs[] = {
    {"|i1", DataType::i8()},  {"<i1", DataType::i8()},      {"|u1", DataType::u8()},
    {"<u1", DataType::u8()},  {"<i2", DataType::i16()},     {"<u2", DataType::u16()},
    {"<i4", DataType::i32()}, {"<u4", DataType::u32()},     {"<i8", DataType::i64()},
    {"<u8", DataType::u64()}, {"<f2", DataType::f16()},     {"<f4", DataType::f32()},
    {"<f8", DataType::f64()}, {"|b1", DataType::boolean()},
};

// The descr numpy writes for a dtype, or nullptr.
const char* descr_of(DataType t) {
  if (!t.is_scalar()) return nullptr;
  for (const auto& d : kDescrs) {
    if (d.dtype != t) continue;
    // numpy marks one-byte types as byte-order free.
    if (t.bytes() == 1 && d.descr[0] == '<') continue;
    return d.descr;
  }
  return nullptr;
}

// A parser for the header dict: {'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& s) : s_(s) {}

  bool parse(std::string& descr, bool& fortran, std::vector<int64_t>& shape, std::string& error) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip_ws();
    if (!eat('{')) return bad(error, "header is not a dict");
    while (true) {
      skip_ws();
      if (eat('}')) break;
      std::string key;
      if (!string_lit(key)) return bad(error, "expected a quoted key in the header");
      skip_ws();
      if (!eat(':')) return bad(error, "expected ':' after '" + key + "' in the header");
      skip_ws();
      if (key == "descr") {
        if (have_descr || !string_lit(descr)) return bad(error, "bad 'descr' in the header");
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_fortran || !boolean(fortran)) return bad(error, "bad 'fortran_order' in the header");
        have_fortran = true;
      } else if (key == "shape") {
        if (have_shape || !tuple(shape, error))
          return bad(error, error.empty() ? "bad 'shape' in the header" : error);
        have_shape = true;
      } else {
        return bad(error, "unexpected key '" + key + "' in the header");
      }
      skip_ws();
      if (eat(',')) continue;
      skip_ws();
      if (eat('}')) break;
      return bad(error, "expected ',' or '}' in the header");
    }
    skip_ws();
    if (pos_ != s_.size()) return bad(error, "trailing characters after the header dict");
    if (!have_descr || !have_fortran || !have_shape)
      return bad(error, "header lacks 'descr', 'fortran_order' or 'shape'");
    return true;
  }

 private:
  static bool bad(std::string& error, const std::string& msg) {
    error = msg;
    return false;
  }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool word(const char* w) {
    size_t n = std::strlen(w);
    if (s_.compare(pos_, n, w) != 0) return false;
    pos_ += n;
    return true;
  }
  bool string_lit(std::string& out) {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return false;
    char q = s_[pos_++];
    size_t end = s_.find(q, pos_);
    if (end == std::string::npos) return false;
    out = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return true;
  }
  bool boolean(bool& out) {
    if (word("True")) {
      out = true;
      return true;
    }
    if (!word("False")) return false;
    out = false;
    return true;
  }
  bool tuple(std::vector<int64_t>& out, std::string& error) {
    out.clear();
    if (!eat('(')) return false;
    while (true) {
      skip_ws();
      if (eat(')')) return true;
      if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9') return false;
      int64_t v = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        if (v > (std::numeric_limits<int64_t>::max() - 9) / 10)
          return bad(error, "shape extent is too large");
        v = v * 10 + (s_[pos_++] - '0');
      }
      eat('L');  // python 2 long suffix
      out.push_back(v);
      skip_ws();
      if (eat(',')) continue;
      skip_ws();
      if (eat(')')) return true;
      return false;
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
};

uint64_t read_le(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string shape_repr(const std::vector<int64_t>& shape) {
  if (shape.size() == 1) return "(" + std::to_string(shape[0]) + ",)";
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
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
  int64_t stride = 1;
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
  // Messages leave out the path: callers name the file (or the tensor) themselves.
  auto fail = [&](const std::string& msg) {
    error = msg;
    return false;
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot open the file");
  in.seekg(0, std::ios::end);
  std::streamoff file_size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (file_size < 0) return fail("cannot read the file");
  unsigned char pre[12];
  if (file_size < 10 || !in.read(reinterpret_cast<char*>(pre), 10))
    return fail("not a .npy file (too short)");
  if (std::memcmp(pre, kMagic, kMagicLen) != 0) return fail("not a .npy file (bad magic)");
  int major = pre[6], minor = pre[7];
  if (major < 1 || major > 3 || minor != 0)
    return fail("unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor));
  uint64_t header_len;
  std::streamoff header_start = 10;
  if (major == 1) {
    header_len = read_le(pre + 8, 2);
  } else {
    if (file_size < 12 || !in.read(reinterpret_cast<char*>(pre + 10), 2)) return fail("truncated header");
    header_len = read_le(pre + 8, 4);
    header_start = 12;
  }
  if (header_len > static_cast<uint64_t>(file_size - header_start)) return fail("truncated header");
  std::string header(static_cast<size_t>(header_len), '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(header_len))) return fail("truncated header");

  std::string descr, perr;
  bool fortran = false;
  std::vector<int64_t> shape;
  if (!HeaderParser(header).parse(descr, fortran, shape, perr)) return fail(perr);
  if (fortran) return fail("fortran_order arrays are not supported");
  const DescrEntry* entry = nullptr;
  for (const auto& d : kDescrs)
    if (descr == d.descr) entry = &d;
  if (!entry) return fail("unsupported dtype '" + descr + "'");
  DataType dtype = entry->dtype;

  uint64_t data_len = static_cast<uint64_t>(file_size - header_start) - header_len;
  uint64_t count = 1;
  for (int64_t e : shape) {
    // Overflowing the count means the file cannot hold the data either.
    if (e != 0 && count > data_len / static_cast<uint64_t>(e))
      return fail("data is shorter than the shape says");
    count *= static_cast<uint64_t>(e);
  }
  uint64_t want = count * static_cast<uint64_t>(dtype.bytes());
  if (want != data_len)
    return fail("data has " + std::to_string(data_len) + " bytes, the shape needs " + std::to_string(want));

  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.data.resize(static_cast<size_t>(want));
  if (want && !in.read(reinterpret_cast<char*>(t.data.data()), static_cast<std::streamsize>(want)))
    return fail("cannot read the data");
  if (dtype.is_bool())
    for (auto& b : t.data) b = b != 0;
  out = std::move(t);
  return true;
}

bool write_npy(const std::string& path, const Tensor& t, std::string& error) {
  const char* descr = descr_of(t.dtype);
  if (!descr) {
    error = "cannot write " + t.dtype.str() + " to .npy";
    return false;
  }
  if (static_cast<int64_t>(t.data.size()) != t.num_elements() * t.dtype.bytes()) {
    error = "tensor data does not match its shape";
    return false;
  }
  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': False, 'shape': " + shape_repr(t.shape) + ", }";
  // Like numpy: room to grow the first extent in place, then pad to 64 bytes with a newline.
  constexpr size_t kGrowthAxisMaxDigits = 21;
  if (!t.shape.empty()) dict += std::string(kGrowthAxisMaxDigits - std::to_string(t.shape[0]).size(), ' ');
  size_t hlen = dict.size() + 1;
  size_t prefix = 10;
  size_t pad = 64 - (prefix + hlen) % 64;
  if (hlen + pad > 65535) {  // version 2.0: a 4-byte header length
    prefix = 12;
    pad = 64 - (prefix + hlen) % 64;
  }
  std::string header = dict + std::string(pad, ' ') + "\n";

  std::string bytes(kMagic, kMagicLen);
  bytes += static_cast<char>(prefix == 10 ? 1 : 2);
  bytes += '\0';
  size_t n = header.size();
  for (size_t i = 0; i < prefix - 8; ++i) bytes += static_cast<char>((n >> (8 * i)) & 0xff);
  bytes += header;

  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  if (!os) {
    error = "cannot open " + path + " for writing";
    return false;
  }
  os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  os.write(reinterpret_cast<const char*>(t.data.data()), static_cast<std::streamsize>(t.data.size()));
  os.close();
  if (!os) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

std::string format_tensor(const std::string& name, const Tensor& t) {
  std::string s = name + ": " + t.dtype.str() + "[";
  for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(t.shape[i]);
  s += "] = ";
  if (static_cast<int64_t>(t.data.size()) != t.num_elements() * t.dtype.bytes()) return s + "<invalid data>";
  format_dim(t, 0, 0, s.size(), s);
  return s;
}

}  // namespace dspc
