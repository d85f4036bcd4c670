//===- Scratch.cpp - shared memory that ops use while they run ------------===//
//
// The per-op sizes of the scratch that ops exchanging data between threads
// use (reductions across warps, scans, layout conversions, reshapes, joins,
// atomics) and the placement of the cross-warp reductions in it. The
// conversion lowers each op at the offsets planned here, and the buffer
// placement (SharedMemory.cpp) keeps buffers clear of the same ops: one
// function sizes an op for both.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/SharedMemory.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "tilec/Dialect/TileGPU/IR/TileLayout.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

/// Elements of a tile type (1 for a scalar).
static int64_t numElements(Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    return t.getNumElements();
  return 1;
}

static int64_t elementBytes(Type type) {
  Type elem = getElementTypeOrSelf(type);
  if (isa<PointerType>(elem))
    return 8;
  return std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
}

tilec::smem::ReduceScratchLayout
tilec::smem::reduceScratchLayout(ReduceOp op, const DistributedLayout &src) {
  ReduceScratchLayout s;
  s.warps = src.getDistinctWarps(src.getBlockedDim(op.getAxis()));
  if (s.warps <= 1)
    return s;
  s.outElems = numElements(op.getResult(0).getType());
  for (Value v : op.getSrcs()) {
    s.operandOffsets.push_back(s.bytes);
    s.slotBytes.push_back(elementBytes(v.getType()));
    s.bytes += llvm::alignTo(s.outElems * s.warps * s.slotBytes.back(), 16);
  }
  return s;
}

int64_t tilec::smem::scratchBytes(Operation *op) {
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    auto type = cast<RankedTensorType>(reduce.getSrcs()[0].getType());
    FailureOr<DistributedLayout> layout = DistributedLayout::get(type);
    if (failed(layout))
      return 0;
    return reduceScratchLayout(reduce, *layout).bytes;
  }
  if (auto scan = dyn_cast<ScanOp>(op)) {
    // Two buffers of every element of every operand, 8-byte slots (see
    // ScanOpLowering).
    return 2 * numElements(scan.getSrcs()[0].getType()) * 8 *
           scan.getNumResults();
  }
  if (auto cvt = dyn_cast<ConvertLayoutOp>(op))
    if (getRegisterPermutation(cvt.getSrc().getType(), cvt.getType()))
      return 0; // a renaming of registers (LayoutOpToGPU.cpp)
  if (isa<ConvertLayoutOp, ReshapeOp, TransOp, SplitOp>(op))
    return numElements(op->getOperand(0).getType()) *
           elementBytes(op->getOperand(0).getType());
  if (isa<JoinOp>(op))
    return numElements(op->getResult(0).getType()) *
           elementBytes(op->getResult(0).getType());
  if (isa<AtomicRMWOp, AtomicCASOp>(op))
    return numElements(op->getResult(0).getType()) * 8;
  return 0;
}

/// True for a reduction whose partials cross warps (through shared memory).
static bool isCrossWarpReduce(Operation *op) {
  return isa<ReduceOp>(op) && tilec::smem::scratchBytes(op) > 0;
}

int64_t tilec::smem::planReductionScratch(
    Operation *kernel, llvm::DenseMap<Operation *, ReduceScratch> &plan) {
  int64_t region = 0, others = 0;
  kernel->walk([&](Operation *op) {
    if (isCrossWarpReduce(op))
      region = std::max(region, scratchBytes(op));
    else
      others = std::max(others, scratchBytes(op));
  });
  region = llvm::alignTo(region, 16);
  Operation *last = nullptr; // the last shared-memory user, in program order
  int64_t lastOffset = 0;
  int64_t bytes = others;
  kernel->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (scratchBytes(op) == 0)
      return;
    if (isCrossWarpReduce(op)) {
      bool inLoop = op->getParentOfType<LoopLikeOpInterface>() != nullptr;
      ReduceScratch s;
      if (!last && !inLoop) {
        s.leadingBarrier = false;
      } else if (last && isCrossWarpReduce(last) &&
                 last->getBlock() == op->getBlock()) {
        s.offset = lastOffset == 0 ? region : 0;
        s.leadingBarrier = false;
      }
      plan[op] = s;
      lastOffset = s.offset;
      bytes = std::max(bytes, s.offset + scratchBytes(op));
    }
    last = op;
  });
  return bytes;
}
