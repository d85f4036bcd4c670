//===- LaunchRules.h - a kernel's grid and extent rules ---------*- C++ -*-===//
//
// Reads `tile.grid` on a kernel, `tile.extent` / `tile.output` on its
// pointer parameters, `tile.shape` on pointers and descriptors and
// `tile.from` on integer scalars, and checks each against the parameters
// (support/GridRule.h) with an error located at the kernel. Private to the
// pipeline library: compileModule writes what it returns into the metadata.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_PIPELINE_LAUNCHRULES_H
#define TILEC_LIB_PIPELINE_LAUNCHRULES_H

#include "tilec/Support/GridRule.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace tilec {

struct LaunchRules {
  /// The grid expressions, x first; empty: the kernel declares none.
  grid::Rule grid;
  /// Per parameter: its tile.extent expression, if any.
  std::vector<std::optional<grid::Expr>> extents;
  /// Per parameter: marked tile.output.
  std::vector<bool> outputs;
  /// Per parameter: its tile.shape sizes, outermost first (empty: none).
  /// A pointer with a shape gets the product as its extent.
  std::vector<std::vector<grid::Expr>> shapes;
  /// Per parameter: its tile.from source (integer scalars only).
  std::vector<std::optional<grid::Source>> sources;
};

/// The rules of `kernel`, whose parameters are called `names`; an error at
/// the kernel for an expression that does not parse, names an unknown
/// parameter or one that is not an i32/i64 scalar.
mlir::FailureOr<LaunchRules> readLaunchRules(mlir::func::FuncOp kernel,
                                             llvm::ArrayRef<std::string> names);

} // namespace tilec

#endif // TILEC_LIB_PIPELINE_LAUNCHRULES_H
