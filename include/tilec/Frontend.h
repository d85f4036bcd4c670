//===- Frontend.h - reading .tile files -------------------------*- C++ -*-===//
//
// The one front end of `tilec`, `tilec-run` and `tilec-analyze`: a tile file
// (MLIR text) parsed into a module whose kernel parameters carry their source
// names, with the parser's file:line:col diagnostics.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_H
#define TILEC_FRONTEND_H

#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class AsmParserState;
class MLIRContext;
class ModuleOp;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace tilec {

/// Parses the main buffer of `sourceMgr` into `context` (loading the dialects
/// tilec uses). A file holding one builtin.module gives it; bare functions go
/// in a new module. Each kernel parameter gets its source name as a NameLoc
/// (attachSourceNames). Errors are diagnostics on `context`, located in the
/// buffer (a SourceMgrDiagnosticHandler on `sourceMgr` prints file:line:col
/// and the source line); they give a null module.
mlir::OwningOpRef<mlir::ModuleOp> parseTileSource(llvm::SourceMgr &sourceMgr,
                                                  mlir::MLIRContext &context);

/// Reads `path` ("-": stdin) into `sourceMgr` as its main buffer and parses
/// it (parseTileSource). A file that cannot be read gives a null module and
/// sets `readError` to "cannot read 'PATH': REASON", which the tool reports
/// in its own form; after a parse error `readError` stays empty.
mlir::OwningOpRef<mlir::ModuleOp> parseTileFile(llvm::StringRef path,
                                                llvm::SourceMgr &sourceMgr,
                                                mlir::MLIRContext &context,
                                                std::string &readError);

/// Gives each kernel parameter the location NameLoc("x", loc) of its name
/// `%x` in the parsed source, so that the metadata can name it.
void attachSourceNames(mlir::ModuleOp module,
                       const mlir::AsmParserState &state);

/// The names of `func`'s parameters: their NameLoc (attachSourceNames), else
/// `argN`.
llvm::SmallVector<std::string> parameterNames(mlir::func::FuncOp func);

} // namespace tilec

#endif // TILEC_FRONTEND_H
