//===- SplitKLaunchTest.cpp - a split-K plan compiled and launched --------===//
//
// The tuner's split-K plan (matmulKernel with splitK, then
// splitKReduceKernel) through the whole pipeline for sm_90 (cp.async +
// mma.sync: the K loop starting at a slice's first step, software
// pipelined) and the runtime, run in the stand-in driver's PTX simulator
// on ragged M and K, against a host reference. (The sm_90a form, TMA and
// wgmma, is beyond the simulator: scripts/gpu-tune.sh checks it on the
// GPU.)
//
//===----------------------------------------------------------------------===//

#include "tilec/Ops.h"
#include "tilec/Pipeline.h"
#include "tilec/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

using namespace tilec;

namespace {
const bool kFakeDriver =
    (setenv("TILEC_LIBCUDA", TILEC_FAKE_CUDA, 1),
     setenv("TILEC_FAKE_CUDA_SIMULATE", "1", 1),
     setenv("TILEC_RUNTIME_PTXAS", "off", 1),
     setenv("TILEC_CACHE_DIR", TILEC_TEST_CACHE_DIR, 1), true);

TEST(BuilderLaunch, SplitKPlanRunsInTheSimulator) {
  ASSERT_TRUE(kFakeDriver);
  const int M = 37, N = 48, K = 100, S = 3, sa = 112; // A's rows padded
  ops::MatmulConfig cfg;
  cfg.blockM = cfg.blockN = 32;
  cfg.blockK = 16;
  cfg.numWarps = 4;
  cfg.cType = DType::F32;
  cfg.splitK = true;
  Kernel partial = ops::matmulKernel(
      "mm_split", cfg, {}, [](Value acc, ops::Block &) { return acc; });
  ops::SplitKReduceConfig rc;
  rc.blockN = 32;
  Kernel reduce = ops::splitKReduceKernel("mm_reduce", rc);
  PipelineOptions po;
  po.arch = "sm_90";
  po.numStages = 3;
  CompileResult cp = partial.compile(po), cr = reduce.compile(po);

  auto ctx = runtime::Context::create(0);
  ASSERT_TRUE(ctx.ok()) << ctx.message();
  auto mp = runtime::Module::loadPtx(*ctx, cp.ptx, cp.metadata);
  auto mr = runtime::Module::loadPtx(*ctx, cr.ptx, cr.metadata);
  ASSERT_TRUE(mp.ok() && mr.ok()) << mp.message() << mr.message();
  auto kp = mp->kernel("mm_split");
  auto kr = mr->kernel("mm_reduce");
  ASSERT_TRUE(kp.ok() && kr.ok());

  // Inputs exact in bf16 (small integers over 8), so the sums are exact.
  std::mt19937 gen(11);
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<runtime::BFloat16> a(size_t(M) * sa), b(size_t(K) * N);
  std::vector<float> af(a.size()), bf(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = runtime::BFloat16(af[i] = dist(gen) / 8.0f);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = runtime::BFloat16(bf[i] = dist(gen) / 8.0f);
  std::vector<runtime::BFloat16> c(size_t(M) * N, runtime::BFloat16(-99.f));
  auto da = runtime::DeviceBuffer<runtime::BFloat16>::fromHost(*ctx, a);
  auto db = runtime::DeviceBuffer<runtime::BFloat16>::fromHost(*ctx, b);
  auto dc = runtime::DeviceBuffer<runtime::BFloat16>::fromHost(*ctx, c);
  auto ws = runtime::DeviceBuffer<float>::allocate(*ctx, size_t(S) * M * N);
  ASSERT_TRUE(da.ok() && db.ok() && dc.ok() && ws.ok());

  runtime::Status s =
      kp->launch(nullptr, runtime::Grid(2, 2, S), *da, *db, *ws, int32_t(M),
                 int32_t(N), int32_t(K), int32_t(sa), int32_t(N), int32_t(N));
  ASSERT_TRUE(s.ok()) << s.message();
  s = kr->launch(nullptr, runtime::Grid(M, 2), *ws, *dc, int32_t(M),
                 int32_t(N), int32_t(N), int32_t(S));
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(ctx->synchronize().ok());
  ASSERT_TRUE(dc->copyToHost(c).ok());
  int bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k)
        want += double(af[size_t(i) * sa + k]) * bf[size_t(k) * N + j];
      double got = float(c[size_t(i) * N + j]);
      // bf16 keeps 8 bits: the sum rounded once.
      if (!(std::fabs(got - want) <= std::fabs(want) / 128 + 1e-6) &&
          bad++ < 5)
        ADD_FAILURE() << "C[" << i << ", " << j << "] = " << got
                      << ", expected " << want;
    }
}
} // namespace
