//===- CastOps.cpp - arith casts ------------------------------------------===//
//
// Float-to-integer casts saturate and give 0 for NaN (PTX cvt.rzi does);
// integer-to-float casts round to nearest even; truncf honours its
// roundingmode. arith.bitcast reinterprets the bits of one element.
//
//===----------------------------------------------------------------------===//

#include "Elementwise.h"
#include "Executor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;

namespace {

const Tile &source(Executor &ex, Operation *op) {
  return ex.get(op->getOperand(0));
}

/// Integer-to-integer casts: fn maps the sign-extended source to the result.
template <typename Fn>
LogicalResult intCast(Executor &ex, Operation *op, Fn fn) {
  Type dst = resultElementType(op);
  unsigned srcWidth = intWidth(getElementTypeOrSelf(op->getOperand(0)));
  unsigned dstWidth = intWidth(dst);
  ex.set(op->getResult(0),
         map1<int64_t, int64_t>(dst, source(ex, op), [&](int64_t v) {
           return wrapInt(fn(v, srcWidth), dstWidth);
         }));
  return success();
}

LogicalResult executeExtSI(Executor &ex, Operation *op) {
  return intCast(ex, op, [](int64_t v, unsigned) { return v; });
}
LogicalResult executeExtUI(Executor &ex, Operation *op) {
  return intCast(
      ex, op, [](int64_t v, unsigned w) { return int64_t(unsignedInt(v, w)); });
}

template <bool IsSigned>
LogicalResult executeIntToFloat(Executor &ex, Operation *op) {
  Type dst = resultElementType(op);
  unsigned w = intWidth(getElementTypeOrSelf(op->getOperand(0)));
  RoundFn round = getRoundFn(formatOf(dst));
  ex.set(op->getResult(0),
         map1<double, int64_t>(dst, source(ex, op), [&](int64_t v) {
           return round(IsSigned ? double(v) : double(unsignedInt(v, w)));
         }));
  return success();
}

template <bool IsSigned>
LogicalResult executeFloatToInt(Executor &ex, Operation *op) {
  Type dst = resultElementType(op);
  unsigned w = intWidth(dst);
  // The saturation bounds, as doubles: [-2^(w-1), 2^(w-1) - 1] or
  // [0, 2^w - 1]; the upper ones round up in double for w = 64, hence the
  // explicit comparison against 2^(w-1) / 2^w.
  double limit = std::ldexp(1.0, IsSigned ? int(w) - 1 : int(w));
  ex.set(op->getResult(0),
         map1<int64_t, double>(dst, source(ex, op), [&](double v) -> int64_t {
           if (std::isnan(v))
             return 0;
           v = std::trunc(v);
           if (IsSigned) {
             if (v >= limit)
               return wrapInt(int64_t(uint64_t(limit) - 1), w);
             if (v < -limit)
               return wrapInt(int64_t(-uint64_t(limit)), w);
             return wrapInt(int64_t(v), w);
           }
           if (v <= 0)
             return 0;
           if (v >= limit)
             return -1; // all ones
           return wrapInt(int64_t(uint64_t(v)), w);
         }));
  return success();
}

LogicalResult executeExtF(Executor &ex, Operation *op) {
  // Every value of the narrower type is exact in the wider one.
  ex.set(op->getResult(0),
         map1<double, double>(resultElementType(op), source(ex, op),
                              [](double v) { return v; }));
  return success();
}

RoundMode roundModeOf(std::optional<arith::RoundingMode> mode) {
  if (!mode)
    return RoundMode::NearestEven;
  switch (*mode) {
  case arith::RoundingMode::to_nearest_even:
    return RoundMode::NearestEven;
  case arith::RoundingMode::downward:
    return RoundMode::Downward;
  case arith::RoundingMode::upward:
    return RoundMode::Upward;
  case arith::RoundingMode::toward_zero:
    return RoundMode::TowardZero;
  case arith::RoundingMode::to_nearest_away:
    return RoundMode::NearestAway;
  }
  return RoundMode::NearestEven;
}

LogicalResult executeTruncF(Executor &ex, Operation *op) {
  auto trunc = cast<arith::TruncFOp>(op);
  Type dst = resultElementType(op);
  FloatFormat format = formatOf(dst);
  RoundMode mode = roundModeOf(trunc.getRoundingmode());
  ex.set(op->getResult(0),
         map1<double, double>(dst, source(ex, op), [&](double v) {
           return roundToFormat(v, format, mode);
         }));
  return success();
}

LogicalResult executeBitcast(Executor &ex, Operation *op) {
  Type src = getElementTypeOrSelf(op->getOperand(0));
  Type dst = resultElementType(op);
  std::optional<tilec::DType> srcType = tilec::dtypeOf(src);
  std::optional<tilec::DType> dstType = tilec::dtypeOf(dst);
  if (!srcType || !dstType)
    return ex.error(op) << "the CPU interpreter cannot bitcast " << src
                        << " to " << dst;
  const Tile &in = source(ex, op);
  auto out = makeTile(in.shape, dst);
  unsigned w = intWidth(src);
  for (int64_t i = 0, n = in.size(); i < n; ++i) {
    uint64_t bits = in.isFloat() ? encodeFloat(in.floats[i], *srcType)
                                 : unsignedInt(in.ints[i], w);
    if (out->isFloat())
      out->floats[i] = decodeFloat(bits, *dstType);
    else
      out->ints[i] = wrapInt(int64_t(bits), intWidth(dst));
  }
  ex.set(op->getResult(0), std::move(out));
  return success();
}

} // namespace

void interp::registerCastHandlers(HandlerTable &t) {
  addHandler<arith::ExtSIOp>(t, executeExtSI);
  addHandler<arith::ExtUIOp>(t, executeExtUI);
  addHandler<arith::TruncIOp>(t, executeExtSI); // wrapping does the work
  addHandler<arith::IndexCastOp>(t, executeExtSI);
  addHandler<arith::IndexCastUIOp>(t, executeExtUI);
  addHandler<arith::SIToFPOp>(t, executeIntToFloat<true>);
  addHandler<arith::UIToFPOp>(t, executeIntToFloat<false>);
  addHandler<arith::FPToSIOp>(t, executeFloatToInt<true>);
  addHandler<arith::FPToUIOp>(t, executeFloatToInt<false>);
  addHandler<arith::ExtFOp>(t, executeExtF);
  addHandler<arith::TruncFOp>(t, executeTruncF);
  addHandler<arith::BitcastOp>(t, executeBitcast);
}
