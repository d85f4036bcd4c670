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
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

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

/// The TMA's box rules (cuTensorMapEncodeTiled), which the runtime checks
/// again when it reads the metadata: a block that breaks them could not be
/// copied on sm_90a, so it is refused on every target.
LogicalResult
TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                       RankedTensorType blockType) {
  Type element = blockType.getElementType();
  bool intOk = false;
  if (auto i = dyn_cast<IntegerType>(element))
    intOk = i.isSignless() &&
            llvm::is_contained({8u, 16u, 32u, 64u}, i.getWidth());
  if (!intOk && !element.isF16() && !element.isBF16() && !element.isF32() &&
      !element.isF64() && !isa<Float8E4M3FNType, Float8E5M2Type>(element))
    return emitError() << "!tile.tensordesc holds i8, i16, i32, i64, f16, "
                          "bf16, f32, f64, f8E4M3FN or f8E5M2 elements, not "
                       << element;
  if (blockType.getEncoding())
    return emitError() << "the block type of a !tile.tensordesc has no "
                          "layout encoding";
  int64_t rank = blockType.getRank();
  if (rank < 1 || rank > 5)
    return emitError() << "a !tile.tensordesc block has 1 to 5 dimensions, "
                          "not "
                       << rank;
  for (auto [i, d] : llvm::enumerate(blockType.getShape()))
    if (d < 1 || d > 256)
      return emitError() << "dimension " << i << " of the block is " << d
                         << "; a tensor descriptor's block dimensions are 1 "
                            "to 256 elements (the TMA's box limit)";
  int64_t innerBytes =
      blockType.getShape().back() * element.getIntOrFloatBitWidth() / 8;
  if (innerBytes % 16 != 0)
    return emitError() << "the innermost block dimension spans " << innerBytes
                       << " bytes; a tensor descriptor's must span a multiple "
                          "of 16 bytes (the TMA's box rule)";
  return success();
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

int mlir::tile::getNumCtas(Operation *func) {
  if (auto attr =
          func->getAttrOfType<IntegerAttr>(TileDialect::getNumCtasAttrName()))
    return attr.getInt();
  return 1;
}

//===----------------------------------------------------------------------===//
// Kernel attributes
//===----------------------------------------------------------------------===//

/// The kernel parameter space of PTX (4 KiB); more fails in ptxas without
/// a location.
static constexpr uint64_t kMaxKernelParamBytes = 4096;
/// The largest `tile.divisibility` the runtime's metadata reader takes.
static constexpr int64_t kMaxDivisibility = int64_t(1) << 40;

/// Scalar kernel parameters the runtime can pass by value.
static bool isKernelScalarType(Type type) {
  if (type.isInteger(1) || type.isInteger(32) || type.isInteger(64))
    return true;
  return type.isF16() || type.isBF16() || type.isF32();
}

/// Element types the runtime's metadata names (tilec::DType): what a kernel's
/// pointer may point to. Pointers to pointers, i128 or si32 would be written
/// into metadata that lib/Runtime/Metadata.cpp then refuses.
static bool isRuntimePointeeType(Type type) {
  if (auto i = dyn_cast<IntegerType>(type))
    return i.isSignless() &&
           llvm::is_contained({1u, 8u, 16u, 32u, 64u}, i.getWidth());
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64() ||
         isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// A kernel's name becomes a PTX `.entry` name, a cubin symbol and a C++
/// identifier in the AOT headers: the PTX identifier rule without `$` and `%`
/// (a letter then letters, digits and underscores, or an underscore then at
/// least one of those). The NVPTX printer aborts on other characters, and
/// ptxas refuses `_`, `1abc` or `a.b`.
static bool isValidKernelName(StringRef name) {
  auto isWordChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  if (name.empty() || !llvm::all_of(name, isWordChar))
    return false;
  if (name[0] == '_')
    return name.size() > 1;
  return llvm::isAlpha(name[0]);
}

/// Bytes a kernel parameter takes in the PTX parameter space (the runtime's
/// ParamInfo::abiBytes: pointers 8, i1 as 4, scalars their size, tensor
/// descriptors the 128-byte CUtensorMap, aligned to 64).
static unsigned paramBytes(Type type) {
  if (isa<PointerType>(type))
    return 8;
  if (isa<TensorDescType>(type))
    return 128;
  if (type.isInteger(1))
    return 4;
  return type.getIntOrFloatBitWidth() / 8;
}

static LogicalResult verifyKernelSignature(func::FuncOp func) {
  if (!isValidKernelName(func.getSymName())) {
    // Escaped, so that a quote or a byte of UTF-8 reads unambiguously.
    std::string shown;
    llvm::raw_string_ostream os(shown);
    llvm::printEscapedString(func.getSymName(), os);
    return func.emitOpError("kernel name \"")
           << shown
           << "\" is not a valid PTX entry name: it must be a letter followed "
              "by letters, digits or '_', or '_' followed by at least one of "
              "those";
  }
  FunctionType type = func.getFunctionType();
  if (type.getNumResults() != 0)
    return func.emitOpError("is a tile.kernel and must not return values, "
                            "but returns ")
           << type.getResults();
  uint64_t bytes = 0;
  for (auto [i, argType] : llvm::enumerate(type.getInputs())) {
    if (auto ptr = dyn_cast<PointerType>(argType)) {
      if (!isRuntimePointeeType(ptr.getPointeeType()))
        return func.emitOpError("kernel parameter #")
               << i << " has type " << argType
               << "; a kernel's pointers point to i1, i8, i16, i32, i64, "
                  "f16, bf16, f32, f64, f8E4M3FN or f8E5M2 (the runtime's "
                  "element types)";
    } else if (!isKernelScalarType(argType) && !isa<TensorDescType>(argType)) {
      return func.emitOpError("kernel parameter #")
             << i << " has type " << argType
             << "; kernel parameters are i1, i32, i64, f16, bf16, f32, "
                "!tile.ptr or !tile.tensordesc (pass tiles through memory)";
    }
    unsigned size = paramBytes(argType);
    bytes = llvm::alignTo(bytes, std::min(size, 64u)) + size;
  }
  if (bytes > kMaxKernelParamBytes)
    return func.emitOpError("has ")
           << type.getNumInputs() << " parameters of " << bytes
           << " bytes; the PTX parameter space holds " << kMaxKernelParamBytes
           << " bytes";
  return success();
}

// The launch-rule attributes (docs/dialect.md); lib/Pipeline/LaunchRules.cpp
// reads them by the same names.
static constexpr llvm::StringLiteral kGridAttrName("tile.grid");
static constexpr llvm::StringLiteral kExtentAttrName("tile.extent");
static constexpr llvm::StringLiteral kOutputAttrName("tile.output");
static constexpr llvm::StringLiteral kShapeAttrName("tile.shape");
static constexpr llvm::StringLiteral kFromAttrName("tile.from");

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
    // Any count: the layout pass covers tiles with 12 or 24 warps too.
    if (n < 1 || n > 32)
      return op->emitError("'tile.num_warps' must be in [1, 32] (at most "
                           "1024 threads), got ")
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
  if (name == getNumCtasAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || !value.getType().isInteger(32))
      return op->emitError("'tile.num_ctas' must be an i32 attribute");
    if (!isa<func::FuncOp>(op) || !op->hasAttr(getKernelAttrName()))
      return op->emitError("'tile.num_ctas' may only mark a tile.kernel");
    int64_t n = value.getInt();
    if (n != 1 && n != 2 && n != 4)
      return op->emitError("'tile.num_ctas' must be 1, 2 or 4 (programs "
                           "per cluster along the grid's x axis), got ")
             << n;
    return success();
  }
  if (name == getWarpSpecializeAttrName()) {
    if (!isa<BoolAttr>(attr.getValue()))
      return op->emitError("'tile.warp_specialize' must be a bool attribute "
                           "(true or false)");
    if (!isa<func::FuncOp>(op) || !op->hasAttr(getKernelAttrName()))
      return op->emitError("'tile.warp_specialize' may only mark a "
                           "tile.kernel");
    return success();
  }
  if (name == getPingPongAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError("'tile.pingpong' must be a unit attribute");
    if (!isa<func::FuncOp>(op) || !op->hasAttr(getKernelAttrName()))
      return op->emitError("'tile.pingpong' may only mark a tile.kernel");
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
  if (name == kGridAttrName) {
    // The expressions name parameters, whose names only the front end knows
    // (NameLoc): compileModule parses them (lib/Pipeline/LaunchRules.cpp).
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func || !func->hasAttr(getKernelAttrName()))
      return op->emitError("'tile.grid' may only mark a tile.kernel");
    if (isa<StringAttr>(attr.getValue()))
      return success();
    auto dims = dyn_cast<ArrayAttr>(attr.getValue());
    if (!dims || dims.empty() || dims.size() > 3 ||
        !llvm::all_of(dims, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitError("'tile.grid' must be a string or an array of 1 to "
                           "3 strings (the x, y, z programs), e.g. "
                           "[\"cdiv(M, 128)\", \"cdiv(N, 128)\"]");
    return success();
  }
  // Module-level attributes the pipeline records (target, etc.) are free.
  return success();
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef attrName = attr.getName().getValue();
  auto argTypeOf = [&]() -> Type {
    if (auto fn = dyn_cast<FunctionOpInterface>(op))
      return fn.getArgumentTypes()[argIndex];
    return op->getRegion(regionIndex).getArgument(argIndex).getType();
  };
  if (attrName == kShapeAttrName) {
    // The sizes of the dense tensor a pointer or descriptor addresses; the
    // expressions name parameters, so compileModule parses them
    // (lib/Pipeline/LaunchRules.cpp).
    Type argType = argTypeOf();
    if (!isa<PointerType, TensorDescType>(argType))
      return op->emitError("'tile.shape' applies to pointer and tensor "
                           "descriptor parameters, not parameter #")
             << argIndex << " of type " << argType;
    SmallVector<Attribute> sizes;
    if (isa<StringAttr>(attr.getValue()))
      sizes.push_back(attr.getValue());
    else if (auto list = dyn_cast<ArrayAttr>(attr.getValue()))
      sizes.append(list.begin(), list.end());
    if (sizes.empty() || sizes.size() > 5 ||
        !llvm::all_of(sizes, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitError("'tile.shape' of parameter #")
             << argIndex << " must be a string or an array of 1 to 5 "
             << "strings (the sizes, outermost first), e.g. [\"M\", \"N\"]";
    if (auto desc = dyn_cast<TensorDescType>(argType))
      if (int64_t(sizes.size()) != desc.getRank())
        return op->emitError("'tile.shape' of parameter #")
               << argIndex << " has " << sizes.size()
               << " sizes but the descriptor " << argType << " has rank "
               << desc.getRank();
    if (auto fn = dyn_cast<FunctionOpInterface>(op))
      if (fn.getArgAttr(argIndex, kExtentAttrName))
        return op->emitError("parameter #")
               << argIndex << " has both 'tile.shape' and 'tile.extent': "
               << "give one (a shape's extent is the product of its sizes)";
    return success();
  }
  if (attrName == kFromAttrName) {
    // Where a binding given tensors takes this integer from ("a.size(0)");
    // the text names parameters, so compileModule parses it
    // (lib/Pipeline/LaunchRules.cpp).
    Type argType = argTypeOf();
    if (!argType.isInteger(32) && !argType.isInteger(64))
      return op->emitError("'tile.from' applies to i32 and i64 scalar "
                           "parameters, not parameter #")
             << argIndex << " of type " << argType;
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError("'tile.from' of parameter #")
             << argIndex << " must be a string such as \"a.size(0)\", "
             << "\"c.stride(0)\" or \"x.numel()\"";
    return success();
  }
  if (attrName == kExtentAttrName || attrName == kOutputAttrName) {
    Type argType = argTypeOf();
    if (!isa<PointerType>(argType))
      return op->emitError("'")
             << attrName << "' applies to pointer parameters, not parameter #"
             << argIndex << " of type " << argType;
    if (attrName == kOutputAttrName && !isa<UnitAttr>(attr.getValue()))
      return op->emitError("'tile.output' of parameter #")
             << argIndex << " must be a unit attribute";
    if (attrName == kExtentAttrName && !isa<StringAttr>(attr.getValue()))
      return op->emitError("'tile.extent' of parameter #")
             << argIndex << " must be a string (an expression such as \"n\")";
    return success();
  }
  if (attrName != getDivisibilityAttrName())
    return op->emitError("unknown tile argument attribute '")
           << attrName << "'";
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (!value)
    return op->emitError("'tile.divisibility' of parameter #")
           << argIndex << " must be an integer attribute";
  int64_t n = value.getInt();
  if (n < 1 || !llvm::isPowerOf2_64(n))
    return op->emitError("'tile.divisibility' of parameter #")
           << argIndex << " must be a positive power of two, got " << n;
  // The runtime's metadata reader (lib/Runtime/Metadata.cpp) takes at most
  // 2^40, so a larger hint would be written into metadata it refuses.
  if (n > kMaxDivisibility)
    return op->emitError("'tile.divisibility' of parameter #")
           << argIndex << " is " << n << ", above the largest the runtime "
           << "accepts (2^40 = " << kMaxDivisibility << ")";
  Type argType = argTypeOf();
  if (!isa<PointerType, IntegerType>(argType))
    return op->emitError("'tile.divisibility' applies to integer and pointer "
                         "parameters, not parameter #")
           << argIndex << " of type " << argType;
  // An i1 is never a multiple of more than 1, and the runtime refuses the
  // hint on one.
  if (argType.isInteger(1) && n != 1)
    return op->emitError("'tile.divisibility' of parameter #")
           << argIndex << " is " << n << ", but an i1 parameter is 0 or 1";
  return success();
}
