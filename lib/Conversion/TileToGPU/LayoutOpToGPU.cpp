//===- LayoutOpToGPU.cpp - ops that move elements between threads ---------===//
//
// tile.convert_layout, tile.reshape, tile.trans, tile.join and tile.split
// write the source elements to shared memory at the row-major position
// they take in the result (one owner per replicated element, so no two
// threads write one place), then read the result's elements back: correct
// for any pair of layouts, at the cost of two barriers. A convert_layout
// whose layouts give every thread the same elements (getRegisterPermutation)
// only renames registers.
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

namespace {

using LinearFn = std::function<Value(OpBuilder &, Location, ArrayRef<Value>)>;

LinearFn rowMajor(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape);
  return [s](OpBuilder &b, Location loc, ArrayRef<Value> idx) {
    return linearize(b, loc, idx, s);
  };
}

/// Row-major over `shape` of the indices with `last` appended as a new
/// minor dimension of size 2 (join/split).
LinearFn withMinor(ArrayRef<int64_t> shape, int64_t last) {
  SmallVector<int64_t> s(shape);
  return [s, last](OpBuilder &b, Location loc, ArrayRef<Value> idx) {
    Value lin = linearize(b, loc, idx, s);
    lin = arith::MulIOp::create(b, loc, lin, i32Val(b, loc, 2));
    return arith::AddIOp::create(b, loc, lin, i32Val(b, loc, last))
        .getResult();
  };
}

/// convert_layout and reshape: row-major order is what stays.
template <typename OpTy>
struct RowMajorMoveLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op,
                  typename OpConversionPattern<OpTy>::OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    FailureOr<DistributedLayout> src = getLayoutOrError(op, srcType);
    FailureOr<DistributedLayout> dst = getLayoutOrError(op, dstType);
    if (failed(src) || failed(dst))
      return failure();
    const auto &tc = *this->template getTypeConverter<TileTypeConverter>();
    Type elem = tc.convertElementType(srcType.getElementType());
    SmemTile in{*src, adaptor.getSrc(), rowMajor(srcType.getShape()),
                emitOwnerPredicate(rewriter, op.getLoc(), *src)};
    SmemTile out{*dst, {}, rowMajor(dstType.getShape())};
    auto vals = exchangeThroughShared(rewriter, op.getLoc(), elem, {in}, {out});
    replaceWithValues(rewriter, op, vals[0]);
    return success();
  }
};

/// convert_layout between layouts that keep each element in its thread:
/// the result's values are the source's, reordered. Takes precedence over
/// the exchange through shared memory (and ldmatrix for dot operands).
struct RegisterConvertLowering : public OpConversionPattern<ConvertLayoutOp> {
  RegisterConvertLowering(const TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx, /*benefit=*/3) {}
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> perm =
        getRegisterPermutation(cast<RankedTensorType>(op.getSrc().getType()),
                               cast<RankedTensorType>(op.getType()));
    if (!perm)
      return failure();
    ValueRange src = adaptor.getSrc();
    SmallVector<Value> vals;
    for (int64_t i : *perm)
      vals.push_back(src[i]);
    replaceWithValues(rewriter, op, vals);
    return success();
  }
};

/// tile.trans: write each element where the permuted indices put it.
struct TransOpLowering : public OpConversionPattern<TransOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = op.getSrc().getType();
    auto dstType = op.getType();
    FailureOr<DistributedLayout> src = getLayoutOrError(op, srcType);
    FailureOr<DistributedLayout> dst = getLayoutOrError(op, dstType);
    if (failed(src) || failed(dst))
      return failure();
    SmallVector<int32_t> order(op.getOrder());
    SmallVector<int64_t> dstShape(dstType.getShape());
    LinearFn permuted = [order, dstShape](OpBuilder &b, Location loc,
                                          ArrayRef<Value> idx) {
      SmallVector<Value> d;
      for (int32_t o : order)
        d.push_back(idx[o]);
      return linearize(b, loc, d, dstShape);
    };
    const auto &tc = *getTypeConverter<TileTypeConverter>();
    Type elem = tc.convertElementType(srcType.getElementType());
    SmemTile in{*src, adaptor.getSrc(), permuted,
                emitOwnerPredicate(rewriter, op.getLoc(), *src)};
    SmemTile out{*dst, {}, rowMajor(dstShape)};
    auto vals = exchangeThroughShared(rewriter, op.getLoc(), elem, {in}, {out});
    replaceWithValues(rewriter, op, vals[0]);
    return success();
  }
};

/// tile.join: lhs at minor index 0, rhs at 1.
struct JoinOpLowering : public OpConversionPattern<JoinOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(JoinOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inType = op.getLhs().getType();
    FailureOr<DistributedLayout> lhs = getLayoutOrError(op, inType);
    FailureOr<DistributedLayout> rhs =
        getLayoutOrError(op, op.getRhs().getType());
    FailureOr<DistributedLayout> dst = getLayoutOrError(op, op.getType());
    if (failed(lhs) || failed(rhs) || failed(dst))
      return failure();
    const auto &tc = *getTypeConverter<TileTypeConverter>();
    Type elem = tc.convertElementType(inType.getElementType());
    SmemTile a{*lhs, adaptor.getLhs(), withMinor(inType.getShape(), 0),
               emitOwnerPredicate(rewriter, op.getLoc(), *lhs)};
    SmemTile c{*rhs, adaptor.getRhs(), withMinor(inType.getShape(), 1),
               emitOwnerPredicate(rewriter, op.getLoc(), *rhs)};
    SmemTile out{*dst, {}, rowMajor(op.getType().getShape())};
    auto vals =
        exchangeThroughShared(rewriter, op.getLoc(), elem, {a, c}, {out});
    replaceWithValues(rewriter, op, vals[0]);
    return success();
  }
};

/// tile.split: minor index 0 to lhs, 1 to rhs.
struct SplitOpLowering : public OpConversionPattern<SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = op.getSrc().getType();
    auto outType = cast<RankedTensorType>(op.getLhs().getType());
    FailureOr<DistributedLayout> src = getLayoutOrError(op, srcType);
    FailureOr<DistributedLayout> lhs = getLayoutOrError(op, outType);
    FailureOr<DistributedLayout> rhs =
        getLayoutOrError(op, op.getRhs().getType());
    if (failed(src) || failed(lhs) || failed(rhs))
      return failure();
    const auto &tc = *getTypeConverter<TileTypeConverter>();
    Type elem = tc.convertElementType(srcType.getElementType());
    SmemTile in{*src, adaptor.getSrc(), rowMajor(srcType.getShape()),
                emitOwnerPredicate(rewriter, op.getLoc(), *src)};
    SmemTile a{*lhs, {}, withMinor(outType.getShape(), 0)};
    SmemTile c{*rhs, {}, withMinor(outType.getShape(), 1)};
    auto vals =
        exchangeThroughShared(rewriter, op.getLoc(), elem, {in}, {a, c});
    rewriter.replaceOpWithMultiple(op, std::move(vals));
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateLayoutPatterns(
    TileTypeConverter &tc, RewritePatternSet &patterns,
    const LoweringContext &) {
  patterns.add<RegisterConvertLowering, RowMajorMoveLowering<ConvertLayoutOp>,
               RowMajorMoveLowering<ReshapeOp>, TransOpLowering,
               JoinOpLowering, SplitOpLowering>(tc, patterns.getContext());
}
