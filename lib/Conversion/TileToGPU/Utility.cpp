//===- Utility.cpp - layouts as per-thread arithmetic ---------------------===//
//
// The helpers every TileToGPU pattern uses: thread coordinates and element
// indices of a layout, shuffles of any scalar, shared memory access and the
// generic exchange of tiles between layouts through shared memory.
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

//===----------------------------------------------------------------------===//
// Type converter
//===----------------------------------------------------------------------===//

TileTypeConverter::TileTypeConverter(MLIRContext *ctx) {
  // Tried last to first: the identity is the fallback.
  addConversion([](Type type) { return type; });
  // Shared memory buffers are their base address.
  addConversion([](SharedMemType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext(), 3);
  });
  // A tensor descriptor is the generic address of its by-value CUtensorMap
  // parameter (the kernel parameter is byval + nvvm.grid_constant).
  addConversion([](TensorDescType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext());
  });
  addConversion([this](Type type) -> std::optional<Type> {
    if (isa<PointerType, Float8E4M3FNType, Float8E5M2Type>(type))
      return convertElementType(type);
    return std::nullopt;
  });
  addConversion([this](RankedTensorType type, SmallVectorImpl<Type> &results)
                    -> std::optional<LogicalResult> {
    FailureOr<DistributedLayout> layout = DistributedLayout::get(type);
    if (failed(layout))
      return failure();
    results.append(layout->getNumElems(),
                   convertElementType(type.getElementType()));
    return success();
  });
}

Type TileTypeConverter::convertElementType(Type type) const {
  if (isa<PointerType>(type))
    return LLVM::LLVMPointerType::get(type.getContext(), 1);
  if (isa<Float8E4M3FNType, Float8E5M2Type>(type))
    return IntegerType::get(type.getContext(), 8);
  return type;
}

FailureOr<DistributedLayout>
mlir::tile::gpu_lowering::getLayoutOrError(Operation *op, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  FailureOr<DistributedLayout> layout = failure();
  if (tensor)
    layout = DistributedLayout::get(tensor);
  if (failed(layout) && tensor && tensor.getEncoding() &&
      getLayoutNumWarps(tensor.getEncoding()) != 0)
    op->emitOpError("tile type ")
        << type
        << " cannot be lowered: along each dim its layout's lanes and warps "
           "must cover the shape exactly, pad it (every thread's first "
           "element inside the shape) or replicate it uniformly (a whole "
           "number of steps, a power of two of distinct lanes)";
  else if (failed(layout))
    op->emitOpError("tile type ")
        << type << " has no valid layout; run tile-assign-layouts first";
  return layout;
}

//===----------------------------------------------------------------------===//
// Constants and thread coordinates
//===----------------------------------------------------------------------===//

Value mlir::tile::gpu_lowering::i32Val(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

Value mlir::tile::gpu_lowering::i1Val(OpBuilder &b, Location loc, bool v) {
  return arith::ConstantIntOp::create(b, loc, b.getI1Type(), v);
}

/// (x / stride) % size: the coordinate of a split of x; shifts and masks
/// for powers of two (lanes always, warps usually), else udiv/urem (12
/// warps).
static Value bits(OpBuilder &b, Location loc, Value x, int64_t stride,
                  int64_t size) {
  if (size == 1)
    return i32Val(b, loc, 0);
  if (stride > 1)
    x = llvm::isPowerOf2_64(stride)
            ? arith::ShRUIOp::create(b, loc, x,
                                     i32Val(b, loc, llvm::Log2_64(stride)))
                  .getResult()
            : arith::DivUIOp::create(b, loc, x, i32Val(b, loc, stride))
                  .getResult();
  if (llvm::isPowerOf2_64(size))
    return arith::AndIOp::create(b, loc, x, i32Val(b, loc, size - 1));
  return arith::RemUIOp::create(b, loc, x, i32Val(b, loc, size));
}

ThreadCoords
mlir::tile::gpu_lowering::getThreadCoords(OpBuilder &b, Location loc,
                                          const DistributedLayout &layout) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value lane = arith::AndIOp::create(b, loc, tid, i32Val(b, loc, 31));
  Value warp = arith::ShRUIOp::create(b, loc, tid, i32Val(b, loc, 5));
  ThreadCoords coords;
  for (unsigned d = 0; d < layout.getRank(); ++d) {
    coords.lane.push_back(
        bits(b, loc, lane, layout.getLaneStride(d), layout.getTpw(d)));
    coords.warp.push_back(
        bits(b, loc, warp, layout.getWarpStride(d), layout.getWpc(d)));
  }
  return coords;
}

/// lane * laneMul + warp * warpMul along d: the thread's first index.
static Value threadBase(OpBuilder &b, Location loc,
                        const DistributedLayout &layout,
                        const ThreadCoords &coords, unsigned d) {
  Value l = arith::MulIOp::create(b, loc, coords.lane[d],
                                  i32Val(b, loc, layout.getLaneMul(d)));
  Value w = arith::MulIOp::create(b, loc, coords.warp[d],
                                  i32Val(b, loc, layout.getWarpMul(d)));
  return arith::AddIOp::create(b, loc, l, w);
}

SmallVector<SmallVector<Value>>
mlir::tile::gpu_lowering::emitIndices(OpBuilder &b, Location loc,
                                      const DistributedLayout &layout) {
  ThreadCoords coords = getThreadCoords(b, loc, layout);
  unsigned rank = layout.getRank();
  SmallVector<Value> base(rank);
  for (unsigned d = 0; d < rank; ++d)
    if (!layout.isSliced(d))
      base[d] = threadBase(b, loc, layout, coords, d);
  SmallVector<SmallVector<Value>> result;
  for (int64_t i = 0; i < layout.getNumElems(); ++i) {
    SmallVector<int64_t> sub = layout.getSubIndices(i);
    SmallVector<Value> idx;
    for (unsigned d = 0; d < rank; ++d) {
      if (layout.isSliced(d))
        continue;
      Value v = arith::AddIOp::create(
          b, loc, base[d], i32Val(b, loc, layout.getSubOffset(d, sub[d])));
      // Only a tile smaller than the layout's repetition wraps around, and
      // a padded one's last repetition.
      // (Elements that no distinct thread takes past the shape need no
      // modulo unless replicas do.)
      int64_t size = layout.getShape()[d];
      bool replicas = layout.getDistinctLanes(d) < layout.getTpw(d) ||
                      layout.getDistinctWarps(d) < layout.getWpc(d);
      bool needed = llvm::isPowerOf2_64(size) || replicas ||
                    !layout.isPaddingFree(d, sub[d]);
      if (layout.wraps(d) && needed)
        v = llvm::isPowerOf2_64(size)
                ? arith::AndIOp::create(b, loc, v, i32Val(b, loc, size - 1))
                      .getResult()
                : arith::RemUIOp::create(b, loc, v, i32Val(b, loc, size))
                      .getResult();
      idx.push_back(v);
    }
    result.push_back(idx);
  }
  return result;
}

Value mlir::tile::gpu_lowering::emitOwnerPredicate(
    OpBuilder &b, Location loc, const DistributedLayout &layout) {
  if (!layout.isReplicated())
    return {};
  ThreadCoords coords = getThreadCoords(b, loc, layout);
  Value pred;
  auto add = [&](Value ok) {
    pred = pred ? arith::AndIOp::create(b, loc, pred, ok).getResult() : ok;
  };
  auto isZero = [&](Value coord) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, coord,
                                 i32Val(b, loc, 0))
        .getResult();
  };
  for (unsigned d = 0; d < layout.getRank(); ++d) {
    // Lanes/warps that contribute nothing along d all hold copies: the
    // first owns. Where they contribute, they replicate uniformly
    // (DistributedLayout::get), so the owner is the thread whose lane/warp
    // part stays inside; padding is per element (emitPaddingPredicates).
    if (layout.getLaneMul(d) == 0 && layout.getTpw(d) > 1)
      add(isZero(coords.lane[d]));
    if (layout.getWarpMul(d) == 0 && layout.getWpc(d) > 1)
      add(isZero(coords.warp[d]));
    if (!layout.wraps(d))
      continue;
    Value base = threadBase(b, loc, layout, coords, d);
    add(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, base,
                              i32Val(b, loc, layout.getShape()[d])));
  }
  return pred;
}

SmallVector<Value> mlir::tile::gpu_lowering::emitPaddingPredicates(
    OpBuilder &b, Location loc, const DistributedLayout &layout,
    ArrayRef<unsigned> dims) {
  SmallVector<Value> preds(layout.getNumElems());
  SmallVector<unsigned> padded;
  for (unsigned d = 0; d < layout.getRank(); ++d)
    if (layout.isPadded(d) && (dims.empty() || llvm::is_contained(dims, d)))
      padded.push_back(d);
  if (padded.empty())
    return preds;
  ThreadCoords coords = getThreadCoords(b, loc, layout);
  SmallVector<Value> base(layout.getRank());
  for (unsigned d : padded)
    base[d] = threadBase(b, loc, layout, coords, d);
  for (int64_t i = 0; i < layout.getNumElems(); ++i) {
    SmallVector<int64_t> sub = layout.getSubIndices(i);
    for (unsigned d : padded) {
      // Only the last repetition can reach past the shape.
      if (layout.isPaddingFree(d, sub[d]))
        continue;
      int64_t off = layout.getSubOffset(d, sub[d]);
      Value in = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, base[d],
          i32Val(b, loc, layout.getShape()[d] - off));
      preds[i] = preds[i] ? arith::AndIOp::create(b, loc, preds[i], in)
                                .getResult()
                          : in;
    }
  }
  return preds;
}

SmallVector<Value> mlir::tile::gpu_lowering::emitElementOwners(
    OpBuilder &b, Location loc, const DistributedLayout &layout) {
  Value owner = emitOwnerPredicate(b, loc, layout);
  SmallVector<Value> preds = emitPaddingPredicates(b, loc, layout);
  for (Value &p : preds)
    p = !p ? owner
           : (owner ? arith::AndIOp::create(b, loc, owner, p).getResult() : p);
  return preds;
}

Value mlir::tile::gpu_lowering::linearize(OpBuilder &b, Location loc,
                                          ArrayRef<Value> indices,
                                          ArrayRef<int64_t> shape) {
  Value lin = i32Val(b, loc, 0);
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value term = arith::MulIOp::create(b, loc, indices[d],
                                       i32Val(b, loc, stride));
    lin = arith::AddIOp::create(b, loc, lin, term);
    stride *= shape[d];
  }
  return lin;
}

//===----------------------------------------------------------------------===//
// Shuffles
//===----------------------------------------------------------------------===//

static Value shuffle32(OpBuilder &b, Location loc, Value v, int64_t offset) {
  return NVVM::ShflOp::create(b, loc, v.getType(), i32Val(b, loc, -1), v,
                              i32Val(b, loc, offset), i32Val(b, loc, 31),
                              NVVM::ShflKind::bfly, UnitAttr());
}

Value mlir::tile::gpu_lowering::shuffleXor(OpBuilder &b, Location loc, Value v,
                                           int64_t offset) {
  Type type = v.getType();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  if (type.isF32() || type.isInteger(32))
    return shuffle32(b, loc, v, offset);
  if (isa<LLVM::LLVMPointerType>(type)) {
    Value i = LLVM::PtrToIntOp::create(b, loc, i64, v);
    return LLVM::IntToPtrOp::create(b, loc, type,
                                    shuffleXor(b, loc, i, offset));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(width);
  Value asInt = isa<FloatType>(type)
                    ? (Value)arith::BitcastOp::create(b, loc, intType, v)
                    : v;
  Value result;
  if (width == 64) {
    Value lo = arith::TruncIOp::create(b, loc, i32, asInt);
    Value hi = arith::TruncIOp::create(
        b, loc, i32,
        arith::ShRUIOp::create(b, loc, asInt,
                               arith::ConstantIntOp::create(b, loc, i64, 32)));
    lo = arith::ExtUIOp::create(b, loc, i64, shuffle32(b, loc, lo, offset));
    hi = arith::ExtUIOp::create(b, loc, i64, shuffle32(b, loc, hi, offset));
    hi = arith::ShLIOp::create(b, loc, hi,
                               arith::ConstantIntOp::create(b, loc, i64, 32));
    result = arith::OrIOp::create(b, loc, lo, hi);
  } else {
    Value wide = arith::ExtUIOp::create(b, loc, i32, asInt);
    result = arith::TruncIOp::create(b, loc, intType,
                                     shuffle32(b, loc, wide, offset));
  }
  if (isa<FloatType>(type))
    result = arith::BitcastOp::create(b, loc, type, result);
  return result;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

int64_t mlir::tile::gpu_lowering::getStorageBytes(Type type) {
  if (isa<LLVM::LLVMPointerType, PointerType>(type))
    return 8;
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

Value mlir::tile::gpu_lowering::smemAddress(OpBuilder &b, Location loc,
                                            Value byteOffset) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base = LLVM::AddressOfOp::create(b, loc, ptrType, kSmemName);
  return LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base,
                             ValueRange{byteOffset});
}

void mlir::tile::gpu_lowering::storeShared(OpBuilder &b, Location loc, Value v,
                                           Value byteOffset) {
  if (v.getType().isInteger(1))
    v = arith::ExtUIOp::create(b, loc, b.getI8Type(), v);
  LLVM::StoreOp::create(b, loc, v, smemAddress(b, loc, byteOffset));
}

Value mlir::tile::gpu_lowering::loadShared(OpBuilder &b, Location loc,
                                           Type type, Value byteOffset) {
  Value addr = smemAddress(b, loc, byteOffset);
  if (type.isInteger(1)) {
    Value byte = LLVM::LoadOp::create(b, loc, b.getI8Type(), addr);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, byte,
                                 arith::ConstantIntOp::create(
                                     b, loc, b.getI8Type(), 0));
  }
  return LLVM::LoadOp::create(b, loc, type, addr);
}

WarpRole mlir::tile::gpu_lowering::getWarpRole(Block *block,
                                               int64_t *consumerThreads) {
  for (Region *r = block->getParent(); r; r = r->getParentRegion()) {
    Operation *op = r->getParentOp();
    auto threads = op->getAttrOfType<IntegerAttr>(kConsumerThreadsAttr);
    if (!threads)
      continue;
    if (r->getRegionNumber() == 0)
      return WarpRole::Producer;
    if (consumerThreads)
      *consumerThreads = threads.getInt();
    return WarpRole::Consumer;
  }
  return WarpRole::Program;
}

void mlir::tile::gpu_lowering::consumerBarrier(OpBuilder &b, Location loc,
                                               int64_t threads) {
  NVVM::BarrierOp::create(b, loc, Type(), i32Val(b, loc, 1),
                          i32Val(b, loc, threads),
                          NVVM::BarrierReductionAttr(), Value());
}

void mlir::tile::gpu_lowering::barrier(OpBuilder &b, Location loc) {
  int64_t threads = 0;
  // Barrier 0 would wait for the producer warps, which never reach it.
  if (getWarpRole(b.getInsertionBlock(), &threads) == WarpRole::Consumer)
    return consumerBarrier(b, loc, threads);
  NVVM::Barrier0Op::create(b, loc);
}

SmallVector<SmallVector<Value>> mlir::tile::gpu_lowering::exchangeThroughShared(
    OpBuilder &b, Location loc, Type elemType, ArrayRef<SmemTile> sources,
    ArrayRef<SmemTile> destinations) {
  int64_t bytes = getStorageBytes(elemType);
  Value size = i32Val(b, loc, bytes);
  // Others may still read the previous contents of the scratch buffer.
  barrier(b, loc);
  for (const SmemTile &src : sources) {
    SmallVector<SmallVector<Value>> idx = emitIndices(b, loc, src.layout);
    OpBuilder::InsertionGuard guard(b);
    if (src.writePred) {
      auto ifOp = scf::IfOp::create(b, loc, src.writePred, /*withElse=*/false);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    // Padding copies stay silent too: they would write their element's
    // slot a second time (a race, even if of one value).
    SmallVector<Value> pads = emitPaddingPredicates(b, loc, src.layout);
    for (auto [i, v] : llvm::enumerate(src.values)) {
      OpBuilder::InsertionGuard elemGuard(b);
      Value pred = i < src.elemPreds.size() ? src.elemPreds[i] : Value();
      if (!pred)
        pred = pads[i];
      if (pred) {
        auto ifOp = scf::IfOp::create(b, loc, pred, false);
        b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      Value lin = src.linear(b, loc, idx[i]);
      storeShared(b, loc, v,
                  arith::MulIOp::create(b, loc, lin, size).getResult());
    }
  }
  barrier(b, loc);
  SmallVector<SmallVector<Value>> results;
  for (const SmemTile &dst : destinations) {
    SmallVector<SmallVector<Value>> idx = emitIndices(b, loc, dst.layout);
    SmallVector<Value> vals;
    for (auto &ix : idx) {
      Value lin = dst.linear(b, loc, ix);
      vals.push_back(loadShared(
          b, loc, elemType,
          arith::MulIOp::create(b, loc, lin, size).getResult()));
    }
    results.push_back(vals);
  }
  return results;
}

//===----------------------------------------------------------------------===//
// Combiner regions
//===----------------------------------------------------------------------===//

SmallVector<Value> mlir::tile::gpu_lowering::applyCombiner(OpBuilder &b,
                                                           Location loc,
                                                           Region &combiner,
                                                           ValueRange acc,
                                                           ValueRange cur) {
  Block &block = combiner.front();
  IRMapping map;
  unsigned n = acc.size();
  for (unsigned i = 0; i < n; ++i) {
    map.map(block.getArgument(i), acc[i]);
    map.map(block.getArgument(n + i), cur[i]);
  }
  for (Operation &op : block.without_terminator())
    b.clone(op, map);
  SmallVector<Value> results;
  for (Value v : block.getTerminator()->getOperands())
    results.push_back(map.lookupOrDefault(v));
  return results;
}
