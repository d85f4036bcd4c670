//===- MmaDotOpToGPU.cpp - tile.dot on the tensor cores (mma.sync) --------===//
//
// A dot whose accumulator has the #tilegpu.mma layout and whose operands have
// the matching #tilegpu.dot_operand layouts (tile-assign-layouts gives them to
// f16/bf16 dots, and to f32 dots at tf32 precision, which run as
// mma.sync.m16n8k8.tf32: lowerTf32) becomes one mma.sync.aligned.m16n8k16 per 16x8 tile of
// the warp's accumulator and 16-wide step of K. The layouts are the PTX
// ISA's fragments, so each instruction's registers are just the thread's
// elements: A's four 32-bit registers hold (row g, k 2t..2t+1),
// (g + 8, 2t..), (g, 2t + 8..), (g + 8, 2t + 8..); B's two hold
// (k 2t.., column g), (2t + 8.., g); C's four (g, 2t), (g, 2t + 1),
// (g + 8, 2t), (g + 8, 2t + 1) with g = lane / 4, t = lane % 4.
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

namespace {

struct MmaDotOpLowering : public OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto cType = op.getType();
    auto mma = dyn_cast_if_present<MmaLayoutAttr>(cType.getEncoding());
    if (!mma)
      return failure(); // the FMA path
    // Types, operand layouts and shapes were checked before the conversion
    // (checkMmaDot in TileToGPU.cpp).
    auto aType = op.getA().getType(), bType = op.getB().getType();
    Type ea = aType.getElementType(), ec = cType.getElementType();
    DistributedLayout al = *DistributedLayout::get(aType);
    DistributedLayout bl = *DistributedLayout::get(bType);
    DistributedLayout cl = *DistributedLayout::get(cType);

    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    bool bf16 = ea.isBF16(), f16Acc = ec.isF16();
    auto pairType = VectorType::get({2}, ea);
    auto accPairType = VectorType::get({2}, ec);
    // Two operand elements in one register: i32 for bf16, f16x2 for f16.
    auto pack = [&](Value lo, Value hi, VectorType type,
                    bool asInt) -> Value {
      Value v = LLVM::UndefOp::create(rewriter, loc, type);
      v = LLVM::InsertElementOp::create(rewriter, loc, v, lo,
                                        i32Val(rewriter, loc, 0));
      v = LLVM::InsertElementOp::create(rewriter, loc, v, hi,
                                        i32Val(rewriter, loc, 1));
      if (asInt)
        v = LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), v);
      return v;
    };
    ValueRange a = adaptor.getA(), b = adaptor.getB();
    SmallVector<Value> acc(adaptor.getC().begin(), adaptor.getC().end());
    auto aAt = [&](int64_t sm, int64_t sk) {
      return a[al.getElemNumber({sm, sk})];
    };
    auto bAt = [&](int64_t sk, int64_t sn) {
      return b[bl.getElemNumber({sk, sn})];
    };
    auto cIdx = [&](int64_t sm, int64_t sn) {
      return cl.getElemNumber({sm, sn});
    };

    int64_t repM = cl.getPerThread(0) / 2, repN = cl.getPerThread(1) / 2;
    if (ea.isF32())
      return lowerTf32(op, rewriter, adaptor, al, bl, cl, repM, repN);
    int64_t repK = al.getPerThread(1) / 4;
    Type resType = LLVM::LLVMStructType::getLiteral(
        ctx, f16Acc ? SmallVector<Type>(2, accPairType)
                    : SmallVector<Type>(4, rewriter.getF32Type()));
    NVVM::MMATypes ptxType = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    for (int64_t ki = 0; ki < repK; ++ki) {
      for (int64_t mi = 0; mi < repM; ++mi) {
        SmallVector<Value> aRegs;
        for (int64_t ek = 0; ek < 2; ++ek)
          for (int64_t em = 0; em < 2; ++em) {
            int64_t sm = 2 * mi + em, sk = 4 * ki + 2 * ek;
            aRegs.push_back(
                pack(aAt(sm, sk), aAt(sm, sk + 1), pairType, bf16));
          }
        for (int64_t ni = 0; ni < repN; ++ni) {
          SmallVector<Value> bRegs;
          for (int64_t ek = 0; ek < 2; ++ek) {
            int64_t sk = 4 * ki + 2 * ek;
            bRegs.push_back(pack(bAt(sk, ni), bAt(sk + 1, ni), pairType, bf16));
          }
          int64_t c[4] = {cIdx(2 * mi, 2 * ni), cIdx(2 * mi, 2 * ni + 1),
                          cIdx(2 * mi + 1, 2 * ni),
                          cIdx(2 * mi + 1, 2 * ni + 1)};
          SmallVector<Value> cRegs;
          if (f16Acc) {
            cRegs.push_back(pack(acc[c[0]], acc[c[1]], accPairType, false));
            cRegs.push_back(pack(acc[c[2]], acc[c[3]], accPairType, false));
          } else {
            for (int64_t i : c)
              cRegs.push_back(acc[i]);
          }
          auto mmaOp = NVVM::MmaOp::create(
              rewriter, loc, resType, aRegs, bRegs, cRegs, {16, 8, 16},
              std::nullopt, std::nullopt,
              std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          for (int64_t r = 0; r < (f16Acc ? 2 : 4); ++r) {
            Value v = LLVM::ExtractValueOp::create(rewriter, loc,
                                                   mmaOp.getRes(), r);
            if (!f16Acc) {
              acc[c[r]] = v;
              continue;
            }
            for (int64_t h = 0; h < 2; ++h)
              acc[c[2 * r + h]] = LLVM::ExtractElementOp::create(
                  rewriter, loc, v, i32Val(rewriter, loc, h));
          }
        }
      }
    }
    replaceWithValues(rewriter, op, acc);
    return success();
  }

  /// f32 operands at tf32 precision: one mma.sync.m16n8k8.tf32 per 16x8
  /// tile and 8-wide K step, each operand rounded to tf32 (cvt.rna, as the
  /// CPU interpreter rounds). A's four registers hold (row g, k t),
  /// (g + 8, t), (g, t + 4), (g + 8, t + 4); B's two (k t, column g),
  /// (t + 4, g): the dot_operand layouts with kWidth 1.
  LogicalResult lowerTf32(DotOp op, ConversionPatternRewriter &rewriter,
                          OneToNOpAdaptor adaptor, const DistributedLayout &al,
                          const DistributedLayout &bl,
                          const DistributedLayout &cl, int64_t repM,
                          int64_t repN) const {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    ValueRange a = adaptor.getA(), b = adaptor.getB();
    SmallVector<Value> acc(adaptor.getC().begin(), adaptor.getC().end());
    auto tf32 = [&](Value f) -> Value {
      return NVVM::ConvertFloatToTF32Op::create(
          rewriter, loc, rewriter.getI32Type(), f, NVVM::FPRoundingMode::RNA,
          NVVM::SaturationMode::NONE, false);
    };
    // Each operand element is rounded once, however many tiles read it.
    DenseMap<Value, Value> rounded;
    auto reg = [&](Value f) {
      Value &r = rounded[f];
      if (!r)
        r = tf32(f);
      return r;
    };
    int64_t repK = al.getPerThread(1) / 2;
    Type resType = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(4, rewriter.getF32Type()));
    for (int64_t ki = 0; ki < repK; ++ki)
      for (int64_t mi = 0; mi < repM; ++mi) {
        SmallVector<Value> aRegs;
        for (int64_t ek = 0; ek < 2; ++ek)
          for (int64_t em = 0; em < 2; ++em)
            aRegs.push_back(
                reg(a[al.getElemNumber({2 * mi + em, 2 * ki + ek})]));
        for (int64_t ni = 0; ni < repN; ++ni) {
          SmallVector<Value> bRegs;
          for (int64_t ek = 0; ek < 2; ++ek)
            bRegs.push_back(reg(b[bl.getElemNumber({2 * ki + ek, ni})]));
          int64_t c[4] = {cl.getElemNumber({2 * mi, 2 * ni}),
                          cl.getElemNumber({2 * mi, 2 * ni + 1}),
                          cl.getElemNumber({2 * mi + 1, 2 * ni}),
                          cl.getElemNumber({2 * mi + 1, 2 * ni + 1})};
          SmallVector<Value> cRegs;
          for (int64_t i : c)
            cRegs.push_back(acc[i]);
          auto mmaOp = NVVM::MmaOp::create(
              rewriter, loc, resType, aRegs, bRegs, cRegs, {16, 8, 8},
              std::nullopt, std::nullopt,
              std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32,
                                            NVVM::MMATypes::tf32},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          for (int64_t r = 0; r < 4; ++r)
            acc[c[r]] = LLVM::ExtractValueOp::create(rewriter, loc,
                                                     mmaOp.getRes(), r);
        }
      }
    replaceWithValues(rewriter, op, acc);
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateMmaDotPatterns(
    TileTypeConverter &tc, RewritePatternSet &patterns,
    const LoweringContext &) {
  patterns.add<MmaDotOpLowering>(tc, patterns.getContext());
}
