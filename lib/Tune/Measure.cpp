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
// fast because it is wrong does not win. A split-K candidate is a plan of
// two launches (the slices into an f32 workspace, the reduce into C),
// checked and timed as one; TMA candidates get tensor descriptors made
// from the same buffers. What cannot run or cannot pay on a shape is
// skipped with its reason before anything is allocated.
//
//===----------------------------------------------------------------------===//

#include "tilec/Tune/Measure.h"
#include "MeasureCommon.h"
#include "tilec/Runtime/Cache.h"
#include "tilec/Runtime/Driver.h"

#include <algorithm>
#include <cmath>
#include <optional>
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


/// The kernel's parameters must be the GEMM's: a and b pointers or tensor
/// descriptors (TMA), c a pointer (f32: the workspace of a split-K plan).
Status checkGemmSignature(const KernelMetadata &k, bool splitK) {
  static const char *names[] = {"a", "b", "c", "M", "N", "K",
                                "stride_am", "stride_bk", "stride_cm"};
  bool ok = k.params.size() == 9;
  for (size_t i = 0; ok && i < 9; ++i) {
    const ParamInfo &p = k.params[i];
    if (i < 2)
      ok = (p.kind == ParamInfo::Kind::Pointer ||
            p.kind == ParamInfo::Kind::TensorDesc) &&
           elemBytes(p.type) != 0;
    else if (i == 2)
      ok = p.kind == ParamInfo::Kind::Pointer &&
           (splitK ? p.type == DType::F32 : elemBytes(p.type) != 0);
    else
      ok = p.kind == ParamInfo::Kind::Scalar && p.type == DType::I32;
  }
  if (ok)
    return Status();
  std::string want;
  for (const char *n : names)
    want += (want.empty() ? "" : ", ") + std::string(n);
  return Status::error(
      "kernel '" + k.name + "' (" + k.signature() + ") is not a GEMM kernel(" +
      want + "): " +
      (splitK ? "a, b pointers or tensor descriptors, c an f32 workspace "
                "pointer (SPLIT_K > 1), then 6 i32"
              : "3 pointers (a, b may be tensor descriptors) to bf16, f16 "
                "or f32, then 6 i32"));
}

/// The reduce step of a split-K plan: (ws f32*, c, M, N, stride_cm, splits).
Status checkReduceSignature(const KernelMetadata &k) {
  bool ok = k.params.size() == 6 &&
            k.params[0].kind == ParamInfo::Kind::Pointer &&
            k.params[0].type == DType::F32 &&
            k.params[1].kind == ParamInfo::Kind::Pointer &&
            elemBytes(k.params[1].type) != 0;
  for (size_t i = 2; ok && i < 6; ++i)
    ok = k.params[i].kind == ParamInfo::Kind::Scalar &&
         k.params[i].type == DType::I32;
  if (ok)
    return Status();
  return Status::error("kernel '" + k.name + "' (" + k.signature() +
                       ") is not a split-K reduce kernel(ws, c, M, N, "
                       "stride_cm, splits): an f32 pointer, a pointer, then "
                       "4 i32");
}

/// The kernels of one candidate, loaded.
struct Plan {
  std::optional<Module> module, reduceModule;
  std::optional<Kernel> kernel, reduce;
  DType ta = DType::F32, tb = DType::F32, tc = DType::F32;
  bool descA = false, descB = false;
};

Expected<Plan> loadPlan(const Context &context, const Manifest &manifest,
                        const std::string &dir, const Candidate &cand) {
  Plan p;
  Expected<Module> mod = Module::loadFiles(context, dir + "/" + cand.binary,
                                           dir + "/" + cand.metadata);
  if (!mod.ok())
    return mod.status();
  p.module.emplace(std::move(*mod));
  Expected<Kernel> kernel = p.module->kernel(manifest.kernel);
  if (!kernel.ok())
    return kernel.status();
  p.kernel.emplace(std::move(*kernel));
  const bool split = splitKOf(cand) > 1;
  const KernelMetadata &km = p.kernel->metadata();
  if (Status s = checkGemmSignature(km, split); !s.ok())
    return s;
  p.ta = km.params[0].type;
  p.tb = km.params[1].type;
  p.tc = km.params[2].type;
  p.descA = km.params[0].kind == ParamInfo::Kind::TensorDesc;
  p.descB = km.params[1].kind == ParamInfo::Kind::TensorDesc;
  if (!split)
    return p;
  Expected<Module> rmod =
      Module::loadFiles(context, dir + "/" + cand.reduce.binary,
                        dir + "/" + cand.reduce.metadata);
  if (!rmod.ok())
    return rmod.status();
  p.reduceModule.emplace(std::move(*rmod));
  Expected<Kernel> reduce = p.reduceModule->kernel(cand.reduce.kernel);
  if (!reduce.ok())
    return reduce.status();
  p.reduce.emplace(std::move(*reduce));
  if (Status s = checkReduceSignature(p.reduce->metadata()); !s.ok())
    return s;
  p.tc = p.reduce->metadata().params[1].type;
  return p;
}

struct Buffers {
  DeviceMemory a, b, c;
};

} // namespace

std::string tune::deviceIdentity(const Context &context) {
  return context.deviceName() + " " + context.arch();
}

Expected<TuneResult> tune::tuneGemm(const Context &context,
                                    const Manifest &manifest,
                                    const std::string &dir,
                                    const GemmShape &shape,
                                    const MeasureOptions &options) {
  if (manifest.problem != "gemm")
    return Status::error("the manifest's problem is '" + manifest.problem +
                         "', not 'gemm'");
  TuneResult result;
  result.shape = shape;
  result.bucket = gemmBucket(shape);
  TuneKeyParts parts = keyParts(manifest, result.bucket,
                                deviceIdentity(context));
  result.key = tuneKey(parts);
  std::optional<TuneCache> cache;
  if (tune::detail::lookupWinner(manifest, parts, options, result, cache))
    return result;

  // The candidates to time: the first loaded fixes the types every other
  // must compute with.
  std::vector<const Candidate *> todo;
  for (const Candidate &c : manifest.candidates)
    if (!c.pruned)
      todo.push_back(&c);
  if (todo.empty())
    return Status::error("every candidate of the manifest was pruned");
  Expected<Plan> first = loadPlan(context, manifest, dir, *todo[0]);
  if (!first.ok())
    return first.status();
  for (const Candidate *c : todo)
    if (valueOf(c->params, "BLOCK_M") < 1 || valueOf(c->params, "BLOCK_N") < 1)
      return Status::error("candidate " + std::to_string(c->id) +
                           " has no BLOCK_M and BLOCK_N parameters, which "
                           "the gemm problem's grid needs");
  DType ta = first->ta, tb = first->tb, tc = first->tc;
  const size_t bytesA = size_t(shape.m) * shape.k * elemBytes(ta),
               bytesB = size_t(shape.k) * shape.n * elemBytes(tb),
               bytesC = size_t(shape.m) * shape.n * elemBytes(tc);

  // What this shape does not measure (stated in the table), and the
  // workspace the split-K plans that remain need.
  int sms = 0;
  if (context.driver().cuDeviceGetAttribute(
          &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, context.device()) !=
          CUDA_SUCCESS ||
      sms <= 0)
    sms = 132; // an H100 / H200
  size_t workspaceBytes = 0;
  {
    std::vector<const Candidate *> kept;
    for (const Candidate *c : todo) {
      std::string why = shapeSkipReason(*c, shape, sms, int(elemBytes(ta)));
      if (why.empty()) {
        kept.push_back(c);
        if (splitKOf(*c) > 1)
          workspaceBytes = std::max<size_t>(
              workspaceBytes, size_t(splitKOf(*c)) * shape.m * shape.n * 4);
        continue;
      }
      CandidateTime t;
      t.id = c->id;
      t.skipped = why;
      result.times.push_back(t);
    }
    todo = std::move(kept);
  }
  if (todo.empty())
    return Status::error("no candidate of the manifest takes " +
                         std::to_string(shape.m) + "x" +
                         std::to_string(shape.n) + "x" +
                         std::to_string(shape.k) + " (each skipped: " +
                         result.times.front().skipped + ", ...)");

  const size_t setBytes = bytesA + bytesB + bytesC;
  const size_t sets = tune::detail::rotatingSetCount(context, setBytes, options);
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
  // One workspace for the split-K plans: written by the first kernel and
  // read by the second of the same launch, so it needs no rotation.
  std::optional<DeviceMemory> workspace;
  if (workspaceBytes) {
    auto w = DeviceMemory::allocate(context, workspaceBytes);
    if (!w.ok())
      return Status::error("cannot allocate the split-K workspace of " +
                           std::to_string(workspaceBytes) +
                           " bytes: " + w.message());
    workspace.emplace(std::move(*w));
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
      tune::detail::reportProgress(options, i, n, cand, t, bestId, bestMs);
    };
    Expected<Plan> plan = loadPlan(context, manifest, dir, cand);
    if (!plan.ok()) {
      finish(plan.message());
      continue;
    }
    if (plan->ta != ta || plan->tb != tb || plan->tc != tc) {
      auto name = [](DType t) { return std::string(dtypeName(t)); };
      finish("its types (" + name(plan->ta) + ", " + name(plan->tb) +
             " -> " + name(plan->tc) + ") are not the first candidate's (" +
             name(ta) + ", " + name(tb) + " -> " + name(tc) + ")");
      continue;
    }
    const int64_t splits = splitKOf(cand);
    const int64_t tilesM = cdiv(shape.m, valueOf(cand.params, "BLOCK_M")),
                  tilesN = cdiv(shape.n, valueOf(cand.params, "BLOCK_N"));
    // A persistent kernel walks the tiles with one program per SM; in
    // clusters, whole clusters (the tile rows rounded up to them), as many
    // as fit at once (Kernel::residentPrograms).
    const int64_t ctas = std::max<int64_t>(1, valueOf(cand.params, "CLUSTER"));
    const int64_t rowsC = cdiv(tilesM, ctas) * ctas;
    int64_t resident = sms / ctas * ctas;
    if (ctas > 1)
      if (Expected<int> r = plan->kernel->residentPrograms(); r.ok())
        resident = *r;
    const Grid grid =
        valueOf(cand.params, "PERSISTENT") == 1
            ? Grid(uint32_t(std::min<int64_t>(rowsC * tilesN, resident)))
            : Grid(rowsC, tilesN, splits);
    const Grid reduceGrid(shape.m, splits > 1 ? cdiv(shape.n,
                                                     cand.reduce.blockN)
                                              : 1);
    // A split-K plan is two launches: the slices into the workspace, then
    // the reduce into C; both are inside the timed events.
    auto launch = [&](size_t set) -> Status {
      const Buffers &b = bufs[set % sets];
      const int64_t shapeA[] = {shape.m, shape.k}, strideA[] = {shape.k, 1};
      const int64_t shapeB[] = {shape.k, shape.n}, strideB[] = {shape.n, 1};
      TensorDescArg da = TensorDescArg::make(ta, b.a.address(), shapeA, strideA);
      TensorDescArg db = TensorDescArg::make(tb, b.b.address(), shapeB, strideB);
      ArgValue args[] = {
          plan->descA ? makeArg(da) : pointerArg(ta, b.a.address()),
          plan->descB ? makeArg(db) : pointerArg(tb, b.b.address()),
          splits > 1 ? pointerArg(DType::F32, workspace->address())
                     : pointerArg(tc, b.c.address()),
          makeArg(int32_t(shape.m)),
          makeArg(int32_t(shape.n)),
          makeArg(int32_t(shape.k)),
          makeArg(int32_t(shape.k)),
          makeArg(int32_t(shape.n)),
          makeArg(int32_t(shape.n))};
      Status s = plan->kernel->launchArgs(stream->get(), grid, args, 9);
      if (!s.ok() || splits == 1)
        return s;
      ArgValue rargs[] = {pointerArg(DType::F32, workspace->address()),
                          pointerArg(tc, b.c.address()),
                          makeArg(int32_t(shape.m)),
                          makeArg(int32_t(shape.n)),
                          makeArg(int32_t(shape.n)),
                          makeArg(int32_t(splits))};
      return plan->reduce->launchArgs(stream->get(), reduceGrid, rargs, 6);
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
    // A descriptor launch on a set not seen before encodes its tensor maps
    // on the host (cached after): timeLaunches does that first.
    if (s.ok())
      s = tune::detail::timeLaunches(context, *stream, launch, sets,
                                     plan->descA || plan->descB, options, t);
    if (!s.ok()) {
      finish(s.message());
      continue;
    }
    if (bestId < 0 || t.medianMs < bestMs) {
      bestMs = t.medianMs;
      bestId = cand.id;
    }
    finish("");
  }
  tune::detail::setWinner(manifest, bestId, bestMs, n, cache, parts, result);
  return result;
}

std::string tune::shapeSkipReason(const Candidate &c, const GemmShape &s,
                                  int sms, int elemBytes) {
  const int64_t bm = valueOf(c.params, "BLOCK_M"),
                bn = valueOf(c.params, "BLOCK_N");
  if (usesTma(c) && ((s.k * elemBytes) % 16 || (s.n * elemBytes) % 16))
    return "tensor descriptors need row strides of a multiple of 16 bytes; "
           "rows of " + std::to_string(s.k) + " (A) and " +
           std::to_string(s.n) + " (B) elements of " +
           std::to_string(elemBytes) + " bytes are not";
  // Rows past M's bucket are padding: a tile of 64 rows (wgmma's least)
  // or of M's bucket covers M with less waste.
  int64_t mBucket = 16;
  while (mBucket < s.m)
    mBucket *= 2;
  if (bm > std::max<int64_t>(64, mBucket))
    return "BLOCK_M=" + std::to_string(bm) + " for M=" + std::to_string(s.m) +
           ": more rows than M's bucket (" + std::to_string(mBucket) +
           ") and than the least tile (64)";
  const int64_t splits = splitKOf(c);
  if (splits == 1)
    return "";
  const int64_t tiles = cdiv(s.m, bm) * cdiv(s.n, bn);
  if (tiles >= 2 * sms)
    return "the " + std::to_string(tiles) + " output tiles alone make two "
           "waves of the " + std::to_string(sms) + " SMs: nothing for "
           "split-K to fill";
  if (tiles * splits > 4 * sms)
    return "SPLIT_K=" + std::to_string(splits) + " x " +
           std::to_string(tiles) + " tiles = " +
           std::to_string(tiles * splits) + " programs, over four waves of "
           "the " + std::to_string(sms) + " SMs";
  const int64_t bk = std::max<int64_t>(1, valueOf(c.params, "BLOCK_K"));
  const int64_t stages = std::max<int64_t>(2, valueOf(c.params, "num_stages"));
  const int64_t steps = cdiv(s.k, bk);
  if (steps < splits * stages)
    return "K=" + std::to_string(s.k) + " is " + std::to_string(steps) +
           " steps of " + std::to_string(bk) + ": " + std::to_string(splits) +
           " slices would have fewer steps than the " +
           std::to_string(stages) + " stages of the pipeline";
  const int64_t ws = splits * s.m * s.n * 4;
  if (ws > (int64_t(1) << 30))
    return "the f32 workspace of " + std::to_string(splits) + " x " +
           std::to_string(s.m) + " x " + std::to_string(s.n) + " takes " +
           std::to_string(ws) + " bytes, over 1 GiB";
  return "";
}
