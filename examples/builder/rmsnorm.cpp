//===- rmsnorm.cpp - fused residual add + RMSNorm -------------------------===//
//
// A transformer block's `h = x + residual; y = rms_norm(h) * w`: PyTorch
// eager reads and writes h three times; here x, residual and w are read once,
// h and y written once.
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
