//===- TileEach.cpp - tile.each: an arith op with a scalar operand --------===//
//
// tile.each names a binary arith op and applies it between a tile and one
// scalar, the splat folded in. The kind says which element types it takes
// (the integer ops, the float ops, the two comparisons with a predicate);
// the verifier checks what the expanded arith op would need, so a wrong use
// is an error at the tile.each and not at an op the user never wrote.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "BinaryOperands.h"
#include "ExpandPattern.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
enum class Operands { Integers, Floats };
} // namespace

static bool isComparison(EachKind kind) {
  return kind == EachKind::cmpi || kind == EachKind::cmpf;
}

/// The integer kinds come before addf in the enum, the float ones after.
static Operands operandsOf(EachKind kind) {
  if (kind == EachKind::cmpi)
    return Operands::Integers;
  return static_cast<uint32_t>(kind) < static_cast<uint32_t>(EachKind::addf)
             ? Operands::Integers
             : Operands::Floats;
}

static std::string kindList() {
  std::string list;
  for (uint32_t i = 0; i <= getMaxEnumValForEachKind(); ++i)
    list += (i ? ", " : "") + stringifyEachKind(static_cast<EachKind>(i)).str();
  return list;
}

/// The tile of `lhs` and `rhs` when exactly one is a tile and the other a
/// scalar of its element type; null otherwise.
static RankedTensorType tileOf(Type lhs, Type rhs) {
  auto l = dyn_cast<RankedTensorType>(lhs);
  auto r = dyn_cast<RankedTensorType>(rhs);
  if (l && !r && l.getElementType() == rhs)
    return l;
  if (r && !l && r.getElementType() == lhs)
    return r;
  return {};
}

static RankedTensorType resultOf(EachKind kind, RankedTensorType tile) {
  if (!isComparison(kind))
    return tile;
  return RankedTensorType::get(tile.getShape(),
                               IntegerType::get(tile.getContext(), 1),
                               tile.getEncoding());
}

LogicalResult EachOp::verify() {
  RankedTensorType tile = tileOf(getLhs().getType(), getRhs().getType());
  if (!tile)
    return emitOpError("takes a tile and a scalar of its element type, got ")
           << getLhs().getType() << " and " << getRhs().getType();
  Type elem = tile.getElementType();
  bool integers = operandsOf(getKind()) == Operands::Integers;
  if (integers ? !elem.isSignlessInteger() : !isa<FloatType>(elem))
    return emitOpError("'")
           << stringifyEachKind(getKind()) << "' takes "
           << (integers ? "integers" : "floats") << ", not " << elem;
  if (isComparison(getKind()) != getPredicate().has_value())
    return emitOpError(isComparison(getKind())
                           ? "a comparison needs a predicate"
                           : "only cmpi and cmpf take a predicate");
  if (getKind() == EachKind::cmpi &&
      !arith::symbolizeCmpIPredicate(*getPredicate()))
    return emitOpError("predicate ") << *getPredicate() << " is not a cmpi's";
  if (getKind() == EachKind::cmpf &&
      !arith::symbolizeCmpFPredicate(*getPredicate()))
    return emitOpError("predicate ") << *getPredicate() << " is not a cmpf's";
  if (getType() != resultOf(getKind(), tile))
    return emitOpError("result ") << getType() << " must be "
                                  << resultOf(getKind(), tile);
  return success();
}

ParseResult EachOp::parse(OpAsmParser &parser, OperationState &result) {
  StringRef kindName;
  SMLoc kindLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&kindName))
    return failure();
  std::optional<EachKind> kind = symbolizeEachKind(kindName);
  if (!kind)
    return parser.emitError(kindLoc, "unknown arith op '")
           << kindName << "' for tile.each (" << kindList() << ")";
  result.addAttribute("kind", EachKindAttr::get(parser.getContext(), *kind));
  if (isComparison(*kind)) {
    StringRef predName;
    SMLoc predLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&predName) || parser.parseComma())
      return failure();
    std::optional<int64_t> pred;
    if (*kind == EachKind::cmpi) {
      if (auto p = arith::symbolizeCmpIPredicate(predName))
        pred = static_cast<int64_t>(*p);
    } else if (auto p = arith::symbolizeCmpFPredicate(predName)) {
      pred = static_cast<int64_t>(*p);
    }
    if (!pred)
      return parser.emitError(predLoc, "unknown ")
             << kindName << " predicate '" << predName << "'";
    result.addAttribute("predicate",
                        parser.getBuilder().getI64IntegerAttr(*pred));
  }
  Type lhsType, rhsType;
  SMLoc typesLoc;
  if (detail::parseBinaryOperands(parser, result, lhsType, rhsType, typesLoc))
    return failure();
  RankedTensorType tile = tileOf(lhsType, rhsType);
  if (!tile)
    return parser.emitError(typesLoc, "tile.each takes a tile and a scalar of "
                                      "its element type, got ")
           << lhsType << " and " << rhsType
           << (isa<RankedTensorType>(lhsType) &&
                       isa<RankedTensorType>(rhsType)
                   ? " (for two tiles write the arith op)"
                   : "");
  result.addTypes(resultOf(*kind, tile));
  return success();
}

void EachOp::print(OpAsmPrinter &p) {
  p << " " << stringifyEachKind(getKind()) << " ";
  if (getKind() == EachKind::cmpi)
    p << arith::stringifyCmpIPredicate(
             static_cast<arith::CmpIPredicate>(*getPredicate()))
      << ", ";
  else if (getKind() == EachKind::cmpf)
    p << arith::stringifyCmpFPredicate(
             static_cast<arith::CmpFPredicate>(*getPredicate()))
      << ", ";
  p << getLhs() << ", " << getRhs();
  p.printOptionalAttrDict((*this)->getAttrs(), {"kind", "predicate"});
  p << " : " << getLhs().getType() << ", " << getRhs().getType();
}

/// each(kind, tile, scalar) -> arith.kind(tile, splat(scalar)), either side.
LogicalResult mlir::tile::expandEach(RewriterBase &rewriter, EachOp op) {
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value lhs = op.getLhs(), rhs = op.getRhs();
  RankedTensorType tile = tileOf(lhs.getType(), rhs.getType());
  Value &scalar = isa<RankedTensorType>(lhs.getType()) ? rhs : lhs;
  scalar = SplatOp::create(rewriter, loc, tile, scalar);
  Operation *arith;
  if (op.getKind() == EachKind::cmpi) {
    arith = arith::CmpIOp::create(
        rewriter, loc, static_cast<arith::CmpIPredicate>(*op.getPredicate()),
        lhs, rhs);
  } else if (op.getKind() == EachKind::cmpf) {
    arith = arith::CmpFOp::create(
        rewriter, loc, static_cast<arith::CmpFPredicate>(*op.getPredicate()),
        lhs, rhs);
  } else {
    // The kind is the arith op's name; its properties (overflow flags,
    // fast-math) take their defaults, as the op written out would.
    OperationState state(loc,
                         ("arith." + stringifyEachKind(op.getKind())).str());
    state.addOperands({lhs, rhs});
    state.addTypes(tile);
    arith = rewriter.create(state);
  }
  rewriter.replaceOp(op, arith->getResults());
  return success();
}

void EachOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<detail::ExpandPattern<EachOp, expandEach>>(context);
}
