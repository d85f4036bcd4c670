//===- ControlFlow.cpp - scf loops and branches, func.call ----------------===//
//
// Structured control flow carries tiles and scalars through its block
// arguments and yields. Calls run the callee's body directly (no inlining
// needed); recursion is refused, as the GPU path inlines every call.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;

namespace {

SmallVector<TileRef> operandTiles(Executor &ex, ValueRange values) {
  SmallVector<TileRef> tiles;
  for (Value v : values)
    tiles.push_back(ex.getRef(v));
  return tiles;
}

void setResults(Executor &ex, Operation *op, ArrayRef<TileRef> tiles) {
  for (auto [res, t] : llvm::zip(op->getResults(), tiles))
    ex.set(res, t);
}

LogicalResult executeFor(Executor &ex, Operation *op) {
  auto loop = cast<scf::ForOp>(op);
  Type ivType = loop.getInductionVar().getType();
  unsigned w = intWidth(ivType);
  bool isUnsigned = loop.getUnsignedCmp();
  int64_t lb = ex.get(loop.getLowerBound()).ints[0];
  int64_t ub = ex.get(loop.getUpperBound()).ints[0];
  int64_t step = ex.get(loop.getStep()).ints[0];
  if (step == 0 || (!isUnsigned && step < 0))
    return ex.error(op) << "scf.for in " << ex.programText() << " has step "
                        << step << "; the step must be positive";
  SmallVector<TileRef> carried = operandTiles(ex, loop.getInitArgs());
  SmallVector<TileRef> args, yielded;
  auto below = [&](int64_t iv) {
    return isUnsigned ? unsignedInt(iv, w) < unsignedInt(ub, w) : iv < ub;
  };
  for (int64_t iv = lb; below(iv);) {
    args.assign({makeIntScalar(ivType, iv)});
    args.append(carried.begin(), carried.end());
    yielded.clear();
    if (failed(ex.runBlock(*loop.getBody(), args, yielded)))
      return failure();
    carried = yielded;
    // Stop rather than wrap around when the next value would overflow.
    int64_t next = wrapInt(int64_t(uint64_t(iv) + uint64_t(step)), w);
    if (isUnsigned ? unsignedInt(next, w) <= unsignedInt(iv, w) : next <= iv)
      break;
    iv = next;
  }
  setResults(ex, op, carried);
  return success();
}

LogicalResult executeIf(Executor &ex, Operation *op) {
  auto ifOp = cast<scf::IfOp>(op);
  bool cond = ex.get(ifOp.getCondition()).ints[0] != 0;
  Region &region = cond ? ifOp.getThenRegion() : ifOp.getElseRegion();
  if (region.empty())
    return success(); // no else and no results
  SmallVector<TileRef> results;
  if (failed(ex.runBlock(region.front(), {}, results)))
    return failure();
  setResults(ex, op, results);
  return success();
}

LogicalResult executeWhile(Executor &ex, Operation *op) {
  auto loop = cast<scf::WhileOp>(op);
  SmallVector<TileRef> args = operandTiles(ex, loop.getInits());
  SmallVector<TileRef> condOut;
  while (true) {
    condOut.clear();
    if (failed(ex.runBlock(loop.getBefore().front(), args, condOut)))
      return failure();
    // condOut holds the scf.condition operands: the flag, then the values.
    auto condition = loop.getConditionOp();
    bool proceed = ex.get(condition.getCondition()).ints[0] != 0;
    SmallVector<TileRef> values(condOut.begin() + 1, condOut.end());
    if (!proceed) {
      setResults(ex, op, values);
      return success();
    }
    args.clear();
    if (failed(ex.runBlock(loop.getAfter().front(), values, args)))
      return failure();
  }
}

LogicalResult executeExecuteRegion(Executor &ex, Operation *op) {
  // Regions of several blocks were refused before the run.
  auto exec = cast<scf::ExecuteRegionOp>(op);
  SmallVector<TileRef> results;
  if (failed(ex.runBlock(exec.getRegion().front(), {}, results)))
    return failure();
  setResults(ex, op, results);
  return success();
}

LogicalResult executeCall(Executor &ex, Operation *op) {
  auto call = cast<func::CallOp>(op);
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      op, call.getCalleeAttr());
  if (!callee || callee.isExternal())
    return ex.error(op) << "call to @" << call.getCallee()
                        << ", which has no body";
  if (!ex.activeCalls.insert(callee).second)
    return ex.error(op) << "recursive call to @" << call.getCallee()
                        << " (tile functions are inlined, so they cannot "
                           "recurse)";
  SmallVector<TileRef> results;
  LogicalResult ok = ex.runBlock(callee.getBody().front(),
                                 operandTiles(ex, call.getOperands()), results);
  ex.activeCalls.erase(callee);
  if (failed(ok))
    return failure();
  setResults(ex, op, results);
  return success();
}

} // namespace

void interp::registerControlFlowHandlers(HandlerTable &t) {
  addHandler<scf::ForOp>(t, executeFor);
  addHandler<scf::IfOp>(t, executeIf);
  addHandler<scf::WhileOp>(t, executeWhile);
  addHandler<scf::ExecuteRegionOp>(t, executeExecuteRegion);
  addHandler<func::CallOp>(t, executeCall);
}
