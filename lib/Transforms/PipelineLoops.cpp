//===- PipelineLoops.cpp - cp.async software pipelining of dot operands ---===//
//
// Assumes: kernels with layouts (tile-assign-layouts), where an mma dot's
// operand is `tile.convert_layout(tile.load(ptrs, mask, 0))` to a
// #tilegpu.dot_operand layout. Guarantees: in every scf.for where the loads'
// address computation can run ahead (see below), those loads become
// tilegpu.async_copy into a tilegpu.local_alloc'd buffer of S slots and the
// conversions tilegpu.local_load from it:
//
//   buffers; copies for iterations 0 .. S-2 (slots 0 .. S-2), one group each
//   for i (read slot r = i % S, write slot w = (i - 1) % S):
//     tilegpu.async_wait {pending = S - 2}   // iteration i's group is done
//     copies for iteration i + S - 1 into slot w; commit
//     ... the body, its operands from tilegpu.local_load slot r ...
//   tilegpu.async_wait {pending = 0}
//
// The wait is also a barrier: after it, every thread has finished the
// previous iteration, so slot w (read there) may be overwritten. Copies
// for iterations at or past the upper bound are masked off (they only
// zero-fill their slot).
//
// A version 3 (wgmma) dot whose two operands are both staged reads the
// slots itself (tilegpu.warpgroup_dot, no local_load). When its
// accumulator is only carried from one iteration's dot to the next, it
// keeps one wgmma group in flight (pending = 1): S + 1 slots, copies
// still S - 1 iterations ahead (D = S - 1), or, when S + 1 slots do not
// fit in the target's shared memory (tilec::smem), S slots and D = S - 2.
// With N = D + 2 slots:
//
//   copies for iterations 0 .. D-1 (slots 0 .. D-1), one group each
//   for i (read slot r = i % N, write slot w = (i + D) % N = (i - 2) % N):
//     tilegpu.async_wait {fence_async, pending = D - 1}
//                        // iteration i's copies done (this thread's),
//                        // fenced for the async proxy; then a barrier
//     copies for iteration i + D into slot w; commit
//     tilegpu.warpgroup_dot slot r {pending = 1}
//                        // issue i's wgmma group, then wait until only
//                        // it is in flight: i - 1's group is complete
//   tilegpu.warpgroup_wait {pending = 0}; tilegpu.async_wait {pending = 0}
//
// Why slot w is free when iteration i writes it: it was last read by
// iteration i - 2's wgmma. Every warpgroup waited for that group in its
// iteration i - 1 (wait_group 1 after committing i - 1's), before it
// reached iteration i's barrier, after which the copies are issued. The
// slot read by i - 1's group, which may still run, is (i - 1) % N != w;
// in use at once: slot i - 1 (wgmma i - 1), i (wgmma i), i + 1 .. i + D - 1
// (copies in flight) and w: D + 2 = N slots. The accumulator's registers
// are written by the group in flight: only the next wgmma (which chains
// on them) and the warpgroup_wait after the loop read them.
//
// The address computation is the loads' backward slice in the loop body,
// closed over the loop-carried values it reads (pointers advanced each
// iteration): it must be pure and read no other loop-carried value. It is
// cloned, with the induction variable advanced and its own copies of those
// carried values, S - 1 iterations ahead; the original carried values are
// dropped when nothing else uses them.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/SharedMemory.h"
#include "tilec/Target/Target.h"
#include "tilec/Transforms/Passes.h"

#include "tilec/Dialect/TileGPU/IR/TileLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

namespace tilec {
#define GEN_PASS_DEF_TILEPIPELINELOOPS
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

#define DEBUG_TYPE "tile-pipeline-loops"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// A load to pipeline and the conversion to a dot operand that uses it.
struct Candidate {
  LoadOp load;
  ConvertLayoutOp convert;
  /// #tilegpu.shared (read by ldmatrix) or #tilegpu.nvmma_shared (by wgmma).
  Attribute shared;
  Value buffer;
  /// The version 3 (wgmma) dot reading the operand, when the operand can
  /// be staged for it.
  DotOp wgmmaDot;
};

/// The dot of version 3 (wgmma) layout using `convert` as its operand A
/// or B, if that is its only use.
DotOp wgmmaUser(ConvertLayoutOp convert) {
  if (!convert->hasOneUse())
    return {};
  auto dot = dyn_cast<DotOp>(*convert->user_begin());
  if (!dot || dot.getC() == convert.getResult())
    return {};
  auto mma = dyn_cast_if_present<MmaLayoutAttr>(dot.getType().getEncoding());
  if (!mma || mma.getVersionMajor() != 3)
    return {};
  return dot;
}

/// True for an absent `other` or a zero splat (cp.async fills zeros).
bool isZeroOrAbsent(Value other) {
  if (!other)
    return true;
  Attribute attr;
  if (!matchPattern(other, m_Constant(&attr)))
    return false;
  auto splat = dyn_cast<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  Attribute v = splat.getSplatValue<Attribute>();
  if (auto f = dyn_cast<FloatAttr>(v))
    return f.getValue().isZero() && !f.getValue().isNegative();
  if (auto i = dyn_cast<IntegerAttr>(v))
    return i.getValue().isZero();
  return false;
}

/// The swizzled shared layout a load would be staged in: rows along the
/// load's contiguous dim, so each thread copies whole runs.
SharedLayoutAttr stagingLayout(RankedTensorType type) {
  FailureOr<DistributedLayout> layout = DistributedLayout::get(type);
  if (failed(layout) || type.getRank() != 2)
    return {};
  unsigned fast = layout->getOrder()[0];
  return getSwizzledSharedLayout(type.getContext(), type.getShape(),
                                 {fast, 1 - fast},
                                 type.getElementTypeBitWidth());
}

std::optional<Candidate> asCandidate(LoadOp load) {
  if (!load->hasOneUse() || load.getIsVolatile() || !isZeroOrAbsent(load.getOther()))
    return std::nullopt;
  auto convert = dyn_cast<ConvertLayoutOp>(*load->user_begin());
  if (!convert)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(load.getType());
  auto dst = convert.getType();
  auto dot = dyn_cast_if_present<DotOperandLayoutAttr>(dst.getEncoding());
  // 16-bit operands (ldmatrix reads them back) and f32 ones of tf32 dots
  // (kWidth 1: read back element by element).
  bool tf32 = type && type.getElementTypeBitWidth() == 32 && dot &&
              dot.getKWidth() == 1 && type.getElementType().isF32();
  if (!type || !dot || type.getRank() != 2 ||
      !((type.getElementTypeBitWidth() == 16 && dot.getKWidth() == 2) || tf32))
    return std::nullopt;
  SharedLayoutAttr shared = stagingLayout(type);
  FailureOr<DistributedLayout> layout = DistributedLayout::get(type);
  // 16-byte chunks; cp.async moves at least 4 bytes.
  if (!shared || shared.getVec() * type.getElementTypeBitWidth() != 128 ||
      layout->getVec(layout->getOrder()[0]) * type.getElementTypeBitWidth() <
          32)
    return std::nullopt;
  int64_t k = dst.getDimSize(dot.getOpIdx() == 0 ? 1 : 0);
  int64_t outer = dst.getDimSize(dot.getOpIdx() == 0 ? 0 : 1);
  if (k % (tf32 ? 8 : 16) || outer % (dot.getOpIdx() == 0 ? 16 : 8))
    return std::nullopt;
  Candidate c{load, convert, shared, Value(), DotOp()};
  // A wgmma dot reads the slot itself, in the descriptors' layout.
  if (DotOp d = tf32 ? DotOp() : wgmmaUser(convert)) {
    unsigned fast = shared.getOrder()[0];
    if (NvmmaSharedLayoutAttr nvmma = getNvmmaSharedLayout(
            type.getContext(), type.getShape(), {fast, 1 - fast}, 16)) {
      c.shared = nvmma;
      c.wgmmaDot = d;
    }
  }
  return c;
}

/// The body ops the loads' operands depend on, closed over the loop-carried
/// values they read; fails when that includes anything impure or with
/// regions. `carried` receives the iter-arg numbers read.
LogicalResult computeAddressSlice(scf::ForOp loop, ArrayRef<Candidate> cands,
                                  SetVector<Operation *> &slice,
                                  SetVector<unsigned> &carried) {
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  SmallVector<Value> worklist;
  for (const Candidate &c : cands)
    for (Value v : c.load->getOperands())
      worklist.push_back(v);
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != body || arg == loop.getInductionVar())
        continue;
      unsigned i = arg.getArgNumber() - loop.getNumInductionVars();
      if (carried.insert(i))
        worklist.push_back(yield.getOperand(i));
      continue;
    }
    Operation *op = v.getDefiningOp();
    if (op->getBlock() != body) {
      // Defined outside the loop (or nested in one of its ops: not allowed).
      if (loop->isAncestor(op))
        return failure();
      continue;
    }
    if (slice.contains(op))
      continue;
    if (!isMemoryEffectFree(op) || op->getNumRegions() != 0)
      return failure();
    slice.insert(op);
    for (Value o : op->getOperands())
      worklist.push_back(o);
  }
  return success();
}

Value constant(OpBuilder &b, Location loc, Type type, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

/// Clones `slice` (body order) with `map`, which maps the induction
/// variable and the carried values the slice reads.
void cloneSlice(OpBuilder &b, ArrayRef<Operation *> slice, IRMapping &map) {
  for (Operation *op : slice)
    b.clone(*op, map);
}

/// Starts the copies of one stage: each candidate's pointers and mask (as
/// `map` gives them), masked off when `iv` is past the loop's end.
void emitCopies(OpBuilder &b, Location loc, ArrayRef<Candidate> cands,
                IRMapping &map, Value iv, Value ub, Value slot) {
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, ub);
  for (Candidate c : cands) {
    Value ptr = map.lookupOrDefault(c.load.getPtr());
    auto maskType = cast<RankedTensorType>(getI1SameShape(ptr.getType()));
    Value mask = SplatOp::create(b, loc, maskType, inRange);
    if (Value m = c.load.getMask())
      mask = arith::AndIOp::create(b, loc, map.lookupOrDefault(m), mask);
    AsyncCopyOp::create(b, loc, ptr, mask, c.buffer, slot);
  }
  AsyncCommitOp::create(b, loc);
}

/// True when `dot`'s A operand is a register tile that wgmma can take as
/// it is (the accumulator layout's dot_operand: mma.sync's A fragments),
/// not one of the loads staged for it.
bool registerA(DotOp dot, ArrayRef<Candidate> cands) {
  if (llvm::any_of(cands, [&](Candidate c) {
        return c.wgmmaDot == dot && c.convert.getResult() == dot.getA();
      }))
    return false;
  auto op = dyn_cast_if_present<DotOperandLayoutAttr>(
      dot.getA().getType().getEncoding());
  return op && op.getOpIdx() == 0 && op.getKWidth() == 2 &&
         op.getParent() == dot.getType().getEncoding();
}

/// The wgmma dot of `cands` that may keep its group in flight: the only
/// wgmma dot, whose accumulator is a loop-carried value used by the dot
/// alone and whose result only goes back to it through the yield.
DotOp inFlightDot(scf::ForOp loop, ArrayRef<Candidate> cands) {
  DotOp dot;
  for (const Candidate &c : cands) {
    if (!c.wgmmaDot)
      continue;
    if (dot && dot != c.wgmmaDot)
      return {};
    dot = c.wgmmaDot;
  }
  // A register A is redefined by the next iteration while the group could
  // still read it: only dots reading both operands from slots stay in
  // flight.
  if (!dot || registerA(dot, cands))
    return {};
  auto arg = dyn_cast<BlockArgument>(dot.getC());
  if (!arg || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0 ||
      !arg.hasOneUse() || !dot->hasOneUse())
    return {};
  OpOperand &use = *dot->getUses().begin();
  if (use.getOwner() != loop.getBody()->getTerminator() ||
      use.getOperandNumber() != arg.getArgNumber() - 1)
    return {};
  return dot;
}

/// (slot + 1) mod stages.
Value nextSlot(OpBuilder &b, Location loc, Value slot, int stages) {
  Type i32 = b.getI32Type();
  Value inc = arith::AddIOp::create(b, loc, slot, constant(b, loc, i32, 1));
  Value wrap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, inc,
                                     constant(b, loc, i32, stages));
  return arith::SelectOp::create(b, loc, wrap, constant(b, loc, i32, 0), inc);
}

/// Drops a loop-carried value that only feeds itself: its result is unused
/// and the ops computing its next value from it serve nothing else. Its
/// yield becomes the block argument, which canonicalization removes.
void dropSelfFeedingCarry(scf::ForOp loop, unsigned i) {
  if (!loop.getResult(i).use_empty())
    return;
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  BlockArgument arg = loop.getRegionIterArgs()[i];
  SetVector<Operation *> chain;
  SmallVector<Value> worklist{yield.getOperand(i)};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (isa<BlockArgument>(v)) {
      if (v == arg || cast<BlockArgument>(v).getOwner() != body ||
          v == loop.getInductionVar())
        continue;
      return; // reads another carried value
    }
    Operation *op = v.getDefiningOp();
    if (op->getBlock() != body)
      continue;
    if (!isMemoryEffectFree(op) || op->getNumRegions() != 0)
      return;
    if (chain.insert(op))
      for (Value o : op->getOperands())
        worklist.push_back(o);
  }
  auto inChain = [&](OpOperand &use) {
    return chain.contains(use.getOwner()) ||
           (use.getOwner() == yield && use.getOperandNumber() == i);
  };
  for (Operation *op : chain)
    for (Value r : op->getResults())
      if (!llvm::all_of(r.getUses(), inChain))
        return;
  if (!llvm::all_of(arg.getUses(), inChain))
    return;
  yield->setOperand(i, arg);
}

void pipelineLoop(scf::ForOp loop, int stages, const tilec::Target &target) {
  SmallVector<Candidate> cands;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto load = dyn_cast<LoadOp>(op))
      if (std::optional<Candidate> c = asCandidate(load))
        cands.push_back(*c);
  if (cands.empty()) {
    LLVM_DEBUG(llvm::dbgs() << "loop at " << loop.getLoc()
                            << ": no load feeds a dot operand conversion\n");
    return;
  }
  // A wgmma dot needs B staged for it, and A staged too or in registers
  // (registerA); else its operands go through ldmatrix (the dot then runs
  // as mma.sync, the same thread map).
  for (Candidate &c : cands) {
    if (!c.wgmmaDot)
      continue;
    int staged = llvm::count_if(
        cands, [&](const Candidate &o) { return o.wgmmaDot == c.wgmmaDot; });
    bool aInRegisters = staged == 1 &&
                        c.wgmmaDot.getB() == c.convert.getResult() &&
                        registerA(c.wgmmaDot, cands);
    if (staged != 2 && !aInRegisters) {
      c.wgmmaDot = {};
      c.shared = stagingLayout(cast<RankedTensorType>(c.load.getType()));
    }
  }
  bool anyWgmma =
      llvm::any_of(cands, [](const Candidate &c) { return bool(c.wgmmaDot); });
  // Slots and copy distance (the schedule at the top of the file).
  int slots = stages, dist = stages - 1;
  DotOp asyncDot = anyWgmma ? inFlightDot(loop, cands) : DotOp();
  if (asyncDot) {
    // The buffers' sizes as the conversion will place them (tilec::smem),
    // against what one program of the target may have.
    int64_t stageBytes = 0;
    for (Candidate &c : cands)
      stageBytes +=
          tilec::smem::slotBytes(cast<RankedTensorType>(c.load.getType()));
    slots = stages + 1;
    if (!tilec::smem::fits(slots * stageBytes, target)) {
      slots = stages;
      dist = stages - 2;
    }
    if (dist < 1) {
      asyncDot = {};
      slots = stages;
      dist = stages - 1;
    }
  }
  int64_t accIndex =
      asyncDot ? cast<BlockArgument>(asyncDot.getC()).getArgNumber() - 1 : -1;
  SetVector<Operation *> sliceSet;
  SetVector<unsigned> carried;
  if (failed(computeAddressSlice(loop, cands, sliceSet, carried))) {
    LLVM_DEBUG(llvm::dbgs() << "loop at " << loop.getLoc()
                            << ": load addresses depend on more than index "
                               "arithmetic and carried pointers; left alone\n");
    return;
  }
  LLVM_DEBUG(llvm::dbgs() << "loop at " << loop.getLoc() << ": " << cands.size()
                          << " loads pipelined over " << stages << " stages, "
                          << sliceSet.size() << " address ops cloned ahead\n");
  SmallVector<Operation *> slice(sliceSet.begin(), sliceSet.end());
  llvm::sort(slice, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });

  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  Type ivType = lb.getType();
  Type i32 = b.getI32Type();
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());

  for (Candidate &c : cands) {
    auto type = cast<RankedTensorType>(c.load.getType());
    SmallVector<int64_t> shape{slots};
    llvm::append_range(shape, type.getShape());
    auto bufType =
        SharedMemType::get(ctx, shape, type.getElementType(), c.shared);
    c.buffer = LocalAllocOp::create(b, loc, bufType);
  }

  // Prologue: stages 0 .. D-1, each from the carried values the previous
  // one advanced.
  IRMapping state;
  for (unsigned i : carried)
    state.map(loop.getRegionIterArgs()[i], loop.getInitArgs()[i]);
  for (int s = 0; s < dist; ++s) {
    IRMapping map = state;
    Value iv = arith::AddIOp::create(
        b, loc, lb,
        arith::MulIOp::create(b, loc, step, constant(b, loc, ivType, s)));
    map.map(loop.getInductionVar(), iv);
    cloneSlice(b, slice, map);
    emitCopies(b, loc, cands, map, iv, ub, constant(b, loc, i32, s));
    for (unsigned i : carried)
      state.map(loop.getRegionIterArgs()[i],
                map.lookupOrDefault(yield.getOperand(i)));
  }

  // The loop carries the ahead copies of the carried values and the slots.
  SmallVector<Value> inits;
  for (unsigned i : carried)
    inits.push_back(state.lookup(loop.getRegionIterArgs()[i]));
  inits.push_back(constant(b, loc, i32, 0));
  inits.push_back(constant(b, loc, i32, dist));
  IRRewriter rewriter(ctx);
  rewriter.setInsertionPoint(loop);
  unsigned numOld = loop.getNumRegionIterArgs();
  Value readSlot, writeSlot;
  auto newLoop = cast<scf::ForOp>(
      *cast<LoopLikeOpInterface>(loop.getOperation())
           .replaceWithAdditionalYields(
               rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
               [&](OpBuilder &ob, Location l,
                   ArrayRef<BlockArgument> newArgs) -> SmallVector<Value> {
                 // Called before the old body moves into the new loop:
                 // build in the old body, with the new loop's added block
                 // arguments.
                 Block *body = loop.getBody();
                 OpBuilder::InsertionGuard guard(ob);
                 ob.setInsertionPointToStart(body);
                 readSlot = newArgs[carried.size()];
                 writeSlot = newArgs[carried.size() + 1];
                 auto wait = AsyncWaitOp::create(ob, l, dist - 1);
                 // wgmma reads the slots through the async proxy.
                 if (anyWgmma)
                   wait.setFenceAsync(true);
                 IRMapping map;
                 for (auto [n, i] : llvm::enumerate(carried))
                   map.map(body->getArgument(1 + i), newArgs[n]);
                 Value iv = body->getArgument(0);
                 Value ahead = arith::AddIOp::create(
                     ob, l, iv,
                     arith::MulIOp::create(
                         ob, l, step,
                         constant(ob, l, ivType, dist)));
                 map.map(iv, ahead);
                 cloneSlice(ob, slice, map);
                 emitCopies(ob, l, cands, map, ahead, ub, writeSlot);
                 SmallVector<Value> yields;
                 auto oldYield = cast<scf::YieldOp>(body->getTerminator());
                 for (unsigned i : carried)
                   yields.push_back(
                       map.lookupOrDefault(oldYield.getOperand(i)));
                 yields.push_back(nextSlot(ob, l, readSlot, slots));
                 yields.push_back(nextSlot(ob, l, writeSlot, slots));
                 return yields;
               }));

  // wgmma dots read their slots directly (A from registers when it is
  // not staged). Each dot once: its candidates still name it after it is
  // replaced, so they are not asked again.
  SetVector<Operation *> wgmmaDots;
  for (Candidate &c : cands)
    if (c.wgmmaDot)
      wgmmaDots.insert(c.wgmmaDot);
  for (Operation *op : wgmmaDots) {
    auto dot = cast<DotOp>(op);
    auto staged = [&](Value operand) -> Candidate * {
      auto it = llvm::find_if(cands, [&](Candidate &o) {
        return o.wgmmaDot == dot && o.convert.getResult() == operand;
      });
      return it == cands.end() ? nullptr : &*it;
    };
    Candidate *a = staged(dot.getA()), *bc = staged(dot.getB());
    OpBuilder db(dot);
    Value d = a ? WarpgroupDotOp::create(db, dot.getLoc(), dot.getType(),
                                         a->buffer, readSlot, bc->buffer,
                                         readSlot, dot.getC(),
                                         dot == asyncDot ? 1 : 0)
                : WarpgroupDotOp::create(db, dot.getLoc(), dot.getType(),
                                         dot.getA(), Value(), bc->buffer,
                                         readSlot, dot.getC(), 0);
    dot.replaceAllUsesWith(d);
    dot.erase();
  }
  for (Candidate &c : cands) {
    if (c.wgmmaDot) {
      c.convert.erase();
      c.load.erase();
      continue;
    }
  }
  // Operands from the slots instead of the loads.
  for (Candidate &c : cands) {
    if (c.wgmmaDot)
      continue;
    OpBuilder lb2(c.convert);
    Value v = LocalLoadOp::create(lb2, c.convert.getLoc(),
                                  c.convert.getType(), c.buffer, readSlot);
    c.convert.replaceAllUsesWith(v);
    c.convert.erase();
    c.load.erase();
  }
  b.setInsertionPointAfter(newLoop);
  // The last wgmma group may still be writing the accumulator.
  if (asyncDot) {
    Value acc = newLoop.getResult(accIndex);
    Value done = WarpgroupWaitOp::create(b, loc, acc.getType(), acc, ValueRange(), 0);
    acc.replaceAllUsesExcept(done, done.getDefiningOp());
  }
  AsyncWaitOp::create(b, loc, 0);
  for (unsigned i : carried)
    if (i < numOld)
      dropSelfFeedingCarry(newLoop, i);
}

struct TilePipelineLoops
    : public tilec::impl::TilePipelineLoopsBase<TilePipelineLoops> {
  using Base::Base;
  void runOnOperation() override {
    llvm::Expected<tilec::Target> target = tilec::Target::get(chip);
    if (!target) {
      getOperation().emitError(llvm::toString(target.takeError()));
      return signalPassFailure();
    }
    if (!target->hasCpAsync())
      return;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!isKernel(func))
        continue;
      int stages = numStages;
      if (auto attr = func->getAttrOfType<IntegerAttr>(
              TileDialect::getNumStagesAttrName()))
        stages = attr.getInt();
      if (stages < 2)
        continue;
      SmallVector<scf::ForOp> loops;
      func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops)
        pipelineLoop(loop, stages, *target);
    }
  }
};

} // namespace
