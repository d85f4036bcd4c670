//===- SharedMemory.h - shared memory sizes and placement -------*- C++ -*-===//
//
// The one place that sizes and places shared memory: the pipelining pass asks
// how many bytes its stages would take (to stay under the target's limit);
// the conversion plans the scratch of ops that exchange data (each op's size
// from scratchBytes, the cross-warp reductions' offsets from
// planReductionScratch), places every tilegpu.local_alloc with the same
// sizes and alignments, and lowers at the offsets recorded here.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_SHAREDMEMORY_H
#define TILEC_ANALYSIS_SHAREDMEMORY_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class Operation;
class RankedTensorType;
namespace func {
class FuncOp;
} // namespace func
namespace tile {
class ReduceOp;
} // namespace tile
namespace tilegpu {
class DistributedLayout;
class SharedMemType;
} // namespace tilegpu
} // namespace mlir

namespace tilec {
class Target;

namespace smem {

/// Byte offset of a tilegpu.local_alloc's buffer (allocateBuffers sets it,
/// the lowering of the buffer's ops reads it).
constexpr llvm::StringLiteral kOffsetAttr = "tile.smem_offset";

/// Bytes of `elements` elements of `elementType` in shared memory; types
/// under a byte take one byte each.
int64_t slotBytes(mlir::Type elementType, int64_t elements);
/// Bytes of one slot holding `type`'s tile (a pipelining stage of it).
int64_t slotBytes(mlir::RankedTensorType type);
/// Bytes of a tilegpu.local_alloc buffer: all its slots.
int64_t bufferBytes(mlir::tilegpu::SharedMemType type);
/// Where a buffer may start: 1024 for #tilegpu.nvmma_shared (wgmma's swizzle
/// is a function of the address and slots are multiples of 1024), else 128.
int64_t bufferAlignment(mlir::tilegpu::SharedMemType type);
/// True when `bytes` of shared memory fit one program of `target`
/// (Target::maxSharedMemoryPerBlock, after opting in).
bool fits(int64_t bytes, const Target &target);

/// Shared memory bytes `op` needs while it runs, from offset 0 of the
/// kernel's scratch (0 if none): the size its lowering addresses.
int64_t scratchBytes(mlir::Operation *op);

/// How a cross-warp reduction lays out its partials in its scratch: per
/// operand a 16-byte aligned array of (output element, warp) slots of the
/// element's size, so that a warp's partials of one output are adjacent. The
/// one definition for the allocation (its size, scratchBytes) and the
/// lowering (its addresses).
struct ReduceScratchLayout {
  int64_t warps = 1;    ///< distinct warps along the axis (1: no scratch)
  int64_t outElems = 1; ///< elements of each result (1 for a scalar)
  llvm::SmallVector<int64_t> operandOffsets; ///< from the reduction's base
  llvm::SmallVector<int64_t> slotBytes;      ///< per operand
  int64_t bytes = 0;                         ///< 0 when warps == 1
};
ReduceScratchLayout
reduceScratchLayout(mlir::tile::ReduceOp op,
                    const mlir::tilegpu::DistributedLayout &src);

/// Where a cross-warp reduction keeps its partials, and whether it must wait
/// for earlier readers of shared memory first (planReductionScratch).
struct ReduceScratch {
  int64_t offset = 0;
  bool leadingBarrier = true;
};

/// Plans the cross-warp reductions of `kernel` into `plan` and returns the
/// bytes of the kernel's scratch (every scratch user's, from offset 0).
/// Consecutive reductions alternate between two regions, so a reduction
/// right after another (same block, no other shared-memory user between)
/// needs no barrier before its writes: every thread finished reading this
/// region two reductions ago before it reached the previous reduction's
/// barrier. The first shared-memory user of a kernel outside loops needs
/// none either. Reductions not in `plan` use offset 0 and a leading barrier.
int64_t
planReductionScratch(mlir::Operation *kernel,
                     llvm::DenseMap<mlir::Operation *, ReduceScratch> &plan);

/// Places the tilegpu.local_alloc buffers of `kernel` after its scratch (the
/// `scratchBytes` from offset 0 that ops exchanging data use between
/// barriers, the ops of scratchBytes(op) > 0). A buffer lives from the
/// kernel's entry (a scratch user before its first copy may still be
/// reading: the exchanges put barriers before their writes, not after their
/// reads) to its last use (to the tilegpu.async_wait {pending = 0} after it
/// when copies go there). Buffers go at offset 0, overlapping the scratch,
/// unless a scratch user runs while one lives; then after the scratch. Two
/// buffers share addresses only when the first one's copies were drained
/// (that tilegpu.async_wait is a barrier) before the second's first use:
/// sequential pipelined loops reuse one region. Records each buffer's
/// offset in kOffsetAttr and returns the kernel's shared memory bytes
/// (16-byte aligned).
int64_t allocateBuffers(mlir::func::FuncOp kernel, int64_t scratchBytes);

} // namespace smem
} // namespace tilec

#endif // TILEC_ANALYSIS_SHAREDMEMORY_H
