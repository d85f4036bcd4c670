//===- Verdict.cpp - overhead, bandwidth or compute from measurements -----===//

#include "tilec/PerfModel/Verdict.h"

#include <algorithm>
#include <cstdio>

using namespace tilec::perfmodel;

namespace {

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100 * fraction);
  return buf;
}

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

} // namespace

Verdict tilec::perfmodel::judge(const Prediction &p, const PointMeasurement &n,
                                const PointMeasurement *doubled) {
  Verdict v;
  double t = n.deviceSeconds > 0 ? n.deviceSeconds : n.wallSeconds;
  if (t <= 0) {
    v.regime = "unknown";
    v.reason = "no measurement";
    return v;
  }
  v.bandwidthFraction = p.memory / t;
  const std::pair<const char *, double> pipes[] = {{"tensor", p.tensor},
                                                   {"fp32", p.fp32},
                                                   {"fp16", p.fp16},
                                                   {"fp64", p.fp64},
                                                   {"sfu", p.sfu}};
  for (const auto &[name, floor] : pipes)
    if (floor / t > v.computeFraction) {
      v.computeFraction = floor / t;
      v.computePipe = name;
    }
  if (n.wallSeconds > 0)
    v.deviceShare = n.deviceSeconds / n.wallSeconds;
  if (doubled && doubled->wallSeconds > 0 && n.wallSeconds > 0)
    v.doublingRatio = doubled->wallSeconds / n.wallSeconds;

  std::string fractions =
      "bytes at " + percent(v.bandwidthFraction) + " of the bandwidth ceiling";
  if (!v.computePipe.empty())
    fractions += ", " + v.computePipe + " pipe at " +
                 percent(v.computeFraction) + " of its peak";
  auto byFractions = [&]() {
    if (v.bandwidthFraction >= v.computeFraction) {
      v.regime = "bandwidth";
    } else {
      v.regime = "compute";
      v.pipe = v.computePipe;
    }
  };

  // Far below both ceilings, neither explains the time.
  auto qualify = [&]() {
    if (v.regime != "overhead" &&
        std::max(v.bandwidthFraction, v.computeFraction) < kCeilingReached)
      v.reason += "; below every ceiling: instruction issue, latency or "
                  "occupancy limits it";
  };
  if (v.doublingRatio > 0) {
    std::string ratio = "2N/N time " + fixed(v.doublingRatio, 2);
    if (v.doublingRatio <= kOverheadRatio) {
      v.regime = "overhead";
      v.reason = ratio + ": twice the work costs little more; " + fractions;
    } else if (v.doublingRatio < kScalingRatio) {
      // Partly fixed cost: overhead if the GPU idles for half the time.
      if (v.deviceShare > 0 && v.deviceShare < 0.5) {
        v.regime = "overhead";
        v.reason = ratio + " and the GPU busy " + percent(v.deviceShare) +
                   " of the time: mostly overhead; " + fractions;
      } else {
        byFractions();
        v.reason = ratio + ": partly fixed cost; " + fractions;
      }
    } else {
      byFractions();
      v.reason = ratio + ": time follows the work; " + fractions;
    }
    qualify();
    return v;
  }
  if (v.deviceShare > 0 && v.deviceShare < 0.5) {
    v.regime = "overhead";
    v.reason = "the GPU is busy " + percent(v.deviceShare) +
               " of the wall time; " + fractions;
    return v;
  }
  byFractions();
  v.reason = fractions;
  qualify();
  return v;
}
