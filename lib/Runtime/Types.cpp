//===- Types.cpp - element types and 16-bit float conversions -------------===//

#include "tilec/Runtime/Types.h"

#include <cmath>

namespace tilec::runtime {

Half Half::fromFloat(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint16_t sign = (x >> 16) & 0x8000;
  uint32_t abs = x & 0x7fffffff;
  if (abs >= 0x7f800000) // inf stays inf; NaN stays a quiet NaN
    return fromBits(sign | (abs > 0x7f800000 ? 0x7e00 | ((abs >> 13) & 0x3ff)
                                             : 0x7c00));
  if (abs >= 0x477ff000) // rounds to above 65504
    return fromBits(sign | 0x7c00);
  if (abs < 0x38800000) { // below 2^-14: a subnormal (or zero) half
    // Multiplying by 2^24 is exact; nearbyint rounds half to even.
    float units = std::nearbyint(std::fabs(value) * 16777216.0f);
    return fromBits(sign | static_cast<uint16_t>(units));
  }
  uint32_t exponent = (abs >> 23) - 127 + 15;
  uint32_t mantissa = abs & 0x7fffff;
  uint32_t bits = (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent.
  if (rest > 0x1000 || (rest == 0x1000 && (bits & 1)))
    ++bits;
  return fromBits(sign | static_cast<uint16_t>(bits));
}

float Half::toFloat() const {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0) {
    float v = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -v : v;
  }
  uint32_t u = exponent == 31
                   ? sign | 0x7f800000 | (mantissa << 13)
                   : sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

BFloat16 BFloat16::fromFloat(float value) {
  uint32_t u;
  std::memcpy(&u, &value, 4);
  if ((u & 0x7fffffff) > 0x7f800000) // NaN: keep it a quiet NaN
    return fromBits(static_cast<uint16_t>((u >> 16) | 0x40));
  u += 0x7fff + ((u >> 16) & 1);
  return fromBits(static_cast<uint16_t>(u >> 16));
}

} // namespace tilec::runtime
