//===- PipelineFuzzer.cpp - fuzz target: a .tile program through to PTX ---===//
//
// Any bytes are either PTX or diagnostics; never a crash, an abort, a hang
// or unbounded memory (issue 17). An input is one byte of compile options
// and the text of a .tile program, which goes where `tilec` sends a file:
// the front end (the `${NAME}` parameters of tile.params, MLIR's parser,
// the shorthand expansion, the verifiers), the module's own chip
// (tile.target) and the reserved parameters num_warps / num_stages as
// tilec takes them, then compileModule to PTX. ptxas is never run (it is
// not ours, and --emit=cubin would put a process in every execution).
//
// The options byte, so that one program is fuzzed on each chip's paths
// (sm_90a's TMA and wgmma among them) and with each option:
//   bits 0-2  chip: sm_90a, sm_80, sm_90, sm_90a, sm_89, sm_90a, sm_100a,
//             sm_90 (sm_90a, whose paths are the most numerous, 3 in 8)
//   bits 3-4  --num-stages: 3, 1, 2, 4
//   bit 5     --warp-specialize=false
//   bit 6     --approx-math
//   bit 7     --num-warps=8 (else 4)
// A byte of 0 is tilec's defaults on sm_90a.
//
// The time and memory budget of an input is the driver's: libFuzzer's
// -timeout and -rss_limit_mb, or the standalone driver's forked child with
// its rlimits (FuzzDriver.cpp), which also reads how far an input went
// (inputDepth) and prints the tilec command that reproduces a finding
// (describeInput).
//
//===----------------------------------------------------------------------===//

#include "FuzzHooks.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Params.h"
#include "tilec/Pipeline.h"
#include "tilec/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kChips[8] = {"sm_90a",  "sm_80", "sm_90",
                                           "sm_90a",  "sm_89", "sm_90a",
                                           "sm_100a", "sm_90"};
constexpr int kStages[4] = {3, 1, 2, 4};

/// The pipeline options the first byte of an input selects.
tilec::PipelineOptions decodeOptions(uint8_t byte) {
  tilec::PipelineOptions options;
  options.emit = tilec::EmitLevel::PTX;
  options.arch = kChips[byte & 7].str();
  options.numStages = kStages[(byte >> 3) & 3];
  options.warpSpecialize = !(byte & 0x20);
  options.approxMath = byte & 0x40;
  options.numWarps = byte & 0x80 ? 8 : 4;
  return options;
}

/// 0: refused by the front end; 1: refused by compileModule; 2: PTX.
int lastDepth = 0;

/// The front end and the compilation of one program, as tilec does them.
int compileText(llvm::StringRef text, tilec::PipelineOptions options) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  // Diagnostics are the expected outcome of most inputs: dropped, not
  // printed (handlers run newest first; the front end's hint handlers pass
  // them on to this one).
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  llvm::SourceMgr sourceMgr;
  tilec::TileParams params;
  OwningOpRef<ModuleOp> module = tilec::parseTileSourceWithParams(
      text, "fuzz.tile", sourceMgr, context, /*assign=*/{}, params);
  if (!module)
    return 0;
  // tilec makes no PTX without a kernel (it says so before compiling).
  if (llvm::none_of(module->getOps<func::FuncOp>(),
                    [](func::FuncOp f) { return tile::isKernel(f); }))
    return 0;
  // tilec without --arch: the module's tile.target chooses the chip.
  FailureOr<std::optional<std::string>> own = tilec::moduleTarget(*module);
  if (failed(own))
    return 0;
  if (*own)
    options.arch = **own;
  // A declared num_warps / num_stages the text does not use sets the
  // option (tilec without the flags).
  if (const tilec::TileParam *p = params.find("num_warps"); p && !p->used)
    options.numWarps = static_cast<int>(params.chosen.at("num_warps"));
  if (const tilec::TileParam *p = params.find("num_stages"); p && !p->used)
    options.numStages = static_cast<int>(params.chosen.at("num_stages"));
  tilec::ParamsDiagnosticNote note(context, params, "fuzz.tile");
  return succeeded(tilec::compileModule(*module, options)) ? 2 : 1;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
#ifdef TILEC_FUZZ_STANDALONE
  // In the standalone driver's children a crash's log gets a stack trace
  // (under libFuzzer, ASan's handlers print theirs).
  llvm::sys::PrintStackTraceOnErrorSignal("tilec-fuzz-pipeline");
#endif
  for (llvm::StringRef chip : kChips)
    if (llvm::Expected<tilec::Target> t = tilec::Target::get(chip); !t) {
      llvm::errs() << "tilec-fuzz-pipeline: " << llvm::toString(t.takeError())
                   << "\n";
      std::abort();
    }
  // One compilation before any input, so that what LLVM and MLIR set up
  // once (the NVPTX target, the option registry) is done here: in the
  // standalone driver's forked children it is then inherited, not redone
  // for every input. It must compile: else every input would be refused
  // and the fuzzer would test nothing.
  static const char kWarmUp[] =
      "func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {\n"
      "  %c = arith.constant 1.0 : f32\n"
      "  tile.store %p, %c : !tile.ptr<f32>\n"
      "  return\n"
      "}\n";
  if (compileText(kWarmUp, decodeOptions(0)) != 2) {
    llvm::errs() << "tilec-fuzz-pipeline: the warm-up kernel does not "
                    "compile; the harness is out of date\n";
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lastDepth = 0;
  if (size == 0)
    return 0;
  llvm::StringRef text(reinterpret_cast<const char *>(data + 1), size - 1);
  lastDepth = compileText(text, decodeOptions(data[0]));
  return 0;
}

int tilec::fuzz::inputDepth() { return lastDepth; }

std::string tilec::fuzz::describeInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return "an empty input (nothing is compiled)";
  tilec::PipelineOptions options = decodeOptions(data[0]);
  tilec::PipelineOptions defaults;
  std::string line;
  llvm::raw_string_ostream os(line);
  os << "tail -c +2 INPUT > x.tile && tilec x.tile -o x.ptx";
  // tilec refuses --arch that differs from the module's tile.target, and
  // takes the module's without it; the driver does not parse the input
  // (it may crash the parser), so this looks at the text.
  llvm::StringRef text(reinterpret_cast<const char *>(data + 1), size - 1);
  if (!text.contains("tile.target"))
    os << " --arch=" << options.arch;
  if (options.numStages != defaults.numStages)
    os << " --num-stages=" << options.numStages;
  if (!options.warpSpecialize)
    os << " --warp-specialize=false";
  if (options.approxMath)
    os << " --approx-math";
  if (options.numWarps != defaults.numWarps)
    os << " --num-warps=" << options.numWarps;
  os << "   (options byte 0x" << llvm::utohexstr(data[0], /*LowerCase=*/true)
     << ")";
  return line;
}
