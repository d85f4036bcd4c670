//===- Cluster.cpp - the PTX simulator's thread-block clusters ------------===//
//
// Runs the blocks of a cluster together (Cluster.h) and what reaches
// across it: barrier.cluster, mapa, and the checks of an access of another
// CTA's shared memory (mbarrier.arrive and ld/st through shared::cluster
// addresses here and in Block.cpp, multicast TMA loads in Sm90.cpp):
// - the target CTA must not have exited, and everything that reaches it
//   must be ordered before its exit, by a barrier.cluster phase that it
//   waited for and the source arrived at after the access, or by its wait
//   on the mbarrier phase that the access (or a later arrive from the same
//   CTA, a release) counted in; what is not is reported when it exits;
// - an mbarrier of another CTA must have been initialized there before a
//   barrier.cluster phase that the user waited for, behind a
//   fence.mbarrier_init (or, for a generic-proxy arrive, a .release
//   arrival) of that CTA.
//
//===----------------------------------------------------------------------===//

#include "Cluster.h"

#include <algorithm>
#include <set>

namespace ptxsim::detail {

Cluster::Cluster(const Program &p, const Launch &l, const GlobalCheck &valid,
                 const unsigned first[3], std::set<int> &noted) {
  for (int i = 0; i < 3; ++i) {
    dims[i] = p.cluster[i];
    id[i] = first[i] / dims[i];
  }
  unsigned n = dims[0] * dims[1] * dims[2];
  for (unsigned r = 0; r < n; ++r) {
    unsigned x = r % dims[0], y = r / dims[0] % dims[1],
             z = r / (dims[0] * dims[1]);
    blocks.push_back(std::make_unique<Block>(p, l, valid, first[0] + x,
                                             first[1] + y, first[2] + z,
                                             noted, *this, r));
  }
}

void Cluster::run() {
  uint64_t probed = ~uint64_t(0);
  while (true) {
    bool progress = false;
    for (auto &b : blocks)
      if (!b->finished)
        progress |= b->round();
    progress |= barrier();
    bool done = true;
    for (auto &b : blocks) {
      if (!b->finished && b->exitedThreads == b->threads.size())
        b->finish();
      done &= b->finished;
    }
    if (progress)
      continue;
    if (done)
      return;
    Block *oldest = nullptr;
    for (auto &b : blocks)
      if (!b->loads.empty() &&
          (!oldest || b->loads.front().seq < oldest->loads.front().seq))
        oldest = b.get();
    if (oldest) {
      oldest->deliverLoad();
      continue;
    }
    // A thread whose try_wait returned false may do other work before it
    // tries again: let the sleepers run once more; if nothing changed
    // since they last did, the cluster is stuck.
    bool sleeping = false;
    for (auto &b : blocks)
      for (Thread &t : b->threads)
        sleeping |= t.st == State::Sleep;
    if (sleeping && events != probed) {
      probed = events;
      for (auto &b : blocks)
        for (Thread &t : b->threads)
          if (t.st == State::Sleep)
            t.st = State::Run;
      continue;
    }
    deadlock();
  }
}

bool Cluster::barrier() {
  if (!arrivals)
    return false;
  for (auto &b : blocks)
    for (const Thread &t : b->threads)
      if (t.st != State::Exit && t.clusterArrived <= barrierPhase)
        return false;
  ++barrierPhase;
  arrivals = 0;
  ++events;
  for (auto &b : blocks) {
    ++b->epoch;
    bool released = false;
    for (Thread &t : b->threads)
      if (t.st == State::ClusterBar) {
        t.st = State::Run;
        t.pc++;
        t.clusterWaited = t.clusterArrived;
        released = true;
      }
    if (released)
      b->orderRemoteOps(~uint64_t(0), 0, barrierPhase);
  }
  return true;
}

void Cluster::deadlock() const {
  if (blocks.size() == 1)
    blocks[0]->deadlock();
  std::string msg = "cluster (" + std::to_string(id[0]) + "," +
                    std::to_string(id[1]) + "," + std::to_string(id[2]) +
                    ") of " + std::to_string(blocks.size()) +
                    " blocks: deadlock: every live thread of the cluster "
                    "waits";
  for (const auto &b : blocks)
    if (!b->finished) {
      std::string counts, details;
      b->waits(counts, details);
      msg += "; " + b->blockName() + ": " + counts + details;
    }
  fail(msg);
}

// --- Block: what reaches across the cluster ----------------------------------

Block &Block::peer(unsigned r) const { return *cluster.blocks[r]; }

int16_t Block::id(const Thread &t) const {
  if (t.rank == rank)
    return int16_t(t.tid);
  return int16_t((t.rank + 1) * threads.size() + t.tid);
}

const Thread &Block::byId(int16_t id) const {
  size_t n = threads.size(), i = size_t(id);
  return i < n ? threads[i] : peer(unsigned(i / n - 1)).threads[i % n];
}

std::string Block::threadName(int16_t id, const Thread &viewer) const {
  size_t n = threads.size(), i = size_t(id);
  if (id < 0)
    return "thread " + std::to_string(id);
  unsigned r = i < n ? rank : unsigned(i / n - 1);
  return "thread " + std::to_string(i % n) +
         (r == viewer.rank ? "" : " of cluster rank " + std::to_string(r));
}

std::string Block::of(const Thread &t) const {
  return t.rank == rank ? "" : " of cluster rank " + std::to_string(rank);
}

Block &Block::sharedOwner(const Thread &t, uint64_t &a, bool clusterSpace) {
  if (a < kClusterShared || !clusterSpace)
    return *this;
  uint64_t r = (a >> kClusterRankShift) - 1;
  if (r >= cluster.blocks.size())
    fail(where(t) + ": the shared::cluster address 0x" + hex(a) +
         " is in no CTA of the cluster of " +
         std::to_string(cluster.blocks.size()));
  a &= kClusterShared - 1;
  return peer(unsigned(r));
}

void Block::checkAlive(const Thread &t, const char *what) const {
  if (exitedThreads == threads.size())
    fail(where(t) + ": " + what + " into CTA rank " + std::to_string(rank) +
         " of the cluster, which has exited: a barrier.cluster before exit "
         "is missing");
}

void Block::noteRemote(const Thread &t, RemoteOp op) {
  op.source = id(t);
  op.pc = t.pc;
  op.arrivals = t.clusterArrived;
  if (!op.arrive && !op.tma)
    for (size_t i = remoteOps.size(); i-- > 0;) {
      const RemoteOp &prev = remoteOps[i];
      if (prev.source != op.source)
        continue;
      if (!prev.arrive && !prev.tma && prev.arrivals == op.arrivals)
        remoteOps.erase(remoteOps.begin() + long(i));
      break;
    }
  remoteOps.push_back(op);
}

void Block::orderRemoteOps(uint64_t mbar, uint64_t phase,
                           uint64_t clusterPhase) {
  // Latest first, so that an ordered arrive or access orders the earlier
  // accesses and arrives of its block on the way: a release by one thread
  // publishes what the threads it synchronized with did (all of its block,
  // optimistically: the stores of a CTA's threads, a bar.sync, one
  // thread's remote arrive).
  std::set<size_t> released;
  size_t n = threads.size();
  for (size_t i = remoteOps.size(); i-- > 0;) {
    const RemoteOp &op = remoteOps[i];
    size_t source = size_t(op.source) / n;
    bool ordered = (op.arrive || op.tma) && op.mbar == mbar &&
                   op.phase < phase;
    if (!op.tma)
      ordered |= op.arrivals < clusterPhase || released.count(source);
    if (!ordered)
      continue;
    if (!op.tma)
      released.insert(source);
    remoteOps.erase(remoteOps.begin() + long(i));
  }
}

void Block::checkPeerInit(const Thread &t, Mbarrier &m, uint64_t a,
                          bool asyncProxy, const char *what) {
  // The phase that t waited for last; a later one publishes what an
  // earlier one did (Thread::clusterRelease keeps running maxima).
  uint64_t waited = t.clusterWaited;
  int64_t &known = m.clusterVisible[asyncProxy];
  if (known >= 0 && uint64_t(known) < waited)
    return;
  if (waited)
    for (const Thread &u : threads)
      if (u.clusterRelease.size() >= waited) {
        auto [releasedWrites, fenced] = u.clusterRelease[waited - 1];
        if (fenced >= m.initWrite ||
            (!asyncProxy && releasedWrites >= m.initWrite)) {
          known = int64_t(waited - 1);
          return;
        }
      }
  fail(where(t) + ": " + what + " signals the mbarrier at shared " +
       std::to_string(a) + of(t) + ", whose mbarrier.init (line " +
       std::to_string(m.line) + ", thread " + std::to_string(m.initThread) +
       ") no barrier.cluster that this thread waited for made visible to " +
       (asyncProxy ? "the async proxy (after a fence.mbarrier_init)"
                   : "the cluster (after a fence.mbarrier_init or with "
                     "barrier.cluster.arrive.release)"));
}

void Block::mapa(Thread &t, const Inst &in) {
  const auto &o = in.ops;
  if (o.size() != 3 || (in.ty != T_U32 && in.ty != T_U64 &&
                        in.ty != T_B32 && in.ty != T_B64))
    fail(where(t) + ": mapa takes .u32 or .u64 d, a, rank");
  uint64_t a = get(t, o[1], in.ty);
  uint64_t r = get(t, o[2], T_U32) & 0xffffffff;
  size_t n = cluster.blocks.size();
  if (r >= n)
    fail(where(t) + ": mapa to CTA rank " + std::to_string(r) +
         " of a cluster of " + std::to_string(n));
  bool generic = in.space == S_GENERIC;
  if (generic) {
    if (a < kSharedWindow || a >= kLocalWindow)
      fail(where(t) + ": mapa of the generic address 0x" + hex(a) +
           ", which is not in shared memory");
    a -= kSharedWindow;
  }
  sharedOwner(t, a, /*clusterSpace=*/true); // to its shared::cta offset
  uint64_t d = ((r + 1) << kClusterRankShift) + a;
  set(t, o[0], generic ? kSharedWindow + d : d, in.ty);
}

void Block::clusterArrive(Thread &t, const Inst &in) {
  if (t.clusterArrived != t.clusterWaited)
    fail(where(t) + ": barrier.cluster.arrive before a barrier.cluster.wait "
                    "saw phase " +
         std::to_string(t.clusterWaited) +
         " complete (a thread arrives once a phase)");
  std::pair<uint32_t, uint32_t> r{in.relaxed ? 0 : genericWrites,
                                  t.mbarInitFence};
  if (!t.clusterRelease.empty()) {
    r.first = std::max(r.first, t.clusterRelease.back().first);
    r.second = std::max(r.second, t.clusterRelease.back().second);
  }
  t.clusterRelease.push_back(r);
  ++t.clusterArrived;
  ++cluster.arrivals;
  ++events;
}

bool Block::clusterWait(Thread &t) {
  if (t.clusterArrived == t.clusterWaited)
    fail(where(t) + ": barrier.cluster.wait with no barrier.cluster.arrive "
                    "before it");
  if (t.clusterArrived > cluster.barrierPhase)
    return false;
  t.clusterWaited = t.clusterArrived;
  orderRemoteOps(~uint64_t(0), 0, t.clusterWaited);
  return true;
}

} // namespace ptxsim::detail
