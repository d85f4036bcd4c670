//===- MeasureCommon.h - what every tuning problem measures alike -*- C++ -*-===//
//
// Internal to lib/Tune: the cache lookup before anything is allocated, the
// timing of one candidate (warm-up, events around each launch, the
// median), the rotating buffer sets' count and the progress line, shared
// by the gemm problem (Measure.cpp) and the args problem
// (MeasureArgs.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_TUNE_MEASURECOMMON_H
#define TILEC_LIB_TUNE_MEASURECOMMON_H

#include "tilec/Tune/Measure.h"

#include <functional>
#include <optional>

namespace tilec::tune::detail {

/// Opens the cache of `options` (the runtime's folder by default) into
/// `cache` and looks `parts` up: true on a hit, with `result`'s winner and
/// fromCache set; a damaged or mismatched entry is noted in
/// `result.cacheNote` and is a miss.
bool lookupWinner(const Manifest &manifest, const TuneKeyParts &parts,
                  const MeasureOptions &options, TuneResult &result,
                  std::optional<TuneCache> &cache);

/// Makes candidate `bestId` (median `bestMs`, of `measured` candidates
/// timed) `result`'s winner and stores it when a cache is open, noting a
/// failure in `result.cacheNote`; with no best (-1) leaves the winner's id
/// at -1 (the table says why each failed).
void setWinner(const Manifest &manifest, int bestId, double bestMs,
               int measured, const std::optional<TuneCache> &cache,
               const TuneKeyParts &parts, TuneResult &result);

/// How many sets of `setBytes` rotate: together at least
/// rotateFactor x the device's L2, at most 64 sets or 8 GiB.
size_t rotatingSetCount(const runtime::Context &context, size_t setBytes,
                        const MeasureOptions &options);

/// Times `launch` (its argument: the launch's index, which picks the
/// buffer set): launches 1 .. warmup - 1 (launch 0 was the check), then,
/// with `encodeFirst`, one launch on each set the timing will use (so that
/// the runtime has encoded their tensor maps before), then `reps` launches
/// each between two events on `stream`; the median and minimum go to `t`.
Status timeLaunches(const runtime::Context &context,
                    const runtime::Stream &stream,
                    const std::function<Status(size_t)> &launch, size_t sets,
                    bool encodeFirst, const MeasureOptions &options,
                    CandidateTime &t);

/// The progress line of candidate `index` of `count` ("[3/12] candidate 2
/// (BLOCK=128 ...): 0.5120 ms; best 0.4980 ms (candidate 1)").
void reportProgress(const MeasureOptions &options, int index, int count,
                    const Candidate &cand, const CandidateTime &t,
                    int bestId, double bestMs);

} // namespace tilec::tune::detail

#endif // TILEC_LIB_TUNE_MEASURECOMMON_H
