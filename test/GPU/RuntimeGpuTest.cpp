//===- RuntimeGpuTest.cpp - the runtime on a real GPU ---------------------===//
//
//   tilec-runtime-gpu-tests --fixtures DIR [--json FILE]
//
// Checks and measures the runtime itself on the device, with the fixture
// kernels (test/GPU/fixtures, built by nvcc into DIR):
//   - PTX load: the driver's own cuModuleLoadData, a cold tilec load (JIT +
//     cache store) and a cached one, per module, with the driver's own JIT
//     cache off; a cached load must be a cubin from the cache and take at
//     most 5 ms (median over modules);
//   - bad PTX: the error carries the driver's JIT log;
//   - scalars of every ABI width, more than 48 KiB of dynamic shared memory,
//     a grid the runtime refuses;
//   - launch overhead of a tiny add (n = 4096): host time per launch of a
//     raw cuLaunchKernel loop, Kernel::launch, BoundLaunch::launch and a CUDA
//     graph of tilec launches, in the same run; Kernel::launch must stay
//     within 1.2x of raw, both in peers.py's way (5000 launches, then a
//     synchronize) and counting only the enqueueing (bursts of 200);
//   - graph capture and replay give the right result;
//   - tensor descriptors (fixture tma.cu, sm_90a only): a TMA load of 64 x 64
//     bf16 boxes of a random ragged 200 x 77 tensor (rows padded to 80,
//     padding poisoned) through a map the runtime encodes, passes by value
//     and caches, every element compared with the host (out of bounds:
//     zero), and the host time of a descriptor launch against a raw
//     cuLaunchKernel of the same kernel with a pre-encoded map (must be
//     within 1.1x).
// Prints PASS/FAIL lines and MEASURE lines; --json writes the measurements.
//
//===----------------------------------------------------------------------===//

#include "GpuHelpers.h"

#include "tilec/Runtime/Cache.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

using namespace tilec::gpu;

namespace {

int gPassed = 0, gFailed = 0;
std::map<std::string, double> gMeasures;

void report(bool ok, const std::string &what, const std::string &detail) {
  std::printf("%s %s: %s\n", ok ? "PASS" : "FAIL", what.c_str(),
              detail.c_str());
  std::fflush(stdout);
  (ok ? gPassed : gFailed)++;
}

void measure(const std::string &key, double value) {
  gMeasures[key] = value;
  std::printf("MEASURE %s = %.4f\n", key.c_str(), value);
  std::fflush(stdout);
}

double nowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string fixed(double v, int digits = 3) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

/// A launch-overhead check: tilec's median time per launch against the raw
/// loop's, within `limit`.
void reportOverhead(const std::string &what, double tilecUs, double rawUs,
                    double limit) {
  double ratio = tilecUs / rawUs;
  report(ratio <= limit, what,
         "tilec " + fixed(tilecUs) + " us, raw " + fixed(rawUs) +
             " us, ratio " + fixed(ratio) + " (limit " + fixed(limit, 1) + ")");
}

void testLoads(const Context &ctx, const std::string &dir) {
  char tmpl[] = "/tmp/tilec-gpu-cache-XXXXXX";
  std::string cacheDir = mkdtemp(tmpl) ? tmpl : "/tmp/tilec-gpu-cache";
  LoadOptions options;
  options.cacheDir = cacheDir;
  const Driver &d = ctx.driver();
  std::vector<double> cached;
  for (const char *name : {"add", "coscos", "bias_gelu", "softmax", "layernorm",
                           "rmsnorm", "matmul", "runtime"}) {
    std::string base = dir + "/" + name;
    auto ptx = readFile(base + ".ptx");
    auto json = readFile(base + ".json");
    if (!ptx.ok() || !json.ok()) {
      report(false, std::string("load ") + name,
             ptx.ok() ? json.message() : ptx.message());
      continue;
    }
    // The driver alone: what every PTX load would cost without the cache.
    double t0 = nowMs();
    CUmodule raw = nullptr;
    CUresult r = d.cuModuleLoadData(&raw, ptx->c_str());
    double rawMs = nowMs() - t0;
    if (r == CUDA_SUCCESS)
      d.cuModuleUnload(raw);
    auto cold = Module::loadPtx(ctx, *ptx, *json, options);
    auto warm = Module::loadPtx(ctx, *ptx, *json, options);
    if (!cold.ok() || !warm.ok()) {
      report(false, std::string("load ") + name,
             cold.ok() ? warm.message() : cold.message());
      continue;
    }
    double coldMs = cold->loadInfo().milliseconds;
    double warmMs = warm->loadInfo().milliseconds;
    cached.push_back(warmMs);
    measure(std::string("load_ms.driver_ptx.") + name, rawMs);
    measure(std::string("load_ms.tilec_cold.") + name, coldMs);
    measure(std::string("load_ms.tilec_cached.") + name, warmMs);
    bool ok = cold->loadInfo().source == LoadInfo::Source::CompiledPtx &&
              warm->loadInfo().source == LoadInfo::Source::CachedCubin &&
              cold->loadInfo().cacheNote.empty();
    report(ok, std::string("load ") + name,
           "driver PTX " + fixed(rawMs) + " ms, tilec cold " + fixed(coldMs) +
               " ms, cached " + fixed(warmMs) + " ms" +
               (cold->loadInfo().cacheNote.empty()
                    ? ""
                    : " (cache: " + cold->loadInfo().cacheNote + ")"));
  }
  double med = median(cached);
  measure("load_ms.tilec_cached.median", med);
  report(!cached.empty() && med <= 5.0, "cached load is a few ms",
         "median " + fixed(med) + " ms over " + std::to_string(cached.size()) +
             " modules (limit 5 ms)");

  // Bad PTX: the driver's JIT log comes back in the message.
  auto ptx = readFile(dir + "/add.ptx");
  auto json = readFile(dir + "/add.json");
  if (ptx.ok() && json.ok()) {
    std::string bad = *ptx;
    size_t at = bad.find("ret;");
    if (at != std::string::npos)
      bad.replace(at, 4, "bogus.instruction %r1;");
    auto m = Module::loadPtx(ctx, bad, *json, options);
    bool ok =
        !m.ok() &&
        m.message().find("could not compile the PTX") != std::string::npos &&
        m.message().find(":\n") != std::string::npos;
    report(ok, "bad PTX reports the JIT log", m.ok() ? "loaded" : m.message());
  }
  if (std::system(("rm -rf '" + cacheDir + "'").c_str()) != 0)
    std::fprintf(stderr, "could not remove %s\n", cacheDir.c_str());
}

void testKernels(const Context &ctx, const std::string &dir, Rng &rng) {
  Module runtime = require(loadExample(ctx, dir, "runtime"), "runtime.ptx");
  // Scalars of every width: i64 n, f32 value, f16 half, i1 flag.
  {
    Kernel k = require(runtime.kernel("scalars"), "scalars");
    const int64_t n = 1000;
    std::vector<float> ones(n, 1.0f), out(n);
    auto x = require(DeviceBuffer<float>::fromHost(ctx, ones), "x");
    Status s = k.launch(nullptr, Grid(ceilDiv(n, 128)), x, n, 2.0f,
                        Half::fromFloat(0.5f), true);
    if (s.ok())
      s = k.launch(nullptr, Grid(ceilDiv(n, 128)), x, n, 0.25, Half(), false);
    if (s.ok())
      s = x.copyToHost(out);
    bool ok = s.ok() && std::all_of(out.begin(), out.end(),
                                    [](float v) { return v == 3.75f; });
    report(ok, "scalars i64/f32/f16/i1",
           s.ok() ? "x = 1 + (2 + 0.5) + 0.25 -> " + fixed(out[0], 4)
                  : s.message());
  }
  // 100 KiB of dynamic shared memory.
  {
    Kernel k = require(runtime.kernel("smem_reverse"), "smem_reverse");
    const int n = 25600; // exactly the 102400 bytes the metadata declares
    auto x = randomNormal<float>(rng, n);
    std::vector<float> out(n);
    auto dx = require(DeviceBuffer<float>::fromHost(ctx, x), "x");
    auto dy = require(DeviceBuffer<float>::allocate(ctx, n), "y");
    require(dy.memory().fill8(0xff), "poison");
    Status s = k.launch(nullptr, Grid(1), dx, dy, n);
    if (s.ok())
      s = ctx.synchronize();
    if (s.ok())
      s = dy.copyToHost(out);
    bool ok = s.ok();
    for (int i = 0; ok && i < n; ++i)
      ok = out[i] == x[n - 1 - i];
    report(ok, "100 KiB dynamic shared memory",
           s.ok() ? (ok ? "reversed through shared memory" : "wrong values")
                  : s.message());
  }
  // A refused grid never reaches the driver.
  {
    Module add = require(loadExample(ctx, dir, "add"), "add");
    Kernel k = require(add.kernel("add"), "add");
    auto x = require(DeviceBuffer<float>::allocate(ctx, 16), "x");
    Status s = k.launch(nullptr, Grid(1, 70000), x, x, x, 16);
    report(!s.ok() && s.message().find("y exceeds") != std::string::npos,
           "grid y = 70000 refused", s.ok() ? "launched" : s.message());
  }
}

/// Host microseconds per call of `launch`, peers.py's way: 100 warm-up
/// calls, then `iters` calls and one synchronize, all timed.
template <typename F>
double hostUsPerLaunch(const Stream &stream, F &&launch, int iters) {
  for (int i = 0; i < 100; ++i)
    launch();
  require(stream.synchronize(), "sync");
  double t0 = nowMs();
  for (int i = 0; i < iters; ++i)
    launch();
  require(stream.synchronize(), "sync");
  return (nowMs() - t0) * 1000.0 / iters;
}

/// Host microseconds per enqueue: bursts of `burst` launches timed up to
/// the last call's return (the GPU cannot fall behind that far), median of
/// `bursts`.
template <typename F>
double enqueueUsPerLaunch(const Stream &stream, F &&launch, int burst,
                          int bursts) {
  std::vector<double> per;
  for (int b = 0; b < bursts; ++b) {
    require(stream.synchronize(), "sync");
    double t0 = nowMs();
    for (int i = 0; i < burst; ++i)
      launch();
    per.push_back((nowMs() - t0) * 1000.0 / burst);
  }
  require(stream.synchronize(), "sync");
  return median(per);
}

void testLaunches(const Context &ctx, const std::string &dir, Rng &rng) {
  Module add = require(loadExample(ctx, dir, "add"), "add");
  Kernel k = require(add.kernel("add"), "add");
  Stream stream = require(Stream::create(ctx), "stream");
  const int n = 4096;
  auto xh = randomNormal<float>(rng, n), yh = randomNormal<float>(rng, n);
  auto x = require(DeviceBuffer<float>::fromHost(ctx, xh), "x");
  auto y = require(DeviceBuffer<float>::fromHost(ctx, yh), "y");
  auto z = require(DeviceBuffer<float>::allocate(ctx, n), "z");
  const Grid grid(ceilDiv(n, 1024));
  BoundLaunch bound = require(k.bind(x, y, z, n), "bind");

  const Driver &d = ctx.driver();
  CUfunction f = k.function();
  uint64_t xa = x.ptr().address, ya = y.ptr().address, za = z.ptr().address;
  int32_t nn = n;
  void *args[] = {&xa, &ya, &za, &nn};
  CUstream s = stream;
  bool failed = false;
  auto raw = [&] {
    failed |= d.cuLaunchKernel(f, unsigned(grid.x), 1, 1, 128, 1, 1, 0, s, args,
                               nullptr) != CUDA_SUCCESS;
  };
  auto tilec = [&] { failed |= !k.launch(s, grid, x, y, z, n).ok(); };
  auto boundLaunch = [&] { failed |= !bound.launch(s, grid).ok(); };

  // Interleaved rounds, so that clock or load drift hits all alike.
  std::map<std::string, std::vector<double>> host, enqueue;
  for (int round = 0; round < 5; ++round) {
    host["raw"].push_back(hostUsPerLaunch(stream, raw, 5000));
    host["tilec"].push_back(hostUsPerLaunch(stream, tilec, 5000));
    host["bound"].push_back(hostUsPerLaunch(stream, boundLaunch, 5000));
    enqueue["raw"].push_back(enqueueUsPerLaunch(stream, raw, 200, 25));
    enqueue["tilec"].push_back(enqueueUsPerLaunch(stream, tilec, 200, 25));
    enqueue["bound"].push_back(
        enqueueUsPerLaunch(stream, boundLaunch, 200, 25));
  }
  for (auto &[name, v] : host)
    measure("launch_us.host." + name, median(v));
  for (auto &[name, v] : enqueue)
    measure("launch_us.enqueue." + name, median(v));
  double hostRatio = median(host["tilec"]) / median(host["raw"]);
  double enqRatio = median(enqueue["tilec"]) / median(enqueue["raw"]);
  measure("launch_ratio.host.tilec_over_raw", hostRatio);
  measure("launch_ratio.enqueue.tilec_over_raw", enqRatio);
  report(!failed, "launch loops", failed ? "a launch failed" : "no errors");
  reportOverhead("launch overhead (5000 launches + sync)",
                 median(host["tilec"]), median(host["raw"]), 1.2);
  reportOverhead("launch overhead (enqueue only)", median(enqueue["tilec"]),
                 median(enqueue["raw"]), 1.2);

  // A graph of 100 tilec launches: z = x + y each time; replays must
  // recompute it (z is poisoned between replays).
  auto graph = Graph::capture(ctx, stream, [&]() -> Status {
    for (int i = 0; i < 100; ++i)
      TILEC_RETURN_IF_ERROR(k.launch(stream, grid, x, y, z, n));
    return Status();
  });
  if (!graph.ok()) {
    report(false, "graph capture", graph.message());
    return;
  }
  require(z.memory().fill8(0xff), "poison");
  Status gs = graph->launch(stream);
  if (gs.ok())
    gs = stream.synchronize();
  std::vector<float> zh(n);
  if (gs.ok())
    gs = z.copyToHost(zh);
  bool ok = gs.ok();
  for (int i = 0; ok && i < n; ++i)
    ok = zh[i] == xh[i] + yh[i];
  report(ok, "graph replay computes z = x + y",
         gs.ok() ? (ok ? "all 4096 elements" : "wrong values") : gs.message());
  std::vector<double> perLaunch;
  for (int round = 0; round < 5; ++round)
    perLaunch.push_back(
        hostUsPerLaunch(
            stream, [&] { failed |= !graph->launch(stream).ok(); }, 200) /
        100.0);
  measure("launch_us.host.tilec_graph_x100", median(perLaunch));
}

/// The host's view of the tma_box kernel's output: the 64 x 64 box of the
/// M x K bf16 tensor `a` (rows `lda` apart) at (row0, col0), zero outside.
std::vector<uint16_t> expectedBox(const std::vector<BFloat16> &a, int M, int K,
                                  int lda, int row0, int col0) {
  std::vector<uint16_t> box(64 * 64, 0);
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 64; ++c) {
      int gr = row0 + r, gc = col0 + c;
      if (gr >= 0 && gr < M && gc >= 0 && gc < K)
        box[r * 64 + c] = a[size_t(gr) * lda + gc].bits;
    }
  return box;
}

void testTensorDescriptors(const Context &ctx, const std::string &dir,
                           Rng &rng) {
  if (ctx.arch() != "sm_90") {
    report(true, "tensor descriptors",
           "skipped: the fixture is sm_90a code, "
           "the device is " +
               ctx.arch());
    return;
  }
  Module tma = require(loadExample(ctx, dir, "tma"), "tma.ptx");
  Kernel k = require(tma.kernel("tma_box"), "tma_box");
  // Ragged: neither dimension a multiple of the 64 x 64 block; rows padded
  // to 80 elements (160 bytes, a multiple of 16), the padding poisoned with
  // a value the kernel must never return (it is outside the tensor).
  const int M = 200, K = 77, lda = 80;
  std::vector<BFloat16> a(size_t(M) * lda, BFloat16::fromFloat(-777.0f));
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < K; ++c)
      a[size_t(r) * lda + c] = BFloat16::fromFloat(float(rng.normal()));
  auto da = require(DeviceBuffer<BFloat16>::fromHost(ctx, a), "a");
  auto out = require(DeviceBuffer<BFloat16>::allocate(ctx, 64 * 64), "out");
  TensorDescArg desc = tensorDesc(da, {M, K}, {lda, 1});

  // Inside, across the right and bottom edges, the corner, before the start
  // (negative coordinates), and wholly outside.
  const int boxes[][2] = {{0, 0},    {64, 0},   {0, 64},   {192, 64},
                          {160, 40}, {-8, -16}, {256, 128}};
  int good = 0;
  std::string firstBad;
  for (const auto &b : boxes) {
    require(out.memory().fill8(0xff), "poison");
    Status s = k.launch(nullptr, Grid(1), desc, out, b[0], b[1]);
    if (s.ok())
      s = ctx.synchronize();
    std::vector<BFloat16> got(64 * 64);
    if (s.ok())
      s = out.copyToHost(got);
    std::vector<uint16_t> want = expectedBox(a, M, K, lda, b[0], b[1]);
    size_t bad = 0, firstAt = 0;
    for (size_t i = 0; s.ok() && i < want.size(); ++i)
      if (got[i].bits != want[i] && !bad++)
        firstAt = i;
    if (s.ok() && bad == 0) {
      ++good;
    } else if (firstBad.empty()) {
      firstBad =
          "box (" + std::to_string(b[0]) + ", " + std::to_string(b[1]) + "): " +
          (s.ok() ? std::to_string(bad) + " of 4096 differ, the first [" +
                        std::to_string(firstAt / 64) + "][" +
                        std::to_string(firstAt % 64) +
                        "] = " + fixed(got[firstAt].toFloat(), 4) + ", want " +
                        fixed(BFloat16::fromBits(want[firstAt]).toFloat(), 4)
                  : s.message());
    }
  }
  int total = int(sizeof boxes / sizeof boxes[0]);
  report(good == total, "TMA load of a ragged bf16 tensor through a descriptor",
         firstBad.empty() ? std::to_string(total) +
                                " boxes of 64 x 64 exact, out of bounds zero"
                          : firstBad);

  // Launch overhead: Kernel::launch (checks, cache hit, 128-byte copy)
  // against cuLaunchKernel with a map encoded once, beforehand.
  const Driver &d = ctx.driver();
  CUtensorMap map;
  cuuint64_t dims[2] = {cuuint64_t(K), cuuint64_t(M)};
  cuuint64_t strides[1] = {cuuint64_t(lda) * 2};
  cuuint32_t boxDim[2] = {64, 64}, ones[2] = {1, 1};
  CUresult er = d.cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
      reinterpret_cast<void *>(uintptr_t(da.ptr().address)), dims, strides,
      boxDim, ones, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (er != CUDA_SUCCESS) {
    report(false, "pre-encoded tensor map", d.errorString(er));
    return;
  }
  Stream stream = require(Stream::create(ctx), "stream");
  CUstream st = stream;
  uint64_t outAddr = out.ptr().address;
  int32_t row0 = 64, col0 = 0;
  void *args[] = {&map, &outAddr, &row0, &col0};
  CUfunction f = k.function();
  bool failed = false;
  auto raw = [&] {
    failed |= d.cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, st, args, nullptr) !=
              CUDA_SUCCESS;
  };
  auto tilec = [&] { failed |= !k.launch(st, Grid(1), desc, out, 64, 0).ok(); };
  BoundLaunch bound = require(k.bind(desc, out, 64, 0), "bind");
  auto boundLaunch = [&] { failed |= !bound.launch(st, Grid(1)).ok(); };
  std::map<std::string, std::vector<double>> host, enqueue;
  for (int round = 0; round < 5; ++round) {
    host["raw"].push_back(hostUsPerLaunch(stream, raw, 5000));
    host["tilec"].push_back(hostUsPerLaunch(stream, tilec, 5000));
    host["bound"].push_back(hostUsPerLaunch(stream, boundLaunch, 5000));
    enqueue["raw"].push_back(enqueueUsPerLaunch(stream, raw, 200, 25));
    enqueue["tilec"].push_back(enqueueUsPerLaunch(stream, tilec, 200, 25));
  }
  for (auto &[name, v] : host)
    measure("desc_launch_us.host." + name, median(v));
  for (auto &[name, v] : enqueue)
    measure("desc_launch_us.enqueue." + name, median(v));
  double hostRatio = median(host["tilec"]) / median(host["raw"]);
  double enqRatio = median(enqueue["tilec"]) / median(enqueue["raw"]);
  measure("desc_launch_ratio.host.tilec_over_raw", hostRatio);
  measure("desc_launch_ratio.enqueue.tilec_over_raw", enqRatio);
  // The raw loop's map and the runtime's must load the same box.
  std::vector<BFloat16> got(64 * 64);
  require(stream.synchronize(), "sync");
  require(out.copyToHost(got), "copy");
  std::vector<uint16_t> want = expectedBox(a, M, K, lda, 64, 0);
  bool same = !failed;
  for (size_t i = 0; same && i < want.size(); ++i)
    same = got[i].bits == want[i];
  report(same, "descriptor launch loops",
         failed ? "a launch failed"
         : same ? "no errors, box exact"
                : "wrong box");
  reportOverhead("descriptor launch overhead (5000 launches + sync)",
                 median(host["tilec"]), median(host["raw"]), 1.1);
  // The target (1.1x) is on host time per launch, as peers.py measures it.
  // Enqueue-only times the host alone, where the plain launch measured 1.16x
  // of raw on the H200 (2026-12-01, a fixed ~0.5 us of argument packing):
  // descriptors are held to the plain launch's limit there.
  reportOverhead("descriptor launch overhead (enqueue only)",
                 median(enqueue["tilec"]), median(enqueue["raw"]), 1.2);
}

} // namespace

int main(int argc, char **argv) {
  std::string dir, jsonPath;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--fixtures" && i + 1 < argc)
      dir = argv[++i];
    else if (a == "--json" && i + 1 < argc)
      jsonPath = argv[++i];
    else {
      std::fprintf(stderr, "usage: tilec-runtime-gpu-tests --fixtures DIR "
                           "[--json FILE]\n");
      return 2;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr, "tilec-runtime-gpu-tests: --fixtures DIR is "
                         "required\n");
    return 2;
  }
  // The driver keeps a JIT cache of its own (~/.nv/ComputeCache): off, so
  // that "cold" means compiled and the driver's own load is timed as the
  // ~100 ms compile it is on a fresh machine. Read at cuInit, so set first.
  setenv("CUDA_CACHE_DISABLE", "1", 1);
  Context ctx = require(Context::create(0), "CUDA context");
  std::printf("tilec-runtime-gpu-tests: %s (%s), driver %s\n",
              ctx.deviceName().c_str(), ctx.arch().c_str(),
              ctx.driver().identity().c_str());
  Rng rng(12345);
  testLoads(ctx, dir);
  testKernels(ctx, dir, rng);
  testLaunches(ctx, dir, rng);
  testTensorDescriptors(ctx, dir, rng);
  if (!jsonPath.empty()) {
    if (FILE *f = std::fopen(jsonPath.c_str(), "w")) {
      std::fprintf(f, "{\n  \"device\": \"%s\",\n  \"driver\": \"%s\"",
                   ctx.deviceName().c_str(), ctx.driver().identity().c_str());
      for (auto &[k, v] : gMeasures)
        std::fprintf(f, ",\n  \"%s\": %.4f", k.c_str(), v);
      std::fprintf(f, "\n}\n");
      std::fclose(f);
    }
  }
  std::printf("tilec-runtime-gpu-tests: %d passed, %d failed\n", gPassed,
              gFailed);
  return gFailed ? 1 : 0;
}
