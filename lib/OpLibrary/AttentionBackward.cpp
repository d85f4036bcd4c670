//===- AttentionBackward.cpp - the flash attention backward generators ----===//
//
// FlashAttention-2's backward as three kernels: delta = rowsum(dO * O), then
// dK and dV (one program per K/V block and K/V head, looping over the query
// heads of its group and their query blocks), then dQ (one program per query
// block, looping over the K/V blocks). P is recomputed block by block from
// the forward's saved log-sum-exp; no S x S tensor exists (except in the
// store-dS variant, attentionBwdDqFromDsKernel: the other side of that
// trade-off, dS written by the dK/dV kernel and read back for dQ).
//
// dQ has its own kernel by default rather than atomics from the dK/dV
// kernel: every element is written once by one program (deterministic, no
// f32 scratch to round afterwards), at the price of recomputing Q K^T and
// dO V^T once more (2 of the backward's 5 products). With
// AttentionConfig::dqAtomic the dK/dV kernel adds each block's dQ into an
// f32 scratch instead (zeroed by the preprocess kernel, converted by
// attentionBwdDqConvertKernel): FlashAttention-2's form.
//
// Every operand is loaded in the orientation its dot wants (K^T, Q^T, dO^T,
// V^T through pointers contiguous along their first dim, as the forward's
// K^T), so no tile is transposed in registers.
//
// As the forward, each kernel declares its tensors' shapes, where its
// integers come from and its grid (setShape, setFrom, setGrid): PyTorch's
// operators take the tensors alone, allocate what they write (all but the
// dQ accumulator the atomic kernels add into) and launch without a grid.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include <array>
#include <cmath>
#include <functional>

namespace tilec::ops {

namespace {

const float kLog2e = float(1.0 / std::log(2.0));

/// The dK/dV and dQ kernels' q, k, v and do: with descriptors [batch,
/// heads, seq, D] (k, v: kv heads) views read a block of blockM queries or
/// blockN keys at a time, else pointers.
std::array<Value, 4> inputs(Kernel &k, const AttentionConfig &config) {
  const DType dt = config.dtype;
  const int64_t D = config.headDim, BM = config.blockM, BN = config.blockN;
  if (config.descriptors)
    return {k.tensorDesc("q", dt, {1, 1, BM, D}),
            k.tensorDesc("k", dt, {1, 1, BN, D}),
            k.tensorDesc("v", dt, {1, 1, BN, D}),
            k.tensorDesc("do", dt, {1, 1, BM, D})};
  const int pd = config.ptrDivisibility;
  return {k.pointer("q", dt, pd), k.pointer("k", dt, pd),
          k.pointer("v", dt, pd), k.pointer("do", dt, pd)};
}

/// The (batch, head, seq) strides of the pointer inputs, in that order for
/// q, k, v, do; none (null values) with descriptors, which carry theirs.
std::array<Value, 12> inputStrides(Kernel &k, const AttentionConfig &config) {
  std::array<Value, 12> s;
  if (config.descriptors)
    return s;
  const char *names[] = {"sqb", "sqh",  "sqs",  "skb",  "skh",  "sks",
                         "svb", "svh",  "svs",  "sdob", "sdoh", "sdos"};
  for (size_t i = 0; i < s.size(); ++i)
    s[i] = k.scalar(names[i], DType::I32, config.strideDivisibility);
  return s;
}

/// batch, heads and seq are the first three sizes of the tensor bound to
/// parameter `t` ([batch, heads, seq, ...]).
void sizesFrom(Kernel &k, const std::string &t, const Value &batch,
               const Value &heads, const Value &seq) {
  k.setFrom(batch, t + ".size(0)");
  k.setFrom(heads, t + ".size(1)");
  k.setFrom(seq, t + ".size(2)");
}

/// `t`'s (batch, head, seq) strides are those of the tensor bound to
/// parameter `t`.
void stridesFrom(Kernel &k, const std::string &t, const Value &sb,
                 const Value &sh, const Value &ss) {
  k.setFrom(sb, t + ".stride(0)");
  k.setFrom(sh, t + ".stride(1)");
  k.setFrom(ss, t + ".stride(2)");
}

/// The dK/dV and dQ kernels' inputs as tensors: q and do [batch, heads,
/// seq, D], k and v [batch, heads / group, seq, D], lse and delta [batch,
/// heads, seq]; batch, heads, seq and group from q and k, the pointers'
/// strides from their tensors.
void declareInputs(Kernel &k, const AttentionConfig &config,
                   const std::array<Value, 4> &in,
                   const std::array<Value, 12> &st, const Value &lse,
                   const Value &delta, const Value &batch, const Value &seq,
                   const Value &heads, const Value &group) {
  const std::string D = std::to_string(config.headDim);
  const char *names[] = {"q", "k", "v", "do"};
  for (size_t i = 0; i < in.size(); ++i) {
    bool kv = i == 1 || i == 2;
    k.setShape(in[i], {"batch", kv ? "heads / group" : "heads", "seq", D});
    if (!config.descriptors)
      stridesFrom(k, names[i], st[3 * i], st[3 * i + 1], st[3 * i + 2]);
  }
  k.setShape(lse, {"batch", "heads", "seq"});
  k.setShape(delta, {"batch", "heads", "seq"});
  sizesFrom(k, "q", batch, heads, seq);
  k.setFrom(group, "q.size(1) / k.size(1)");
}

} // namespace

Kernel attentionBwdPreprocessKernel(std::string name,
                                    const AttentionConfig &config,
                                    SourceLoc loc) {
  CallSite site("attentionBwdPreprocessKernel", loc);
  detail::checkAttentionConfig(config, "attentionBwdPreprocessKernel", "dQ ");
  const DType dt = config.dtype;
  const int pd = config.ptrDivisibility, sd = config.strideDivisibility;
  const int64_t D = config.headDim, BM = config.blockM;
  Kernel k(std::move(name),
           {.numWarps = config.numWarps, .numStages = config.numStages});
  Value o = k.pointer("o", dt, pd), dop = k.pointer("do", dt, pd),
        delta = k.pointer("delta", DType::F32, pd);
  Value dqAcc =
      config.dqAtomic ? k.pointer("dq_acc", DType::F32, pd) : Value();
  // What each backward kernel writes is marked (tile.output): PyTorch's
  // operators declare those tensors mutated and the others read only.
  k.markOutput(delta);
  if (config.dqAtomic)
    k.markOutput(dqAcc);
  Value batch = k.scalar("batch", DType::I32),
        seq = k.scalar("seq", DType::I32),
        heads = k.scalar("heads", DType::I32);
  auto stride = [&](const char *n) { return k.scalar(n, DType::I32, sd); };
  Value sob = stride("sob"), soh = stride("soh"), sos = stride("sos");
  Value sdb = stride("sdob"), sdh = stride("sdoh"), sds = stride("sdos");
  // PyTorch: `name(o, do) -> delta` (with the accumulator: `-> (delta,
  // dq_acc)`, dq_acc zeroed here).
  const std::string Ds = std::to_string(D);
  k.setShape(o, {"batch", "heads", "seq", Ds});
  k.setShape(dop, {"batch", "heads", "seq", Ds});
  k.setShape(delta, {"batch", "heads", "seq"});
  if (config.dqAtomic)
    k.setShape(dqAcc, {"batch", "heads", "seq", Ds});
  sizesFrom(k, "o", batch, heads, seq);
  stridesFrom(k, "o", sob, soh, sos);
  stridesFrom(k, "do", sdb, sdh, sds);
  k.setGrid({"cdiv(seq, " + std::to_string(BM) + ")", "batch * heads"});
  Value bh = k.programId(1), b = bh / heads, h = bh % heads;
  Value rows = k.programId(0) * BM + k.range(BM);
  Value r2 = rows.expandDims(1), rd = k.range(D).expandDims(0);
  Value in = r2 < seq;
  Value ot = k.load(o + (b * sob + h * soh) + r2 * sos + rd, in, 0);
  Value dot = k.load(dop + (b * sdb + h * sdh) + r2 * sds + rd, in, 0);
  Value d = k.reduce(ot.to(DType::F32) * dot.to(DType::F32), 1, Combine::sum);
  k.store(delta + bh * seq + rows, d, rows < seq);
  // The dK/dV kernel's dQ accumulator starts at zero.
  if (config.dqAtomic)
    k.store(dqAcc + bh * seq * D + r2 * D + rd, k.zeros({BM, D}, DType::F32),
            in);
  return k;
}

Kernel attentionBwdDqConvertKernel(std::string name,
                                   const AttentionConfig &config,
                                   SourceLoc loc) {
  CallSite site("attentionBwdDqConvertKernel", loc);
  detail::checkAttentionConfig(config, "attentionBwdDqConvertKernel", "dQ ");
  const DType dt = config.dtype;
  const int pd = config.ptrDivisibility, sd = config.strideDivisibility;
  const int64_t D = config.headDim, BM = config.blockM;
  Kernel k(std::move(name),
           {.numWarps = config.numWarps, .numStages = config.numStages});
  Value dqAcc = k.pointer("dq_acc", DType::F32, pd),
        dq = k.pointer("dq", dt, pd);
  k.markOutput(dq);
  Value batch = k.scalar("batch", DType::I32),
        seq = k.scalar("seq", DType::I32),
        heads = k.scalar("heads", DType::I32);
  auto stride = [&](const char *n) { return k.scalar(n, DType::I32, sd); };
  Value sdqb = stride("sdqb"), sdqh = stride("sdqh"), sdqs = stride("sdqs");
  Value scale = k.scalar("scale", DType::F32);
  // PyTorch: `name(dq_acc, scale) -> dq`.
  const std::string Ds = std::to_string(D);
  k.setShape(dqAcc, {"batch", "heads", "seq", Ds});
  k.setShape(dq, {"batch", "heads", "seq", Ds});
  sizesFrom(k, "dq_acc", batch, heads, seq);
  stridesFrom(k, "dq", sdqb, sdqh, sdqs);
  k.setGrid({"cdiv(seq, " + std::to_string(BM) + ")", "batch * heads"});
  Value bh = k.programId(1), b = bh / heads, h = bh % heads;
  Value r2 = (k.programId(0) * BM + k.range(BM)).expandDims(1);
  Value rd = k.range(D).expandDims(0);
  Value in = r2 < seq;
  Value acc = k.load(dqAcc + bh * seq * D + r2 * D + rd, in, 0);
  k.store(dq + (b * sdqb + h * sdqh) + r2 * sdqs + rd, (acc * scale).to(dt),
          in);
  return k;
}

Kernel attentionBwdDkDvKernel(std::string name, const AttentionConfig &config,
                              SourceLoc loc) {
  CallSite site("attentionBwdDkDvKernel", loc);
  const char *gen = "attentionBwdDkDvKernel";
  // Its programs start at the query block holding their first key, for any
  // blocks; dS is read back by blocks of the dQ kernel's (blockM) queries.
  detail::checkAttentionConfig(config, gen, config.storeDs ? "dQ " : nullptr);
  if (config.descriptors && config.storeDs)
    buildError(gen, "the store-dS variant reads q, k, v and do through "
                    "pointers: descriptors and storeDs do not go together");
  if (config.storeDs && config.dqAtomic)
    buildError(gen, "storeDs writes dS for a dQ kernel and dqAtomic adds dQ "
                    "itself: choose one");
  if (config.dqReduce && !(config.dqAtomic && config.descriptors))
    buildError(gen, "dqReduce adds dQ through a tensor descriptor: it needs "
                    "dqAtomic and descriptors");
  const DType dt = config.dtype;
  const int pd = config.ptrDivisibility, sd = config.strideDivisibility;
  const int64_t D = config.headDim, BM = config.blockM, BN = config.blockN;
  const bool desc = config.descriptors;
  Kernel k(std::move(name),
           {.numWarps = config.numWarps, .numStages = config.numStages});
  auto [q, kp, vp, dop] = inputs(k, config);
  Value lse = k.pointer("lse", DType::F32, pd),
        delta = k.pointer("delta", DType::F32, pd),
        dk = k.pointer("dk", dt, pd), dv = k.pointer("dv", dt, pd);
  // dq_acc: [batch * heads, seq, headDim] f32, through a descriptor of
  // one step's [blockM, headDim] block with dqReduce.
  Value dqAcc = !config.dqAtomic ? Value()
                : config.dqReduce
                    ? k.tensorDesc("dq_acc", DType::F32, {1, BM, D})
                    : k.pointer("dq_acc", DType::F32, pd);
  Value ds = config.storeDs ? k.pointer("ds", dt, pd) : Value();
  k.markOutput(dk);
  k.markOutput(dv);
  if (config.dqAtomic && !config.dqReduce)
    k.markOutput(dqAcc);
  if (config.storeDs)
    k.markOutput(ds);
  Value batch = k.scalar("batch", DType::I32),
        seq = k.scalar("seq", DType::I32),
        heads = k.scalar("heads", DType::I32),
        group = k.scalar("group", DType::I32);
  auto stride = [&](const char *n) { return k.scalar(n, DType::I32, sd); };
  std::array<Value, 12> strides = inputStrides(k, config);
  auto [sqb, sqh, sqs, skb, skh, sks, svb, svh, svs, sdb, sdh, sds] = strides;
  Value sdkb = stride("sdkb"), sdkh = stride("sdkh"), sdks = stride("sdks");
  Value sdvb = stride("sdvb"), sdvh = stride("sdvh"), sdvs = stride("sdvs");
  Value scale = k.scalar("scale", DType::F32);
  Value causal = k.scalar("causal", DType::I1);
  // PyTorch: `name(q, k, v, do, lse, delta, scale, causal) -> (dk, dv)`
  // (with storeDs `-> (dk, dv, ds)`); the dQ-by-atomics kernels take the
  // zeroed dq_acc and return nothing (dk, dv passed in).
  declareInputs(k, config, {q, kp, vp, dop}, strides, lse, delta, batch, seq,
                heads, group);
  const std::string Ds = std::to_string(D);
  k.setShape(dk, {"batch", "heads / group", "seq", Ds});
  k.setShape(dv, {"batch", "heads / group", "seq", Ds});
  if (config.storeDs)
    k.setShape(ds, {"batch", "heads", "seq", "seq"});
  stridesFrom(k, "dk", sdkb, sdkh, sdks);
  stridesFrom(k, "dv", sdvb, sdvh, sdvs);
  k.setGrid(
      {"cdiv(seq, " + std::to_string(BN) + ")", "batch * (heads / group)"});

  // Program (key block, batch * kv head).
  Value nblk = k.programId(0), bhk = k.programId(1);
  Value kvHeads = heads / group;
  Value b = bhk / kvHeads, hk = bhk % kvHeads;
  Value n0 = nblk * BN;
  Value rn2 = (n0 + k.range(BN)).expandDims(1); // [BN, 1] key rows
  Value rdR = k.range(D).expandDims(0), rdC = k.range(D).expandDims(1);
  Value rmR = k.range(BM).expandDims(0), rmC = k.range(BM).expandDims(1);
  Value kin = rn2 < seq;
  Value kt, vt;
  if (desc) {
    kt = k.descriptorLoad(kp, {b, hk, n0, 0});
    vt = k.descriptorLoad(vp, {b, hk, n0, 0});
  } else {
    kt = k.load(kp + (b * skb + hk * skh) + rn2 * sks + rdR, kin, 0);
    vt = k.load(vp + (b * svb + hk * svh) + rn2 * svs + rdR, kin, 0);
  }
  Value qkScale = scale * kLog2e;

  // Query blocks from the one holding the program's first key (causal) to
  // seq. One loop, masked throughout: the masked blocks are at both ends
  // (the causal diagonal first, the ragged block last), and two loops more
  // would stage their own copies of Q, Q^T, dO and dO^T in shared memory
  // (the allocator gives each loop's buffers their own bytes).
  Value lo = where(causal, n0 / BM * BM, 0);

  auto headLoop = [&](Value g, std::vector<Value> acc) {
    Value h = hk * group + g, bh = b * heads + h;
    Value lbase = lse + bh * seq, dbase = delta + bh * seq;
    Value dqBase =
        config.dqAtomic && !config.dqReduce ? dqAcc + bh * seq * D : Value();
    // Q^T and dO^T ([D, BM]) and Q and dO ([BM, D]) of the query block at
    // m: through pointers contiguous along D, each loaded in the
    // orientation its dot wants; through descriptors one block each, read
    // either way round in place (tilegpu.trans_view on sm_90a).
    std::function<std::array<Value, 4>(Value, Value, Value)> blocks;
    if (desc) {
      blocks = [&, b, h](Value m, Value, Value) {
        Value q2 = k.descriptorLoad(q, {b, h, m, 0}),
              do2 = k.descriptorLoad(dop, {b, h, m, 0});
        return std::array<Value, 4>{q2.trans(), q2, do2.trans(), do2};
      };
    } else {
      Value qbase = q + (b * sqb + h * sqh), dobase = dop + (b * sdb + h * sdh);
      Value qTOffs = rdC + rmR * sqs, qOffs = rmC * sqs + rdR;
      Value doTOffs = rdC + rmR * sds, doOffs = rmC * sds + rdR;
      blocks = [&, qbase, dobase, qTOffs, qOffs, doTOffs, doOffs](
                   Value m, Value inR, Value inC) {
        return std::array<Value, 4>{
            k.load(qbase + m * sqs + qTOffs, inR, 0),
            k.load(qbase + m * sqs + qOffs, inC, 0),
            k.load(dobase + m * sds + doTOffs, inR, 0),
            k.load(dobase + m * sds + doOffs, inC, 0)};
      };
    }
    auto step = [&](Value m, std::vector<Value> cc) {
      Value cols = m + k.range(BM);
      Value inR = (m + rmR) < seq, inC = (m + rmC) < seq, in1 = cols < seq;
      auto [qT, q2, doT, do2] = blocks(m, inR, inC);
      Value l = k.load(lbase + cols, in1, 0);
      Value di = k.load(dbase + cols, in1, 0);
      // Transposed scores: keys along rows, queries along columns.
      Value sT = k.dot(kt, qT) * qkScale;
      Value pT = exp2Ftz(sT - (l * kLog2e).expandDims(0));
      Value visible = inR & ((rn2 <= (m + rmR)) | !causal);
      pT = where(visible, pT, 0.0f);
      Value dvAcc = k.dot(pT.to(dt), do2, cc[1]);
      Value dpT = k.dot(vt, doT);
      Value dsT = pT * (dpT - di.expandDims(0));
      Value dsLow = dsT.to(dt);
      // The store-dS variant: dS[bh, query, key], zeros where not visible
      // (the dQ kernel reads the causal diagonal's blocks whole).
      if (config.storeDs)
        k.store(ds + bh.to(DType::I64) * seq.to(DType::I64) *
                         seq.to(DType::I64) +
                    (m + rmR) * seq + rn2,
                dsLow, kin & inR);
      // This block's share of dQ, as dQ^T = K^T dS^T ([D, BM]: K^T is the
      // key block read the other way round, dS^T the tile at hand), added
      // to the f32 accumulator; scaled by the convert kernel. Its product
      // comes before dK's, which reads dS^T from registers: on sm_90a dS^T
      // is stored for it to shared memory first, and dK's wgmma then runs
      // beside the atomics.
      Value dqT = config.dqAtomic ? k.dot(kt.trans(), dsLow) : Value();
      Value dkAcc = k.dot(dsLow, q2, cc[0]);
      // With dqReduce the block goes through shared memory to one TMA
      // reduce-add (rows past seq dropped by the descriptor); its wait
      // for the slot's read is left to the next step's.
      if (config.dqReduce)
        k.descriptorAtomicAdd(dqAcc, {bh, m, 0}, dqT.trans());
      else if (config.dqAtomic)
        k.atomicAdd(dqBase + (m + rmR) * D + rdC, dqT, inR,
                    {.sem = MemSem::relaxed});
      return std::vector<Value>{dkAcc, dvAcc};
    };
    return k.forLoop(lo, seq, BM, acc, step);
  };
  std::vector<Value> init = {k.zeros({BN, D}, DType::F32),
                             k.zeros({BN, D}, DType::F32)};
  std::vector<Value> fin = k.forLoop(0, group, 1, init, headLoop);
  k.store(dk + (b * sdkb + hk * sdkh) + rn2 * sdks + rdR, fin[0] * scale,
          kin);
  k.store(dv + (b * sdvb + hk * sdvh) + rn2 * sdvs + rdR, fin[1], kin);
  return k;
}

Kernel attentionBwdDqKernel(std::string name, const AttentionConfig &config,
                            SourceLoc loc) {
  CallSite site("attentionBwdDqKernel", loc);
  detail::checkAttentionConfig(config, "attentionBwdDqKernel", "dQ ");
  const DType dt = config.dtype;
  const int pd = config.ptrDivisibility, sd = config.strideDivisibility;
  const int64_t D = config.headDim, BM = config.blockM, BN = config.blockN;
  const bool desc = config.descriptors;
  Kernel k(std::move(name),
           {.numWarps = config.numWarps, .numStages = config.numStages});
  auto [q, kp, vp, dop] = inputs(k, config);
  Value lse = k.pointer("lse", DType::F32, pd),
        delta = k.pointer("delta", DType::F32, pd),
        dq = k.pointer("dq", dt, pd);
  k.markOutput(dq);
  Value batch = k.scalar("batch", DType::I32),
        seq = k.scalar("seq", DType::I32),
        heads = k.scalar("heads", DType::I32),
        group = k.scalar("group", DType::I32);
  auto stride = [&](const char *n) { return k.scalar(n, DType::I32, sd); };
  std::array<Value, 12> strides = inputStrides(k, config);
  auto [sqb, sqh, sqs, skb, skh, sks, svb, svh, svs, sdb, sdh, sds] = strides;
  Value sdqb = stride("sdqb"), sdqh = stride("sdqh"), sdqs = stride("sdqs");
  Value scale = k.scalar("scale", DType::F32);
  Value causal = k.scalar("causal", DType::I1);
  // PyTorch: `name(q, k, v, do, lse, delta, scale, causal) -> dq`.
  declareInputs(k, config, {q, kp, vp, dop}, strides, lse, delta, batch, seq,
                heads, group);
  k.setShape(dq, {"batch", "heads", "seq", std::to_string(D)});
  stridesFrom(k, "dq", sdqb, sdqh, sdqs);
  k.setGrid({"cdiv(seq, " + std::to_string(BM) + ")", "batch * heads"});

  Value mblk = k.programId(0), bh = k.programId(1);
  Value b = bh / heads, h = bh % heads, hk = h / group;
  Value m0 = mblk * BM;
  Value rows = m0 + k.range(BM);
  Value rm2 = rows.expandDims(1);
  Value rdR = k.range(D).expandDims(0), rdC = k.range(D).expandDims(1);
  Value rnR = k.range(BN).expandDims(0), rnC = k.range(BN).expandDims(1);
  Value qin = rm2 < seq, in1 = rows < seq;
  Value qt, dot;
  if (desc) {
    qt = k.descriptorLoad(q, {b, h, m0, 0});
    dot = k.descriptorLoad(dop, {b, h, m0, 0});
  } else {
    qt = k.load(q + (b * sqb + h * sqh) + rm2 * sqs + rdR, qin, 0);
    dot = k.load(dop + (b * sdb + h * sdh) + rm2 * sds + rdR, qin, 0);
  }
  Value l2 = (k.load(lse + bh * seq + rows, in1, 0) * kLog2e).expandDims(1);
  Value di = k.load(delta + bh * seq + rows, in1, 0).expandDims(1);
  Value qkScale = scale * kLog2e;

  // K^T, V^T ([D, BN]) and K ([BN, D]) of the key block at n: through
  // pointers each in its orientation (masked past seq), through
  // descriptors one block of K read either way round and one of V.
  std::function<std::array<Value, 3>(Value, bool)> blocks;
  if (desc) {
    blocks = [&](Value n, bool) {
      Value k2 = k.descriptorLoad(kp, {b, hk, n, 0});
      return std::array<Value, 3>{
          k2.trans(), k.descriptorLoad(vp, {b, hk, n, 0}).trans(), k2};
    };
  } else {
    Value kbase = kp + (b * skb + hk * skh), vbase = vp + (b * svb + hk * svh);
    Value kTOffs = rdC + rnR * sks, vTOffs = rdC + rnR * svs,
          kOffs = rnC * sks + rdR;
    blocks = [&, kbase, vbase, kTOffs, vTOffs, kOffs](Value n, bool masked) {
      if (!masked)
        return std::array<Value, 3>{k.load(kbase + n * sks + kTOffs),
                                    k.load(vbase + n * svs + vTOffs),
                                    k.load(kbase + n * sks + kOffs)};
      Value inR = (n + rnR) < seq;
      return std::array<Value, 3>{
          k.load(kbase + n * sks + kTOffs, inR, 0),
          k.load(vbase + n * svs + vTOffs, inR, 0),
          k.load(kbase + n * sks + kOffs, (n + rnC) < seq, 0)};
    };
  }

  auto step = [&](bool masked) {
    return [&, masked](Value n, Value acc) {
      auto [kT, vT, k2] = blocks(n, masked);
      Value p = exp2Ftz(k.dot(qt, kT) * qkScale - l2);
      if (masked) {
        Value visible = ((n + rnR) < seq) & (((n + rnR) <= rm2) | !causal);
        p = where(visible, p, 0.0f);
      }
      Value ds = p * (k.dot(dot, vT) - di);
      return k.dot(ds.to(dt), k2, acc);
    };
  };
  // As the forward: unmasked blocks, then the ragged and diagonal ones;
  // causal programs stop at their last query.
  Value seqFull = seq / BN * BN;
  Value fullHi = where(causal, minimum(seqFull, m0), seqFull);
  Value hi = where(causal, minimum(m0 + BM, seq), seq);
  Value acc = k.forLoop(0, fullHi, BN, k.zeros({BM, D}, DType::F32),
                        step(false));
  acc = k.forLoop(fullHi, hi, BN, acc, step(true));
  k.store(dq + (b * sdqb + h * sdqh) + rm2 * sdqs + rdR, acc * scale, qin);
  return k;
}

Kernel attentionBwdDqFromDsKernel(std::string name,
                                  const AttentionConfig &config,
                                  SourceLoc loc) {
  CallSite site("attentionBwdDqFromDsKernel", loc);
  detail::checkAttentionConfig(config, "attentionBwdDqFromDsKernel", "dQ ");
  const DType dt = config.dtype;
  const int pd = config.ptrDivisibility, sd = config.strideDivisibility;
  const int64_t D = config.headDim, BM = config.blockM, BN = config.blockN;
  Kernel k(std::move(name),
           {.numWarps = config.numWarps, .numStages = config.numStages});
  Value kp = k.pointer("k", dt, pd), ds = k.pointer("ds", dt, pd),
        dq = k.pointer("dq", dt, pd);
  k.markOutput(dq);
  Value batch = k.scalar("batch", DType::I32),
        seq = k.scalar("seq", DType::I32),
        heads = k.scalar("heads", DType::I32),
        group = k.scalar("group", DType::I32);
  auto stride = [&](const char *n) { return k.scalar(n, DType::I32, sd); };
  Value skb = stride("skb"), skh = stride("skh"), sks = stride("sks");
  Value sdqb = stride("sdqb"), sdqh = stride("sdqh"), sdqs = stride("sdqs");
  Value scale = k.scalar("scale", DType::F32);
  Value causal = k.scalar("causal", DType::I1);
  // PyTorch: `name(k, ds, scale, causal) -> dq`.
  const std::string Ds = std::to_string(D);
  k.setShape(kp, {"batch", "heads / group", "seq", Ds});
  k.setShape(ds, {"batch", "heads", "seq", "seq"});
  k.setShape(dq, {"batch", "heads", "seq", Ds});
  sizesFrom(k, "ds", batch, heads, seq);
  k.setFrom(group, "ds.size(1) / k.size(1)");
  stridesFrom(k, "k", skb, skh, sks);
  stridesFrom(k, "dq", sdqb, sdqh, sdqs);
  k.setGrid({"cdiv(seq, " + std::to_string(BM) + ")", "batch * heads"});

  Value mblk = k.programId(0), bh = k.programId(1);
  Value b = bh / heads, h = bh % heads, hk = h / group;
  // dS of a head is seq^2 elements: its base offset in i64.
  Value kbase = kp + (b * skb + hk * skh),
        dsbase = ds + bh.to(DType::I64) * seq.to(DType::I64) *
                          seq.to(DType::I64);
  Value m0 = mblk * BM;
  Value rm2 = (m0 + k.range(BM)).expandDims(1);
  Value rdR = k.range(D).expandDims(0);
  Value rnR = k.range(BN).expandDims(0), rnC = k.range(BN).expandDims(1);
  Value qin = rm2 < seq;
  // dQ = scale dS K: a matmul over the keys, blocks past the causal
  // diagonal skipped. The dK/dV kernel wrote every block up to the
  // diagonal when its query blocks are these (the same blockM): a causal
  // key block's first query block is the one holding its first key.
  Value hi = where(causal, minimum(m0 + BM, seq), seq);
  Value acc = k.forLoop(
      0, hi, BN, k.zeros({BM, D}, DType::F32), [&](Value n, Value a) {
        Value kin = (n + rnR) < seq;
        Value dst = k.load(dsbase + rm2 * seq + (n + rnR), qin & kin, 0);
        Value k2 = k.load(kbase + (n + rnC) * sks + rdR, (n + rnC) < seq, 0);
        return k.dot(dst, k2, a);
      });
  k.store(dq + (b * sdqb + h * sdqh) + rm2 * sdqs + rdR, acc * scale, qin);
  return k;
}

} // namespace tilec::ops
