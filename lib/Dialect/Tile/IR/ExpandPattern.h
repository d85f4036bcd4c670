//===- ExpandPattern.h - a shorthand's expansion as a canonicalization -----===//
//
// Each shorthand form (tile.each, tile.outer, tile.grouped_ids, ...) has an
// expand function that tile::expandShorthands calls directly; as a
// canonicalization pattern it is this one template. Private to the tile
// dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILE_IR_EXPANDPATTERN_H
#define TILEC_LIB_DIALECT_TILE_IR_EXPANDPATTERN_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile::detail {

/// Rewrites OpT with `Expand`, which fails where the op is already in its
/// general form.
template <typename OpT, LogicalResult (*Expand)(RewriterBase &, OpT)>
struct ExpandPattern : public OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    return Expand(rewriter, op);
  }
};

} // namespace mlir::tile::detail

#endif // TILEC_LIB_DIALECT_TILE_IR_EXPANDPATTERN_H
