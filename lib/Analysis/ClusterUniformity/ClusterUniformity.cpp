//===- ClusterUniformity.cpp - values equal across a cluster's programs --===//

#include "tilec/Analysis/ClusterUniformity.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"


#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tile;

namespace {

/// gcd with 0 meaning "E is 0" (a multiple of everything).
int64_t gcd0(int64_t a, int64_t b) { return std::gcd(a, b); }

ClusterAffine uniform(int64_t divisor, bool nonNegative) {
  return ClusterAffine{0, divisor, nonNegative};
}

std::optional<int64_t> constantOf(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return i.getValue().getSExtValue();
  return std::nullopt;
}

} // namespace

std::optional<ClusterAffine> ClusterUniformity::get(Value v) {
  if (!v.getType().isIntOrIndex())
    return std::nullopt;
  if (auto it = cache.find(v); it != cache.end())
    return it->second;
  // A cycle (a loop-carried value reaching itself) is unknown.
  cache[v] = std::nullopt;
  std::optional<ClusterAffine> r = compute(v);
  cache[v] = r;
  return r;
}

std::optional<ClusterAffine> ClusterUniformity::compute(Value v) {
  using Result = std::optional<ClusterAffine>;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    // The kernel's parameters: the same in every program.
    if (auto func = dyn_cast<func::FuncOp>(owner);
        func && arg.getOwner() == &func.getBody().front())
      return uniform(1, false);
    // An induction variable lo + i * step, all programs running the same i
    // where lo and step are uniform.
    if (auto loop = dyn_cast<scf::ForOp>(owner);
        loop && arg == loop.getInductionVar()) {
      Result lo = get(loop.getLowerBound()), step = get(loop.getStep());
      if (!lo || !step || !step->uniform())
        return std::nullopt;
      return ClusterAffine{lo->coef, gcd0(lo->divisor, step->divisor),
                           lo->nonNegative && step->nonNegative};
    }
    return std::nullopt;
  }
  Operation *op = v.getDefiningOp();
  if (auto c = constantOf(v))
    return uniform(*c < 0 ? -*c : *c, *c >= 0);
  if (auto pid = dyn_cast<ProgramIdOp>(op))
    return pid.getAxis() == 0 ? ClusterAffine{1, ctas, true}
                              : uniform(1, true);
  if (auto n = dyn_cast<NumProgramsOp>(op))
    return uniform(n.getAxis() == 0 ? ctas : 1, true);

  auto operand = [&](unsigned i) { return get(op->getOperand(i)); };
  // x / c and x % c for a constant c > 0 (x >= 0): E / c and coef * r when
  // c divides E and coef * r stays below c for every rank.
  auto divides = [&](const ClusterAffine &x, int64_t c) {
    return x.nonNegative && x.divisor % c == 0 && x.coef >= 0 &&
           x.coef * (ctas - 1) < c;
  };
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
          arith::ShRUIOp, arith::ShRSIOp>(op)) {
    Result x = operand(0), y = operand(1);
    if (!x || !y)
      return std::nullopt;
    bool shift = isa<arith::ShRUIOp, arith::ShRSIOp>(op);
    std::optional<int64_t> c = constantOf(op->getOperand(1));
    if (c && shift)
      c = *c >= 0 && *c < 62 ? std::optional<int64_t>(int64_t(1) << *c)
                             : std::nullopt;
    bool rem = isa<arith::RemSIOp, arith::RemUIOp>(op);
    if (x->uniform() && y->uniform()) {
      int64_t divisor = 1;
      if (c && *c > 0 && !rem && x->divisor % *c == 0)
        divisor = x->divisor / *c;
      return uniform(divisor, x->nonNegative && y->nonNegative);
    }
    if (!c || *c <= 0 || !y->uniform() || !divides(*x, *c))
      return std::nullopt;
    if (rem)
      return ClusterAffine{x->coef, 0, true};
    return uniform(x->divisor / *c, true);
  }
  if (isa<arith::AddIOp, arith::SubIOp>(op)) {
    Result x = operand(0), y = operand(1);
    if (!x || !y)
      return std::nullopt;
    bool add = isa<arith::AddIOp>(op);
    bool nonNegative = add ? x->nonNegative && y->nonNegative
                           : x->nonNegative && y->coef == 0 && y->divisor == 0;
    return ClusterAffine{add ? x->coef + y->coef : x->coef - y->coef,
                         gcd0(x->divisor, y->divisor), nonNegative};
  }
  if (isa<arith::MulIOp, arith::ShLIOp>(op)) {
    Result x = operand(0), y = operand(1);
    if (!x || !y)
      return std::nullopt;
    std::optional<int64_t> c = constantOf(op->getOperand(1));
    Result other = x;
    if (isa<arith::ShLIOp>(op)) {
      if (!c || *c < 0 || *c > 30)
        return std::nullopt;
      c = int64_t(1) << *c;
    } else if (!c) {
      c = constantOf(op->getOperand(0));
      other = y;
    }
    if (c)
      return ClusterAffine{other->coef * *c, other->divisor * (*c < 0 ? -*c : *c),
                           other->nonNegative && *c >= 0};
    if (x->uniform() && y->uniform())
      return uniform(x->divisor * y->divisor, x->nonNegative && y->nonNegative);
    return std::nullopt;
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(op))
    return operand(0);
  // Any other pure op of uniform scalar operands (min, max, select,
  // compares, tile.grouped_ids, a truncation) is uniform.
  if (!isMemoryEffectFree(op) || op->getNumRegions())
    return std::nullopt;
  bool nonNegative = isa<GroupedIdsOp>(op);
  if (isa<arith::MinSIOp, arith::MinUIOp, arith::MaxSIOp, arith::MaxUIOp>(
          op)) {
    Result x = operand(0), y = operand(1);
    nonNegative = x && y &&
                  (isa<arith::MaxSIOp>(op) ? x->nonNegative || y->nonNegative
                                           : x->nonNegative && y->nonNegative);
  }
  for (Value in : op->getOperands()) {
    Result a = get(in);
    if (!a || !a->uniform())
      return std::nullopt;
  }
  return uniform(1, nonNegative);
}
