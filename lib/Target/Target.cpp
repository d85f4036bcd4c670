//===- Target.cpp - the known GPU targets ---------------------------------===//
//
// The table of chips. Limits are the CUDA programming guide's (compute
// capabilities table); PTX versions are the lowest that has every feature
// the chip's code may use: 8.0 for sm_80 to sm_90a (wgmma, cp.async.bulk),
// 8.6 for sm_100a (the first with `.target sm_100a`).
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Target.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace tilec;

namespace {
struct ChipInfo {
  llvm::StringLiteral chip;
  int smVersion;
  bool archSpecific;
  TensorCoreGen tensorCores;
  int64_t smemPerBlockOptIn;
  int64_t smemPerSM;
  int ptxVersion;
};
} // namespace

static constexpr int64_t KiB = 1024;

// sm_80/sm_90 keep PTX 8.0, which every tilec release has emitted: their
// PTX is unchanged by this table.
static const ChipInfo kChips[] = {
    {"sm_80", 80, false, TensorCoreGen::MmaSync, 163 * KiB, 164 * KiB, 80},
    {"sm_89", 89, false, TensorCoreGen::MmaSync, 99 * KiB, 100 * KiB, 80},
    {"sm_90", 90, false, TensorCoreGen::MmaSync, 227 * KiB, 228 * KiB, 80},
    {"sm_90a", 90, true, TensorCoreGen::Wgmma, 227 * KiB, 228 * KiB, 80},
    {"sm_100a", 100, true, TensorCoreGen::Tcgen05, 227 * KiB, 228 * KiB, 86},
};

llvm::ArrayRef<llvm::StringRef> Target::getKnownChips() {
  static const llvm::SmallVector<llvm::StringRef> names = [] {
    llvm::SmallVector<llvm::StringRef> v;
    for (const ChipInfo &c : kChips)
      v.push_back(c.chip);
    return v;
  }();
  return names;
}

std::string Target::getKnownChipList() {
  return llvm::join(getKnownChips(), ", ");
}

llvm::Expected<Target> Target::get(llvm::StringRef chip) {
  const ChipInfo *info =
      llvm::find_if(kChips, [&](const ChipInfo &c) { return c.chip == chip; });
  if (info == std::end(kChips))
    return llvm::createStringError("unknown GPU target '" + chip.str() +
                                   "' (known: " + getKnownChipList() + ")");
  Target t;
  t.chip = info->chip;
  t.smVersion = info->smVersion;
  t.archSpecific = info->archSpecific;
  t.tensorCores = info->tensorCores;
  t.smemPerBlockOptIn = info->smemPerBlockOptIn;
  t.smemPerSM = info->smemPerSM;
  t.ptxVersion = info->ptxVersion;
  return t;
}

std::string Target::getPtxFeatures() const {
  return "+ptx" + std::to_string(ptxVersion);
}
