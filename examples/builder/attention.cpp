//===- attention.cpp - flash attention forward, head_dim 64 and 128 -------===//
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
