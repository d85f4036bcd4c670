//===- HopperTest.cpp - sm_90a's descriptors, swizzles and mbarriers ------===//
//
// The arithmetic of test/lib/PtxSim/Hopper.h against values worked out by
// hand from the PTX ISA: the swizzle patterns' XOR of address bits, the
// fields of wgmma's matrix descriptor, the address of an operand element in
// each canonical layout (K-major and MN-major, no swizzle and 32-, 64-,
// 128-byte swizzles), and the mbarrier's phase and transaction-count rules;
// and the stand-in driver's tensor-map encoding read back.
//
//===----------------------------------------------------------------------===//

#include "Hopper.h"
#include "TensorMap.h"

#include <gtest/gtest.h>

namespace {

using namespace ptxsim::hopper;

// The 16-byte chunk index (bits 4 up) XORed with the 128-byte row index
// within the pattern (bits 7 up): 3 bits for 128B, 2 for 64B, 1 for 32B.
TEST(Hopper, SwizzleXorsChunkWithRow) {
  EXPECT_EQ(swizzle(0x000, 128), 0x000u);
  EXPECT_EQ(swizzle(0x080, 128), 0x090u); // row 1: chunk 0 -> 1
  EXPECT_EQ(swizzle(0x3f2, 128), 0x382u); // row 7, chunk 7 -> 0, byte 2
  EXPECT_EQ(swizzle(0x400, 128), 0x400u); // the pattern repeats at 1024
  EXPECT_EQ(swizzle(0x4a6, 128), 0x4b6u); // row 9 = 1 (mod 8): chunk 2 -> 3
  EXPECT_EQ(swizzle(0x080, 64), 0x090u);
  EXPECT_EQ(swizzle(0x1b0, 64), 0x180u); // rows 3: chunk 3 -> 0
  EXPECT_EQ(swizzle(0x240, 64), 0x240u); // 512 + 64: row 0 of the next
  EXPECT_EQ(swizzle(0x080, 32), 0x090u);
  EXPECT_EQ(swizzle(0x100, 32), 0x100u); // only bit 7 counts
  EXPECT_EQ(swizzle(0x0b6, 32), 0x0a6u);
  EXPECT_EQ(swizzle(0x3f2, 0), 0x3f2u);
}

uint64_t descriptor(uint64_t start, uint64_t lbo, uint64_t sbo, uint64_t mode) {
  return (start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | mode << 62;
}

TEST(Hopper, DescriptorFields) {
  MatrixDescriptor d;
  EXPECT_EQ(decodeDescriptor(descriptor(0x12340, 8192, 1024, 1), d), "");
  EXPECT_EQ(d.start, 0x12340u);
  EXPECT_EQ(d.leading, 8192u);
  EXPECT_EQ(d.stride, 1024u);
  EXPECT_EQ(d.swizzle, 128u);
  EXPECT_EQ(decodeDescriptor(descriptor(0, 16, 0x3fff0, 2), d), "");
  EXPECT_EQ(d.swizzle, 64u);
  EXPECT_EQ(d.stride, 0x3fff0u);
  EXPECT_EQ(decodeDescriptor(descriptor(0, 0, 0, 3), d), "");
  EXPECT_EQ(d.swizzle, 32u);
  EXPECT_EQ(decodeDescriptor(descriptor(0, 0, 0, 0), d), "");
  EXPECT_EQ(d.swizzle, 0u);
  // tilec's A operand of examples/matmul_tma.tile (K-major, 128B).
  EXPECT_EQ(decodeDescriptor(4611686293372403712ull, d), "");
  EXPECT_EQ(d.leading, 16384u);
  EXPECT_EQ(d.stride, 1024u);
  EXPECT_EQ(d.swizzle, 128u);
}

TEST(Hopper, DescriptorRefusals) {
  MatrixDescriptor d;
  EXPECT_NE(decodeDescriptor(descriptor(0, 0, 1024, 1) | 1ull << 49, d)
                .find("matrix base offset"),
            std::string::npos);
  for (int bit : {14, 15, 30, 31, 46, 47, 48, 52, 61})
    EXPECT_NE(decodeDescriptor(1ull << bit, d).find("reserved bits"),
              std::string::npos)
        << bit;
}

// Element (mn, k) of 16-bit operands, by hand from the ISA's canonical
// layouts (8 x 16-byte core matrices; swizzle atoms of 8 rows of S bytes).
TEST(Hopper, OperandAddressesByLayout) {
  MatrixDescriptor d;
  // K-major, 128B: rows 128 bytes apart, 8-row groups SBO apart.
  d = {0, 16384, 1024, 128};
  // (9, 5): row 1 of group 1 at 128 + 1024, k 5 at +10: 1162 = 0x48a,
  // whose row within the pattern (bits 7-9) is 1: chunk 0 -> 1.
  EXPECT_EQ(operandAddress(d, false, 9, 5, 2), 0x49au);
  EXPECT_EQ(operandAddress(d, false, 0, 15, 2), 30u);
  // K-major, 64B: rows 64 bytes apart. (3, 12): 192 + 24 = 0xd8, row bits
  // 7-8 = 1: chunk 1 -> 0.
  d = {0, 0, 512, 64};
  EXPECT_EQ(operandAddress(d, false, 3, 12, 2), 0xc8u);
  // K-major, 32B: (5, 3): 160 + 6 = 0xa6, bit 7 = 1: chunk 0 -> 1.
  d = {0, 0, 256, 32};
  EXPECT_EQ(operandAddress(d, false, 5, 3, 2), 0xb6u);
  // K-major, none: core matrices of 8 rows x 16 bytes; the next along K at
  // LBO, along M/N at SBO. (10, 9): row 2 (32) of group 1 (256), k 1 (2)
  // of core matrix 1 along K (128).
  d = {0x100, 128, 256, 0};
  EXPECT_EQ(operandAddress(d, false, 10, 9, 2), 0x100u + 418);
  // MN-major, 128B: 64 elements of MN in a 128-byte row, the next 64 at
  // LBO; k rows 128 bytes apart, 8-row groups SBO apart. (70, 9): 12 +
  // 8192 + 128 + 1024 = 0x248c, row bits 1: chunk 0 -> 1.
  d = {0, 8192, 1024, 128};
  EXPECT_EQ(operandAddress(d, true, 70, 9, 2), 0x249cu);
  // MN-major, 32B: 16 elements of MN a row, (20, 3): 8 + 512 + 96 = 616,
  // bit 7 clear.
  d = {0, 512, 256, 32};
  EXPECT_EQ(operandAddress(d, true, 20, 3, 2), 616u);
  // MN-major, none: core matrices of 8 k-rows x 8 MN elements; the next
  // along MN at SBO, along K at LBO. (13, 10): 10 + 128 + 32 + 256.
  d = {0, 256, 128, 0};
  EXPECT_EQ(operandAddress(d, true, 13, 10, 2), 426u);
}

// What tilec relies on: a tile written by the TMA with a swizzle (rows of
// the box dense, the swizzle on the address) reads back through
// descriptors that step along K by moving the start address.
TEST(Hopper, TmaTilesReadBackThroughDescriptors) {
  const uint64_t base = 4096; // 1024-byte aligned, as tilec's slots
  // A, 64 x 64 bf16 K-major: one box of 64 rows of 128 bytes. wgmma k-step
  // j reads columns 16j .. 16j + 15 from start + 32j.
  for (unsigned j = 0; j < 4; ++j) {
    MatrixDescriptor d{base + 32 * j, 0, 1024, 128};
    for (unsigned m = 0; m < 64; ++m)
      for (unsigned k = 0; k < 16; ++k)
        ASSERT_EQ(operandAddress(d, false, m, k, 2),
                  swizzle(base + m * 128 + 2 * (16 * j + k), 128))
            << m << " " << k << " " << j;
  }
  // B, 64 (K) x 192 (N) bf16 row-major: three boxes of 64 k-rows x 64
  // columns, 8 KiB apart. k-step j starts 16 rows (2 KiB) further.
  for (unsigned j = 0; j < 4; ++j) {
    MatrixDescriptor d{base + 2048 * j, 8192, 1024, 128};
    for (unsigned n = 0; n < 192; ++n)
      for (unsigned k = 0; k < 16; ++k)
        ASSERT_EQ(
            operandAddress(d, true, n, k, 2),
            swizzle(base + 8192 * (n / 64) + (16 * j + k) * 128 + 2 * (n % 64),
                    128))
            << n << " " << k << " " << j;
  }
  // 64-byte swizzle, 32-column boxes: A K-major 64 x 32.
  for (unsigned j = 0; j < 2; ++j) {
    MatrixDescriptor d{base + 32 * j, 0, 512, 64};
    for (unsigned m = 0; m < 64; ++m)
      for (unsigned k = 0; k < 16; ++k)
        ASSERT_EQ(operandAddress(d, false, m, k, 2),
                  swizzle(base + m * 64 + 2 * (16 * j + k), 64));
  }
}

TEST(Hopper, MBarrierPhases) {
  MBarrier b;
  EXPECT_EQ(b.init(2), "");
  EXPECT_FALSE(b.parityCompleted(0));
  EXPECT_TRUE(b.parityCompleted(1)); // "the phase before": passes at once
  uint64_t s0 = b.state();
  EXPECT_EQ(b.arrive(1), "");
  EXPECT_EQ(b.phase, 0u);
  bool done = true;
  EXPECT_EQ(b.stateCompleted(s0, done), "");
  EXPECT_FALSE(done);
  EXPECT_EQ(b.arrive(1), ""); // the second arrival completes phase 0
  EXPECT_EQ(b.phase, 1u);
  EXPECT_EQ(b.pending, 2);
  EXPECT_TRUE(b.parityCompleted(0));
  EXPECT_FALSE(b.parityCompleted(1));
  EXPECT_EQ(b.stateCompleted(s0, done), "");
  EXPECT_TRUE(done);
  EXPECT_EQ(b.arrive(2), ""); // phase 1 at once
  EXPECT_EQ(b.phase, 2u);
  // s0's phase is two behind now.
  EXPECT_NE(b.stateCompleted(s0, done).find("neither the current"),
            std::string::npos);
  EXPECT_NE(b.stateCompleted(12, done).find("no mbarrier.arrive state"),
            std::string::npos);
}

// A phase completes when arrivals and the transaction count are both done,
// in either order; complete_tx may run ahead of expect_tx.
TEST(Hopper, MBarrierTransactions) {
  MBarrier b;
  ASSERT_EQ(b.init(1), "");
  EXPECT_EQ(b.expectTx(40960), "");
  EXPECT_EQ(b.arrive(1), "");
  EXPECT_EQ(b.phase, 0u); // the bytes are still owed
  EXPECT_EQ(b.completeTx(16384), "");
  EXPECT_EQ(b.completeTx(24576), "");
  EXPECT_EQ(b.phase, 1u);
  EXPECT_EQ(b.tx, 0);
  EXPECT_EQ(b.completeTx(100), ""); // before its expect_tx: -100
  EXPECT_EQ(b.tx, -100);
  EXPECT_EQ(b.arrive(1), "");
  EXPECT_EQ(b.phase, 1u);
  EXPECT_EQ(b.expectTx(100), ""); // now both are done
  EXPECT_EQ(b.phase, 2u);
}

TEST(Hopper, MBarrierRefusals) {
  MBarrier b;
  EXPECT_NE(b.init(0).find("outside [1, 2^20 - 1]"), std::string::npos);
  EXPECT_NE(b.init(1 << 20).find("outside"), std::string::npos);
  ASSERT_EQ(b.init(2), "");
  EXPECT_NE(b.arrive(3).find("3 arrivals where phase 0 expects 2 more"),
            std::string::npos);
  EXPECT_NE(b.arrive(0).find("arrival count 0"), std::string::npos);
  EXPECT_NE(b.expectTx(1 << 20).find("above 2^20 - 1"), std::string::npos);
  EXPECT_EQ(b.expectTx((1 << 20) - 1), "");
  EXPECT_NE(b.expectTx(1).find("above"), std::string::npos);
  ASSERT_EQ(b.init(1), "");
  EXPECT_EQ(b.completeTx((1 << 20) - 1), "");
  EXPECT_NE(b.completeTx(1).find("below -(2^20 - 1)"), std::string::npos);
}

TEST(Hopper, TensorMapRoundTrip) {
  ptxsim::TensorMap m;
  m.address = 0x7f0012345600;
  m.rank = 3;
  m.dims[0] = 300, m.dims[1] = 257, m.dims[2] = 1u << 31;
  m.strides[0] = 624, m.strides[1] = 624 * 257;
  m.box[0] = 64, m.box[1] = 256, m.box[2] = 1;
  m.elementStrides[0] = m.elementStrides[1] = 1, m.elementStrides[2] = 8;
  m.dataType = 9, m.swizzle = 3, m.l2Promotion = 2, m.oobFill = 1;
  alignas(64) unsigned char bytes[128];
  ptxsim::encodeTensorMap(m, bytes);
  ptxsim::TensorMap r;
  ASSERT_EQ(ptxsim::decodeTensorMap(bytes, r), "");
  EXPECT_EQ(r.address, m.address);
  EXPECT_EQ(r.rank, 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r.dims[i], m.dims[i]);
    EXPECT_EQ(r.box[i], m.box[i]);
    EXPECT_EQ(r.elementStrides[i], m.elementStrides[i]);
  }
  EXPECT_EQ(r.strides[0], 624u);
  EXPECT_EQ(r.strides[1], 624u * 257);
  EXPECT_EQ(r.dataType, 9u);
  EXPECT_EQ(r.swizzle, 3u);
  EXPECT_EQ(r.l2Promotion, 2u);
  EXPECT_EQ(r.oobFill, 1u);
  bytes[8] ^= 1; // the address changed: the hash no longer matches
  EXPECT_NE(ptxsim::decodeTensorMap(bytes, r).find("not a tensor map"),
            std::string::npos);
}

} // namespace
