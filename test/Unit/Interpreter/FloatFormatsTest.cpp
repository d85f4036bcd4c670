//===- FloatFormatsTest.cpp - rounding and encodings against APFloat ------===//

#include "lib/Interpreter/FloatFormats.h"

#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace tilec;
using namespace tilec::interp;
using llvm::APFloat;

namespace {

double viaAPFloat(double x, const llvm::fltSemantics &sem,
                  APFloat::roundingMode mode = APFloat::rmNearestTiesToEven) {
  APFloat f(x);
  bool lost;
  f.convert(sem, mode, &lost);
  return f.convertToDouble();
}

void expectSame(double got, double want, double x) {
  if (std::isnan(want))
    EXPECT_TRUE(std::isnan(got)) << "x = " << x;
  else
    EXPECT_EQ(got, want) << "x = " << x;
}

struct Case {
  DType dtype;
  const llvm::fltSemantics &(*sem)();
  unsigned bits;
};

const Case kCases[] = {
    {DType::F16, APFloat::IEEEhalf, 16},
    {DType::BF16, APFloat::BFloat, 16},
    {DType::F8E4M3FN, APFloat::Float8E4M3FN, 8},
    {DType::F8E5M2, APFloat::Float8E5M2, 8},
};

TEST(FloatFormats, DecodeAndEncodeEveryBitPattern) {
  for (const Case &c : kCases) {
    for (uint32_t bits = 0; bits < (1u << c.bits); ++bits) {
      APFloat ref(c.sem(), llvm::APInt(c.bits, bits));
      double value = decodeFloat(bits, c.dtype);
      if (ref.isNaN()) {
        EXPECT_TRUE(std::isnan(value))
            << dtypeName(c.dtype) << " " << bits;
        continue;
      }
      ASSERT_EQ(value, ref.convertToDouble())
          << dtypeName(c.dtype) << " bits " << bits;
      EXPECT_EQ(encodeFloat(value, c.dtype), bits)
          << dtypeName(c.dtype) << " value " << value;
    }
  }
}

TEST(FloatFormats, RoundToNearestEvenMatchesAPFloat) {
  std::mt19937_64 rng(42);
  for (const Case &c : kCases) {
    FloatFormat format = formatOf(c.dtype);
    double maxFinite = APFloat::getLargest(c.sem()).convertToDouble();
    for (int i = 0; i < 200000; ++i) {
      // Random magnitudes from deep subnormal to past overflow.
      double mant = 1 + double(rng() >> 11) * 0x1.0p-53;
      int exp = int(rng() % 300) - 150;
      double x = std::ldexp(rng() & 1 ? -mant : mant, exp);
      // APFloat gives NaN/inf past the fp8 range; the GPU saturates.
      if (std::fabs(x) > maxFinite && c.bits == 8) {
        EXPECT_EQ(roundToFormat(x, format), std::copysign(maxFinite, x));
        continue;
      }
      expectSame(roundToFormat(x, format), viaAPFloat(x, c.sem()), x);
    }
  }
}

TEST(FloatFormats, TiesRoundToEven) {
  // Midpoints between neighbouring f16 values, normal and subnormal.
  for (uint16_t bits : {0x3c00, 0x3c01, 0x0001, 0x0002, 0x7bfe, 0x8400}) {
    double a = decodeFloat(bits, DType::F16);
    double b = decodeFloat(bits + 1, DType::F16);
    double mid = (a + b) / 2;
    double even = (bits & 1) ? b : a;
    EXPECT_EQ(roundToFormat(mid, FloatFormat::F16), even) << bits;
  }
}

TEST(FloatFormats, DirectedModesMatchAPFloat) {
  std::pair<RoundMode, APFloat::roundingMode> modes[] = {
      {RoundMode::Downward, APFloat::rmTowardNegative},
      {RoundMode::Upward, APFloat::rmTowardPositive},
      {RoundMode::TowardZero, APFloat::rmTowardZero},
      {RoundMode::NearestAway, APFloat::rmNearestTiesToAway}};
  std::mt19937_64 rng(7);
  for (auto [mode, apMode] : modes) {
    for (int i = 0; i < 50000; ++i) {
      double mant = 1 + double(rng() >> 11) * 0x1.0p-53;
      double x = std::ldexp(rng() & 1 ? -mant : mant, int(rng() % 50) - 30);
      expectSame(roundToFormat(x, FloatFormat::F16, mode),
                 viaAPFloat(x, APFloat::IEEEhalf(), apMode), x);
      expectSame(roundToFormat(x, FloatFormat::F32, mode),
                 viaAPFloat(x, APFloat::IEEEsingle(), apMode), x);
    }
  }
}

TEST(FloatFormats, TF32KeepsTenMantissaBitsTiesAway) {
  EXPECT_EQ(
      roundToFormat(1 + 0x1p-11, FloatFormat::TF32, RoundMode::NearestAway),
      1 + 0x1p-10);
  EXPECT_EQ(
      roundToFormat(1 + 0x1p-12, FloatFormat::TF32, RoundMode::NearestAway),
      1.0);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 50000; ++i) {
    double x =
        std::ldexp(1 + double(rng() >> 11) * 0x1.0p-53, int(rng() % 260) - 130);
    expectSame(roundToFormat(x, FloatFormat::TF32),
               viaAPFloat(x, APFloat::FloatTF32()), x);
  }
}

TEST(FloatFormats, OverflowAndSpecials) {
  EXPECT_TRUE(std::isinf(roundToFormat(70000, FloatFormat::F16)));
  EXPECT_EQ(roundToFormat(70000, FloatFormat::F16, RoundMode::TowardZero),
            65504);
  EXPECT_EQ(roundToFormat(1e9, FloatFormat::F8E4M3FN), 448);
  EXPECT_EQ(roundToFormat(-HUGE_VAL, FloatFormat::F8E5M2), -57344);
  EXPECT_TRUE(std::isnan(roundToFormat(NAN, FloatFormat::F8E4M3FN)));
  EXPECT_TRUE(std::signbit(roundToFormat(-1e-30, FloatFormat::BF16)));
}

} // namespace
