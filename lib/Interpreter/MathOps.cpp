//===- MathOps.cpp - the math dialect -------------------------------------===//
//
// Functions are evaluated in double and rounded once to the result type, so
// results are at least as accurate as the GPU's (whose fast approximations
// may differ in the last bits of f32): compare with a tolerance.
//
//===----------------------------------------------------------------------===//

#include "Elementwise.h"
#include "Executor.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <bit>
#include <cmath>

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;

namespace {

template <double (*Fn)(double)>
LogicalResult floatUnary(Executor &ex, Operation *op) {
  Type type = resultElementType(op);
  RoundFn round = getRoundFn(formatOf(type));
  ex.set(op->getResult(0),
         map1<double, double>(type, ex.get(op->getOperand(0)),
                              [&](double a) { return round(Fn(a)); }));
  return success();
}

template <double (*Fn)(double, double)>
LogicalResult floatBinary(Executor &ex, Operation *op) {
  Type type = resultElementType(op);
  RoundFn round = getRoundFn(formatOf(type));
  ex.set(op->getResult(0),
         map2<double, double, double>(
             type, ex.get(op->getOperand(0)), ex.get(op->getOperand(1)),
             [&](double a, double b) { return round(Fn(a, b)); }));
  return success();
}

template <double (*Fn)(double, double, double)>
LogicalResult floatTernary(Executor &ex, Operation *op) {
  Type type = resultElementType(op);
  RoundFn round = getRoundFn(formatOf(type));
  ex.set(op->getResult(0),
         map3<double, double, double, double>(
             type, ex.get(op->getOperand(0)), ex.get(op->getOperand(1)),
             ex.get(op->getOperand(2)),
             [&](double a, double b, double c) { return round(Fn(a, b, c)); }));
  return success();
}

/// Float classification ops (isnan, ...) give i1.
template <bool (*Fn)(double)>
LogicalResult floatPredicate(Executor &ex, Operation *op) {
  ex.set(op->getResult(0),
         map1<int64_t, double>(
             resultElementType(op), ex.get(op->getOperand(0)),
             [](double a) -> int64_t { return Fn(a) ? -1 : 0; }));
  return success();
}

/// Integer unary ops see the width-bit unsigned pattern.
template <int64_t (*Fn)(uint64_t, unsigned)>
LogicalResult intUnary(Executor &ex, Operation *op) {
  Type type = resultElementType(op);
  unsigned w = intWidth(type);
  ex.set(op->getResult(0), map1<int64_t, int64_t>(
                               type, ex.get(op->getOperand(0)), [&](int64_t a) {
                                 return wrapInt(Fn(unsignedInt(a, w), w), w);
                               }));
  return success();
}

double rsqrt(double x) { return 1.0 / std::sqrt(x); }

/// math.exp2; with fastmath<afn> on f32 (the builder's exp2Ftz) results
/// below 2^-126 are 0, as ex2.approx.ftz gives them on the GPU.
LogicalResult executeExp2(Executor &ex, Operation *op) {
  auto e = cast<math::Exp2Op>(op);
  Type type = resultElementType(op);
  bool ftz = type.isF32() && arith::bitEnumContainsAll(
                                 e.getFastmath(), arith::FastMathFlags::afn);
  RoundFn round = getRoundFn(formatOf(type));
  ex.set(op->getResult(0),
         map1<double, double>(type, ex.get(op->getOperand(0)), [&](double a) {
           double r = round(std::exp2(a));
           return ftz && std::fabs(r) < 0x1p-126 ? 0.0 : r;
         }));
  return success();
}
double roundEven(double x) { return std::nearbyint(x); }
double absf(double x) { return std::fabs(x); }
double fma3(double a, double b, double c) { return std::fma(a, b, c); }
double clampf(double x, double lo, double hi) {
  return std::fmin(std::fmax(x, lo), hi);
}
bool isNaN(double x) { return std::isnan(x); }
bool isInf(double x) { return std::isinf(x); }
bool isFinite(double x) { return std::isfinite(x); }

int64_t ctlz(uint64_t v, unsigned w) {
  return v == 0 ? w : std::countl_zero(v) - (64 - w);
}
int64_t cttz(uint64_t v, unsigned w) {
  return v == 0 ? w : std::countr_zero(v);
}
int64_t ctpop(uint64_t v, unsigned) { return std::popcount(v); }
int64_t absi(uint64_t v, unsigned w) {
  int64_t s = wrapInt(int64_t(v), w);
  return s < 0 ? int64_t(-uint64_t(s)) : s;
}

/// The format's smallest normal magnitude, for isnormal.
LogicalResult executeIsNormal(Executor &ex, Operation *op) {
  Type src = getElementTypeOrSelf(op->getOperand(0));
  double minNormal =
      APFloat::getSmallestNormalized(cast<FloatType>(src).getFloatSemantics())
          .convertToDouble();
  ex.set(op->getResult(0),
         map1<int64_t, double>(
             resultElementType(op), ex.get(op->getOperand(0)),
             [&](double a) -> int64_t {
               return std::isfinite(a) && std::fabs(a) >= minNormal ? -1 : 0;
             }));
  return success();
}

/// math.fpowi: float base, integer exponent.
LogicalResult executeFPowI(Executor &ex, Operation *op) {
  Type type = resultElementType(op);
  RoundFn round = getRoundFn(formatOf(type));
  ex.set(op->getResult(0),
         map2<double, double, int64_t>(type, ex.get(op->getOperand(0)),
                                       ex.get(op->getOperand(1)),
                                       [&](double a, int64_t b) {
                                         return round(std::pow(a, double(b)));
                                       }));
  return success();
}

/// math.ipowi: integer power, wrapping; negative exponents give 0 except for
/// bases 1 and -1 (the integer part of the real result).
LogicalResult executeIPowI(Executor &ex, Operation *op) {
  Type type = resultElementType(op);
  unsigned w = intWidth(type);
  ex.set(op->getResult(0),
         map2<int64_t, int64_t, int64_t>(
             type, ex.get(op->getOperand(0)), ex.get(op->getOperand(1)),
             [&](int64_t base, int64_t exp) -> int64_t {
               if (exp < 0)
                 return base == 1 ? 1 : base == -1 ? (exp & 1 ? -1 : 1) : 0;
               uint64_t result = 1, b = uint64_t(base);
               for (; exp; exp >>= 1, b *= b)
                 if (exp & 1)
                   result *= b;
               return wrapInt(int64_t(result), w);
             }));
  return success();
}

} // namespace

void interp::registerMathHandlers(HandlerTable &t) {
  addHandler<math::AbsFOp>(t, floatUnary<absf>);
  addHandler<math::AcosOp>(t, floatUnary<std::acos>);
  addHandler<math::AcoshOp>(t, floatUnary<std::acosh>);
  addHandler<math::AsinOp>(t, floatUnary<std::asin>);
  addHandler<math::AsinhOp>(t, floatUnary<std::asinh>);
  addHandler<math::AtanOp>(t, floatUnary<std::atan>);
  addHandler<math::AtanhOp>(t, floatUnary<std::atanh>);
  addHandler<math::CbrtOp>(t, floatUnary<std::cbrt>);
  addHandler<math::CeilOp>(t, floatUnary<std::ceil>);
  addHandler<math::CosOp>(t, floatUnary<std::cos>);
  addHandler<math::CoshOp>(t, floatUnary<std::cosh>);
  addHandler<math::ErfOp>(t, floatUnary<std::erf>);
  addHandler<math::ErfcOp>(t, floatUnary<std::erfc>);
  addHandler<math::ExpOp>(t, floatUnary<std::exp>);
  addHandler<math::Exp2Op>(t, executeExp2);
  addHandler<math::ExpM1Op>(t, floatUnary<std::expm1>);
  addHandler<math::FloorOp>(t, floatUnary<std::floor>);
  addHandler<math::LogOp>(t, floatUnary<std::log>);
  addHandler<math::Log10Op>(t, floatUnary<std::log10>);
  addHandler<math::Log1pOp>(t, floatUnary<std::log1p>);
  addHandler<math::Log2Op>(t, floatUnary<std::log2>);
  addHandler<math::RoundOp>(t, floatUnary<std::round>);
  addHandler<math::RoundEvenOp>(t, floatUnary<roundEven>);
  addHandler<math::RsqrtOp>(t, floatUnary<rsqrt>);
  addHandler<math::SinOp>(t, floatUnary<std::sin>);
  addHandler<math::SinhOp>(t, floatUnary<std::sinh>);
  addHandler<math::SqrtOp>(t, floatUnary<std::sqrt>);
  addHandler<math::TanOp>(t, floatUnary<std::tan>);
  addHandler<math::TanhOp>(t, floatUnary<std::tanh>);
  addHandler<math::TruncOp>(t, floatUnary<std::trunc>);
  addHandler<math::Atan2Op>(t, floatBinary<std::atan2>);
  addHandler<math::CopySignOp>(t, floatBinary<std::copysign>);
  addHandler<math::PowFOp>(t, floatBinary<std::pow>);
  addHandler<math::FmaOp>(t, floatTernary<fma3>);
  addHandler<math::ClampFOp>(t, floatTernary<clampf>);
  addHandler<math::IsNaNOp>(t, floatPredicate<isNaN>);
  addHandler<math::IsInfOp>(t, floatPredicate<isInf>);
  addHandler<math::IsFiniteOp>(t, floatPredicate<isFinite>);
  addHandler<math::IsNormalOp>(t, executeIsNormal);
  addHandler<math::AbsIOp>(t, intUnary<absi>);
  addHandler<math::CountLeadingZerosOp>(t, intUnary<ctlz>);
  addHandler<math::CountTrailingZerosOp>(t, intUnary<cttz>);
  addHandler<math::CtPopOp>(t, intUnary<ctpop>);
  addHandler<math::FPowIOp>(t, executeFPowI);
  addHandler<math::IPowIOp>(t, executeIPowI);
}
