//===- AttentionNumericsTest.cpp - ops::attentionKernel on the interpreter ===//
//
// The generated flash attention forward, bf16 and f16, head_dim 64 and 128,
// causal and not, grouped-query heads, with seq not a multiple of either
// block (so both the unmasked and the masked K/V loops run, and the causal
// programs stop at their diagonals), against the float64 reference.
//
//===----------------------------------------------------------------------===//

#include "../AttentionReference.h"

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

const llvm::fltSemantics &semantics(DType t) {
  return t == DType::F16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat();
}
uint16_t toBits(float f, DType t) {
  llvm::APFloat a(f);
  bool lost;
  (void)a.convert(semantics(t), llvm::APFloat::rmNearestTiesToEven, &lost);
  return uint16_t(a.bitcastToAPInt().getZExtValue());
}
float fromBits(uint16_t bits, DType t) {
  llvm::APFloat a(semantics(t), llvm::APInt(16, bits));
  bool lost;
  (void)a.convert(llvm::APFloat::IEEEsingle(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
  return a.convertToFloat();
}

struct Case {
  DType dtype;
  int64_t dim, batch, heads, kvHeads, seq;
  bool causal;
  int blockM, blockN;
  /// q, k, v through tensor descriptors (AttentionConfig::descriptors),
  /// K and V stored [b, s, h, d] (strided views).
  bool descriptors = false;
  /// AttentionConfig::overlapSoftmax (with descriptors).
  bool overlap = false;
  /// AttentionConfig::rescaleFirst (with overlap).
  bool rescaleFirst = false;
};

void check(const Case &c) {
  std::string what = std::string(dtypeName(c.dtype)) +
                     " D=" + std::to_string(c.dim) +
                     " H=" + std::to_string(c.heads) + "/" +
                     std::to_string(c.kvHeads) + " S=" + std::to_string(c.seq) +
                     (c.causal ? " causal" : "") + " blocks " +
                     std::to_string(c.blockM) + "x" + std::to_string(c.blockN) +
                     (c.descriptors ? " descriptors" : "") +
                     (c.overlap ? " overlap" : "") +
                     (c.rescaleFirst ? " rescaleFirst" : "");
  SCOPED_TRACE(what);
  Kernel k = ops::attentionKernel("attn", {.dtype = c.dtype,
                                           .headDim = int(c.dim),
                                           .blockM = c.blockM,
                                           .blockN = c.blockN,
                                           .descriptors = c.descriptors,
                                           .overlapSoftmax = c.overlap,
                                           .rescaleFirst = c.rescaleFirst});
  const int64_t D = c.dim, S = c.seq;
  int64_t nq = c.batch * c.heads * S * D, nkv = c.batch * c.kvHeads * S * D;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2, 2);
  auto make = [&](int64_t n, std::vector<uint16_t> &bits) {
    std::vector<float> f(n);
    bits.resize(n);
    for (int64_t i = 0; i < n; ++i) {
      bits[i] = toBits(dist(rng), c.dtype);
      f[i] = fromBits(bits[i], c.dtype);
    }
    return f;
  };
  std::vector<uint16_t> q, kk, v, o(nq);
  std::vector<float> qf = make(nq, q), kf = make(nkv, kk), vf = make(nkv, v);
  std::vector<float> lse(c.batch * c.heads * S);
  float scale = float(1 / std::sqrt(double(D)));
  // Contiguous [b, h, s, d]: strides (h * S * D, S * D, D).
  int32_t qb = c.heads * S * D, kb = c.kvHeads * S * D, hs = S * D, ss = D;
  mlir::ModuleOp m = k.module();
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(m.getContext(),
                                        [&](mlir::Diagnostic &d) {
                                          errors += d.str() + "\n";
                                          return mlir::success();
                                        });
  std::vector<Arg> args;
  std::vector<uint16_t> kbshd, vbshd;
  if (c.descriptors) {
    // K and V stored [b, s, h, d], read through [b, h, s, d] views.
    kbshd.resize(nkv);
    vbshd.resize(nkv);
    for (int64_t b = 0; b < c.batch; ++b)
      for (int64_t h = 0; h < c.kvHeads; ++h)
        for (int64_t s = 0; s < S; ++s)
          for (int64_t d = 0; d < D; ++d) {
            int64_t from = ((b * c.kvHeads + h) * S + s) * D + d,
                    to = ((b * S + s) * c.kvHeads + h) * D + d;
            kbshd[to] = kk[from];
            vbshd[to] = v[from];
          }
    std::vector<int64_t> kvShape{c.batch, c.kvHeads, S, D},
        kvStrides{S * c.kvHeads * D, D, c.kvHeads * D, 1};
    args = {Arg::tensorDesc(Arg::buffer(q.data(), nq, c.dtype),
                            {c.batch, c.heads, S, D}),
            Arg::tensorDesc(Arg::buffer(kbshd.data(), nkv, c.dtype), kvShape,
                            kvStrides),
            Arg::tensorDesc(Arg::buffer(vbshd.data(), nkv, c.dtype), kvShape,
                            kvStrides),
            Arg::output(o.data(), nq, c.dtype),
            Arg::output(lse.data(), lse.size()),
            Arg::scalar(int32_t(c.batch)),
            Arg::scalar(int32_t(S)),
            Arg::scalar(int32_t(c.heads)),
            Arg::scalar(int32_t(c.heads / c.kvHeads)),
            Arg::scalar(qb),
            Arg::scalar(hs),
            Arg::scalar(ss),
            Arg::scalar(scale),
            Arg::scalar(c.causal)};
  }
  auto stats = runKernel(
      m, "attn", {(S + c.blockM - 1) / c.blockM, c.batch * c.heads},
      c.descriptors ? args : std::vector<Arg>{
       Arg::buffer(q.data(), nq, c.dtype), Arg::buffer(kk.data(), nkv, c.dtype),
       Arg::buffer(v.data(), nkv, c.dtype), Arg::output(o.data(), nq, c.dtype),
       Arg::output(lse.data(), lse.size()), Arg::scalar(int32_t(c.batch)),
       Arg::scalar(int32_t(S)),
       Arg::scalar(int32_t(c.heads)), Arg::scalar(int32_t(c.heads / c.kvHeads)),
       Arg::scalar(qb), Arg::scalar(hs), Arg::scalar(ss), Arg::scalar(kb),
       Arg::scalar(hs), Arg::scalar(ss), Arg::scalar(kb), Arg::scalar(hs),
       Arg::scalar(ss), Arg::scalar(qb), Arg::scalar(hs), Arg::scalar(ss),
       Arg::scalar(scale), Arg::scalar(c.causal)});
  ASSERT_TRUE(mlir::succeeded(stats)) << errors;
  std::vector<double> wantO, wantL;
  test::attentionReference(
      {c.batch, c.heads, c.kvHeads, S, D, c.causal, double(scale)}, qf, kf, vf,
      wantO, wantL);
  // bf16 keeps 8 bits of mantissa, f16 11: P and O are rounded to them.
  double tol = c.dtype == DType::BF16 ? 1e-2 : 2e-3;
  int bad = 0;
  for (int64_t i = 0; i < nq; ++i) {
    double got = fromBits(o[i], c.dtype);
    if (!(std::fabs(got - wantO[i]) <= tol + tol * std::fabs(wantO[i])) &&
        bad++ < 5)
      ADD_FAILURE() << "O[" << i << "] = " << got << ", expected " << wantO[i];
  }
  for (size_t i = 0; i < lse.size(); ++i)
    if (!(std::fabs(lse[i] - wantL[i]) <= 1e-4 * (1 + std::fabs(wantL[i]))) &&
        bad++ < 10)
      ADD_FAILURE() << "lse[" << i << "] = " << lse[i] << ", expected "
                    << wantL[i];
  EXPECT_EQ(bad, 0);
}

TEST(AttentionNumerics, Bf16Dim64) {
  for (bool causal : {false, true}) {
    check({DType::BF16, 64, 1, 2, 2, 100, causal, 64, 32});
    check({DType::BF16, 64, 2, 4, 2, 150, causal, 128, 64});
    // seq a multiple of the key block (the masked loop runs only its
    // extra step, which adds the last block's P V) and shorter than one
    // (the masked loop alone, its first step without a previous block).
    check({DType::BF16, 64, 1, 2, 1, 128, causal, 64, 32});
    check({DType::BF16, 64, 1, 2, 1, 20, causal, 64, 32});
  }
}

// q, k and v through 4-D tensor descriptors (blocks past seq read zeros
// from the descriptor; K^T is the K block transposed), with strided K/V.
TEST(AttentionNumerics, Descriptors) {
  for (bool causal : {false, true}) {
    check({DType::BF16, 64, 1, 2, 1, 100, causal, 64, 32, true});
    check({DType::BF16, 64, 2, 4, 2, 150, causal, 128, 64, true});
    check({DType::BF16, 128, 1, 2, 2, 20, causal, 64, 32, true});
    // The softmax of a block beside the previous block's P V: seq a
    // multiple of the key block (the extra masked step alone adds the last
    // P V), ragged, and shorter than one block.
    check({DType::BF16, 64, 1, 2, 1, 128, causal, 64, 32, true, true});
    check({DType::BF16, 64, 2, 4, 2, 150, causal, 128, 64, true, true});
    check({DType::BF16, 64, 1, 2, 2, 20, causal, 64, 32, true, true});
    // FlashAttention-3's order: P carried in f32, O rescaled first.
    check({DType::BF16, 64, 1, 2, 1, 128, causal, 64, 32, true, true, true});
    check({DType::BF16, 64, 2, 4, 2, 150, causal, 128, 64, true, true, true});
    check({DType::BF16, 64, 1, 2, 2, 20, causal, 64, 32, true, true, true});
  }
}

TEST(AttentionNumerics, F16Dim128) {
  for (bool causal : {false, true})
    check({DType::F16, 128, 1, 2, 1, 100, causal, 64, 32});
}

} // namespace
