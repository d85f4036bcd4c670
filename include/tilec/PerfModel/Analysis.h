//===- Analysis.h - what a launch does, and its time floor ------*- C++ -*-===//
//
// The static analysis of a launch, as tilec-analyze computes it and
// tilec-profile reads it back: exact counts of the operations executed
// (per op and element type), of the tensor-core dots, and of the global
// memory elements each buffer parameter has loaded and stored (active lanes)
// or masked off; the buffers' sizes; the registers and shared memory of a
// program. From those and a DeviceModel follow the FLOPs by class, the
// minimal and issued bytes, the arithmetic intensity and the time floor of
// each execution pipe, which says which bound the launch is under.
// docs/analyzer.md defines every count. No MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PERFMODEL_ANALYSIS_H
#define TILEC_PERFMODEL_ANALYSIS_H

#include "tilec/PerfModel/DeviceModel.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tilec::perfmodel {

/// Ops executed, summed over programs: `count` elements of `type` went
/// through op `op` ("arith.addf", "f32"). Tile ops count once per element,
/// scalar ops once per program, combiner ops of reductions once per
/// application.
struct OpCount {
  std::string op;
  std::string type;
  uint64_t count = 0;
};

/// tile.dot FLOPs (2*M*N*K per dot) by kind: the operand type ("bf16",
/// "f16", "fp8", "i8") or, for f32 operands, the precision ("tf32",
/// "tf32x3", "ieee"); "fma:<kind>" when the compiled code has no
/// tensor-core instructions (the FMA pipe does the work). `useful` counts
/// only products of two operand elements that came from active (unmasked)
/// loads.
struct DotCount {
  std::string kind;
  uint64_t flops = 0;
  uint64_t useful = 0;
};

/// Global memory traffic of one pointer parameter.
struct BufferTraffic {
  std::string name; ///< the parameter's name
  std::string type; ///< element type, "f32"
  unsigned elementBytes = 0;
  uint64_t elements = 0; ///< the buffer's size, as given
  uint64_t loaded = 0;   ///< active load lanes, summed over programs
  uint64_t stored = 0;
  uint64_t atomics = 0;
  uint64_t maskedLoads = 0; ///< lanes masked off (no memory access)
  uint64_t maskedStores = 0;

  bool read() const { return loaded + atomics > 0; }
  bool written() const { return stored + atomics > 0; }
  uint64_t bytes() const { return elements * elementBytes; }
  /// Each element read once if read, written once if written.
  uint64_t minimalBytes() const {
    return (read() ? bytes() : 0) + (written() ? bytes() : 0);
  }
  /// What the active lanes move; an atomic reads and writes.
  uint64_t issuedBytes() const {
    return (loaded + stored + 2 * atomics) * elementBytes;
  }
};

/// Everything counted for one launch.
struct LaunchCounts {
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::vector<OpCount> ops; ///< sorted by op, then type
  std::vector<DotCount> dots;
  std::vector<BufferTraffic> buffers; ///< pointer parameters, in order
  /// Abstract program evaluations the counting took (programs that provably
  /// behave alike were counted together).
  uint64_t evaluations = 0;
  /// Why a count is not exact, if any is not (data-dependent masks, ...).
  std::vector<std::string> notes;

  uint64_t programs() const { return uint64_t(grid[0] * grid[1] * grid[2]); }
  uint64_t opCount(const std::string &op, const std::string &type) const;
  uint64_t minimalBytes() const;
  uint64_t issuedBytes() const;
  uint64_t minimalReadBytes() const;
  uint64_t minimalWrittenBytes() const;
  uint64_t maskedLanes() const;
};

/// FLOPs by class and the work of each pipe, from a LaunchCounts.
struct WorkByClass {
  std::map<std::string, double> tensorFlops; ///< by dot kind
  double tensorUseful = 0;
  double fp32Flops = 0; ///< f32 arithmetic, compares, selects (FMA = 2)
  double fp16Flops = 0; ///< f16 and bf16 outside the tensor cores
  double fp64Flops = 0;
  std::map<std::string, double> special; ///< evaluations, by function
  double intOps = 0; ///< integer and pointer arithmetic on tiles
  double cvtOps = 0; ///< float conversions
  /// Instructions issued to each pipe (special functions and division
  /// expand into MUFU and FMA-pipe instructions; docs/analyzer.md).
  double fp32PipeInstrs = 0, fp16PipeInstrs = 0, fp64PipeInstrs = 0,
         sfuInstrs = 0, intPipeInstrs = 0;

  double tensorTotal() const;
  double specialTotal() const;
  /// Every FLOP and special-function evaluation: the roofline's y work.
  double totalOps() const;
};
WorkByClass classifyWork(const LaunchCounts &counts);

/// Seconds each limit needs at best, and which one wins.
struct Prediction {
  double memory = 0; ///< minimal bytes / DRAM bandwidth
  double tensor = 0; ///< sum over dot kinds of flops / rate
  double fp32 = 0, fp16 = 0, fp64 = 0, sfu = 0;
  double integer = 0; ///< shown, not part of the floor (see docs)
  double launch = 0;  ///< the launch overhead
  double floor = 0;   ///< the largest of the above (integer aside)
  /// "memory", "tensor", "fp32", "fp16", "fp64", "sfu" or "launch".
  std::string limit;
  /// "bandwidth", "compute" or "overhead".
  std::string regime() const;
};
/// Floors of one launch. A launch with work a pipe cannot do (fp8 dots on a
/// GPU without fp8 tensor cores) gets an infinite floor for that pipe.
Prediction predictLaunch(const DeviceModel &model, const LaunchCounts &counts);

/// One argument of a launch as the profiler recreates it.
struct LaunchArg {
  std::string name; ///< the parameter's name
  bool isBuffer = false;
  std::string type; ///< element type of a buffer, type of a scalar
  // Buffers:
  uint64_t count = 0;
  std::string buffer; ///< launches of a workload share buffers by this name
  /// Tensor descriptors: the tensor over the buffer (elements, outermost
  /// first; strides empty: contiguous).
  std::vector<int64_t> shape, strides;
  // Scalars:
  bool isFloat = false;
  int64_t intValue = 0;
  double floatValue = 0;
};

/// One launch of a workload at one size.
struct LaunchAnalysis {
  std::string module; ///< file stem: MODULE.ptx and MODULE.json beside
  std::string kernel;
  std::vector<LaunchArg> args;
  LaunchCounts counts;
  Resources resources;
};

/// A workload at one value of its variables.
struct WorkloadPoint {
  std::vector<std::pair<std::string, int64_t>> vars;
  std::vector<LaunchAnalysis> launches;

  uint64_t minimalBytes() const;
  uint64_t issuedBytes() const;
  WorkByClass work() const;
  /// The sum of the launches' floors (launches run one after another).
  Prediction predict(const DeviceModel &model) const;
};

/// A named workload analysed at several sizes: points[0] at the given
/// size, points[1] (if any) with the batch variable doubled, further points
/// a sweep.
struct WorkloadAnalysis {
  std::string name;
  std::string group; ///< workloads of one group are compared side by side
  std::string label; ///< its name within the group ("fused")
  std::string batchVar;
  std::vector<WorkloadPoint> points;
  DeviceModel device; ///< the model the predictions were made for
};

/// The analysis as a "tilec-analysis" JSON document (version 1). Derived
/// numbers (FLOPs by class, bytes, floors) are written for readers; reading
/// recomputes them from the counts.
std::string analysisJson(const WorkloadAnalysis &analysis);
Expected<WorkloadAnalysis> parseAnalysisJson(std::string_view text,
                                             const std::string &origin);

} // namespace tilec::perfmodel

#endif // TILEC_PERFMODEL_ANALYSIS_H
