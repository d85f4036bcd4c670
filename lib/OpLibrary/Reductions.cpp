//===- Reductions.cpp - sum, mean, max, min, argmax, argmin, var ----------===//
//
// PyTorch's reductions over the logical tensor: lanes that are padding along
// the reduced dimension are replaced by the combiner's neutral element
// (0 for sums, -inf for max, ...) and means divide by the number of valid
// lanes. The count comes from a padding mask's count hint when there is one
// (the generators give n_cols), else from summing the mask.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace tilec::ops {

int detail::normalizeDim(const Value &x, int dim, std::string_view op) {
  if (x.isNull())
    buildError(op, "the input is a default-constructed (null) Value");
  int64_t rank = x.rank();
  if (rank == 0)
    buildError(op, "needs a tile, got the scalar " + x.typeStr());
  int64_t d = dim < 0 ? dim + rank : dim;
  if (d < 0 || d >= rank)
    buildError(op, "dim " + std::to_string(dim) + " is out of range for " +
                       x.typeStr() + " (rank " + std::to_string(rank) + ")");
  return static_cast<int>(d);
}

/// The padding masks of `x` that vary along `dim`.
static std::vector<Padding> masksAlong(const Value &x, int dim) {
  std::vector<Padding> out;
  for (const Padding &p : x.padding())
    if (p.valid.shape()[dim] != 1)
      out.push_back(p);
  return out;
}

static Value conjunction(const std::vector<Padding> &pads) {
  Value all = pads[0].valid;
  for (size_t i = 1; i < pads.size(); ++i)
    all = all & pads[i].valid;
  return all;
}

Value detail::maskedReduce(const Value &x, int dim, bool keepdim,
                           const std::function<Value(Value, Value)> &combiner,
                           const Operand &neutral) {
  Kernel k = x.kernel();
  std::vector<Padding> along = masksAlong(x, dim);
  Value filled = along.empty() ? x : where(conjunction(along), x, neutral);
  Value r = k.reduce(filled, dim, combiner, keepdim);
  // A result every one of whose lanes was padding is padding itself. A count
  // hint promises at least one valid lane, which saves the mask reduction.
  bool hinted = !along.empty() &&
                std::all_of(along.begin(), along.end(),
                            [](const Padding &p) { return !p.count.isNull(); });
  if (!along.empty() && !hinted && r.rank() > 0)
    r = r.maskedBy(k.reduce(conjunction(along), dim, Combine::max, keepdim));
  return r;
}

Value detail::validCount(const Value &x, int dim, bool keepdim) {
  Kernel k = x.kernel();
  std::vector<Padding> along = masksAlong(x, dim);
  if (along.empty())
    return k.constant(static_cast<double>(x.shape()[dim]), DType::F32);
  if (along.size() == 1 && !along[0].count.isNull()) {
    std::vector<int64_t> shape = along[0].valid.shape();
    bool onlyAlongDim = true;
    for (size_t i = 0; i < shape.size(); ++i)
      onlyAlongDim &= (int)i == dim || shape[i] == 1;
    if (onlyAlongDim)
      return along[0].count.to(DType::F32);
  }
  Value ones = conjunction(along).to(DType::I32);
  return k.reduce(ones, dim, Combine::sum, keepdim).to(DType::F32);
}

Value detail::maskedSum(const Value &x, int dim, bool keepdim) {
  return maskedReduce(
      x, dim, keepdim, [](Value a, Value b) { return a + b; }, 0);
}

/// The lowest (highest) value of a dtype: the neutral element of max (min).
static Operand extreme(DType t, bool lowest) {
  double inf = std::numeric_limits<double>::infinity();
  if (isFloat(t))
    return lowest ? -inf : inf;
  if (t == DType::I1)
    return !lowest;
  unsigned w = bitWidth(t);
  int64_t maxValue = w == 64 ? INT64_MAX : (int64_t(1) << (w - 1)) - 1;
  return lowest ? -maxValue - 1 : maxValue;
}

Value detail::maskedMax(const Value &x, int dim, bool keepdim) {
  return maskedReduce(
      x, dim, keepdim, [](Value a, Value b) { return maximum(a, b); },
      extreme(x.dtype(), /*lowest=*/true));
}

/// Fails for pointer tiles.
static void requireNumbers(const Value &x, std::string_view op) {
  if (x.isPointer())
    buildError(op, "needs a tile of numbers, got " + x.typeStr());
}

Value sum(const Value &x, int dim, bool keepdim, SourceLoc loc) {
  CallSite site("sum", loc);
  int d = detail::normalizeDim(x, dim, "sum");
  requireNumbers(x, "sum");
  DType t = x.dtype();
  DType acc = isInteger(t)               ? DType::I64
              : detail::isNarrowFloat(t) ? DType::F32
                                         : t;
  Value r = detail::maskedSum(x.to(acc), d, keepdim);
  return detail::isNarrowFloat(t) ? r.to(t) : r;
}

Value mean(const Value &x, int dim, bool keepdim, SourceLoc loc) {
  CallSite site("mean", loc);
  int d = detail::normalizeDim(x, dim, "mean");
  detail::requireFloat(x, "mean");
  Value xf = detail::opmath(x);
  Value r =
      detail::maskedSum(xf, d, keepdim) / detail::validCount(xf, d, keepdim);
  return r.to(x.dtype());
}

Value max(const Value &x, int dim, bool keepdim, SourceLoc loc) {
  CallSite site("max", loc);
  int d = detail::normalizeDim(x, dim, "max");
  requireNumbers(x, "max");
  return detail::maskedMax(x, d, keepdim);
}

Value min(const Value &x, int dim, bool keepdim, SourceLoc loc) {
  CallSite site("min", loc);
  int d = detail::normalizeDim(x, dim, "min");
  requireNumbers(x, "min");
  return detail::maskedReduce(
      x, d, keepdim, [](Value a, Value b) { return minimum(a, b); },
      extreme(x.dtype(), /*lowest=*/false));
}

/// argmax/argmin: reduces (value, index) pairs; ties go to the lower index
/// and NaN beats every number, as in PyTorch. Padding lanes carry the
/// neutral value and the largest index, so they never win a tie.
static Value argExtreme(const Value &x, int dim, bool keepdim, bool isMax,
                        std::string_view op) {
  int d = detail::normalizeDim(x, dim, op);
  requireNumbers(x, op);
  Kernel k = x.kernel();
  std::vector<int64_t> shape = x.shape();
  std::vector<int64_t> idxShape(shape.size(), 1);
  idxShape[d] = shape[d];
  Value idx = k.range(shape[d]);
  if (shape.size() > 1)
    idx = idx.reshape(idxShape);
  idx = idx.broadcastTo(shape);
  std::vector<Padding> along = masksAlong(x, d);
  Value v = x;
  if (!along.empty()) {
    Value valid = conjunction(along);
    v = where(valid, x, extreme(x.dtype(), isMax));
    idx = where(valid, idx, INT32_MAX);
  }
  for (const Padding &p : x.padding())
    idx = idx.maskedBy(p.valid, p.count);
  bool floats = isFloat(x.dtype());
  auto combiner = [isMax, floats](std::vector<Value> acc,
                                  std::vector<Value> cur) {
    Value a = acc[0], ia = acc[1], b = cur[0], ib = cur[1];
    Value better = isMax ? b > a : b < a;
    Value tie = b == a;
    if (floats) {
      Value aNaN = a != a, bNaN = b != b;
      better = better | (bNaN & !aNaN);
      tie = tie | (aNaN & bNaN);
    }
    Value pick = better | (tie & (ib < ia));
    return std::vector<Value>{where(pick, b, a), where(pick, ib, ia)};
  };
  return k.reduce({v, idx}, d, combiner, keepdim)[1];
}

Value argmax(const Value &x, int dim, bool keepdim, SourceLoc loc) {
  CallSite site("argmax", loc);
  return argExtreme(x, dim, keepdim, /*isMax=*/true, "argmax");
}

Value argmin(const Value &x, int dim, bool keepdim, SourceLoc loc) {
  CallSite site("argmin", loc);
  return argExtreme(x, dim, keepdim, /*isMax=*/false, "argmin");
}

Value var(const Value &x, int dim, int correction, bool keepdim,
          SourceLoc loc) {
  CallSite site("var", loc);
  int d = detail::normalizeDim(x, dim, "var");
  detail::requireFloat(x, "var");
  Value xf = detail::opmath(x);
  bool keep = x.rank() > 1;
  Value mu = detail::maskedSum(xf, d, keep) / detail::validCount(xf, d, keep);
  Value centered = xf - mu;
  Value ss = detail::maskedSum(centered * centered, d, keepdim);
  Value r = ss / (detail::validCount(xf, d, keepdim) - correction);
  return r.to(x.dtype());
}

} // namespace tilec::ops
