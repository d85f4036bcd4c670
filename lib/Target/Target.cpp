//===- Target.cpp - the known GPU targets ---------------------------------===//
//
// Target::get looks the chip up in Chip.cpp's table (tilec::lookupChip) and
// hands the row out through LLVM types.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Target.h"

#include "llvm/ADT/SmallVector.h"

using namespace tilec;

llvm::ArrayRef<llvm::StringRef> Target::getKnownChips() {
  static const llvm::SmallVector<llvm::StringRef> names = [] {
    llvm::SmallVector<llvm::StringRef> v;
    for (const Chip &c : knownChips())
      v.push_back(llvm::StringRef(c.name.data(), c.name.size()));
    return v;
  }();
  return names;
}

std::string Target::getKnownChipList() { return knownChipList(); }

llvm::Expected<Target> Target::get(llvm::StringRef chip) {
  Expected<Chip> info = lookupChip(std::string_view(chip.data(), chip.size()));
  if (!info.ok())
    return llvm::createStringError(info.message());
  Target t;
  // The table's names are string literals: the StringRef outlives any Target.
  t.chip = llvm::StringRef(info->name.data(), info->name.size());
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
