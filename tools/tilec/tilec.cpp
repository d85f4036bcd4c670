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
#include "tilec/InitAll.h"
#include "tilec/Pipeline.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Target/Target.h"
#include "tilec/AOT/CppKernels.h"

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
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory tilecCategory("tilec options");
static cl::OptionCategory mlirCategory(
    "MLIR options (IR printing, pass timing, diagnostics)");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .tile file>"),
                                          cl::cat(tilecCategory));
static cl::opt<std::string> outputFilename(
    "o",
    cl::desc("Output file (- for stdout). With --emit=ptx|cubin the kernel "
             "metadata goes beside it, extension .json"),
    cl::value_desc("file"), cl::init("-"), cl::cat(tilecCategory));
/// What tilec writes: a pipeline level, or C++ built on the PTX.
enum class Emit { Tile, Layout, GPU, LLVM, PTX, Cubin, CppHeader };
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
                   "function; link the runtime")),
    cl::cat(tilecCategory));
static cl::opt<std::string> cppNamespace(
    "cpp-namespace",
    cl::desc("C++ namespace of --emit=cpp-header's functions (default "
             "tilec_kernels)"),
    cl::init("tilec_kernels"), cl::cat(tilecCategory));
static cl::opt<std::string>
    arch("arch",
         cl::desc("GPU target: sm_80, sm_89, sm_90 (default), sm_90a, "
                  "sm_100a; a module's tile.target attribute is the "
                  "default instead, and --arch must then equal it"),
         cl::init(tilec::Target::kDefaultChip.str()), cl::cat(tilecCategory));
static cl::opt<int> numWarps(
    "num-warps", cl::desc("Warps per program for kernels without "
                          "tile.num_warps (1..32, a power of two)"),
    cl::init(4), cl::cat(tilecCategory));
static cl::opt<int> numStages(
    "num-stages",
    cl::desc("Software pipelining depth of dot operand loads in loops, for "
             "kernels without tile.num_stages (1..8; 1: none)"),
    cl::init(3), cl::cat(tilecCategory));
static cl::opt<int64_t> maxTileElements(
    "max-tile-elements",
    cl::desc("The most elements one tile may have (default 2^20 = 1048576); "
             "a larger tile is an error before any lowering"),
    cl::init(int64_t(1) << 20), cl::cat(tilecCategory));
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
    cl::value_desc("path"), cl::init(""), cl::cat(tilecCategory));

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
    cl::init(CppEmbed::Auto), cl::cat(tilecCategory));

/// Checks option values; reports the first bad one.
static LogicalResult checkOptions() {
  if (llvm::Expected<tilec::Target> target = tilec::Target::get(arch);
      !target) {
    llvm::errs() << "tilec: error: --arch: "
                 << llvm::toString(target.takeError()) << "\n";
    return failure();
  }
  if (numWarps < 1 || numWarps > 32 || (numWarps & (numWarps - 1))) {
    llvm::errs() << "tilec: error: --num-warps must be a power of two in "
                    "[1, 32], got "
                 << numWarps << "\n";
    return failure();
  }
  if (maxTileElements < 1) {
    llvm::errs() << "tilec: error: --max-tile-elements must be at least 1, "
                    "got "
                 << maxTileElements << "\n";
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
  if (cppEmbed.getNumOccurrences() && emit != Emit::CppHeader) {
    llvm::errs() << "tilec: error: --cpp-embed applies to --emit=cpp-header "
                    "only\n";
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
  cl::HideUnrelatedOptions({&tilecCategory, &mlirCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "tilec: compile tile programs to PTX\n\n"
      "  tilec kernel.tile -o kernel.ptx     (writes kernel.json beside)\n"
      "  tilec kernel.tile --emit=cubin -o kernel.cubin\n"
      "  tilec kernel.tile --emit=layout     (see the layouts chosen)\n");
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
  std::string readError;
  OwningOpRef<ModuleOp> module =
      tilec::parseTileFile(inputFilename, sourceMgr, context, readError);
  if (!readError.empty()) {
    llvm::errs() << "tilec: error: " << readError << "\n";
    return 1;
  }
  if (!module)
    return 1;
  // Without a kernel there is no PTX to make: say what to do.
  bool wantsBinary = emit == Emit::PTX || emit == Emit::Cubin ||
                     emit == Emit::CppHeader;
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
  options.maxTileElements = maxTileElements;
  options.ptxasPath = ptxasPath;
  options.approxMath = approxMath;
  options.applyCommandLineOptions = true;
  if (emit == Emit::CppHeader) {
    bool embedCubin = cppEmbed == CppEmbed::Cubin;
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
  FailureOr<tilec::CompileResult> result =
      tilec::compileModule(*module, options);
  if (failed(result))
    return 1;

  if (emit == Emit::CppHeader)
    return failed(writeCppKernels(*result));
  if (options.emit < tilec::EmitLevel::PTX)
    return failed(writeFile(outputFilename, result->ir));
  bool cubin = options.emit == tilec::EmitLevel::Cubin;
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
