//===- RemoveLayoutConversions.cpp - recompute instead of converting ------===//
//
// Assumes: tiles carry layouts (tile-assign-layouts ran). Guarantees: every
// tile.convert_layout whose source is index arithmetic of at most
// kMaxOps ops (no block arguments) is replaced by a copy of that arithmetic
// in the target layout; chains of conversions collapse. The arithmetic may
// read small tiles (non-volatile loads of at most kMaxReloadElems elements,
// such as a matmul's bias row) and cast floats: the copy re-reads them in
// the target layout. Copies sit right after the ops they copy, so they
// dominate every use (and a re-read load reads what the original read).
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

namespace tilec {
#define GEN_PASS_DEF_TILEREMOVELAYOUTCONVERSIONS
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

constexpr unsigned kMaxOps = 24;

/// The most elements a load may have to be re-issued in another layout
/// instead of converted. A bias row of a matmul's epilogue (128 or 256
/// elements) loaded again in the accumulator's slice costs each thread a
/// few vector loads that hit L1 (the threads sharing a column read the same
/// bytes); the conversion costs a round trip through shared memory between
/// two barriers. Larger tiles are data, whose re-read would cost bandwidth.
constexpr int64_t kMaxReloadElems = 256;

RankedTensorType withLayout(Type type, Attribute layout) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get(t.getShape(), t.getElementType(), layout);
}

/// Ops cheap enough to recompute in another layout.
bool isCheap(Operation *op) {
  if (isa<RangeOp, SplatOp, BroadcastOp, ExpandDimsOp, AddPtrOp,
          ConvertLayoutOp>(op))
    return true;
  if (auto load = dyn_cast<LoadOp>(op))
    return !load.getIsVolatile() &&
           cast<RankedTensorType>(load.getType()).getNumElements() <=
               kMaxReloadElems;
  if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp>(op))
    return true;
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    return isa<SplatElementsAttr>(c.getValue());
  return isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp,
             arith::DivUIOp, arith::RemSIOp, arith::RemUIOp, arith::AndIOp,
             arith::OrIOp, arith::XOrIOp, arith::CmpIOp, arith::SelectOp,
             arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::MinSIOp,
             arith::MaxSIOp, arith::MinUIOp, arith::MaxUIOp>(op);
}

/// The layout operand `i` of a copy of `op` producing `layout` needs.
Attribute operandLayout(Operation *op, Attribute layout) {
  if (auto e = dyn_cast<ExpandDimsOp>(op))
    return SliceLayoutAttr::get(op->getContext(), e.getAxis(), layout);
  return layout;
}

class Rematerializer {
public:
  /// True when `v` can be recomputed in another layout within the budget.
  bool canRemat(Value v, unsigned &budget) {
    if (!isa<RankedTensorType>(v.getType()))
      return true;
    Operation *op = v.getDefiningOp();
    if (!op || !isCheap(op) || budget == 0)
      return false;
    --budget;
    for (Value o : op->getOperands())
      if (!canRemat(o, budget))
        return false;
    return true;
  }

  /// `v` recomputed with `layout` (v itself if it has it already).
  Value remat(Value v, Attribute layout) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getEncoding() == layout)
      return v;
    auto key = std::make_pair(v, layout);
    if (Value done = memo.lookup(key))
      return done;
    Operation *op = v.getDefiningOp();
    Value result;
    if (auto cvt = dyn_cast<ConvertLayoutOp>(op)) {
      result = remat(cvt.getSrc(), layout);
    } else {
      OpBuilder b(op->getContext());
      b.setInsertionPointAfter(op);
      Operation *copy = b.clone(*op);
      Attribute need = operandLayout(op, layout);
      for (OpOperand &o : copy->getOpOperands())
        o.set(remat(o.get(), need));
      result = copy->getResult(0);
      result.setType(withLayout(type, layout));
      if (auto cst = dyn_cast<arith::ConstantOp>(copy))
        cst.setValueAttr(cast<SplatElementsAttr>(cst.getValue())
                             .reshape(cast<ShapedType>(result.getType())));
    }
    memo[key] = result;
    return result;
  }

private:
  DenseMap<std::pair<Value, Attribute>, Value> memo;
};

struct TileRemoveLayoutConversions
    : public tilec::impl::TileRemoveLayoutConversionsBase<
          TileRemoveLayoutConversions> {
  void runOnOperation() override {
    Rematerializer remat;
    SmallVector<ConvertLayoutOp> converts;
    getOperation().walk([&](ConvertLayoutOp op) { converts.push_back(op); });
    for (ConvertLayoutOp op : converts) {
      Attribute layout = op.getType().getEncoding();
      // convert(convert(x)) -> convert(x)
      while (auto inner = op.getSrc().getDefiningOp<ConvertLayoutOp>())
        op.getSrcMutable().set(inner.getSrc());
      if (op.getSrc().getType() == op.getType()) {
        op.replaceAllUsesWith(op.getSrc());
        op.erase();
        continue;
      }
      unsigned budget = kMaxOps;
      if (!layout || !remat.canRemat(op.getSrc(), budget))
        continue;
      op.replaceAllUsesWith(remat.remat(op.getSrc(), layout));
      op.erase();
    }
    // Inner conversions and the originals of copies may be dead now.
    getOperation().walk([&](Operation *op) {
      if (isa<ConvertLayoutOp>(op) && op->use_empty())
        op->erase();
    });
  }
};

} // namespace
