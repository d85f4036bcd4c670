//===- Executor.cpp - executes the ops of one program ---------------------===//

#include "Executor.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;

static const HandlerTable &allHandlers() {
  static const HandlerTable table = [] {
    HandlerTable t;
    registerArithHandlers(t);
    registerCastHandlers(t);
    registerMathHandlers(t);
    registerShapeHandlers(t);
    registerMemoryHandlers(t);
    registerReduceHandlers(t);
    registerDotHandlers(t);
    registerDebugHandlers(t);
    registerControlFlowHandlers(t);
    return t;
  }();
  return table;
}

bool interp::hasHandler(Operation *op) {
  return allHandlers().count(op->getName().getTypeID());
}

Executor::Executor(Memory &memory, const Grid &grid, const RunOptions &options,
                   RunStats &stats)
    : memory(memory), grid(grid), options(options), stats(stats),
      handlers(allHandlers()) {}

LogicalResult Executor::runProgram(Operation *kernel, ArrayRef<TileRef> args,
                                   ProgramId id) {
  pid = id;
  memory.program = checkRaces ? stampOf(id) : 0;
  values.clear();
  SmallVector<TileRef> results;
  return runBlock(kernel->getRegion(0).front(), args, results);
}

LogicalResult Executor::runBlock(Block &block, ArrayRef<TileRef> args,
                                 SmallVectorImpl<TileRef> &results) {
  for (auto [arg, tile] : llvm::zip(block.getArguments(), args))
    values[arg] = tile;
  for (Operation &op : block.without_terminator()) {
    auto it = handlers.find(op.getName().getTypeID());
    if (it == handlers.end())
      return error(&op) << "the CPU interpreter does not support '"
                        << op.getName() << "'";
    ++stats.opsExecuted;
    if (failed(it->second(*this, &op)))
      return failure();
  }
  for (Value v : block.getTerminator()->getOperands())
    results.push_back(values.lookup(v));
  return success();
}

InFlightDiagnostic Executor::error(Operation *op) const {
  return emitError(op->getLoc());
}

std::string Executor::programText(ProgramId id) {
  return llvm::formatv("program ({0}, {1}, {2})", id.x, id.y, id.z).str();
}
