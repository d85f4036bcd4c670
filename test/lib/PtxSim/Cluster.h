//===- Cluster.h - the PTX simulator's thread-block cluster -----*- C++ -*-===//
//
// The blocks of one cluster (the kernel's .reqnctapercluster; one block
// without it) run together: each round runs every block's runnable threads
// (Block.h), then the cluster barrier; only when no thread of the cluster
// can run does the oldest TMA load land, and a deadlock is one of the whole
// cluster. Blocks are ranked x fastest, as CUDA ranks them: the cluster at
// clusterIdx holds the blocks clusterIdx * clusterDim + cluster_ctaid. What
// the blocks share lives here: the barrier.cluster phase, the counts of
// events and generic writes, the TMA loads' order of issue. Internal to
// test/lib/PtxSim.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_PTXSIM_CLUSTER_H
#define TILEC_TEST_PTXSIM_CLUSTER_H

#include "Block.h"

#include <memory>
#include <vector>

namespace ptxsim::detail {

class Cluster {
public:
  /// The cluster whose first block is at blockIdx `first`.
  Cluster(const Program &p, const Launch &l, const GlobalCheck &valid,
          const unsigned first[3], std::set<int> &noted);

  /// Runs every block to its end.
  void run();

  std::vector<std::unique_ptr<Block>> blocks; ///< by rank
  unsigned dims[3];
  unsigned id[3]; ///< %clusterid
  uint64_t events = 0;
  uint32_t genericWrites = 0;
  uint64_t loadSeq = 0;
  /// barrier.cluster phases completed (the barrier's current phase), and
  /// the arrivals at the current one.
  uint64_t barrierPhase = 0, arrivals = 0;

private:
  /// Completes the barrier.cluster phase once every thread that has not
  /// exited arrived at it (the ISA: exited threads do not hold it up) and
  /// releases its waiters: a new interval of every block's race checks.
  bool barrier();

  /// No thread of the cluster can go on: what each block's threads wait for.
  [[noreturn]] void deadlock() const;
};

} // namespace ptxsim::detail

#endif // TILEC_TEST_PTXSIM_CLUSTER_H
