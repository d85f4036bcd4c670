//===- TileGPUOps.cpp - ops of the tilegpu dialect ------------------------===//
//
// Verifiers of the shared memory ops: slots, element types and masks must
// match; layouts are the lowering's business.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h"

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
  auto a = cast<SharedMemType>(getA().getType());
  auto b = cast<SharedMemType>(getB().getType());
  auto c = cast<RankedTensorType>(getC().getType());
  Type ea = a.getElementType();
  if (!(ea.isBF16() || ea.isF16()) || b.getElementType() != ea)
    return emitOpError("operands must both be f16 or both bf16, got ")
           << ea << " and " << b.getElementType();
  if (!c.getElementType().isF32())
    return emitOpError("accumulator must be f32, got ") << c.getElementType();
  if (!isa<NvmmaSharedLayoutAttr>(a.getLayout()) ||
      !isa<NvmmaSharedLayoutAttr>(b.getLayout()))
    return emitOpError(
        "operand buffers must have #tilegpu.nvmma_shared layouts");
  ArrayRef<int64_t> as = a.getSlotShape(), bs = b.getSlotShape();
  if (c.getRank() != 2 || as[0] != c.getDimSize(0) ||
      bs[1] != c.getDimSize(1) || as[1] != bs[0])
    return emitOpError("shapes do not match: a slot ")
           << as[0] << "x" << as[1] << ", b slot " << bs[0] << "x" << bs[1]
           << ", accumulator " << c;
  if (as[1] % 16)
    return emitOpError("K must be a multiple of 16, got ") << as[1];
  auto pending = static_cast<int32_t>(getPending());
  if (pending < 0)
    return emitOpError("pending must be >= 0, got ") << pending;
  auto mma = dyn_cast_if_present<MmaLayoutAttr>(c.getEncoding());
  if (!mma || mma.getVersionMajor() != 3)
    return emitOpError("accumulator must have a #tilegpu.mma version 3 layout");
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
  return success();
}

#define GET_OP_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"
