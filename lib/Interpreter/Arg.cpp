//===- Arg.cpp - dtypes and kernel arguments ------------------------------===//

#include "FloatFormats.h"
#include "Tile.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace tilec;

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

Arg Arg::tensorDesc(Arg buffer, std::vector<int64_t> shape,
                    std::vector<int64_t> strides) {
  Arg arg = std::move(buffer);
  if (strides.empty() && !shape.empty()) {
    strides.assign(shape.size(), 1);
    for (size_t i = shape.size() - 1; i-- > 0;)
      strides[i] = strides[i + 1] * shape[i + 1];
  }
  arg.descShape_ = std::move(shape);
  arg.descStrides_ = std::move(strides);
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
