//===- Pipeline.cpp - the tilec compilation pipeline ----------------------===//
//
// One place decides which passes run for each --emit level, so that tilec,
// tile-opt's `tilec-pipeline` and the builder API compile alike.
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipeline.h"
#include "tilec/Conversion/Passes.h"
#include "tilec/InitAll.h"
#include "tilec/Target/Target.h"
#include "tilec/Transforms/Passes.h"
#include "tilec/Support/CudaTools.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"


using namespace mlir;

namespace {
/// Tensor descriptor parameters (listed in tilegpu.tensor_desc_args by
/// convert-tile-to-gpu, lib/Conversion/TileToGPU/FuncOpToGPU.cpp) become
/// byval 128-byte nvvm.grid_constant parameters of the lowered kernels: the
/// TMA reads the by-value CUtensorMap in the parameter space, through its
/// generic address.
struct MarkGridConstants
    : public PassWrapper<MarkGridConstants, OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MarkGridConstants)
  StringRef getArgument() const override { return "tilec-mark-grid-constants"; }
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    for (auto f : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      auto args = f->getAttrOfType<DenseI32ArrayAttr>("tilegpu.tensor_desc_args");
      if (!args)
        continue;
      f->removeAttr("tilegpu.tensor_desc_args");
      for (int32_t i : args.asArrayRef()) {
        f.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                     TypeAttr::get(LLVM::LLVMArrayType::get(
                         IntegerType::get(ctx, 8), 128)));
        f.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                     IntegerAttr::get(IntegerType::get(ctx, 64), 64));
        f.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                     UnitAttr::get(ctx));
      }
    }
  }
};
} // namespace

std::string tilec::findCudaToolkit() { return cuda::findToolkit(); }

void tilec::buildTilecPipeline(OpPassManager &pm,
                               const PipelineOptions &options) {
  // Front end: fold tile functions into kernels and clean up.
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.emit == EmitLevel::Tile)
    return;

  // Layouts: distribute every tile over the threads, then avoid conversions.
  // (tile-hoist-loads is not run: measured on layernorm it raised registers
  // from 48 to 64 and cost 6%; see docs/performance.md.)
  TileAssignLayoutsOptions layouts;
  layouts.numWarps = options.numWarps;
  layouts.chip = options.arch;
  pm.addPass(createTileAssignLayouts(layouts));
  pm.addPass(createTileRemoveLayoutConversions());
  // Tensor descriptor accesses become TMA copies (a ring of slots for the
  // operands of a wgmma dot in a loop).
  TileLowerDescriptorsOptions descriptors;
  descriptors.numStages = options.numStages;
  descriptors.chip = options.arch;
  descriptors.warpSpecializeByDefault = options.warpSpecialize;
  pm.addPass(createTileLowerDescriptors(descriptors));
  // Dot operand loads in loops become cp.async copies issued ahead.
  TilePipelineLoopsOptions pipelining;
  pipelining.numStages = options.numStages;
  pipelining.chip = options.arch;
  pm.addPass(createTilePipelineLoops(pipelining));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // wgmma groups run beside the work that does not need their result.
  pm.addPass(createTileAsyncDots());
  // Tiles of many elements per thread run in loops over chunks: code size
  // and LLVM's time (superlinear in a block's length) stay bounded.
  TileLoopLargeTilesOptions chunks;
  chunks.maxElementsPerThread = options.maxUnrolledElements;
  chunks.maxUnchunkedElementsPerThread = options.maxUnchunkedElements;
  pm.addPass(createTileLoopLargeTiles(chunks));
  if (options.emit == EmitLevel::Layout)
    return;

  // Per-thread code in a gpu.module.
  ConvertTileToGPUOptions toGPU;
  toGPU.chip = options.arch;
  toGPU.optLevel = options.optLevel;
  toGPU.approxMath = options.approxMath;
  toGPU.maxKernelOps = options.maxKernelOps;
  pm.addPass(createConvertTileToGPU(toGPU));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.emit == EmitLevel::GPU)
    return;

  // LLVM + NVVM; math functions become libdevice calls.
  OpPassManager &gm = pm.nest<gpu::GPUModuleOp>();
  gm.addPass(createSCFToControlFlowPass());
  gm.addPass(createConvertGpuOpsToNVVMOps());
  gm.addPass(std::make_unique<MarkGridConstants>());
  // wgmma ops are PTX builders (inline asm); only sm_90a kernels have
  // them, and other targets' PTX stays as it was.
  // (An unknown chip was reported by the passes above.)
  llvm::Expected<tilec::Target> target = tilec::Target::get(options.arch);
  if (!target)
    llvm::consumeError(target.takeError());
  else if (target->hasWgmma())
    gm.addPass(createConvertNVVMToLLVMPass());
  gm.addPass(createCanonicalizerPass());
  gm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (options.emit == EmitLevel::LLVM)
    return;

  // PTX through the NVPTX backend (libdevice linked where used).
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  // Without a toolkit nothing is linked, and compileModule reports kernels
  // that need libdevice.
  binary.toolkitPath = findCudaToolkit();
  // compileModule sets LLVM's NVPTX options for the module's kind of kernel
  // first (setNvptxCodegenOptions); a bare pass pipeline uses LLVM's.
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

namespace {
/// --emit's values. cl's own parser says only "Cannot find option named"; a
/// misspelt level is reported with the levels there are.
struct EmitLevelParser : public llvm::cl::parser<tilec::EmitLevel> {
  using llvm::cl::parser<tilec::EmitLevel>::parser;
  bool parse(llvm::cl::Option &o, StringRef, StringRef arg,
             tilec::EmitLevel &level) {
    for (const auto &value : Values)
      if (value.Name == arg) {
        level = value.V.getValue();
        return false;
      }
    return o.error("'" + arg +
                   "' is not an emit level (tile, layout, gpu, llvm, ptx)");
  }
  /// How tile-opt prints the pipeline back (--dump-pass-pipeline).
  static void print(raw_ostream &os, tilec::EmitLevel level) {
    switch (level) {
    case tilec::EmitLevel::Tile:
      os << "tile";
      return;
    case tilec::EmitLevel::Layout:
      os << "layout";
      return;
    case tilec::EmitLevel::GPU:
      os << "gpu";
      return;
    case tilec::EmitLevel::LLVM:
      os << "llvm";
      return;
    case tilec::EmitLevel::PTX:
      os << "ptx";
      return;
    case tilec::EmitLevel::Cubin:
      os << "cubin";
      return;
    }
  }
};

/// The pipeline's options as tile-opt spells them:
/// --tilec-pipeline="emit=gpu arch=sm_90 num-warps=4".
struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
  // Typed: a misspelt level is an error naming the allowed values.
  Option<tilec::EmitLevel, EmitLevelParser> emit{
      *this, "emit", llvm::cl::desc("How far (default ptx)"),
      llvm::cl::init(tilec::EmitLevel::PTX),
      llvm::cl::values(
          clEnumValN(tilec::EmitLevel::Tile, "tile",
                     "inlined, canonical tile IR"),
          clEnumValN(tilec::EmitLevel::Layout, "layout", "tiles carry layouts"),
          clEnumValN(tilec::EmitLevel::GPU, "gpu",
                     "gpu.module, per-thread code"),
          clEnumValN(tilec::EmitLevel::LLVM, "llvm", "LLVM and NVVM dialects"),
          clEnumValN(tilec::EmitLevel::PTX, "ptx", "PTX in a gpu.binary"))};
  // Validated by the passes, which reject unknown chips (tilec::Target).
  Option<std::string> arch{
      *this, "arch",
      llvm::cl::desc("GPU target: sm_80, sm_89, sm_90, sm_90a, sm_100a"),
      llvm::cl::init(tilec::Target::kDefaultChip.str())};
  Option<int> numWarps{*this, "num-warps",
                       llvm::cl::desc("Default warps per program"),
                       llvm::cl::init(4)};
  Option<int> optLevel{*this, "opt-level", llvm::cl::desc("0..3"),
                       llvm::cl::init(3)};
  Option<bool> approxMath{*this, "approx-math",
                          llvm::cl::desc("Every kernel as if marked "
                                         "tile.approx_math"),
                          llvm::cl::init(false)};
  Option<int> numStages{*this, "num-stages",
                        llvm::cl::desc("Default pipelining depth (1: none)"),
                        llvm::cl::init(3)};
  Option<int64_t> maxUnrolledElements{
      *this, "max-unrolled-elements",
      llvm::cl::desc("Tiles with more elements per thread run in loops over "
                     "chunks (0: never)"),
      llvm::cl::init(128)};
};
} // namespace

void tilec::registerTilecPipelines() {
  PassPipelineRegistration<PipelineCLOptions>(
      "tilec-pipeline", "Lower a tile module as `tilec` does",
      [](OpPassManager &pm, const PipelineCLOptions &cl) {
        PipelineOptions options;
        options.emit = cl.emit;
        options.arch = cl.arch;
        options.numWarps = cl.numWarps;
        options.optLevel = cl.optLevel;
        options.approxMath = cl.approxMath;
        options.numStages = cl.numStages;
        options.maxUnrolledElements = cl.maxUnrolledElements;
        buildTilecPipeline(pm, options);
      });
}
