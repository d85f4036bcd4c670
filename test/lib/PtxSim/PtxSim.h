//===- PtxSim.h - a PTX interpreter for tests without a GPU -----*- C++ -*-===//
//
// Runs the kernels tilec emits (the PTX subset that LLVM's NVPTX back end
// and tilec's inline assembly produce, tensor-core and async-copy
// instructions included, and sm_90a's warp-specialized pipelines: wgmma,
// the Tensor Memory Accelerator, mbarriers, named barriers) on the CPU,
// thread by thread, so that the GPU test programs can check the compiler's
// real output where there is no GPU. "Device" memory is host memory (the
// fake driver's).
//
// It checks what would make a real run wrong or flaky: global accesses
// outside the allocations, shared memory accesses past the launch's size,
// reads of shared memory nothing wrote, shared-memory races between
// barriers (read/write by different threads in one barrier interval, as
// compute-sanitizer's racecheck), reads of bytes a cp.async or a TMA load
// may still be writing, writes of bytes an in-flight wgmma or bulk store
// may still be reading, wgmma accumulators accessed before the
// wgmma.wait_group that retires them, generic-proxy writes read by the
// async proxy without fence.proxy.async, warps whose lanes disagree on a
// collective instruction, barriers that not every thread reaches and
// deadlocks on mbarriers (named with their phase). Threads run one after
// another between synchronization points, so a race shows as a report,
// never as a lucky result.
//
// Thread-block clusters (sm_90): a kernel with `.reqnctapercluster X, Y, Z`
// runs in clusters of that shape, one cluster after another, the blocks of
// a cluster together (their threads interleaved as a block's are, so a
// deadlock is one of the whole cluster, named with each block's waits);
// ranks go x fastest and the cluster at %clusterid holds the blocks
// %clusterid * %cluster_nctaid + %cluster_ctaid, as CUDA places them. A grid
// that is not a whole number of clusters fails as the driver's launch does
// (CUDA_ERROR_INVALID_CLUSTER_SIZE); a kernel without the directive runs in
// clusters of one block. Modelled: the cluster special registers,
// barrier.cluster.arrive{.release,.relaxed}/.wait (exited threads do not
// hold it up, as the ISA says), mapa (shared::cluster and generic), shared
// memory of another block through shared::cluster addresses (rank r's at
// (r + 1) * 2^24 + its shared::cta address; a shared::cta address names
// the executing block's) in ld/st/atom.shared::cluster, generic ld/st and
// mbarrier.arrive, and TMA loads into another block or
// .multicast::cluster into every block of ctaMask (each destination checked
// and signalled at the same offsets). Checked: an access of a block that
// has exited, or one that nothing (a barrier.cluster phase, or the target's
// wait on the mbarrier phase it completed) orders before the target block
// exits; an mbarrier of another block used before a barrier.cluster phase
// published its mbarrier.init (behind fence.mbarrier_init for a TMA's
// complete_tx); races between the blocks' accesses of one block's memory.
//
// What it does not model is an error naming the instruction and its PTX
// line: an instruction, a type or a modifier that would change the result
// (a silent 0 or an ignored .sat would read as a compiler bug).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_PTXSIM_H
#define TILEC_TEST_PTXSIM_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ptxsim {

struct Launch {
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned dynamicShared = 0;
  std::vector<std::vector<unsigned char>> params;
  /// When set, a register that an ordinary instruction accessed after the
  /// warpgroup's last wgmma.fence and that a wgmma.mma_async then uses is
  /// reported here (once per wgmma instruction and block) instead of
  /// failing the run: ptxas repairs such PTX by injecting a fence, so the
  /// results stay checkable while the lowering is being fixed.
  std::function<void(const std::string &)> fenceNote;
};

/// True when [addr, addr + bytes) lies inside device memory.
using GlobalCheck = std::function<bool(uint64_t addr, uint64_t bytes)>;

/// Runs `kernel` of the PTX module `ptx`. Returns "" on success, else what
/// went wrong (with the PTX line, block and thread).
std::string run(const std::string &ptx, const std::string &kernel,
                const Launch &launch, const GlobalCheck &valid);

} // namespace ptxsim

#endif // TILEC_TEST_PTXSIM_H
