//===- InitAll.h - registration of what tilec's tools use -------*- C++ -*-===//

#ifndef TILEC_INITALL_H
#define TILEC_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tilec {

/// Adds the tile dialect and every upstream dialect, interface and
/// translation the pipeline needs (func, arith, math, scf, cf, gpu, nvvm,
/// llvm) to `registry`.
void registerTilecDialects(mlir::DialectRegistry &registry);

/// Registers tilec's passes, the upstream passes its pipeline uses, and the
/// named pipelines (for tile-opt and --pass-pipeline).
void registerTilecPasses();

/// Registers the named pipelines (`tilec-pipeline`).
void registerTilecPipelines();

} // namespace tilec

#endif // TILEC_INITALL_H
