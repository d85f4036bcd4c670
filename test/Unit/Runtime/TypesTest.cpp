//===- TypesTest.cpp - type names and 16-bit float conversions ------------===//

#include "tilec/Runtime/Types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <type_traits>

using namespace tilec::runtime;

namespace {

TEST(Types, NamesRoundTrip) {
  std::string all(allDTypeNames());
  size_t start = 0;
  int count = 0;
  while (start < all.size()) {
    size_t end = all.find(' ', start);
    if (end == std::string::npos)
      end = all.size();
    std::string name = all.substr(start, end - start);
    auto t = parseDType(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_EQ(dtypeName(*t), name);
    start = end + 1;
    ++count;
  }
  EXPECT_EQ(count, 11);
  EXPECT_FALSE(parseDType("float").has_value());
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::I1), 1u);
  EXPECT_EQ(dtypeSize(DType::F64), 8u);
  EXPECT_TRUE(isInteger(DType::I1));
  EXPECT_FALSE(isInteger(DType::F16));
  EXPECT_TRUE(isFloat(DType::F8E5M2));
  static_assert(DTypeOf<uint32_t>::value == DType::I32);
  static_assert(DTypeOf<const Half>::value == DType::F16);
}

// The constructors from float round (they once were aggregates, and
// `BFloat16(3.0f)` set the bits to 3); raw bits need fromBits.
static_assert(std::is_constructible_v<Half, float>);
static_assert(std::is_constructible_v<BFloat16, float>);
static_assert(!std::is_convertible_v<float, Half>, "explicit from float");
static_assert(!std::is_convertible_v<float, BFloat16>, "explicit from float");
static_assert(!std::is_convertible_v<Half, float>, "explicit to float");
static_assert(!std::is_convertible_v<BFloat16, float>, "explicit to float");
static_assert(std::is_constructible_v<float, Half>);
static_assert(std::is_constructible_v<float, BFloat16>);
static_assert(!std::is_constructible_v<Half, uint16_t>, "bits: fromBits");
static_assert(!std::is_constructible_v<BFloat16, uint16_t>, "bits: fromBits");
static_assert(!std::is_constructible_v<Half, int>, "bits: fromBits");
static_assert(!std::is_constructible_v<BFloat16, int>, "bits: fromBits");
static_assert(BFloat16::fromBits(0x4040).bits == 0x4040);
static_assert(std::is_trivially_copyable_v<Half> &&
              std::is_trivially_copyable_v<BFloat16> && sizeof(Half) == 2 &&
              sizeof(BFloat16) == 2);

TEST(Types, ConstructorsRoundFromFloat) {
  EXPECT_EQ(Half(3.0f).bits, 0x4200);
  EXPECT_EQ(BFloat16(3.0f).bits, 0x4040);
  EXPECT_EQ(float(Half(3.0f)), 3.0f);
  EXPECT_EQ(float(BFloat16(-0.5f)), -0.5f);
  // Ties to even, as fromFloat: 1 + 2^-11 (half) and 1 + 2^-8 (bf16) are
  // halfway and round down to 1; 1 + 3 * 2^-11 and 1 + 3 * 2^-8 round up.
  EXPECT_EQ(Half(1.00048828125f).bits, 0x3c00);
  EXPECT_EQ(Half(1.00146484375f).bits, 0x3c02);
  EXPECT_EQ(BFloat16(1.00390625f).bits, 0x3f80);
  EXPECT_EQ(BFloat16(1.01171875f).bits, 0x3f82);
  EXPECT_EQ(Half(65520.0f).bits, 0x7c00); // rounds past the largest half
  EXPECT_EQ(Half().bits, 0);
  EXPECT_EQ(BFloat16().bits, 0);
  EXPECT_EQ(Half::fromBits(0x3c00).toFloat(), 1.0f);
}

TEST(Types, HalfConversions) {
  struct Case {
    float value;
    uint16_t bits;
  } cases[] = {
      {0.0f, 0x0000},           {-0.0f, 0x8000},
      {1.0f, 0x3c00},           {-2.0f, 0xc000},
      {65504.0f, 0x7bff},       {65520.0f, 0x7c00},
      {65519.0f, 0x7bff},       {6.1035156e-05f, 0x0400},
      {5.9604645e-08f, 0x0001}, // smallest subnormal
      {2.9802322e-08f, 0x0000}, // half of it: ties to even (0)
      {8.940697e-08f, 0x0002},  // 1.5 units: ties to even (2)
      {1.00048828125f, 0x3c00}, // 1 + 2^-11: tie, to even
      {1.00146484375f, 0x3c02}, // 1 + 3*2^-11: tie, to even (up)
      {INFINITY, 0x7c00},       {-INFINITY, 0xfc00},
  };
  for (const Case &c : cases) {
    EXPECT_EQ(Half::fromFloat(c.value).bits, c.bits) << c.value;
    if ((c.bits & 0x7fff) != 0x7c00 || std::isinf(c.value)) {
      float back = Half::fromBits(c.bits).toFloat();
      EXPECT_EQ(Half::fromFloat(back).bits, c.bits) << c.value;
    }
  }
  EXPECT_TRUE(std::isnan(Half::fromFloat(NAN).toFloat()));
  // Every finite half converts to float and back unchanged.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    Half h = Half::fromBits(static_cast<uint16_t>(b));
    if ((b & 0x7c00) == 0x7c00 && (b & 0x3ff))
      continue; // NaN payloads need not survive
    ASSERT_EQ(Half::fromFloat(h.toFloat()).bits, b) << b;
  }
}

TEST(Types, BFloat16Conversions) {
  EXPECT_EQ(BFloat16::fromFloat(1.0f).bits, 0x3f80);
  EXPECT_EQ(BFloat16::fromFloat(-2.0f).bits, 0xc000);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1).
  EXPECT_EQ(BFloat16::fromFloat(1.00390625f).bits, 0x3f80);
  EXPECT_EQ(BFloat16::fromFloat(1.01171875f).bits, 0x3f82);
  EXPECT_EQ(BFloat16::fromFloat(INFINITY).bits, 0x7f80);
  EXPECT_TRUE(std::isnan(BFloat16::fromFloat(NAN).toFloat()));
  EXPECT_EQ(BFloat16::fromFloat(3.0e38f).bits, 0x7f62);
  EXPECT_EQ(BFloat16::fromFloat(3.4e38f).bits, 0x7f80); // rounds past max
  for (uint32_t b = 0; b < 0x10000; ++b) {
    BFloat16 v = BFloat16::fromBits(static_cast<uint16_t>(b));
    if ((b & 0x7f80) == 0x7f80 && (b & 0x7f))
      continue;
    ASSERT_EQ(BFloat16::fromFloat(v.toFloat()).bits, b) << b;
  }
}

} // namespace
