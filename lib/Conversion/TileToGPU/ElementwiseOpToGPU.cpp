//===- ElementwiseOpToGPU.cpp - elementwise, index and pointer ops --------===//
//
// Ops whose every result element depends only on the operand elements at the
// same index (arith, math, tile.addptr, ...) lower to one scalar op per
// element the thread holds. Index tiles (tile.range) compute each element's
// index from the thread id; broadcasts and unit dimensions only pick values,
// since the layout pass gave both sides compatible layouts.
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"
#include "tilec/Support/ApproxErf.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

#include <iterator>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

namespace {

/// For each element a thread holds, the first element of the thread with
/// the same value by the axis analysis' constancy: along tile dim t, values
/// are equal over aligned blocks of constancy(t) indices, and a thread's run
/// of vec(d) consecutive elements starts at a multiple of vec(d), so
/// sub-indices that agree but for their low log2(min(constancy, vec)) bits
/// hold one value. (E.g. `cols < n` with n a multiple of 16 is one predicate
/// per 16-byte vector instead of one per element: fewer compares, and fewer
/// predicates for ptxas to keep alive.) Identity without the analysis.
SmallVector<int64_t> constancyRepresentatives(const LoweringContext &lc,
                                              Value result) {
  auto type = dyn_cast<RankedTensorType>(result.getType());
  FailureOr<DistributedLayout> layout =
      type ? DistributedLayout::get(type) : FailureOr<DistributedLayout>();
  if (!type || failed(layout))
    return {};
  SmallVector<int64_t> reps(layout->getNumElems());
  for (int64_t i = 0; i < layout->getNumElems(); ++i)
    reps[i] = i;
  if (!lc.axis)
    return reps;
  AxisInfo info = lc.axis->get(result);
  if (info.getRank() != type.getRank())
    return reps;
  SmallVector<int64_t> group(layout->getRank(), 1);
  bool any = false;
  for (unsigned t = 0; t < type.getRank(); ++t) {
    unsigned d = layout->getBlockedDim(t);
    int64_t g = std::min(info.getConstancy(t), layout->getVec(d));
    group[d] = g > 1 ? int64_t(1) << llvm::Log2_64(g) : 1;
    any |= group[d] > 1;
  }
  if (!any)
    return reps;
  for (int64_t i = 0; i < layout->getNumElems(); ++i) {
    SmallVector<int64_t> sub = layout->getSubIndices(i);
    for (unsigned d = 0; d < sub.size(); ++d)
      sub[d] -= sub[d] % group[d];
    reps[i] = layout->getElemNumber(sub);
  }
  return reps;
}

/// Any arith/math op on tiles -> the same op on each element (once per
/// group of elements the axis analysis proves equal).
struct ElementwiseOpLowering : public ConversionPattern {
  ElementwiseOpLowering(const TypeConverter &tc, MLIRContext *ctx,
                        const LoweringContext &lc)
      : ConversionPattern(tc, Pattern::MatchAnyOpTypeTag(), 1, ctx), lc(lc) {}
  const LoweringContext &lc;

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa_and_present<arith::ArithDialect, math::MathDialect>(
            op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumRegions() != 0 ||
        op->getNumResults() == 0 ||
        !isa<RankedTensorType>(op->getResult(0).getType()))
      return failure();
    const auto &tc = *getTypeConverter<TileTypeConverter>();
    size_t n = 0;
    for (auto [v, range] : llvm::zip(op->getOperands(), operands))
      if (isa<RankedTensorType>(v.getType()))
        n = range.size();
    SmallVector<SmallVector<Value>> results(op->getNumResults());
    // One result's constancy covers all of them only for single-result ops.
    SmallVector<int64_t> reps;
    if (op->getNumResults() == 1)
      reps = constancyRepresentatives(lc, op->getResult(0));
    for (size_t i = 0; i < n; ++i) {
      if (!reps.empty() && reps.size() == n && reps[i] != int64_t(i)) {
        results[0].push_back(results[0][reps[i]]);
        continue;
      }
      Operation *scalar = rewriter.clone(*op);
      for (auto [j, range] : llvm::enumerate(operands))
        scalar->setOperand(j, isa<RankedTensorType>(op->getOperand(j).getType())
                                  ? range[i]
                                  : range[0]);
      for (auto [r, res] : llvm::enumerate(scalar->getResults())) {
        res.setType(tc.convertElementType(getElementTypeOrSelf(res.getType())));
        results[r].push_back(res);
      }
    }
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }
};

/// arith.extf from fp8 and arith.truncf to fp8 on tiles (sm_89+; the
/// element type converter keeps fp8 elements as i8 bits): a thread's
/// elements two at a time, by one cvt each (PTX `cvt.rn.f16x2.e4m3x2`,
/// `cvt.rn.satfinite.e4m3x2.f32` and their e5m2 forms, through NVVM's
/// convert ops). Up: fp8 pair -> f16 pair (exact: every e4m3 and e5m2
/// value is an f16), then f16 -> the result type (exact for f32, f64 and
/// bf16). Down: the source in f32 (exact from f16 and bf16) -> fp8 pair,
/// rounding to nearest even and saturating to the largest finite value
/// (NaN stays NaN), as the interpreter's roundToFormat does. An odd last
/// element converts beside a zero.
struct Fp8ConvertLowering : public ConversionPattern {
  Fp8ConvertLowering(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, Pattern::MatchAnyOpTypeTag(), /*benefit=*/2,
                          ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(op) ||
        !isa<RankedTensorType>(op->getResult(0).getType()))
      return failure();
    Type src = getElementTypeOrSelf(op->getOperand(0).getType());
    Type dst = getElementTypeOrSelf(op->getResult(0).getType());
    bool up = isFp8(src);
    if (!up && !isFp8(dst))
      return failure();
    Location loc = op->getLoc();
    ValueRange in = operands[0];
    Type f16 = rewriter.getF16Type(), f32 = rewriter.getF32Type(),
         i8 = rewriter.getI8Type();
    auto pairType = VectorType::get({2}, i8);
    SmallVector<Value> out;
    for (size_t i = 0; i < in.size(); i += 2) {
      if (up) {
        Value pair = LLVM::UndefOp::create(rewriter, loc, pairType);
        for (size_t h = 0; h < 2; ++h) {
          Value v = i + h < in.size()
                        ? in[i + h]
                        : arith::ConstantOp::create(
                              rewriter, loc, rewriter.getI8IntegerAttr(0));
          pair = LLVM::InsertElementOp::create(rewriter, loc, pair, v,
                                               i32Val(rewriter, loc, h));
        }
        Value halves = NVVM::ConvertF8x2ToF16x2Op::create(
            rewriter, loc, VectorType::get({2}, f16), pair,
            /*relu=*/false, src);
        for (size_t h = 0; h < 2 && i + h < in.size(); ++h) {
          Value v = LLVM::ExtractElementOp::create(rewriter, loc, halves,
                                                   i32Val(rewriter, loc, h));
          if (dst.isBF16()) // f16 -> f32 -> bf16, both exact here
            v = arith::TruncFOp::create(
                rewriter, loc, dst, arith::ExtFOp::create(rewriter, loc, f32, v));
          else if (!dst.isF16())
            v = arith::ExtFOp::create(rewriter, loc, dst, v);
          out.push_back(v);
        }
        continue;
      }
      auto toF32 = [&](size_t j) -> Value {
        if (j >= in.size())
          return arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getF32FloatAttr(0));
        return src.isF32() ? in[j]
                           : arith::ExtFOp::create(rewriter, loc, f32, in[j])
                                 .getResult();
      };
      // The intrinsic puts its first operand in the high byte: the pair's
      // element 1. (The verifier asks for satfinite.)
      Value packed = NVVM::ConvertF32x2ToF8x2Op::create(
          rewriter, loc, pairType, toF32(i + 1), toF32(i),
          NVVM::FPRoundingMode::RN, NVVM::SaturationMode::SATFINITE,
          /*relu=*/false, dst);
      for (size_t h = 0; h < 2 && i + h < in.size(); ++h)
        out.push_back(LLVM::ExtractElementOp::create(
            rewriter, loc, packed, i32Val(rewriter, loc, h)));
    }
    rewriter.replaceOpWithMultiple(op, {out});
    return success();
  }
};

/// arith.constant dense<c> : tensor -> one scalar constant, every element.
struct ConstantOpLowering : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type)
      return failure();
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!splat)
      return failure(); // rejected with a diagnostic before the conversion
    FailureOr<DistributedLayout> layout = getLayoutOrError(op, type);
    if (failed(layout))
      return failure();
    auto value = cast<TypedAttr>(splat.getSplatValue<Attribute>());
    Value scalar = arith::ConstantOp::create(rewriter, op.getLoc(), value);
    SmallVector<Value> values(layout->getNumElems(), scalar);
    replaceWithValues(rewriter, op, values);
    return success();
  }
};

/// tile.range: start + the element's index.
struct RangeOpLowering : public OpConversionPattern<RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<DistributedLayout> layout = getLayoutOrError(op, op.getType());
    if (failed(layout))
      return failure();
    Location loc = op.getLoc();
    Value start = i32Val(rewriter, loc, op.getStart());
    SmallVector<Value> values;
    for (auto &idx : emitIndices(rewriter, loc, *layout))
      values.push_back(
          op.getStart() ? (Value)arith::AddIOp::create(rewriter, loc, start,
                                                       idx[0])
                        : idx[0]);
    replaceWithValues(rewriter, op, values);
    return success();
  }
};

/// tile.splat: the scalar, every element.
struct SplatOpLowering : public OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<DistributedLayout> layout = getLayoutOrError(op, op.getType());
    if (failed(layout))
      return failure();
    SmallVector<Value> values(layout->getNumElems(), adaptor.getSrc()[0]);
    replaceWithValues(rewriter, op, values);
    return success();
  }
};

/// tile.broadcast within one layout: each element takes the source element
/// with the same indices along the non-broadcast dims.
struct BroadcastOpLowering : public OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<DistributedLayout> dst = getLayoutOrError(op, op.getType());
    FailureOr<DistributedLayout> src =
        getLayoutOrError(op, op.getSrc().getType());
    if (failed(dst) || failed(src))
      return failure();
    if (op.getSrc().getType().getEncoding() != op.getType().getEncoding())
      return op.emitOpError("source and result layouts differ; "
                            "tile-assign-layouts inserts a conversion");
    ValueRange in = adaptor.getSrc();
    SmallVector<Value> values;
    for (int64_t i = 0; i < dst->getNumElems(); ++i) {
      SmallVector<int64_t> sub = dst->getSubIndices(i);
      for (unsigned d = 0; d < sub.size(); ++d)
        sub[d] %= src->getPerThread(d);
      values.push_back(in[src->getElemNumber(sub)]);
    }
    replaceWithValues(rewriter, op, values);
    return success();
  }
};

/// tile.expand_dims from #tilegpu.slice<axis, L> to L: the same elements.
struct ExpandDimsOpLowering : public OpConversionPattern<ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto slice = dyn_cast_if_present<SliceLayoutAttr>(
        op.getSrc().getType().getEncoding());
    if (!slice || slice.getDim() != (unsigned)op.getAxis() ||
        slice.getParent() != op.getType().getEncoding())
      return op.emitOpError("source layout must be #tilegpu.slice<{dim = ")
             << op.getAxis() << "}> of the result's layout, got "
             << op.getSrc().getType();
    replaceWithValues(rewriter, op, adaptor.getSrc());
    return success();
  }
};

/// tile.addptr -> llvm.getelementptr per element.
struct AddPtrOpLowering : public OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AddPtrOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = *getTypeConverter<TileTypeConverter>();
    auto ptrType = cast<PointerType>(getElementTypeOrSelf(op.getType()));
    Type elem = tc.convertElementType(ptrType.getPointeeType());
    Type llvmPtr = tc.convertElementType(ptrType);
    SmallVector<Value> values;
    for (auto [p, o] : llvm::zip(adaptor.getPtr(), adaptor.getOffset()))
      values.push_back(LLVM::GEPOp::create(rewriter, op.getLoc(), llvmPtr,
                                           elem, p, ValueRange{o}));
    replaceWithValues(rewriter, op, values);
    return success();
  }
};

/// tile.bitcast of pointers: LLVM pointers are untyped, nothing to do.
struct BitcastOpLowering : public OpConversionPattern<BitcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BitcastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    replaceWithValues(rewriter, op, adaptor.getSrc());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Fast math (greedy, on the scalar ops left by the conversion)
//===----------------------------------------------------------------------===//

Value ptxUnary(PatternRewriter &rewriter, Location loc, StringRef asmText,
               Value x) {
  MLIRContext *ctx = rewriter.getContext();
  return LLVM::InlineAsmOp::create(
             rewriter, loc, x.getType(), ValueRange{x},
             rewriter.getStringAttr(asmText), rewriter.getStringAttr("=f,f"),
             /*has_side_effects=*/UnitAttr(), /*is_align_stack=*/UnitAttr(),
             LLVM::TailCallKindAttr::get(ctx, LLVM::TailCallKind::None),
             LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
             ArrayAttr())
      .getResult(0);
}

/// exp(x) = 2^(x log2 e) with the ex2.approx unit (2 ulp), as Triton does.
struct FastExp : public OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    Location loc = op.getLoc();
    Value log2e = arith::ConstantOp::create(
        rewriter, loc, rewriter.getF32FloatAttr(1.4426950408889634f));
    Value x = arith::MulFOp::create(rewriter, loc, op.getOperand(), log2e);
    rewriter.replaceOp(op, ptxUnary(rewriter, loc, "ex2.approx.f32 $0, $1;", x));
    return success();
  }
};

/// 2^x with ex2.approx; with fastmath<afn> (the builder's exp2Ftz) the
/// flush-to-zero form: results below 2^-126 are 0, and ptxas leaves out
/// the scaling around MUFU.EX2 that keeps them (three instructions an
/// element: 5% of the attention forward's time, docs/attention.md).
struct FastExp2 : public OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    bool ftz = arith::bitEnumContainsAll(op.getFastmath(),
                                         arith::FastMathFlags::afn);
    rewriter.replaceOp(op, ptxUnary(rewriter, op.getLoc(),
                                    ftz ? "ex2.approx.ftz.f32 $0, $1;"
                                        : "ex2.approx.f32 $0, $1;",
                                    op.getOperand()));
    return success();
  }
};

/// erf(x) = copysign(1 - 2^(t P(t)), x), t = min(|x|, 3.92): ten
/// instructions where libdevice's erff takes ~25 (Support/ApproxErf.h), in
/// kernels that accept its absolute error (tile.approx_math).
struct ApproxErf : public OpRewritePattern<math::ErfOp> {
  ApproxErf(MLIRContext *ctx, bool everywhere)
      : OpRewritePattern(ctx), everywhere(everywhere) {}
  LogicalResult matchAndRewrite(math::ErfOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    if (!everywhere) {
      auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
      if (!kernel ||
          !kernel->hasAttr(TileDialect::getApproxMathAttrName()))
        return failure();
    }
    Location loc = op.getLoc();
    auto constant = [&](float v) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getF32FloatAttr(v));
    };
    using namespace tilec::approx_erf;
    Value x = op.getOperand();
    Value a = math::AbsFOp::create(rewriter, loc, x);
    // NaN-propagating: erf(NaN) stays NaN.
    Value t = arith::MinimumFOp::create(rewriter, loc, a, constant(kClamp));
    constexpr int n = std::size(kCoefficients);
    Value p = constant(kCoefficients[n - 1]);
    for (int i = n - 2; i >= 0; --i)
      p = math::FmaOp::create(rewriter, loc, p, t, constant(kCoefficients[i]));
    Value q = arith::MulFOp::create(rewriter, loc, p, t);
    // q is in [-26, 0]: no denormals, so the flush-to-zero form is exact.
    Value e = ptxUnary(rewriter, loc, "ex2.approx.ftz.f32 $0, $1;", q);
    Value r = arith::SubFOp::create(rewriter, loc, constant(1.0f), e);
    rewriter.replaceOpWithNewOp<math::CopySignOp>(op, r, x);
    return success();
  }
  bool everywhere;
};

/// 1/sqrt(x) with rsqrt.approx (what libdevice's __nv_rsqrtf does too).
struct FastRsqrt : public OpRewritePattern<math::RsqrtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::RsqrtOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    rewriter.replaceOp(op, ptxUnary(rewriter, op.getLoc(),
                                    "rsqrt.approx.f32 $0, $1;",
                                    op.getOperand()));
    return success();
  }
};

/// a / b (f32) with div.full.f32: 2 ulp over the full range, the division
/// Triton emits for `/`; the IEEE div.rn.f32 costs a Newton iteration, a
/// range check and an out-of-line slow path per element.
struct FastDivF : public OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::DivFOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    MLIRContext *ctx = rewriter.getContext();
    rewriter.replaceOp(
        op, LLVM::InlineAsmOp::create(
                rewriter, op.getLoc(), op.getType(),
                ValueRange{op.getLhs(), op.getRhs()},
                rewriter.getStringAttr("div.full.f32 $0, $1, $2;"),
                rewriter.getStringAttr("=f,f,f"),
                /*has_side_effects=*/UnitAttr(), /*is_align_stack=*/UnitAttr(),
                LLVM::TailCallKindAttr::get(ctx, LLVM::TailCallKind::None),
                LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
                ArrayAttr())
                .getResult(0));
    return success();
  }
};

/// Lets LLVM fuse a multiply into the add or subtract that uses it (one
/// fma, rounded once): the `contract` flag on float add/sub/mul. nvcc
/// (--fmad=true) and Triton (ptxas contracts its plain mul/add) do the
/// same; without it NVPTX writes `.rn` on every mul and add so that ptxas
/// cannot fuse them either.
template <typename OpTy>
struct AllowContract : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    arith::FastMathFlags flags = op.getFastmath();
    if (isa<ShapedType>(op.getType()) ||
        arith::bitEnumContainsAll(flags, arith::FastMathFlags::contract))
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.setFastmath(flags | arith::FastMathFlags::contract);
    });
    return success();
  }
};

/// maxnumf/minnumf as LLVM's maxnum/minnum (max.f32 / min.f32): the same
/// function, where convert-gpu-to-nvvm would call libdevice's fmaxf.
template <typename SourceOp, typename TargetOp>
struct MinMaxToLLVM : public OpRewritePattern<SourceOp> {
  using OpRewritePattern<SourceOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<ShapedType>(op.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<TargetOp>(op, op.getLhs(), op.getRhs());
    return success();
  }
};

/// math.absi -> llvm.intr.abs (abs.s16/s32/s64; INT_MIN stays INT_MIN, as
/// math.absi defines): convert-gpu-to-nvvm maps only i32 to libdevice's
/// __nv_abs and left the other widths for the LLVM translation to refuse.
struct AbsIToLLVM : public OpRewritePattern<math::AbsIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsIOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<ShapedType>(op.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::AbsOp>(op, op.getType(),
                                             op.getOperand(),
                                             /*is_int_min_poison=*/false);
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateElementwisePatterns(
    TileTypeConverter &tc, RewritePatternSet &patterns,
    const LoweringContext &lc) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConstantOpLowering, RangeOpLowering, SplatOpLowering,
               BroadcastOpLowering, ExpandDimsOpLowering, AddPtrOpLowering,
               BitcastOpLowering>(tc, ctx);
  patterns.add<ElementwiseOpLowering>(tc, ctx, lc);
  patterns.add<Fp8ConvertLowering>(tc, ctx);
}

void mlir::tile::gpu_lowering::populateFastMathPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FastExp, FastExp2, FastRsqrt, FastDivF,
               AllowContract<arith::AddFOp>, AllowContract<arith::SubFOp>,
               AllowContract<arith::MulFOp>>(patterns.getContext());
}

void mlir::tile::gpu_lowering::populateApproxMathPatterns(
    RewritePatternSet &patterns, bool everywhere) {
  patterns.add<ApproxErf>(patterns.getContext(), everywhere);
}

void mlir::tile::gpu_lowering::populateScalarMathPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MinMaxToLLVM<arith::MaxNumFOp, LLVM::MaxNumOp>,
               MinMaxToLLVM<arith::MinNumFOp, LLVM::MinNumOp>, AbsIToLLVM>(
      patterns.getContext());
}
