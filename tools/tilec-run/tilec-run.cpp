//===- tilec-run.cpp - run a tile kernel on the CPU -----------------------===//
//
// Parses a tile file, builds one argument per kernel parameter from --arg
// specs (files, random data, fills, scalars), runs the kernel for --grid in
// the CPU interpreter with its memory checker, and writes the output buffers.
// The work is in lib/Interpreter; this file handles options and errors.
//
//   tilec-run examples/add.tile --grid=4 --arg n=4000,rand=1
//     --arg n=4000,rand=2 --arg n=4000,out=z.npy --arg 4000
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend.h"
#include "tilec/Params.h"
#include "tilec/InitAll.h"
#include "tilec/Interpreter.h"
#include "tilec/Pipeline.h"
#include "tilec/Interpreter/HostArgs.h"
#include "tilec/Support/Progress.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory runCategory("tilec-run options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .tile file>"),
                                          cl::init("-"), cl::cat(runCategory));
static cl::opt<std::string>
    kernelName("kernel",
               cl::desc("Kernel to run (default: the file's only kernel)"),
               cl::cat(runCategory));
static cl::opt<std::string>
    gridText("grid", cl::desc("Programs: X[,Y[,Z]] (default 1)"), cl::init("1"),
             cl::cat(runCategory));
static cl::list<std::string>
    argSpecs("arg",
             cl::desc("One per kernel parameter, in order: a scalar value, "
                      "or a buffer spec (n=, in=, rand=, min=, max=, fill=, "
                      "iota, save=, out=, print, expect=, atol=, rtol=)"),
             cl::cat(runCategory));
static cl::list<std::string> paramAssignments(
    "param",
    cl::desc("The value of a parameter the file declares in tile.params "
             "(repeatable, as for tilec; a parameter not given takes its "
             "first value)"),
    cl::value_desc("NAME=VALUE"), cl::cat(runCategory));
static cl::opt<bool> runPipeline(
    "pipeline",
    cl::desc("Run tilec's front end (inline, canonicalize) before running"),
    cl::cat(runCategory));
static cl::opt<bool> noTF32("no-tf32",
                            cl::desc("Compute f32 dots as ieee even when "
                                     "their precision is tf32"),
                            cl::cat(runCategory));
static cl::opt<bool> noRaceCheck(
    "no-race-check",
    cl::desc("Do not report loads and stores that race between programs"),
    cl::cat(runCategory));
static cl::opt<bool> printStats("run-stats",
                                cl::desc("Print what the run did and its "
                                         "time to stderr"),
                                cl::cat(runCategory));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "tilec-run: error: " << message << "\n";
  return 1;
}

/// The kernel to run: --kernel, else the only kernel of the module.
static FailureOr<func::FuncOp> findKernel(ModuleOp module) {
  SmallVector<func::FuncOp> kernels;
  module.walk([&](func::FuncOp f) {
    if (tile::isKernel(f))
      kernels.push_back(f);
  });
  if (!kernelName.empty()) {
    for (func::FuncOp k : kernels)
      if (k.getSymName() == kernelName)
        return k;
    std::string names;
    for (func::FuncOp k : kernels)
      names += (names.empty() ? "@" : ", @") + k.getSymName().str();
    fail("no kernel @" + kernelName + " in '" + inputFilename +
         "' (its kernels: " + (names.empty() ? "none" : names) + ")");
    return failure();
  }
  if (kernels.size() != 1) {
    fail("'" + inputFilename + "' has " + llvm::Twine(kernels.size()) +
         " kernels; choose one with --kernel");
    return failure();
  }
  return kernels.front();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tilec-run: run a tile kernel on the CPU, checking every memory "
      "access\n\n"
      "  tilec-run examples/add.tile --grid=4 --arg n=4000,rand=1 \\\n"
      "    --arg n=4000,rand=2 --arg n=4000,out=z.npy --arg 4000\n");

  int64_t dims[3];
  if (!tilec::parseGridText(gridText, dims))
    return fail("--grid expects X[,Y[,Z]] (integers), got '" + gridText + "'");
  tilec::Grid grid{dims[0], dims[1], dims[2]};

  MLIRContext context;
  // Errors are one line with a location (the interpreter's and the
  // verifiers'), not followed by a dump of the kernel, unless asked for.
  if (!cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic")
           ->getNumOccurrences())
    context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  std::map<std::string, int64_t> assign;
  for (const std::string &a : paramAssignments) {
    std::string error;
    if (!tilec::parseParamAssignment(a, assign, error))
      return fail(error);
  }
  std::string readError;
  tilec::TileParams tileParams;
  OwningOpRef<ModuleOp> parsed = tilec::parseTileFileWithParams(
      inputFilename, sourceMgr, context, assign, tileParams, readError);
  if (!readError.empty())
    return fail(readError);
  if (!parsed)
    return 1;
  ModuleOp module = *parsed;

  FailureOr<func::FuncOp> kernel = findKernel(module);
  if (failed(kernel))
    return 1;
  StringRef name = kernel->getSymName();
  auto params = kernel->getArgumentTypes();
  if (argSpecs.size() != params.size())
    return fail("@" + name + " takes " + llvm::Twine(params.size()) +
                " arguments, but " + llvm::Twine(argSpecs.size()) +
                " --arg were given");

  std::vector<tilec::HostArg> hostArgs;
  SmallVector<std::string> names = tilec::parameterNames(*kernel);
  for (auto [i, spec] : llvm::enumerate(argSpecs)) {
    llvm::Expected<tilec::HostArg> arg =
        tilec::parseHostArg(spec, params[i], names[i]);
    if (!arg)
      return fail(llvm::toString(arg.takeError()));
    hostArgs.push_back(std::move(*arg));
  }
  std::vector<tilec::Arg> args;
  for (tilec::HostArg &arg : hostArgs)
    args.push_back(tilec::toArg(arg));
  // Generated inputs, as they are before the run (save=): what a run on the
  // GPU needs to reproduce this one.
  if (tilec::Status s = tilec::saveHostInputs(hostArgs); !s.ok())
    return fail(s.message());

  if (runPipeline) {
    // The tile-level front end (inlining, canonicalization): the interpreter
    // runs tile IR, not the GPU code below it.
    PassManager pm(&context);
    tilec::PipelineOptions tileLevel;
    tileLevel.emit = tilec::EmitLevel::Tile;
    tilec::buildTilecPipeline(pm, tileLevel);
    if (failed(pm.run(module)))
      return 1;
  }

  tilec::RunOptions options;
  double ms = 0;
  options.emulateTF32 = !noTF32;
  options.checkRaces = !noRaceCheck;
  // A large grid runs for minutes: a line on a terminal says how far it is.
  tilec::support::ProgressLine progress("tilec-run");
  if (progress.enabled())
    options.onProgramDone = [&](uint64_t done, uint64_t total) {
      progress.update("program", done, total, "@" + name.str());
    };
  FailureOr<tilec::RunStats> stats;
  {
    // An error goes on a clean line.
    ScopedDiagnosticHandler clearFirst(&context, [&](Diagnostic &) {
      progress.clear();
      return failure();
    });
    auto start = std::chrono::steady_clock::now();
    stats = tilec::runKernel(module, name, grid, args, options);
    ms = std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
             .count();
  }
  progress.clear();
  if (failed(stats))
    return 1;
  if (printStats)
    llvm::errs() << "tilec-run: @" << name << ": " << stats->programs
                 << " programs, " << stats->opsExecuted << " ops, "
                 << stats->elementsLoaded << " elements loaded, "
                 << stats->elementsStored << " stored, " << stats->atomics
                 << " atomics in " << llvm::format("%.1f", ms) << " ms\n";
  std::string printed;
  tilec::Status written = tilec::writeHostOutputs(hostArgs, printed);
  llvm::outs() << printed;
  if (!written.ok())
    return fail(written.message());
  if (tilec::Status s = tilec::checkHostExpectations(hostArgs);
      !s.ok())
    return fail(s.message());
  return 0;
}
