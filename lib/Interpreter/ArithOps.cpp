//===- ArithOps.cpp - arith arithmetic, comparisons, select, constants ----===//
//
// Float results are rounded to the result's type after every op (f16 and
// bf16 ops round as the GPU's do); integer results wrap to their width.
// Division by zero is not an error (masked-off lanes often divide by zero on
// the GPU): x / 0 gives all ones and x % 0 gives x, as PTX's div and rem do;
// INT_MIN / -1 wraps. Shifts by the width or more give 0 (or the sign for
// shrsi), as PTX's clamped shifts do.
//
//===----------------------------------------------------------------------===//

#include "Elementwise.h"
#include "Executor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;

namespace {

/// Float binary op: out = round(fn(a, b)).
template <typename OpTy, typename Fn>
LogicalResult floatBinary(Executor &ex, Operation *op, Fn fn) {
  Type type = resultElementType(op);
  RoundFn round = getRoundFn(formatOf(type));
  ex.set(op->getResult(0),
         map2<double, double, double>(
             type, ex.get(op->getOperand(0)), ex.get(op->getOperand(1)),
             [&](double a, double b) { return round(fn(a, b)); }));
  return success();
}

/// Integer binary op: out = wrap(fn(a, b, width)); fn sees sign-extended
/// operands and the width, for the unsigned readings.
template <typename Fn>
LogicalResult intBinary(Executor &ex, Operation *op, Fn fn) {
  Type type = resultElementType(op);
  unsigned width = intWidth(type);
  ex.set(op->getResult(0),
         map2<int64_t, int64_t, int64_t>(
             type, ex.get(op->getOperand(0)), ex.get(op->getOperand(1)),
             [&](int64_t a, int64_t b) {
               return wrapInt(fn(a, b, width), width);
             }));
  return success();
}

template <typename OpTy, typename Fn> void addFloat(HandlerTable &t, Fn) {
  addHandler<OpTy>(t, [](Executor &ex, Operation *op) {
    return floatBinary<OpTy>(ex, op, Fn());
  });
}
template <typename OpTy, typename Fn> void addInt(HandlerTable &t, Fn) {
  addHandler<OpTy>(
      t, [](Executor &ex, Operation *op) { return intBinary(ex, op, Fn()); });
}

int64_t signedMin(unsigned w) { return wrapInt(int64_t(1) << (w - 1), w); }

int64_t divSigned(int64_t a, int64_t b, unsigned w) {
  if (b == 0)
    return -1;
  if (b == -1 && a == signedMin(w))
    return a;
  return a / b;
}
int64_t remSigned(int64_t a, int64_t b, unsigned w) {
  if (b == 0)
    return a;
  if (b == -1)
    return 0;
  return a % b;
}
uint64_t divUnsigned(int64_t a, int64_t b, unsigned w) {
  uint64_t ua = unsignedInt(a, w), ub = unsignedInt(b, w);
  return ub == 0 ? ~uint64_t(0) : ua / ub;
}
uint64_t remUnsigned(int64_t a, int64_t b, unsigned w) {
  uint64_t ua = unsignedInt(a, w), ub = unsignedInt(b, w);
  return ub == 0 ? ua : ua % ub;
}

bool compareInt(arith::CmpIPredicate pred, int64_t a, int64_t b, unsigned w) {
  uint64_t ua = unsignedInt(a, w), ub = unsignedInt(b, w);
  switch (pred) {
  case arith::CmpIPredicate::eq:
    return a == b;
  case arith::CmpIPredicate::ne:
    return a != b;
  case arith::CmpIPredicate::slt:
    return a < b;
  case arith::CmpIPredicate::sle:
    return a <= b;
  case arith::CmpIPredicate::sgt:
    return a > b;
  case arith::CmpIPredicate::sge:
    return a >= b;
  case arith::CmpIPredicate::ult:
    return ua < ub;
  case arith::CmpIPredicate::ule:
    return ua <= ub;
  case arith::CmpIPredicate::ugt:
    return ua > ub;
  case arith::CmpIPredicate::uge:
    return ua >= ub;
  }
  return false;
}

bool compareFloat(arith::CmpFPredicate pred, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  using P = arith::CmpFPredicate;
  switch (pred) {
  case P::AlwaysFalse:
    return false;
  case P::OEQ:
    return !unordered && a == b;
  case P::OGT:
    return !unordered && a > b;
  case P::OGE:
    return !unordered && a >= b;
  case P::OLT:
    return !unordered && a < b;
  case P::OLE:
    return !unordered && a <= b;
  case P::ONE:
    return !unordered && a != b;
  case P::ORD:
    return !unordered;
  case P::UEQ:
    return unordered || a == b;
  case P::UGT:
    return unordered || a > b;
  case P::UGE:
    return unordered || a >= b;
  case P::ULT:
    return unordered || a < b;
  case P::ULE:
    return unordered || a <= b;
  case P::UNE:
    return unordered || a != b;
  case P::UNO:
    return unordered;
  case P::AlwaysTrue:
    return true;
  }
  return false;
}

/// IEEE maximum/minimum: NaN wins, -0 < +0.
double maximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double minimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

LogicalResult executeCmpI(Executor &ex, Operation *op) {
  auto cmp = cast<arith::CmpIOp>(op);
  auto pred = cmp.getPredicate();
  unsigned w = intWidth(getElementTypeOrSelf(cmp.getLhs().getType()));
  ex.set(cmp.getResult(),
         map2<int64_t, int64_t, int64_t>(
             resultElementType(op), ex.get(cmp.getLhs()), ex.get(cmp.getRhs()),
             [&](int64_t a, int64_t b) -> int64_t {
               return compareInt(pred, a, b, w) ? -1 : 0;
             }));
  return success();
}

LogicalResult executeCmpF(Executor &ex, Operation *op) {
  auto cmp = cast<arith::CmpFOp>(op);
  auto pred = cmp.getPredicate();
  ex.set(cmp.getResult(),
         map2<int64_t, double, double>(
             resultElementType(op), ex.get(cmp.getLhs()), ex.get(cmp.getRhs()),
             [&](double a, double b) -> int64_t {
               return compareFloat(pred, a, b) ? -1 : 0;
             }));
  return success();
}

LogicalResult executeSelect(Executor &ex, Operation *op) {
  auto select = cast<arith::SelectOp>(op);
  const Tile &cond = ex.get(select.getCondition());
  const Tile &a = ex.get(select.getTrueValue());
  const Tile &b = ex.get(select.getFalseValue());
  Type type = resultElementType(op);
  if (a.isFloat())
    ex.set(select.getResult(),
           map3<double, int64_t, double, double>(
               type, cond, a, b,
               [](int64_t c, double x, double y) { return c ? x : y; }));
  else
    ex.set(select.getResult(),
           map3<int64_t, int64_t, int64_t, int64_t>(
               type, cond, a, b,
               [](int64_t c, int64_t x, int64_t y) { return c ? x : y; }));
  return success();
}

/// Multiplies a and b of width w; returns the low and high halves.
std::pair<int64_t, int64_t> mulExtended(int64_t a, int64_t b, unsigned w,
                                        bool isSigned) {
  __int128 x = isSigned ? __int128(a) : __int128(unsignedInt(a, w));
  __int128 y = isSigned ? __int128(b) : __int128(unsignedInt(b, w));
  unsigned __int128 p = (unsigned __int128)(x * y);
  return {wrapInt(int64_t(uint64_t(p)), w),
          wrapInt(int64_t(uint64_t(p >> w)), w)};
}

template <bool IsSigned>
LogicalResult executeMulExtended(Executor &ex, Operation *op) {
  Type type = resultElementType(op);
  unsigned w = intWidth(type);
  const Tile &a = ex.get(op->getOperand(0)), &b = ex.get(op->getOperand(1));
  ex.set(op->getResult(0),
         map2<int64_t, int64_t, int64_t>(type, a, b, [&](int64_t x, int64_t y) {
           return mulExtended(x, y, w, IsSigned).first;
         }));
  ex.set(op->getResult(1),
         map2<int64_t, int64_t, int64_t>(type, a, b, [&](int64_t x, int64_t y) {
           return mulExtended(x, y, w, IsSigned).second;
         }));
  return success();
}

LogicalResult executeAddUIExtended(Executor &ex, Operation *op) {
  Type type = resultElementType(op);
  unsigned w = intWidth(type);
  const Tile &a = ex.get(op->getOperand(0)), &b = ex.get(op->getOperand(1));
  ex.set(op->getResult(0),
         map2<int64_t, int64_t, int64_t>(type, a, b, [&](int64_t x, int64_t y) {
           return wrapInt(int64_t(uint64_t(x) + y), w);
         }));
  ex.set(op->getResult(1),
         map2<int64_t, int64_t, int64_t>(
             resultElementType(op, 1), a, b, [&](int64_t x, int64_t y) {
               uint64_t sum = unsignedInt(x, w) + unsignedInt(y, w);
               bool carry = w == 64 ? sum < uint64_t(x) : (sum >> w) != 0;
               return carry ? int64_t(-1) : int64_t(0);
             }));
  return success();
}

/// The tile of a constant attribute of `type`.
TileRef constantTile(Attribute value, Type type) {
  Type elem = getElementTypeOrSelf(type);
  ArrayRef<int64_t> shape;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    shape = tensor.getShape();
  auto out = makeTile(shape, elem);
  unsigned width = intWidth(elem);
  auto fromAPInt = [&](const APInt &v) {
    return wrapInt(int64_t(v.getSExtValue()), width);
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (out->isFloat()) {
      int64_t i = 0;
      if (dense.isSplat()) {
        std::fill(out->floats.begin(), out->floats.end(),
                  dense.getSplatValue<APFloat>().convertToDouble());
      } else {
        for (const APFloat &v : dense.getValues<APFloat>())
          out->floats[i++] = v.convertToDouble();
      }
    } else {
      int64_t i = 0;
      if (dense.isSplat()) {
        std::fill(out->ints.begin(), out->ints.end(),
                  fromAPInt(dense.getSplatValue<APInt>()));
      } else {
        for (const APInt &v : dense.getValues<APInt>())
          out->ints[i++] = fromAPInt(v);
      }
    }
  } else if (auto f = dyn_cast<FloatAttr>(value)) {
    out->floats[0] = f.getValue().convertToDouble();
  } else if (auto i = dyn_cast<IntegerAttr>(value)) {
    out->ints[0] = fromAPInt(i.getValue());
  } else {
    return nullptr;
  }
  return out;
}

LogicalResult executeConstant(Executor &ex, Operation *op) {
  auto constant = cast<arith::ConstantOp>(op);
  TileRef &cached = ex.constants[op];
  if (!cached) {
    cached = constantTile(constant.getValue(), constant.getType());
    if (!cached)
      return ex.error(op) << "the CPU interpreter does not support the "
                             "constant "
                          << constant.getValue();
  }
  ex.set(constant.getResult(), cached);
  return success();
}

// Functors of the simple binary ops (default-constructible for addFloat).
struct AddF {
  double operator()(double a, double b) const { return a + b; }
};
struct SubF {
  double operator()(double a, double b) const { return a - b; }
};
struct MulF {
  double operator()(double a, double b) const { return a * b; }
};
struct DivF {
  double operator()(double a, double b) const { return a / b; }
};
struct RemF {
  double operator()(double a, double b) const { return std::fmod(a, b); }
};
struct MaxNumF {
  double operator()(double a, double b) const { return std::fmax(a, b); }
};
struct MinNumF {
  double operator()(double a, double b) const { return std::fmin(a, b); }
};
struct MaximumF {
  double operator()(double a, double b) const { return maximum(a, b); }
};
struct MinimumF {
  double operator()(double a, double b) const { return minimum(a, b); }
};

#define INT_FUNCTOR(Name, Expr)                                                \
  struct Name {                                                                \
    int64_t operator()(int64_t a, int64_t b, unsigned w) const {               \
      (void)w;                                                                 \
      return Expr;                                                             \
    }                                                                          \
  };
INT_FUNCTOR(AddI, int64_t(uint64_t(a) + uint64_t(b)))
INT_FUNCTOR(SubI, int64_t(uint64_t(a) - uint64_t(b)))
INT_FUNCTOR(MulI, int64_t(uint64_t(a) * uint64_t(b)))
INT_FUNCTOR(AndI, (a & b))
INT_FUNCTOR(OrI, a | b)
INT_FUNCTOR(XOrI, a ^ b)
INT_FUNCTOR(MaxSI, std::max(a, b))
INT_FUNCTOR(MinSI, std::min(a, b))
INT_FUNCTOR(MaxUI, unsignedInt(a, w) > unsignedInt(b, w) ? a : b)
INT_FUNCTOR(MinUI, unsignedInt(a, w) < unsignedInt(b, w) ? a : b)
INT_FUNCTOR(DivSI, divSigned(a, b, w))
INT_FUNCTOR(RemSI, remSigned(a, b, w))
INT_FUNCTOR(DivUI, int64_t(divUnsigned(a, b, w)))
INT_FUNCTOR(RemUI, int64_t(remUnsigned(a, b, w)))
INT_FUNCTOR(CeilDivUI,
            int64_t(divUnsigned(a, b, w) +
                    (remUnsigned(a, b, w) != 0 && unsignedInt(b, w) != 0)))
INT_FUNCTOR(CeilDivSI,
            divSigned(a, b, w) +
                (b != 0 && remSigned(a, b, w) != 0 && ((a < 0) == (b < 0))))
INT_FUNCTOR(FloorDivSI,
            divSigned(a, b, w) -
                (b != 0 && remSigned(a, b, w) != 0 && ((a < 0) != (b < 0))))
INT_FUNCTOR(ShLI, unsignedInt(b, w) >= w ? 0 : int64_t(uint64_t(a) << b))
INT_FUNCTOR(ShRUI, unsignedInt(b, w) >= w ? 0 : int64_t(unsignedInt(a, w) >> b))
INT_FUNCTOR(ShRSI, unsignedInt(b, w) >= w ? (a < 0 ? -1 : 0) : a >> b)
#undef INT_FUNCTOR

} // namespace

void interp::registerArithHandlers(HandlerTable &t) {
  addFloat<arith::AddFOp>(t, AddF());
  addFloat<arith::SubFOp>(t, SubF());
  addFloat<arith::MulFOp>(t, MulF());
  addFloat<arith::DivFOp>(t, DivF());
  addFloat<arith::RemFOp>(t, RemF());
  addFloat<arith::MaxNumFOp>(t, MaxNumF());
  addFloat<arith::MinNumFOp>(t, MinNumF());
  addFloat<arith::MaximumFOp>(t, MaximumF());
  addFloat<arith::MinimumFOp>(t, MinimumF());
  addHandler<arith::NegFOp>(t, [](Executor &ex, Operation *op) {
    ex.set(op->getResult(0), map1<double, double>(resultElementType(op),
                                                  ex.get(op->getOperand(0)),
                                                  [](double a) { return -a; }));
    return success();
  });
  addInt<arith::AddIOp>(t, AddI());
  addInt<arith::SubIOp>(t, SubI());
  addInt<arith::MulIOp>(t, MulI());
  addInt<arith::AndIOp>(t, AndI());
  addInt<arith::OrIOp>(t, OrI());
  addInt<arith::XOrIOp>(t, XOrI());
  addInt<arith::MaxSIOp>(t, MaxSI());
  addInt<arith::MinSIOp>(t, MinSI());
  addInt<arith::MaxUIOp>(t, MaxUI());
  addInt<arith::MinUIOp>(t, MinUI());
  addInt<arith::DivSIOp>(t, DivSI());
  addInt<arith::RemSIOp>(t, RemSI());
  addInt<arith::DivUIOp>(t, DivUI());
  addInt<arith::RemUIOp>(t, RemUI());
  addInt<arith::CeilDivSIOp>(t, CeilDivSI());
  addInt<arith::CeilDivUIOp>(t, CeilDivUI());
  addInt<arith::FloorDivSIOp>(t, FloorDivSI());
  addInt<arith::ShLIOp>(t, ShLI());
  addInt<arith::ShRUIOp>(t, ShRUI());
  addInt<arith::ShRSIOp>(t, ShRSI());
  addHandler<arith::MulSIExtendedOp>(t, executeMulExtended<true>);
  addHandler<arith::MulUIExtendedOp>(t, executeMulExtended<false>);
  addHandler<arith::AddUIExtendedOp>(t, executeAddUIExtended);
  addHandler<arith::CmpIOp>(t, executeCmpI);
  addHandler<arith::CmpFOp>(t, executeCmpF);
  addHandler<arith::SelectOp>(t, executeSelect);
  addHandler<arith::ConstantOp>(t, executeConstant);
}
