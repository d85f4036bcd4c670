//===- tilec.cpp - the tilec compiler driver ------------------------------===//
//
// Reads a tile program (MLIR text, usually a .tile file), runs the pipeline up
// to the level asked for with --emit and writes the result. The pipeline lives
// in lib/Pipeline; this file only handles options, files and errors.
//
//===----------------------------------------------------------------------===//

#include "tilec/InitAll.h"
#include "tilec/Pipeline.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory tilecCategory("tilec options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .tile file>"),
                                          cl::init("-"),
                                          cl::cat(tilecCategory));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::value_desc("file"),
                                           cl::init("-"),
                                           cl::cat(tilecCategory));
static cl::opt<tilec::EmitLevel> emitLevel(
    "emit", cl::desc("What to produce"), cl::init(tilec::EmitLevel::Tile),
    cl::values(clEnumValN(tilec::EmitLevel::Tile, "tile",
                          "verified, inlined, canonicalized tile IR")),
    cl::cat(tilecCategory));
static cl::opt<std::string> arch("arch",
                                 cl::desc("GPU target: sm_80, sm_90, sm_90a"),
                                 cl::init("sm_90"), cl::cat(tilecCategory));
static cl::opt<int> numWarps(
    "num-warps", cl::desc("Warps per program for kernels without "
                          "tile.num_warps (1..32, a power of two)"),
    cl::init(4), cl::cat(tilecCategory));
static cl::opt<int> optLevel("O", cl::desc("Optimization level (0..3)"),
                             cl::Prefix, cl::init(3), cl::cat(tilecCategory));

/// Checks option values; reports the first bad one.
static LogicalResult checkOptions() {
  if (arch != "sm_80" && arch != "sm_90" && arch != "sm_90a") {
    llvm::errs() << "tilec: error: unknown --arch '" << arch
                 << "' (expected sm_80, sm_90 or sm_90a)\n";
    return failure();
  }
  if (numWarps < 1 || numWarps > 32 || (numWarps & (numWarps - 1))) {
    llvm::errs() << "tilec: error: --num-warps must be a power of two in "
                    "[1, 32], got "
                 << numWarps << "\n";
    return failure();
  }
  if (optLevel < 0 || optLevel > 3) {
    llvm::errs() << "tilec: error: -O must be 0..3, got " << optLevel << "\n";
    return failure();
  }
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::ParseCommandLineOptions(
      argc, argv,
      "tilec: compile tile programs to PTX\n\n"
      "  tilec kernel.tile -o kernel.ptx --emit=ptx\n");
  if (failed(checkOptions()))
    return 1;

  DialectRegistry registry;
  tilec::registerTilecDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string error;
  auto input = openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "tilec: error: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  tilec::PipelineOptions options;
  options.emit = emitLevel;
  options.arch = arch;
  options.numWarps = numWarps;
  options.optLevel = optLevel;

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  DefaultTimingManager tm;
  applyDefaultTimingManagerCLOptions(tm);
  TimingScope timing = tm.getRootScope();
  pm.enableTiming(timing);
  tilec::buildTilecPipeline(pm, options);
  if (failed(pm.run(*module)))
    return 1;

  auto output = openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "tilec: error: " << error << "\n";
    return 1;
  }
  module->print(output->os());
  output->keep();
  return 0;
}
