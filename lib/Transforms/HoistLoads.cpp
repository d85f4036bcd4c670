//===- HoistLoads.cpp - issue loads early ---------------------------------===//
//
// Assumes: tile kernels in any block structure. Guarantees: program
// semantics unchanged; a non-volatile tile.load never moves past an op that
// may write memory (stores, atomics, volatile loads, prints, asserts, ops
// with unknown effects, or regions containing any of these), past another
// load, or past the definition of its operands, and never leaves its block.
// Not in the default pipeline: on layernorm the longer live ranges cost
// more than the overlap gained (docs/performance.md).
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tilec {
#define GEN_PASS_DEF_TILEHOISTLOADS
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace mlir::tile;

namespace {

/// True when `op` or anything nested in it may write memory.
bool mayWrite(Operation *op) {
  WalkResult r = op->walk([](Operation *nested) {
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested)) {
      if (effects.hasEffect<MemoryEffects::Write>() ||
          effects.hasEffect<MemoryEffects::Free>())
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    return WalkResult::interrupt(); // unknown effects
  });
  return r.wasInterrupted();
}

struct TileHoistLoads
    : public tilec::impl::TileHoistLoadsBase<TileHoistLoads> {
  void runOnOperation() override {
    SmallVector<LoadOp> loads;
    getOperation().walk([&](LoadOp op) {
      if (!op.getIsVolatile())
        loads.push_back(op);
    });
    for (LoadOp load : loads) {
      Block *block = load->getBlock();
      Operation *stop = nullptr;
      for (Operation *prev = load->getPrevNode(); prev;
           prev = prev->getPrevNode()) {
        bool defines = llvm::any_of(load->getOperands(), [&](Value v) {
          return v.getDefiningOp() == prev;
        });
        // Loads keep their order among themselves: issued as written.
        if (defines || isa<LoadOp>(prev) || mayWrite(prev)) {
          stop = prev;
          break;
        }
      }
      if (stop)
        load->moveAfter(stop);
      else
        load->moveBefore(block, block->begin());
    }
  }
};

} // namespace
