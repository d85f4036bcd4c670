//===- TileInterfaces.h - interfaces of the tile dialect --------*- C++ -*-===//
//
// LayoutRelationOpInterface and the recorder its ops report to.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEINTERFACES_H
#define TILEC_DIALECT_TILE_IR_TILEINTERFACES_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::tile {
class DotOp;

/// What ops tell tile-assign-layouts about their tiles' layouts. Values
/// that are not tiles are ignored by every method.
class LayoutRelations {
public:
  virtual ~LayoutRelations() = default;
  /// The tiles among `values` share one layout.
  virtual void sameLayout(ValueRange values) = 0;
  /// Every tile operand and result of `op` shares one layout.
  void sameLayoutAll(Operation *op) {
    SmallVector<Value> values(op->getOperands());
    llvm::append_range(values, op->getResults());
    sameLayout(values);
  }
  /// `receiver` takes `supplier`'s layout though its shape differs (the two
  /// sides of a broadcast).
  virtual void sameAs(Operation *op, Value receiver, Value supplier) = 0;
  /// `sliced` has `full`'s layout with dimension `axis` removed.
  virtual void sliceOf(Operation *op, Value sliced, Value full,
                       unsigned axis) = 0;
  /// A dot: the accumulator and result share a layout, the operands derive
  /// theirs from it.
  virtual void dotOperands(DotOp dot) = 0;
  /// A memory access through the pointer tile `ptr`: the `addresses`
  /// (pointers, mask, other) share one layout, chosen for the access; the
  /// `data` (a load's result, a stored value) shares it too, except where the
  /// pass keeps data apart (mma operands keep a coalesced access).
  virtual void memoryAccess(Value ptr, ValueRange addresses,
                            ValueRange data) = 0;
};

} // namespace mlir::tile

#include "tilec/Dialect/Tile/IR/TileInterfaces.h.inc"

#endif // TILEC_DIALECT_TILE_IR_TILEINTERFACES_H
