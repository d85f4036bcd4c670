//===- ApproxErfTest.cpp - The error bound of Support/ApproxErf.h ---------===//
//
// The ten-instruction erf of tile.approx_math against erf in double: over
// a sweep of f32 bit patterns (every 61st from 0 to 5, and every one around
// the point of largest error), with the host's exact 2^x and with 2^x off
// by the GPU's ex2.approx bound (2^-22 relative) either way; and its special
// values. The bounds are those ApproxErf.h and docs/pipeline.md state.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/ApproxErf.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace {

using tilec::approx_erf::evaluate;

float fromBits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

uint32_t bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

double maxError(uint32_t from, uint32_t to, uint32_t step, double scale,
                float *worstAt) {
  double worst = 0;
  for (uint64_t b = from; b <= to; b += step) {
    float x = fromBits(uint32_t(b));
    float got = evaluate(x, scale);
    double err = std::fabs(double(got) - std::erf(double(x)));
    if (err > worst) {
      worst = err;
      *worstAt = x;
    }
  }
  return worst;
}

TEST(ApproxErf, AbsoluteErrorOverTheRange) {
  float at = 0;
  double exact = maxError(0, bits(5.0f), 61, 1.0, &at);
  EXPECT_LT(exact, 3.2e-7) << "at x = " << at;
  // Around the largest error every f32 counts (x = 0.8276 in a full sweep).
  double dense = maxError(bits(0.82f), bits(0.835f), 1, 1.0, &at);
  EXPECT_LT(dense, 3.2e-7) << "at x = " << at;
  EXPECT_GT(dense, 1e-7) << "a bound this loose would hide a worse fit";
  double ulp22 = std::ldexp(1.0, -22);
  for (double scale : {1 + ulp22, 1 - ulp22}) {
    double gpu = maxError(0, bits(5.0f), 61, scale, &at);
    EXPECT_LT(gpu, 5e-7) << "ex2 scaled by " << scale << ", at x = " << at;
  }
}

TEST(ApproxErf, OddAndSpecialValues) {
  for (float x : {0.1f, 0.5f, 1.0f, 2.5f, 3.9f, 7.0f})
    EXPECT_EQ(evaluate(-x), -evaluate(x)) << x;
  EXPECT_EQ(evaluate(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(evaluate(-0.0f)));
  EXPECT_EQ(evaluate(3.92f), 1.0f);
  EXPECT_EQ(evaluate(100.0f), 1.0f);
  EXPECT_EQ(evaluate(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_EQ(evaluate(-std::numeric_limits<float>::infinity()), -1.0f);
  EXPECT_TRUE(std::isnan(evaluate(std::numeric_limits<float>::quiet_NaN())));
}

} // namespace
