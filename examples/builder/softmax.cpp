//===- softmax.cpp - row softmax, plain and scaled + masked ---------------===//
//
// One program per row keeps the row on chip: one read per input, one write.
// ops::softmax subtracts the row max and excludes the padding lanes beyond
// n_cols from the max and the sum.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tilec/Ops.h"

using namespace tilec;

Kernel examples::buildSoftmax(int blockCols, DType dtype) {
  return ops::rowwiseKernel(
      "softmax", {ops::input("x", dtype), ops::output("y", dtype)},
      {.blockCols = blockCols, .numWarps = 16, .colsDivisibility = 16},
      [](ops::Block &b) { b.store("y", ops::softmax(b["x"], -1)); });
}

Kernel examples::buildScaledMaskedSoftmax(int blockCols, DType dtype) {
  return ops::rowwiseKernel(
      "scaled_masked_softmax",
      {ops::input("x", dtype), ops::input("mask", dtype),
       ops::output("y", dtype), ops::scalar("scale", DType::F32)},
      {.blockCols = blockCols, .numWarps = 8, .colsDivisibility = 16},
      [](ops::Block &b) {
        // Three PyTorch operators, one kernel: in f32, rounded once.
        Value scores = b["x"].to(DType::F32) * b["scale"] + b["mask"];
        b.store("y", ops::softmax(scores, -1));
      });
}
