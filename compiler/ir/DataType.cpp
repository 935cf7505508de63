#include "compiler/ir/DataType.h"

#include <cstdlib>
#include <limits>

namespace dspc {

int64_t DataType::min_int() const {
  if (is_int()) return bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (bits - 1));
  return 0;
}

int64_t DataType::max_int_signed() const {
  if (is_bool()) return 1;
  if (is_int()) return bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (bits - 1)) - 1;
  return bits >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << bits) - 1;
}

bool DataType::fits(uint64_t magnitude, bool is_negative) const {
  if (is_float()) return true;
  if (is_bool()) return !is_negative && magnitude <= 1;
  if (is_uint()) {
    if (is_negative) return magnitude == 0;
    return bits >= 64 || magnitude <= (uint64_t(1) << bits) - 1;
  }
  if (is_negative) return magnitude <= (uint64_t(1) << (bits - 1));
  return magnitude <= (uint64_t(1) << (bits - 1)) - 1;
}

std::string DataType::str() const {
  std::string s;
  switch (code) {
    case TypeCode::Int: s = "i" + std::to_string(bits); break;
    case TypeCode::UInt: s = "u" + std::to_string(bits); break;
    case TypeCode::Float: s = "f" + std::to_string(bits); break;
    case TypeCode::Bool: s = "bool"; break;
    case TypeCode::Handle: s = "handle"; break;
  }
  if (lanes > 1) s += "x" + std::to_string(lanes);
  return s;
}

std::optional<DataType> DataType::parse(std::string_view name) {
  DataType t;
  std::string_view base = name;
  int lanes = 1;
  if (auto x = name.find('x'); x != std::string_view::npos && x > 0) {
    base = name.substr(0, x);
    std::string_view l = name.substr(x + 1);
    if (l.empty() || l.size() > 5) return std::nullopt;
    lanes = 0;
    for (char c : l) {
      if (c < '0' || c > '9') return std::nullopt;
      lanes = lanes * 10 + (c - '0');
    }
    if (lanes < 2 || lanes > 4096) return std::nullopt;
  }
  if (base == "bool") t = boolean();
  else if (base == "handle") t = handle();
  else if (base == "i8") t = i8();
  else if (base == "i16") t = i16();
  else if (base == "i32") t = i32();
  else if (base == "i64") t = i64();
  else if (base == "u8") t = u8();
  else if (base == "u16") t = u16();
  else if (base == "u32") t = u32();
  else if (base == "u64") t = u64();
  else if (base == "f16") t = f16();
  else if (base == "f32") t = f32();
  else if (base == "f64") t = f64();
  else return std::nullopt;
  if (lanes > 1 && t.is_handle()) return std::nullopt;
  return t.with_lanes(lanes);
}

std::optional<int> runtime_type_code(DataType t) {
  switch (t.code) {
    case TypeCode::Int: return 0;
    case TypeCode::UInt: return 1;
    case TypeCode::Float: return 2;
    case TypeCode::Bool: return 3;
    case TypeCode::Handle: break;
  }
  return std::nullopt;
}

int64_t wrap_to(DataType t, int64_t v) {
  if (t.is_bool()) return v != 0;
  if (!t.is_integer() || t.bits >= 64) return v;
  uint64_t mask = (uint64_t(1) << t.bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (u >> (t.bits - 1)) & 1) u |= ~mask;
  return static_cast<int64_t>(u);
}

}  // namespace dspc
