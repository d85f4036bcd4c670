//===- Types.h - element types of kernel parameters -------------*- C++ -*-===//
//
// The host types that stand for the element types kernel metadata names
// (docs/metadata.md): Half and BFloat16 are plain
// 16-bit values with round-to-nearest-even conversions from float, so that
// host code (references, the AOT headers) needs no CUDA header for them.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_TYPES_H
#define TILEC_RUNTIME_TYPES_H

#include "tilec/DType.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <type_traits>

namespace tilec::runtime {

/// The element types the metadata names are tilec::DType (tilec/DType.h,
/// shared with the builder and the interpreter): dtypeName, parseDType,
/// dtypeSize, isInteger, isFloat, allDTypeNames.
using ::tilec::DType;
using ::tilec::allDTypeNames;
using ::tilec::dtypeName;
using ::tilec::dtypeSize;
using ::tilec::isFloat;
using ::tilec::isInteger;
using ::tilec::parseDType;

/// IEEE binary16, as bits. `Half(x)` rounds the float x to nearest even
/// (as fromFloat does) and `float(h)` converts back; both are explicit, so
/// that a Half never appears or vanishes silently in arithmetic. Building
/// from raw bits has its own name, fromBits: an integer argument to the
/// constructor does not compile (it would be ambiguous between "the value
/// 3" and "the bits 3", which the aggregate `Half{3}` once meant).
struct Half {
  uint16_t bits = 0;

  Half() = default;
  explicit Half(float value) : bits(fromFloat(value).bits) {}
  template <typename T>
    requires std::is_integral_v<T>
  Half(T) = delete;
  explicit operator float() const { return toFloat(); }

  static Half fromFloat(float value);
  static constexpr Half fromBits(uint16_t raw) {
    Half h;
    h.bits = raw;
    return h;
  }
  float toFloat() const;
};

/// bfloat16 (the upper half of a binary32), as bits; constructed and
/// converted as Half is.
struct BFloat16 {
  uint16_t bits = 0;

  BFloat16() = default;
  explicit BFloat16(float value) : bits(fromFloat(value).bits) {}
  template <typename T>
    requires std::is_integral_v<T>
  BFloat16(T) = delete;
  explicit operator float() const { return toFloat(); }

  static BFloat16 fromFloat(float value);
  static constexpr BFloat16 fromBits(uint16_t raw) {
    BFloat16 b;
    b.bits = raw;
    return b;
  }
  float toFloat() const {
    uint32_t u = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

/// 8-bit floats: only their bits, for typing pointers to them.
struct Float8E4M3FN {
  uint8_t bits = 0;
};
struct Float8E5M2 {
  uint8_t bits = 0;
};

/// The element type a host type stands for in a typed device pointer:
/// DTypeOf<float>::value == DType::F32. Signed and unsigned
/// integers of one width both map to the (signless) integer type.
template <typename T> struct DTypeOf;
#define TILEC_SCALAR_TYPE_OF(CppType, Value)                                   \
  template <> struct DTypeOf<CppType> {                                   \
    static constexpr DType value = DType::Value;                     \
  };
TILEC_SCALAR_TYPE_OF(bool, I1)
TILEC_SCALAR_TYPE_OF(int8_t, I8)
TILEC_SCALAR_TYPE_OF(uint8_t, I8)
TILEC_SCALAR_TYPE_OF(int16_t, I16)
TILEC_SCALAR_TYPE_OF(uint16_t, I16)
TILEC_SCALAR_TYPE_OF(int32_t, I32)
TILEC_SCALAR_TYPE_OF(uint32_t, I32)
TILEC_SCALAR_TYPE_OF(int64_t, I64)
TILEC_SCALAR_TYPE_OF(uint64_t, I64)
TILEC_SCALAR_TYPE_OF(Half, F16)
TILEC_SCALAR_TYPE_OF(BFloat16, BF16)
TILEC_SCALAR_TYPE_OF(float, F32)
TILEC_SCALAR_TYPE_OF(double, F64)
TILEC_SCALAR_TYPE_OF(Float8E4M3FN, F8E4M3FN)
TILEC_SCALAR_TYPE_OF(Float8E5M2, F8E5M2)
#undef TILEC_SCALAR_TYPE_OF
template <typename T> struct DTypeOf<const T> : DTypeOf<T> {};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_TYPES_H
