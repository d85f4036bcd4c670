//===- Tile.h - runtime values of the interpreter ---------------*- C++ -*-===//
//
// Every SSA value is a Tile: a dense row-major array with a shape (empty for
// a scalar) and an MLIR element type. Integers are kept sign-extended from
// their width in int64 (i1 true is -1, as LLVM's sext would give), floats as
// doubles holding values exact in their type, pointers as packed
// (buffer, byte offset) words (Memory.h). Tiles are immutable once built and
// shared, so identity ops (convert_layout, scf yields) copy nothing.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_INTERPRETER_TILE_H
#define TILEC_LIB_INTERPRETER_TILE_H

#include "FloatFormats.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <vector>

namespace tilec::interp {

struct Tile {
  llvm::SmallVector<int64_t, 4> shape;
  mlir::Type elementType;
  std::vector<int64_t> ints;  ///< integers and pointers
  std::vector<double> floats; ///< floats

  /// An uninitialized tile of `shape` and `elementType`.
  Tile(llvm::ArrayRef<int64_t> shape, mlir::Type elementType);

  int64_t size() const {
    return isFloat() ? int64_t(floats.size()) : int64_t(ints.size());
  }
  bool isFloat() const { return mlir::isa<mlir::FloatType>(elementType); }
  bool isScalar() const { return shape.empty(); }
};

using TileRef = std::shared_ptr<const Tile>;
using MutableTileRef = std::shared_ptr<Tile>;

/// A new tile; its elements are zero.
MutableTileRef makeTile(llvm::ArrayRef<int64_t> shape, mlir::Type elementType);
/// A scalar tile.
TileRef makeIntScalar(mlir::Type type, int64_t value);
TileRef makeFloatScalar(mlir::Type type, double value);

/// Bits of an integer-like type (index is 64), 0 for others.
unsigned intWidth(mlir::Type type);
/// `value` truncated to `width` bits and sign-extended back.
inline int64_t wrapInt(int64_t value, unsigned width) {
  if (width >= 64 || width == 0)
    return value;
  unsigned shift = 64 - width;
  return int64_t(uint64_t(value) << shift) >> shift;
}
/// `value`'s low `width` bits, zero-extended (the unsigned reading).
inline uint64_t unsignedInt(int64_t value, unsigned width) {
  return width >= 64 ? uint64_t(value)
                     : uint64_t(value) & ((uint64_t(1) << width) - 1);
}

/// The float format of an MLIR float type (f32 for unknown ones).
FloatFormat formatOf(mlir::Type type);

/// Row-major strides of `shape`.
llvm::SmallVector<int64_t, 4> stridesOf(llvm::ArrayRef<int64_t> shape);
/// The multi-index of flat element `flat` of `shape`, as "[i, j]".
std::string formatIndex(llvm::ArrayRef<int64_t> shape, int64_t flat);

} // namespace tilec::interp

#endif // TILEC_LIB_INTERPRETER_TILE_H
