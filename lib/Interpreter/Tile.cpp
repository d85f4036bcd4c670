//===- Tile.cpp - runtime values of the interpreter -----------------------===//

#include "Tile.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;

Tile::Tile(ArrayRef<int64_t> shape, Type elementType)
    : shape(shape), elementType(elementType) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  if (isFloat())
    floats.resize(n);
  else
    ints.resize(n);
}

MutableTileRef interp::makeTile(ArrayRef<int64_t> shape, Type elementType) {
  return std::make_shared<Tile>(shape, elementType);
}

TileRef interp::makeIntScalar(Type type, int64_t value) {
  auto tile = makeTile({}, type);
  tile->ints[0] = wrapInt(value, intWidth(type));
  return tile;
}

TileRef interp::makeFloatScalar(Type type, double value) {
  auto tile = makeTile({}, type);
  tile->floats[0] = roundToFormat(value, formatOf(type));
  return tile;
}

unsigned interp::intWidth(Type type) {
  if (auto i = dyn_cast<IntegerType>(type))
    return i.getWidth();
  if (isa<IndexType>(type))
    return 64;
  return 0;
}

FloatFormat interp::formatOf(Type type) {
  if (type.isF16())
    return FloatFormat::F16;
  if (type.isBF16())
    return FloatFormat::BF16;
  if (type.isF64())
    return FloatFormat::F64;
  if (isa<Float8E4M3FNType>(type))
    return FloatFormat::F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return FloatFormat::F8E5M2;
  return FloatFormat::F32;
}

SmallVector<int64_t, 4> interp::stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

std::string interp::formatIndex(ArrayRef<int64_t> shape, int64_t flat) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  SmallVector<int64_t, 4> strides = stridesOf(shape);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      os << ", ";
    os << flat / strides[i];
    flat %= strides[i];
  }
  os << "]";
  return text;
}
