//===- TileGPUOps.cpp - ops of the tilegpu dialect ------------------------===//
//
// Verifiers of the shared memory ops: slots, element types and masks must
// match; layouts are the lowering's business.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "tilec/Dialect/TileGPU/IR/TileLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tilegpu;

/// `custom<SameType>`: the second type is printed nowhere, it is the first.
static ParseResult parseSameType(OpAsmParser &, Type src, Type &dst) {
  dst = src;
  return success();
}
static void printSameType(OpAsmPrinter &, Operation *, Type, Type) {}

LogicalResult AsyncCopyOp::verify() {
  auto ptr = cast<RankedTensorType>(getPtr().getType());
  auto buf = cast<SharedMemType>(getBuffer().getType());
  if (ptr.getShape() != buf.getSlotShape())
    return emitOpError("pointer tile ")
           << ptr << " does not have the shape of a slot of " << buf;
  Type pointee = cast<tile::PointerType>(ptr.getElementType()).getPointeeType();
  if (pointee != buf.getElementType())
    return emitOpError("copies ")
           << pointee << " into a buffer of " << buf.getElementType();
  if (auto mask = getMask()) {
    auto maskType = cast<RankedTensorType>(mask.getType());
    if (maskType.getShape() != ptr.getShape())
      return emitOpError("mask ")
             << maskType << " does not match the pointers " << ptr;
  }
  return success();
}

LogicalResult AsyncWaitOp::verify() {
  // The attribute is an I32Attr; its getter reads it unsigned.
  auto pending = static_cast<int32_t>(getPending());
  if (pending < 0)
    return emitOpError("pending must be >= 0, got ") << pending;
  return success();
}

LogicalResult LocalLoadOp::verify() {
  auto buf = cast<SharedMemType>(getBuffer().getType());
  auto res = cast<RankedTensorType>(getType());
  if (res.getShape() != buf.getSlotShape() ||
      res.getElementType() != buf.getElementType())
    return emitOpError("result ") << res << " is not a slot of " << buf;
  return success();
}

LogicalResult WarpgroupDotOp::verify() {
  auto b = cast<SharedMemType>(getB().getType());
  auto c = cast<RankedTensorType>(getC().getType());
  auto aSmem = dyn_cast<SharedMemType>(getA().getType());
  auto aRegs = dyn_cast<RankedTensorType>(getA().getType());
  if (aSmem && !getASlot())
    return emitOpError("a buffer operand needs its slot: a[slot]");
  if (aRegs && getASlot())
    return emitOpError("a register tile operand takes no slot");
  Type ea = aSmem ? aSmem.getElementType() : aRegs.getElementType();
  bool fp8 = tile::isFp8(ea) && tile::isFp8(b.getElementType());
  // f32 operands run at tf32 precision (wgmma .tf32).
  bool tf32 = ea.isF32() && b.getElementType().isF32();
  if (!((ea.isBF16() || ea.isF16()) && b.getElementType() == ea) && !fp8 &&
      !tf32)
    return emitOpError("operands must both be f16, both bf16, both fp8 "
                       "(f8E4M3FN, f8E5M2) or both f32 (tf32), got ")
           << ea << " and " << b.getElementType();
  if (!c.getElementType().isF32())
    return emitOpError("accumulator must be f32, got ") << c.getElementType();
  if ((aSmem && !isa<NvmmaSharedLayoutAttr>(aSmem.getLayout())) ||
      !isa<NvmmaSharedLayoutAttr>(b.getLayout()))
    return emitOpError(
        "operand buffers must have #tilegpu.nvmma_shared layouts");
  ArrayRef<int64_t> as = aSmem ? aSmem.getSlotShape() : aRegs.getShape(),
                    bs = b.getSlotShape();
  if (as.size() != 2 || c.getRank() != 2 || as[0] != c.getDimSize(0) ||
      bs[1] != c.getDimSize(1) || as[1] != bs[0])
    return emitOpError("shapes do not match: a ")
           << (aSmem ? "slot " : "") << as[0] << "x" << as[1] << ", b slot "
           << bs[0] << "x" << bs[1] << ", accumulator " << c;
  // K per instruction: 32 bytes of elements.
  int64_t kStep = fp8 ? 32 : tf32 ? 8 : 16;
  if (as[1] % kStep)
    return emitOpError("K must be a multiple of ")
           << kStep << ", got " << as[1];
  if (fp8 || tf32) {
    // fp8 and tf32 wgmma read both operands K-major: A's slot [M, K] with
    // K contiguous, B's [K, N] with K contiguous (a trans_view of [N, K]).
    StringRef what = fp8 ? "fp8" : "tf32";
    if (!aSmem)
      return emitOpError() << what
                           << " A must be a buffer slot (wgmma takes it from "
                              "registers only in its own fragment layout)";
    auto order = [](SharedMemType t) {
      return cast<NvmmaSharedLayoutAttr>(t.getLayout()).getOrder()[0];
    };
    if (order(aSmem) != 1 || order(b) != 0)
      return emitOpError()
             << what
             << " operands must be K-major (A [M, K] with K contiguous, B a "
                "trans_view of an [N, K] slot)";
  }
  auto pending = static_cast<int32_t>(getPending());
  if (pending < 0)
    return emitOpError("pending must be >= 0, got ") << pending;
  if (getAsync()) {
    if (pending)
      return emitOpError("an async dot waits for nothing: pending must be "
                         "0, got ")
             << pending;
    for (Operation *user : getResult().getUsers())
      if (!isa<WarpgroupWaitOp>(user))
        return emitOpError("the result of an async dot may only be read "
                           "through tilegpu.warpgroup_wait, not by ")
               << user->getName();
  }
  auto mma = dyn_cast_if_present<MmaLayoutAttr>(c.getEncoding());
  if (!mma || mma.getVersionMajor() != 3)
    return emitOpError("accumulator must have a #tilegpu.mma version 3 layout");
  if (aRegs) {
    auto op = dyn_cast_if_present<DotOperandLayoutAttr>(aRegs.getEncoding());
    if (!op || op.getOpIdx() != 0 || op.getParent() != mma ||
        op.getKWidth() != 2)
      return emitOpError("a register tile operand must have the "
                         "#tilegpu.dot_operand layout {opIdx = 0, kWidth = 2} "
                         "of the accumulator's layout, got ")
             << aRegs;
  }
  int64_t rows = 16 * mma.getWarpsPerCTA()[0];
  int64_t instrN = mma.getInstrShape()[1];
  if (c.getDimSize(0) % rows || c.getDimSize(1) % instrN)
    return emitOpError("accumulator ")
           << c << " is not a whole number of " << rows << "-row blocks and "
           << instrN << "-column instructions";
  return success();
}

LogicalResult WarpgroupWaitOp::verify() {
  auto pending = static_cast<int32_t>(getPending());
  if (pending < 0)
    return emitOpError("pending must be >= 0, got ") << pending;
  auto acc = cast<RankedTensorType>(getAcc().getType());
  if (!acc.getElementType().isF32())
    return emitOpError("accumulator must be f32, got ")
           << acc.getElementType();
  auto mma = dyn_cast_if_present<MmaLayoutAttr>(acc.getEncoding());
  if (!mma || mma.getVersionMajor() != 3)
    return emitOpError(
        "accumulator must have a #tilegpu.mma version 3 layout");
  for (Value keep : getKeep()) {
    auto type = cast<RankedTensorType>(keep.getType());
    auto op = dyn_cast_if_present<DotOperandLayoutAttr>(type.getEncoding());
    auto parent = op ? dyn_cast<MmaLayoutAttr>(op.getParent()) : nullptr;
    if (!op || op.getOpIdx() != 0 || op.getKWidth() != 2 || !parent ||
        parent.getVersionMajor() != 3 || type.getElementTypeBitWidth() != 16)
      return emitOpError("keep operands must be register A tiles (16-bit, "
                         "#tilegpu.dot_operand {opIdx = 0, kWidth = 2} of a "
                         "version 3 layout), got ")
             << type;
  }
  return success();
}

#define GET_OP_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"

//===----------------------------------------------------------------------===//
// mbarriers and TMA copies
//===----------------------------------------------------------------------===//

/// A buffer of mbarriers: one i64 per slot (slots of 1x1).
static LogicalResult verifyBarriers(Operation *op, Value barriers) {
  auto type = cast<SharedMemType>(barriers.getType());
  if (type.getSlotElements() != 1 || !type.getElementType().isInteger(64))
    return op->emitOpError("expects a buffer of i64 mbarriers (slots of "
                           "1x1xi64), got ")
           << type;
  return success();
}

LogicalResult MBarrierInitOp::verify() {
  if (failed(verifyBarriers(*this, getBarriers())))
    return failure();
  auto count = static_cast<int32_t>(getCount());
  if (count < 1 || count >= (1 << 20))
    return emitOpError("arrival count must be in [1, 2^20), got ") << count;
  return success();
}

LogicalResult MBarrierExpectOp::verify() {
  if (failed(verifyBarriers(*this, getBarriers())))
    return failure();
  auto bytes = static_cast<int32_t>(getBytes());
  if (bytes < 1 || bytes >= (1 << 20))
    return emitOpError("transaction bytes must be in [1, 2^20), got ")
           << bytes;
  return success();
}

LogicalResult MBarrierWaitOp::verify() {
  return verifyBarriers(*this, getBarriers());
}

/// The TMA moves a descriptor block into or out of a slot in the layout
/// its boxes make (tilegpu::getTmaBox): the slot must be the block, in
/// #tilegpu.nvmma_shared with the boxes' swizzle.
static LogicalResult verifyTmaSlot(Operation *op, Value desc,
                                   ValueRange offsets, Value buffer) {
  auto d = cast<tile::TensorDescType>(desc.getType());
  auto buf = cast<SharedMemType>(buffer.getType());
  if (int64_t(offsets.size()) != d.getRank())
    return op->emitOpError("has ")
           << offsets.size() << " offsets for a " << d.getRank()
           << "-D descriptor";
  ArrayRef<int64_t> block = d.getBlockType().getShape();
  if (buf.getSlotShape() != block.take_back(std::min<size_t>(2, block.size())) ||
      buf.getElementType() != d.getElementType())
    return op->emitOpError("slot of ")
           << buf << " is not the descriptor's block " << d.getBlockType()
           << " (its last two dims)";
  TmaBox box = getTmaBox(d.getBlockType().getShape(),
                         d.getElementType().getIntOrFloatBitWidth());
  auto nvmma = dyn_cast<NvmmaSharedLayoutAttr>(buf.getLayout());
  if (!box.swizzle || !nvmma || nvmma.getSwizzle() != box.swizzle ||
      nvmma.getOrder() != ArrayRef<unsigned>{1, 0})
    return op->emitOpError("needs a slot in #tilegpu.nvmma_shared<{swizzle = ")
           << box.swizzle
           << ", order = [1, 0]}> (the TMA boxes' arrangement), got "
           << buf.getLayout();
  return success();
}

/// A cluster-wide op's `n` (tilegpu.tma_load's multicast,
/// tilegpu.mbarrier_arrive's cluster; nullopt: a cluster barrier) against
/// its kernel's tile.num_ctas, where the op is still inside the tile
/// kernel.
static LogicalResult verifyClusterCount(Operation *op, StringRef what,
                                        std::optional<int32_t> n) {
  Operation *kernel = nullptr;
  for (Operation *p = op->getParentOp(); p && !kernel; p = p->getParentOp())
    if (tile::isKernel(p))
      kernel = p;
  int ctas = kernel ? tile::getNumCtas(kernel) : 0;
  if (!n) {
    if (ctas == 1)
      return op->emitOpError("needs a kernel whose programs run in "
                             "clusters (tile.num_ctas 2 or 4)");
    return success();
  }
  if (*n != 2 && *n != 4)
    return op->emitOpError(what) << " must be 2 or 4, got " << *n;
  if (ctas && ctas != *n)
    return op->emitOpError(what)
           << " " << *n << " differs from the kernel's tile.num_ctas "
           << ctas;
  return success();
}

LogicalResult TmaLoadOp::verify() {
  if (failed(verifyBarriers(*this, getBarriers())))
    return failure();
  if (std::optional<int32_t> n = getMulticast())
    if (failed(verifyClusterCount(*this, "multicast", n)))
      return failure();
  return verifyTmaSlot(*this, getDesc(), getOffsets(), getBuffer());
}

LogicalResult ClusterBarrierOp::verify() {
  return verifyClusterCount(*this, "", std::nullopt);
}

LogicalResult TmaStoreOp::verify() {
  if (failed(verifyTmaSlot(*this, getDesc(), getOffsets(), getBuffer())))
    return failure();
  if (std::optional<tile::RMWKind> kind = getReduce())
    if (std::optional<std::string> error = tile::checkDescriptorReduce(
            *kind, getDesc().getType().getElementType()))
      return emitOpError(*error);
  if (std::optional<ArrayRef<int32_t>> groups = getWarpgroups()) {
    tile::TensorDescType d = getDesc().getType();
    TmaBox box = getTmaBox(d.getBlockType().getShape(),
                           d.getElementType().getIntOrFloatBitWidth());
    if (int64_t(groups->size()) != box.copies)
      return emitOpError("names ")
             << groups->size() << " warpgroups for the "
             << box.copies << " TMA boxes of " << d.getBlockType();
    // Named barriers 5 .. 15 (the warpgroup's own): warpgroups 0 .. 10,
    // within the program's warps where the kernel says how many.
    int64_t most = 11;
    for (Operation *p = (*this)->getParentOp(); p; p = p->getParentOp())
      if (p->hasAttr("tile.num_warps")) {
        most = std::min<int64_t>(most, tile::getNumWarps(p) / 4);
        break;
      }
    for (int32_t g : *groups)
      if (g < 0 || g >= most)
        return emitOpError("warpgroup ")
               << g << " is not one of the program's " << most
               << " (four warps each)";
  }
  return success();
}

SharedMemType TransViewOp::getTransposedType(SharedMemType src) {
  // Slots are 2-D, in one of the two shared layouts (SharedMemType's
  // verifier).
  SmallVector<int64_t> shape(src.getShape());
  std::swap(shape[1], shape[2]);
  MLIRContext *ctx = src.getContext();
  auto flip = [](ArrayRef<unsigned> order) {
    return SmallVector<unsigned>{order[1], order[0]};
  };
  // The slot's dim 0 becomes dim 1: the contiguous dim keeps its bytes
  // under the other index.
  Attribute layout;
  if (auto n = dyn_cast<NvmmaSharedLayoutAttr>(src.getLayout()))
    layout = NvmmaSharedLayoutAttr::get(ctx, n.getSwizzle(), flip(n.getOrder()));
  else {
    auto sh = cast<SharedLayoutAttr>(src.getLayout());
    layout = SharedLayoutAttr::get(ctx, sh.getVec(), sh.getPerPhase(),
                                   sh.getMaxPhase(), flip(sh.getOrder()));
  }
  return SharedMemType::get(ctx, shape, src.getElementType(), layout);
}

LogicalResult TransViewOp::verify() {
  SharedMemType expected =
      getTransposedType(cast<SharedMemType>(getSrc().getType()));
  if (getResult().getType() != expected)
    return emitOpError("result must be ")
           << expected << " (the slots' dims and order swapped), got "
           << getResult().getType();
  return success();
}

LogicalResult LocalStoreOp::verify() {
  auto buf = cast<SharedMemType>(getBuffer().getType());
  auto v = cast<RankedTensorType>(getValue().getType());
  if (v.getShape() != buf.getSlotShape() ||
      v.getElementType() != buf.getElementType())
    return emitOpError("value ") << v << " is not a slot of " << buf;
  return success();
}

LogicalResult MBarrierArriveOp::verify() {
  if (std::optional<int32_t> n = getCluster())
    if (failed(verifyClusterCount(*this, "cluster", n)))
      return failure();
  return verifyBarriers(*this, getBarriers());
}

LogicalResult WarpgroupTurnOp::verify() {
  StringRef step = getStep();
  if (step != "start" && step != "wait" && step != "pass" && step != "finish")
    return emitOpError("step must be start, wait, pass or finish, got '")
           << step << "'";
  // In the consumer region of a warp_specialize of two consumer
  // warpgroups.
  for (Operation *p = (*this)->getParentOp(); p; p = p->getParentOp())
    if (auto ws = dyn_cast<WarpSpecializeOp>(p)) {
      if (!ws.getConsumer().isAncestor((*this)->getParentRegion()))
        return emitOpError("must be on the consumer side of its "
                           "tilegpu.warp_specialize");
      Operation *func = ws->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
      if (func && tile::getNumWarps(func) != 8)
        return emitOpError("takes turns between two consumer warpgroups "
                           "(tile.num_warps = 8), the kernel has ")
               << tile::getNumWarps(func) << " warps";
      return success();
    }
  return emitOpError("must be inside a tilegpu.warp_specialize");
}

LogicalResult WarpSpecializeOp::verify() {
  // setmaxnreg's rule: a multiple of 8 in [24, 256].
  for (auto [name, regs] : {std::pair<StringRef, int32_t>{
                                "producer_registers", getProducerRegisters()},
                            {"consumer_registers", getConsumerRegisters()}})
    if (regs < 24 || regs > 256 || regs % 8)
      return emitOpError() << name
                           << " must be a multiple of 8 in [24, 256], got "
                           << regs;
  for (Region *r : {&getProducer(), &getConsumer()})
    if (r->front().getNumArguments())
      return emitOpError("regions take no arguments");
  return success();
}
