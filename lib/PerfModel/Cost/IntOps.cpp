//===- IntOps.cpp - arith integer ops over intervals ----------------------===//
//
// Sound interval semantics of the integer ops in the interpreter's
// conventions (docs/interpreter.md): values sign-extended, wrapping at
// their width, x / 0 all ones and x % 0 = x, shifts by the width or more
// give 0 (or the sign). A result that may wrap becomes every value of its
// width unless it is definite. Bounds are computed in 128 bits, so no
// intermediate overflows.
//
//===----------------------------------------------------------------------===//

#include "Evaluator.h"

#include "llvm/ADT/StringSwitch.h"

#include <algorithm>

using namespace tilec::perfmodel;
using I128 = __int128;
using U128 = unsigned __int128;

namespace {

/// i1 is held as 0/1; signed ops see true as -1.
Iv signedView(Iv a, unsigned width) {
  if (width != 1)
    return a;
  return {a.hi ? -1 : 0, a.lo ? -1 : 0};
}

/// The unsigned values of `a` (a `width`-bit integer).
void toUnsigned(Iv a, unsigned width, U128 &lo, U128 &hi) {
  if (width == 1 || a.lo >= 0) {
    lo = U128(a.lo);
    hi = U128(a.hi);
    return;
  }
  U128 mod = U128(1) << width;
  if (a.hi < 0) {
    lo = U128(I128(a.lo) + I128(mod));
    hi = U128(I128(a.hi) + I128(mod));
    return;
  }
  lo = 0;
  hi = mod - 1;
}

/// Unsigned values back to the signed view of `width` bits.
Iv fromUnsigned(U128 lo, U128 hi, unsigned width) {
  if (width == 1)
    return fit(I128(lo), I128(hi), 1);
  U128 half = U128(1) << (width - 1);
  if (hi < half)
    return {int64_t(lo), int64_t(hi)};
  U128 mod = U128(1) << width;
  if (lo >= half)
    return {int64_t(I128(lo) - I128(mod)), int64_t(I128(hi) - I128(mod))};
  return topOf(width);
}

I128 floorDiv(I128 a, I128 b) {
  I128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}
I128 ceilDiv(I128 a, I128 b) {
  I128 q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0)))
    ++q;
  return q;
}

/// Division-like op `f` over intervals with a divisor of one sign: monotone
/// in each argument, so the extremes are at the corners.
template <typename F> Iv corners(Iv a, Iv b, unsigned width, F f) {
  I128 v[4] = {f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)};
  return fit(*std::min_element(v, v + 4), *std::max_element(v, v + 4), width);
}

int bitLength(uint64_t v) {
  int n = 0;
  while (v) {
    ++n;
    v >>= 1;
  }
  return n;
}

Iv bitwise(llvm::StringRef name, Iv a, Iv b, unsigned width) {
  if (width == 1) {
    bool aDef = a.definite(), bDef = b.definite();
    if (name == "andi") {
      if ((aDef && a.lo == 0) || (bDef && b.lo == 0))
        return Iv::of(0);
      if (aDef && bDef)
        return Iv::of(1);
      return {0, 1};
    }
    if (name == "ori") {
      if ((aDef && a.lo == 1) || (bDef && b.lo == 1))
        return Iv::of(1);
      if (aDef && bDef)
        return Iv::of(0);
      return {0, 1};
    }
    if (aDef && bDef)
      return Iv::of(a.lo ^ b.lo);
    return {0, 1};
  }
  if (a.definite() && b.definite()) {
    int64_t r = name == "andi"  ? (a.lo & b.lo)
                : name == "ori" ? (a.lo | b.lo)
                                : (a.lo ^ b.lo);
    return fit(r, r, width);
  }
  if (a.lo >= 0 && b.lo >= 0) {
    int64_t ones =
        int64_t((U128(1) << bitLength(uint64_t(std::max(a.hi, b.hi)))) - 1);
    if (name == "andi")
      return {0, std::min(a.hi, b.hi)};
    if (name == "ori")
      return {std::max(a.lo, b.lo), ones};
    return {0, ones};
  }
  if (name == "andi" && (a.lo >= 0 || b.lo >= 0)) {
    // x & c with c >= 0 lies in [0, c].
    return {0, a.lo >= 0 ? a.hi : b.hi};
  }
  return topOf(width);
}

} // namespace

bool tilec::perfmodel::intBinary(llvm::StringRef name, Iv a, Iv b,
                                 unsigned width, Iv &out) {
  if (name == "andi" || name == "ori" || name == "xori") {
    out = bitwise(name, a, b, width);
    return true;
  }
  if (width == 1) {
    // Arithmetic on i1 is arithmetic modulo 2 on definite values.
    if (!(a.definite() && b.definite())) {
      out = {0, 1};
      return true;
    }
    I128 x = signedView(a, 1).lo, y = signedView(b, 1).lo, r = 0;
    if (name == "addi" || name == "subi")
      r = x ^ y;
    else if (name == "muli" || name == "minui" || name == "minsi")
      r = (name == "minsi") ? std::min(x, y) : (x & y);
    else if (name == "maxui" || name == "maxsi")
      r = (name == "maxsi") ? std::max(x, y) : (x | y);
    else
      return false;
    out = fit(r, r, 1);
    return true;
  }
  if (name == "addi") {
    out = fit(I128(a.lo) + b.lo, I128(a.hi) + b.hi, width);
    return true;
  }
  if (name == "subi") {
    out = fit(I128(a.lo) - b.hi, I128(a.hi) - b.lo, width);
    return true;
  }
  if (name == "muli") {
    I128 v[4] = {I128(a.lo) * b.lo, I128(a.lo) * b.hi, I128(a.hi) * b.lo,
                 I128(a.hi) * b.hi};
    out = fit(*std::min_element(v, v + 4), *std::max_element(v, v + 4), width);
    return true;
  }
  if (name == "minsi" || name == "maxsi") {
    out = name == "minsi" ? Iv{std::min(a.lo, b.lo), std::min(a.hi, b.hi)}
                          : Iv{std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    return true;
  }
  if (name == "minui" || name == "maxui") {
    U128 alo, ahi, blo, bhi;
    toUnsigned(a, width, alo, ahi);
    toUnsigned(b, width, blo, bhi);
    out = name == "minui"
              ? fromUnsigned(std::min(alo, blo), std::min(ahi, bhi), width)
              : fromUnsigned(std::max(alo, blo), std::max(ahi, bhi), width);
    return true;
  }
  bool isDiv = name == "divsi" || name == "ceildivsi" || name == "floordivsi";
  if (isDiv || name == "remsi") {
    if (b.definite() && b.lo == 0) {
      // PTX: x / 0 is all ones, x % 0 is x (masked-off lanes do this).
      out = isDiv ? Iv::of(-1) : a;
      return true;
    }
    if (b.lo <= 0 && b.hi >= 0) {
      out = topOf(width);
      return true;
    }
    if (name == "divsi") {
      out = corners(a, b, width, [](I128 x, I128 y) { return x / y; });
    } else if (name == "floordivsi") {
      out = corners(a, b, width, floorDiv);
    } else if (name == "ceildivsi") {
      out = corners(a, b, width, ceilDiv);
    } else {
      I128 m = std::max(b.lo < 0 ? -I128(b.lo) : I128(b.lo),
                        b.hi < 0 ? -I128(b.hi) : I128(b.hi));
      if (b.definite() && a.lo >= 0 && I128(a.lo) / m == I128(a.hi) / m)
        out = fit(I128(a.lo) % m, I128(a.hi) % m, width);
      else if (b.definite() && a.hi <= 0 && I128(a.lo) / m == I128(a.hi) / m)
        out = fit(I128(a.lo) % m, I128(a.hi) % m, width);
      else if (a.lo >= 0)
        out = fit(0, std::min(I128(a.hi), m - 1), width);
      else if (a.hi <= 0)
        out = fit(std::max(I128(a.lo), 1 - m), 0, width);
      else
        out = fit(std::max(I128(a.lo), 1 - m), std::min(I128(a.hi), m - 1),
                  width);
    }
    return true;
  }
  if (name == "divui" || name == "remui" || name == "ceildivui") {
    U128 alo, ahi, blo, bhi;
    toUnsigned(a, width, alo, ahi);
    toUnsigned(b, width, blo, bhi);
    if (blo == 0 && bhi == 0) {
      out = name == "remui" ? a : Iv::of(-1);
      return true;
    }
    if (blo == 0) {
      out = topOf(width);
      return true;
    }
    if (name == "divui")
      out = fromUnsigned(alo / bhi, ahi / blo, width);
    else if (name == "ceildivui")
      out = fromUnsigned((alo + bhi - 1) / bhi, (ahi + blo - 1) / blo, width);
    else if (blo == bhi && alo / blo == ahi / blo)
      out = fromUnsigned(alo % blo, ahi % blo, width);
    else
      out = fromUnsigned(0, std::min(ahi, bhi - 1), width);
    return true;
  }
  if (name == "shli" || name == "shrsi" || name == "shrui") {
    if (!b.definite()) {
      out = topOf(width);
      return true;
    }
    int64_t k = b.lo;
    U128 blo, bhi;
    toUnsigned(b, width, blo, bhi);
    bool wide = blo >= U128(width); // shifts by the width or more
    if (name == "shli") {
      out = wide ? Iv::of(0) : fit(I128(a.lo) << k, I128(a.hi) << k, width);
    } else if (name == "shrsi") {
      int s = wide ? 63 : int(k);
      out = {a.lo >> s, a.hi >> s};
    } else {
      U128 alo, ahi;
      toUnsigned(a, width, alo, ahi);
      out = wide ? Iv::of(0) : fromUnsigned(alo >> k, ahi >> k, width);
    }
    return true;
  }
  return false;
}

Iv tilec::perfmodel::intCompare(int pred, Iv a, Iv b, unsigned width) {
  // arith::CmpIPredicate: eq ne slt sle sgt sge ult ule ugt uge.
  enum { Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge };
  I128 alo, ahi, blo, bhi;
  if (pred >= Ult) {
    U128 ul, uh, vl, vh;
    toUnsigned(a, width, ul, uh);
    toUnsigned(b, width, vl, vh);
    alo = I128(ul), ahi = I128(uh), blo = I128(vl), bhi = I128(vh);
    pred -= Ult - Slt; // the same tests on the unsigned values
  } else {
    Iv sa = signedView(a, width), sb = signedView(b, width);
    alo = sa.lo, ahi = sa.hi, blo = sb.lo, bhi = sb.hi;
  }
  auto tri = [](bool yes, bool no) {
    return yes ? Iv::of(1) : no ? Iv::of(0) : Iv{0, 1};
  };
  switch (pred) {
  case Eq:
    return tri(alo == ahi && blo == bhi && alo == blo, ahi < blo || bhi < alo);
  case Ne:
    return tri(ahi < blo || bhi < alo, alo == ahi && blo == bhi && alo == blo);
  case Slt:
    return tri(ahi < blo, alo >= bhi);
  case Sle:
    return tri(ahi <= blo, alo > bhi);
  case Sgt:
    return tri(alo > bhi, ahi <= blo);
  case Sge:
    return tri(alo >= bhi, ahi < blo);
  }
  return {0, 1};
}

Iv tilec::perfmodel::intCast(llvm::StringRef name, Iv a, unsigned from,
                             unsigned to) {
  bool isSigned = name == "extsi" || name == "index_cast";
  bool isUnsigned = name == "extui" || name == "index_castui";
  if (to >= from) {
    if (isSigned && from == 1)
      return signedView(a, 1);
    if (isUnsigned || (from == 1 && to > 1)) {
      U128 lo, hi;
      toUnsigned(a, from, lo, hi);
      return fit(I128(lo), I128(hi), to);
    }
    return a; // sign-extended values keep their value
  }
  return fit(a.lo, a.hi, to); // truncation
}
