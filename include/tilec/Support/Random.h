//===- Random.h - a small seedable random number generator -----*- C++ -*-===//
//
// SplitMix64 with uniform and normal draws: the GPU tests' inputs and
// tilec-profile's synthetic buffers come from it, so a tool and the tests
// that check it draw the same numbers from the same seed. Not for anything
// that needs unpredictability.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_RANDOM_H
#define TILEC_SUPPORT_RANDOM_H

#include <cmath>
#include <cstdint>

namespace tilec {

/// SplitMix64: fast, seedable, good enough for test data.
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  /// Standard normal (Box-Muller).
  double normal() {
    double u = uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(1.0 - u)) *
           std::cos(6.283185307179586 * v);
  }

private:
  uint64_t state_;
};

} // namespace tilec

#endif // TILEC_SUPPORT_RANDOM_H
