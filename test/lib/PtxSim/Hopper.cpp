//===- Hopper.cpp - sm_90a's matrix descriptors, swizzles and mbarriers ---===//

#include "Hopper.h"

namespace ptxsim::hopper {

uint64_t swizzle(uint64_t addr, unsigned bytes) {
  unsigned bits = bytes == 32 ? 1 : bytes == 64 ? 2 : bytes == 128 ? 3 : 0;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  return addr ^ (((addr >> 7) & mask) << 4);
}

std::string decodeDescriptor(uint64_t bits, MatrixDescriptor &out) {
  // Bits 14-15, 30-31, 46-48 and 52-61 are reserved.
  const uint64_t reserved = uint64_t(3) << 14 | uint64_t(3) << 30 |
                            uint64_t(7) << 46 | uint64_t(0x3ff) << 52;
  if (bits & reserved)
    return "reserved bits of the matrix descriptor are set";
  if ((bits >> 49) & 7)
    return "a matrix base offset (a swizzle pattern that does not start on "
           "its boundary) is not modelled";
  out.start = (bits & 0x3fff) << 4;
  out.leading = ((bits >> 16) & 0x3fff) << 4;
  out.stride = ((bits >> 32) & 0x3fff) << 4;
  static const unsigned modes[] = {0, 128, 64, 32};
  out.swizzle = modes[bits >> 62];
  return "";
}

uint64_t operandAddress(const MatrixDescriptor &d, bool mnMajor, unsigned mn,
                        unsigned k, unsigned elemBytes) {
  uint64_t t = 16 / elemBytes; // elements in 16 bytes
  uint64_t s = d.swizzle, e = elemBytes, a;
  if (!mnMajor && s == 0)
    a = (mn % 8) * 16 + (mn / 8) * d.stride + (k % t) * e + (k / t) * d.leading;
  else if (!mnMajor)
    a = (mn % 8) * s + (mn / 8) * d.stride + k * e;
  else if (s == 0)
    a = (mn % t) * e + (mn / t) * d.stride + (k % 8) * 16 + (k / 8) * d.leading;
  else
    a = (mn % (s / e)) * e + (mn / (s / e)) * d.leading + (k % 8) * s +
        (k / 8) * d.stride;
  return swizzle(d.start + a, d.swizzle);
}

std::string MBarrier::init(uint64_t count) {
  if (count < 1 || int64_t(count) > kMaxCount)
    return "mbarrier.init count " + std::to_string(count) +
           " outside [1, 2^20 - 1]";
  phase = 0;
  pending = expected = int64_t(count);
  tx = 0;
  return "";
}

void MBarrier::completeIfDone() {
  if (pending == 0 && tx == 0) {
    ++phase;
    pending = expected;
  }
}

std::string MBarrier::arrive(uint64_t count) {
  if (count < 1 || int64_t(count) > kMaxCount)
    return "arrival count " + std::to_string(count) + " outside [1, 2^20 - 1]";
  if (int64_t(count) > pending)
    return std::to_string(count) + " arrivals where phase " +
           std::to_string(phase) + " expects " + std::to_string(pending) +
           " more (of " + std::to_string(expected) + ")";
  pending -= int64_t(count);
  completeIfDone();
  return "";
}

std::string MBarrier::expectTx(uint64_t bytes) {
  if (int64_t(bytes) > kMaxCount || tx + int64_t(bytes) > kMaxCount)
    return "transaction count " + std::to_string(tx) + " + " +
           std::to_string(bytes) + " above 2^20 - 1";
  tx += int64_t(bytes);
  completeIfDone();
  return "";
}

std::string MBarrier::completeTx(uint64_t bytes) {
  if (int64_t(bytes) > kMaxCount || tx - int64_t(bytes) < -kMaxCount)
    return "transaction count " + std::to_string(tx) + " - " +
           std::to_string(bytes) + " below -(2^20 - 1)";
  tx -= int64_t(bytes);
  completeIfDone();
  return "";
}

std::string MBarrier::stateCompleted(uint64_t s, bool &completed) const {
  if ((s & ~uint64_t(0xffffffffffff)) != kStateTag)
    return "the state operand is no mbarrier.arrive state";
  uint64_t of = s & 0xffffffffffff;
  if (of > phase || phase - of > 1)
    return "the state operand names phase " + std::to_string(of) +
           ", neither the current phase " + std::to_string(phase) +
           " nor the one before";
  completed = of < phase;
  return "";
}

} // namespace ptxsim::hopper
