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
#include "tilec/Support/HostArgs.h"
#include "tilec/Tune/Manifest.h"
#include "tilec/Tune/TuneCache.h"

#include <functional>
#include <optional>
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
  /// Why it was not measured on this shape (shapeSkipReason); empty if it
  /// was considered.
  std::string skipped;
};

/// One problem's outcome (gemm or args).
struct TuneResult {
  GemmShape shape; ///< the gemm problem's; zeros for an args problem
  std::string bucket, key, cacheFile;
  bool fromCache = false;
  std::string cacheNote; ///< why an entry was ignored, or a store failure
  Winner winner;         ///< id -1 when no candidate worked
  std::vector<CandidateTime> times; ///< empty on a cache hit
  int rotatingSets = 0;
};

/// The device identity of the cache key: "NAME sm_XY".
std::string deviceIdentity(const runtime::Context &context);

/// Why candidate `c` is not worth measuring (or cannot run) on `shape`, on
/// a GPU of `sms` SMs with operands of `elemBytes`, or "": a TMA candidate
/// whose rows are not a multiple of 16 bytes; BLOCK_M above both 64 and M's
/// bucket; for SPLIT_K > 1, output tiles that already make two waves, more
/// than four waves of programs, slices of fewer K steps than num_stages,
/// or a workspace over 1 GiB.
std::string shapeSkipReason(const Candidate &c, const GemmShape &shape,
                            int sms, int elemBytes);

/// Tunes `manifest` (problem "gemm": kernel(a, b, c, M, N, K, stride_am,
/// stride_bk, stride_cm), row-major, candidates with BLOCK_M and BLOCK_N,
/// grid (cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), SPLIT_K); a and b may be
/// tensor descriptors (shape and strides from the problem); a split-K
/// candidate's c is an f32 workspace of SPLIT_K x M x N, summed into C by
/// its reduce step, grid (M, cdiv(N, block_n))) on `shape`, or takes the
/// winner from the cache.
Expected<TuneResult> tuneGemm(const runtime::Context &context,
                              const Manifest &manifest, const std::string &dir,
                              const GemmShape &shape,
                              const MeasureOptions &options);

/// A problem of any kernel (`tilec-tune measure --arg`): one argument spec
/// per kernel parameter, in tilec-run's and tilec-gpu-run's syntax
/// (tilec/Support/HostArgs.h: `rand=1,n=4096`, `n=4096` for an output,
/// `expect=ref.npy`, a scalar, a descriptor's `shape=`), and the grid:
/// `grid` when given, else each candidate's launch rule (`tile.grid`)
/// evaluated on the integer scalars.
struct ArgsProblem {
  std::vector<std::string> specs;
  std::optional<runtime::Grid> grid;
};

/// The bucket of an args problem for a kernel of parameters `params`
/// (parsed arguments `args`): per integer scalar its value rounded up to a
/// power of two and its alignment (the largest power of two up to 16
/// dividing it: divisibility hints decide which kernels take it), per
/// buffer its element count rounded up, per descriptor its shape so; float
/// scalars leave no trace (a scale does not change which tile wins), nor do
/// seeds or file names. "n=1024/a8 x[1024] y[1024]".
std::string argsBucket(const std::vector<runtime::ParamInfo> &params,
                       const std::vector<HostArg> &args);

/// What a dispatch table can see of an args problem at run time, where a
/// pointer has no size: per integer scalar its rounded value and alignment
/// as in argsBucket, per descriptor dimension its rounded size (alignment
/// 1), in parameter order; and the problem's whole bucket (the cache key).
struct ArgsDispatchKey {
  std::string bucket;
  std::vector<int64_t> values, aligns;
  bool operator==(const ArgsDispatchKey &o) const {
    return values == o.values && aligns == o.aligns;
  }
};
ArgsDispatchKey argsDispatchKey(const std::vector<runtime::ParamInfo> &params,
                                const std::vector<HostArg> &args);

/// The dispatch key of `problem` for the kernel of `manifest`'s candidates
/// in `dir` (the first candidate's parameters parse the specs, as in
/// tuneArgs). No GPU. Errors: the manifest's, the specs'.
Expected<ArgsDispatchKey> argsProblemKey(const Manifest &manifest,
                                         const std::string &dir,
                                         const ArgsProblem &problem);

/// Tunes `manifest`'s candidates on `problem`, or takes the winner from the
/// cache (key problem "args", bucket argsBucket()). Every candidate must
/// have the first's parameters (names, kinds, types). Inputs come from the
/// specs; outputs are checked after one launch on fresh buffers: against
/// their expect= files when given, else against the first candidate that
/// ran (so a candidate that disagrees cannot win; give expect= when the
/// first may be wrong), with the spec's atol=/rtol= or the dtype's default
/// tolerances. Split-K plans (two kernels) are skipped: they need the gemm
/// problem.
Expected<TuneResult> tuneArgs(const runtime::Context &context,
                              const Manifest &manifest, const std::string &dir,
                              const ArgsProblem &problem,
                              const MeasureOptions &options);

} // namespace tilec::tune

#endif // TILEC_TUNE_MEASURE_H
