//===- Arg.cpp - dtypes and kernel arguments ------------------------------===//

#include "FloatFormats.h"
#include "Tile.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace tilec;

size_t tilec::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::I1:
  case DType::I8:
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return 1;
  case DType::I16:
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I32:
  case DType::F32:
    return 4;
  case DType::I64:
  case DType::F64:
    return 8;
  }
  return 1;
}

StringRef tilec::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::I1:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::F8E4M3FN:
    return "f8E4M3FN";
  case DType::F8E5M2:
    return "f8E5M2";
  }
  return "?";
}

std::optional<DType> tilec::parseDType(StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("i1", DType::I1)
      .Case("i8", DType::I8)
      .Case("i16", DType::I16)
      .Case("i32", DType::I32)
      .Case("i64", DType::I64)
      .Case("f16", DType::F16)
      .Case("bf16", DType::BF16)
      .Case("f32", DType::F32)
      .Case("f64", DType::F64)
      .Case("f8E4M3FN", DType::F8E4M3FN)
      .Case("f8E5M2", DType::F8E5M2)
      .Default(std::nullopt);
}

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

bool tilec::isFloatDType(DType dtype) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16:
  case DType::F32:
  case DType::F64:
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return true;
  default:
    return false;
  }
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
  if (isFloatDType(dtype))
    arg.floatValue_ = interp::roundToFormat(value, interp::formatOf(dtype));
  else
    arg = scalarInt(dtype, int64_t(value));
  return arg;
}

Arg Arg::scalarInt(DType dtype, int64_t value) {
  Arg arg;
  arg.dtype_ = dtype;
  if (isFloatDType(dtype))
    arg.floatValue_ =
        interp::roundToFormat(double(value), interp::formatOf(dtype));
  else
    arg.intValue_ = interp::wrapInt(
        value, dtype == DType::I1 ? 1 : unsigned(dtypeSize(dtype)) * 8);
  return arg;
}
