//===- BinaryOperands.h - `%a, %b {attrs} : T1, T2` of tile's binary forms -===//
//
// The operand tail that tile.outer and tile.each share: two operands, an
// optional attribute dictionary, a colon and the two operand types. Private
// to the tile dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILE_IR_BINARYOPERANDS_H
#define TILEC_LIB_DIALECT_TILE_IR_BINARYOPERANDS_H

#include "mlir/IR/OpImplementation.h"

namespace mlir::tile::detail {

/// Parses `%lhs, %rhs attr-dict : lhsType, rhsType` into `result`'s
/// operands and attributes; `typesLoc` is where the types start (for the
/// caller's type errors).
inline ParseResult parseBinaryOperands(OpAsmParser &parser,
                                       OperationState &result, Type &lhsType,
                                       Type &rhsType, SMLoc &typesLoc) {
  OpAsmParser::UnresolvedOperand lhs, rhs;
  if (parser.parseOperand(lhs) || parser.parseComma() ||
      parser.parseOperand(rhs) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon())
    return failure();
  typesLoc = parser.getCurrentLocation();
  return failure(parser.parseType(lhsType) || parser.parseComma() ||
                 parser.parseType(rhsType) ||
                 parser.resolveOperand(lhs, lhsType, result.operands) ||
                 parser.resolveOperand(rhs, rhsType, result.operands));
}

} // namespace mlir::tile::detail

#endif // TILEC_LIB_DIALECT_TILE_IR_BINARYOPERANDS_H
