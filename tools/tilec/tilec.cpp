//===- tilec.cpp - the tilec compiler driver ------------------------------===//
//
// Reads a tile program (MLIR text, usually a .tile file), compiles it with
// tilec::compileModule up to the level asked for with --emit and writes the
// result; for PTX and cubin also the kernel metadata (docs/metadata.md)
// beside the output. The pipeline lives in lib/Pipeline; this file only
// handles options, files and errors.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend.h"
#include "tilec/Params.h"
#include "tilec/InitAll.h"
#include "tilec/Pipeline.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Target/Target.h"
#include "tilec/AOT/CppKernels.h"
#include "tilec/PerfModel/Analyzer.h"
#include "tilec/PerfModel/DeviceModel.h"
#include "tilec/Runtime/Metadata.h"
#include "tilec/Support/CudaTools.h"
#include "tilec/Version.h"
#include "tilec/AOT/TorchExtension.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>
#include <tuple>

using namespace mlir;
namespace cl = llvm::cl;

// --help lists categories by name: "Compile ..." and "Emit ..." come before
// LLVM's "Generic Options"; MLIR's are hidden (--help-hidden lists them).
static cl::OptionCategory tilecCategory("Compile (what, and for which GPU)");
static cl::OptionCategory emitCategory("Emit (what tilec writes, and where)");
static cl::OptionCategory mlirCategory(
    "MLIR options (IR printing, pass timing, diagnostics)");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .tile file>"),
                                          cl::cat(tilecCategory));
static cl::opt<std::string> outputFilename(
    "o",
    cl::desc("Output file (- for stdout). Default: PTX, cubin and C++ "
             "beside the input (k.tile -> k.ptx), IR levels to stdout. With "
             "--emit=ptx|cubin the kernel metadata goes beside it, .json"),
    cl::value_desc("file"), cl::init(""), cl::cat(emitCategory));
/// What tilec writes: a pipeline level, or C++ built on the PTX.
enum class Emit { Tile, Layout, GPU, LLVM, PTX, Cubin, CppHeader, Torch };
static cl::opt<Emit> emit(
    "emit", cl::desc("What to produce"), cl::init(Emit::PTX),
    cl::values(
        clEnumValN(Emit::Tile, "tile",
                   "verified, inlined, canonicalized tile IR"),
        clEnumValN(Emit::Layout, "layout",
                   "tile IR with a distributed layout on every tile"),
        clEnumValN(Emit::GPU, "gpu", "gpu.module of per-thread gpu.func kernels"),
        clEnumValN(Emit::LLVM, "llvm",
                   "the gpu.module in the LLVM and NVVM dialects"),
        clEnumValN(Emit::PTX, "ptx", "PTX text (default)"),
        clEnumValN(Emit::Cubin, "cubin",
                   "cubin from ptxas (needs the CUDA toolkit)"),
        clEnumValN(Emit::CppHeader, "cpp-header",
                   "a C++ header (-o k.h) and source (k.cpp beside it) that "
                   "embed the PTX and give each kernel a typed launch "
                   "function; link the runtime"),
        clEnumValN(Emit::Torch, "torch",
                   "a PyTorch C++ extension (-o k_torch.cpp) registering "
                   "each kernel as torch.ops.tilec.<name> (docs/pytorch.md)")),
    cl::cat(emitCategory));
static cl::opt<std::string> cppNamespace(
    "cpp-namespace",
    cl::desc("C++ namespace of --emit=cpp-header's functions (default "
             "tilec_kernels)"),
    cl::init("tilec_kernels"), cl::cat(emitCategory));
static cl::opt<std::string>
    arch("arch",
         cl::desc("GPU target: sm_80, sm_89, sm_90 (default), sm_90a, "
                  "sm_100a; a module's tile.target attribute is the "
                  "default instead, and --arch must then equal it"),
         cl::init(tilec::Target::kDefaultChip.str()), cl::cat(tilecCategory));
static cl::opt<int> numWarps(
    "num-warps", cl::desc("Warps per program for kernels without "
                          "tile.num_warps (1..32)"),
    cl::init(4), cl::cat(tilecCategory));
static cl::opt<int> numStages(
    "num-stages",
    cl::desc("Software pipelining depth of dot operand loads in loops, for "
             "kernels without tile.num_stages (1..8; 1: none)"),
    cl::init(3), cl::cat(tilecCategory));
static cl::opt<bool> warpSpecialize(
    "warp-specialize",
    cl::desc("On sm_90a, give a TMA-fed wgmma loop a producer warpgroup that "
             "issues the copies (default true; kernels may say "
             "tile.warp_specialize)"),
    cl::init(true), cl::cat(tilecCategory));
static cl::opt<int64_t> maxTileElements(
    "max-tile-elements",
    cl::desc("The most elements one tile may have (default 2^20 = 1048576); "
             "a larger tile is an error before any lowering"),
    cl::init(int64_t(1) << 20), cl::cat(tilecCategory));
static cl::opt<int64_t> maxUnrolledElements(
    "max-unrolled-elements",
    cl::desc("Tiles with more elements per thread than this (default 128) "
             "are computed in a loop over chunks, so that code size and "
             "compile time stay bounded; 0: never"),
    cl::init(128), cl::cat(tilecCategory));
static cl::opt<int64_t> maxUnchunkedElements(
    "max-unchunked-elements",
    cl::desc("A tile that cannot run in chunks (a scan, a tile a loop "
             "carries) and holds more elements per thread than this "
             "(default 512) is an error: compile time grows quadratically "
             "with them; 0: no limit"),
    cl::init(512), cl::cat(tilecCategory));
static cl::opt<int64_t> maxKernelOps(
    "max-kernel-ops",
    cl::desc("The most operations one kernel's per-thread code may have "
             "(default 2^15 = 32768); a kernel over it is an error before "
             "LLVM's code generation, whose time grows faster than the code"),
    cl::init(int64_t(1) << 15), cl::cat(tilecCategory));
static cl::opt<int> optLevel("O", cl::desc("Optimization level (0..3)"),
                             cl::Prefix, cl::init(3), cl::cat(tilecCategory));
static cl::opt<bool> approxMath(
    "approx-math",
    cl::desc("Let every kernel use tilec's shorter math (as if marked "
             "tile.approx_math): f32 erf in ten instructions with an "
             "absolute error under 5e-7, instead of libdevice's ~25 within "
             "2 ulp; for kernels whose results are bf16/f16 or tolerate "
             "that error"),
    cl::init(false), cl::cat(tilecCategory));
static cl::opt<std::string> ptxasPath(
    "ptxas",
    cl::desc("ptxas for --emit=cubin (default: $TILEC_PTXAS, "
             "$CUDA_HOME/bin, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin)"),
    cl::value_desc("path"), cl::init(""), cl::cat(emitCategory));

static cl::list<std::string> paramAssignments(
    "param",
    cl::desc("The value of a parameter the file declares in tile.params "
             "(repeatable; undeclared names and undeclared values are "
             "errors; a parameter not given takes its first value)"),
    cl::value_desc("NAME=VALUE"), cl::cat(tilecCategory));

enum class CppEmbed { Auto, PTX, Cubin };
static cl::opt<CppEmbed> cppEmbed(
    "cpp-embed",
    cl::desc("What --emit=cpp-header embeds (default: auto)"),
    cl::values(
        clEnumValN(CppEmbed::Auto, "auto",
                   "the cubin if ptxas is found, else the PTX (with a note)"),
        clEnumValN(CppEmbed::PTX, "ptx",
                   "the PTX: loads on any GPU of the target or newer, "
                   "compiled at run time through the driver's linker"),
        clEnumValN(CppEmbed::Cubin, "cubin",
                   "the cubin from ptxas (whole-program code: fewer "
                   "registers than the driver's linker gives some kernels)")),
    cl::init(CppEmbed::Auto), cl::cat(emitCategory));
static cl::opt<bool> resourceUsage(
    "resource-usage",
    cl::desc("Print each kernel's registers, spills, shared memory, threads "
             "and occupancy on the target, from ptxas -v (as nvcc -Xptxas "
             "-v); a kernel that spills gets a warning"),
    cl::init(false), cl::cat(emitCategory));
static cl::alias resourceUsageShort("v", cl::desc("Alias for --resource-usage"),
                                    cl::aliasopt(resourceUsage),
                                    cl::cat(emitCategory));

/// Checks option values; reports the first bad one.
static LogicalResult checkOptions() {
  if (llvm::Expected<tilec::Target> target = tilec::Target::get(arch);
      !target) {
    llvm::errs() << "tilec: error: --arch: "
                 << llvm::toString(target.takeError()) << "\n";
    return failure();
  }
  if (numWarps < 1 || numWarps > 32) {
    llvm::errs() << "tilec: error: --num-warps must be in [1, 32], got "
                 << numWarps << "\n";
    return failure();
  }
  if (maxTileElements < 1) {
    llvm::errs() << "tilec: error: --max-tile-elements must be at least 1, "
                    "got "
                 << maxTileElements << "\n";
    return failure();
  }
  if (maxUnrolledElements < 0) {
    llvm::errs() << "tilec: error: --max-unrolled-elements must be at least "
                    "0, got "
                 << maxUnrolledElements << "\n";
    return failure();
  }
  if (maxUnchunkedElements < 0) {
    llvm::errs() << "tilec: error: --max-unchunked-elements must be at least "
                    "0, got "
                 << maxUnchunkedElements << "\n";
    return failure();
  }
  if (maxKernelOps < 1) {
    llvm::errs() << "tilec: error: --max-kernel-ops must be at least 1, got "
                 << maxKernelOps << "\n";
    return failure();
  }
  if (numStages < 1 || numStages > 8) {
    llvm::errs() << "tilec: error: --num-stages must be in [1, 8], got "
                 << numStages << "\n";
    return failure();
  }
  if (optLevel < 0 || optLevel > 3) {
    llvm::errs() << "tilec: error: -O must be 0..3, got " << optLevel << "\n";
    return failure();
  }
  if (cppEmbed.getNumOccurrences() && emit != Emit::CppHeader &&
      emit != Emit::Torch) {
    llvm::errs() << "tilec: error: --cpp-embed applies to --emit=cpp-header "
                    "and --emit=torch only\n";
    return failure();
  }
  if (resourceUsage && emit != Emit::PTX && emit != Emit::Cubin &&
      emit != Emit::CppHeader && emit != Emit::Torch) {
    llvm::errs() << "tilec: error: --resource-usage needs PTX: "
                    "--emit=ptx, cubin, cpp-header or torch\n";
    return failure();
  }
  if (emit == Emit::CppHeader && outputFilename == "-") {
    llvm::errs() << "tilec: error: --emit=cpp-header writes two files: give "
                    "the header's path with -o (e.g. -o kernels.h)\n";
    return failure();
  }
  return success();
}

/// Writes `contents` to `path` ("-": stdout).
static LogicalResult writeFile(StringRef path, StringRef contents) {
  std::string error;
  auto output = openOutputFile(path, &error);
  if (!output) {
    llvm::errs() << "tilec: error: " << error << "\n";
    return failure();
  }
  output->os() << contents;
  output->keep();
  return success();
}

/// The pipeline level an --emit value needs (the C++ header embeds PTX).
static tilec::EmitLevel pipelineLevel(Emit e) {
  switch (e) {
  case Emit::Tile:
    return tilec::EmitLevel::Tile;
  case Emit::Layout:
    return tilec::EmitLevel::Layout;
  case Emit::GPU:
    return tilec::EmitLevel::GPU;
  case Emit::LLVM:
    return tilec::EmitLevel::LLVM;
  case Emit::PTX:
  case Emit::CppHeader:
  case Emit::Torch:
    return tilec::EmitLevel::PTX;
  case Emit::Cubin:
    return tilec::EmitLevel::Cubin;
  }
  llvm_unreachable("every --emit value is handled");
}

/// --emit=cpp-header: the header at -o and the source beside it (.cpp).
static LogicalResult writeCppKernels(const tilec::CompileResult &result) {
  SmallString<128> source(outputFilename);
  llvm::sys::path::replace_extension(source, "cpp");
  tilec::aot::CppKernelsOptions options;
  options.namespaceName = cppNamespace;
  options.headerInclude = llvm::sys::path::filename(outputFilename).str();
  options.origin = inputFilename;
  auto generated = tilec::aot::generateCppKernels(
      result.cubin.empty() ? result.ptx : result.cubin, result.metadata,
      options);
  if (!generated.ok()) {
    llvm::errs() << "tilec: error: " << generated.message() << "\n";
    return failure();
  }
  if (failed(writeFile(outputFilename, generated->header)))
    return failure();
  return writeFile(source, generated->source);
}

/// Where the output goes when -o is not given: PTX, cubin and the C++
/// header beside the input (k.tile -> k.ptx, as nvcc and clang name their
/// outputs), IR levels to stdout. Standard input has no name to go beside.
static LogicalResult resolveOutput() {
  if (!outputFilename.empty())
    return success();
  StringRef extension;
  switch (emit) {
  case Emit::PTX:
    extension = "ptx";
    break;
  case Emit::Cubin:
    extension = "cubin";
    break;
  case Emit::CppHeader:
    extension = "h";
    break;
  case Emit::Torch:
    extension = "cpp";
    break;
  default:
    outputFilename = "-";
    return success();
  }
  if (inputFilename == "-") {
    llvm::errs() << "tilec: error: the input is standard input: give the "
                    "output's path with -o (-o - writes it to stdout)\n";
    return failure();
  }
  SmallString<128> path(inputFilename);
  llvm::sys::path::replace_extension(path, "");
  if (emit == Emit::Torch)
    path += "_torch"; // k.tile -> k_torch.cpp, beside the C++ header's k.cpp
  path += ".";
  path += extension;
  outputFilename = std::string(path);
  return success();
}

/// --version: tilec, its commit and the MLIR/LLVM it was built with.
static void printVersion(llvm::raw_ostream &os) {
  os << "tilec " TILEC_VERSION;
  if (*TILEC_GIT_COMMIT)
    os << " (commit " TILEC_GIT_COMMIT ")";
  os << "\n  built with MLIR/LLVM " LLVM_VERSION_STRING "\n  targets: "
     << tilec::Target::getKnownChipList() << "\n";
}

/// --resource-usage: ptxas -v's report for each kernel (the metadata's
/// resources: the compilation ran ptxas), and the occupancy CUDA's rules
/// give it on the target.
static void reportResources(const tilec::CompileResult &result,
                            const tilec::Target &target) {
  const tilec::runtime::ModuleMetadata &metadata = result.metadata;
  // The occupancy rules of the target's SM, on a model that has them.
  auto model = tilec::perfmodel::builtinDeviceModel(
      target.getSmVersion() >= 90 ? "h100" : "a100");
  model->smemPerSM = target.sharedMemoryPerSM();
  model->smemPerBlock = target.maxSharedMemoryPerBlock();
  model->maxThreadsPerSM = target.getMaxThreadsPerSM();
  model->maxBlocksPerSM = target.getMaxProgramsPerSM();
  model->regsPerSM = target.getRegistersPerSM();
  for (const tilec::runtime::KernelMetadata &k : metadata.kernels) {
    if (!k.resources)
      continue;
    const std::string &name = k.name;
    tilec::perfmodel::Resources use =
        tilec::perfmodel::Resources::fromPtxas(*k.resources);
    use.threadsPerProgram = k.threadsPerProgram;
    use.dynamicSharedBytes = k.sharedBytes;
    llvm::outs() << "tilec: " << name << " on " << target.getChip() << ": "
                 << use.registers << " registers, " << use.spillBytes
                 << " bytes spilled, " << use.stackBytes << " bytes stack, "
                 << use.sharedBytes() << " bytes shared, "
                 << use.threadsPerProgram << " threads";
    tilec::perfmodel::Occupancy occ =
        tilec::perfmodel::computeOccupancy(*model, use);
    if (!occ.error.empty())
      llvm::outs() << "; " << occ.error << "\n";
    else
      llvm::outs() << "; occupancy " << llvm::format("%.0f", occ.fraction * 100)
                   << "% (" << occ.programsPerSM
                   << (occ.programsPerSM == 1 ? " program" : " programs")
                   << "/SM, limit: " << occ.limiter << ")\n";
    if (use.spillBytes > 0)
      llvm::errs() << "tilec: warning: kernel '" << name << "' spills "
                   << use.spillBytes << " bytes to local memory on "
                   << target.getChip()
                   << " (smaller tiles or fewer stages need fewer "
                      "registers)\n";
  }
}

/// --emit=torch: the extension's one source at -o.
static LogicalResult writeTorchExtension(const tilec::CompileResult &result) {
  tilec::aot::TorchExtensionOptions options;
  options.origin = llvm::sys::path::filename(inputFilename).str();
  auto generated = tilec::aot::generateTorchExtension(
      result.cubin.empty() ? result.ptx : result.cubin,
      tilec::runtime::writeMetadata(result.metadata),
      options);
  if (!generated.ok()) {
    llvm::errs() << "tilec: error: " << generated.message() << "\n";
    return failure();
  }
  return writeFile(outputFilename, *generated);
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // Pass names, for --mlir-print-ir-after=<pass> and the like.
  tilec::registerTilecPasses();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  registerDefaultTimingManagerCLOptions();
  // --help shows tilec's options and MLIR's, not every LLVM backend's.
  for (auto &entry : cl::getRegisteredOptions())
    if (entry.first.starts_with("mlir-"))
      entry.second->addCategory(mlirCategory);
  cl::HideUnrelatedOptions({&tilecCategory, &emitCategory, &mlirCategory});
  for (auto &entry : cl::getRegisteredOptions())
    if (entry.first.starts_with("mlir-"))
      entry.second->setHiddenFlag(cl::Hidden);
  cl::SetVersionPrinter(printVersion);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tilec: compile tile programs to PTX\n\n"
      "  tilec kernel.tile                   (writes kernel.ptx and "
      "kernel.json beside it)\n"
      "  tilec kernel.tile --emit=cubin -v   (kernel.cubin; registers, "
      "spills, occupancy)\n"
      "  tilec kernel.tile --emit=layout     (see the layouts chosen)\n"
      "  --help-hidden also lists MLIR's options (IR printing, timing)\n");
  if (failed(checkOptions()))
    return 1;
  // Reading standard input silently would look like a hang.
  if (inputFilename.empty()) {
    llvm::errs() << "tilec: error: no input file (give a .tile file, or - "
                    "for standard input)\n"
                 << "USAGE: tilec [options] <input .tile file>; tilec --help "
                    "lists the options\n";
    return 1;
  }
  if (failed(resolveOutput()))
    return 1;
  // A cubin is binary: on a terminal it would only garble the screen.
  if (emit == Emit::Cubin && outputFilename == "-" &&
      llvm::sys::Process::StandardOutIsDisplayed()) {
    llvm::errs() << "tilec: error: refusing to write a cubin to the "
                    "terminal; give a file with -o\n";
    return 1;
  }

  DialectRegistry registry;
  tilec::registerTilecDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors are one line with a location unless the op is asked for.
  if (!cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic")
           ->getNumOccurrences())
    context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  std::map<std::string, int64_t> assign;
  for (const std::string &a : paramAssignments) {
    std::string error;
    if (!tilec::parseParamAssignment(a, assign, error)) {
      llvm::errs() << "tilec: error: " << error << "\n";
      return 1;
    }
  }
  std::string readError;
  tilec::TileParams params;
  OwningOpRef<ModuleOp> module = tilec::parseTileFileWithParams(
      inputFilename, sourceMgr, context, assign, params, readError);
  if (!readError.empty()) {
    llvm::errs() << "tilec: error: " << readError << "\n";
    return 1;
  }
  if (!module)
    return 1;
  // Without a kernel there is no PTX to make: say what to do.
  bool wantsBinary = emit == Emit::PTX || emit == Emit::Cubin ||
                     emit == Emit::CppHeader || emit == Emit::Torch;
  if (wantsBinary && llvm::none_of(module->getOps<func::FuncOp>(),
                                   [](func::FuncOp f) {
                                     return mlir::tile::isKernel(f);
                                   })) {
    llvm::errs() << "tilec: error: no kernel in " << inputFilename
                 << " (mark one with tile.kernel)\n";
    return 1;
  }

  tilec::PipelineOptions options;
  options.emit = pipelineLevel(emit);
  // The module's tile.target is the chip unless --arch is given; an --arch
  // that differs from it is an error (compileModule).
  options.arch = arch;
  if (!arch.getNumOccurrences()) {
    FailureOr<std::optional<std::string>> own = tilec::moduleTarget(*module);
    if (failed(own))
      return 1;
    if (*own)
      options.arch = **own;
  }
  options.numWarps = numWarps;
  options.optLevel = optLevel;
  options.numStages = numStages;
  options.warpSpecialize = warpSpecialize;
  // A declared num_warps / num_stages that the text does not use is the
  // option's value; the command line must then not give the option too.
  for (auto [name, option, field] :
       {std::tuple{"num_warps", &numWarps, &options.numWarps},
        std::tuple{"num_stages", &numStages, &options.numStages}}) {
    const tilec::TileParam *p = params.find(name);
    if (!p || p->used)
      continue;
    if (option->getNumOccurrences()) {
      llvm::errs() << "tilec: error: --" << option->ArgStr << " and "
                   << inputFilename << "'s tile.params parameter '" << name
                   << "' both set it: give --param " << name
                   << "=N instead\n";
      return 1;
    }
    *field = static_cast<int>(params.chosen.at(name));
  }
  options.maxTileElements = maxTileElements;
  options.maxUnrolledElements = maxUnrolledElements;
  options.maxUnchunkedElements = maxUnchunkedElements;
  options.maxKernelOps = maxKernelOps;
  options.ptxasPath = ptxasPath;
  options.approxMath = approxMath;
  options.applyCommandLineOptions = true;
  bool embedCubin = emit == Emit::Cubin;
  if (emit == Emit::CppHeader || emit == Emit::Torch) {
    embedCubin = cppEmbed == CppEmbed::Cubin;
    if (cppEmbed == CppEmbed::Auto) {
      embedCubin = !tilec::findPtxasPath(ptxasPath).empty();
      if (!embedCubin)
        llvm::errs() << "tilec: note: no ptxas found; the header embeds the "
                        "PTX, which the runtime compiles through the "
                        "driver's linker (--cpp-embed=ptx says so quietly)\n";
    }
    if (embedCubin)
      options.emit = tilec::EmitLevel::Cubin;
  }
  // ptxas's report comes with a cubin: -v on PTX assembles it too (the
  // same ptxas flags as --emit=cubin) and writes the PTX.
  if (resourceUsage) {
    std::string why;
    if (tilec::cuda::findPtxas(ptxasPath.getValue(), "TILEC_PTXAS", &why)
            .empty()) {
      llvm::errs() << "tilec: error: --resource-usage needs ptxas: " << why
                   << "\n";
      return 1;
    }
    options.emit = tilec::EmitLevel::Cubin;
  }
  tilec::ParamsDiagnosticNote paramsNote(
      context, params,
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
          ->getBufferIdentifier());
  FailureOr<tilec::CompileResult> result =
      tilec::compileModule(*module, options);
  if (failed(result))
    return 1;
  // A cubin made only for -v's report is not the output.
  if (!embedCubin)
    result->cubin.clear();

  if (resourceUsage) {
    llvm::Expected<tilec::Target> target = tilec::Target::get(options.arch);
    if (!target) {
      llvm::errs() << "tilec: error: " << llvm::toString(target.takeError())
                   << "\n";
      return 1;
    }
    reportResources(*result, *target);
  }
  if (emit == Emit::CppHeader)
    return failed(writeCppKernels(*result));
  if (emit == Emit::Torch)
    return failed(writeTorchExtension(*result));
  if (options.emit < tilec::EmitLevel::PTX)
    return failed(writeFile(outputFilename, result->ir));
  bool cubin = emit == Emit::Cubin;
  if (failed(writeFile(outputFilename, cubin ? result->cubin : result->ptx)))
    return 1;
  if (outputFilename != "-") {
    SmallString<128> json(outputFilename);
    llvm::sys::path::replace_extension(json, "json");
    if (failed(
            writeFile(json, tilec::runtime::writeMetadata(result->metadata))))
      return 1;
  }
  return 0;
}
