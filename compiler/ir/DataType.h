// Scalar and vector element types of the IR and the .dsp language.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dspc {

enum class TypeCode : uint8_t { Int, UInt, Float, Bool, Handle };

// A dtype: code, bits per lane, lanes (1 for scalars). `handle` is an opaque pointer.
struct DataType {
  TypeCode code = TypeCode::Int;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  constexpr DataType() = default;
  constexpr DataType(TypeCode c, uint8_t b, uint16_t l = 1) : code(c), bits(b), lanes(l) {}

  static constexpr DataType i8() { return {TypeCode::Int, 8}; }
  static constexpr DataType i16() { return {TypeCode::Int, 16}; }
  static constexpr DataType i32() { return {TypeCode::Int, 32}; }
  static constexpr DataType i64() { return {TypeCode::Int, 64}; }
  static constexpr DataType u8() { return {TypeCode::UInt, 8}; }
  static constexpr DataType u16() { return {TypeCode::UInt, 16}; }
  static constexpr DataType u32() { return {TypeCode::UInt, 32}; }
  static constexpr DataType u64() { return {TypeCode::UInt, 64}; }
  static constexpr DataType f16() { return {TypeCode::Float, 16}; }
  static constexpr DataType f32() { return {TypeCode::Float, 32}; }
  static constexpr DataType f64() { return {TypeCode::Float, 64}; }
  static constexpr DataType boolean() { return {TypeCode::Bool, 1}; }
  static constexpr DataType handle() { return {TypeCode::Handle, 64}; }

  bool is_int() const { return code == TypeCode::Int; }
  bool is_uint() const { return code == TypeCode::UInt; }
  bool is_integer() const { return is_int() || is_uint(); }
  bool is_float() const { return code == TypeCode::Float; }
  bool is_bool() const { return code == TypeCode::Bool; }
  bool is_handle() const { return code == TypeCode::Handle; }
  bool is_scalar() const { return lanes == 1; }
  bool is_vector() const { return lanes > 1; }

  DataType element_of() const { return {code, bits, 1}; }
  DataType with_lanes(int l) const { return {code, bits, static_cast<uint16_t>(l)}; }
  // Bytes one element occupies in memory (bool takes a byte).
  int bytes() const { return is_bool() ? 1 : (bits + 7) / 8; }

  // Smallest and largest representable integer (integers and bool only).
  int64_t min_int() const;
  int64_t max_int_signed() const;   // for u64, INT64_MAX; see fits()
  // Does the integer literal `v` (read as unsigned when `is_negative` is false) fit?
  bool fits(uint64_t magnitude, bool is_negative) const;

  std::string str() const;  // "i8", "u32", "f32", "bool", "handle", "i8x128"
  static std::optional<DataType> parse(std::string_view name);

  friend bool operator==(DataType a, DataType b) {
    return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
  }
  friend bool operator!=(DataType a, DataType b) { return !(a == b); }
};

// The runtime's DSPC_TYPE_* code of a parameter's dtype (dspc_runtime.h: int 0, uint 1,
// float 2, bool 3); nullopt for a handle, which cannot be a kernel parameter.
std::optional<int> runtime_type_code(DataType t);

// Wraps `v` to the dtype's width with its signedness (two's complement).
int64_t wrap_to(DataType t, int64_t v);

}  // namespace dspc
