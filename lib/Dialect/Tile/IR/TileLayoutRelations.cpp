//===- TileLayoutRelations.cpp - how each op's tile layouts relate --------===//
//
// The LayoutRelationOpInterface rules of the ops that do not simply keep one
// layout for all their tiles (the interface's default): shape changes,
// reductions, dots, memory accesses, and the ops whose tiles are free
// because their lowering moves data through shared memory.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

/// The source takes the result's layout: the repeated dims hold copies.
void BroadcastOp::relateLayouts(LayoutRelations &rel) {
  rel.sameAs(*this, getSrc(), getResult());
}

/// The source is the result's layout with the unit dim sliced away.
void ExpandDimsOp::relateLayouts(LayoutRelations &rel) {
  rel.sliceOf(*this, getSrc(), getResult(), getAxis());
}

/// Tile results are their sources' layouts with `axis` sliced away, and the
/// sources share one layout (the lowering combines them element by
/// element): argmin of a dot's accumulator with a range of indices made the
/// indices blocked and the values mma.
void ReduceOp::relateLayouts(LayoutRelations &rel) {
  if (getSrcs().size() > 1)
    rel.sameLayout(getSrcs());
  for (auto [src, res] : llvm::zip(getSrcs(), getResults()))
    rel.sliceOf(*this, res, src, getAxis());
}

void DotOp::relateLayouts(LayoutRelations &rel) { rel.dotOperands(*this); }

/// The halves have one type (ODS), so one layout; the joined tile's is free.
void JoinOp::relateLayouts(LayoutRelations &rel) {
  rel.sameLayout({getLhs(), getRhs()});
}
void SplitOp::relateLayouts(LayoutRelations &rel) {
  rel.sameLayout({getLhs(), getRhs()});
}

// Free layouts on both sides: these lower through shared memory (or, for
// print and assert, read each element wherever it is).
void ReshapeOp::relateLayouts(LayoutRelations &) {}
void TransOp::relateLayouts(LayoutRelations &) {}
void ConvertLayoutOp::relateLayouts(LayoutRelations &) {}
void PrintOp::relateLayouts(LayoutRelations &) {}
void AssertOp::relateLayouts(LayoutRelations &) {}

void LoadOp::relateLayouts(LayoutRelations &rel) {
  rel.memoryAccess(getPtr(), getOperands(), getResult());
}

void StoreOp::relateLayouts(LayoutRelations &rel) {
  SmallVector<Value> addresses = {getPtr()};
  if (getMask())
    addresses.push_back(getMask());
  rel.memoryAccess(getPtr(), addresses, getValue());
}

/// Atomics keep their values with their addresses: no data is split off.
void AtomicRMWOp::relateLayouts(LayoutRelations &rel) {
  SmallVector<Value> tiles(getOperands());
  tiles.push_back(getResult());
  rel.memoryAccess(getPtr(), tiles, {});
}

void AtomicCASOp::relateLayouts(LayoutRelations &rel) {
  SmallVector<Value> tiles(getOperands());
  tiles.push_back(getResult());
  rel.memoryAccess(getPtr(), tiles, {});
}
