//===- Types.cpp - DType <-> MLIR types, shapes, printing -----------------===//

#include "Detail.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace tilec {
using namespace detail;




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
