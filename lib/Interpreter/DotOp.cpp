//===- DotOp.cpp - tile.dot -----------------------------------------------===//
//
// d = a * b + c with the products exact (in double) and the sum kept in the
// accumulator's precision after every step, k ascending: f32 for float
// operands (an f16 accumulator is summed in f32 and rounded once at the
// end), wrapping i32 for i8. With precision = tf32 the f32 operands are
// first rounded to tf32 (10 mantissa bits, ties away from zero, as the
// GPU's cvt.rna.tf32.f32); tf32x3 is close to f32 and computed as ieee.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;

namespace {

LogicalResult executeDot(Executor &ex, Operation *op) {
  auto dot = cast<tile::DotOp>(op);
  const Tile &a = ex.get(dot.getA()), &b = ex.get(dot.getB()),
             &c = ex.get(dot.getC());
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  auto out = makeTile(c.shape, c.elementType);
  if (!a.isFloat()) {
    for (int64_t i = 0; i < m; ++i) {
      int64_t *row = out->ints.data() + i * n;
      std::copy_n(c.ints.data() + i * n, n, row);
      for (int64_t kk = 0; kk < k; ++kk) {
        int64_t x = a.ints[i * k + kk];
        const int64_t *brow = b.ints.data() + kk * n;
        for (int64_t j = 0; j < n; ++j)
          row[j] = int64_t(uint64_t(row[j]) + uint64_t(x * brow[j]));
      }
      for (int64_t j = 0; j < n; ++j)
        row[j] = wrapInt(row[j], 32);
    }
    ex.set(dot.getResult(), std::move(out));
    return success();
  }

  std::vector<double> av(a.floats), bv(b.floats);
  if (a.elementType.isF32() &&
      dot.getPrecision() == tile::InputPrecision::tf32 &&
      ex.options.emulateTF32) {
    for (double &x : av)
      x = roundToFormat(x, FloatFormat::TF32, RoundMode::NearestAway);
    for (double &x : bv)
      x = roundToFormat(x, FloatFormat::TF32, RoundMode::NearestAway);
  }
  std::vector<float> row(n);
  RoundFn round = getRoundFn(formatOf(c.elementType));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j)
      row[j] = float(c.floats[i * n + j]);
    for (int64_t kk = 0; kk < k; ++kk) {
      double x = av[i * k + kk];
      const double *brow = bv.data() + kk * n;
      for (int64_t j = 0; j < n; ++j)
        row[j] = float(double(row[j]) + x * brow[j]);
    }
    for (int64_t j = 0; j < n; ++j)
      out->floats[i * n + j] = round(row[j]);
  }
  ex.set(dot.getResult(), std::move(out));
  return success();
}

} // namespace

void interp::registerDotHandlers(HandlerTable &t) {
  addHandler<tile::DotOp>(t, executeDot);
}
