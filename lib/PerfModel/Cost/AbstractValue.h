//===- AbstractValue.h - tiles of intervals ---------------------*- C++ -*-===//
//
// The analyzer evaluates a kernel for a whole box of programs at once, so a
// value is not a number but an interval per element that holds the value
// in every program of the box. Integers (and i1 masks) are intervals;
// pointers are a buffer (the kernel parameter they derive from) and a byte
// offset interval per element; floats carry no value, only, for results of
// masked loads, whether each element came from an active lane (the dot's
// useful-FLOP count needs it). An interval with lo == hi is definite: the
// same in every program of the box.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_PERFMODEL_COST_ABSTRACTVALUE_H
#define TILEC_LIB_PERFMODEL_COST_ABSTRACTVALUE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace tilec::perfmodel {

/// A closed interval of integers of some width (sign-extended, as the
/// interpreter holds them; i1 is 0 or 1).
struct Iv {
  int64_t lo = 0, hi = 0;

  static Iv of(int64_t v) { return {v, v}; }
  bool definite() const { return lo == hi; }
  bool operator==(const Iv &o) const { return lo == o.lo && hi == o.hi; }
};

inline Iv hull(Iv a, Iv b) {
  return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

/// Every value of a `width`-bit integer (i1: 0..1).
inline Iv topOf(unsigned width) {
  if (width == 1)
    return {0, 1};
  if (width >= 64)
    return {std::numeric_limits<int64_t>::min(),
            std::numeric_limits<int64_t>::max()};
  return {-(int64_t(1) << (width - 1)), (int64_t(1) << (width - 1)) - 1};
}

/// [lo, hi] as a `width`-bit value: itself if it fits, the wrapped value if
/// definite, else every value (a wrapped interval is not an interval).
inline Iv fit(__int128 lo, __int128 hi, unsigned width) {
  if (width == 1) {
    if (lo == hi)
      return Iv::of(int64_t(lo & 1));
    return {0, 1};
  }
  Iv top = topOf(width);
  if (lo >= top.lo && hi <= top.hi)
    return {int64_t(lo), int64_t(hi)};
  if (lo == hi) {
    unsigned __int128 bits = static_cast<unsigned __int128>(lo);
    if (width < 64)
      bits &= (static_cast<unsigned __int128>(1) << width) - 1;
    uint64_t low = uint64_t(bits);
    if (width < 64 && (low >> (width - 1)) & 1)
      low |= ~uint64_t(0) << width; // sign-extend
    return Iv::of(int64_t(low));
  }
  return top;
}

/// What an abstract value is.
enum class AVKind : uint8_t { Int, Float, Ptr };

/// A scalar (empty shape) or tile of abstract elements.
struct AV {
  AVKind kind = AVKind::Int;
  /// Int: bit width; Ptr: bytes of the pointee (addptr scales by it).
  unsigned width = 32;
  llvm::SmallVector<int64_t, 2> shape;
  /// Int: values; Ptr: byte offsets from the buffer's start; Float: for
  /// each element 1 if it came from an active lane, 0 if from a masked-off
  /// one, [0, 1] if either (empty: no load feeds it).
  std::vector<Iv> v;
  /// Ptr: the pointer parameter each element derives from; -1 unknown.
  std::vector<int32_t> buf;
  /// Derived from loaded data: splitting the box of programs cannot make
  /// such a value definite.
  bool data = false;

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  bool isScalar() const { return shape.empty(); }
};
using AVRef = std::shared_ptr<const AV>;

/// A tile of `shape` whose element at index (i0, i1, ...) is `src`'s element
/// at `offset + sum(ik * strides[k])`: broadcasts (stride 0), transposes and
/// slices are all gathers.
AV gather(const AV &src, llvm::ArrayRef<int64_t> shape,
          llvm::ArrayRef<int64_t> strides, int64_t offset);

} // namespace tilec::perfmodel

#endif // TILEC_LIB_PERFMODEL_COST_ABSTRACTVALUE_H
