//===- TileLayout.cpp - layout attributes and their arithmetic -----------===//
//
// Verifiers of #tile.blocked and #tile.slice, and DistributedLayout: which
// tile elements each thread holds. Every shape and layout size is a power of
// two, so the modulo in the index formula is what replicates a tile smaller
// than one repetition of the layout.
//
//===----------------------------------------------------------------------===//

#include "dialect/TileLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Attribute verifiers
//===----------------------------------------------------------------------===//

unsigned BlockedLayoutAttr::getNumWarps() const {
  unsigned n = 1;
  for (unsigned w : getWarpsPerCTA())
    n *= w;
  return n;
}

LogicalResult
BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<unsigned> sizePerThread,
                          ArrayRef<unsigned> threadsPerWarp,
                          ArrayRef<unsigned> warpsPerCTA,
                          ArrayRef<unsigned> order) {
  size_t rank = order.size();
  if (rank == 0 || sizePerThread.size() != rank ||
      threadsPerWarp.size() != rank || warpsPerCTA.size() != rank)
    return emitError() << "#tile.blocked needs sizePerThread, threadsPerWarp, "
                          "warpsPerCTA and order of one non-zero rank";
  unsigned threads = 1;
  for (auto list : {sizePerThread, threadsPerWarp, warpsPerCTA})
    for (unsigned v : list)
      if (v == 0 || !llvm::isPowerOf2_32(v))
        return emitError() << "#tile.blocked sizes must be powers of two, got "
                           << v;
  for (unsigned t : threadsPerWarp)
    threads *= t;
  if (threads != 32)
    return emitError() << "#tile.blocked threadsPerWarp must multiply to 32, "
                          "got "
                       << threads;
  SmallVector<bool> seen(rank, false);
  for (unsigned d : order) {
    if (d >= rank || seen[d])
      return emitError() << "#tile.blocked order must be a permutation of 0.."
                         << rank - 1;
    seen[d] = true;
  }
  return success();
}

/// The rank of a blocked or slice layout, 0 for anything else.
static unsigned getLayoutRank(Attribute layout) {
  if (auto b = dyn_cast<BlockedLayoutAttr>(layout))
    return b.getRank();
  if (auto s = dyn_cast<SliceLayoutAttr>(layout))
    return s.getRank();
  return 0;
}

unsigned SliceLayoutAttr::getRank() const {
  return getLayoutRank(getParent()) - 1;
}

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned dim, Attribute parent) {
  unsigned parentRank = getLayoutRank(parent);
  if (parentRank == 0)
    return emitError() << "#tile.slice parent must be a #tile.blocked or "
                          "#tile.slice layout, got "
                       << parent;
  if (parentRank < 2)
    return emitError() << "#tile.slice of a rank-1 layout has rank 0; a "
                          "reduction to a scalar needs no layout";
  if (dim >= parentRank)
    return emitError() << "#tile.slice dim " << dim
                       << " is out of range for a parent of rank "
                       << parentRank;
  return success();
}

//===----------------------------------------------------------------------===//
// DistributedLayout
//===----------------------------------------------------------------------===//

bool mlir::tile::hasPowerOfTwoShape(ArrayRef<int64_t> shape) {
  return llvm::all_of(shape,
                      [](int64_t s) { return s > 0 && llvm::isPowerOf2_64(s); });
}

FailureOr<DistributedLayout> DistributedLayout::get(Attribute layout,
                                                    ArrayRef<int64_t> shape) {
  if (!layout || getLayoutRank(layout) != shape.size() ||
      !hasPowerOfTwoShape(shape))
    return failure();
  DistributedLayout dl;
  // Unfold slices: each inserts a unit dimension at its dim, innermost first.
  SmallVector<int64_t> full(shape);
  SmallVector<bool> sliced(shape.size(), false);
  while (auto slice = dyn_cast<SliceLayoutAttr>(layout)) {
    full.insert(full.begin() + slice.getDim(), 1);
    sliced.insert(sliced.begin() + slice.getDim(), true);
    layout = slice.getParent();
  }
  dl.blocked = cast<BlockedLayoutAttr>(layout);
  dl.shape = full;
  dl.sliced = sliced;
  for (auto [d, s] : llvm::enumerate(sliced))
    if (!s)
      dl.tileDims.push_back(d);

  unsigned rank = full.size();
  dl.vec.resize(rank);
  dl.reps.resize(rank);
  dl.perThread.resize(rank);
  for (unsigned d = 0; d < rank; ++d) {
    dl.vec[d] = std::min<int64_t>(dl.getSpt(d), full[d]);
    dl.reps[d] = std::max<int64_t>(1, full[d] / dl.getCtaTile(d));
    dl.perThread[d] = dl.reps[d] * dl.vec[d];
    dl.numElems *= dl.perThread[d];
  }
  dl.laneStride.resize(rank);
  dl.warpStride.resize(rank);
  int64_t lane = 1, warp = 1;
  for (unsigned d : dl.getOrder()) {
    dl.laneStride[d] = lane;
    dl.warpStride[d] = warp;
    lane *= dl.getTpw(d);
    warp *= dl.getWpc(d);
  }
  return dl;
}

SmallVector<int64_t> DistributedLayout::getSubIndices(int64_t i) const {
  SmallVector<int64_t> sub(getRank());
  for (unsigned d : getOrder()) {
    sub[d] = i % perThread[d];
    i /= perThread[d];
  }
  return sub;
}

int64_t DistributedLayout::getElemNumber(ArrayRef<int64_t> sub) const {
  int64_t i = 0;
  for (unsigned d : llvm::reverse(getOrder()))
    i = i * perThread[d] + sub[d];
  return i;
}

int64_t DistributedLayout::getSubOffset(unsigned d, int64_t sub) const {
  return (sub / vec[d]) * getCtaTile(d) + sub % vec[d];
}

int64_t DistributedLayout::getIndex(unsigned d, int64_t sub, int64_t laneCoord,
                                    int64_t warpCoord) const {
  int64_t idx = getSubOffset(d, sub) +
                (warpCoord * getTpw(d) + laneCoord) * getSpt(d);
  return idx % shape[d];
}

int64_t DistributedLayout::getDistinctLanes(unsigned d) const {
  if (getTpw(d) * getSpt(d) <= shape[d])
    return getTpw(d);
  return std::max<int64_t>(1, shape[d] / getSpt(d));
}

int64_t DistributedLayout::getDistinctWarps(unsigned d) const {
  int64_t perWarp = getTpw(d) * getSpt(d);
  if (perWarp >= shape[d])
    return 1;
  return std::min<int64_t>(getWpc(d), shape[d] / perWarp);
}

bool DistributedLayout::isReplicated() const {
  for (unsigned d = 0; d < getRank(); ++d)
    if (getDistinctLanes(d) < getTpw(d) || getDistinctWarps(d) < getWpc(d))
      return true;
  return false;
}

BlockedLayoutAttr mlir::tile::getDefaultBlockedLayout(MLIRContext *ctx,
                                                      ArrayRef<int64_t> shape,
                                                      ArrayRef<unsigned> order,
                                                      unsigned sptFast,
                                                      unsigned numWarps) {
  unsigned rank = shape.size();
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  spt[order[0]] = std::max<int64_t>(
      1, std::min<int64_t>(sptFast, shape[order[0]]));
  SmallVector<int64_t> left(rank);
  for (unsigned d = 0; d < rank; ++d)
    left[d] = std::max<int64_t>(1, shape[d] / spt[d]);
  unsigned threads = 32, warps = numWarps;
  for (unsigned d : order) {
    tpw[d] = std::min<int64_t>(threads, left[d]);
    threads /= tpw[d];
    left[d] /= tpw[d];
  }
  tpw[order.back()] *= threads;
  for (unsigned d : order) {
    wpc[d] = std::min<int64_t>(warps, left[d]);
    warps /= wpc[d];
    left[d] /= wpc[d];
  }
  wpc[order.back()] *= warps;
  return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
}
