//===- SharedMemory.cpp - shared memory sizes and buffer placement --------===//
//
// Sizes are those the lowering addresses: a buffer is its slots one after
// the other, each slot its elements densely. Placement is a linear scan of
// the kernel's top-level ops (buffers are allocated at the top level of a
// kernel by the pipelining pass).
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/SharedMemory.h"
#include "tilec/Target/Target.h"

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "tilec/Dialect/TileGPU/IR/TileLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;

int64_t tilec::smem::slotBytes(Type elementType, int64_t elements) {
  return elements *
         std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
}

int64_t tilec::smem::slotBytes(RankedTensorType type) {
  return slotBytes(type.getElementType(), type.getNumElements());
}

int64_t tilec::smem::bufferBytes(SharedMemType type) {
  return type.getShape()[0] *
         slotBytes(type.getElementType(), type.getSlotElements());
}

int64_t tilec::smem::bufferAlignment(SharedMemType type) {
  return isa<NvmmaSharedLayoutAttr>(type.getLayout()) ? 1024 : 128;
}

bool tilec::smem::fits(int64_t bytes, const Target &target) {
  return bytes <= target.maxSharedMemoryPerBlock();
}

/// The top-level op of `kernel`'s body that contains `op`.
static Operation *topLevel(func::FuncOp kernel, Operation *op) {
  while (op->getParentOp() != kernel)
    op = op->getParentOp();
  return op;
}

int64_t tilec::smem::allocateBuffers(func::FuncOp kernel,
                                     int64_t scratchBytes) {
  SmallVector<LocalAllocOp> allocs;
  kernel.walk([&](LocalAllocOp op) { allocs.push_back(op); });
  if (allocs.empty())
    return llvm::alignTo(scratchBytes, 16);

  bool overlap = false;
  for (LocalAllocOp alloc : allocs) {
    // A buffer's range starts at the kernel's entry, not at its allocation:
    // ops exchanging data through the scratch put barriers before their
    // writes, not after their reads, so a scratch user before the loop (a
    // tile converted to a dot operand, as attention's Q) may still be
    // reading when the prologue's first copies land.
    Operation *begin = &kernel.getBody().front().front();
    Operation *end = topLevel(kernel, alloc);
    bool copies = false;
    for (Operation *user : alloc->getUsers()) {
      Operation *top = topLevel(kernel, user);
      if (end->isBeforeInBlock(top))
        end = top;
      copies |= isa<AsyncCopyOp>(user);
    }
    if (copies) {
      Operation *wait = end->getNextNode();
      while (wait && !(isa<AsyncWaitOp>(wait) &&
                       cast<AsyncWaitOp>(wait).getPending() == 0))
        wait = wait->getNextNode();
      end = wait ? wait : &kernel.getBody().front().back();
    }
    for (Operation *op = begin; op; op = op->getNextNode()) {
      op->walk([&](Operation *inner) {
        overlap |= tilec::smem::scratchBytes(inner) > 0;
      });
      if (op == end)
        break;
    }
  }
  int64_t offset = overlap ? llvm::alignTo(scratchBytes, 128) : 0;
  for (LocalAllocOp alloc : allocs) {
    auto type = cast<SharedMemType>(alloc.getType());
    offset = llvm::alignTo(offset, bufferAlignment(type));
    alloc->setAttr(kOffsetAttr,
                   IntegerAttr::get(IntegerType::get(kernel.getContext(), 64),
                                    offset));
    offset = llvm::alignTo(offset + bufferBytes(type), 128);
  }
  return llvm::alignTo(std::max(scratchBytes, offset), 16);
}
