//===- AxisInfo.cpp - contiguity, divisibility, constancy -----------------===//
//
// Transfer functions of the axis analysis (see AxisInfo.h for the meaning of
// the three properties). Each rule is conservative: when unsure it gives 1.
// Values are assumed not to wrap around (offsets are non-negative and fit
// their type), as in Triton.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/AxisInfo.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include <numeric>

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// AxisInfo
//===----------------------------------------------------------------------===//

int64_t mlir::tile::highestPowerOf2Divisor(int64_t v) {
  if (v == 0)
    return AxisInfo::kMaxDivisor;
  int64_t p = v & -v;
  if (p < 0) // INT64_MIN
    return AxisInfo::kMaxDivisor;
  return std::min(p, AxisInfo::kMaxDivisor);
}

static int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }
static int64_t capDiv(int64_t v) {
  return std::min(std::max<int64_t>(v, 1), AxisInfo::kMaxDivisor);
}

AxisInfo::AxisInfo(DimVector contiguity, DimVector divisibility,
                   DimVector constancy, std::optional<int64_t> constant)
    : initialized(true), contiguity(std::move(contiguity)),
      divisibility(std::move(divisibility)), constancy(std::move(constancy)),
      constant(constant) {}

AxisInfo AxisInfo::getPessimistic(unsigned rank) {
  rank = std::max(rank, 1u);
  return AxisInfo(DimVector(rank, 1), DimVector(rank, 1), DimVector(rank, 1));
}

AxisInfo AxisInfo::getPessimistic(Type type) {
  return getPessimistic(getShapeOrEmpty(type).size());
}

int64_t AxisInfo::getDivisibilityAt(unsigned d, int64_t len) const {
  if (len < contiguity[d])
    return std::min(divisibility[d], len);
  return divisibility[d];
}

int64_t AxisInfo::getElementDivisibility() const {
  int64_t best = 1;
  for (unsigned d = 0; d < getRank(); ++d)
    best = std::max(best, getDivisibilityAt(d, 1));
  return best;
}

bool AxisInfo::operator==(const AxisInfo &other) const {
  return initialized == other.initialized &&
         contiguity == other.contiguity &&
         divisibility == other.divisibility &&
         constancy == other.constancy && constant == other.constant;
}

AxisInfo AxisInfo::join(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (!lhs.isInitialized())
    return rhs;
  if (!rhs.isInitialized())
    return lhs;
  if (lhs.getRank() != rhs.getRank())
    return getPessimistic(lhs.getRank());
  DimVector c, d, k;
  for (unsigned i = 0; i < lhs.getRank(); ++i) {
    c.push_back(gcd(lhs.contiguity[i], rhs.contiguity[i]));
    d.push_back(gcd(lhs.divisibility[i], rhs.divisibility[i]));
    k.push_back(gcd(lhs.constancy[i], rhs.constancy[i]));
  }
  std::optional<int64_t> constant;
  if (lhs.constant == rhs.constant)
    constant = lhs.constant;
  return AxisInfo(c, d, k, constant);
}

void AxisInfo::print(raw_ostream &os) const {
  if (!initialized) {
    os << "<uninitialized>";
    return;
  }
  auto list = [&](StringRef name, ArrayRef<int64_t> v) {
    os << name << " = [";
    llvm::interleaveComma(v, os);
    os << "]";
  };
  list("contiguity", contiguity);
  os << ", ";
  list("divisibility", divisibility);
  os << ", ";
  list("constancy", constancy);
  if (constant)
    os << ", constant = " << *constant;
}

//===----------------------------------------------------------------------===//
// Transfer functions
//===----------------------------------------------------------------------===//

/// The shape of a value's type, {1} for scalars.
static SmallVector<int64_t> shapeOf(Type type) {
  ArrayRef<int64_t> shape = getShapeOrEmpty(type);
  if (shape.empty())
    return {1};
  return SmallVector<int64_t>(shape);
}

/// Bytes of a pointer's pointee, 0 if `type` is no pointer (tile).
static int64_t pointeeBytes(Type type) {
  auto ptr = dyn_cast<PointerType>(getElementTypeOrSelf(type));
  if (!ptr)
    return 0;
  Type pointee = ptr.getPointeeType();
  if (isa<PointerType>(pointee))
    return 8;
  return std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
}

/// A value constant over the whole shape.
static AxisInfo uniform(ArrayRef<int64_t> shape, int64_t divisibility,
                        std::optional<int64_t> constant) {
  AxisInfo::DimVector c(shape.size(), 1), d(shape.size(), capDiv(divisibility)),
      k(shape.begin(), shape.end());
  return AxisInfo(c, d, k, constant);
}

/// Integer constants, scalar or splat.
static std::optional<AxisInfo> visitConstant(arith::ConstantOp op) {
  SmallVector<int64_t> shape = shapeOf(op.getType());
  Attribute value = op.getValue();
  if (auto splat = dyn_cast<SplatElementsAttr>(value))
    value = splat.getSplatValue<Attribute>();
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    int64_t v = i.getType().isInteger(1) ? i.getValue().getZExtValue()
                                         : i.getValue().getSExtValue();
    return uniform(shape, highestPowerOf2Divisor(v), v);
  }
  if (isa<FloatAttr>(value))
    return uniform(shape, 1, std::nullopt);
  return std::nullopt;
}

/// a + b (also pointer + offset, with the offset scaled to bytes).
static AxisInfo visitAdd(const AxisInfo &a, const AxisInfo &b, int64_t scale,
                         bool isSub) {
  AxisInfo::DimVector c, d, k;
  for (unsigned i = 0; i < a.getRank(); ++i) {
    int64_t ci = gcd(a.getContiguity(i), b.getConstancy(i));
    if (!isSub)
      ci = std::max(ci, gcd(a.getConstancy(i), b.getContiguity(i)));
    c.push_back(ci);
    d.push_back(capDiv(gcd(a.getDivisibilityAt(i, ci),
                           capDiv(b.getDivisibilityAt(i, ci) * scale))));
    k.push_back(gcd(a.getConstancy(i), b.getConstancy(i)));
  }
  std::optional<int64_t> constant;
  if (a.getConstantValue() && b.getConstantValue())
    constant = isSub ? *a.getConstantValue() - *b.getConstantValue()
                     : *a.getConstantValue() + *b.getConstantValue() * scale;
  return AxisInfo(c, d, k, constant);
}

static AxisInfo visitMul(const AxisInfo &a, const AxisInfo &b) {
  AxisInfo::DimVector c, d, k;
  for (unsigned i = 0; i < a.getRank(); ++i) {
    int64_t ci = 1;
    if (b.getConstantValue() == 1)
      ci = a.getContiguity(i);
    else if (a.getConstantValue() == 1)
      ci = b.getContiguity(i);
    c.push_back(ci);
    d.push_back(capDiv(a.getDivisibilityAt(i, ci) *
                       b.getDivisibilityAt(i, ci)));
    k.push_back(gcd(a.getConstancy(i), b.getConstancy(i)));
  }
  std::optional<int64_t> constant;
  if (a.getConstantValue() && b.getConstantValue())
    constant = *a.getConstantValue() * *b.getConstantValue();
  return AxisInfo(c, d, k, constant);
}

/// a / b and a % b by a value constant over blocks.
static AxisInfo visitDivRem(const AxisInfo &a, const AxisInfo &b, bool isRem) {
  AxisInfo::DimVector c, d, k;
  for (unsigned i = 0; i < a.getRank(); ++i) {
    int64_t ki = gcd(a.getConstancy(i), b.getConstancy(i));
    int64_t ci = 1, di = 1;
    bool bUniform = b.getConstancy(i) >= a.getContiguity(i);
    if (isRem && bUniform) {
      // A run starting at a multiple of g never crosses a multiple of b.
      ci = gcd(a.getContiguity(i),
               gcd(b.getDivisibility(i), a.getDivisibility(i)));
      di = gcd(a.getDivisibilityAt(i, ci), b.getDivisibility(i));
    } else if (!isRem && bUniform && b.getConstantValue() &&
               *b.getConstantValue() > 0 &&
               llvm::isPowerOf2_64(*b.getConstantValue())) {
      // Aligned blocks of g values of a run never straddle a multiple of b,
      // so their quotient is one value.
      int64_t bv = *b.getConstantValue();
      ki = std::max(ki, gcd(a.getContiguity(i),
                            gcd(bv, a.getDivisibility(i))));
      if (a.getContiguity(i) == 1 && a.getDivisibility(i) >= bv)
        di = a.getDivisibility(i) / bv;
    }
    c.push_back(ci);
    d.push_back(capDiv(di));
    k.push_back(ki);
  }
  std::optional<int64_t> constant;
  if (a.getConstantValue() && b.getConstantValue() && *b.getConstantValue())
    constant = isRem ? *a.getConstantValue() % *b.getConstantValue()
                     : *a.getConstantValue() / *b.getConstantValue();
  return AxisInfo(c, d, k, constant);
}

/// Elementwise ops about which only constancy is known.
static AxisInfo visitElementwise(ArrayRef<AxisInfo> operands, unsigned rank) {
  AxisInfo::DimVector c(rank, 1), d(rank, 1), k(rank, 0);
  for (unsigned i = 0; i < rank; ++i)
    for (const AxisInfo &o : operands)
      k[i] = k[i] ? gcd(k[i], o.getConstancy(i)) : o.getConstancy(i);
  for (int64_t &ki : k)
    ki = std::max<int64_t>(ki, 1);
  return AxisInfo(c, d, k);
}

/// Comparisons: `run < bound` is constant over blocks that a multiple of the
/// bound's divisibility cannot split.
static AxisInfo visitCmp(arith::CmpIPredicate pred, const AxisInfo &a,
                         const AxisInfo &b) {
  using P = arith::CmpIPredicate;
  AxisInfo info = visitElementwise({a, b}, a.getRank());
  AxisInfo::DimVector c(a.getRank(), 1), d(a.getRank(), 1), k;
  // Boundaries of `x < y` and `x >= y` sit where x reaches y.
  const AxisInfo *run = nullptr, *bound = nullptr;
  if (pred == P::slt || pred == P::ult || pred == P::sge || pred == P::uge) {
    run = &a;
    bound = &b;
  } else if (pred == P::sgt || pred == P::ugt || pred == P::sle ||
             pred == P::ule) {
    run = &b;
    bound = &a;
  }
  for (unsigned i = 0; i < a.getRank(); ++i) {
    int64_t ki = info.getConstancy(i);
    if (run && bound->getConstancy(i) >= run->getContiguity(i)) {
      int64_t g = gcd(run->getContiguity(i),
                      gcd(run->getDivisibility(i), bound->getDivisibility(i)));
      ki = std::max(ki, g);
    }
    k.push_back(ki);
  }
  std::optional<int64_t> constant;
  if (a.getConstantValue() && b.getConstantValue()) {
    int64_t x = *a.getConstantValue(), y = *b.getConstantValue();
    switch (pred) {
    case P::eq:  constant = x == y; break;
    case P::ne:  constant = x != y; break;
    case P::slt: constant = x < y; break;
    case P::sle: constant = x <= y; break;
    case P::sgt: constant = x > y; break;
    case P::sge: constant = x >= y; break;
    default: break;
    }
  }
  return AxisInfo(c, d, k, constant);
}

static AxisInfo visitSelect(const AxisInfo &cond, const AxisInfo &t,
                            const AxisInfo &f) {
  if (cond.getConstantValue())
    return *cond.getConstantValue() ? t : f;
  // A scalar condition is uniform over the whole tile.
  bool scalarCond = cond.getRank() != t.getRank();
  AxisInfo::DimVector c, d, k;
  for (unsigned i = 0; i < t.getRank(); ++i) {
    int64_t ci = std::min(t.getContiguity(i), f.getContiguity(i));
    int64_t ki = gcd(t.getConstancy(i), f.getConstancy(i));
    if (!scalarCond) {
      ci = gcd(ci, cond.getConstancy(i));
      ki = gcd(ki, cond.getConstancy(i));
    }
    c.push_back(ci);
    d.push_back(gcd(t.getDivisibilityAt(i, ci), f.getDivisibilityAt(i, ci)));
    k.push_back(ki);
  }
  return AxisInfo(c, d, k);
}

static AxisInfo visitBroadcast(const AxisInfo &src, ArrayRef<int64_t> srcShape,
                               ArrayRef<int64_t> dstShape) {
  AxisInfo::DimVector c, d, k;
  for (unsigned i = 0; i < dstShape.size(); ++i) {
    if (srcShape[i] == 1 && dstShape[i] != 1) {
      c.push_back(1);
      d.push_back(src.getDivisibilityAt(i, 1));
      k.push_back(dstShape[i]);
    } else {
      c.push_back(src.getContiguity(i));
      d.push_back(src.getDivisibility(i));
      k.push_back(src.getConstancy(i));
    }
  }
  return AxisInfo(c, d, k, src.getConstantValue());
}

static AxisInfo visitExpandDims(const AxisInfo &src, unsigned axis) {
  AxisInfo::DimVector c(src.getContiguity()), d(src.getDivisibility()),
      k(src.getConstancy());
  c.insert(c.begin() + axis, 1);
  d.insert(d.begin() + axis, src.getElementDivisibility());
  k.insert(k.begin() + axis, 1);
  return AxisInfo(c, d, k, src.getConstantValue());
}

/// The results' info, or nullopt where nothing is known (pessimistic).
static std::optional<AxisInfo> computeAxisInfo(Operation *op,
                                              ArrayRef<AxisInfo> operands) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  Type resultType = op->getResult(0).getType();
  SmallVector<int64_t> shape = shapeOf(resultType);
  unsigned rank = shape.size();
  return llvm::TypeSwitch<Operation *, std::optional<AxisInfo>>(op)
      .Case<arith::ConstantOp>([&](auto c) { return visitConstant(c); })
      .Case<RangeOp>([&](RangeOp r) {
        int64_t n = r.getEnd() - r.getStart();
        return AxisInfo({n}, {highestPowerOf2Divisor(r.getStart())}, {1});
      })
      .Case<SplatOp>([&](auto) {
        const AxisInfo &s = operands[0];
        return uniform(shape, s.getDivisibility(0), s.getConstantValue());
      })
      .Case<ProgramIdOp, NumProgramsOp>(
          [&](auto) { return uniform(shape, 1, std::nullopt); })
      .Case<arith::AddIOp>([&](auto) {
        return visitAdd(operands[0], operands[1], 1, /*isSub=*/false);
      })
      .Case<arith::SubIOp>([&](auto) {
        return visitAdd(operands[0], operands[1], 1, /*isSub=*/true);
      })
      .Case<AddPtrOp>([&](AddPtrOp p) {
        return visitAdd(operands[0], operands[1], pointeeBytes(p.getType()),
                        /*isSub=*/false);
      })
      .Case<arith::MulIOp>(
          [&](auto) { return visitMul(operands[0], operands[1]); })
      .Case<arith::DivSIOp, arith::DivUIOp>([&](auto) {
        return visitDivRem(operands[0], operands[1], /*isRem=*/false);
      })
      .Case<arith::RemSIOp, arith::RemUIOp>([&](auto) {
        return visitDivRem(operands[0], operands[1], /*isRem=*/true);
      })
      .Case<arith::CmpIOp>([&](arith::CmpIOp c) {
        return visitCmp(c.getPredicate(), operands[0], operands[1]);
      })
      .Case<arith::SelectOp>([&](auto) {
        return visitSelect(operands[0], operands[1], operands[2]);
      })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp>(
          [&](auto) { return operands[0]; })
      .Case<BroadcastOp>([&](BroadcastOp b) {
        return visitBroadcast(operands[0], b.getSrc().getType().getShape(),
                              shape);
      })
      .Case<ExpandDimsOp>([&](ExpandDimsOp e) {
        return visitExpandDims(operands[0], e.getAxis());
      })
      .Case<TransOp>([&](TransOp t) {
        const AxisInfo &s = operands[0];
        AxisInfo::DimVector c, d, k;
        for (int32_t i : t.getOrder()) {
          c.push_back(s.getContiguity(i));
          d.push_back(s.getDivisibility(i));
          k.push_back(s.getConstancy(i));
        }
        return AxisInfo(c, d, k, s.getConstantValue());
      })
      .Case<BitcastOp>([&](BitcastOp b) {
        // Same addresses: divisibility and constancy stay, runs of
        // elements change length with the element size.
        const AxisInfo &s = operands[0];
        bool sameSize = pointeeBytes(b.getType()) ==
                        pointeeBytes(b.getSrc().getType());
        AxisInfo::DimVector c, d(s.getDivisibility()), k(s.getConstancy());
        for (unsigned i = 0; i < s.getRank(); ++i) {
          c.push_back(sameSize ? s.getContiguity(i) : 1);
          if (!sameSize)
            d[i] = s.getDivisibilityAt(i, 1);
        }
        return AxisInfo(c, d, k);
      })
      .Case<LoadOp>([&](auto) {
        // Loads through uniform pointers give uniform values.
        AxisInfo::DimVector c(rank, 1), d(rank, 1),
            k(operands[0].getConstancy());
        return AxisInfo(c, d, k);
      })
      .Default([&](Operation *o) -> std::optional<AxisInfo> {
        // An unregistered op has no dialect: nothing is known of it.
        StringRef ns = o->getName().getDialectNamespace();
        if (o->hasTrait<OpTrait::Elementwise>() || ns == "math" ||
            (ns == "arith" && o->getNumOperands() > 0))
          return visitElementwise(operands, rank);
        return std::nullopt;
      });
}

//===----------------------------------------------------------------------===//
// AxisInfoAnalysis
//===----------------------------------------------------------------------===//

LogicalResult
AxisInfoAnalysis::visitOperation(Operation *op,
                                 ArrayRef<const AxisInfoLattice *> operands,
                                 ArrayRef<AxisInfoLattice *> results) {
  SmallVector<AxisInfo> infos;
  for (const AxisInfoLattice *l : operands) {
    if (!l->getValue().isInitialized())
      return success(); // revisited once the operands are known
    infos.push_back(l->getValue());
  }
  std::optional<AxisInfo> info = computeAxisInfo(op, infos);
  for (auto [i, result] : llvm::enumerate(results)) {
    AxisInfo value = (info && i == 0)
                         ? *info
                         : AxisInfo::getPessimistic(op->getResult(i).getType());
    if (value.getRank() != shapeOf(op->getResult(i).getType()).size())
      value = AxisInfo::getPessimistic(op->getResult(i).getType());
    propagateIfChanged(result, result->join(value));
  }
  return success();
}

void AxisInfoAnalysis::visitNonControlFlowArguments(
    Operation *op, const RegionSuccessor &successor,
    ArrayRef<AxisInfoLattice *> argLattices, unsigned firstIndex) {
  // The induction variable of scf.for, lb + i * step, is a multiple of
  // whatever divides both.
  auto forOp = dyn_cast<scf::ForOp>(op);
  if (!forOp || argLattices.empty() ||
      argLattices[0]->getAnchor() != forOp.getInductionVar())
    return SparseForwardDataFlowAnalysis::visitNonControlFlowArguments(
        op, successor, argLattices, firstIndex);
  auto *lb =
      getLatticeElementFor(getProgramPointAfter(op), forOp.getLowerBound());
  auto *step = getLatticeElementFor(getProgramPointAfter(op), forOp.getStep());
  if (!lb->getValue().isInitialized() || !step->getValue().isInitialized())
    return; // revisited once the bounds are known
  AxisInfo info({1},
                {gcd(lb->getValue().getDivisibility(0),
                     step->getValue().getDivisibility(0))},
                {1});
  propagateIfChanged(argLattices[0], argLattices[0]->join(info));
}

void AxisInfoAnalysis::setToEntryState(AxisInfoLattice *lattice) {
  Value value = lattice->getAnchor();
  AxisInfo info = AxisInfo::getPessimistic(value.getType());
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (fn && arg.getOwner()->isEntryBlock()) {
      if (auto hint = fn.getArgAttrOfType<IntegerAttr>(
              arg.getArgNumber(), TileDialect::getDivisibilityAttrName()))
        info = AxisInfo({1}, {capDiv(hint.getInt())}, {1});
    }
  }
  propagateIfChanged(lattice, lattice->join(info));
}

//===----------------------------------------------------------------------===//
// ModuleAxisInfo
//===----------------------------------------------------------------------===//

ModuleAxisInfo::ModuleAxisInfo(Operation *root) {
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<AxisInfoAnalysis>();
  ok = mlir::succeeded(solver.initializeAndRun(root));
}

AxisInfo ModuleAxisInfo::get(Value value) const {
  const auto *lattice = solver.lookupState<AxisInfoLattice>(value);
  if (!lattice || !lattice->getValue().isInitialized())
    return AxisInfo::getPessimistic(value.getType());
  return lattice->getValue();
}
