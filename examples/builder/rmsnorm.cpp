//===- rmsnorm.cpp - fused residual add + RMSNorm -------------------------===//
//
// A transformer block's `h = x + residual; y = rms_norm(h) * w`: PyTorch
// eager reads and writes h three times; here x, residual and w are read once,
// h and y written once. residual_rmsnorm_fp8 also quantizes y to e4m3 for
// an fp8 GEMM (sm_89 and later).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tilec/Ops.h"

using namespace tilec;

Kernel examples::buildResidualRmsNorm(int blockCols, DType dtype) {
  return ops::rowwiseKernel(
      "residual_rmsnorm",
      {ops::input("x", dtype), ops::input("residual", dtype),
       ops::columnInput("w", dtype), ops::output("h", dtype),
       ops::output("y", dtype), ops::scalar("eps", DType::F32)},
      {.blockCols = blockCols, .numWarps = 8, .colsDivisibility = 16},
      [](ops::Block &b) {
        // h is rounded to the stored dtype, and the norm reads that value,
        // as the unfused PyTorch code would.
        Value h = b["x"] + b["residual"];
        b.store("h", h);
        b.store("y", ops::rms_norm(h, b["w"], b["eps"]));
      });
}

Kernel examples::buildResidualRmsNormFp8(int blockCols) {
  // The same, with y quantized for an fp8 GEMM: y8 = e4m3(rms_norm(h) * w
  // / scale), saturating at +-448 (static per-tensor scaling, as the fp8
  // GEMM's scale_a then undoes). Unfused, PyTorch writes y in bf16 and
  // reads it back to divide and cast; here it never leaves the registers.
  return ops::rowwiseKernel(
      "residual_rmsnorm_fp8",
      {ops::input("x", DType::BF16), ops::input("residual", DType::BF16),
       ops::columnInput("w", DType::BF16), ops::output("h", DType::BF16),
       ops::output("y8", DType::F8E4M3FN), ops::scalar("eps", DType::F32),
       ops::scalar("scale", DType::F32)},
      {.blockCols = blockCols, .numWarps = 8, .colsDivisibility = 16},
      [](ops::Block &b) {
        Value h = b["x"] + b["residual"];
        b.store("h", h);
        Value y = ops::rms_norm(h, b["w"], b["eps"]).to(DType::F32);
        b.store("y8", y / b["scale"]);
      });
}
