//===- TileDialect.h - the tile dialect -------------------------*- C++ -*-===//
//
// Include this header to use the tile dialect: its dialect class, types,
// enums and ops.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEDIALECT_H
#define TILEC_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h.inc"
#include "tilec/Dialect/Tile/IR/TileEnums.h.inc"
#include "tilec/Dialect/Tile/IR/TileInterfaces.h"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileAttrs.h.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::tile {

/// The shape of a tile type, or {} for a scalar.
ArrayRef<int64_t> getShapeOrEmpty(Type type);

/// `type` with its element type replaced (shape and encoding kept).
Type withElementType(Type type, Type elementType);

/// True for the fp8 element types (f8E4M3FN, f8E5M2), or a tile of them.
inline bool isFp8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(type));
}

/// The i1 type with the shape and encoding of `type`.
Type getI1SameShape(Type type);

/// The pointee type of a pointer or tile of pointers, with its shape and
/// encoding; null if `type` is neither.
Type getPointeeTypeSameShape(Type type);

/// True when `tile` is what a `tile.descriptor_load` of `desc` gives (or a
/// `tile.descriptor_store` takes): the descriptor's block, or that block
/// with some of its leading dimensions of extent 1 dropped (a [1, 1, 64,
/// 128] block of a 4-D tensor as a 64x128 tile).
bool isDescriptorBlock(TensorDescType desc, Type tile);

/// True when `func` is a kernel (carries `tile.kernel`).
bool isKernel(Operation *func);

/// Rewrites the text shorthands under `root` into the forms the passes
/// take: `tile.addptr` of a scalar base and a tile of offsets into a splat
/// and an addptr, `tile.range ... offset %s` into a range, a splat and an
/// addi, `tile.outer` into expand_dims, broadcasts and the arith op,
/// `tile.grouped_ids` into its arith, `tile.each` into a splat and the
/// arith op, a `tile.expand_dims` to a size other than 1 into the unit one
/// and a broadcast (the front end does this right after parsing;
/// canonicalization does it too). Nothing else changes.
void expandShorthands(Operation *root);

/// Rewrites one `tile.each` into a splat of its scalar and the arith op.
LogicalResult expandEach(RewriterBase &rewriter, EachOp op);

/// The assembly of a descriptor store's optional reduction (`reduce fadd`;
/// tile.descriptor_store, tilegpu.tma_store: `custom<DescriptorReduce>`).
ParseResult parseDescriptorReduce(OpAsmParser &parser, RMWKindAttr &kind);
void printDescriptorReduce(OpAsmPrinter &p, Operation *op, RMWKindAttr kind);

/// Whether a descriptor of `element`s may be reduced into with `kind` (the
/// TMA's additions: fadd for f32, f16, bf16; add for i32); else the error's
/// text, e.g. "reduce fadd needs f32, f16 or bf16 elements, got i32".
std::optional<std::string> checkDescriptorReduce(RMWKind kind, Type element);

/// The warps per program of a kernel: its `tile.num_warps`, else `dflt`.
int getNumWarps(Operation *func, int dflt = 4);

/// The programs per cluster of a kernel: its `tile.num_ctas`, else 1.
int getNumCtas(Operation *func);

} // namespace mlir::tile

#endif // TILEC_DIALECT_TILE_IR_TILEDIALECT_H
