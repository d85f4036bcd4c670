//===- SharedMemoryToGPU.cpp - dot operands through shared memory ---------===//
//
// mma.sync reads its operands from registers in the #tile.dot_operand
// layout; they come from global memory in a blocked (coalesced) layout. The
// way between is shared memory in a swizzled #tile.shared layout: each
// thread stores its contiguous runs (up to 16 bytes) at their swizzled
// place, and ldmatrix reads 8x8 blocks back, one 16-byte row per lane, the
// 8 rows of a block in 8 different bank groups thanks to the swizzle
// (`.trans` when the contiguous dim of the shared tile is not K).
//
// Here: the swizzle arithmetic, the vectorized store of a distributed tile,
// the ldmatrix load of a dot operand, and tile.convert_layout to a dot
// operand (store, barrier, ldmatrix). The pipelined loop's ops reuse the
// store and load helpers.
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

//===----------------------------------------------------------------------===//
// Swizzle
//===----------------------------------------------------------------------===//

/// x / 2^k and x % 2^k for non-negative i32 x.
static Value shr(OpBuilder &b, Location loc, Value x, int64_t pow2) {
  if (pow2 == 1)
    return x;
  return arith::ShRUIOp::create(b, loc, x, i32Val(b, loc, llvm::Log2_64(pow2)));
}
static Value low(OpBuilder &b, Location loc, Value x, int64_t pow2) {
  return arith::AndIOp::create(b, loc, x, i32Val(b, loc, pow2 - 1));
}

Value mlir::tile::gpu_lowering::swizzledOffset(OpBuilder &b, Location loc,
                                               const SharedTile &tile,
                                               Value rowBase, int64_t rowConst,
                                               Value colBase,
                                               int64_t colConst) {
  SharedLayoutAttr s = tile.layout;
  int64_t vec = s.getVec(), perPhase = s.getPerPhase(),
          maxPhase = s.getMaxPhase();
  // Constants that are whole swizzle periods add linearly: they change
  // neither the phase (rows) nor the XORed low chunk bits (columns). Only
  // the rest goes through the XOR, so the lane-dependent part is shared by
  // many accesses.
  int64_t rowPeriod = perPhase * maxPhase, colPeriod = vec * maxPhase;
  int64_t rowHi = tile.wrapRows ? 0 : rowConst - rowConst % rowPeriod;
  int64_t colHi = tile.wrapCols ? 0 : colConst - colConst % colPeriod;
  Value row = arith::AddIOp::create(b, loc, rowBase,
                                    i32Val(b, loc, rowConst - rowHi));
  Value col = arith::AddIOp::create(b, loc, colBase,
                                    i32Val(b, loc, colConst - colHi));
  if (tile.wrapRows)
    row = low(b, loc, row, tile.rows);
  if (tile.wrapCols)
    col = low(b, loc, col, tile.rowLen);
  Value phase = low(b, loc, shr(b, loc, row, perPhase), maxPhase);
  Value chunk = arith::XOrIOp::create(b, loc, shr(b, loc, col, vec), phase);
  Value off = arith::MulIOp::create(b, loc, row, i32Val(b, loc, tile.rowLen));
  off = arith::AddIOp::create(
      b, loc, off, arith::MulIOp::create(b, loc, chunk, i32Val(b, loc, vec)));
  off = arith::AddIOp::create(b, loc, off, low(b, loc, col, vec));
  int64_t hi = rowHi * tile.rowLen + colHi;
  if (hi)
    off = arith::AddIOp::create(b, loc, off, i32Val(b, loc, hi));
  return off;
}

SharedTile mlir::tile::gpu_lowering::makeSharedTile(SharedLayoutAttr layout,
                                                    ArrayRef<int64_t> shape,
                                                    Type elemType) {
  SharedTile t;
  t.layout = layout;
  unsigned fast = layout.getOrder()[0];
  t.rowLen = shape[fast];
  t.rows = shape[1 - fast];
  t.elemBytes = getStorageBytes(elemType);
  return t;
}

//===----------------------------------------------------------------------===//
// Distributed tile -> shared memory
//===----------------------------------------------------------------------===//

void mlir::tile::gpu_lowering::storeTileToShared(
    OpBuilder &b, Location loc, const DistributedLayout &layout,
    ValueRange values, const SharedTile &tile, Value base) {
  unsigned fast = tile.layout.getOrder()[0], slow = 1 - fast;
  // Runs of consecutive elements along the shared tile's rows, at most one
  // chunk (and so never across a swizzled chunk boundary).
  int64_t vec = 1;
  if (layout.getOrder()[0] == fast)
    vec = std::min<int64_t>(layout.getVec(fast), tile.layout.getVec());
  Type elemType = values[0].getType();
  Value owner = emitOwnerPredicate(b, loc, layout);
  OpBuilder::InsertionGuard guard(b);
  if (owner) {
    auto ifOp = scf::IfOp::create(b, loc, owner, /*withElse=*/false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  SmallVector<SmallVector<Value>> idx = emitIndices(b, loc, layout);
  for (int64_t i = 0; i < layout.getNumElems(); i += vec) {
    Value off = swizzledOffset(b, loc, tile, idx[i][slow], 0, idx[i][fast], 0);
    Value addr = LLVM::GEPOp::create(
        b, loc, base.getType(), b.getI8Type(), base,
        ValueRange{arith::MulIOp::create(b, loc, off,
                                         i32Val(b, loc, tile.elemBytes))
                       .getResult()});
    if (vec == 1) {
      LLVM::StoreOp::create(b, loc, values[i], addr, tile.elemBytes);
      continue;
    }
    auto vecType = VectorType::get({vec}, elemType);
    Value v = LLVM::UndefOp::create(b, loc, vecType);
    for (int64_t k = 0; k < vec; ++k)
      v = LLVM::InsertElementOp::create(b, loc, v, values[i + k],
                                        i32Val(b, loc, k));
    LLVM::StoreOp::create(b, loc, v, addr, vec * tile.elemBytes);
  }
}

//===----------------------------------------------------------------------===//
// Shared memory -> dot operand (ldmatrix)
//===----------------------------------------------------------------------===//

bool mlir::tile::gpu_lowering::canLoadWithLdmatrix(RankedTensorType type,
                                                   SharedLayoutAttr shared) {
  auto dot = dyn_cast_if_present<DotOperandLayoutAttr>(type.getEncoding());
  if (!dot || dot.getKWidth() != 2 ||
      type.getElementType().getIntOrFloatBitWidth() != 16)
    return false;
  bool isA = dot.getOpIdx() == 0;
  int64_t k = type.getDimSize(isA ? 1 : 0), outer = type.getDimSize(isA ? 0 : 1);
  // 16-byte chunks hold 8 elements; ldmatrix reads whole 8x8 blocks.
  return k % 16 == 0 && outer % (isA ? 16 : 8) == 0 && shared &&
         shared.getVec() == 8;
}

SmallVector<Value> mlir::tile::gpu_lowering::loadDotOperandFromShared(
    OpBuilder &b, Location loc, RankedTensorType type, SharedTile tile,
    Value base) {
  auto dot = cast<DotOperandLayoutAttr>(type.getEncoding());
  DistributedLayout layout = *DistributedLayout::get(type);
  MLIRContext *ctx = b.getContext();
  bool isA = dot.getOpIdx() == 0;
  unsigned kDim = isA ? 1 : 0, outer = 1 - kDim;
  unsigned fast = tile.layout.getOrder()[0];
  bool trans = fast != kDim;
  // Warps (or lane groups) past a small tile's edge read copies.
  (trans ? tile.wrapCols : tile.wrapRows) = layout.wraps(outer);
  Type elemType = type.getElementType();
  auto pairType = VectorType::get({2}, elemType);

  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value lane = low(b, loc, tid, 32);
  Value warp = shr(b, loc, tid, 32);
  Value warpOuter =
      low(b, loc, shr(b, loc, warp, layout.getWarpStride(outer)),
          layout.getWpc(outer));
  warpOuter = arith::MulIOp::create(b, loc, warpOuter,
                                    i32Val(b, loc, layout.getWarpMul(outer)));
  Value lane8 = low(b, loc, lane, 8);            // row within a block
  Value bit3 = low(b, loc, shr(b, loc, lane, 8), 2); // (lane / 8) % 2
  Value bit4 = shr(b, loc, lane, 16);            // lane / 16
  auto mul = [&](Value v, int64_t c) -> Value {
    return arith::MulIOp::create(b, loc, v, i32Val(b, loc, c));
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };

  // Lane-dependent parts of the block row (along the shared tile's slow
  // dim) and column (fast dim) each lane addresses. A: block j of an x4 is
  // (m + 8 * (j % 2), k + 8 * (j / 2)); B: (k + 8 * (j % 2), n-tile + j / 2).
  int64_t perThreadOuter = layout.getPerThread(outer);
  int64_t nextTile = isA ? 0 : layout.getSubOffset(outer, 1);
  Value outerBase, kBase;
  if (isA) {
    outerBase = add(warpOuter, mul(bit3, 8));
    kBase = mul(bit4, 8);
  } else {
    outerBase = add(warpOuter, mul(bit4, nextTile));
    kBase = mul(bit3, 8);
  }
  // The lane's own row of the block adds along the slow dim.
  if (trans)
    kBase = add(kBase, lane8);
  else
    outerBase = add(outerBase, lane8);

  int64_t repK = layout.getPerThread(kDim) / 4;
  // A: one x4 per (m tile, k step); B: one x4 per two n tiles and k step
  // (x2 when a warp has a single n tile).
  int64_t num = isA || perThreadOuter > 1 ? 4 : 2;
  SmallVector<Value> result(layout.getNumElems());
  for (int64_t ki = 0; ki < repK; ++ki) {
    for (int64_t o = 0; o < perThreadOuter; o += 2) {
      int64_t outerConst = layout.getSubOffset(outer, o);
      int64_t kConst = layout.getSubOffset(kDim, 4 * ki);
      Value off = trans ? swizzledOffset(b, loc, tile, kBase, kConst,
                                         outerBase, outerConst)
                        : swizzledOffset(b, loc, tile, outerBase, outerConst,
                                         kBase, kConst);
      Value addr = LLVM::GEPOp::create(
          b, loc, base.getType(), b.getI8Type(), base,
          ValueRange{mul(off, tile.elemBytes)});
      Type resType =
          num == 1 ? (Type)b.getI32Type()
                   : LLVM::LLVMStructType::getLiteral(
                         ctx, SmallVector<Type>(num, b.getI32Type()));
      Value res = NVVM::LdMatrixOp::create(
          b, loc, resType, addr, num,
          trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
          NVVM::LdStMatrixEltType::B16);
      for (int64_t j = 0; j < num; ++j) {
        Value word = LLVM::ExtractValueOp::create(b, loc, res, j);
        Value pair = LLVM::BitcastOp::create(b, loc, pairType, word);
        // Block j: A (outer sub o + j % 2, k pair j / 2); B (k pair j % 2,
        // outer sub o + j / 2).
        int64_t so = isA ? o + j % 2 : o + j / 2;
        int64_t sk = 4 * ki + 2 * (isA ? j / 2 : j % 2);
        for (int64_t h = 0; h < 2; ++h) {
          SmallVector<int64_t> sub(2);
          sub[outer] = so;
          sub[kDim] = sk + h;
          result[layout.getElemNumber(sub)] = LLVM::ExtractElementOp::create(
              b, loc, pair, i32Val(b, loc, h));
        }
      }
    }
  }
  return result;
}

namespace {

/// tile.convert_layout of a 16-bit tile to a dot operand layout: the source
/// into swizzled shared memory, then ldmatrix.
struct ConvertToDotOperandLowering
    : public OpConversionPattern<ConvertLayoutOp> {
  ConvertToDotOperandLowering(const TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = op.getSrc().getType();
    auto dstType = op.getType();
    FailureOr<DistributedLayout> src = DistributedLayout::get(srcType);
    if (failed(src) || srcType.getRank() != 2 ||
        !isa<DotOperandLayoutAttr>(dstType.getEncoding()))
      return failure();
    // The shared tile's rows follow the source's contiguous dim, so that
    // each thread stores whole runs.
    unsigned fast = src->getOrder()[0];
    SharedLayoutAttr shared = getSwizzledSharedLayout(
        getContext(), srcType.getShape(), {fast, 1 - fast},
        srcType.getElementTypeBitWidth());
    if (!canLoadWithLdmatrix(dstType, shared))
      return failure(); // the generic exchange handles it
    Location loc = op.getLoc();
    SharedTile tile = makeSharedTile(shared, srcType.getShape(),
                                     adaptor.getSrc()[0].getType());
    Value base = smemAddress(rewriter, loc, i32Val(rewriter, loc, 0));
    // Others may still read the previous contents of the scratch buffer.
    barrier(rewriter, loc);
    storeTileToShared(rewriter, loc, *src, adaptor.getSrc(), tile, base);
    barrier(rewriter, loc);
    replaceWithValues(rewriter, op,
                      loadDotOperandFromShared(rewriter, loc, dstType, tile,
                                               base));
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateSharedMemoryPatterns(
    TileTypeConverter &tc, RewritePatternSet &patterns,
    const LoweringContext &) {
  patterns.add<ConvertToDotOperandLowering>(tc, patterns.getContext());
}
