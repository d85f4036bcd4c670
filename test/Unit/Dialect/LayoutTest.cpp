//===- LayoutTest.cpp - DistributedLayout: who holds which element --------===//
//
// Enumerates every (warp, lane, element) of a layout with the same formula
// the lowering emits, and checks that the tile is covered: exactly once
// where the layout replicates nothing, and that getDistinctLanes/Warps and
// the owner rule pick exactly one holder of each element otherwise.
//
//===----------------------------------------------------------------------===//

#include "dialect/TileLayout.h"
#include "tilec/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>
#include <map>

using namespace mlir;
using namespace mlir::tile;

namespace {

class LayoutTest : public ::testing::Test {
protected:
  LayoutTest() {
    DialectRegistry registry;
    tilec::registerTilecDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  BlockedLayoutAttr blocked(ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw,
                            ArrayRef<unsigned> wpc, ArrayRef<unsigned> order) {
    return BlockedLayoutAttr::get(&context, spt, tpw, wpc, order);
  }
  MLIRContext context;
};

/// For each tile index (linearized over the tile dims): how many threads
/// hold it, and how many of those are owners.
struct Coverage {
  std::map<int64_t, int> holders, owners;
};

Coverage cover(const DistributedLayout &l, ArrayRef<int64_t> tileShape) {
  Coverage c;
  unsigned rank = l.getRank();
  int64_t lanes = 32, warps = l.getBlocked().getNumWarps();
  for (int64_t w = 0; w < warps; ++w) {
    for (int64_t lane = 0; lane < lanes; ++lane) {
      bool owner = true;
      SmallVector<int64_t> lc(rank), wc(rank);
      for (unsigned d = 0; d < rank; ++d) {
        lc[d] = (lane / l.getLaneStride(d)) % l.getTpw(d);
        wc[d] = (w / l.getWarpStride(d)) % l.getWpc(d);
        if ((wc[d] * l.getTpw(d) + lc[d]) * l.getSpt(d) >= l.getShape()[d])
          owner = false;
      }
      for (int64_t i = 0; i < l.getNumElems(); ++i) {
        SmallVector<int64_t> sub = l.getSubIndices(i);
        EXPECT_EQ(l.getElemNumber(sub), i);
        int64_t lin = 0;
        unsigned t = 0;
        for (unsigned d = 0; d < rank; ++d) {
          if (l.isSliced(d))
            continue;
          lin = lin * tileShape[t++] + l.getIndex(d, sub[d], lc[d], wc[d]);
        }
        c.holders[lin]++;
        c.owners[lin] += owner;
      }
    }
  }
  return c;
}

TEST_F(LayoutTest, BlockedCoversOnce) {
  // 1024 f32 over 4 warps, 4 per thread: 8 elements each, no replicas.
  auto l = *DistributedLayout::get(blocked({4}, {32}, {4}, {0}), {1024});
  EXPECT_EQ(l.getNumElems(), 8);
  EXPECT_FALSE(l.isReplicated());
  Coverage c = cover(l, {1024});
  EXPECT_EQ(c.holders.size(), 1024u);
  for (auto [idx, n] : c.holders)
    EXPECT_EQ(n, 1) << "element " << idx;
  // Elements 0..3 of a thread are consecutive indices (one vector).
  EXPECT_EQ(l.getIndex(0, 1, 5, 2) - l.getIndex(0, 0, 5, 2), 1);
  EXPECT_EQ(l.getIndex(0, 4, 5, 2) - l.getIndex(0, 0, 5, 2), 512);
}

TEST_F(LayoutTest, TwoDimsOrderAndSlices) {
  auto b = blocked({1, 4}, {2, 16}, {4, 1}, {1, 0});
  auto l = *DistributedLayout::get(b, {64, 64});
  Coverage c = cover(l, {64, 64});
  EXPECT_EQ(c.holders.size(), 64u * 64u);
  for (auto [idx, n] : c.holders)
    EXPECT_EQ(n, 1);
  // The row slice: each row value sits in the 16 lanes of its row.
  auto rows = *DistributedLayout::get(SliceLayoutAttr::get(&context, 1, b),
                                      {64});
  EXPECT_EQ(rows.getNumElems(), 8);
  EXPECT_EQ(rows.getDistinctLanes(1), 1);
  Coverage r = cover(rows, {64});
  EXPECT_EQ(r.holders.size(), 64u);
  for (auto [idx, n] : r.holders) {
    EXPECT_EQ(n, 16);
    EXPECT_EQ(r.owners[idx], 1) << "row " << idx;
  }
}

TEST_F(LayoutTest, SmallTileIsReplicated) {
  // 32 elements over 4 warps of 32: warps 1-3 repeat warp 0.
  auto l = *DistributedLayout::get(blocked({1}, {32}, {4}, {0}), {32});
  EXPECT_TRUE(l.isReplicated());
  EXPECT_EQ(l.getDistinctLanes(0), 32);
  EXPECT_EQ(l.getDistinctWarps(0), 1);
  Coverage c = cover(l, {32});
  for (auto [idx, n] : c.holders) {
    EXPECT_EQ(n, 4);
    EXPECT_EQ(c.owners[idx], 1);
  }
  // 16 elements in one warp: lanes 16-31 repeat lanes 0-15.
  auto h = *DistributedLayout::get(blocked({1}, {32}, {1}, {0}), {16});
  EXPECT_EQ(h.getDistinctLanes(0), 16);
  Coverage ch = cover(h, {16});
  for (auto [idx, n] : ch.holders)
    EXPECT_EQ(ch.owners[idx], 1);
}

TEST_F(LayoutTest, DefaultLayoutFillsThreads) {
  auto b = getDefaultBlockedLayout(&context, {8, 128}, {1, 0}, 4, 4);
  EXPECT_EQ(b.getSizePerThread(), ArrayRef<unsigned>({1, 4}));
  EXPECT_EQ(b.getThreadsPerWarp(), ArrayRef<unsigned>({1, 32}));
  EXPECT_EQ(b.getWarpsPerCTA(), ArrayRef<unsigned>({4, 1}));
  // Too small for the program: leftover warps replicate the slowest dim.
  auto s = getDefaultBlockedLayout(&context, {64}, {0}, 1, 4);
  EXPECT_EQ(s.getWarpsPerCTA(), ArrayRef<unsigned>({4}));
  EXPECT_TRUE(failed(DistributedLayout::get(b, {100, 128})));
  EXPECT_TRUE(failed(DistributedLayout::get(b, {128})));
}

} // namespace
