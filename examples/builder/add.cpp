//===- add.cpp - vector add with the core builder API ---------------------===//
//
// The Triton tutorial's first kernel, written with Kernel and Value: each
// program adds one block of `block` elements; the last block is masked.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

using namespace tilec;

Kernel examples::buildAdd(int block, DType dtype) {
  Kernel k("add");
  Value x = k.pointer("x", dtype, 16);
  Value y = k.pointer("y", dtype, 16);
  Value z = k.pointer("z", dtype, 16);
  Value n = k.scalar("n", DType::I32);
  // The launch grid, in the metadata: the runtime and the PyTorch operator
  // launch cdiv(n, block) programs without being told.
  k.setGrid({"cdiv(n, " + std::to_string(block) + ")"});
  // z is written and holds n elements: the PyTorch operator allocates it
  // (z = torch.ops.tilec.add(x, y, n)).
  k.markOutput(z);
  k.setShape(z, {"n"});
  Value offs = k.programId(0) * block + k.range(block);
  Value mask = offs < n;
  k.store(z + offs, k.load(x + offs, mask) + k.load(y + offs, mask), mask);
  return k;
}
