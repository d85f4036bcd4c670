//===- ParserFuzzer.cpp - libFuzzer target: the .tile parser and verifiers -===//
//
// Any bytes read as a .tile program are a verified module or diagnostics;
// never a crash, an abort or unbounded work (issue 17). The input goes
// through what tilec's front end does before the pipeline: MLIR's parser
// with the tile and tilegpu dialects (their custom assembly forms, types
// and layout attributes), the shorthand expansion, and the verifiers of
// every op. The `${NAME}` parameter substitution is not run (a file that
// uses it is just text the parser refuses).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;

namespace {

/// One context for every input, as a long-running fuzzer wants; its
/// uniqued types and attributes grow with the inputs seen.
MLIRContext &context() {
  static MLIRContext *ctx = [] {
    DialectRegistry registry;
    registry.insert<tile::TileDialect, tilegpu::TileGPUDialect,
                    func::FuncDialect, arith::ArithDialect, math::MathDialect,
                    scf::SCFDialect, cf::ControlFlowDialect>();
    auto *c = new MLIRContext(registry);
    c->loadAllAvailableDialects();
    c->printOpOnDiagnostic(false);
    return c;
  }();
  return *ctx;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &ctx = context();
  // Diagnostics are the expected outcome of most inputs: count, not print.
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  // A copy in a NUL-terminated buffer, as tilec reads files: MLIR's lexer
  // relies on the terminator (a bare StringRef of the input overruns it).
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.tile"),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      sourceMgr, ParserConfig(&ctx, /*verifyAfterParse=*/true));
  if (!module)
    return 0;
  tile::expandShorthands(*module);
  (void)verify(*module);
  return 0;
}
