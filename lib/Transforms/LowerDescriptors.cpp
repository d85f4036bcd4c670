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
// R = num_stages + 1 when that fits the target's shared memory, else
// num_stages. Two schedules feed it.
//
// Warp-specialized (the default for the kernel's first such loop when it
// lies at the top level of the kernel or in a nest of scf.for loops there,
// what the producer needs from outside it is pure scalar code, the program
// has 8 or more warps (with 4, setmaxnreg could not raise the consumers'
// registers), and tile.warp_specialize is not false): a tilegpu.warp_specialize adds a
// producer warpgroup to the program's num_warps consumer warps; in a nest
// the producer clones the outer loops' scalar code and the ring's slot and
// parity run on from one outer iteration to the next. Two mbarriers per slot: `full` (count 1: the
// producer's arrive.expect_tx, then the TMA's bytes) and `empty` (count
// num_warps: lane 0 of each consumer warp).
//
//   producer (one thread; setmaxnreg.dec):
//     for i (slot r, phase p carried):
//       try_wait.parity(empty[r], p ^ 1)     // a fresh slot passes at once
//       arrive.expect_tx(full[r], bytes of A + B); TMA A, B -> slot r
//   consumers (setmaxnreg.inc; the tile program's ops outside the loop,
//   except the producer's scalar inputs, move here too):
//     for i (slot r, phase p carried):
//       try_wait.parity(full[r], p)
//       warpgroup_dot slot r {pending = 1}   // i - 1's group retired
//       if i > 0: each warp arrives on empty[(r - 1) % R]
//     warpgroup_wait {pending = 0}
//
// All R slots are in flight: the producer refills a slot as soon as every
// consumer warp has retired the wgmma that read it, with no barrier of the
// whole program. With pending = 0 (an accumulator that is not only carried
// from dot to dot) each warp releases slot r right after its dot. Barriers
// among the consumers (layout conversions in the epilogue) become the
// named barrier 1 over their threads when lowered.
//
// Otherwise the program's own threads feed the ring, one mbarrier per
// slot (arrival count 1):
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
// the carried p, flipped when r wraps. With pending = 0 the same schedule
// holds.
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

#include <functional>

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

/// Thread 0 expects the stage's bytes on bars[slot] and starts A's and B's
/// copies of iteration `iv` into `slot` (`outer` maps values of enclosing
/// loops that were cloned).
void emitStage(OpBuilder &b, Location loc, scf::ForOp loop,
               ArrayRef<Operation *> slice, ArrayRef<DescriptorLoadOp> loads,
               ArrayRef<Value> bufs, Value bars, Value iv, Value slot,
               int64_t bytes, const IRMapping &outer = {}) {
  IRMapping map = outer;
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

/// emitStage if iteration `iv` exists.
void issueStage(OpBuilder &b, Location loc, scf::ForOp loop,
                ArrayRef<Operation *> slice, ArrayRef<DescriptorLoadOp> loads,
                ArrayRef<Value> bufs, Value bars, Value iv, Value slot,
                int64_t bytes) {
  Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv,
                                       loop.getUpperBound());
  auto ifOp = scf::IfOp::create(b, loc, exists, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  emitStage(b, loc, loop, slice, loads, bufs, bars, iv, slot, bytes);
}

/// (slot + 1) % slots and the phase, flipped when the slot wraps.
std::pair<Value, Value> nextSlot(OpBuilder &b, Location loc, Value slot,
                                 Value phase, int64_t slots) {
  Type i32 = b.getI32Type();
  Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slot,
                                     constant(b, loc, i32, slots - 1));
  Value next = arith::SelectOp::create(
      b, loc, last, constant(b, loc, i32, 0),
      arith::AddIOp::create(b, loc, slot, constant(b, loc, i32, 1)));
  Value flip = arith::ExtUIOp::create(b, loc, i32, last);
  return {next, arith::XOrIOp::create(b, loc, phase, flip)};
}

/// (slot - 1) % slots: the slot the previous iteration read.
Value previousSlot(OpBuilder &b, Location loc, Value slot, int64_t slots) {
  Type i32 = b.getI32Type();
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slot,
                                      constant(b, loc, i32, 0));
  return arith::SelectOp::create(
      b, loc, first, constant(b, loc, i32, slots - 1),
      arith::SubIOp::create(b, loc, slot, constant(b, loc, i32, 1)));
}

/// A wgmma dot of a loop whose operands are both descriptor loads, with
/// what staging it needs.
struct StagedDot {
  DotOp dot;
  SmallVector<DescriptorLoadOp, 2> loads;
  SmallVector<Operation *> slice; ///< the offsets' ops, in body order
  int64_t stageBytes = 0;
  int64_t slots = 0;
  int pending = 0;
};

std::optional<StagedDot> findStagedDot(scf::ForOp loop, int stages,
                                       const tilec::Target &target) {
  Block *body = loop.getBody();
  StagedDot sd;
  for (DotOp d : body->getOps<DotOp>()) {
    auto mma = dyn_cast_if_present<MmaLayoutAttr>(d.getType().getEncoding());
    if (!mma || mma.getVersionMajor() != 3)
      continue;
    DescriptorLoadOp a = operandLoad(d.getA(), body),
                     b = operandLoad(d.getB(), body);
    if (!a || !b || failed(offsetSlice(loop, {a, b}, sd.slice)))
      continue;
    sd.dot = d;
    sd.loads = {a, b};
    break;
  }
  if (!sd.dot)
    return std::nullopt;
  for (DescriptorLoadOp l : sd.loads)
    sd.stageBytes += blockBytes(l.getDesc().getType());
  // In a loop nest, the slots stay live through the outer loops' other
  // ops, so the scratch of their layout conversions (the epilogue's) comes
  // on top of the ring.
  int64_t scratch = 0;
  Operation *outermost = loop;
  for (Operation *p = loop->getParentOp(); isa<scf::ForOp>(p);
       p = p->getParentOp())
    outermost = p;
  if (outermost != loop.getOperation())
    outermost->walk([&](Operation *op) {
      scratch = std::max(scratch, tilec::smem::scratchBytes(op));
    });
  if (scratch)
    scratch = llvm::alignTo(scratch, 1024);
  sd.slots = stages + 1;
  if (!tilec::smem::fits(sd.slots * sd.stageBytes + scratch, target))
    sd.slots = stages;
  sd.pending = accumulatorOnlyCarried(loop, sd.dot) ? 1 : 0;
  return sd;
}

/// Rewrites `loop` to read its dot's operands from the ring: the loop
/// carries the slot it reads and that slot's phase parity, waits for the
/// slot on `full`, runs the warpgroup_dot, then `afterDot` (at the point
/// after the dot, given the new loop and the slot). The descriptor loads
/// are erased; with pending = 1, a warpgroup_wait after the loop retires
/// the last group (`*lastWait`). The loop starts at slot `init[0]` with
/// parity `init[1]` (both 0 when not given). Returns the new loop.
scf::ForOp
readRing(scf::ForOp loop, StagedDot &sd, ArrayRef<Value> bufs, Value full,
         function_ref<void(OpBuilder &, scf::ForOp, Value)> afterDot,
         ArrayRef<Value> init = {}, Operation **lastWait = nullptr) {
  Location loc = loop.getLoc();
  Block *body = loop.getBody();
  Type i32 = IntegerType::get(loop.getContext(), 32);
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  SmallVector<Value, 2> start(init);
  if (start.empty()) {
    Value zero = constant(rewriter, loc, i32, 0);
    start = {zero, zero};
  }
  Value slot;
  auto newLoop = cast<scf::ForOp>(
      *cast<LoopLikeOpInterface>(loop.getOperation())
           .replaceWithAdditionalYields(
               rewriter, start,
               /*replaceInitOperandUsesInLoop=*/false,
               [&](OpBuilder &ob, Location l,
                   ArrayRef<BlockArgument> newArgs) -> SmallVector<Value> {
                 OpBuilder::InsertionGuard guard(ob);
                 ob.setInsertionPointToStart(body);
                 slot = newArgs[0];
                 MBarrierWaitOp::create(ob, l, full, slot, newArgs[1]);
                 ob.setInsertionPoint(body->getTerminator());
                 auto [next, phase] =
                     nextSlot(ob, l, slot, newArgs[1], sd.slots);
                 return {next, phase};
               }));

  OpBuilder db(sd.dot);
  Value d = WarpgroupDotOp::create(db, sd.dot.getLoc(), sd.dot.getType(),
                                   bufs[0], slot, bufs[1], slot,
                                   sd.dot.getC(), sd.pending);
  sd.dot.replaceAllUsesWith(d);
  afterDot(db, newLoop, slot);
  SmallVector<Operation *> converts;
  for (DescriptorLoadOp l : sd.loads)
    converts.push_back(*l->user_begin());
  sd.dot.erase();
  for (Operation *c : converts)
    c->erase();
  for (DescriptorLoadOp l : sd.loads)
    l.erase();
  if (sd.pending) {
    OpBuilder b(newLoop->getContext());
    b.setInsertionPointAfter(newLoop);
    auto yield = cast<scf::YieldOp>(newLoop.getBody()->getTerminator());
    for (OpResult r : newLoop.getResults()) {
      // The carried accumulator: the result the warpgroup_dot is yielded as.
      if (yield.getOperand(r.getResultNumber()) != d)
        continue;
      Value done = WarpgroupWaitOp::create(b, loc, r.getType(), r, ValueRange(), 0);
      r.replaceAllUsesExcept(done, done.getDefiningOp());
      if (lastWait)
        *lastWait = done.getDefiningOp();
    }
  }
  return newLoop;
}

/// Stages the two descriptor loads of a wgmma dot in `loop` with the
/// program's own threads (the first schedule at the top of the file).
void pipelineLoop(scf::ForOp loop, StagedDot &sd) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Type ivType = loop.getLowerBound().getType();
  Type i32 = b.getI32Type();
  Value step = loop.getStep(), lb = loop.getLowerBound();
  SmallVector<Value, 2> bufs;
  for (DescriptorLoadOp l : sd.loads)
    bufs.push_back(allocSlots(b, loc, l.getDesc().getType(), sd.slots));
  Value bars = allocBarriers(b, loc, sd.slots, 1);
  for (int64_t s = 0; s + 1 < sd.slots; ++s) {
    Value iv = arith::AddIOp::create(
        b, loc, lb,
        arith::MulIOp::create(b, loc, step, constant(b, loc, ivType, s)));
    issueStage(b, loc, loop, sd.slice, sd.loads, bufs, bars, iv,
               constant(b, loc, i32, s), sd.stageBytes);
  }
  // After the dot: a barrier, then the refill of the slot i - 1 read.
  readRing(loop, sd, bufs, bars,
           [&](OpBuilder &db, scf::ForOp newLoop, Value slot) {
             gpu::BarrierOp::create(db, loc);
             Value ahead = arith::AddIOp::create(
                 db, loc, newLoop.getInductionVar(),
                 arith::MulIOp::create(
                     db, loc, step,
                     constant(db, loc, ivType, sd.slots - 1)));
             // The body (with the slice) moved into the new loop: its
             // induction variable is the one the slice reads.
             issueStage(db, loc, newLoop, sd.slice, sd.loads, bufs, bars,
                        ahead, previousSlot(db, loc, slot, sd.slots),
                        sd.stageBytes);
           });
}

/// The setmaxnreg budgets of a warp-specialized program with `warps`
/// consumer warps: the producer warpgroup keeps 40 registers, the
/// consumers share the rest of what ptxas gives the program at entry
/// (65536 / threads, a multiple of 8, at most 255); none when that would
/// not raise the consumers' count.
std::optional<std::pair<int, int>> registerBudgets(int warps) {
  const int producer = 40;
  int threads = 32 * (warps + WarpSpecializeOp::kProducerWarps);
  int atEntry = std::min(255, 65536 / threads) & ~7;
  int consumer = ((atEntry * threads - 32 * WarpSpecializeOp::kProducerWarps *
                                           producer) /
                  (32 * warps)) &
                 ~7;
  consumer = std::min(consumer, 240);
  // setmaxnreg.inc may not lower the count: with few consumer warps (4:
  // ptxas may already give them 255 at entry) there is nothing to gain.
  if (consumer <= atEntry)
    return std::nullopt;
  return std::pair{producer, consumer};
}

/// The ops outside `loop` that the producer needs (the bounds of the loop
/// nest `chain`, outermost first and ending with `loop`, and what the
/// offsets read from outside `loop`), all in the kernel's top block or the
/// bodies of the outer loops; failure when one of them is not pure scalar
/// code that every thread may run, or reads a value an outer loop carries.
FailureOr<llvm::SmallPtrSet<Operation *, 16>>
producerInputs(ArrayRef<scf::ForOp> chain, const StagedDot &sd) {
  scf::ForOp loop = chain.back();
  SmallVector<Value> worklist;
  for (scf::ForOp l : chain)
    llvm::append_range(worklist, ValueRange{l.getLowerBound(),
                                            l.getUpperBound(), l.getStep()});
  auto fromOutside = [&](ValueRange values) {
    for (Value v : values)
      if (!loop->isAncestor(v.getParentBlock()->getParentOp()))
        worklist.push_back(v);
  };
  for (Operation *op : sd.slice)
    fromOutside(op->getOperands());
  for (DescriptorLoadOp l : sd.loads)
    fromOutside(l.getOffsets());
  llvm::SmallPtrSet<Block *, 4> blocks{chain.front()->getBlock()};
  for (scf::ForOp l : chain.drop_back())
    blocks.insert(l.getBody());
  llvm::SmallPtrSet<Operation *, 16> needed;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      // An outer loop's induction variable is the producer's own; what it
      // carries is not.
      auto owner = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (blocks.contains(arg.getOwner()) && owner &&
          arg != owner.getInductionVar())
        return failure();
      continue;
    }
    Operation *op = v.getDefiningOp();
    if (needed.contains(op))
      continue;
    if (!blocks.contains(op->getBlock()) || !isMemoryEffectFree(op) ||
        op->getNumRegions() ||
        llvm::any_of(op->getResultTypes(),
                     [](Type t) { return isa<ShapedType>(t); }))
      return failure();
    needed.insert(op);
    llvm::append_range(worklist, op->getOperands());
  }
  return needed;
}

/// Warp-specializes a kernel whose body's top level holds `loop`, or a
/// nest of scf.for loops around it (persistent programs: the ring runs on
/// from one outer iteration to the next); the second schedule at the top
/// of the file. False when it does not apply.
bool warpSpecialize(func::FuncOp func, scf::ForOp loop, StagedDot &sd) {
  int warps = getNumWarps(func);
  std::optional<std::pair<int, int>> budgets = registerBudgets(warps);
  if (warps % 4 || !budgets)
    return false;
  SmallVector<scf::ForOp> chain{loop};
  for (Operation *p = loop->getParentOp(); p != func; p = p->getParentOp()) {
    auto outer = dyn_cast<scf::ForOp>(p);
    if (!outer)
      return false;
    chain.insert(chain.begin(), outer);
  }
  FailureOr<llvm::SmallPtrSet<Operation *, 16>> needed =
      producerInputs(chain, sd);
  if (failed(needed))
    return false;

  Location loc = loop.getLoc();
  MLIRContext *ctx = loop.getContext();
  Block *top = chain.front()->getBlock();
  OpBuilder b(chain.front());
  Type i32 = b.getI32Type();
  SmallVector<Value, 2> bufs;
  for (DescriptorLoadOp l : sd.loads)
    bufs.push_back(allocSlots(b, loc, l.getDesc().getType(), sd.slots));
  Operation *firstRingOp = bufs[0].getDefiningOp();
  Value full = allocBarriers(b, loc, sd.slots, 1);
  Value empty = allocBarriers(b, loc, sd.slots, warps);
  auto [producerRegs, consumerRegs] = *budgets;
  auto ws = WarpSpecializeOp::create(b, loc, producerRegs, consumerRegs);
  Block *producer = b.createBlock(&ws.getProducer());
  Block *consumer = b.createBlock(&ws.getConsumer());

  // The consumers take the tile program's top-level ops that the producer
  // does not need, the loop nest, and everything after it; the ring's
  // allocations and initialization (between `firstRingOp` and ws) stay.
  SmallVector<Operation *> moved;
  bool ring = false;
  for (Operation &op : *top) {
    if (&op == firstRingOp)
      ring = true;
    if (&op == ws.getOperation())
      ring = false;
    else if (!ring && !needed->contains(&op) &&
             !op.hasTrait<OpTrait::IsTerminator>())
      moved.push_back(&op);
  }
  for (Operation *op : moved)
    op->moveBefore(consumer, consumer->end());

  // The producer: one thread, one stage per iteration of the loop nest,
  // each into a slot the consumers have released (a fresh slot's wait for
  // parity 1 passes); the outer loops' scalar code it needs is cloned.
  b.setInsertionPointToStart(producer);
  Value zero = constant(b, loc, i32, 0);
  IRMapping map;
  std::function<ValueRange(size_t, Value, Value)> feed =
      [&](size_t level, Value slot0, Value phase0) -> ValueRange {
    scf::ForOp l = chain[level];
    auto f = scf::ForOp::create(b, loc, map.lookupOrDefault(l.getLowerBound()),
                                map.lookupOrDefault(l.getUpperBound()),
                                map.lookupOrDefault(l.getStep()),
                                ValueRange{slot0, phase0});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(f.getBody());
    Value slot = f.getRegionIterArg(0), phase = f.getRegionIterArg(1);
    if (l != loop) {
      map.map(l.getInductionVar(), f.getInductionVar());
      for (Operation &op : l.getBody()->without_terminator())
        if (needed->contains(&op))
          b.clone(op, map);
      scf::YieldOp::create(b, loc, feed(level + 1, slot, phase));
      return f.getResults();
    }
    Value released =
        arith::XOrIOp::create(b, loc, phase, constant(b, loc, i32, 1));
    MBarrierWaitOp::create(b, loc, empty, slot, released);
    emitStage(b, loc, loop, sd.slice, sd.loads, bufs, full,
              f.getInductionVar(), slot, sd.stageBytes, map);
    auto [next, nextPhase] = nextSlot(b, loc, slot, phase, sd.slots);
    scf::YieldOp::create(b, loc, ValueRange{next, nextPhase});
    return f.getResults();
  };
  feed(0, zero, zero);

  // The consumers' outer loops carry the slot and parity from one
  // iteration to the next (yielded as carried until the inner loop is
  // rewritten, then its results).
  SmallVector<scf::ForOp> outers;
  SmallVector<Value, 2> carried;
  {
    IRRewriter rewriter(ctx);
    rewriter.setInsertionPointToStart(consumer);
    Value z = constant(rewriter, loc, i32, 0);
    carried = {z, z};
    for (scf::ForOp l : ArrayRef(chain).drop_back()) {
      rewriter.setInsertionPoint(l);
      auto n = cast<scf::ForOp>(
          *cast<LoopLikeOpInterface>(l.getOperation())
               .replaceWithAdditionalYields(
                   rewriter, carried, /*replaceInitOperandUsesInLoop=*/false,
                   [&](OpBuilder &, Location, ArrayRef<BlockArgument> args)
                       -> SmallVector<Value> {
                     return {args[0], args[1]};
                   }));
      outers.push_back(n);
      carried = {n.getRegionIterArgs().take_back(2)[0],
                 n.getRegionIterArgs().take_back(2)[1]};
    }
  }

  // The consumers release each slot once the wgmma that read it retired:
  // with one group left in flight, the previous iteration's slot, and the
  // last one after the loop.
  Operation *lastWait = nullptr;
  scf::ForOp inner = readRing(
      loop, sd, bufs, full,
      [&](OpBuilder &db, scf::ForOp newLoop, Value slot) {
        if (!sd.pending) {
          MBarrierArriveOp::create(db, loc, empty, slot);
          return;
        }
        Value notFirst = arith::CmpIOp::create(
            db, loc, arith::CmpIPredicate::ne, newLoop.getInductionVar(),
            newLoop.getLowerBound());
        auto ifOp = scf::IfOp::create(db, loc, notFirst, false);
        OpBuilder::InsertionGuard guard(db);
        db.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        MBarrierArriveOp::create(db, loc, empty,
                                 previousSlot(db, loc, slot, sd.slots));
      },
      carried, &lastWait);
  if (lastWait && !outers.empty()) {
    // The next outer iteration's producer waits for the last slot too.
    OpBuilder ab(lastWait->getContext());
    ab.setInsertionPointAfter(lastWait);
    Value ran = arith::CmpIOp::create(ab, loc, arith::CmpIPredicate::slt,
                                      inner.getLowerBound(),
                                      inner.getUpperBound());
    auto ifOp = scf::IfOp::create(ab, loc, ran, false);
    ab.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    MBarrierArriveOp::create(
        ab, loc, empty,
        previousSlot(ab, loc, inner.getResults().take_back(2)[0], sd.slots));
  }
  // Each outer loop yields what the loop inside it left.
  ValueRange result = inner.getResults().take_back(2);
  for (scf::ForOp n : llvm::reverse(outers)) {
    auto yield = cast<scf::YieldOp>(n.getBody()->getTerminator());
    unsigned e = yield.getNumOperands();
    yield->setOperand(e - 2, result[0]);
    yield->setOperand(e - 1, result[1]);
    result = n.getResults().take_back(2);
  }
  func->setAttr(WarpSpecializeOp::getProducerWarpsAttrName(),
                IntegerAttr::get(IntegerType::get(ctx, 32),
                                 WarpSpecializeOp::kProducerWarps));
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
      bool specialize = warpSpecializeByDefault;
      if (auto attr = func->getAttrOfType<BoolAttr>(
              TileDialect::getWarpSpecializeAttrName()))
        specialize = attr.getValue();
      // One loop at a time, innermost first: a rewrite replaces the loop
      // (and, warp-specialized, the loops around it).
      while (true) {
        scf::ForOp found;
        std::optional<StagedDot> sd;
        func.walk([&](scf::ForOp loop) {
          sd = findStagedDot(loop, stages, target);
          if (!sd)
            return WalkResult::advance();
          found = loop;
          return WalkResult::interrupt();
        });
        if (!found)
          break;
        // One producer per program: the first loop that can have it.
        if (specialize && warpSpecialize(func, found, *sd)) {
          specialize = false;
          continue;
        }
        pipelineLoop(found, *sd);
      }
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
