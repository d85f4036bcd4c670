//===- Values.cpp - Value, promotion, broadcasting, operators, math -------===//
//
// Every elementwise entry follows one path: resolve the operands (Values are
// checked usable, numbers stay weak), promote their dtypes as PyTorch does,
// broadcast them to a common shape as NumPy does, then build one arith/math
// op. Errors are raised before any op exists; the padding masks of the
// operands are merged into the result's.
//
//===----------------------------------------------------------------------===//

#include "Detail.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
namespace tilec {
using namespace detail;

/// The kernel of `v` for a read-only query, failing on null or broken.
static KernelImpl &queryOwner(const Value &v, const Site &s) {
  if (v.isNull())
    throw BuildError(s.loc.file_name(), s.loc.line(), s.loc.column(), s.op,
                     "the Value is null (default-constructed)");
  KernelImpl &k = *Access::impl(v);
  k.checkUsable(s);
  return k;
}

static bool isPtr(Type t) {
  return isa<tile::PointerType>(getElementTypeOrSelf(t));
}

static int64_t rankOf(Type t) {
  if (auto r = dyn_cast<RankedTensorType>(t))
    return r.getRank();
  return 0;
}

static Type withShape(ArrayRef<int64_t> shape, Type elem) {
  if (shape.empty())
    return elem;
  return RankedTensorType::get(shape, elem);
}

//===----------------------------------------------------------------------===//
// IR helpers
//===----------------------------------------------------------------------===//

mlir::Value detail::broadcastTo(KernelImpl &k, mlir::Value v,
                                ArrayRef<int64_t> shape, const Site &s) {
  Type type = v.getType();
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    if (shape.empty())
      return v;
    return k.create<tile::SplatOp>(s, RankedTensorType::get(shape, type), v);
  }
  if (tensor.getShape() == shape)
    return v;
  Type elem = tensor.getElementType();
  SmallVector<int64_t> current(tensor.getShape());
  while (current.size() < shape.size()) {
    current.insert(current.begin(), 1);
    v = k.create<tile::ExpandDimsOp>(s, RankedTensorType::get(current, elem), v,
                                     0);
  }
  if (ArrayRef<int64_t>(current) != shape)
    v = k.create<tile::BroadcastOp>(s, RankedTensorType::get(shape, elem), v);
  return v;
}

mlir::Value detail::castTo(KernelImpl &k, mlir::Value v, Type elem,
                           const Site &s) {
  Type src = getElementTypeOrSelf(v.getType());
  if (src == elem)
    return v;
  Type result = tile::withElementType(v.getType(), elem);
  unsigned sw = src.getIntOrFloatBitWidth(), dw = elem.getIntOrFloatBitWidth();
  bool sf = isa<FloatType>(src), df = isa<FloatType>(elem);
  if (sf && df) {
    if (sw < dw)
      return k.create<arith::ExtFOp>(s, result, v);
    if (sw > dw)
      return k.create<arith::TruncFOp>(s, result, v);
    // Same width, other format (f16 <-> bf16): through f32, exactly.
    mlir::Value wide = castTo(k, v, k.builder.getF32Type(), s);
    return k.create<arith::TruncFOp>(s, result, wide);
  }
  if (!sf && !df) {
    if (dw == 1) {
      mlir::Value zero =
          constant(k, Operand(0), src, tile::getShapeOrEmpty(v.getType()), s);
      return k.create<arith::CmpIOp>(s, arith::CmpIPredicate::ne, v, zero);
    }
    if (sw == 1)
      return k.create<arith::ExtUIOp>(s, result, v);
    if (sw < dw)
      return k.create<arith::ExtSIOp>(s, result, v);
    return k.create<arith::TruncIOp>(s, result, v);
  }
  if (df)
    return sw == 1 ? (mlir::Value)k.create<arith::UIToFPOp>(s, result, v)
                   : (mlir::Value)k.create<arith::SIToFPOp>(s, result, v);
  if (dw == 1) {
    // PyTorch's bool(x): nonzero, NaN included.
    mlir::Value zero =
        constant(k, Operand(0.0), src, tile::getShapeOrEmpty(v.getType()), s);
    return k.create<arith::CmpFOp>(s, arith::CmpFPredicate::UNE, v, zero);
  }
  return k.create<arith::FPToSIOp>(s, result, v);
}

/// The text of a number for errors.
static std::string numberStr(const Operand &n) {
  switch (n.kind()) {
  case Operand::Kind::Bool:
    return n.intValue() ? "true" : "false";
  case Operand::Kind::Int:
    return std::to_string(n.intValue());
  case Operand::Kind::Unsigned:
    return std::to_string(n.unsignedValue());
  case Operand::Kind::Float: {
    std::string s = std::to_string(n.floatValue());
    return s;
  }
  case Operand::Kind::Value:
    break;
  }
  return "?";
}

mlir::Value detail::constant(KernelImpl &k, const Operand &number, Type elem,
                             ArrayRef<int64_t> shape, const Site &s) {
  TypedAttr attr;
  std::string typeName = typeStr(elem);
  if (auto it = dyn_cast<IntegerType>(elem)) {
    unsigned w = it.getWidth();
    uint64_t bits = 0;
    bool fits = true;
    switch (number.kind()) {
    case Operand::Kind::Bool:
      bits = number.intValue();
      break;
    case Operand::Kind::Int: {
      int64_t v = number.intValue();
      bits = static_cast<uint64_t>(v);
      // Signed values, or unsigned bit patterns (0xD2511F53 for i32).
      if (w == 1)
        fits = v == 0 || v == 1;
      else if (w < 64)
        fits = v >= -(int64_t(1) << (w - 1)) && v < (int64_t(1) << w);
      break;
    }
    case Operand::Kind::Unsigned:
      bits = number.unsignedValue();
      fits = w == 64 || bits < (uint64_t(1) << w);
      break;
    case Operand::Kind::Float: {
      double f = number.floatValue();
      if (!std::isfinite(f) || f != std::trunc(f))
        k.fail(s, "the number " + numberStr(number) +
                      " is not an integer and cannot be an " + typeName);
      fits = w == 64 ? std::abs(f) < 9.2e18
                     : (f >= -std::ldexp(1.0, w - 1) && f < std::ldexp(1.0, w));
      bits = static_cast<uint64_t>(static_cast<int64_t>(f));
      break;
    }
    case Operand::Kind::Value:
      llvm_unreachable("constant() takes numbers; callers resolve Values");
    }
    if (!fits)
      k.fail(s, "the number " + numberStr(number) + " does not fit in " +
                    typeName);
    attr = IntegerAttr::get(elem, APInt(w, bits, /*isSigned=*/false,
                                        /*implicitTrunc=*/true));
  } else {
    auto ft = cast<FloatType>(elem);
    double f = number.kind() == Operand::Kind::Float ? number.floatValue()
               : number.kind() == Operand::Kind::Unsigned
                   ? static_cast<double>(number.unsignedValue())
                   : static_cast<double>(number.intValue());
    APFloat value(f);
    bool lost = false;
    (void)value.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                        &lost);
    if (std::isfinite(f) && (value.isInfinity() || value.isNaN()))
      k.fail(s, "the number " + numberStr(number) + " overflows " + typeName);
    attr = FloatAttr::get(elem, value);
  }
  if (!shape.empty())
    attr = DenseElementsAttr::get(RankedTensorType::get(shape, elem),
                                  ArrayRef<Attribute>(attr));
  return k.create<arith::ConstantOp>(s, attr);
}

std::vector<Pad> detail::padsToRank(KernelImpl &k, const std::vector<Pad> &pads,
                                    int64_t rank, const Site &s) {
  std::vector<Pad> out;
  for (auto [mask, count] : pads) {
    auto type = cast<RankedTensorType>(mask.getType());
    SmallVector<int64_t> shape(type.getShape());
    while ((int64_t)shape.size() < rank) {
      shape.insert(shape.begin(), 1);
      mask = k.create<tile::ExpandDimsOp>(
          s, RankedTensorType::get(shape, type.getElementType()), mask, 0);
    }
    out.emplace_back(mask, count);
  }
  return out;
}

std::vector<Pad> detail::mergePads(const std::vector<Pad> &a,
                                   const std::vector<Pad> &b) {
  std::vector<Pad> out = a;
  for (const Pad &p : b) {
    auto same =
        llvm::find_if(out, [&](const Pad &q) { return q.first == p.first; });
    if (same == out.end())
      out.push_back(p);
    else if (!same->second)
      same->second = p.second; // one mask: keep the count if either knows it
  }
  return out;
}

/// The conjunction of `pads`, broadcast to `shape`; null if there are none.
static mlir::Value combinedMask(KernelImpl &k, const std::vector<Pad> &pads,
                                ArrayRef<int64_t> shape, const Site &s) {
  mlir::Value all;
  for (const Pad &p : pads) {
    mlir::Value m = broadcastTo(k, p.first, shape, s);
    all = all ? (mlir::Value)k.create<arith::AndIOp>(s, all, m) : m;
  }
  return all;
}

//===----------------------------------------------------------------------===//
// Resolution, promotion, broadcasting
//===----------------------------------------------------------------------===//

std::shared_ptr<KernelImpl> detail::resolve(ArrayRef<const Operand *> operands,
                                            SmallVectorImpl<Resolved> &out,
                                            const Site &s) {
  std::shared_ptr<KernelImpl> k;
  for (const Operand *o : operands)
    if (o->kind() == Operand::Kind::Value && !o->value().isNull()) {
      k = Access::impl(o->value());
      break;
    }
  if (!k) {
    bool anyValue = llvm::any_of(operands, [](const Operand *o) {
      return o->kind() == Operand::Kind::Value;
    });
    throw BuildError(s.loc.file_name(), s.loc.line(), s.loc.column(), s.op,
                     anyValue ? "operand is a default-constructed (null) Value"
                              : "needs at least one Value operand (all are "
                                "numbers)");
  }
  for (const Operand *o : operands) {
    Resolved r{o, {}, {}};
    if (o->kind() == Operand::Kind::Value) {
      r.value = k->use(o->value(), s);
      r.pads = Access::pads(o->value());
    }
    out.push_back(std::move(r));
  }
  return k;
}

/// Kind rank of an element type: 0 bool, 1 integer, 2 float.
static int category(Type t) {
  if (t.isInteger(1))
    return 0;
  return isa<FloatType>(t) ? 2 : 1;
}

/// PyTorch's promoteTypes on two element types (either may be null).
static Type promoteTypes(Type a, Type b) {
  if (!a || a == b)
    return b ? b : a;
  if (!b)
    return a;
  int ca = category(a), cb = category(b);
  if (ca != cb)
    return ca > cb ? a : b;
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (wa == wb) // f16 with bf16, or the two f8 formats
    return Float32Type::get(a.getContext());
  return wa > wb ? a : b;
}

/// PyTorch's combine_categories: a higher-priority group's type wins unless
/// a lower-priority group has a higher kind.
static Type combineCategories(Type higher, Type lower) {
  if (!higher)
    return lower;
  if (!lower)
    return higher;
  if (category(higher) == 2)
    return higher;
  if (category(higher) == 0 || category(lower) == 2)
    return promoteTypes(higher, lower);
  return higher;
}

Type detail::promote(KernelImpl &k, ArrayRef<Resolved> operands,
                     const Site &s) {
  Type tiles, scalars, numbers;
  for (const Resolved &r : operands) {
    if (r.isNumber()) {
      Type t;
      switch (r.operand->kind()) {
      case Operand::Kind::Bool:
        t = k.builder.getI1Type();
        break;
      case Operand::Kind::Float:
        t = k.builder.getF32Type();
        break;
      default:
        t = k.builder.getI32Type();
      }
      numbers = promoteTypes(numbers, t);
      continue;
    }
    Type elem = getElementTypeOrSelf(r.value.getType());
    if (isPtr(elem))
      k.fail(s, "cannot compute on pointers (" + typeStr(r.value.getType()) +
                    "); pointers only move by integer offsets (ptr + n)");
    if (isa<RankedTensorType>(r.value.getType()))
      tiles = promoteTypes(tiles, elem);
    else
      scalars = promoteTypes(scalars, elem);
  }
  return combineCategories(tiles, combineCategories(scalars, numbers));
}

/// "128x64xf32 and 32xf32" for errors about several operands.
static std::string describeOperands(ArrayRef<Resolved> operands) {
  std::string s;
  for (const Resolved &r : operands) {
    if (!s.empty())
      s += " and ";
    s += r.isNumber() ? numberStr(*r.operand) : typeStr(r.value.getType());
  }
  return s;
}

SmallVector<int64_t>
detail::commonShape(KernelImpl &k, ArrayRef<Resolved> operands, const Site &s) {
  SmallVector<int64_t> shape;
  for (const Resolved &r : operands) {
    if (r.isNumber())
      continue;
    auto next =
        broadcastShapes(shape, tile::getShapeOrEmpty(r.value.getType()));
    if (!next)
      k.fail(s, "operands " + describeOperands(operands) +
                    " do not broadcast (trailing dimensions must be equal or "
                    "1)");
    shape = *next;
  }
  return shape;
}

mlir::Value detail::materialize(KernelImpl &k, const Resolved &r, Type elem,
                                ArrayRef<int64_t> shape, const Site &s) {
  if (r.isNumber())
    return constant(k, *r.operand, elem, shape, s);
  return broadcastTo(k, castTo(k, r.value, elem, s), shape, s);
}

/// The merged pads of the operands at rank `rank`.
static std::vector<Pad> resultPads(KernelImpl &k, ArrayRef<Resolved> operands,
                                   int64_t rank, const Site &s) {
  std::vector<Pad> pads;
  for (const Resolved &r : operands)
    pads = mergePads(pads, padsToRank(k, r.pads, rank, s));
  return pads;
}

DType resultType(const std::vector<Operand> &operands, SourceLoc loc) {
  Site s = site(loc, "resultType");
  SmallVector<const Operand *> ptrs;
  for (const Operand &o : operands)
    ptrs.push_back(&o);
  SmallVector<Resolved> ops;
  std::shared_ptr<KernelImpl> k = resolve(ptrs, ops, s);
  return *dtypeOf(promote(*k, ops, s));
}

//===----------------------------------------------------------------------===//
// Binary and unary ops
//===----------------------------------------------------------------------===//

namespace {
enum class Bin {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  And,
  Or,
  Xor,
  Shl,
  Shr,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Max,
  Min,
  UMulHi
};
} // namespace

/// `ptr +/- offset`, either order for +.
static Value pointerArith(const std::shared_ptr<KernelImpl> &kp, Bin kind,
                          SmallVectorImpl<Resolved> &ops, const Site &s) {
  KernelImpl &k = *kp;
  auto isPtrOperand = [](const Resolved &r) {
    return !r.isNumber() && isPtr(r.value.getType());
  };
  if (kind != Bin::Add && kind != Bin::Sub)
    k.fail(s, "cannot compute on pointers (" + describeOperands(ops) +
                  "); pointers only move by integer offsets (ptr + n, ptr - "
                  "n)");
  if (isPtrOperand(ops[0]) && isPtrOperand(ops[1]))
    k.fail(s, "cannot combine two pointers (" + describeOperands(ops) + ")");
  if (kind == Bin::Sub && !isPtrOperand(ops[0]))
    k.fail(s, "cannot subtract a pointer from a number (" +
                  describeOperands(ops) + ")");
  const Resolved &ptr = isPtrOperand(ops[0]) ? ops[0] : ops[1];
  const Resolved &off = isPtrOperand(ops[0]) ? ops[1] : ops[0];
  Type offElem;
  if (off.isNumber()) {
    if (off.operand->kind() == Operand::Kind::Float)
      k.fail(s, "pointer offset must be an integer, not " +
                    numberStr(*off.operand));
    bool big = off.operand->kind() == Operand::Kind::Unsigned
                   ? off.operand->unsignedValue() > INT32_MAX
                   : off.operand->intValue() > INT32_MAX ||
                         off.operand->intValue() < INT32_MIN;
    offElem = big ? k.builder.getI64Type() : k.builder.getI32Type();
  } else {
    offElem = getElementTypeOrSelf(off.value.getType());
    if (!isa<IntegerType>(offElem))
      k.fail(s, "pointer offset must be an integer, not " +
                    typeStr(off.value.getType()));
    if (offElem.isInteger(1))
      offElem = k.builder.getI32Type();
  }
  SmallVector<int64_t> shape = commonShape(k, ops, s);
  mlir::Value p = broadcastTo(k, ptr.value, shape, s);
  mlir::Value o = materialize(k, off, offElem, shape, s);
  if (kind == Bin::Sub) {
    mlir::Value zero = constant(k, Operand(0), offElem, shape, s);
    o = k.create<arith::SubIOp>(s, zero, o);
  }
  auto result = k.create<tile::AddPtrOp>(s, p.getType(), p, o);
  return Access::wrap(kp, result, resultPads(k, ops, shape.size(), s));
}

static Value binary(Bin kind, const Operand &a, const Operand &b,
                    const Site &s) {
  SmallVector<Resolved> ops;
  std::shared_ptr<KernelImpl> kp = resolve({&a, &b}, ops, s);
  KernelImpl &k = *kp;
  for (const Resolved &r : ops)
    if (!r.isNumber() && isPtr(r.value.getType()))
      return pointerArith(kp, kind, ops, s);

  Type elem = promote(k, ops, s);
  bool isFloat = isa<FloatType>(elem);
  bool isBool = elem.isInteger(1);
  switch (kind) {
  case Bin::And:
  case Bin::Or:
  case Bin::Xor:
  case Bin::Shl:
  case Bin::Shr:
  case Bin::UMulHi:
    if (isFloat)
      k.fail(s, "needs integer or i1 operands, got " + describeOperands(ops));
    if (kind == Bin::UMulHi && !(elem.isInteger(32) || elem.isInteger(64)))
      k.fail(s, "needs i32 or i64 operands, got " + describeOperands(ops));
    if (isBool && (kind == Bin::Shl || kind == Bin::Shr))
      elem = k.builder.getI32Type();
    break;
  case Bin::Add:
  case Bin::Sub:
  case Bin::Mul:
  case Bin::Div:
  case Bin::Rem:
    // As in C++, arithmetic on bools happens on ints.
    if (isBool)
      elem = k.builder.getI32Type();
    break;
  default:
    break;
  }
  isBool = elem.isInteger(1);
  SmallVector<int64_t> shape = commonShape(k, ops, s);
  mlir::Value x = materialize(k, ops[0], elem, shape, s);
  mlir::Value y = materialize(k, ops[1], elem, shape, s);

  mlir::Value r;
  using CF = arith::CmpFPredicate;
  using CI = arith::CmpIPredicate;
  auto cmp = [&](CF f, CI signedPred, CI unsignedPred) -> mlir::Value {
    if (isFloat)
      return k.create<arith::CmpFOp>(s, f, x, y);
    return k.create<arith::CmpIOp>(s, isBool ? unsignedPred : signedPred, x, y);
  };
  switch (kind) {
  case Bin::Add:
    r = isFloat ? (mlir::Value)k.create<arith::AddFOp>(s, x, y)
                : k.create<arith::AddIOp>(s, x, y);
    break;
  case Bin::Sub:
    r = isFloat ? (mlir::Value)k.create<arith::SubFOp>(s, x, y)
                : k.create<arith::SubIOp>(s, x, y);
    break;
  case Bin::Mul:
    r = isFloat ? (mlir::Value)k.create<arith::MulFOp>(s, x, y)
                : k.create<arith::MulIOp>(s, x, y);
    break;
  case Bin::Div:
    r = isFloat ? (mlir::Value)k.create<arith::DivFOp>(s, x, y)
                : k.create<arith::DivSIOp>(s, x, y);
    break;
  case Bin::Rem:
    r = isFloat ? (mlir::Value)k.create<arith::RemFOp>(s, x, y)
                : k.create<arith::RemSIOp>(s, x, y);
    break;
  case Bin::And:
    r = k.create<arith::AndIOp>(s, x, y);
    break;
  case Bin::Or:
    r = k.create<arith::OrIOp>(s, x, y);
    break;
  case Bin::Xor:
    r = k.create<arith::XOrIOp>(s, x, y);
    break;
  case Bin::Shl:
    r = k.create<arith::ShLIOp>(s, x, y);
    break;
  case Bin::Shr:
    r = k.create<arith::ShRSIOp>(s, x, y);
    break;
  case Bin::Eq:
    r = cmp(CF::OEQ, CI::eq, CI::eq);
    break;
  case Bin::Ne:
    r = cmp(CF::UNE, CI::ne, CI::ne);
    break;
  case Bin::Lt:
    r = cmp(CF::OLT, CI::slt, CI::ult);
    break;
  case Bin::Le:
    r = cmp(CF::OLE, CI::sle, CI::ule);
    break;
  case Bin::Gt:
    r = cmp(CF::OGT, CI::sgt, CI::ugt);
    break;
  case Bin::Ge:
    r = cmp(CF::OGE, CI::sge, CI::uge);
    break;
  case Bin::Max:
    r = isFloat  ? (mlir::Value)k.create<arith::MaximumFOp>(s, x, y)
        : isBool ? (mlir::Value)k.create<arith::MaxUIOp>(s, x, y)
                 : (mlir::Value)k.create<arith::MaxSIOp>(s, x, y);
    break;
  case Bin::Min:
    r = isFloat  ? (mlir::Value)k.create<arith::MinimumFOp>(s, x, y)
        : isBool ? (mlir::Value)k.create<arith::MinUIOp>(s, x, y)
                 : (mlir::Value)k.create<arith::MinSIOp>(s, x, y);
    break;
  case Bin::UMulHi:
    r = k.create<arith::MulUIExtendedOp>(s, x, y).getHigh();
    break;
  }
  return Access::wrap(kp, r, resultPads(k, ops, shape.size(), s));
}

#define TILEC_BINARY_OPERATOR(SYM, KIND)                                       \
  Value operator SYM(const Operand &a, const Operand &b) {                     \
    return binary(Bin::KIND, a, b, site(a.loc(), "operator" #SYM));            \
  }
TILEC_BINARY_OPERATOR(+, Add)
TILEC_BINARY_OPERATOR(-, Sub)
TILEC_BINARY_OPERATOR(*, Mul)
TILEC_BINARY_OPERATOR(/, Div)
TILEC_BINARY_OPERATOR(%, Rem)
TILEC_BINARY_OPERATOR(&, And)
TILEC_BINARY_OPERATOR(|, Or)
TILEC_BINARY_OPERATOR(^, Xor)
TILEC_BINARY_OPERATOR(<<, Shl)
TILEC_BINARY_OPERATOR(>>, Shr)
TILEC_BINARY_OPERATOR(==, Eq)
TILEC_BINARY_OPERATOR(!=, Ne)
TILEC_BINARY_OPERATOR(<, Lt)
TILEC_BINARY_OPERATOR(<=, Le)
TILEC_BINARY_OPERATOR(>, Gt)
TILEC_BINARY_OPERATOR(>=, Ge)
#undef TILEC_BINARY_OPERATOR

Value &operator+=(Value &a, const Operand &b) {
  return a = binary(Bin::Add, Operand(a, b.loc()), b,
                    site(b.loc(), "operator+="));
}
Value &operator-=(Value &a, const Operand &b) {
  return a = binary(Bin::Sub, Operand(a, b.loc()), b,
                    site(b.loc(), "operator-="));
}
Value &operator*=(Value &a, const Operand &b) {
  return a = binary(Bin::Mul, Operand(a, b.loc()), b,
                    site(b.loc(), "operator*="));
}
Value &operator/=(Value &a, const Operand &b) {
  return a = binary(Bin::Div, Operand(a, b.loc()), b,
                    site(b.loc(), "operator/="));
}

Value maximum(const Operand &a, const Operand &b, SourceLoc loc) {
  return binary(Bin::Max, a, b, site(loc, "maximum"));
}
Value minimum(const Operand &a, const Operand &b, SourceLoc loc) {
  return binary(Bin::Min, a, b, site(loc, "minimum"));
}
Value umulhi(const Operand &a, const Operand &b, SourceLoc loc) {
  return binary(Bin::UMulHi, a, b, site(loc, "umulhi"));
}

Value cdiv(const Operand &a, const Operand &b, SourceLoc loc) {
  CallSite scope("cdiv", loc);
  Site s = site(loc, "cdiv");
  SmallVector<Resolved> ops;
  std::shared_ptr<KernelImpl> k = resolve({&a, &b}, ops, s);
  if (!isa<IntegerType>(promote(*k, ops, s)))
    k->fail(s, "needs integer operands, got " + describeOperands(ops));
  return (a + b - 1) / b;
}

/// Unary minus, bitwise/logical not.
static Value unary(bool isNeg, const Operand &a, const Site &s) {
  SmallVector<Resolved> ops;
  std::shared_ptr<KernelImpl> kp = resolve({&a}, ops, s);
  KernelImpl &k = *kp;
  mlir::Value x = ops[0].value;
  Type elem = getElementTypeOrSelf(x.getType());
  if (isPtr(elem))
    k.fail(s, "cannot compute on pointers (" + typeStr(x.getType()) + ")");
  ArrayRef<int64_t> shape = tile::getShapeOrEmpty(x.getType());
  mlir::Value r;
  if (isNeg) {
    if (elem.isInteger(1))
      k.fail(s, "cannot negate i1 values; use operator! (logical not)");
    if (isa<FloatType>(elem))
      r = k.create<arith::NegFOp>(s, x);
    else
      r = k.create<arith::SubIOp>(s, constant(k, Operand(0), elem, shape, s),
                                  x);
  } else {
    if (isa<FloatType>(elem))
      k.fail(s, "needs an integer or i1 operand, got " + typeStr(x.getType()));
    Operand ones = elem.isInteger(1) ? Operand(true) : Operand(-1);
    r = k.create<arith::XOrIOp>(s, x, constant(k, ones, elem, shape, s));
  }
  return Access::wrap(kp, r, ops[0].pads);
}

Value operator-(const Operand &a) {
  return unary(true, a, site(a.loc(), "operator-"));
}
Value operator~(const Operand &a) {
  return unary(false, a, site(a.loc(), "operator~"));
}
Value operator!(const Operand &a) {
  return unary(false, a, site(a.loc(), "operator!"));
}

//===----------------------------------------------------------------------===//
// Math
//===----------------------------------------------------------------------===//

namespace {
enum class Fn {
  Exp,
  Exp2,
  Log,
  Log2,
  Log1p,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Tanh,
  Erf,
  Floor,
  Ceil
};
} // namespace

/// A float math function: narrow floats compute in f32 and round back,
/// integers compute in f32 and stay f32.
static Value mathUnary(Fn fn, const Value &xv, const Site &s) {
  Operand a(xv, s.loc);
  SmallVector<Resolved> ops;
  std::shared_ptr<KernelImpl> kp = resolve({&a}, ops, s);
  KernelImpl &k = *kp;
  mlir::Value x = ops[0].value;
  Type elem = getElementTypeOrSelf(x.getType());
  if (isPtr(elem))
    k.fail(s, "needs numbers, got pointers " + typeStr(x.getType()));
  bool isInt = isa<IntegerType>(elem);
  if (isInt && (fn == Fn::Floor || fn == Fn::Ceil))
    return xv;
  Type f32 = k.builder.getF32Type();
  Type compute = isInt || elem.getIntOrFloatBitWidth() < 32 ? f32 : elem;
  Type result = isInt ? f32 : elem;
  mlir::Value c = castTo(k, x, compute, s);
  mlir::Value r;
  switch (fn) {
  case Fn::Exp:
    r = k.create<math::ExpOp>(s, c);
    break;
  case Fn::Exp2:
    r = k.create<math::Exp2Op>(s, c);
    break;
  case Fn::Log:
    r = k.create<math::LogOp>(s, c);
    break;
  case Fn::Log2:
    r = k.create<math::Log2Op>(s, c);
    break;
  case Fn::Log1p:
    r = k.create<math::Log1pOp>(s, c);
    break;
  case Fn::Sqrt:
    r = k.create<math::SqrtOp>(s, c);
    break;
  case Fn::Rsqrt:
    r = k.create<math::RsqrtOp>(s, c);
    break;
  case Fn::Sin:
    r = k.create<math::SinOp>(s, c);
    break;
  case Fn::Cos:
    r = k.create<math::CosOp>(s, c);
    break;
  case Fn::Tanh:
    r = k.create<math::TanhOp>(s, c);
    break;
  case Fn::Erf:
    r = k.create<math::ErfOp>(s, c);
    break;
  case Fn::Floor:
    r = k.create<math::FloorOp>(s, c);
    break;
  case Fn::Ceil:
    r = k.create<math::CeilOp>(s, c);
    break;
  }
  return Access::wrap(kp, castTo(k, r, result, s), ops[0].pads);
}

Value exp2Ftz(const Value &x, SourceLoc loc) {
  Site s = site(loc, "exp2Ftz");
  Value r = mathUnary(Fn::Exp2, x, s);
  // The math.exp2 (the last op, or the one before the rounding back to a
  // narrow float) gets fastmath<afn>.
  mlir::Operation *op = Access::raw(r).getDefiningOp();
  if (op && !isa<math::Exp2Op>(op) && op->getNumOperands() == 1)
    op = op->getOperand(0).getDefiningOp();
  auto e = dyn_cast_if_present<math::Exp2Op>(op);
  if (!e)
    Access::impl(r)->fail(s, "internal: exp2Ftz found no math.exp2");
  e.setFastmath(e.getFastmath() | arith::FastMathFlags::afn);
  return r;
}

#define TILEC_MATH_FN(NAME, FN)                                                \
  Value NAME(const Value &x, SourceLoc loc) {                                  \
    return mathUnary(Fn::FN, x, site(loc, #NAME));                             \
  }
TILEC_MATH_FN(exp, Exp)
TILEC_MATH_FN(exp2, Exp2)
TILEC_MATH_FN(log, Log)
TILEC_MATH_FN(log2, Log2)
TILEC_MATH_FN(log1p, Log1p)
TILEC_MATH_FN(sqrt, Sqrt)
TILEC_MATH_FN(rsqrt, Rsqrt)
TILEC_MATH_FN(sin, Sin)
TILEC_MATH_FN(cos, Cos)
TILEC_MATH_FN(tanh, Tanh)
TILEC_MATH_FN(erf, Erf)
TILEC_MATH_FN(floor, Floor)
TILEC_MATH_FN(ceil, Ceil)
#undef TILEC_MATH_FN

Value abs(const Value &xv, SourceLoc loc) {
  Site s = site(loc, "abs");
  Operand a(xv, loc);
  SmallVector<Resolved> ops;
  std::shared_ptr<KernelImpl> kp = resolve({&a}, ops, s);
  mlir::Value x = ops[0].value;
  Type elem = getElementTypeOrSelf(x.getType());
  if (isPtr(elem))
    kp->fail(s, "needs numbers, got pointers " + typeStr(x.getType()));
  if (elem.isInteger(1))
    return xv;
  mlir::Value r = isa<FloatType>(elem)
                      ? (mlir::Value)kp->create<math::AbsFOp>(s, x)
                      : (mlir::Value)kp->create<math::AbsIOp>(s, x);
  return Access::wrap(kp, r, ops[0].pads);
}

Value pow(const Operand &a, const Operand &b, SourceLoc loc) {
  Site s = site(loc, "pow");
  SmallVector<Resolved> ops;
  std::shared_ptr<KernelImpl> kp = resolve({&a, &b}, ops, s);
  KernelImpl &k = *kp;
  Type elem = promote(k, ops, s);
  SmallVector<int64_t> shape = commonShape(k, ops, s);
  std::vector<Pad> pads = resultPads(k, ops, shape.size(), s);
  Type f32 = k.builder.getF32Type();
  if (isa<IntegerType>(elem)) {
    if (elem.isInteger(1))
      elem = k.builder.getI32Type();
    mlir::Value x = materialize(k, ops[0], elem, shape, s);
    mlir::Value y = materialize(k, ops[1], elem, shape, s);
    return Access::wrap(kp, k.create<math::IPowIOp>(s, x, y), pads);
  }
  Type compute = elem.getIntOrFloatBitWidth() < 32 ? f32 : elem;
  mlir::Value x = materialize(k, ops[0], compute, shape, s);
  mlir::Value r;
  const Operand &e = *ops[1].operand;
  bool integralNumber =
      ops[1].isNumber() && (e.kind() != Operand::Kind::Float ||
                            (std::isfinite(e.floatValue()) &&
                             e.floatValue() == std::trunc(e.floatValue()) &&
                             std::abs(e.floatValue()) < 2147483648.0));
  if (integralNumber) {
    // x ** n exactly for integral n, negative bases included.
    Operand n =
        e.kind() == Operand::Kind::Float ? Operand((int64_t)e.floatValue()) : e;
    mlir::Value y = constant(k, n, k.builder.getI32Type(), shape, s);
    r = k.create<math::FPowIOp>(s, x, y);
  } else {
    mlir::Value y = materialize(k, ops[1], compute, shape, s);
    r = k.create<math::PowFOp>(s, x, y);
  }
  return Access::wrap(kp, castTo(k, r, elem, s), pads);
}

Value fma(const Operand &a, const Operand &b, const Operand &c, SourceLoc loc) {
  Site s = site(loc, "fma");
  SmallVector<Resolved> ops;
  std::shared_ptr<KernelImpl> kp = resolve({&a, &b, &c}, ops, s);
  KernelImpl &k = *kp;
  Type elem = promote(k, ops, s);
  if (!isa<FloatType>(elem))
    k.fail(s, "needs float operands, got " + describeOperands(ops));
  SmallVector<int64_t> shape = commonShape(k, ops, s);
  Type compute =
      elem.getIntOrFloatBitWidth() < 32 ? k.builder.getF32Type() : elem;
  mlir::Value x = materialize(k, ops[0], compute, shape, s);
  mlir::Value y = materialize(k, ops[1], compute, shape, s);
  mlir::Value z = materialize(k, ops[2], compute, shape, s);
  mlir::Value r = k.create<math::FmaOp>(s, x, y, z);
  return Access::wrap(kp, castTo(k, r, elem, s),
                      resultPads(k, ops, shape.size(), s));
}

Value where(const Value &cond, const Operand &a, const Operand &b,
            SourceLoc loc) {
  Site s = site(loc, "where");
  Operand c(cond, loc);
  SmallVector<Resolved> ops;
  std::shared_ptr<KernelImpl> kp = resolve({&c, &a, &b}, ops, s);
  KernelImpl &k = *kp;
  if (!getElementTypeOrSelf(ops[0].value.getType()).isInteger(1))
    k.fail(s, "condition must be i1 (a comparison or mask), got " +
                  typeStr(ops[0].value.getType()));
  SmallVector<int64_t> shape = commonShape(k, ops, s);
  Type elem;
  bool aPtr = !ops[1].isNumber() && isPtr(ops[1].value.getType());
  bool bPtr = !ops[2].isNumber() && isPtr(ops[2].value.getType());
  if (aPtr || bPtr) {
    Type ea = ops[1].isNumber() ? Type()
                                : getElementTypeOrSelf(ops[1].value.getType());
    Type eb = ops[2].isNumber() ? Type()
                                : getElementTypeOrSelf(ops[2].value.getType());
    if (ea != eb)
      k.fail(s, "cannot choose between " + describeOperands(ops) +
                    "; pointer branches must have one pointer type");
    elem = ea;
  } else {
    elem = promote(k, ArrayRef<Resolved>(ops).drop_front(), s);
  }
  mlir::Value cv = broadcastTo(k, ops[0].value, shape, s);
  mlir::Value x = materialize(k, ops[1], elem, shape, s);
  mlir::Value y = materialize(k, ops[2], elem, shape, s);
  return Access::wrap(kp, k.create<arith::SelectOp>(s, cv, x, y),
                      resultPads(k, ops, shape.size(), s));
}

//===----------------------------------------------------------------------===//
// Value
//===----------------------------------------------------------------------===//

Kernel Value::kernel(SourceLoc loc) const {
  queryOwner(*this, site(loc, "Value::kernel"));
  return Access::kernel(kernel_);
}

std::vector<int64_t> Value::shape(SourceLoc loc) const {
  queryOwner(*this, site(loc, "Value::shape"));
  ArrayRef<int64_t> s = tile::getShapeOrEmpty(Access::raw(*this).getType());
  return {s.begin(), s.end()};
}

int64_t Value::rank(SourceLoc loc) const {
  queryOwner(*this, site(loc, "Value::rank"));
  return rankOf(Access::raw(*this).getType());
}

DType Value::dtype(SourceLoc loc) const {
  queryOwner(*this, site(loc, "Value::dtype"));
  Type elem = getElementTypeOrSelf(Access::raw(*this).getType());
  if (auto p = dyn_cast<tile::PointerType>(elem))
    elem = p.getPointeeType();
  // Kernels built here only hold pointers to DTypes.
  return dtypeOf(elem).value_or(DType::I8);
}

bool Value::isPointer(SourceLoc loc) const {
  queryOwner(*this, site(loc, "Value::isPointer"));
  return isPtr(Access::raw(*this).getType());
}

std::string Value::typeStr(SourceLoc loc) const {
  queryOwner(*this, site(loc, "Value::typeStr"));
  return detail::typeStr(Access::raw(*this).getType());
}

/// Resolves `v` for an entry named `op`: the kernel, the value, its pads.
static std::shared_ptr<KernelImpl> resolveOne(const Value &v, const Site &s,
                                              mlir::Value &raw,
                                              std::vector<Pad> &pads) {
  Operand a(v, s.loc);
  SmallVector<Resolved> ops;
  std::shared_ptr<KernelImpl> k = resolve({&a}, ops, s);
  raw = ops[0].value;
  pads = ops[0].pads;
  return k;
}

Value Value::to(DType type, SourceLoc loc) const {
  Site s = site(loc, "Value::to");
  mlir::Value x;
  std::vector<Pad> pads;
  auto k = resolveOne(*this, s, x, pads);
  if (isPtr(x.getType()))
    k->fail(s, "cannot convert pointers " + detail::typeStr(x.getType()) +
                   " to " + std::string(dtypeName(type)) +
                   "; use bitcast to retype pointers");
  return Access::wrap(k, castTo(*k, x, mlirType(type, k->context.get()), s),
                      pads);
}

Value Value::bitcast(DType type, SourceLoc loc) const {
  Site s = site(loc, "Value::bitcast");
  mlir::Value x;
  std::vector<Pad> pads;
  auto k = resolveOne(*this, s, x, pads);
  Type target = mlirType(type, k->context.get());
  if (isPtr(x.getType())) {
    Type result = tile::withElementType(
        x.getType(), tile::PointerType::get(target.getContext(), target));
    return Access::wrap(k, k->create<tile::BitcastOp>(s, result, x), pads);
  }
  Type elem = getElementTypeOrSelf(x.getType());
  if (elem.getIntOrFloatBitWidth() != target.getIntOrFloatBitWidth())
    k->fail(s, "bitcast from " + detail::typeStr(elem) + " to " +
                   detail::typeStr(target) + " changes the width (" +
                   std::to_string(elem.getIntOrFloatBitWidth()) + " to " +
                   std::to_string(target.getIntOrFloatBitWidth()) + " bits)");
  if (elem == target)
    return *this;
  Type result = tile::withElementType(x.getType(), target);
  return Access::wrap(k, k->create<arith::BitcastOp>(s, result, x), pads);
}

/// Normalizes a possibly negative axis of a rank-`rank` tile (or of the
/// `rank + 1` positions of expand_dims with `inclusive`).
static int normalizeAxis(KernelImpl &k, const Site &s, int axis, int64_t rank,
                         Type type, bool inclusive = false) {
  int64_t n = inclusive ? rank + 1 : rank;
  int64_t a = axis < 0 ? axis + n : axis;
  if (a < 0 || a >= n)
    k.fail(s, "axis " + std::to_string(axis) + " is out of range for " +
                  typeStr(type) + " (rank " + std::to_string(rank) + ")");
  return (int)a;
}

Value Value::expandDims(int axis, SourceLoc loc) const {
  Site s = site(loc, "Value::expandDims");
  mlir::Value x;
  std::vector<Pad> pads;
  auto k = resolveOne(*this, s, x, pads);
  int64_t rank = rankOf(x.getType());
  int a = normalizeAxis(*k, s, axis, rank, x.getType(), /*inclusive=*/true);
  auto expand = [&](mlir::Value v) -> mlir::Value {
    Type elem = getElementTypeOrSelf(v.getType());
    SmallVector<int64_t> shape(tile::getShapeOrEmpty(v.getType()));
    shape.insert(shape.begin() + a, 1);
    if (shape.size() == 1)
      return k->create<tile::SplatOp>(s, RankedTensorType::get(shape, elem), v);
    return k->create<tile::ExpandDimsOp>(s, RankedTensorType::get(shape, elem),
                                         v, a);
  };
  std::vector<Pad> newPads;
  for (auto [mask, count] : pads)
    newPads.emplace_back(expand(mask), count);
  return Access::wrap(k, expand(x), newPads);
}

Value Value::broadcastTo(const std::vector<int64_t> &shape,
                         SourceLoc loc) const {
  Site s = site(loc, "Value::broadcastTo");
  mlir::Value x;
  std::vector<Pad> pads;
  auto k = resolveOne(*this, s, x, pads);
  ArrayRef<int64_t> src = tile::getShapeOrEmpty(x.getType());
  auto b = broadcastShapes(src, shape);
  if (!b || ArrayRef<int64_t>(*b) != ArrayRef<int64_t>(shape) ||
      llvm::any_of(shape, [](int64_t d) { return d < 1; }))
    k->fail(s, "cannot broadcast " + detail::typeStr(x.getType()) + " to " +
                   shapeStr(shape) +
                   " (trailing dimensions must be equal or 1)");
  return Access::wrap(k, detail::broadcastTo(*k, x, shape, s),
                      padsToRank(*k, pads, shape.size(), s));
}

Value Value::reshape(const std::vector<int64_t> &shape, SourceLoc loc) const {
  Site s = site(loc, "Value::reshape");
  mlir::Value x;
  std::vector<Pad> pads;
  auto k = resolveOne(*this, s, x, pads);
  ArrayRef<int64_t> src = tile::getShapeOrEmpty(x.getType());
  int64_t n = 1, m = 1;
  for (int64_t d : src)
    n *= d;
  for (int64_t d : shape) {
    if (d < 1)
      k->fail(s, "dimensions must be positive, got " + shapeStr(shape));
    m *= d;
  }
  if (n != m || shape.empty())
    k->fail(s, "cannot reshape " + detail::typeStr(x.getType()) + " (" +
                   std::to_string(n) + " elements) to " + shapeStr(shape) +
                   " (" + std::to_string(m) + " elements)");
  auto reshape = [&](mlir::Value v) -> mlir::Value {
    Type elem = getElementTypeOrSelf(v.getType());
    if (!isa<RankedTensorType>(v.getType()))
      return k->create<tile::SplatOp>(s, RankedTensorType::get(shape, elem), v);
    return k->create<tile::ReshapeOp>(s, RankedTensorType::get(shape, elem), v);
  };
  std::vector<Pad> newPads;
  // Masks are reshaped as full tiles: a reshape mixes dimensions.
  if (mlir::Value all = combinedMask(*k, pads, src, s))
    newPads.emplace_back(reshape(all), mlir::Value());
  return Access::wrap(k, reshape(x), newPads);
}

Value Value::trans(const std::vector<int> &order, SourceLoc loc) const {
  Site s = site(loc, "Value::trans");
  mlir::Value x;
  std::vector<Pad> pads;
  auto k = resolveOne(*this, s, x, pads);
  int64_t rank = rankOf(x.getType());
  if (rank == 0)
    k->fail(s, "cannot transpose the scalar " + detail::typeStr(x.getType()));
  SmallVector<int32_t> perm;
  if (order.empty())
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  else
    perm.assign(order.begin(), order.end());
  SmallVector<bool> seen(rank, false);
  bool ok = (int64_t)perm.size() == rank;
  for (int32_t d : perm) {
    ok = ok && d >= 0 && d < rank && !seen[d];
    if (ok)
      seen[d] = true;
  }
  if (!ok) {
    std::string o;
    for (int32_t d : perm)
      o += (o.empty() ? "" : ", ") + std::to_string(d);
    k->fail(s, "order [" + o + "] is not a permutation of the " +
                   std::to_string(rank) + " dimensions of " +
                   detail::typeStr(x.getType()));
  }
  auto permute = [&](mlir::Value v) -> mlir::Value {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape;
    for (int32_t d : perm)
      shape.push_back(t.getDimSize(d));
    return k->create<tile::TransOp>(
        s, RankedTensorType::get(shape, t.getElementType()), v, perm);
  };
  std::vector<Pad> newPads;
  for (auto [mask, count] : pads)
    newPads.emplace_back(permute(mask), count);
  return Access::wrap(k, permute(x), newPads);
}

std::vector<Padding> Value::padding(SourceLoc loc) const {
  queryOwner(*this, site(loc, "Value::padding"));
  std::vector<Padding> out;
  for (auto [mask, count] : Access::pads(*this))
    out.push_back({Access::wrap(kernel_, mask),
                   count ? Access::wrap(kernel_, count) : Value()});
  return out;
}

Value Value::maskedBy(const Value &valid, const Value &count,
                      SourceLoc loc) const {
  Site s = site(loc, "Value::maskedBy");
  mlir::Value x;
  std::vector<Pad> pads;
  auto k = resolveOne(*this, s, x, pads);
  mlir::Value m = k->use(valid, s);
  int64_t rank = rankOf(x.getType());
  if (rank == 0)
    k->fail(s, "a scalar (" + detail::typeStr(x.getType()) +
                   ") has no lanes to mark as padding");
  ArrayRef<int64_t> shape = tile::getShapeOrEmpty(x.getType());
  auto b = broadcastShapes(tile::getShapeOrEmpty(m.getType()), shape);
  if (!getElementTypeOrSelf(m.getType()).isInteger(1) ||
      !isa<RankedTensorType>(m.getType()) || !b ||
      ArrayRef<int64_t>(*b) != shape)
    k->fail(s, "the mask " + detail::typeStr(m.getType()) +
                   " must be an i1 tile that broadcasts to " +
                   detail::typeStr(x.getType()));
  mlir::Value c;
  if (!count.isNull()) {
    c = k->use(count, s);
    if (!isa<IntegerType>(c.getType()))
      k->fail(s, "the count must be an integer scalar, got " +
                     detail::typeStr(c.getType()));
  }
  std::vector<Pad> added = padsToRank(*k, {{m, c}}, rank, s);
  return Access::wrap(k, x, mergePads(pads, added));
}

Value Value::maskedBy(const Value &valid, SourceLoc loc) const {
  return maskedBy(valid, Value(), loc);
}

Value Value::withoutPadding() const {
  Value v = *this;
  v.pads_.clear();
  return v;
}

//===----------------------------------------------------------------------===//
// join, split, broadcast
//===----------------------------------------------------------------------===//

Value join(const Value &a, const Value &b, SourceLoc loc) {
  Site s = site(loc, "tile.join");
  Operand oa(a, loc), ob(b, loc);
  SmallVector<Resolved> ops;
  std::shared_ptr<KernelImpl> kp = resolve({&oa, &ob}, ops, s);
  KernelImpl &k = *kp;
  SmallVector<int64_t> shape = commonShape(k, ops, s);
  if (shape.empty())
    k.fail(s, "needs tiles, got " + describeOperands(ops));
  Type elem = promote(k, ops, s);
  mlir::Value x = materialize(k, ops[0], elem, shape, s);
  mlir::Value y = materialize(k, ops[1], elem, shape, s);
  SmallVector<int64_t> joined(shape);
  joined.push_back(2);
  auto joinValues = [&](mlir::Value l, mlir::Value r) -> mlir::Value {
    Type e = getElementTypeOrSelf(l.getType());
    return k.create<tile::JoinOp>(s, RankedTensorType::get(joined, e), l, r);
  };
  std::vector<Pad> pads;
  if (!ops[0].pads.empty() || !ops[1].pads.empty()) {
    auto maskOf = [&](const Resolved &r) {
      if (mlir::Value m =
              combinedMask(k, padsToRank(k, r.pads, shape.size(), s), shape, s))
        return m;
      return constant(k, Operand(true), k.builder.getI1Type(), shape, s);
    };
    pads.emplace_back(joinValues(maskOf(ops[0]), maskOf(ops[1])),
                      mlir::Value());
  }
  return Access::wrap(kp, joinValues(x, y), pads);
}

std::pair<Value, Value> split(const Value &xv, SourceLoc loc) {
  Site s = site(loc, "tile.split");
  mlir::Value x;
  std::vector<Pad> pads;
  auto k = resolveOne(xv, s, x, pads);
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t || t.getRank() < 2 || t.getShape().back() != 2)
    k->fail(s, "needs a tile of rank >= 2 whose minor dimension is 2, got " +
                   detail::typeStr(x.getType()));
  auto half =
      RankedTensorType::get(t.getShape().drop_back(), t.getElementType());
  auto parts = k->create<tile::SplitOp>(s, half, half, x);
  std::vector<Pad> lp, rp;
  if (mlir::Value all = combinedMask(*k, pads, t.getShape(), s)) {
    auto halfMask =
        RankedTensorType::get(t.getShape().drop_back(), k->builder.getI1Type());
    auto m = k->create<tile::SplitOp>(s, halfMask, halfMask, all);
    lp.emplace_back(m.getLhs(), mlir::Value());
    rp.emplace_back(m.getRhs(), mlir::Value());
  }
  return {Access::wrap(k, parts.getLhs(), lp),
          Access::wrap(k, parts.getRhs(), rp)};
}

std::pair<Value, Value> broadcast(const Value &a, const Value &b,
                                  SourceLoc loc) {
  Site s = site(loc, "broadcast");
  Operand oa(a, loc), ob(b, loc);
  SmallVector<Resolved> ops;
  std::shared_ptr<KernelImpl> kp = resolve({&oa, &ob}, ops, s);
  SmallVector<int64_t> shape = commonShape(*kp, ops, s);
  auto one = [&](const Resolved &r) {
    return Access::wrap(kp, broadcastTo(*kp, r.value, shape, s),
                        padsToRank(*kp, r.pads, shape.size(), s));
  };
  return {one(ops[0]), one(ops[1])};
}

} // namespace tilec
