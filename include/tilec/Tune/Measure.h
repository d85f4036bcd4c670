//===- Measure.h - timing tuning candidates on the GPU ----------*- C++ -*-===//
//
// The runtime half of the tuner (no MLIR): loads the candidates of a
// folder that `tilec-tune compile` wrote, times each on a problem through
// the runtime, picks the fastest whose results are right, and keeps it in
// the TuneCache so that the next process measures nothing.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TUNE_MEASURE_H
#define TILEC_TUNE_MEASURE_H

#include "tilec/Runtime/Runtime.h"
#include "tilec/Tune/Manifest.h"
#include "tilec/Tune/TuneCache.h"

#include <functional>
#include <string>
#include <vector>

namespace tilec::tune {

struct MeasureOptions {
  int warmup = 3; ///< launches before timing, per candidate
  int reps = 20;  ///< timed launches; the median is the candidate's time
  /// Buffers rotate so that the inputs a launch reads are not in L2 from
  /// the previous one: as many sets as make `rotateFactor` x the L2 size.
  int rotateFactor = 2;
  /// Elements of C compared with a host reference (0: no check). A
  /// candidate with a wrong result cannot win.
  int checkSamples = 64;
  bool useCache = true;
  std::string cacheDir; ///< empty: runtime::defaultCacheDir()
  /// Called with each progress line ("[3/12] ...").
  std::function<void(const std::string &)> progress;
};

struct CandidateTime {
  int id = 0;
  bool measured = false;
  double medianMs = 0, minMs = 0;
  std::string error; ///< a load, launch or check failure
};

struct GemmResult {
  GemmShape shape;
  std::string bucket, key, cacheFile;
  bool fromCache = false;
  std::string cacheNote; ///< why an entry was ignored, or a store failure
  Winner winner;         ///< id -1 when no candidate worked
  std::vector<CandidateTime> times; ///< empty on a cache hit
  int rotatingSets = 0;
};

/// The device identity of the cache key: "NAME sm_XY".
std::string deviceIdentity(const runtime::Context &context);

/// Tunes `manifest` (problem "gemm": kernel(a, b, c, M, N, K, stride_am,
/// stride_bk, stride_cm), row-major, candidates with BLOCK_M and BLOCK_N,
/// grid (cdiv(M, BLOCK_M), cdiv(N, BLOCK_N))) on `shape`, or takes the
/// winner from the cache.
Expected<GemmResult> tuneGemm(const runtime::Context &context,
                              const Manifest &manifest, const std::string &dir,
                              const GemmShape &shape,
                              const MeasureOptions &options);

} // namespace tilec::tune

#endif // TILEC_TUNE_MEASURE_H
