//===- TileOps.cpp - ops of the tile dialect ------------------------------===//
//
// Verifiers, custom assembly of the memory ops, builders and side effects.
// Verifiers compare shapes and element types, never layout encodings.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "BinaryOperands.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// True when both are tiles of one shape, or both are scalars.
static bool sameShape(Type a, Type b) {
  auto ta = dyn_cast<RankedTensorType>(a);
  auto tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb)
    return !ta && !tb;
  return ta.getShape() == tb.getShape();
}

/// True when both have one shape and one element type (encodings aside).
static bool sameShapeAndElement(Type a, Type b) {
  return sameShape(a, b) && getElementTypeOrSelf(a) == getElementTypeOrSelf(b);
}

static LogicalResult verifyAxis(Operation *op, int32_t axis) {
  if (axis < 0 || axis > 2)
    return op->emitOpError("axis must be 0, 1 or 2, got ") << axis;
  return success();
}

/// Checks an optional mask against the pointers it guards.
static LogicalResult verifyMask(Operation *op, Value mask, Type ptrType) {
  if (mask && !sameShape(mask.getType(), ptrType))
    return op->emitOpError("mask type ")
           << mask.getType() << " does not match the shape of the pointers "
           << ptrType;
  return success();
}

/// Checks that `value` has the pointee type and the shape of the pointers.
static LogicalResult verifyPointee(Operation *op, StringRef what, Type type,
                                   Type ptrType) {
  Type expected = getPointeeTypeSameShape(ptrType);
  if (!sameShapeAndElement(type, expected))
    return op->emitOpError()
           << what << " type " << type << " does not match the pointers "
           << ptrType << " (expected " << expected << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Custom assembly of the memory ops:
//   op operands (keyword = value)* (keyword)* attr-dict `:` pointer-type
//===----------------------------------------------------------------------===//

/// Parses `name = <enum case>` if the keyword `name` comes next.
template <typename AttrT>
static ParseResult parseOptionalEnum(OpAsmParser &parser,
                                     OperationState &result, StringRef name) {
  if (failed(parser.parseOptionalKeyword(name)))
    return success();
  StringRef value;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseEqual() || parser.parseKeyword(&value))
    return failure();
  auto sym = symbolizeEnum<decltype(std::declval<AttrT>().getValue())>(value);
  if (!sym)
    return parser.emitError(loc, "unknown ")
           << name << " value '" << value << "'";
  result.addAttribute(name, AttrT::get(parser.getContext(), *sym));
  return success();
}

/// Parses up to `max` comma-separated operands after the first.
static ParseResult
parseOperandList(OpAsmParser &parser,
                 SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                 unsigned min, unsigned max) {
  OpAsmParser::UnresolvedOperand first;
  if (parser.parseOperand(first))
    return failure();
  operands.push_back(first);
  while (operands.size() < max && succeeded(parser.parseOptionalComma())) {
    OpAsmParser::UnresolvedOperand next;
    if (parser.parseOperand(next))
      return failure();
    operands.push_back(next);
  }
  if (operands.size() < min)
    return parser.emitError(parser.getCurrentLocation())
           << "expected " << min << " operands";
  return success();
}

/// Parses `attr-dict : type` where type is a pointer or tile of pointers.
static ParseResult parsePointerTypeSuffix(OpAsmParser &parser,
                                          OperationState &result,
                                          Type &ptrType) {
  SMLoc loc;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon())
    return failure();
  loc = parser.getCurrentLocation();
  if (parser.parseType(ptrType))
    return failure();
  if (!getPointeeTypeSameShape(ptrType))
    return parser.emitError(loc, "expected a !tile.ptr or a tile of them, got ")
           << ptrType;
  return success();
}

static void printOperandsAndKeywords(OpAsmPrinter &p, Operation *op,
                                     ArrayRef<StringRef> elided) {
  p.printOptionalAttrDict(op->getAttrs(), elided);
}

//===----------------------------------------------------------------------===//
// ProgramIdOp, NumProgramsOp, RangeOp
//===----------------------------------------------------------------------===//

LogicalResult ProgramIdOp::verify() { return verifyAxis(*this, getAxis()); }
LogicalResult NumProgramsOp::verify() { return verifyAxis(*this, getAxis()); }

LogicalResult GroupedIdsOp::verify() {
  if (getGroup() < 1)
    return emitOpError("group ") << getGroup() << " must be at least 1";
  return success();
}

LogicalResult RangeOp::verify() {
  int64_t start = getStart(), end = getEnd();
  if (end <= start)
    return emitOpError("end (")
           << end << ") must be greater than start (" << start << ")";
  RankedTensorType type = getType();
  if (type.getRank() != 1 || type.getDimSize(0) != end - start)
    return emitOpError("result type ")
           << type << " must be a 1-D tile of " << end - start
           << " elements (end - start)";
  if (getOffset() && getBlock())
    return emitOpError("takes an offset or a block index, not both");
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

LogicalResult SplatOp::verify() {
  if (getType().getElementType() != getSrc().getType())
    return emitOpError("result element type ")
           << getType().getElementType() << " differs from the scalar type "
           << getSrc().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType();
  auto dst = getType();
  if (src.getElementType() != dst.getElementType())
    return emitOpError("cannot change the element type from ")
           << src.getElementType() << " to " << dst.getElementType();
  if (src.getRank() != dst.getRank())
    return emitOpError("source ")
           << src << " and result " << dst
           << " differ in rank; use tile.expand_dims first";
  for (int64_t i = 0; i < src.getRank(); ++i)
    if (src.getDimSize(i) != dst.getDimSize(i) && src.getDimSize(i) != 1)
      return emitOpError("cannot broadcast dimension ")
             << i << " of size " << src.getDimSize(i) << " to "
             << dst.getDimSize(i) << " (" << src << " -> " << dst
             << "); only dimensions of size 1 broadcast";
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType();
  auto dst = getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > src.getRank())
    return emitOpError("axis ")
           << axis << " is out of range for a tile of rank " << src.getRank()
           << " (0.." << src.getRank() << ")";
  // The new dimension has size 1, or any size (the source repeated along
  // it: the text shorthand for expand_dims then broadcast).
  SmallVector<int64_t> shape(src.getShape());
  int64_t size = dst.getRank() == src.getRank() + 1 ? dst.getDimSize(axis) : 1;
  shape.insert(shape.begin() + axis, size);
  if (dst.getShape() != ArrayRef<int64_t>(shape) ||
      dst.getElementType() != src.getElementType())
    return emitOpError("result ")
           << dst << " is not " << src << " with a dimension at " << axis
           << " (of size 1, or the source repeated along it)";
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType();
  auto dst = getType();
  if (src.getElementType() != dst.getElementType())
    return emitOpError("cannot change the element type from ")
           << src.getElementType() << " to " << dst.getElementType();
  if (src.getNumElements() != dst.getNumElements())
    return emitOpError("cannot reshape ")
           << src << " (" << src.getNumElements() << " elements) to " << dst
           << " (" << dst.getNumElements() << " elements)";
  return success();
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType();
  auto dst = getType();
  ArrayRef<int32_t> order = getOrder();
  if ((int64_t)order.size() != src.getRank())
    return emitOpError("order has ")
           << order.size() << " entries but the tile has rank "
           << src.getRank();
  SmallVector<bool> seen(order.size(), false);
  for (int32_t d : order) {
    if (d < 0 || d >= (int32_t)order.size() || seen[d])
      return emitOpError("order must be a permutation of 0..")
             << order.size() - 1;
    seen[d] = true;
  }
  if (src.getElementType() != dst.getElementType())
    return emitOpError("cannot change the element type");
  for (auto [i, d] : llvm::enumerate(order))
    if (dst.getDimSize(i) != src.getDimSize(d))
      return emitOpError("result ")
             << dst << " is not " << src << " permuted by the order";
  return success();
}

LogicalResult JoinOp::verify() {
  auto lhs = getLhs().getType();
  // lhs and rhs have one type (AllTypesMatch).
  SmallVector<int64_t> shape(lhs.getShape());
  shape.push_back(2);
  if (getType().getShape() != ArrayRef<int64_t>(shape) ||
      getType().getElementType() != lhs.getElementType())
    return emitOpError("result ") << getType() << " is not " << lhs
                                  << " with a new minor dimension of size 2";
  return success();
}

LogicalResult SplitOp::verify() {
  auto src = getSrc().getType();
  if (src.getRank() == 0 || src.getShape().back() != 2)
    return emitOpError("source ") << src << " must have a minor dimension of 2";
  for (Type t : {getLhs().getType(), getRhs().getType()}) {
    auto r = cast<RankedTensorType>(t);
    if (r.getShape() != src.getShape().drop_back() ||
        r.getElementType() != src.getElementType())
      return emitOpError("result ")
             << r << " is not " << src << " without its minor dimension";
  }
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  if (!sameShapeAndElement(getSrc().getType(), getType()))
    return emitOpError("may change only the layout, not ")
           << getSrc().getType() << " to " << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Pointers
//===----------------------------------------------------------------------===//

/// A scalar base with a tile of offsets gives a tile of pointers.
LogicalResult AddPtrOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 2)
    return failure();
  Type ptr = operands[0].getType();
  auto offsets = dyn_cast<RankedTensorType>(operands[1].getType());
  if (isa<PointerType>(ptr) && offsets)
    inferred.push_back(RankedTensorType::get(offsets.getShape(), ptr));
  else
    inferred.push_back(ptr);
  return success();
}

LogicalResult AddPtrOp::verify() {
  Type ptr = getPtr().getType();
  if (isa<PointerType>(ptr) && isa<RankedTensorType>(getOffset().getType()))
    return success(); // one base, a tile of offsets
  if (isa<RankedTensorType>(ptr) && isa<IntegerType>(getOffset().getType()))
    return success(); // a tile of pointers, one offset
  if (!sameShape(ptr, getOffset().getType()))
    return emitOpError("offset type ")
           << getOffset().getType() << " does not match the shape of " << ptr;
  return success();
}

LogicalResult BitcastOp::verify() {
  if (!sameShape(getSrc().getType(), getType()))
    return emitOpError("cannot change the shape from ")
           << getSrc().getType() << " to " << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp
//===----------------------------------------------------------------------===//

void LoadOp::build(OpBuilder &builder, OperationState &state, Value ptr,
                   Value mask, Value other) {
  build(builder, state, getPointeeTypeSameShape(ptr.getType()), ptr, mask,
        other, CacheModifier::none, EvictionPolicy::normal,
        /*isVolatile=*/false);
}

LogicalResult LoadOp::verify() {
  CacheModifier c = getCache();
  if (c == CacheModifier::wb || c == CacheModifier::wt)
    return emitOpError("cache modifier '")
           << stringifyCacheModifier(c)
           << "' is for stores; loads take ca, cg, cs or cv";
  if (getIsVolatile() &&
      (c != CacheModifier::none || getEvict() != EvictionPolicy::normal))
    return emitOpError(
        "a volatile load takes no cache modifier or eviction policy");
  // PTX's ld has either a cache operator or an eviction priority.
  if (c != CacheModifier::none && getEvict() != EvictionPolicy::normal)
    return emitOpError("PTX cannot combine a cache modifier with an "
                       "eviction policy; give one of them");
  Type ptr = getPtr().getType();
  if (failed(verifyMask(*this, getMask(), ptr)) ||
      failed(verifyPointee(*this, "result", getType(), ptr)))
    return failure();
  if (getOther()) {
    if (!getMask())
      return emitOpError("'other' needs a mask");
    if (getOther().getType() != getType())
      return emitOpError("other type ")
             << getOther().getType() << " must be the result type "
             << getType();
  }
  return success();
}

ParseResult LoadOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  if (parseOperandList(parser, operands, 1, 3) ||
      parseOptionalEnum<CacheModifierAttr>(parser, result, "cache") ||
      parseOptionalEnum<EvictionPolicyAttr>(parser, result, "evict"))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("volatile")))
    result.addAttribute("isVolatile", parser.getBuilder().getUnitAttr());
  Type ptrType;
  if (parsePointerTypeSuffix(parser, result, ptrType))
    return failure();
  Type valueType = getPointeeTypeSameShape(ptrType);
  SmallVector<Type> types = {ptrType, getI1SameShape(ptrType), valueType};
  types.resize(operands.size());
  if (parser.resolveOperands(operands, types, parser.getNameLoc(),
                             result.operands))
    return failure();
  result.getOrAddProperties<Properties>().operandSegmentSizes = {
      1, operands.size() > 1 ? 1 : 0, operands.size() > 2 ? 1 : 0};
  result.addTypes(valueType);
  return success();
}

void LoadOp::print(OpAsmPrinter &p) {
  p << " " << getPtr();
  if (getMask())
    p << ", " << getMask();
  if (getOther())
    p << ", " << getOther();
  if (getCache() != CacheModifier::none)
    p << " cache = " << stringifyCacheModifier(getCache());
  if (getEvict() != EvictionPolicy::normal)
    p << " evict = " << stringifyEvictionPolicy(getEvict());
  if (getIsVolatile())
    p << " volatile";
  printOperandsAndKeywords(
      p, *this, {"cache", "evict", "isVolatile", "operandSegmentSizes"});
  p << " : " << getPtr().getType();
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
  if (getIsVolatile())
    effects.emplace_back(MemoryEffects::Write::get(),
                         SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// StoreOp
//===----------------------------------------------------------------------===//

LogicalResult StoreOp::verify() {
  CacheModifier c = getCache();
  if (c == CacheModifier::ca || c == CacheModifier::cv)
    return emitOpError("cache modifier '")
           << stringifyCacheModifier(c)
           << "' is for loads; stores take wb, cg, cs or wt";
  if (c != CacheModifier::none && getEvict() != EvictionPolicy::normal)
    return emitOpError("PTX cannot combine a cache modifier with an "
                       "eviction policy; give one of them");
  Type ptr = getPtr().getType();
  if (failed(verifyMask(*this, getMask(), ptr)))
    return failure();
  return verifyPointee(*this, "value", getValue().getType(), ptr);
}

ParseResult StoreOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  if (parseOperandList(parser, operands, 2, 3) ||
      parseOptionalEnum<CacheModifierAttr>(parser, result, "cache") ||
      parseOptionalEnum<EvictionPolicyAttr>(parser, result, "evict"))
    return failure();
  Type ptrType;
  if (parsePointerTypeSuffix(parser, result, ptrType))
    return failure();
  SmallVector<Type> types = {ptrType, getPointeeTypeSameShape(ptrType),
                             getI1SameShape(ptrType)};
  types.resize(operands.size());
  return parser.resolveOperands(operands, types, parser.getNameLoc(),
                                result.operands);
}

void StoreOp::print(OpAsmPrinter &p) {
  p << " " << getPtr() << ", " << getValue();
  if (getMask())
    p << ", " << getMask();
  if (getCache() != CacheModifier::none)
    p << " cache = " << stringifyCacheModifier(getCache());
  if (getEvict() != EvictionPolicy::normal)
    p << " evict = " << stringifyEvictionPolicy(getEvict());
  printOperandsAndKeywords(p, *this, {"cache", "evict"});
  p << " : " << getPtr().getType();
}

void StoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// Tensor descriptor loads and stores
//===----------------------------------------------------------------------===//

bool mlir::tile::isDescriptorBlock(TensorDescType desc, Type tile) {
  auto t = dyn_cast<RankedTensorType>(tile);
  RankedTensorType block = desc.getBlockType();
  if (!t || t.getElementType() != block.getElementType() ||
      t.getRank() > block.getRank() || t.getRank() == 0)
    return false;
  ArrayRef<int64_t> shape = block.getShape();
  size_t dropped = shape.size() - size_t(t.getRank());
  return llvm::all_of(shape.take_front(dropped),
                      [](int64_t d) { return d == 1; }) &&
         shape.drop_front(dropped) == t.getShape();
}

/// Checks the offsets and the tile (`what`) against the descriptor's block.
static LogicalResult verifyDescriptorAccess(Operation *op, Value desc,
                                            ValueRange offsets, StringRef what,
                                            Type tile) {
  auto type = cast<TensorDescType>(desc.getType());
  if (int64_t(offsets.size()) != type.getRank())
    return op->emitOpError("has ")
           << offsets.size() << " offset" << (offsets.size() == 1 ? "" : "s")
           << ", but the descriptor is " << type.getRank()
           << "-D (one offset per dimension, outermost first)";
  if (!isDescriptorBlock(type, tile))
    return op->emitOpError("expects the ")
           << what << " to be the descriptor's block "
           << type.getBlockType()
           << " (or that block without leading dimensions of 1), got "
           << tile;
  return success();
}

LogicalResult DescriptorLoadOp::verify() {
  return verifyDescriptorAccess(*this, getDesc(), getOffsets(), "result",
                                getType());
}

void DescriptorLoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
}

LogicalResult DescriptorStoreOp::verify() {
  if (failed(verifyDescriptorAccess(*this, getDesc(), getOffsets(), "value",
                                    getValue().getType())))
    return failure();
  if (std::optional<RMWKind> kind = getReduce())
    if (std::optional<std::string> error = checkDescriptorReduce(
            *kind, getDesc().getType().getElementType()))
      return emitOpError(*error);
  return success();
}

ParseResult mlir::tile::parseDescriptorReduce(OpAsmParser &parser,
                                              RMWKindAttr &kind) {
  if (failed(parser.parseOptionalKeyword("reduce")))
    return success();
  SMLoc at = parser.getCurrentLocation();
  StringRef word;
  if (parser.parseKeyword(&word))
    return failure();
  std::optional<RMWKind> k = symbolizeRMWKind(word);
  if (!k)
    return parser.emitError(at, "expected a reduction (fadd or add) after "
                                "'reduce', got '")
           << word << "'";
  kind = RMWKindAttr::get(parser.getContext(), *k);
  return success();
}

void mlir::tile::printDescriptorReduce(OpAsmPrinter &p, Operation *,
                                       RMWKindAttr kind) {
  if (kind)
    p << " reduce " << stringifyRMWKind(kind.getValue());
}

std::optional<std::string> mlir::tile::checkDescriptorReduce(RMWKind kind,
                                                             Type element) {
  std::string have;
  llvm::raw_string_ostream os(have);
  os << element;
  if (kind == RMWKind::FAdd) {
    if (element.isF32() || element.isF16() || element.isBF16())
      return std::nullopt;
    return "reduce fadd needs f32, f16 or bf16 elements, got " + have;
  }
  if (kind == RMWKind::Add) {
    if (element.isInteger(32))
      return std::nullopt;
    return "reduce add needs i32 elements, got " + have;
  }
  return "a descriptor store reduces with fadd (f32, f16, bf16) or add "
         "(i32), not " +
         stringifyRMWKind(kind).str() +
         " (the TMA's min, max and bitwise reductions are not supported)";
}

void DescriptorStoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // A reduction reads what it combines with.
  if (getReduce())
    effects.emplace_back(MemoryEffects::Read::get(),
                         SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

/// Parses the optional `sem = X scope = Y` of an atomic.
static ParseResult parseAtomicOrdering(OpAsmParser &parser,
                                       OperationState &result) {
  if (parseOptionalEnum<MemSemanticAttr>(parser, result, "sem") ||
      parseOptionalEnum<MemScopeAttr>(parser, result, "scope"))
    return failure();
  return success();
}

static void printAtomicOrdering(OpAsmPrinter &p, MemSemantic sem,
                                MemScope scope) {
  if (sem != MemSemantic::acq_rel)
    p << " sem = " << stringifyMemSemantic(sem);
  if (scope != MemScope::gpu)
    p << " scope = " << stringifyMemScope(scope);
}

LogicalResult AtomicRMWOp::verify() {
  Type ptr = getPtr().getType();
  if (failed(verifyMask(*this, getMask(), ptr)) ||
      failed(verifyPointee(*this, "value", getVal().getType(), ptr)))
    return failure();
  if (getType() != getVal().getType())
    return emitOpError("result type ")
           << getType() << " must be the value type " << getVal().getType();
  Type elem = getElementTypeOrSelf(getVal().getType());
  unsigned width = elem.getIntOrFloatBitWidth();
  bool isInt = isa<IntegerType>(elem), isFloat = isa<FloatType>(elem);
  bool ok = false;
  switch (getKind()) {
  case RMWKind::Add:
  case RMWKind::UMax:
  case RMWKind::UMin:
  case RMWKind::And:
  case RMWKind::Or:
  case RMWKind::Xor:
    ok = isInt && (width == 32 || width == 64);
    break;
  case RMWKind::Max:
  case RMWKind::Min:
    ok = (isInt || isFloat) && (width == 32 || width == 64);
    break;
  case RMWKind::FAdd:
    ok = isFloat && (elem.isF16() || elem.isBF16() || width >= 32);
    break;
  case RMWKind::Xchg:
    ok = width == 32 || width == 64;
    break;
  }
  if (!ok)
    return emitOpError("atomic '")
           << stringifyRMWKind(getKind()) << "' does not support element type "
           << elem;
  return success();
}

ParseResult AtomicRMWOp::parse(OpAsmParser &parser, OperationState &result) {
  StringRef kindName;
  SMLoc kindLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&kindName))
    return failure();
  auto kind = symbolizeRMWKind(kindName);
  if (!kind)
    return parser.emitError(kindLoc, "unknown atomic kind '")
           << kindName << "'";
  result.addAttribute("kind", RMWKindAttr::get(parser.getContext(), *kind));
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  Type ptrType;
  if (parseOperandList(parser, operands, 2, 3) ||
      parseAtomicOrdering(parser, result) ||
      parsePointerTypeSuffix(parser, result, ptrType))
    return failure();
  Type valueType = getPointeeTypeSameShape(ptrType);
  SmallVector<Type> types = {ptrType, valueType, getI1SameShape(ptrType)};
  types.resize(operands.size());
  if (parser.resolveOperands(operands, types, parser.getNameLoc(),
                             result.operands))
    return failure();
  result.addTypes(valueType);
  return success();
}

void AtomicRMWOp::print(OpAsmPrinter &p) {
  p << " " << stringifyRMWKind(getKind()) << " " << getPtr() << ", "
    << getVal();
  if (getMask())
    p << ", " << getMask();
  printAtomicOrdering(p, getSem(), getScope());
  printOperandsAndKeywords(p, *this, {"kind", "sem", "scope"});
  p << " : " << getPtr().getType();
}

LogicalResult OuterOp::verify() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto rhs = cast<RankedTensorType>(getRhs().getType());
  if (lhs.getRank() != 1 || rhs.getRank() != 1)
    return emitOpError("combines two 1-D tiles, got ")
           << lhs << " and " << rhs;
  Type elem = lhs.getElementType();
  if (elem != rhs.getElementType())
    return emitOpError("operands have element types ")
           << elem << " and " << rhs.getElementType();
  auto result = cast<RankedTensorType>(getType());
  if (result.getShape() !=
          ArrayRef<int64_t>{lhs.getDimSize(0), rhs.getDimSize(0)} ||
      result.getElementType() != elem)
    return emitOpError("result ")
           << result << " is not the " << lhs.getDimSize(0) << "x"
           << rhs.getDimSize(0) << " tile of " << elem;
  bool logical = getKind() == OuterKind::And || getKind() == OuterKind::Or ||
                 getKind() == OuterKind::Xor;
  bool ok = logical ? elem.isSignlessInteger()
                    : (elem.isSignlessInteger() && !elem.isInteger(1)) ||
                          isa<FloatType>(elem);
  if (!ok)
    return emitOpError("'")
           << stringifyOuterKind(getKind()) << "' does not take " << elem
           << (logical ? " tiles (integers or i1)"
                       : " tiles (integers or floats)");
  return success();
}

ParseResult OuterOp::parse(OpAsmParser &parser, OperationState &result) {
  StringRef kindName;
  SMLoc kindLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&kindName))
    return failure();
  auto kind = symbolizeOuterKind(kindName);
  if (!kind)
    return parser.emitError(kindLoc, "unknown outer operation '")
           << kindName << "' (add, sub, mul, and, or, xor)";
  result.addAttribute("kind", OuterKindAttr::get(parser.getContext(), *kind));
  Type lhsType, rhsType;
  SMLoc typesLoc;
  if (detail::parseBinaryOperands(parser, result, lhsType, rhsType, typesLoc))
    return failure();
  auto l = dyn_cast<RankedTensorType>(lhsType);
  auto r = dyn_cast<RankedTensorType>(rhsType);
  if (!l || !r || l.getRank() != 1 || r.getRank() != 1)
    return parser.emitError(typesLoc, "tile.outer combines two 1-D tiles, got ")
           << lhsType << " and " << rhsType;
  result.addTypes(RankedTensorType::get({l.getDimSize(0), r.getDimSize(0)},
                                        l.getElementType()));
  return success();
}

void OuterOp::print(OpAsmPrinter &p) {
  p << " " << stringifyOuterKind(getKind()) << " " << getLhs() << ", "
    << getRhs();
  p.printOptionalAttrDict((*this)->getAttrs(), {"kind"});
  p << " : " << getLhs().getType() << ", " << getRhs().getType();
}

void AtomicRMWOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}

LogicalResult AtomicCASOp::verify() {
  Type ptr = getPtr().getType();
  if (failed(verifyPointee(*this, "compare", getCmp().getType(), ptr)) ||
      failed(verifyPointee(*this, "value", getVal().getType(), ptr)))
    return failure();
  if (getType() != getVal().getType())
    return emitOpError("result type ")
           << getType() << " must be the value type " << getVal().getType();
  unsigned width =
      getElementTypeOrSelf(getVal().getType()).getIntOrFloatBitWidth();
  if (width != 16 && width != 32 && width != 64)
    return emitOpError("compare-and-swap needs 16, 32 or 64-bit elements, "
                       "not ")
           << getElementTypeOrSelf(getVal().getType());
  return success();
}

ParseResult AtomicCASOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  Type ptrType;
  if (parseOperandList(parser, operands, 3, 3) ||
      parseAtomicOrdering(parser, result) ||
      parsePointerTypeSuffix(parser, result, ptrType))
    return failure();
  Type valueType = getPointeeTypeSameShape(ptrType);
  if (parser.resolveOperands(operands, {ptrType, valueType, valueType},
                             parser.getNameLoc(), result.operands))
    return failure();
  result.addTypes(valueType);
  return success();
}

void AtomicCASOp::print(OpAsmPrinter &p) {
  p << " " << getPtr() << ", " << getCmp() << ", " << getVal();
  printAtomicOrdering(p, getSem(), getScope());
  printOperandsAndKeywords(p, *this, {"sem", "scope"});
  p << " : " << getPtr().getType();
}

void AtomicCASOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// ReduceOp, ScanOp
//===----------------------------------------------------------------------===//

/// Checks the sources, the axis and the combiner block shared by reduce and
/// scan: 2N scalar arguments (accumulators, then new values) and a yield of N.
static LogicalResult verifyCombiner(Operation *op, ValueRange srcs,
                                    int32_t axis, Region &combiner) {
  if (srcs.empty())
    return op->emitOpError("needs at least one source tile");
  auto first = cast<RankedTensorType>(srcs.front().getType());
  for (Value src : srcs.drop_front())
    if (cast<RankedTensorType>(src.getType()).getShape() != first.getShape())
      return op->emitOpError("sources ")
             << first << " and " << src.getType() << " differ in shape";
  if (axis < 0 || axis >= first.getRank())
    return op->emitOpError("axis ")
           << axis << " is out of range for tiles of rank " << first.getRank();

  SmallVector<Type> elems;
  for (Value src : srcs)
    elems.push_back(cast<RankedTensorType>(src.getType()).getElementType());
  Block &block = combiner.front();
  SmallVector<Type> expected(elems);
  expected.append(elems.begin(), elems.end());
  if (block.getArgumentTypes() != TypeRange(expected)) {
    InFlightDiagnostic diag = op->emitOpError(
        "combiner must take the accumulators then the new values, (");
    llvm::interleaveComma(expected, diag);
    diag << "), but takes (";
    llvm::interleaveComma(block.getArgumentTypes(), diag);
    return diag << ")";
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError("combiner must end with tile.yield");
  if (yield.getValues().getTypes() != TypeRange(elems)) {
    InFlightDiagnostic diag = op->emitOpError("combiner must yield (");
    llvm::interleaveComma(elems, diag);
    diag << "), but yields (";
    llvm::interleaveComma(yield.getValues().getTypes(), diag);
    return diag << ")";
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  if (failed(verifyCombiner(*this, getSrcs(), getAxis(), getCombineOp())))
    return failure();
  if (getNumResults() != getSrcs().size())
    return emitOpError("has ") << getSrcs().size() << " sources but "
                               << getNumResults() << " results";
  for (auto [src, res] : llvm::zip(getSrcs(), getResults())) {
    auto srcType = cast<RankedTensorType>(src.getType());
    SmallVector<int64_t> shape(srcType.getShape());
    shape.erase(shape.begin() + getAxis());
    bool ok = getElementTypeOrSelf(res.getType()) == srcType.getElementType();
    if (shape.empty())
      ok &= !isa<RankedTensorType>(res.getType());
    else
      ok &= isa<RankedTensorType>(res.getType()) &&
            getShapeOrEmpty(res.getType()) == ArrayRef<int64_t>(shape);
    if (!ok)
      return emitOpError("reducing ") << srcType << " along axis " << getAxis()
                                      << " cannot give " << res.getType();
  }
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  if (failed(verifyCombiner(*this, getSrcs(), getAxis(), getCombineOp())))
    return failure();
  if (getNumResults() != getSrcs().size())
    return emitOpError("has ") << getSrcs().size() << " sources but "
                               << getNumResults() << " results";
  for (auto [src, res] : llvm::zip(getSrcs(), getResults()))
    if (!sameShapeAndElement(src.getType(), res.getType()))
      return emitOpError("result ")
             << res.getType() << " must have the source's type "
             << src.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// DotOp
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto c = cast<RankedTensorType>(getC().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands must be 2-D tiles, got ")
           << a << ", " << b << " and " << c;
  int64_t m = a.getDimSize(0), k = a.getDimSize(1), n = b.getDimSize(1);
  if (b.getDimSize(0) != k)
    return emitOpError("inner dimensions differ: ")
           << a << " * " << b << " (K = " << k << " vs " << b.getDimSize(0)
           << ")";
  if (c.getDimSize(0) != m || c.getDimSize(1) != n)
    return emitOpError("accumulator ")
           << c << " must be " << m << "x" << n << " for " << a << " * " << b;
  Type ea = a.getElementType(), eb = b.getElementType(),
       ec = c.getElementType();
  // fp8 formats mix (e4m3 * e5m2, as wgmma takes them); others match.
  if (ea != eb && !(isFp8(ea) && isFp8(eb)))
    return emitOpError("operand element types differ: ") << ea << " and " << eb;
  bool okIn = ea.isF16() || ea.isBF16() || ea.isF32() || ea.isInteger(8) ||
              isFp8(ea);
  if (!okIn)
    return emitOpError("operand element type ")
           << ea << " is not one of f16, bf16, f32, f8E4M3FN, f8E5M2, i8";
  bool okAcc = ea.isInteger(8) ? ec.isInteger(32)
                               : (ec.isF32() || (ea.isF16() && ec.isF16()));
  if (!okAcc)
    return emitOpError("accumulator element type ")
           << ec << " cannot accumulate " << ea << " products (use "
           << (ea.isInteger(8) ? "i32" : "f32") << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Debug ops
//===----------------------------------------------------------------------===//

void PrintOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}

void AssertOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.cpp.inc"
