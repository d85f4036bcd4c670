//===- Types.cpp - DType <-> MLIR types, shapes, printing
//------------------===//

#include "Detail.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace tilec {
using namespace detail;

std::string_view dtypeName(DType type) {
  switch (type) {
  case DType::i1:
    return "i1";
  case DType::i8:
    return "i8";
  case DType::i16:
    return "i16";
  case DType::i32:
    return "i32";
  case DType::i64:
    return "i64";
  case DType::f16:
    return "f16";
  case DType::bf16:
    return "bf16";
  case DType::f32:
    return "f32";
  case DType::f64:
    return "f64";
  case DType::f8e4m3fn:
    return "f8E4M3FN";
  case DType::f8e5m2:
    return "f8E5M2";
  }
  return "?";
}

bool isFloat(DType type) { return type >= DType::f16; }
bool isInteger(DType type) { return type <= DType::i64; }

unsigned bitWidth(DType type) {
  switch (type) {
  case DType::i1:
    return 1;
  case DType::i8:
  case DType::f8e4m3fn:
  case DType::f8e5m2:
    return 8;
  case DType::i16:
  case DType::f16:
  case DType::bf16:
    return 16;
  case DType::i32:
  case DType::f32:
    return 32;
  case DType::i64:
  case DType::f64:
    return 64;
  }
  return 0;
}

Type detail::toMlir(DType type, MLIRContext *ctx) {
  Builder b(ctx);
  switch (type) {
  case DType::i1:
    return b.getI1Type();
  case DType::i8:
    return b.getI8Type();
  case DType::i16:
    return b.getI16Type();
  case DType::i32:
    return b.getI32Type();
  case DType::i64:
    return b.getI64Type();
  case DType::f16:
    return b.getF16Type();
  case DType::bf16:
    return b.getBF16Type();
  case DType::f32:
    return b.getF32Type();
  case DType::f64:
    return b.getF64Type();
  case DType::f8e4m3fn:
    return b.getType<Float8E4M3FNType>();
  case DType::f8e5m2:
    return b.getType<Float8E5M2Type>();
  }
  return {};
}

std::optional<DType> detail::fromMlir(Type type) {
  if (auto i = dyn_cast<IntegerType>(type)) {
    switch (i.getWidth()) {
    case 1:
      return DType::i1;
    case 8:
      return DType::i8;
    case 16:
      return DType::i16;
    case 32:
      return DType::i32;
    case 64:
      return DType::i64;
    default:
      return std::nullopt;
    }
  }
  if (type.isF16())
    return DType::f16;
  if (type.isBF16())
    return DType::bf16;
  if (type.isF32())
    return DType::f32;
  if (type.isF64())
    return DType::f64;
  if (isa<Float8E4M3FNType>(type))
    return DType::f8e4m3fn;
  if (isa<Float8E5M2Type>(type))
    return DType::f8e5m2;
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
