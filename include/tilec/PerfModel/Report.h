//===- Report.h - text reports, profiles and roofline SVGs ------*- C++ -*-===//
//
// What people look at: the one-screen text report of an analysis
// (tilec-analyze) or of a profiling run (tilec-profile), the roofline chart
// of every workload's predicted and measured point under the device's
// ceilings, and the time-versus-size chart of a sweep. The SVG is written
// here, with no plotting library. No MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PERFMODEL_REPORT_H
#define TILEC_PERFMODEL_REPORT_H

#include "tilec/PerfModel/Analysis.h"
#include "tilec/PerfModel/Verdict.h"

#include <string>
#include <vector>

namespace tilec::perfmodel {

/// One workload of a profiling run.
struct WorkloadProfile {
  WorkloadAnalysis analysis;
  /// One per analysed point, in order; empty when not measured.
  std::vector<PointMeasurement> measured;
  /// Per launch of point 0, as the driver reports the loaded code
  /// (registers, static shared memory); empty when not measured.
  std::vector<Resources> resources;
  std::string error; ///< why it was not measured, if it was not
};

/// A profiling run: every workload on one device.
struct ProfileRun {
  std::string device; ///< the driver's name of the GPU
  std::string date;
  DeviceModel model; ///< the ceilings the fractions are taken against
  std::vector<WorkloadProfile> workloads;
};

/// The run as a "tilec-profile" JSON document (version 1), readable back
/// so that reports and charts can be redrawn without the GPU.
std::string profileJson(const ProfileRun &run);
Expected<ProfileRun> parseProfileJson(std::string_view text,
                                      const std::string &origin);

/// The verdict for workload `w` at its first point (needs a measurement).
Verdict judgeWorkload(const WorkloadProfile &w, const DeviceModel &model);

/// The static report of one workload (tilec-analyze): per launch, FLOPs by
/// class, bytes, intensity, registers and occupancy, the floors, the bound.
std::string analysisReport(const WorkloadAnalysis &analysis);

/// One screen: a line per workload (time, GB/s and ops/s against the
/// ceilings, the 2N/N ratio, the verdict beside the prediction), then the
/// comparisons within groups.
std::string profileReport(const ProfileRun &run);

/// The roofline chart: ceilings of `run.model`, each workload's predicted
/// point (hollow) and measured point (filled).
std::string rooflineSvg(const ProfileRun &run);

/// Time against the batch variable for a workload analysed at several
/// sizes: measured device and wall time, and the predicted floor.
std::string sweepSvg(const WorkloadProfile &workload, const DeviceModel &model);

/// A file name for a workload: "add fp32 2^28" -> "add-fp32-2-28".
std::string workloadSlug(const std::string &name);

/// Human units: "1.07 GB", "268 M", "0.741 ms".
std::string formatBytes(double bytes);
std::string formatCount(double count);
std::string formatSeconds(double seconds);

} // namespace tilec::perfmodel

#endif // TILEC_PERFMODEL_REPORT_H
