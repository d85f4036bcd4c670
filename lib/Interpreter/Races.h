//===- Races.h - races between programs and within a store ------*- C++ -*-===//
//
// Programs of a launch run in no particular order on the GPU, and the
// elements of one store in no particular order either. The interpreter runs
// them in one order; these checks report what another order would change.
// They are used only when Executor::checkRaces is set.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_INTERPRETER_RACES_H
#define TILEC_LIB_INTERPRETER_RACES_H

#include "Executor.h"

namespace tilec::interp {

/// Fails if element `i` of a load (pointers `ptrs`, `size` bytes each) reads
/// bytes another program stored.
mlir::LogicalResult checkReadRace(Executor &ex, mlir::Operation *op,
                                  const Tile &ptrs, int64_t i, unsigned size);

/// Fails if element `i` of a store is about to replace bytes another program
/// stored with different bytes (`bits`, little-endian).
mlir::LogicalResult checkWriteRace(Executor &ex, mlir::Operation *op,
                                   const Tile &ptrs, int64_t i, unsigned size,
                                   uint64_t bits);

/// Fails if two active elements of one store write different `bits` to one
/// address; `active(i)` tells the active elements.
mlir::LogicalResult
checkStoreDuplicates(Executor &ex, mlir::Operation *op, const Tile &ptrs,
                     llvm::function_ref<bool(int64_t)> active,
                     llvm::ArrayRef<uint64_t> bits, unsigned size);

} // namespace tilec::interp

#endif // TILEC_LIB_INTERPRETER_RACES_H
