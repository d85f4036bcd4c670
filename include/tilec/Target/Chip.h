//===- Chip.h - the table of known GPU chips (no MLIR, no LLVM) -*- C++ -*-===//
//
// The MLIR-free core of tilec::Target: one row per chip tilec knows (sm_80,
// sm_89, sm_90, sm_90a, sm_100a) and the one lookup of a chip name. The
// compiler reaches it through Target (Target.h); the runtime (the metadata's
// "target", the device check) and the performance model (a device model's
// "arch") use it directly, so the runtime-only build has it too and no code
// parses "sm_XY" strings by hand.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_CHIP_H
#define TILEC_TARGET_CHIP_H

#include "tilec/Support/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tilec {

/// The newest matrix instruction family a chip has (every later family's
/// chips also run mma.sync).
enum class TensorCoreGen {
  MmaSync, ///< mma.sync / ldmatrix, warp-level (sm_80 and newer)
  Wgmma,   ///< wgmma.mma_async, warpgroup-level (sm_90a only)
  Tcgen05, ///< tcgen05.mma, tensor memory (sm_100a)
};

/// What tilec knows about one chip.
struct Chip {
  /// "sm_90a": what the NVVM target attribute, `.target` and ptxas name.
  std::string_view name;
  /// 80, 89, 90, 100: the compute capability as one number.
  int smVersion = 0;
  /// The "a" chips, whose code runs on exactly that SM version only.
  bool archSpecific = false;
  TensorCoreGen tensorCores = TensorCoreGen::MmaSync;
  /// Shared memory one program may use after opting in (bytes).
  int64_t smemPerBlockOptIn = 0;
  /// Shared memory of one SM (bytes).
  int64_t smemPerSM = 0;
  /// The PTX ISA version the emitted PTX declares (80 = `.version 8.0`).
  int ptxVersion = 0;

  int ccMajor() const { return smVersion / 10; }
  int ccMinor() const { return smVersion % 10; }
  /// True when code for this chip runs on a device of compute capability
  /// `major`.`minor`: the same or a newer one, or exactly this one for an
  /// arch-specific chip.
  bool runsOn(int major, int minor) const {
    int have = major * 10 + minor;
    return archSpecific ? have == smVersion : have >= smVersion;
  }
};

/// The known chips, in SM order.
std::span<const Chip> knownChips();
/// "sm_80, sm_89, sm_90, sm_90a, sm_100a", for messages and --help.
std::string knownChipList();
/// The chip named `name`, or null.
const Chip *findChip(std::string_view name);
/// The chip named `name`; for any other string the error
/// "unknown GPU target 'NAME' (known: sm_80, ...)".
Expected<Chip> lookupChip(std::string_view name);

} // namespace tilec

#endif // TILEC_TARGET_CHIP_H
