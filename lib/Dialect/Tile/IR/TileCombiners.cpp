//===- TileCombiners.cpp - the named combiners of reduce and scan ---------===//
//
// Each name is one arith op on the accumulator and the new value (the float
// or the integer op, by the element type), except argmax/argmin, which
// reduce a value tile and an index tile together and keep the first index
// of the largest (smallest) value.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileCombiners.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/OperationSupport.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A combiner of one source: the float op and the integer op that combine
/// two values (empty: none for that kind of element).
struct BinaryCombiner {
  llvm::StringLiteral name;
  llvm::StringLiteral floatOp, intOp;
};

// Floats' max/min ignore a NaN (maxnumf, as Triton's tl.max): a row with
// one NaN still has a maximum.
constexpr BinaryCombiner kBinary[] = {
    {"add", "arith.addf", "arith.addi"},
    {"mul", "arith.mulf", "arith.muli"},
    {"max", "arith.maxnumf", "arith.maxsi"},
    {"min", "arith.minnumf", "arith.minsi"},
    {"umax", "", "arith.maxui"},
    {"umin", "", "arith.minui"},
    {"and", "", "arith.andi"},
    {"or", "", "arith.ori"},
    {"xor", "", "arith.xori"},
};

const BinaryCombiner *findBinary(StringRef name) {
  for (const BinaryCombiner &c : kBinary)
    if (c.name == name)
      return &c;
  return nullptr;
}

/// argmax / argmin on (values, indices): the new pair wins when its value
/// is greater (less), or equal with a smaller index.
void buildArgCombiner(OpBuilder &b, Location loc, bool max, Block &block) {
  Value av = block.getArgument(0), ai = block.getArgument(1);
  Value bv = block.getArgument(2), bi = block.getArgument(3);
  Value better, equal;
  if (isa<FloatType>(av.getType())) {
    better = arith::CmpFOp::create(
        b, loc, max ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
        bv, av);
    equal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, bv, av);
  } else {
    better = arith::CmpIOp::create(
        b, loc, max ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
        bv, av);
    equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bv, av);
  }
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, bi, ai);
  Value tie = arith::AndIOp::create(b, loc, equal, first);
  Value take = arith::OrIOp::create(b, loc, better, tie);
  Value v = arith::SelectOp::create(b, loc, take, bv, av);
  Value i = arith::SelectOp::create(b, loc, take, bi, ai);
  YieldOp::create(b, loc, ValueRange{v, i});
}

} // namespace

StringRef mlir::tile::getCombinerNameList() {
  return "add, mul, max, min, umax, umin, and, or, xor, argmax, argmin";
}

LogicalResult mlir::tile::buildCombiner(OpBuilder &builder, Location loc,
                                        StringRef name, TypeRange elems,
                                        Region &region, std::string &why) {
  auto describe = [&](Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "'" << t << "'";
    return s;
  };
  bool arg = name == "argmax" || name == "argmin";
  const BinaryCombiner *binary = findBinary(name);
  if (!arg && !binary) {
    why = "unknown combiner '" + name.str() + "'; the named combiners are " +
          getCombinerNameList().str() + " (or write the region)";
    return failure();
  }
  size_t want = arg ? 2 : 1;
  if (elems.size() != want) {
    why = "combiner '" + name.str() + "' takes " +
          (arg ? "two tiles, the values and their indices,"
               : std::string("one tile,")) +
          " not " + std::to_string(elems.size()) +
          (arg ? "" : " (several tiles reduce together with a region)");
    return failure();
  }
  if (arg) {
    if (!elems[0].isIntOrFloat() || !elems[1].isSignlessInteger() ||
        elems[1].getIntOrFloatBitWidth() < 2) {
      why = "combiner '" + name.str() +
            "' takes values (numbers) and indices (integers), not " +
            describe(elems[0]) + " and " + describe(elems[1]);
      return failure();
    }
  } else {
    bool isFloat = isa<FloatType>(elems[0]);
    StringRef op = isFloat ? binary->floatOp : binary->intOp;
    if (!elems[0].isIntOrFloat() || op.empty()) {
      why = "combiner '" + name.str() + "' needs integer tiles, not " +
            describe(elems[0]);
      return failure();
    }
  }

  OpBuilder::InsertionGuard guard(builder);
  SmallVector<Type> argTypes(elems);
  argTypes.append(elems.begin(), elems.end());
  SmallVector<Location> locs(argTypes.size(), loc);
  Block *block = builder.createBlock(&region, {}, argTypes, locs);
  if (arg) {
    buildArgCombiner(builder, loc, name == "argmax", *block);
    return success();
  }
  StringRef opName =
      isa<FloatType>(elems[0]) ? binary->floatOp : binary->intOp;
  OperationState state(loc, opName);
  state.addOperands({block->getArgument(0), block->getArgument(1)});
  state.addTypes(elems[0]);
  Operation *combined = builder.create(state);
  YieldOp::create(builder, loc, combined->getResults());
  return success();
}

std::optional<StringRef> mlir::tile::matchCombiner(Region &region,
                                                   TypeRange elems) {
  if (!region.hasOneBlock())
    return std::nullopt;
  Block &block = region.front();
  // The candidates by shape: one op and a yield, or argmax/argmin's eight.
  SmallVector<StringRef, 2> candidates;
  if (elems.size() == 1 && block.getOperations().size() == 2) {
    StringRef op = block.front().getName().getStringRef();
    for (const BinaryCombiner &c : kBinary)
      if (c.floatOp == op || c.intOp == op)
        candidates.push_back(c.name);
  } else if (elems.size() == 2 && block.getOperations().size() == 8) {
    candidates = {"argmax", "argmin"};
  }
  for (StringRef name : candidates) {
    Region canonical;
    OpBuilder builder(region.getContext());
    std::string why;
    if (failed(buildCombiner(builder, region.getLoc(), name, elems, canonical,
                             why)))
      continue;
    if (OperationEquivalence::isRegionEquivalentTo(
            &region, &canonical, OperationEquivalence::IgnoreLocations))
      return name;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// The text form of tile.reduce and tile.scan
//===----------------------------------------------------------------------===//
//
//   tile.reduce(%x) axis = 1 : (tensor<4x128xf32>) -> tensor<4xf32> { ... }
//   tile.reduce add(%x) axis = 1 : (tensor<4x128xf32>) -> tensor<4xf32>
//   tile.scan add(%x) axis = 0 reverse : (tensor<256xi32>) -> tensor<256xi32>

namespace {

template <typename OpTy>
ParseResult parseReduceLike(OpAsmParser &parser, OperationState &result) {
  SMLoc nameLoc = parser.getCurrentLocation();
  StringRef combiner;
  (void)parser.parseOptionalKeyword(&combiner);
  SmallVector<OpAsmParser::UnresolvedOperand> srcs;
  int32_t axis = 0;
  if (parser.parseLParen() || parser.parseOperandList(srcs) ||
      parser.parseRParen() || parser.parseKeyword("axis") ||
      parser.parseEqual() || parser.parseInteger(axis))
    return failure();
  Builder &b = parser.getBuilder();
  auto &props = result.getOrAddProperties<typename OpTy::Properties>();
  props.axis = b.getI32IntegerAttr(axis);
  if constexpr (std::is_same_v<OpTy, ScanOp>)
    if (succeeded(parser.parseOptionalKeyword("reverse")))
      props.reverse = b.getUnitAttr();
  SMLoc typeLoc;
  FunctionType type;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      (typeLoc = parser.getCurrentLocation(), parser.parseType(type)) ||
      parser.resolveOperands(srcs, type.getInputs(), typeLoc,
                             result.operands))
    return failure();
  result.addTypes(type.getResults());
  Region *body = result.addRegion();
  if (combiner.empty())
    return parser.parseRegion(*body, /*arguments=*/{},
                              /*enableNameShadowing=*/false);
  SmallVector<Type> elems;
  for (Type t : type.getInputs()) {
    auto tile = dyn_cast<RankedTensorType>(t);
    if (!tile)
      return parser.emitError(typeLoc, "sources must be tiles, got ") << t;
    elems.push_back(tile.getElementType());
  }
  std::string why;
  OpBuilder builder(parser.getContext());
  Location loc = parser.getEncodedSourceLoc(nameLoc);
  if (failed(buildCombiner(builder, loc, combiner, elems, *body, why)))
    return parser.emitError(nameLoc, why);
  return success();
}

void printReduceLike(OpAsmPrinter &p, Operation *op, ValueRange srcs,
                     int32_t axis, bool reverse, Region &combiner) {
  SmallVector<Type> elems;
  for (Value src : srcs)
    elems.push_back(getElementTypeOrSelf(src.getType()));
  std::optional<StringRef> name = matchCombiner(combiner, elems);
  if (name)
    p << " " << *name;
  p << "(" << srcs << ") axis = " << axis;
  if (reverse)
    p << " reverse";
  p.printOptionalAttrDict(op->getAttrs(), {"axis", "reverse"});
  p << " : ";
  p.printFunctionalType(srcs.getTypes(), op->getResultTypes());
  if (!name) {
    p << " ";
    p.printRegion(combiner);
  }
}

} // namespace

ParseResult ReduceOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseReduceLike<ReduceOp>(parser, result);
}

void ReduceOp::print(OpAsmPrinter &p) {
  printReduceLike(p, *this, getSrcs(), getAxis(), /*reverse=*/false,
                  getCombineOp());
}

ParseResult ScanOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseReduceLike<ScanOp>(parser, result);
}

void ScanOp::print(OpAsmPrinter &p) {
  printReduceLike(p, *this, getSrcs(), getAxis(), getReverse(),
                  getCombineOp());
}
