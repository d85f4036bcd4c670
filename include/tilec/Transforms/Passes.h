//===- Passes.h - tile-level transformations --------------------*- C++ -*-===//

#ifndef TILEC_TRANSFORMS_PASSES_H
#define TILEC_TRANSFORMS_PASSES_H

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace tilec {
#define GEN_PASS_DECL
#include "tilec/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

#endif // TILEC_TRANSFORMS_PASSES_H
