//===- AttentionBwdNumericsTest.cpp - the attention backward, interpreted -===//
//
// ops::attentionKernel followed by the three backward kernels
// (attentionBwdPreprocessKernel, attentionBwdDkDvKernel,
// attentionBwdDqKernel) on the interpreter, against the float64 gradients
// of test/Unit/AttentionReference.h: seq 100 (not a multiple of any block,
// so the dK/dV programs run their diagonal, unmasked and ragged query loops
// and the last key block is ragged), causal and not, grouped-query heads
// (dK and dV summed over a group), bf16 head_dim 64 and f16 head_dim 128.
//
//===----------------------------------------------------------------------===//

#include "../AttentionReference.h"

#include "tilec/Interpreter.h"
#include "tilec/Ops.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <array>
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
  /// The store-dS variant: dK/dV writes dS, attentionBwdDqFromDsKernel
  /// reads it.
  bool storeDs = false;
  /// The dK/dV and dQ kernels read q, k, v and do through tensor
  /// descriptors (AttentionConfig::descriptors).
  bool descriptors = false;
  /// dQ added by the dK/dV kernel into an f32 accumulator the preprocess
  /// kernel zeroes, then attentionBwdDqConvertKernel
  /// (AttentionConfig::dqAtomic).
  bool dqAtomic = false;
  /// With descriptors and dqAtomic: dQ added by TMA reduce-adds through a
  /// descriptor of the accumulator (AttentionConfig::dqReduce).
  bool dqReduce = false;
};

/// Runs `fn` of module `k` on `grid`; fails the test on an interpreter
/// error.
void run(Kernel &k, std::array<int64_t, 2> grid, std::vector<Arg> args) {
  mlir::ModuleOp m = k.module();
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(m.getContext(),
                                        [&](mlir::Diagnostic &d) {
                                          errors += d.str() + "\n";
                                          return mlir::success();
                                        });
  auto stats = runKernel(m, k.name(), {grid[0], grid[1]}, std::move(args));
  ASSERT_TRUE(mlir::succeeded(stats)) << k.name() << ": " << errors;
}

/// ||got - want|| / ||want|| below `tol`, and no element off by more than
/// 4 tol times the reference's RMS plus its own rounding (tol / 2 of its
/// magnitude): a wrong mask touches few elements.
void compare(const char *what, const std::vector<uint16_t> &got,
             const std::vector<double> &want, DType t, double tol) {
  double err = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double d = fromBits(got[i], t) - want[i];
    err += d * d;
    norm += want[i] * want[i];
  }
  double rms = std::sqrt(norm / double(want.size()));
  EXPECT_LT(std::sqrt(err / norm), tol) << what << " relative error";
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double g = fromBits(got[i], t);
    if (!(std::fabs(g - want[i]) <=
          4 * tol * rms + tol / 2 * std::fabs(want[i])) &&
        bad++ < 5)
      ADD_FAILURE() << what << "[" << i << "] = " << g << ", expected "
                    << want[i] << " (rms " << rms << ")";
  }
}

void check(const Case &c) {
  std::string what = std::string(dtypeName(c.dtype)) +
                     " D=" + std::to_string(c.dim) +
                     " H=" + std::to_string(c.heads) + "/" +
                     std::to_string(c.kvHeads) + " S=" + std::to_string(c.seq) +
                     (c.causal ? " causal" : "") + " blocks " +
                     std::to_string(c.blockM) + "x" + std::to_string(c.blockN) +
                     (c.storeDs ? " store dS" : "") +
                     (c.descriptors ? " descriptors" : "") +
                     (c.dqAtomic ? " dq-atomic" : "") +
                     (c.dqReduce ? " dq-reduce" : "");
  SCOPED_TRACE(what);
  ops::AttentionConfig config{.dtype = c.dtype,
                              .headDim = int(c.dim),
                              .blockM = c.blockM,
                              .blockN = c.blockN,
                              .storeDs = c.storeDs,
                              .dqAtomic = c.dqAtomic};
  Kernel fwd = ops::attentionKernel("fwd", config);
  Kernel pre = ops::attentionBwdPreprocessKernel("pre", config);
  ops::AttentionConfig bwd = config;
  bwd.descriptors = c.descriptors;
  bwd.dqReduce = c.dqReduce;
  // With descriptors, the dK/dV programs take the larger block of keys
  // (as the builder's attention_tma_bwd_dkdv: 128 keys, 64 queries a step).
  ops::AttentionConfig dkdvConfig = bwd;
  if (c.descriptors)
    dkdvConfig.blockM = std::min(c.blockM, c.blockN),
    dkdvConfig.blockN = std::max(c.blockM, c.blockN);
  Kernel dkdv = ops::attentionBwdDkDvKernel("dkdv", dkdvConfig);
  Kernel dqk = c.storeDs    ? ops::attentionBwdDqFromDsKernel("dq", config)
               : c.dqAtomic ? ops::attentionBwdDqConvertKernel("dq", config)
                            : ops::attentionBwdDqKernel("dq", bwd);
  const int64_t D = c.dim, S = c.seq, BH = c.batch * c.heads;
  int64_t nq = BH * S * D, nkv = c.batch * c.kvHeads * S * D;
  std::mt19937 rng(11);
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
  std::vector<uint16_t> q, kk, v, dout, o(nq), dq(nq), dk(nkv), dv(nkv);
  std::vector<float> qf = make(nq, q), kf = make(nkv, kk), vf = make(nkv, v),
                     df = make(nq, dout);
  std::vector<float> lse(BH * S), delta(BH * S);
  // dS, poisoned (NaN bits) so that a block the dQ kernel reads but the
  // dK/dV kernel did not write fails.
  std::vector<uint16_t> ds(c.storeDs ? BH * S * S : 0, 0xffff);
  // The dQ accumulator, NaN until the preprocess kernel zeroes it.
  std::vector<float> dqAcc(c.dqAtomic ? nq : 0, std::nanf(""));
  auto addAcc = [&](std::vector<Arg> &a) {
    if (c.dqAtomic)
      a.push_back(Arg::buffer(dqAcc.data(), dqAcc.size()));
  };
  float scale = float(1 / std::sqrt(double(D)));
  int32_t qb = c.heads * S * D, kb = c.kvHeads * S * D, hs = S * D, ss = D;
  auto strides = [&](std::vector<Arg> &args, int32_t b) {
    args.push_back(Arg::scalar(b));
    args.push_back(Arg::scalar(hs));
    args.push_back(Arg::scalar(ss));
  };
  DType t = c.dtype;
  Arg batch = Arg::scalar(int32_t(c.batch)), seq = Arg::scalar(int32_t(S)),
      heads = Arg::scalar(int32_t(c.heads)),
      group = Arg::scalar(int32_t(c.heads / c.kvHeads));
  {
    std::vector<Arg> a = {Arg::buffer(q.data(), nq, t),
                          Arg::buffer(kk.data(), nkv, t),
                          Arg::buffer(v.data(), nkv, t),
                          Arg::output(o.data(), nq, t),
                          Arg::output(lse.data(), lse.size()),
                          batch,
                          seq,
                          heads,
                          group};
    strides(a, qb), strides(a, kb), strides(a, kb), strides(a, qb);
    a.push_back(Arg::scalar(scale));
    a.push_back(Arg::scalar(c.causal));
    run(fwd, {(S + c.blockM - 1) / c.blockM, BH}, a);
  }
  {
    std::vector<Arg> a = {Arg::buffer(o.data(), nq, t),
                          Arg::buffer(dout.data(), nq, t),
                          Arg::output(delta.data(), delta.size())};
    addAcc(a);
    a.insert(a.end(), {batch, seq, heads});
    strides(a, qb), strides(a, qb);
    run(pre, {(S + c.blockM - 1) / c.blockM, BH}, a);
  }
  // q, k, v, do as [batch, heads, seq, D] descriptors.
  auto descs = [&](std::vector<Arg> &a) {
    a.push_back(Arg::tensorDesc(Arg::buffer(q.data(), nq, t),
                                {c.batch, c.heads, S, D}));
    a.push_back(Arg::tensorDesc(Arg::buffer(kk.data(), nkv, t),
                                {c.batch, c.kvHeads, S, D}));
    a.push_back(Arg::tensorDesc(Arg::buffer(v.data(), nkv, t),
                                {c.batch, c.kvHeads, S, D}));
    a.push_back(Arg::tensorDesc(Arg::buffer(dout.data(), nq, t),
                                {c.batch, c.heads, S, D}));
  };
  if (c.descriptors) {
    std::vector<Arg> a;
    descs(a);
    a.insert(a.end(), {Arg::buffer(lse.data(), lse.size()),
                       Arg::buffer(delta.data(), delta.size()),
                       Arg::output(dk.data(), nkv, t),
                       Arg::output(dv.data(), nkv, t)});
    if (c.dqReduce) // [batch * heads, seq, D]
      a.push_back(Arg::tensorDesc(Arg::buffer(dqAcc.data(), dqAcc.size()),
                                  {BH, S, D}));
    else
      addAcc(a);
    a.insert(a.end(), {batch, seq, heads, group});
    strides(a, kb), strides(a, kb);
    a.push_back(Arg::scalar(scale));
    a.push_back(Arg::scalar(c.causal));
    run(dkdv,
        {(S + dkdvConfig.blockN - 1) / dkdvConfig.blockN, c.batch * c.kvHeads},
        a);
    if (!c.dqAtomic) { // the dQ kernel; with atomics, the convert below
      a.clear();
      descs(a);
      a.insert(a.end(),
               {Arg::buffer(lse.data(), lse.size()),
                Arg::buffer(delta.data(), delta.size()),
                Arg::output(dq.data(), nq, t), batch, seq, heads, group});
      strides(a, qb);
      a.push_back(Arg::scalar(scale));
      a.push_back(Arg::scalar(c.causal));
      run(dqk, {(S + c.blockM - 1) / c.blockM, BH}, a);
    }
  } else {
    std::vector<Arg> a = {
        Arg::buffer(q.data(), nq, t),       Arg::buffer(kk.data(), nkv, t),
        Arg::buffer(v.data(), nkv, t),      Arg::buffer(dout.data(), nq, t),
        Arg::buffer(lse.data(), lse.size()),
        Arg::buffer(delta.data(), delta.size()),
        Arg::output(dk.data(), nkv, t),     Arg::output(dv.data(), nkv, t)};
    if (c.storeDs)
      a.push_back(Arg::buffer(ds.data(), ds.size(), t));
    addAcc(a);
    a.insert(a.end(), {batch, seq, heads, group});
    strides(a, qb), strides(a, kb), strides(a, kb), strides(a, qb);
    strides(a, kb), strides(a, kb);
    a.push_back(Arg::scalar(scale));
    a.push_back(Arg::scalar(c.causal));
    run(dkdv, {(S + c.blockN - 1) / c.blockN, c.batch * c.kvHeads}, a);
  }
  if (c.dqAtomic) {
    std::vector<Arg> a = {Arg::buffer(dqAcc.data(), dqAcc.size()),
                          Arg::output(dq.data(), nq, t), batch, seq, heads};
    strides(a, qb);
    a.push_back(Arg::scalar(scale));
    run(dqk, {(S + c.blockM - 1) / c.blockM, BH}, a);
  } else if (c.descriptors) {
    // Both ran above.
  } else if (c.storeDs) {
    std::vector<Arg> a = {Arg::buffer(kk.data(), nkv, t),
                          Arg::buffer(ds.data(), ds.size(), t),
                          Arg::output(dq.data(), nq, t),
                          batch,
                          seq,
                          heads,
                          group};
    strides(a, kb), strides(a, qb);
    a.push_back(Arg::scalar(scale));
    a.push_back(Arg::scalar(c.causal));
    run(dqk, {(S + c.blockM - 1) / c.blockM, BH}, a);
  } else {
    std::vector<Arg> a = {Arg::buffer(q.data(), nq, t),
                          Arg::buffer(kk.data(), nkv, t),
                          Arg::buffer(v.data(), nkv, t),
                          Arg::buffer(dout.data(), nq, t),
                          Arg::buffer(lse.data(), lse.size()),
                          Arg::buffer(delta.data(), delta.size()),
                          Arg::output(dq.data(), nq, t),
                          batch,
                          seq,
                          heads,
                          group};
    strides(a, qb), strides(a, kb), strides(a, kb), strides(a, qb);
    strides(a, qb);
    a.push_back(Arg::scalar(scale));
    a.push_back(Arg::scalar(c.causal));
    run(dqk, {(S + c.blockM - 1) / c.blockM, BH}, a);
  }
  if (::testing::Test::HasFatalFailure())
    return;
  test::AttentionShape shape{c.batch, c.heads, c.kvHeads, S, D, c.causal,
                             double(scale)};
  std::vector<double> wantO, wantL, wantDq, wantDk, wantDv;
  test::attentionReference(shape, qf, kf, vf, wantO, wantL);
  test::attentionBackwardReference(shape, qf, kf, vf, df, wantDq, wantDk,
                                   wantDv);
  double tol = c.dtype == DType::BF16 ? 1e-2 : 3e-3;
  compare("O", o, wantO, t, tol);
  compare("dQ", dq, wantDq, t, tol);
  compare("dK", dk, wantDk, t, tol);
  compare("dV", dv, wantDv, t, tol);
}

TEST(AttentionBwdNumerics, Bf16Dim64) {
  for (bool causal : {false, true})
    check({DType::BF16, 64, 1, 2, 2, 100, causal, 64, 32});
}

TEST(AttentionBwdNumerics, Bf16Dim64GqaCausal) {
  // Group 2: each dK/dV program sums two query heads; 32x32 blocks put
  // the causal diagonal in one query block per key block.
  check({DType::BF16, 64, 2, 4, 2, 100, true, 32, 32});
  check({DType::BF16, 64, 1, 4, 1, 77, false, 64, 64});
}

TEST(AttentionBwdNumerics, StoreDs) {
  for (bool causal : {false, true})
    check({DType::BF16, 64, 1, 4, 2, 100, causal, 64, 32, /*storeDs=*/true});
}

// dK/dV and dQ through tensor descriptors (Q^T, dO^T and K^T read from the
// same blocks as Q, dO and K), the dK/dV program's 64 keys over 32 queries
// a step (its blockN above its blockM) in the first and last cases.
TEST(AttentionBwdNumerics, Descriptors) {
  for (bool causal : {false, true}) {
    check({DType::BF16, 64, 1, 2, 2, 100, causal, 64, 32, false, true});
    check({DType::BF16, 64, 2, 4, 2, 150, causal, 64, 64, false, true});
    check({DType::BF16, 128, 1, 2, 1, 70, causal, 64, 32, false, true});
  }
}

// dQ added by the dK/dV kernel (f32 atomics into an accumulator the
// preprocess kernel zeroes, then converted), through pointers and through
// descriptors; GQA (each key program adds the dQ of its group's heads).
TEST(AttentionBwdNumerics, DqAtomic) {
  for (bool causal : {false, true}) {
    check({DType::BF16, 64, 1, 4, 2, 100, causal, 64, 32, false, false, true});
    check({DType::BF16, 64, 1, 2, 1, 100, causal, 64, 32, false, true, true});
  }
}

// The same with one TMA reduce-add per step through a descriptor of the
// accumulator; GQA, a ragged last block (the descriptor drops its rows
// past seq).
TEST(AttentionBwdNumerics, DqReduce) {
  for (bool causal : {false, true})
    check({DType::BF16, 64, 1, 4, 2, 100, causal, 64, 32, false, true, true,
           true});
}

TEST(AttentionBwdNumerics, F16Dim128) {
  check({DType::F16, 128, 1, 2, 1, 100, true, 64, 32});
}

/// ops::scaled_dot_product_attention: q, k and v stored [b, s, h, d] (as a
/// fused QKV projection leaves them, strided views of [b, h, s, d]), GQA
/// group 2, causal; the plan's kernels, grids and strides, forward and
/// backward, against the reference. With descriptors at head_dim 128 the
/// forward is the ping-pong one with the softmax overlapped.
void checkPlan(bool descriptors, int64_t D = 64) {
  SCOPED_TRACE(std::string(descriptors ? "descriptors" : "pointers") +
               " head_dim " + std::to_string(D));
  const int64_t B = 1, H = 4, Hkv = 2, S = 70;
  const DType t = DType::BF16;
  ops::TensorSpec q{t, {B, H, S, D}, {S * H * D, D, H * D, 1}};
  ops::TensorSpec kv{t, {B, Hkv, S, D}, {S * Hkv * D, D, Hkv * D, 1}};
  ops::SdpaPlan plan = ops::scaled_dot_product_attention(
      q, kv, kv, {.causal = true, .descriptors = descriptors});
  EXPECT_EQ(plan.descriptors, descriptors);
  EXPECT_EQ(plan.kvHeads, Hkv);
  EXPECT_FLOAT_EQ(plan.scale, float(1 / std::sqrt(double(D))));
  bool pingpong = descriptors && D == 128;
  EXPECT_EQ(plan.forwardConfig.pingpong, pingpong);
  EXPECT_EQ(plan.forwardConfig.overlapSoftmax, pingpong);
  EXPECT_EQ(plan.q.seq, H * D);
  EXPECT_EQ(plan.dkdvGrid[1], B * Hkv);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-2, 2);
  // Storage [b, s, h, d]; the reference wants contiguous [b, h, s, d].
  auto make = [&](int64_t heads, std::vector<uint16_t> &bits) {
    std::vector<float> bhsd(B * heads * S * D);
    bits.resize(bhsd.size());
    for (int64_t s = 0; s < S; ++s)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t d = 0; d < D; ++d) {
          uint16_t x = toBits(dist(rng), t);
          bits[(s * heads + h) * D + d] = x;
          bhsd[(h * S + s) * D + d] = fromBits(x, t);
        }
    return bhsd;
  };
  std::vector<uint16_t> qb, kb, vb, db;
  std::vector<float> qf = make(H, qb), kf = make(Hkv, kb), vf = make(Hkv, vb);
  // dO is contiguous [b, h, s, d], as the plan says.
  std::vector<float> df(B * H * S * D);
  db.resize(df.size());
  for (size_t i = 0; i < df.size(); ++i)
    df[i] = fromBits(db[i] = toBits(dist(rng), t), t);
  size_t nq = qb.size(), nkv = kb.size();
  std::vector<uint16_t> o(nq), dq(nq), dk(nkv), dv(nkv);
  std::vector<float> lse(B * H * S), delta(B * H * S);
  auto strides = [](std::vector<Arg> &a, const ops::AttentionStrides &s) {
    a.push_back(Arg::scalar(s.batch));
    a.push_back(Arg::scalar(s.head));
    a.push_back(Arg::scalar(s.seq));
  };
  Arg batch = Arg::scalar(int32_t(B)), seq = Arg::scalar(int32_t(S)),
      heads = Arg::scalar(int32_t(H)), group = Arg::scalar(int32_t(H / Hkv)),
      scale = Arg::scalar(plan.scale), causal = Arg::scalar(plan.causal);
  // Pointers, or [b, h, s, d] descriptors with the tensors' strides.
  auto desc = [&](std::vector<uint16_t> &bits, int64_t heads,
                  const ops::AttentionStrides &st) {
    return Arg::tensorDesc(Arg::buffer(bits.data(), bits.size(), t),
                           {B, heads, S, D}, {st.batch, st.head, st.seq, 1});
  };
  auto inputs = [&] {
    if (descriptors)
      return std::vector<Arg>{desc(qb, H, plan.q), desc(kb, Hkv, plan.k),
                              desc(vb, Hkv, plan.v)};
    return std::vector<Arg>{
        Arg::buffer(qb.data(), nq, t), Arg::buffer(kb.data(), nkv, t),
        Arg::buffer(vb.data(), nkv, t)};
  };
  std::vector<Arg> a = inputs();
  a.insert(a.end(),
           {Arg::output(o.data(), nq, t), Arg::output(lse.data(), lse.size()),
            batch, seq, heads, group});
  if (!descriptors)
    strides(a, plan.q), strides(a, plan.k), strides(a, plan.v);
  strides(a, plan.o);
  a.insert(a.end(), {scale, causal});
  run(plan.forward, plan.forwardGrid, a);
  a = {Arg::buffer(o.data(), nq, t),
       Arg::buffer(db.data(), nq, t),
       Arg::output(delta.data(), delta.size()),
       batch,
       seq,
       heads};
  strides(a, plan.o), strides(a, plan.o);
  run(plan.backwardPreprocess, plan.preprocessGrid, a);
  auto backward = [&](std::vector<Arg> outs, const ops::AttentionStrides &os) {
    std::vector<Arg> b = inputs();
    b.push_back(descriptors ? desc(db, H, plan.o)
                            : Arg::buffer(db.data(), nq, t));
    b.insert(b.end(), {Arg::buffer(lse.data(), lse.size()),
                       Arg::buffer(delta.data(), delta.size())});
    b.insert(b.end(), outs.begin(), outs.end());
    b.insert(b.end(), {batch, seq, heads, group});
    if (!descriptors) {
      strides(b, plan.q), strides(b, plan.k), strides(b, plan.v);
      strides(b, plan.o);
    }
    strides(b, os);
    if (outs.size() == 2)
      strides(b, os);
    b.insert(b.end(), {scale, causal});
    return b;
  };
  run(plan.backwardDkDv, plan.dkdvGrid,
      backward({Arg::output(dk.data(), nkv, t), Arg::output(dv.data(), nkv, t)},
               plan.dk));
  run(plan.backwardDq, plan.dqGrid,
      backward({Arg::output(dq.data(), nq, t)}, plan.o));
  if (::testing::Test::HasFatalFailure())
    return;
  test::AttentionShape shape{B, H, Hkv, S, D, true, double(plan.scale)};
  std::vector<double> wantO, wantL, wantDq, wantDk, wantDv;
  test::attentionReference(shape, qf, kf, vf, wantO, wantL);
  test::attentionBackwardReference(shape, qf, kf, vf, df, wantDq, wantDk,
                                   wantDv);
  compare("O", o, wantO, t, 1e-2);
  compare("dQ", dq, wantDq, t, 1e-2);
  compare("dK", dk, wantDk, t, 1e-2);
  compare("dV", dv, wantDv, t, 1e-2);
}

TEST(AttentionBwdNumerics, SdpaPlanStrided) {
  checkPlan(/*descriptors=*/false);
  checkPlan(/*descriptors=*/true);
  checkPlan(/*descriptors=*/true, /*D=*/128);
}

} // namespace
