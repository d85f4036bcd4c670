//===- TileToGPUPatterns.h - shared by the TileToGPU files ------*- C++ -*-===//
//
// Private to lib/Conversion/TileToGPU: the type converter, the context the
// patterns share, the populate functions of each op family and the helpers
// that turn a layout into per-thread index arithmetic, shuffles and shared
// memory traffic.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_TILETOGPU_PATTERNS_H
#define TILEC_CONVERSION_TILETOGPU_PATTERNS_H

#include "tilec/Analysis/AxisInfo.h"
#include "tilec/Analysis/SharedMemory.h"
#include "tilec/Dialect/TileGPU/IR/TileLayout.h"
#include "tilec/Target/Target.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tile::gpu_lowering {

// The lowering reads the tilegpu level throughout: its layouts and their
// arithmetic, shared memory buffers.
using tilegpu::DistributedLayout;
using tilegpu::DotOperandLayoutAttr;
using tilegpu::MmaLayoutAttr;
using tilegpu::SharedLayoutAttr;
using tilegpu::SharedMemType;

/// Tiles become one value per element the thread holds; pointers become
/// global-memory LLVM pointers; fp8 values travel as i8.
class TileTypeConverter : public TypeConverter {
public:
  explicit TileTypeConverter(MLIRContext *ctx);
  /// The per-thread scalar type of an element type.
  Type convertElementType(Type type) const;
};

/// The scratch plan of a cross-warp reduction (tilec/Analysis/SharedMemory.h).
using tilec::smem::ReduceScratch;

/// What every pattern may consult.
struct LoweringContext {
  const ModuleAxisInfo *axis = nullptr;
  /// The chip compiled for (never null while patterns run).
  const tilec::Target *target = nullptr;
  /// Cross-warp reductions: each thread reads one partial and shuffles
  /// (true) or reads all of them (false, the default).
  bool crossWarpShuffle = false;
  /// Cross-warp reductions not in the map use offset 0 and a leading barrier.
  llvm::DenseMap<Operation *, ReduceScratch> reduceScratch;
};

/// The name of the dynamic shared memory array of a gpu.module.
constexpr llvm::StringLiteral kSmemName = "global_smem";

void populateFuncPatterns(TileTypeConverter &tc, RewritePatternSet &patterns,
                          const LoweringContext &ctx);
void populateElementwisePatterns(TileTypeConverter &tc,
                                 RewritePatternSet &patterns,
                                 const LoweringContext &ctx);
void populateMemoryPatterns(TileTypeConverter &tc, RewritePatternSet &patterns,
                            const LoweringContext &ctx);
void populateReduceScanPatterns(TileTypeConverter &tc,
                                RewritePatternSet &patterns,
                                const LoweringContext &ctx);
void populateLayoutPatterns(TileTypeConverter &tc, RewritePatternSet &patterns,
                            const LoweringContext &ctx);
void populateDotPatterns(TileTypeConverter &tc, RewritePatternSet &patterns,
                         const LoweringContext &ctx);
void populateWarpgroupDotPatterns(TileTypeConverter &tc,
                                  RewritePatternSet &patterns,
                                  const LoweringContext &lc);
void populateMmaDotPatterns(TileTypeConverter &tc, RewritePatternSet &patterns,
                            const LoweringContext &ctx);
void populateSharedMemoryPatterns(TileTypeConverter &tc,
                                  RewritePatternSet &patterns,
                                  const LoweringContext &ctx);
/// mbarriers, TMA copies and tilegpu.local_store (TmaOpToGPU.cpp).
void populateTmaPatterns(TileTypeConverter &tc, RewritePatternSet &patterns,
                         const LoweringContext &lc);
void populateDebugPatterns(TileTypeConverter &tc, RewritePatternSet &patterns,
                           const LoweringContext &ctx);
/// f32 exp/exp2/rsqrt as hardware approximations (a greedy rewrite of the
/// scalar math ops the conversion leaves).
void populateFastMathPatterns(RewritePatternSet &patterns);
/// f32 erf through Support/ApproxErf.h in kernels marked tile.approx_math,
/// or in every kernel when `everywhere`.
void populateApproxMathPatterns(RewritePatternSet &patterns, bool everywhere);
/// Exact scalar rewrites that keep simple ops off libdevice (maxnum/minnum)
/// and lower what convert-gpu-to-nvvm leaves (math.absi but of i32).
void populateScalarMathPatterns(RewritePatternSet &patterns);

//===----------------------------------------------------------------------===//
// Helpers (Utility.cpp)
//===----------------------------------------------------------------------===//

Value i32Val(OpBuilder &b, Location loc, int64_t v);
Value i1Val(OpBuilder &b, Location loc, bool v);

/// Lane and warp coordinates of this thread along each dim of a layout.
struct ThreadCoords {
  SmallVector<Value> lane, warp;
};
ThreadCoords getThreadCoords(OpBuilder &b, Location loc,
                             const DistributedLayout &layout);

/// For each element the thread holds, its index along each tile dim (i32).
SmallVector<SmallVector<Value>> emitIndices(OpBuilder &b, Location loc,
                                            const DistributedLayout &layout);

/// True (i1) in the one thread that owns each element it holds; other
/// threads hold replicas. Null when the layout replicates nothing.
Value emitOwnerPredicate(OpBuilder &b, Location loc,
                         const DistributedLayout &layout);

/// Per element the thread holds: true (i1) when it is inside the shape
/// along every padded dim (DistributedLayout::isPadded), that is not one of
/// the padding copies; null where it always is (and for all elements when
/// the layout has no padding).
SmallVector<Value> emitPaddingPredicates(OpBuilder &b, Location loc,
                                         const DistributedLayout &layout,
                                         ArrayRef<unsigned> dims = {});

/// The owner predicate of each element: emitOwnerPredicate and the
/// element's padding predicate (null: every thread holding it writes).
SmallVector<Value> emitElementOwners(OpBuilder &b, Location loc,
                                     const DistributedLayout &layout);

/// v shuffled from lane (lane ^ offset), any scalar type up to 64 bits.
Value shuffleXor(OpBuilder &b, Location loc, Value v, int64_t offset);

/// The byte address `offset` (i32) in the program's shared memory.
Value smemAddress(OpBuilder &b, Location loc, Value byteOffset);
/// Stores/loads a scalar of any lowered element type to/from shared memory.
void storeShared(OpBuilder &b, Location loc, Value v, Value byteOffset);
Value loadShared(OpBuilder &b, Location loc, Type type, Value byteOffset);
/// A barrier of the threads that run the code at `b`: the whole program,
/// or in a warp-specialized program's consumer side only the consumers
/// (named barrier 1).
void barrier(OpBuilder &b, Location loc);
/// The named barrier 1 over a warp-specialized program's `threads`
/// consumer threads.
void consumerBarrier(OpBuilder &b, Location loc, int64_t threads);

/// The name of the attribute on the scf.if a tilegpu.warp_specialize
/// lowers to: the number of consumer threads (its else side); its then
/// side is the producer's, run by one thread.
inline constexpr llvm::StringLiteral kConsumerThreadsAttr =
    "tilegpu.consumer_threads";
/// Which side of a warp-specialized program the code at `block` is on.
enum class WarpRole { Program, Producer, Consumer };
/// The role of `block`, and for a consumer the consumers' thread count.
WarpRole getWarpRole(Block *block, int64_t *consumerThreads = nullptr);
/// Bytes a lowered scalar takes in memory (i1: 1, pointers: 8).
int64_t getStorageBytes(Type type);

/// Applies a reduce/scan combiner to accumulators and new values.
SmallVector<Value> applyCombiner(OpBuilder &b, Location loc, Region &combiner,
                                 ValueRange acc, ValueRange cur);

/// Moves tiles between layouts through shared memory. Each source writes its
/// elements at `linear(indices)` elements; each destination then reads its
/// elements at `linear(indices)`. Barriers before and after the writes.
struct SmemTile {
  DistributedLayout layout;
  ValueRange values; ///< sources only
  std::function<Value(OpBuilder &, Location, ArrayRef<Value>)> linear;
  Value writePred = {}; ///< sources only: write only where true
  /// Sources only, per element (null: always): write only where true.
  SmallVector<Value> elemPreds = {};
};
SmallVector<SmallVector<Value>> exchangeThroughShared(
    OpBuilder &b, Location loc, Type elemType, ArrayRef<SmemTile> sources,
    ArrayRef<SmemTile> destinations);

/// Row-major linear index of `indices` in `shape` (i32).
Value linearize(OpBuilder &b, Location loc, ArrayRef<Value> indices,
                ArrayRef<int64_t> shape);

/// Shared memory bytes `op` needs while it runs (0 if none), and how a
/// cross-warp reduction lays its partials out there: the sizes the analysis
/// allocated (tilec/Analysis/SharedMemory.h).
inline int64_t getScratchBytes(Operation *op) {
  return tilec::smem::scratchBytes(op);
}
using tilec::smem::ReduceScratchLayout;
inline ReduceScratchLayout
getReduceScratchLayout(ReduceOp op, const DistributedLayout &src) {
  return tilec::smem::reduceScratchLayout(op, src);
}
using mlir::tilegpu::getRegisterPermutation;

//===----------------------------------------------------------------------===//
// Swizzled shared tiles and ldmatrix (SharedMemoryToGPU.cpp)
//===----------------------------------------------------------------------===//

/// A 2-D tile in shared memory with a #tilegpu.shared layout: `rows` rows of
/// `rowLen` elements, rows along order[1] of the tile, columns along
/// order[0].
/// A #tilegpu.nvmma_shared tile is the #tilegpu.shared swizzle of its atoms
/// (`atomLen` columns each, stored one after the other).
struct SharedTile {
  SharedLayoutAttr layout;
  int64_t rowLen = 0, rows = 0;
  int64_t elemBytes = 2;
  /// Columns per atom (#tilegpu.nvmma_shared), 0 when rows are not cut.
  int64_t atomLen = 0;
  /// Indices taken modulo rows / rowLen (readers past a small tile's edge).
  bool wrapRows = false, wrapCols = false;
};
SharedTile makeSharedTile(SharedLayoutAttr layout, ArrayRef<int64_t> shape,
                          Type elemType);
/// For a #tilegpu.shared or #tilegpu.nvmma_shared layout.
SharedTile makeSharedTile(Attribute layout, ArrayRef<int64_t> shape,
                          Type elemType);

/// Element offset (i32) of (rowBase + rowConst, colBase + colConst) in
/// `tile`, swizzled.
Value swizzledOffset(OpBuilder &b, Location loc, const SharedTile &tile,
                     Value rowBase, int64_t rowConst, Value colBase,
                     int64_t colConst);

/// Stores a distributed tile's elements (`values`, numbered by `layout`) at
/// their places in `tile` at `base` (a shared-memory pointer), in runs of
/// up to 16 bytes; replicated elements by their owner only.
void storeTileToShared(OpBuilder &b, Location loc,
                       const DistributedLayout &layout, ValueRange values,
                       const SharedTile &tile, Value base);

/// True when a tile of `type` (a #tilegpu.dot_operand layout) can be loaded
/// with ldmatrix from a shared tile with layout `shared`.
bool canLoadWithLdmatrix(RankedTensorType type, SharedLayoutAttr shared);

/// The elements of a dot operand tile (`type`'s layout) loaded with
/// ldmatrix from `tile` at `base`.
SmallVector<Value> loadDotOperandFromShared(OpBuilder &b, Location loc,
                                            RankedTensorType type,
                                            SharedTile tile, Value base);

/// Replaces a one-result op by the values of its lowered tile (or scalar).
inline void replaceWithValues(ConversionPatternRewriter &rewriter,
                              Operation *op, ValueRange values) {
  rewriter.replaceOpWithMultiple(
      op, SmallVector<SmallVector<Value>>{SmallVector<Value>(values)});
}

/// The layout of a lowered tile type, with a diagnostic on `op` if missing.
FailureOr<DistributedLayout> getLayoutOrError(Operation *op, Type type);

} // namespace mlir::tile::gpu_lowering

#endif // TILEC_CONVERSION_TILETOGPU_PATTERNS_H
