//===- TmaOpToGPU.cpp - mbarriers, TMA copies and shared stores -----------===//
//
// The ops tile-lower-descriptors makes on TMA targets, through MLIR's NVVM
// ops: tilegpu.mbarrier_init (mbarrier.init by thread 0, fence.mbarrier_init,
// barrier), tilegpu.mbarrier_expect (mbarrier.[arrive.]expect_tx by thread
// 0), tilegpu.mbarrier_wait (try_wait.parity, or arrive + try_wait on the
// state), tilegpu.tma_load / tilegpu.tma_store (cp.async.bulk.tensor by
// thread 0, one copy per box of tilegpu::getTmaBox; a store with
// `warpgroups` by each warpgroup's first thread behind the warpgroup's
// named barrier 5 + g) and
// tilegpu.local_store (each thread's runs at their swizzled place),
// tilegpu.mbarrier_arrive (lane 0 of each warp), tilegpu.warpgroup_turn
// (the named barriers 2 and 3: bar.sync, and bar.arrive as inline PTX) and
// tilegpu.warp_specialize (an if over the thread index, setmaxnreg on each
// side).
//
// A descriptor is the generic address of the kernel's by-value CUtensorMap
// parameter; the TMA's coordinates are innermost first (CUDA's order), the
// ops' offsets outermost first.
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"
#include "tilec/Dialect/TileGPU/IR/TileLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

namespace {

/// The address of slot `slot` of a buffer of `slotBytes`-byte slots.
Value slotAddress(OpBuilder &b, Location loc, Value base, Value slot,
                  int64_t slotBytes) {
  Value off = arith::MulIOp::create(b, loc, slot, i32Val(b, loc, slotBytes));
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{off});
}

/// Opens `if (threadIdx.x == 0)` at the builder; the guard restores the
/// insertion point after the `if` when it goes out of scope. A
/// warp-specialized producer side is one thread already: no `if`.
void insideThreadZero(OpBuilder &b, Location loc) {
  if (getWarpRole(b.getInsertionBlock()) == WarpRole::Producer)
    return;
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      i32Val(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
}

/// Waits until this thread's bulk stores have read their shared memory
/// (cp.async.bulk.wait_group.read 0).
void waitForSlotReads(OpBuilder &b, Location loc) {
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                       b.getUnitAttr());
}

/// One box copy per atom: box c starts at column offsets.back() + c * width
/// and lands c * rows * swizzle bytes into the slot.
struct BoxCopy {
  SmallVector<Value> coords; ///< innermost first
  Value shared;
};

SmallVector<BoxCopy> boxCopies(OpBuilder &b, Location loc, TensorDescType desc,
                               ValueRange offsets, Value slotBase) {
  ArrayRef<int64_t> block = desc.getBlockType().getShape();
  TmaBox box = getTmaBox(block, desc.getElementType().getIntOrFloatBitWidth());
  // The block's rows (its leading dims are 1 when it has more than two).
  int64_t atomBytes = block[block.size() - 2] * int64_t(box.swizzle);
  SmallVector<BoxCopy> copies;
  for (int64_t c = 0; c < box.copies; ++c) {
    BoxCopy copy;
    Value inner = offsets.back();
    if (c)
      inner = arith::AddIOp::create(b, loc, inner,
                                    i32Val(b, loc, c * box.box.back()));
    copy.coords.push_back(inner);
    for (int64_t d = int64_t(offsets.size()) - 2; d >= 0; --d)
      copy.coords.push_back(offsets[d]);
    copy.shared =
        c ? LLVM::GEPOp::create(b, loc, slotBase.getType(), b.getI8Type(),
                                slotBase,
                                ValueRange{i32Val(b, loc, c * atomBytes)})
                .getResult()
          : slotBase;
    copies.push_back(copy);
  }
  return copies;
}

int64_t slotBytesOf(SharedMemType type) {
  return type.getSlotElements() * getStorageBytes(type.getElementType());
}

/// tilegpu.mbarrier_init -> mbarrier.init per slot by thread 0, the fence
/// that publishes it to the async proxy, and a barrier.
struct MBarrierInitOpLowering : public OpConversionPattern<MBarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<SharedMemType>(op.getBarriers().getType());
    {
      OpBuilder::InsertionGuard guard(rewriter);
      insideThreadZero(rewriter, loc);
      for (int64_t s = 0; s < type.getShape()[0]; ++s)
        NVVM::MBarrierInitOp::create(
            rewriter, loc,
            slotAddress(rewriter, loc, adaptor.getBarriers(),
                        i32Val(rewriter, loc, s), 8),
            i32Val(rewriter, loc, op.getCount()), Value());
      NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    }
    barrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tilegpu.mbarrier_expect -> mbarrier.arrive.expect_tx or
/// mbarrier.expect_tx, by thread 0.
struct MBarrierExpectOpLowering
    : public OpConversionPattern<MBarrierExpectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    {
      OpBuilder::InsertionGuard guard(rewriter);
      insideThreadZero(rewriter, loc);
      Value addr = slotAddress(rewriter, loc, adaptor.getBarriers(),
                               adaptor.getSlot(), 8);
      Value bytes = i32Val(rewriter, loc, op.getBytes());
      auto cta = NVVM::MemScopeKindAttr::get(getContext(),
                                             NVVM::MemScopeKind::CTA);
      if (op.getArrive())
        NVVM::MBarrierArriveExpectTxOp::create(rewriter, loc, Type(), addr,
                                               bytes, cta,
                                               rewriter.getBoolAttr(false),
                                               Value());
      else
        NVVM::MBarrierExpectTxOp::create(rewriter, loc, addr, bytes, cta);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tilegpu.mbarrier_wait -> a try_wait.parity loop (NVVM's op loops), or
/// arrive, then try_wait on the returned state until it succeeds.
struct MBarrierWaitOpLowering : public OpConversionPattern<MBarrierWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr = slotAddress(rewriter, loc, adaptor.getBarriers(),
                             adaptor.getSlot(), 8);
    if (Value phase = adaptor.getPhase()) {
      // A suspend hint of 0: the hardware's own time limit.
      NVVM::MBarrierTryWaitParityOp::create(rewriter, loc, addr, phase,
                                            i32Val(rewriter, loc, 0));
      rewriter.eraseOp(op);
      return success();
    }
    auto cta =
        NVVM::MemScopeKindAttr::get(getContext(), NVVM::MemScopeKind::CTA);
    Type i64 = rewriter.getI64Type(), i1 = rewriter.getI1Type();
    Value state = NVVM::MBarrierArriveOp::create(rewriter, loc, i64, addr,
                                                 Value(), cta)
                      .getRes();
    auto loop = scf::WhileOp::create(rewriter, loc, TypeRange{}, ValueRange{});
    Block *before = rewriter.createBlock(&loop.getBefore());
    Value done = NVVM::MBarrierTryWaitOp::create(rewriter, loc, i1, addr,
                                                 state, Value(), cta);
    Value again = arith::XOrIOp::create(rewriter, loc, done,
                                        i1Val(rewriter, loc, true));
    scf::ConditionOp::create(rewriter, loc, again, ValueRange{});
    rewriter.createBlock(&loop.getAfter());
    scf::YieldOp::create(rewriter, loc);
    (void)before;
    rewriter.setInsertionPointAfter(loop);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tilegpu.mbarrier_arrive -> mbarrier.arrive by lane 0 of each warp.
struct MBarrierArriveOpLowering
    : public OpConversionPattern<MBarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lane = NVVM::LaneIdOp::create(rewriter, loc, rewriter.getI32Type());
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        lane, i32Val(rewriter, loc, 0));
    auto ifOp = scf::IfOp::create(rewriter, loc, first, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    Value addr = slotAddress(rewriter, loc, adaptor.getBarriers(),
                             adaptor.getSlot(), 8);
    if (std::optional<int32_t> n = op.getCluster()) {
      // The same mbarrier in each program of the cluster (its own among
      // them), released at cluster scope.
      auto clusterPtr = LLVM::LLVMPointerType::get(getContext(), 7);
      for (int32_t r = 0; r < *n; ++r) {
        Value remote = NVVM::MapaOp::create(rewriter, loc, clusterPtr, addr,
                                            i32Val(rewriter, loc, r));
        NVVM::MBarrierArriveOp::create(
            rewriter, loc, Type(), remote, Value(),
            NVVM::MemScopeKindAttr::get(getContext(),
                                        NVVM::MemScopeKind::CLUSTER));
      }
      rewriter.eraseOp(op);
      return success();
    }
    NVVM::MBarrierArriveOp::create(
        rewriter, loc, Type(), addr, Value(),
        NVVM::MemScopeKindAttr::get(getContext(), NVVM::MemScopeKind::CTA));
    rewriter.eraseOp(op);
    return success();
  }
};

/// tilegpu.cluster_barrier -> barrier.cluster.arrive (release) and
/// barrier.cluster.wait (acquire) by every thread; not `.aligned`: it may
/// follow the warp-specialized sides' divergent code.
struct ClusterBarrierOpLowering
    : public OpConversionPattern<ClusterBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::ClusterArriveOp::create(rewriter, op.getLoc(), UnitAttr());
    NVVM::ClusterWaitOp::create(rewriter, op.getLoc(), UnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// tilegpu.warpgroup_turn -> the named barriers 2 (warpgroup 0's turn)
/// and 3 (warpgroup 1's), 256 threads each: bar.sync to wait for one's
/// turn, bar.arrive to pass it (inline PTX: NVVM has no op for
/// bar.arrive). At "finish" warpgroup 0 takes the last turn (bar.sync 2)
/// and warpgroup 1 waits on barrier 4 of its own 128 threads: that orders
/// nothing between the warpgroups, but without it warpgroup 0 has waited
/// on one barrier more than warpgroup 1, and compute-sanitizer's racecheck
/// (CUDA 13.0) then reports the exchanges of the epilogue's layout
/// conversions, which bar.sync 1 of both warpgroups orders, as RAW hazards
/// (measured in the eleventh session, docs/attention.md).
struct WarpgroupTurnOpLowering : public OpConversionPattern<WarpgroupTurnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupTurnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto arrive = [&](Value id) {
      LLVM::InlineAsmOp::create(
          rewriter, loc, TypeRange(), ValueRange{id},
          rewriter.getStringAttr("bar.arrive $0, 256;"),
          rewriter.getStringAttr("r"), /*has_side_effects=*/rewriter.getUnitAttr(),
          /*is_align_stack=*/UnitAttr(),
          LLVM::TailCallKindAttr::get(ctx, LLVM::TailCallKind::None),
          LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
          ArrayAttr());
    };
    auto sync = [&](Value id) {
      NVVM::BarrierOp::create(rewriter, loc, Type(), id,
                              i32Val(rewriter, loc, 256),
                              NVVM::BarrierReductionAttr(), Value());
    };
    // The consumers' warpgroup: thread / 128 (they are threads 0..255).
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value group =
        arith::ShRUIOp::create(rewriter, loc, tid, i32Val(rewriter, loc, 7));
    StringRef step = op.getStep();
    if (step == "wait" || step == "pass") {
      // wait: 2 + g; pass: the other's, 3 - g.
      Value id = step == "wait"
                     ? arith::AddIOp::create(rewriter, loc, group,
                                             i32Val(rewriter, loc, 2))
                           .getResult()
                     : arith::SubIOp::create(rewriter, loc,
                                             i32Val(rewriter, loc, 3), group)
                           .getResult();
      step == "wait" ? sync(id) : arrive(id);
    } else {
      // start: warpgroup 1 hands warpgroup 0 its first turn; finish:
      // warpgroup 0 takes the last turn warpgroup 1 passed, warpgroup 1
      // waits on its own barrier 4 (see above).
      bool start = step == "start";
      Value cond = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::eq, group,
                                         i32Val(rewriter, loc, start ? 1 : 0));
      auto ifOp = scf::IfOp::create(rewriter, loc, cond,
                                    /*withElse=*/!start);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      Value id = i32Val(rewriter, loc, 2);
      start ? arrive(id) : sync(id);
      if (!start) {
        rewriter.setInsertionPoint(ifOp.elseBlock()->getTerminator());
        NVVM::BarrierOp::create(rewriter, loc, Type(), i32Val(rewriter, loc, 4),
                                i32Val(rewriter, loc, 128),
                                NVVM::BarrierReductionAttr(), Value());
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tilegpu.warp_specialize ->
///   if (tid >= consumers) { setmaxnreg.dec; if (tid == consumers) producer }
///   else { setmaxnreg.inc; consumer }
/// with the outer if marked (kConsumerThreadsAttr) so that the barriers and
/// thread-0 ops lowered inside know their side.
struct WarpSpecializeOpLowering
    : public OpConversionPattern<WarpSpecializeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpSpecializeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto func = op->getParentOfType<FunctionOpInterface>();
    int64_t consumers = 32 * getNumWarps(func.getOperation());
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value producerSide =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, tid,
                              i32Val(rewriter, loc, consumers));
    auto sides = scf::IfOp::create(rewriter, loc, producerSide,
                                   /*withElse=*/true);
    sides->setAttr(kConsumerThreadsAttr,
                   rewriter.getI64IntegerAttr(consumers));
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(sides.thenBlock()->getTerminator());
    NVVM::SetMaxRegisterOp::create(rewriter, loc, op.getProducerRegisters(),
                                   NVVM::SetMaxRegisterAction::decrease);
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        tid, i32Val(rewriter, loc, consumers));
    auto issuer = scf::IfOp::create(rewriter, loc, first, /*withElse=*/false);
    rewriter.inlineBlockBefore(&op.getProducer().front(),
                               issuer.thenBlock()->getTerminator());
    rewriter.setInsertionPoint(sides.elseBlock()->getTerminator());
    NVVM::SetMaxRegisterOp::create(rewriter, loc, op.getConsumerRegisters(),
                                   NVVM::SetMaxRegisterAction::increase);
    // Barriers the passes before placed among the consumers' ops.
    op.getConsumer().walk([&](gpu::BarrierOp b) {
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(b);
      consumerBarrier(rewriter, b.getLoc(), consumers);
      rewriter.eraseOp(b);
    });
    rewriter.inlineBlockBefore(&op.getConsumer().front(),
                               sides.elseBlock()->getTerminator());
    rewriter.eraseOp(op);
    return success();
  }
};

/// tilegpu.tma_load -> one cp.async.bulk.tensor per box, by thread 0.
struct TmaLoadOpLowering : public OpConversionPattern<TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto bufType = cast<SharedMemType>(op.getBuffer().getType());
    {
      OpBuilder::InsertionGuard guard(rewriter);
      insideThreadZero(rewriter, loc);
      Value base = slotAddress(rewriter, loc, adaptor.getBuffer(),
                               adaptor.getSlot(), slotBytesOf(bufType));
      Value bar = slotAddress(rewriter, loc, adaptor.getBarriers(),
                              adaptor.getBarrierSlot(), 8);
      // The copy names its destination in the cluster's shared window
      // (shared::cluster), where this CTA's own shared memory lies too.
      auto clusterPtr = LLVM::LLVMPointerType::get(getContext(), 7);
      // Multicast: box c by the program of cluster rank c % n, into all n.
      int n = op.getMulticast().value_or(1);
      Value rank, mask;
      if (n > 1) {
        rank = NVVM::ClusterId::create(rewriter, loc, rewriter.getI32Type());
        mask = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI16Type(),
                                        rewriter.getI16IntegerAttr((1 << n) - 1));
      }
      for (auto [i, c] : llvm::enumerate(boxCopies(
               rewriter, loc, cast<TensorDescType>(op.getDesc().getType()),
               adaptor.getOffsets(), base))) {
        OpBuilder::InsertionGuard boxGuard(rewriter);
        if (n > 1) {
          Value mine = arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq, rank,
              i32Val(rewriter, loc, int64_t(i) % n));
          auto ifOp = scf::IfOp::create(rewriter, loc, mine, false);
          rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        }
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            rewriter, loc,
            LLVM::AddrSpaceCastOp::create(rewriter, loc, clusterPtr, c.shared),
            adaptor.getDesc(), c.coords, bar, ValueRange{}, mask, Value(),
            NVVM::TMALoadMode::TILE,
            /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), Value());
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// This thread's warpgroup, g = threadIdx.x / 128, and the warpgroup's own
/// named barrier: 5 + g, its 128 threads.
Value warpgroupOf(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  return arith::ShRUIOp::create(b, loc, tid, i32Val(b, loc, 7));
}
void warpgroupBarrier(OpBuilder &b, Location loc, Value group) {
  Value id = arith::AddIOp::create(b, loc, group, i32Val(b, loc, 5));
  NVVM::BarrierOp::create(b, loc, Type(), id, i32Val(b, loc, 128),
                          NVVM::BarrierReductionAttr(), Value());
}

/// Opens `if (threadIdx.x == first)` at the builder (restored when the
/// guard goes out of scope).
void insideThread(OpBuilder &b, Location loc, int64_t first) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                   i32Val(b, loc, first));
  auto ifOp = scf::IfOp::create(b, loc, is, /*withElse=*/false);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
}

/// tilegpu.tma_store -> fence.proxy.async and a barrier, then thread 0's
/// cp.async.bulk.tensor (cp.reduce.async.bulk.tensor with `reduce`) per
/// box, commit_group and (unless `async`) wait_group.read 0. With
/// `warpgroups` the barrier is each warpgroup's own and the first thread
/// of each warpgroup copies its boxes.
struct TmaStoreOpLowering : public OpConversionPattern<TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto bufType = cast<SharedMemType>(op.getBuffer().getType());
    // Every thread's plain stores to the slot, before the TMA reads it.
    NVVM::FenceProxyOp::create(
        rewriter, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(getContext(),
                                   NVVM::SharedSpace::shared_cta));
    std::optional<ArrayRef<int32_t>> owners = op.getWarpgroups();
    if (owners)
      warpgroupBarrier(rewriter, loc, warpgroupOf(rewriter, loc));
    else
      barrier(rewriter, loc);
    SmallVector<int32_t> issuers = {0};
    if (owners) {
      issuers.assign(owners->begin(), owners->end());
      llvm::sort(issuers);
      issuers.erase(llvm::unique(issuers), issuers.end());
    }
    for (int32_t g : issuers) {
      OpBuilder::InsertionGuard guard(rewriter);
      if (owners)
        insideThread(rewriter, loc, 128 * int64_t(g));
      else
        insideThreadZero(rewriter, loc);
      Value base = slotAddress(rewriter, loc, adaptor.getBuffer(),
                               adaptor.getSlot(), slotBytesOf(bufType));
      SmallVector<BoxCopy> copies =
          boxCopies(rewriter, loc, cast<TensorDescType>(op.getDesc().getType()),
                    adaptor.getOffsets(), base);
      for (auto [i, c] : llvm::enumerate(copies)) {
        if (owners && (*owners)[i] != g)
          continue;
        if (op.getReduce()) {
          // fadd and add (the verifier's) are both the TMA's .add: the
          // map's element type picks the arithmetic.
          NVVM::CpAsyncBulkTensorReduceOp::create(
              rewriter, loc, adaptor.getDesc(), c.shared,
              NVVM::TMAReduxKind::ADD, NVVM::TMAStoreMode::TILE, c.coords,
              Value());
          continue;
        }
        NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
            rewriter, loc, adaptor.getDesc(), c.shared, c.coords, Value(),
            NVVM::TMAStoreModeAttr::get(getContext(),
                                        NVVM::TMAStoreMode::TILE),
            Value());
      }
      NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
      if (!op.getAsync())
        waitForSlotReads(rewriter, loc);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tilegpu.tma_store_wait -> thread 0's cp.async.bulk.wait_group.read 0;
/// with `warpgroups`, that of the first thread of each warpgroup, then the
/// warpgroup's barrier.
struct TmaStoreWaitOpLowering : public OpConversionPattern<TmaStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaStoreWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.getWarpgroups()) {
      Value tid =
          NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
      Value lead = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq,
          arith::AndIOp::create(rewriter, loc, tid,
                                i32Val(rewriter, loc, 127)),
          i32Val(rewriter, loc, 0));
      auto ifOp = scf::IfOp::create(rewriter, loc, lead, /*withElse=*/false);
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        waitForSlotReads(rewriter, loc);
      }
      warpgroupBarrier(rewriter, loc, warpgroupOf(rewriter, loc));
      rewriter.eraseOp(op);
      return success();
    }
    {
      OpBuilder::InsertionGuard guard(rewriter);
      insideThreadZero(rewriter, loc);
      waitForSlotReads(rewriter, loc);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tilegpu.local_store -> each thread's runs at their swizzled place.
struct LocalStoreOpLowering : public OpConversionPattern<LocalStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getValue().getType());
    auto bufType = cast<SharedMemType>(op.getBuffer().getType());
    FailureOr<DistributedLayout> layout = getLayoutOrError(op, type);
    if (failed(layout))
      return failure();
    Type elemType = getTypeConverter<TileTypeConverter>()->convertElementType(
        type.getElementType());
    SharedTile tile =
        makeSharedTile(bufType.getLayout(), bufType.getSlotShape(), elemType);
    Value base = slotAddress(rewriter, loc, adaptor.getBuffer()[0],
                             adaptor.getSlot()[0], slotBytesOf(bufType));
    storeTileToShared(rewriter, loc, *layout, adaptor.getValue(), tile, base);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateTmaPatterns(TileTypeConverter &tc,
                                                   RewritePatternSet &patterns,
                                                   const LoweringContext &) {
  patterns.add<MBarrierInitOpLowering, MBarrierExpectOpLowering,
               MBarrierWaitOpLowering, MBarrierArriveOpLowering,
               ClusterBarrierOpLowering,
               TmaLoadOpLowering, TmaStoreOpLowering, TmaStoreWaitOpLowering,
               LocalStoreOpLowering,
               WarpgroupTurnOpLowering, WarpSpecializeOpLowering>(
      tc, patterns.getContext());
}
