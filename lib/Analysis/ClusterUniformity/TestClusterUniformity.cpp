//===- TestClusterUniformity.cpp - print the cluster analysis for lit -----===//

#include "tilec/Analysis/ClusterUniformity.h"
#include "tilec/Analysis/Passes.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tilec {
#define GEN_PASS_DEF_TESTPRINTCLUSTERUNIFORMITY
#include "tilec/Analysis/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {
/// One remark per scalar integer result of a clustered kernel's ops.
struct TestPrintClusterUniformity
    : public tilec::impl::TestPrintClusterUniformityBase<
          TestPrintClusterUniformity> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      int ctas = tile::getNumCtas(func);
      if (ctas == 1)
        return;
      tile::ClusterUniformity cluster(ctas);
      func.walk([&](Operation *op) {
        for (Value result : op->getResults()) {
          if (!result.getType().isIntOrIndex())
            continue;
          std::string text;
          llvm::raw_string_ostream os(text);
          if (op->getNumResults() > 1)
            os << "result #" << cast<OpResult>(result).getResultNumber()
               << ": ";
          std::optional<tile::ClusterAffine> a = cluster.get(result);
          if (!a)
            os << "unknown";
          else if (a->uniform())
            os << "uniform, divisor " << a->divisor
               << (a->nonNegative ? ", non-negative" : "");
          else
            os << "E + " << a->coef << " * rank, divisor " << a->divisor
               << (a->nonNegative ? ", non-negative" : "");
          op->emitRemark() << text;
        }
      });
    });
  }
};
} // namespace
