//===- Attention.cpp - the flash attention forward generator --------------===//
//
// ops::attentionKernel: examples/attention.tile for any head_dim, block
// sizes and 16-bit dtype, with the K/V loop split in two. Blocks whose keys
// are all visible to all the program's queries (below the causal diagonal
// and before seq) run without masks; the rest (the diagonal blocks, the
// ragged last block) run with them. Both loops carry the same state, so the
// second continues where the first stopped.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include <array>
#include <cmath>
#include <functional>
#include <optional>
#include <limits>

namespace tilec::ops {

Kernel attentionKernel(std::string name, const AttentionConfig &config,
                       SourceLoc loc) {
  CallSite site("attentionKernel", loc);
  const char *gen = "attentionKernel";
  detail::checkAttentionConfig(config, gen, "");
  if (config.overlapSoftmax && !config.descriptors)
    buildError(gen, "overlapSoftmax needs descriptors (the previous block's "
                    "V is read at a negative offset first, which a "
                    "descriptor reads as zeros)");

  if (config.rescaleFirst && !config.overlapSoftmax)
    buildError(gen, "rescaleFirst needs overlapSoftmax (it orders the "
                    "overlapped step)");
  const DType dt = config.dtype;
  const int pd = config.ptrDivisibility, sd = config.strideDivisibility;
  const int64_t D = config.headDim, BM = config.blockM, BN = config.blockN;
  if (config.pingpong && (!config.descriptors || config.numWarps != 8))
    buildError(gen, "pingpong needs descriptors and numWarps = 8 (two "
                    "consumer warpgroups take turns)");
  Kernel k(std::move(name), {.numWarps = config.numWarps,
                             .numStages = config.numStages,
                             .pingpong = config.pingpong});
  const bool desc = config.descriptors;
  std::optional<Value> q, kp, vp;
  if (desc) {
    q = k.tensorDesc("q", dt, {1, 1, BM, D});
    kp = k.tensorDesc("k", dt, {1, 1, BN, D});
    vp = k.tensorDesc("v", dt, {1, 1, BN, D});
  } else {
    q = k.pointer("q", dt, pd);
    kp = k.pointer("k", dt, pd);
    vp = k.pointer("v", dt, pd);
  }
  Value o = k.pointer("o", dt, pd), lse = k.pointer("lse", DType::F32, pd);
  Value batch = k.scalar("batch", DType::I32),
        seq = k.scalar("seq", DType::I32),
        heads = k.scalar("heads", DType::I32),
        group = k.scalar("group", DType::I32);
  auto stride = [&](const char *n) { return k.scalar(n, DType::I32, sd); };
  std::optional<Value> sqb, sqh, sqs, skb, skh, sks, svb, svh, svs;
  if (!desc) {
    sqb = stride("sqb"), sqh = stride("sqh"), sqs = stride("sqs");
    skb = stride("skb"), skh = stride("skh"), sks = stride("sks");
    svb = stride("svb"), svh = stride("svh"), svs = stride("svs");
  }
  Value sob = stride("sob"), soh = stride("soh"), sos = stride("sos");
  Value scale = k.scalar("scale", DType::F32);
  Value causal = k.scalar("causal", DType::I1);
  // Shapes, sources and grid: bindings given tensors take every integer
  // from q, k, v and o, and allocate o and lse (PyTorch:
  // `name(q, k, v, scale, causal) -> (o, lse)`). K and V have heads /
  // group heads; the quotient must be whole.
  const std::string Ds = std::to_string(D);
  k.setShape(*q, {"batch", "heads", "seq", Ds});
  k.setShape(*kp, {"batch", "heads / group", "seq", Ds});
  k.setShape(*vp, {"batch", "heads / group", "seq", Ds});
  k.setShape(o, {"batch", "heads", "seq", Ds});
  k.setShape(lse, {"batch", "heads", "seq"});
  k.markOutput(o);
  k.markOutput(lse);
  k.setFrom(batch, "q.size(0)");
  k.setFrom(heads, "q.size(1)");
  k.setFrom(seq, "q.size(2)");
  k.setFrom(group, "q.size(1) / k.size(1)");
  if (!desc)
    for (auto [t, st] : {std::pair{"q", std::array{*sqb, *sqh, *sqs}},
                         {"k", std::array{*skb, *skh, *sks}},
                         {"v", std::array{*svb, *svh, *svs}}})
      for (int d = 0; d < 3; ++d)
        k.setFrom(st[size_t(d)],
                  std::string(t) + ".stride(" + std::to_string(d) + ")");
  k.setFrom(sob, "o.stride(0)");
  k.setFrom(soh, "o.stride(1)");
  k.setFrom(sos, "o.stride(2)");
  k.setGrid({"cdiv(seq, " + std::to_string(BM) + ")", "batch * heads"});

  // Program (query block, batch * head); query head h reads K/V head
  // h / group.
  Value mblk = k.programId(0), bh = k.programId(1);
  Value b = bh / heads, h = bh % heads, hk = h / group;
  Value obase = o + (b * sob + h * soh);
  Value m0 = mblk * BM;
  Value rm2 = (m0 + k.range(BM)).expandDims(1); // [BM, 1] query rows
  Value rdR = k.range(D).expandDims(0), rdC = k.range(D).expandDims(1);
  Value rnR = k.range(BN).expandDims(0), rnC = k.range(BN).expandDims(1);
  Value qin = rm2 < seq;
  Value qkScale = scale * float(1.0 / std::log(2.0)); // log2(e) * scale

  // The Q tile and each step's K^T ([D, BN]) and V ([BN, D]) blocks at key
  // offset n, masked (past seq: zeros) or not. Through descriptors the
  // blocks past seq read zeros by themselves, and K^T is K's block read
  // the other way round (in place, by the wgmma, on sm_90a).
  Value qt;
  std::function<std::pair<Value, Value>(Value, bool)> kvBlocks;
  if (desc) {
    qt = k.descriptorLoad(*q, {b, h, m0, 0});
    kvBlocks = [&](Value n, bool) {
      return std::pair{k.descriptorLoad(*kp, {b, hk, n, 0}).trans(),
                       k.descriptorLoad(*vp, {b, hk, n, 0})};
    };
  } else {
    Value qbase = *q + (b * *sqb + h * *sqh),
          kbase = *kp + (b * *skb + hk * *skh),
          vbase = *vp + (b * *svb + hk * *svh);
    qt = k.load(qbase + rm2 * *sqs + rdR, qin, 0);
    // Offsets of K^T and V within a block. The loops carry no pointer
    // tiles: each step adds its scalar offset n * stride to the base and
    // these i32 offsets, so a thread keeps one i32 per element across the
    // loop instead of a 64-bit pointer (and the pipeliner's copy of it
    // running ahead).
    Value kOffs = rdC + rnR * *sks, vOffs = rnC * *svs + rdR;
    kvBlocks = [&, kbase, vbase, kOffs, vOffs](Value n, bool masked) {
      if (!masked)
        return std::pair{k.load(kbase + n * *sks + kOffs),
                         k.load(vbase + n * *svs + vOffs)};
      return std::pair{k.load(kbase + n * *sks + kOffs, (n + rnR) < seq, 0),
                       k.load(vbase + n * *svs + vOffs, (n + rnC) < seq, 0)};
    };
  }

  // One K/V block at key offset n: the online softmax update.
  auto step = [&](bool masked) {
    return [&, masked](Value n, std::vector<Value> c) {
      auto [kt, vt] = kvBlocks(n, masked);
      Value s = k.dot(qt, kt) * qkScale;
      if (masked) {
        Value kin = (n + rnR) < seq;
        Value visible = kin & (((n + rnR) <= rm2) | !causal);
        s = where(visible, s, -std::numeric_limits<float>::infinity());
      }
      Value mNew = maximum(c[1], k.reduce(s, 1, Combine::max));
      Value p = exp2Ftz(s - mNew.expandDims(1));
      Value alpha = exp2Ftz(c[1] - mNew);
      Value l = c[2] * alpha + k.reduce(p, 1, Combine::sum);
      Value acc = k.dot(p.to(dt), vt, c[0] * alpha.expandDims(1));
      return std::vector<Value>{acc, mNew, l};
    };
  };
  // With `overlapSoftmax` (descriptors only) the step at key offset n
  // computes S = Q K_n^T and adds the previous step's P V_{n-BN}, in that
  // order: the two wgmma groups run back to back and the softmax of S runs
  // beside P V's group (tile-async-dots waits for S alone first, then for
  // the accumulator where it is read), as FlashAttention-3 overlaps them
  // within a warpgroup. The loops carry (acc, m, l, P): acc holds the
  // blocks before the previous one, P the previous block's probabilities
  // (zeros at first: V_{-BN} reads zeros too). The masked loop runs one
  // step past hi, whose keys are all masked off (P = 0, m and l
  // unchanged), to add the last block's P V.
  //
  // By default acc is rescaled after the softmax and P carried in `dt`:
  // ptxas then waits for P V's group before the exponentials (the new P is
  // converted into the registers the running group still reads). With
  // `rescaleFirst` the loops also carry alpha and P in f32, and the step
  // rescales acc and converts P before it issues the products, so that
  // nothing of the softmax waits for P V's group.
  const bool first = config.rescaleFirst;
  auto overlapped = [&, first](bool masked) {
    return [&, masked, first](Value n, std::vector<Value> c) {
      Value scaled = first ? c[0] * c[4].expandDims(1) : c[0];
      Value pPrev = first ? c[3].to(dt) : c[3];
      Value kt = k.descriptorLoad(*kp, {b, hk, n, 0}).trans();
      Value vt = k.descriptorLoad(*vp, {b, hk, n - BN, 0});
      Value s = k.dot(qt, kt);
      Value acc = k.dot(pPrev, vt, scaled);
      s = s * qkScale;
      if (masked) {
        Value visible = ((n + rnR) < seq) & (((n + rnR) <= rm2) | !causal);
        s = where(visible, s, -std::numeric_limits<float>::infinity());
      }
      Value mNew = maximum(c[1], k.reduce(s, 1, Combine::max));
      Value p = exp2Ftz(s - mNew.expandDims(1));
      Value alpha = exp2Ftz(c[1] - mNew);
      Value l = c[2] * alpha + k.reduce(p, 1, Combine::sum);
      if (first)
        return std::vector<Value>{acc, mNew, l, p, alpha};
      return std::vector<Value>{acc * alpha.expandDims(1), mNew, l, p.to(dt)};
    };
  };
  // Unmasked: blocks before seq's last full block and (causal) before the
  // program's first query. Masked: from there to seq or (causal) the
  // program's last query.
  Value seqFull = seq / BN * BN;
  Value fullHi = where(causal, minimum(seqFull, m0), seqFull);
  Value hi = where(causal, minimum(m0 + BM, seq), seq);
  std::vector<Value> init = {
      k.zeros({BM, D}, DType::F32),
      k.full({BM}, -std::numeric_limits<float>::infinity(), DType::F32),
      k.zeros({BM}, DType::F32)};
  std::vector<Value> fin;
  if (config.overlapSoftmax) {
    init.push_back(k.zeros({BM, BN}, first ? DType::F32 : dt));
    if (first)
      init.push_back(k.full({BM}, 1.0f, DType::F32));
    std::vector<Value> mid = k.forLoop(0, fullHi, BN, init, overlapped(false));
    fin = k.forLoop(fullHi, hi + BN, BN, mid, overlapped(true));
  } else {
    std::vector<Value> mid = k.forLoop(0, fullHi, BN, init, step(false));
    fin = k.forLoop(fullHi, hi, BN, mid, step(true));
  }

  k.store(obase + rm2 * sos + rdR, fin[0] / fin[2].expandDims(1), qin);
  Value rows = m0 + k.range(BM);
  k.store(lse + bh * seq + rows, (fin[1] + log2(fin[2])) * float(std::log(2.0)),
          rows < seq);
  return k;
}

} // namespace tilec::ops

void tilec::ops::detail::checkAttentionConfig(const AttentionConfig &config,
                                              const char *gen,
                                              const char *diagonalOf) {
  if (config.dtype != DType::BF16 && config.dtype != DType::F16)
    buildError(gen, "dtype must be bf16 or f16 (the tensor cores' 16-bit "
                    "types), got " +
                        std::string(dtypeName(config.dtype)));
  auto powerOfTwo = [&](int v, int lo, const char *what) {
    if (v < lo || (v & (v - 1)))
      buildError(gen, std::string(what) + " must be a power of two of at "
                                          "least " +
                          std::to_string(lo) + ", got " + std::to_string(v));
  };
  powerOfTwo(config.headDim, 16, "headDim");
  powerOfTwo(config.blockM, 16, "blockM");
  powerOfTwo(config.blockN, 16, "blockN");
  if (diagonalOf && config.blockM % config.blockN)
    buildError(gen, "blockM (" + std::to_string(config.blockM) +
                        ") must be a multiple of blockN (" +
                        std::to_string(config.blockN) + "): a causal " +
                        diagonalOf +
                        "program's diagonal starts at a key block");
}
