//===- TileLayout.h - what a layout means for each thread -------*- C++ -*-===//
//
// The arithmetic of the distributed layouts (#tile.blocked, #tile.slice)
// shared by the layout pass and the GPU lowering: how many elements a thread
// holds, in which order, and which tile index each of them is.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILELAYOUT_H
#define TILEC_DIALECT_TILELAYOUT_H

#include "dialect/TileDialect.h"

namespace mlir::tile {

/// A layout resolved against a tile shape. Slices are unfolded: the layout is
/// seen as the blocked layout at the root of the slices, applied to the tile's
/// shape with a unit dimension inserted at every sliced dimension. "Dims"
/// below are that blocked layout's dimensions unless named tile dims.
///
/// Along blocked dim d a thread holds perThread(d) = reps(d) * vec(d)
/// elements, sub-indices s = r * vec(d) + e, at tile index
///   (r * ctaTile(d) + (warp(d) * tpw(d) + lane(d)) * spt(d) + e) mod shape(d)
/// where vec(d) = min(spt(d), shape(d)) and ctaTile = spt * tpw * wpc. A
/// thread's elements are numbered with order[0] fastest (sub-index of
/// order[0] varies first).
class DistributedLayout {
public:
  /// Fails (no diagnostic) if `layout` is not a blocked or slice layout, its
  /// rank differs from the shape's, or a dimension is not a power of two.
  static FailureOr<DistributedLayout> get(Attribute layout,
                                          ArrayRef<int64_t> shape);
  /// The layout of a tile type (its encoding).
  static FailureOr<DistributedLayout> get(RankedTensorType type) {
    return get(type.getEncoding(), type.getShape());
  }

  BlockedLayoutAttr getBlocked() const { return blocked; }
  unsigned getRank() const { return shape.size(); }
  ArrayRef<int64_t> getShape() const { return shape; }
  ArrayRef<unsigned> getOrder() const { return blocked.getOrder(); }
  /// The blocked dim that tile dim `tileDim` is.
  unsigned getBlockedDim(unsigned tileDim) const { return tileDims[tileDim]; }
  /// True when blocked dim `d` is sliced away (the tile lacks it).
  bool isSliced(unsigned d) const { return sliced[d]; }

  /// Elements each thread holds.
  int64_t getNumElems() const { return numElems; }
  int64_t getPerThread(unsigned d) const { return perThread[d]; }
  int64_t getVec(unsigned d) const { return vec[d]; }
  int64_t getSpt(unsigned d) const { return blocked.getSizePerThread()[d]; }
  int64_t getTpw(unsigned d) const { return blocked.getThreadsPerWarp()[d]; }
  int64_t getWpc(unsigned d) const { return blocked.getWarpsPerCTA()[d]; }
  int64_t getCtaTile(unsigned d) const {
    return getSpt(d) * getTpw(d) * getWpc(d);
  }

  /// Per-dim sub-indices of the thread's element number `i`, and back.
  SmallVector<int64_t> getSubIndices(int64_t i) const;
  int64_t getElemNumber(ArrayRef<int64_t> sub) const;
  /// The index along `d` of sub-index `sub` held by lane/warp coordinates.
  int64_t getIndex(unsigned d, int64_t sub, int64_t laneCoord,
                   int64_t warpCoord) const;
  /// The part of the index along `d` that depends on the sub-index only.
  int64_t getSubOffset(unsigned d, int64_t sub) const;

  /// Lane id = sum over d of laneCoord(d) * laneStride(d); same for warps.
  int64_t getLaneStride(unsigned d) const { return laneStride[d]; }
  int64_t getWarpStride(unsigned d) const { return warpStride[d]; }
  /// Lane (warp) coordinates along `d` that hold distinct elements; the
  /// others replicate them.
  int64_t getDistinctLanes(unsigned d) const;
  int64_t getDistinctWarps(unsigned d) const;
  /// True when some element is held by more than one thread.
  bool isReplicated() const;

private:
  BlockedLayoutAttr blocked;
  SmallVector<int64_t> shape, vec, reps, perThread, laneStride, warpStride;
  SmallVector<bool> sliced;
  SmallVector<unsigned> tileDims;
  int64_t numElems = 1;
};

/// The blocked layout with `sptFast` elements per thread along `order[0]`
/// (1 along the others) whose threads, then warps, fill `shape` along
/// `order`; leftover threads and warps replicate along the slowest dim.
BlockedLayoutAttr getDefaultBlockedLayout(MLIRContext *ctx,
                                          ArrayRef<int64_t> shape,
                                          ArrayRef<unsigned> order,
                                          unsigned sptFast, unsigned numWarps);

/// True when every dim of `shape` is a power of two (the lowering needs it).
bool hasPowerOfTwoShape(ArrayRef<int64_t> shape);

} // namespace mlir::tile

#endif // TILEC_DIALECT_TILELAYOUT_H
