//===- ExamplesGpuTest.cpp - every example kernel against a host reference ===//
//
//   tilec-gpu-tests --kernels DIR [--only add,softmax] [--seed N] [--small]
//                   [--exact] [--matmul-tile M,N] [--matmul-dtype bf16|f16]
//                   [--matmul-persistent] [--matmul-shape MxNxK]...
//                   [--attention-block-m M] [--attention-head-dim D]
//
// Loads DIR/<name>.ptx (or .cubin) + DIR/<name>.json for each kernel of
// examples/*.tile (matmul_bias_gelu, matmul_fp16, matmul_tma,
// matmul_tma_bias_gelu, matmul_tma_persistent, matmul_tma_cluster and
// matmul_fp8, the last five sm_90 and later (matmul_fp8 sm_90a), when DIR
// has them;
// the first may also be the builder's
// `tilec-examples -o DIR matmul_bias_gelu`, same parameters; and the
// builder's attention_d128) and runs it on fresh random inputs at several
// sizes,
// ragged ones included (not multiples of the tile), against a float64 host
// reference. Before each run the outputs are poisoned (all bits set: NaN in
// every float type); afterwards every element must have been written, the
// norm-wise relative error ||out - ref|| / ||ref|| must be under the
// dtype's tolerance, and the guard elements past each output (and the
// padding between rows of strided outputs) must still hold the poison.
// --exact allocates no guard, so that compute-sanitizer sees any access
// past the end. --matmul-tile and --matmul-dtype test variants of the
// matmul kernel (same parameters) with other tiles or f16 data;
// --matmul-persistent launches the matmuls on 5 programs (persistent
// kernels loop over the tiles; 6 for kernels in clusters of 2);
// --matmul-shape adds a shape to the matmuls' list (e.g. one long enough in K to go around a TMA ring more
// than once at --small); --attention-block-m launches the attention
// forward with M queries per program (a variant built with another blockM;
// default 128); --attention-head-dim runs examples/attention.tile's kernel
// at head_dim D (compiled with `--param HEAD_DIM=D`; default 64). Prints
// one PASS/FAIL line per case; exits 1 on a failure.
//
//===----------------------------------------------------------------------===//

#include "../Unit/AttentionReference.h"
#include "GpuHelpers.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <type_traits>

using namespace tilec::gpu;

namespace {

struct Options {
  std::string kernels;
  std::set<std::string> only;
  uint64_t seed = 0;
  bool small = false;
  bool exact = false;
};

/// The matmul kernels' tile (their grid) and element type, for variants of
/// examples/matmul.tile with other tiles or f16 (--matmul-tile, -dtype).
int64_t gMatmulTileM = 128, gMatmulTileN = 128;
bool gMatmulF16 = false;
/// --matmul-shape: shapes (M, N, K) the matmuls run beside their own.
struct MatmulShape {
  int64_t m, n, k;
};
std::vector<MatmulShape> gMatmulShapes;
/// --matmul-persistent: persistent matmuls (the builder's), launched on 5
/// programs so that each walks several tiles of the larger shapes.
bool gMatmulPersistent = false;
/// --attention-block-m: queries per program of the attention forward.
int64_t gAttentionBlockM = 128;
/// --attention-head-dim: head_dim of examples/attention.tile's kernel.
int64_t gAttentionHeadDim = 64;

/// Elements of poison after each output (0 with --exact).
size_t gGuard = 256;

int gPassed = 0, gFailed = 0;

void report(bool ok, const std::string &what, const std::string &detail) {
  std::printf("%s %s: %s\n", ok ? "PASS" : "FAIL", what.c_str(),
              detail.c_str());
  std::fflush(stdout);
  (ok ? gPassed : gFailed)++;
}

/// An output buffer of `n` elements plus a guard, poisoned before each run.
template <typename T> struct Output {
  DeviceBuffer<T> buffer;
  size_t n = 0;
  static Output make(const Context &ctx, size_t n) {
    Output o;
    o.buffer = require(DeviceBuffer<T>::allocate(ctx, n + gGuard), "alloc");
    o.n = n;
    require(o.buffer.memory().fill8(0xff), "poison");
    return o;
  }
};
/// Outputs pass to launches as their buffers (found by ADL from launch()).
template <typename T> ArgValue makeArg(const Output<T> &o) {
  return tilec::runtime::makeArg(o.buffer.ptr());
}

bool isPoison(const void *p, size_t bytes) {
  const auto *b = static_cast<const unsigned char *>(p);
  for (size_t i = 0; i < bytes; ++i)
    if (b[i] != 0xff)
      return false;
  return true;
}

/// Compares `out` (n valid elements of a row-major array whose rows are
/// `rowLength` valid elements every `stride`) with `ref` (rowLength-packed).
/// Elements between rowLength and stride, and the guard, must be poison.
template <typename T>
void check(const std::string &what, const Output<T> &out,
           const std::vector<double> &ref, double tol, size_t rowLength = 0,
           size_t stride = 0) {
  if (!rowLength) {
    rowLength = stride = ref.size();
  }
  std::vector<T> host(out.n + gGuard);
  if (Status s = out.buffer.copyToHost(host); !s.ok()) {
    report(false, what, "reading the output: " + s.message());
    return;
  }
  size_t rows = rowLength ? ref.size() / rowLength : 0;
  double err2 = 0, ref2 = 0, maxErr = 0;
  size_t unwritten = 0, nonFinite = 0, padTouched = 0, worst = 0,
         compared = 0;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < stride; ++c) {
      size_t at = r * stride + c;
      if (at >= out.n)
        break;
      if (c >= rowLength) {
        padTouched += !isPoison(&host[at], sizeof(T));
        continue;
      }
      double want = ref[r * rowLength + c];
      if (isPoison(&host[at], sizeof(T))) {
        ++unwritten;
        continue;
      }
      double got = toDouble(host[at]);
      if (!std::isfinite(got) && std::isfinite(want)) {
        ++nonFinite;
        continue;
      }
      double e = std::fabs(got - want);
      if (e > maxErr) {
        maxErr = e;
        worst = r * rowLength + c;
      }
      err2 += e * e;
      ref2 += want * want;
      ++compared;
    }
  }
  size_t guardTouched = 0;
  for (size_t i = out.n; i < out.n + gGuard; ++i)
    guardTouched += !isPoison(&host[i], sizeof(T));
  // Norm-wise, the reference's RMS floored at 1e-3: a reference that is
  // tiny everywhere (gelu's tail in a 1x1x1 product: ~1e-6, where bf16's
  // and the erf's rounding are large relative errors) is judged by its
  // absolute error instead.
  double floor2 = 1e-6 * double(compared);
  double rel = compared ? std::sqrt(err2 / std::max(ref2, floor2)) : 0;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "rel err %.3g (tol %.0e), max abs err %.3g at %zu", rel, tol,
                maxErr, worst);
  std::string detail = buf;
  bool ok = unwritten == 0 && nonFinite == 0 && padTouched == 0 &&
            guardTouched == 0 && rel <= tol;
  if (unwritten)
    detail += "; " + std::to_string(unwritten) + " elements not written";
  if (nonFinite)
    detail += "; " + std::to_string(nonFinite) + " non-finite elements";
  if (padTouched)
    detail +=
        "; " + std::to_string(padTouched) + " row-padding elements overwritten";
  if (guardTouched)
    detail += "; " + std::to_string(guardTouched) +
              " elements past the end overwritten";
  report(ok, what, detail);
}

/// Runs one launch and waits; false (and a FAIL) if either step failed.
bool run(const std::string &what, const Context &ctx,
         const std::function<Status()> &launch) {
  Status s = launch();
  if (s.ok())
    s = ctx.synchronize();
  if (!s.ok())
    report(false, what, s.message());
  return s.ok();
}

std::string gridText(const Grid &g) {
  return "grid (" + std::to_string(g.x) + "," + std::to_string(g.y) + "," +
         std::to_string(g.z) + ")";
}

template <typename T>
DeviceBuffer<T> upload(const Context &ctx, const std::vector<T> &v) {
  return require(DeviceBuffer<T>::fromHost(ctx, v), "upload");
}

//===----------------------------------------------------------------------===//
// The examples
//===----------------------------------------------------------------------===//

void testAdd(const Context &ctx, const Kernel &k, Rng &rng, bool small) {
  std::vector<int64_t> sizes = {1,    1000,          1024,   1025,
                                4097, 3 * 65536 + 5, 1 << 20};
  if (!small)
    sizes.push_back((1 << 24) + 333);
  for (int64_t n : sizes) {
    for (int64_t extra : {0, 2}) { // extra programs must be masked off
      if (small && extra)
        continue;
      auto x = randomNormal<float>(rng, n), y = randomNormal<float>(rng, n);
      auto dx = upload(ctx, x), dy = upload(ctx, y);
      auto z = Output<float>::make(ctx, n);
      Grid grid(ceilDiv(n, 1024) + extra);
      std::string what = "add n=" + std::to_string(n) + " " + gridText(grid);
      if (!run(what, ctx,
               [&] { return k.launch(nullptr, grid, dx, dy, z, int32_t(n)); }))
        continue;
      std::vector<double> ref(n);
      for (int64_t i = 0; i < n; ++i)
        ref[i] = double(x[i]) + double(y[i]);
      check(what, z, ref, 1e-6);
    }
  }
  // The runtime refuses what the metadata forbids, before the GPU sees it.
  auto x = upload(ctx, randomNormal<float>(rng, 64));
  auto z = Output<float>::make(ctx, 64);
  Status s = k.launch(nullptr, Grid(1), x.ptr() + 1, x, z, 63);
  report(!s.ok() && s.message().find("parameter 'x'") != std::string::npos &&
             s.message().find("not a multiple of 16 bytes") !=
                 std::string::npos,
         "add refuses a misaligned x", s.ok() ? "launched" : s.message());
}

void testCoscos(const Context &ctx, const Kernel &k, Rng &rng, bool small) {
  std::vector<int64_t> sizes = {1, 1023, 1024, 5000, 1 << 20};
  if (!small)
    sizes.push_back((1 << 24) + 7);
  for (int64_t n : sizes) {
    for (int64_t extra : {0, 3}) {
      if (small && extra)
        continue;
      auto x = randomNormal<float>(rng, n, 4.0);
      auto dx = upload(ctx, x);
      auto y = Output<float>::make(ctx, n);
      Grid grid(ceilDiv(n, 1024) + extra);
      std::string what = "coscos n=" + std::to_string(n) + " " + gridText(grid);
      if (!run(what, ctx,
               [&] { return k.launch(nullptr, grid, dx, y, int32_t(n)); }))
        continue;
      std::vector<double> ref(n);
      for (int64_t i = 0; i < n; ++i)
        ref[i] = std::cos(std::cos(double(x[i])));
      check(what, y, ref, 1e-5);
    }
  }
}

double gelu(double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); }

void testBiasGelu(const Context &ctx, const Kernel &k, Rng &rng, bool small) {
  std::vector<std::pair<int64_t, int64_t>> shapes = {
      {1, 16}, {3, 48}, {17, 1008}, {129, 2064}, {1000, 4096}};
  if (!small)
    shapes.push_back({2049, 8192});
  for (auto [m, n] : shapes) {
    int64_t total = m * n;
    auto x = randomNormal<BFloat16>(rng, total, 2.0);
    auto b = randomNormal<BFloat16>(rng, n);
    auto dx = upload(ctx, x), db = upload(ctx, b);
    auto y = Output<BFloat16>::make(ctx, total);
    for (int64_t extra : {0, 1}) {
      if (small && extra)
        continue;
      Grid grid(ceilDiv(total, 2048) + extra);
      std::string what = "bias_gelu " + std::to_string(m) + "x" +
                         std::to_string(n) + " " + gridText(grid);
      require(y.buffer.memory().fill8(0xff), "poison");
      if (!run(what, ctx, [&] {
            return k.launch(nullptr, grid, dx, db, y, int32_t(total),
                            int32_t(n));
          }))
        continue;
      std::vector<double> ref(total);
      for (int64_t i = 0; i < total; ++i)
        ref[i] = gelu(toDouble(x[i]) + toDouble(b[i % n]));
      check(what, y, ref, 1e-2);
    }
  }
}

const std::vector<std::pair<int64_t, int64_t>> kRowShapes = {
    {1, 16}, {7, 48}, {37, 1008}, {129, 4096}, {300, 2064}, {64, 4080}};

void testSoftmax(const Context &ctx, const Kernel &k, Rng &rng, bool small) {
  auto shapes = kRowShapes;
  if (!small)
    shapes.push_back({4096, 4096});
  for (auto [rows, cols] : shapes) {
    auto x = randomNormal<float>(rng, rows * cols, 3.0);
    auto dx = upload(ctx, x);
    auto y = Output<float>::make(ctx, rows * cols);
    std::string what =
        "softmax " + std::to_string(rows) + "x" + std::to_string(cols);
    if (!run(what, ctx, [&] {
          return k.launch(nullptr, Grid(rows), dx, y, int32_t(cols));
        }))
      continue;
    std::vector<double> ref(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
      double m = -INFINITY, s = 0;
      for (int64_t c = 0; c < cols; ++c)
        m = std::max(m, double(x[r * cols + c]));
      for (int64_t c = 0; c < cols; ++c)
        s += std::exp(double(x[r * cols + c]) - m);
      for (int64_t c = 0; c < cols; ++c)
        ref[r * cols + c] = std::exp(double(x[r * cols + c]) - m) / s;
    }
    check(what, y, ref, 1e-5);
  }
  auto dx = upload(ctx, randomNormal<float>(rng, 100));
  auto y = Output<float>::make(ctx, 100);
  Status s = k.launch(nullptr, Grid(1), dx, y, 100);
  report(!s.ok() &&
             s.message().find("parameter 'n_cols'") != std::string::npos &&
             s.message().find("not a multiple of 16") != std::string::npos,
         "softmax refuses n_cols=100", s.ok() ? "launched" : s.message());
}

void testLayernorm(const Context &ctx, const Kernel &k, Rng &rng, bool small) {
  auto shapes = kRowShapes;
  if (!small)
    shapes.push_back({2048, 4096});
  const float eps = 1e-5f;
  for (auto [rows, cols] : shapes) {
    auto x = randomNormal<Half>(rng, rows * cols, 2.0);
    auto w = randomNormal<Half>(rng, cols), b = randomNormal<Half>(rng, cols);
    auto dx = upload(ctx, x), dw = upload(ctx, w), db = upload(ctx, b);
    auto y = Output<Half>::make(ctx, rows * cols);
    std::string what =
        "layernorm " + std::to_string(rows) + "x" + std::to_string(cols);
    if (!run(what, ctx, [&] {
          return k.launch(nullptr, Grid(rows), dx, dw, db, y, int32_t(cols),
                          eps);
        }))
      continue;
    std::vector<double> ref(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t c = 0; c < cols; ++c)
        mean += toDouble(x[r * cols + c]);
      mean /= double(cols);
      for (int64_t c = 0; c < cols; ++c) {
        double d = toDouble(x[r * cols + c]) - mean;
        var += d * d;
      }
      double rstd = 1.0 / std::sqrt(var / double(cols) + double(eps));
      for (int64_t c = 0; c < cols; ++c)
        ref[r * cols + c] =
            (toDouble(x[r * cols + c]) - mean) * rstd * toDouble(w[c]) +
            toDouble(b[c]);
    }
    check(what, y, ref, 2e-3);
  }
}

void testRmsnorm(const Context &ctx, const Kernel &k, Rng &rng, bool small) {
  auto shapes = kRowShapes;
  if (!small)
    shapes.push_back({2048, 4096});
  const float eps = 1e-6f;
  for (auto [rows, cols] : shapes) {
    int64_t n = rows * cols;
    auto x = randomNormal<Half>(rng, n), r = randomNormal<Half>(rng, n);
    auto w = randomNormal<Half>(rng, cols);
    auto dx = upload(ctx, x), dr = upload(ctx, r), dw = upload(ctx, w);
    auto h = Output<Half>::make(ctx, n);
    auto y = Output<Half>::make(ctx, n);
    std::string what =
        "rmsnorm " + std::to_string(rows) + "x" + std::to_string(cols);
    if (!run(what, ctx, [&] {
          return k.launch(nullptr, Grid(rows), dx, dr, dw, h, y, int32_t(cols),
                          eps);
        }))
      continue;
    // h is x + r rounded once to f16 (the f32 sum of two f16 is exact), so
    // it must match bit for bit; y is computed from that rounded h.
    std::vector<double> refH(n), refY(n);
    for (int64_t row = 0; row < rows; ++row) {
      double ssq = 0;
      for (int64_t c = 0; c < cols; ++c) {
        int64_t i = row * cols + c;
        refH[i] =
            Half::fromFloat(float(toDouble(x[i]) + toDouble(r[i]))).toFloat();
        ssq += refH[i] * refH[i];
      }
      double rstd = 1.0 / std::sqrt(ssq / double(cols) + double(eps));
      for (int64_t c = 0; c < cols; ++c)
        refY[row * cols + c] = refH[row * cols + c] * rstd * toDouble(w[c]);
    }
    check(what + " h_out", h, refH, 0.0);
    check(what + " y", y, refY, 2e-3);
  }
}

/// C = A * B (+ bias, GELU): bf16 (or f16) in and out (C of type TC);
/// grid of 128x128 tiles (or --matmul-tile).
template <typename T, typename TC = T>
void testMatmulWith(const Context &ctx, const Kernel &k, Rng &rng, bool small,
                    bool biasGelu, const char *name, bool tma = false,
                    bool persistent = false, bool builderTma = false) {
  std::vector<MatmulShape> shapes = {{1, 1, 1},
                                     {128, 128, 32},
                                     {200, 130, 77},
                                     {257, 129, 300},
                                     {64, 384, 16}};
  if (!small) {
    shapes.push_back({512, 512, 512});
    shapes.push_back({1000, 1030, 1111});
  }
  shapes.insert(shapes.end(), gMatmulShapes.begin(), gMatmulShapes.end());
  for (auto [m, n, kk] : shapes) {
    // Row strides: multiples of 16 (the hint), with padding past the data.
    int64_t sa = roundUp(kk, 16) + 16, sb = roundUp(n, 16),
            sc = roundUp(n, 16) + 16;
    std::vector<T> a(m * sa), b(kk * sb);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < kk; ++j)
        a[i * sa + j] = fromDouble<T>(rng.normal());
    for (int64_t i = 0; i < kk; ++i)
      for (int64_t j = 0; j < n; ++j)
        b[i * sb + j] = fromDouble<T>(rng.normal());
    auto bias = randomNormal<T>(rng, n);
    auto da = upload(ctx, a), db = upload(ctx, b), dbias = upload(ctx, bias);
    auto c = Output<TC>::make(ctx, m * sc);
    Grid grid(ceilDiv(m, gMatmulTileM), ceilDiv(n, gMatmulTileN));
    if (tma || builderTma) {
      // The tile is the descriptors' blocks: A's rows by B's columns.
      const auto &params = k.metadata().params;
      grid = Grid(ceilDiv(m, params[0].desc.tile[0]),
                  ceilDiv(n, params[1].desc.tile[1]));
    }
    // Persistent programs: 5, fewer than the tiles of the larger shapes and
    // more than those of the smallest (idle programs).
    // In clusters (num_ctas): whole clusters, 6 programs for 2.
    if (gMatmulPersistent || persistent)
      grid = Grid(ceilDiv(5, k.metadata().numCtas) * k.metadata().numCtas);
    std::string what = name + std::to_string(m) + "x" + std::to_string(n) +
                       "x" + std::to_string(kk) + " " + gridText(grid);
    if (!run(what, ctx, [&] {
          // A and B as tensor descriptors over the same padded rows.
          // The builder's descriptor matmul keeps the pointer matmul's
          // strides (unused) beside the descriptors.
          if (builderTma)
            return k.launch(nullptr, grid, tensorDesc(da, {m, kk}, {sa, 1}),
                            tensorDesc(db, {kk, n}, {sb, 1}), c, int32_t(m),
                            int32_t(n), int32_t(kk), int32_t(sa), int32_t(sb),
                            int32_t(sc));
          if (tma && biasGelu)
            return k.launch(nullptr, grid, tensorDesc(da, {m, kk}, {sa, 1}),
                            tensorDesc(db, {kk, n}, {sb, 1}), c, dbias,
                            int32_t(m), int32_t(n), int32_t(kk), int32_t(sc));
          if (tma)
            return k.launch(nullptr, grid, tensorDesc(da, {m, kk}, {sa, 1}),
                            tensorDesc(db, {kk, n}, {sb, 1}), c, int32_t(m),
                            int32_t(n), int32_t(kk), int32_t(sc));
          if (biasGelu)
            return k.launch(nullptr, grid, da, db, c, dbias, int32_t(m),
                            int32_t(n), int32_t(kk), int32_t(sa), int32_t(sb),
                            int32_t(sc));
          return k.launch(nullptr, grid, da, db, c, int32_t(m), int32_t(n),
                          int32_t(kk), int32_t(sa), int32_t(sb), int32_t(sc));
        }))
      continue;
    std::vector<double> ref(m * n, 0.0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < kk; ++p) {
        double av = toDouble(a[i * sa + p]);
        for (int64_t j = 0; j < n; ++j)
          ref[i * n + j] += av * toDouble(b[p * sb + j]);
      }
    if (biasGelu)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          ref[i * n + j] = gelu(ref[i * n + j] + toDouble(bias[j]));
    // f32 operands run at tf32 (10 mantissa bits, error ~3e-4 here): a
    // tolerance that a kernel rounding them to bf16 (8 bits) would miss.
    double tol = std::is_same_v<T, float> ? 2e-3 : 1e-2;
    check(what, c, ref, tol, size_t(n), size_t(sc));
  }
}

void testMatmul(const Context &ctx, const Kernel &k, Rng &rng, bool small) {
  if (gMatmulF16)
    testMatmulWith<Half>(ctx, k, rng, small, /*biasGelu=*/false, "matmul ");
  else
    testMatmulWith<BFloat16>(ctx, k, rng, small, /*biasGelu=*/false,
                             "matmul ");
}

void testMatmulTma(const Context &ctx, const Kernel &k, Rng &rng, bool small) {
  testMatmulWith<BFloat16>(ctx, k, rng, small, /*biasGelu=*/false,
                           "matmul_tma ", /*tma=*/true);
}

void testMatmulTmaFp16(const Context &ctx, const Kernel &k, Rng &rng,
                       bool small) {
  testMatmulWith<Half>(ctx, k, rng, small, /*biasGelu=*/false,
                       "matmul_tma_fp16 ", /*tma=*/false, /*persistent=*/false,
                       /*builderTma=*/true);
}

void testMatmulTmaPersistent(const Context &ctx, const Kernel &k, Rng &rng,
                             bool small) {
  testMatmulWith<BFloat16>(ctx, k, rng, small, /*biasGelu=*/false,
                           "matmul_tma_persistent ", /*tma=*/true,
                           /*persistent=*/true);
}

/// examples/matmul_tma_cluster.tile: persistent programs in clusters of
/// two sharing B's blocks by TMA multicast.
void testMatmulTmaCluster(const Context &ctx, const Kernel &k, Rng &rng,
                          bool small) {
  testMatmulWith<BFloat16>(ctx, k, rng, small, /*biasGelu=*/false,
                           "matmul_tma_cluster ", /*tma=*/true,
                           /*persistent=*/true);
}

void testMatmulTmaBiasGelu(const Context &ctx, const Kernel &k, Rng &rng,
                           bool small) {
  testMatmulWith<BFloat16>(ctx, k, rng, small, /*biasGelu=*/true,
                           "matmul_tma_bias_gelu ", /*tma=*/true);
}

/// The builder's matmul_tma_f16out: bf16 operands through descriptors, an
/// f16 C (the residual stream's type in examples/torch/block.py).
void testMatmulTmaF16Out(const Context &ctx, const Kernel &k, Rng &rng,
                         bool small) {
  testMatmulWith<BFloat16, Half>(ctx, k, rng, small, /*biasGelu=*/false,
                                 "matmul_tma_f16out ", /*tma=*/false,
                                 /*persistent=*/false, /*builderTma=*/true);
}

/// The builder's persistent descriptor GEMM (warp-specialized programs
/// looping over the tiles).
void testMatmulTmaPersistentBf16Out(const Context &ctx, const Kernel &k,
                                    Rng &rng, bool small) {
  testMatmulWith<BFloat16>(ctx, k, rng, small, /*biasGelu=*/false,
                           "matmul_tma_persistent_bf16out ", /*tma=*/false,
                           /*persistent=*/true, /*builderTma=*/true);
}

/// The same in clusters of two programs sharing B's blocks.
void testMatmulTmaClusterBf16Out(const Context &ctx, const Kernel &k, Rng &rng,
                                 bool small) {
  testMatmulWith<BFloat16>(ctx, k, rng, small, /*biasGelu=*/false,
                           "matmul_tma_cluster_bf16out ", /*tma=*/false,
                           /*persistent=*/true, /*builderTma=*/true);
}

/// examples/matmul_fp8.tile: C = (A B^T) scale_a scale_b, fp8 A (M x K)
/// and B (N x K) of the kernel's types (e4m3 or e5m2: TA, TB) as tensor
/// descriptors over padded rows (a row stride of 16 bytes' multiple), the
/// scales as device f32 scalars, bf16 C; persistent (5 programs). The
/// reference in double from the fp8 values.
template <typename TA, typename TB>
void testMatmulFp8With(const Context &ctx, const Kernel &k, Rng &rng,
                       bool small, const std::string &name, bool builder) {
  std::vector<MatmulShape> shapes = {{1, 1, 1},
                                     {128, 128, 128},
                                     {200, 130, 77},
                                     {257, 129, 300},
                                     {64, 384, 32}};
  if (!small) {
    shapes.push_back({512, 512, 512});
    shapes.push_back({1000, 1030, 1111});
  }
  shapes.insert(shapes.end(), gMatmulShapes.begin(), gMatmulShapes.end());
  for (auto [m, n, kk] : shapes) {
    int64_t sa = roundUp(kk, 16) + 16, sb = roundUp(kk, 16),
            sc = roundUp(n, 16) + 16;
    std::vector<TA> a(m * sa);
    std::vector<TB> b(n * sb);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < kk; ++j)
        a[i * sa + j] = fromDouble<TA>(rng.normal());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < kk; ++j)
        b[i * sb + j] = fromDouble<TB>(rng.normal());
    // Scales that are not powers of two (every product is rounded).
    std::vector<float> scaleA{float(0.25 + rng.uniform())},
        scaleB{float(0.5 + rng.uniform())};
    auto da = upload(ctx, a);
    auto db = upload(ctx, b);
    auto dsa = upload(ctx, scaleA), dsb = upload(ctx, scaleB);
    auto c = Output<BFloat16>::make(ctx, m * sc);
    Grid grid(5);
    std::string what = name + " " + std::to_string(m) + "x" +
                       std::to_string(n) + "x" + std::to_string(kk) + " " +
                       gridText(grid);
    if (!run(what, ctx, [&] {
          // The builder's GEMM keeps the pointer GEMM's strides (unused).
          if (builder)
            return k.launch(nullptr, grid, tensorDesc(da, {m, kk}, {sa, 1}),
                            tensorDesc(db, {n, kk}, {sb, 1}), c, dsa, dsb,
                            int32_t(m), int32_t(n), int32_t(kk), int32_t(sa),
                            int32_t(sb), int32_t(sc));
          return k.launch(nullptr, grid, tensorDesc(da, {m, kk}, {sa, 1}),
                          tensorDesc(db, {n, kk}, {sb, 1}), c, dsa, dsb,
                          int32_t(m), int32_t(n), int32_t(kk), int32_t(sc));
        }))
      continue;
    std::vector<double> ref(m * n, 0.0);
    double s = double(scaleA[0]) * double(scaleB[0]);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < kk; ++p)
          sum += toDouble(a[i * sa + p]) * toDouble(b[j * sb + p]);
        ref[i * n + j] = sum * s;
      }
    check(what, c, ref, 1e-2, size_t(n), size_t(sc));
  }
}

void testMatmulFp8Kernel(const Context &ctx, const Kernel &k, Rng &rng,
                         bool small, const std::string &name, bool builder) {
  const auto &params = k.metadata().params;
  bool a5 = params[0].type == DType::F8E5M2, b5 = params[1].type == DType::F8E5M2;
  if (a5 && b5)
    testMatmulFp8With<Float8E5M2, Float8E5M2>(ctx, k, rng, small, name, builder);
  else if (a5)
    testMatmulFp8With<Float8E5M2, Float8E4M3FN>(ctx, k, rng, small, name,
                                                builder);
  else if (b5)
    testMatmulFp8With<Float8E4M3FN, Float8E5M2>(ctx, k, rng, small, name,
                                                builder);
  else
    testMatmulFp8With<Float8E4M3FN, Float8E4M3FN>(ctx, k, rng, small, name,
                                                  builder);
}

void testMatmulFp8(const Context &ctx, const Kernel &k, Rng &rng, bool small) {
  testMatmulFp8Kernel(ctx, k, rng, small, "matmul_fp8", /*builder=*/false);
}

/// The builder's fp8 GEMM (MatmulConfig bTransposed, scales: the same
/// computation and arguments, plus the unused row strides of A and B).
void testMatmulFp8Bf16Out(const Context &ctx, const Kernel &k, Rng &rng,
                          bool small) {
  testMatmulFp8Kernel(ctx, k, rng, small, "matmul_fp8_bf16out",
                      /*builder=*/true);
}

/// examples/matmul_tma_swiglu.tile: C = silu(A Wg) * (A Wu), bf16, A, Wg
/// and Wu as tensor descriptors over padded rows; the grid from the
/// kernel's rule (no grid given), the reference in double from the bf16
/// inputs.
void testMatmulTmaSwiglu(const Context &ctx, const Kernel &k, Rng &rng,
                         bool small) {
  std::vector<MatmulShape> shapes = {
      {1, 1, 1}, {128, 128, 64}, {200, 130, 77}, {257, 129, 300}, {64, 384, 16}};
  if (!small)
    shapes.push_back({1000, 1030, 1111});
  shapes.insert(shapes.end(), gMatmulShapes.begin(), gMatmulShapes.end());
  for (auto [m, n, kk] : shapes) {
    int64_t sa = roundUp(kk, 16) + 16, sw = roundUp(n, 16) + 8,
            sc = roundUp(n, 16) + 16;
    auto fill = [&](int64_t rows, int64_t cols, int64_t stride, double s) {
      std::vector<BFloat16> v(rows * stride);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          v[i * stride + j] = fromDouble<BFloat16>(s * rng.normal());
      return v;
    };
    // Weights scaled by 1/sqrt(K) keep the gate in silu's curved range.
    double ws = 1.0 / std::sqrt(double(kk));
    auto a = fill(m, kk, sa, 1.0), wg = fill(kk, n, sw, ws),
         wu = fill(kk, n, sw, ws);
    auto da = upload(ctx, a), dwg = upload(ctx, wg), dwu = upload(ctx, wu);
    auto c = Output<BFloat16>::make(ctx, m * sc);
    std::string what = "matmul_tma_swiglu " + std::to_string(m) + "x" +
                       std::to_string(n) + "x" + std::to_string(kk);
    if (!run(what, ctx, [&] {
          return k.launch(nullptr, tensorDesc(da, {m, kk}, {sa, 1}),
                          tensorDesc(dwg, {kk, n}, {sw, 1}),
                          tensorDesc(dwu, {kk, n}, {sw, 1}), c, int32_t(m),
                          int32_t(n), int32_t(kk), int32_t(sc));
        }))
      continue;
    std::vector<double> ref(m * n);
    std::vector<double> g(n), u(n);
    for (int64_t i = 0; i < m; ++i) {
      std::fill(g.begin(), g.end(), 0.0);
      std::fill(u.begin(), u.end(), 0.0);
      for (int64_t p = 0; p < kk; ++p) {
        double av = toDouble(a[i * sa + p]);
        for (int64_t j = 0; j < n; ++j) {
          g[j] += av * toDouble(wg[p * sw + j]);
          u[j] += av * toDouble(wu[p * sw + j]);
        }
      }
      for (int64_t j = 0; j < n; ++j)
        ref[i * n + j] = g[j] / (1 + std::exp(-g[j])) * u[j];
    }
    check(what, c, ref, 1e-2, size_t(n), size_t(sc));
  }
}

/// The builder's matmul_tf32: f32 in and out, the products on the tensor
/// cores at tf32 precision (10 mantissa bits: the tolerance is tf32's).
void testMatmulTf32(const Context &ctx, const Kernel &k, Rng &rng,
                    bool small) {
  testMatmulWith<float>(ctx, k, rng, small, /*biasGelu=*/false,
                        "matmul_tf32 ");
}

/// The builder's matmul_tf32_nt: C = A B^T in f32 with A [M, K] and B
/// [N, K] as tensor descriptors over padded rows, wgmma .tf32 reading both
/// K-major (the tensor cores drop the low 13 mantissa bits: tf32's
/// tolerance); persistent (5 programs); the reference in double.
void testMatmulTf32Nt(const Context &ctx, const Kernel &k, Rng &rng,
                      bool small) {
  std::vector<MatmulShape> shapes = {
      {1, 1, 1}, {128, 128, 32}, {200, 130, 77}, {257, 129, 300}, {64, 384, 8}};
  if (!small)
    shapes.push_back({1000, 1030, 1111});
  shapes.insert(shapes.end(), gMatmulShapes.begin(), gMatmulShapes.end());
  for (auto [m, n, kk] : shapes) {
    // Row strides padded past K and N, multiples of the 16 elements the
    // builder's stride parameters promise.
    int64_t sa = roundUp(kk, 16) + 16, sb = roundUp(kk, 16),
            sc = roundUp(n, 16) + 16;
    std::vector<float> a(m * sa), b(n * sb);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < kk; ++j)
        a[i * sa + j] = float(rng.normal());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < kk; ++j)
        b[i * sb + j] = float(rng.normal());
    auto da = upload(ctx, a);
    auto db = upload(ctx, b);
    auto c = Output<float>::make(ctx, m * sc);
    Grid grid(5);
    std::string what = "matmul_tf32_nt " + std::to_string(m) + "x" +
                       std::to_string(n) + "x" + std::to_string(kk) + " " +
                       gridText(grid);
    if (!run(what, ctx, [&] {
          return k.launch(nullptr, grid, tensorDesc(da, {m, kk}, {sa, 1}),
                          tensorDesc(db, {n, kk}, {sb, 1}), c, int32_t(m),
                          int32_t(n), int32_t(kk), int32_t(sa), int32_t(sb),
                          int32_t(sc));
        }))
      continue;
    std::vector<double> ref(m * n, 0.0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < kk; ++p)
          sum += double(a[i * sa + p]) * double(b[j * sb + p]);
        ref[i * n + j] = sum;
      }
    check(what, c, ref, 1e-2, size_t(n), size_t(sc));
  }
}

void testMatmulBiasGelu(const Context &ctx, const Kernel &k, Rng &rng,
                        bool small) {
  testMatmulWith<BFloat16>(ctx, k, rng, small, /*biasGelu=*/true,
                           "matmul_bias_gelu ");
}

void testMatmulFp16(const Context &ctx, const Kernel &k, Rng &rng,
                    bool small) {
  testMatmulWith<Half>(ctx, k, rng, small, /*biasGelu=*/false,
                       "matmul_fp16 ");
}

/// Flash attention forward, bf16: examples/attention.tile (head_dim 64) and
/// the builder's attention_d128 (same parameters). Q and O are [batch,
/// heads, seq, D] contiguous; K and V are stored [batch, seq, kv heads, D]
/// (seq-major, as a fused QKV projection leaves them), so the strides are
/// exercised. Grid (ceil(seq / blockM), batch * heads), blockM 128 unless
/// --attention-block-m.
void testAttentionDim(const Context &ctx, const Kernel &k, Rng &rng,
                      bool small, int64_t D, const std::string &name,
                      bool descriptors = false) {
  struct Shape {
    int64_t batch, heads, kvHeads, seq;
  };
  std::vector<Shape> shapes = {{1, 2, 1, 100}, {1, 2, 2, 1}, {2, 4, 2, 129}};
  if (!small) {
    shapes.push_back({2, 8, 2, 1000});
    shapes.push_back({1, 4, 4, 4097});
  }
  for (auto [batch, heads, kvHeads, seq] : shapes) {
    for (bool causal : {false, true}) {
      auto q = randomNormal<BFloat16>(rng, batch * heads * seq * D);
      auto kbshd = randomNormal<BFloat16>(rng, batch * seq * kvHeads * D);
      auto vbshd = randomNormal<BFloat16>(rng, batch * seq * kvHeads * D);
      auto dq = upload(ctx, q), dk = upload(ctx, kbshd), dv = upload(ctx, vbshd);
      auto o = Output<BFloat16>::make(ctx, batch * heads * seq * D);
      auto lse = Output<float>::make(ctx, batch * heads * seq);
      Grid grid(ceilDiv(seq, gAttentionBlockM), batch * heads);
      std::string what = name + " B=" + std::to_string(batch) +
                         " H=" + std::to_string(heads) +
                         " Hkv=" + std::to_string(kvHeads) +
                         " S=" + std::to_string(seq) +
                         (causal ? " causal " : " ") + gridText(grid);
      float scale = float(1 / std::sqrt(double(D)));
      int32_t qb = heads * seq * D, qh = seq * D, qs = D;
      int32_t kb = seq * kvHeads * D, kh = D, ks = kvHeads * D;
      if (!run(what, ctx, [&] {
            if (descriptors)
              // [batch, heads, seq, D] views of Q and of the seq-major K, V.
              return k.launch(
                  nullptr, grid, tensorDesc(dq, {batch, heads, seq, D}),
                  tensorDesc(dk, {batch, kvHeads, seq, D}, {kb, kh, ks, 1}),
                  tensorDesc(dv, {batch, kvHeads, seq, D}, {kb, kh, ks, 1}),
                  o, lse, int32_t(batch), int32_t(seq), int32_t(heads),
                  int32_t(heads / kvHeads), qb, qh, qs, scale, causal);
            return k.launch(nullptr, grid, dq, dk, dv, o, lse,
                            int32_t(batch), int32_t(seq), int32_t(heads),
                            int32_t(heads / kvHeads), qb, qh,
                            qs, kb, kh, ks, kb, kh, ks, qb, qh, qs, scale,
                            causal);
          }))
        continue;
      // The reference takes contiguous bhsd floats.
      std::vector<float> qf(q.size()), kf(kbshd.size()), vf(vbshd.size());
      for (size_t i = 0; i < q.size(); ++i)
        qf[i] = float(toDouble(q[i]));
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t h = 0; h < kvHeads; ++h)
          for (int64_t s = 0; s < seq; ++s)
            for (int64_t d = 0; d < D; ++d) {
              int64_t from = b * kb + h * kh + s * ks + d,
                      to = ((b * kvHeads + h) * seq + s) * D + d;
              kf[to] = float(toDouble(kbshd[from]));
              vf[to] = float(toDouble(vbshd[from]));
            }
      std::vector<double> refO, refL;
      tilec::test::attentionReference(
          {batch, heads, kvHeads, seq, D, causal, double(scale)}, qf, kf, vf,
          refO, refL);
      check(what + " O", o, refO, 1e-2);
      check(what + " lse", lse, refL, 1e-4);
    }
  }
}

void testAttention(const Context &ctx, const Kernel &k, Rng &rng, bool small) {
  testAttentionDim(ctx, k, rng, small, gAttentionHeadDim, "attention");
}

void testAttentionD128(const Context &ctx, const Kernel &k, Rng &rng,
                       bool small) {
  testAttentionDim(ctx, k, rng, small, 128, "attention_d128");
}

/// The builder's attention_tma_d128: q, k, v as 4-D tensor descriptors.
void testAttentionTmaD128(const Context &ctx, const Kernel &k, Rng &rng,
                          bool small) {
  testAttentionDim(ctx, k, rng, small, 128, "attention_tma_d128",
                   /*descriptors=*/true);
}

/// The kernel folder (--kernels): the backward test loads the forward and
/// the other backward kernels beside the one it was handed.
std::string gKernelsDir;

/// Flash attention backward, bf16 (the builder's attention_bwd_*_d<D>,
/// 64x64 blocks): the forward attention_d<D> makes O and lse, then delta
/// (attention_bwd_pre), dK and dV (attention_bwd_dkdv, handed in) and dQ
/// (attention_bwd_dq), on [batch, heads, seq, D] contiguous tensors with
/// grouped-query K/V heads, causal and not, against the float64 gradients
/// of test/Unit/AttentionReference.h. seq 1, 100, 129 (--small) and 1000,
/// 4097. When the folder has the store-dS variant
/// (attention_bwd_{dkdv,dq}_ds_d<D>), it runs too: dQ, dK, dV again; and
/// so do the dQ-by-atomics kernels (attention_bwd_{pre_dqacc,dkdvq,
/// dq_convert}_d<D>, and attention_tma_bwd_dkdvq_d<D> between the same
/// two), their f32 accumulator poisoned with NaN before the zeroing.
void testAttentionBwdDim(const Context &ctx, const Kernel &dkdv, Rng &rng,
                         bool small, int64_t D) {
  std::string suffix = "_d" + std::to_string(D);
  std::vector<Module> keep;
  keep.reserve(5); // the kernels refer to their modules: no reallocation
  auto load = [&](const std::string &name) -> std::optional<Kernel> {
    auto m = loadExample(ctx, gKernelsDir, name);
    if (!m.ok()) {
      report(false, name + " load", m.message());
      return std::nullopt;
    }
    keep.push_back(std::move(*m));
    auto k = keep.back().kernel(name);
    if (!k.ok()) {
      report(false, name + " kernel", k.message());
      return std::nullopt;
    }
    return *k;
  };
  auto fwd = load("attention" + suffix), pre = load("attention_bwd_pre" + suffix),
       dqk = load("attention_bwd_dq" + suffix);
  if (!fwd || !pre || !dqk)
    return;
  // The store-dS variant, and the descriptor (TMA) dK/dV and dQ kernels,
  // when the folder has them.
  std::optional<Kernel> dkdvDs, dqDs, dkdvTma, dqTma, preAcc, dkdvq, dqConv,
      dkdvqTma, dkdvqrTma;
  struct stat st;
  auto has = [&](const std::string &name) {
    return stat((gKernelsDir + "/" + name + suffix + ".json").c_str(), &st) ==
           0;
  };
  if (has("attention_bwd_pre_dqacc")) {
    preAcc = load("attention_bwd_pre_dqacc" + suffix);
    dqConv = load("attention_bwd_dq_convert" + suffix);
    if (!preAcc || !dqConv)
      return;
    if (has("attention_bwd_dkdvq") &&
        !(dkdvq = load("attention_bwd_dkdvq" + suffix)))
      return;
    if (has("attention_tma_bwd_dkdvq") &&
        !(dkdvqTma = load("attention_tma_bwd_dkdvq" + suffix)))
      return;
    if (has("attention_tma_bwd_dkdvqr") &&
        !(dkdvqrTma = load("attention_tma_bwd_dkdvqr" + suffix)))
      return;
  }
  if (stat((gKernelsDir + "/attention_tma_bwd_dkdv" + suffix + ".json").c_str(),
           &st) == 0) {
    dkdvTma = load("attention_tma_bwd_dkdv" + suffix);
    dqTma = load("attention_tma_bwd_dq" + suffix);
    if (!dkdvTma || !dqTma)
      return;
  }
  if (stat((gKernelsDir + "/attention_bwd_dkdv_ds" + suffix + ".json").c_str(),
           &st) == 0) {
    dkdvDs = load("attention_bwd_dkdv_ds" + suffix);
    dqDs = load("attention_bwd_dq_ds" + suffix);
    if (!dkdvDs || !dqDs)
      return;
  }
  struct Shape {
    int64_t batch, heads, kvHeads, seq;
  };
  std::vector<Shape> shapes = {{1, 2, 1, 100}, {1, 2, 2, 1}, {2, 4, 2, 129}};
  if (!small) {
    // One head at 4097: the float64 reference is seq^2 x D per head and
    // product, tens of seconds on one core.
    shapes.push_back({2, 4, 2, 1000});
    shapes.push_back({1, 1, 1, 4097});
  }
  // The backward's kernels launch on the grids of their rules (tile.grid):
  // a wrong rule leaves programs out or runs some twice.
  for (auto [batch, heads, kvHeads, seq] : shapes) {
    for (bool causal : {false, true}) {
      size_t nq = batch * heads * seq * D, nkv = batch * kvHeads * seq * D,
             nl = batch * heads * seq;
      auto q = randomNormal<BFloat16>(rng, nq);
      auto kk = randomNormal<BFloat16>(rng, nkv);
      auto v = randomNormal<BFloat16>(rng, nkv);
      auto dout = randomNormal<BFloat16>(rng, nq);
      auto dq = upload(ctx, q), dk = upload(ctx, kk), dv = upload(ctx, v),
           ddo = upload(ctx, dout);
      auto o = Output<BFloat16>::make(ctx, nq);
      auto lse = Output<float>::make(ctx, nl), delta = Output<float>::make(ctx, nl);
      auto gq = Output<BFloat16>::make(ctx, nq);
      auto gk = Output<BFloat16>::make(ctx, nkv), gv = Output<BFloat16>::make(ctx, nkv);
      std::string what = "attention_bwd" + suffix + " B=" +
                         std::to_string(batch) + " H=" + std::to_string(heads) +
                         " Hkv=" + std::to_string(kvHeads) +
                         " S=" + std::to_string(seq) + (causal ? " causal" : "");
      float scale = float(1 / std::sqrt(double(D)));
      int32_t qb = heads * seq * D, kb = kvHeads * seq * D, hs = seq * D,
              ss = D, Bt = batch, S = seq, H = heads, G = heads / kvHeads;
      if (!run(what + " fwd", ctx, [&] {
            return fwd->launch(nullptr, Grid(ceilDiv(seq, gAttentionBlockM), batch * heads),
                               dq, dk, dv, o, lse, int32_t(batch), S, H, G,
                               qb, hs, ss, kb, hs,
                               ss, kb, hs, ss, qb, hs, ss, scale, causal);
          }))
        continue;
      if (!run(what + " pre", ctx, [&] {
            return pre->launch(nullptr, o, ddo, delta, Bt, S, H, qb, hs, ss, qb,
                               hs, ss);
          }))
        continue;
      if (!run(what + " dkdv", ctx, [&] {
            return dkdv.launch(nullptr, dq, dk, dv, ddo, lse, delta, gk, gv, Bt,
                               S, H, G, qb, hs, ss, kb, hs, ss, kb, hs, ss, qb,
                               hs, ss, kb, hs, ss, kb, hs, ss, scale, causal);
          }))
        continue;
      if (!run(what + " dq", ctx, [&] {
            return dqk->launch(nullptr, dq, dk, dv, ddo, lse, delta, gq, Bt, S,
                               H, G, qb, hs, ss, kb, hs, ss, kb, hs, ss, qb, hs,
                               ss, qb, hs, ss, scale, causal);
          }))
        continue;
      auto floats = [](const std::vector<BFloat16> &x) {
        std::vector<float> f(x.size());
        for (size_t i = 0; i < x.size(); ++i)
          f[i] = float(toDouble(x[i]));
        return f;
      };
      std::vector<float> qf = floats(q), kf = floats(kk), vf = floats(v),
                         df = floats(dout);
      tilec::test::AttentionShape shape{batch, heads, kvHeads, seq, D, causal,
                                        double(scale)};
      std::vector<double> refO, refL, refDq, refDk, refDv;
      tilec::test::attentionReference(shape, qf, kf, vf, refO, refL);
      tilec::test::attentionBackwardReference(shape, qf, kf, vf, df, refDq,
                                              refDk, refDv);
      check(what + " O", o, refO, 1e-2);
      check(what + " dQ", gq, refDq, 1e-2);
      check(what + " dK", gk, refDk, 1e-2);
      check(what + " dV", gv, refDv, 1e-2);
      // q, k, v, do as [batch, heads, seq, D] descriptors, for the kernels
      // that read them so.
      auto qd = tensorDesc(dq, {batch, heads, seq, D}),
           kd = tensorDesc(dk, {batch, kvHeads, seq, D}),
           vd = tensorDesc(dv, {batch, kvHeads, seq, D}),
           dod = tensorDesc(ddo, {batch, heads, seq, D});
      if (dkdvTma) {
        // 128 keys per dK/dV program, 128 queries per dQ program.
        auto gq3 = Output<BFloat16>::make(ctx, nq);
        auto gk3 = Output<BFloat16>::make(ctx, nkv),
             gv3 = Output<BFloat16>::make(ctx, nkv);
        if (run(what + " tma dkdv", ctx,
                [&] {
                  return dkdvTma->launch(nullptr, qd, kd, vd, dod, lse, delta,
                                         gk3, gv3, Bt, S, H, G, kb, hs, ss, kb,
                                         hs, ss, scale, causal);
                }) &&
            run(what + " tma dq", ctx, [&] {
              return dqTma->launch(nullptr, qd, kd, vd, dod, lse, delta, gq3,
                                   Bt, S, H, G, qb, hs, ss, scale, causal);
            })) {
          check(what + " tma dQ", gq3, refDq, 1e-2);
          check(what + " tma dK", gk3, refDk, 1e-2);
          check(what + " tma dV", gv3, refDv, 1e-2);
        }
      }
      // dQ by atomics: delta and the zeroed accumulator, dK/dV adding dQ
      // into it, then dq from it; through pointers and through descriptors.
      for (const std::optional<Kernel> *k : {&dkdvq, &dkdvqTma, &dkdvqrTma}) {
        if (!preAcc || !*k)
          continue;
        bool reduce = k == &dkdvqrTma, tma = k == &dkdvqTma || reduce;
        std::string how =
            what + (tma ? " tma" : "") + (reduce ? " dq-reduce" : " dq-atomic");
        auto acc = Output<float>::make(ctx, nq); // NaN until zeroed
        auto gq4 = Output<BFloat16>::make(ctx, nq);
        auto gk4 = Output<BFloat16>::make(ctx, nkv),
             gv4 = Output<BFloat16>::make(ctx, nkv);
        if (!run(how + " pre", ctx,
                 [&] {
                   return preAcc->launch(nullptr, o, ddo, delta, acc, Bt, S, H,
                                         qb, hs, ss, qb, hs, ss);
                 }) ||
            !run(how + " dkdv", ctx,
                 [&] {
                   if (reduce) // the accumulator as [B * H, S, D]
                     return (*k)->launch(
                         nullptr, qd, kd, vd, dod, lse, delta, gk4, gv4,
                         tensorDesc(acc.buffer, {batch * heads, seq, D}), Bt, S,
                         H, G, kb, hs, ss, kb, hs, ss, scale, causal);
                   if (tma)
                     return (*k)->launch(nullptr, qd, kd, vd, dod, lse, delta,
                                         gk4, gv4, acc, Bt, S, H, G, kb, hs, ss,
                                         kb, hs, ss, scale, causal);
                   return (*k)->launch(nullptr, dq, dk, dv, ddo, lse, delta,
                                       gk4, gv4, acc, Bt, S, H, G, qb, hs, ss,
                                       kb, hs, ss, kb, hs, ss, qb, hs, ss, kb,
                                       hs, ss, kb, hs, ss, scale, causal);
                 }) ||
            !run(how + " convert", ctx, [&] {
              return dqConv->launch(nullptr, acc, gq4, Bt, S, H, qb, hs, ss,
                                    scale);
            }))
          continue;
        check(how + " dQ", gq4, refDq, 1e-2);
        check(how + " dK", gk4, refDk, 1e-2);
        check(how + " dV", gv4, refDv, 1e-2);
      }
      if (!dkdvDs)
        continue;
      // Store dS: dK/dV writes it ([batch * heads, seq, seq]), dQ = dS K.
      auto ds = Output<BFloat16>::make(ctx, size_t(batch * heads) * seq * seq);
      auto gq2 = Output<BFloat16>::make(ctx, nq);
      auto gk2 = Output<BFloat16>::make(ctx, nkv),
           gv2 = Output<BFloat16>::make(ctx, nkv);
      if (!run(what + " store-dS dkdv", ctx, [&] {
            return dkdvDs->launch(nullptr, dq, dk, dv, ddo, lse, delta, gk2,
                                  gv2, ds, Bt, S, H, G, qb, hs, ss, kb, hs, ss,
                                  kb, hs, ss, qb, hs, ss, kb, hs, ss, kb, hs,
                                  ss, scale, causal);
          }))
        continue;
      if (!run(what + " store-dS dq", ctx, [&] {
            return dqDs->launch(nullptr, dk, ds, gq2, Bt, S, H, G, kb, hs, ss,
                                qb, hs, ss, scale, causal);
          }))
        continue;
      check(what + " store-dS dQ", gq2, refDq, 1e-2);
      check(what + " store-dS dK", gk2, refDk, 1e-2);
      check(what + " store-dS dV", gv2, refDv, 1e-2);
    }
  }
}

void testAttentionBwd64(const Context &ctx, const Kernel &k, Rng &rng,
                        bool small) {
  testAttentionBwdDim(ctx, k, rng, small, 64);
}

void testAttentionBwd128(const Context &ctx, const Kernel &k, Rng &rng,
                         bool small) {
  testAttentionBwdDim(ctx, k, rng, small, 128);
}

struct Example {
  const char *name;
  void (*test)(const Context &, const Kernel &, Rng &, bool);
  /// Skipped when DIR lacks it: built by tilec-examples, not from
  /// examples/*.tile, or an example that the nvcc fixtures have no stand-in
  /// for (attention).
  bool optional = false;
  /// The kernel file and entry handed to `test`, when not `name`.
  const char *file = nullptr;
};
const Example kExamples[] = {
    {"add", testAdd},
    {"coscos", testCoscos},
    {"bias_gelu", testBiasGelu},
    {"softmax", testSoftmax},
    {"layernorm", testLayernorm},
    {"rmsnorm", testRmsnorm},
    {"matmul", testMatmul},
    {"matmul_bias_gelu", testMatmulBiasGelu, /*optional=*/true},
    {"matmul_fp16", testMatmulFp16, /*optional=*/true},
    // The builder's f32 matmul on tf32 tensor cores.
    {"matmul_tf32", testMatmulTf32, /*optional=*/true},
    {"matmul_tf32_nt", testMatmulTf32Nt, /*optional=*/true},
    {"attention", testAttention, /*optional=*/true},
    {"attention_d128", testAttentionD128, /*optional=*/true},
    // The builder's backward (attention_bwd_{pre,dkdv,dq}_d<D>) with its
    // forward attention_d<D>.
    {"attention_bwd_d64", testAttentionBwd64, /*optional=*/true,
     "attention_bwd_dkdv_d64"},
    {"attention_bwd_d128", testAttentionBwd128, /*optional=*/true,
     "attention_bwd_dkdv_d128"},
    // sm_90 and later (descriptors); the nvcc fixtures have none.
    {"matmul_tma", testMatmulTma, /*optional=*/true},
    {"matmul_tma_bias_gelu", testMatmulTmaBiasGelu, /*optional=*/true},
    {"matmul_tma_swiglu", testMatmulTmaSwiglu, /*optional=*/true},
    {"matmul_tma_f16out", testMatmulTmaF16Out, /*optional=*/true},
    {"matmul_tma_persistent", testMatmulTmaPersistent, /*optional=*/true},
    {"matmul_tma_cluster", testMatmulTmaCluster, /*optional=*/true},
    {"matmul_fp8", testMatmulFp8, /*optional=*/true},
    {"matmul_fp8_bf16out", testMatmulFp8Bf16Out, /*optional=*/true},
    {"matmul_tma_cluster_bf16out", testMatmulTmaClusterBf16Out,
     /*optional=*/true},
    {"matmul_tma_persistent_bf16out", testMatmulTmaPersistentBf16Out,
     /*optional=*/true},
    // The builder's (tilec-examples matmul_tma_fp16).
    {"matmul_tma_fp16", testMatmulTmaFp16, /*optional=*/true},
    // The builder's attention through descriptors, 64 and 128 keys a step,
    // and with the softmax beside the previous block's P V.
    {"attention_tma_d128", testAttentionTmaD128, /*optional=*/true},
    {"attention_tma_d128_n128", testAttentionTmaD128, /*optional=*/true},
    {"attention_tma_d128_overlap", testAttentionTmaD128, /*optional=*/true},
    {"attention_tma_d128_n128_overlap", testAttentionTmaD128,
     /*optional=*/true},
    {"attention_tma_d128_n128_overlap_pingpong", testAttentionTmaD128,
     /*optional=*/true},
    {"attention_tma_d128_n128_overlap_pingpong_rf", testAttentionTmaD128,
     /*optional=*/true},
};

int usage(const char *why, FILE *to = stderr) {
  std::fprintf(to,
               "tilec-gpu-tests: %s\nusage: tilec-gpu-tests --kernels DIR "
               "[--only a,b] [--seed N] [--small] [--exact]\n"
               "  [--matmul-tile M,N] [--matmul-dtype bf16|f16] "
               "[--matmul-persistent] [--matmul-shape MxNxK]...\n"
               "  [--attention-block-m M] [--attention-head-dim D]\n",
               why);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  o.seed =
      uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "-h" || a == "--help") {
      usage("checks tilec's compiled examples against host references on "
            "the GPU",
            stdout);
      return 0;
    }
    if (a == "--kernels")
      o.kernels = value();
    else if (a == "--seed")
      o.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--only") {
      std::string list = value();
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos)
          comma = list.size();
        o.only.insert(list.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (a == "--small")
      o.small = true;
    else if (a == "--exact")
      o.exact = true;
    else if (a == "--matmul-tile") {
      std::string v = value();
      if (std::sscanf(v.c_str(), "%ld,%ld", &gMatmulTileM, &gMatmulTileN) != 2 ||
          gMatmulTileM <= 0 || gMatmulTileN <= 0)
        return usage(("--matmul-tile takes M,N, got '" + v + "'").c_str());
    } else if (a == "--matmul-dtype") {
      std::string v = value();
      if (v != "bf16" && v != "f16")
        return usage(("--matmul-dtype takes bf16 or f16, got '" + v + "'").c_str());
      gMatmulF16 = v == "f16";
    } else if (a == "--matmul-persistent")
      gMatmulPersistent = true;
    else if (a == "--matmul-shape") {
      std::string v = value();
      MatmulShape s{};
      char x1 = 0, x2 = 0, end = 0;
      if (std::sscanf(v.c_str(), "%ld%c%ld%c%ld%c", &s.m, &x1, &s.n, &x2, &s.k,
                      &end) != 5 ||
          x1 != 'x' || x2 != 'x' || s.m <= 0 || s.n <= 0 || s.k <= 0)
        return usage(("--matmul-shape takes MxNxK (positive), got '" + v +
                      "'").c_str());
      gMatmulShapes.push_back(s);
    }
    else if (a == "--attention-head-dim") {
      std::string v = value();
      gAttentionHeadDim = std::strtol(v.c_str(), nullptr, 10);
      if (gAttentionHeadDim != 64 && gAttentionHeadDim != 128)
        return usage(("--attention-head-dim takes 64 or 128 (attention.tile's "
                      "HEAD_DIM values), got '" + v + "'").c_str());
    } else if (a == "--attention-block-m") {
      std::string v = value();
      gAttentionBlockM = std::strtol(v.c_str(), nullptr, 10);
      if (gAttentionBlockM <= 0)
        return usage(("--attention-block-m takes a positive count, got '" + v +
                      "'").c_str());
    } else
      return usage(("unknown argument '" + a + "'").c_str());
  }
  if (o.kernels.empty())
    return usage("--kernels DIR is required");
  for (const std::string &name : o.only) {
    bool known = false;
    for (const Example &e : kExamples)
      known |= name == e.name;
    if (!known)
      return usage(("--only names no example '" + name + "'").c_str());
  }
  if (o.exact)
    gGuard = 0;

  Context ctx = require(Context::create(0), "CUDA context");
  std::printf("tilec-gpu-tests: %s (%s), kernels from %s, seed %llu\n",
              ctx.deviceName().c_str(), ctx.arch().c_str(), o.kernels.c_str(),
              static_cast<unsigned long long>(o.seed));
  Rng rng(o.seed);
  gKernelsDir = o.kernels;
  for (const Example &e : kExamples) {
    if (!o.only.empty() && !o.only.count(e.name))
      continue;
    struct stat st;
    std::string file = e.file ? e.file : e.name;
    if (e.optional &&
        stat((o.kernels + "/" + file + ".json").c_str(), &st) != 0) {
      std::printf("SKIP %s: not in %s\n", e.name, o.kernels.c_str());
      continue;
    }
    auto module = loadExample(ctx, o.kernels, file);
    if (!module.ok()) {
      report(false, std::string(e.name) + " load", module.message());
      continue;
    }
    auto kernel = module->kernel(file);
    if (!kernel.ok()) {
      report(false, std::string(e.name) + " kernel", kernel.message());
      continue;
    }
    e.test(ctx, *kernel, rng, o.small);
  }
  std::printf("tilec-gpu-tests: %d passed, %d failed (seed %llu)\n", gPassed,
              gFailed, static_cast<unsigned long long>(o.seed));
  return gFailed ? 1 : 0;
}
