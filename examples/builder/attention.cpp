//===- attention.cpp - flash attention, head_dim 64 and 128 ---------------===//
//
// ops::attentionKernel with the blocks of examples/attention.tile: 128
// queries per program, 64 keys per step; 8 warps at head_dim 128 (each warp
// keeps 16 rows of the 128-wide accumulator), 4 at 64.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tilec/Ops.h"

using namespace tilec;

Kernel examples::buildAttention(int headDim, DType dtype) {
  std::string name = "attention_d" + std::to_string(headDim);
  if (dtype == DType::F16)
    name += "_f16";
  return ops::attentionKernel(name, {.dtype = dtype,
                                     .headDim = headDim,
                                     .blockM = 128,
                                     .blockN = 64,
                                     .numWarps = headDim >= 128 ? 8 : 4});
}

Kernel examples::buildAttentionTma(int headDim, int blockN, bool overlap,
                                   bool pingpong, bool rescaleFirst) {
  std::string name = "attention_tma_d" + std::to_string(headDim);
  if (blockN != 64)
    name += "_n" + std::to_string(blockN);
  if (overlap)
    name += "_overlap";
  if (pingpong)
    name += "_pingpong";
  if (rescaleFirst)
    name += "_rf";
  // Q, K and V through 4-D tensor descriptors: on sm_90a a producer
  // warpgroup streams K and V by TMA into a ring the two consumer
  // warpgroups' wgmma read in place, Q among them.
  return ops::attentionKernel(name, {.dtype = DType::BF16,
                                     .headDim = headDim,
                                     .blockM = 128,
                                     .blockN = blockN,
                                     .numWarps = 8,
                                     .descriptors = true,
                                     .overlapSoftmax = overlap,
                                     .rescaleFirst = rescaleFirst,
                                     .pingpong = pingpong});
}

Kernel examples::buildAttentionTmaBwd(const std::string &part, int headDim) {
  std::string name =
      "attention_tma_bwd_" + part + "_d" + std::to_string(headDim);
  // Two consumer warpgroups of 64 rows each: 128 keys per dK/dV program
  // (64 queries a step), 128 queries per dQ program (64 keys a step).
  ops::AttentionConfig config{.dtype = DType::BF16,
                              .headDim = headDim,
                              .blockM = part == "dq" ? 128 : 64,
                              .blockN = part == "dq" ? 64 : 128,
                              .numWarps = 8,
                              .descriptors = true};
  if (part == "dkdv")
    return ops::attentionBwdDkDvKernel(name, config);
  // dQ accumulated by the dK/dV kernel (f32 atomics): no dQ kernel.
  if (part == "dkdvq" || part == "dkdvqr") {
    // 32 queries a step: at 64, dQ^T's 32 more accumulator registers make
    // ptxas serialize the wgmma (C7512) and spill 228 bytes; at 32 it
    // spills 4. Three stages of Q and dO fit beside K and V in place and
    // the two staging slots of dS^T (177 KB). dkdvqr adds each step's dQ
    // by one TMA reduce-add (dq_acc a descriptor) instead of atomics.
    config.dqAtomic = true;
    config.dqReduce = part == "dkdvqr";
    config.blockM = 32;
    config.numStages = 3;
    return ops::attentionBwdDkDvKernel(name, config);
  }
  return ops::attentionBwdDqKernel(name, config);
}

Kernel examples::buildAttentionBwd(const std::string &part, int headDim) {
  std::string name =
      "attention_bwd_" + part + "_d" + std::to_string(headDim);
  // 64 keys per dK/dV program and 64 queries per dQ program (the grids of
  // the GPU test and the bench). At head_dim 128 the dQ loop steps 32 keys
  // and the dK/dV loop stages twice, so that the staged copies fit the
  // 227 KB of shared memory.
  ops::AttentionConfig config{.dtype = DType::BF16,
                              .headDim = headDim,
                              .blockM = 64,
                              .blockN = headDim >= 128 && part == "dq" ? 32 : 64,
                              .numWarps = 4,
                              .numStages = headDim >= 128 && (part == "dkdv" ||
                                                             part == "dkdv_ds")
                                               ? 2
                                               : 0};
  if (part == "pre")
    return ops::attentionBwdPreprocessKernel(name, config);
  if (part == "dkdv")
    return ops::attentionBwdDkDvKernel(name, config);
  if (part == "dq")
    return ops::attentionBwdDqKernel(name, config);
  // dQ by atomics from the dK/dV kernel: the preprocess kernel zeroes the
  // f32 accumulator, the convert kernel writes dq from it.
  config.dqAtomic = true;
  if (part == "pre_dqacc")
    return ops::attentionBwdPreprocessKernel(name, config);
  if (part == "dkdvq")
    return ops::attentionBwdDkDvKernel(name, config);
  if (part == "dq_convert")
    return ops::attentionBwdDqConvertKernel(name, config);
  config.dqAtomic = false;
  // The store-dS variant: dK/dV also writes dS, dQ is dS K. Its dQ loop
  // stages only K and dS, so 64 keys a step fit at head_dim 128.
  config.storeDs = true;
  if (part == "dkdv_ds")
    return ops::attentionBwdDkDvKernel(name, config);
  config.blockN = 64;
  return ops::attentionBwdDqFromDsKernel(name, config);
}
