//===- matmul_gelu.cpp - matmul, plain and with a bias + GELU epilogue ----===//
//
// The accumulator tile never leaves registers: the bias add and GELU run on
// it before the one store of C. The plain matmul takes the tile of its
// target (ops::defaultMatmulTile); the f16 one reads A and B through tensor
// descriptors (the TMA and, on sm_90a, a producer warpgroup).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tilec/Ops.h"

using namespace tilec;

Kernel examples::buildMatmulBiasGelu(int blockM, int blockN, int blockK) {
  return ops::matmulKernel(
      "matmul_bias_gelu",
      {.blockM = blockM, .blockN = blockN, .blockK = blockK},
      {ops::columnInput("bias", DType::BF16)},
      [](Value acc, ops::Block &b) { return ops::gelu(acc + b["bias"]); });
}

/// C = A * B with no epilogue.
static Kernel plainMatmul(const char *name, const ops::MatmulConfig &config) {
  return ops::matmulKernel(name, config, {},
                           [](Value acc, ops::Block &) { return acc; });
}

Kernel examples::buildMatmul(const std::string &target, bool persistent) {
  return plainMatmul("matmul", {.target = target, .persistent = persistent});
}

/// 128x256 tiles, K step 64, A and B through tensor descriptors; with
/// `persistent`, one program per SM looping over the tiles (the grid is
/// the caller's: the SM count).
static Kernel descriptorMatmul(const char *name, DType ab, DType c,
                               bool persistent = false, int numCtas = 1) {
  return plainMatmul(name, {.aType = ab,
                            .bType = ab,
                            .cType = c,
                            .blockM = 128,
                            .blockN = 256,
                            .blockK = 64,
                            .persistent = persistent,
                            .descriptors = true,
                            .numCtas = numCtas});
}

Kernel examples::buildMatmulTmaPersistent() {
  return descriptorMatmul("matmul_tma_persistent_bf16out", DType::BF16,
                          DType::BF16, /*persistent=*/true);
}

/// The persistent GEMM in clusters of two programs sharing B's blocks (TMA
/// multicast on sm_90a); launch an even number of programs.
Kernel examples::buildMatmulTmaCluster() {
  return descriptorMatmul("matmul_tma_cluster_bf16out", DType::BF16,
                          DType::BF16, /*persistent=*/true, /*numCtas=*/2);
}

/// torch._scaled_mm's GEMM: e4m3 A (M x K) and B (N x K), per-tensor
/// scales, bf16 out; persistent programs (one per SM), 128x256 tiles, K
/// step 128 (the fp8 default). sm_90a only (wgmma m64n256k32).
Kernel examples::buildMatmulFp8() {
  return plainMatmul("matmul_fp8_bf16out", {.aType = DType::F8E4M3FN,
                                            .bType = DType::F8E4M3FN,
                                            .cType = DType::BF16,
                                            .blockM = 128,
                                            .blockN = 256,
                                            .persistent = true,
                                            .descriptors = true,
                                            .bTransposed = true,
                                            .scales = true});
}

Kernel examples::buildMatmulTmaFp16() {
  return descriptorMatmul("matmul_tma_fp16", DType::F16, DType::F16);
}

Kernel examples::buildMatmulTmaF16Out() {
  return descriptorMatmul("matmul_tma_f16out", DType::BF16, DType::F16);
}

Kernel examples::buildMatmulTf32() {
  // f32 operands at tf32 precision (the default of an f32 tile.dot, as
  // Triton's): mma.sync m16n8k8 with each operand rounded to 10 mantissa
  // bits; a K step of 32 keeps two f32 operand tiles in the registers.
  return plainMatmul("matmul_tf32", {.aType = DType::F32,
                                     .bType = DType::F32,
                                     .cType = DType::F32,
                                     .blockM = 128,
                                     .blockN = 128,
                                     .blockK = 32});
}

Kernel examples::buildMatmulTf32Nt() {
  // Both operands K-major (B as N x K, read transposed in place): the one
  // form tf32 wgmma takes; 32 f32 of K are one 128-byte swizzle row.
  return plainMatmul("matmul_tf32_nt", {.aType = DType::F32,
                                        .bType = DType::F32,
                                        .cType = DType::F32,
                                        .blockM = 128,
                                        .blockN = 128,
                                        .blockK = 32,
                                        .persistent = true,
                                        .descriptors = true,
                                        .bTransposed = true});
}
