//===- Kernels.h - the builder examples' kernels ----------------*- C++ -*-===//
//
// Each function builds one kernel; examples/builder/<name>.cpp holds it,
// tilec-examples writes its IR (and PTX + metadata once the pipeline emits
// them), and the unit tests inspect it. Parameters are the meta-parameters a
// C++ program chooses: block sizes, dtypes, variants.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_EXAMPLES_BUILDER_KERNELS_H
#define TILEC_EXAMPLES_BUILDER_KERNELS_H

#include "tilec/Builder.h"

namespace tilec::examples {

/// z = x + y over n elements, written with the core API as in Triton.
/// Params: x, y, z, n. Grid: (cdiv(n, block)).
Kernel buildAdd(int block = 1024, DType dtype = DType::F32);

/// y = cos(cos(x)): one read, one write. Params: x, y, n.
/// Grid: (cdiv(n, block)).
Kernel buildCosCos(int block = 1024);

/// y = gelu(x + bias) on [n_rows, n_cols] x and [n_cols] bias; `tanh` picks
/// the approximation. Params: x, bias, y, n_rows, n_cols.
/// Grid: (cdiv(n_rows, rowsPerProgram)).
Kernel buildBiasGelu(int blockCols = 1024, int rowsPerProgram = 4,
                     DType dtype = DType::BF16, bool tanh = false);

/// y = softmax(x, -1) over rows. Params: x, y, n_rows, n_cols.
/// Grid: (n_rows).
Kernel buildSoftmax(int blockCols = 4096, DType dtype = DType::F32);

/// y = softmax(x * scale + mask, -1): attention-score softmax with an
/// additive [n_rows, n_cols] mask. Params: x, mask, y, scale, n_rows, n_cols.
/// Grid: (n_rows).
Kernel buildScaledMaskedSoftmax(int blockCols = 1024, DType dtype = DType::F16);

/// y = layer_norm(x) * w + b over rows. Params: x, w, b, y, eps, n_rows,
/// n_cols. Grid: (n_rows).
Kernel buildLayerNorm(int blockCols = 4096, DType dtype = DType::F16);

/// h = x + residual; y = rms_norm(h) * w; h is written back (the new
/// residual stream). Params: x, residual, w, h, y, eps, n_rows, n_cols.
/// Grid: (n_rows).
Kernel buildResidualRmsNorm(int blockCols = 4096, DType dtype = DType::F16);
/// residual_rmsnorm on bf16 whose y is stored as e4m3, divided by a
/// per-tensor `scale` (sm_89 and later).
Kernel buildResidualRmsNormFp8(int blockCols = 4096);

/// c = gelu(a @ b + bias), bf16 in and out, f32 accumulation. Params: a, b,
/// c, bias, M, N, K, stride_am, stride_bk, stride_cm.
/// Grid: (cdiv(M, blockM), cdiv(N, blockN)).
Kernel buildMatmulBiasGelu(int blockM = 128, int blockN = 128, int blockK = 32);

/// c = a @ b, bf16 in and out, f32 accumulation, on the default tile of
/// `target` (ops::defaultMatmulTile: 128x256, K step 32 on sm_90a; 128x128,
/// K step 64 elsewhere); examples/matmul.tile's parameters.
/// Grid: (cdiv(M, tile.m), cdiv(N, tile.n)); `persistent`: (P) programs,
/// P the SM count, each looping over the tiles.
Kernel buildMatmul(const std::string &target = "", bool persistent = false);

/// c = a @ b, f16 in and out, f32 accumulation, A and B through tensor
/// descriptors, 128x256 tiles, K step 64: ops::matmulKernel with
/// `descriptors`. Params: a, b (descriptors), c, M, N, K, stride_am,
/// stride_bk (unused), stride_cm. Grid: (cdiv(M, 128), cdiv(N, 256)).
Kernel buildMatmulTmaFp16();

/// c = a @ b, bf16 in, f16 out (examples/torch/block.py's projections
/// back into its f16 residual stream), f32 accumulation, A and B through
/// tensor descriptors, 128x256 tiles, K step 64. Params as
/// buildMatmulTmaFp16's; grid: the kernel's rule, (cdiv(M, 128),
/// cdiv(N, 256)).
Kernel buildMatmulTmaF16Out();
/// c = a @ b, bf16, A and B through descriptors, 128x256 tiles,
/// warp-specialized persistent programs (examples/torch/block.py's QKV
/// projection: 384 tiles for 132 SMs). Params as buildMatmulTmaFp16's;
/// grid: the SM count (no rule).
Kernel buildMatmulTmaPersistent();
Kernel buildMatmulTmaCluster();
/// e4m3 GEMM with per-tensor scales (torch._scaled_mm), sm_90a.
Kernel buildMatmulFp8();

/// c = a @ b in f32 on the tensor cores at tf32 precision (mma.sync
/// m16n8k8): ops::matmulKernel with f32 operands, 128x128 tiles, K step 32.
/// Params: a, b, c, M, N, K, stride_am, stride_bk, stride_cm. Grid:
/// (cdiv(M, 128), cdiv(N, 128)).
Kernel buildMatmulTf32();
/// nn.Linear's f32 GEMM: C = A B^T with A [M, K] and B [N, K] (both
/// K-major) through tensor descriptors, persistent 128x128 tiles (at
/// 128x256 the f32 C stores spill), K step 32: wgmma m64n128k8 .tf32 on
/// sm_90a. Params: a, b, c, M, N, K, stride_am, stride_bk, stride_cm; grid:
/// the SM count.
Kernel buildMatmulTf32Nt();

/// Flash attention forward (ops::attentionKernel): named attention_d<D>
/// (_f16 for f16). Params: those of examples/attention.tile.
/// Grid: (cdiv(seq, 128), batch * heads).
Kernel buildAttention(int headDim = 128, DType dtype = DType::BF16);

/// Flash attention backward (ops::attentionBwd*Kernel), bf16: `part` is
/// "pre" (delta = rowsum(dO * O)), "dkdv" or "dq", or the store-dS
/// variant's "dkdv_ds" (also writes dS) and "dq_ds" (dQ = dS K), or the
/// dQ-by-atomics variant's (AttentionConfig::dqAtomic) "pre_dqacc" (delta,
/// and the f32 dQ accumulator zeroed), "dkdvq" (dK, dV, and dQ added into
/// the accumulator) and "dq_convert" (dq from it); named
/// attention_bwd_<part>_d<D>. 64 keys per dK/dV program, 64 queries per
/// dQ and delta program, 4 warps. Params and grids: those of the ops
/// (include/tilec/Ops.h).
Kernel buildAttentionBwd(const std::string &part, int headDim = 128);
/// ops::attentionKernel with q, k, v as tensor descriptors (sm_90 and
/// later): 128 queries per program on 8 warps, `blockN` keys per step;
/// with `overlap` (name suffix _overlap) the softmax of a block runs beside
/// the previous block's P V (AttentionConfig::overlapSoftmax), with
/// `pingpong` (_pingpong) the two consumer warpgroups take turns, with
/// `rescaleFirst` (_rf) FlashAttention-3's order within the overlapped
/// step (AttentionConfig::rescaleFirst).
Kernel buildAttentionTma(int headDim = 128, int blockN = 64,
                         bool overlap = false, bool pingpong = false,
                         bool rescaleFirst = false);
/// The backward's dK/dV (`part` "dkdv": 128 keys per program, 64 queries a
/// step) and dQ ("dq": 128 queries per program, 64 keys a step) kernels
/// with q, k, v, do as tensor descriptors, on 8 warps; named
/// attention_tma_bwd_<part>_d<D>. delta is attention_bwd_pre_d<D>'s.
/// "dkdvq": the dK/dV kernel that also adds dQ into an f32 accumulator
/// (AttentionConfig::dqAtomic), with attention_bwd_pre_dqacc_d<D> before
/// it and attention_bwd_dq_convert_d<D> after.
Kernel buildAttentionTmaBwd(const std::string &part, int headDim = 128);

/// Every example by name, with its default meta-parameters.
struct Example {
  const char *name;
  Kernel (*build)();
};
const std::vector<Example> &allExamples();

} // namespace tilec::examples

#endif // TILEC_EXAMPLES_BUILDER_KERNELS_H
