//===- Pipeline.cpp - the tilec compilation pipeline ----------------------===//
//
// One place decides which passes run for each --emit level, so that tilec,
// tile-opt's `tilec-pipeline` and the builder API compile alike.
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipeline.h"
#include "tilec/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tilec::buildTilecPipeline(OpPassManager &pm,
                               const PipelineOptions &options) {
  // Front end: fold tile functions into kernels and clean up.
  pm.addPass(createInlinerPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  (void)options;
}

FailureOr<tilec::CompileResult>
tilec::compileModule(ModuleOp module, const PipelineOptions &options) {
  PassManager pm(module.getContext());
  buildTilecPipeline(pm, options);
  if (failed(pm.run(module)))
    return failure();
  CompileResult result;
  llvm::raw_string_ostream os(result.ir);
  module.print(os);
  return result;
}

namespace {
/// The pipeline's options as tile-opt spells them:
/// --tilec-pipeline="arch=sm_90 num-warps=4".
struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
  Option<std::string> arch{*this, "arch", llvm::cl::desc("GPU target"),
                           llvm::cl::init("sm_90")};
  Option<int> numWarps{*this, "num-warps",
                       llvm::cl::desc("Default warps per program"),
                       llvm::cl::init(4)};
  Option<int> optLevel{*this, "opt-level", llvm::cl::desc("0..3"),
                       llvm::cl::init(3)};
};
} // namespace

void tilec::registerTilecPipelines() {
  PassPipelineRegistration<PipelineCLOptions>(
      "tilec-pipeline", "Lower a tile module as `tilec` does",
      [](OpPassManager &pm, const PipelineCLOptions &cl) {
        PipelineOptions options;
        options.arch = cl.arch;
        options.numWarps = cl.numWarps;
        options.optLevel = cl.optLevel;
        buildTilecPipeline(pm, options);
      });
}
