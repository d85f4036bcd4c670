//===- ElementwiseTest.cpp - arith and math ops, casts, rounding points ---===//

#include "TestUtil.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <functional>
#include <limits>

using namespace tilec;
using namespace tilec::test;

namespace {

class ElementwiseTest : public InterpreterTest {
protected:
  /// A kernel computing `%r = <body>` on tiles of 64 elements loaded from
  /// `a` (and `b`, `c`), storing %r to `out`. `body` uses %a, %b, %c.
  std::string kernel(const std::string &inType, const std::string &outType,
                     const std::string &body) {
    return llvm::formatv(R"mlir(
func.func @k(%pa: !tile.ptr<{0}>, %pb: !tile.ptr<{0}>, %pc: !tile.ptr<{0}>,
             %po: !tile.ptr<{1}>) attributes {{tile.kernel} {{
  %offs = tile.range 0, 64 : tensor<64xi32>
  %sa = tile.splat %pa : !tile.ptr<{0}> -> tensor<64x!tile.ptr<{0}>>
  %qa = tile.addptr %sa, %offs : tensor<64x!tile.ptr<{0}>>, tensor<64xi32>
  %sb = tile.splat %pb : !tile.ptr<{0}> -> tensor<64x!tile.ptr<{0}>>
  %qb = tile.addptr %sb, %offs : tensor<64x!tile.ptr<{0}>>, tensor<64xi32>
  %sc = tile.splat %pc : !tile.ptr<{0}> -> tensor<64x!tile.ptr<{0}>>
  %qc = tile.addptr %sc, %offs : tensor<64x!tile.ptr<{0}>>, tensor<64xi32>
  %so = tile.splat %po : !tile.ptr<{1}> -> tensor<64x!tile.ptr<{1}>>
  %qo = tile.addptr %so, %offs : tensor<64x!tile.ptr<{1}>>, tensor<64xi32>
  %a = tile.load %qa : tensor<64x!tile.ptr<{0}>>
  %b = tile.load %qb : tensor<64x!tile.ptr<{0}>>
  %c = tile.load %qc : tensor<64x!tile.ptr<{0}>>
  {2}
  tile.store %qo, %r : tensor<64x!tile.ptr<{1}>>
  return
}
)mlir",
                         inType, outType, body)
        .str();
  }

  /// Runs kernel(inType, outType, body) on a, b, c.
  template <typename In, typename Out>
  std::vector<Out> run(const std::string &inType, const std::string &outType,
                       const std::string &body, std::vector<In> a,
                       std::vector<In> b, std::vector<In> c, DType inDType,
                       DType outDType) {
    std::vector<Out> out(64);
    auto module = parse(kernel(inType, outType, body));
    if (!module)
      return out;
    EXPECT_TRUE(mlir::succeeded(runKernel(
        *module, "k", {1},
        {Arg::buffer(a.data(), 64, inDType), Arg::buffer(b.data(), 64, inDType),
         Arg::buffer(c.data(), 64, inDType),
         Arg::output(out.data(), 64, outDType)})))
        << errors << body;
    return out;
  }
};

struct FloatOp {
  const char *body;
  std::function<double(double, double, double)> ref;
  float lo = -4, hi = 4;
};

TEST_F(ElementwiseTest, FloatOpsMatchLibm) {
  const char *t = "tensor<64xf32>";
  std::vector<FloatOp> ops = {
      {"%r = arith.addf %a, %b : T",
       [](double a, double b, double) { return a + b; }},
      {"%r = arith.subf %a, %b : T",
       [](double a, double b, double) { return a - b; }},
      {"%r = arith.mulf %a, %b : T",
       [](double a, double b, double) { return a * b; }},
      {"%r = arith.divf %a, %b : T",
       [](double a, double b, double) { return a / b; }},
      {"%r = arith.remf %a, %b : T",
       [](double a, double b, double) { return std::fmod(a, b); }},
      {"%r = arith.maxnumf %a, %b : T",
       [](double a, double b, double) { return std::fmax(a, b); }},
      {"%r = arith.minimumf %a, %b : T",
       [](double a, double b, double) { return std::fmin(a, b); }},
      {"%r = arith.negf %a : T", [](double a, double, double) { return -a; }},
      {"%r = math.exp %a : T",
       [](double a, double, double) { return std::exp(a); }},
      {"%r = math.exp2 %a : T",
       [](double a, double, double) { return std::exp2(a); }},
      // Results from 2^-140 to 2^-110: denormals kept; with fastmath<afn>
      // (exp2Ftz, ex2.approx.ftz on the GPU) those below 2^-126 are 0.
      {"%r = math.exp2 %a : T",
       [](double a, double, double) { return std::exp2(a); }, -140, -110},
      {"%r = math.exp2 %a fastmath<afn> : T",
       [](double a, double, double) {
         return a < -126 ? 0.0 : std::exp2(a);
       },
       -140, -110},
      {"%r = math.expm1 %a : T",
       [](double a, double, double) { return std::expm1(a); }},
      {"%r = math.log %a : T",
       [](double a, double, double) { return std::log(a); }, 0.01f, 9},
      {"%r = math.log2 %a : T",
       [](double a, double, double) { return std::log2(a); }, 0.01f, 9},
      {"%r = math.log10 %a : T",
       [](double a, double, double) { return std::log10(a); }, 0.01f, 9},
      {"%r = math.log1p %a : T",
       [](double a, double, double) { return std::log1p(a); }, 0.01f, 9},
      {"%r = math.sqrt %a : T",
       [](double a, double, double) { return std::sqrt(a); }, 0.01f, 9},
      {"%r = math.rsqrt %a : T",
       [](double a, double, double) { return 1 / std::sqrt(a); }, 0.01f, 9},
      {"%r = math.erf %a : T",
       [](double a, double, double) { return std::erf(a); }},
      {"%r = math.erfc %a : T",
       [](double a, double, double) { return std::erfc(a); }},
      {"%r = math.tanh %a : T",
       [](double a, double, double) { return std::tanh(a); }},
      {"%r = math.sin %a : T",
       [](double a, double, double) { return std::sin(a); }},
      {"%r = math.cos %a : T",
       [](double a, double, double) { return std::cos(a); }},
      {"%r = math.tan %a : T",
       [](double a, double, double) { return std::tan(a); }},
      {"%r = math.atan %a : T",
       [](double a, double, double) { return std::atan(a); }},
      {"%r = math.asin %a : T",
       [](double a, double, double) { return std::asin(a); }, -1, 1},
      {"%r = math.acos %a : T",
       [](double a, double, double) { return std::acos(a); }, -1, 1},
      {"%r = math.sinh %a : T",
       [](double a, double, double) { return std::sinh(a); }},
      {"%r = math.cosh %a : T",
       [](double a, double, double) { return std::cosh(a); }},
      {"%r = math.cbrt %a : T",
       [](double a, double, double) { return std::cbrt(a); }},
      {"%r = math.absf %a : T",
       [](double a, double, double) { return std::fabs(a); }},
      {"%r = math.ceil %a : T",
       [](double a, double, double) { return std::ceil(a); }},
      {"%r = math.floor %a : T",
       [](double a, double, double) { return std::floor(a); }},
      {"%r = math.round %a : T",
       [](double a, double, double) { return std::round(a); }},
      {"%r = math.roundeven %a : T",
       [](double a, double, double) { return std::nearbyint(a); }},
      {"%r = math.trunc %a : T",
       [](double a, double, double) { return std::trunc(a); }},
      {"%r = math.powf %a, %b : T",
       [](double a, double b, double) { return std::pow(a, b); }, 0.1f, 3},
      {"%r = math.atan2 %a, %b : T",
       [](double a, double b, double) { return std::atan2(a, b); }},
      {"%r = math.copysign %a, %b : T",
       [](double a, double b, double) { return std::copysign(a, b); }},
      {"%r = math.fma %a, %b, %c : T",
       [](double a, double b, double c) { return std::fma(a, b, c); }},
      {"%r = arith.select %m, %a, %b : tensor<64xi1>, T\n  %m = arith.cmpf "
       "olt, %a, %b : T",
       [](double a, double b, double) { return a < b ? a : b; }},
  };
  for (const FloatOp &op : ops) {
    std::string body = op.body;
    // The select's mask must come first.
    if (size_t nl = body.find('\n'); nl != std::string::npos)
      body = body.substr(nl + 3) + "\n  " + body.substr(0, nl);
    for (size_t p; (p = body.find(" T")) != std::string::npos;)
      body.replace(p + 1, 1, t);
    auto a = randomFloats(64, 1, op.lo, op.hi),
         b = randomFloats(64, 2, op.lo, op.hi),
         c = randomFloats(64, 3, op.lo, op.hi);
    auto out =
        run<float, float>("f32", "f32", body, a, b, c, DType::F32, DType::F32);
    std::vector<float> want(64);
    for (int i = 0; i < 64; ++i)
      want[i] = float(op.ref(a[i], b[i], c[i]));
    expectClose(out, want, 0, 0, body);
  }
}

TEST_F(ElementwiseTest, BF16RoundsAfterEveryOp) {
  // 1 + 2^-8 is a tie in bf16 and rounds to 1 (even), twice; computing in f32
  // and rounding once would give 1 + 2^-7.
  std::vector<uint16_t> a(64, toBF16(1.0f)), b(64, toBF16(0x1p-8f)),
      c(64, toBF16(0x1p-8f));
  auto out =
      run<uint16_t, uint16_t>("bf16", "bf16",
                              "%s = arith.addf %a, %b : tensor<64xbf16>\n"
                              "  %r = arith.addf %s, %c : tensor<64xbf16>",
                              a, b, c, DType::BF16, DType::BF16);
  EXPECT_EQ(fromBF16(out[0]), 1.0f);
  auto wide = run<uint16_t, uint16_t>(
      "bf16", "bf16",
      "%a32 = arith.extf %a : tensor<64xbf16> to tensor<64xf32>\n"
      "  %b32 = arith.extf %b : tensor<64xbf16> to tensor<64xf32>\n"
      "  %c32 = arith.extf %c : tensor<64xbf16> to tensor<64xf32>\n"
      "  %s = arith.addf %a32, %b32 : tensor<64xf32>\n"
      "  %t = arith.addf %s, %c32 : tensor<64xf32>\n"
      "  %r = arith.truncf %t : tensor<64xf32> to tensor<64xbf16>",
      a, b, c, DType::BF16, DType::BF16);
  EXPECT_EQ(fromBF16(wide[0]), 1.0078125f);
}

TEST_F(ElementwiseTest, F16MathRoundsToF16) {
  auto af = randomFloats(64, 4, -3, 3);
  std::vector<uint16_t> a(64), none(64);
  for (int i = 0; i < 64; ++i)
    a[i] = toF16(af[i]);
  auto out =
      run<uint16_t, uint16_t>("f16", "f16", "%r = math.exp %a : tensor<64xf16>",
                              a, none, none, DType::F16, DType::F16);
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(out[i], toF16(float(std::exp(double(fromF16(a[i])))))) << i;
}

TEST_F(ElementwiseTest, Fp8CastsRoundAndSaturate) {
  std::vector<float> a = randomFloats(64, 5, -500, 500), none(64);
  a[0] = 1e6f;
  a[1] = -1e6f;
  a[2] = std::numeric_limits<float>::quiet_NaN();
  for (const char *type : {"f8E4M3FN", "f8E5M2"}) {
    auto body = llvm::formatv(
                    "%t = arith.truncf %a : tensor<64xf32> to tensor<64x{0}>\n"
                    "  %r = arith.extf %t : tensor<64x{0}> to tensor<64xf32>",
                    type)
                    .str();
    auto out = run<float, float>("f32", "f32", body, a, none, none, DType::F32,
                                 DType::F32);
    const llvm::fltSemantics &sem = std::string(type) == "f8E4M3FN"
                                        ? llvm::APFloat::Float8E4M3FN()
                                        : llvm::APFloat::Float8E5M2();
    float max = llvm::APFloat::getLargest(sem).convertToFloat();
    EXPECT_EQ(out[0], max) << type;
    EXPECT_EQ(out[1], -max) << type;
    EXPECT_TRUE(std::isnan(out[2])) << type;
    // APFloat gives NaN or inf past the range; the GPU saturates.
    for (int i = 3; i < 64; ++i) {
      float want = roundVia(sem, a[i]);
      if (!std::isfinite(want) || std::fabs(want) > max)
        want = std::copysign(max, a[i]);
      EXPECT_EQ(out[i], want) << type << " " << a[i];
    }
  }
}

TEST_F(ElementwiseTest, IntegerSemantics) {
  std::vector<int32_t> a(64), b(64), none(64);
  for (int i = 0; i < 64; ++i) {
    a[i] = (i - 32) * 1000003;
    b[i] = i % 7 - 3; // includes zero
  }
  a[5] = INT32_MIN;
  b[5] = -1;
  struct IntOp {
    const char *body;
    std::function<int64_t(int64_t, int64_t)> ref;
  };
  std::vector<IntOp> ops = {
      {"%r = arith.muli %a, %b : T",
       [](int64_t x, int64_t y) { return int32_t(uint32_t(x) * uint32_t(y)); }},
      {"%r = arith.divsi %a, %b : T",
       [](int64_t x, int64_t y) -> int64_t {
         return y == 0 ? -1 : int32_t(x / y);
       }},
      {"%r = arith.remsi %a, %b : T",
       [](int64_t x, int64_t y) -> int64_t { return y == 0 ? x : x % y; }},
      {"%r = arith.divui %a, %b : T",
       [](int64_t x, int64_t y) -> int64_t {
         return y == 0 ? -1 : int32_t(uint32_t(x) / uint32_t(y));
       }},
      {"%r = arith.floordivsi %a, %b : T",
       [](int64_t x, int64_t y) -> int64_t {
         return y == 0 ? -1 : int32_t(std::floor(double(x) / y));
       }},
      {"%r = arith.ceildivsi %a, %b : T",
       [](int64_t x, int64_t y) -> int64_t {
         return y == 0 ? -1 : int32_t(std::ceil(double(x) / y));
       }},
      {"%r = arith.shli %a, %b : T",
       [](int64_t x, int64_t y) -> int64_t {
         return uint32_t(y) >= 32 ? 0 : int32_t(uint32_t(x) << y);
       }},
      {"%r = arith.shrsi %a, %b : T",
       [](int64_t x, int64_t y) -> int64_t {
         return uint32_t(y) >= 32 ? (x < 0 ? -1 : 0) : x >> y;
       }},
      {"%r = arith.shrui %a, %b : T",
       [](int64_t x, int64_t y) -> int64_t {
         return uint32_t(y) >= 32 ? 0 : int32_t(uint32_t(x) >> y);
       }},
      {"%r = arith.maxui %a, %b : T",
       [](int64_t x, int64_t y) -> int64_t {
         return uint32_t(x) > uint32_t(y) ? x : y;
       }},
      {"%r = arith.xori %a, %b : T",
       [](int64_t x, int64_t y) { return x ^ y; }},
      {"%r = math.absi %a : T",
       [](int64_t x, int64_t) -> int64_t {
         return int32_t(x < 0 ? -uint32_t(x) : x);
       }},
      {"%r = math.ctlz %a : T",
       [](int64_t x, int64_t) -> int64_t {
         return x == 0 ? 32 : __builtin_clz(uint32_t(x));
       }},
      {"%r = math.ctpop %a : T",
       [](int64_t x, int64_t) -> int64_t {
         return __builtin_popcount(uint32_t(x));
       }},
  };
  for (const IntOp &op : ops) {
    std::string body = op.body;
    body.replace(body.find(" T") + 1, 1, "tensor<64xi32>");
    auto out = run<int32_t, int32_t>("i32", "i32", body, a, b, none, DType::I32,
                                     DType::I32);
    for (int i = 0; i < 64; ++i)
      EXPECT_EQ(out[i], int32_t(op.ref(a[i], b[i])))
          << body << " a=" << a[i] << " b=" << b[i];
  }
}

TEST_F(ElementwiseTest, CastsSaturateAndExtend) {
  std::vector<float> a = randomFloats(64, 6, -100, 100), none(64);
  a[0] = 3e9f;
  a[1] = -3e9f;
  a[2] = std::numeric_limits<float>::quiet_NaN();
  auto out = run<float, int32_t>(
      "f32", "i32", "%r = arith.fptosi %a : tensor<64xf32> to tensor<64xi32>",
      a, none, none, DType::F32, DType::I32);
  EXPECT_EQ(out[0], INT32_MAX);
  EXPECT_EQ(out[1], INT32_MIN);
  EXPECT_EQ(out[2], 0);
  for (int i = 3; i < 64; ++i)
    EXPECT_EQ(out[i], int32_t(std::trunc(a[i])));

  std::vector<int8_t> c(64), noneI(64);
  for (int i = 0; i < 64; ++i)
    c[i] = int8_t(i * 7 - 200);
  auto ext = run<int8_t, int32_t>(
      "i8", "i32",
      "%u = arith.extui %a : tensor<64xi8> to tensor<64xi32>\n"
      "  %s = arith.extsi %a : tensor<64xi8> to tensor<64xi32>\n"
      "  %k = arith.constant dense<1000> : tensor<64xi32>\n"
      "  %m = arith.muli %s, %k : tensor<64xi32>\n"
      "  %r = arith.addi %u, %m : tensor<64xi32>",
      c, noneI, noneI, DType::I8, DType::I32);
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(ext[i], int32_t(uint8_t(c[i])) + 1000 * int32_t(c[i]));

  auto toFloat = run<int8_t, float>(
      "i8", "f32",
      "%x = arith.trunci %a : tensor<64xi8> to tensor<64xi1>\n"
      "  %r = arith.uitofp %a : tensor<64xi8> to tensor<64xf32>",
      c, noneI, noneI, DType::I8, DType::F32);
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(toFloat[i], float(uint8_t(c[i])));
}

TEST_F(ElementwiseTest, BitcastReinterpretsBits) {
  std::vector<float> a = randomFloats(64, 7), none(64);
  auto out = run<float, int32_t>(
      "f32", "i32", "%r = arith.bitcast %a : tensor<64xf32> to tensor<64xi32>",
      a, none, none, DType::F32, DType::I32);
  for (int i = 0; i < 64; ++i) {
    int32_t bits;
    std::memcpy(&bits, &a[i], 4);
    EXPECT_EQ(out[i], bits);
  }
}

} // namespace
