//===- TileLayout.cpp - layout attributes and their arithmetic ------------===//
//
// Verifiers of the layout attributes, and DistributedLayout: which tile
// elements each thread holds. Shapes, elements per thread and warp counts
// may be any positive integer; lanes per warp stay powers of two (32 in
// all). The modulo in the index formula replicates a tile smaller than one
// repetition of the layout, and makes the padding of a tile that the
// repetitions overrun (5000 = 10 x 512 - 120) copies of its first elements.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/TileLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <numeric>
#include <vector>

using namespace mlir;
using namespace mlir::tilegpu;

/// The most warps a program has (`tile.num_warps` is at most 32).
static constexpr uint64_t kMaxLayoutWarps = 32;

//===----------------------------------------------------------------------===//
// Attribute verifiers
//===----------------------------------------------------------------------===//

unsigned BlockedLayoutAttr::getNumWarps() const {
  unsigned n = 1;
  for (unsigned w : getWarpsPerCTA())
    n *= w;
  return n;
}

/// A program has at most 32 warps (`tile.num_warps`); a layout asking for
/// more is refused here, in 64 bits, before a check or a lowering builds
/// anything per warp (an mma layout of 2 x 2^29 warps used to exhaust the
/// memory of the conversion's layout check).
static LogicalResult
verifyWarpCount(function_ref<InFlightDiagnostic()> emitError, StringRef what,
                ArrayRef<unsigned> warpsPerCTA) {
  uint64_t warps = 1;
  for (unsigned w : warpsPerCTA) {
    warps *= w;
    if (warps > kMaxLayoutWarps)
      return emitError() << what << " warpsPerCTA [" << warpsPerCTA
                         << "] asks for more than " << kMaxLayoutWarps
                         << " warps (the most a program has)";
  }
  return success();
}

LogicalResult BlockedLayoutAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    ArrayRef<unsigned> sizePerThread, ArrayRef<unsigned> threadsPerWarp,
    ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> order) {
  size_t rank = order.size();
  if (rank == 0 || sizePerThread.size() != rank ||
      threadsPerWarp.size() != rank || warpsPerCTA.size() != rank)
    return emitError()
           << "#tilegpu.blocked needs sizePerThread, threadsPerWarp, "
              "warpsPerCTA and order of one non-zero rank";
  unsigned threads = 1;
  for (auto list : {sizePerThread, warpsPerCTA})
    for (unsigned v : list)
      if (v == 0)
        return emitError() << "#tilegpu.blocked sizes must be positive";
  // Lane coordinates are bit fields of the lane id (shuffles are XORs).
  for (unsigned v : threadsPerWarp)
    if (v == 0 || !llvm::isPowerOf2_32(v))
      return emitError()
             << "#tilegpu.blocked threadsPerWarp must be powers of two, got "
             << v;
  if (failed(verifyWarpCount(emitError, "#tilegpu.blocked", warpsPerCTA)))
    return failure();
  for (unsigned t : threadsPerWarp)
    threads *= t;
  if (threads != 32)
    return emitError()
           << "#tilegpu.blocked threadsPerWarp must multiply to 32, "
              "got "
           << threads;
  SmallVector<bool> seen(rank, false);
  for (unsigned d : order) {
    if (d >= rank || seen[d])
      return emitError()
             << "#tilegpu.blocked order must be a permutation of 0.."
             << rank - 1;
    seen[d] = true;
  }
  return success();
}

/// The rank of a distributed layout, 0 for anything else.
static unsigned getLayoutRank(Attribute layout) {
  if (auto b = dyn_cast<BlockedLayoutAttr>(layout))
    return b.getRank();
  if (auto s = dyn_cast<SliceLayoutAttr>(layout))
    return s.getRank();
  if (isa<MmaLayoutAttr, DotOperandLayoutAttr>(layout))
    return 2;
  return 0;
}

unsigned mlir::tilegpu::getLayoutNumWarps(Attribute layout) {
  if (auto b = dyn_cast<BlockedLayoutAttr>(layout))
    return b.getNumWarps();
  if (auto s = dyn_cast<SliceLayoutAttr>(layout))
    return getLayoutNumWarps(s.getParent());
  if (auto m = dyn_cast<MmaLayoutAttr>(layout))
    return m.getNumWarps();
  if (auto d = dyn_cast<DotOperandLayoutAttr>(layout))
    return getLayoutNumWarps(d.getParent());
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
    return emitError()
           << "#tilegpu.slice parent must be a #tilegpu.blocked, "
              "#tilegpu.mma, #tilegpu.dot_operand or #tilegpu.slice "
              "layout, got "
           << parent;
  if (parentRank < 2)
    return emitError() << "#tilegpu.slice of a rank-1 layout has rank 0; a "
                          "reduction to a scalar needs no layout";
  if (dim >= parentRank)
    return emitError() << "#tilegpu.slice dim " << dim
                       << " is out of range for a parent of rank "
                       << parentRank;
  return success();
}

LogicalResult
MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      unsigned versionMajor, ArrayRef<unsigned> warpsPerCTA,
                      ArrayRef<unsigned> instrShape) {
  if (versionMajor != 2 && versionMajor != 3)
    return emitError() << "#tilegpu.mma versionMajor " << versionMajor
                       << " is not supported (2: mma.sync, 3: wgmma)";
  if (warpsPerCTA.size() != 2)
    return emitError() << "#tilegpu.mma warpsPerCTA must have 2 entries, got "
                       << warpsPerCTA.size();
  for (unsigned w : warpsPerCTA)
    if (w == 0)
      return emitError() << "#tilegpu.mma warpsPerCTA must be positive";
  if (failed(verifyWarpCount(emitError, "#tilegpu.mma", warpsPerCTA)))
    return failure();
  if (versionMajor == 3) {
    if (warpsPerCTA[0] % 4 || warpsPerCTA[1] != 1)
      return emitError() << "#tilegpu.mma version 3 (wgmma) needs warpsPerCTA "
                            "[4k, 1] (whole warpgroups along M)";
    if (instrShape.size() != 2 || instrShape[0] != 64 || instrShape[1] == 0 ||
        instrShape[1] % 8 || instrShape[1] > 256)
      return emitError() << "#tilegpu.mma version 3 (wgmma) needs instrShape "
                            "[64, N] with N a multiple of 8 up to 256";
    return success();
  }
  if (instrShape.size() != 2 || instrShape[0] != 16 || instrShape[1] != 8)
    return emitError() << "#tilegpu.mma instrShape must be [16, 8] (the "
                          "accumulator tile of mma.sync m16n8kK)";
  return success();
}

LogicalResult
DotOperandLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             unsigned opIdx, Attribute parent,
                             unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "#tilegpu.dot_operand opIdx must be 0 (A) or 1 (B), "
                          "got "
                       << opIdx;
  if (!isa<MmaLayoutAttr>(parent))
    return emitError() << "#tilegpu.dot_operand parent must be a #tilegpu.mma "
                          "layout, got "
                       << parent;
  if (kWidth != 1 && kWidth != 2 && kWidth != 4)
    return emitError() << "#tilegpu.dot_operand kWidth must be 1, 2 or 4 (K "
                          "elements per 32-bit register), got "
                       << kWidth;
  return success();
}

LogicalResult
NvmmaSharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              unsigned swizzle, ArrayRef<unsigned> order) {
  if (swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "#tilegpu.nvmma_shared swizzle must be 32, 64 or 128 "
                          "(bytes), got "
                       << swizzle;
  if (order.size() != 2 ||
      !((order[0] == 0 && order[1] == 1) || (order[0] == 1 && order[1] == 0)))
    return emitError()
           << "#tilegpu.nvmma_shared order must be [0, 1] or [1, 0]";
  return success();
}

LogicalResult
SharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         unsigned vec, unsigned perPhase, unsigned maxPhase,
                         ArrayRef<unsigned> order) {
  for (unsigned v : {vec, perPhase, maxPhase})
    if (v == 0 || !llvm::isPowerOf2_32(v))
      return emitError()
             << "#tilegpu.shared vec, perPhase and maxPhase must be "
                "powers of two, got "
             << v;
  if (order.size() != 2 ||
      !((order[0] == 0 && order[1] == 1) || (order[0] == 1 && order[1] == 0)))
    return emitError() << "#tilegpu.shared order must be [0, 1] or [1, 0]";
  return success();
}

//===----------------------------------------------------------------------===//
// DistributedLayout
//===----------------------------------------------------------------------===//

bool mlir::tilegpu::hasPowerOfTwoShape(ArrayRef<int64_t> shape) {
  return llvm::all_of(
      shape, [](int64_t s) { return s > 0 && llvm::isPowerOf2_64(s); });
}

namespace {
/// One dim of a root layout before it meets a shape.
struct DimSpec {
  int64_t tpw = 1, laneMul = 0, wpc = 1, warpMul = 0;
  /// Digits of a thread's sub-index within one repetition, fastest first:
  /// (radix, index stride).
  SmallVector<std::pair<int64_t, int64_t>> elemFactors;
  int64_t repStride = 0; ///< stride of the repetitions
};

/// The mma.sync accumulator's row (dim 0) or column (dim 1) dim.
DimSpec mmaDim(MmaLayoutAttr mma, unsigned d) {
  DimSpec s;
  unsigned warps = mma.getWarpsPerCTA()[d];
  if (d == 0) { // rows: lane / 4, then +8, then warps by 16
    s.tpw = 8, s.laneMul = 1, s.wpc = warps, s.warpMul = 16;
    s.elemFactors = {{2, 8}};
    s.repStride = 16 * warps;
  } else { // columns: 2 consecutive, lane % 4, then warps by 8
    s.tpw = 4, s.laneMul = 2, s.wpc = warps, s.warpMul = 8;
    s.elemFactors = {{2, 1}};
    s.repStride = 8 * warps;
  }
  return s;
}

/// True when lanes (or warps) of extent `count` and index step `mul`
/// either all hold distinct indices of an extent-`size` dim, or wrap onto
/// it uniformly: `size` is a whole number of steps, so a coordinate and
/// that coordinate modulo size/mul hold the same elements. (For lanes the
/// distinct ones must also be a power of two, the low lane bits.)
bool isUniform(int64_t size, int64_t count, int64_t mul, bool lanes) {
  if (mul == 0 || mul >= size || count * mul <= size)
    return true;
  if (size % mul)
    return false;
  return !lanes || llvm::isPowerOf2_64(size / mul);
}
} // namespace

FailureOr<DistributedLayout> DistributedLayout::get(Attribute layout,
                                                    ArrayRef<int64_t> shape) {
  if (!layout || getLayoutRank(layout) != shape.size() ||
      llvm::any_of(shape, [](int64_t s) { return s <= 0; }))
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
  dl.root = layout;
  dl.numWarps = getLayoutNumWarps(layout);
  dl.shape = full;
  dl.sliced = sliced;
  for (auto [d, s] : llvm::enumerate(sliced))
    if (!s)
      dl.tileDims.push_back(d);
  unsigned rank = full.size();

  SmallVector<DimSpec> specs(rank);
  SmallVector<unsigned> warpOrder;
  if (auto b = dyn_cast<BlockedLayoutAttr>(layout)) {
    for (unsigned d = 0; d < rank; ++d) {
      DimSpec &s = specs[d];
      int64_t spt = b.getSizePerThread()[d];
      s.tpw = b.getThreadsPerWarp()[d];
      s.wpc = b.getWarpsPerCTA()[d];
      s.laneMul = spt;
      s.warpMul = spt * s.tpw;
      s.elemFactors = {{spt, 1}};
      s.repStride = spt * s.tpw * s.wpc;
    }
    dl.order.assign(b.getOrder().begin(), b.getOrder().end());
    warpOrder = dl.order;
  } else if (auto mma = dyn_cast<MmaLayoutAttr>(layout)) {
    specs[0] = mmaDim(mma, 0);
    specs[1] = mmaDim(mma, 1);
    dl.order = {1, 0};
    warpOrder = {1, 0};
  } else {
    auto dot = cast<DotOperandLayoutAttr>(layout);
    MmaLayoutAttr parent = dot.getMmaParent();
    unsigned kDim = dot.getOpIdx() == 0 ? 1 : 0, outer = 1 - kDim;
    int64_t kw = dot.getKWidth();
    // The non-K dim is the accumulator's (rows for A, columns for B); B
    // holds one column per lane group, not the accumulator's pairs.
    specs[outer] = mmaDim(parent, outer);
    if (outer == 1) {
      specs[outer].tpw = 8, specs[outer].laneMul = 1;
      specs[outer].elemFactors.clear();
    }
    // K: kWidth consecutive, lane % 4 by kWidth, then +4*kWidth; steps of
    // 8*kWidth. Warps along the other accumulator dim hold copies.
    DimSpec &k = specs[kDim];
    k.tpw = 4, k.laneMul = kw;
    k.wpc = parent.getWarpsPerCTA()[kDim], k.warpMul = 0;
    k.elemFactors = {{kw, 1}, {2, 4 * kw}};
    k.repStride = 8 * kw;
    dl.order = {kDim, outer};
    warpOrder = {1, 0};
  }

  dl.tpw.resize(rank);
  dl.wpc.resize(rank);
  dl.laneMul.resize(rank);
  dl.warpMul.resize(rank);
  dl.regFactors.resize(rank);
  for (unsigned d = 0; d < rank; ++d) {
    const DimSpec &s = specs[d];
    dl.tpw[d] = s.tpw, dl.wpc[d] = s.wpc;
    dl.laneMul[d] = s.laneMul, dl.warpMul[d] = s.warpMul;
    // Digits whose stride reaches the shape would give a thread copies of
    // its own elements: dropped, or cut to the elements left.
    for (auto [radix, stride] : s.elemFactors) {
      int64_t r = std::min<int64_t>(radix, llvm::divideCeil(full[d], stride));
      if (r > 1)
        dl.regFactors[d].push_back({r, stride});
    }
    // Repetitions until the shape is covered: the last one overruns a
    // shape that is no multiple of the repetition (padding).
    if (s.repStride > 0 && s.repStride < full[d])
      dl.regFactors[d].push_back(
          {llvm::divideCeil(full[d], s.repStride), s.repStride});
    dl.numElems *= dl.getPerThread(d);
    // Lanes and warps must replicate a small tile uniformly (see
    // isUniform), or their copies could not be told apart.
    if (!isUniform(full[d], s.tpw, s.laneMul, /*lanes=*/true) ||
        !isUniform(full[d], s.wpc, s.warpMul, /*lanes=*/false))
      return failure();
  }
  dl.laneStride.resize(rank);
  dl.warpStride.resize(rank);
  int64_t lane = 1, warp = 1;
  for (unsigned d : dl.order) {
    dl.laneStride[d] = lane;
    lane *= dl.tpw[d];
  }
  for (unsigned d : warpOrder) {
    dl.warpStride[d] = warp;
    warp *= dl.wpc[d];
  }
  return dl;
}

int64_t DistributedLayout::getPerThread(unsigned d) const {
  int64_t n = 1;
  for (auto [radix, stride] : regFactors[d])
    n *= radix;
  return n;
}

int64_t DistributedLayout::getVec(unsigned d) const {
  // The run of consecutive indices at the start of a thread's elements,
  // cut to the largest power of two dividing it (vector accesses and
  // groups of elements are powers of two that tile the run).
  int64_t run = 1;
  for (auto [radix, stride] : regFactors[d]) {
    if (stride != run)
      break;
    run *= radix;
  }
  return run & -run;
}

SmallVector<int64_t> DistributedLayout::getSubIndices(int64_t i) const {
  SmallVector<int64_t> sub(getRank());
  for (unsigned d : getOrder()) {
    sub[d] = i % getPerThread(d);
    i /= getPerThread(d);
  }
  return sub;
}

int64_t DistributedLayout::getElemNumber(ArrayRef<int64_t> sub) const {
  int64_t i = 0;
  for (unsigned d : llvm::reverse(getOrder()))
    i = i * getPerThread(d) + sub[d];
  return i;
}

int64_t DistributedLayout::getSubOffset(unsigned d, int64_t sub) const {
  int64_t off = 0;
  for (auto [radix, stride] : regFactors[d]) {
    off += (sub % radix) * stride;
    sub /= radix;
  }
  return off;
}

int64_t DistributedLayout::getMaxThreadOffset(unsigned d) const {
  return (getDistinctLanes(d) - 1) * laneMul[d] +
         (getDistinctWarps(d) - 1) * warpMul[d];
}

int64_t DistributedLayout::getIndex(unsigned d, int64_t sub, int64_t laneCoord,
                                    int64_t warpCoord) const {
  int64_t idx =
      getSubOffset(d, sub) + laneCoord * laneMul[d] + warpCoord * warpMul[d];
  return idx % shape[d];
}

bool DistributedLayout::wraps(unsigned d) const {
  int64_t top = getSubOffset(d, getPerThread(d) - 1) +
                (tpw[d] - 1) * laneMul[d] + (wpc[d] - 1) * warpMul[d];
  return top >= shape[d];
}

bool DistributedLayout::isPadded(unsigned d) const {
  return getSubOffset(d, getPerThread(d) - 1) + getMaxThreadOffset(d) >=
         shape[d];
}

bool DistributedLayout::isPaddingFree(unsigned d, int64_t sub) const {
  return getSubOffset(d, sub) + getMaxThreadOffset(d) < shape[d];
}

int64_t DistributedLayout::getNumPadded() const {
  // The distinct threads' element slots, less the tile's elements.
  int64_t covered = 1, total = 1;
  for (unsigned d = 0; d < getRank(); ++d) {
    covered *= getPerThread(d) * getDistinctLanes(d) * getDistinctWarps(d);
    total *= shape[d];
  }
  return covered - total;
}

int64_t DistributedLayout::getDistinctLanes(unsigned d) const {
  if (laneMul[d] == 0 || laneMul[d] >= shape[d])
    return 1;
  return std::min<int64_t>(tpw[d], shape[d] / laneMul[d]);
}

int64_t DistributedLayout::getDistinctWarps(unsigned d) const {
  if (warpMul[d] == 0 || warpMul[d] >= shape[d])
    return 1;
  return std::min<int64_t>(wpc[d], llvm::divideCeil(shape[d], warpMul[d]));
}

bool DistributedLayout::isReplicated() const {
  for (unsigned d = 0; d < getRank(); ++d)
    if (getDistinctLanes(d) < getTpw(d) || getDistinctWarps(d) < getWpc(d))
      return true;
  return false;
}

BlockedLayoutAttr mlir::tilegpu::getDefaultBlockedLayout(
    MLIRContext *ctx, ArrayRef<int64_t> shape, ArrayRef<unsigned> order,
    unsigned sptFast, unsigned numWarps) {
  unsigned rank = shape.size();
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  spt[order[0]] =
      std::max<int64_t>(1, std::min<int64_t>(sptFast, shape[order[0]]));
  SmallVector<int64_t> left(rank);
  for (unsigned d = 0; d < rank; ++d)
    left[d] = std::max<int64_t>(1, llvm::divideCeil(shape[d], spt[d]));
  int64_t threads = 32, warps = numWarps;
  for (unsigned d : order) {
    // A dim that gives every thread of the program a repetition takes all
    // lanes left (padded if they do not divide it); any other takes the
    // power-of-two part of its extent, so that it is covered exactly.
    int64_t pow2 = left[d] & -left[d];
    tpw[d] = left[d] >= threads * warps ? threads
                                        : std::min<int64_t>(threads, pow2);
    threads /= tpw[d];
    left[d] = llvm::divideCeil(left[d], tpw[d]);
  }
  unsigned back = order.back();
  if (threads > 1 && left[back] > 1) {
    // Lanes that replicate must see a power-of-two extent: the odd rest of
    // the slowest dim stays in each thread (96 f32 = 12 x 8 lanes).
    spt[back] *= left[back];
    left[back] = 1;
  }
  tpw[back] *= threads;
  for (unsigned d : order) {
    // As many warps as divide the dim (all of them where it has enough).
    wpc[d] = left[d] >= warps ? warps : std::gcd(left[d], warps);
    warps /= wpc[d];
    left[d] = llvm::divideCeil(left[d], wpc[d]);
  }
  wpc[back] *= warps;
  return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
}

MmaLayoutAttr mlir::tilegpu::getMmaLayoutFor(tile::DotOp dot, unsigned numWarps,
                                             bool wgmma, bool kMajorOperands) {
  auto a = cast<RankedTensorType>(dot.getA().getType());
  auto c = cast<RankedTensorType>(dot.getC().getType());
  Type ea = a.getElementType(), ec = c.getElementType();
  // f32 operands at the default tf32 precision run as tf32 (m16n8k8);
  // `ieee` and `tf32x3` keep exact f32 FMAs.
  bool tf32 = ea.isF32() && ec.isF32() &&
              dot.getPrecision() == tile::InputPrecision::tf32;
  // fp8 operands (e4m3 or e5m2, mixed too) run on wgmma alone (k32).
  Type eb = cast<RankedTensorType>(dot.getB().getType()).getElementType();
  bool fp8 = tile::isFp8(ea) && tile::isFp8(eb) && ec.isF32();
  bool types = (ea.isBF16() && ec.isF32()) ||
               (ea.isF16() && (ec.isF32() || ec.isF16())) || tf32 ||
               (fp8 && wgmma);
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
  // The instruction steps: M by 16, N by 8, K by 16 (8 for tf32, 32 for
  // fp8; any multiple: 96 and 192 run); warps split by powers of two, so a
  // warp count like 12 takes the FMA path.
  if (!types || m % 16 || n % 8 || k % (tf32 ? 8 : fp8 ? 32 : 16) ||
      numWarps == 0 || !llvm::isPowerOf2_32(numWarps))
    return {};
  if (fp8 && (numWarps % 4 || m % (16 * numWarps)))
    return {};
  // tf32 wgmma reads both operands K-major from shared memory (no
  // transposed forms for 32-bit types): only where the caller found them so.
  if (wgmma && (!tf32 || kMajorOperands) && ec.isF32() && numWarps % 4 == 0 &&
      m % (16 * numWarps) == 0) {
    // One instruction covers the warpgroup's 64 rows and up to 256 columns
    // (any multiple of 8: 192 is one instruction, 320 two of 160).
    int64_t instrN = 0;
    for (int64_t parts = 1; parts <= n / 8 && !instrN; ++parts)
      if (n % parts == 0 && n / parts <= 256 && (n / parts) % 8 == 0)
        instrN = n / parts;
    if (instrN)
      return MmaLayoutAttr::get(dot.getContext(), 3, {numWarps, 1},
                                {64, unsigned(instrN)});
  }
  if (fp8)
    return {};
  // Split M while it has at least as many 16-row tiles per warp as N has
  // 16-column ones; leftover warps go to N (and may replicate). Each split
  // must divide its dim's 16-row (8-column) steps, or the warps would
  // overrun the tile.
  unsigned wm = 1, wn = 1;
  while (wm * wn < numWarps) {
    bool mFits = (m / 16) % (wm * 2) == 0;
    bool nFits = (n / 8) % (wn * 2) == 0 || n / 8 < wn * 2;
    if (mFits && (m / 16 / wm >= n / 16 / wn || !nFits))
      wm *= 2;
    else
      wn *= 2;
  }
  if ((n / 8) % wn && n / 8 > wn)
    return {};
  return MmaLayoutAttr::get(dot.getContext(), 2, {wm, wn}, {16, 8});
}

SharedLayoutAttr mlir::tilegpu::getSwizzledSharedLayout(
    MLIRContext *ctx, ArrayRef<int64_t> shape, ArrayRef<unsigned> order,
    unsigned elemBits) {
  int64_t rowLen = shape[order[0]];
  int64_t vec = std::max<int64_t>(1, std::min<int64_t>(128 / elemBits, rowLen));
  int64_t rowBytes = rowLen * elemBits / 8;
  // Rows sharing one 128-byte line take one phase; 8 chunks of 16 bytes
  // span the 32 banks.
  int64_t perPhase = std::max<int64_t>(1, 128 / std::max<int64_t>(1, rowBytes));
  int64_t chunks = std::max<int64_t>(1, rowLen / vec);
  // The XOR changes the low log2(maxPhase) chunk bits, so maxPhase must
  // divide the row's chunks (a row of 96 bf16 has 12: 4 phases).
  int64_t maxPhase =
      std::max<int64_t>(1, std::min<int64_t>(chunks & -chunks, 8 / perPhase));
  return SharedLayoutAttr::get(ctx, vec, perPhase, maxPhase, order);
}

NvmmaSharedLayoutAttr
mlir::tilegpu::getNvmmaSharedLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                    ArrayRef<unsigned> order,
                                    unsigned elemBits) {
  if ((elemBits != 16 && elemBits != 8) || shape.size() != 2 ||
      shape[order[1]] % 8)
    return {};
  int64_t rowBytes = shape[order[0]] * elemBits / 8;
  for (unsigned swizzle : {128u, 64u, 32u})
    if (rowBytes % swizzle == 0)
      return NvmmaSharedLayoutAttr::get(ctx, swizzle, order);
  return {};
}

TmaBox mlir::tilegpu::getTmaBox(ArrayRef<int64_t> block, unsigned elemBits) {
  TmaBox result;
  result.box.assign(block.begin(), block.end());
  // Only 8-, 16- and 32-bit blocks that are 2-D after their leading unit
  // dims get the swizzled arrangement (the one wgmma, local_load and
  // local_store address: 16-byte chunks whatever the element); the rest
  // travel as one plain box. (getNvmmaSharedLayout's rule, which wgmma's
  // staging keeps to 8 and 16 bits.)
  size_t rank = block.size();
  if (rank < 2 || (elemBits != 8 && elemBits != 16 && elemBits != 32) ||
      block[rank - 2] % 8 ||
      !llvm::all_of(block.drop_back(2), [](int64_t d) { return d == 1; }))
    return result;
  int64_t rowBytes = block[rank - 1] * elemBits / 8;
  for (unsigned swizzle : {128u, 64u, 32u})
    if (rowBytes % swizzle == 0) {
      result.swizzle = swizzle;
      result.box[rank - 1] = swizzle * 8 / elemBits;
      result.copies = block[rank - 1] / result.box[rank - 1];
      return result;
    }
  return result;
}

int64_t mlir::tilegpu::getSharedOffset(SharedLayoutAttr layout, int64_t rowLen,
                                       int64_t row, int64_t col) {
  int64_t vec = layout.getVec();
  int64_t phase = (row / layout.getPerPhase()) % layout.getMaxPhase();
  int64_t chunk = (col / vec) ^ phase;
  return row * rowLen + chunk * vec + col % vec;
}

/// The row-major index in the tile of element `i` of the thread with lane
/// and warp ids `lane`, `warp`.
static int64_t linearIndex(const DistributedLayout &l, ArrayRef<int64_t> shape,
                           int64_t i, int64_t lane, int64_t warp) {
  SmallVector<int64_t> sub = l.getSubIndices(i);
  int64_t lin = 0;
  for (unsigned t = 0; t < shape.size(); ++t) {
    unsigned d = l.getBlockedDim(t);
    int64_t lc = (lane / l.getLaneStride(d)) % l.getTpw(d);
    int64_t wc = (warp / l.getWarpStride(d)) % l.getWpc(d);
    lin = lin * shape[t] + l.getIndex(d, sub[d], lc, wc);
  }
  return lin;
}

std::optional<SmallVector<int64_t>>
mlir::tilegpu::getRegisterPermutation(RankedTensorType srcType,
                                      RankedTensorType dstType) {
  if (srcType.getShape() != dstType.getShape())
    return std::nullopt;
  FailureOr<DistributedLayout> src = DistributedLayout::get(srcType);
  FailureOr<DistributedLayout> dst = DistributedLayout::get(dstType);
  if (failed(src) || failed(dst) || src->getNumWarps() != dst->getNumWarps())
    return std::nullopt;
  // Padding slots hold copies (indices that wrap): not a renaming to prove.
  for (unsigned d = 0; d < src->getRank(); ++d)
    if (src->isPadded(d) || dst->isPadded(d))
      return std::nullopt;
  int64_t elems = srcType.getNumElements(), warps = src->getNumWarps();
  if (elems * 32 * warps > (int64_t(1) << 24))
    return std::nullopt;
  ArrayRef<int64_t> shape = srcType.getShape();
  SmallVector<int64_t> perm(dst->getNumElems(), -1);
  std::vector<int32_t> where(elems);
  for (int64_t warp = 0; warp < warps; ++warp)
    for (int64_t lane = 0; lane < 32; ++lane) {
      std::fill(where.begin(), where.end(), -1);
      for (int64_t i = 0; i < src->getNumElems(); ++i)
        where[linearIndex(*src, shape, i, lane, warp)] = i;
      for (int64_t j = 0; j < dst->getNumElems(); ++j) {
        int32_t from = where[linearIndex(*dst, shape, j, lane, warp)];
        if (from < 0 || (perm[j] >= 0 && perm[j] != from))
          return std::nullopt;
        perm[j] = from;
      }
    }
  return perm;
}
