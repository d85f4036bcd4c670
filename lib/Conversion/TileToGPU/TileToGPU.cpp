//===- TileToGPU.cpp - the convert-tile-to-gpu pass -----------------------===//
//
// Assumes: inlined tile kernels whose tiles all carry layouts
// (tile-assign-layouts). Guarantees: the kernels live in
// `gpu.module @tilec_kernels` as gpu.func kernels made of scalar arith/math,
// scf, llvm, nvvm and gpu ops, ready for convert-gpu-to-nvvm; the module
// records each kernel's shared memory bytes in `tile.shared_bytes` and its
// warps in `tile.kernel_warps` (dictionaries from kernel name to count).
//
// Constructs the lowering cannot handle are reported, with their location,
// before anything is rewritten, so a failure leaves one clear diagnostic. So
// is a kernel whose per-thread code would be over the budget
// (max-kernel-ops), on an estimate; the count after the conversion refuses
// one that the estimate, a lower bound, let through.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "TileToGPUPatterns.h"
#include "tilec/Analysis/SharedMemory.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace tilec {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

namespace {

bool hasTile(Operation *op) {
  auto isTile = [](Type t) { return isa<RankedTensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTile) ||
         llvm::any_of(op->getResultTypes(), isTile);
}

/// An mma dot needs what mma.sync m16n8k16 takes (MmaDotOpToGPU.cpp).
template <typename Fail>
void checkMmaDot(DotOp dot, MmaLayoutAttr mma, Fail &fail) {
  auto aType = dot.getA().getType(), bType = dot.getB().getType();
  auto cType = dot.getType();
  Type ea = aType.getElementType(), ec = cType.getElementType();
  bool tf32 = ea.isF32() && ec.isF32() &&
              dot.getPrecision() == InputPrecision::tf32;
  if (!((ea.isBF16() && ec.isF32()) ||
        (ea.isF16() && (ec.isF32() || ec.isF16())) || tf32)) {
    fail(dot) << "mma.sync needs f16 or bf16 operands with an f32 (or, for "
                 "f16, f16) accumulator, or f32 operands at tf32 precision, "
                 "got "
              << aType << " and " << cType;
    return;
  }
  MLIRContext *ctx = dot.getContext();
  unsigned kWidth = getMmaKWidth(ea.getIntOrFloatBitWidth());
  if (aType.getEncoding() != DotOperandLayoutAttr::get(ctx, 0, mma, kWidth) ||
      bType.getEncoding() != DotOperandLayoutAttr::get(ctx, 1, mma, kWidth)) {
    fail(dot) << "operands of an mma dot must have the #tilegpu.dot_operand "
                 "layouts of its accumulator (run tile-assign-layouts)";
    return;
  }
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1),
          k = aType.getDimSize(1);
  int64_t kStep = tf32 ? 8 : 16;
  if (m % 16 || n % 8 || k % kStep)
    fail(dot) << "mma.sync m16n8k" << kStep << " needs M % 16, N % 8 and K % "
              << kStep << " to be 0, got " << m << "x" << n << "x" << k;
}

/// fp8 values convert (arith.extf from fp8, arith.truncf to it, on tiles,
/// sm_89+: ElementwiseOpToGPU.cpp's Fp8ConvertLowering); nothing else
/// computes on them.
template <typename Fail>
void checkFp8Op(Operation *op, const tilec::Target &target, Fail &fail) {
  if (!isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    fail(op) << "fp8 arithmetic is not supported: convert to f32 first "
                "(arith.extf), compute, and back (arith.truncf)";
    return;
  }
  Type src = getElementTypeOrSelf(op->getOperand(0).getType());
  Type dst = getElementTypeOrSelf(op->getResult(0).getType());
  if (!isa<RankedTensorType>(op->getResult(0).getType())) {
    fail(op) << "fp8 conversions of scalars are not supported yet (convert "
                "a tile)";
    return;
  }
  if (!target.hasFp8Convert()) {
    fail(op) << "fp8 conversions need sm_89 or later (cvt .e4m3x2 / "
                ".e5m2x2); the target is "
             << target.getChip();
    return;
  }
  if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
    if (src.isF64())
      fail(op) << "converts f64 to fp8: truncate to f32 first (the GPU "
                  "converts f32 pairs)";
    else if (trunc.getRoundingmode() &&
             *trunc.getRoundingmode() != arith::RoundingMode::to_nearest_even)
      fail(op) << "fp8 conversions round to nearest even only (the GPU's "
                  "cvt.rn.satfinite)";
  }
}

/// Reports what the lowering does not support (on this target, or yet); one
/// diagnostic per problem. Rules of the ops themselves (which cache
/// modifiers a load takes, ...) are their verifiers'.
LogicalResult checkLowerable(func::FuncOp kernel, const tilec::Target &target) {
  bool ok = true;
  auto fail = [&](Operation *op) {
    ok = false;
    return op->emitOpError();
  };
  unsigned warps = getNumWarps(kernel);
  llvm::DenseSet<Type> badTypes;
  kernel.walk([&](Operation *op) {
    for (Type t : llvm::concat<const Type>(op->getOperandTypes(),
                                           op->getResultTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor)
        continue;
      FailureOr<DistributedLayout> layout = DistributedLayout::get(tensor);
      if (failed(layout) && tensor.getEncoding() &&
          getLayoutNumWarps(tensor.getEncoding()) != 0) {
        // A layout that cannot hold this shape: said once, where the type
        // first appears.
        if (badTypes.insert(t).second)
          fail(op) << "tile type " << t
                   << " cannot be lowered: along each dim its layout's lanes "
                      "and warps must cover the shape exactly, pad it (every "
                      "thread's first element inside the shape) or replicate "
                      "it uniformly (a whole number of steps, a power of two "
                      "of distinct lanes)";
        else
          ok = false;
        return;
      }
      if (failed(layout)) {
        fail(op) << "tile type " << t
                 << " has no layout; run tile-assign-layouts first";
        return;
      }
      if (layout->getNumWarps() != warps) {
        fail(op) << "tile type " << t << " is laid out for "
                 << layout->getNumWarps()
                 << " warps but the kernel has " << warps;
        return;
      }
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      fail(op) << "calls @" << call.getCallee()
               << ", which was not inlined; kernels cannot call functions "
                  "on the GPU yet";
    } else if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      if (isa<RankedTensorType>(cst.getType()) &&
          !isa<SplatElementsAttr>(cst.getValue()))
        fail(op) << "tile constants must be splats (one value); "
                    "non-uniform constants are not supported yet";
    } else if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect())) {
      if ((llvm::any_of(op->getOperandTypes(), isFp8) ||
           llvm::any_of(op->getResultTypes(), isFp8)) &&
          !isa<arith::ConstantOp>(op))
        checkFp8Op(op, target, fail);
    } else if (auto rmw = dyn_cast<AtomicRMWOp>(op)) {
      Type elem = getElementTypeOrSelf(rmw.getType());
      if (rmw.getKind() == RMWKind::FAdd && elem.isBF16() &&
               !target.hasBf16AtomicAdd())
        fail(op) << "atomic add of bf16 needs sm_90 (the target is "
                 << target.getChip() << ")";
    } else if (auto dot = dyn_cast<DotOp>(op)) {
      if (isFp8(dot.getA().getType()))
        fail(op) << "an fp8 dot runs only as a tilegpu.warpgroup_dot (run "
                    "tile-lower-descriptors, which says why it cannot)";
      else if (auto mma = dyn_cast_if_present<MmaLayoutAttr>(
                   dot.getType().getEncoding()))
        checkMmaDot(dot, mma, fail);
    } else if (isa<WarpgroupDotOp, WarpgroupWaitOp>(op) && !target.hasWgmma()) {
      fail(op) << "needs sm_90a (wgmma); the target has none";
    } else if (!isa<TileDialect, TileGPUDialect, scf::SCFDialect,
                    func::FuncDialect>(op->getDialect()) &&
               hasTile(op)) {
      fail(op) << "on tiles is not supported by the GPU lowering";
    }
  });
  return success(ok);
}

/// Ops whose per-thread values are their operands' (the 1:N conversion
/// reuses them; a reshape or transpose may instead go through shared
/// memory, left out of the estimate all the same) or, for scf, block
/// arguments: no code per element.
bool makesNoCodePerElement(Operation *op) {
  return isa<arith::ConstantOp, SplatOp, BroadcastOp, ExpandDimsOp, ReshapeOp,
             TransOp, func::ReturnOp>(op) ||
         isa_and_present<scf::SCFDialect>(op->getDialect());
}

/// A lower estimate of the per-thread operations the conversion makes of
/// `op`: one per element a thread holds of its largest tile (operand or
/// result), and for a dot on the FMA path one multiply-add per accumulator
/// element and step of K.
int64_t estimateThreadOps(Operation *op) {
  if (makesNoCodePerElement(op))
    return 0;
  auto perThread = [](Type t) -> int64_t {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor)
      return 0;
    FailureOr<DistributedLayout> layout = DistributedLayout::get(tensor);
    return succeeded(layout) ? layout->getNumElems() : 0;
  };
  int64_t most = 0;
  for (Type t :
       llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
    most = std::max(most, perThread(t));
  if (auto dot = dyn_cast<DotOp>(op))
    if (!isa_and_present<MmaLayoutAttr>(dot.getType().getEncoding()))
      if (llvm::MulOverflow(perThread(dot.getType()),
                            dot.getA().getType().getDimSize(1), most))
        most = std::numeric_limits<int64_t>::max();
  return most;
}

/// The error of a kernel over the per-thread code budget, with a note at
/// the source of the most operations (`heaviest`: a location and its count).
void reportOverBudget(Operation *kernel, StringRef name, StringRef measure,
                      int64_t ops, int64_t maxOps,
                      std::pair<Location, int64_t> heaviest,
                      StringRef heaviestWhat) {
  InFlightDiagnostic diag =
      kernel->emitError() << "kernel '" << name << "' " << measure << " " << ops
                          << " operations in its per-thread code, over the "
                             "budget of "
                          << maxOps
                          << " (tilec --max-kernel-ops=N raises it): its "
                             "tiles are too large for its threads; use "
                             "smaller tiles or more warps";
  diag.attachNote(heaviest.first)
      << heaviest.second << " of them " << heaviestWhat;
}

/// Refuses a kernel whose per-thread code would be over `maxOps` before
/// anything is converted: a tile of 2^20 elements on one warp is 32768
/// values per thread and op, which the conversion and the passes after it
/// would spend minutes on.
LogicalResult checkEstimatedOps(func::FuncOp kernel, int64_t maxOps) {
  int64_t total = 0;
  Operation *heaviest = nullptr;
  int64_t heaviestOps = 0;
  kernel.walk([&](Operation *op) {
    int64_t ops = estimateThreadOps(op);
    if (llvm::AddOverflow(total, ops, total))
      total = std::numeric_limits<int64_t>::max();
    if (ops > heaviestOps) {
      heaviestOps = ops;
      heaviest = op;
    }
  });
  if (total <= maxOps || !heaviest)
    return success();
  reportOverBudget(
      kernel, kernel.getSymName(), "would have at least", total, maxOps,
      {heaviest->getLoc(), heaviestOps},
      ("for this '" + heaviest->getName().getStringRef() + "'").str());
  return failure();
}

/// Counts the operations of each converted kernel and refuses one over
/// `maxOps` (the estimate before the conversion is a lower bound), naming
/// the source location that made the most of them.
LogicalResult checkConvertedOps(gpu::GPUModuleOp gpuModule, int64_t maxOps) {
  bool ok = true;
  for (auto func : gpuModule.getOps<gpu::GPUFuncOp>()) {
    int64_t total = 0;
    llvm::DenseMap<Location, int64_t> byLoc;
    func.walk([&](Operation *op) {
      if (op == func)
        return;
      ++total;
      ++byLoc[op->getLoc()];
    });
    if (total <= maxOps)
      continue;
    std::pair<Location, int64_t> heaviest(func.getLoc(), 0);
    for (auto &[loc, n] : byLoc)
      if (n > heaviest.second)
        heaviest = {loc, n};
    reportOverBudget(func, func.getName(), "has", total, maxOps, heaviest,
                     "come from here");
    ok = false;
  }
  return success(ok);
}

/// Kernel parameters of type i1 travel as i32 (0 or 1), see metadata.md.
void widenBoolParams(func::FuncOp kernel) {
  Block &entry = kernel.getBody().front();
  OpBuilder b(&entry, entry.begin());
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    if (!arg.getType().isInteger(1))
      continue;
    arg.setType(b.getI32Type());
    inputs[i] = b.getI32Type();
    Value zero = arith::ConstantIntOp::create(b, arg.getLoc(), b.getI32Type(), 0);
    auto cmp = arith::CmpIOp::create(b, arg.getLoc(),
                                     arith::CmpIPredicate::ne, arg, zero);
    arg.replaceAllUsesExcept(cmp, cmp);
  }
  kernel.setFunctionType(
      FunctionType::get(kernel.getContext(), inputs, {}));
}

/// Shared memory of a kernel: the scratch of ops that exchange data (from
/// offset 0, between barriers; reductions where planReductionScratch puts
/// them) and the tilegpu.local_alloc buffers, which allocateBuffers places
/// around it (recording each buffer's offset on it); both tilec::smem's.
int64_t computeSharedBytes(func::FuncOp kernel, LoweringContext &lc) {
  int64_t scratch = tilec::smem::planReductionScratch(kernel, lc.reduceScratch);
  bool anyAlloc = false;
  kernel.walk([&](LocalAllocOp) { anyAlloc = true; });
  // A buffer may sit at offset 0 and be read by slower warps until they
  // leave its loop: no reduction may skip the barrier before its writes.
  if (anyAlloc)
    for (auto &entry : lc.reduceScratch)
      if (entry.first->getParentOfType<func::FuncOp>() == kernel)
        entry.second.leadingBarrier = true;
  return tilec::smem::allocateBuffers(kernel, scratch);
}

struct ConvertTileToGPU
    : public tilec::impl::ConvertTileToGPUBase<ConvertTileToGPU> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    llvm::Expected<tilec::Target> target = tilec::Target::get(chip);
    if (!target) {
      module.emitError(llvm::toString(target.takeError()));
      return signalPassFailure();
    }
    LoweringContext lc;
    lc.target = &*target;
    lc.crossWarpShuffle = crossWarpShuffle;

    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (isKernel(func))
        kernels.push_back(func);
    for (func::FuncOp k : kernels)
      if (failed(checkLowerable(k, *target)) ||
          failed(checkEstimatedOps(k, maxKernelOps)))
        return signalPassFailure();
    if (kernels.empty())
      return;

    // Functions left after inlining are dead or unsupported.
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (!isKernel(func) && func.isPrivate() &&
          SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();

    SmallVector<NamedAttribute> shared, warps;
    bool anyShared = false;
    for (func::FuncOp k : kernels) {
      widenBoolParams(k);
      int64_t bytes = computeSharedBytes(k, lc);
      anyShared |= bytes > 0;
      k->setAttr("tile.shared_bytes",
                 IntegerAttr::get(IntegerType::get(ctx, 64), bytes));
      if (!k->hasAttr(TileDialect::getNumWarpsAttrName()))
        k->setAttr(TileDialect::getNumWarpsAttrName(),
                   IntegerAttr::get(IntegerType::get(ctx, 32),
                                    getNumWarps(k)));
      shared.push_back(NamedAttribute(
          k.getSymNameAttr(),
          IntegerAttr::get(IntegerType::get(ctx, 64), bytes)));
      int launched = getNumWarps(k);
      if (auto extra = k->getAttrOfType<IntegerAttr>(
              tilegpu::WarpSpecializeOp::getProducerWarpsAttrName()))
        launched += int(extra.getInt());
      warps.push_back(NamedAttribute(
          k.getSymNameAttr(),
          IntegerAttr::get(IntegerType::get(ctx, 32), launched)));
    }
    module->setAttr("tile.shared_bytes", DictionaryAttr::get(ctx, shared));
    // The warps each kernel launches with, which tile-assign-layouts may
    // have chosen (a tile of 3072 takes 12), producer warps included: for
    // the metadata.
    module->setAttr("tile.kernel_warps", DictionaryAttr::get(ctx, warps));

    // The analysis reads the tile IR the patterns are about to rewrite.
    ModuleAxisInfo axis(module);
    if (!axis.succeeded())
      return signalPassFailure();
    lc.axis = &axis;

    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    auto nvvmTarget =
        NVVM::NVVMTargetAttr::get(ctx, optLevel, "nvptx64-nvidia-cuda",
                                  target->getChip(), target->getPtxFeatures());
    auto gpuModule = gpu::GPUModuleOp::create(
        b, module.getLoc(), "tilec_kernels", b.getArrayAttr({nvvmTarget}));
    if (libdeviceFtz) {
      // Read by NVVMReflect when libdevice is linked.
      b.setInsertionPointToStart(gpuModule.getBody());
      auto flag = LLVM::ModuleFlagAttr::get(
          ctx, LLVM::ModFlagBehavior::Override,
          b.getStringAttr("nvvm-reflect-ftz"), b.getI32IntegerAttr(1));
      LLVM::ModuleFlagsOp::create(b, module.getLoc(), b.getArrayAttr({flag}));
    }
    if (anyShared) {
      // 1024 where wgmma reads swizzled slots (see computeSharedBytes).
      bool nvmma = false;
      module.walk([&](LocalAllocOp alloc) {
        nvmma |= isa<NvmmaSharedLayoutAttr>(
            cast<SharedMemType>(alloc.getType()).getLayout());
      });
      b.setInsertionPointToStart(gpuModule.getBody());
      LLVM::GlobalOp::create(
          b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 0),
          /*isConstant=*/false, LLVM::Linkage::External, kSmemName, Attribute(),
          /*alignment=*/nvmma ? 1024 : 16, /*addrSpace=*/3);
    }
    for (func::FuncOp k : kernels)
      k->moveBefore(gpuModule.getBody(), gpuModule.getBody()->end());

    TileTypeConverter tc(ctx);
    RewritePatternSet patterns(ctx);
    ConversionTarget conversionTarget(*ctx);
    conversionTarget.addLegalDialect<gpu::GPUDialect, LLVM::LLVMDialect,
                                     NVVM::NVVMDialect,
                                     cf::ControlFlowDialect>();
    conversionTarget.addIllegalDialect<TileDialect, TileGPUDialect>();
    // Combiner terminators disappear with their reduce/scan.
    conversionTarget.addLegalOp<YieldOp>();
    conversionTarget.addIllegalOp<func::FuncOp, func::ReturnOp>();
    // Scalar arith/math stays for convert-gpu-to-nvvm.
    conversionTarget.addDynamicallyLegalDialect<arith::ArithDialect,
                                                math::MathDialect>(
        [&](Operation *op) { return tc.isLegal(op); });
    scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns,
                                                         conversionTarget);
    populateFuncPatterns(tc, patterns, lc);
    populateElementwisePatterns(tc, patterns, lc);
    populateMemoryPatterns(tc, patterns, lc);
    populateReduceScanPatterns(tc, patterns, lc);
    populateLayoutPatterns(tc, patterns, lc);
    populateDotPatterns(tc, patterns, lc);
    populateMmaDotPatterns(tc, patterns, lc);
    populateWarpgroupDotPatterns(tc, patterns, lc);
    populateSharedMemoryPatterns(tc, patterns, lc);
    populateTmaPatterns(tc, patterns, lc);
    populateDebugPatterns(tc, patterns, lc);
    if (failed(applyPartialConversion(gpuModule, conversionTarget,
                                      std::move(patterns))) ||
        failed(checkConvertedOps(gpuModule, maxKernelOps)))
      return signalPassFailure();

    RewritePatternSet scalar(ctx);
    populateScalarMathPatterns(scalar);
    if (fastMath)
      populateFastMathPatterns(scalar);
    populateApproxMathPatterns(scalar, approxMath);
    if (failed(applyPatternsGreedily(gpuModule, std::move(scalar))))
      return signalPassFailure();
  }
};

} // namespace
