//===- SharedMemoryToGPU.cpp - dot operands through shared memory ---------===//
//
// mma.sync reads its operands from registers in the #tilegpu.dot_operand
// layout; they come from global memory in a blocked (coalesced) layout. The
// way between is shared memory in a swizzled #tilegpu.shared layout: each
// thread stores its contiguous runs (up to 16 bytes) at their swizzled
// place, and ldmatrix reads 8x8 blocks back, one 16-byte row per lane, the
// 8 rows of a block in 8 different bank groups thanks to the swizzle
// (`.trans` when the contiguous dim of the shared tile is not K).
//
// Here: the swizzle arithmetic, the vectorized store of a distributed tile,
// the ldmatrix load of a dot operand, tile.convert_layout to a dot operand
// (store, barrier, ldmatrix), and the ops of pipelined loops:
// tilegpu.local_alloc (an offset in the kernel's shared memory, chosen by the
// pass), tilegpu.async_copy (cp.async, 4 to 16 bytes per thread; zero fill
// where masked), tilegpu.async_commit / tilegpu.async_wait (commit / wait_group
// and a barrier) and tilegpu.local_load (ldmatrix, or scalar reads for other
// layouts).
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"
#include "tilec/Analysis/SharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

//===----------------------------------------------------------------------===//
// Swizzle
//===----------------------------------------------------------------------===//

/// x / n and x % n for non-negative i32 x: shifts and masks for powers of
/// two, else udiv/urem (a tile of 96 rows, warps split by 3).
static Value shr(OpBuilder &b, Location loc, Value x, int64_t n) {
  if (n == 1)
    return x;
  if (!llvm::isPowerOf2_64(n))
    return arith::DivUIOp::create(b, loc, x, i32Val(b, loc, n));
  return arith::ShRUIOp::create(b, loc, x, i32Val(b, loc, llvm::Log2_64(n)));
}
static Value low(OpBuilder &b, Location loc, Value x, int64_t n) {
  if (!llvm::isPowerOf2_64(n))
    return arith::RemUIOp::create(b, loc, x, i32Val(b, loc, n));
  return arith::AndIOp::create(b, loc, x, i32Val(b, loc, n - 1));
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
  // Atoms (#tilegpu.nvmma_shared): rows of atomLen, atom after atom; the XOR
  // stays within an atom (atomLen = vec * maxPhase).
  int64_t rowStride = tile.atomLen ? tile.atomLen : tile.rowLen;
  Value off = arith::MulIOp::create(b, loc, row, i32Val(b, loc, rowStride));
  if (tile.atomLen && tile.atomLen < tile.rowLen) {
    Value atom = shr(b, loc, chunk, maxPhase);
    chunk = low(b, loc, chunk, maxPhase);
    off = arith::AddIOp::create(
        b, loc, off,
        arith::MulIOp::create(b, loc, atom,
                              i32Val(b, loc, tile.rows * tile.atomLen)));
  }
  off = arith::AddIOp::create(
      b, loc, off, arith::MulIOp::create(b, loc, chunk, i32Val(b, loc, vec)));
  off = arith::AddIOp::create(b, loc, off, low(b, loc, col, vec));
  // colHi is a whole number of atoms (colPeriod = atomLen).
  int64_t hi = rowHi * rowStride + (tile.atomLen ? colHi * tile.rows : colHi);
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

SharedTile mlir::tile::gpu_lowering::makeSharedTile(Attribute layout,
                                                    ArrayRef<int64_t> shape,
                                                    Type elemType) {
  if (auto s = dyn_cast<SharedLayoutAttr>(layout))
    return makeSharedTile(s, shape, elemType);
  // The #tilegpu.shared swizzle of one atom: rows of `swizzle` bytes, 16-byte
  // chunks XORed with (row / (128 / swizzle)) % (swizzle / 16).
  auto n = cast<NvmmaSharedLayoutAttr>(layout);
  int64_t elemBytes = getStorageBytes(elemType);
  int64_t vec = 16 / elemBytes, swizzle = n.getSwizzle();
  auto atom = SharedLayoutAttr::get(layout.getContext(), vec, 128 / swizzle,
                                    swizzle / 16, n.getOrder());
  SharedTile t = makeSharedTile(atom, shape, elemType);
  t.atomLen = swizzle / elemBytes;
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

/// One slot of a lowered !tilegpu.smem buffer: where its elements go (with
/// the layout), their lowered type, and the slot's address.
struct Slot {
  SharedTile tile;
  Type elemType;
  Value base;
};

Slot sharedSlot(OpBuilder &b, Location loc, const TileTypeConverter &tc,
                SharedMemType type, Value buffer, Value slot) {
  Type elemType = tc.convertElementType(type.getElementType());
  SharedTile tile =
      makeSharedTile(type.getLayout(), type.getSlotShape(), elemType);
  int64_t slotBytes = type.getSlotElements() *
                      getStorageBytes(type.getElementType());
  Value off = arith::MulIOp::create(b, loc, slot, i32Val(b, loc, slotBytes));
  Value base = LLVM::GEPOp::create(b, loc, buffer.getType(), b.getI8Type(),
                                   buffer, ValueRange{off});
  return {tile, elemType, base};
}

/// tilegpu.local_alloc -> the address of its place in shared memory.
struct LocalAllocOpLowering : public OpConversionPattern<LocalAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto offset = op->getAttrOfType<IntegerAttr>(tilec::smem::kOffsetAttr);
    if (!offset)
      return op.emitOpError("has no shared memory offset (the lowering "
                            "assigns one)");
    replaceWithValues(rewriter, op,
                      smemAddress(rewriter, op.getLoc(),
                                  i32Val(rewriter, op.getLoc(),
                                         offset.getInt())));
    return success();
  }
};

/// tilegpu.trans_view -> the buffer's address: only the type, which its
/// readers address by, changes.
struct TransViewOpLowering : public OpConversionPattern<TransViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// tilegpu.async_copy -> cp.async per run of contiguous elements.
struct AsyncCopyOpLowering : public OpConversionPattern<AsyncCopyOp> {
  AsyncCopyOpLowering(const TypeConverter &tc, MLIRContext *ctx,
                      const LoweringContext &lc)
      : OpConversionPattern(tc, ctx), lc(lc) {}
  const LoweringContext &lc;

  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ptrType = cast<RankedTensorType>(op.getPtr().getType());
    auto bufType = cast<SharedMemType>(op.getBuffer().getType());
    FailureOr<DistributedLayout> layout = getLayoutOrError(op, ptrType);
    if (failed(layout))
      return failure();
    auto [tile, elemType, base] =
        sharedSlot(rewriter, loc, *getTypeConverter<TileTypeConverter>(),
                   bufType, adaptor.getBuffer()[0], adaptor.getSlot()[0]);
    SharedLayoutAttr shared = tile.layout;
    unsigned fast = shared.getOrder()[0], slow = 1 - fast;

    // Runs the layout keeps in a thread, that the axis analysis proves
    // contiguous and aligned, within one swizzle chunk.
    int64_t vec = 1;
    bool maskUniform = true;
    if (layout->getOrder()[0] == fast) {
      AxisInfo info = lc.axis->get(op.getPtr());
      int64_t bytes = tile.elemBytes;
      vec = std::min<int64_t>(
          {layout->getVec(fast), int64_t(shared.getVec()),
           info.getContiguity(fast),
           std::max<int64_t>(1, info.getDivisibility(fast) / bytes),
           16 / bytes});
      vec = int64_t(1) << llvm::Log2_64(std::max<int64_t>(vec, 1));
      if (op.getMask())
        maskUniform = lc.axis->get(op.getMask()).getConstancy(fast) >= vec;
    }
    int64_t bytes = vec * tile.elemBytes;
    ValueRange ptrs = adaptor.getPtr();
    ValueRange masks = op.getMask() ? adaptor.getMask() : ValueRange();
    SmallVector<SmallVector<Value>> idx = emitIndices(rewriter, loc, *layout);
    // Replicated elements: one thread copies each.
    Value owner = emitOwnerPredicate(rewriter, loc, *layout);
    OpBuilder::InsertionGuard guard(rewriter);
    if (owner) {
      auto ifOp = scf::IfOp::create(rewriter, loc, owner, false);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    auto modifier = NVVM::LoadCacheModifierKindAttr::get(
        getContext(), bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                  : NVVM::LoadCacheModifierKind::CA);
    for (int64_t i = 0; i < layout->getNumElems(); i += vec) {
      Value off =
          swizzledOffset(rewriter, loc, tile, idx[i][slow], 0, idx[i][fast], 0);
      Value dst = LLVM::GEPOp::create(
          rewriter, loc, base.getType(), rewriter.getI8Type(), base,
          ValueRange{arith::MulIOp::create(rewriter, loc, off,
                                           i32Val(rewriter, loc,
                                                  tile.elemBytes))
                         .getResult()});
      auto copy = [&](OpBuilder &b, Location l, Value srcSize) {
        NVVM::CpAsyncOp::create(b, l, dst, ptrs[i], b.getI32IntegerAttr(bytes),
                                modifier, srcSize);
      };
      if (bytes >= 4 && (masks.empty() || maskUniform)) {
        // Masked off: nothing is read, the run is zero-filled.
        Value size;
        if (!masks.empty())
          size = arith::SelectOp::create(rewriter, loc, masks[i],
                                         i32Val(rewriter, loc, bytes),
                                         i32Val(rewriter, loc, 0));
        copy(rewriter, loc, size);
        continue;
      }
      // A run partly in bounds (or too short for cp.async): one copy when
      // all of it is in, else element by element through registers.
      Value all;
      for (int64_t k = 0; k < vec && !masks.empty(); ++k)
        all = all ? arith::AndIOp::create(rewriter, loc, all, masks[i + k])
                        .getResult()
                  : masks[i + k];
      auto slowPath = [&](OpBuilder &b, Location l) {
        for (int64_t k = 0; k < vec; ++k) {
          Value zero = arith::ConstantOp::create(
              b, l, b.getZeroAttr(elemType));
          Value v = zero;
          if (!masks.empty()) {
            auto ifOp = scf::IfOp::create(
                b, l, masks[i + k],
                [&](OpBuilder &t, Location tl) {
                  scf::YieldOp::create(
                      t, tl,
                      LLVM::LoadOp::create(t, tl, elemType, ptrs[i + k])
                          .getResult());
                },
                [&](OpBuilder &e, Location el) {
                  scf::YieldOp::create(e, el, zero);
                });
            v = ifOp.getResult(0);
          } else {
            v = LLVM::LoadOp::create(b, l, elemType, ptrs[i + k]);
          }
          Value at = LLVM::GEPOp::create(b, l, dst.getType(), elemType, dst,
                                         ValueRange{i32Val(b, l, k)});
          LLVM::StoreOp::create(b, l, v, at, tile.elemBytes);
        }
      };
      if (bytes < 4 || !all) {
        slowPath(rewriter, loc);
        continue;
      }
      scf::IfOp::create(
          rewriter, loc, all,
          [&](OpBuilder &b, Location l) {
            copy(b, l, Value());
            scf::YieldOp::create(b, l);
          },
          [&](OpBuilder &b, Location l) {
            slowPath(b, l);
            scf::YieldOp::create(b, l);
          });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCommitOpLowering : public OpConversionPattern<AsyncCommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCommitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// cp.async.wait_group, then a barrier: the copies of every thread are in
/// shared memory and every thread is done with what it read before.
struct AsyncWaitOpLowering : public OpConversionPattern<AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPending());
    // Each thread's copies are complete; order them before the async
    // proxy's reads (wgmma) before anyone passes the barrier.
    if (op.getFenceAsync())
      NVVM::FenceProxyOp::create(
          rewriter, op.getLoc(), NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(getContext(),
                                     NVVM::SharedSpace::shared_cta));
    barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// tilegpu.local_load: ldmatrix for dot operands, else one read per element.
struct LocalLoadOpLowering : public OpConversionPattern<LocalLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto bufType = cast<SharedMemType>(op.getBuffer().getType());
    FailureOr<DistributedLayout> layout = getLayoutOrError(op, type);
    if (failed(layout))
      return failure();
    auto [tile, elemType, base] =
        sharedSlot(rewriter, loc, *getTypeConverter<TileTypeConverter>(),
                   bufType, adaptor.getBuffer()[0], adaptor.getSlot()[0]);
    SharedLayoutAttr shared = tile.layout;
    if (canLoadWithLdmatrix(type, shared)) {
      replaceWithValues(rewriter, op,
                        loadDotOperandFromShared(rewriter, loc, type, tile,
                                                 base));
      return success();
    }
    unsigned fast = shared.getOrder()[0], slow = 1 - fast;
    SmallVector<Value> values;
    for (auto &ix : emitIndices(rewriter, loc, *layout)) {
      Value off = swizzledOffset(rewriter, loc, tile, ix[slow], 0, ix[fast], 0);
      Value addr = LLVM::GEPOp::create(rewriter, loc, base.getType(), elemType,
                                       base, ValueRange{off});
      values.push_back(LLVM::LoadOp::create(rewriter, loc, elemType, addr));
    }
    replaceWithValues(rewriter, op, values);
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateSharedMemoryPatterns(
    TileTypeConverter &tc, RewritePatternSet &patterns,
    const LoweringContext &lc) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConvertToDotOperandLowering, LocalAllocOpLowering,
               TransViewOpLowering, AsyncCommitOpLowering,
               AsyncWaitOpLowering, LocalLoadOpLowering>(tc, ctx);
  patterns.add<AsyncCopyOpLowering>(tc, ctx, lc);
}
