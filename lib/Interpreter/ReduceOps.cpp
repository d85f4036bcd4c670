//===- ReduceOps.cpp - tile.reduce and tile.scan --------------------------===//
//
// Both view each source as [outer, L, inner] around the axis. A reduction
// combines halves pairwise (a tree, like the GPU's shuffles) until one
// element is left; a scan is Hillis-Steele: log2(L) steps, step d combining
// element i - d (the accumulator) with element i. Each step runs the combiner
// once on whole tiles when the region holds only arith and math ops (which
// work elementwise on any shape), else once per element.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"
#include "ShapeOps.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;

bool interp::isElementwiseOp(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect());
}

namespace {

/// The [outer, L, inner] view of a tile around `axis`.
struct AxisView {
  int64_t outer = 1, length = 1, inner = 1;

  AxisView(ArrayRef<int64_t> shape, int64_t axis) {
    for (int64_t i = 0; i < int64_t(shape.size()); ++i)
      (i < axis ? outer : i == axis ? length : inner) *= shape[i];
  }

  /// Elements [start, start + count) along the axis, as [outer, count,
  /// inner]; `step` -1 reads them backwards from `start`.
  MutableTileRef slice(const Tile &t, int64_t start, int64_t count,
                       int64_t step = 1) const {
    return gather(t, {outer, count, inner}, {length * inner, step * inner, 1},
                  start * inner);
  }
};

/// `a` then `b` along dimension 1 of [outer, n, inner] tiles.
TileRef concat(const Tile &a, const Tile &b) {
  int64_t outer = a.shape[0], na = a.shape[1], nb = b.shape[1],
          inner = a.shape[2];
  auto out = makeTile({outer, na + nb, inner}, a.elementType);
  auto copy = [&](auto *dst, const auto *sa, const auto *sb) {
    for (int64_t o = 0; o < outer; ++o) {
      std::copy_n(sa + o * na * inner, na * inner, dst + o * (na + nb) * inner);
      std::copy_n(sb + o * nb * inner, nb * inner,
                  dst + o * (na + nb) * inner + na * inner);
    }
  };
  if (out->isFloat())
    copy(out->floats.data(), a.floats.data(), b.floats.data());
  else
    copy(out->ints.data(), a.ints.data(), b.ints.data());
  return out;
}

/// Runs the combiner of `op` on accumulators `acc` and new values `next`
/// (same-shaped tiles, one per source).
class Combiner {
public:
  Combiner(Executor &ex, Operation *op)
      : ex(ex), block(op->getRegion(0).front()) {
    vectorized = llvm::all_of(block.without_terminator(),
                              [](Operation &o) { return isElementwiseOp(&o); });
  }

  LogicalResult run(ArrayRef<TileRef> acc, ArrayRef<TileRef> next,
                    SmallVectorImpl<TileRef> &out) {
    SmallVector<TileRef> args(acc);
    args.append(next.begin(), next.end());
    if (vectorized) {
      if (failed(ex.runBlock(block, args, out)))
        return failure();
      // A yielded constant (or an op on constants only) is a scalar: give
      // it the tiles' shape.
      for (auto [k, t] : llvm::enumerate(out)) {
        if (t->size() != acc[k]->size())
          t = gather(*t, acc[k]->shape,
                     SmallVector<int64_t>(acc[k]->shape.size(), 0), 0);
        else if (t->shape != acc[k]->shape)
          t = reshaped(*t, acc[k]->shape);
      }
      return success();
    }
    // Element by element: the region may hold control flow on scalars.
    int64_t n = acc.front()->size();
    SmallVector<MutableTileRef> results;
    for (const TileRef &a : acc)
      results.push_back(makeTile(a->shape, a->elementType));
    SmallVector<TileRef> scalars(args.size());
    SmallVector<TileRef> yielded;
    for (int64_t e = 0; e < n; ++e) {
      for (auto [k, arg] : llvm::enumerate(args)) {
        auto s = makeTile({}, arg->elementType);
        if (s->isFloat())
          s->floats[0] = arg->floats[e];
        else
          s->ints[0] = arg->ints[e];
        scalars[k] = std::move(s);
      }
      yielded.clear();
      if (failed(ex.runBlock(block, scalars, yielded)))
        return failure();
      for (auto [k, y] : llvm::enumerate(yielded)) {
        if (y->isFloat())
          results[k]->floats[e] = y->floats[0];
        else
          results[k]->ints[e] = y->ints[0];
      }
    }
    out.assign(results.begin(), results.end());
    return success();
  }

private:
  Executor &ex;
  Block &block;
  bool vectorized;
};

LogicalResult executeReduce(Executor &ex, Operation *op) {
  auto reduce = cast<tile::ReduceOp>(op);
  const Tile &first = ex.get(reduce.getSrcs().front());
  AxisView view(first.shape, reduce.getAxis());
  SmallVector<TileRef> cur;
  for (Value src : reduce.getSrcs())
    cur.push_back(view.slice(ex.get(src), 0, view.length));
  Combiner combiner(ex, op);
  for (int64_t length = view.length; length > 1;) {
    int64_t half = length / 2;
    AxisView step = view;
    step.length = length;
    SmallVector<TileRef> left, right, combined;
    for (const TileRef &t : cur) {
      left.push_back(step.slice(*t, 0, half));
      right.push_back(step.slice(*t, half, half));
    }
    if (failed(combiner.run(left, right, combined)))
      return failure();
    if (length % 2)
      for (auto [k, t] : llvm::enumerate(cur))
        combined[k] = concat(*combined[k], *step.slice(*t, 2 * half, 1));
    cur = std::move(combined);
    length = half + length % 2;
  }
  for (auto [res, t] : llvm::zip(reduce.getResults(), cur))
    ex.set(res, reshaped(*t, tile::getShapeOrEmpty(res.getType())));
  return success();
}

LogicalResult executeScan(Executor &ex, Operation *op) {
  auto scan = cast<tile::ScanOp>(op);
  const Tile &first = ex.get(scan.getSrcs().front());
  AxisView view(first.shape, scan.getAxis());
  int64_t length = view.length;
  bool reverse = scan.getReverse();
  // A reverse scan is a forward scan of the reversed tiles.
  SmallVector<TileRef> cur;
  for (Value src : scan.getSrcs())
    cur.push_back(reverse ? view.slice(ex.get(src), length - 1, length, -1)
                          : view.slice(ex.get(src), 0, length));
  Combiner combiner(ex, op);
  for (int64_t d = 1; d < length; d *= 2) {
    SmallVector<TileRef> acc, next, combined;
    for (const TileRef &t : cur) {
      acc.push_back(view.slice(*t, 0, length - d));
      next.push_back(view.slice(*t, d, length - d));
    }
    if (failed(combiner.run(acc, next, combined)))
      return failure();
    for (auto [k, t] : llvm::enumerate(cur))
      combined[k] = concat(*view.slice(*t, 0, d), *combined[k]);
    cur = std::move(combined);
  }
  for (auto [res, t] : llvm::zip(scan.getResults(), cur)) {
    TileRef ordered = reverse ? view.slice(*t, length - 1, length, -1) : t;
    ex.set(res, reshaped(*ordered, first.shape));
  }
  return success();
}

} // namespace

void interp::registerReduceHandlers(HandlerTable &t) {
  addHandler<tile::ReduceOp>(t, executeReduce);
  addHandler<tile::ScanOp>(t, executeScan);
}
