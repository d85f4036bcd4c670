//===- Target.h - what tilec knows about each GPU it targets ----*- C++ -*-===//
//
// The compiler's view of a known chip (sm_80, sm_89, sm_90, sm_90a,
// sm_100a): its SM version, arch-specific features, memory and register
// limits, the tensor-core generation and what the emitted PTX says. The
// table and the one lookup of a chip string are Chip.h's (MLIR-free, also in
// the runtime-only build); this class adds the LLVM-typed interface the
// passes use. Drivers call Target::get once and pass the Target (or its chip
// name, for pass options) on; passes that decide by target call Target::get
// on their `chip` option, which is the validation.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_TARGET_H
#define TILEC_TARGET_TARGET_H

#include "tilec/Target/Chip.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tilec {

class Target {
public:
  /// The target named `chip` ("sm_90a"); an error naming the known chips
  /// for any other string.
  static llvm::Expected<Target> get(llvm::StringRef chip);
  /// The known chip names, in SM order.
  static llvm::ArrayRef<llvm::StringRef> getKnownChips();
  /// "sm_80, sm_89, sm_90, sm_90a, sm_100a", for messages and --help.
  static std::string getKnownChipList();
  /// The default chip of tilec's tools.
  static constexpr llvm::StringLiteral kDefaultChip = "sm_90";

  /// "sm_90a": what the NVVM target attribute, `.target` and ptxas name.
  llvm::StringRef getChip() const { return chip; }
  /// 80, 89, 90, 100: the compute capability as one number.
  int getSmVersion() const { return smVersion; }
  /// True for the "a" chips, whose code runs on that SM version only.
  bool isArchSpecific() const { return archSpecific; }

  /// wgmma.mma_async (sm_90a only: sm_100a has tcgen05 instead).
  bool hasWgmma() const { return tensorCores == TensorCoreGen::Wgmma; }
  /// cp.async.bulk.tensor and mbarrier transaction counts (sm_90 and newer;
  /// PTX does not make TMA arch-specific).
  bool hasTma() const { return smVersion >= 90; }
  /// Thread-block clusters (`.reqnctapercluster`, distributed shared
  /// memory, TMA multicast): sm_90 and newer.
  bool hasClusters() const { return smVersion >= 90; }
  /// setmaxnreg (the "a" chips from sm_90a).
  bool hasSetMaxNReg() const { return archSpecific && smVersion >= 90; }
  /// atom.add.noftz.bf16 (sm_90 and newer).
  bool hasBf16AtomicAdd() const { return smVersion >= 90; }
  /// cvt between f32 / f16 pairs and fp8 pairs (e4m3x2, e5m2x2): sm_89
  /// and newer.
  bool hasFp8Convert() const { return smVersion >= 89; }
  /// cp.async (sm_80 and newer: every known chip).
  bool hasCpAsync() const { return smVersion >= 80; }
  TensorCoreGen getTensorCoreGen() const { return tensorCores; }

  /// Shared memory one program may use after opting in (bytes), the
  /// cudaFuncAttributeMaxDynamicSharedMemorySize limit.
  int64_t maxSharedMemoryPerBlock() const { return smemPerBlockOptIn; }
  /// Shared memory of one SM (bytes).
  int64_t sharedMemoryPerSM() const { return smemPerSM; }
  /// Resident threads and programs (CTAs) of one SM: 1536 and 24 on
  /// sm_89 (Ada), 2048 and 32 on the others.
  int getMaxThreadsPerSM() const { return smVersion == 89 ? 1536 : 2048; }
  int getMaxProgramsPerSM() const { return smVersion == 89 ? 24 : 32; }
  int getMaxRegistersPerThread() const { return 255; }
  int getRegistersPerSM() const { return 65536; }
  int getWarpSize() const { return 32; }

  /// The PTX ISA version the emitted PTX declares (80 = `.version 8.0`).
  int getPtxVersion() const { return ptxVersion; }
  /// The NVPTX feature string of that version ("+ptx80").
  std::string getPtxFeatures() const;
  /// ptxas's `-arch=` value.
  std::string getPtxasArch() const { return "-arch=" + chip.str(); }

private:
  llvm::StringRef chip;
  int smVersion = 0;
  bool archSpecific = false;
  TensorCoreGen tensorCores = TensorCoreGen::MmaSync;
  int64_t smemPerBlockOptIn = 0;
  int64_t smemPerSM = 0;
  int ptxVersion = 0;
};

} // namespace tilec

#endif // TILEC_TARGET_TARGET_H
