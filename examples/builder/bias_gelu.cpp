//===- bias_gelu.cpp - gelu(x + bias) in one kernel -----------------------===//
//
// The bias broadcasts over rows (PyTorch's rules); the sum and GELU are
// computed in f32 and rounded to the output dtype once.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tilec/Ops.h"

using namespace tilec;

Kernel examples::buildBiasGelu(int blockCols, int rowsPerProgram, DType dtype,
                               bool tanh) {
  return ops::rowwiseKernel(
      "bias_gelu",
      {ops::input("x", dtype), ops::columnInput("bias", dtype),
       ops::output("y", dtype)},
      {.blockCols = blockCols,
       .rowsPerProgram = rowsPerProgram,
       .colsDivisibility = 16},
      [tanh](ops::Block &b) {
        Value v = b["x"].to(DType::F32) + b["bias"];
        b.store("y", ops::gelu(v, tanh ? "tanh" : "none"));
      });
}
