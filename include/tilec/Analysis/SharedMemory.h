//===- SharedMemory.h - shared memory sizes and buffer placement -*- C++ -*-===//
//
// The one place that sizes and places shared memory buffers: the pipelining
// pass asks how many bytes its stages would take (to stay under the target's
// limit), the conversion places every tilegpu.local_alloc with the same
// sizes and alignments and records the offsets it lowers.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_SHAREDMEMORY_H
#define TILEC_ANALYSIS_SHAREDMEMORY_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class Operation;
class RankedTensorType;
namespace func {
class FuncOp;
} // namespace func
namespace tilegpu {
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

/// Places the tilegpu.local_alloc buffers of `kernel` after its scratch (the
/// `scratchBytes` from offset 0 that ops exchanging data use between
/// barriers; `usesScratch` says which ops do). A buffer lives from the
/// kernel's entry (a scratch user before its first copy may still be
/// reading: the exchanges put barriers before their writes, not after their
/// reads) to its last use (to the tilegpu.async_wait {pending = 0} after it
/// when copies go there). Buffers go at offset 0, overlapping the scratch,
/// unless a scratch user runs while one lives; then after the scratch. Records each buffer's offset in kOffsetAttr and returns the
/// kernel's shared memory bytes (16-byte aligned).
int64_t allocateBuffers(mlir::func::FuncOp kernel, int64_t scratchBytes,
                        llvm::function_ref<bool(mlir::Operation *)> usesScratch);

} // namespace smem
} // namespace tilec

#endif // TILEC_ANALYSIS_SHAREDMEMORY_H
