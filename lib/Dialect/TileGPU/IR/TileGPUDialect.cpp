//===- TileGPUDialect.cpp - the tilegpu dialect ---------------------------===//
//
// Dialect registration, the shared memory type and the aliases the printer
// gives layouts (tiles repeat them a lot).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "tilec/Dialect/InlineAnywhere.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tilegpu;

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"

namespace {
/// Prints layouts as #blocked, #slice, #mma, ... aliases.
struct TileGPUOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedLayoutAttr>(attr)) {
      os << "blocked";
      return AliasResult::FinalAlias;
    }
    if (isa<SliceLayoutAttr>(attr)) {
      os << "slice";
      return AliasResult::FinalAlias;
    }
    if (isa<MmaLayoutAttr>(attr)) {
      os << "mma";
      return AliasResult::FinalAlias;
    }
    if (isa<DotOperandLayoutAttr>(attr)) {
      os << "dot_op";
      return AliasResult::FinalAlias;
    }
    if (isa<SharedLayoutAttr>(attr)) {
      os << "shared";
      return AliasResult::FinalAlias;
    }
    if (isa<NvmmaSharedLayoutAttr>(attr)) {
      os << "nvmma";
      return AliasResult::FinalAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void TileGPUDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilec/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"
      >();
  addInterfaces<TileGPUOpAsmInterface, mlir::tile::InlineAnywhereInterface>();
}

//===----------------------------------------------------------------------===//
// SharedMemType
//===----------------------------------------------------------------------===//

Type SharedMemType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute layout;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseAttribute(layout) || parser.parseGreater())
    return {};
  return parser.getChecked<SharedMemType>(parser.getContext(), shape,
                                          elementType, layout);
}

void SharedMemType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType() << ", " << getLayout() << ">";
}

LogicalResult
SharedMemType::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<int64_t> shape, Type elementType,
                      Attribute layout) {
  if (shape.size() != 3 ||
      llvm::any_of(shape, [](int64_t d) { return d <= 0; }))
    return emitError() << "!tilegpu.smem holds slots of 2-D tiles: its shape "
                          "must be 3 positive sizes (slots, rows, columns)";
  if (!isa<IntegerType, FloatType>(elementType))
    return emitError() << "!tilegpu.smem elements must be integers or "
                          "floats, not "
                       << elementType;
  if (!isa<SharedLayoutAttr, NvmmaSharedLayoutAttr>(layout))
    return emitError() << "!tilegpu.smem layout must be a #tilegpu.shared or "
                          "#tilegpu.nvmma_shared, not "
                       << layout;
  return success();
}

int64_t SharedMemType::getSlotElements() const {
  int64_t n = 1;
  for (int64_t d : getSlotShape())
    n *= d;
  return n;
}
