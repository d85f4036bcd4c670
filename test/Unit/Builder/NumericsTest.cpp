//===- NumericsTest.cpp - built kernels run on the CPU interpreter --------===//
//
// The example kernels and the op library against C++ references, through
// the interpreter (include/tilec/Interpreter.h): padding excluded from the
// reductions, true counts, f32 accumulation, stable softmax, Philox bits,
// masked edges of the matmul, and the core API's loops, scans and atomics.
// Sizes are chosen not to be multiples of the block sizes.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tilec/Interpreter.h"
#include "tilec/Ops.h"
#include "tilec/Support/FloatFormats.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>

using namespace tilec;
using tilec::Arg;

namespace {

/// Runs `k` on the interpreter; a failure fails the test with its messages.
void run(const Kernel &k, Grid grid, std::vector<Arg> args) {
  mlir::ModuleOp m = k.module();
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(m.getContext(),
                                        [&](mlir::Diagnostic &d) {
                                          errors += d.str() + "\n";
                                          return mlir::success();
                                        });
  mlir::FailureOr<RunStats> stats = runKernel(m, k.name(), grid, args);
  ASSERT_TRUE(mlir::succeeded(stats)) << errors;
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

//--- 16-bit floats on the host -----------------------------------------------

const llvm::fltSemantics &semantics(DType t) {
  return t == DType::F16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat();
}

uint16_t toBits(float f, DType t) {
  llvm::APFloat a(f);
  bool lost;
  (void)a.convert(semantics(t), llvm::APFloat::rmNearestTiesToEven, &lost);
  return (uint16_t)a.bitcastToAPInt().getZExtValue();
}

float fromBits(uint16_t bits, DType t) {
  llvm::APFloat a(semantics(t), llvm::APInt(16, bits));
  bool lost;
  (void)a.convert(llvm::APFloat::IEEEsingle(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
  return a.convertToFloat();
}

/// Rounds `f` to the 16-bit format `t` and back.
float round16(double f, DType t) { return fromBits(toBits((float)f, t), t); }

/// `n` random values in [lo, hi), already representable in `t` (f32, or a
/// 16-bit format).
std::vector<float> randomValues(size_t n, float lo, float hi, DType t,
                                unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = t == DType::F32 ? dist(gen) : round16(dist(gen), t);
  return v;
}

std::vector<uint16_t> bitsOf(const std::vector<float> &v, DType t) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = toBits(v[i], t);
  return out;
}

/// Expects |got - want| <= atol + rtol * |want| elementwise.
void expectClose(const std::vector<float> &got, const std::vector<double> &want,
                 double atol, double rtol) {
  ASSERT_EQ(got.size(), want.size());
  int shown = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double err = std::abs(got[i] - want[i]);
    if (!(err <= atol + rtol * std::abs(want[i])) && shown++ < 5)
      ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want "
                    << want[i];
  }
}

std::vector<float> floatsOf(const std::vector<uint16_t> &bits, DType t) {
  std::vector<float> out(bits.size());
  for (size_t i = 0; i < bits.size(); ++i)
    out[i] = fromBits(bits[i], t);
  return out;
}

double geluRef(double v, bool tanhForm) {
  if (tanhForm)
    return 0.5 * v *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
}

//--- The examples -----------------------------------------------------------

TEST(Numerics, VectorAdd) {
  const int n = 3000;
  std::vector<float> x = randomValues(n, -10, 10, DType::F32, 1);
  std::vector<float> y = randomValues(n, -10, 10, DType::F32, 2);
  std::vector<float> z(n);
  run(examples::buildAdd(1024), {cdiv(n, 1024)},
      {Arg::buffer(x.data(), n), Arg::buffer(y.data(), n),
       Arg::output(z.data(), n), Arg::scalar<int32_t>(n)});
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(z[i], x[i] + y[i]) << i;
}

/// A descriptor block copy with 2 added, over a ragged 37 x 20 tensor in
/// rows of 24 (8 x 16 blocks): the blocks past the edges read zeros and
/// write nothing, so the padding between rows keeps its value.
TEST(Numerics, TensorDescriptorCopy) {
  Kernel k("desc_copy");
  Value x = k.tensorDesc("x", DType::F32, {8, 16});
  Value y = k.tensorDesc("y", DType::F32, {8, 16});
  Value m = k.programId(0) * 8, n = k.programId(1) * 16;
  k.descriptorStore(y, {m, n}, k.descriptorLoad(x, {m, n}) + 2.0);
  const int64_t rows = 37, cols = 20, ld = 24;
  std::vector<float> in = randomValues(rows * ld, -10, 10, DType::F32, 3);
  std::vector<float> out(rows * ld, -1.0f);
  run(k, {cdiv(rows, 8), cdiv(cols, 16)},
      {Arg::tensorDesc(Arg::buffer(in.data(), in.size()), {rows, cols},
                       {ld, 1}),
       Arg::tensorDesc(Arg::buffer(out.data(), out.size()), {rows, cols},
                       {ld, 1})});
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < ld; ++c)
      ASSERT_EQ(out[r * ld + c], c < cols ? in[r * ld + c] + 2.0f : -1.0f)
          << r << ", " << c;
}

TEST(Numerics, CosCos) {
  const int n = 2500;
  std::vector<float> x = randomValues(n, -4, 4, DType::F32, 3), y(n);
  run(examples::buildCosCos(1024), {cdiv(n, 1024)},
      {Arg::buffer(x.data(), n), Arg::output(y.data(), n),
       Arg::scalar<int32_t>(n)});
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i)
    want[i] = std::cos(std::cos((double)x[i]));
  expectClose(y, want, 1e-6, 1e-6);
}

void checkBiasGelu(bool tanhForm) {
  const int rows = 10, cols = 304; // n_cols % 16 == 0, as hinted
  const DType t = DType::BF16;
  std::vector<float> x = randomValues(rows * cols, -3, 3, t, 4);
  std::vector<float> b = randomValues(cols, -1, 1, t, 5);
  std::vector<uint16_t> xb = bitsOf(x, t), bb = bitsOf(b, t), y(rows * cols);
  Kernel k = examples::buildBiasGelu(512, 4, t, tanhForm);
  run(k, {cdiv(rows, 4)},
      {Arg::buffer(xb.data(), xb.size(), t), Arg::buffer(bb.data(), cols, t),
       Arg::output(y.data(), y.size(), t), Arg::scalar<int32_t>(rows),
       Arg::scalar<int32_t>(cols)});
  std::vector<double> want(rows * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      want[r * cols + c] = geluRef(x[r * cols + c] + b[c], tanhForm);
  // One bf16 rounding of an f32 result.
  expectClose(floatsOf(y, t), want, 1e-3, 1.0 / 128);
}

TEST(Numerics, BiasGeluErf) { checkBiasGelu(false); }
TEST(Numerics, BiasGeluTanh) { checkBiasGelu(true); }

TEST(Numerics, SoftmaxIsStableAndIgnoresPadding) {
  const int rows = 4, cols = 1008;
  std::vector<float> x = randomValues(rows * cols, -5, 5, DType::F32, 6);
  // Row 1 would overflow exp without the max shift; row 2 has -inf entries.
  for (int c = 0; c < cols; ++c)
    x[cols + c] += 1000;
  for (int c = 0; c < cols; c += 3)
    x[2 * cols + c] = -std::numeric_limits<float>::infinity();
  std::vector<float> y(rows * cols);
  run(examples::buildSoftmax(1024), {rows},
      {Arg::buffer(x.data(), x.size()), Arg::output(y.data(), y.size()),
       Arg::scalar<int32_t>(rows), Arg::scalar<int32_t>(cols)});
  std::vector<double> want(rows * cols);
  for (int r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c)
      mx = std::max(mx, (double)x[r * cols + c]);
    for (int c = 0; c < cols; ++c)
      sum += std::exp(x[r * cols + c] - mx);
    for (int c = 0; c < cols; ++c)
      want[r * cols + c] = std::exp(x[r * cols + c] - mx) / sum;
  }
  expectClose(y, want, 1e-7, 1e-5);
}

/// rowwiseKernel takes tiles that are not powers of two (issue 16): a
/// 5000-wide softmax tile on rows of 4999 and 5000, the warps left to the
/// layout pass.
TEST(Numerics, SoftmaxOverA5000WideTile) {
  for (int cols : {5000, 4999}) {
    const int rows = 3;
    Kernel k = ops::rowwiseKernel(
        "softmax5000",
        {ops::input("x", DType::F32), ops::output("y", DType::F32)},
        {.blockCols = 5000, .numWarps = 0},
        [](ops::Block &b) { b.store("y", ops::softmax(b["x"], -1)); });
    std::vector<float> x = randomValues(rows * cols, -5, 5, DType::F32, 8);
    std::vector<float> y(rows * cols);
    run(k, {rows},
        {Arg::buffer(x.data(), x.size()), Arg::output(y.data(), y.size()),
         Arg::scalar<int32_t>(rows), Arg::scalar<int32_t>(cols)});
    std::vector<double> want(rows * cols);
    for (int r = 0; r < rows; ++r) {
      double mx = -INFINITY, sum = 0;
      for (int c = 0; c < cols; ++c)
        mx = std::max(mx, (double)x[r * cols + c]);
      for (int c = 0; c < cols; ++c)
        sum += std::exp(x[r * cols + c] - mx);
      for (int c = 0; c < cols; ++c)
        want[r * cols + c] = std::exp(x[r * cols + c] - mx) / sum;
    }
    expectClose(y, want, 1e-7, 1e-5);
  }
}

TEST(Numerics, ScaledMaskedSoftmaxF16) {
  const int rows = 3, cols = 704;
  const DType t = DType::F16;
  std::vector<float> x = randomValues(rows * cols, -8, 8, t, 7);
  std::vector<float> mask(rows * cols, 0.0f);
  for (int i = 0; i < rows * cols; i += 5)
    mask[i] = -std::numeric_limits<float>::infinity();
  std::vector<uint16_t> xb = bitsOf(x, t), mb = bitsOf(mask, t), y(rows * cols);
  const float scale = 0.125f;
  run(examples::buildScaledMaskedSoftmax(1024, t), {rows},
      {Arg::buffer(xb.data(), xb.size(), t),
       Arg::buffer(mb.data(), mb.size(), t), Arg::output(y.data(), y.size(), t),
       Arg::scalar(scale), Arg::scalar<int32_t>(rows),
       Arg::scalar<int32_t>(cols)});
  std::vector<double> want(rows * cols);
  for (int r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    auto s = [&](int c) {
      return (double)x[r * cols + c] * scale + mask[r * cols + c];
    };
    for (int c = 0; c < cols; ++c)
      mx = std::max(mx, s(c));
    for (int c = 0; c < cols; ++c)
      sum += std::exp(s(c) - mx);
    for (int c = 0; c < cols; ++c)
      want[r * cols + c] = std::exp(s(c) - mx) / sum;
  }
  expectClose(floatsOf(y, t), want, 1e-6, 1.0 / 1024);
  for (int i = 0; i < rows * cols; i += 5)
    EXPECT_EQ(fromBits(y[i], t), 0.0f) << i;
}

TEST(Numerics, LayerNormF16CountsOnlyTheRow) {
  const int rows = 6, cols = 112; // 112 of 128 lanes valid
  const DType t = DType::F16;
  std::vector<float> x = randomValues(rows * cols, 2, 6, t, 8);
  std::vector<float> w = randomValues(cols, 0.5, 1.5, t, 9);
  std::vector<float> b = randomValues(cols, -1, 1, t, 10);
  std::vector<uint16_t> xb = bitsOf(x, t), wb = bitsOf(w, t), bb = bitsOf(b, t),
                        y(rows * cols);
  const float eps = 1e-5f;
  run(examples::buildLayerNorm(128, t), {rows},
      {Arg::buffer(xb.data(), xb.size(), t), Arg::buffer(wb.data(), cols, t),
       Arg::buffer(bb.data(), cols, t), Arg::output(y.data(), y.size(), t),
       Arg::scalar(eps), Arg::scalar<int32_t>(rows),
       Arg::scalar<int32_t>(cols)});
  std::vector<double> want(rows * cols);
  for (int r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < cols; ++c)
      mean += x[r * cols + c];
    mean /= cols;
    for (int c = 0; c < cols; ++c)
      var += (x[r * cols + c] - mean) * (x[r * cols + c] - mean);
    var /= cols;
    for (int c = 0; c < cols; ++c)
      want[r * cols + c] =
          (x[r * cols + c] - mean) / std::sqrt(var + eps) * w[c] + b[c];
  }
  expectClose(floatsOf(y, t), want, 2e-3, 1.0 / 512);
}

TEST(Numerics, ResidualRmsNormF16) {
  const int rows = 5, cols = 208;
  const DType t = DType::F16;
  std::vector<float> x = randomValues(rows * cols, -2, 2, t, 11);
  std::vector<float> res = randomValues(rows * cols, -2, 2, t, 12);
  std::vector<float> w = randomValues(cols, 0.5, 1.5, t, 13);
  std::vector<uint16_t> xb = bitsOf(x, t), rb = bitsOf(res, t),
                        wb = bitsOf(w, t), h(rows * cols), y(rows * cols);
  const float eps = 1e-6f;
  run(examples::buildResidualRmsNorm(256, t), {rows},
      {Arg::buffer(xb.data(), xb.size(), t),
       Arg::buffer(rb.data(), rb.size(), t), Arg::buffer(wb.data(), cols, t),
       Arg::output(h.data(), h.size(), t), Arg::output(y.data(), y.size(), t),
       Arg::scalar(eps), Arg::scalar<int32_t>(rows),
       Arg::scalar<int32_t>(cols)});
  std::vector<double> want(rows * cols);
  for (int r = 0; r < rows; ++r) {
    double ms = 0;
    std::vector<double> hr(cols);
    for (int c = 0; c < cols; ++c) {
      hr[c] = round16(x[r * cols + c] + res[r * cols + c], t);
      EXPECT_EQ(fromBits(h[r * cols + c], t), hr[c]);
      ms += hr[c] * hr[c];
    }
    ms /= cols;
    for (int c = 0; c < cols; ++c)
      want[r * cols + c] = hr[c] / std::sqrt(ms + eps) * w[c];
  }
  expectClose(floatsOf(y, t), want, 1e-3, 1.0 / 512);
}

TEST(Numerics, MatmulBiasGeluMasksTheEdges) {
  // Ragged M, N, K; the row strides padded to the kernel's divisibility of
  // 16 (the interpreter refuses others, as the GPU runtime does).
  const int M = 70, N = 50, K = 40, bm = 32, bn = 32, bk = 16;
  const int sa = 48, sb = 64, sc = 64;
  const DType t = DType::BF16;
  std::vector<float> a = randomValues(M * sa, -1, 1, t, 14);
  std::vector<float> b = randomValues(K * sb, -1, 1, t, 15);
  std::vector<float> bias = randomValues(N, -0.5, 0.5, t, 16);
  std::vector<uint16_t> ab = bitsOf(a, t), bb = bitsOf(b, t),
                        biasb = bitsOf(bias, t), c(M * sc);
  run(examples::buildMatmulBiasGelu(bm, bn, bk), {cdiv(M, bm), cdiv(N, bn)},
      {Arg::buffer(ab.data(), ab.size(), t),
       Arg::buffer(bb.data(), bb.size(), t), Arg::output(c.data(), c.size(), t),
       Arg::buffer(biasb.data(), N, t), Arg::scalar<int32_t>(M),
       Arg::scalar<int32_t>(N), Arg::scalar<int32_t>(K),
       Arg::scalar<int32_t>(sa), Arg::scalar<int32_t>(sb),
       Arg::scalar<int32_t>(sc)});
  std::vector<double> want(M * N);
  std::vector<float> got(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double acc = 0;
      for (int kk = 0; kk < K; ++kk)
        acc += (double)a[i * sa + kk] * b[kk * sb + j];
      want[i * N + j] = geluRef(acc + bias[j], false);
      got[i * N + j] = fromBits(c[i * sc + j], t);
    }
  expectClose(got, want, 2e-3, 1.0 / 128);
}

/// C (bits of `t`, row stride sc) against A B (+ bias, when given) in
/// double: A M x K (stride sa), B K x N (stride sb).
void expectMatmulBias(const std::vector<float> &a, const std::vector<float> &b,
                      const std::vector<float> &bias,
                      const std::vector<uint16_t> &c, int M, int N, int K,
                      int sa, int sb, int sc, DType t, double atol = 1.0 / 64) {
  std::vector<double> want(M * N);
  std::vector<float> got(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double acc = bias.empty() ? 0.0 : bias[j];
      for (int kk = 0; kk < K; ++kk)
        acc += (double)a[i * sa + kk] * b[kk * sb + j];
      want[i * N + j] = acc;
      got[i * N + j] = fromBits(c[i * sc + j], t);
    }
  expectClose(got, want, 2e-3, atol);
}

TEST(Numerics, MatmulGroupsCoverEveryTile) {
  // 5 x 3 tiles taken in groups of 2 tile rows: the last group has one
  // row. Every tile must be computed once, by some program.
  const int M = 150, N = 90, K = 20, bm = 32, bn = 32, bk = 16;
  const DType t = DType::BF16;
  Kernel k = ops::matmulKernel(
      "mm", {.blockM = bm, .blockN = bn, .blockK = bk, .groupM = 2}, {},
      [](Value acc, ops::Block &) { return acc; });
  const int sa = 32, sb = 96, sc = 96; // padded to the divisibility of 16
  std::vector<float> a = randomValues(M * sa, -1, 1, t, 24);
  std::vector<float> b = randomValues(K * sb, -1, 1, t, 25);
  std::vector<uint16_t> ab = bitsOf(a, t), bb = bitsOf(b, t), c(M * sc);
  run(k, {cdiv(M, bm), cdiv(N, bn)},
      {Arg::buffer(ab.data(), ab.size(), t),
       Arg::buffer(bb.data(), bb.size(), t), Arg::output(c.data(), c.size(), t),
       Arg::scalar<int32_t>(M), Arg::scalar<int32_t>(N),
       Arg::scalar<int32_t>(K), Arg::scalar<int32_t>(sa),
       Arg::scalar<int32_t>(sb), Arg::scalar<int32_t>(sc)});
  expectMatmulBias(a, b, {}, c, M, N, K, sa, sb, sc, t, 1.0 / 128);
}

TEST(Numerics, MatmulPersistentCoversEveryTile) {
  // 5 x 3 tiles walked by 4 persistent programs (tiles p, p + 4, ...; the
  // last program takes 3 of them), in groups of 2 tile rows, with a bias
  // epilogue: every tile must be computed once, with its own bias columns.
  const int M = 150, N = 90, K = 40, bm = 32, bn = 32, bk = 16;
  const DType t = DType::BF16;
  Kernel k = ops::matmulKernel(
      "mm",
      {.blockM = bm, .blockN = bn, .blockK = bk, .groupM = 2,
       .persistent = true},
      {ops::columnInput("bias", t)},
      [](Value acc, ops::Block &b) { return acc + b["bias"]; });
  const int sa = 48, sb = 96, sc = 96; // padded to the divisibility of 16
  std::vector<float> a = randomValues(M * sa, -1, 1, t, 26);
  std::vector<float> b = randomValues(K * sb, -1, 1, t, 27);
  std::vector<float> bias = randomValues(N, -1, 1, t, 28);
  std::vector<uint16_t> ab = bitsOf(a, t), bb = bitsOf(b, t),
                        biasb = bitsOf(bias, t), c(M * sc);
  run(k, {4},
      {Arg::buffer(ab.data(), ab.size(), t),
       Arg::buffer(bb.data(), bb.size(), t), Arg::output(c.data(), c.size(), t),
       Arg::buffer(biasb.data(), biasb.size(), t), Arg::scalar<int32_t>(M),
       Arg::scalar<int32_t>(N), Arg::scalar<int32_t>(K),
       Arg::scalar<int32_t>(sa), Arg::scalar<int32_t>(sb),
       Arg::scalar<int32_t>(sc)});
  expectMatmulBias(a, b, bias, c, M, N, K, sa, sb, sc, t);
}

/// C = A B + bias by a descriptor matmul in clusters of two (numCtas):
/// 5 x 3 tiles, so the third pair of tile rows has a row past M; with
/// `persistent`, 6 programs (3 clusters) walk the 3 x 3 tile pairs in
/// groups of 2 pairs (groupM 4). Every tile once, nothing stored past M.
void checkMatmulClusters(bool persistent) {
  const int M = 150, N = 90, K = 40, bm = 32, bn = 32, bk = 16;
  const DType t = DType::BF16;
  Kernel k = ops::matmulKernel(
      "mm",
      {.blockM = bm, .blockN = bn, .blockK = bk, .groupM = 4,
       .persistent = persistent, .descriptors = true, .numCtas = 2},
      {ops::columnInput("bias", t)},
      [](Value acc, ops::Block &b) { return acc + b["bias"]; });
  // The grid rule rounds the tile rows up to whole clusters.
  mlir::func::FuncOp f = *k.module().getOps<mlir::func::FuncOp>().begin();
  EXPECT_EQ(f->getAttrOfType<mlir::IntegerAttr>("tile.num_ctas").getInt(), 2);
  if (!persistent) {
    auto grid = f->getAttrOfType<mlir::ArrayAttr>("tile.grid");
    ASSERT_TRUE(grid);
    EXPECT_EQ(mlir::cast<mlir::StringAttr>(grid[0]).str(),
              "2 * cdiv(cdiv(M, 32), 2)");
  }
  const int sa = 48, sb = 96, sc = 96;
  std::vector<float> a = randomValues(M * sa, -1, 1, t, 29);
  std::vector<float> b = randomValues(K * sb, -1, 1, t, 30);
  std::vector<float> bias = randomValues(N, -1, 1, t, 31);
  std::vector<uint16_t> ab = bitsOf(a, t), bb = bitsOf(b, t),
                        biasb = bitsOf(bias, t), c(M * sc + 64, 0x7fc0);
  Grid grid = persistent ? Grid{6} : Grid{2 * cdiv(cdiv(M, bm), 2), cdiv(N, bn)};
  run(k, grid,
      {Arg::tensorDesc(Arg::buffer(ab.data(), ab.size(), t), {M, K}, {sa, 1}),
       Arg::tensorDesc(Arg::buffer(bb.data(), bb.size(), t), {K, N}, {sb, 1}),
       Arg::output(c.data(), c.size(), t),
       Arg::buffer(biasb.data(), biasb.size(), t), Arg::scalar<int32_t>(M),
       Arg::scalar<int32_t>(N), Arg::scalar<int32_t>(K),
       Arg::scalar<int32_t>(sa), Arg::scalar<int32_t>(sb),
       Arg::scalar<int32_t>(sc)});
  expectMatmulBias(a, b, bias, c, M, N, K, sa, sb, sc, t);
  // Past the last row: untouched (the padded row stores nothing).
  for (size_t i = size_t(M) * sc; i < c.size(); ++i)
    ASSERT_EQ(c[i], 0x7fc0) << i;
}

/// C = A B^T (+ bias) with B given as N x K (bTransposed), by pointers and
/// through tensor descriptors (an N x K block read transposed).
void checkMatmulBTransposed(bool descriptors) {
  const int M = 70, N = 50, K = 40, bm = 32, bn = 32, bk = 16;
  const DType t = DType::BF16;
  Kernel k = ops::matmulKernel(
      "mm",
      {.blockM = bm, .blockN = bn, .blockK = bk, .descriptors = descriptors,
       .bTransposed = true},
      {ops::columnInput("bias", t)},
      [](Value acc, ops::Block &b) { return acc + b["bias"]; });
  const int sa = 48, sbt = 48, sc = 64; // B^T: N rows of K, stride sbt
  std::vector<float> a = randomValues(M * sa, -1, 1, t, 32);
  std::vector<float> bT = randomValues(N * sbt, -1, 1, t, 33);
  std::vector<float> bias = randomValues(N, -1, 1, t, 34);
  std::vector<uint16_t> ab = bitsOf(a, t), bb = bitsOf(bT, t),
                        biasb = bitsOf(bias, t), c(M * sc);
  Arg aArg = Arg::buffer(ab.data(), ab.size(), t),
      bArg = Arg::buffer(bb.data(), bb.size(), t);
  if (descriptors) {
    aArg = Arg::tensorDesc(aArg, {M, K}, {sa, 1});
    bArg = Arg::tensorDesc(bArg, {N, K}, {sbt, 1});
  }
  run(k, {cdiv(M, bm), cdiv(N, bn)},
      {aArg, bArg, Arg::output(c.data(), c.size(), t),
       Arg::buffer(biasb.data(), biasb.size(), t), Arg::scalar<int32_t>(M),
       Arg::scalar<int32_t>(N), Arg::scalar<int32_t>(K),
       Arg::scalar<int32_t>(sa), Arg::scalar<int32_t>(sbt),
       Arg::scalar<int32_t>(sc)});
  // The reference takes B as K x N.
  std::vector<float> b(K * N);
  for (int kk = 0; kk < K; ++kk)
    for (int j = 0; j < N; ++j)
      b[kk * N + j] = bT[j * sbt + kk];
  expectMatmulBias(a, b, bias, c, M, N, K, sa, N, sc, t);
}

TEST(Numerics, MatmulBTransposedPointers) { checkMatmulBTransposed(false); }
TEST(Numerics, MatmulBTransposedDescriptors) { checkMatmulBTransposed(true); }

/// torch._scaled_mm's GEMM from the builder: e4m3 A and e5m2 B (N x K),
/// per-tensor scales from device pointers, bf16 C, persistent programs
/// (3 for 3 x 2 tiles of 64 x 64, K step 64 over a ragged K).
TEST(Numerics, MatmulFp8Scaled) {
  const int M = 150, N = 90, K = 100, bm = 64, bn = 64, bk = 64;
  Kernel k = ops::matmulKernel(
      "mm8",
      {.aType = DType::F8E4M3FN, .bType = DType::F8E5M2, .cType = DType::BF16,
       .blockM = bm, .blockN = bn, .blockK = bk, .numWarps = 4,
       .persistent = true, .descriptors = true, .bTransposed = true,
       .scales = true},
      {}, [](Value acc, ops::Block &) { return acc; });
  const int sa = 112, sbt = 112, sc = 96;
  std::vector<float> af = randomValues(M * sa, -4, 4, DType::F32, 35),
                     bf = randomValues(N * sbt, -4, 4, DType::F32, 36);
  std::vector<uint8_t> a8(af.size()), b8(bf.size());
  for (size_t i = 0; i < a8.size(); ++i)
    a8[i] = uint8_t(encodeFloat(af[i], DType::F8E4M3FN));
  for (size_t i = 0; i < b8.size(); ++i)
    b8[i] = uint8_t(encodeFloat(bf[i], DType::F8E5M2));
  float scaleA = 0.625f, scaleB = 1.75f;
  std::vector<uint16_t> c(M * sc);
  run(k, {3},
      {Arg::tensorDesc(Arg::buffer(a8.data(), a8.size(), DType::F8E4M3FN),
                       {M, K}, {sa, 1}),
       Arg::tensorDesc(Arg::buffer(b8.data(), b8.size(), DType::F8E5M2),
                       {N, K}, {sbt, 1}),
       Arg::output(c.data(), c.size(), DType::BF16), Arg::buffer(&scaleA, 1),
       Arg::buffer(&scaleB, 1), Arg::scalar<int32_t>(M),
       Arg::scalar<int32_t>(N), Arg::scalar<int32_t>(K),
       Arg::scalar<int32_t>(sa), Arg::scalar<int32_t>(sbt),
       Arg::scalar<int32_t>(sc)});
  std::vector<double> want(M * N);
  std::vector<float> got(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double acc = 0;
      for (int kk = 0; kk < K; ++kk)
        acc += decodeFloat(a8[i * sa + kk], DType::F8E4M3FN) *
               decodeFloat(b8[j * sbt + kk], DType::F8E5M2);
      want[i * N + j] = acc * scaleA * scaleB;
      got[i * N + j] = fromBits(c[i * sc + j], DType::BF16);
    }
  expectClose(got, want, 1e-2, 1.0 / 128);
}

TEST(Numerics, MatmulClustersCoverEveryTile) { checkMatmulClusters(false); }
TEST(Numerics, MatmulPersistentClustersCoverEveryTile) {
  checkMatmulClusters(true);
}

//--- Reductions of the op library over padded rows --------------------------

/// Per-row sum, mean, var, max, min, argmax, argmin of an f32 [rows, cols]
/// input, cols < blockCols, for one or several rows per program.
void checkRowReductions(int rowsPerProgram) {
  const int rows = 7, cols = 37, block = 64;
  Kernel k = ops::rowwiseKernel(
      "row_stats",
      {ops::input("x", DType::F32), ops::rowOutput("sum", DType::F32),
       ops::rowOutput("mean", DType::F32), ops::rowOutput("var", DType::F32),
       ops::rowOutput("max", DType::F32), ops::rowOutput("min", DType::F32),
       ops::rowOutput("argmax", DType::I32),
       ops::rowOutput("argmin", DType::I32)},
      {.blockCols = block, .rowsPerProgram = rowsPerProgram},
      [](ops::Block &b) {
        Value x = b["x"];
        b.store("sum", ops::sum(x, -1));
        b.store("mean", ops::mean(x, -1, /*keepdim=*/true));
        b.store("var", ops::var(x, -1));
        b.store("max", ops::max(x, -1));
        b.store("min", ops::min(x, -1));
        b.store("argmax", ops::argmax(x, -1));
        b.store("argmin", ops::argmin(x, -1));
      });
  // Negative values: a padding lane counted as 0 would win the max.
  std::vector<float> x = randomValues(rows * cols, -9, -1, DType::F32, 17);
  // Ties: the first index wins.
  x[0 * cols + 5] = x[0 * cols + 30] = -0.5f;
  x[1 * cols + 3] = x[1 * cols + 4] = -20.0f;
  std::vector<float> sum(rows), mean(rows), var(rows), mx(rows), mn(rows);
  std::vector<int32_t> amax(rows), amin(rows);
  run(k, {cdiv(rows, rowsPerProgram)},
      {Arg::buffer(x.data(), x.size()), Arg::output(sum.data(), rows),
       Arg::output(mean.data(), rows), Arg::output(var.data(), rows),
       Arg::output(mx.data(), rows), Arg::output(mn.data(), rows),
       Arg::output(amax.data(), rows), Arg::output(amin.data(), rows),
       Arg::scalar<int32_t>(rows), Arg::scalar<int32_t>(cols)});
  for (int r = 0; r < rows; ++r) {
    const float *row = &x[r * cols];
    double s = 0, v = 0;
    int imax = 0, imin = 0;
    for (int c = 0; c < cols; ++c) {
      s += row[c];
      if (row[c] > row[imax])
        imax = c;
      if (row[c] < row[imin])
        imin = c;
    }
    double m = s / cols;
    for (int c = 0; c < cols; ++c)
      v += (row[c] - m) * (row[c] - m);
    EXPECT_NEAR(sum[r], s, 1e-4) << r;
    EXPECT_NEAR(mean[r], m, 1e-5) << r;
    EXPECT_NEAR(var[r], v / (cols - 1), 1e-4) << r; // unbiased
    EXPECT_EQ(mx[r], row[imax]) << r;
    EXPECT_EQ(mn[r], row[imin]) << r;
    EXPECT_EQ(amax[r], imax) << r;
    EXPECT_EQ(amin[r], imin) << r;
  }
  EXPECT_EQ(amax[0], 5);
  EXPECT_EQ(amin[1], 3);
}

TEST(Numerics, RowReductionsOneRowPerProgram) { checkRowReductions(1); }
TEST(Numerics, RowReductionsSeveralRowsPerProgram) { checkRowReductions(4); }

TEST(Numerics, MeanOfAMaskedLoadCountsTheMask) {
  // No count hint: a plain masked load, its mask summed for the mean.
  Kernel k("masked_mean");
  Value x = k.pointer("x", DType::F32), out = k.pointer("out", DType::F32);
  Value n = k.scalar("n", DType::I32);
  Value offs = k.range(128);
  k.store(out, ops::mean(k.load(x + offs, offs < n), 0));
  std::vector<float> data = randomValues(77, 1, 2, DType::F32, 18), res(1);
  run(k, {1},
      {Arg::buffer(data.data(), data.size()), Arg::output(res.data(), 1),
       Arg::scalar<int32_t>(77)});
  double m = 0;
  for (float v : data)
    m += v;
  EXPECT_NEAR(res[0], m / 77, 1e-6);
}

//--- Random numbers -----------------------------------------------------------

/// Philox4x32-10 on the host, as Random123 defines it.
std::array<uint32_t, 4> philoxHost(uint64_t seed, std::array<uint32_t, 4> c) {
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  for (int i = 0; i < 10; ++i) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0];
    uint64_t p1 = (uint64_t)0xCD9E8D57u * c[2];
    c = {(uint32_t)(p1 >> 32) ^ c[1] ^ k0, (uint32_t)p1,
         (uint32_t)(p0 >> 32) ^ c[3] ^ k1, (uint32_t)p0};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

/// Triton's uint_to_uniform_float.
float uniformHost(uint32_t bits) {
  int32_t x = (int32_t)bits;
  if (x < 0)
    x = ~x;
  return (float)x * 4.6566127342e-10f;
}

TEST(Numerics, RandAndDropoutMatchHostPhilox) {
  const int n = 5000;
  const double p = 0.3;
  Kernel k = ops::pointwiseKernel(
      "dropout",
      {ops::input("x", DType::F32), ops::output("r", DType::F32),
       ops::output("y", DType::F32), ops::scalar("seed", DType::I64)},
      {.blockSize = 1024}, [p](ops::Block &b) {
        b.store("r", ops::rand(b["seed"], b.index()));
        b.store("y", ops::dropout(b["x"], p, b["seed"], b.index()));
      });
  const int64_t seed = 0x1234567890ABCDEFll;
  std::vector<float> x = randomValues(n, -3, 3, DType::F32, 19), r(n), y(n);
  run(k, {cdiv(n, 1024)},
      {Arg::buffer(x.data(), n), Arg::output(r.data(), n),
       Arg::output(y.data(), n), Arg::scalar<int64_t>(seed),
       Arg::scalar<int32_t>(n)});
  int kept = 0;
  const float scale = (float)(1.0 / (1.0 - p));
  for (int i = 0; i < n; ++i) {
    float u = uniformHost(philoxHost(seed, {(uint32_t)i, 0, 0, 0})[0]);
    ASSERT_EQ(r[i], u) << i;
    bool keep = u > p;
    kept += keep;
    ASSERT_EQ(y[i], keep ? x[i] * scale : 0.0f) << i;
  }
  EXPECT_NEAR(kept / (double)n, 1 - p, 0.03);
}

//--- The core API -------------------------------------------------------------

TEST(Numerics, LoopsScansAndIfs) {
  // out[0] = sum of x over blocks of 32 (a loop carrying a tile);
  // out[1] = halvings of n until 0 (a while loop); out[2] = n > 10 ? 1 : 2;
  // pre[i] = inclusive prefix sum of x[0..64), suf the reverse one.
  Kernel k("core");
  Value x = k.pointer("x", DType::I32), out = k.pointer("out", DType::I32);
  Value pre = k.pointer("pre", DType::I32), suf = k.pointer("suf", DType::I32);
  Value n = k.scalar("n", DType::I32);
  Value lanes = k.range(32);
  Value acc =
      k.forLoop(0, n, 32, k.zeros({32}, DType::I32), [&](Value i, Value acc) {
        Value offs = i + lanes;
        return acc + k.load(x + offs, offs < n, 0);
      });
  k.store(out, k.reduce(acc, 0, Combine::sum));
  std::vector<Value> halvings = k.whileLoop(
      {n, k.constant(0, DType::I32)},
      [](std::vector<Value> c) { return c[0] > 0; },
      [](std::vector<Value> c) {
        return std::vector<Value>{c[0] / 2, c[1] + 1};
      });
  k.store(out + 1, halvings[1]);
  k.store(out + 2, k.ifThenElse(
                       n > 10, [&] { return k.constant(1, DType::I32); },
                       [&] { return k.constant(2, DType::I32); }));
  Value r64 = k.range(64);
  Value head = k.load(x + r64, r64 < n, 0);
  k.store(pre + r64, k.scan(head, 0, Combine::sum));
  k.store(suf + r64, k.scan(
                         head, 0, [](Value a, Value b) { return a + b; },
                         /*reverse=*/true));

  const int len = 100;
  std::vector<int32_t> xs(len), res(3), p(64), s(64);
  for (int i = 0; i < len; ++i)
    xs[i] = (i * 7) % 13 - 6;
  run(k, {1},
      {Arg::buffer(xs.data(), len), Arg::output(res.data(), 3),
       Arg::output(p.data(), 64), Arg::output(s.data(), 64),
       Arg::scalar<int32_t>(len)});
  int total = 0;
  for (int v : xs)
    total += v;
  EXPECT_EQ(res[0], total);
  EXPECT_EQ(res[1], 7); // 100 50 25 12 6 3 1 -> 0
  EXPECT_EQ(res[2], 1);
  int prefix = 0;
  for (int i = 0; i < 64; ++i) {
    prefix += xs[i];
    EXPECT_EQ(p[i], prefix) << i;
  }
  int back = 0;
  for (int i = 63; i >= 0; --i) {
    back += xs[i];
    EXPECT_EQ(s[i], back) << i;
  }
}

TEST(Numerics, AtomicHistogram) {
  Kernel k("histogram");
  Value x = k.pointer("x", DType::I32), hist = k.pointer("hist", DType::I32);
  Value n = k.scalar("n", DType::I32);
  Value offs = k.programId(0) * 256 + k.range(256);
  Value mask = offs < n;
  Value v = k.load(x + offs, mask, 0);
  (void)k.atomicAdd(hist + v % 16, 1, mask);
  const int len = 1000;
  std::vector<int32_t> xs(len), h(16, 0), want(16, 0);
  for (int i = 0; i < len; ++i) {
    xs[i] = (i * 37 + 11) % 1000;
    ++want[xs[i] % 16];
  }
  run(k, {cdiv(len, 256)},
      {Arg::buffer(xs.data(), len), Arg::buffer(h.data(), 16),
       Arg::scalar<int32_t>(len)});
  EXPECT_EQ(h, want);
}

TEST(Numerics, DotAndCustomCombiner) {
  // out = max |rowsum(a @ b)| with a user-written combiner, ieee f32 dot.
  Kernel k("dot");
  Value a = k.pointer("a", DType::F32), b = k.pointer("b", DType::F32);
  Value out = k.pointer("out", DType::F32);
  Value r = k.range(16);
  Value offs = r.expandDims(1) * 16 + r.expandDims(0);
  Value d = k.dot(k.load(a + offs), k.load(b + offs), {}, Precision::ieee);
  Value rowSums = k.reduce(d, 1, Combine::sum);
  k.store(out, k.reduce(rowSums, 0, [](Value x, Value y) {
    return maximum(abs(x), abs(y));
  }));
  std::vector<float> av = randomValues(256, -1, 1, DType::F32, 20);
  std::vector<float> bv = randomValues(256, -1, 1, DType::F32, 21), res(1);
  run(k, {1},
      {Arg::buffer(av.data(), 256), Arg::buffer(bv.data(), 256),
       Arg::output(res.data(), 1)});
  double best = 0;
  for (int i = 0; i < 16; ++i) {
    double s = 0;
    for (int j = 0; j < 16; ++j)
      for (int q = 0; q < 16; ++q)
        s += (double)av[i * 16 + q] * bv[q * 16 + j];
    best = std::max(best, std::abs(s));
  }
  EXPECT_NEAR(res[0], best, 1e-4);
}

} // namespace
