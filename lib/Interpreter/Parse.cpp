//===- Parse.cpp - reading tile files with their parameter names ----------===//
//
// Parameter names ("%x") are not kept in the IR; the parser's state knows
// where each block argument was defined, so the names are read back from
// the source text and used in the interpreter's messages.
//
//===----------------------------------------------------------------------===//

#include "tilec/InitAll.h"
#include "tilec/Interpreter.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

FailureOr<tilec::ParsedTileFile>
tilec::parseTileSource(llvm::SourceMgr &sourceMgr, MLIRContext &context) {
  DialectRegistry registry;
  registerTilecDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();

  Block block;
  AsmParserState state;
  ParserConfig config(&context);
  if (failed(parseAsmSourceFile(sourceMgr, &block, config, &state)))
    return failure();
  ParsedTileFile parsed;
  // A file holding a module gives it; bare functions go in a new one.
  if (llvm::hasSingleElement(block) && isa<ModuleOp>(block.front())) {
    parsed.module = cast<ModuleOp>(block.front().clone());
  } else {
    Location loc =
        block.empty() ? UnknownLoc::get(&context) : block.front().getLoc();
    parsed.module = ModuleOp::create(loc);
    Block *body = parsed.module->getBody();
    body->getOperations().splice(body->end(), block.getOperations());
  }
  // The parser state refers to the original ops; match functions by name.
  llvm::StringMap<SmallVector<std::string>> names;
  for (const AsmParserState::OperationDefinition &def : state.getOpDefs()) {
    auto func = dyn_cast<func::FuncOp>(def.op);
    if (!func || func.isExternal())
      continue;
    const auto *blockDef = state.getBlockDef(&func.getBody().front());
    if (!blockDef)
      continue;
    SmallVector<std::string> &params = names[func.getSymName()];
    for (const AsmParserState::SMDefinition &arg : blockDef->arguments) {
      StringRef text(arg.loc.Start.getPointer(),
                     arg.loc.End.getPointer() - arg.loc.Start.getPointer());
      params.push_back(text.ltrim('%').str());
    }
  }
  parsed.paramNames = std::move(names);
  return parsed;
}

FailureOr<tilec::ParsedTileFile> tilec::parseTileFile(StringRef path,
                                                      MLIRContext &context) {
  std::string error;
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!file) {
    emitError(UnknownLoc::get(&context))
        << "cannot read '" << path << "': " << file.getError().message();
    return failure();
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  return parseTileSource(sourceMgr, context);
}
