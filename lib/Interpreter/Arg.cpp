//===- Arg.cpp - dtypes and kernel arguments ------------------------------===//

#include "FloatFormats.h"
#include "Tile.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace tilec;

std::optional<DType> tilec::dtypeOf(Type type) {
  if (auto i = dyn_cast<IntegerType>(type)) {
    switch (i.getWidth()) {
    case 1:
      return DType::I1;
    case 8:
      return DType::I8;
    case 16:
      return DType::I16;
    case 32:
      return DType::I32;
    case 64:
      return DType::I64;
    default:
      return std::nullopt;
    }
  }
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (isa<Float8E4M3FNType>(type))
    return DType::F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return DType::F8E5M2;
  return std::nullopt;
}

Arg Arg::buffer(void *data, size_t count, DType dtype) {
  Arg arg;
  arg.isBuffer_ = true;
  arg.data_ = data;
  arg.count_ = count;
  arg.dtype_ = dtype;
  return arg;
}

Arg Arg::output(void *data, size_t count, DType dtype) {
  Arg arg = buffer(data, count, dtype);
  arg.isOutput_ = true;
  return arg;
}

Arg Arg::scalar(DType dtype, double value) {
  Arg arg;
  arg.dtype_ = dtype;
  if (isFloat(dtype))
    arg.floatValue_ = interp::roundToFormat(value, interp::formatOf(dtype));
  else
    arg = scalarInt(dtype, int64_t(value));
  return arg;
}

Arg Arg::scalarInt(DType dtype, int64_t value) {
  Arg arg;
  arg.dtype_ = dtype;
  if (isFloat(dtype))
    arg.floatValue_ =
        interp::roundToFormat(double(value), interp::formatOf(dtype));
  else
    arg.intValue_ = interp::wrapInt(
        value, dtype == DType::I1 ? 1 : unsigned(dtypeSize(dtype)) * 8);
  return arg;
}
