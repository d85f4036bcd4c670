//===- Bench.cpp - timing the example kernels against peers.py's rows -----===//
//
//   tilec-bench --kernels DIR [--system NAME] [--out FILE]
//               [--matmul-tile M,N] [WORKLOAD...]
//
// Workloads: add coscos bias_gelu softmax layernorm rmsnorm matmul
// matmul_bias_gelu matmul_tma launch (default: all but matmul_bias_gelu,
// which is the builder's example, `tilec-examples -o DIR matmul_bias_gelu`,
// and matmul_tma, sm_90 and later: examples/matmul_tma.tile). The matmul
// grid takes 128x128 tiles unless --matmul-tile says otherwise. Each times DIR/<name>.ptx|cubin on the workload, shape and
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

void benchSoftmax(Bencher &b, Rng &rng, const std::string &dir,
                  std::vector<Module> &keep) {
  const Context &ctx = b.ctx();
  const int64_t rows = 32768, cols = 4096;
  Kernel k = kernelOf(ctx, dir, "softmax", keep);
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
  requireWritten(out, "softmax");
  b.row("softmax fp32 32768x4096", ms, 2.0 * 4 * rows * cols, 0);
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

/// matmul bf16 8192^3, or with the bias + GELU epilogue (the builder's
/// matmul_bias_gelu; peers.py's "gelu(A@B+b)" row).
void benchMatmul(Bencher &b, Rng &rng, const std::string &dir,
                 std::vector<Module> &keep, bool biasGelu) {
  const Context &ctx = b.ctx();
  const int64_t n = 8192;
  const char *name = biasGelu ? "matmul_bias_gelu" : "matmul";
  Kernel k = kernelOf(ctx, dir, name, keep);
  auto a = randomBuffer<BFloat16>(ctx, rng, n * n);
  auto bm = randomBuffer<BFloat16>(ctx, rng, n * n);
  auto bias = randomBuffer<BFloat16>(ctx, rng, n);
  auto c = outputBuffer<BFloat16>(ctx, n * n);
  Grid grid(ceilDiv(n, gTileM), ceilDiv(n, gTileN));
  double ms = b.time(
      [&](size_t) {
        if (biasGelu)
          return k.launch(nullptr, grid, a, bm, c, bias, int32_t(n),
                          int32_t(n), int32_t(n), int32_t(n), int32_t(n),
                          int32_t(n));
        return k.launch(nullptr, grid, a, bm, c, int32_t(n), int32_t(n),
                        int32_t(n), int32_t(n), int32_t(n), int32_t(n));
      },
      1);
  requireWritten(c, name);
  std::string note;
  if (gTileM != 128 || gTileN != 128)
    note = std::to_string(gTileM) + "x" + std::to_string(gTileN) + " tiles";
  b.row(biasGelu ? "gelu(A@B+b) bf16 8192^3" : "matmul bf16 8192^3", ms, 0,
        2.0 * n * n * n, note);
}

/// examples/matmul_tma.tile (A and B through tensor descriptors, TMA on
/// sm_90) at bf16 8192^3: its own row, beside the pointer matmul's.
void benchMatmulTma(Bencher &b, Rng &rng, const std::string &dir,
                    std::vector<Module> &keep) {
  const Context &ctx = b.ctx();
  const int64_t n = 8192;
  Kernel k = kernelOf(ctx, dir, "matmul_tma", keep);
  auto a = randomBuffer<BFloat16>(ctx, rng, n * n);
  auto bm = randomBuffer<BFloat16>(ctx, rng, n * n);
  auto c = outputBuffer<BFloat16>(ctx, n * n);
  Grid grid(ceilDiv(n, 128), ceilDiv(n, 128));
  double ms = b.time(
      [&](size_t) {
        return k.launch(nullptr, grid, tensorDesc(a, {n, n}),
                        tensorDesc(bm, {n, n}), c, int32_t(n), int32_t(n),
                        int32_t(n), int32_t(n));
      },
      1);
  requireWritten(c, "matmul_tma");
  b.row("matmul bf16 8192^3 (descriptors)", ms, 0, 2.0 * n * n * n,
        "matmul_tma");
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
  const std::set<std::string> known = {
      "add",     "coscos", "bias_gelu",        "softmax", "layernorm",
      "rmsnorm", "matmul", "matmul_bias_gelu", "matmul_tma", "launch"};
  std::string tile;
  tilec::cli::CommandLine cl(
      "tilec-bench",
      "tilec-bench --kernels DIR [--system NAME] [--out FILE] "
      "[--matmul-tile M,N] [WORK...]",
      "Times tilec's kernels on the GPU (scripts/gpu-bench.sh runs it beside "
      "peers.py). WORK: add coscos bias_gelu softmax layernorm rmsnorm "
      "matmul matmul_bias_gelu matmul_tma launch (default: all but "
      "matmul_bias_gelu and matmul_tma).");
  CLI::App &app = cl.app();
  app.add_option("work", work, "what to time")->check(CLI::IsMember(known));
  app.add_option("--kernels", dir, "the compiled kernels' folder")->required();
  app.add_option("--system", system, "the name of the rows' system")
      ->default_str(system);
  app.add_option("--out", out, "also write the rows to this JSON file");
  app.add_option("--matmul-tile", tile, "the matmul's tile (M,N)");
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
    else if (w == "matmul" || w == "matmul_bias_gelu")
      benchMatmul(b, rng, dir, keep, w == "matmul_bias_gelu");
    else if (w == "matmul_tma")
      benchMatmulTma(b, rng, dir, keep);
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
