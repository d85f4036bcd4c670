//===- tile-opt.cpp - the tile dialect's opt driver -----------------------===//
//
// MlirOptMain with the tile dialect, tilec's passes and pipeline, and the
// upstream dialects and passes they use. The driver of the lit tests.
//
//===----------------------------------------------------------------------===//

#include "tilec/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilec::registerTilecDialects(registry);
  tilec::registerTilecPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}
