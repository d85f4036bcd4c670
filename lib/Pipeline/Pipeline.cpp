//===- Pipeline.cpp - the tilec compilation pipeline ----------------------===//
//
// One place decides which passes run for each --emit level, so that tilec,
// tile-opt's `tilec-pipeline` and the builder API compile alike.
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipeline.h"
#include "tilec/Conversion/Passes.h"
#include "tilec/InitAll.h"
#include "tilec/Transforms/Passes.h"
#include "tilec/support/CudaTools.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
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
  pm.addPass(createTileAssignLayouts(TileAssignLayoutsOptions{options.numWarps}));
  pm.addPass(createTileRemoveLayoutConversions());
  // Dot operand loads in loops become cp.async copies issued ahead.
  pm.addPass(createTilePipelineLoops(TilePipelineLoopsOptions{options.numStages}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.emit == EmitLevel::Layout)
    return;

  // Per-thread code in a gpu.module.
  ConvertTileToGPUOptions toGPU;
  toGPU.chip = options.arch;
  toGPU.optLevel = options.optLevel;
  toGPU.approxMath = options.approxMath;
  pm.addPass(createConvertTileToGPU(toGPU));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.emit == EmitLevel::GPU)
    return;

  // LLVM + NVVM; math functions become libdevice calls.
  OpPassManager &gm = pm.nest<gpu::GPUModuleOp>();
  gm.addPass(createSCFToControlFlowPass());
  gm.addPass(createConvertGpuOpsToNVVMOps());
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
/// The pipeline's options as tile-opt spells them:
/// --tilec-pipeline="emit=gpu arch=sm_90 num-warps=4".
struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
  Option<std::string> emit{
      *this, "emit",
      llvm::cl::desc("How far: tile, layout, gpu, llvm, ptx (default ptx)"),
      llvm::cl::init("ptx")};
  Option<std::string> arch{*this, "arch", llvm::cl::desc("GPU target"),
                           llvm::cl::init("sm_90")};
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
};
} // namespace

void tilec::registerTilecPipelines() {
  PassPipelineRegistration<PipelineCLOptions>(
      "tilec-pipeline", "Lower a tile module as `tilec` does",
      [](OpPassManager &pm, const PipelineCLOptions &cl) {
        PipelineOptions options;
        options.emit = llvm::StringSwitch<EmitLevel>(cl.emit)
                           .Case("tile", EmitLevel::Tile)
                           .Case("layout", EmitLevel::Layout)
                           .Case("gpu", EmitLevel::GPU)
                           .Case("llvm", EmitLevel::LLVM)
                           .Default(EmitLevel::PTX);
        options.arch = cl.arch;
        options.numWarps = cl.numWarps;
        options.optLevel = cl.optLevel;
        options.approxMath = cl.approxMath;
        options.numStages = cl.numStages;
        buildTilecPipeline(pm, options);
      });
}
