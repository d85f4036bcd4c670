//===- DType.h - element types shared by tilec's C++ APIs -------*- C++ -*-===//
//
// The element types of tiles, buffers and scalars: what the builder, the
// interpreter and the runtime call i1 .. f8E5M2. MLIR-free, so that users of
// the builder API need no MLIR header.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DTYPE_H
#define TILEC_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tilec {

/// Element types. Integers are signed where it matters (division,
/// comparison, extension), as in C++ and Triton; I1 is a boolean.
enum class DType : uint8_t {
  I1,
  I8,
  I16,
  I32,
  I64,
  F16,
  BF16,
  F32,
  F64,
  F8E4M3FN,
  F8E5M2,
};

/// Short names for builder code: `k.pointer("x", tilec::f16)`.
inline constexpr DType i1 = DType::I1, i8 = DType::I8, i16 = DType::I16,
                       i32 = DType::I32, i64 = DType::I64, f16 = DType::F16,
                       bf16 = DType::BF16, f32 = DType::F32, f64 = DType::F64,
                       f8e4m3fn = DType::F8E4M3FN, f8e5m2 = DType::F8E5M2;

/// The MLIR spelling of `type` ("f32", "bf16", "f8E4M3FN", ...).
std::string_view dtypeName(DType type);
/// Parses an MLIR spelling of a dtype.
std::optional<DType> parseDType(std::string_view name);
/// Every name parseDType accepts, space-separated (for error messages).
std::string_view allDTypeNames();
/// Bytes one element takes in memory (I1 takes a byte).
size_t dtypeSize(DType type);
bool isFloat(DType type);
/// True for I1 .. I64.
bool isInteger(DType type);
unsigned bitWidth(DType type);

} // namespace tilec

#endif // TILEC_DTYPE_H
