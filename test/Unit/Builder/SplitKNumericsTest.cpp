//===- SplitKNumericsTest.cpp - split-K GEMM plans on the CPU interpreter -===//
//
// The tuner's split-K plan is two kernels: matmulKernel with splitK (grid
// axis 2 over K slices, f32 partial tiles into a workspace) and
// splitKReduceKernel (the slices summed in order, cast to bf16). Both run
// here on the interpreter, with pointer and tensor-descriptor operands, on
// ragged M, N and K, against a host reference in double: every slice must
// cover its K steps once, the last slice stop at K, and empty slices write
// zeros the reduce may add.
//
//===----------------------------------------------------------------------===//

#include "tilec/Interpreter.h"
#include "tilec/Ops.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace tilec;
using tilec::Arg;

namespace {

void run(const Kernel &k, tilec::Grid grid, std::vector<Arg> args) {
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

uint16_t toBf16(float f) {
  llvm::APFloat a(f);
  bool lost;
  (void)a.convert(llvm::APFloat::BFloat(), llvm::APFloat::rmNearestTiesToEven,
                  &lost);
  return (uint16_t)a.bitcastToAPInt().getZExtValue();
}

float fromBf16(uint16_t bits) {
  llvm::APFloat a(llvm::APFloat::BFloat(), llvm::APInt(16, bits));
  bool lost;
  (void)a.convert(llvm::APFloat::IEEEsingle(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
  return a.convertToFloat();
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Case {
  int M, N, K, splits;
  bool descriptors;
};

/// Runs the plan on `c` and compares C with the host's double reference.
void checkPlan(const Case &c) {
  const int bm = 32, bn = 32, bk = 16;
  ops::MatmulConfig cfg;
  cfg.blockM = bm;
  cfg.blockN = bn;
  cfg.blockK = bk;
  cfg.numWarps = 4;
  cfg.groupM = 2;
  cfg.cType = DType::F32;
  cfg.splitK = true;
  cfg.descriptors = c.descriptors;
  Kernel partial = ops::matmulKernel(
      "mm_split", cfg, {}, [](Value acc, ops::Block &) { return acc; });
  ops::SplitKReduceConfig rc;
  rc.blockN = 32; // N = 48 or 80: several column blocks, the last masked
  Kernel reduce = ops::splitKReduceKernel("mm_reduce", rc);

  // Row strides padded to 16 elements (the kernels' divisibility hints).
  const int M = c.M, N = c.N, K = c.K;
  const int sa = int(cdiv(K, 16) * 16), sb = int(cdiv(N, 16) * 16), sc = sb;
  std::mt19937 gen(M * 131 + N * 7 + K);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<uint16_t> a(size_t(M) * sa), b(size_t(K) * sb);
  for (uint16_t &x : a)
    x = toBf16(dist(gen));
  for (uint16_t &x : b)
    x = toBf16(dist(gen));
  // The workspace: S slices of M x N, row stride N... padded as C's.
  std::vector<float> ws(size_t(c.splits) * M * sc);
  std::vector<uint16_t> out(size_t(M) * sc);

  Arg argA = Arg::buffer(a.data(), a.size(), DType::BF16);
  Arg argB = Arg::buffer(b.data(), b.size(), DType::BF16);
  if (c.descriptors) {
    argA = Arg::tensorDesc(argA, {M, K}, {sa, 1});
    argB = Arg::tensorDesc(argB, {K, N}, {sb, 1});
  }
  run(partial,
      {cdiv(M, bm), cdiv(N, bn), c.splits},
      {argA, argB, Arg::output(ws.data(), ws.size()), Arg::scalar<int32_t>(M),
       Arg::scalar<int32_t>(N), Arg::scalar<int32_t>(K),
       Arg::scalar<int32_t>(sa), Arg::scalar<int32_t>(sb),
       Arg::scalar<int32_t>(sc)});
  // The reduce reads the workspace with row stride N: repack the padded
  // slices (what the tuner's workspace holds, with stride_cm = N there).
  std::vector<float> packed(size_t(c.splits) * M * N);
  for (int s = 0; s < c.splits; ++s)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j)
        packed[(size_t(s) * M + i) * N + j] = ws[(size_t(s) * M + i) * sc + j];
  run(reduce, {M, cdiv(N, rc.blockN)},
      {Arg::buffer(packed.data(), packed.size()),
       Arg::output(out.data(), out.size(), DType::BF16),
       Arg::scalar<int32_t>(M), Arg::scalar<int32_t>(N),
       Arg::scalar<int32_t>(sc), Arg::scalar<int32_t>(c.splits)});

  int bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0, scale = 0;
      for (int k = 0; k < K; ++k) {
        double p = double(fromBf16(a[size_t(i) * sa + k])) *
                   fromBf16(b[size_t(k) * sb + j]);
        want += p;
        scale += std::fabs(p);
      }
      double got = fromBf16(out[size_t(i) * sc + j]);
      if (!(std::fabs(got - want) <= 1e-2 * std::fabs(want) + 1e-3 * scale +
                                         1e-3) &&
          bad++ < 5)
        ADD_FAILURE() << "C[" << i << ", " << j << "] = " << got
                      << ", expected " << want << " (M=" << M << " N=" << N
                      << " K=" << K << " splits=" << c.splits << ")";
    }
}

// N stays a multiple of 16 (the kernels' divisibility of N and the row
// strides, as the tuner's buckets require); M and K are ragged, and N is
// ragged against the 32-column tiles.
TEST(SplitK, PointerPlanOnRaggedShapes) {
  checkPlan({37, 48, 100, 3, false}); // 7 K steps: slices of 3, 3, 1
  checkPlan({33, 80, 48, 4, false});  // 3 steps over 4 slices: one empty
  checkPlan({5, 48, 17, 2, false});   // K = 17: the second slice is 1 wide
}

TEST(SplitK, DescriptorPlanOnRaggedShapes) {
  checkPlan({37, 48, 100, 3, true});
  checkPlan({33, 80, 48, 4, true});
  checkPlan({5, 48, 24, 2, true});
}

TEST(SplitK, RefusesWhatTheReduceCannotFollow) {
  ops::MatmulConfig cfg;
  cfg.blockM = cfg.blockN = 32;
  cfg.blockK = 16;
  cfg.splitK = true;
  auto build = [&] {
    ops::matmulKernel("mm", cfg, {},
                      [](Value acc, ops::Block &) { return acc; });
  };
  try {
    build();
    ADD_FAILURE() << "a bf16 workspace was accepted";
  } catch (const BuildError &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "splitK writes f32 partial sums: cType must be f32 "
                  "(splitKReduceKernel casts), got bf16"),
              std::string::npos)
        << e.what();
  }
  cfg.cType = DType::F32;
  cfg.persistent = true;
  try {
    build();
    ADD_FAILURE() << "persistent split-K was accepted";
  } catch (const BuildError &e) {
    EXPECT_NE(std::string(e.what()).find("splitK takes no epilogue arguments "
                                         "and no persistent programs"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
