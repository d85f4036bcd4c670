//===- Bench.cpp - timing the example kernels against peers.py's rows -----===//
//
//   tilec-bench --kernels DIR [--system NAME] [--out FILE]
//               [--matmul-tile M,N] [--matmul-persistent]
//               [--attention-block-m M] [WORKLOAD...]
//
// Workloads: add coscos bias_gelu softmax layernorm rmsnorm matmul
// matmul_bias_gelu matmul_fp16 matmul_tf32 matmul_tf32_nt matmul_ragged
// matmul_wave matmul_tma
// matmul_tma_wave matmul_tma_ragged
// matmul_tma_bias_gelu matmul_tma_persistent matmul_tma_persistent_ragged
// matmul_tma_cluster matmul_tma_cluster_ragged
// matmul_tma_fp16 matmul_fp8 attention attention_tma attention_bwd launch
// softmax5000 layernorm3072 (default: all but matmul_bias_gelu, from
// examples/matmul_bias_gelu.tile or the builder's `tilec-examples -o DIR
// matmul_bias_gelu`, matmul_fp16, from examples/matmul_fp16.tile, matmul_tf32,
// the builder's f32 matmul on tf32 tensor cores (8192^3, bench/peers_gemm.py
// matmul_tf32), matmul_tf32_nt, the builder's tf32 GEMM with B as N x K (wgmma
// .tf32), matmul_ragged: DIR/matmul on bf16 4000x4096x4096, matmul_wave:
// DIR/matmul on bf16 1408x2304x8192 (one full wave of 132 programs with 128x192
// tiles, two waves 75% used with 128x128: the shape where a non-power-of-two
// tile wins), matmul_tma, matmul_tma_ragged and matmul_tma_wave,
// examples/matmul_tma.tile (sm_90 and later) on 8192^3, 4000x4096x4096 and
// 1408x2304x8192 (its BLOCK_N, a tile.params value, may be 192 in a copy of the
// file), matmul_tma_bias_gelu, examples/matmul_tma_bias_gelu.tile on 8192^3,
// matmul_tma_persistent and matmul_tma_persistent_ragged,
// examples/matmul_tma_persistent.tile with one program per SM,
// matmul_tma_cluster and matmul_tma_cluster_ragged,
// examples/matmul_tma_cluster.tile on the same shapes (programs in
// clusters of two: the SM count rounded down to whole clusters),
// matmul_tma_fp16, the builder's f16 descriptor matmul, matmul_fp8,
// examples/matmul_fp8.tile on e4m3 8192^3 with one program per SM
// (the descriptor matmuls' grids follow the descriptors' blocks), attention,
// the builder's attention_d128, attention_tma, the builder's attention_tma_d128
// (and attention_tma_d128_n128 when DIR has it: q, k, v through tensor
// descriptors), attention_bwd, the builder's attention_d128 and
// attention_bwd_{pre,dkdv,dq}_d128, and softmax5000 and layernorm3072, the
// kernels of test/GPU/kernels/nonpow2.tile). The matmul grids take 128x128
// tiles unless --matmul-tile says otherwise, or one program per SM with
// --matmul-persistent (the builder's `persistent` matmuls). Each times
// DIR/<name>.ptx|cubin on the workload, shape and
// dtype of /work/shared/bench/peers.py and prints one JSON row per line in
// peers.py's format, with the same `work` strings:
//   {"work": "softmax fp32 32768x4096", "system": "tilec", "ms": 0.2599,
//    "GBps": 4130.8, "TFLOPs": null, "note": ""}
// Timing follows triton.testing.do_bench: an estimate, ~25 ms of warm-up,
// then ~100 ms of runs (10 to 1000), each between two events; the median.
// Inputs are random (never zeros) and, when a set of them would fit in the
// L2 cache several times over, rotated among copies so the cache does not
// flatter. Outputs are poisoned first and sampled after, so a kernel that
// writes nothing cannot post a time. `launch` measures host time per launch
// of a tiny add as peers.py does (100 warm-up, 5000 timed launches, one
// synchronize) for Kernel::launch, a raw cuLaunchKernel loop, a BoundLaunch
// and a CUDA graph of 100 launches.
//
//===----------------------------------------------------------------------===//

#include "GpuHelpers.h"

#include "tilec/Support/CommandLine.h"
#include "tilec/Support/Files.h"
#include "tilec/Support/Json.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <optional>
#include <set>

using namespace tilec::gpu;

namespace {

struct Row {
  std::string work, system;
  double ms = 0, gbps = -1, tflops = -1;
  std::string note;
};
std::vector<Row> gRows;

std::string jsonRow(const Row &r) {
  char ms[32], gb[32], tf[32];
  std::snprintf(ms, sizeof ms, "%.4f", r.ms);
  if (r.gbps >= 0)
    std::snprintf(gb, sizeof gb, "%.1f", r.gbps);
  else
    std::snprintf(gb, sizeof gb, "null");
  if (r.tflops >= 0)
    std::snprintf(tf, sizeof tf, "%.1f", r.tflops);
  else
    std::snprintf(tf, sizeof tf, "null");
  return "{\"work\": " + tilec::json::quote(r.work) +
         ", \"system\": " + tilec::json::quote(r.system) + ", \"ms\": " + ms +
         ", \"GBps\": " + gb + ", \"TFLOPs\": " + tf +
         ", \"note\": " + tilec::json::quote(r.note) + "}";
}

void emit(Row r) {
  std::printf("%s\n", jsonRow(r).c_str());
  std::fflush(stdout);
  gRows.push_back(std::move(r));
}

double nowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class Bencher {
public:
  Bencher(const Context &ctx, std::string system)
      : ctx_(ctx), system_(std::move(system)) {
    int l2 = 0;
    ctx.driver().cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
                                      ctx.device());
    l2Bytes_ = l2 > 0 ? size_t(l2) : size_t(64) << 20;
  }

  /// Copies of an input set that keep repeated runs out of the L2 cache.
  size_t sets(size_t inputBytes) const {
    size_t want = (3 * l2Bytes_ + inputBytes - 1) / inputBytes;
    return std::clamp<size_t>(want, 1, 8);
  }

  /// Median ms of `run(set)` in do_bench's manner.
  double time(const std::function<Status(size_t)> &run, size_t sets) {
    Event a = require(Event::create(ctx_), "event");
    Event b = require(Event::create(ctx_), "event");
    auto once = [&](size_t i) {
      require(a.record(nullptr), "record");
      require(run(i % sets), "launch");
      require(b.record(nullptr), "record");
      require(b.synchronize(), "sync");
      return double(require(Event::elapsedMs(a, b), "elapsed"));
    };
    once(0); // first launch: module already loaded, but caches cold
    double estimate = std::max(1e-3, (once(1) + once(2)) / 2);
    int warm = int(std::clamp(25.0 / estimate, 1.0, 1000.0));
    int reps = int(std::clamp(100.0 / estimate, 10.0, 1000.0));
    for (int i = 0; i < warm; ++i)
      require(run(i % sets), "warm-up");
    std::vector<Event> starts, ends;
    for (int i = 0; i < reps; ++i) {
      starts.push_back(require(Event::create(ctx_), "event"));
      ends.push_back(require(Event::create(ctx_), "event"));
    }
    for (int i = 0; i < reps; ++i) {
      require(starts[i].record(nullptr), "record");
      require(run(size_t(i) % sets), "launch");
      require(ends[i].record(nullptr), "record");
    }
    require(ctx_.synchronize(), "sync");
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i)
      ms.push_back(require(Event::elapsedMs(starts[i], ends[i]), "elapsed"));
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }

  void row(const std::string &work, double ms, double bytes, double flops,
           const std::string &note = "") {
    Row r;
    r.work = work;
    r.system = system_;
    r.ms = ms;
    if (bytes > 0)
      r.gbps = bytes / ms / 1e6;
    if (flops > 0)
      r.tflops = flops / ms / 1e9;
    r.note = note;
    emit(r);
  }

  const Context &ctx() const { return ctx_; }
  const std::string &system() const { return system_; }

private:
  const Context &ctx_;
  std::string system_;
  size_t l2Bytes_;
};

/// A device buffer of `n` random T (a random block repeated), never zeros.
template <typename T>
DeviceBuffer<T> randomBuffer(const Context &ctx, Rng &rng, size_t n,
                             double scale = 1.0) {
  auto b = require(DeviceBuffer<T>::allocate(ctx, n), "alloc");
  const size_t block = std::min<size_t>(n, size_t(1) << 22);
  auto host = randomNormal<T>(rng, block, scale);
  for (size_t at = 0; at < n; at += block) {
    size_t count = std::min(block, n - at);
    require(
        b.memory().copyFromHost(host.data(), count * sizeof(T), at * sizeof(T)),
        "fill");
  }
  return b;
}

/// Poisoned output.
template <typename T>
DeviceBuffer<T> outputBuffer(const Context &ctx, size_t n) {
  auto b = require(DeviceBuffer<T>::allocate(ctx, n), "alloc");
  require(b.memory().fill8(0xff), "poison");
  return b;
}

/// Fails the program if sampled elements of `b` still hold the poison.
template <typename T>
void requireWritten(const DeviceBuffer<T> &b, const std::string &what) {
  size_t step = std::max<size_t>(1, b.size() / 997);
  for (size_t i = 0; i < b.size(); i += step) {
    T v;
    require(b.memory().copyToHost(&v, sizeof(T), i * sizeof(T)), "read");
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    if (std::all_of(bytes, bytes + sizeof(T),
                    [](unsigned char c) { return c == 0xff; })) {
      std::fprintf(stderr, "FATAL %s: element %zu was not written\n",
                   what.c_str(), i);
      std::exit(1);
    }
  }
}

Kernel kernelOf(const Context &ctx, const std::string &dir,
                const std::string &name, std::vector<Module> &keep) {
  keep.push_back(require(loadExample(ctx, dir, name), name));
  return require(keep.back().kernel(name), name);
}

void benchElementwise(Bencher &b, Rng &rng, const std::string &dir, bool coscos,
                      std::vector<Module> &keep) {
  const Context &ctx = b.ctx();
  const int64_t n = int64_t(1) << 28;
  Kernel k = kernelOf(ctx, dir, coscos ? "coscos" : "add", keep);
  size_t sets = b.sets((coscos ? 1 : 2) * n * 4);
  std::vector<DeviceBuffer<float>> xs, ys;
  for (size_t i = 0; i < sets; ++i) {
    xs.push_back(randomBuffer<float>(ctx, rng, n));
    if (!coscos)
      ys.push_back(randomBuffer<float>(ctx, rng, n));
  }
  auto out = outputBuffer<float>(ctx, n);
  Grid grid(ceilDiv(n, 1024));
  double ms = b.time(
      [&](size_t i) {
        return coscos ? k.launch(nullptr, grid, xs[i], out, int32_t(n))
                      : k.launch(nullptr, grid, xs[i], ys[i], out, int32_t(n));
      },
      sets);
  requireWritten(out, coscos ? "coscos" : "add");
  if (coscos)
    b.row("cos(cos(x)) fp32 2^28", ms, 2.0 * 4 * n, 0);
  else
    b.row("add fp32 2^28", ms, 3.0 * 4 * n, 0);
}

void benchBiasGelu(Bencher &b, Rng &rng, const std::string &dir,
                   std::vector<Module> &keep) {
  const Context &ctx = b.ctx();
  const int64_t m = 16384, n = 16384;
  Kernel k = kernelOf(ctx, dir, "bias_gelu", keep);
  size_t sets = b.sets(m * n * 2);
  std::vector<DeviceBuffer<BFloat16>> xs;
  for (size_t i = 0; i < sets; ++i)
    xs.push_back(randomBuffer<BFloat16>(ctx, rng, m * n));
  auto bias = randomBuffer<BFloat16>(ctx, rng, n);
  auto out = outputBuffer<BFloat16>(ctx, m * n);
  Grid grid(ceilDiv(m * n, 2048));
  double ms = b.time(
      [&](size_t i) {
        return k.launch(nullptr, grid, xs[i], bias, out, int32_t(m * n),
                        int32_t(n));
      },
      sets);
  requireWritten(out, "bias_gelu");
  b.row("gelu(x+b) bf16 16384^2", ms, 2.0 * 2 * m * n, 0);
}

/// A row softmax on f32: peers.py's 32768x4096 with examples/softmax.tile,
/// or (softmax5000) 16384 rows of 5000 with the 5000-wide tile of
/// test/GPU/kernels/nonpow2.tile.
void benchSoftmax(Bencher &b, Rng &rng, const std::string &dir,
                  std::vector<Module> &keep, const char *kernel = "softmax",
                  int64_t rows = 32768, int64_t cols = 4096,
                  const char *note = "") {
  const Context &ctx = b.ctx();
  Kernel k = kernelOf(ctx, dir, kernel, keep);
  size_t sets = b.sets(rows * cols * 4);
  std::vector<DeviceBuffer<float>> xs;
  for (size_t i = 0; i < sets; ++i)
    xs.push_back(randomBuffer<float>(ctx, rng, rows * cols));
  auto out = outputBuffer<float>(ctx, rows * cols);
  double ms = b.time(
      [&](size_t i) {
        return k.launch(nullptr, Grid(rows), xs[i], out, int32_t(cols));
      },
      sets);
  requireWritten(out, kernel);
  b.row("softmax fp32 " + std::to_string(rows) + "x" + std::to_string(cols),
        ms, 2.0 * 4 * rows * cols, 0, note);
}

/// Tiles that are not powers of two (issue 16; test/GPU/kernels/nonpow2.tile,
/// compiled with `tilec test/GPU/kernels/nonpow2.tile -o DIR/softmax5000.ptx`
/// and again `-o DIR/layernorm3072.ptx`: each file holds all its kernels):
/// softmax over 16384 rows of 5000 f32 with a 5000-wide tile (10 warps, 120
/// padded slots), layernorm over 32768 rows of 3072 bf16 with a 3072-wide
/// tile (12 warps, exact).
void benchLayernorm3072(Bencher &b, Rng &rng, const std::string &dir,
                        std::vector<Module> &keep) {
  const Context &ctx = b.ctx();
  const int64_t rows = 32768, cols = 3072;
  Kernel k = kernelOf(ctx, dir, "layernorm3072", keep);
  size_t sets = b.sets(rows * cols * 2);
  std::vector<DeviceBuffer<BFloat16>> xs;
  for (size_t i = 0; i < sets; ++i)
    xs.push_back(randomBuffer<BFloat16>(ctx, rng, rows * cols));
  auto w = randomBuffer<BFloat16>(ctx, rng, cols);
  auto bias = randomBuffer<BFloat16>(ctx, rng, cols);
  auto out = outputBuffer<BFloat16>(ctx, rows * cols);
  double ms = b.time(
      [&](size_t i) {
        return k.launch(nullptr, Grid(rows), xs[i], w, bias, out,
                        int32_t(cols), 1e-5f);
      },
      sets);
  requireWritten(out, "layernorm3072");
  b.row("layernorm bf16 32768x3072", ms, 2.0 * 2 * rows * cols, 0,
        "3072-wide tile");
}

void benchNorm(Bencher &b, Rng &rng, const std::string &dir, bool rms,
               std::vector<Module> &keep) {
  const Context &ctx = b.ctx();
  const int64_t rows = 32768, cols = 4096;
  Kernel k = kernelOf(ctx, dir, rms ? "rmsnorm" : "layernorm", keep);
  size_t sets = b.sets(rows * cols * 2 * (rms ? 2 : 1));
  std::vector<DeviceBuffer<Half>> xs, rs;
  for (size_t i = 0; i < sets; ++i) {
    xs.push_back(randomBuffer<Half>(ctx, rng, rows * cols));
    if (rms)
      rs.push_back(randomBuffer<Half>(ctx, rng, rows * cols));
  }
  auto w = randomBuffer<Half>(ctx, rng, cols);
  auto bias = randomBuffer<Half>(ctx, rng, cols);
  auto out = outputBuffer<Half>(ctx, rows * cols);
  auto h = outputBuffer<Half>(ctx, rms ? rows * cols : 0);
  double ms = b.time(
      [&](size_t i) {
        return rms ? k.launch(nullptr, Grid(rows), xs[i], rs[i], w, h, out,
                              int32_t(cols), 1e-6f)
                   : k.launch(nullptr, Grid(rows), xs[i], w, bias, out,
                              int32_t(cols), 1e-5f);
      },
      sets);
  requireWritten(out, rms ? "rmsnorm" : "layernorm");
  if (rms) {
    requireWritten(h, "rmsnorm h_out");
    // Not in peers.py: x and r read, h and y written.
    b.row("rmsnorm fp16 32768x4096", ms, 4.0 * 2 * rows * cols, 0,
          "residual add + RMSNorm; no peer row");
  } else {
    b.row("layernorm fp16 32768x4096", ms, 2.0 * 2 * rows * cols, 0);
  }
}

/// The matmul kernels' tile (their grid): 128x128 unless --matmul-tile.
int64_t gTileM = 128, gTileN = 128;
/// The attention forward's queries per program: 128 unless
/// --attention-block-m (a variant built with another blockM).
int64_t gAttentionBlockM = 128;
/// --matmul-persistent: the matmuls are persistent (grid: one program per
/// SM, each looping over the tiles).
bool gPersistent = false;

/// The device's SM count (persistent grids), or exit naming `what`.
int smCount(const Context &ctx, const char *what) {
  int sms = 0;
  if (ctx.driver().cuDeviceGetAttribute(
          &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, ctx.device()) !=
          CUDA_SUCCESS ||
      sms < 1) {
    std::fprintf(stderr, "FATAL %s: no SM count\n", what);
    std::exit(1);
  }
  return sms;
}

/// One matmul row: kernel DIR/<name> on M x K by K x N, T data (bf16 or
/// f16). The work strings are peers.py's (and bench/peers_gemm.py's).
struct MatmulWork {
  const char *name; ///< the kernel
  const char *work; ///< the row
  int64_t m, n, k;
  bool biasGelu; ///< matmul_bias_gelu: a bias argument after c
};

/// matmul bf16 8192^3; with the bias + GELU epilogue (matmul_bias_gelu:
/// examples/matmul_bias_gelu.tile or the builder's; peers.py's
/// "gelu(A@B+b)" row); f16 (matmul_fp16, peers.py matmul_fp16); the ragged
/// 4000x4096x4096 of issue 12 (matmul_ragged, bench/peers_gemm.py).
template <typename T>
void benchMatmul(Bencher &b, Rng &rng, const std::string &dir,
                 std::vector<Module> &keep, const MatmulWork &w) {
  const Context &ctx = b.ctx();
  Kernel k = kernelOf(ctx, dir, w.name, keep);
  auto a = randomBuffer<T>(ctx, rng, w.m * w.k);
  auto bm = randomBuffer<T>(ctx, rng, w.k * w.n);
  auto bias = randomBuffer<T>(ctx, rng, w.n);
  auto c = outputBuffer<T>(ctx, w.m * w.n);
  Grid grid(ceilDiv(w.m, gTileM), ceilDiv(w.n, gTileN));
  if (gPersistent)
    grid = Grid(smCount(ctx, w.name));
  const int32_t m = int32_t(w.m), n = int32_t(w.n), kk = int32_t(w.k);
  double ms = b.time(
      [&](size_t) {
        if (w.biasGelu)
          return k.launch(nullptr, grid, a, bm, c, bias, m, n, kk, kk, n, n);
        return k.launch(nullptr, grid, a, bm, c, m, n, kk, kk, n, n);
      },
      1);
  requireWritten(c, w.name);
  std::string note;
  if (gTileM != 128 || gTileN != 128)
    note = std::to_string(gTileM) + "x" + std::to_string(gTileN) + " tiles";
  if (gPersistent)
    note += std::string(note.empty() ? "" : ", ") + "persistent, grid " +
            std::to_string(grid.x);
  b.row(w.work, ms, 0, 2.0 * w.m * w.n * w.k, note);
}

/// Flash attention forward, peers.py's "attention" rows: bf16 q, k, v of
/// [4, 32, 4096, 128], causal and not, with the builder's attention_d128
/// (`tilec-examples -o DIR attention_d128`). FLOPs as peers.py counts them:
/// 4 B H S^2 D, half of it causal.
void benchAttention(Bencher &b, Rng &rng, const std::string &dir,
                    std::vector<Module> &keep) {
  const Context &ctx = b.ctx();
  const int64_t B = 4, H = 32, S = 4096, D = 128, n = B * H * S * D;
  Kernel k = kernelOf(ctx, dir, "attention_d128", keep);
  auto q = randomBuffer<BFloat16>(ctx, rng, n);
  auto kk = randomBuffer<BFloat16>(ctx, rng, n);
  auto v = randomBuffer<BFloat16>(ctx, rng, n);
  auto o = outputBuffer<BFloat16>(ctx, n);
  auto lse = outputBuffer<float>(ctx, B * H * S);
  Grid grid(ceilDiv(S, gAttentionBlockM), B * H);
  const int32_t sb = H * S * D, sh = S * D, ss = D;
  const float scale = float(1 / std::sqrt(double(D)));
  for (bool causal : {false, true}) {
    double ms = b.time(
        [&](size_t) {
          return k.launch(nullptr, grid, q, kk, v, o, lse, int32_t(B),
                          int32_t(S), int32_t(H), int32_t(1), sb, sh, ss, sb,
                          sh, ss, sb, sh, ss, sb, sh, ss, scale, causal);
        },
        1);
    requireWritten(o, "attention_d128");
    double flops = 4.0 * B * H * S * S * D / (causal ? 2 : 1);
    b.row(std::string("attention fwd bf16 B4 H32 S4096 D128 causal=") +
              (causal ? "True" : "False"),
          ms, 0, flops);
  }
}

/// The forward through tensor descriptors (the builder's attention_tma_d128
/// and, when DIR has them, attention_tma_d128_n128 (128 keys a step) and
/// the _overlap variants (the softmax beside the previous block's P V),
/// and _overlap_pingpong (the two consumer warpgroups taking turns), and
/// _overlap_pingpong_rf (FlashAttention-3's order within the step)):
/// the same rows as benchAttention, noted.
void benchAttentionTma(Bencher &b, Rng &rng, const std::string &dir,
                       std::vector<Module> &keep) {
  const Context &ctx = b.ctx();
  const int64_t B = 4, H = 32, S = 4096, D = 128, n = B * H * S * D;
  auto q = randomBuffer<BFloat16>(ctx, rng, n);
  auto kk = randomBuffer<BFloat16>(ctx, rng, n);
  auto v = randomBuffer<BFloat16>(ctx, rng, n);
  auto o = outputBuffer<BFloat16>(ctx, n);
  auto lse = outputBuffer<float>(ctx, B * H * S);
  Grid grid(ceilDiv(S, gAttentionBlockM), B * H);
  const int32_t sb = H * S * D, sh = S * D, ss = D;
  const float scale = float(1 / std::sqrt(double(D)));
  for (const char *name :
       {"attention_tma_d128", "attention_tma_d128_n128",
        "attention_tma_d128_overlap", "attention_tma_d128_n128_overlap",
        "attention_tma_d128_n128_overlap_pingpong",
        "attention_tma_d128_n128_overlap_pingpong_rf"}) {
    struct stat st;
    if (std::string(name) != "attention_tma_d128" &&
        stat((dir + "/" + name + ".json").c_str(), &st) != 0)
      continue;
    Kernel k = kernelOf(ctx, dir, name, keep);
    for (bool causal : {false, true}) {
      double ms = b.time(
          [&](size_t) {
            return k.launch(nullptr, grid, tensorDesc(q, {B, H, S, D}),
                            tensorDesc(kk, {B, H, S, D}),
                            tensorDesc(v, {B, H, S, D}), o, lse, int32_t(B),
                            int32_t(S),
                            int32_t(H), int32_t(1), sb, sh, ss, scale, causal);
          },
          1);
      requireWritten(o, name);
      double flops = 4.0 * B * H * S * S * D / (causal ? 2 : 1);
      b.row(std::string("attention fwd bf16 B4 H32 S4096 D128 causal=") +
                (causal ? "True" : "False"),
            ms, 0, flops, std::string(name) + " (TMA, warp-specialized)");
    }
  }
}

/// Flash attention backward, peers.py's "attention_bwd" rows: the same
/// shapes, the builder's attention_bwd_{pre,dkdv,dq}_d128 timed together
/// (delta, then dK and dV, then dQ) after one forward (attention_d128) made
/// O and lse; the backward's kernels on the grids of their rules
/// (tile.grid). FLOPs as peers.py counts them: 2.5 times the forward's.
/// With attention_bwd_{dkdv,dq}_ds_d128 in DIR, also the store-dS variant
/// (rows "... store-dS"); with attention_tma_bwd_{dkdv,dq}_d128 the
/// descriptor kernels, and with attention_tma_bwd_dkdvq_d128 (and
/// attention_bwd_{pre_dqacc,dq_convert}_d128) the dQ-by-atomics backward:
/// delta and the zeroed f32 accumulator, dK/dV adding dQ into it, dq from
/// it; with attention_tma_bwd_dkdvqr_d128 too, the same by TMA
/// reduce-adds.
void benchAttentionBwd(Bencher &b, Rng &rng, const std::string &dir,
                       std::vector<Module> &keep) {
  const Context &ctx = b.ctx();
  const int64_t B = 4, H = 32, S = 4096, D = 128, n = B * H * S * D;
  Kernel fwd = kernelOf(ctx, dir, "attention_d128", keep);
  Kernel pre = kernelOf(ctx, dir, "attention_bwd_pre_d128", keep);
  Kernel dkdv = kernelOf(ctx, dir, "attention_bwd_dkdv_d128", keep);
  Kernel dq = kernelOf(ctx, dir, "attention_bwd_dq_d128", keep);
  auto q = randomBuffer<BFloat16>(ctx, rng, n);
  auto kk = randomBuffer<BFloat16>(ctx, rng, n);
  auto v = randomBuffer<BFloat16>(ctx, rng, n);
  auto dout = randomBuffer<BFloat16>(ctx, rng, n);
  auto o = outputBuffer<BFloat16>(ctx, n);
  auto gq = outputBuffer<BFloat16>(ctx, n), gk = outputBuffer<BFloat16>(ctx, n),
       gv = outputBuffer<BFloat16>(ctx, n);
  auto lse = outputBuffer<float>(ctx, B * H * S);
  auto delta = outputBuffer<float>(ctx, B * H * S);
  const int32_t sb = H * S * D, sh = S * D, ss = D, bt = B, s = S, h = H, g = 1;
  const float scale = float(1 / std::sqrt(double(D)));
  std::optional<Kernel> dkdvDs, dqDs, dkdvTma, dqTma, preAcc, dkdvq, dqConv,
      dkdvqr;
  DeviceBuffer<BFloat16> ds;
  DeviceBuffer<float> dqAcc;
  for (bool causal : {false, true}) {
    require(fwd.launch(nullptr, Grid(ceilDiv(S, gAttentionBlockM), B * H), q, kk, v, o,
                       lse, int32_t(B), s, h, g, sb, sh, ss, sb, sh, ss, sb,
                       sh, ss, sb,
                       sh, ss, scale, causal),
            "attention_d128");
    double ms = b.time(
        [&](size_t) {
          Status st = pre.launch(nullptr, o, dout, delta, bt, s, h, sb, sh, ss,
                                 sb, sh, ss);
          if (st.ok())
            st = dkdv.launch(nullptr, q, kk, v, dout, lse, delta, gk, gv, bt, s,
                             h, g, sb, sh, ss, sb, sh, ss, sb, sh, ss, sb, sh,
                             ss, sb, sh, ss, sb, sh, ss, scale, causal);
          if (st.ok())
            st = dq.launch(nullptr, q, kk, v, dout, lse, delta, gq, bt, s, h, g,
                           sb, sh, ss, sb, sh, ss, sb, sh, ss, sb, sh, ss, sb,
                           sh, ss, scale, causal);
          return st;
        },
        1);
    requireWritten(gq, "attention_bwd_dq_d128");
    requireWritten(gk, "attention_bwd_dkdv_d128");
    double flops = 2.5 * 4.0 * B * H * S * S * D / (causal ? 2 : 1);
    std::string work = std::string("attention bwd bf16 B4 H32 S4096 D128 "
                                   "causal=") +
                       (causal ? "True" : "False");
    b.row(work, ms, 0, flops, "3 kernels: delta, dK+dV, dQ");
    struct stat st;
    // The descriptor (TMA, warp-specialized) dK/dV and dQ, when DIR has
    // them: 128 keys per dK/dV program, 128 queries per dQ program.
    if (stat((dir + "/attention_tma_bwd_dkdv_d128.json").c_str(), &st) == 0) {
      if (!dkdvTma) {
        dkdvTma = kernelOf(ctx, dir, "attention_tma_bwd_dkdv_d128", keep);
        dqTma = kernelOf(ctx, dir, "attention_tma_bwd_dq_d128", keep);
      }
      require(gq.memory().fill8(0xff), "poison");
      require(gk.memory().fill8(0xff), "poison");
      auto qd = tensorDesc(q, {B, H, S, D}), kd = tensorDesc(kk, {B, H, S, D}),
           vd = tensorDesc(v, {B, H, S, D}), dod = tensorDesc(dout, {B, H, S, D});
      ms = b.time(
          [&](size_t) {
            Status st3 = pre.launch(nullptr, o, dout, delta, bt, s, h, sb, sh,
                                    ss, sb, sh, ss);
            if (st3.ok())
              st3 = dkdvTma->launch(nullptr, qd, kd, vd, dod, lse, delta, gk,
                                    gv, bt, s, h, g, sb, sh, ss, sb, sh, ss,
                                    scale, causal);
            if (st3.ok())
              st3 = dqTma->launch(nullptr, qd, kd, vd, dod, lse, delta, gq, bt,
                                  s, h, g, sb, sh, ss, scale, causal);
            return st3;
          },
          1);
      requireWritten(gq, "attention_tma_bwd_dq_d128");
      requireWritten(gk, "attention_tma_bwd_dkdv_d128");
      b.row(work, ms, 0, flops,
            "3 kernels: delta, dK+dV, dQ; TMA, warp-specialized");
      if (stat((dir + "/attention_tma_bwd_dkdvq_d128.json").c_str(), &st) ==
          0) {
        if (!dkdvq) {
          preAcc = kernelOf(ctx, dir, "attention_bwd_pre_dqacc_d128", keep);
          dkdvq = kernelOf(ctx, dir, "attention_tma_bwd_dkdvq_d128", keep);
          dqConv = kernelOf(ctx, dir, "attention_bwd_dq_convert_d128", keep);
          dqAcc = outputBuffer<float>(ctx, n);
        }
        // The three kernels with dK/dV kernel `kernel` adding dQ into the
        // accumulator through `acc` (the pointer, or a descriptor of it).
        auto timeAtomic = [&](Kernel &kernel, const auto &acc,
                              const char *name, const char *note) {
          require(gq.memory().fill8(0xff), "poison");
          require(gk.memory().fill8(0xff), "poison");
          double t = b.time(
              [&](size_t) {
                Status st4 = preAcc->launch(nullptr, o, dout, delta, dqAcc, bt,
                                            s, h, sb, sh, ss, sb, sh, ss);
                if (st4.ok())
                  st4 = kernel.launch(nullptr, qd, kd, vd, dod, lse, delta, gk,
                                      gv, acc, bt, s, h, g, sb, sh, ss, sb, sh,
                                      ss, scale, causal);
                if (st4.ok())
                  st4 = dqConv->launch(nullptr, dqAcc, gq, bt, s, h, sb, sh, ss,
                                       scale);
                return st4;
              },
              1);
          requireWritten(gq, "attention_bwd_dq_convert_d128");
          requireWritten(gk, name);
          b.row(work, t, 0, flops, note);
        };
        timeAtomic(*dkdvq, dqAcc, "attention_tma_bwd_dkdvq_d128",
                   "3 kernels: delta + dQ zeroed, dK+dV+dQ (f32 atomics), dq; "
                   "TMA, warp-specialized");
        // dQ by TMA reduce-adds (attention_tma_bwd_dkdvqr_d128: dq_acc a
        // [B * H, S, D] descriptor), when DIR has it.
        if (stat((dir + "/attention_tma_bwd_dkdvqr_d128.json").c_str(),
                 &st) == 0) {
          if (!dkdvqr)
            dkdvqr = kernelOf(ctx, dir, "attention_tma_bwd_dkdvqr_d128", keep);
          timeAtomic(*dkdvqr, tensorDesc(dqAcc, {B * H, S, D}),
                     "attention_tma_bwd_dkdvqr_d128",
                     "3 kernels: delta + dQ zeroed, dK+dV+dQ (TMA reduce-add), "
                     "dq; TMA, warp-specialized");
        }
      }
    }
    // The store-dS variant (rematerialization's other side), when DIR has
    // it: dK/dV writes dS (bf16, B H S^2: 4.3 GB), dQ = dS K reads it.
    if (stat((dir + "/attention_bwd_dkdv_ds_d128.json").c_str(), &st) != 0)
      continue;
    if (!dkdvDs) {
      dkdvDs = kernelOf(ctx, dir, "attention_bwd_dkdv_ds_d128", keep);
      dqDs = kernelOf(ctx, dir, "attention_bwd_dq_ds_d128", keep);
      ds = outputBuffer<BFloat16>(ctx, size_t(B * H) * S * S);
    }
    require(gq.memory().fill8(0xff), "poison"); // written again, checked
    ms = b.time(
        [&](size_t) {
          Status st2 = pre.launch(nullptr, o, dout, delta, bt, s, h, sb, sh, ss,
                                  sb, sh, ss);
          if (st2.ok())
            st2 = dkdvDs->launch(nullptr, q, kk, v, dout, lse, delta, gk, gv,
                                 ds, bt, s, h, g, sb, sh, ss, sb, sh, ss, sb,
                                 sh, ss, sb, sh, ss, sb, sh, ss, sb, sh, ss,
                                 scale, causal);
          if (st2.ok())
            st2 = dqDs->launch(nullptr, kk, ds, gq, bt, s, h, g, sb, sh, ss, sb,
                               sh, ss, scale, causal);
          return st2;
        },
        1);
    requireWritten(gq, "attention_bwd_dq_ds_d128");
    b.row(work + " store-dS", ms, 0, flops,
          "3 kernels; dS stored, 4.3 GB");
  }
}

/// examples/matmul_tma.tile (A and B through tensor descriptors) on bf16
/// M x K by K x N: peers.py's 8192^3 matmul and bench/peers_gemm.py's
/// ragged 4000x4096x4096; with `biasGelu`,
/// examples/matmul_tma_bias_gelu.tile beside peers.py's gelu(A@B+b).
void benchMatmulTma(Bencher &b, Rng &rng, const std::string &dir,
                    std::vector<Module> &keep, int64_t m, int64_t n,
                    int64_t kk, bool biasGelu = false,
                    bool persistent = false, bool cluster = false) {
  const Context &ctx = b.ctx();
  const char *name = biasGelu     ? "matmul_tma_bias_gelu"
                     : cluster    ? "matmul_tma_cluster"
                     : persistent ? "matmul_tma_persistent"
                                  : "matmul_tma";
  persistent |= cluster;
  Kernel k = kernelOf(ctx, dir, name, keep);
  auto a = randomBuffer<BFloat16>(ctx, rng, m * kk);
  auto bm = randomBuffer<BFloat16>(ctx, rng, kk * n);
  auto bias = randomBuffer<BFloat16>(ctx, rng, n);
  auto c = outputBuffer<BFloat16>(ctx, m * n);
  // The tile: A's block rows by B's block columns (BLOCK_N of the file).
  const auto &params = k.metadata().params;
  Grid grid(ceilDiv(m, params[0].desc.tile[0]),
            ceilDiv(n, params[1].desc.tile[1]));
  if (persistent) { // one program per SM, at most one per tile
    // In clusters: as many whole clusters as fit at once
    // (cuOccupancyMaxActiveClusters), the tile rows rounded up to them.
    int64_t ctas = k.metadata().numCtas;
    int64_t tiles = ceilDiv(int64_t(grid.x), ctas) * ctas * grid.y;
    int64_t resident = smCount(ctx, name);
    if (ctas > 1) {
      Expected<int> r = k.residentPrograms();
      if (!r.ok()) {
        std::fprintf(stderr, "FATAL %s: %s\n", name,
                     r.status().message().c_str());
        std::exit(1);
      }
      resident = *r;
      std::fprintf(stderr, "%s: %lld programs resident (clusters of %lld)\n",
                   name, (long long)resident, (long long)ctas);
    }
    grid = Grid(std::min<int64_t>(tiles, resident));
  }
  double ms = b.time(
      [&](size_t) {
        if (biasGelu)
          return k.launch(nullptr, grid, tensorDesc(a, {m, kk}),
                          tensorDesc(bm, {kk, n}), c, bias, int32_t(m),
                          int32_t(n), int32_t(kk), int32_t(n));
        return k.launch(nullptr, grid, tensorDesc(a, {m, kk}),
                        tensorDesc(bm, {kk, n}), c, int32_t(m), int32_t(n),
                        int32_t(kk), int32_t(n));
      },
      1);
  requireWritten(c, name);
  std::string shape = m == n && n == kk
                          ? std::to_string(n) + "^3"
                          : std::to_string(m) + "x" + std::to_string(n) +
                                "x" + std::to_string(kk);
  std::string work = biasGelu ? "gelu(A@B+b) bf16 " + shape
                              : "matmul bf16 " + shape;
  b.row(work + (cluster      ? " (descriptors, persistent, clusters of 2)"
                : persistent ? " (descriptors, persistent)"
                             : " (descriptors)"),
        ms, 0, 2.0 * m * n * kk, name);
}

/// examples/matmul_fp8.tile on e4m3 8192^3 (A [M, K], B [N, K], scales of
/// one, bf16 out) with one program per SM, beside peers.py's matmul_fp8
/// row (torch._scaled_mm on the same layout).
void benchMatmulFp8(Bencher &b, Rng &rng, const std::string &dir,
                    std::vector<Module> &keep) {
  const Context &ctx = b.ctx();
  const int64_t n = 8192;
  Kernel k = kernelOf(ctx, dir, "matmul_fp8", keep);
  auto a = randomBuffer<Float8E4M3FN>(ctx, rng, n * n);
  auto bm = randomBuffer<Float8E4M3FN>(ctx, rng, n * n);
  auto one = require(DeviceBuffer<float>::allocate(ctx, 1), "alloc");
  const float v1 = 1.0f;
  require(one.memory().copyFromHost(&v1, sizeof v1, 0), "fill");
  auto c = outputBuffer<BFloat16>(ctx, n * n);
  const auto &params = k.metadata().params;
  int64_t tiles = ceilDiv(n, params[0].desc.tile[0]) *
                  ceilDiv(n, params[1].desc.tile[0]);
  Grid grid(std::min<int64_t>(tiles, smCount(ctx, "matmul_fp8")));
  const int32_t v = int32_t(n);
  double ms = b.time(
      [&](size_t) {
        return k.launch(nullptr, grid, tensorDesc(a, {n, n}),
                        tensorDesc(bm, {n, n}), c, one, one, v, v, v, v);
      },
      1);
  requireWritten(c, "matmul_fp8");
  b.row("matmul fp8e4m3 8192^3 (bf16 out, per-tensor scales)", ms, 0,
        2.0 * n * n * n, "matmul_fp8 (descriptors, persistent)");
}

/// A builder descriptor GEMM (a, b as tensor descriptors of n x n, then c
/// and its six integers) of element type T on n = 8192: one program per
/// tile of the descriptors' blocks, or with `persistent` one per SM.
/// `bTransposed`: B's block is [N, K] (its first dim N), else [K, N].
template <typename T>
void benchDescriptorGemm(Bencher &b, Rng &rng, const std::string &dir,
                         std::vector<Module> &keep, const char *name,
                         const std::string &work, const std::string &note,
                         bool bTransposed, bool persistent) {
  const Context &ctx = b.ctx();
  const int64_t n = 8192;
  Kernel k = kernelOf(ctx, dir, name, keep);
  auto a = randomBuffer<T>(ctx, rng, n * n);
  auto bm = randomBuffer<T>(ctx, rng, n * n);
  auto c = outputBuffer<T>(ctx, n * n);
  const auto &params = k.metadata().params;
  int64_t tilesM = ceilDiv(n, params[0].desc.tile[0]),
          tilesN = ceilDiv(n, params[1].desc.tile[bTransposed ? 0 : 1]);
  Grid grid = persistent
                  ? Grid(std::min<int64_t>(tilesM * tilesN, smCount(ctx, name)))
                  : Grid(tilesM, tilesN);
  const int32_t v = int32_t(n);
  double ms = b.time(
      [&](size_t) {
        return k.launch(nullptr, grid, tensorDesc(a, {n, n}),
                        tensorDesc(bm, {n, n}), c, v, v, v, v, v, v);
      },
      1);
  requireWritten(c, name);
  b.row(work, ms, 0, 2.0 * n * n * n, note);
}

void benchLaunch(Bencher &b, Rng &rng, const std::string &dir,
                 std::vector<Module> &keep) {
  const Context &ctx = b.ctx();
  const std::string work = "launch tiny add n=4096 (host us per launch)";
  Kernel k = kernelOf(ctx, dir, "add", keep);
  const int n = 4096;
  auto x = randomBuffer<float>(ctx, rng, n),
       y = randomBuffer<float>(ctx, rng, n);
  auto z = outputBuffer<float>(ctx, n);
  Stream stream = require(Stream::create(ctx), "stream");
  CUstream s = stream;
  const Grid grid(4);
  BoundLaunch bound = require(k.bind(x, y, z, n), "bind");
  const Driver &d = ctx.driver();
  CUfunction f = k.function();
  uint64_t xa = x.ptr().address, ya = y.ptr().address, za = z.ptr().address;
  int32_t nn = n;
  void *args[] = {&xa, &ya, &za, &nn};
  bool failed = false;

  auto hostUs = [&](const std::function<void()> &fn, int iters) {
    for (int i = 0; i < 100; ++i)
      fn();
    require(stream.synchronize(), "sync");
    double t0 = nowMs();
    for (int i = 0; i < iters; ++i)
      fn();
    require(stream.synchronize(), "sync");
    return (nowMs() - t0) * 1000.0 / iters;
  };
  auto emitUs = [&](const std::string &system, double us) {
    Row r;
    r.work = work;
    r.system = system;
    r.ms = us / 1000.0;
    char note[64];
    std::snprintf(note, sizeof note, "%.2f us/launch", us);
    r.note = note;
    emit(r);
  };
  emitUs(b.system(),
         hostUs([&] { failed |= !k.launch(s, grid, x, y, z, n).ok(); }, 5000));
  emitUs("raw cuLaunchKernel",
         hostUs(
             [&] {
               failed |= d.cuLaunchKernel(f, 4, 1, 1, 128, 1, 1, 0, s, args,
                                          nullptr) != CUDA_SUCCESS;
             },
             5000));
  emitUs(b.system() + " bound launch",
         hostUs([&] { failed |= !bound.launch(s, grid).ok(); }, 5000));
  auto graph = require(Graph::capture(ctx, stream,
                                      [&]() -> Status {
                                        for (int i = 0; i < 100; ++i)
                                          TILEC_RETURN_IF_ERROR(
                                              k.launch(s, grid, x, y, z, n));
                                        return Status();
                                      }),
                       "graph");
  emitUs(b.system() + " in CUDA graph x100",
         hostUs([&] { failed |= !graph.launch(s).ok(); }, 200) / 100.0);
  if (failed) {
    std::fprintf(stderr, "FATAL launch: a launch failed\n");
    std::exit(1);
  }
  requireWritten(z, "launch add");
}

} // namespace

int main(int argc, char **argv) {
  std::string dir, out, system = "tilec";
  std::vector<std::string> work;
  const std::set<std::string> known = {"add",
                                       "coscos",
                                       "bias_gelu",
                                       "softmax",
                                       "layernorm",
                                       "rmsnorm",
                                       "matmul",
                                       "matmul_bias_gelu",
                                       "matmul_fp16",
                                       "matmul_tf32",
                                       "matmul_tf32_nt",
                                       "matmul_ragged",
                                       "matmul_wave",
                                       "matmul_tma",
                                       "matmul_tma_ragged",
                                       "matmul_tma_wave",
                                       "matmul_tma_bias_gelu",
                                       "matmul_tma_persistent",
                                       "matmul_tma_persistent_ragged",
                                       "matmul_tma_cluster",
                                       "matmul_tma_cluster_ragged",
                                       "matmul_tma_fp16",
                                       "matmul_fp8",
                                       "attention",
                                       "attention_tma",
                                       "attention_bwd",
                                       "launch",
                                       "softmax5000",
                                       "layernorm3072"};
  std::string tile;
  tilec::cli::CommandLine cl(
      "tilec-bench",
      "tilec-bench --kernels DIR [--system NAME] [--out FILE] "
      "[--matmul-tile M,N] [--matmul-persistent] [--attention-block-m M] "
      "[WORK...]",
      "Times tilec's kernels on the GPU (scripts/gpu-bench.sh runs it beside "
      "peers.py). WORK: add coscos bias_gelu softmax layernorm rmsnorm "
      "matmul matmul_bias_gelu matmul_fp16 matmul_tf32 matmul_tf32_nt "
      "matmul_ragged matmul_wave "
      "matmul_tma matmul_tma_wave "
      "matmul_tma_ragged matmul_tma_bias_gelu matmul_tma_persistent "
      "matmul_tma_persistent_ragged matmul_tma_cluster "
      "matmul_tma_cluster_ragged matmul_tma_fp16 matmul_fp8 attention "
      "attention_tma "
      "attention_bwd launch "
      "softmax5000 layernorm3072 (default: add coscos bias_gelu softmax "
      "layernorm rmsnorm matmul launch).");
  CLI::App &app = cl.app();
  app.add_option("work", work, "what to time")->check(CLI::IsMember(known));
  app.add_option("--kernels", dir, "the compiled kernels' folder")->required();
  app.add_option("--system", system, "the name of the rows' system")
      ->default_str(system);
  app.add_option("--out", out, "also write the rows to this JSON file");
  app.add_option("--matmul-tile", tile, "the matmul's tile (M,N)");
  app.add_option("--attention-block-m", gAttentionBlockM,
                 "the attention forward's queries per program (default 128)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 20));
  app.add_flag("--matmul-persistent", gPersistent,
               "the matmuls are persistent: launch one program per SM");
  if (int status = cl.parse(argc, argv); status >= 0)
    return status;
  if (!tile.empty() &&
      (std::sscanf(tile.c_str(), "%ld,%ld", &gTileM, &gTileN) != 2 ||
       gTileM <= 0 || gTileN <= 0))
    return cl.usageError("--matmul-tile takes M,N, got '" + tile + "'");
  // The folder of --out, made before the run so that a path that cannot be
  // written fails at once rather than after the timings.
  if (std::string error;
      !out.empty() && !tilec::support::createParentFolders(out, error)) {
    std::fprintf(stderr, "tilec-bench: error: %s\n", error.c_str());
    return 1;
  }
  if (work.empty())
    work = {"add",       "coscos",  "bias_gelu", "softmax",
            "layernorm", "rmsnorm", "matmul",    "launch"};
  Context ctx = require(Context::create(0), "CUDA context");
  std::printf("device %s (%s) driver %s\n", ctx.deviceName().c_str(),
              ctx.arch().c_str(), ctx.driver().identity().c_str());
  Bencher b(ctx, system);
  Rng rng(2026);
  for (const std::string &w : work) {
    std::vector<Module> keep; // freed after each workload
    if (w == "add" || w == "coscos")
      benchElementwise(b, rng, dir, w == "coscos", keep);
    else if (w == "bias_gelu")
      benchBiasGelu(b, rng, dir, keep);
    else if (w == "softmax")
      benchSoftmax(b, rng, dir, keep);
    else if (w == "layernorm" || w == "rmsnorm")
      benchNorm(b, rng, dir, w == "rmsnorm", keep);
    else if (w == "matmul")
      benchMatmul<BFloat16>(
          b, rng, dir, keep,
          {"matmul", "matmul bf16 8192^3", 8192, 8192, 8192, false});
    else if (w == "matmul_bias_gelu")
      benchMatmul<BFloat16>(b, rng, dir, keep,
                            {"matmul_bias_gelu", "gelu(A@B+b) bf16 8192^3",
                             8192, 8192, 8192, true});
    else if (w == "matmul_fp16")
      benchMatmul<Half>(
          b, rng, dir, keep,
          {"matmul_fp16", "matmul fp16 8192^3", 8192, 8192, 8192, false});
    else if (w == "matmul_tf32")
      benchMatmul<float>(
          b, rng, dir, keep,
          {"matmul_tf32", "matmul tf32 8192^3", 8192, 8192, 8192, false});
    else if (w == "matmul_tf32_nt")
      // bench/peers_gemm.py's tf32 row (cuBLAS at allow_tf32): for a
      // square product A B^T is the same work as A B.
      benchDescriptorGemm<float>(
          b, rng, dir, keep, "matmul_tf32_nt", "matmul tf32 8192^3",
          "matmul_tf32_nt (B as N x K; wgmma .tf32, descriptors, persistent)",
          /*bTransposed=*/true, /*persistent=*/true);
    else if (w == "matmul_ragged")
      benchMatmul<BFloat16>(
          b, rng, dir, keep,
          {"matmul", "matmul bf16 4000x4096x4096", 4000, 4096, 4096, false});
    else if (w == "matmul_wave")
      benchMatmul<BFloat16>(
          b, rng, dir, keep,
          {"matmul", "matmul bf16 1408x2304x8192", 1408, 2304, 8192, false});
    else if (w == "attention_tma")
      benchAttentionTma(b, rng, dir, keep);
    else if (w == "attention")
      benchAttention(b, rng, dir, keep);
    else if (w == "attention_bwd")
      benchAttentionBwd(b, rng, dir, keep);
    else if (w == "softmax5000")
      benchSoftmax(b, rng, dir, keep, "softmax5000", 16384, 5000,
                   "5000-wide tile");
    else if (w == "layernorm3072")
      benchLayernorm3072(b, rng, dir, keep);
    else if (w == "matmul_tma")
      benchMatmulTma(b, rng, dir, keep, 8192, 8192, 8192);
    else if (w == "matmul_tma_wave")
      benchMatmulTma(b, rng, dir, keep, 1408, 2304, 8192);
    else if (w == "matmul_tma_ragged")
      benchMatmulTma(b, rng, dir, keep, 4000, 4096, 4096);
    else if (w == "matmul_tma_persistent")
      benchMatmulTma(b, rng, dir, keep, 8192, 8192, 8192, false, true);
    else if (w == "matmul_tma_persistent_ragged")
      benchMatmulTma(b, rng, dir, keep, 4000, 4096, 4096, false, true);
    else if (w == "matmul_tma_cluster")
      benchMatmulTma(b, rng, dir, keep, 8192, 8192, 8192, false, true, true);
    else if (w == "matmul_tma_cluster_ragged")
      benchMatmulTma(b, rng, dir, keep, 4000, 4096, 4096, false, true, true);
    else if (w == "matmul_tma_fp16")
      // The builder's f16 descriptor matmul, beside peers.py's matmul_fp16.
      benchDescriptorGemm<Half>(b, rng, dir, keep, "matmul_tma_fp16",
                                "matmul fp16 8192^3 (descriptors)",
                                "matmul_tma_fp16", /*bTransposed=*/false,
                                /*persistent=*/false);
    else if (w == "matmul_fp8")
      benchMatmulFp8(b, rng, dir, keep);
    else if (w == "matmul_tma_bias_gelu")
      benchMatmulTma(b, rng, dir, keep, 8192, 8192, 8192, /*biasGelu=*/true);
    else
      benchLaunch(b, rng, dir, keep);
  }
  if (!out.empty()) {
    FILE *f = std::fopen(out.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "tilec-bench: cannot write %s\n", out.c_str());
      return 1;
    }
    std::fprintf(f, "[\n");
    for (size_t i = 0; i < gRows.size(); ++i)
      std::fprintf(f, " %s%s\n", jsonRow(gRows[i]).c_str(),
                   i + 1 < gRows.size() ? "," : "");
    std::fprintf(f, "]\n");
    std::fclose(f);
  }
  return 0;
}
