//===- TileCanonicalize.cpp - folders and canonical forms -----------------===//
//
// Folds of the shape ops and pointer arithmetic, and the patterns that
// collapse chains of them: splats of constants become constants, chains of
// broadcasts / reshapes / transposes become one op, a splat moves past any
// shape op.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "ExpandPattern.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tile;

/// A splat constant reshaped to `type`, or null if `attr` is not one.
static Attribute reshapeSplat(Attribute attr, ShapedType type) {
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(attr))
    return SplatElementsAttr::get(type, splat.getSplatValue<Attribute>());
  return {};
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  Attribute src = adaptor.getSrc();
  if (src && isa<IntegerAttr, FloatAttr>(src))
    return SplatElementsAttr::get(getType(), src);
  return {};
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return reshapeSplat(adaptor.getSrc(), getType());
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return reshapeSplat(adaptor.getSrc(), getType());
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  if (llvm::equal(getOrder(), llvm::seq<int32_t>(0, getOrder().size())) &&
      getSrc().getType() == getType())
    return getSrc();
  return reshapeSplat(adaptor.getSrc(), getType());
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return {};
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  // ptr + 0 is ptr; the offset may be a scalar or a splat zero.
  Attribute offset = adaptor.getOffset();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(offset))
    offset = splat.getSplatValue<Attribute>();
  if (auto i = dyn_cast_if_present<IntegerAttr>(offset);
      i && i.getValue() == 0 && getPtr().getType() == getType())
    return getPtr();
  return {};
}

namespace {
/// shape-op(splat x) -> splat x, for every op that only moves elements.
template <typename OpTy>
struct SplatThroughShapeOp : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};

/// broadcast(broadcast x) -> broadcast x.
struct BroadcastOfBroadcast : public OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(), inner.getSrc());
    return success();
  }
};

/// True when `op` inserts a unit dimension (not the repeating shorthand).
static bool insertsUnit(ExpandDimsOp op) {
  return op.getType().getDimSize(op.getAxis()) == 1;
}

/// reshape(reshape x) and reshape(expand_dims x) -> reshape x.
struct ReshapeOfShapeChange : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    Operation *def = op.getSrc().getDefiningOp();
    if (!isa_and_present<ReshapeOp, ExpandDimsOp>(def))
      return failure();
    if (auto e = dyn_cast<ExpandDimsOp>(def); e && !insertsUnit(e))
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(),
                                           def->getOperand(0));
    return success();
  }
};

/// expand_dims(reshape x) -> reshape x: both only regroup row-major elements.
struct ExpandDimsOfReshape : public OpRewritePattern<ExpandDimsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ExpandDimsOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ReshapeOp>();
    if (!inner || !insertsUnit(op))
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getSrc());
    return success();
  }
};

/// trans(trans x, p), q -> trans x, p o q.
struct TransOfTrans : public OpRewritePattern<TransOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<TransOp>();
    if (!inner)
      return failure();
    SmallVector<int32_t> order;
    for (int32_t d : op.getOrder())
      order.push_back(inner.getOrder()[d]);
    rewriter.replaceOpWithNewOp<TransOp>(op, op.getType(), inner.getSrc(),
                                         order);
    return success();
  }
};
} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<SplatThroughShapeOp<BroadcastOp>, BroadcastOfBroadcast>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<SplatThroughShapeOp<ReshapeOp>, ReshapeOfShapeChange>(context);
}

void TransOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<SplatThroughShapeOp<TransOp>, TransOfTrans>(context);
}

//===----------------------------------------------------------------------===//
// The text shorthands, expanded
//===----------------------------------------------------------------------===//

namespace {
/// addptr(base, offsets) with a scalar base -> addptr(splat(base), offsets),
/// addptr(pointers, offset) with a scalar offset -> addptr(pointers,
/// splat(offset)).
LogicalResult expandScalarBase(RewriterBase &rewriter, AddPtrOp op) {
  Location loc = op.getLoc();
  if (op.getPtr().getType() != op.getType()) {
    rewriter.setInsertionPoint(op);
    Value bases = SplatOp::create(rewriter, loc, op.getType(), op.getPtr());
    rewriter.replaceOpWithNewOp<AddPtrOp>(op, op.getType(), bases,
                                          op.getOffset());
    return success();
  }
  auto pointers = dyn_cast<RankedTensorType>(op.getType());
  if (!pointers || isa<RankedTensorType>(op.getOffset().getType()))
    return failure();
  rewriter.setInsertionPoint(op);
  Value offsets = SplatOp::create(
      rewriter, loc, withElementType(pointers, op.getOffset().getType()),
      op.getOffset());
  rewriter.replaceOpWithNewOp<AddPtrOp>(op, op.getType(), op.getPtr(),
                                        offsets);
  return success();
}

/// range(start, end) offset s -> splat(s) + range(start, end), and
/// range(start, end) block b -> splat(b * (end - start)) + range(start, end).
LogicalResult expandRangeOffset(RewriterBase &rewriter, RangeOp op) {
  if (!op.getOffset() && !op.getBlock())
    return failure();
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value offset = op.getOffset();
  if (!offset) {
    Value length = arith::ConstantIntOp::create(
        rewriter, loc, rewriter.getI32Type(), op.getEnd() - op.getStart());
    offset = arith::MulIOp::create(rewriter, loc, op.getBlock(), length);
  }
  Value range = RangeOp::create(rewriter, loc, op.getType(),
                                op.getStartAttr(), op.getEndAttr());
  Value offsets = SplatOp::create(rewriter, loc, op.getType(), offset);
  rewriter.replaceOpWithNewOp<arith::AddIOp>(op, offsets, range);
  return success();
}

/// outer(kind, l, r) -> arith(broadcast(expand_dims(l, 1)),
///                          broadcast(expand_dims(r, 0))).
LogicalResult expandOuter(RewriterBase &rewriter, OuterOp op) {
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getType());
  auto side = [&](Value v, int axis) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> unit{t.getDimSize(0)};
    unit.insert(unit.begin() + axis, 1);
    Value e = ExpandDimsOp::create(
        rewriter, loc, RankedTensorType::get(unit, t.getElementType()), v,
        rewriter.getI32IntegerAttr(axis));
    return BroadcastOp::create(rewriter, loc, type, e);
  };
  Value l = side(op.getLhs(), 1), r = side(op.getRhs(), 0);
  bool isFloat = isa<FloatType>(type.getElementType());
  Value v;
  switch (op.getKind()) {
  case OuterKind::Add:
    v = isFloat ? arith::AddFOp::create(rewriter, loc, l, r).getResult()
                : arith::AddIOp::create(rewriter, loc, l, r).getResult();
    break;
  case OuterKind::Sub:
    v = isFloat ? arith::SubFOp::create(rewriter, loc, l, r).getResult()
                : arith::SubIOp::create(rewriter, loc, l, r).getResult();
    break;
  case OuterKind::Mul:
    v = isFloat ? arith::MulFOp::create(rewriter, loc, l, r).getResult()
                : arith::MulIOp::create(rewriter, loc, l, r).getResult();
    break;
  case OuterKind::And:
    v = arith::AndIOp::create(rewriter, loc, l, r);
    break;
  case OuterKind::Or:
    v = arith::OrIOp::create(rewriter, loc, l, r);
    break;
  case OuterKind::Xor:
    v = arith::XOrIOp::create(rewriter, loc, l, r);
    break;
  }
  rewriter.replaceOp(op, v);
  return success();
}

/// grouped_ids(pid, num_m, num_n) group g -> the arith of Triton's grouped
/// order, op for op as the examples wrote it before the shorthand.
LogicalResult expandGroupedIds(RewriterBase &rewriter, GroupedIdsOp op) {
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value group = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                             op.getGroup());
  Value width = arith::MulIOp::create(rewriter, loc, op.getNumN(), group);
  Value groupId = arith::DivSIOp::create(rewriter, loc, op.getPid(), width);
  Value firstM = arith::MulIOp::create(rewriter, loc, groupId, group);
  Value rowsLeft = arith::SubIOp::create(rewriter, loc, op.getNumM(), firstM);
  Value size = arith::MinSIOp::create(rewriter, loc, rowsLeft, group);
  Value inGroup = arith::RemSIOp::create(rewriter, loc, op.getPid(), width);
  Value mIn = arith::RemSIOp::create(rewriter, loc, inGroup, size);
  Value pidM = arith::AddIOp::create(rewriter, loc, firstM, mIn);
  Value pidN = arith::DivSIOp::create(rewriter, loc, inGroup, size);
  rewriter.replaceOp(op, {pidM, pidN});
  return success();
}

/// expand_dims(x, axis) to a dimension of size n > 1 -> broadcast(
/// expand_dims(x, axis) of size 1).
LogicalResult expandRepeat(RewriterBase &rewriter, ExpandDimsOp op) {
  if (insertsUnit(op))
    return failure();
  rewriter.setInsertionPoint(op);
  RankedTensorType type = op.getType();
  SmallVector<int64_t> unit(type.getShape());
  unit[op.getAxis()] = 1;
  Value e = ExpandDimsOp::create(
      rewriter, op.getLoc(),
      RankedTensorType::get(unit, type.getElementType(), type.getEncoding()),
      op.getSrc(), op.getAxisAttr());
  rewriter.replaceOpWithNewOp<BroadcastOp>(op, type, e);
  return success();
}

} // namespace

void AddPtrOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<detail::ExpandPattern<AddPtrOp, expandScalarBase>>(context);
}

void RangeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<detail::ExpandPattern<RangeOp, expandRangeOffset>>(context);
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<SplatThroughShapeOp<ExpandDimsOp>, ExpandDimsOfReshape,
              detail::ExpandPattern<ExpandDimsOp, expandRepeat>>(context);
}

void GroupedIdsOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<detail::ExpandPattern<GroupedIdsOp, expandGroupedIds>>(context);
}

void OuterOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<detail::ExpandPattern<OuterOp, expandOuter>>(context);
}

void mlir::tile::expandShorthands(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<AddPtrOp, RangeOp, OuterOp, GroupedIdsOp, EachOp, ExpandDimsOp>(op))
      ops.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (Operation *op : ops) {
    if (auto addptr = dyn_cast<AddPtrOp>(op))
      (void)expandScalarBase(rewriter, addptr);
    else if (auto outer = dyn_cast<OuterOp>(op))
      (void)expandOuter(rewriter, outer);
    else if (auto ids = dyn_cast<GroupedIdsOp>(op))
      (void)expandGroupedIds(rewriter, ids);
    else if (auto each = dyn_cast<EachOp>(op))
      (void)expandEach(rewriter, each);
    else if (auto expand = dyn_cast<ExpandDimsOp>(op))
      (void)expandRepeat(rewriter, expand);
    else
      (void)expandRangeOffset(rewriter, cast<RangeOp>(op));
  }
}
