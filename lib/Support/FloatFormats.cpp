//===- FloatFormats.cpp - rounding to and encoding narrow floats ----------===//
//
// Rounding scales the value so that the format's last mantissa bit has weight
// one, rounds to an integer in the requested direction and scales back: all
// steps but the rounding are exact in double, so the result is correctly
// rounded for every format narrower than double (subnormals included).
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/FloatFormats.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace tilec;

namespace {
/// The parameters of a binary format: explicit mantissa bits, exponent
/// range of normal numbers, largest finite value and whether overflow
/// saturates instead of giving infinity.
struct FormatInfo {
  int mantissaBits;
  int minExp;
  int maxExp;
  double maxFinite;
  bool saturates;
};
} // namespace

static FormatInfo infoOf(FloatFormat format) {
  switch (format) {
  case FloatFormat::F16:
    return {10, -14, 15, 65504.0, false};
  case FloatFormat::BF16:
    return {7, -126, 127, std::ldexp(255.0, 120), false};
  case FloatFormat::F32:
  case FloatFormat::F64:
    return {23, -126, 127, std::numeric_limits<float>::max(), false};
  case FloatFormat::F8E4M3FN:
    return {3, -6, 8, 448.0, true};
  case FloatFormat::F8E5M2:
    return {2, -14, 15, 57344.0, true};
  case FloatFormat::TF32:
    return {10, -126, 127, std::ldexp(2047.0, 117), false};
  }
  return {23, -126, 127, std::numeric_limits<float>::max(), false};
}

static double roundInteger(double r, RoundMode mode) {
  switch (mode) {
  case RoundMode::NearestEven:
    return std::nearbyint(r); // the default environment rounds to even
  case RoundMode::Downward:
    return std::floor(r);
  case RoundMode::Upward:
    return std::ceil(r);
  case RoundMode::TowardZero:
    return std::trunc(r);
  case RoundMode::NearestAway:
    return std::round(r);
  }
  return std::nearbyint(r);
}

double tilec::roundToFormat(double x, FloatFormat format, RoundMode mode) {
  if (format == FloatFormat::F64)
    return x;
  if (format == FloatFormat::F32 && mode == RoundMode::NearestEven)
    return static_cast<float>(x);
  FormatInfo info = infoOf(format);
  if (std::isnan(x))
    return x;
  if (std::isinf(x))
    return info.saturates ? std::copysign(info.maxFinite, x) : x;
  if (x == 0)
    return x;
  int exp = std::max(std::ilogb(x), info.minExp);
  double quantum = std::ldexp(1.0, exp - info.mantissaBits);
  double y = roundInteger(x / quantum, mode) * quantum;
  if (std::fabs(y) <= info.maxFinite)
    return y == 0 ? std::copysign(0.0, x) : y;
  if (info.saturates)
    return std::copysign(info.maxFinite, x);
  // Past the largest finite value: infinity when rounding goes away from
  // zero, the largest finite value when it goes toward it.
  bool awayFromZero = mode == RoundMode::NearestEven ||
                      mode == RoundMode::NearestAway ||
                      (mode == RoundMode::Upward && x > 0) ||
                      (mode == RoundMode::Downward && x < 0);
  return awayFromZero ? std::copysign(HUGE_VAL, x)
                      : std::copysign(info.maxFinite, x);
}

template <FloatFormat F> static double roundNearest(double x) {
  return roundToFormat(x, F);
}

RoundFn tilec::getRoundFn(FloatFormat format) {
  switch (format) {
  case FloatFormat::F16:
    return roundNearest<FloatFormat::F16>;
  case FloatFormat::BF16:
    return roundNearest<FloatFormat::BF16>;
  case FloatFormat::F32:
    return [](double x) -> double { return static_cast<float>(x); };
  case FloatFormat::F64:
    return [](double x) { return x; };
  case FloatFormat::F8E4M3FN:
    return roundNearest<FloatFormat::F8E4M3FN>;
  case FloatFormat::F8E5M2:
    return roundNearest<FloatFormat::F8E5M2>;
  case FloatFormat::TF32:
    return roundNearest<FloatFormat::TF32>;
  }
  return roundNearest<FloatFormat::F32>;
}

FloatFormat tilec::formatOf(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return FloatFormat::F16;
  case DType::BF16:
    return FloatFormat::BF16;
  case DType::F64:
    return FloatFormat::F64;
  case DType::F8E4M3FN:
    return FloatFormat::F8E4M3FN;
  case DType::F8E5M2:
    return FloatFormat::F8E5M2;
  default:
    return FloatFormat::F32;
  }
}

namespace {
/// The layout of a narrow format in memory.
struct Encoding {
  int exponentBits;
  int mantissaBits;
  int bias;
  bool ieeeSpecials; ///< all-ones exponent is inf/NaN (else only NaN, E4M3FN)
};
} // namespace

static Encoding encodingOf(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return {5, 10, 15, true};
  case DType::BF16:
    return {8, 7, 127, true};
  case DType::F8E4M3FN:
    return {4, 3, 7, false};
  case DType::F8E5M2:
    return {5, 2, 15, true};
  default:
    return {8, 23, 127, true};
  }
}

/// Decodes a narrow format (at most 16 bits) from its fields.
static double decodeNarrow(uint32_t bits, const Encoding &enc) {
  uint32_t mantMask = (1u << enc.mantissaBits) - 1;
  uint32_t expMask = (1u << enc.exponentBits) - 1;
  uint32_t mant = bits & mantMask;
  uint32_t exp = (bits >> enc.mantissaBits) & expMask;
  bool negative = (bits >> (enc.mantissaBits + enc.exponentBits)) & 1;
  double value;
  if (enc.ieeeSpecials && exp == expMask)
    value = mant ? std::numeric_limits<double>::quiet_NaN() : HUGE_VAL;
  else if (!enc.ieeeSpecials && exp == expMask && mant == mantMask)
    value = std::numeric_limits<double>::quiet_NaN();
  else if (exp == 0)
    value = std::ldexp(double(mant), 1 - enc.bias - enc.mantissaBits);
  else
    value = std::ldexp(double(mant | (1u << enc.mantissaBits)),
                       int(exp) - enc.bias - enc.mantissaBits);
  return negative ? -value : value;
}

/// Decoding tables: f16 is looked up (loads of f16 tiles are hot), the fp8
/// formats too; bf16 is a shift.
static const std::vector<float> &f16Table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(1 << 16);
    for (uint32_t i = 0; i < t.size(); ++i)
      t[i] = decodeNarrow(i, encodingOf(DType::F16));
    return t;
  }();
  return table;
}

double tilec::decodeFloat(uint64_t bits, DType dtype) {
  switch (dtype) {
  case DType::F16:
    return f16Table()[bits & 0xffff];
  case DType::BF16: {
    uint32_t word = uint32_t(bits & 0xffff) << 16;
    float f;
    std::memcpy(&f, &word, 4);
    return f;
  }
  case DType::F32: {
    uint32_t word = uint32_t(bits);
    float f;
    std::memcpy(&f, &word, 4);
    return f;
  }
  case DType::F64: {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return decodeNarrow(uint32_t(bits & 0xff), encodingOf(dtype));
  default:
    return 0;
  }
}

uint64_t tilec::encodeFloat(double x, DType dtype) {
  if (dtype == DType::F64) {
    uint64_t bits;
    std::memcpy(&bits, &x, 8);
    return bits;
  }
  if (dtype == DType::F32) {
    float f = static_cast<float>(x);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  Encoding enc = encodingOf(dtype);
  // Infinities are kept where the format has them (a loaded inf stored
  // back); finite values are rounded, which saturates the fp8 formats.
  if (!std::isinf(x) || !enc.ieeeSpecials)
    x = roundToFormat(x, formatOf(dtype));
  uint32_t sign =
      std::signbit(x) ? 1u << (enc.exponentBits + enc.mantissaBits) : 0;
  uint32_t expMask = (1u << enc.exponentBits) - 1;
  uint32_t mantMask = (1u << enc.mantissaBits) - 1;
  if (std::isnan(x))
    return (expMask << enc.mantissaBits) |
           (enc.ieeeSpecials ? 1u << (enc.mantissaBits - 1) : mantMask);
  if (std::isinf(x))
    return sign | (expMask << enc.mantissaBits);
  double mag = std::fabs(x);
  if (mag == 0)
    return sign;
  int minExp = 1 - enc.bias;
  int exp = std::ilogb(mag);
  if (exp < minExp) {
    auto mant = uint32_t(std::ldexp(mag, enc.mantissaBits - minExp));
    return sign | mant;
  }
  auto mant = uint32_t(std::ldexp(mag, enc.mantissaBits - exp)) & mantMask;
  return sign | (uint32_t(exp + enc.bias) << enc.mantissaBits) | mant;
}

int64_t tilec::loadIntElement(const uint8_t *addr, DType dtype) {
  switch (dtype) {
  case DType::I1:
    return *addr != 0;
  case DType::I8:
    return int8_t(*addr);
  case DType::I16: {
    int16_t v;
    std::memcpy(&v, addr, 2);
    return v;
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, addr, 4);
    return v;
  }
  default: {
    int64_t v;
    std::memcpy(&v, addr, 8);
    return v;
  }
  }
}

double tilec::loadFloatElement(const uint8_t *addr, DType dtype) {
  uint64_t bits = 0;
  std::memcpy(&bits, addr, dtypeSize(dtype));
  return decodeFloat(bits, dtype);
}

void tilec::storeIntElement(uint8_t *addr, DType dtype, int64_t value) {
  if (dtype == DType::I1)
    value = value != 0;
  std::memcpy(addr, &value, dtypeSize(dtype)); // little-endian host
}

void tilec::storeFloatElement(uint8_t *addr, DType dtype, double value) {
  uint64_t bits = encodeFloat(value, dtype);
  std::memcpy(addr, &bits, dtypeSize(dtype));
}
