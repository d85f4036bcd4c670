//===- Chip.cpp - the known GPU chips -------------------------------------===//
//
// The table of chips. Limits are the CUDA programming guide's (compute
// capabilities table); PTX versions are the lowest that has every feature
// the chip's code may use: 8.0 for sm_80, 8.1 for sm_89 (cvt to and from
// .e4m3x2 / .e5m2x2: the fp8 conversions), sm_90 and sm_90a (wgmma,
// cp.async.bulk; 8.1: red.global.add.v2/v4.f32), 8.6 for sm_100a (the
// first with `.target sm_100a`).
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Chip.h"

#include <algorithm>

using namespace tilec;

static constexpr int64_t KiB = 1024;

static constexpr Chip kChips[] = {
    {"sm_80", 80, false, TensorCoreGen::MmaSync, 163 * KiB, 164 * KiB, 80},
    {"sm_89", 89, false, TensorCoreGen::MmaSync, 99 * KiB, 100 * KiB, 81},
    {"sm_90", 90, false, TensorCoreGen::MmaSync, 227 * KiB, 228 * KiB, 81},
    {"sm_90a", 90, true, TensorCoreGen::Wgmma, 227 * KiB, 228 * KiB, 81},
    {"sm_100a", 100, true, TensorCoreGen::Tcgen05, 227 * KiB, 228 * KiB, 86},
};

std::span<const Chip> tilec::knownChips() { return kChips; }

std::string tilec::knownChipList() {
  std::string out;
  for (const Chip &c : kChips)
    out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

const Chip *tilec::findChip(std::string_view name) {
  const Chip *it = std::find_if(std::begin(kChips), std::end(kChips),
                                [&](const Chip &c) { return c.name == name; });
  return it == std::end(kChips) ? nullptr : it;
}

Expected<Chip> tilec::lookupChip(std::string_view name) {
  if (const Chip *chip = findChip(name))
    return *chip;
  return Status::error("unknown GPU target '" + std::string(name) +
                       "' (known: " + knownChipList() + ")");
}
