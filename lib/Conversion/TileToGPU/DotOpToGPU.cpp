//===- DotOpToGPU.cpp - tile.dot as per-thread FMAs -----------------------===//
//
// The FMA path: the accumulator keeps its blocked layout and each thread
// holds, for its rows and columns of the accumulator, whole rows of A and
// whole columns of B (the layouts tile-assign-layouts gives dot operands),
// so every product is local: K fused multiply-adds per accumulator element,
// in f32 for floating operands (exact for f32 `ieee`; f32 `tf32` dots get
// more precision than asked), in i32 for i8. Correct for any shape; used
// for the dots mma.sync cannot run (f32, i8, fp8, small shapes), which
// tile-assign-layouts leaves with a blocked accumulator.
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

namespace {

/// tile.dot -> FMAs over K for each accumulator element.
struct DotOpLowering : public OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto aType = op.getA().getType(), bType = op.getB().getType();
    auto cType = op.getType();
    if (isa_and_present<MmaLayoutAttr>(cType.getEncoding()))
      return failure(); // MmaDotOpToGPU.cpp
    FailureOr<DistributedLayout> al = getLayoutOrError(op, aType);
    FailureOr<DistributedLayout> bl = getLayoutOrError(op, bType);
    FailureOr<DistributedLayout> cl = getLayoutOrError(op, cType);
    if (failed(al) || failed(bl) || failed(cl))
      return failure();
    int64_t k = aType.getDimSize(1);
    auto cBlocked = dyn_cast<BlockedLayoutAttr>(cType.getEncoding());
    auto expect = [&](unsigned kDim) -> Attribute {
      if (!cBlocked)
        return {};
      SmallVector<unsigned> spt(cBlocked.getSizePerThread());
      spt[kDim] = k;
      return BlockedLayoutAttr::get(getContext(), spt,
                                    cBlocked.getThreadsPerWarp(),
                                    cBlocked.getWarpsPerCTA(),
                                    cBlocked.getOrder());
    };
    if (aType.getEncoding() != expect(1) || bType.getEncoding() != expect(0))
      return op.emitOpError("operand layouts must hold whole rows of A and "
                            "columns of B for the accumulator's threads "
                            "(run tile-assign-layouts)");
    Type accType = cType.getElementType();
    bool isInt = isa<IntegerType>(accType);
    auto widen = [&](Value v) -> Value {
      if (v.getType() == accType)
        return v;
      if (isInt)
        return arith::ExtSIOp::create(rewriter, loc, accType, v);
      return arith::ExtFOp::create(rewriter, loc, accType, v);
    };
    SmallVector<Value> a, b;
    for (Value v : adaptor.getA())
      a.push_back(widen(v));
    for (Value v : adaptor.getB())
      b.push_back(widen(v));
    SmallVector<Value> results;
    for (auto [i, acc] : llvm::enumerate(adaptor.getC())) {
      SmallVector<int64_t> sub = cl->getSubIndices(i);
      Value sum = acc;
      for (int64_t kk = 0; kk < k; ++kk) {
        Value x = a[al->getElemNumber({sub[0], kk})];
        Value y = b[bl->getElemNumber({kk, sub[1]})];
        if (isInt)
          sum = arith::AddIOp::create(
              rewriter, loc, sum, arith::MulIOp::create(rewriter, loc, x, y));
        else
          sum = math::FmaOp::create(rewriter, loc, x, y, sum);
      }
      results.push_back(sum);
    }
    replaceWithValues(rewriter, op, results);
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateDotPatterns(
    TileTypeConverter &tc, RewritePatternSet &patterns,
    const LoweringContext &) {
  patterns.add<DotOpLowering>(tc, patterns.getContext());
}
