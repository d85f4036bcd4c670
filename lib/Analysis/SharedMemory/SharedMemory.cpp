//===- SharedMemory.cpp - shared memory sizes and buffer placement --------===//
//
// Sizes are those the lowering addresses: a buffer is its slots one after
// the other, each slot its elements densely. Placement is a scan of the
// kernel's ops in program order: a buffer shares addresses with the
// conversion scratch only when no op using scratch runs while it is live
// (from the kernel's entry to its last use, a use in a loop lasting the
// whole loop), and with another buffer only when that one's copies were
// drained (a tilegpu.async_wait {pending = 0}, a barrier) before its first
// use.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/SharedMemory.h"
#include "tilec/Target/Target.h"

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "tilec/Dialect/TileGPU/IR/TileLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
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

/// The op a use keeps its buffer live through: the outermost loop around
/// it (each iteration reads the buffer again), else the user itself.
static Operation *liveExtent(func::FuncOp kernel, Operation *user) {
  Operation *extent = user;
  for (Operation *p = user->getParentOp(); p != kernel; p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p))
      extent = p;
  return extent;
}

int64_t tilec::smem::allocateBuffers(func::FuncOp kernel,
                                     int64_t scratchBytes) {
  SmallVector<LocalAllocOp> allocs;
  kernel.walk([&](LocalAllocOp op) { allocs.push_back(op); });
  if (allocs.empty())
    return llvm::alignTo(scratchBytes, 16);

  // Program order: ops numbered in pre-order, each op's extent ending at
  // its last nested op.
  DenseMap<Operation *, unsigned> first, last;
  SmallVector<Operation *> ordered;
  kernel.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    first[op] = ordered.size();
    ordered.push_back(op);
  });
  for (Operation *op : ordered) {
    unsigned end = first[op];
    op->walk([&](Operation *inner) { end = std::max(end, first[inner]); });
    last[op] = end;
  }

  // Each buffer's uses, from its first (a use in a loop lasting the whole
  // loop) to its last, or to the tilegpu.async_wait {pending = 0} that
  // drains its copies: that wait is a barrier, so once every thread is past
  // it nobody reads the buffer again, and a buffer first used after it
  // may take the same addresses (attention's two loops over K and V).
  struct Live {
    LocalAllocOp alloc;
    unsigned begin = 0, end = 0;
    bool drained = false;
    /// A scratch user runs while it lives: it goes above the scratch.
    bool underScratch = false;
    int64_t offset = 0, bytes = 0;
  };
  SmallVector<Live> live;
  for (LocalAllocOp alloc : allocs) {
    Live l{alloc, ~0u, 0};
    // A buffer's range starts at the kernel's entry, not at its allocation:
    // ops exchanging data through the scratch put barriers before their
    // writes, not after their reads, so a scratch user before the loop (a
    // tile converted to a dot operand, as attention's Q) may still be
    // reading when the prologue's first copies land.
    Operation *end = alloc;
    bool copies = false;
    // Views (tilegpu.trans_view) read the buffer through their users.
    SmallVector<Operation *> users;
    for (SmallVector<Value> values{alloc.getResult()}; !values.empty();) {
      Value v = values.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (auto view = dyn_cast<TransViewOp>(user))
          values.push_back(view.getResult());
        else
          users.push_back(user);
      }
    }
    for (Operation *user : users) {
      Operation *extent = liveExtent(kernel, user);
      if (last[extent] > last[end])
        end = extent;
      l.begin = std::min(l.begin, first[extent]);
      copies |= isa<AsyncCopyOp>(user);
    }
    if (copies) {
      // The copies are in flight until the async_wait that drains them.
      Operation *wait = end->getNextNode();
      while (wait && !(isa<AsyncWaitOp>(wait) &&
                       cast<AsyncWaitOp>(wait).getPending() == 0))
        wait = wait->getNextNode();
      l.drained = wait != nullptr;
      end = wait ? wait : end->getBlock()->getTerminator();
    }
    // An mbarrier object's bytes may only be reused after mbarrier.inval
    // (PTX ISA): mbarriers live to the kernel's end, never under scratch.
    if (llvm::any_of(users, [](Operation *u) { return isa<MBarrierInitOp>(u); }))
      end = ordered.back();
    l.end = last[end];
    if (l.begin == ~0u)
      l.begin = first[alloc];
    for (unsigned i = 0, e = last[end]; i <= e; ++i)
      l.underScratch |= tilec::smem::scratchBytes(ordered[i]) > 0;
    l.bytes = bufferBytes(cast<SharedMemType>(alloc.getType()));
    live.push_back(l);
  }
  // First fit in program order of the allocations, against the buffers
  // placed so far, but for those whose lives do not meet: one drained
  // before the other's first use.
  auto apart = [](const Live &a, const Live &b) {
    return (a.drained && a.end < b.begin) || (b.drained && b.end < a.begin);
  };
  int64_t top = 0;
  for (size_t i = 0; i < live.size(); ++i) {
    Live &l = live[i];
    int64_t align = bufferAlignment(cast<SharedMemType>(l.alloc.getType()));
    int64_t base = l.underScratch ? llvm::alignTo(scratchBytes, 128) : 0;
    int64_t offset = llvm::alignTo(base, align);
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t j = 0; j < i; ++j) {
        const Live &o = live[j];
        if (apart(o, l) || offset >= o.offset + o.bytes ||
            o.offset >= offset + l.bytes)
          continue;
        offset = llvm::alignTo(o.offset + o.bytes, align);
        moved = true;
      }
    }
    l.offset = offset;
    l.alloc->setAttr(kOffsetAttr,
                     IntegerAttr::get(IntegerType::get(kernel.getContext(), 64),
                                      offset));
    top = std::max<int64_t>(top, llvm::alignTo(offset + l.bytes, 128));
  }
  return llvm::alignTo(std::max(scratchBytes, top), 16);
}
