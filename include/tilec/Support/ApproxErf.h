//===- ApproxErf.h - The short erf of tile.approx_math ----------*- C++ -*-===//
//
// erf(x) for f32 in ten instructions instead of libdevice's ~25, for
// kernels that ask for it (tile.approx_math, `tilec --approx-math`):
//
//   t = min(|x|, 3.92);  e = 2^(t * P(t));  erf(x) = copysign(1 - e, x)
//
// 2^(t P(t)) approximates erfc(t): P (degree 5) was fitted with Lawson's
// weighted least squares so as to bound the absolute error of erfc, not its
// relative error. Absolute error of the result, over every f32 (swept once
// when it was fitted; test/Unit/Support/ApproxErfTest.cpp checks every 61st
// and all around the worst point): 3.2e-7 with an exact 2^x, under
// 5e-7 with the GPU's ex2.approx.ftz (relative error 2^-22); libdevice's
// erff is within 2 ulp, which near 0 is far smaller. Past 3.92, erf rounds
// to +-1 in f32. NaN stays NaN (the clamp is a NaN-propagating minimum). No
// MLIR here: the lowering (ElementwiseOpToGPU.cpp) and the accuracy test
// (test/Unit/Support) share these numbers.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_APPROXERF_H
#define TILEC_SUPPORT_APPROXERF_H

#include <cmath>

namespace tilec::approx_erf {

/// |x| is clamped here: beyond, 1 - 2^(t P(t)) is 1.0f.
inline constexpr float kClamp = 3.92f;

/// P's coefficients, constant term first.
inline constexpr float kCoefficients[] = {-1.627925038e+00f, -9.181653261e-01f,
                                          -1.496999115e-01f, 3.089682385e-02f,
                                          -3.664646996e-03f, 1.421180787e-04f};

/// t P(t), t = min(|x|, kClamp): erfc(|x|) is 2 to this power.
inline float exponent(float x) {
  float t = std::isnan(x) ? x : std::fmin(std::fabs(x), kClamp);
  constexpr int n = sizeof(kCoefficients) / sizeof(kCoefficients[0]);
  float p = kCoefficients[n - 1];
  for (int i = n - 2; i >= 0; --i)
    p = std::fma(p, t, kCoefficients[i]);
  return p * t;
}

/// The same arithmetic as the GPU's, with the host's exp2 scaled by
/// `exp2Scale` (1: exact; the GPU's ex2.approx is within 2^-22 of it).
inline float evaluate(float x, double exp2Scale = 1.0) {
  float e = float(std::exp2(double(exponent(x))) * exp2Scale);
  return std::copysign(1.0f - e, x);
}

} // namespace tilec::approx_erf

#endif // TILEC_SUPPORT_APPROXERF_H
