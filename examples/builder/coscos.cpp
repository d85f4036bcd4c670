//===- coscos.cpp - cos(cos(x)) in one kernel -----------------------------===//
//
// PyTorch eager runs two kernels and moves the tensor through memory twice;
// here the intermediate stays in registers.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tilec/Ops.h"

using namespace tilec;

Kernel examples::buildCosCos(int block) {
  return ops::pointwiseKernel(
      "coscos", {ops::input("x", DType::F32), ops::output("y", DType::F32)},
      {.blockSize = block},
      [](ops::Block &b) { b.store("y", cos(cos(b["x"]))); });
}
