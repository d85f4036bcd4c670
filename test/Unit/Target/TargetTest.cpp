//===- TargetTest.cpp - the chip table and its lookup ---------------------===//

#include "tilec/Target/Target.h"

#include <gtest/gtest.h>

using tilec::Target;
using tilec::TensorCoreGen;

namespace {

Target get(llvm::StringRef chip) {
  llvm::Expected<Target> t = Target::get(chip);
  EXPECT_TRUE(bool(t)) << chip.str();
  if (!t) {
    llvm::consumeError(t.takeError());
    return *Target::get("sm_90");
  }
  return *t;
}

TEST(Target, KnownChips) {
  EXPECT_EQ(Target::getKnownChipList(), "sm_80, sm_89, sm_90, sm_90a, sm_100a");
  for (llvm::StringRef chip : Target::getKnownChips())
    EXPECT_EQ(get(chip).getChip(), chip);
  EXPECT_EQ(get(Target::kDefaultChip).getChip(), "sm_90");
}

TEST(Target, UnknownChipListsTheKnownOnes) {
  for (const char *chip : {"sm_75", "sm_90A", "", "sm_100"}) {
    llvm::Expected<Target> t = Target::get(chip);
    ASSERT_FALSE(bool(t)) << chip;
    EXPECT_EQ(llvm::toString(t.takeError()),
              std::string("unknown GPU target '") + chip +
                  "' (known: sm_80, sm_89, sm_90, sm_90a, sm_100a)");
  }
}

TEST(Target, Features) {
  Target a100 = get("sm_80"), h100 = get("sm_90"), h100a = get("sm_90a"),
         b200 = get("sm_100a"), l40 = get("sm_89");
  EXPECT_EQ(a100.getSmVersion(), 80);
  EXPECT_EQ(l40.getSmVersion(), 89);
  EXPECT_EQ(h100a.getSmVersion(), 90);
  EXPECT_EQ(b200.getSmVersion(), 100);
  // wgmma and setmaxnreg are sm_90a's; TMA is every sm_90+ chip's.
  EXPECT_FALSE(h100.hasWgmma());
  EXPECT_TRUE(h100a.hasWgmma());
  EXPECT_FALSE(b200.hasWgmma());
  EXPECT_FALSE(a100.hasTma());
  EXPECT_TRUE(h100.hasTma());
  EXPECT_TRUE(b200.hasTma());
  EXPECT_FALSE(h100.hasSetMaxNReg());
  EXPECT_TRUE(h100a.hasSetMaxNReg());
  EXPECT_FALSE(a100.hasBf16AtomicAdd());
  EXPECT_TRUE(h100.hasBf16AtomicAdd());
  // fp8 conversions from sm_89 (PTX 8.1: cvt .e4m3x2 / .e5m2x2).
  EXPECT_FALSE(a100.hasFp8Convert());
  EXPECT_TRUE(l40.hasFp8Convert());
  EXPECT_TRUE(h100.hasFp8Convert());
  EXPECT_EQ(a100.getPtxVersion(), 80);
  EXPECT_EQ(l40.getPtxVersion(), 81);
  EXPECT_TRUE(h100a.isArchSpecific());
  EXPECT_FALSE(h100.isArchSpecific());
  EXPECT_EQ(a100.getTensorCoreGen(), TensorCoreGen::MmaSync);
  EXPECT_EQ(h100a.getTensorCoreGen(), TensorCoreGen::Wgmma);
  EXPECT_EQ(b200.getTensorCoreGen(), TensorCoreGen::Tcgen05);
}

TEST(Target, Limits) {
  EXPECT_EQ(get("sm_80").maxSharedMemoryPerBlock(), 163 * 1024);
  EXPECT_EQ(get("sm_89").maxSharedMemoryPerBlock(), 99 * 1024);
  EXPECT_EQ(get("sm_90").maxSharedMemoryPerBlock(), 227 * 1024);
  EXPECT_EQ(get("sm_90a").getWarpSize(), 32);
  EXPECT_EQ(get("sm_90a").getRegistersPerSM(), 65536);
  EXPECT_EQ(get("sm_90a").getMaxRegistersPerThread(), 255);
}

TEST(Target, EmittedPtx) {
  // sm_80 keeps PTX 8.0; sm_90 and sm_90a need 8.1 (vector red.global),
  // sm_100a 8.6.
  EXPECT_EQ(get("sm_80").getPtxFeatures(), "+ptx80");
  EXPECT_EQ(get("sm_90").getPtxFeatures(), "+ptx81");
  EXPECT_EQ(get("sm_90a").getPtxFeatures(), "+ptx81");
  EXPECT_EQ(get("sm_100a").getPtxFeatures(), "+ptx86");
  EXPECT_EQ(get("sm_90a").getPtxasArch(), "-arch=sm_90a");
}

} // namespace
