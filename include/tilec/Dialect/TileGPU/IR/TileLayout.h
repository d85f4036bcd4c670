//===- TileLayout.h - what a layout means for each thread -------*- C++ -*-===//
//
// The arithmetic of the distributed layouts (#tilegpu.blocked, #tilegpu.mma,
// #tilegpu.dot_operand and #tilegpu.slice of them) shared by the layout pass
// and the GPU lowering: how many elements a thread holds, in which order, and
// which tile index each of them is; and of the shared memory layout
// (#tilegpu.shared) of staged dot operands.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILELAYOUT_H
#define TILEC_DIALECT_TILEGPU_IR_TILELAYOUT_H

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h"

#include <optional>

namespace mlir::tilegpu {

/// A layout resolved against a tile shape. Slices are unfolded: the layout is
/// seen as the layout at the root of the slices (blocked, mma or
/// dot_operand), applied to the tile's shape with a unit dimension inserted
/// at every sliced dimension. "Dims" below are that root layout's dimensions
/// unless named tile dims.
///
/// Every layout is, along each dim d, a sum of contributions:
///   index = (regOffset(d, s) + laneCoord(d) * laneMul(d)
///            + warpCoord(d) * warpMul(d)) mod shape(d)
/// where s is the thread's sub-index along d, read as mixed-radix digits
/// (radix, stride) fastest first, regOffset = sum of digit * stride, and
/// lane/warp coordinates come from the lane and warp ids (lane id = sum of
/// laneCoord(d) * laneStride(d), warps alike; lane counts are powers of
/// two, warp counts and radices any positive integer). A zero
/// laneMul/warpMul means those lanes/warps hold copies. For
/// #tilegpu.blocked the digits are (sizePerThread, 1) and (repetitions,
/// CTA tile), the repetitions covering the shape: laneMul = sizePerThread,
/// warpMul = sizePerThread * threadsPerWarp. Digits that would reach past
/// the shape are dropped or cut, so a thread never holds one element twice.
/// A shape smaller than one CTA tile is replicated uniformly (get fails
/// otherwise); a shape that is no multiple of it is padded: the last
/// repetition's indices past the shape (isPadded) wrap onto the first ones
/// and hold copies of them, which stores, atomics and reductions leave out.
/// A thread's elements are numbered with order[0] fastest (its sub-index
/// varies first).
class DistributedLayout {
public:
  /// Fails (no diagnostic) if `layout` is not a distributed layout, its rank
  /// differs from the shape's, or its lanes or warps cannot replicate a
  /// dim smaller than them uniformly (e.g. 4-element threads on 32 lanes
  /// over a dim of 12).
  static FailureOr<DistributedLayout> get(Attribute layout,
                                          ArrayRef<int64_t> shape);
  /// The layout of a tile type (its encoding).
  static FailureOr<DistributedLayout> get(RankedTensorType type) {
    return get(type.getEncoding(), type.getShape());
  }

  /// The blocked, mma or dot_operand layout at the root of the slices.
  Attribute getRoot() const { return root; }
  unsigned getNumWarps() const { return numWarps; }
  unsigned getRank() const { return shape.size(); }
  ArrayRef<int64_t> getShape() const { return shape; }
  /// Dims from the one whose elements are numbered fastest.
  ArrayRef<unsigned> getOrder() const { return order; }
  /// The root dim that tile dim `tileDim` is.
  unsigned getBlockedDim(unsigned tileDim) const { return tileDims[tileDim]; }
  /// True when root dim `d` is sliced away (the tile lacks it).
  bool isSliced(unsigned d) const { return sliced[d]; }

  /// Elements each thread holds.
  int64_t getNumElems() const { return numElems; }
  int64_t getPerThread(unsigned d) const;
  /// Consecutive tile indices along `d` held as consecutive elements (the
  /// widest vector a thread can access along `d`): the largest power of
  /// two dividing the run.
  int64_t getVec(unsigned d) const;
  int64_t getTpw(unsigned d) const { return tpw[d]; }
  int64_t getWpc(unsigned d) const { return wpc[d]; }
  int64_t getLaneMul(unsigned d) const { return laneMul[d]; }
  int64_t getWarpMul(unsigned d) const { return warpMul[d]; }

  /// Per-dim sub-indices of the thread's element number `i`, and back.
  SmallVector<int64_t> getSubIndices(int64_t i) const;
  int64_t getElemNumber(ArrayRef<int64_t> sub) const;
  /// The index along `d` of sub-index `sub` held by lane/warp coordinates.
  int64_t getIndex(unsigned d, int64_t sub, int64_t laneCoord,
                   int64_t warpCoord) const;
  /// The part of the index along `d` that depends on the sub-index only.
  int64_t getSubOffset(unsigned d, int64_t sub) const;
  /// True when lane/warp contributions can reach past the shape along `d`
  /// (indices need the "mod shape"; some threads hold copies).
  bool wraps(unsigned d) const;
  /// The largest lane/warp part of an index along `d` over the threads that
  /// hold distinct elements.
  int64_t getMaxThreadOffset(unsigned d) const;
  /// True when a thread holding distinct elements along `d` also holds
  /// padding there: indices past the shape, copies of the first ones.
  bool isPadded(unsigned d) const;
  /// True when sub-index `sub` along `d` is inside the shape for every
  /// thread holding distinct elements (no padding check needed).
  bool isPaddingFree(unsigned d, int64_t sub) const;
  /// Padding element slots over the whole program (0: an exact cover).
  int64_t getNumPadded() const;

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
  Attribute root;
  unsigned numWarps = 1;
  SmallVector<int64_t> shape, tpw, wpc, laneMul, warpMul, laneStride,
      warpStride;
  /// Per dim: the (radix, stride) digits of a thread's sub-index.
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> regFactors;
  SmallVector<unsigned> order;
  SmallVector<bool> sliced;
  SmallVector<unsigned> tileDims;
  int64_t numElems = 1;
};

/// The blocked layout with `sptFast` elements per thread along `order[0]`
/// (1 along the others; `sptFast` should divide that dim) whose threads,
/// then warps, fill `shape` along `order`; leftover threads and warps
/// replicate along the slowest dim. A dim with fewer elements than the
/// threads left keeps its odd factor in each thread (12 = 3 x 4 lanes), so
/// its lanes replicate uniformly; one with at least as many takes all of
/// them and is padded where they do not divide it (see
/// docs/pipeline.md, "Layouts of any shape").
BlockedLayoutAttr getDefaultBlockedLayout(MLIRContext *ctx,
                                          ArrayRef<int64_t> shape,
                                          ArrayRef<unsigned> order,
                                          unsigned sptFast, unsigned numWarps);

/// The #tilegpu.mma layout for the accumulator of `dot` when it can run on
/// mma.sync m16n8k16 (f16/bf16 operands, f32 or f16 accumulator, M >= 16,
/// N >= 8, K >= 16), with `numWarps` warps split between M and N as
/// Triton's warpsPerTileV2 does; null otherwise.
/// With `wgmma` (the target has sm_90a's warpgroup MMA), a dot that wgmma
/// can run (f16/bf16 operands, f32 accumulator, M a multiple of 16 *
/// numWarps, N a multiple of 8 and of its instruction N (N itself up to
/// 256), K a multiple of 16, numWarps a multiple of 4) gets the version 3
/// layout instead. fp8 operands (e4m3, e5m2) with an f32 accumulator get
/// it too, with K a multiple of 32, and nothing without `wgmma`; f32
/// operands at tf32 precision get it (K a multiple of 8) only with
/// `kMajorOperands` (the caller found both operands K-major blocks of
/// tensor descriptors, the one form tf32 wgmma reads), else mma.sync's.
MmaLayoutAttr getMmaLayoutFor(tile::DotOp dot, unsigned numWarps,
                              bool wgmma = false, bool kMajorOperands = false);

/// kWidth of a dot operand with elements of `elemBits` bits.
inline unsigned getMmaKWidth(unsigned elemBits) { return 32 / elemBits; }

/// Warps of a program for any distributed layout (0 if not one).
unsigned getLayoutNumWarps(Attribute layout);

/// True when every dim of `shape` is a power of two.
bool hasPowerOfTwoShape(ArrayRef<int64_t> shape);

/// The swizzled shared layout for a 2-D tile of `elemBits`-bit elements
/// whose contiguous dim is `order[0]`: 16-byte chunks, phases chosen so the
/// 8 rows of an ldmatrix fall in distinct banks.
SharedLayoutAttr getSwizzledSharedLayout(MLIRContext *ctx,
                                         ArrayRef<int64_t> shape,
                                         ArrayRef<unsigned> order,
                                         unsigned elemBits);

/// The #tilegpu.nvmma_shared layout for a 2-D tile of 8- or 16-bit elements whose
/// contiguous dim is `order[0]`: the widest swizzle (128, 64 or 32 bytes)
/// that divides a row, or null when the tile has no such layout (rows
/// under 32 bytes, the other dim not a multiple of 8, other widths).
NvmmaSharedLayoutAttr getNvmmaSharedLayout(MLIRContext *ctx,
                                           ArrayRef<int64_t> shape,
                                           ArrayRef<unsigned> order,
                                           unsigned elemBits);

/// How a tensor descriptor's block travels by TMA on sm_90a: `copies`
/// boxes of `box` (outermost dim first), box c holding the block's columns
/// [c * box.back(), (c + 1) * box.back()) of every row, stored one after
/// the other. With `swizzle` (128, 64 or 32 bytes; 0 for none) the result
/// is the block in `#tilegpu.nvmma_shared<{swizzle, order = [1, 0]}>`,
/// which is what wgmma's descriptors read: the box's inner dim is one
/// swizzle atom. A block of more than two dims gets the arrangement when
/// its leading dims are 1 (a [1, 1, 64, 128] block of a 4-D tensor is one
/// 64x128 tile). The runtime's metadata names `box` as the parameter's
/// block.
struct TmaBox {
  SmallVector<int64_t> box;
  unsigned swizzle = 0;
  int64_t copies = 1;
};
TmaBox getTmaBox(ArrayRef<int64_t> block, unsigned elemBits);

/// Element offset (not bytes) of (row, col) — row along order[1], col along
/// order[0] — in a tile of `rowLen` elements per row with layout `layout`.
int64_t getSharedOffset(SharedLayoutAttr layout, int64_t rowLen, int64_t row,
                        int64_t col);

/// When every thread holds in `dst` only elements it holds in `src`, each
/// at the same element number in every thread, returns for each element
/// number of `dst` that of `src`: the conversion is then a renaming of
/// registers (an mma accumulator to the A operand of the next dot, warps
/// along M; layouts that differ only in attributes that do not move
/// elements). Layouts of other shapes or warp counts, padded layouts, or
/// tiles too large to enumerate (over 2^24 element-threads) give nullopt.
/// The conversion lowers such a tilegpu convert_layout by renaming, and the
/// shared-memory analysis gives it no scratch.
std::optional<SmallVector<int64_t>>
getRegisterPermutation(RankedTensorType src, RankedTensorType dst);

} // namespace mlir::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_TILELAYOUT_H
