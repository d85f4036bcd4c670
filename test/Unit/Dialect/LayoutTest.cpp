//===- LayoutTest.cpp - DistributedLayout: who holds which element --------===//
//
// Enumerates every (warp, lane, element) of a layout with the same formula
// the lowering emits, and checks that the tile is covered: exactly once
// where the layout replicates nothing, and that getDistinctLanes/Warps and
// the owner rule pick exactly one holder of each element otherwise.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/TileLayout.h"
#include "tilec/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

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
  int64_t lanes = 32, warps = l.getNumWarps();
  for (int64_t w = 0; w < warps; ++w) {
    for (int64_t lane = 0; lane < lanes; ++lane) {
      bool owner = true;
      SmallVector<int64_t> lc(rank), wc(rank);
      for (unsigned d = 0; d < rank; ++d) {
        lc[d] = (lane / l.getLaneStride(d)) % l.getTpw(d);
        wc[d] = (w / l.getWarpStride(d)) % l.getWpc(d);
        // The owner rule of emitOwnerPredicate.
        if (l.getLaneMul(d) == 0 && lc[d] != 0)
          owner = false;
        if (l.getWarpMul(d) == 0 && wc[d] != 0)
          owner = false;
        if (l.wraps(d) &&
            lc[d] * l.getLaneMul(d) + wc[d] * l.getWarpMul(d) >=
                l.getShape()[d])
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
  // 100 rows are 25 exact repetitions of the 4 warps' rows.
  auto rows100 = DistributedLayout::get(b, {100, 128});
  ASSERT_TRUE(succeeded(rows100));
  EXPECT_EQ(rows100->getPerThread(0), 25);
  EXPECT_EQ(rows100->getNumPadded(), 0);
  EXPECT_TRUE(failed(DistributedLayout::get(b, {128})));
  // 4-element threads on 32 lanes over 100: lanes 25-31 would repeat lanes
  // 0-6, no uniform replication.
  EXPECT_TRUE(
      failed(DistributedLayout::get(blocked({4}, {32}, {1}, {0}), {100})));
  // 5000 f32 over 10 warps: 4 repetitions of 1280, the last one padded.
  auto p = DistributedLayout::get(blocked({4}, {32}, {10}, {0}), {5000});
  ASSERT_TRUE(succeeded(p));
  EXPECT_EQ(p->getPerThread(0), 16);
  EXPECT_EQ(p->getNumPadded(), 120);
  EXPECT_TRUE(p->isPadded(0));
  EXPECT_TRUE(p->isPaddingFree(0, 11));
  EXPECT_FALSE(p->isPaddingFree(0, 12));
  EXPECT_EQ(p->getIndex(0, 12, 31, 9), (3840 + 124 + 1152) % 5000);
  // Exact covers: 3072 bf16 on 12 warps, 192 columns in 3
  // repetitions of 8 lanes x 8, 12 elements as 3 per thread on 4 lanes.
  auto l3072 = getDefaultBlockedLayout(&context, {3072}, {0}, 8, 12);
  EXPECT_EQ(l3072.getWarpsPerCTA(), ArrayRef<unsigned>({12}));
  EXPECT_EQ(DistributedLayout::get(l3072, {3072})->getNumPadded(), 0);
  auto l192 = getDefaultBlockedLayout(&context, {128, 192}, {1, 0}, 8, 4);
  EXPECT_EQ(l192.getThreadsPerWarp(), ArrayRef<unsigned>({4, 8}));
  EXPECT_EQ(DistributedLayout::get(l192, {128, 192})->getPerThread(1), 24);
  auto l12 = getDefaultBlockedLayout(&context, {12}, {0}, 1, 4);
  EXPECT_EQ(l12.getSizePerThread(), ArrayRef<unsigned>({3}));
  EXPECT_EQ(DistributedLayout::get(l12, {12})->getDistinctLanes(0), 4);
}

/// Thread coordinates as the lowering computes them.
struct Coords {
  SmallVector<int64_t> lane, warp;
};
Coords coordsOf(const DistributedLayout &l, int64_t lane, int64_t warp) {
  Coords c;
  for (unsigned d = 0; d < l.getRank(); ++d) {
    c.lane.push_back((lane / l.getLaneStride(d)) % l.getTpw(d));
    c.warp.push_back((warp / l.getWarpStride(d)) % l.getWpc(d));
  }
  return c;
}

TEST_F(LayoutTest, MmaAccumulatorIsThePtxFragment) {
  // 128x128 over warps [4 along M, 2 along N]: each warp holds 2x8 tiles
  // of 16x8, 64 elements per thread, every element once.
  auto mma = MmaLayoutAttr::get(&context, 2, {4, 2}, {16, 8});
  auto l = *DistributedLayout::get(mma, {128, 128});
  EXPECT_EQ(l.getNumElems(), 64);
  EXPECT_FALSE(l.isReplicated());
  Coverage c = cover(l, {128, 128});
  EXPECT_EQ(c.holders.size(), 128u * 128u);
  for (auto [idx, n] : c.holders)
    EXPECT_EQ(n, 1);
  // PTX ISA, mma.m16n8k16 C/D fragment: c_i at row g + 8 * (i / 2), column
  // 2 * t + i % 2 (g = lane / 4, t = lane % 4); warp (wm, wn) = (w / 2,
  // w % 2) takes tiles strided by 64 rows and 16 columns.
  for (int64_t w = 0; w < 8; ++w)
    for (int64_t lane = 0; lane < 32; ++lane) {
      Coords k = coordsOf(l, lane, w);
      int64_t g = lane / 4, t = lane % 4, wm = w / 2, wn = w % 2;
      for (int64_t mi = 0; mi < 2; ++mi)
        for (int64_t ni = 0; ni < 8; ++ni)
          for (int64_t i = 0; i < 4; ++i) {
            int64_t sm = 2 * mi + i / 2, sn = 2 * ni + i % 2;
            EXPECT_EQ(l.getIndex(0, sm, k.lane[0], k.warp[0]),
                      mi * 64 + wm * 16 + g + 8 * (i / 2));
            EXPECT_EQ(l.getIndex(1, sn, k.lane[1], k.warp[1]),
                      ni * 16 + wn * 8 + 2 * t + i % 2);
          }
    }
  // Two consecutive columns per thread: a 2-element vector along N.
  EXPECT_EQ(l.getOrder()[0], 1u);
  EXPECT_EQ(l.getVec(1), 2);
  EXPECT_EQ(l.getVec(0), 1);
}

TEST_F(LayoutTest, DotOperandsAreThePtxFragments) {
  auto mma = MmaLayoutAttr::get(&context, 2, {2, 2}, {16, 8});
  auto a = *DistributedLayout::get(
      DotOperandLayoutAttr::get(&context, 0, mma, 2), {64, 32});
  auto b = *DistributedLayout::get(
      DotOperandLayoutAttr::get(&context, 1, mma, 2), {32, 64});
  // A: 2 row tiles x 2 k steps x 8 values; B: 4 column tiles x 2 x 4.
  EXPECT_EQ(a.getNumElems(), 32);
  EXPECT_EQ(b.getNumElems(), 32);
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t lane = 0; lane < 32; ++lane) {
      int64_t g = lane / 4, t = lane % 4, wm = w / 2, wn = w % 2;
      Coords ka = coordsOf(a, lane, w), kb = coordsOf(b, lane, w);
      for (int64_t ki = 0; ki < 2; ++ki) {
        // a_i: row g + 8 * ((i / 2) % 2), k 2t + i % 2 + 8 * (i / 4).
        for (int64_t mi = 0; mi < 2; ++mi)
          for (int64_t i = 0; i < 8; ++i) {
            int64_t sm = 2 * mi + (i / 2) % 2, sk = 4 * ki + i % 2 + 2 * (i / 4);
            EXPECT_EQ(a.getIndex(0, sm, ka.lane[0], ka.warp[0]),
                      mi * 32 + wm * 16 + g + 8 * ((i / 2) % 2));
            EXPECT_EQ(a.getIndex(1, sk, ka.lane[1], ka.warp[1]),
                      ki * 16 + 2 * t + i % 2 + 8 * (i / 4));
          }
        // b_i: k 2t + i % 2 + 8 * (i / 2), column g.
        for (int64_t ni = 0; ni < 2; ++ni)
          for (int64_t i = 0; i < 4; ++i) {
            EXPECT_EQ(b.getIndex(0, 4 * ki + i, kb.lane[0], kb.warp[0]),
                      ki * 16 + 2 * t + i % 2 + 8 * (i / 2));
            EXPECT_EQ(b.getIndex(1, ni, kb.lane[1], kb.warp[1]),
                      ni * 16 + wn * 8 + g);
          }
      }
    }
  // The warps along the other accumulator dim hold copies; one owns.
  Coverage ca = cover(a, {64, 32}), cb = cover(b, {32, 64});
  EXPECT_EQ(ca.holders.size(), 64u * 32u);
  EXPECT_EQ(cb.holders.size(), 32u * 64u);
  for (auto [idx, n] : ca.holders) {
    EXPECT_EQ(n, 2);
    EXPECT_EQ(ca.owners[idx], 1);
  }
  for (auto [idx, n] : cb.holders) {
    EXPECT_EQ(n, 2);
    EXPECT_EQ(cb.owners[idx], 1);
  }
}

TEST_F(LayoutTest, SmallMmaTilesReplicate) {
  // 16x16 with 4 warps along N: warps 2 and 3 repeat warps 0 and 1.
  auto mma = MmaLayoutAttr::get(&context, 2, {1, 4}, {16, 8});
  auto l = *DistributedLayout::get(mma, {16, 16});
  EXPECT_EQ(l.getNumElems(), 4);
  EXPECT_TRUE(l.isReplicated());
  EXPECT_EQ(l.getDistinctWarps(1), 2);
  Coverage c = cover(l, {16, 16});
  EXPECT_EQ(c.holders.size(), 256u);
  for (auto [idx, n] : c.holders) {
    EXPECT_EQ(n, 2);
    EXPECT_EQ(c.owners[idx], 1);
  }
  // A row vector (slice of the rows) and a column vector of the
  // accumulator: every element held, one owner each.
  auto cols = *DistributedLayout::get(SliceLayoutAttr::get(&context, 0, mma),
                                      {16});
  Coverage cc = cover(cols, {16});
  EXPECT_EQ(cc.holders.size(), 16u);
  for (auto [idx, n] : cc.owners)
    EXPECT_EQ(n, 1);
  // Rows shorter than the +8 step: no thread holds one element twice.
  auto eight = *DistributedLayout::get(mma, {8, 16});
  EXPECT_EQ(eight.getPerThread(0), 1);
  Coverage ce = cover(eight, {8, 16});
  EXPECT_EQ(ce.holders.size(), 128u);
  for (auto [idx, n] : ce.owners)
    EXPECT_EQ(n, 1);
}

TEST_F(LayoutTest, SwizzleSpreadsLdmatrixRowsOverBanks) {
  // The 8 rows one ldmatrix reads (one 16-byte chunk each) must fall in 8
  // distinct 16-byte bank groups, for rows of 64, 256 and 32 bytes.
  for (int64_t rowLen : {32, 128, 16}) {
    auto s = getSwizzledSharedLayout(&context, {64, rowLen}, {1, 0}, 16);
    for (int64_t row0 = 0; row0 < 64; row0 += 8)
      for (int64_t col = 0; col < rowLen; col += 8) {
        std::set<int64_t> groups;
        for (int64_t r = row0; r < row0 + 8; ++r) {
          int64_t off = getSharedOffset(s, rowLen, r, col);
          EXPECT_EQ(off % 8, 0);
          groups.insert((off * 2 / 16) % 8);
        }
        EXPECT_EQ(groups.size(), 8u) << "rowLen " << rowLen;
      }
    // A permutation of each row's chunks: every element lands once.
    std::set<int64_t> seen;
    for (int64_t r = 0; r < 64; ++r)
      for (int64_t c = 0; c < rowLen; ++c) {
        int64_t off = getSharedOffset(s, rowLen, r, c);
        EXPECT_EQ(off / rowLen, r);
        seen.insert(off);
      }
    EXPECT_EQ(seen.size(), size_t(64 * rowLen));
  }
}

} // namespace
