//===- ClusterTest.cpp - the PTX simulator's thread-block clusters --------===//
//
// Hand-written sm_90a kernels of 2- and 4-CTA clusters in the simulator:
// the cluster special registers and ranks, distributed shared memory (mapa,
// ld/st.shared::cluster, generic addresses), barrier.cluster, arrives on
// another CTA's mbarrier, and a TMA load multicast to both CTAs of a
// cluster. Then each misuse the simulator detects, one kernel each, with
// the error it must give: an access of a CTA that has exited or may exit
// first (no barrier.cluster before exit), an mbarrier of another CTA used
// before its init is visible to the cluster, a multicast into bytes the
// destination still uses, a deadlock across the cluster, a grid that is no
// whole number of clusters.
//
//===----------------------------------------------------------------------===//

#include "TestMemory.h"
#include "PtxSim.h"
#include "TensorMap.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using ptxsim_test::Memory;

struct Kernel {
  std::string body;
  unsigned cluster[3] = {2, 1, 1};
  unsigned grid[3] = {2, 1, 1};
  unsigned threads = 128;
  unsigned shared = 16 * 1024;
  const ptxsim::TensorMap *map = nullptr;
  /// The entry's directives between its parameters and its body.
  std::string directives;
};

/// `k(u64 buf, .align 64 .b8 map[128])` in clusters of `cluster`: %rd1 =
/// buf, %r1 = %tid.x, %r8 = the shared address of `smem` (the dynamic
/// shared memory), %r9 = %cluster_ctarank, %r10 = %ctaid.x, %p9 = (%r1 !=
/// 0); then the body, from PTX line 14.
std::string module(const Kernel &k) {
  std::string directives =
      k.directives.empty()
          ? ".explicitcluster\n.reqnctapercluster " +
                std::to_string(k.cluster[0]) + ", " +
                std::to_string(k.cluster[1]) + ", " +
                std::to_string(k.cluster[2]) + "\n"
          : k.directives;
  return ".version 8.0\n"                            // 1
         ".target sm_90a\n"                          // 2
         ".address_size 64\n"                        // 3
         ".extern .shared .align 1024 .b8 smem[];\n" // 4
         ".visible .entry k(\n"                      // 5
         "  .param .u64 buf,\n"                      // 6
         "  .param .align 64 .b8 map[128]\n"         // 7
         ")\n" +                                     // 8
         directives +                                // 9, 10
         "{\n"                                       // 11
         "  .reg .b64 %rd<32>; .reg .b32 %r<64>; .reg .pred %p<10>; "
         ".reg .b16 %rs<4>;\n" // 12
         "  ld.param.u64 %rd1, [buf]; mov.u32 %r1, %tid.x; "
         "mov.u32 %r8, smem; mov.u32 %r9, %cluster_ctarank; "
         "mov.u32 %r10, %ctaid.x; setp.ne.u32 %p9, %r1, 0;\n" // 13
         + k.body + "\n  ret;\n}\n";
}

std::string run(const Kernel &k, Memory &mem) {
  ptxsim::Launch launch;
  for (int i = 0; i < 3; ++i)
    launch.grid[i] = k.grid[i];
  launch.block[0] = k.threads;
  launch.dynamicShared = k.shared;
  launch.params.emplace_back(8);
  uint64_t addr = mem.address();
  std::memcpy(launch.params[0].data(), &addr, 8);
  launch.params.emplace_back(128, 0);
  if (k.map)
    ptxsim::encodeTensorMap(*k.map, launch.params[1].data());
  return ptxsim::run(module(k), "k", launch, [&](uint64_t p, uint64_t n) {
    return p >= addr && p + n <= addr + mem.size && p + n >= p;
  });
}

#define EXPECT_ERROR(error, text)                                              \
  EXPECT_NE((error).find(text), std::string::npos) << (error)

/// Every thread: barrier.cluster.arrive then wait (the cluster's sync).
const char *kClusterSync = "  barrier.cluster.arrive.aligned;\n"
                           "  barrier.cluster.wait.aligned;\n";

/// %r3 = %tid.x * 4, %rd3 = buf + `offset` + %ctaid.x * `stride` + %r3.
std::string globalSlot(unsigned offset, unsigned stride) {
  return "  shl.b32 %r3, %r1, 2;\n"
         "  mul.wide.u32 %rd3, %r10, " +
         std::to_string(stride) +
         ";\n"
         "  cvt.u64.u32 %rd4, %r3;\n"
         "  add.s64 %rd3, %rd3, %rd4;\n"
         "  add.s64 %rd3, %rd3, %rd1;\n"
         "  add.s64 %rd3, %rd3, " +
         std::to_string(offset) + ";\n";
}

// --- the cluster's shape -----------------------------------------------------

// Blocks are ranked x fastest within the cluster; the cluster at clusterid
// holds the blocks clusterid * clusterDim + cluster_ctaid.
TEST(Cluster, SpecialRegisters) {
  Memory mem(8 * 64);
  Kernel k;
  k.cluster[0] = 2, k.cluster[1] = 2;
  k.grid[0] = 4, k.grid[1] = 2;
  k.threads = 32;
  k.body = "  @%p9 bra $end;\n"
           "  mov.u32 %r11, %ctaid.y;\n"
           "  mad.lo.u32 %r12, %r11, 4, %r10;\n"
           "  mul.wide.u32 %rd3, %r12, 64;\n"
           "  add.s64 %rd3, %rd3, %rd1;\n"
           "  mov.u32 %r13, %cluster_nctarank;\n"
           "  mov.u32 %r14, %clusterid.x;\n"
           "  mov.u32 %r15, %clusterid.y;\n"
           "  st.global.v4.u32 [%rd3], {%r9, %r13, %r14, %r15};\n"
           "  mov.u32 %r13, %cluster_ctaid.x;\n"
           "  mov.u32 %r14, %cluster_ctaid.y;\n"
           "  mov.u32 %r15, %cluster_nctaid.x;\n"
           "  mov.u32 %r16, %cluster_nctaid.y;\n"
           "  st.global.v4.u32 [%rd3+16], {%r13, %r14, %r15, %r16};\n"
           "  mov.u32 %r13, %nclusterid.x;\n"
           "  mov.u32 %r14, %nclusterid.y;\n"
           "  mov.u32 %r15, %is_explicit_cluster;\n"
           "  mov.u32 %r16, %cluster_ctaid.z;\n"
           "  st.global.v4.u32 [%rd3+32], {%r13, %r14, %r15, %r16};\n"
           "$end:";
  ASSERT_EQ(run(k, mem), "");
  for (unsigned y = 0; y < 2; ++y)
    for (unsigned x = 0; x < 4; ++x) {
      SCOPED_TRACE("block (" + std::to_string(x) + "," + std::to_string(y) +
                   ")");
      size_t o = (y * 4 + x) * 64;
      EXPECT_EQ(mem.at<uint32_t>(o), x % 2 + 2 * (y % 2)); // rank
      EXPECT_EQ(mem.at<uint32_t>(o + 4), 4u);
      EXPECT_EQ(mem.at<uint32_t>(o + 8), x / 2);
      EXPECT_EQ(mem.at<uint32_t>(o + 12), y / 2);
      EXPECT_EQ(mem.at<uint32_t>(o + 16), x % 2);
      EXPECT_EQ(mem.at<uint32_t>(o + 20), y % 2);
      EXPECT_EQ(mem.at<uint32_t>(o + 24), 2u);
      EXPECT_EQ(mem.at<uint32_t>(o + 28), 2u);
      EXPECT_EQ(mem.at<uint32_t>(o + 32), 2u);
      EXPECT_EQ(mem.at<uint32_t>(o + 36), 1u);
      EXPECT_EQ(mem.at<uint32_t>(o + 40), 1u); // .explicitcluster
      EXPECT_EQ(mem.at<uint32_t>(o + 44), 0u);
    }
}

// As the driver: the grid is a whole number of clusters
// (CUDA_ERROR_INVALID_CLUSTER_SIZE), of at most 8 blocks.
TEST(Cluster, ShapeErrors) {
  Memory mem(256);
  Kernel k;
  k.grid[0] = 3;
  EXPECT_ERROR(run(k, mem),
               "ptxsim: k: the grid (3,1,1) is not a multiple of the kernel's "
               "cluster shape (2,1,1) (.reqnctapercluster): the launch fails "
               "with CUDA_ERROR_INVALID_CLUSTER_SIZE");
  k.cluster[0] = 1, k.cluster[1] = 2, k.grid[0] = 2;
  EXPECT_ERROR(run(k, mem), "the grid (2,1,1) is not a multiple of the "
                            "kernel's cluster shape (1,2,1)");
  k.cluster[0] = 16, k.cluster[1] = 1, k.grid[0] = 16;
  EXPECT_ERROR(run(k, mem), "a cluster of 16 blocks is more than the "
                            "portable 8");
  k.directives = ".explicitcluster\n.maxclusterrank 8\n";
  EXPECT_ERROR(run(k, mem), ".entry k has .explicitcluster but no "
                            ".reqnctapercluster");
  k.directives = ".reqnctapercluster 2, 0, 1\n";
  EXPECT_ERROR(run(k, mem), "line 9: bad .reqnctapercluster 0");
  // Without the directives, each block is a cluster of one.
  k.directives = ".maxntid 128, 1, 1\n";
  k.grid[0] = 3;
  k.body = "  mov.u32 %r2, %cluster_nctarank;\n"
           "  mov.u32 %r3, %is_explicit_cluster;\n"
           "  add.s32 %r2, %r2, %r3;\n"
           "  @%p9 bra $end;\n"
           "  mul.wide.u32 %rd3, %r10, 4;\n"
           "  add.s64 %rd3, %rd3, %rd1;\n"
           "  st.global.u32 [%rd3], %r2;\n"
           "$end:";
  ASSERT_EQ(run(k, mem), "");
  for (unsigned x = 0; x < 3; ++x)
    EXPECT_EQ(mem.at<uint32_t>(4 * x), 1u);
}

// --- distributed shared memory -----------------------------------------------

// Each CTA writes a word per thread, the cluster syncs, and each reads its
// peer's words through a shared::cluster address (mapa.shared::cluster.u32,
// 32-bit) and through a generic one (mapa.u64, 64-bit); a second
// barrier.cluster keeps each CTA alive while its peer reads it.
TEST(Cluster, ExchangeThroughDistributedSharedMemory) {
  Memory mem(4 * 2 * 128 * 4);
  Kernel k;
  k.grid[0] = 4; // two clusters
  k.body = "  mad.lo.u32 %r2, %r10, 1000, %r1;\n"
           "  shl.b32 %r3, %r1, 2;\n"
           "  add.s32 %r4, %r8, %r3;\n"
           "  st.shared.u32 [%r4], %r2;\n" +
           std::string(kClusterSync) +
           "  xor.b32 %r5, %r9, 1;\n"
           "  mapa.shared::cluster.u32 %r6, %r4, %r5;\n"
           "  ld.shared::cluster.u32 %r7, [%r6];\n"
           "  cvt.u64.u32 %rd5, %r4;\n"
           "  cvta.shared.u64 %rd5, %rd5;\n"
           "  mapa.u64 %rd6, %rd5, %r5;\n"
           "  ld.u32 %r11, [%rd6];\n" +
           globalSlot(0, 1024) +
           "  st.global.u32 [%rd3], %r7;\n"
           "  st.global.u32 [%rd3+512], %r11;\n" +
           kClusterSync;
  ASSERT_EQ(run(k, mem), "");
  for (unsigned b = 0; b < 4; ++b)
    for (unsigned t = 0; t < 128; ++t) {
      uint32_t want = (b ^ 1) * 1000 + t;
      EXPECT_EQ(mem.at<uint32_t>(b * 1024 + 4 * t), want);
      EXPECT_EQ(mem.at<uint32_t>(b * 1024 + 512 + 4 * t), want);
    }
  // Without the first barrier.cluster, rank 0 reads what rank 1 has not
  // written yet (and rank 1 would race with rank 0's writes).
  k.body.erase(k.body.find(kClusterSync), std::strlen(kClusterSync));
  EXPECT_ERROR(run(k, mem),
               "block (0,0,0) (cluster rank 0) thread 0 line 20 "
               "'ld.shared::cluster.u32 %r7, [%r6]': reads shared byte 1024 "
               "of cluster rank 1, which nothing wrote");
  k.body = "  shl.b32 %r3, %r1, 2;\n"
           "  add.s32 %r4, %r8, %r3;\n"
           "  setp.ne.u32 %p1, %r9, 0;\n"
           "  @%p1 bra $read;\n"
           "  st.shared.u32 [%r4], %r1;\n"
           "  bra $end;\n"
           "$read:\n"
           "  mapa.shared::cluster.u32 %r6, %r4, 0;\n"
           "  ld.shared::cluster.u32 %r7, [%r6];\n"
           "$end:\n" +
           std::string(kClusterSync);
  EXPECT_ERROR(run(k, mem),
               "block (1,0,0) (cluster rank 1) thread 0 line 22 "
               "'ld.shared::cluster.u32 %r7, [%r6]': race: reads shared byte "
               "1024 of cluster rank 0 written by thread 0 of cluster rank 0 "
               "since the last barrier");
}

// Rank 1's threads store into rank 0's shared memory and arrive on rank 0's
// mbarrier (count 32, 64-bit shared addresses); rank 0 waits for the phase
// and reads what they stored. The arrive (a release) orders the stores
// before rank 0's reads and its exit: rank 1 may exit without a
// barrier.cluster.
TEST(Cluster, SignalThroughARemoteMbarrier) {
  Memory mem(4096);
  Kernel k;
  k.threads = 32;
  std::string init = "  @%p9 bra $inited;\n"
                     "  mbarrier.init.shared::cta.b64 [smem], 32;\n"
                     "  fence.mbarrier_init.release.cluster;\n"
                     "$inited:\n"
                     "  barrier.cluster.arrive.relaxed.aligned;\n"
                     "  barrier.cluster.wait.acquire.aligned;\n";
  std::string body =
      "  setp.ne.u32 %p1, %r9, 0;\n"
      "  shl.b32 %r3, %r1, 2;\n"
      "  @%p1 bra $producer;\n"
      "$wait:\n"
      "  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p2, "
      "[smem], 0;\n"
      "  @!%p2 bra $wait;\n"
      "  add.s32 %r4, %r8, %r3;\n"
      "  ld.shared.u32 %r5, [%r4+64];\n"
      "  cvt.u64.u32 %rd3, %r3;\n"
      "  add.s64 %rd3, %rd3, %rd1;\n"
      "  st.global.u32 [%rd3], %r5;\n"
      "  bra $end;\n"
      "$producer:\n"
      "  cvt.u64.u32 %rd10, %r8;\n"
      "  mov.u32 %r6, 0;\n"
      "  mapa.shared::cluster.u64 %rd11, %rd10, %r6;\n"
      "  cvt.u64.u32 %rd12, %r3;\n"
      "  add.s64 %rd12, %rd11, %rd12;\n"
      "  add.s32 %r7, %r1, 500;\n"
      "  st.shared::cluster.u32 [%rd12+64], %r7;\n"
      "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%rd11];\n"
      "$end:";
  k.body = init + body;
  ASSERT_EQ(run(k, mem), "");
  for (unsigned t = 0; t < 32; ++t)
    EXPECT_EQ(mem.at<uint32_t>(4 * t), t + 500);

  // The threads store, meet at a bar.sync, and one arrives for all 32: its
  // release orders the others' stores too.
  std::string counted = body;
  counted.replace(counted.find("  mbarrier.arrive."),
                  std::string("  mbarrier.arrive.release.cluster.shared::"
                              "cluster.b64 _, [%rd11];\n")
                      .size(),
                  "  bar.sync 0;\n"
                  "  @%p9 bra $end;\n"
                  "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
                  "[%rd11], 32;\n");
  k.body = init + counted;
  ASSERT_EQ(run(k, mem), "");

  // Without the barrier.cluster, rank 1 may arrive before rank 0 initialized
  // its mbarrier.
  std::string noSync = init;
  noSync.erase(noSync.find("  barrier.cluster"));
  k.body = noSync + body;
  EXPECT_ERROR(run(k, mem),
               "block (1,0,0) (cluster rank 1) thread 0 line 38 "
               "'mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
               "[%rd11]': mbarrier.arrive signals the mbarrier at shared 1024 "
               "of cluster rank 0, whose mbarrier.init (line 15, thread 0) no "
               "barrier.cluster that this thread waited for made visible to "
               "the cluster");
  // A relaxed arrival publishes the init only behind fence.mbarrier_init.
  std::string noFence = init;
  noFence.erase(noFence.find("  fence.mbarrier_init"),
                std::string("  fence.mbarrier_init.release.cluster;\n").size());
  k.body = noFence + body;
  EXPECT_ERROR(run(k, mem), "no barrier.cluster that this thread waited for "
                            "made visible to the cluster");
  std::string released = noFence;
  released.replace(released.find(".relaxed"), 8, ".release");
  k.body = released + body;
  EXPECT_EQ(run(k, mem), "");
  // Rank 0 arrives on rank 1's mbarrier before rank 1 made one.
  k.body = "  @%p9 bra $end;\n"
           "  mov.u32 %r6, 1;\n"
           "  mapa.shared::cluster.u32 %r7, %r8, %r6;\n"
           "  mbarrier.arrive.shared::cluster.b64 _, [%r7];\n"
           "$end:\n" +
           std::string(kClusterSync);
  EXPECT_ERROR(run(k, mem),
               "mbarrier.arrive on shared 1024 of cluster rank 1, where no "
               "mbarrier.init made an mbarrier object");
}

TEST(Cluster, DistributedSharedMemoryMisuse) {
  Memory mem(4096);
  Kernel k;
  k.threads = 32;
  // Rank 0 reads rank 1's memory after rank 1 exited: rank 1 arrives at
  // the barrier.cluster that rank 0 waits at, and exits.
  k.body = "  setp.eq.u32 %p1, %r9, 1;\n"
           "  barrier.cluster.arrive.aligned;\n"
           "  @%p1 bra $end;\n"
           "  barrier.cluster.wait.aligned;\n"
           "  mov.u32 %r6, 1;\n"
           "  mapa.shared::cluster.u32 %r7, %r8, %r6;\n"
           "  ld.shared::cluster.u32 %r5, [%r7];\n"
           "$end:";
  EXPECT_ERROR(run(k, mem),
               "block (0,0,0) (cluster rank 0) thread 0 line 20 "
               "'ld.shared::cluster.u32 %r5, [%r7]': ld.shared::cluster into "
               "CTA rank 1 of the cluster, which has exited: a barrier.cluster "
               "before exit is missing");
  // Rank 0 writes rank 1's memory while rank 1 lives, but nothing orders
  // the write before rank 1's exit.
  k.body = "  setp.eq.u32 %p1, %r9, 1;\n"
           "  @%p1 bra $end;\n"
           "  mov.u32 %r6, 1;\n"
           "  shl.b32 %r3, %r1, 2;\n"
           "  add.s32 %r4, %r8, %r3;\n"
           "  mapa.shared::cluster.u32 %r7, %r4, %r6;\n"
           "  st.shared::cluster.u32 [%r7], %r1;\n"
           "$end:";
  EXPECT_ERROR(run(k, mem),
               "block (1,0,0) (cluster rank 1) exits while block (0,0,0) "
               "(cluster rank 0) thread 0 line 20 'st.shared::cluster.u32 "
               "[%r7], %r1' may still access its shared memory: no "
               "barrier.cluster or mbarrier wait of this CTA orders that "
               "before its exit (a barrier.cluster before exit is missing)");
  k.body += "\n" + std::string(kClusterSync);
  EXPECT_EQ(run(k, mem), "");
  // Two CTAs' threads write one word between barriers: a race.
  k.body = "  mov.u32 %r6, 0;\n"
           "  mapa.shared::cluster.u32 %r7, %r8, %r6;\n"
           "  @%p9 bra $end;\n"
           "  st.shared::cluster.u32 [%r7], %r9;\n"
           "$end:\n" +
           std::string(kClusterSync);
  EXPECT_ERROR(run(k, mem),
               "block (1,0,0) (cluster rank 1) thread 0 line 17 "
               "'st.shared::cluster.u32 [%r7], %r9': race: writes shared byte "
               "1024 of cluster rank 0 also written by thread 0 of cluster "
               "rank 0 since the last barrier");
  // mapa's rank and shared::cluster addresses outside the cluster.
  k.body = "  mov.u32 %r6, 2;\n"
           "  mapa.shared::cluster.u32 %r7, %r8, %r6;";
  EXPECT_ERROR(run(k, mem), "mapa to CTA rank 2 of a cluster of 2");
  k.body = "  add.s32 %r7, %r8, 50331648;\n" // (2 + 1) << 24
           "  ld.shared::cluster.u32 %r5, [%r7];";
  EXPECT_ERROR(run(k, mem), "the shared::cluster address 0x3000400 is in no "
                            "CTA of the cluster of 2");
  k.body = "  mapa.u64 %rd5, %rd1, 1;";
  EXPECT_ERROR(run(k, mem), "mapa of the generic address 0x");
  // Only arrives reach another CTA's mbarrier.
  k.body = "  mapa.shared::cluster.u32 %r7, %r8, 1;\n"
           "  mbarrier.try_wait.parity.shared::cluster.b64 %p1, [%r7], 0;";
  EXPECT_ERROR(run(k, mem), "only mbarrier.arrive may reach the mbarrier of "
                            "another CTA of the cluster (here cluster rank "
                            "1's)");
}

// --- barrier.cluster ---------------------------------------------------------

TEST(Cluster, Barrier) {
  Memory mem(256);
  Kernel k;
  k.threads = 64;
  // Threads that exited do not hold the barrier up (the ISA: it waits for
  // the non-exited threads of the cluster); an arrive may come long before
  // its wait.
  k.body = "  setp.ge.u32 %p1, %r1, 32;\n"
           "  @%p1 bra $end;\n"
           "  barrier.cluster.arrive.release;\n"
           "  add.s32 %r2, %r1, 1;\n"
           "  barrier.cluster.wait;\n" +
           std::string(kClusterSync) + "$end:";
  EXPECT_EQ(run(k, mem), "");
  k.body = "  barrier.cluster.wait.aligned;";
  EXPECT_ERROR(run(k, mem), "barrier.cluster.wait with no "
                            "barrier.cluster.arrive before it");
  k.body = "  barrier.cluster.arrive.aligned;\n"
           "  barrier.cluster.arrive.aligned;";
  EXPECT_ERROR(run(k, mem), "barrier.cluster.arrive before a "
                            "barrier.cluster.wait saw phase 0 complete");
  // Rank 1's thread 0 never arrives: a deadlock of the cluster.
  k.body = "  setp.eq.u32 %p1, %r9, 1;\n"
           "  setp.eq.u32 %p2, %r1, 0;\n"
           "  and.pred %p2, %p2, %p1;\n"
           "$spin:\n"
           "  @%p2 bar.sync 1, 32;\n"
           "  @%p2 bra $spin;\n" +
           std::string(kClusterSync);
  EXPECT_ERROR(run(k, mem),
               "cluster (0,0,0) of 2 blocks: deadlock: every live thread of "
               "the cluster waits; block (0,0,0) (cluster rank 0): 0 on "
               "mbarriers, 64 at barriers, 0 at collectives; 0 exited; block "
               "(0,0,0) (cluster rank 0) thread 0 line 21 "
               "'barrier.cluster.wait.aligned' waits at barrier.cluster for "
               "phase 0; block (1,0,0) (cluster rank 1) thread 0 has not "
               "arrived at it");
}

// --- multicast TMA loads -----------------------------------------------------

/// A 16 x 64 bf16 tensor at buf + kTensor (128-byte rows) and the map of
/// its 8 x 64 boxes.
constexpr size_t kTensor = 8192;
ptxsim::TensorMap tileMap(const Memory &mem, unsigned swizzle) {
  ptxsim::TensorMap m;
  m.address = mem.address(kTensor);
  m.rank = 2;
  m.dims[0] = 64, m.dims[1] = 16;
  m.strides[0] = 128;
  m.box[0] = 64, m.box[1] = 8;
  m.elementStrides[0] = m.elementStrides[1] = 1;
  m.dataType = 9; // BFLOAT16
  m.swizzle = swizzle;
  return m;
}

/// Thread 0 of each CTA initializes `full` (smem+0, 1 arrival) and `empty`
/// (smem+8, 2 arrivals); after the cluster's sync it expects the 16 rows'
/// 2048 bytes on `full` and loads rows 8r..8r+7 (r its rank) into
/// smem+1024+1024r of both CTAs (.multicast::cluster, ctaMask 0b11);
/// everyone waits for `full`, then copies the 16 rows from smem+1024 to
/// buf + 4096 * %ctaid.x. `release` runs after the copy (thread 0's remote
/// arrives), then `atExit`.
std::string multicastKernel(const std::string &release = "",
                            const std::string &atExit = kClusterSync) {
  return "  @%p9 bra $inited;\n"
         "  mbarrier.init.shared::cta.b64 [smem], 1;\n"
         "  mbarrier.init.shared::cta.b64 [smem+8], 2;\n"
         "  fence.mbarrier_init.release.cluster;\n"
         "$inited:\n"
         "  barrier.cluster.arrive.relaxed.aligned;\n"
         "  barrier.cluster.wait.aligned;\n"
         "  @%p9 bra $issued;\n"
         "  mov.b64 %rd20, map;\n"
         "  cvta.param.u64 %rd21, %rd20;\n"
         "  mbarrier.arrive.expect_tx.shared::cta.b64 _, [smem], 2048;\n"
         "  shl.b32 %r31, %r9, 10;\n"
         "  add.s32 %r31, %r31, %r8;\n"
         "  add.s32 %r31, %r31, 1024;\n"
         "  shl.b32 %r32, %r9, 3;\n"
         "  mov.u16 %rs1, 3;\n"
         "  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
         "complete_tx::bytes.multicast::cluster [%r31], [%rd21, {0, %r32}], "
         "[%r8], %rs1;\n"
         "$issued:\n"
         "  {\n"
         "  .reg .pred P1;\n"
         "  LAB_WAIT:\n"
         "  mbarrier.try_wait.parity.shared::cta.b64 P1, [smem], 0;\n"
         "  @P1 bra.uni DONE;\n"
         "  bra.uni LAB_WAIT;\n"
         "  DONE:\n"
         "  }\n"
         "  mov.u32 %r2, %r1;\n"
         "$copy:\n"
         "  setp.ge.u32 %p1, %r2, 512;\n"
         "  @%p1 bra $copied;\n"
         "  shl.b32 %r3, %r2, 2;\n"
         "  add.s32 %r4, %r3, %r8;\n"
         "  ld.shared.b32 %r5, [%r4+1024];\n"
         "  mul.wide.u32 %rd3, %r10, 4096;\n"
         "  cvt.u64.u32 %rd4, %r3;\n"
         "  add.s64 %rd3, %rd3, %rd4;\n"
         "  add.s64 %rd3, %rd3, %rd1;\n"
         "  st.global.b32 [%rd3], %r5;\n"
         "  add.s32 %r2, %r2, 128;\n"
         "  bra $copy;\n"
         "$copied:\n" +
         release + atExit;
}

// Both CTAs get all 16 rows, each half from the other's load; with a
// 128-byte swizzle each lands swizzled by its shared address.
TEST(Cluster, MulticastTmaLoad) {
  for (unsigned swizzle : {0u, 3u}) {
    SCOPED_TRACE("swizzle " + std::to_string(swizzle));
    Memory mem(kTensor + 16 * 128);
    std::mt19937 rng(7 + swizzle);
    std::vector<uint16_t> tensor(16 * 64);
    for (uint16_t &v : tensor)
      v = uint16_t(rng());
    std::memcpy(&mem.at<uint16_t>(kTensor), tensor.data(), 16 * 128);
    ptxsim::TensorMap m = tileMap(mem, swizzle);
    Kernel k;
    k.map = &m;
    k.grid[0] = 2;
    k.body = multicastKernel();
    ASSERT_EQ(run(k, mem), "");
    for (unsigned b = 0; b < 2; ++b)
      for (unsigned r = 0; r < 16; ++r)
        for (unsigned c = 0; c < 64; ++c) {
          uint64_t a = 1024 + r * 128 + 2 * c; // smem is at shared 1024
          if (swizzle)
            a ^= ((a >> 7) & 7) << 4;
          ASSERT_EQ(mem.at<uint16_t>(4096 * b + a - 1024), tensor[r * 64 + c])
              << "block " << b << " row " << r << " column " << c;
        }
  }
}

TEST(Cluster, MulticastMisuse) {
  Memory mem(kTensor + 16 * 128);
  std::mt19937 rng(11);
  for (unsigned i = 0; i < 16 * 64; ++i)
    mem.at<uint16_t>(kTensor + 2 * i) = uint16_t(rng());
  ptxsim::TensorMap m = tileMap(mem, 0);
  Kernel k;
  k.map = &m;
  auto with = [&](const std::string &body) {
    k.body = body;
    return run(k, mem);
  };
  auto replaced = [](std::string s, const std::string &from,
                     const std::string &to) {
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? s : s.replace(at, from.size(), to);
  };
  // Thread 0 of rank 0 releases a slot of rank 1 (its `empty`), which rank
  // 1 never waits for: only the final barrier.cluster keeps rank 1 alive.
  std::string toRank1 = "  @%p9 bra $released;\n"
                        "  setp.ne.u32 %p1, %r9, 0;\n"
                        "  @%p1 bra $released;\n"
                        "  add.s32 %r40, %r8, 8;\n"
                        "  mapa.shared::cluster.u32 %r41, %r40, 1;\n"
                        "  mbarrier.arrive.release.cluster.shared::cluster."
                        "b64 _, [%r41];\n"
                        "$released:\n";
  EXPECT_EQ(with(multicastKernel(toRank1)), "");
  EXPECT_ERROR(with(multicastKernel(toRank1, "")),
               "block (1,0,0) (cluster rank 1) exits while block (0,0,0) "
               "(cluster rank 0) thread 0 line 60 "
               "'mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
               "[%r41]' may still access its shared memory: no "
               "barrier.cluster or mbarrier wait of this CTA orders that "
               "before its exit (a barrier.cluster before exit is missing)");
  // Each releases the other's slot: rank 1's arrive finds rank 0 gone.
  std::string toPeer = replaced(toRank1, "  setp.ne.u32 %p1, %r9, 0;\n"
                                         "  @%p1 bra $released;\n"
                                         "  add.s32 %r40, %r8, 8;\n"
                                         "  mapa.shared::cluster.u32 %r41, "
                                         "%r40, 1;\n",
                                "  add.s32 %r40, %r8, 8;\n"
                                "  xor.b32 %r42, %r9, 1;\n"
                                "  mapa.shared::cluster.u32 %r41, %r40, "
                                "%r42;\n");
  EXPECT_EQ(with(multicastKernel(toPeer)), "");
  EXPECT_ERROR(with(multicastKernel(toPeer, "")),
               "block (1,0,0) (cluster rank 1) thread 0 line 59 "
               "'mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
               "[%r41]': mbarrier.arrive into CTA rank 0 of the cluster, "
               "which has exited: a barrier.cluster before exit is missing");
  // Without the first barrier.cluster, rank 0's load signals rank 1's
  // mbarrier before rank 1 made it.
  std::string noSync = replaced(multicastKernel(),
                                "  barrier.cluster.arrive.relaxed.aligned;\n"
                                "  barrier.cluster.wait.aligned;\n",
                                "");
  EXPECT_ERROR(with(noSync),
               "block (0,0,0) (cluster rank 0) thread 0 line 28 "
               "'cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes.multicast::cluster [%r31], [%rd21, {0, "
               "%r32}], [%r8], %rs1': a TMA load's complete_tx on shared 1024 "
               "of cluster rank 1, where no mbarrier.init made an mbarrier "
               "object");
  // fence.mbarrier_init after the relaxed arrival: it publishes no init to
  // the peer's async proxy (the CTA's own TMA sees it).
  std::string lateFence =
      replaced(multicastKernel(),
               "  fence.mbarrier_init.release.cluster;\n$inited:\n"
               "  barrier.cluster.arrive.relaxed.aligned;\n",
               "$inited:\n  barrier.cluster.arrive.relaxed.aligned;\n"
               "  fence.mbarrier_init.release.cluster;\n");
  EXPECT_ERROR(with(lateFence),
               "a TMA load signals the mbarrier at shared 1024 of cluster "
               "rank 1, whose mbarrier.init (line 15, thread 0) no "
               "barrier.cluster that this thread waited for made visible to "
               "the async proxy (after a fence.mbarrier_init)");
  // Rank 1 reads rank 0's half before waiting for it.
  std::string early =
      replaced(multicastKernel(), "$issued:\n",
               "$issued:\n"
               "  setp.eq.u32 %p5, %r9, 1;\n"
               "  @%p5 ld.shared.b32 %r50, [smem+1024];\n");
  EXPECT_ERROR(with(early),
               "line 33 '@%p5 ld.shared.b32 %r50, [smem+1024]': reads shared "
               "byte 2048 while the TMA load of line 30 (issued "
               "by cluster rank 0) may still be writing it");
  // Masks outside the cluster, or none.
  for (const char *mask : {"4", "0"})
    EXPECT_ERROR(with(replaced(multicastKernel(), "mov.u16 %rs1, 3",
                               std::string("mov.u16 %rs1, ") + mask)),
                 "of a multicast names no CTA or one outside the cluster of 2");
  // Without .multicast::cluster, a load may go to another CTA (a
  // shared::cluster address, the mbarrier in that CTA): each CTA sends its
  // rows to itself and to its peer.
  const std::string multicast =
      "  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
      "complete_tx::bytes.multicast::cluster [%r31], [%rd21, {0, %r32}], "
      "[%r8], %rs1;\n";
  const std::string unicast =
      "  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
      "complete_tx::bytes [%r31], [%rd21, {0, %r32}], [%r8];\n"
      "  xor.b32 %r42, %r9, 1;\n"
      "  mapa.shared::cluster.u32 %r43, %r31, %r42;\n"
      "  mapa.shared::cluster.u32 %r44, %r8, %r42;\n"
      "  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
      "complete_tx::bytes [%r43], [%rd21, {0, %r32}], [%r44];\n";
  EXPECT_EQ(with(replaced(multicastKernel(), multicast, unicast)), "");
  for (unsigned b = 0; b < 2; ++b)
    for (unsigned i = 0; i < 16 * 64; ++i)
      ASSERT_EQ(mem.at<uint16_t>(4096 * b + 2 * i),
                mem.at<uint16_t>(kTensor + 2 * i))
          << "block " << b << " element " << i;
  EXPECT_ERROR(
      with(replaced(multicastKernel(), multicast,
                    replaced(unicast, "[%r44]", "[%r8]"))),
      "the TMA load's mbarrier is in cluster rank 0, its destination in rank "
      "1: they must be in one CTA");
}

// A multicast into bytes that a destination's bulk tensor store may still
// read: rank 1 stores the first box of its tile and arrives at the
// cluster's barrier without waiting for the store; rank 0 multicasts after
// the barrier.
TEST(Cluster, MulticastChecksEachDestination) {
  Memory mem(kTensor + 16 * 128);
  ptxsim::TensorMap m = tileMap(mem, 0);
  Kernel k;
  k.map = &m;
  k.body = "  @%p9 bra $inited;\n"
           "  mbarrier.init.shared::cta.b64 [smem], 1;\n"
           "  fence.mbarrier_init.release.cluster;\n"
           "$inited:\n"
           "  mov.b64 %rd20, map;\n"
           "  cvta.param.u64 %rd21, %rd20;\n"
           "  setp.ne.u32 %p1, %r9, 1;\n"
           "  @%p1 bra $stored;\n"
           "  shl.b32 %r3, %r1, 3;\n"
           "  add.s32 %r4, %r8, %r3;\n"
           "  st.shared.v2.b32 [%r4+1024], {%r1, %r1};\n"
           "  fence.proxy.async.shared::cta;\n"
           "  bar.sync 0;\n"
           "  @%p9 bra $stored;\n"
           "  add.s32 %r5, %r8, 1024;\n"
           "  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group "
           "[%rd21, {0, 0}], [%r5];\n"
           "  cp.async.bulk.commit_group;\n"
           "$stored:\n" +
           std::string(kClusterSync) +
           "  setp.ne.u32 %p1, %r9, 0;\n"
           "  or.pred %p1, %p1, %p9;\n"
           "  @%p1 bra $end;\n"
           "  add.s32 %r31, %r8, 1024;\n"
           "  mov.u16 %rs1, 3;\n"
           "  mbarrier.arrive.expect_tx.shared::cta.b64 _, [smem], 1024;\n"
           "  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
           "complete_tx::bytes.multicast::cluster [%r31], [%rd21, {0, 0}], "
           "[%r8], %rs1;\n"
           "$end:\n"
           "  cp.async.bulk.wait_group 0;";
  EXPECT_ERROR(run(k, mem),
               "block (0,0,0) (cluster rank 0) thread 0 line 40 "
               "'cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes.multicast::cluster [%r31], [%rd21, {0, 0}], "
               "[%r8], %rs1': TMA load into shared byte 2048 of cluster rank 1 "
               "that the cp.async.bulk tensor store of line 29 may still be "
               "reading");
}

// --- deadlocks ---------------------------------------------------------------

// Rank 1's consumer waits on its `empty` for arrivals that rank 0 never
// makes; everyone else waits at the final barrier.cluster.
TEST(Cluster, DeadlockAcrossTheCluster) {
  Memory mem(256);
  Kernel k;
  k.body = "  @%p9 bra $inited;\n"
           "  mbarrier.init.shared::cta.b64 [smem+8], 2;\n"
           "  fence.mbarrier_init.release.cluster;\n"
           "$inited:\n" +
           std::string(kClusterSync) +
           "  setp.ne.u32 %p1, %r9, 1;\n"
           "  or.pred %p1, %p1, %p9;\n"
           "  @%p1 bra $done;\n"
           "$wait:\n"
           "  mbarrier.try_wait.parity.shared::cta.b64 %p2, [smem+8], 0;\n"
           "  @!%p2 bra $wait;\n"
           "$done:\n" +
           kClusterSync;
  EXPECT_ERROR(
      run(k, mem),
      "ptxsim: k: cluster (0,0,0) of 2 blocks: deadlock: every live thread "
      "of the cluster waits; block (0,0,0) (cluster rank 0): 0 on "
      "mbarriers, 128 at barriers, 0 at collectives; 0 exited; block "
      "(0,0,0) (cluster rank 0) thread 0 line 28 "
      "'barrier.cluster.wait.aligned' waits at barrier.cluster for phase 1; "
      "block (1,0,0) (cluster rank 1) thread 0 has not arrived at it; block "
      "(1,0,0) (cluster rank 1): 1 on mbarriers, 127 at barriers, 0 at "
      "collectives; 0 exited; block (1,0,0) (cluster rank 1) thread 0 line "
      "24 'mbarrier.try_wait.parity.shared::cta.b64 %p2, [smem+8], 0' waits "
      "on the mbarrier at shared 1032 for the phase of parity 0 to complete "
      "(it is in phase 0 with 2 of 2 arrivals pending, transaction count "
      "0)");
}

} // namespace
