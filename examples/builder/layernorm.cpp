//===- layernorm.cpp - LayerNorm over rows --------------------------------===//
//
// Mean and (biased) variance in f32 over the n_cols valid lanes, two-pass,
// then the affine transform with the [n_cols] weight and bias.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tilec/Ops.h"

using namespace tilec;

Kernel examples::buildLayerNorm(int blockCols, DType dtype) {
  return ops::rowwiseKernel(
      "layernorm",
      {ops::input("x", dtype), ops::columnInput("w", dtype),
       ops::columnInput("b", dtype), ops::output("y", dtype),
       ops::scalar("eps", DType::F32)},
      {.blockCols = blockCols, .numWarps = 8, .colsDivisibility = 16},
      [](ops::Block &b) {
        b.store("y", ops::layer_norm(b["x"], b["w"], b["b"], b["eps"]));
      });
}
