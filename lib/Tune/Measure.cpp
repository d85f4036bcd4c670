//===- Measure.cpp - timing tuning candidates on the GPU ------------------===//
//
// Each candidate is timed the same way: `warmup` launches, then `reps`
// launches each between two events on one stream (no host synchronization
// in between, so launch overhead overlaps), the median of the reps. The
// launches cycle through several sets of A, B and C whose total is twice
// the L2: a small problem would otherwise find its inputs in L2 from the
// previous launch and look faster than it runs in a model, where other
// kernels evict them. Before timing, each candidate's C on set 0 is
// compared with a host reference at sampled elements, so a kernel that is
// fast because it is wrong does not win.
//
//===----------------------------------------------------------------------===//

#include "tilec/Tune/Measure.h"
#include "tilec/Runtime/Cache.h"
#include "tilec/Runtime/Driver.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

using namespace tilec;
using namespace tilec::tune;
using namespace tilec::runtime;

namespace {

size_t elemBytes(DType t) {
  switch (t) {
  case DType::BF16:
  case DType::F16:
    return 2;
  case DType::F32:
    return 4;
  default:
    return 0;
  }
}

float load(DType t, const uint8_t *p) {
  if (t == DType::F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t bits;
  std::memcpy(&bits, p, 2);
  return t == DType::BF16 ? float(BFloat16::fromBits(bits))
                          : float(Half::fromBits(bits));
}

void store(DType t, float v, uint8_t *p) {
  if (t == DType::F32) {
    std::memcpy(p, &v, 4);
    return;
  }
  uint16_t bits = t == DType::BF16 ? BFloat16(v).bits : Half(v).bits;
  std::memcpy(p, &bits, 2);
}

/// Uniform values in [-1, 1) of type `t`, from a fixed seed.
std::vector<uint8_t> randomHost(DType t, size_t count, uint64_t seed) {
  std::vector<uint8_t> out(count * elemBytes(t));
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < count; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    float v = float(s >> 40) / float(1 << 24) * 2.0f - 1.0f;
    store(t, v, out.data() + i * elemBytes(t));
  }
  return out;
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f ms", v);
  return buf;
}

/// The kernel's parameters must be the GEMM's.
Status checkGemmSignature(const KernelMetadata &k) {
  static const char *names[] = {"a", "b", "c", "M", "N", "K",
                                "stride_am", "stride_bk", "stride_cm"};
  bool ok = k.params.size() == 9;
  for (size_t i = 0; ok && i < 9; ++i) {
    bool ptr = i < 3;
    ok = (k.params[i].kind == ParamInfo::Kind::Pointer) == ptr &&
         (ptr ? elemBytes(k.params[i].type) != 0
              : k.params[i].type == DType::I32);
  }
  if (ok)
    return Status();
  std::string want;
  for (const char *n : names)
    want += (want.empty() ? "" : ", ") + std::string(n);
  return Status::error("kernel '" + k.name + "' (" + k.signature() +
                       ") is not a GEMM kernel(" + want +
                       "): 3 pointers to bf16, f16 or f32, then 6 i32");
}

struct Buffers {
  DeviceMemory a, b, c;
};

} // namespace

std::string tune::deviceIdentity(const Context &context) {
  return context.deviceName() + " " + context.arch();
}

Expected<GemmResult> tune::tuneGemm(const Context &context,
                                    const Manifest &manifest,
                                    const std::string &dir,
                                    const GemmShape &shape,
                                    const MeasureOptions &options) {
  if (manifest.problem != "gemm")
    return Status::error("the manifest's problem is '" + manifest.problem +
                         "', not 'gemm'");
  GemmResult result;
  result.shape = shape;
  result.bucket = gemmBucket(shape);
  TuneKeyParts parts = keyParts(manifest, result.bucket,
                                deviceIdentity(context));
  result.key = tuneKey(parts);
  std::string cacheDir = options.cacheDir;
  if (options.useCache && cacheDir.empty()) {
    Expected<std::string> d = defaultCacheDir();
    if (d.ok())
      cacheDir = *d;
    else
      result.cacheNote = "no cache folder: " + d.message();
  }
  std::optional<TuneCache> cache;
  if (options.useCache && !cacheDir.empty()) {
    cache.emplace(cacheDir);
    result.cacheFile = cache->pathFor(result.key);
    CacheLookup hit = cache->lookup(parts, manifest);
    if (hit.winner) {
      result.fromCache = true;
      result.winner = *hit.winner;
      return result;
    }
    if (!hit.ignored.empty())
      result.cacheNote = "ignored " + hit.ignored + " at " + result.cacheFile;
  }

  // The candidates to time.
  std::vector<const Candidate *> todo;
  for (const Candidate &c : manifest.candidates)
    if (!c.pruned)
      todo.push_back(&c);
  if (todo.empty())
    return Status::error("every candidate of the manifest was pruned");

  // Types from the first candidate's metadata (all share the source).
  Expected<Module> first =
      Module::loadFiles(context, dir + "/" + todo[0]->binary,
                        dir + "/" + todo[0]->metadata);
  if (!first.ok())
    return first.status();
  const KernelMetadata *km = first->metadata().find(manifest.kernel);
  if (!km)
    return Status::error("the metadata of candidate " +
                         std::to_string(todo[0]->id) + " has no kernel '" +
                         manifest.kernel + "'");
  if (Status s = checkGemmSignature(*km); !s.ok())
    return s;
  for (const Candidate *c : todo)
    if (valueOf(c->params, "BLOCK_M") < 1 || valueOf(c->params, "BLOCK_N") < 1)
      return Status::error("candidate " + std::to_string(c->id) +
                           " has no BLOCK_M and BLOCK_N parameters, which "
                           "the gemm problem's grid needs");
  DType ta = km->params[0].type, tb = km->params[1].type,
        tc = km->params[2].type;
  const size_t bytesA = size_t(shape.m) * shape.k * elemBytes(ta),
               bytesB = size_t(shape.k) * shape.n * elemBytes(tb),
               bytesC = size_t(shape.m) * shape.n * elemBytes(tc);

  // Rotating sets: together at least rotateFactor x L2, at most 64 sets or
  // 8 GiB.
  int l2 = 0;
  if (context.driver().cuDeviceGetAttribute(
          &l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, context.device()) !=
          CUDA_SUCCESS ||
      l2 <= 0)
    l2 = 64 << 20; // more than any current GPU's
  const size_t setBytes = bytesA + bytesB + bytesC;
  size_t sets = std::max<size_t>(
      1, (size_t(options.rotateFactor) * size_t(l2) + setBytes - 1) /
             setBytes);
  sets = std::min<size_t>({sets, 64, std::max<size_t>(1, (size_t(8) << 30) /
                                                             setBytes)});
  result.rotatingSets = static_cast<int>(sets);

  std::vector<uint8_t> hostA = randomHost(ta, size_t(shape.m) * shape.k, 1),
                       hostB = randomHost(tb, size_t(shape.k) * shape.n, 2);
  std::vector<Buffers> bufs;
  for (size_t i = 0; i < sets; ++i) {
    auto a = DeviceMemory::allocate(context, bytesA);
    auto b = DeviceMemory::allocate(context, bytesB);
    auto c = DeviceMemory::allocate(context, bytesC);
    if (!a.ok() || !b.ok() || !c.ok())
      return Status::error("cannot allocate rotating buffer set " +
                           std::to_string(i) + " of " + std::to_string(sets) +
                           ": " +
                           (!a.ok() ? a.message()
                                    : !b.ok() ? b.message() : c.message()));
    if (Status s = a->copyFromHost(hostA.data(), bytesA); !s.ok())
      return s;
    if (Status s = b->copyFromHost(hostB.data(), bytesB); !s.ok())
      return s;
    bufs.push_back({std::move(*a), std::move(*b), std::move(*c)});
  }
  // The sampled elements of C and their reference values.
  std::vector<std::pair<int64_t, int64_t>> samples;
  std::vector<double> want, scale;
  for (int i = 0; i < options.checkSamples; ++i) {
    // (0, 0), the last row and column, then spread by two primes.
    int64_t r = i == 1 ? shape.m - 1 : (int64_t(i) * 7919) % shape.m;
    int64_t col = i == 1 ? shape.n - 1 : (int64_t(i) * 104729) % shape.n;
    double sum = 0, abs = 0;
    for (int64_t k = 0; k < shape.k; ++k) {
      double p = double(load(ta, &hostA[(r * shape.k + k) * elemBytes(ta)])) *
                 double(load(tb, &hostB[(k * shape.n + col) * elemBytes(tb)]));
      sum += p;
      abs += std::fabs(p);
    }
    samples.emplace_back(r, col);
    want.push_back(sum);
    scale.push_back(abs);
  }

  Expected<Stream> stream = Stream::create(context);
  if (!stream.ok())
    return stream.status();
  const int n = static_cast<int>(todo.size());
  double bestMs = 0;
  int bestId = -1;
  for (int i = 0; i < n; ++i) {
    const Candidate &cand = *todo[i];
    CandidateTime t;
    t.id = cand.id;
    auto finish = [&](std::string error) {
      t.error = std::move(error);
      result.times.push_back(t);
      if (options.progress) {
        std::string line = "[" + std::to_string(i + 1) + "/" +
                           std::to_string(n) + "] candidate " +
                           std::to_string(cand.id) + " (" +
                           describe(cand.params) + "): " +
                           (t.error.empty() ? ms(t.medianMs)
                                            : "failed: " + t.error);
        if (bestId >= 0)
          line += "; best " + ms(bestMs) + " (candidate " +
                  std::to_string(bestId) + ")";
        options.progress(line);
      }
    };
    Expected<Module> mod =
        Module::loadFiles(context, dir + "/" + cand.binary,
                          dir + "/" + cand.metadata);
    if (!mod.ok()) {
      finish(mod.message());
      continue;
    }
    Expected<Kernel> kernel = mod->kernel(manifest.kernel);
    if (!kernel.ok()) {
      finish(kernel.message());
      continue;
    }
    if (Status s = checkGemmSignature(kernel->metadata()); !s.ok()) {
      finish(s.message());
      continue;
    }
    Grid grid(cdiv(shape.m, valueOf(cand.params, "BLOCK_M")),
              cdiv(shape.n, valueOf(cand.params, "BLOCK_N")));
    auto launch = [&](size_t set) {
      const Buffers &b = bufs[set % sets];
      ArgValue args[] = {pointerArg(ta, b.a.address()),
                         pointerArg(tb, b.b.address()),
                         pointerArg(tc, b.c.address()),
                         makeArg(int32_t(shape.m)),
                         makeArg(int32_t(shape.n)),
                         makeArg(int32_t(shape.k)),
                         makeArg(int32_t(shape.k)),
                         makeArg(int32_t(shape.n)),
                         makeArg(int32_t(shape.n))};
      return kernel->launchArgs(stream->get(), grid, args, 9);
    };
    // Correctness at the samples, on set 0 (C poisoned first).
    Status s = bufs[0].c.fill8(0xff);
    if (s.ok())
      s = launch(0);
    if (s.ok())
      s = stream->synchronize();
    // Only the sampled elements are copied back: C is up to 470 MB here.
    for (size_t j = 0; s.ok() && j < samples.size(); ++j) {
      auto [r, col] = samples[j];
      uint8_t elem[4] = {};
      s = bufs[0].c.copyToHost(elem, elemBytes(tc),
                               size_t(r * shape.n + col) * elemBytes(tc));
      if (s.ok()) {
        double got = load(tc, elem);
        double tol = 1e-2 * std::fabs(want[j]) + 2e-3 * scale[j] + 1e-3;
        if (!(std::fabs(got - want[j]) <= tol)) {
          std::ostringstream os;
          os << "wrong result: C[" << r << ", " << col << "] = " << got
             << ", expected " << want[j] << " (tolerance " << tol << ")";
          s = Status::error(os.str());
        }
      }
    }
    for (int w = 1; s.ok() && w < options.warmup; ++w)
      s = launch(size_t(w));
    std::vector<Event> events;
    for (int r = 0; s.ok() && r < 2 * options.reps; ++r) {
      Expected<Event> e = Event::create(context);
      if (!e.ok())
        s = e.status();
      else
        events.push_back(std::move(*e));
    }
    for (int r = 0; s.ok() && r < options.reps; ++r) {
      s = events[2 * r].record(stream->get());
      if (s.ok())
        s = launch(size_t(options.warmup + r));
      if (s.ok())
        s = events[2 * r + 1].record(stream->get());
    }
    if (s.ok())
      s = stream->synchronize();
    std::vector<double> times;
    for (int r = 0; s.ok() && r < options.reps; ++r) {
      Expected<float> e = Event::elapsedMs(events[2 * r], events[2 * r + 1]);
      if (!e.ok())
        s = e.status();
      else
        times.push_back(*e);
    }
    if (!s.ok()) {
      finish(s.message());
      continue;
    }
    std::sort(times.begin(), times.end());
    t.measured = true;
    t.minMs = times.empty() ? 0 : times.front();
    t.medianMs = times.empty() ? 0 : times[times.size() / 2];
    if (bestId < 0 || t.medianMs < bestMs) {
      bestMs = t.medianMs;
      bestId = cand.id;
    }
    finish("");
  }
  if (bestId < 0)
    return result; // winner.id -1: the table says why each failed
  result.winner.id = bestId;
  result.winner.params = manifest.find(bestId)->params;
  result.winner.medianMs = bestMs;
  result.winner.measuredShape = shape;
  result.winner.measured = n;
  if (cache) {
    if (Status s = cache->store(parts, result.winner); !s.ok())
      result.cacheNote += (result.cacheNote.empty() ? "" : "; ") +
                          std::string("not stored: ") + s.message();
  }
  return result;
}
