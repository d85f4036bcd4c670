//===- Block.h - the PTX simulator's interpreter of a block -----*- C++ -*-===//
//
// Execution: one cluster of blocks at a time (Cluster.h; a kernel without
// .reqnctapercluster runs in clusters of one block); each block's threads
// run one after another until each reaches a barrier, a warp-collective
// instruction (shfl, mma, ldmatrix), a warpgroup instruction (wgmma.*,
// setmaxnreg), an mbarrier try_wait that returned false, a
// barrier.cluster.wait, or the end; a collective runs when all lanes of the
// warp (all 128 threads of the warpgroup) wait at the same one, a barrier
// when its thread count arrived (`bar.sync id, count`, or the whole block),
// a sleeper wakes when its mbarrier's phase completes. Only when no thread
// of the cluster can run does the oldest TMA load land (its bytes, then
// complete_tx on its mbarrier), so that a thread reading a copy's
// destination without waiting runs first and is reported. Registers hold
// raw bits (64 per register); floating-point arithmetic is done in
// float/double with PTX's rounding where it matters (f16/bf16 round to
// nearest even). Shared addresses start at 1024, as on the GPU, whose
// driver reserves the first KiB. Shared memory keeps, per byte, who wrote
// and read it in which barrier interval, to report races (a barrier, a
// barrier.cluster or a completed mbarrier phase starts a new interval for
// every thread: exact for the threads that took part, optimistic for the
// others); the threads of other blocks of the cluster that access it
// through shared::cluster addresses included.
//
// Block.cpp has the scheduling, memory and scalar semantics and the warp
// collectives; Sm90.cpp the sm_90a instructions; Cluster.cpp runs the
// blocks of a cluster together and the instructions that reach across it.
// Internal to test/lib/PtxSim.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_PTXSIM_BLOCK_H
#define TILEC_TEST_PTXSIM_BLOCK_H

#include "Hopper.h"
#include "Program.h"
#include "PtxSim.h"
#include "TensorMap.h"

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ptxsim::detail {

// Generic addresses: the shared, local and kernel-parameter windows (a
// parameter's .param address is its index * 2^32 + the byte offset).
constexpr uint64_t kSharedWindow = uint64_t(1) << 60;
constexpr uint64_t kLocalWindow = uint64_t(1) << 61;
constexpr uint64_t kParamWindow = uint64_t(1) << 62;
/// shared::cluster addresses: CTA rank r's shared memory at (r + 1) * 2^24
/// + its shared::cta address (what mapa gives). An address below 2^24 is a
/// shared::cta address, which names the executing CTA's memory where a
/// shared::cluster one is expected (the ISA's shared::cta window lies
/// inside the shared::cluster window). A generic shared address is
/// kSharedWindow + either.
constexpr uint64_t kClusterRankShift = 24;
constexpr uint64_t kClusterShared = uint64_t(1) << kClusterRankShift;

class Cluster;

/// Run: runs; Bar: at a barrier; Coll: at a warp collective; WgColl: at a
/// warpgroup collective (wgmma, setmaxnreg); Sleep: its mbarrier.try_wait
/// returned false and it waits for the mbarrier's phase to complete;
/// ClusterBar: at a barrier.cluster.wait.
enum class State : uint8_t { Run, Bar, Coll, WgColl, Sleep, Exit, ClusterBar };

struct Thread {
  int pc = 0;
  State st = State::Run;
  unsigned tid = 0, x = 0, y = 0, z = 0;
  unsigned rank = 0; ///< its block's rank in the cluster
  std::vector<uint64_t> r;
  std::vector<uint8_t> local;
  bool carry = false;
  /// cp.async copies: each group is a list of (shared offset, bytes).
  struct Copy {
    uint64_t dst;
    std::vector<uint8_t> data;
  };
  std::vector<Copy> open;
  std::vector<std::vector<Copy>> groups;

  /// Instructions executed (the clock of the ordering rules below).
  uint64_t seq = 0;
  /// At a barrier: its id and thread count (0: the whole block).
  unsigned barId = 0, barCount = 0;
  /// Asleep after a false try_wait: the mbarrier, the phase it was in and
  /// the parity waited for (-1: a wait on an arrive's state).
  uint64_t sleepMbar = 0, sleepPhase = 0;
  int sleepParity = -1;
  /// wgmma.fence: when the last one ran (wgFenced: one ran).
  uint64_t wgFenceSeq = 0;
  bool wgFenced = false;
  /// Per register that some wgmma.mma_async uses: when an ordinary
  /// instruction last accessed it, and how many in-flight wgmma ops use it.
  mutable std::vector<uint64_t> regAccess;
  mutable std::vector<int> regAccessPc; ///< the instruction of that access
  int wgFencePc = -1;
  std::vector<uint16_t> inflightUse;
  /// The block's generic-write count at this thread's last
  /// fence.proxy.async and fence.mbarrier_init.
  uint64_t proxyFence = 0, mbarInitFence = 0;
  /// cp.async.bulk tensor stores (indices into Block::stores): not yet
  /// committed, and the committed bulk async-groups, oldest first.
  std::vector<size_t> bulkOpen;
  std::deque<std::vector<size_t>> bulkGroups;
  /// barrier.cluster: its arrivals and the waits that returned; per
  /// arrival, the cluster's generic-write count that it released (0 for
  /// .relaxed) and this thread's last fence.mbarrier_init before it, each
  /// the largest so far (a later phase orders what an earlier one did).
  uint64_t clusterArrived = 0, clusterWaited = 0;
  std::vector<std::pair<uint32_t, uint32_t>> clusterRelease;
};
class Block {
public:
  /// Block `rank` of `cluster`, at blockIdx (bx, by, bz).
  Block(const Program &p, const Launch &l, const GlobalCheck &valid,
        unsigned bx, unsigned by, unsigned bz, std::set<int> &noted,
        Cluster &cluster, unsigned rank);

private:
  friend class Cluster;
  const Program &p;
  const Launch &l;
  const GlobalCheck &valid;
  unsigned ctaid[3];
  Cluster &cluster;
  unsigned rank; ///< in the cluster, x fastest
  /// Threads that exited; all of them: the block has exited (its shared
  /// memory may be gone), checked once (`finished`).
  size_t exitedThreads = 0;
  bool finished = false;
  std::vector<Thread> threads;
  std::vector<uint8_t> smem, written;
  std::vector<int16_t> writer, reader;
  std::vector<int32_t> writeEpoch, readEpoch;
  std::vector<uint16_t> inflight;
  uint64_t dynBase = 0, smemSize = 0;
  int32_t epoch = 0;
  /// The thread whose instruction runs, for errors deep in its semantics.
  const Thread *current = nullptr;

  // sm_90a. Shared memory, per byte: the block's generic-write count when
  // a thread last wrote it through the generic proxy (0: nothing did since
  // an asynchronous write), the asynchronous reads in flight (wgmma, bulk
  // tensor stores) and whether an mbarrier object holds it.
  std::vector<uint32_t> genWrite;
  std::vector<uint16_t> asyncReaders;
  std::vector<uint8_t> mbarByte;
  /// The cluster's count of generic shared-memory writes (Cluster).
  uint32_t &genericWrites;
  /// The cluster's count of what another thread may wait for (mbarrier
  /// operations, barriers, collectives, stores, landed copies, exits):
  /// sleepers that run and change none of it are deadlocked.
  uint64_t &events;

  struct Mbarrier {
    hopper::MBarrier b;
    unsigned initThread = 0;
    uint32_t initWrite = 0; ///< genericWrites when it was initialized
    int line = 0;           ///< of its mbarrier.init
    /// A barrier.cluster phase known to publish the init to the cluster's
    /// generic proxy [0] and async proxy [1] (-1: none yet): a thread that
    /// waited for it (or a later one) sees the object.
    int64_t clusterVisible[2] = {-1, -1};
  };
  std::map<uint64_t, Mbarrier> mbars; ///< live ones, by shared address

  /// A wgmma.mma_async in flight: its instruction, its operands' scales and
  /// the shared-memory addresses of its elements (A: 64 x 16 when it comes
  /// from shared memory, B: 16 x N, both row-major).
  struct WgmmaOp {
    int pc = 0;
    bool scaleD = true;
    double scaleA = 1, scaleB = 1;
    std::vector<uint64_t> aAddr, bAddr;
  };
  struct Warpgroup {
    std::vector<WgmmaOp> open;               ///< not yet committed
    std::deque<std::vector<WgmmaOp>> groups; ///< committed, oldest first
  };
  std::vector<Warpgroup> warpgroups;

  /// A bulk tensor copy: its instruction and thread, the tensor map, the
  /// box's origin, its shared-memory side and (a load) its mbarrier.
  struct TensorCopy {
    int pc = 0;
    unsigned thread = 0;
    TensorMap map;
    int64_t coords[5] = {};
    uint64_t smem = 0, bytes = 0, mbar = 0;
    /// A store that adds to global memory (cp.reduce.async.bulk.tensor
    /// .add) instead of writing it.
    bool add = false;
    /// A load: the rank of the block that issued it (the block whose
    /// `loads` hold it is its destination, one of several when it
    /// multicasts) and its place in the cluster's order of issue.
    unsigned source = 0;
    uint64_t seq = 0;
  };
  /// wgmma instructions whose wgmma.fence breach was noted (Launch), over
  /// the whole launch.
  std::set<int> &noted;
  std::deque<TensorCopy> loads;   ///< in flight, oldest first
  std::vector<TensorCopy> stores; ///< every store issued; threads index it

  /// An access of this block's shared memory by a thread of another block
  /// of the cluster (mbarrier.arrive, a TMA load's landing, ld/st.shared::
  /// cluster), not yet ordered before this block's exit; checked when it
  /// exits.
  struct RemoteOp {
    int16_t source = 0; ///< the thread (id())
    int pc = 0;
    bool tma = false;   ///< a TMA load that landed (issued by `source`)
    bool arrive = false;
    uint64_t mbar = 0, phase = 0; ///< the mbarrier phase it counted in
    /// The source's barrier.cluster arrivals before it: a barrier.cluster
    /// phase it precedes (TMA loads land when they do: ~0).
    uint64_t arrivals = 0;
  };
  std::vector<RemoteOp> remoteOps; ///< in the order they happened

  std::string blockName() const;

  /// The thread and the instruction at `pc` (its current one by default).
  /// The thread may be another block's.
  std::string where(const Thread &t, int pc = -1) const;

  /// The cluster's blocks by rank, and a thread's own block.
  Block &peer(unsigned r) const;
  const Block &home(const Thread &t) const { return peer(t.rank); }
  /// The name of a thread in this block's shared-memory records: its tid
  /// for one of this block's threads, (rank + 1) * threads + tid for one of
  /// another block of the cluster.
  int16_t id(const Thread &t) const;
  const Thread &byId(int16_t id) const;
  /// "thread tid", with " of cluster rank r" where it is not in `viewer`'s
  /// block.
  std::string threadName(int16_t id, const Thread &viewer) const;
  /// " of cluster rank r" where this is not `t`'s block, else "".
  std::string of(const Thread &t) const;

  /// An instruction's text for a message: a wgmma's 128 registers cut.
  static std::string brief(const std::string &text);

  // --- scheduling -------------------------------------------------------

  /// One round: runs every runnable thread until it blocks, then completes
  /// what can complete: warp and warpgroup collectives whose threads all
  /// arrived, barriers whose count arrived, sleepers whose mbarrier phase
  /// completed. Returns whether anything happened.
  bool round();

  void exitThread(Thread &t);

  /// Every thread exited: checks that nothing it started is left (bar.arrive
  /// arrivals, cp.async copies, bulk stores, wgmma, TMA loads into it) and
  /// that every access from another block of the cluster is ordered before
  /// the exit.
  void finish();

  /// Accesses by other blocks of the cluster that a thread of this block
  /// has now waited for: remote ops that counted in a phase of the
  /// mbarrier at `mbar` before `phase` (mbarrier.try_wait), or that
  /// preceded barrier.cluster phase `clusterPhase` (barrier.cluster.wait).
  /// An ordered arrive orders the earlier accesses of its block too.
  void orderRemoteOps(uint64_t mbar, uint64_t phase,
                      uint64_t clusterPhase = 0);

  /// `t` (another block's thread) reaches into this block by `what`: fails
  /// if this block has exited (nothing keeps an exited CTA's shared
  /// memory).
  void checkAlive(const Thread &t, const char *what) const;

  /// Notes `t`'s access of this block's memory (t another block's, at its
  /// current instruction) for the exit check. Of a run of plain accesses
  /// by one thread only the last is kept: what orders it orders the others.
  void noteRemote(const Thread &t, RemoteOp op);

  /// The block whose shared memory the shared address `a` names, `a` made
  /// its shared::cta address: a shared::cluster address (where
  /// `clusterSpace`) names any block of the cluster, a shared::cta one this
  /// block.
  Block &sharedOwner(const Thread &t, uint64_t &a, bool clusterSpace);

  /// The counts and the details of what this block's live threads wait
  /// for (deadlock()).
  void waits(std::string &counts, std::string &details) const;

  /// Runs the warp collectives (shfl, mma, ldmatrix) whose 32 lanes all
  /// wait at the same one.
  bool warpCollectives();

  /// Runs the warpgroup instructions (wgmma.*, setmaxnreg: .sync.aligned
  /// over the 4 warps 4g .. 4g + 3) whose 128 threads all wait at the same
  /// one. The ISA requires all of them to execute it; waiting for all is
  /// stricter than wgmma.wait_group's warp-level .sync, which is harmless
  /// where the four warps run the same code.
  bool warpgroupCollectives();

  /// Releases the barriers that their thread count reached: `bar.sync id`
  /// waits for the whole block, `bar.sync id, count` for `count` threads
  /// (the consumer warps of a warp-specialized kernel use one of those),
  /// threads that passed by `bar.arrive id, count` counting toward it
  /// (the two consumer warpgroups' turns: docs/pipeline.md, "ping-pong").
  /// Each release starts a new interval of the race checks, for every
  /// thread: exact for those that took part, optimistic for the others.
  bool barriers();
  /// Arrivals by `bar.arrive` on each barrier id not yet consumed by an
  /// instance of it, and the count they were made for.
  std::map<unsigned, std::pair<unsigned, unsigned>> barArrivals;

  /// Whether the phase a sleeping thread saw on its mbarrier completed (or
  /// the object went away, which its next try_wait reports).
  bool mbarChanged(const Thread &t) const;

  /// No thread can go on: names what each kind of waiter waits for, the
  /// mbarrier and its phase first.
  [[noreturn]] void deadlock() const;

  // --- clusters (Cluster.cpp) -------------------------------------------

  /// mapa{.shared::cluster}.u32/.u64 d, a, rank: the address of the same
  /// variable in CTA `rank`'s shared memory (generic or shared::cluster, as
  /// a).
  void mapa(Thread &t, const Inst &in);

  /// barrier.cluster.arrive: counts toward the cluster barrier's phase and
  /// goes on. barrier.cluster.wait: returns whether that phase completed
  /// (else the thread waits: State::ClusterBar).
  void clusterArrive(Thread &t, const Inst &in);
  bool clusterWait(Thread &t);

  /// Fails unless a barrier.cluster phase that `t` (of another block)
  /// waited for came after the mbarrier.init of `m` and, for a signal
  /// of the async proxy (a TMA load's complete_tx), after a
  /// fence.mbarrier_init.
  void checkPeerInit(const Thread &t, Mbarrier &m, uint64_t a,
                     bool asyncProxy, const char *what);

  // --- operands -------------------------------------------------------

  uint64_t special(const Thread &t, uint64_t which) const;

  uint64_t symbolValue(const Symbol &s) const;

  /// The operand's bits for an operation of type `ty`.
  uint64_t get(const Thread &t, const Operand &o, Ty ty) const;

  void set(Thread &t, const Operand &o, uint64_t v, Ty ty);

  /// An ordinary instruction accesses register `reg` that some
  /// wgmma.mma_async uses. While one in flight uses it, that is an error
  /// (the ISA: accessing the accumulator or A registers of a wgmma before
  /// the wgmma.wait_group that retires it is undefined); otherwise its time
  /// is kept for the next wgmma's wgmma.fence rule.
  void touch(const Thread &t, int reg) const;

  uint64_t address(const Thread &t, const Operand &o) const;

  // --- memory ---------------------------------------------------------

  void checkShared(const Thread &t, uint64_t a, uint64_t n) const;

  /// `mayBeUnwritten`: an element of a vector load, which LLVM widens over
  /// padding (e.g. 4-byte values in 8-byte slots); its value goes unused.
  /// A scalar load may cover unwritten bytes beside written ones: LLVM
  /// merges adjacent narrow loads (three i8 partials of a cross-warp
  /// reduction read as one b32 whose fourth byte no warp wrote) and drops
  /// the extra bits; a load of only unwritten bytes is an error.
  void sharedRead(const Thread &t, uint64_t a, void *dst, uint64_t n,
                  bool mayBeUnwritten = false);

  void sharedWrite(const Thread &t, uint64_t a, const void *src, uint64_t n,
                   bool async = false);

  /// What may still be writing shared byte `i` (inflight): a TMA load that
  /// covers it, else a cp.async.
  std::string inflightWriter(uint64_t i) const;

  /// What may still be reading shared byte `i` (asyncReaders): a wgmma in
  /// flight or a bulk tensor store not yet waited for.
  std::string asyncReader(uint64_t i) const;

  /// An access in `in`'s state space (.shared::cluster and generic
  /// addresses may reach another block's shared memory).
  void load(Thread &t, const Inst &in, uint64_t a, void *dst, uint64_t n,
            bool vectorElement = false);

  void store(Thread &t, const Inst &in, uint64_t a, const void *src,
             uint64_t n);

  static std::string hex(uint64_t v);

  uint64_t memAddress(const Thread &t, const Inst &in, const Operand &o);

  // --- scalar semantics -------------------------------------------------

  static float asF(uint64_t v) { return u2f(uint32_t(v)); }
  static uint64_t fromF(float f) { return f2u(f); }

  /// Fails at the current instruction: the simulator has no semantics for
  /// `ty` there (a silent 0 would look like a wrong compiler).
  [[noreturn]] void unsupportedType(Ty ty) const;

  /// Applies a binary float op to f32/f64/f16/bf16 (and x2) values.
  template <typename F>
  uint64_t floatBinary(Ty ty, uint64_t a, uint64_t b, bool flush, F f);

  double toD(Ty ty, uint64_t v) const;
  uint64_t fromD(Ty ty, double d) const;

  /// fma/mad of floats: f32 and f64 in the instruction's rounding mode,
  /// f16/bf16 (and x2) through double, rounded to nearest.
  uint64_t fusedMultiplyAdd(const Inst &in, uint64_t a, uint64_t b,
                            uint64_t c) const;

  static double roundInt(double d, const std::string &rnd);

  uint64_t convert(const Inst &in, uint64_t v);

  bool compare(const Inst &in, uint64_t a, uint64_t b);
  bool compare(const Inst &in, uint64_t a, uint64_t b, Ty ty);

  uint64_t intBinary(const Inst &in, uint64_t a, uint64_t b);

  // --- the interpreter ----------------------------------------------------

  void step(Thread &t);

  void execute(Thread &t, const Inst &in);

  // --- sm_90a: mbarriers ----------------------------------------------------

  /// The shared address of an mbarrier operand: .shared instructions take
  /// it as is, generic ones through the shared window; its block in
  /// `owner` (another block's only through a shared::cluster address).
  uint64_t mbarAddress(const Thread &t, const Inst &in, const Operand &o,
                       Block **owner = nullptr);

  /// This block's mbarrier at `a`, which `t` (of any block) uses.
  Mbarrier &liveMbar(const Thread &t, uint64_t a, const char *what);

  /// A completed phase orders the arrivals' earlier accesses before the
  /// waiters' later ones: a new interval of the race checks, as a barrier
  /// (optimistic for threads that took no part).
  void phaseDone(const Mbarrier &m, uint64_t phaseBefore);

  /// mbarrier.init, .arrive{.expect_tx}, .expect_tx, .inval.
  void mbarrier(Thread &t, const Inst &in);

  /// mbarrier.try_wait / test_wait{.parity} waitComplete, [addr], operand:
  /// writes whether the phase completed, which it returns.
  bool mbarWait(Thread &t, const Inst &in);

  // --- sm_90a: the Tensor Memory Accelerator --------------------------------

  /// The tensor map that a bulk tensor copy's [tensorMap, {...}] operand
  /// addresses: the generic address of a kernel parameter (cvta.param) or of
  /// 128 bytes of global memory, in the stand-in driver's encoding
  /// (TensorMap.h). Refuses what the copy below does not model.
  TensorMap tensorMapOperand(Thread &t, const Operand &o);

  /// The copy's box origin and shared-memory side; checks the operands.
  TensorCopy tensorCopy(Thread &t, const Inst &in, const Operand &map,
                        const Operand &smemOperand);

  /// Visits the box's elements in shared-memory order: `f(shared address,
  /// global address, in bounds)`. The box is dense in shared memory
  /// (dimension 0 innermost) and swizzled as the map says; elements outside
  /// the tensor have no global address.
  template <typename F> void forEachBoxElement(const TensorCopy &c, F f);

  /// cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::
  /// complete_tx::bytes{.multicast::cluster} [dst], [map, {c...}], [mbar]
  /// {, ctaMask}: queued in its destination block (each block of ctaMask
  /// for a multicast, at the same shared::cta offsets); it lands when no
  /// thread can run (deliverLoad). Its destination may be neither read nor
  /// written until then.
  void tmaLoad(Thread &t, const Inst &in);

  /// Queues the load `c`, issued by `t` (of any block), into this block.
  void queueLoad(const Thread &t, TensorCopy c);

  /// The oldest TMA load lands: the box's in-bounds elements from global
  /// memory, zeros elsewhere (the map's fill), then complete_tx of the
  /// box's bytes on its mbarrier.
  void deliverLoad();

  /// The checks of an asynchronous-proxy read of shared bytes [a, a + n)
  /// (wgmma, a bulk tensor store) when it is issued: written, landed, no
  /// generic write since the last barrier, and every generic write made
  /// visible to the async proxy by its writer's fence.proxy.async.
  void checkAsyncRead(const Thread &t, uint64_t a, uint64_t n,
                      const char *who, bool ownWritesOrdered = false);

  /// cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group [map,
  /// {c...}], [src]: pending in the thread's bulk async-group until a
  /// cp.async.bulk.wait_group retires it; its source may not be written
  /// until then.
  void tmaStore(Thread &t, const Inst &in);

  /// A bulk tensor store runs: in-bounds elements go to global memory, the
  /// others nowhere.
  void performStore(const TensorCopy &c);

  // --- sm_90a: warpgroup instructions ---------------------------------------

  void warpgroupCollective(size_t g, const Inst &in);

  static bool sharesRegister(const Operand &a, const Operand &b);
  static bool sameRegisters(const Operand &a, const Operand &b);

  /// wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}.{bf16,f16} d,
  /// a-desc | {a0..a3}, b-desc, scale-d, imm-scale-a, imm-scale-b{,
  /// imm-trans-a}, imm-trans-b: checks its operands and the ordering rules,
  /// locks its registers and shared-memory operands; the product is
  /// computed when a wgmma.wait_group retires it.
  void wgmmaIssue(size_t g, const Inst &in);

  /// A wgmma.mma_async retires: D = A * B (+ D) over its warpgroup, read
  /// from shared memory and registers now and written to the accumulator
  /// registers (the PTX ISA's m64nNk16 fragments: thread l of warp w of the
  /// warpgroup, g = l / 4, q = l % 4, holds D rows 16w + g (+ 8) and
  /// columns 8j + 2q (+ 1); A's registers rows 16w + g (+ 8), k 2q (+ 1)
  /// (+ 8)).
  void wgmmaRetire(size_t g, const WgmmaOp &op);

  // --- warp collectives ---------------------------------------------------

  void collective(size_t lo, size_t hi, const Inst &in);

  void shfl(size_t lo, const Inst &in);

  void ldmatrix(size_t lo, const Inst &in);

  void mma(size_t lo, const Inst &in);
  /// mma.sync m16n8k8 on tf32 operands.
  void mmaTf32(size_t lo, const Inst &in);
};

} // namespace ptxsim::detail

#endif // TILEC_TEST_PTXSIM_BLOCK_H
