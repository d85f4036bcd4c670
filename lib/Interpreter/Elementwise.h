//===- Elementwise.h - loops of elementwise ops -----------------*- C++ -*-===//
//
// The one loop behind every arith and math op. Operands have one shape, or
// are scalars that broadcast: inside a combiner region that runs on whole
// tiles (ReduceOps.cpp) a constant is a scalar while the block arguments are
// tiles. Element accessors pick int64 (integers, pointers) or double.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_INTERPRETER_ELEMENTWISE_H
#define TILEC_LIB_INTERPRETER_ELEMENTWISE_H

#include "Tile.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeUtilities.h"

namespace tilec::interp {

template <typename T> const T *elements(const Tile &tile) {
  if constexpr (std::is_same_v<T, double>)
    return tile.floats.data();
  else
    return tile.ints.data();
}
template <typename T> T *elements(Tile &tile) {
  if constexpr (std::is_same_v<T, double>)
    return tile.floats.data();
  else
    return tile.ints.data();
}

/// The operand whose shape the result takes: the largest, and of equal
/// sizes the one of higher rank (a 1x1 tile, not a broadcast scalar).
inline const Tile &shapeSource(std::initializer_list<const Tile *> tiles) {
  const Tile *best = *tiles.begin();
  for (const Tile *t : tiles)
    if (t->size() > best->size() ||
        (t->size() == best->size() && t->shape.size() > best->shape.size()))
      best = t;
  return *best;
}

/// out[i] = fn(a[i]).
template <typename R, typename A, typename Fn>
TileRef map1(mlir::Type resultType, const Tile &a, Fn fn) {
  auto out = makeTile(a.shape, resultType);
  const A *pa = elements<A>(a);
  R *po = elements<R>(*out);
  for (int64_t i = 0, n = out->size(); i < n; ++i)
    po[i] = fn(pa[i]);
  return out;
}

/// out[i] = fn(a[i], b[i]), a scalar operand broadcast.
template <typename R, typename A, typename B, typename Fn>
TileRef map2(mlir::Type resultType, const Tile &a, const Tile &b, Fn fn) {
  auto out = makeTile(shapeSource({&a, &b}).shape, resultType);
  int64_t n = out->size();
  int64_t sa = a.size() == n ? 1 : 0, sb = b.size() == n ? 1 : 0;
  const A *pa = elements<A>(a);
  const B *pb = elements<B>(b);
  R *po = elements<R>(*out);
  for (int64_t i = 0; i < n; ++i)
    po[i] = fn(pa[i * sa], pb[i * sb]);
  return out;
}

/// out[i] = fn(a[i], b[i], c[i]), scalar operands broadcast.
template <typename R, typename A, typename B, typename C, typename Fn>
TileRef map3(mlir::Type resultType, const Tile &a, const Tile &b, const Tile &c,
             Fn fn) {
  auto out = makeTile(shapeSource({&a, &b, &c}).shape, resultType);
  int64_t n = out->size();
  int64_t sa = a.size() == n ? 1 : 0, sb = b.size() == n ? 1 : 0,
          sc = c.size() == n ? 1 : 0;
  const A *pa = elements<A>(a);
  const B *pb = elements<B>(b);
  const C *pc = elements<C>(c);
  R *po = elements<R>(*out);
  for (int64_t i = 0; i < n; ++i)
    po[i] = fn(pa[i * sa], pb[i * sb], pc[i * sc]);
  return out;
}

/// The element type of an op's first result (the scalar type or the tile's
/// element type).
inline mlir::Type resultElementType(mlir::Operation *op, unsigned i = 0) {
  return mlir::getElementTypeOrSelf(op->getResult(i).getType());
}

} // namespace tilec::interp

#endif // TILEC_LIB_INTERPRETER_ELEMENTWISE_H
