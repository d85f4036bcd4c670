//===- TestUtil.h - helpers of the builder's unit tests ---------*- C++ -*-===//
//
// Inspecting built kernels: op counts, loads per parameter, op locations.
// Numeric checks will go through the CPU interpreter (include/tilec/
// Interpreter.h, branch interp) on the same Kernel::module().
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_UNIT_BUILDER_TESTUTIL_H
#define TILEC_TEST_UNIT_BUILDER_TESTUTIL_H

#include "tilec/Builder.h"
#include "tilec/Pipeline.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace tilec::test {

/// Ops of type OpTy in `module`.
template <typename OpTy> int countOps(mlir::ModuleOp module) {
  int n = 0;
  module.walk([&](OpTy) { ++n; });
  return n;
}

/// Ops named `name` ("arith.select") in `module`.
inline int countOps(mlir::ModuleOp module, llvm::StringRef name) {
  int n = 0;
  module.walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() == name)
      ++n;
  });
  return n;
}

/// The kernel parameter a pointer value derives from (through addptr,
/// splat, broadcast, expand_dims and loop-carried values), or -1.
inline int pointerParam(mlir::Value v) {
  while (v) {
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v)) {
      mlir::Operation *owner = arg.getOwner()->getParentOp();
      if (llvm::isa<mlir::func::FuncOp>(owner))
        return arg.getArgNumber();
      if (auto loop = llvm::dyn_cast<mlir::scf::ForOp>(owner)) {
        mlir::OpOperand *init = loop.getTiedLoopInit(arg);
        if (!init)
          return -1;
        v = init->get();
        continue;
      }
      return -1;
    }
    mlir::Operation *def = v.getDefiningOp();
    if (auto op = llvm::dyn_cast<mlir::tile::AddPtrOp>(def))
      v = op.getPtr();
    else if (llvm::isa<mlir::tile::SplatOp, mlir::tile::BroadcastOp,
                       mlir::tile::ExpandDimsOp>(def))
      v = def->getOperand(0);
    else
      return -1;
  }
  return -1;
}

/// Loads (or stores) per parameter name.
template <typename OpTy>
std::map<std::string, int> accessesPerParam(mlir::ModuleOp module,
                                            const Kernel &k) {
  std::map<std::string, int> out;
  std::vector<ParamInfo> params = k.params();
  module.walk([&](OpTy op) {
    int p = pointerParam(op.getPtr());
    out[p < 0 ? std::string("?") : params[p].name]++;
  });
  return out;
}

/// The line of `op`'s location (0 if it has none).
inline unsigned lineOf(mlir::Operation *op) {
  if (auto l = llvm::dyn_cast<mlir::FileLineColLoc>(op->getLoc()))
    return l.getLine();
  return 0;
}

/// The module the pipeline makes of `k` (inlined, canonicalized, CSE'd).
inline mlir::OwningOpRef<mlir::ModuleOp> compiled(const Kernel &k) {
  mlir::OwningOpRef<mlir::ModuleOp> copy = k.module().clone();
  tilec::PipelineOptions tileLevel;
  tileLevel.emit = tilec::EmitLevel::Tile;
  EXPECT_TRUE(mlir::succeeded(tilec::compileModule(*copy, tileLevel)));
  return copy;
}

} // namespace tilec::test

/// Expects `stmt` to throw a BuildError from this line whose op is `opName`
/// and whose message contains `text`. Keep `stmt` on the macro's line.
#define EXPECT_BUILD_ERROR(stmt, opName, text)                                 \
  do {                                                                         \
    unsigned expectedLine = __LINE__;                                          \
    try {                                                                      \
      stmt;                                                                    \
      ADD_FAILURE() << "no BuildError from: " #stmt;                           \
    } catch (const tilec::BuildError &e) {                                     \
      EXPECT_EQ(e.line(), expectedLine) << e.what();                           \
      EXPECT_NE(e.file().find("Test.cpp"), std::string::npos) << e.what();     \
      EXPECT_EQ(e.op(), std::string(opName)) << e.what();                      \
      EXPECT_NE(e.message().find(text), std::string::npos)                     \
          << "message: " << e.message() << "\nexpected: " << text;             \
    }                                                                          \
  } while (false)

#endif // TILEC_TEST_UNIT_BUILDER_TESTUTIL_H
