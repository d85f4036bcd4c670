//===- Random.cpp - Philox 4x32-10, rand, randn, dropout ------------------===//
//
// Counter-based random numbers, bit-compatible with Triton's tl.randint4x /
// tl.rand / tl.randn: the counter is (offset, 0, 0, 0), the key the two
// halves of the seed, ten rounds with the key bumped after each. The
// arithmetic is on i32 bit patterns: multiplications wrap, umulhi gives the
// unsigned high half, as uint32 arithmetic would.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include <cstdint>

namespace tilec::ops {

namespace {
constexpr uint32_t kPhiloxKeyA = 0x9E3779B9, kPhiloxKeyB = 0xBB67AE85;
constexpr uint32_t kPhiloxRoundA = 0xD2511F53, kPhiloxRoundB = 0xCD9E8D57;
constexpr int kPhiloxRounds = 10;
/// The largest float below 1 over 2^31: maps non-negative i32 into [0, 1).
constexpr double kUniformScale = 4.6566127342e-10;
} // namespace

/// The key words (seed low, seed high) as i32 scalars.
static std::pair<Value, Value> philoxKey(Kernel &k, const Operand &seed) {
  switch (seed.kind()) {
  case Operand::Kind::Value: {
    const Value &s = seed.value();
    if (s.isNull())
      buildError("philox", "the seed is a default-constructed (null) Value");
    if (s.rank() != 0 || (s.dtype() != DType::I32 && s.dtype() != DType::I64))
      buildError("philox",
                 "the seed must be an i32 or i64 scalar, got " + s.typeStr());
    if (s.dtype() == DType::I32)
      return {s, k.constant(0, DType::I32)};
    return {s.to(DType::I32), (s >> 32).to(DType::I32)};
  }
  case Operand::Kind::Int:
  case Operand::Kind::Unsigned: {
    uint64_t v = seed.kind() == Operand::Kind::Int
                     ? static_cast<uint64_t>(seed.intValue())
                     : seed.unsignedValue();
    return {k.constant(static_cast<uint32_t>(v), DType::I32),
            k.constant(static_cast<uint32_t>(v >> 32), DType::I32)};
  }
  default:
    buildError("philox", "the seed must be an integer");
  }
}

/// Checks a counter word and returns it as i32.
static Value counterWord(const Value &c, std::string_view what) {
  if (c.isNull())
    buildError("philox",
               std::string(what) + " is a default-constructed (null) Value");
  if (c.isPointer() || !isInteger(c.dtype()) || bitWidth(c.dtype()) > 32)
    buildError("philox", std::string(what) +
                             " must be an i32 tile (or a narrower integer), "
                             "got " +
                             c.typeStr());
  return c.to(DType::I32);
}

std::vector<Value> philox(const Operand &seed, const Value &c0In,
                          const Value &c1In, const Value &c2In,
                          const Value &c3In, SourceLoc loc) {
  CallSite site("philox", loc);
  Value c0 = counterWord(c0In, "counter word 0");
  Value c1 = counterWord(c1In, "counter word 1");
  Value c2 = counterWord(c2In, "counter word 2");
  Value c3 = counterWord(c3In, "counter word 3");
  Kernel k = c0.kernel();
  auto [k0, k1] = philoxKey(k, seed);
  for (int round = 0; round < kPhiloxRounds; ++round) {
    Value prev0 = c0, prev2 = c2;
    c0 = umulhi(kPhiloxRoundB, prev2) ^ c1 ^ k0;
    c2 = umulhi(kPhiloxRoundA, prev0) ^ c3 ^ k1;
    c1 = kPhiloxRoundB * prev2;
    c3 = kPhiloxRoundA * prev0;
    k0 = k0 + kPhiloxKeyA;
    k1 = k1 + kPhiloxKeyB;
  }
  return {c0, c1, c2, c3};
}

std::vector<Value> randint4x(const Operand &seed, const Value &offsets,
                             SourceLoc loc) {
  CallSite site("randint4x", loc);
  Value c0 = counterWord(offsets, "offsets");
  Value zero = c0 * 0;
  return philox(seed, c0, zero, zero, zero);
}

Value randint(const Operand &seed, const Value &offsets, SourceLoc loc) {
  CallSite site("randint", loc);
  return randint4x(seed, offsets)[0];
}

/// Triton's uint_to_uniform_float for i32 bit patterns.
static Value uniform(const Value &bits) {
  Value x = where(bits < 0, ~bits, bits);
  return x.to(DType::F32) * kUniformScale;
}

Value rand(const Operand &seed, const Value &offsets, SourceLoc loc) {
  CallSite site("rand", loc);
  return uniform(randint4x(seed, offsets)[0]);
}

Value randn(const Operand &seed, const Value &offsets, SourceLoc loc) {
  CallSite site("randn", loc);
  std::vector<Value> r = randint4x(seed, offsets);
  Value u1 = maximum(1.0e-7, uniform(r[0]));
  Value u2 = uniform(r[1]);
  Value th = 6.283185307179586 * u2;
  return sqrt(-2.0 * log(u1)) * cos(th);
}

Value dropout(const Value &x, double p, const Operand &seed,
              const Value &offsets, bool training, SourceLoc loc) {
  CallSite site("dropout", loc);
  if (!(p >= 0 && p <= 1))
    buildError("dropout", "dropout probability has to be between 0 and 1, "
                          "but got " +
                              std::to_string(p));
  if (x.isNull())
    buildError("dropout", "the input is a default-constructed (null) Value");
  if (!training || p == 0)
    return x;
  if (p == 1) {
    Value zeros = x.kernel().full(x.shape(), 0, x.dtype());
    for (const Padding &pad : x.padding())
      zeros = zeros.maskedBy(pad.valid, pad.count);
    return zeros;
  }
  Value keep = rand(seed, offsets) > p;
  // The scale applies in f32 (PyTorch's accumulate type), rounded once.
  Value scaled = (detail::opmath(x) * (1.0 / (1.0 - p))).to(x.dtype());
  return where(keep, scaled, 0);
}

} // namespace tilec::ops
