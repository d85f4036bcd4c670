//===- AsyncDots.cpp - wgmma dots that wait where their result is read ----===//
//
// Assumes: tilegpu.warpgroup_dot ops as tile-pipeline-loops and
// tile-lower-descriptors make them. Guarantees: a dot that waits for its
// own group (pending = 0) while the ops after it do not read its result
// becomes `async` (issue and commit only), and a tilegpu.warpgroup_wait
// right before the first op of its block that reads the result makes the
// result complete there:
//
//   %s = warpgroup_dot %q, %k[%r], %zero            // S = Q K^T
//   %o = warpgroup_dot %p, %v[%r], %acc             // O += P V
//   ... softmax of %s ...
//   %o2 = mulf %o, %alpha
//
// becomes
//
//   %s0 = warpgroup_dot %q, %k[%r], %zero {async}
//   %o0 = warpgroup_dot %p, %v[%r], %acc {async}
//   %s = warpgroup_wait %s0 keep(%q) {pending = 1}  // S done, O may run
//   ... softmax of %s ...                            // beside P V's wgmma
//   %o = warpgroup_wait %o0 keep(%p) {pending = 0}
//   %o2 = mulf %o, %alpha
//
// The wait's `pending` is the number of warpgroup_dots between the dot and
// the wait (each commits one group; wait_group is in commit order), 0 when
// one of them stayed synchronous (it waited for every group), and a
// register A operand is kept alive through the wait (wgmma reads it while
// the group runs). The wait goes no further than the first op that may
// write memory, has a region with effects, or is the block's terminator:
// the slots the dot reads are overwritten only after that (the next
// iteration's copies, after its barrier), and the result never leaves the
// block unfinished; global atomics are no such write. Nor does it pass an
// op that reads the registers of a register A operand (its conversions
// included), which the group is still reading. Dots that keep a group in
// flight across iterations (pending = 1, the GEMM loops) are left as they
// are. In a warp-specialized consumer, a slot's release to the TMA
// producer (tilegpu.mbarrier_arrive) that the wait crosses moves after it,
// and the waits for the next dots' slots to land (tilegpu.mbarrier_wait
// with a phase) run beside the group.
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Passes.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tilec {
#define GEN_PASS_DEF_TILEASYNCDOTS
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// True when `op` reads `v` (as an operand of it or of an op inside it).
bool reads(Operation *op, Value v) {
  bool found = false;
  op->walk([&](Operation *inner) {
    if (llvm::is_contained(inner->getOperands(), v)) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// The values whose registers a register A operand `a` shares: itself and
/// the tiles it converts from (a convert_layout to mma.sync's A fragments
/// from an accumulator layout moves no data), and their other
/// conversions. wgmma reads them while its group runs; the PTX ISA makes
/// any other access before the wait undefined (dS^T stored to shared
/// memory while dK = dS^T Q runs, in the attention backward).
SmallVector<Value> registerAliases(Value a) {
  SmallVector<Value> roots{a};
  for (Value v = a; auto convert = v.getDefiningOp<ConvertLayoutOp>();) {
    v = convert.getSrc();
    roots.push_back(v);
  }
  SmallVector<Value> aliases(roots);
  for (Value r : roots)
    for (Operation *user : r.getUsers())
      if (auto c = dyn_cast<ConvertLayoutOp>(user);
          c && !llvm::is_contained(aliases, c.getResult()))
        aliases.push_back(c.getResult());
  return aliases;
}

/// Ops an issued wgmma group may run beside: they do not write memory
/// (wgmma reads its slots from shared memory) and are not the end of the
/// block. Other dots and waits only read shared memory, and atomics
/// write only global memory.
bool mayRunBeside(Operation *op) {
  if (op->hasTrait<OpTrait::IsTerminator>())
    return false;
  if (isa<AtomicRMWOp, AtomicCASOp>(op))
    return true;
  // Waiting for a TMA stage to land writes nothing a group reads; a
  // release (mbarrier_arrive) moves after the wait (makeAsync).
  // Nor do the consumer warpgroups' turns (named barriers).
  if (isa<WarpgroupDotOp, WarpgroupWaitOp, LocalLoadOp, MBarrierArriveOp,
          WarpgroupTurnOp>(op))
    return true;
  if (auto wait = dyn_cast<MBarrierWaitOp>(op))
    return wait.getPhase() != nullptr;
  return isMemoryEffectFree(op);
}

/// Work worth running beside a group: ops on tiles other than splats and
/// constants (scalar arithmetic and splats cost next to nothing).
bool isTileWork(Operation *op) {
  if (isa<SplatOp, arith::ConstantOp>(op))
    return false;
  auto isTile = [](Type t) { return isa<RankedTensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTile) ||
         llvm::any_of(op->getResultTypes(), isTile);
}

WarpgroupWaitOp makeAsync(WarpgroupDotOp dot) {
  Value result = dot.getResult();
  int pending = 0;
  Operation *use = nullptr;
  bool crossedWork = false;
  SmallVector<Operation *> releases;
  SmallVector<Value> aliases;
  if (isa<RankedTensorType>(dot.getA().getType()))
    aliases = registerAliases(dot.getA());
  auto readsA = [&](Operation *op) {
    return llvm::any_of(aliases, [&](Value v) { return reads(op, v); });
  };
  for (Operation *op = dot->getNextNode(); op; op = op->getNextNode()) {
    if (reads(op, result) || readsA(op) || !mayRunBeside(op)) {
      use = op;
      break;
    }
    if (isa<MBarrierArriveOp>(op))
      releases.push_back(op);
    else if (isa<WarpgroupDotOp>(op))
      ++pending;
    else if (!isa<WarpgroupWaitOp>(op) && isTileWork(op))
      crossedWork = true;
  }
  // Nothing to overlap with the group: the dot's own wait is as good.
  if (!use || (!crossedWork && !pending))
    return {};
  OpBuilder b(use);
  SmallVector<Value> keep;
  if (isa<RankedTensorType>(dot.getA().getType()))
    keep.push_back(dot.getA());
  auto wait = WarpgroupWaitOp::create(b, dot.getLoc(), result.getType(),
                                      result, keep, pending);
  result.replaceAllUsesExcept(wait.getResult(), wait);
  dot.setAsync(true);
  // A warp-specialized consumer releases the slots it read (to the TMA
  // producer) only once its groups no longer read them.
  Operation *after = wait;
  for (Operation *r : releases) {
    r->moveAfter(after);
    after = r;
  }
  return wait;
}

/// A dot between `dot` and its `wait` that stayed synchronous waited for
/// every group, `dot`'s included: the wait then asks for none in flight
/// (wait_group 0, a no-op there), which ptxas's own analysis sees as
/// complete instead of injecting a warpgroup.wait before the reads (C7517).
void settleAfterSynchronousDots(WarpgroupDotOp dot, WarpgroupWaitOp wait) {
  for (Operation *op = dot->getNextNode(); op != wait; op = op->getNextNode())
    if (auto d = dyn_cast<WarpgroupDotOp>(op); d && !d.getAsync() &&
                                                 d.getPending() == 0) {
      wait.setPending(0);
      return;
    }
}

struct TileAsyncDots : public tilec::impl::TileAsyncDotsBase<TileAsyncDots> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      // In program order, so that a dot's wait counts the later dots it
      // lets run (each of which is still a synchronous dot then: a group
      // either way).
      SmallVector<WarpgroupDotOp> dots;
      func.walk([&](WarpgroupDotOp dot) {
        if (dot.getPending() == 0 && !dot.getAsync())
          dots.push_back(dot);
      });
      SmallVector<std::pair<WarpgroupDotOp, WarpgroupWaitOp>> made;
      for (WarpgroupDotOp dot : dots)
        if (WarpgroupWaitOp wait = makeAsync(dot))
          made.push_back({dot, wait});
      for (auto [dot, wait] : made)
        settleAfterSynchronousDots(dot, wait);
    }
  }
};

} // namespace
