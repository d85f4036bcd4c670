//===- GpuHelpers.h - shared by the GPU tests and the benchmark -*- C++ -*-===//
//
// Random inputs, 16- and 8-bit float conversions for host references, norm-wise
// error, command-line and kernel-folder helpers. Header-only: the programs
// that include it link only the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_LIB_GPU_GPUHELPERS_H
#define TILEC_TEST_LIB_GPU_GPUHELPERS_H

#include "tilec/Runtime/Runtime.h"
#include "tilec/Support/FloatFormats.h"
#include "tilec/Support/Random.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace tilec::gpu {

using namespace tilec::runtime;

/// Exits with `what: message` when `s` failed (for setup steps whose
/// failure leaves nothing to test).
inline void require(const Status &s, const std::string &what) {
  if (!s.ok()) {
    std::fprintf(stderr, "FATAL %s: %s\n", what.c_str(), s.message().c_str());
    std::exit(2);
  }
}
template <typename T> T require(Expected<T> e, const std::string &what) {
  require(e.status(), what);
  return std::move(*e);
}

/// The generator (shared with tilec-profile, which draws its buffers so).
using tilec::Rng;

inline double toDouble(float v) { return v; }
inline double toDouble(Half v) { return v.toFloat(); }
inline double toDouble(BFloat16 v) { return v.toFloat(); }
inline double toDouble(Float8E4M3FN v) {
  return decodeFloat(v.bits, DType::F8E4M3FN);
}
inline double toDouble(Float8E5M2 v) {
  return decodeFloat(v.bits, DType::F8E5M2);
}

template <typename T> T fromDouble(double v);
template <> inline float fromDouble<float>(double v) { return float(v); }
template <> inline Half fromDouble<Half>(double v) {
  return Half::fromFloat(float(v));
}
template <> inline BFloat16 fromDouble<BFloat16>(double v) {
  return BFloat16::fromFloat(float(v));
}
/// fp8: rounded to nearest even, saturating (as the GPU's .satfinite).
template <> inline Float8E4M3FN fromDouble<Float8E4M3FN>(double v) {
  return {uint8_t(encodeFloat(v, DType::F8E4M3FN))};
}
template <> inline Float8E5M2 fromDouble<Float8E5M2>(double v) {
  return {uint8_t(encodeFloat(v, DType::F8E5M2))};
}

/// `n` values of N(0, scale^2), rounded to T.
template <typename T>
std::vector<T> randomNormal(Rng &rng, size_t n, double scale = 1.0) {
  std::vector<T> v(n);
  for (T &x : v)
    x = fromDouble<T>(scale * rng.normal());
  return v;
}

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t roundUp(int64_t a, int64_t b) { return ceilDiv(a, b) * b; }

/// The compiled kernels `name` in `dir`: name.cubin if present, else
/// name.ptx, with name.json.
inline Expected<Module> loadExample(const Context &ctx, const std::string &dir,
                                    const std::string &name) {
  std::string base = dir + "/" + name;
  struct stat st;
  std::string binary = stat((base + ".cubin").c_str(), &st) == 0
                           ? base + ".cubin"
                           : base + ".ptx";
  return Module::loadFiles(ctx, binary, base + ".json");
}

} // namespace tilec::gpu

#endif // TILEC_TEST_LIB_GPU_GPUHELPERS_H
