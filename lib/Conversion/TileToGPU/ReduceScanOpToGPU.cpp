//===- ReduceScanOpToGPU.cpp - reductions and scans -----------------------===//
//
// tile.reduce along a dim, in three stages: each thread combines the
// elements it holds along the dim; lanes combine with butterfly shuffles
// (shfl.sync.bfly) over the lane bits of that dim; if several warps split
// the dim, lane 0 of each warp writes its partial to shared memory (one
// slot of the element's size per warp, a warp's slots adjacent), one
// barrier, and every thread combines the partials in warp order (broadcast
// reads, 16 bytes at a time). Option cross-warp-shuffle instead has each
// thread read one partial and finish with log2(warps) butterflies: fewer
// instructions, a longer dependence chain (measured 1% slower on layernorm).
// Consecutive reductions alternate between two scratch regions, which
// makes the barrier before the writes unnecessary for all but the first
// reduction after another shared-memory user (planReductionScratch).
// Replicated lanes and warps, and the padding copies of a tile that the
// layout's repetitions overrun, are left out so nothing is combined twice
// (any warp count: the partials are read in a loop). The
// result has the slice layout, so every thread ends with the values its
// layout assigns it.
//
// tile.scan: Hillis-Steele over the dim in shared memory (log2(n) steps of
// one load, one combine and one store per element, double buffered): simple
// and correct for any layout; fast enough for moderate sizes.
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

namespace {

/// tile.reduce -> in-thread combines, shuffles, shared memory.
struct ReduceOpLowering : public OpConversionPattern<ReduceOp> {
  ReduceOpLowering(const TypeConverter &tc, MLIRContext *ctx,
                   const LoweringContext &lc)
      : OpConversionPattern(tc, ctx), lc(lc) {}
  const LoweringContext &lc;

  LogicalResult
  matchAndRewrite(ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = *getTypeConverter<TileTypeConverter>();
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
    FailureOr<DistributedLayout> layout = getLayoutOrError(op, srcType);
    if (failed(layout))
      return failure();
    for (Value src : op.getSrcs())
      if (cast<RankedTensorType>(src.getType()).getEncoding() !=
          srcType.getEncoding())
        return op.emitOpError("sources must share one layout");
    unsigned numOps = op.getSrcs().size();
    unsigned axis = layout->getBlockedDim(op.getAxis());
    Region &combiner = op.getCombineOp();

    // The result's element of each source element: its sub-indices with the
    // reduced dim's zeroed, numbered in the result (slice) layout.
    bool scalar = !isa<RankedTensorType>(op.getResult(0).getType());
    std::optional<DistributedLayout> outLayout;
    if (!scalar) {
      auto outType = cast<RankedTensorType>(op.getResult(0).getType());
      auto slice = dyn_cast_if_present<SliceLayoutAttr>(outType.getEncoding());
      if (!slice || slice.getDim() != (unsigned)op.getAxis() ||
          slice.getParent() != srcType.getEncoding())
        return op.emitOpError("result layout must be #tilegpu.slice<{dim = ")
               << op.getAxis() << "}> of the source layout, got " << outType;
      outLayout = *DistributedLayout::get(outType);
    }
    int64_t numOut = scalar ? 1 : outLayout->getNumElems();
    auto outIndex = [&](int64_t i) -> int64_t {
      if (scalar)
        return 0;
      SmallVector<int64_t> sub = layout->getSubIndices(i);
      sub[axis] = 0;
      return outLayout->getElemNumber(sub);
    };

    // 1. Within the thread, in element order along the dim. Padding copies
    // along it (a row of 5000 in repetitions of 512) are left out: only the
    // last repetition has any, so each thread's first element is real.
    // Without padding, a pairwise tree in element order (the combiner is
    // associative, as the shuffles below already assume): log2(n) dependent
    // combines instead of n - 1 (the softmax's row max and sum: 32 values a
    // row per thread in a wgmma accumulator).
    SmallVector<Value> inside =
        emitPaddingPredicates(rewriter, loc, *layout, {axis});
    SmallVector<SmallVector<Value>> acc(numOut);
    bool tree = llvm::none_of(inside, [](Value v) { return bool(v); });
    if (tree) {
      SmallVector<SmallVector<SmallVector<Value>>> parts(numOut);
      for (int64_t i = 0; i < layout->getNumElems(); ++i) {
        SmallVector<Value> cur;
        for (unsigned k = 0; k < numOps; ++k)
          cur.push_back(adaptor.getSrcs()[k][i]);
        parts[outIndex(i)].push_back(std::move(cur));
      }
      for (int64_t o = 0; o < numOut; ++o) {
        SmallVector<SmallVector<Value>> level = std::move(parts[o]);
        while (level.size() > 1) {
          SmallVector<SmallVector<Value>> next;
          for (size_t j = 0; j + 1 < level.size(); j += 2)
            next.push_back(
                applyCombiner(rewriter, loc, combiner, level[j], level[j + 1]));
          if (level.size() % 2)
            next.push_back(level.back());
          level = std::move(next);
        }
        acc[o] = std::move(level.front());
      }
    }
    for (int64_t i = 0; !tree && i < layout->getNumElems(); ++i) {
      SmallVector<Value> cur;
      for (unsigned k = 0; k < numOps; ++k)
        cur.push_back(adaptor.getSrcs()[k][i]);
      SmallVector<Value> &a = acc[outIndex(i)];
      if (a.empty()) {
        a = cur;
        continue;
      }
      SmallVector<Value> next = applyCombiner(rewriter, loc, combiner, a, cur);
      if (inside[i])
        for (unsigned k = 0; k < numOps; ++k)
          next[k] = arith::SelectOp::create(rewriter, loc, inside[i], next[k],
                                            a[k]);
      a = next;
    }

    // 2. Within the warp: butterflies over the lanes holding distinct data.
    int64_t lanes = layout->getDistinctLanes(axis);
    for (int64_t s = 1; s < lanes; s *= 2) {
      int64_t offset = s * layout->getLaneStride(axis);
      for (auto &a : acc) {
        SmallVector<Value> other;
        for (Value v : a)
          other.push_back(shuffleXor(rewriter, loc, v, offset));
        a = applyCombiner(rewriter, loc, combiner, a, other);
      }
    }

    // 3. Across warps through shared memory: slot (out, warp, operand).
    ReduceScratchLayout scratch = getReduceScratchLayout(op, *layout);
    int64_t warps = scratch.warps;
    if (warps > 1) {
      ThreadCoords coords = getThreadCoords(rewriter, loc, *layout);
      SmallVector<Value> outLinear(numOut, i32Val(rewriter, loc, 0));
      if (!scalar) {
        ArrayRef<int64_t> shape =
            cast<RankedTensorType>(op.getResult(0).getType()).getShape();
        for (auto [j, idx] :
             llvm::enumerate(emitIndices(rewriter, loc, *outLayout)))
          outLinear[j] = linearize(rewriter, loc, idx, shape);
      }
      ReduceScratch plan;
      if (auto it = lc.reduceScratch.find(op); it != lc.reduceScratch.end())
        plan = it->second;
      // Operand k's slots (getReduceScratchLayout): a warp's partials of
      // one output are adjacent, so the reads below become 16-byte
      // ld.shared.v4 for 4-byte types.
      auto slot = [&](OpBuilder &b, Value out, Value warp, unsigned k) {
        // base + offset[k] + (out * warps + warp) * bytes
        Value v = arith::MulIOp::create(b, loc, out, i32Val(b, loc, warps));
        v = arith::AddIOp::create(b, loc, v, warp);
        v = arith::MulIOp::create(b, loc, v,
                                  i32Val(b, loc, scratch.slotBytes[k]));
        return arith::AddIOp::create(
                   b, loc, v,
                   i32Val(b, loc, plan.offset + scratch.operandOffsets[k]))
            .getResult();
      };
      // Lane 0 along the dim of each distinct warp writes its partials.
      Value writer = arith::AndIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                coords.lane[axis], i32Val(rewriter, loc, 0)),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                coords.warp[axis],
                                i32Val(rewriter, loc, warps)));
      // Replicas (lanes or warps past the tile's shape, or along a dim they
      // do not split) hold the same partials as their owner: only the owner
      // writes, so no slot is written twice between barriers (a 4x3 tile
      // on 3 warps had 8 lanes writing each slot, which the simulator
      // reports as a race: test/GPU/kernels/difftest.tile).
      if (Value owner = emitOwnerPredicate(rewriter, loc, *layout))
        writer = arith::AndIOp::create(rewriter, loc, writer, owner);
      // Earlier readers of these slots must be done before they change
      // (unless planReductionScratch showed that none can be left).
      if (plan.leadingBarrier)
        barrier(rewriter, loc);
      // Padding copies along the other dims (4 rows on 3 warps: rows 4
      // and 5 copy real ones) write nothing either: a source element's
      // predicate along those dims is its output element's.
      SmallVector<Value> outReal(numOut);
      if (!scalar) {
        SmallVector<unsigned> otherDims;
        for (unsigned d = 0; d < srcType.getRank(); ++d)
          if (d != axis)
            otherDims.push_back(d);
        SmallVector<Value> real =
            emitPaddingPredicates(rewriter, loc, *layout, otherDims);
        for (int64_t i = 0; i < layout->getNumElems(); ++i)
          if (real[i])
            outReal[outIndex(i)] = real[i];
      }
      auto ifOp = scf::IfOp::create(rewriter, loc, writer, false);
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        for (auto [j, a] : llvm::enumerate(acc)) {
          OpBuilder::InsertionGuard inner(rewriter);
          if (outReal[j]) {
            auto realIf = scf::IfOp::create(rewriter, loc, outReal[j], false);
            rewriter.setInsertionPoint(realIf.thenBlock()->getTerminator());
          }
          for (unsigned k = 0; k < numOps; ++k)
            storeShared(rewriter, loc, a[k],
                        slot(rewriter, outLinear[j], coords.warp[axis], k));
        }
      }
      barrier(rewriter, loc);
      // The butterfly needs a power-of-two number of partials.
      bool crossWarpShuffle = lc.crossWarpShuffle && llvm::isPowerOf2_64(warps);
      if (crossWarpShuffle) {
        // Lane l reads warp (l mod warps)'s partial and butterflies over
        // log2(warps) lane bits: every group of `warps` lanes, so every
        // thread, ends with the total, with one read per thread and no
        // second barrier or broadcast slot (Triton reduces the partials in
        // one warp and broadcasts them through shared memory). A butterfly
        // gives all lanes the same value for a commutative combiner, as the
        // in-warp stage above already assumes.
        Value tid = NVVM::ThreadIdXOp::create(rewriter, loc,
                                              rewriter.getI32Type());
        Value mine = arith::AndIOp::create(rewriter, loc, tid,
                                           i32Val(rewriter, loc, warps - 1));
        for (auto [j, a] : llvm::enumerate(acc)) {
          SmallVector<Value> part;
          for (unsigned k = 0; k < numOps; ++k)
            part.push_back(loadShared(rewriter, loc, a[k].getType(),
                                      slot(rewriter, outLinear[j], mine, k)));
          for (int64_t s = 1; s < warps; s *= 2) {
            SmallVector<Value> other;
            for (Value v : part)
              other.push_back(shuffleXor(rewriter, loc, v, s));
            part = applyCombiner(rewriter, loc, combiner, part, other);
          }
          a = part;
        }
      }
      for (auto [j, a] : llvm::enumerate(acc)) {
        if (crossWarpShuffle)
          break;
        SmallVector<Value> total;
        for (int64_t w = 0; w < warps; ++w) {
          SmallVector<Value> part;
          for (unsigned k = 0; k < numOps; ++k)
            part.push_back(loadShared(
                rewriter, loc, a[k].getType(),
                slot(rewriter, outLinear[j], i32Val(rewriter, loc, w), k)));
          total = total.empty()
                      ? part
                      : applyCombiner(rewriter, loc, combiner, total, part);
        }
        a = total;
      }
    }

    SmallVector<SmallVector<Value>> results(numOps);
    for (auto &a : acc)
      for (unsigned k = 0; k < numOps; ++k)
        results[k].push_back(a[k]);
    (void)tc;
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }
};

/// tile.scan -> Hillis-Steele steps in shared memory.
struct ScanOpLowering : public OpConversionPattern<ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScanOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getSrcs()[0].getType());
    FailureOr<DistributedLayout> layout = getLayoutOrError(op, type);
    if (failed(layout))
      return failure();
    for (Value src : op.getSrcs())
      if (cast<RankedTensorType>(src.getType()).getEncoding() !=
          type.getEncoding())
        return op.emitOpError("sources must share one layout");
    unsigned numOps = op.getSrcs().size();
    unsigned axis = op.getAxis();
    int64_t n = type.getDimSize(axis);
    int64_t elems = type.getNumElements();
    int64_t stride = 1;
    for (unsigned d = axis + 1; d < type.getRank(); ++d)
      stride *= type.getDimSize(d);
    bool reverse = op.getReverse();
    Region &combiner = op.getCombineOp();

    SmallVector<SmallVector<Value>> idx =
        emitIndices(rewriter, loc, *layout);
    SmallVector<Value> lin;
    for (auto &ix : idx)
      lin.push_back(linearize(rewriter, loc, ix, type.getShape()));
    // Byte offset of element `l` of operand k in buffer `buf`.
    auto slot = [&](Value l, unsigned k, int buf) {
      Value v = arith::AddIOp::create(
          rewriter, loc, l,
          i32Val(rewriter, loc, (int64_t(buf) * numOps + k) * elems));
      return arith::MulIOp::create(rewriter, loc, v, i32Val(rewriter, loc, 8))
          .getResult();
    };
    SmallVector<SmallVector<Value>> own(lin.size());
    for (size_t i = 0; i < lin.size(); ++i)
      for (unsigned k = 0; k < numOps; ++k)
        own[i].push_back(adaptor.getSrcs()[k][i]);

    // One writer per element: replicas and padding copies (which compute
    // the same values) only read, so no slot is written twice.
    SmallVector<Value> owners = emitElementOwners(rewriter, loc, *layout);
    auto store = [&](size_t i, unsigned k, int buf) {
      OpBuilder::InsertionGuard guard(rewriter);
      if (owners[i]) {
        auto ifOp = scf::IfOp::create(rewriter, loc, owners[i], false);
        rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      storeShared(rewriter, loc, own[i][k], slot(lin[i], k, buf));
    };
    int buf = 0;
    barrier(rewriter, loc);
    for (size_t i = 0; i < lin.size(); ++i)
      for (unsigned k = 0; k < numOps; ++k)
        store(i, k, buf);
    barrier(rewriter, loc);
    for (int64_t offset = 1; offset < n; offset *= 2) {
      for (size_t i = 0; i < lin.size(); ++i) {
        // The partner exists if idx >= offset (idx + offset < n reversed);
        // otherwise read our own slot and keep our value.
        Value pos = idx[i][axis];
        Value has =
            reverse ? arith::CmpIOp::create(
                          rewriter, loc, arith::CmpIPredicate::slt, pos,
                          i32Val(rewriter, loc, n - offset))
                    : arith::CmpIOp::create(rewriter, loc,
                                            arith::CmpIPredicate::sge, pos,
                                            i32Val(rewriter, loc, offset));
        Value delta = i32Val(rewriter, loc,
                             (reverse ? 1 : -1) * offset * stride);
        Value moved = arith::AddIOp::create(rewriter, loc, lin[i], delta);
        Value partner =
            arith::SelectOp::create(rewriter, loc, has, moved, lin[i]);
        SmallVector<Value> prev;
        for (unsigned k = 0; k < numOps; ++k)
          prev.push_back(loadShared(rewriter, loc, own[i][k].getType(),
                                    slot(partner, k, buf)));
        SmallVector<Value> next =
            applyCombiner(rewriter, loc, combiner, prev, own[i]);
        for (unsigned k = 0; k < numOps; ++k)
          own[i][k] =
              arith::SelectOp::create(rewriter, loc, has, next[k], own[i][k]);
      }
      buf ^= 1;
      for (size_t i = 0; i < lin.size(); ++i)
        for (unsigned k = 0; k < numOps; ++k)
          store(i, k, buf);
      barrier(rewriter, loc);
    }
    SmallVector<SmallVector<Value>> results(numOps);
    for (auto &o : own)
      for (unsigned k = 0; k < numOps; ++k)
        results[k].push_back(o[k]);
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateReduceScanPatterns(
    TileTypeConverter &tc, RewritePatternSet &patterns,
    const LoweringContext &lc) {
  patterns.add<ScanOpLowering>(tc, patterns.getContext());
  patterns.add<ReduceOpLowering>(tc, patterns.getContext(), lc);
}
