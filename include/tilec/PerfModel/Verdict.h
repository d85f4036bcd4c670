//===- Verdict.h - which bound a measured kernel is under -------*- C++ -*-===//
//
// The seed article's question, answered from measurements: is the time
// spent on overhead, on moving bytes, or on computing? Two tests:
//  - batch doubling: run at N and 2N; a time ratio near 1 means the time is
//    fixed cost per launch (overhead-bound), near 2 means it follows the
//    work (compute- or bandwidth-bound);
//  - achieved fractions: minimal bytes per second over the DRAM ceiling, and
//    for each pipe its floor over the measured time (the share of that
//    pipe's peak the kernel used); the larger names the bound.
// No MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PERFMODEL_VERDICT_H
#define TILEC_PERFMODEL_VERDICT_H

#include "tilec/PerfModel/Analysis.h"

#include <string>

namespace tilec::perfmodel {

/// What tilec-profile measured for one point of a workload (all its
/// launches, in order).
struct PointMeasurement {
  /// Median GPU time of one iteration, between two events.
  double deviceSeconds = 0;
  /// Host wall time per iteration of a loop of iterations with one
  /// synchronize at the end (what a caller in a loop sees: includes the
  /// launch overhead when the GPU outruns the host).
  double wallSeconds = 0;
  int reps = 0; ///< timed iterations
};

/// Doubling ratios at or below this mean overhead-bound (the article: "if
/// doubling the batch only increases the runtime by 10%, you're likely
/// overhead bound").
inline constexpr double kOverheadRatio = 1.35;
/// At or above this the time follows the work.
inline constexpr double kScalingRatio = 1.65;
/// Below this share of both the bandwidth and the busiest pipe's peak, the
/// reason says that neither ceiling explains the time.
inline constexpr double kCeilingReached = 0.85;

struct Verdict {
  /// "overhead", "bandwidth" or "compute".
  std::string regime;
  /// For compute: the pipe ("tensor", "fp32", "sfu", ...).
  std::string pipe;
  double bandwidthFraction = 0; ///< pred.memory / measured
  double computeFraction = 0;   ///< the busiest pipe's floor / measured
  std::string computePipe;      ///< that pipe
  double doublingRatio = 0;     ///< wall(2N) / wall(N); 0 when not measured
  double deviceShare = 0;       ///< device time / wall time at N
  std::string reason;           ///< one line for the report
};

/// Judges point N from its prediction and measurements; `doubled` is the
/// measurement at 2N, or null.
Verdict judge(const Prediction &prediction, const PointMeasurement &atN,
              const PointMeasurement *doubled);

} // namespace tilec::perfmodel

#endif // TILEC_PERFMODEL_VERDICT_H
