//===- TileGPUDialect.h - the tilegpu dialect -------------------*- C++ -*-===//
//
// Include this header to use the tilegpu dialect: its dialect class, the
// shared memory type, the layout attributes and the ops. The arithmetic of
// the layouts is in TileLayout.h.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPUDIALECT_H
#define TILEC_DIALECT_TILEGPU_IR_TILEGPUDIALECT_H

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.h.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.h.inc"

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUDIALECT_H
