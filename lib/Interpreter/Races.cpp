//===- Races.cpp - races between programs and within a store --------------===//
//
// A store stamps the bytes it writes with its program; a later load or
// store of another program that meets a foreign stamp races with it. A store
// over bytes holding the very value it writes changes nothing in any order
// and is not reported. Atomics neither check nor stamp.
//
//===----------------------------------------------------------------------===//

#include "Races.h"

#include <cstring>
#include <numeric>

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;

/// " at element [i]" for tiles, nothing for scalars.
static std::string elementText(const Tile &ptrs, int64_t i) {
  return ptrs.isScalar() ? "" : " at element " + formatIndex(ptrs.shape, i);
}

LogicalResult interp::checkReadRace(Executor &ex, Operation *op,
                                    const Tile &ptrs, int64_t i,
                                    unsigned size) {
  int64_t ptr = ptrs.ints[i];
  uint32_t writer = ex.memory.otherWriter(ptr, size);
  if (!writer)
    return success();
  return ex.error(op) << op->getName() << " in " << ex.programText()
                      << elementText(ptrs, i) << " reads "
                      << ex.memory.describe(ptr, size) << ", which "
                      << Executor::programText(ex.programOfStamp(writer))
                      << " stored: programs run in no particular order on "
                         "the GPU, so the load may see the old or the new "
                         "value (a race)";
}

LogicalResult interp::checkWriteRace(Executor &ex, Operation *op,
                                     const Tile &ptrs, int64_t i,
                                     unsigned size, uint64_t bits) {
  int64_t ptr = ptrs.ints[i];
  uint32_t writer = ex.memory.otherWriter(ptr, size);
  if (!writer || std::memcmp(ex.memory.address(ptr), &bits, size) == 0)
    return success();
  return ex.error(op) << op->getName() << " in " << ex.programText()
                      << elementText(ptrs, i) << " overwrites "
                      << ex.memory.describe(ptr, size) << ", which "
                      << Executor::programText(ex.programOfStamp(writer))
                      << " stored with another value: programs run in no "
                         "particular order on the GPU, so which value remains "
                         "depends on the schedule (a race)";
}

LogicalResult
interp::checkStoreDuplicates(Executor &ex, Operation *op, const Tile &ptrs,
                             llvm::function_ref<bool(int64_t)> active,
                             ArrayRef<uint64_t> bits, unsigned size) {
  SmallVector<int64_t> order;
  for (int64_t i = 0, n = ptrs.size(); i < n; ++i)
    if (active(i))
      order.push_back(i);
  // Most stores write increasing addresses: nothing to sort then.
  auto before = [&](int64_t a, int64_t b) {
    return ptrs.ints[a] < ptrs.ints[b] ||
           (ptrs.ints[a] == ptrs.ints[b] && a < b);
  };
  if (!std::is_sorted(order.begin(), order.end(), before))
    std::sort(order.begin(), order.end(), before);
  for (size_t k = 1; k < order.size(); ++k) {
    int64_t a = order[k - 1], b = order[k];
    if (ptrs.ints[a] != ptrs.ints[b] || bits[a] == bits[b])
      continue;
    return ex.error(op) << op->getName() << " in " << ex.programText()
                        << " writes "
                        << ex.memory.describe(ptrs.ints[a], size)
                        << " from elements " << formatIndex(ptrs.shape, a)
                        << " and " << formatIndex(ptrs.shape, b)
                        << " with different values: which one lands is "
                           "undefined on the GPU";
  }
  return success();
}
