//===- TileCombiners.h - the named combiners of reduce and scan -*- C++ -*-===//
//
// `tile.reduce add(%x) ...` is `tile.reduce(%x) ...` with the four-line
// region that adds: the text form names the commonest combiners and the
// parser builds their regions, so both forms are the same op. The printer
// prints the name when a region is exactly the one the name builds.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILECOMBINERS_H
#define TILEC_DIALECT_TILE_IR_TILECOMBINERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Region.h"

#include <optional>
#include <string>

namespace mlir::tile {

/// "add, mul, max, min, umax, umin, and, or, xor, argmax, argmin", for
/// messages.
llvm::StringRef getCombinerNameList();

/// Builds the combiner `name` for sources of element types `elems` into
/// `region` (empty): one block taking the accumulators then the new values
/// and yielding the combination. Fails with `why` set when the name is
/// unknown or does not apply to `elems` (`and` on floats, `argmax` without
/// an index tile).
LogicalResult buildCombiner(OpBuilder &builder, Location loc,
                            llvm::StringRef name, TypeRange elems,
                            Region &region, std::string &why);

/// The name whose combiner `region` is exactly (as buildCombiner builds it,
/// locations aside), if one is.
std::optional<llvm::StringRef> matchCombiner(Region &region, TypeRange elems);

} // namespace mlir::tile

#endif // TILEC_DIALECT_TILE_IR_TILECOMBINERS_H
