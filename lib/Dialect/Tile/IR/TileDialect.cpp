//===- TileDialect.cpp - the tile dialect ---------------------------------===//
//
// Dialect registration, the pointer type, kernel attribute verification and
// the inliner hook that lets `inline` fold tile functions into kernels.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/InlineAnywhere.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "tilec/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "tilec/Dialect/Tile/IR/TileEnums.cpp.inc"
#include "tilec/Dialect/Tile/IR/TileInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileAttrs.cpp.inc"


void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilec/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilec/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  addInterfaces<mlir::tile::InlineAnywhereInterface>();
}

/// Folded tiles and scalars become arith.constant ops.
Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointeeType) {
  if (isa<IntegerType, FloatType, PointerType>(pointeeType))
    return success();
  return emitError() << "!tile.ptr must point to an integer, float or "
                        "pointer type, not "
                     << pointeeType;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

ArrayRef<int64_t> mlir::tile::getShapeOrEmpty(Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    return t.getShape();
  return {};
}

Type mlir::tile::withElementType(Type type, Type elementType) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(t.getShape(), elementType, t.getEncoding());
  return elementType;
}

Type mlir::tile::getI1SameShape(Type type) {
  return withElementType(type, IntegerType::get(type.getContext(), 1));
}

Type mlir::tile::getPointeeTypeSameShape(Type type) {
  auto ptr = dyn_cast<PointerType>(getElementTypeOrSelf(type));
  if (!ptr)
    return {};
  return withElementType(type, ptr.getPointeeType());
}

bool mlir::tile::isKernel(Operation *func) {
  return func && func->hasAttr(TileDialect::getKernelAttrName());
}

int mlir::tile::getNumWarps(Operation *func, int dflt) {
  if (auto attr =
          func->getAttrOfType<IntegerAttr>(TileDialect::getNumWarpsAttrName()))
    return attr.getInt();
  return dflt;
}

//===----------------------------------------------------------------------===//
// Kernel attributes
//===----------------------------------------------------------------------===//

/// Scalar kernel parameters the runtime can pass by value.
static bool isKernelScalarType(Type type) {
  if (type.isInteger(1) || type.isInteger(32) || type.isInteger(64))
    return true;
  return type.isF16() || type.isBF16() || type.isF32();
}

static LogicalResult verifyKernelSignature(func::FuncOp func) {
  FunctionType type = func.getFunctionType();
  if (type.getNumResults() != 0)
    return func.emitOpError("is a tile.kernel and must not return values, "
                            "but returns ")
           << type.getResults();
  for (auto [i, argType] : llvm::enumerate(type.getInputs())) {
    if (isa<PointerType>(argType) || isKernelScalarType(argType))
      continue;
    return func.emitOpError("kernel parameter #")
           << i << " has type " << argType
           << "; kernel parameters are i1, i32, i64, f16, bf16, f32 or "
              "!tile.ptr (pass tiles through memory)";
  }
  return success();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == getKernelAttrName()) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func)
      return op->emitError("'tile.kernel' may only mark a func.func");
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError("'tile.kernel' must be a unit attribute");
    return verifyKernelSignature(func);
  }
  if (name == getNumWarpsAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || !value.getType().isInteger(32))
      return op->emitError("'tile.num_warps' must be an i32 attribute");
    int64_t n = value.getInt();
    if (n < 1 || n > 32 || !llvm::isPowerOf2_64(n))
      return op->emitError("'tile.num_warps' must be a power of two in "
                           "[1, 32], got ")
             << n;
    return success();
  }
  if (name == getNumStagesAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || !value.getType().isInteger(32))
      return op->emitError("'tile.num_stages' must be an i32 attribute");
    if (value.getInt() < 1 || value.getInt() > 8)
      return op->emitError("'tile.num_stages' must be in [1, 8], got ")
             << value.getInt();
    return success();
  }
  if (name == getApproxMathAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError("'tile.approx_math' must be a unit attribute");
    // A kernel: a func.func marked tile.kernel, or (after the lowering) the
    // gpu.func it became.
    bool isFunc = isa<func::FuncOp>(op);
    bool kernelFunc = isFunc && op->hasAttr(getKernelAttrName());
    bool lowered = !isFunc && isa<FunctionOpInterface>(op);
    if (!kernelFunc && !lowered)
      return op->emitError("'tile.approx_math' may only mark a tile.kernel "
                           "(tile functions take their kernel's math)");
    return success();
  }
  // Module-level attributes the pipeline records (target, etc.) are free.
  return success();
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName().getValue() != getDivisibilityAttrName())
    return op->emitError("unknown tile argument attribute '")
           << attr.getName().getValue() << "'";
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (!value)
    return op->emitError("'tile.divisibility' of parameter #")
           << argIndex << " must be an integer attribute";
  int64_t n = value.getInt();
  if (n < 1 || !llvm::isPowerOf2_64(n))
    return op->emitError("'tile.divisibility' of parameter #")
           << argIndex << " must be a positive power of two, got " << n;
  Type argType;
  if (auto fn = dyn_cast<FunctionOpInterface>(op))
    argType = fn.getArgumentTypes()[argIndex];
  else
    argType = op->getRegion(regionIndex).getArgument(argIndex).getType();
  if (!isa<PointerType, IntegerType>(argType))
    return op->emitError("'tile.divisibility' applies to integer and pointer "
                         "parameters, not parameter #")
           << argIndex << " of type " << argType;
  return success();
}
