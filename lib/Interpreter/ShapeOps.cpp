//===- ShapeOps.cpp - program ids, ranges and shape ops -------------------===//
//
// Shape ops only move elements: splat, broadcast, expand_dims, reshape,
// trans, join, split; convert_layout is the identity (layouts do not exist
// on the host).
//
//===----------------------------------------------------------------------===//

#include "ShapeOps.h"
#include "Elementwise.h"
#include "Executor.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;

template <typename T>
static void gatherInto(const T *src, T *dst, ArrayRef<int64_t> shape,
                       ArrayRef<int64_t> strides, int64_t offset) {
  int64_t rank = shape.size();
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  if (n == 0)
    return;
  if (rank == 0) {
    dst[0] = src[offset];
    return;
  }
  // Walk the result in row-major order, keeping the source position in step;
  // the innermost dimension is a plain strided loop.
  SmallVector<int64_t, 4> index(rank, 0);
  int64_t inner = shape.back(), innerStride = strides.back();
  int64_t pos = offset;
  for (int64_t out = 0; out < n; out += inner) {
    for (int64_t i = 0; i < inner; ++i)
      dst[out + i] = src[pos + i * innerStride];
    for (int64_t d = rank - 2; d >= 0; --d) {
      pos += strides[d];
      if (++index[d] < shape[d])
        break;
      pos -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

MutableTileRef interp::gather(const Tile &src, ArrayRef<int64_t> shape,
                              ArrayRef<int64_t> strides, int64_t offset) {
  auto out = makeTile(shape, src.elementType);
  if (src.isFloat())
    gatherInto(src.floats.data(), out->floats.data(), shape, strides, offset);
  else
    gatherInto(src.ints.data(), out->ints.data(), shape, strides, offset);
  return out;
}

MutableTileRef interp::reshaped(const Tile &src, ArrayRef<int64_t> shape) {
  auto out = std::make_shared<Tile>(src);
  out->shape.assign(shape.begin(), shape.end());
  return out;
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return tile::getShapeOrEmpty(value.getType());
}

namespace {

LogicalResult executeProgramId(Executor &ex, Operation *op) {
  int32_t axis = cast<tile::ProgramIdOp>(op).getAxis();
  int64_t id = axis == 0 ? ex.pid.x : axis == 1 ? ex.pid.y : ex.pid.z;
  ex.set(op->getResult(0), makeIntScalar(op->getResult(0).getType(), id));
  return success();
}

LogicalResult executeNumPrograms(Executor &ex, Operation *op) {
  int32_t axis = cast<tile::NumProgramsOp>(op).getAxis();
  int64_t n = axis == 0 ? ex.grid.x : axis == 1 ? ex.grid.y : ex.grid.z;
  ex.set(op->getResult(0), makeIntScalar(op->getResult(0).getType(), n));
  return success();
}

LogicalResult executeRange(Executor &ex, Operation *op) {
  auto range = cast<tile::RangeOp>(op);
  TileRef &cached = ex.constants[op];
  if (!cached) {
    auto out = makeTile(shapeOf(range.getResult()), resultElementType(op));
    for (int64_t i = 0, n = out->size(); i < n; ++i)
      out->ints[i] = range.getStart() + i;
    cached = std::move(out);
  }
  ex.set(range.getResult(), cached);
  return success();
}

LogicalResult executeSplat(Executor &ex, Operation *op) {
  auto splat = cast<tile::SplatOp>(op);
  const Tile &src = ex.get(splat.getSrc());
  auto out = makeTile(shapeOf(splat.getResult()), src.elementType);
  if (out->isFloat())
    std::fill(out->floats.begin(), out->floats.end(), src.floats[0]);
  else
    std::fill(out->ints.begin(), out->ints.end(), src.ints[0]);
  ex.set(splat.getResult(), std::move(out));
  return success();
}

LogicalResult executeBroadcast(Executor &ex, Operation *op) {
  auto broadcast = cast<tile::BroadcastOp>(op);
  const Tile &src = ex.get(broadcast.getSrc());
  SmallVector<int64_t, 4> strides = stridesOf(src.shape);
  for (auto [i, d] : llvm::enumerate(src.shape))
    if (d == 1)
      strides[i] = 0;
  ex.set(broadcast.getResult(),
         gather(src, shapeOf(broadcast.getResult()), strides, 0));
  return success();
}

/// expand_dims and reshape keep the row-major element order.
LogicalResult executeReshape(Executor &ex, Operation *op) {
  const Tile &src = ex.get(op->getOperand(0));
  ex.set(op->getResult(0), reshaped(src, shapeOf(op->getResult(0))));
  return success();
}

LogicalResult executeTrans(Executor &ex, Operation *op) {
  auto trans = cast<tile::TransOp>(op);
  const Tile &src = ex.get(trans.getSrc());
  SmallVector<int64_t, 4> srcStrides = stridesOf(src.shape);
  SmallVector<int64_t, 4> strides;
  for (int32_t d : trans.getOrder())
    strides.push_back(srcStrides[d]);
  ex.set(trans.getResult(),
         gather(src, shapeOf(trans.getResult()), strides, 0));
  return success();
}

LogicalResult executeJoin(Executor &ex, Operation *op) {
  auto join = cast<tile::JoinOp>(op);
  const Tile &lhs = ex.get(join.getLhs()), &rhs = ex.get(join.getRhs());
  auto out = makeTile(shapeOf(join.getResult()), lhs.elementType);
  for (int64_t i = 0, n = lhs.size(); i < n; ++i) {
    if (out->isFloat()) {
      out->floats[2 * i] = lhs.floats[i];
      out->floats[2 * i + 1] = rhs.floats[i];
    } else {
      out->ints[2 * i] = lhs.ints[i];
      out->ints[2 * i + 1] = rhs.ints[i];
    }
  }
  ex.set(join.getResult(), std::move(out));
  return success();
}

LogicalResult executeSplit(Executor &ex, Operation *op) {
  auto split = cast<tile::SplitOp>(op);
  const Tile &src = ex.get(split.getSrc());
  ArrayRef<int64_t> shape = shapeOf(split.getLhs());
  SmallVector<int64_t, 4> strides = stridesOf(src.shape);
  strides.pop_back();
  ex.set(split.getLhs(), gather(src, shape, strides, 0));
  ex.set(split.getRhs(), gather(src, shape, strides, 1));
  return success();
}

LogicalResult executeIdentity(Executor &ex, Operation *op) {
  ex.set(op->getResult(0), ex.getRef(op->getOperand(0)));
  return success();
}

} // namespace

void interp::registerShapeHandlers(HandlerTable &t) {
  addHandler<tile::ProgramIdOp>(t, executeProgramId);
  addHandler<tile::NumProgramsOp>(t, executeNumPrograms);
  addHandler<tile::RangeOp>(t, executeRange);
  addHandler<tile::SplatOp>(t, executeSplat);
  addHandler<tile::BroadcastOp>(t, executeBroadcast);
  addHandler<tile::ExpandDimsOp>(t, executeReshape);
  addHandler<tile::ReshapeOp>(t, executeReshape);
  addHandler<tile::TransOp>(t, executeTrans);
  addHandler<tile::JoinOp>(t, executeJoin);
  addHandler<tile::SplitOp>(t, executeSplit);
  addHandler<tile::ConvertLayoutOp>(t, executeIdentity);
}
