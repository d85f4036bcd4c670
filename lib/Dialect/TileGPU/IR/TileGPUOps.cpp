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

#define GET_OP_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"
