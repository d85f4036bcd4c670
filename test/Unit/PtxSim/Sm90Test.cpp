//===- Sm90Test.cpp - the PTX simulator's sm_90a instructions -------------===//
//
// Hand-written sm_90a kernels in the simulator: wgmma.mma_async on every
// shared-memory layout (K- and MN-major, no swizzle and 32-, 64-, 128-byte
// swizzles), with A from registers, negated operands and scale-d; the TMA's
// boxes with their swizzles and out-of-bounds elements; mbarrier
// producer/consumer handshakes; named barriers. Then each misuse the
// simulator detects, one kernel each, with the error it must give: a wgmma
// accumulator accessed before the wait_group that retires it, shared memory
// that an in-flight wgmma or bulk copy uses overwritten, generic writes read
// by the async proxy without fence.proxy.async, deadlocks naming the
// mbarrier and its phase, and what the simulator refuses to model.
//
//===----------------------------------------------------------------------===//

#include "TestMemory.h"
#include "PtxSim.h"
#include "TensorMap.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#ifdef PTXSIM_TESTS_ON_GPU
/// Sm90OnGpu.cpp: runs the kernel on a GPU instead, so that the numerical
/// tests check the simulator's reading of the PTX ISA against the hardware
/// (scripts/ptxsim-on-gpu.sh).
std::string runOnGpu(const std::string &ptx, unsigned threads, unsigned shared,
                     uint8_t *mem, size_t bytes, const ptxsim::TensorMap *map);
#endif

namespace {

using ptxsim_test::Memory;

struct Kernel {
  std::string body;
  unsigned threads = 128;
  unsigned shared = 64 * 1024;
  const ptxsim::TensorMap *map = nullptr;
  std::function<void(const std::string &)> fenceNote;
};

/// `k(u64 buf, .align 64 .b8 map[128])`: %rd1 = buf, %r1 = %tid.x, %r8 =
/// the shared address of `smem` (the dynamic shared memory, which need not
/// start at 0 on a GPU), then the body (from PTX line 12).
std::string module(const std::string &body) {
  return ".version 8.0\n"                            // 1
         ".target sm_90a\n"                          // 2
         ".address_size 64\n"                        // 3
         ".extern .shared .align 1024 .b8 smem[];\n" // 4
         ".visible .entry k(\n"                      // 5
         "  .param .u64 buf,\n"                      // 6
         "  .param .align 64 .b8 map[128]\n"         // 7
         ")\n"                                       // 8
         "{\n"                                       // 9
         "  .reg .b64 %rd<32>; .reg .b32 %r<64>; .reg .b32 %a<4>; "
         ".reg .f32 %f<130>; .reg .pred %p<10>; .reg .b16 %rs<4>;\n" // 10
         "  ld.param.u64 %rd1, [buf]; mov.u32 %r1, %tid.x; "
         "mov.u32 %r8, smem;\n" // 11
         + body + "\n  ret;\n}\n";
}

std::string run(const Kernel &k, Memory &mem) {
#ifdef PTXSIM_TESTS_ON_GPU
  return runOnGpu(module(k.body), k.threads, k.shared, mem.data.get(), mem.size,
                  k.map);
#endif
  ptxsim::Launch launch;
  launch.block[0] = k.threads;
  launch.dynamicShared = k.shared;
  launch.params.emplace_back(8);
  uint64_t addr = mem.address();
  std::memcpy(launch.params[0].data(), &addr, 8);
  launch.params.emplace_back(128, 0);
  if (k.map)
    ptxsim::encodeTensorMap(*k.map, launch.params[1].data());
  launch.fenceNote = k.fenceNote;
  return ptxsim::run(module(k.body), "k", launch, [&](uint64_t p, uint64_t n) {
    return p >= addr && p + n <= addr + mem.size && p + n >= p;
  });
}

std::string run(const std::string &body, unsigned threads = 128) {
  Memory mem(1 << 16);
  Kernel k;
  k.body = body;
  k.threads = threads;
  return run(k, mem);
}

#define EXPECT_ERROR(error, text)                                              \
  EXPECT_NE((error).find(text), std::string::npos) << (error)

uint16_t bf16(float f) { return uint16_t(std::bit_cast<uint32_t>(f) >> 16); }
float fromBf16(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }
uint16_t f16(float f) { // small integers only: exact
  if (f == 0)
    return 0;
  uint32_t u = std::bit_cast<uint32_t>(f);
  uint32_t sign = (u >> 16) & 0x8000;
  int e = int((u >> 23) & 0xff) - 127 + 15;
  return uint16_t(sign | uint32_t(e) << 10 | ((u >> 13) & 0x3ff));
}

// --- wgmma on every layout ---------------------------------------------------

/// One operand's shared-memory layout: its swizzle width (0: none), whether
/// it is MN-major, and where it starts.
struct Layout {
  unsigned swizzle = 128;
  bool mnMajor = false;
  uint64_t start = 0;
  unsigned mn = 64; ///< rows of A or columns of B

  /// Leading and stride dimension byte offsets of a dense layout.
  uint64_t lbo() const {
    if (!mnMajor)
      return swizzle ? 0 : 128; // K-major: the second core matrix along K
    return swizzle ? 16 * swizzle : 128 * (mn / 8); // MN chunk / K group
  }
  uint64_t sbo() const {
    if (!mnMajor)
      return swizzle ? 8 * swizzle : 256; // the next 8 rows
    return swizzle ? 8 * swizzle : 128;   // 8 k-rows / the next 8 of MN
  }
  uint64_t descriptor() const {
    uint64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : swizzle ? 3 : 0;
    return (start >> 4) | (lbo() >> 4) << 16 | (sbo() >> 4) << 32 | mode << 62;
  }

  /// Where element (mn, k) lives, as the PTX ISA's figures draw the
  /// layouts: swizzle atoms of 8 rows of `swizzle` bytes, each row's
  /// 16-byte chunks permuted by XOR with the row's 128-byte line within the
  /// 1024-byte pattern; without a swizzle, 8 x 16-byte core matrices.
  uint64_t offset(unsigned m, unsigned k) const {
    if (!swizzle)
      return mnMajor ? start + (k % 8) * 16 + (k / 8) * lbo() +
                           (m / 8) * sbo() + (m % 8) * 2
                     : start + (m % 8) * 16 + (m / 8) * sbo() +
                           (k / 8) * lbo() + (k % 8) * 2;
    unsigned row = mnMajor ? k % 8 : m % 8;
    uint64_t atom = mnMajor ? (m / (swizzle / 2)) * lbo() + (k / 8) * sbo()
                            : (m / 8) * sbo();
    unsigned byte = mnMajor ? 2 * (m % (swizzle / 2)) : 2 * k;
    uint64_t line = start + atom + row * swizzle;
    unsigned chunk = byte / 16;
    chunk ^= unsigned((line >> 7) & (swizzle / 16 - 1));
    return line + chunk * 16 + byte % 16;
  }
};

struct Mma {
  unsigned n = 64;
  bool f16 = false, regA = false, scaleD = true;
  int scaleA = 1, scaleB = 1;
  Layout a, b;
};

/// D = scaleA A * scaleB B (+ C): 128 threads copy a shared-memory image
/// from buf, fence it for the async proxy, load C (and A's fragments) from
/// buf, run one wgmma and store D. Integer inputs make every sum exact.
void checkMma(Mma mm) {
  const unsigned n = mm.n;
  mm.a.mn = 64, mm.b.mn = n;
  mm.b.start = 16384;
  const size_t image = 49152, cIn = image, aIn = cIn + 128 * n * 2,
               descs = aIn + 128 * 16, out = descs + 16;
  Memory mem(out + 128 * n * 2);
  std::mt19937 rng(n * 7 + mm.a.swizzle + mm.b.swizzle + mm.b.mnMajor);
  std::uniform_int_distribution<int> small(-3, 3);
  auto half = [&](float v) { return mm.f16 ? f16(v) : bf16(v); };
  std::vector<float> A(64 * 16), B(16 * n), C(64 * n);
  for (float &v : A)
    v = float(small(rng));
  for (float &v : B)
    v = float(small(rng));
  for (float &v : C)
    v = float(small(rng) * 8);
  for (unsigned m = 0; m < 64; ++m)
    for (unsigned k = 0; k < 16 && !mm.regA; ++k)
      mem.at<uint16_t>(mm.a.offset(m, k)) = half(A[m * 16 + k]);
  for (unsigned c = 0; c < n; ++c)
    for (unsigned k = 0; k < 16; ++k)
      mem.at<uint16_t>(mm.b.offset(c, k)) = half(B[k * n + c]);
  // Fragments (PTX ISA, wgmma .m64nNk16): thread i of warp w = i / 32,
  // g = (i % 32) / 4, q = i % 4. D element j: row 16w + g + 8((j % 4) / 2),
  // column 8(j / 4) + 2q + j % 2. A register j, half h: row 16w + g +
  // 8(j % 2), k 2q + h + 8(j / 2).
  auto dRow = [](unsigned i, unsigned j) {
    return 16 * (i / 32) + (i % 32) / 4 + 8 * ((j % 4) / 2);
  };
  auto dCol = [](unsigned i, unsigned j) {
    return 8 * (j / 4) + 2 * (i % 4) + j % 2;
  };
  for (unsigned i = 0; i < 128; ++i) {
    for (unsigned j = 0; j < n / 2; ++j)
      mem.at<float>(cIn + (i * n / 2 + j) * 4) = C[dRow(i, j) * n + dCol(i, j)];
    for (unsigned j = 0; j < 4; ++j)
      for (unsigned h = 0; h < 2; ++h)
        mem.at<uint16_t>(aIn + i * 16 + j * 4 + h * 2) =
            half(A[(16 * (i / 32) + (i % 32) / 4 + 8 * (j % 2)) * 16 +
                   2 * (i % 4) + h + 8 * (j / 2)]);
  }
  mem.at<uint64_t>(descs) = mm.a.descriptor();
  mem.at<uint64_t>(descs + 8) = mm.b.descriptor();

  std::string d, body = "  mov.u32 %r2, %r1;\n"
                        "  mov.u32 %r4, smem;\n"
                        "$copy:\n"
                        "  setp.ge.u32 %p1, %r2, " +
                        std::to_string(image / 16) +
                        ";\n"
                        "  @%p1 bra $copied;\n"
                        "  mul.wide.u32 %rd2, %r2, 16;\n"
                        "  add.s64 %rd3, %rd1, %rd2;\n"
                        "  ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd3];\n"
                        "  cvt.u32.u64 %r3, %rd2;\n"
                        "  add.s32 %r5, %r4, %r3;\n"
                        "  st.shared.v4.b32 [%r5], {%r10, %r11, %r12, %r13};\n"
                        "  add.s32 %r2, %r2, 128;\n"
                        "  bra $copy;\n"
                        "$copied:\n"
                        "  fence.proxy.async.shared::cta;\n"
                        "  bar.sync 0;\n"
                        "  ld.global.u64 %rd10, [%rd1+" +
                        std::to_string(descs) +
                        "];\n"
                        "  ld.global.u64 %rd11, [%rd1+" +
                        std::to_string(descs + 8) +
                        "];\n"
                        "  shr.u32 %r9, %r8, 4;\n" // the start fields: smem +
                        "  cvt.u64.u32 %rd12, %r9;\n"
                        "  add.s64 %rd10, %rd10, %rd12;\n"
                        "  add.s64 %rd11, %rd11, %rd12;\n"
                        "  mul.wide.u32 %rd4, %r1, " +
                        std::to_string(n * 2) +
                        ";\n"
                        "  add.s64 %rd5, %rd1, %rd4;\n"
                        "  mul.wide.u32 %rd6, %r1, 16;\n"
                        "  add.s64 %rd7, %rd1, %rd6;\n";
  for (unsigned j = 0; j < n / 2; ++j) {
    d += (j ? ", %f" : "%f") + std::to_string(j);
    body += "  ld.global.f32 %f" + std::to_string(j) + ", [%rd5+" +
            std::to_string(cIn + 4 * j) + "];\n";
  }
  for (unsigned j = 0; j < 4; ++j)
    body += "  ld.global.b32 %a" + std::to_string(j) + ", [%rd7+" +
            std::to_string(aIn + 4 * j) + "];\n";
  std::string type = mm.f16 ? "f16" : "bf16";
  body += "  setp.ne.b32 %p2, " + std::to_string(mm.scaleD) +
          ", 0;\n"
          "  wgmma.fence.sync.aligned;\n"
          "  wgmma.mma_async.sync.aligned.m64n" +
          std::to_string(n) + "k16.f32." + type + "." + type + " {" + d +
          "}, " + (mm.regA ? "{%a0, %a1, %a2, %a3}" : "%rd10") +
          ", %rd11, %p2, " + std::to_string(mm.scaleA) + ", " +
          std::to_string(mm.scaleB) +
          (mm.regA        ? ""
           : mm.a.mnMajor ? ", 1"
                          : ", 0") +
          (mm.b.mnMajor ? ", 1;\n" : ", 0;\n") +
          "  wgmma.commit_group.sync.aligned;\n"
          "  wgmma.wait_group.sync.aligned 0;\n";
  for (unsigned j = 0; j < n / 2; ++j)
    body += "  st.global.f32 [%rd5+" + std::to_string(out + 4 * j) + "], %f" +
            std::to_string(j) + ";\n";
  Kernel k;
  k.body = body;
  ASSERT_EQ(run(k, mem), "");
  for (unsigned i = 0; i < 128; ++i)
    for (unsigned j = 0; j < n / 2; ++j) {
      unsigned r = dRow(i, j), c = dCol(i, j);
      double want = mm.scaleD ? C[r * n + c] : 0;
      for (unsigned kk = 0; kk < 16; ++kk)
        want +=
            double(mm.scaleA * A[r * 16 + kk]) * (mm.scaleB * B[kk * n + c]);
      ASSERT_EQ(mem.at<float>(out + (i * n / 2 + j) * 4), float(want))
          << "D[" << r << "][" << c << "], thread " << i << " register " << j;
    }
}

TEST(Sm90Wgmma, KMajorLayouts) {
  for (unsigned s : {0u, 32u, 64u, 128u}) {
    SCOPED_TRACE("swizzle " + std::to_string(s));
    Mma mm;
    mm.a.swizzle = mm.b.swizzle = s;
    checkMma(mm);
  }
}

TEST(Sm90Wgmma, MNMajorLayouts) {
  for (unsigned s : {0u, 32u, 64u, 128u}) {
    SCOPED_TRACE("swizzle " + std::to_string(s));
    Mma mm;
    mm.n = 192; // several MN chunks at LBO for every swizzle
    mm.a.swizzle = mm.b.swizzle = s;
    mm.a.mnMajor = mm.b.mnMajor = true;
    checkMma(mm);
  }
}

TEST(Sm90Wgmma, MixedLayoutsShapesAndScales) {
  Mma mm;
  mm.n = 8;
  mm.a.swizzle = 32, mm.b.swizzle = 0, mm.b.mnMajor = true;
  checkMma(mm);
  mm.n = 256;
  mm.a.swizzle = 128, mm.a.mnMajor = true, mm.b.swizzle = 64;
  mm.b.mnMajor = false;
  mm.scaleA = -1;
  checkMma(mm);
  mm.n = 40;
  mm.scaleA = 1, mm.scaleB = -1, mm.scaleD = false;
  mm.f16 = true;
  checkMma(mm);
}

// A from registers (flash attention's P), B MN-major as V.
TEST(Sm90Wgmma, RegisterA) {
  Mma mm;
  mm.regA = true;
  mm.b.mnMajor = true;
  checkMma(mm);
  mm.n = 128;
  mm.b.swizzle = 64;
  mm.f16 = true;
  checkMma(mm);
}

// --- wgmma misuse --------------------------------------------------------

// Shared memory [0, 4096) zeroed by all 128 threads and fenced for the
// async proxy; descriptors of A (K-major, no swizzle, at 0) and of an
// 8-column B (at 2048).
const std::string kZeroed = "  mad.lo.u32 %r20, %r1, 32, %r8;\n"
                            "  st.shared.v4.b32 [%r20], {0, 0, 0, 0};\n"
                            "  st.shared.v4.b32 [%r20+16], {0, 0, 0, 0};\n"
                            "  fence.proxy.async.shared::cta;\n"
                            "  bar.sync 0;\n";
const std::string kDescs =
    "  mov.b64 %rd10, " + std::to_string((128ull >> 4) << 16 | 16ull << 32) +
    "; mov.b64 %rd11, " +
    std::to_string((2048ull >> 4) | (128ull >> 4) << 16 | 16ull << 32) +
    ";\n  shr.u32 %r9, %r8, 4; cvt.u64.u32 %rd12, %r9; "
    "add.s64 %rd10, %rd10, %rd12; add.s64 %rd11, %rd11, %rd12;\n";
const std::string kMma =
    "  setp.ne.b32 %p2, 1, 0;\n"
    "  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f0, %f1, %f2, "
    "%f3}, %rd10, %rd11, %p2, 1, 1, 0, 0;\n";
const std::string kFence = "  wgmma.fence.sync.aligned;\n";
const std::string kCommitWait = "  wgmma.commit_group.sync.aligned;\n"
                                "  wgmma.wait_group.sync.aligned 0;\n";

TEST(Sm90Wgmma, WellOrderedRuns) {
  EXPECT_EQ(run(kZeroed + kDescs +
                "  mov.f32 %f0, 0f00000000;\n  mov.f32 %f1, %f0;\n"
                "  mov.f32 %f2, %f0;\n  mov.f32 %f3, %f0;\n" +
                kFence + kMma + kMma + kCommitWait +
                "  add.f32 %f9, %f0, %f1;"),
            "");
}

TEST(Sm90Wgmma, NoFenceIsAnError) {
  EXPECT_ERROR(run(kZeroed + kDescs + kMma),
               "wgmma.mma_async with no wgmma.fence before it");
}

// The accumulator's zero is written after the fence: tilec's attention
// kernels did this (ptxas repairs it, C7519).
TEST(Sm90Wgmma, AccessAfterFenceIsAnErrorOrANote) {
  std::string body = kZeroed + kDescs + kFence +
                     "  mov.f32 %f2, 0f00000000;\n" + kMma + kMma + kCommitWait;
  std::string e = run(body);
  EXPECT_ERROR(e, "register %f2 was accessed by line 20 'mov.f32 %f2, "
                  "0f00000000' after the wgmma.fence of line 19: a "
                  "wgmma.fence must order the access before the "
                  "wgmma.mma_async");
  Memory mem(4096);
  Kernel k;
  k.body = body;
  std::vector<std::string> notes;
  k.fenceNote = [&](const std::string &n) { notes.push_back(n); };
  EXPECT_EQ(run(k, mem), "");
  ASSERT_EQ(notes.size(), 1u); // once, not per thread or per chained wgmma
  EXPECT_ERROR(notes[0], "line 22 'wgmma.mma_async.sync.aligned.m64n8k16");
}

TEST(Sm90Wgmma, InFlightAccumulatorAccessIsAnError) {
  std::string issued =
      kZeroed + kDescs + kFence + kMma + "  wgmma.commit_group.sync.aligned;\n";
  EXPECT_ERROR(run(issued + "  add.f32 %f9, %f1, %f1;"),
               "accesses register %f1, which the in-flight wgmma.mma_async "
               "of line 21 uses: no wgmma.wait_group has retired it");
  EXPECT_ERROR(run(issued + "  mov.f32 %f3, 0f3f800000;"),
               "accesses register %f3, which the in-flight");
  // wait_group 1 leaves the only group in flight.
  EXPECT_ERROR(run(issued + "  wgmma.wait_group.sync.aligned 1;\n"
                            "  add.f32 %f9, %f0, %f0;"),
               "accesses register %f0, which the in-flight");
  EXPECT_ERROR(
      run(kZeroed + kDescs + kFence + kMma + "  add.f32 %f9, %f0, %f0;"),
      "accesses register %f0, which the in-flight"); // uncommitted
}

TEST(Sm90Wgmma, RegisterConflictsBetweenInFlightOps) {
  std::string first = kZeroed + kDescs + kFence + kMma;
  EXPECT_ERROR(run(first +
                   "  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
                   "{%f0, %f1, %f4, %f5}, %rd10, %rd11, %p2, 1, 1, 0, 0;"),
               "shares accumulator registers with the in-flight "
               "wgmma.mma_async of line 21 without being its chain");
  EXPECT_ERROR(run(first +
                   "  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
                   "{%f4, %f5, %f6, %f7}, {%f0, %f1, %f2, %f3}, %rd11, %p2, "
                   "1, 1, 0;"),
               "uses as A the accumulator of the in-flight wgmma.mma_async "
               "of line 21");
}

// (b) of the asynchrony: shared memory a wgmma in flight reads, overwritten
// before the wait_group that retires it.
TEST(Sm90Wgmma, OverwritingItsOperandsIsAnError) {
  std::string issued =
      kZeroed + kDescs + kFence + kMma + "  wgmma.commit_group.sync.aligned;\n";
  EXPECT_ERROR(run(issued + "  st.shared.b32 [smem+2048], %r1;"),
               "writes shared byte 3072 that the in-flight wgmma.mma_async "
               "of line 21 may still be reading");
  EXPECT_ERROR(run(issued + "  cp.async.ca.shared.global [smem+16], [%rd1], "
                            "16;\n  cp.async.wait_all;"),
               "cp.async into shared byte 1040 that the in-flight "
               "wgmma.mma_async of line 21 may still be reading");
  // After the wait the bytes are free again.
  EXPECT_EQ(run(issued + "  wgmma.wait_group.sync.aligned 0;\n"
                         "  bar.sync 0;\n  st.shared.b32 [%r20], %r1;"),
            "");
}

TEST(Sm90Wgmma, SharedOperandChecks) {
  std::string rest = kDescs + kFence + kMma + kCommitWait;
  EXPECT_ERROR(run(rest), "wgmma.mma_async reads shared byte 1024, which "
                          "nothing wrote");
  std::string unfenced = "  mad.lo.u32 %r20, %r1, 32, %r8;\n"
                         "  st.shared.v4.b32 [%r20], {0, 0, 0, 0};\n"
                         "  st.shared.v4.b32 [%r20+16], {0, 0, 0, 0};\n";
  EXPECT_ERROR(run(unfenced + "  bar.sync 0;\n" + rest),
               "wgmma.mma_async reads shared byte 1024, which thread 0 wrote "
               "through the generic proxy with no fence.proxy.async after "
               "it");
  EXPECT_ERROR(run(unfenced + "  fence.proxy.async.shared::cta;\n" + rest),
               "race: wgmma.mma_async reads shared byte 1024 written by thread "
               "0 since the last barrier");
  EXPECT_ERROR(run(kZeroed +
                   "  setp.eq.u32 %p5, %r1, 0;\n"
                   "  @%p5 cp.async.ca.shared.global [smem+16], [%rd1], 16;\n" +
                   rest),
               "wgmma.mma_async reads shared byte 1040 while a cp.async may "
               "still be writing it");
}

TEST(Sm90Wgmma, OperandsMustAgreeAcrossTheWarpgroup) {
  EXPECT_ERROR(run(kZeroed + kDescs +
                   "  cvt.u64.u32 %rd12, %r1;\n"
                   "  and.b64 %rd12, %rd12, 64;\n"
                   "  add.s64 %rd10, %rd10, %rd12;\n" +
                   kFence + kMma),
               "the matrix descriptors differ between threads of the "
               "warpgroup");
  EXPECT_ERROR(run(kZeroed + kDescs + kFence +
                   "  setp.lt.u32 %p2, %r1, 64;\n"
                   "  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
                   "{%f0, %f1, %f2, %f3}, %rd10, %rd11, %p2, 1, 1, 0, 0;"),
               "scale-d differs between threads of the warpgroup");
  EXPECT_ERROR(run(kFence, 64), "a warpgroup instruction in a block of 64 "
                                "threads, which leave warpgroup 0 "
                                "incomplete");
}

TEST(Sm90Wgmma, UnmodelledFormsAreErrors) {
  auto mma = [&](const std::string &opcode, const std::string &operands) {
    return run(kZeroed + kDescs + kFence + "  setp.ne.b32 %p2, 1, 0;\n  " +
               opcode + " " + operands + ";");
  };
  const std::string d4 = "{%f0, %f1, %f2, %f3}";
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n12k16.f32.bf16.bf16",
                   d4 + ", %rd10, %rd11, %p2, 1, 1, 0, 0"),
               "only wgmma shapes m64nNk16");
  // fp8: k32, no imm-trans operands, A from a descriptor, fp8 B.
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k16.f32.e4m3.e4m3",
                   d4 + ", %rd10, %rd11, %p2, 1, 1"),
               "only wgmma shapes m64nNk16 (m64nNk32 for fp8");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3",
                   d4 + ", %rd10, %rd11, %p2, 1, 1, 0, 0"),
               "wgmma.mma_async takes 6 operands here");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.bf16",
                   d4 + ", %rd10, %rd11, %p2, 1, 1"),
               "only wgmma on .bf16 or .f16 A and B, on .e4m3/.e5m2 ones or "
               "on .tf32 ones");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e4m3",
                   d4 + ", {%r30, %r31, %r32, %r33}, %rd11, %p2, 1, 1"),
               "fp8 wgmma with A from registers is not simulated");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16",
                   "{%r30, %r31}, %rd10, %rd11, %p2, 1, 1, 0, 0"),
               "only .f32 accumulators of wgmma are simulated");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.f16",
                   d4 + ", %rd10, %rd11, %p2, 1, 1, 0, 0"),
               "only wgmma on .bf16 or .f16 A and B, on .e4m3/.e5m2 ones or "
               "on .tf32 ones is simulated");
  // tf32: k8, no imm-trans operands, A from a descriptor.
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k16.f32.tf32.tf32",
                   d4 + ", %rd10, %rd11, %p2, 1, 1"),
               "m64nNk8 for tf32");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32",
                   d4 + ", %rd10, %rd11, %p2, 1, 1, 0, 0"),
               "wgmma.mma_async takes 6 operands here");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32",
                   d4 + ", {%r30, %r31, %r32, %r33}, %rd11, %p2, 1, 1"),
               "tf32 wgmma with A from registers is not simulated");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16",
                   d4 + ", %rd10, %rd11, %p2, 1, 1, 0"),
               "wgmma.mma_async takes 8 operands here");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16",
                   "{%f0, %f1, %f2}, %rd10, %rd11, %p2, 1, 1, 0, 0"),
               "the accumulator of m64n8k16.f32 is 4 registers");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16",
                   d4 + ", {%r30, %r31, %r32}, %rd11, %p2, 1, 1, 0"),
               "A from registers is 4 registers");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16",
                   "{%f0, %f1, %f2, 0}, %rd10, %rd11, %p2, 1, 1, 0, 0"),
               "wgmma's register operands must be registers");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16",
                   d4 + ", %rd10, %rd11, %p2, 2, 1, 0, 0"),
               "operand 5 of wgmma.mma_async is 2, out of its range");
  EXPECT_ERROR(mma("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16",
                   d4 + ", %rd10, %rd11, %p2, 1, 1, %r1, 0"),
               "operand 7 of wgmma.mma_async must be an immediate");
  EXPECT_ERROR(run(kZeroed + kDescs + "  or.b64 %rd10, %rd10, " +
                   std::to_string(1ull << 50) + ";\n" + kFence + kMma),
               "a-desc 0x4001000080040: a matrix base offset");
  EXPECT_ERROR(run(kFence + "  wgmma.wait_group.sync.aligned %r1;"),
               "wgmma.wait_group takes an immediate count");
  EXPECT_ERROR(run("  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16 {%f0}, "
                   "%rd10, %rd11, %p2, 1, 1, 0, 0;"),
               "wgmma.mma_async needs 3 types");
  EXPECT_ERROR(run("  wgmma.arrive.sync.aligned;"),
               "unsupported instruction wgmma.arrive.sync.aligned");
  EXPECT_ERROR(run("  wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16 "
                   "{%f0}, %rd10, %rd11, %r2, 0, %p2, 1, 1, 0, 0;"),
               "unsupported modifier .sp");
}

TEST(Sm90Wgmma, InFlightAtExitIsAnError) {
  EXPECT_ERROR(run(kZeroed + kDescs + kFence + kMma +
                   "  wgmma.commit_group.sync.aligned;"),
               "warpgroup 0: the wgmma.mma_async of line 21 is still in "
               "flight at exit: no wgmma.wait_group retired it");
  EXPECT_ERROR(run(kZeroed + kDescs + kFence + kMma),
               "is still in flight at exit");
}

// Where the dynamic shared memory starts (printed: the GPU reserves some).
TEST(Sm90, DynamicSharedBase) {
  Memory mem(256);
  Kernel k;
  k.threads = 32;
  k.body = "  st.global.u32 [%rd1], %r8;";
  ASSERT_EQ(run(k, mem), "");
  std::printf("smem is at shared address %u\n", mem.at<uint32_t>(0));
  EXPECT_EQ(mem.at<uint32_t>(0) % 1024, 0u); // .align 1024
}

// Every CTA is a cluster of one: cluster ids are the CTA's, ranks 0.
TEST(Sm90, ClusterOfOneSpecials) {
  Memory mem(256);
  Kernel k;
  k.threads = 32;
  k.shared = 4096;
  k.body = "  mov.u32 %r2, %cluster_ctarank;\n"
           "  mov.u32 %r3, %cluster_nctarank;\n"
           "  mov.u32 %r4, %clusterid.x;\n"
           "  mov.u32 %r5, %nclusterid.x;\n"
           "  mov.u32 %r6, %cluster_ctaid.y;\n"
           "  mov.u32 %r7, %dynamic_smem_size;\n"
           "  st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};\n"
           "  st.global.v2.u32 [%rd1+16], {%r6, %r7};";
  ASSERT_EQ(run(k, mem), "");
  EXPECT_EQ(mem.at<uint32_t>(0), 0u);
  EXPECT_EQ(mem.at<uint32_t>(4), 1u);
  EXPECT_EQ(mem.at<uint32_t>(8), 0u); // the only CTA
  EXPECT_EQ(mem.at<uint32_t>(12), 1u);
  EXPECT_EQ(mem.at<uint32_t>(16), 0u);
  EXPECT_EQ(mem.at<uint32_t>(20), 4096u);
  EXPECT_ERROR(run("  mov.u32 %r2, %smid;"),
               "line 12: special register %smid is not simulated");
  EXPECT_ERROR(run("  mov.u32 %r2, %lanemask_lt;"),
               "special register %lanemask_lt is not simulated");
  EXPECT_ERROR(run("  mov.u32 %r2, %cluster_id.x;"),
               "special register %cluster_id.x is not simulated");
}

TEST(Sm90, ElectSync) {
  Memory mem(256);
  Kernel k;
  k.threads = 64;
  k.body = "  elect.sync %r2|%p1, 0xffffffff;\n"
           "  @!%p1 bra $end;\n"
           "  atom.global.add.u32 %r3, [%rd1], 1;\n"
           "  atom.global.add.u32 %r3, [%rd1+4], %r1;\n"
           "  atom.global.add.u32 %r3, [%rd1+8], %r2;\n"
           "$end:";
  ASSERT_EQ(run(k, mem), "");
  EXPECT_EQ(mem.at<uint32_t>(0), 2u);  // one leader a warp
  EXPECT_EQ(mem.at<uint32_t>(4), 32u); // threads 0 and 32
  EXPECT_EQ(mem.at<uint32_t>(8), 0u);  // both lane 0
  EXPECT_ERROR(run("  elect.sync _|%p1, 0x0000ffff;"),
               "elect.sync with a membermask other than 0xffffffff is not "
               "simulated");
  EXPECT_ERROR(run("  elect.sync %p1, 0xffffffff;"),
               "elect.sync takes d|p, membermask");
}

TEST(Sm90, Setmaxnreg) {
  EXPECT_EQ(run("  setmaxnreg.dec.sync.aligned.u32 40;\n"
                "  setmaxnreg.inc.sync.aligned.u32 232;"),
            "");
  for (const char *n : {"16", "260", "100", "%r1"})
    EXPECT_ERROR(
        run(std::string("  setmaxnreg.inc.sync.aligned.u32 ") + n + ";"),
        "setmaxnreg's register count must be an immediate in [24, "
        "256] and a multiple of 8");
  EXPECT_ERROR(run("  setmaxnreg.set.sync.aligned.u32 40;"),
               "unsupported instruction setmaxnreg.set");
}

// --- barriers -------------------------------------------------------------

TEST(Sm90, NamedBarriers) {
  // Warps 1-3 meet at barrier 1 while warp 0 exits: only they take part,
  // each reads the next warp's word.
  EXPECT_EQ(run("  setp.lt.u32 %p1, %r1, 32;\n"
                "  @%p1 bra $done;\n"
                "  mad.lo.u32 %r2, %r1, 4, %r8;\n"
                "  st.shared.b32 [%r2], %r1;\n"
                "  bar.sync 1, 96;\n"
                "  setp.lt.u32 %p2, %r1, 96;\n"
                "  selp.b32 %r4, 128, -256, %p2;\n"
                "  add.s32 %r3, %r2, %r4;\n"
                "  ld.shared.b32 %r4, [%r3];\n"
                "$done:"),
            "");
  // Two warps at a barrier of 32: the first completes it, the second the
  // next instance.
  EXPECT_EQ(run("  bar.sync 2, 32;", 64), "");
  EXPECT_ERROR(run("  setp.lt.u32 %p1, %r1, 32;\n"
                   "  @%p1 bra $done;\n"
                   "  bar.sync 1, 128;\n"
                   "$done:"),
               "deadlock: every live thread waits (0 on mbarriers, 96 at "
               "barriers, 0 at collectives; 32 exited); block (0,0,0) thread "
               "32 line 14 'bar.sync 1, 128' waits at barrier 1 for 128 "
               "threads");
  EXPECT_ERROR(run("  setp.lt.u32 %p1, %r1, 32;\n"
                   "  @%p1 bar.sync 1, 32;\n"
                   "  @!%p1 bar.sync 1, 64;"),
               "barrier 1 for 64 threads where thread 0 waits at it for 32");
  EXPECT_ERROR(run("  bar.sync 1, 48;"),
               "barrier 1 for 48 threads: ids are 0..15 and counts nonzero "
               "multiples of 32");
  EXPECT_ERROR(run("  bar.sync 16;"), "barrier 16 for 0 threads");
}

// Turns between two groups (the ping-pong of two consumer warpgroups):
// warp 1 writes a word, then arrives on barrier 2 (64 threads) and goes
// on; warp 0 waits there and reads the word: ordered, no race. Warps 2-3
// exit at once.
TEST(Sm90, BarArrive) {
  EXPECT_EQ(run("  setp.ge.u32 %p1, %r1, 64;\n"
                "  @%p1 bra $done;\n"
                "  setp.lt.u32 %p2, %r1, 32;\n"
                "  @%p2 bra $wait;\n"
                "  mad.lo.u32 %r2, %r1, 4, %r8;\n"
                "  st.shared.b32 [%r2], %r1;\n"
                "  bar.arrive 2, 64;\n"
                "  bra $done;\n"
                "$wait:\n"
                "  bar.sync 2, 64;\n"
                "  mad.lo.u32 %r2, %r1, 4, %r8;\n"
                "  ld.shared.b32 %r3, [%r2+128];\n"
                "$done:"),
            "");
  // An arrival no instance consumes: the two sides' counts differ.
  EXPECT_ERROR(run("  setp.ge.u32 %p1, %r1, 32;\n"
                   "  @%p1 bra $done;\n"
                   "  bar.arrive 3, 64;\n"
                   "$done:"),
               "barrier 3 has 32 bar.arrive arrivals of 64 that no instance "
               "of it consumed when the block exits");
  EXPECT_ERROR(run("  setp.lt.u32 %p1, %r1, 32;\n"
                   "  @%p1 bar.arrive 2, 96;\n"
                   "  @!%p1 bar.sync 2, 64;"),
               "threads where bar.arrive counted 96");
  EXPECT_ERROR(run("  bar.arrive 2;"), "bar.arrive needs a thread count");
}

// --- mbarriers ------------------------------------------------------------

// Thread 0 initializes an mbarrier of `count` arrivals at smem+0.
std::string initMbar(unsigned count) {
  return "  setp.ne.u32 %p9, %r1, 0;\n"
         "  @%p9 bra $inited;\n"
         "  mbarrier.init.shared.b64 [smem], " +
         std::to_string(count) +
         ";\n"
         "  fence.mbarrier_init.release.cluster;\n"
         "$inited:\n"
         "  bar.sync 0;\n";
}

// try_wait.parity in the loop tilec's inline assembly uses.
std::string waitParity(const std::string &parity) {
  return "  {\n"
         "  .reg .pred P1;\n"
         "  LAB_WAIT:\n"
         "  mbarrier.try_wait.parity.shared.b64 P1, [smem], " +
         parity +
         ", 0;\n"
         "  @P1 bra.uni DONE;\n"
         "  bra.uni LAB_WAIT;\n"
         "  DONE:\n"
         "  }\n";
}

// Warp 1 waits for warp 0's data on the `full` mbarrier (smem+0, 32
// arrivals), answers, and arrives on `empty` (smem+8), which warp 0 waits
// for. The try_wait loops sleep until the phase completes.
TEST(Sm90Mbarrier, ProducerConsumer) {
  Memory mem(4096);
  Kernel k;
  k.threads = 64;
  std::string waitEmpty = waitParity("0");
  waitEmpty.replace(waitEmpty.find("[smem]"), 6, "[smem+8]");
  k.body = initMbar(32) +
           "  @%p9 bra $both;\n"
           "  mbarrier.init.shared.b64 [smem+8], 32;\n"
           "$both:\n"
           "  bar.sync 0;\n"
           "  setp.lt.u32 %p1, %r1, 32;\n"
           "  mad.lo.u32 %r2, %r1, 4, %r8;\n"
           "  @!%p1 bra $consumer;\n"
           "  st.shared.b32 [%r2+64], %r1;\n"
           "  mbarrier.arrive.release.cta.shared.b64 _, [smem];\n" +
           waitEmpty +
           "  ld.shared.b32 %r5, [%r2+256];\n"
           "  shl.b32 %r2, %r1, 2;\n"
           "  cvt.u64.u32 %rd3, %r2;\n"
           "  add.s64 %rd3, %rd1, %rd3;\n"
           "  st.global.b32 [%rd3], %r5;\n"
           "  bra $end;\n"
           "$consumer:\n" +
           waitParity("0") +
           "  ld.shared.b32 %r3, [%r2+-64];\n"
           "  add.s32 %r3, %r3, 1000;\n"
           "  st.shared.b32 [%r2+128], %r3;\n"
           "  mbarrier.arrive.shared.b64 %rd9, [smem+8];\n"
           "$end:";
  ASSERT_EQ(run(k, mem), "");
  for (unsigned i = 0; i < 32; ++i)
    EXPECT_EQ(mem.at<uint32_t>(4 * i), i + 1000);
}

TEST(Sm90Mbarrier, DeadlockNamesTheMbarrierAndPhase) {
  EXPECT_ERROR(run(initMbar(1) + waitParity("0"), 32),
               "deadlock: every live thread waits (32 on mbarriers, 0 at "
               "barriers, 0 at collectives; 0 exited); block (0,0,0) thread "
               "0 line 21 'mbarrier.try_wait.parity.shared.b64 P1, [smem], "
               "0, 0' waits on the mbarrier at shared 1024 for the phase of "
               "parity 0 to complete (it is in phase 0 with 1 of 1 arrivals "
               "pending, transaction count 0)");
  // An arrive's state: the wait names the phase.
  EXPECT_ERROR(run(initMbar(64) +
                       "  mbarrier.arrive.shared.b64 %rd5, [smem];\n"
                       "$w:\n"
                       "  mbarrier.try_wait.shared.b64 %p3, [smem], %rd5;\n"
                       "  @!%p3 bra $w;",
                   32),
               "for phase 0 to complete (it is in phase 0 with 32 of 64 "
               "arrivals pending");
}

// A thread that does other work after a false try_wait runs again once
// nothing else can.
TEST(Sm90Mbarrier, FalseTryWaitNeedNotLoop) {
  EXPECT_EQ(run(initMbar(1) +
                    "  mbarrier.try_wait.parity.shared.b64 %p3, [smem], 0;\n"
                    "  @%p3 bra $end;\n"
                    "  mbarrier.arrive.shared.b64 _, [smem];\n"
                    "$end:",
                32),
            "");
}

TEST(Sm90Mbarrier, Misuse) {
  EXPECT_ERROR(run("  mbarrier.arrive.shared.b64 _, [smem+64];", 32),
               "mbarrier.arrive on shared 1088, where no mbarrier.init made an "
               "mbarrier object");
  EXPECT_ERROR(run("  mbarrier.init.shared.b64 [smem+4], 1;", 32),
               "mbarrier object at shared 1028 is not 8-byte aligned");
  EXPECT_ERROR(run("  mbarrier.init.shared.b64 [smem], 0;", 32),
               "mbarrier.init count 0 outside [1, 2^20 - 1]");
  EXPECT_ERROR(run(initMbar(1) + "  mbarrier.init.shared.b64 [smem], 1;", 32),
               "mbarrier.init on shared 1024, which holds a valid mbarrier "
               "(initialized at line 14; mbarrier.inval it first)");
  EXPECT_EQ(run(initMbar(1) + "  @%p9 bra $x;\n"
                              "  mbarrier.inval.shared.b64 [smem];\n"
                              "  mbarrier.init.shared.b64 [smem], 1;\n"
                              "$x:",
                32),
            "");
  EXPECT_ERROR(run(initMbar(1) + "  mbarrier.inval.shared.b64 [smem];\n" +
                       "  mbarrier.arrive.shared.b64 _, [smem];",
                   32),
               "mbarrier.arrive on shared 1024, where no mbarrier.init");
  EXPECT_ERROR(run("  mbarrier.init.b64 [%rd1], 1;", 32),
               "the mbarrier's generic address 0x");
  EXPECT_ERROR(run(initMbar(1) + "  ld.shared.b64 %rd5, [smem];", 32),
               "reads shared byte 1024 of the mbarrier object at 1024 (only "
               "mbarrier instructions may access it)");
  EXPECT_ERROR(run(initMbar(1) + "  st.shared.b32 [smem+4], %r1;", 32),
               "writes shared byte 1028 of the mbarrier object at 1024");
  EXPECT_ERROR(
      run(initMbar(1) + "  mbarrier.try_wait.parity.shared.b64 %p3, [smem], 2;",
          32),
      "phase parity 2 is neither 0 nor 1");
  EXPECT_ERROR(
      run(initMbar(1) + "  mbarrier.test_wait.shared.b64 %p3, [smem], %rd1;",
          32),
      "the state operand is no mbarrier.arrive state");
  EXPECT_ERROR(
      run(initMbar(1) + "  mbarrier.arrive.expect_tx.shared.b64 _, [smem];",
          32),
      "mbarrier.arrive.expect_tx needs a txCount");
  EXPECT_ERROR(run(initMbar(1) + "  mbarrier.expect_tx.relaxed.cta.shared."
                                 "b64 [smem], 1048576;",
                   32),
               "transaction count 0 + 1048576 above 2^20 - 1");
  // Owed bytes keep phase 0 open: a second arrival is one too many.
  EXPECT_ERROR(run(initMbar(1) + "  mbarrier.expect_tx.shared.b64 [smem], 16;\n"
                                 "  mbarrier.arrive.shared.b64 _, [smem];",
                   2 * 32),
               "1 arrivals where phase 0 expects 0 more (of 1)");
  EXPECT_ERROR(run("  cp.async.ca.shared.global [smem], [%rd1], 16;\n"
                   "  mbarrier.init.shared.b64 [smem], 1;",
                   32),
               "mbarrier.init on shared byte 1024, which an asynchronous copy "
               "or wgmma may still access");
  EXPECT_ERROR(run("  mbarrier.arrive_drop.shared.b64 _, [smem];", 32),
               "unsupported instruction mbarrier.arrive_drop");
}

// --- the Tensor Memory Accelerator -----------------------------------------

/// A rows x cols bf16 tensor at buf + 4096, rows `pitch` bytes apart, and
/// its map with a box of boxRows x boxCols.
struct Tensor {
  unsigned rows = 40, cols = 72, pitch = 160, boxRows = 8, boxCols = 64;
  unsigned swizzle = 3; // CU_TENSOR_MAP_SWIZZLE_128B
  static constexpr size_t kOffset = 4096;
  ptxsim::TensorMap map(const Memory &mem) const {
    ptxsim::TensorMap m;
    m.address = mem.address(kOffset);
    m.rank = 2;
    m.dims[0] = cols, m.dims[1] = rows;
    m.strides[0] = pitch;
    m.box[0] = boxCols, m.box[1] = boxRows;
    m.elementStrides[0] = m.elementStrides[1] = 1;
    m.dataType = 9; // BFLOAT16
    m.swizzle = swizzle;
    return m;
  }
  unsigned swizzleBytes() const { return swizzle ? 16u << swizzle : 0; }
};

/// Thread 0 loads the box at (x, y) into smem+dst and signals the mbarrier
/// at smem+0; everyone waits for it.
std::string tmaLoad(const Tensor &t, const std::string &x, const std::string &y,
                    unsigned dst = 1024) {
  return initMbar(1) +
         "  @%p9 bra $issued;\n"
         "  mov.b64 %rd20, map;\n"
         "  cvta.param.u64 %rd21, %rd20;\n"
         "  mbarrier.arrive.expect_tx.shared.b64 %rd22, [smem], " +
         std::to_string(t.boxRows * t.boxCols * 2) +
         ";\n"
         "  mov.u32 %r30, smem;\n"
         "  add.s32 %r31, %r30, " +
         std::to_string(dst) +
         ";\n"
         "  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
         "complete_tx::bytes [%r31], [%rd21, {" +
         x + ", " + y +
         "}], [%r30];\n"
         "$issued:\n" +
         waitParity("0");
}

// The box lands swizzled in shared memory, zeros where it leaves the
// tensor (right of column 72, below row 40, left of column 0). The swizzle
// follows the shared-memory address: a box 128 bytes past the pattern's
// 1024-byte boundary starts in its second row.
TEST(Sm90Tma, LoadBoxes) {
  for (unsigned swizzle : {0u, 1u, 2u, 3u})
    for (auto [x, y, dst] :
         {std::tuple{16, 36, 1024u}, std::tuple{-8, 3, 1024u},
          std::tuple{16, 36, 1152u}}) {
      SCOPED_TRACE("swizzle " + std::to_string(swizzle) + " at " +
                   std::to_string(x) + "," + std::to_string(y) + " into " +
                   std::to_string(dst));
      Tensor t;
      t.swizzle = swizzle;
      t.boxCols = swizzle ? t.swizzleBytes() / 2 : 24;
      Memory mem(Tensor::kOffset + t.rows * t.pitch + 8192);
      for (unsigned r = 0; r < t.rows; ++r)
        for (unsigned c = 0; c < t.cols; ++c)
          mem.at<uint16_t>(Tensor::kOffset + r * t.pitch + 2 * c) =
              uint16_t(r * 128 + c + 1); // bits, not values
      unsigned bytes = t.boxRows * t.boxCols * 2;
      size_t out = mem.size - 8192;
      // Everyone copies the box's bytes, as they lie, to buf + out.
      Kernel k;
      ptxsim::TensorMap m = t.map(mem);
      k.map = &m;
      k.body = tmaLoad(t, std::to_string(x), std::to_string(y), dst) +
               "  mov.u32 %r2, %r1;\n"
               "$copy:\n"
               "  setp.ge.u32 %p1, %r2, " +
               std::to_string(bytes / 4) +
               ";\n"
               "  @%p1 bra $done;\n"
               "  shl.b32 %r3, %r2, 2;\n"
               "  add.s32 %r5, %r3, %r8;\n"
               "  ld.shared.b32 %r4, [%r5+" +
               std::to_string(dst) +
               "];\n"
               "  cvt.u64.u32 %rd3, %r3;\n"
               "  add.s64 %rd3, %rd1, %rd3;\n"
               "  st.global.b32 [%rd3+" +
               std::to_string(out) +
               "], %r4;\n"
               "  add.s32 %r2, %r2, 128;\n"
               "  bra $copy;\n"
               "$done:";
      ASSERT_EQ(run(k, mem), "");
      unsigned s = t.swizzleBytes();
      for (unsigned r = 0; r < t.boxRows; ++r)
        for (unsigned c = 0; c < t.boxCols; ++c) {
          // Row r of the box is dense at 1024 + r * 2 * boxCols; a swizzle
          // XORs its 16-byte chunk with the 128-byte line in the pattern.
          uint64_t a = dst + r * t.boxCols * 2 + 2 * c;
          if (s)
            a ^= ((a >> 7) & (s / 16 - 1)) << 4;
          int gr = y + int(r), gc = x + int(c);
          uint16_t want =
              gr >= 0 && gr < int(t.rows) && gc >= 0 && gc < int(t.cols)
                  ? uint16_t(gr * 128 + gc + 1)
                  : 0;
          ASSERT_EQ(mem.at<uint16_t>(out + a - dst), want)
              << "box (" << r << ", " << c << ")";
        }
    }
}

TEST(Sm90Tma, LoadMisuse) {
  Tensor t;
  Memory mem(Tensor::kOffset + t.rows * t.pitch);
  ptxsim::TensorMap m = t.map(mem);
  Kernel k;
  k.map = &m;
  auto with = [&](const std::string &body, unsigned threads = 128) {
    k.body = body;
    k.threads = threads;
    return run(k, mem);
  };
  std::string load = tmaLoad(t, "%r40", "%r41");
  // A consumer that reads the box without waiting for the mbarrier.
  std::string noWait = load.substr(0, load.find("$issued:\n") + 9);
  EXPECT_ERROR(with(noWait + "  ld.shared.b32 %r5, [smem+1024];"),
               "line 26 'ld.shared.b32 %r5, [smem+1024]': reads shared byte "
               "2048 while the TMA load of line 24 may "
               "still be writing it");
  // fence.mbarrier_init left out.
  std::string unfenced = load;
  unfenced.erase(
      unfenced.find("  fence.mbarrier_init"),
      std::string("  fence.mbarrier_init.release.cluster;\n").size());
  EXPECT_ERROR(with(unfenced),
               "the TMA load signals the mbarrier at shared 1024, whose "
               "mbarrier.init (line 14, thread 0) no fence.mbarrier_init or "
               "fence.proxy.async made visible to the async proxy");
  std::string unfencedProxy = unfenced;
  unfencedProxy.insert(unfencedProxy.find("$inited:"),
                       "  fence.proxy.async.shared::cta;\n");
  EXPECT_EQ(with(unfencedProxy), "");
  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string s = load;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  EXPECT_ERROR(
      with(replaced("add.s32 %r31, %r30, 1024", "add.s32 %r31, %r30, 1040")),
      "the shared-memory address 2064 of a bulk tensor copy is not "
      "128-byte aligned");
  EXPECT_ERROR(with(replaced("[%r31]", "[%rd21]")),
               "the shared-memory operand is a generic address");
  EXPECT_ERROR(with(replaced("tensor.2d", "tensor.3d")),
               "a .3d copy with 2 coordinates of a rank-2 tensor map");
  EXPECT_ERROR(with(replaced("[%r30];\n", "[%r30], [%r30];\n")),
               "a tensor load takes [dst], [map, {...}], [mbar]");
  EXPECT_ERROR(with(replaced("[%r30];\n", "[%r30];\n  cp.async.bulk.tensor.2d."
                                          "shared::cluster.global.tile."
                                          "mbarrier::complete_tx::bytes "
                                          "[%r31], [%rd21, {%r40, %r41}], "
                                          "[%r30];\n")),
               "TMA load into shared byte 2048 while the TMA load of line 24 "
               "may still be writing it");
  EXPECT_ERROR(
      with(replaced("$issued:\n",
                    "  mbarrier.inval.shared.b64 [smem];\n$issued:\n")),
      "mbarrier.inval of the mbarrier that the TMA load of line 24 "
      "will signal");
  // Issued and never waited for: every thread exits first.
  EXPECT_ERROR(with(noWait, 32), "the TMA load of line 24 (thread 0) is "
                                 "still in flight when every thread exited");
  // The map names memory outside every allocation.
  ptxsim::TensorMap far = m;
  far.address += 1 << 20;
  k.map = &far;
  EXPECT_ERROR(with(load), "the TMA load reads 2 bytes at 0x");
  // Maps the copy does not model, and bytes that are no map.
  std::vector<std::pair<std::function<void(ptxsim::TensorMap &)>, const char *>>
      unmodelled = {{[](ptxsim::TensorMap &x) { x.interleave = 1; },
                     "an interleaved layout"},
                    {[](ptxsim::TensorMap &x) { x.swizzle = 4; },
                     "a 128-byte swizzle with a 32- or 64-byte atom"},
                    {[](ptxsim::TensorMap &x) { x.oobFill = 1; },
                     "NaN fill of out-of-bounds elements"},
                    {[](ptxsim::TensorMap &x) { x.elementStrides[1] = 2; },
                     "element strides other than 1"},
                    {[](ptxsim::TensorMap &x) { x.dataType = 13; },
                     "a packed sub-byte data type"}};
  for (auto &[change, what] : unmodelled) {
    ptxsim::TensorMap x = m;
    change(x);
    k.map = &x;
    EXPECT_ERROR(with(load), std::string("a tensor map with ") + what +
                                 " is not simulated");
  }
  k.map = nullptr;
  EXPECT_ERROR(with(load), "the tensor map operand is not a tensor map this "
                           "driver encoded");
  // A map in global memory: 64-byte aligned device memory, or an error.
  k.map = &m;
  EXPECT_ERROR(
      with(replaced("cvta.param.u64 %rd21, %rd20", "add.s64 %rd21, %rd1, 8")),
      "is neither a parameter nor 64-byte aligned device memory");
  EXPECT_ERROR(with(replaced("[%rd21, {", "[map, {")),
               "the tensor map operand must be a generic address (cvta.param "
               "of the parameter), not the symbol map");
}

// Loads that nobody expects: complete_tx drives the transaction count below
// its range. Each false try_wait of the unsignalled second mbarrier lets
// the load land (the thread goes on, as a probe).
TEST(Sm90Tma, TransactionCountUnderflow) {
  Tensor t;
  t.rows = t.boxRows = 256, t.cols = t.boxCols = 128, t.pitch = 256;
  t.swizzle = 0;
  Memory mem(Tensor::kOffset + t.rows * t.pitch);
  ptxsim::TensorMap m = t.map(mem);
  Kernel k;
  k.map = &m;
  k.threads = 32;
  k.shared = 80 * 1024;
  k.body = initMbar(1) +
           "  @%p9 bra $end;\n"
           "  mbarrier.init.shared.b64 [smem+8], 1;\n"
           "  mov.b64 %rd20, map;\n"
           "  cvta.param.u64 %rd20, %rd20;\n"
           "  mov.u32 %r2, 0;\n"
           "$again:\n"
           "  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
           "complete_tx::bytes [smem+1024], [%rd20, {0, 0}], [smem];\n"
           "  mbarrier.try_wait.parity.shared.b64 %p3, [smem+8], 0;\n"
           "  add.s32 %r2, %r2, 1;\n"
           "  setp.lt.u32 %p4, %r2, 20;\n"
           "  @%p4 bra $again;\n"
           "$end:";
  EXPECT_ERROR(run(k, mem), "complete_tx of the TMA load: transaction count "
                            "-983040 - 65536 below -(2^20 - 1)");
}

/// Threads write a box image into smem+1024 (element i = i + 1), thread
/// 127 stores it at (x, y).
std::string tmaStore(const Tensor &t, const std::string &x,
                     const std::string &y, bool fence = true,
                     bool barrier = true, bool wait = true) {
  unsigned elems = t.boxRows * t.boxCols;
  return "  mov.u32 %r2, %r1;\n"
         "$fill:\n"
         "  setp.ge.u32 %p1, %r2, " +
         std::to_string(elems) +
         ";\n"
         "  @%p1 bra $filled;\n"
         "  add.s32 %r3, %r2, 1;\n"
         "  cvt.u16.u32 %rs1, %r3;\n"
         "  mad.lo.u32 %r4, %r2, 2, %r8;\n"
         "  st.shared.b16 [%r4+1024], %rs1;\n"
         "  add.s32 %r2, %r2, 128;\n"
         "  bra $fill;\n"
         "$filled:\n" +
         std::string(fence ? "  fence.proxy.async.shared::cta;\n" : "") +
         (barrier ? "  bar.sync 0;\n" : "") +
         "  setp.ne.u32 %p9, %r1, 127;\n" // the last thread to run
         "  @%p9 bra $end;\n"
         "  mov.b64 %rd20, map;\n"
         "  cvta.param.u64 %rd20, %rd20;\n"
         "  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group "
         "[%rd20, {" +
         x + ", " + y +
         "}], [smem+1024];\n"
         "  cp.async.bulk.commit_group;\n" +
         (wait ? "  cp.async.bulk.wait_group.read 0;\n" : "") + "$end:";
}

// In-bounds elements reach the tensor (through the swizzle); the rest are
// dropped, leaving the guard values.
TEST(Sm90Tma, StoreBoxes) {
  for (unsigned swizzle : {0u, 3u}) {
    SCOPED_TRACE("swizzle " + std::to_string(swizzle));
    Tensor t;
    t.swizzle = swizzle;
    Memory mem(Tensor::kOffset + t.rows * t.pitch);
    for (unsigned r = 0; r < t.rows; ++r)
      for (unsigned c = 0; c < t.pitch / 2; ++c)
        mem.at<uint16_t>(Tensor::kOffset + r * t.pitch + 2 * c) = 0xdead;
    ptxsim::TensorMap m = t.map(mem);
    Kernel k;
    k.map = &m;
    k.body = tmaStore(t, "40", "-3");
    ASSERT_EQ(run(k, mem), "");
    for (unsigned r = 0; r < t.rows; ++r)
      for (unsigned c = 0; c < t.pitch / 2; ++c) {
        int br = int(r) + 3, bc = int(c) - 40;
        uint16_t want = 0xdead;
        if (br < int(t.boxRows) && bc >= 0 && bc < int(t.boxCols) &&
            c < t.cols) {
          uint64_t a = 1024 + (br * t.boxCols + bc) * 2;
          if (swizzle)
            a ^= ((a >> 7) & 7) << 4;
          want = uint16_t((a - 1024) / 2 + 1); // the element stored there
        }
        ASSERT_EQ(mem.at<uint16_t>(Tensor::kOffset + r * t.pitch + 2 * c), want)
            << r << ", " << c;
      }
  }
}

TEST(Sm90Tma, StoreMisuse) {
  Tensor t;
  Memory mem(Tensor::kOffset + t.rows * t.pitch);
  ptxsim::TensorMap m = t.map(mem);
  Kernel k;
  k.map = &m;
  auto with = [&](const std::string &body) {
    k.body = body;
    return run(k, mem);
  };
  EXPECT_ERROR(with(tmaStore(t, "0", "0", /*fence=*/false)),
               "the TMA store reads shared byte 2048, which thread 0 wrote "
               "through the generic proxy with no fence.proxy.async after "
               "it");
  EXPECT_ERROR(with(tmaStore(t, "0", "0", true, /*barrier=*/false)),
               "race: the TMA store reads shared byte 2048 written by thread "
               "0 since the last barrier");
  EXPECT_ERROR(with(tmaStore(t, "0", "0", true, true, /*wait=*/false)),
               "line 32 'ret': a cp.async.bulk tensor store (line 29) may "
               "still read shared "
               "memory at exit: no cp.async.bulk.wait_group waited for it");
  std::string store = tmaStore(t, "0", "0");
  EXPECT_ERROR(with(store.substr(0, store.find("  cp.async.bulk.wait_group")) +
                    "  st.shared.b16 [smem+1030], %rs1;\n$end:"),
               "writes shared byte 2054 that the cp.async.bulk tensor store "
               "of line 29 may still be reading");
  ptxsim::TensorMap far = m;
  far.address += 1 << 20;
  k.map = &far;
  EXPECT_ERROR(with(store), "the TMA store writes 2 bytes at 0x");
  k.map = &m;
  // A partial box: elements outside the tensor need not be written.
  std::string partial = "  mad.lo.u32 %r4, %r1, 2, %r8;\n"
                        "  st.shared.b16 [%r4+1024], %rs1;\n"
                        "  fence.proxy.async.shared::cta;\n"
                        "  bar.sync 0;\n"
                        "  @%p9 bra $end;\n"
                        "  mov.b64 %rd20, map;\n"
                        "  cvta.param.u64 %rd20, %rd20;\n"
                        "  cp.async.bulk.tensor.2d.global.shared::cta.tile."
                        "bulk_group [%rd20, {8, 39}], [smem+1024];\n"
                        "  cp.async.bulk.commit_group;\n"
                        "  cp.async.bulk.wait_group 0;\n"
                        "$end:";
  EXPECT_EQ(with("  setp.ne.u32 %p9, %r1, 0;\n" + partial), "");
  // Three rows in the tensor, and the box reads bytes nothing wrote: row
  // 2's first chunk, at smem + 1024 + 256 = 2304 before the 128-byte
  // swizzle and 2336 after (smem is at 1024).
  std::string threeRows = partial;
  threeRows.replace(threeRows.find("{8, 39}"), 7, "{8, 37}");
  EXPECT_ERROR(with("  setp.ne.u32 %p9, %r1, 0;\n" + threeRows),
               "the TMA store reads shared byte 2336, which nothing wrote");
  EXPECT_ERROR(with("  mov.b64 %rd20, map;\n"
                    "  cp.async.bulk.tensor.2d.global.shared::cta.tile."
                    "bulk_group [%rd20, {0, 0}];"),
               "a tensor store takes [map, {...}], [src]");
}

TEST(Sm90Tma, UnmodelledFormsAreErrors) {
  EXPECT_ERROR(run("  cp.async.bulk.tensor.2d.shared::cluster.global.im2col."
                   "mbarrier::complete_tx::bytes [%r2], [%rd1, {%r3, %r4}], "
                   "[%r5], {%rs1};"),
               "unsupported modifier .im2col");
  EXPECT_ERROR(run("  cp.async.bulk.tensor.2d.shared::cluster.global.tile "
                   "[%r2], [%rd1, {%r3, %r4}], [%r5];"),
               "a tensor load needs .mbarrier::complete_tx::bytes");
  EXPECT_ERROR(run("  cp.async.bulk.tensor.2d.global.shared::cta.tile "
                   "[%rd1, {%r3, %r4}], [%r2];"),
               "a tensor store needs .bulk_group");
  EXPECT_ERROR(run("  cp.async.bulk.tensor.2d.shared::cluster.shared::cta."
                   "tile.bulk_group [%rd1, {%r3, %r4}], [%r2];"),
               "unsupported direction of cp.async.bulk.tensor");
  EXPECT_ERROR(run("  cp.async.bulk.tensor.2d.global.shared::cta.tile."
                   "bulk_group.multicast::cluster [%rd1, {%r3, %r4}], [%r2], "
                   "%rs1;"),
               ".multicast::cluster is a tensor load's");
  EXPECT_ERROR(run("  cp.async.bulk.shared::cluster.global.mbarrier::"
                   "complete_tx::bytes [%r2], [%rd1], 16, [%r5];"),
               "unsupported instruction cp.async.bulk.shared::cluster");
  EXPECT_ERROR(run("  cp.async.bulk.tensor.6d.shared::cluster.global.tile."
                   "mbarrier::complete_tx::bytes [%r2], [%rd1, {%r3}], "
                   "[%r5];"),
               "unsupported instruction cp.async.bulk.tensor.6d");
  EXPECT_ERROR(run("  fence.proxy.tensormap::generic.release.gpu;"),
               "unsupported instruction fence.proxy.tensormap::generic");
}

} // namespace
