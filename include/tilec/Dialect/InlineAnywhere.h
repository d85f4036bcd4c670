//===- InlineAnywhere.h - an inliner interface that allows all --*- C++ -*-===//
//
// tile and tilegpu ops may all be inlined: none depends on the function it
// sits in (the inliner runs before layouts, but a later run must not be
// refused). Both dialects register this interface.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_INLINEANYWHERE_H
#define TILEC_DIALECT_INLINEANYWHERE_H

#include "mlir/Transforms/InliningUtils.h"

namespace mlir::tile {

/// Every op of the dialect that registers it may be inlined anywhere.
struct InlineAnywhereInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};

} // namespace mlir::tile

#endif // TILEC_DIALECT_INLINEANYWHERE_H
