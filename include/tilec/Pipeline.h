//===- Pipeline.h - the tilec compilation pipeline --------------*- C++ -*-===//
//
// The pipeline shared by the `tilec` driver, `tile-opt` (as a named pipeline)
// and the C++ builder API.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PIPELINE_H
#define TILEC_PIPELINE_H

#include "mlir/Support/LLVM.h"
#include <string>

namespace mlir {
class ModuleOp;
class OpPassManager;
} // namespace mlir

namespace tilec {

/// How far `tilec` lowers a module.
enum class EmitLevel {
  Tile, ///< verified, inlined, canonicalized tile IR
};

/// Options of the pipeline; each has a `tilec` flag of the same meaning.
struct PipelineOptions {
  EmitLevel emit = EmitLevel::Tile;
  std::string arch = "sm_90"; ///< sm_80, sm_90 or sm_90a
  int numWarps = 4;           ///< default for kernels without tile.num_warps
  int optLevel = 3;           ///< 0..3
};

/// Appends to `pm` (anchored on builtin.module) the passes that take a tile
/// module to `options.emit`.
void buildTilecPipeline(mlir::OpPassManager &pm,
                        const PipelineOptions &options);

/// What compiling a module produces; fields past the emit level stay empty.
struct CompileResult {
  std::string ir;           ///< the module's text after the pipeline
  std::string ptx;          ///< PTX (emit >= ptx)
  std::string cubin;        ///< cubin bytes (emit == cubin)
  std::string metadataJson; ///< kernel metadata, docs/metadata.md (emit >= ptx)
};

/// Runs the pipeline on `module` (in place) up to `options.emit`. Errors are
/// reported through the module's context diagnostics and give failure().
mlir::FailureOr<CompileResult> compileModule(mlir::ModuleOp module,
                                             const PipelineOptions &options);

} // namespace tilec

#endif // TILEC_PIPELINE_H
