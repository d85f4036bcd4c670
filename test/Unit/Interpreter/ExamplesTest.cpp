//===- ExamplesTest.cpp - every example against a C++ reference -----------===//
//
// Each kernel of examples/ runs in the interpreter on random inputs (never
// zero) with sizes that are not multiples of its tile, on the grid its
// comment gives and on a larger one (whose extra programs must be fully
// masked), and is compared with a plain C++ reference at a tolerance that
// fits its element type. Output buffers are passed as outputs, so a read of
// an unwritten element would fail the run.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "tilec/Support/FloatFormats.h"

using namespace tilec;
using namespace tilec::test;

namespace {

class ExamplesTest : public InterpreterTest {
protected:
  void checkMatmul(const char *file, const char *kernel, bool biasGelu,
                   bool f16 = false);
};

TEST_F(ExamplesTest, Add) {
  auto module = parseExample("add.tile");
  ASSERT_TRUE(module);
  for (int32_t n : {1, 1000, 1025, 4097}) {
    for (int64_t extra : {0, 1}) {
      auto x = randomFloats(n, 1), y = randomFloats(n, 2);
      std::vector<float> z(n);
      auto stats =
          runKernel(*module, "add", {ceilDiv(n, 1024) + extra},
                    {Arg::buffer(x.data(), n), Arg::buffer(y.data(), n),
                     Arg::output(z.data(), n), Arg::scalar(n)});
      ASSERT_TRUE(mlir::succeeded(stats)) << errors;
      EXPECT_EQ(stats->elementsStored, uint64_t(n));
      std::vector<float> want(n);
      for (int32_t i = 0; i < n; ++i)
        want[i] = x[i] + y[i];
      expectClose(z, want, 0, 0, "add n=" + std::to_string(n));
    }
  }
}

TEST_F(ExamplesTest, CosCos) {
  auto module = parseExample("coscos.tile");
  ASSERT_TRUE(module);
  for (int32_t n : {777, 3000}) {
    auto x = randomFloats(n, 3, -4, 4);
    std::vector<float> y(n);
    ASSERT_TRUE(mlir::succeeded(runKernel(
        *module, "coscos", {ceilDiv(n, 1024)},
        {Arg::buffer(x.data(), n), Arg::output(y.data(), n), Arg::scalar(n)})))
        << errors;
    std::vector<float> want(n);
    for (int32_t i = 0; i < n; ++i)
      want[i] = std::cos(std::cos(x[i]));
    expectClose(y, want, 1e-6, 1e-6, "coscos");
  }
}

TEST_F(ExamplesTest, BiasGelu) {
  auto module = parseExample("bias_gelu.tile");
  ASSERT_TRUE(module);
  struct Size {
    int32_t m, n;
  };
  for (Size s : {Size{37, 48}, Size{100, 80}, Size{3, 16}}) {
    int32_t total = s.m * s.n;
    std::vector<uint16_t> x(total), b(s.n), y(total);
    auto xf = randomFloats(total, 4, -3, 3), bf = randomFloats(s.n, 5);
    for (int32_t i = 0; i < total; ++i)
      x[i] = toBF16(xf[i]);
    for (int32_t i = 0; i < s.n; ++i)
      b[i] = toBF16(bf[i]);
    for (int64_t extra : {0, 2}) {
      ASSERT_TRUE(mlir::succeeded(
          runKernel(*module, "bias_gelu", {ceilDiv(total, 2048) + extra},
                    {Arg::buffer(x.data(), total, DType::BF16),
                     Arg::buffer(b.data(), s.n, DType::BF16),
                     Arg::output(y.data(), total, DType::BF16),
                     Arg::scalar(total), Arg::scalar(s.n)})))
          << errors;
      std::vector<float> got(total), want(total);
      for (int32_t i = 0; i < total; ++i) {
        float v = fromBF16(x[i]) + fromBF16(b[i % s.n]);
        double g = 0.5 * v * (1 + std::erf(v * 0.70710678118654752));
        want[i] = fromBF16(toBF16(float(g)));
        got[i] = fromBF16(y[i]);
      }
      // One bf16 rounding of an f32 computation: within a bf16 ulp.
      expectClose(got, want, 1e-3, 8e-3, "bias_gelu");
    }
  }
}

TEST_F(ExamplesTest, Softmax) {
  auto module = parseExample("softmax.tile");
  ASSERT_TRUE(module);
  struct Size {
    int32_t rows, cols;
  };
  for (Size s : {Size{7, 48}, Size{5, 1040}, Size{2, 4096}}) {
    int32_t n = s.rows * s.cols;
    auto x = randomFloats(n, 6, -5, 5);
    std::vector<float> y(n);
    ASSERT_TRUE(mlir::succeeded(
        runKernel(*module, "softmax", {s.rows},
                  {Arg::buffer(x.data(), n), Arg::output(y.data(), n),
                   Arg::scalar(s.cols)})))
        << errors;
    std::vector<float> want(n);
    for (int32_t r = 0; r < s.rows; ++r) {
      const float *row = x.data() + r * s.cols;
      double max = *std::max_element(row, row + s.cols), sum = 0;
      for (int32_t c = 0; c < s.cols; ++c)
        sum += std::exp(double(row[c]) - max);
      for (int32_t c = 0; c < s.cols; ++c)
        want[r * s.cols + c] = float(std::exp(double(row[c]) - max) / sum);
    }
    expectClose(y, want, 1e-7, 1e-5, "softmax");
  }
}

/// Random f16 bits of values in [lo, hi).
std::vector<uint16_t> randomF16(size_t n, unsigned seed, float lo, float hi) {
  std::vector<uint16_t> v(n);
  auto f = randomFloats(n, seed, lo, hi);
  for (size_t i = 0; i < n; ++i)
    v[i] = toF16(f[i]);
  return v;
}

TEST_F(ExamplesTest, LayerNorm) {
  auto module = parseExample("layernorm.tile");
  ASSERT_TRUE(module);
  struct Size {
    int32_t rows, cols;
  };
  float eps = 1e-5f;
  for (Size s : {Size{3, 16}, Size{17, 400}, Size{2, 4096}}) {
    int32_t n = s.rows * s.cols;
    auto x = randomF16(n, 7, -2, 2), w = randomF16(s.cols, 8, 0.5, 1.5),
         b = randomF16(s.cols, 9, -0.5, 0.5);
    std::vector<uint16_t> y(n);
    ASSERT_TRUE(
        mlir::succeeded(runKernel(*module, "layernorm", {s.rows},
                                  {Arg::buffer(x.data(), n, DType::F16),
                                   Arg::buffer(w.data(), s.cols, DType::F16),
                                   Arg::buffer(b.data(), s.cols, DType::F16),
                                   Arg::output(y.data(), n, DType::F16),
                                   Arg::scalar(s.cols), Arg::scalar(eps)})))
        << errors;
    std::vector<float> got(n), want(n);
    for (int32_t r = 0; r < s.rows; ++r) {
      double mean = 0, var = 0;
      for (int32_t c = 0; c < s.cols; ++c)
        mean += fromF16(x[r * s.cols + c]);
      mean /= s.cols;
      for (int32_t c = 0; c < s.cols; ++c) {
        double d = fromF16(x[r * s.cols + c]) - mean;
        var += d * d;
      }
      var /= s.cols;
      for (int32_t c = 0; c < s.cols; ++c) {
        int32_t i = r * s.cols + c;
        double v =
            (fromF16(x[i]) - mean) / std::sqrt(var + eps) * fromF16(w[c]) +
            fromF16(b[c]);
        want[i] = fromF16(toF16(float(v)));
        got[i] = fromF16(y[i]);
      }
    }
    expectClose(got, want, 2e-3, 2e-3, "layernorm");
  }
}

TEST_F(ExamplesTest, RmsNorm) {
  auto module = parseExample("rmsnorm.tile");
  ASSERT_TRUE(module);
  struct Size {
    int32_t rows, cols;
  };
  float eps = 1e-6f;
  for (Size s : {Size{4, 32}, Size{9, 1008}}) {
    int32_t n = s.rows * s.cols;
    auto x = randomF16(n, 10, -2, 2), r = randomF16(n, 11, -2, 2),
         w = randomF16(s.cols, 12, 0.5, 1.5);
    std::vector<uint16_t> h(n), y(n);
    ASSERT_TRUE(
        mlir::succeeded(runKernel(*module, "rmsnorm", {s.rows},
                                  {Arg::buffer(x.data(), n, DType::F16),
                                   Arg::buffer(r.data(), n, DType::F16),
                                   Arg::buffer(w.data(), s.cols, DType::F16),
                                   Arg::output(h.data(), n, DType::F16),
                                   Arg::output(y.data(), n, DType::F16),
                                   Arg::scalar(s.cols), Arg::scalar(eps)})))
        << errors;
    std::vector<float> gotH(n), wantH(n), got(n), want(n);
    for (int32_t row = 0; row < s.rows; ++row) {
      double ssq = 0;
      for (int32_t c = 0; c < s.cols; ++c) {
        int32_t i = row * s.cols + c;
        // The residual is rounded to f16 once: the same on both sides.
        wantH[i] = fromF16(toF16(fromF16(x[i]) + fromF16(r[i])));
        gotH[i] = fromF16(h[i]);
        ssq += double(wantH[i]) * wantH[i];
      }
      double rstd = 1 / std::sqrt(ssq / s.cols + eps);
      for (int32_t c = 0; c < s.cols; ++c) {
        int32_t i = row * s.cols + c;
        want[i] = fromF16(toF16(float(wantH[i] * rstd * fromF16(w[c]))));
        got[i] = fromF16(y[i]);
      }
    }
    expectClose(gotH, wantH, 0, 0, "rmsnorm residual");
    expectClose(got, want, 2e-3, 2e-3, "rmsnorm");
  }
}

/// examples/matmul.tile, matmul_bias_gelu.tile (a bias argument after c,
/// gelu(A * B + bias) in f32 before the rounding) or matmul_fp16.tile (f16
/// data), on ragged sizes against a double-precision reference.
void ExamplesTest::checkMatmul(const char *file, const char *kernel,
                               bool biasGelu, bool f16) {
  auto module = parseExample(file);
  auto to = [f16](float v) { return f16 ? toF16(v) : toBF16(v); };
  auto from = [f16](uint16_t v) { return f16 ? fromF16(v) : fromBF16(v); };
  DType dtype = f16 ? DType::F16 : DType::BF16;
  ASSERT_TRUE(module);
  struct Size {
    int32_t m, n, k;
  };
  for (Size s : {Size{1, 1, 1}, Size{130, 77, 45}, Size{200, 260, 70}}) {
    // Ragged sizes, row strides padded to the kernel's divisibility of 16
    // (which the interpreter checks, as the GPU runtime does).
    int32_t sa = (s.k + 15) / 16 * 16, sb = (s.n + 15) / 16 * 16, sc = sb;
    auto af = randomFloats(size_t(s.m) * sa, 13),
         bf = randomFloats(size_t(s.k) * sb, 14),
         biasf = randomFloats(size_t(s.n), 15);
    std::vector<uint16_t> a(af.size()), b(bf.size()), c(size_t(s.m) * sc),
        bias(biasf.size());
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = to(af[i]);
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = to(bf[i]);
    for (size_t i = 0; i < bias.size(); ++i)
      bias[i] = to(biasf[i]);
    std::vector<Arg> args = {Arg::buffer(a.data(), a.size(), dtype),
                             Arg::buffer(b.data(), b.size(), dtype),
                             Arg::output(c.data(), c.size(), dtype)};
    if (biasGelu)
      args.push_back(Arg::buffer(bias.data(), bias.size(), dtype));
    for (int32_t v : {s.m, s.n, s.k, sa, sb, sc})
      args.push_back(Arg::scalar(v));
    ASSERT_TRUE(mlir::succeeded(runKernel(
        *module, kernel, {ceilDiv(s.m, 128), ceilDiv(s.n, 128)}, args)))
        << errors;
    std::vector<float> got(size_t(s.m) * s.n), want(got.size());
    for (int32_t i = 0; i < s.m; ++i)
      for (int32_t j = 0; j < s.n; ++j) {
        double sum = 0;
        for (int32_t kk = 0; kk < s.k; ++kk)
          sum += double(from(a[i * sa + kk])) * from(b[kk * sb + j]);
        if (biasGelu) {
          sum += from(bias[j]);
          sum = 0.5 * sum * (1 + std::erf(sum / std::sqrt(2.0)));
        }
        want[i * s.n + j] = from(to(float(sum)));
        got[i * s.n + j] = from(c[i * sc + j]);
      }
    expectClose(got, want, 1e-2, 8e-3,
                std::string(kernel) + " " + std::to_string(s.m) + "x" +
                    std::to_string(s.n) + "x" + std::to_string(s.k));
  }
}

TEST_F(ExamplesTest, Matmul) {
  checkMatmul("matmul.tile", "matmul", /*biasGelu=*/false);
}

TEST_F(ExamplesTest, MatmulFp16) {
  checkMatmul("matmul_fp16.tile", "matmul_fp16", /*biasGelu=*/false,
              /*f16=*/true);
}

// The fused epilogue: bias row and GELU on the accumulator, one store.
TEST_F(ExamplesTest, MatmulBiasGelu) {
  checkMatmul("matmul_bias_gelu.tile", "matmul_bias_gelu",
              /*biasGelu=*/true);
}

// examples/matmul_fp8.tile: (A B^T) * scale_a * scale_b from e4m3 A [M, K]
// and B [N, K] descriptors over padded rows, device scales, bf16 C; on 3
// persistent programs (more than the tiles of the small shapes, fewer than
// those of the large one), against a double reference of the fp8 values.
TEST_F(ExamplesTest, MatmulFp8) {
  auto module = parseExample("matmul_fp8.tile");
  ASSERT_TRUE(module);
  struct Size {
    int32_t m, n, k;
  };
  for (Size s : {Size{1, 1, 1}, Size{130, 77, 45}, Size{300, 260, 200}}) {
    int32_t sa = (s.k + 15) / 16 * 16 + 16, sb = (s.k + 15) / 16 * 16,
            sc = (s.n + 15) / 16 * 16;
    auto af = randomFloats(size_t(s.m) * sa, 21, -3, 3),
         bf = randomFloats(size_t(s.n) * sb, 22, -3, 3);
    std::vector<uint8_t> a(af.size()), b(bf.size());
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = uint8_t(encodeFloat(af[i], DType::F8E4M3FN));
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = uint8_t(encodeFloat(bf[i], DType::F8E4M3FN));
    std::vector<uint16_t> c(size_t(s.m) * sc);
    float scaleA = 0.75f, scaleB = 1.3f;
    std::vector<Arg> args = {
        Arg::tensorDesc(Arg::buffer(a.data(), a.size(), DType::F8E4M3FN),
                        {s.m, s.k}, {sa, 1}),
        Arg::tensorDesc(Arg::buffer(b.data(), b.size(), DType::F8E4M3FN),
                        {s.n, s.k}, {sb, 1}),
        Arg::output(c.data(), c.size(), DType::BF16),
        Arg::buffer(&scaleA, 1),
        Arg::buffer(&scaleB, 1)};
    for (int32_t v : {s.m, s.n, s.k, sc})
      args.push_back(Arg::scalar(v));
    ASSERT_TRUE(mlir::succeeded(runKernel(*module, "matmul_fp8", {3}, args)))
        << errors;
    std::vector<float> got(size_t(s.m) * s.n), want(got.size());
    for (int32_t i = 0; i < s.m; ++i)
      for (int32_t j = 0; j < s.n; ++j) {
        double sum = 0;
        for (int32_t kk = 0; kk < s.k; ++kk)
          sum += decodeFloat(a[i * sa + kk], DType::F8E4M3FN) *
                 decodeFloat(b[j * sb + kk], DType::F8E4M3FN);
        // The scale multiplies the f32 accumulator once (in f32).
        float scaled = float(sum) * (scaleA * scaleB);
        want[i * s.n + j] = fromBF16(toBF16(scaled));
        got[i * s.n + j] = fromBF16(c[i * sc + j]);
      }
    expectClose(got, want, 1e-2, 8e-3,
                "matmul_fp8 " + std::to_string(s.m) + "x" +
                    std::to_string(s.n) + "x" + std::to_string(s.k));
  }
}

} // namespace
