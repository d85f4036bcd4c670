//===- TestAxisInfo.cpp - print the axis analysis for lit tests -----------===//

#include "tilec/Analysis/AxisInfo.h"
#include "tilec/Analysis/Passes.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/BuiltinOps.h"

namespace tilec {
#define GEN_PASS_DEF_TESTPRINTAXISINFO
#include "tilec/Analysis/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {
/// Emits one remark per integer or pointer result: the analysis' verdict.
struct TestPrintAxisInfo
    : public tilec::impl::TestPrintAxisInfoBase<TestPrintAxisInfo> {
  void runOnOperation() override {
    tile::ModuleAxisInfo info(getOperation());
    if (!info.succeeded())
      return signalPassFailure();
    getOperation().walk([&](Operation *op) {
      for (Value result : op->getResults()) {
        Type elem = getElementTypeOrSelf(result.getType());
        if (!isa<IntegerType, tile::PointerType>(elem))
          continue;
        std::string text;
        llvm::raw_string_ostream os(text);
        if (op->getNumResults() > 1)
          os << "result #" << cast<OpResult>(result).getResultNumber() << ": ";
        info.get(result).print(os);
        op->emitRemark() << text;
      }
    });
  }
};
} // namespace
