//===- FuncOpToGPU.cpp - kernels, returns, program ids --------------------===//
//
// A tile kernel (func.func with tile.kernel, already inside the gpu.module)
// becomes a gpu.func kernel with one parameter per kernel parameter
// (pointers as global LLVM pointers; i1 parameters were widened to i32 by
// the pass; tensor descriptors as byval 128-byte grid constants) and
// known_block_size = 32 * warps (and a warp-specialized kernel's producer
// warps).
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

namespace {

/// The kernel's tensor descriptor parameters (indices), for the pipeline to
/// make byval grid constants of on the llvm.func.
constexpr llvm::StringLiteral kTensorDescArgs = "tilegpu.tensor_desc_args";

/// func.func @k {tile.kernel} -> gpu.func @k kernel.
struct KernelFuncLowering : public OpConversionPattern<func::FuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isKernel(func))
      return rewriter.notifyMatchFailure(func, "not a kernel");
    const TypeConverter &tc = *getTypeConverter();
    TypeConverter::SignatureConversion sig(func.getNumArguments());
    SmallVector<Type> inputs;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      Type converted = tc.convertType(type);
      if (!converted)
        return func.emitOpError("kernel parameter #")
               << i << " of type " << type << " cannot be lowered";
      sig.addInputs(i, converted);
      inputs.push_back(converted);
    }
    auto gpuFunc = gpu::GPUFuncOp::create(
        rewriter, func.getLoc(), func.getName(),
        rewriter.getFunctionType(inputs, {}));
    gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                     rewriter.getUnitAttr());
    // A warp-specialized kernel launches its producer warps after the
    // tile program's.
    int threads = 32 * getNumWarps(func);
    if (auto extra = func->getAttrOfType<IntegerAttr>(
            tilegpu::WarpSpecializeOp::getProducerWarpsAttrName()))
      threads += 32 * int(extra.getInt());
    gpuFunc.setKnownBlockSizeAttr(
        rewriter.getDenseI32ArrayAttr({threads, 1, 1}));
    // Clusters of num_ctas programs along x (PTX `.reqnctapercluster`).
    if (int ctas = getNumCtas(func); ctas > 1)
      gpuFunc.setKnownClusterSizeAttr(
          rewriter.getDenseI32ArrayAttr({ctas, 1, 1}));
    // A tensor descriptor's CUtensorMap is passed by value, 64-byte aligned,
    // and read in place through its address (the TMA wants the parameter's
    // own generic address, not a copy): `.param .align 64 .b8 name[128]`.
    // The GPU-to-NVVM lowering keeps llvm.align but drops llvm.byval and
    // NVVM's verifier takes nvvm.grid_constant on llvm.func kernels only:
    // the kernel lists its descriptor parameters, and the pipeline marks
    // them on the llvm.func (lib/Pipeline/Pipeline.cpp, MarkGridConstants).
    SmallVector<int32_t> descArgs;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isa<TensorDescType>(type)) {
        descArgs.push_back(int32_t(i));
        gpuFunc.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                           rewriter.getI64IntegerAttr(64));
      }
    if (!descArgs.empty())
      gpuFunc->setAttr(kTensorDescArgs,
                       rewriter.getDenseI32ArrayAttr(descArgs));
    for (StringRef name : {"tile.shared_bytes", "tile.num_warps",
                           "tile.approx_math"})
      if (Attribute a = func->getAttr(name))
        gpuFunc->setAttr(name, a);
    // Replace the builder's empty entry block by the kernel's body.
    rewriter.eraseBlock(&gpuFunc.getBody().front());
    rewriter.inlineRegionBefore(func.getBody(), gpuFunc.getBody(),
                                gpuFunc.getBody().end());
    rewriter.applySignatureConversion(&gpuFunc.getBody().front(), sig, &tc);
    rewriter.eraseOp(func);
    return success();
  }
};

/// func.return -> gpu.return (kernels return nothing).
struct ReturnOpLowering : public OpConversionPattern<func::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::ReturnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::ReturnOp>(op);
    return success();
  }
};

/// tile.program_id / tile.num_programs -> %ctaid / %nctaid.
template <typename SourceOp, typename X, typename Y, typename Z>
struct GridQueryLowering : public OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value v;
    switch (op.getAxis()) {
    case 0: v = X::create(rewriter, op.getLoc(), i32); break;
    case 1: v = Y::create(rewriter, op.getLoc(), i32); break;
    default: v = Z::create(rewriter, op.getLoc(), i32); break;
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateFuncPatterns(
    TileTypeConverter &tc, RewritePatternSet &patterns,
    const LoweringContext &) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<KernelFuncLowering, ReturnOpLowering,
               GridQueryLowering<ProgramIdOp, NVVM::BlockIdXOp,
                                 NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridQueryLowering<NumProgramsOp, NVVM::GridDimXOp,
                                 NVVM::GridDimYOp, NVVM::GridDimZOp>>(tc, ctx);
}
