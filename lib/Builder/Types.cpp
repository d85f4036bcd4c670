//===- Types.cpp - DType <-> MLIR types, shapes, printing -----------------===//

#include "Detail.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace tilec {
using namespace detail;


Type detail::toMlir(DType type, MLIRContext *ctx) {
  Builder b(ctx);
  switch (type) {
  case DType::I1:
    return b.getI1Type();
  case DType::I8:
    return b.getI8Type();
  case DType::I16:
    return b.getI16Type();
  case DType::I32:
    return b.getI32Type();
  case DType::I64:
    return b.getI64Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::F32:
    return b.getF32Type();
  case DType::F64:
    return b.getF64Type();
  case DType::F8E4M3FN:
    return b.getType<Float8E4M3FNType>();
  case DType::F8E5M2:
    return b.getType<Float8E5M2Type>();
  }
  return {};
}

std::optional<DType> detail::fromMlir(Type type) {
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

std::string detail::shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + std::to_string(d);
  return s.empty() ? "scalar" : s;
}

std::string detail::typeStr(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto t = dyn_cast<RankedTensorType>(type)) {
    for (int64_t d : t.getShape())
      os << d << "x";
    os << t.getElementType();
  } else {
    os << type;
  }
  return s;
}

std::optional<SmallVector<int64_t>>
detail::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align trailing dimensions; a missing one counts as 1.
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

} // namespace tilec
