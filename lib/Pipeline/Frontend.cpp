//===- Frontend.cpp - reading .tile files ---------------------------------===//
//
// Parameter names ("%x") are not kept in the IR; the parser's state knows
// where each block argument was defined, so the front end reads the names
// back from the source text and keeps them as NameLoc locations, which the
// metadata, the interpreter's argument messages and the analyzer use.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend.h"
#include "tilec/InitAll.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstring>

using namespace mlir;

/// The commonest slip in the text form is a scalar used where a tile is
/// expected (`arith.mulf %tile, %scale : tensor<128xf32>` with `%scale:
/// f32`). MLIR's parser says "use of value '%scale' expects different type
/// than prior uses: 'tensor<128xf32>' vs 'f32'"; this adds the fix.
static void addSplatHint(Diagnostic &diag) {
  std::string message = diag.str();
  llvm::StringRef text(message);
  if (!text.consume_front("use of value '"))
    return;
  auto [name, rest] = text.split('\'');
  if (!rest.consume_front(" expects different type than prior uses: '"))
    return;
  auto [expected, prior] = rest.split("' vs '");
  prior.consume_back("'");
  // The types as the parser printed them; a tile type is `tensor<...>`.
  if (!expected.starts_with("tensor<") || prior.starts_with("tensor<") ||
      prior.starts_with("vector<"))
    return;
  // tensor<128x64xf32> or tensor<128x!tile.ptr<f32>>, perhaps with a layout
  // after a comma.
  llvm::StringRef shape = expected.drop_front(strlen("tensor<")).drop_back();
  llvm::StringRef element = shape.split(", ").first;
  while (!element.empty() && (llvm::isDigit(element.front()) ||
                              element.front() == 'x' || element.front() == '?'))
    element = element.drop_front();
  std::string hint;
  llvm::raw_string_ostream os(hint);
  if (element == prior) {
    os << "'" << name << "' is a scalar (" << prior
       << ") and this op takes a tile; make one with `%t = tile.splat "
       << name << " : " << prior << " -> " << expected << "` and use %t";
    // The commonest case, an arith op with a scalar operand, has a one-line
    // form; pointers have tile.addptr's own.
    if (!prior.starts_with("!tile.ptr"))
      os << ", or for an arith op write `tile.each <op> %tile, " << name
         << " : " << expected << ", " << prior << "`";
  }
  else
    os << "'" << name << "' is a scalar of " << prior << " but a tile of "
       << element << " is expected; convert it, then tile.splat it to "
       << expected;
  diag.attachNote() << hint;
}

OwningOpRef<ModuleOp> tilec::parseTileSource(llvm::SourceMgr &sourceMgr,
                                             MLIRContext &context) {
  DialectRegistry registry;
  registerTilecDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  // Runs before the tool's handler (handlers run newest first) and passes
  // the diagnostic on with the hint attached.
  ScopedDiagnosticHandler hints(&context, [](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      addSplatHint(diag);
    return failure();
  });

  AsmParserState state;
  ParserConfig config(&context);
  Block parsed;
  if (failed(parseAsmSourceFile(sourceMgr, &parsed, config, &state)))
    return nullptr;
  StringRef file =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferIdentifier();
  OwningOpRef<ModuleOp> module =
      detail::constructContainerOpForParserIfNecessary<ModuleOp>(
          &parsed, &context, FileLineColLoc::get(&context, file, 0, 0));
  if (module) {
    attachSourceNames(*module, state);
    tile::expandShorthands(*module);
  }
  return module;
}

OwningOpRef<ModuleOp> tilec::parseTileFile(StringRef path,
                                           llvm::SourceMgr &sourceMgr,
                                           MLIRContext &context,
                                           std::string &readError) {
  readError.clear();
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!file) {
    readError =
        "cannot read '" + path.str() + "': " + file.getError().message();
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(*file), SMLoc());
  return parseTileSource(sourceMgr, context);
}

void tilec::attachSourceNames(ModuleOp module, const AsmParserState &state) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    const AsmParserState::BlockDefinition *def =
        state.getBlockDef(&func.getBody().front());
    if (!def)
      continue;
    for (auto [arg, argDef] :
         llvm::zip(func.getArguments(), def->arguments)) {
      SMRange range = argDef.loc;
      StringRef text(range.Start.getPointer(),
                     range.End.getPointer() - range.Start.getPointer());
      text.consume_front("%");
      if (!text.empty())
        arg.setLoc(NameLoc::get(StringAttr::get(module.getContext(), text),
                                arg.getLoc()));
    }
  }
}

SmallVector<std::string> tilec::parameterNames(func::FuncOp func) {
  SmallVector<std::string> names;
  if (func.isExternal()) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      names.push_back("arg" + std::to_string(i));
    return names;
  }
  for (BlockArgument arg : func.getArguments()) {
    if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
      names.push_back(name.getName().str());
    else
      names.push_back("arg" + std::to_string(arg.getArgNumber()));
  }
  return names;
}
