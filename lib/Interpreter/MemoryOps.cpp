//===- MemoryOps.cpp - pointers, loads, stores and atomics ----------------===//
//
// Every active element of a load, store or atomic is checked against the
// buffer its pointer was derived from (bounds, alignment, and for output
// buffers whether the bytes were written before they are read). The first
// faulting element stops the run with a report naming the op, the program,
// the element, the buffer and the offset, and how many elements of the
// access fault. A tensor descriptor's block is checked element by element
// the same way where it lies inside the descriptor's shape; outside, reads
// give zero and writes are dropped, as the TMA does. Masked-off elements access nothing: a load gives `other`
// there, or 0 without it. Atomics apply element by element in index order,
// programs one after another, and return the old values.
//
//===----------------------------------------------------------------------===//

#include "Elementwise.h"
#include "Executor.h"
#include "Races.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace tilec;
using namespace tilec::interp;
using tilec::DType;

namespace {

/// What one memory op accesses, for the checks and the report.
struct Access {
  Executor &ex;
  Operation *op;
  const Tile &ptrs;
  const Tile *mask; ///< null when the op has none
  DType dtype;      ///< the pointee type
  unsigned size;    ///< bytes per element
  bool isRead;
  /// What an active element is, for reports ("its mask is true").
  const char *activeWhy = "its mask is true";

  bool active(int64_t i) const {
    return !mask || mask->ints[mask->size() == 1 ? 0 : i] != 0;
  }

  /// Checks element `i`; reports the fault (and how many elements of the
  /// access fault) and fails if it is invalid.
  LogicalResult check(int64_t i) const {
    Fault fault = ex.memory.check(ptrs.ints[i], size, isRead);
    if (fault == Fault::None)
      return success();
    return report(fault, i);
  }

  LogicalResult report(Fault fault, int64_t first) const {
    int64_t ptr = ptrs.ints[first];
    int64_t faulting = 0;
    for (int64_t i = first, n = ptrs.size(); i < n; ++i)
      if (active(i) && ex.memory.check(ptrs.ints[i], size, isRead) == fault)
        ++faulting;
    StringRef opName = op->getName().getStringRef();
    std::string where = ex.programText();
    if (!ptrs.isScalar())
      where += " at element " + formatIndex(ptrs.shape, first);
    InFlightDiagnostic diag = ex.error(op);
    std::string target = ex.memory.describe(ptr, size);
    switch (fault) {
    case Fault::OutOfBounds:
      diag << "out-of-bounds " << opName << " in " << where << ": " << target;
      break;
    case Fault::Misaligned:
      diag << "misaligned " << opName << " in " << where << ": " << target
           << " is not a multiple of " << size << " bytes";
      break;
    case Fault::Uninitialized:
      diag << opName << " in " << where
           << " reads uninitialized memory: " << target
           << "; nothing has written this element of the output buffer";
      break;
    case Fault::None:
      break;
    }
    if (!ptrs.isScalar()) {
      diag << " (" << (mask ? activeWhy : "the access has no mask");
      if (faulting > 1)
        diag << "; " << faulting << " elements of this access fault";
      diag << ")";
    }
    return diag;
  }
};

const Tile *optionalTile(Executor &ex, Value value) {
  return value ? &ex.get(value) : nullptr;
}

/// The access `op` makes through `ptr`, masked by `mask` when it has one;
/// none (reported) when the interpreter cannot access the pointee type.
std::optional<Access> accessOf(Executor &ex, Operation *op, Value ptr,
                               Value mask, bool isRead) {
  Type pointee = cast<tile::PointerType>(getElementTypeOrSelf(ptr.getType()))
                     .getPointeeType();
  std::optional<DType> dtype = tilec::dtypeOf(pointee);
  if (!dtype) {
    (void)(ex.error(op) << "the CPU interpreter cannot access memory of type "
                        << pointee);
    return std::nullopt;
  }
  unsigned size = unsigned(tilec::dtypeSize(*dtype));
  return Access{ex, op, ex.get(ptr), optionalTile(ex, mask), *dtype, size,
                isRead};
}

LogicalResult executeAddPtr(Executor &ex, Operation *op) {
  auto addptr = cast<tile::AddPtrOp>(op);
  Type pointee =
      cast<tile::PointerType>(getElementTypeOrSelf(addptr.getPtr().getType()))
          .getPointeeType();
  int64_t elemSize = 8;
  if (std::optional<DType> dtype = tilec::dtypeOf(pointee))
    elemSize = tilec::dtypeSize(*dtype);
  ex.set(addptr.getResult(),
         map2<int64_t, int64_t, int64_t>(
             resultElementType(op), ex.get(addptr.getPtr()),
             ex.get(addptr.getOffset()), [&](int64_t ptr, int64_t offset) {
               int64_t bytes;
               if (__builtin_mul_overflow(offset, elemSize, &bytes))
                 bytes = offset < 0 ? INT64_MIN : INT64_MAX;
               return Memory::advance(ptr, bytes);
             }));
  return success();
}

LogicalResult executePtrBitcast(Executor &ex, Operation *op) {
  auto out = std::make_shared<Tile>(ex.get(op->getOperand(0)));
  out->elementType = resultElementType(op);
  ex.set(op->getResult(0), std::move(out));
  return success();
}

LogicalResult executeLoad(Executor &ex, Operation *op) {
  auto load = cast<tile::LoadOp>(op);
  std::optional<Access> made =
      accessOf(ex, op, load.getPtr(), load.getMask(), /*isRead=*/true);
  if (!made)
    return failure();
  const Access &access = *made;
  DType dtype = access.dtype;
  const Tile *other = optionalTile(ex, load.getOther());
  auto out = makeTile(access.ptrs.shape, resultElementType(op));
  bool isFloat = out->isFloat();
  uint64_t loaded = 0;
  for (int64_t i = 0, n = out->size(); i < n; ++i) {
    if (!access.active(i)) {
      int64_t j = other && other->size() == n ? i : 0;
      if (isFloat)
        out->floats[i] = other ? other->floats[j] : 0.0;
      else
        out->ints[i] = other ? other->ints[j] : 0;
      continue;
    }
    if (failed(access.check(i)) ||
        (ex.checkRaces &&
         failed(checkReadRace(ex, op, access.ptrs, i, access.size))))
      return failure();
    const uint8_t *addr = ex.memory.address(access.ptrs.ints[i]);
    if (isFloat)
      out->floats[i] = loadFloat(addr, dtype);
    else
      out->ints[i] = loadInt(addr, dtype);
    ++loaded;
  }
  ex.stats.elementsLoaded += loaded;
  ex.set(load.getResult(), std::move(out));
  return success();
}

LogicalResult executeStore(Executor &ex, Operation *op) {
  auto store = cast<tile::StoreOp>(op);
  std::optional<Access> made =
      accessOf(ex, op, store.getPtr(), store.getMask(), /*isRead=*/false);
  if (!made)
    return failure();
  const Access &access = *made;
  DType dtype = access.dtype;
  const Tile &value = ex.get(store.getValue());
  // The bytes each element writes, encoded once for the race checks too.
  int64_t n = access.ptrs.size();
  std::vector<uint64_t> bits(n, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (value.isFloat())
      bits[i] = encodeFloat(value.floats[i], dtype);
    else
      storeInt(reinterpret_cast<uint8_t *>(&bits[i]), dtype, value.ints[i]);
  }
  auto active = [&](int64_t i) { return access.active(i); };
  if (ex.checkRaces && !access.ptrs.isScalar() &&
      failed(checkStoreDuplicates(ex, op, access.ptrs, active, bits,
                                  access.size)))
    return failure();
  uint64_t stored = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!access.active(i))
      continue;
    if (failed(access.check(i)) ||
        (ex.checkRaces && failed(checkWriteRace(ex, op, access.ptrs, i,
                                                access.size, bits[i]))))
      return failure();
    int64_t ptr = access.ptrs.ints[i];
    std::memcpy(ex.memory.address(ptr), &bits[i], access.size);
    ex.memory.markWritten(ptr, access.size);
    ex.memory.stampWrite(ptr, access.size);
    ++stored;
  }
  ex.stats.elementsStored += stored;
  return success();
}

/// The new value of an integer atomic: `old kind val` at width `w`.
int64_t combineInt(tile::RMWKind kind, int64_t old, int64_t val, unsigned w) {
  switch (kind) {
  case tile::RMWKind::Add:
    return wrapInt(int64_t(uint64_t(old) + uint64_t(val)), w);
  case tile::RMWKind::Max:
    return std::max(old, val);
  case tile::RMWKind::Min:
    return std::min(old, val);
  case tile::RMWKind::UMax:
    return unsignedInt(old, w) >= unsignedInt(val, w) ? old : val;
  case tile::RMWKind::UMin:
    return unsignedInt(old, w) <= unsignedInt(val, w) ? old : val;
  case tile::RMWKind::And:
    return old & val;
  case tile::RMWKind::Or:
    return old | val;
  case tile::RMWKind::Xor:
    return old ^ val;
  case tile::RMWKind::Xchg:
  case tile::RMWKind::FAdd:
    return val;
  }
  return val;
}

double combineFloat(tile::RMWKind kind, double old, double val,
                    FloatFormat format) {
  switch (kind) {
  case tile::RMWKind::FAdd:
    return roundToFormat(old + val, format);
  case tile::RMWKind::Max:
    return std::fmax(old, val);
  case tile::RMWKind::Min:
    return std::fmin(old, val);
  default:
    return val; // xchg
  }
}

/// `*addr = kind(*addr, element i of val)` in `dtype`; the old value into
/// element i of `old` when given.
void rmwAt(uint8_t *addr, DType dtype, tile::RMWKind kind, const Tile &val,
           int64_t i, unsigned width, FloatFormat format, Tile *old) {
  if (val.isFloat()) {
    double before = loadFloat(addr, dtype);
    storeFloat(addr, dtype, combineFloat(kind, before, val.floats[i], format));
    if (old)
      old->floats[i] = before;
    return;
  }
  int64_t before = loadInt(addr, dtype);
  storeInt(addr, dtype, combineInt(kind, before, val.ints[i], width));
  if (old)
    old->ints[i] = before;
}

LogicalResult executeAtomicRMW(Executor &ex, Operation *op) {
  auto rmw = cast<tile::AtomicRMWOp>(op);
  std::optional<Access> made =
      accessOf(ex, op, rmw.getPtr(), rmw.getMask(), /*isRead=*/true);
  if (!made)
    return failure();
  const Access &access = *made;
  DType dtype = access.dtype;
  const Tile &val = ex.get(rmw.getVal());
  Type elem = resultElementType(op);
  auto out = makeTile(access.ptrs.shape, elem);
  unsigned w = intWidth(elem);
  FloatFormat format = formatOf(elem);
  for (int64_t i = 0, n = out->size(); i < n; ++i) {
    if (!access.active(i))
      continue;
    if (failed(access.check(i)))
      return failure();
    int64_t ptr = access.ptrs.ints[i];
    rmwAt(ex.memory.address(ptr), dtype, rmw.getKind(), val, i, w, format,
          out.get());
    ex.memory.markWritten(ptr, access.size);
    ++ex.stats.atomics;
  }
  ex.set(rmw.getResult(), std::move(out));
  return success();
}

LogicalResult executeAtomicCAS(Executor &ex, Operation *op) {
  auto cas = cast<tile::AtomicCASOp>(op);
  std::optional<Access> made =
      accessOf(ex, op, cas.getPtr(), Value(), /*isRead=*/true);
  if (!made)
    return failure();
  const Access &access = *made;
  DType dtype = access.dtype;
  const Tile &cmp = ex.get(cas.getCmp()), &val = ex.get(cas.getVal());
  auto out = makeTile(access.ptrs.shape, resultElementType(op));
  for (int64_t i = 0, n = out->size(); i < n; ++i) {
    if (failed(access.check(i)))
      return failure();
    int64_t ptr = access.ptrs.ints[i];
    uint8_t *addr = ex.memory.address(ptr);
    // Compare bit patterns, as the hardware does (-0.0 != +0.0, NaN == NaN).
    if (out->isFloat()) {
      double old = loadFloat(addr, dtype);
      if (encodeFloat(old, dtype) == encodeFloat(cmp.floats[i], dtype))
        storeFloat(addr, dtype, val.floats[i]);
      out->floats[i] = old;
    } else {
      int64_t old = loadInt(addr, dtype);
      if (old == cmp.ints[i])
        storeInt(addr, dtype, val.ints[i]);
      out->ints[i] = old;
    }
    ex.memory.markWritten(ptr, access.size);
    ++ex.stats.atomics;
  }
  ex.set(cas.getResult(), std::move(out));
  return success();
}

/// A tensor descriptor's value (bindArguments): the base pointer, then the
/// shape, then the strides in elements, outermost dimension first.
struct DescView {
  int64_t base;
  ArrayRef<int64_t> shape, strides;
  explicit DescView(const Tile &t, int64_t rank)
      : base(t.ints[0]), shape(ArrayRef(t.ints).slice(1, rank)),
        strides(ArrayRef(t.ints).slice(1 + rank, rank)) {}
};

/// The pointers of a descriptor block's elements and whether each lies
/// inside the tensor (the elements outside read as zero, write nothing).
std::optional<Access> descriptorAccess(Executor &ex, Operation *op,
                                       Value desc, ValueRange offsets,
                                       MutableTileRef &ptrs,
                                       MutableTileRef &inside, bool isRead) {
  auto type = cast<tile::TensorDescType>(desc.getType());
  std::optional<DType> dtype = tilec::dtypeOf(type.getElementType());
  if (!dtype) {
    (void)(ex.error(op) << "the CPU interpreter cannot access memory of type "
                        << type.getElementType());
    return std::nullopt;
  }
  unsigned size = unsigned(tilec::dtypeSize(*dtype));
  int64_t rank = type.getRank();
  DescView d(ex.get(desc), rank);
  ArrayRef<int64_t> block = type.getBlockType().getShape();
  Type i64 = IntegerType::get(op->getContext(), 64);
  ptrs = makeTile(block, i64);
  inside = makeTile(block, IntegerType::get(op->getContext(), 1));
  SmallVector<int64_t> start;
  for (Value v : offsets)
    start.push_back(ex.get(v).ints[0]);
  SmallVector<int64_t, 4> strides = stridesOf(block);
  for (int64_t i = 0, n = ptrs->size(); i < n; ++i) {
    bool in = true;
    int64_t elems = 0;
    for (int64_t dim = 0; dim < rank; ++dim) {
      int64_t c = start[dim] + (i / strides[dim]) % block[dim];
      in &= c >= 0 && c < d.shape[dim];
      elems += c * d.strides[dim];
    }
    inside->ints[i] = in ? -1 : 0;
    ptrs->ints[i] = in ? Memory::advance(d.base, elems * size) : d.base;
  }
  Access access{ex, op, *ptrs, inside.get(), *dtype, size, isRead};
  access.activeWhy = "it lies inside the descriptor's shape";
  return access;
}

LogicalResult executeDescriptorLoad(Executor &ex, Operation *op) {
  auto load = cast<tile::DescriptorLoadOp>(op);
  MutableTileRef ptrs, inside;
  std::optional<Access> made = descriptorAccess(
      ex, op, load.getDesc(), load.getOffsets(), ptrs, inside, true);
  if (!made)
    return failure();
  const Access &access = *made;
  // The result may drop the block's leading unit dims: the same elements
  // in the same order.
  auto out = makeTile(cast<RankedTensorType>(load.getType()).getShape(),
                      resultElementType(op));
  bool isFloat = out->isFloat();
  uint64_t loaded = 0;
  for (int64_t i = 0, n = out->size(); i < n; ++i) {
    if (!access.active(i))
      continue; // zero, as the TMA fills
    if (failed(access.check(i)) ||
        (ex.checkRaces &&
         failed(checkReadRace(ex, op, access.ptrs, i, access.size))))
      return failure();
    const uint8_t *addr = ex.memory.address(access.ptrs.ints[i]);
    if (isFloat)
      out->floats[i] = loadFloat(addr, access.dtype);
    else
      out->ints[i] = loadInt(addr, access.dtype);
    ++loaded;
  }
  ex.stats.elementsLoaded += loaded;
  ex.set(load.getResult(), std::move(out));
  return success();
}

LogicalResult executeDescriptorStore(Executor &ex, Operation *op) {
  auto store = cast<tile::DescriptorStoreOp>(op);
  MutableTileRef ptrs, inside;
  std::optional<Access> made = descriptorAccess(
      ex, op, store.getDesc(), store.getOffsets(), ptrs, inside,
      /*isRead=*/store.getReduce().has_value());
  if (!made)
    return failure();
  const Access &access = *made;
  const Tile &value = ex.get(store.getValue());
  if (std::optional<tile::RMWKind> kind = store.getReduce()) {
    // Each element inside combined with memory, as an atomic is (no race
    // between reductions).
    Type elem = store.getDesc().getType().getElementType();
    unsigned w = intWidth(elem);
    FloatFormat format = formatOf(elem);
    for (int64_t i = 0, n = access.ptrs.size(); i < n; ++i) {
      if (!access.active(i))
        continue;
      if (failed(access.check(i)))
        return failure();
      int64_t ptr = access.ptrs.ints[i];
      rmwAt(ex.memory.address(ptr), access.dtype, *kind, value, i, w, format,
            nullptr);
      ex.memory.markWritten(ptr, access.size);
      ++ex.stats.atomics;
    }
    return success();
  }
  uint64_t stored = 0;
  for (int64_t i = 0, n = access.ptrs.size(); i < n; ++i) {
    if (!access.active(i))
      continue; // dropped, as the TMA drops it
    uint64_t bits = 0;
    if (value.isFloat())
      bits = encodeFloat(value.floats[i], access.dtype);
    else
      storeInt(reinterpret_cast<uint8_t *>(&bits), access.dtype,
               value.ints[i]);
    if (failed(access.check(i)) ||
        (ex.checkRaces && failed(checkWriteRace(ex, op, access.ptrs, i,
                                                access.size, bits))))
      return failure();
    int64_t ptr = access.ptrs.ints[i];
    std::memcpy(ex.memory.address(ptr), &bits, access.size);
    ex.memory.markWritten(ptr, access.size);
    ex.memory.stampWrite(ptr, access.size);
    ++stored;
  }
  ex.stats.elementsStored += stored;
  return success();
}

} // namespace

void interp::registerMemoryHandlers(HandlerTable &t) {
  addHandler<tile::AddPtrOp>(t, executeAddPtr);
  addHandler<tile::BitcastOp>(t, executePtrBitcast);
  addHandler<tile::LoadOp>(t, executeLoad);
  addHandler<tile::StoreOp>(t, executeStore);
  addHandler<tile::AtomicRMWOp>(t, executeAtomicRMW);
  addHandler<tile::AtomicCASOp>(t, executeAtomicCAS);
  addHandler<tile::DescriptorLoadOp>(t, executeDescriptorLoad);
  addHandler<tile::DescriptorStoreOp>(t, executeDescriptorStore);
}
