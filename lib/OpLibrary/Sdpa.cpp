//===- Sdpa.cpp - scaled_dot_product_attention on tensors ------------------===//
//
// ops::scaled_dot_product_attention: PyTorch's argument checks on the three
// tensors, then the flash attention kernels (Attention.cpp,
// AttentionBackward.cpp) for their dtype and head_dim, with the grids and
// strides a launch needs. The kernels depend only on dtype, head_dim and
// the blocks; shapes and strides are their runtime parameters.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include <cmath>
#include <limits>

namespace tilec::ops {

namespace {

const char *kOp = "scaled_dot_product_attention";

std::string shapeText(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// The strides of `t` (its own, or contiguous ones), checked: four of
/// them, the last 1, each an i32.
AttentionStrides stridesOf(const TensorSpec &t, const char *what) {
  std::vector<int64_t> st = t.strides;
  if (st.empty()) {
    st.assign(4, 1);
    for (int i = 2; i >= 0; --i)
      st[i] = st[i + 1] * t.sizes[i + 1];
  }
  if (st.size() != 4)
    buildError(kOp, std::string(what) + " has " + std::to_string(st.size()) +
                        " strides for 4 dims");
  if (st[3] != 1)
    buildError(kOp, std::string(what) + "'s head_dim must be contiguous "
                                        "(stride 1), got stride " +
                        std::to_string(st[3]));
  for (int i = 0; i < 3; ++i)
    if (st[i] < 0 || st[i] > std::numeric_limits<int32_t>::max())
      buildError(kOp, std::string(what) + "'s stride " + std::to_string(i) +
                          " (" + std::to_string(st[i]) +
                          ") does not fit the kernels' i32 indices");
  return {int32_t(st[0]), int32_t(st[1]), int32_t(st[2])};
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

SdpaPlan scaled_dot_product_attention(const TensorSpec &q, const TensorSpec &k,
                                      const TensorSpec &v,
                                      const SdpaOptions &options,
                                      std::string name, SourceLoc loc) {
  CallSite site(kOp, loc);
  for (auto [t, what] : {std::pair{&q, "q"}, {&k, "k"}, {&v, "v"}})
    if (t->sizes.size() != 4)
      buildError(kOp, std::string(what) +
                          " must be [batch, heads, seq, head_dim], got " +
                          shapeText(t->sizes));
  if (q.dtype != DType::BF16 && q.dtype != DType::F16)
    buildError(kOp, "q must be bf16 or f16, got " +
                        std::string(dtypeName(q.dtype)));
  for (auto [t, what] : {std::pair{&k, "k"}, {&v, "v"}})
    if (t->dtype != q.dtype)
      buildError(kOp, std::string(what) + " is " +
                          std::string(dtypeName(t->dtype)) + " but q is " +
                          std::string(dtypeName(q.dtype)) +
                          ": all three must have one dtype");
  const std::vector<int64_t> &qs = q.sizes, &ks = k.sizes, &vs = v.sizes;
  if (ks != vs)
    buildError(kOp, "k " + shapeText(ks) + " and v " + shapeText(vs) +
                        " must have the same shape (value head_dim other "
                        "than the query's is not supported)");
  if (ks[0] != qs[0])
    buildError(kOp, "k's batch (" + std::to_string(ks[0]) +
                        ") must equal q's (" + std::to_string(qs[0]) + ")");
  if (ks[3] != qs[3])
    buildError(kOp, "k's head_dim (" + std::to_string(ks[3]) +
                        ") must equal q's (" + std::to_string(qs[3]) + ")");
  if (ks[2] != qs[2])
    buildError(kOp, "k's seq (" + std::to_string(ks[2]) +
                        ") must equal q's (" + std::to_string(qs[2]) +
                        "): the kernels take one sequence length");
  int64_t D = qs[3];
  if (D < 16 || D > 256 || (D & (D - 1)))
    buildError(kOp, "head_dim must be a power of two from 16 to 256, got " +
                        std::to_string(D));
  if (ks[1] <= 0 || qs[1] % ks[1])
    buildError(kOp, "q's heads (" + std::to_string(qs[1]) +
                        ") must be a multiple of k's (" +
                        std::to_string(ks[1]) + ") for grouped-query "
                                                "attention");
  for (int i = 0; i < 3; ++i)
    if (qs[i] <= 0)
      buildError(kOp, "q's dim " + std::to_string(i) + " is " +
                          std::to_string(qs[i]) + ": must be positive");
  const int64_t B = qs[0], H = qs[1], Hkv = ks[1], S = qs[2];
  AttentionStrides sq = stridesOf(q, "q"), sk = stridesOf(k, "k"),
                   sv = stridesOf(v, "v");
  if (options.descriptors) {
    if (D > 128)
      buildError(kOp, "with descriptors head_dim is at most 128, got " +
                          std::to_string(D));
    for (auto [st, what] : {std::pair{&sq, "q"}, {&sk, "k"}, {&sv, "v"}})
      for (auto [stride, dim] :
           {std::pair{st->batch, 0}, {st->head, 1}, {st->seq, 2}})
        if (stride % 8)
          buildError(kOp, std::string(what) + "'s stride " +
                              std::to_string(dim) + " (" +
                              std::to_string(stride) +
                              " elements) is not a multiple of 16 bytes, "
                              "which a tensor descriptor needs");
  }
  int64_t total = B * H * S * D;
  if (total > std::numeric_limits<int32_t>::max())
    buildError(kOp, "q has " + std::to_string(total) +
                        " elements: more than the kernels' i32 indices reach");
  // The forward's blocks of examples/builder/attention.cpp. The backward
  // takes 64 queries per dQ program and step; at head_dim 128, 32 keys per
  // dK/dV program and dQ step and two stages, so that the staged copies of
  // both kernels fit the H200's 227 KB of shared memory.
  AttentionConfig fwd{.dtype = q.dtype,
                      .headDim = int(D),
                      .blockM = 128,
                      .blockN = 64,
                      .numWarps = D >= 128 ? 8 : 4};
  AttentionConfig bwd{.dtype = q.dtype,
                      .headDim = int(D),
                      .blockM = 64,
                      .blockN = D >= 128 ? 32 : 64,
                      .numWarps = 4,
                      .numStages = D >= 128 ? 2 : 0};
  // The strides are runtime parameters; the kernels promise the runtime
  // multiples of 16 elements only when every given stride is one.
  bool aligned = true;
  for (const AttentionStrides &s : {sq, sk, sv})
    aligned &= s.batch % 16 == 0 && s.head % 16 == 0 && s.seq % 16 == 0;
  if (!aligned)
    fwd.strideDivisibility = bwd.strideDivisibility = 1;
  AttentionConfig dkdv = bwd, dq = bwd;
  if (options.descriptors) {
    // The builder's attention_tma_d128_n128 and attention_tma_bwd_*_d128:
    // two consumer warpgroups of 64 rows (128 queries or keys a program),
    // 128 keys a forward step, 64 rows a backward step. At head_dim 128
    // the forward is attention_tma_d128_n128_overlap_pingpong (softmax
    // beside P V, the warpgroups taking turns), the fastest measured
    // (docs/attention.md); other head_dims keep the plain schedule, which
    // was not measured against it.
    fwd = {.dtype = q.dtype, .headDim = int(D), .blockM = 128,
           .blockN = 128, .numWarps = 8, .descriptors = true,
           .overlapSoftmax = D == 128, .pingpong = D == 128};
    dkdv = {.dtype = q.dtype, .headDim = int(D), .blockM = 64,
            .blockN = 128, .numWarps = 8, .descriptors = true};
    dq = {.dtype = q.dtype, .headDim = int(D), .blockM = 128,
          .blockN = 64, .numWarps = 8, .descriptors = true};
  }
  return SdpaPlan{
      .batch = B,
      .heads = H,
      .kvHeads = Hkv,
      .seq = S,
      .headDim = D,
      .causal = options.causal,
      .scale =
          float(options.scale ? *options.scale : 1 / std::sqrt(double(D))),
      .descriptors = options.descriptors,
      .forwardConfig = fwd,
      .preprocessConfig = bwd,
      .dkdvConfig = dkdv,
      .dqConfig = dq,
      .forward = attentionKernel(name + "_fwd", fwd),
      .backwardPreprocess = attentionBwdPreprocessKernel(name + "_bwd_pre", bwd),
      .backwardDkDv = attentionBwdDkDvKernel(name + "_bwd_dkdv", dkdv),
      .backwardDq = attentionBwdDqKernel(name + "_bwd_dq", dq),
      .forwardGrid = {cdiv(S, fwd.blockM), B * H},
      .preprocessGrid = {cdiv(S, bwd.blockM), B * H},
      .dkdvGrid = {cdiv(S, dkdv.blockN), B * Hkv},
      .dqGrid = {cdiv(S, dq.blockM), B * H},
      .q = sq,
      .k = sk,
      .v = sv,
      .o = {int32_t(H * S * D), int32_t(S * D), int32_t(D)},
      .dk = {int32_t(Hkv * S * D), int32_t(S * D), int32_t(D)}};
}

} // namespace tilec::ops
