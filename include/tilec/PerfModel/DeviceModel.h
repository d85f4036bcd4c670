//===- DeviceModel.h - peak rates and SM limits of a GPU --------*- C++ -*-===//
//
// What the analyzer predicts against: a GPU's peak DRAM bandwidth, its peak
// rates per execution pipe (tensor cores by operand type, the fp32 FMA pipe,
// the special-function unit), the launch overhead, and the per-SM limits
// that decide occupancy. Built-in models come from the vendors' datasheets;
// a JSON file overrides any field with measured ceilings (docs/analyzer.md).
// No MLIR here: tilec-profile builds this with -DTILEC_RUNTIME_ONLY=ON.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PERFMODEL_DEVICEMODEL_H
#define TILEC_PERFMODEL_DEVICEMODEL_H

#include "tilec/Runtime/Metadata.h"
#include "tilec/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::perfmodel {

using runtime::Expected;
using runtime::Status;

/// One GPU as the roofline sees it. Rates are dense (no sparsity) peaks at
/// the boost clock; an FMA counts as two FLOPs.
struct DeviceModel {
  std::string id;     ///< "h200", "h100", "a100"
  std::string name;   ///< "NVIDIA H200 SXM"
  std::string arch;   ///< target ptxas compiles for: "sm_90"
  std::string source; ///< where the numbers come from
  int sms = 0;
  double clockGHz = 0;
  double bandwidthGBps = 0; ///< DRAM
  double l2MB = 0;
  double fp32TFlops = 0; ///< FMA pipe, f32
  double fp16TFlops = 0; ///< f16/bf16 outside the tensor cores (packed)
  double fp64TFlops = 0;
  double int32Tops = 0;
  double sfuTops = 0; ///< special-function unit (MUFU) results per second
  /// Tensor cores, dense, by operand type; 0 where the GPU has none.
  double tensorBf16TFlops = 0, tensorF16TFlops = 0, tensorTf32TFlops = 0,
         tensorFp8TFlops = 0, tensorInt8Tops = 0;
  double launchUs = 0; ///< host time to launch one kernel
  // Per-SM limits (CUDA occupancy rules).
  int regsPerSM = 65536;
  int maxRegsPerThread = 255;
  int regAllocUnit = 256; ///< registers are allocated per warp in these
  int64_t smemPerSM = 0;
  int64_t smemPerBlock = 0; ///< most a program may use (opt-in)
  int smemAllocUnit = 128;
  int smemReservedPerBlock = 1024; ///< the driver's own, sm_80 and newer
  int maxThreadsPerSM = 2048;
  int maxBlocksPerSM = 32;

  /// Tensor-core rate (FLOP/s) for a dot kind ("bf16", "f16", "tf32",
  /// "tf32x3", "fp8", "i8"), 0 if none.
  double tensorRate(std::string_view kind) const;
};

/// The built-in models: "h200", "h100", "a100".
const std::vector<DeviceModel> &builtinDeviceModels();
/// A built-in model by id (case-insensitive), or an error naming the ids.
Expected<DeviceModel> builtinDeviceModel(std::string_view id);

/// Reads a device model from JSON text: {"base": "h200", "bandwidth_gbps":
/// 4240, ...}. Fields not given come from `base` (default: `fallback`).
/// Errors name `origin` (a file name) and the path to the bad value (or,
/// for text that is not JSON, its line and column): unknown keys, wrong
/// types, values out of range, an unknown base.
Expected<DeviceModel> parseDeviceModel(std::string_view json,
                                       const std::string &origin,
                                       const DeviceModel &fallback);
/// `--device` as the tools take it: a built-in id or a JSON file's path.
Expected<DeviceModel> loadDeviceModel(const std::string &idOrPath);

/// The model as JSON (every field, the override format).
std::string deviceModelJson(const DeviceModel &model);

/// Registers, shared memory and threads of one program (CUDA block).
struct Resources {
  int threadsPerProgram = 0;
  int registers = -1;             ///< per thread; -1 unknown
  int64_t staticSharedBytes = -1; ///< -1 unknown
  int64_t dynamicSharedBytes = 0; ///< from the metadata
  int64_t spillBytes = -1;        ///< spill stores + loads; -1 unknown
  int64_t stackBytes = -1;
  std::string source; ///< "ptxas -v", "cuFuncGetAttribute", or why unknown

  /// What ptxas reported (the metadata's "resources"), threads and dynamic
  /// shared memory left for the caller.
  static Resources fromPtxas(const runtime::KernelResources &r) {
    Resources use;
    use.registers = r.registers;
    use.staticSharedBytes = r.staticSharedBytes;
    use.spillBytes = r.spillStoreBytes + r.spillLoadBytes;
    use.stackBytes = r.stackBytes;
    use.source = "ptxas -v";
    return use;
  }

  bool known() const { return registers >= 0 && staticSharedBytes >= 0; }
  int64_t sharedBytes() const {
    return (staticSharedBytes > 0 ? staticSharedBytes : 0) + dynamicSharedBytes;
  }
};

/// How many programs one SM holds at once and what limits it.
struct Occupancy {
  int programsPerSM = 0;
  double fraction = 0; ///< resident warps / the SM's maximum
  /// "threads", "registers", "shared memory", "programs per SM"; several
  /// joined with '+' when they tie.
  std::string limiter;
  /// The counts were bounded without registers/shared memory (unknown).
  bool upperBound = false;
  /// An error instead: the program does not fit on an SM at all.
  std::string error;
};

/// CUDA's occupancy rules for `resources` on `model`.
Occupancy computeOccupancy(const DeviceModel &model,
                           const Resources &resources);

} // namespace tilec::perfmodel

#endif // TILEC_PERFMODEL_DEVICEMODEL_H
