//===- Params.h - tunable parameters of the text form -----------*- C++ -*-===//
//
// A .tile file may declare parameters, each with the values it can take:
//
//   module attributes {tile.params = {BLOCK_M = [64, 128], num_warps = [4, 8]}}
//
// and use them anywhere in its text as `${BLOCK_M}` (or `$BLOCK_M` where no
// identifier character follows): in tile shapes, constants, attributes. The
// uses are replaced by the chosen values before the MLIR parser sees the
// text, so shapes stay static types. `num_warps` and `num_stages` are
// reserved: where the text does not use them they set the compile options
// of the same names (PipelineOptions::numWarps/numStages). docs/dialect.md
// has the rules and every error.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PARAMS_H
#define TILEC_PARAMS_H

#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
class ModuleOp;
} // namespace mlir

namespace tilec {

/// One declared parameter.
struct TileParam {
  std::string name;
  std::vector<int64_t> values; ///< as declared; the first is the default
  unsigned line = 0, column = 0; ///< of the name in the declaration (1-based)
  bool used = false;             ///< the text has a use of it
};

/// The parameters of a file: its declaration (if any) and their values.
struct TileParams {
  std::vector<TileParam> declared;
  unsigned line = 0, column = 0; ///< of `tile.params`; 0 when none
  /// The value of every declared parameter after --param assignments.
  std::map<std::string, int64_t> chosen;

  const TileParam *find(llvm::StringRef name) const;
  /// "BLOCK_M=64, num_warps=4", in declaration order.
  std::string describeChosen() const;
  /// Whether `name` is one of the reserved compile-option names.
  static bool isReserved(llvm::StringRef name);
};

/// Reads `path` ("-": stdin), checks its parameter declaration and uses,
/// applies `assign` (NAME -> VALUE from --param; each must be declared and
/// one of its declared values), substitutes and parses the result with
/// parseTileSource. Errors are located diagnostics on `context` (the
/// declaration, the use, or the --param's parameter); a file that cannot be
/// read sets `readError` as parseTileFile does. On success `params` says
/// what was declared and chosen. A file without declaration or uses parses
/// exactly as parseTileFile parses it.
mlir::OwningOpRef<mlir::ModuleOp>
parseTileFileWithParams(llvm::StringRef path, llvm::SourceMgr &sourceMgr,
                        mlir::MLIRContext &context,
                        const std::map<std::string, int64_t> &assign,
                        TileParams &params, std::string &readError);

/// The same on text already read: `bufferName` names it in diagnostics.
mlir::OwningOpRef<mlir::ModuleOp>
parseTileSourceWithParams(llvm::StringRef text, llvm::StringRef bufferName,
                          llvm::SourceMgr &sourceMgr,
                          mlir::MLIRContext &context,
                          const std::map<std::string, int64_t> &assign,
                          TileParams &params);

/// Only the declaration and the uses of `text` (no substitution, no
/// parse): for a tuner that enumerates the space. Errors as above.
mlir::LogicalResult scanTileParams(llvm::StringRef text,
                                   llvm::StringRef bufferName,
                                   mlir::MLIRContext &context,
                                   TileParams &params);

/// While it lives, every error diagnostic on `context` gets a note at the
/// tile.params declaration naming the values in effect ("with the
/// parameters BLOCK_M=256, num_warps=8"), so that an invalid kernel made by
/// one choice of values says which. Nothing when nothing is declared.
class ParamsDiagnosticNote {
public:
  ParamsDiagnosticNote(mlir::MLIRContext &context, const TileParams &params,
                       llvm::StringRef bufferName);
  ~ParamsDiagnosticNote();
  ParamsDiagnosticNote(const ParamsDiagnosticNote &) = delete;
  ParamsDiagnosticNote &operator=(const ParamsDiagnosticNote &) = delete;

private:
  mlir::MLIRContext &context_;
  uint64_t id_ = 0;
  bool active_ = false;
};

/// Parses "NAME=VALUE" (a --param) into `assign`; false with `error` set
/// for anything else or a name given twice.
bool parseParamAssignment(llvm::StringRef text,
                          std::map<std::string, int64_t> &assign,
                          std::string &error);

} // namespace tilec

#endif // TILEC_PARAMS_H
