//===- FloatFormats.h - rounding to and encoding narrow floats --*- C++ -*-===//
//
// The interpreter keeps every float element as a double holding a value that
// is exactly representable in the element's type; these functions round a
// double to a type (the GPU's rounding points) and convert between values
// and the bits that memory holds. MLIR-free, so that the host-side tools of
// the GPU machine (tilec-gpu-run) encode and decode elements exactly as the
// interpreter does.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_FLOATFORMATS_H
#define TILEC_SUPPORT_FLOATFORMATS_H

#include "tilec/DType.h"

#include <cstdint>

namespace tilec {

/// The float formats elements may have; TF32 exists only as dot inputs.
enum class FloatFormat : uint8_t {
  F16,
  BF16,
  F32,
  F64,
  F8E4M3FN,
  F8E5M2,
  TF32
};

/// IEEE rounding directions (arith.truncf's roundingmode), plus ties-away.
enum class RoundMode : uint8_t {
  NearestEven,
  Downward,
  Upward,
  TowardZero,
  NearestAway,
};

/// Rounds `x` to `format`. Overflow gives infinity where the format has one
/// and rounding goes away from zero; the fp8 formats saturate to their
/// largest finite value (the GPU converts with .satfinite), NaN stays NaN.
double roundToFormat(double x, FloatFormat format,
                     RoundMode mode = RoundMode::NearestEven);

/// A function rounding to one format with round-to-nearest-even, for loops.
using RoundFn = double (*)(double);
RoundFn getRoundFn(FloatFormat format);

/// The value that `bits` (the low dtypeSize bytes) encode in `dtype`.
double decodeFloat(uint64_t bits, DType dtype);
/// The bits of `x` in `dtype`; `x` is rounded to it first.
uint64_t encodeFloat(double x, DType dtype);

/// The format of a float dtype.
FloatFormat formatOf(DType dtype);

/// Elements in host memory (little-endian, dtypeSize bytes; i1 one byte).
/// Integers load sign-extended; an i1 loads as 0 or 1.
int64_t loadIntElement(const uint8_t *addr, DType dtype);
double loadFloatElement(const uint8_t *addr, DType dtype);
/// Stores the low bits of `value`; an i1 stores 1 for any non-zero value.
void storeIntElement(uint8_t *addr, DType dtype, int64_t value);
/// Stores `value` rounded to `dtype`.
void storeFloatElement(uint8_t *addr, DType dtype, double value);

} // namespace tilec

#endif // TILEC_SUPPORT_FLOATFORMATS_H
