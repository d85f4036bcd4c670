//===- ShapeOps.h - moving tile elements around -----------------*- C++ -*-===//

#ifndef TILEC_LIB_INTERPRETER_SHAPEOPS_H
#define TILEC_LIB_INTERPRETER_SHAPEOPS_H

#include "Tile.h"

namespace tilec::interp {

/// A tile of `shape` whose element at index (i0, i1, ...) is the source's
/// element at `offset + sum(ik * strides[k])`: broadcasts (stride 0),
/// transposes (permuted strides) and slices are all gathers.
MutableTileRef gather(const Tile &src, llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<int64_t> strides, int64_t offset);

/// `src` with another shape of as many elements.
MutableTileRef reshaped(const Tile &src, llvm::ArrayRef<int64_t> shape);

} // namespace tilec::interp

#endif // TILEC_LIB_INTERPRETER_SHAPEOPS_H
