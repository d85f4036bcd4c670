//===- LowerDescriptors.cpp - tensor descriptor accesses through the TMA --===//
//
// Assumes: kernels with layouts (tile-assign-layouts), tile.descriptor_load
// results that feed a dot separated from it by a tile.convert_layout.
// Guarantees: no tile.descriptor_load / tile.descriptor_store is left; on
// a target without the TMA (before sm_90) each is a located error.
//
// A wgmma dot in an scf.for whose operands A and B are both
// `tile.convert_layout(tile.descriptor_load(d, offsets))`, the offsets
// computed in the loop from its induction variable and values from outside
// alone (pure, region-free ops), is fed from an R-slot ring of
// #tilegpu.nvmma_shared slots (the boxes' swizzle, tilegpu::getTmaBox),
// one mbarrier per slot (arrival count 1), R = num_stages + 1 when that
// fits the target's shared memory, else num_stages:
//
//   init the R mbarriers (then a barrier)
//   for s in 0 .. R-2, if iteration s exists:
//     thread 0: arrive.expect_tx(bar[s], bytes of A + B); TMA A, B -> slot s
//   for i (slot r = i % R, phase p = (i / R) % 2, both carried):
//     every thread: try_wait.parity(bar[r], p)     // slot r has landed
//     warpgroup_dot slot r {pending = 1}           // i - 1's group retired
//     barrier                                      // ... in every warpgroup
//     if iteration i + R - 1 exists, thread 0:
//       arrive.expect_tx(bar[w]); TMA -> slot w = (i + R - 1) % R = (i - 1) % R
//   warpgroup_wait {pending = 0}
//
// Why slot w may be refilled: it was last read by iteration i - 1's wgmma.
// Each warpgroup's warpgroup_dot of iteration i waited (wait_group 1) for
// its own group of i - 1 before the barrier, so after the barrier every
// warpgroup has retired the wgmma that read w; the copy is issued only
// then. In use at once: slot r (wgmma i, in flight), the R - 2 slots of
// iterations i + 1 .. i + R - 2 (copies in flight or landed) and w. Each
// slot's phase flips on each use, so the parity a consumer waits for is
// the carried p, flipped when r wraps. With pending = 0 (an accumulator
// that is not only carried from dot to dot) the same schedule holds. The
// barrier is the one program-wide synchronization per iteration; empty
// mbarriers per slot would let the other warpgroups run ahead of it.
//
// Every other descriptor access goes through one slot of its own and one
// mbarrier per kernel (arrival count = the program's threads):
//   load:  barrier (earlier readers of the slot and the mbarrier's last
//          phase are done); thread 0: expect_tx(bytes), TMA -> slot;
//          every thread: arrive + try_wait on its state; local_load
//   store: barrier; local_store; tilegpu.tma_store (fence.proxy.async,
//          barrier, thread 0's TMA store, wait until it has read the slot)
//
// Blocks go only where the TMA's boxes give the nvmma_shared arrangement:
// 2-D f16/bf16 blocks with rows a multiple of 8 and rows of a multiple of
// 32 bytes; others are a located error.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/SharedMemory.h"
#include "tilec/Target/Target.h"
#include "tilec/Transforms/Passes.h"

#include "tilec/Dialect/TileGPU/IR/TileLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace tilec {
#define GEN_PASS_DEF_TILELOWERDESCRIPTORS
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

Value constant(OpBuilder &b, Location loc, Type type, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

/// The slot layout a block travels in, or null when the TMA cannot give
/// it the nvmma_shared arrangement.
NvmmaSharedLayoutAttr slotLayout(TensorDescType desc) {
  TmaBox box = getTmaBox(desc.getBlockType().getShape(),
                         desc.getElementType().getIntOrFloatBitWidth());
  if (!box.swizzle)
    return {};
  return NvmmaSharedLayoutAttr::get(desc.getContext(), box.swizzle, {1, 0});
}

int64_t blockBytes(TensorDescType desc) {
  return tilec::smem::slotBytes(desc.getElementType(),
                                desc.getBlockType().getNumElements());
}

Value allocSlots(OpBuilder &b, Location loc, TensorDescType desc,
                 int64_t slots) {
  SmallVector<int64_t> shape{slots};
  llvm::append_range(shape, desc.getBlockType().getShape());
  return LocalAllocOp::create(
      b, loc,
      SharedMemType::get(b.getContext(), shape, desc.getElementType(),
                         slotLayout(desc)));
}

/// `slots` mbarriers, initialized with `count` arrivals.
Value allocBarriers(OpBuilder &b, Location loc, int64_t slots, int count) {
  MLIRContext *ctx = b.getContext();
  auto plain = SharedLayoutAttr::get(ctx, 1, 1, 1, {1, 0});
  Value bars = LocalAllocOp::create(
      b, loc,
      SharedMemType::get(ctx, {slots, 1, 1}, b.getI64Type(), plain));
  MBarrierInitOp::create(b, loc, bars, b.getI32IntegerAttr(count));
  return bars;
}

/// The descriptor load behind a dot operand: `convert(descriptor_load)`,
/// each the other's only use, in `body`.
DescriptorLoadOp operandLoad(Value operand, Block *body) {
  auto convert = operand.getDefiningOp<ConvertLayoutOp>();
  if (!convert || !convert->hasOneUse() || convert->getBlock() != body)
    return {};
  auto load = convert.getSrc().getDefiningOp<DescriptorLoadOp>();
  if (!load || !load->hasOneUse() || load->getBlock() != body ||
      !slotLayout(load.getDesc().getType()))
    return {};
  return load;
}

/// The offsets' backward slice in `loop`'s body, in body order; fails when
/// it reads a carried value or anything impure.
LogicalResult offsetSlice(scf::ForOp loop, ArrayRef<DescriptorLoadOp> loads,
                          SmallVectorImpl<Operation *> &slice) {
  Block *body = loop.getBody();
  SetVector<Operation *> set;
  SmallVector<Value> worklist;
  for (DescriptorLoadOp l : loads)
    llvm::append_range(worklist, l.getOffsets());
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body && arg != loop.getInductionVar())
        return failure();
      continue;
    }
    Operation *op = v.getDefiningOp();
    if (op->getBlock() != body) {
      if (loop->isAncestor(op))
        return failure();
      continue;
    }
    if (!isMemoryEffectFree(op) || op->getNumRegions() != 0)
      return failure();
    if (set.insert(op))
      llvm::append_range(worklist, op->getOperands());
  }
  slice.assign(set.begin(), set.end());
  llvm::sort(slice, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return success();
}

/// True when the dot's accumulator only goes from one iteration's dot to
/// the next, so one wgmma group may stay in flight.
bool accumulatorOnlyCarried(scf::ForOp loop, DotOp dot) {
  auto arg = dyn_cast<BlockArgument>(dot.getC());
  if (!arg || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0 ||
      !arg.hasOneUse() || !dot->hasOneUse())
    return false;
  OpOperand &use = *dot->getUses().begin();
  return use.getOwner() == loop.getBody()->getTerminator() &&
         use.getOperandNumber() == arg.getArgNumber() - 1;
}

/// If iteration `iv` exists: thread 0 expects the stage's bytes on
/// bars[slot] and starts A's and B's copies into `slot`.
void issueStage(OpBuilder &b, Location loc, scf::ForOp loop,
                ArrayRef<Operation *> slice, ArrayRef<DescriptorLoadOp> loads,
                ArrayRef<Value> bufs, Value bars, Value iv, Value slot,
                int64_t bytes) {
  Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv,
                                       loop.getUpperBound());
  auto ifOp = scf::IfOp::create(b, loc, exists, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  IRMapping map;
  map.map(loop.getInductionVar(), iv);
  for (Operation *op : slice)
    b.clone(*op, map);
  MBarrierExpectOp::create(b, loc, bars, slot, b.getI32IntegerAttr(bytes),
                           b.getUnitAttr());
  for (size_t i = 0; i < loads.size(); ++i) {
    DescriptorLoadOp load = loads[i];
    SmallVector<Value> offsets;
    for (Value o : load.getOffsets())
      offsets.push_back(map.lookupOrDefault(o));
    TmaLoadOp::create(b, loc, load.getDesc(), offsets, bufs[i], slot, bars,
                      slot);
  }
}

/// Stages the two descriptor loads of a wgmma dot in `loop` (the schedule
/// at the top of the file); false when the loop has no such dot.
bool pipelineLoop(scf::ForOp loop, int stages, const tilec::Target &target) {
  Block *body = loop.getBody();
  DotOp dot;
  SmallVector<DescriptorLoadOp, 2> loads;
  SmallVector<Operation *> slice;
  for (DotOp d : body->getOps<DotOp>()) {
    auto mma = dyn_cast_if_present<MmaLayoutAttr>(d.getType().getEncoding());
    if (!mma || mma.getVersionMajor() != 3)
      continue;
    DescriptorLoadOp a = operandLoad(d.getA(), body),
                     b = operandLoad(d.getB(), body);
    if (!a || !b || failed(offsetSlice(loop, {a, b}, slice)))
      continue;
    dot = d;
    loads = {a, b};
    break;
  }
  if (!dot)
    return false;
  int64_t stageBytes = 0;
  for (DescriptorLoadOp l : loads)
    stageBytes += blockBytes(l.getDesc().getType());
  int64_t slots = stages + 1;
  if (!tilec::smem::fits(slots * stageBytes, target))
    slots = stages;
  int pending = accumulatorOnlyCarried(loop, dot) ? 1 : 0;

  Location loc = loop.getLoc();
  MLIRContext *ctx = loop.getContext();
  OpBuilder b(loop);
  Type ivType = loop.getLowerBound().getType();
  Type i32 = b.getI32Type();
  Value step = loop.getStep(), lb = loop.getLowerBound();
  SmallVector<Value, 2> bufs;
  for (DescriptorLoadOp l : loads)
    bufs.push_back(allocSlots(b, loc, l.getDesc().getType(), slots));
  Value bars = allocBarriers(b, loc, slots, 1);
  for (int64_t s = 0; s + 1 < slots; ++s) {
    Value iv = arith::AddIOp::create(
        b, loc, lb,
        arith::MulIOp::create(b, loc, step, constant(b, loc, ivType, s)));
    issueStage(b, loc, loop, slice, loads, bufs, bars, iv,
               constant(b, loc, i32, s), stageBytes);
  }

  // The loop carries the slot it reads and that slot's phase parity.
  IRRewriter rewriter(ctx);
  rewriter.setInsertionPoint(loop);
  Value slot, phase;
  auto newLoop = cast<scf::ForOp>(
      *cast<LoopLikeOpInterface>(loop.getOperation())
           .replaceWithAdditionalYields(
               rewriter,
               {constant(b, loc, i32, 0), constant(b, loc, i32, 0)},
               /*replaceInitOperandUsesInLoop=*/false,
               [&](OpBuilder &ob, Location l,
                   ArrayRef<BlockArgument> newArgs) -> SmallVector<Value> {
                 OpBuilder::InsertionGuard guard(ob);
                 ob.setInsertionPointToStart(body);
                 slot = newArgs[0];
                 phase = newArgs[1];
                 MBarrierWaitOp::create(ob, l, bars, slot, phase);
                 ob.setInsertionPoint(body->getTerminator());
                 Value last = arith::CmpIOp::create(
                     ob, l, arith::CmpIPredicate::eq, slot,
                     constant(ob, l, i32, slots - 1));
                 Value next = arith::SelectOp::create(
                     ob, l, last, constant(ob, l, i32, 0),
                     arith::AddIOp::create(ob, l, slot,
                                           constant(ob, l, i32, 1)));
                 Value flip = arith::ExtUIOp::create(ob, l, i32, last);
                 return {next, arith::XOrIOp::create(ob, l, phase, flip)};
               }));

  // The dot reads the slots; then the refill of the slot i - 1 read.
  OpBuilder db(dot);
  Value d = WarpgroupDotOp::create(db, dot.getLoc(), dot.getType(), bufs[0],
                                   slot, bufs[1], slot, dot.getC(), pending);
  dot.replaceAllUsesWith(d);
  gpu::BarrierOp::create(db, loc);
  Value iv = newLoop.getInductionVar();
  Value ahead = arith::AddIOp::create(
      db, loc, iv,
      arith::MulIOp::create(db, loc, step,
                            constant(db, loc, ivType, slots - 1)));
  Value first = arith::CmpIOp::create(db, loc, arith::CmpIPredicate::eq, slot,
                                      constant(db, loc, i32, 0));
  Value w = arith::SelectOp::create(
      db, loc, first, constant(db, loc, i32, slots - 1),
      arith::SubIOp::create(db, loc, slot, constant(db, loc, i32, 1)));
  // The body (with the slice) moved into the new loop: its induction
  // variable is the one the slice reads.
  issueStage(db, loc, newLoop, slice, loads, bufs, bars, ahead, w,
             stageBytes);
  SmallVector<Operation *> converts;
  for (DescriptorLoadOp l : loads)
    converts.push_back(*l->user_begin());
  dot.erase();
  for (Operation *c : converts)
    c->erase();
  for (DescriptorLoadOp l : loads)
    l.erase();
  if (pending) {
    b.setInsertionPointAfter(newLoop);
    for (OpResult r : newLoop.getResults()) {
      if (r.getType() != d.getType())
        continue;
      // The carried accumulator: the result the warpgroup_dot is yielded as.
      auto yield = cast<scf::YieldOp>(newLoop.getBody()->getTerminator());
      if (yield.getOperand(r.getResultNumber()) != d)
        continue;
      Value done = WarpgroupWaitOp::create(b, loc, r.getType(), r, 0);
      r.replaceAllUsesExcept(done, done.getDefiningOp());
    }
  }
  return true;
}

/// A descriptor access the TMA can make, or a located error.
LogicalResult checkAccess(Operation *op, TensorDescType desc,
                          const tilec::Target &target) {
  if (!target.hasTma())
    return op->emitOpError("needs the Tensor Memory Accelerator (sm_90 or "
                           "later); ")
           << target.getChip()
           << " has none: read and write the tensor with tile.load and "
              "tile.store of pointer tiles";
  if (!slotLayout(desc))
    return op->emitOpError("block ")
           << desc.getBlockType()
           << " cannot be moved by the TMA into a swizzled slot: tilec "
              "lowers 2-D f16/bf16 blocks with a multiple of 8 rows of a "
              "multiple of 32 bytes";
  return success();
}

struct TileLowerDescriptors
    : public tilec::impl::TileLowerDescriptorsBase<TileLowerDescriptors> {
  using Base::Base;
  void runOnOperation() override {
    llvm::Expected<tilec::Target> target = tilec::Target::get(chip);
    if (!target) {
      getOperation().emitError(llvm::toString(target.takeError()));
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isKernel(func) && failed(lowerKernel(func, *target)))
        return signalPassFailure();
  }

  LogicalResult lowerKernel(func::FuncOp func, const tilec::Target &target) {
    SmallVector<Operation *> accesses;
    bool ok = true;
    func.walk([&](Operation *op) {
      if (auto l = dyn_cast<DescriptorLoadOp>(op))
        ok &= succeeded(checkAccess(op, l.getDesc().getType(), target));
      else if (auto s = dyn_cast<DescriptorStoreOp>(op))
        ok &= succeeded(checkAccess(op, s.getDesc().getType(), target));
      else
        return;
      accesses.push_back(op);
    });
    if (!ok)
      return failure();
    if (accesses.empty())
      return success();
    int stages = numStages;
    if (auto attr = func->getAttrOfType<IntegerAttr>(
            TileDialect::getNumStagesAttrName()))
      stages = attr.getInt();
    if (target.hasWgmma() && stages >= 2) {
      SmallVector<scf::ForOp> loops;
      func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops)
        pipelineLoop(loop, stages, target);
    }

    // The rest, one slot each and one mbarrier for the kernel.
    SmallVector<Operation *> rest;
    func.walk([&](Operation *op) {
      if (isa<DescriptorLoadOp, DescriptorStoreOp>(op))
        rest.push_back(op);
    });
    if (rest.empty())
      return success();
    // Slots and the mbarrier go first in the kernel, each after the last
    // (the kernel's first op may be a descriptor access that is replaced).
    Block &body = func.getBody().front();
    OpBuilder entry = OpBuilder::atBlockBegin(&body);
    Operation *firstOp = &body.front();
    entry.setInsertionPoint(firstOp);
    // An anchor that stays: the allocations go before it.
    Location loc = func.getLoc();
    Type i32 = entry.getI32Type();
    Operation *anchor = arith::ConstantOp::create(
        entry, loc, entry.getI32IntegerAttr(0));
    entry.setInsertionPoint(anchor);
    Value bar;
    for (Operation *op : rest) {
      OpBuilder b(op);
      Location l = op->getLoc();
      if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
        TensorDescType desc = load.getDesc().getType();
        if (!bar)
          bar = allocBarriers(entry, loc, 1, 32 * getNumWarps(func));
        Value buf = allocSlots(entry, l, desc, 1);
        Value c0 = constant(b, l, i32, 0);
        gpu::BarrierOp::create(b, l);
        MBarrierExpectOp::create(b, l, bar, c0,
                                 b.getI32IntegerAttr(blockBytes(desc)),
                                 UnitAttr());
        TmaLoadOp::create(b, l, load.getDesc(), load.getOffsets(), buf, c0,
                          bar, c0);
        MBarrierWaitOp::create(b, l, bar, c0, Value());
        Value v = LocalLoadOp::create(b, l, load.getType(), buf, c0);
        load.replaceAllUsesWith(v);
        load.erase();
        continue;
      }
      auto store = cast<DescriptorStoreOp>(op);
      Value buf = allocSlots(entry, l, store.getDesc().getType(), 1);
      Value c0 = constant(b, l, i32, 0);
      gpu::BarrierOp::create(b, l);
      LocalStoreOp::create(b, l, store.getValue(), buf, c0);
      TmaStoreOp::create(b, l, store.getDesc(), store.getOffsets(), buf, c0);
      store.erase();
    }
    anchor->erase();
    return success();
  }
};

} // namespace
