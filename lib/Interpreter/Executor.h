//===- Executor.h - executes the ops of one program -------------*- C++ -*-===//
//
// The executor runs one program at a time, op by op, each op over whole tiles
// (one loop over the elements). Op families register a handler per op type in
// a table (one file per family); an op without a handler is reported as
// unsupported at its location.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_INTERPRETER_EXECUTOR_H
#define TILEC_LIB_INTERPRETER_EXECUTOR_H

#include "Memory.h"
#include "Tile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace tilec::interp {

class Executor;

/// Executes one op: reads its operands' tiles and sets its results'.
using OpHandler = mlir::LogicalResult (*)(Executor &, mlir::Operation *);
using HandlerTable = llvm::DenseMap<mlir::TypeID, OpHandler>;

/// Registers `handler` for op type `OpTy`.
template <typename OpTy>
void addHandler(HandlerTable &table, OpHandler handler) {
  table[mlir::TypeID::get<OpTy>()] = handler;
}

void registerArithHandlers(HandlerTable &table);
void registerCastHandlers(HandlerTable &table);
void registerMathHandlers(HandlerTable &table);
void registerShapeHandlers(HandlerTable &table);
void registerMemoryHandlers(HandlerTable &table);
void registerReduceHandlers(HandlerTable &table);
void registerDotHandlers(HandlerTable &table);
void registerDebugHandlers(HandlerTable &table);
void registerControlFlowHandlers(HandlerTable &table);

/// True when the interpreter can execute `op` (terminators aside).
bool hasHandler(mlir::Operation *op);

/// True for ops whose handlers compute each element from the same element of
/// their operands, whatever the operands' shapes: such a combiner region can
/// run on whole tiles at once.
bool isElementwiseOp(mlir::Operation *op);

struct ProgramId {
  int64_t x = 0, y = 0, z = 0;
};

class Executor {
public:
  Executor(Memory &memory, const Grid &grid, const RunOptions &options,
           RunStats &stats);

  /// Runs the body of `kernel` as program `pid`, its parameters bound to
  /// `args`.
  mlir::LogicalResult runProgram(mlir::Operation *kernel,
                                 llvm::ArrayRef<TileRef> args, ProgramId pid);

  /// Runs `block` with its arguments bound to `args`; `results` receives the
  /// tiles of its terminator's operands.
  mlir::LogicalResult runBlock(mlir::Block &block, llvm::ArrayRef<TileRef> args,
                               llvm::SmallVectorImpl<TileRef> &results);

  /// The tile of a value computed earlier in this program.
  const Tile &get(mlir::Value value) const { return *values.lookup(value); }
  TileRef getRef(mlir::Value value) const { return values.lookup(value); }
  void set(mlir::Value value, TileRef tile) { values[value] = std::move(tile); }

  /// An error at `op`'s location (no "see current operation" note).
  mlir::InFlightDiagnostic error(mlir::Operation *op) const;
  /// "program (x, y, z)" of the running program.
  std::string programText() const { return programText(pid); }
  static std::string programText(ProgramId id);
  /// The race-check stamp of program `id` (its linear index + 1) and back.
  uint32_t stampOf(ProgramId id) const {
    return uint32_t(id.x + grid.x * (id.y + grid.y * id.z) + 1);
  }
  ProgramId programOfStamp(uint32_t stamp) const {
    int64_t linear = int64_t(stamp) - 1;
    return {linear % grid.x, linear / grid.x % grid.y,
            linear / (grid.x * grid.y)};
  }

  Memory &memory;
  const Grid &grid;
  const RunOptions &options;
  RunStats &stats;
  ProgramId pid;
  /// Tiles of constant ops, built once per run.
  llvm::DenseMap<mlir::Operation *, TileRef> constants;
  /// Whether loads and stores are checked for races between programs.
  bool checkRaces = false;
  /// Functions being called, to refuse recursion.
  llvm::SmallPtrSet<mlir::Operation *, 8> activeCalls;

private:
  llvm::DenseMap<mlir::Value, TileRef> values;
  const HandlerTable &handlers;
};

} // namespace tilec::interp

#endif // TILEC_LIB_INTERPRETER_EXECUTOR_H
