//===- Block.cpp - the PTX simulator's threads, memory, scalar ops --------===//
//
// The block's scheduler, its operands and memory (with the race, bounds and
// cp.async checks), the scalar instructions' semantics and the warp
// collectives (shfl, mma.sync, ldmatrix). Block.h says how a block runs.
//
//===----------------------------------------------------------------------===//

#include "Block.h"
#include "Cluster.h"

#include "tilec/Support/FloatFormats.h"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <tuple>

namespace ptxsim::detail {
namespace {

class RoundingScope {
public:
  explicit RoundingScope(const std::string &rnd) {
    int mode = rnd == "rz"   ? FE_TOWARDZERO
               : rnd == "rm" ? FE_DOWNWARD
               : rnd == "rp" ? FE_UPWARD
                             : FE_TONEAREST;
    if (mode != FE_TONEAREST) {
      saved = std::fegetround();
      std::fesetround(mode);
    }
  }
  ~RoundingScope() {
    if (saved != -1)
      std::fesetround(saved);
  }
  RoundingScope(const RoundingScope &) = delete;
  RoundingScope &operator=(const RoundingScope &) = delete;

private:
  int saved = -1;
};
} // namespace

Block::Block(const Program &p, const Launch &l, const GlobalCheck &valid,
             unsigned bx, unsigned by, unsigned bz, std::set<int> &noted,
             Cluster &cluster, unsigned rank)
    : p(p), l(l), valid(valid), ctaid{bx, by, bz}, cluster(cluster),
      rank(rank), genericWrites(cluster.genericWrites),
      events(cluster.events), noted(noted) {
  dynBase = (p.staticShared + p.dynamicAlign - 1) / p.dynamicAlign *
            p.dynamicAlign;
  smemSize = dynBase + l.dynamicShared;
  smem.assign(smemSize, 0);
  written.assign(smemSize, 0);
  writer.assign(smemSize, -1);
  writeEpoch.assign(smemSize, -1);
  reader.assign(smemSize, -1);
  readEpoch.assign(smemSize, -1);
  inflight.assign(smemSize, 0);
  genWrite.assign(smemSize, 0);
  asyncReaders.assign(smemSize, 0);
  mbarByte.assign(smemSize, 0);
  unsigned n = l.block[0] * l.block[1] * l.block[2];
  threads.resize(n);
  for (unsigned t = 0; t < n; ++t) {
    Thread &th = threads[t];
    th.tid = t;
    th.rank = rank;
    th.x = t % l.block[0];
    th.y = (t / l.block[0]) % l.block[1];
    th.z = t / (l.block[0] * l.block[1]);
    th.r.assign(p.regIndex.size(), 0);
    th.local.assign(p.localSize, 0);
    th.regAccess.assign(p.regIndex.size(), 0);
    th.regAccessPc.assign(p.regIndex.size(), -1);
    th.inflightUse.assign(p.regIndex.size(), 0);
  }
  warpgroups.resize((n + 127) / 128);
}

bool Block::round() {
  bool progress = false;
  for (Thread &t : threads)
    if (t.st == State::Run) {
      step(t);
      progress = true;
    }
  progress |= warpCollectives();
  progress |= warpgroupCollectives();
  progress |= barriers();
  for (Thread &t : threads)
    if (t.st == State::Sleep && mbarChanged(t)) {
      t.st = State::Run;
      progress = true;
    }
  return progress;
}

void Block::exitThread(Thread &t) {
  t.st = State::Exit;
  ++exitedThreads;
  ++events;
}

void Block::finish() {
  finished = true;
  // Every bar.arrive is consumed by an instance of its barrier: one left
  // over means the two sides' counts of syncs and arrives differ.
  for (auto &[id, a] : barArrivals)
    if (a.first)
      fail(blockName() + ": barrier " + std::to_string(id) + " has " +
           std::to_string(a.first) + " bar.arrive arrivals of " +
           std::to_string(a.second) +
           " that no instance of it consumed when the block exits");
  for (Thread &t : threads) {
    bool pending = !t.open.empty();
    for (const auto &g : t.groups)
      pending |= !g.empty();
    if (pending)
      fail(where(t) + ": cp.async copies still pending at exit");
    std::vector<size_t> stillPending = t.bulkOpen;
    for (const auto &g : t.bulkGroups)
      stillPending.insert(stillPending.end(), g.begin(), g.end());
    if (!stillPending.empty())
      fail(where(t) + ": a cp.async.bulk tensor store (line " +
           std::to_string(p.insts[stores[stillPending.front()].pc].line) +
           ") may still read shared memory at exit: no "
           "cp.async.bulk.wait_group waited for it");
  }
  for (size_t g = 0; g < warpgroups.size(); ++g)
    if (!warpgroups[g].open.empty() || !warpgroups[g].groups.empty()) {
      const WgmmaOp &op = warpgroups[g].open.empty()
                              ? warpgroups[g].groups.front().front()
                              : warpgroups[g].open.front();
      fail(blockName() + " warpgroup " + std::to_string(g) +
           ": the wgmma.mma_async of line " +
           std::to_string(p.insts[op.pc].line) +
           " is still in flight at exit: no wgmma.wait_group retired it");
    }
  if (!loads.empty()) {
    const TensorCopy &c = loads.front();
    fail(blockName() + ": the TMA load of line " +
         std::to_string(p.insts[c.pc].line) + " (" +
         (c.source == rank ? "" : peer(c.source).blockName() + " ") +
         "thread " + std::to_string(c.thread) +
         ") is still in flight when every thread exited");
  }
  if (!remoteOps.empty()) {
    const RemoteOp &op = remoteOps.front();
    fail(blockName() + " exits while " + where(byId(op.source), op.pc) +
         " may still access its shared memory: no barrier.cluster or "
         "mbarrier wait of this CTA orders that before its exit (a "
         "barrier.cluster before exit is missing)");
  }
}

std::string Block::blockName() const {
  std::string s = "block (" + std::to_string(ctaid[0]) + "," +
                  std::to_string(ctaid[1]) + "," + std::to_string(ctaid[2]) +
                  ")";
  if (cluster.blocks.size() > 1)
    s += " (cluster rank " + std::to_string(rank) + ")";
  return s;
}

std::string Block::where(const Thread &t, int pc) const {
  std::ostringstream os;
  if (pc < 0)
    pc = std::min<int>(t.pc, int(p.insts.size()) - 1);
  os << home(t).blockName() << " thread " << t.tid;
  if (pc >= 0)
    os << " line " << p.insts[pc].line << " '" << brief(p.insts[pc].text)
       << "'";
  return os.str();
}

std::string Block::brief(const std::string &text) {
  std::string s = trim(text);
  return s.size() <= 160 ? s : s.substr(0, 150) + " ...";
}

bool Block::warpCollectives() {
  size_t n = threads.size();
  bool progress = false;
  for (size_t w = 0; w * 32 < n; ++w) {
    size_t lo = w * 32, hi = std::min(n, lo + 32);
    bool all = true;
    int pc = -1;
    for (size_t t = lo; t < hi; ++t) {
      if (threads[t].st != State::Coll) {
        all = false;
        break;
      }
      if (pc == -1)
        pc = threads[t].pc;
      else if (pc != threads[t].pc)
        fail(where(threads[t]) +
             ": lanes of one warp wait at different collective "
             "instructions (lines " +
             std::to_string(p.insts[pc].line) + " and " +
             std::to_string(p.insts[threads[t].pc].line) + ")");
    }
    if (all && pc >= 0) {
      collective(lo, hi, p.insts[pc]);
      for (size_t t = lo; t < hi; ++t) {
        threads[t].st = State::Run;
        threads[t].pc++;
      }
      progress = true;
      ++events;
    }
  }
  return progress;
}

bool Block::barriers() {
  size_t n = threads.size();
  std::map<unsigned, std::vector<Thread *>> waiting;
  for (Thread &t : threads)
    if (t.st == State::Bar)
      waiting[t.barId].push_back(&t);
  bool progress = false;
  for (auto &[id, ts] : waiting) {
    unsigned count = ts.front()->barCount;
    for (Thread *t : ts)
      if (t->barCount != count)
        fail(where(*t) + ": barrier " + std::to_string(id) + " for " +
             std::to_string(t->barCount) + " threads where thread " +
             std::to_string(ts.front()->tid) + " waits at it for " +
             std::to_string(count));
    size_t need = count ? count : n;
    auto arr = barArrivals.find(id);
    size_t arrived = arr == barArrivals.end() ? 0 : arr->second.first;
    if (arrived && arr->second.second != count)
      fail(where(*ts.front()) + ": barrier " + std::to_string(id) + " for " +
           std::to_string(count) + " threads where bar.arrive counted " +
           std::to_string(arr->second.second));
    if (ts.size() + arrived < need)
      continue;
    // More threads than the count: the first `count` (arrivals first)
    // complete this instance of the barrier, the others wait for the next.
    size_t fromArrivals = std::min(arrived, need);
    if (arrived)
      arr->second.first -= unsigned(fromArrivals);
    ++epoch;
    ++events;
    for (size_t i = 0; i < need - fromArrivals; ++i) {
      ts[i]->st = State::Run;
      ts[i]->pc++;
    }
    progress = true;
  }
  return progress;
}

void Block::waits(std::string &counts, std::string &details) const {
  size_t bar = 0, coll = 0, asleep = 0, exited = 0;
  for (const Thread &t : threads) {
    bar += t.st == State::Bar || t.st == State::ClusterBar;
    coll += t.st == State::Coll || t.st == State::WgColl;
    asleep += t.st == State::Sleep;
    exited += t.st == State::Exit;
  }
  counts = std::to_string(asleep) + " on mbarriers, " + std::to_string(bar) +
           " at barriers, " + std::to_string(coll) + " at collectives; " +
           std::to_string(exited) + " exited";
  details.clear();
  // Each distinct wait on an mbarrier (a producer's and a consumer's, say),
  // by its first thread.
  std::set<std::tuple<uint64_t, int, uint64_t, int>> seen;
  for (const Thread &t : threads)
    if (t.st == State::Sleep &&
        seen.insert({t.sleepMbar, t.sleepParity, t.sleepPhase, t.pc})
            .second &&
        seen.size() <= 4) {
      auto it = mbars.find(t.sleepMbar);
      details += "; " + where(t, t.pc - 1) +
                 " waits on the mbarrier at shared " +
                 std::to_string(t.sleepMbar) + " for " +
                 (t.sleepParity >= 0
                      ? "the phase of parity " + std::to_string(t.sleepParity)
                      : "phase " + std::to_string(t.sleepPhase)) +
                 " to complete";
      if (it != mbars.end()) {
        const hopper::MBarrier &b = it->second.b;
        details += " (it is in phase " + std::to_string(b.phase) + " with " +
                   std::to_string(b.pending) + " of " +
                   std::to_string(b.expected) +
                   " arrivals pending, transaction count " +
                   std::to_string(b.tx) + ")";
      }
    }
  if (!seen.empty())
    return;
  for (const Thread &t : threads)
    if (t.st == State::Bar) {
      details = "; " + where(t) + " waits at barrier " +
                std::to_string(t.barId) +
                (t.barCount ? " for " + std::to_string(t.barCount) + " threads"
                            : " for the whole block");
      return;
    }
  for (const Thread &t : threads)
    if (t.st == State::ClusterBar) {
      // A thread of the cluster that has not arrived at the phase.
      std::string missing;
      for (const auto &b : cluster.blocks)
        for (const Thread &u : b->threads)
          if (missing.empty() && u.st != State::Exit &&
              u.clusterArrived <= cluster.barrierPhase)
            missing = "; " + b->blockName() + " thread " +
                      std::to_string(u.tid) + " has not arrived at it";
      details = "; " + where(t) + " waits at barrier.cluster for phase " +
                std::to_string(cluster.barrierPhase) + missing;
      return;
    }
  for (const Thread &t : threads)
    if (t.st != State::Exit) {
      details = "; " + where(t) + " waits at a collective";
      return;
    }
}

void Block::deadlock() const {
  std::string counts, details;
  waits(counts, details);
  fail(blockName() + ": deadlock: every live thread waits (" + counts + ")" +
       details);
}

uint64_t Block::special(const Thread &t, uint64_t which) const {
  switch (which) {
  case SP_TID_X: return t.x;
  case SP_TID_Y: return t.y;
  case SP_TID_Z: return t.z;
  case SP_NTID_X: return l.block[0];
  case SP_NTID_Y: return l.block[1];
  case SP_NTID_Z: return l.block[2];
  case SP_CTAID_X: return ctaid[0];
  case SP_CTAID_Y: return ctaid[1];
  case SP_CTAID_Z: return ctaid[2];
  case SP_NCTAID_X: return l.grid[0];
  case SP_NCTAID_Y: return l.grid[1];
  case SP_NCTAID_Z: return l.grid[2];
  case SP_LANEID: return t.tid % 32;
  case SP_WARPID: return t.tid / 32;
  case SP_DYNAMIC_SMEM: return l.dynamicShared;
  case SP_CLUSTERID_X: return cluster.id[0];
  case SP_CLUSTERID_Y: return cluster.id[1];
  case SP_CLUSTERID_Z: return cluster.id[2];
  case SP_NCLUSTERID_X: return l.grid[0] / cluster.dims[0];
  case SP_NCLUSTERID_Y: return l.grid[1] / cluster.dims[1];
  case SP_NCLUSTERID_Z: return l.grid[2] / cluster.dims[2];
  case SP_CLUSTER_CTAID_X: return ctaid[0] % cluster.dims[0];
  case SP_CLUSTER_CTAID_Y: return ctaid[1] % cluster.dims[1];
  case SP_CLUSTER_CTAID_Z: return ctaid[2] % cluster.dims[2];
  case SP_CLUSTER_NCTAID_X: return cluster.dims[0];
  case SP_CLUSTER_NCTAID_Y: return cluster.dims[1];
  case SP_CLUSTER_NCTAID_Z: return cluster.dims[2];
  case SP_CLUSTER_CTARANK: return rank;
  case SP_CLUSTER_NCTARANK: return cluster.blocks.size();
  case SP_IS_EXPLICIT_CLUSTER: return p.explicitCluster;
  default: return 0;
  }
}

uint64_t Block::symbolValue(const Symbol &s) const {
  if (s.space == S_SHARED)
    return s.addr == ~uint64_t(0) ? dynBase : s.addr;
  return s.addr; // local offset or global host address
}

uint64_t Block::get(const Thread &t, const Operand &o, Ty ty) const {
  switch (o.kind) {
  case Operand::Reg:
    if (p.wgmmaRegister[o.reg])
      touch(t, o.reg);
    return t.r[o.reg];
  case Operand::Imm:
    if (o.immFloat && ty == T_F64)
      return d2u(double(u2f(uint32_t(o.imm))));
    if (o.immDouble && ty == T_F32)
      return f2u(float(u2d(o.imm)));
    if (!o.immFloat && !o.immDouble && ty == T_F32)
      return f2u(float(int64_t(o.imm)));
    if (!o.immFloat && !o.immDouble && ty == T_F64)
      return d2u(double(int64_t(o.imm)));
    return o.imm;
  case Operand::Spec:
    return special(t, o.imm);
  case Operand::Sym:
    return symbolValue(p.symbols[o.sym]);
  default:
    fail(where(t) + ": bad source operand");
  }
}

void Block::set(Thread &t, const Operand &o, uint64_t v, Ty ty) {
  if (o.kind == Operand::Sink)
    return;
  if (o.kind != Operand::Reg)
    fail(where(t) + ": destination is not a register");
  if (p.wgmmaRegister[o.reg])
    touch(t, o.reg);
  if (ty == T_PRED)
    v &= 1;
  else
    v &= maskBits(bitsOf(ty) == 1 ? 1 : bitsOf(ty));
  t.r[o.reg] = v;
}

uint64_t Block::address(const Thread &t, const Operand &o) const {
  if (o.kind != Operand::Addr)
    fail(where(t) + ": expected an address operand");
  uint64_t a = 0;
  if (o.reg >= 0)
    a = t.r[o.reg];
  else if (o.sym >= 0)
    a = symbolValue(p.symbols[o.sym]);
  return a + uint64_t(o.offset);
}

void Block::checkShared(const Thread &t, uint64_t a, uint64_t n) const {
  if (a < kReservedShared)
    fail(where(t) + ": shared access at " + std::to_string(a) +
         ", in the 1 KiB below 1024 that the driver reserves");
  if (a + n > smemSize || a + n < a)
    fail(where(t) + ": shared access of " + std::to_string(n) +
         " bytes at " + std::to_string(a) + " past the " +
         std::to_string(smemSize) + " bytes of shared memory");
}

void Block::sharedRead(const Thread &t, uint64_t a, void *dst, uint64_t n,
                       bool mayBeUnwritten) {
  checkShared(t, a, n);
  for (uint64_t i = a; i < a + n && !mayBeUnwritten; ++i)
    mayBeUnwritten = n > 1 && written[i];
  for (uint64_t i = a; i < a + n; ++i) {
    if (inflight[i])
      fail(where(t) + ": reads shared byte " + std::to_string(i) + of(t) +
           " while " + inflightWriter(i) + " may still be writing it");
    if (mbarByte[i])
      fail(where(t) + ": reads shared byte " + std::to_string(i) + of(t) +
           " of the mbarrier object at " + std::to_string(i & ~7ull) +
           " (only mbarrier instructions may access it)");
    if (!written[i] && !mayBeUnwritten)
      fail(where(t) + ": reads shared byte " + std::to_string(i) + of(t) +
           ", which nothing wrote");
    if (writeEpoch[i] == epoch && writer[i] != id(t))
      fail(where(t) + ": race: reads shared byte " + std::to_string(i) +
           of(t) + " written by " + threadName(writer[i], t) +
           " since the last barrier");
    if (readEpoch[i] != epoch) {
      readEpoch[i] = epoch;
      reader[i] = id(t);
    } else if (reader[i] != id(t)) {
      reader[i] = -2; // several readers
    }
  }
  std::memcpy(dst, &smem[a], n);
}

void Block::sharedWrite(const Thread &t, uint64_t a, const void *src,
                        uint64_t n, bool async) {
  checkShared(t, a, n);
  ++genericWrites;
  for (uint64_t i = a; i < a + n; ++i) {
    if (!async && inflight[i])
      fail(where(t) + ": writes shared byte " + std::to_string(i) + of(t) +
           " while " + inflightWriter(i) + " may still be writing it");
    if (mbarByte[i])
      fail(where(t) + ": writes shared byte " + std::to_string(i) + of(t) +
           " of the mbarrier object at " + std::to_string(i & ~7ull) +
           " (only mbarrier instructions may access it)");
    if (asyncReaders[i])
      fail(where(t) + ": writes shared byte " + std::to_string(i) + of(t) +
           " that " + asyncReader(i) + " may still be reading");
    if (writeEpoch[i] == epoch && writer[i] != id(t))
      fail(where(t) + ": race: writes shared byte " + std::to_string(i) +
           of(t) + " also written by " + threadName(writer[i], t) +
           " since the last barrier");
    if (readEpoch[i] == epoch && reader[i] != id(t))
      fail(where(t) + ": race: writes shared byte " + std::to_string(i) +
           of(t) + " read by " +
           (reader[i] == -2 ? std::string("several threads")
                            : threadName(reader[i], t)) +
           " since the last barrier");
    writeEpoch[i] = epoch;
    writer[i] = id(t);
    written[i] = 1;
    genWrite[i] = genericWrites;
  }
  std::memcpy(&smem[a], src, n);
  ++events;
}

void Block::load(Thread &t, const Inst &in, uint64_t a, void *dst,
                 uint64_t n, bool vectorElement) {
  Space space = in.space;
  bool cluster = in.clusterSpace;
  if (space == S_GENERIC) {
    cluster = true;
    if (a >= kParamWindow) {
      space = S_PARAM;
      a -= kParamWindow;
    } else if (a >= kLocalWindow) {
      space = S_LOCAL;
      a -= kLocalWindow;
    } else if (a >= kSharedWindow) {
      space = S_SHARED;
      a -= kSharedWindow;
    } else {
      space = S_GLOBAL;
    }
  }
  switch (space) {
  case S_GLOBAL:
    if (!valid(a, n))
      fail(where(t) + ": global read of " + std::to_string(n) +
           " bytes at 0x" + hex(a) + " outside device memory");
    std::memcpy(dst, reinterpret_cast<const void *>(a), n);
    return;
  case S_SHARED: {
    Block &owner = sharedOwner(t, a, cluster);
    if (&owner != this) {
      owner.checkAlive(t, "ld.shared::cluster");
      owner.noteRemote(t, {});
    }
    owner.sharedRead(t, a, dst, n, vectorElement);
    return;
  }
  case S_LOCAL:
    if (a + n > t.local.size())
      fail(where(t) + ": local read past the depot");
    std::memcpy(dst, &t.local[a], n);
    return;
  case S_PARAM: {
    // a is the parameter index * 2^32 + byte offset (see paramAddress).
    unsigned idx = unsigned(a >> 32), off = unsigned(a & 0xffffffff);
    if (idx >= l.params.size() || off + n > l.params[idx].size())
      fail(where(t) + ": parameter read out of range");
    std::memcpy(dst, l.params[idx].data() + off, n);
    return;
  }
  default:
    fail(where(t) + ": bad state space");
  }
}

void Block::store(Thread &t, const Inst &in, uint64_t a, const void *src,
                  uint64_t n) {
  ++events;
  Space space = in.space;
  bool cluster = in.clusterSpace;
  if (space == S_GENERIC) {
    cluster = true;
    if (a >= kParamWindow) {
      space = S_PARAM;
      a -= kParamWindow;
    } else if (a >= kLocalWindow) {
      space = S_LOCAL;
      a -= kLocalWindow;
    } else if (a >= kSharedWindow) {
      space = S_SHARED;
      a -= kSharedWindow;
    } else {
      space = S_GLOBAL;
    }
  }
  switch (space) {
  case S_GLOBAL:
    if (!valid(a, n))
      fail(where(t) + ": global write of " + std::to_string(n) +
           " bytes at 0x" + hex(a) + " outside device memory");
    std::memcpy(reinterpret_cast<void *>(a), src, n);
    return;
  case S_SHARED: {
    Block &owner = sharedOwner(t, a, cluster);
    if (&owner != this) {
      owner.checkAlive(t, "st.shared::cluster");
      owner.noteRemote(t, {});
    }
    owner.sharedWrite(t, a, src, n);
    return;
  }
  case S_LOCAL:
    if (a + n > t.local.size())
      fail(where(t) + ": local write past the depot");
    std::memcpy(&t.local[a], src, n);
    return;
  default:
    fail(where(t) + ": cannot store to this state space");
  }
}

std::string Block::hex(uint64_t v) {
  std::ostringstream os;
  os << std::hex << v;
  return os.str();
}

uint64_t Block::memAddress(const Thread &t, const Inst &in, const Operand &o) {
  if (in.space == S_PARAM && o.sym >= 0 &&
      p.symbols[o.sym].space == S_PARAM)
    return (uint64_t(p.symbols[o.sym].param) << 32) + uint64_t(o.offset);
  return address(t, o);
}

void Block::unsupportedType(Ty ty) const {
  fail(where(*current) + ": unsupported type ." + tyName(ty) +
       " for this instruction");
}

template <typename F>
uint64_t Block::floatBinary(Ty ty, uint64_t a, uint64_t b, bool flush, F f) {
  switch (ty) {
  case T_F32: {
    float x = asF(a), y = asF(b);
    if (flush)
      x = ftz(x), y = ftz(y);
    float r = float(f(double(x), double(y), false));
    return fromF(flush ? ftz(r) : r);
  }
  case T_F64:
    return d2u(f(u2d(a), u2d(b), true));
  case T_F16:
    return f32ToF16(float(f(f16ToF32(uint16_t(a)), f16ToF32(uint16_t(b)),
                            false)));
  case T_BF16:
    return f32ToBf16(float(f(bf16ToF32(uint16_t(a)),
                             bf16ToF32(uint16_t(b)), false)));
  case T_F16X2:
  case T_BF16X2: {
    Ty h = ty == T_F16X2 ? T_F16 : T_BF16;
    uint64_t lo = floatBinary(h, a & 0xffff, b & 0xffff, flush, f);
    uint64_t hi = floatBinary(h, (a >> 16) & 0xffff, (b >> 16) & 0xffff,
                              flush, f);
    return lo | hi << 16;
  }
  default:
    unsupportedType(ty);
  }
}

double Block::toD(Ty ty, uint64_t v) const {
  switch (ty) {
  case T_F32: return asF(v);
  case T_F64: return u2d(v);
  case T_F16: return f16ToF32(uint16_t(v));
  case T_BF16: return bf16ToF32(uint16_t(v));
  default: unsupportedType(ty);
  }
}

uint64_t Block::fromD(Ty ty, double d) const {
  switch (ty) {
  case T_F32: return fromF(float(d));
  case T_F64: return d2u(d);
  case T_F16: return f32ToF16(float(d));
  case T_BF16: return f32ToBf16(float(d));
  default: unsupportedType(ty);
  }
}

uint64_t Block::fusedMultiplyAdd(const Inst &in, uint64_t a, uint64_t b,
                                 uint64_t c) const {
  Ty ty = in.ty;
  RoundingScope rounding(in.rnd);
  if (ty == T_F32) {
    float x = asF(a), y = asF(b), z = asF(c);
    if (in.ftz)
      x = ftz(x), y = ftz(y), z = ftz(z);
    float r = std::fma(x, y, z);
    return fromF(in.ftz ? ftz(r) : r);
  }
  if (ty == T_F64)
    return d2u(std::fma(u2d(a), u2d(b), u2d(c)));
  if (ty == T_F16X2 || ty == T_BF16X2) {
    Ty h = ty == T_F16X2 ? T_F16 : T_BF16;
    uint64_t r = 0;
    for (int i = 0; i < 2; ++i) {
      double v = std::fma(toD(h, (a >> 16 * i) & 0xffff),
                          toD(h, (b >> 16 * i) & 0xffff),
                          toD(h, (c >> 16 * i) & 0xffff));
      r |= fromD(h, v) << 16 * i;
    }
    return r;
  }
  return fromD(ty, std::fma(toD(ty, a), toD(ty, b), toD(ty, c)));
}

double Block::roundInt(double d, const std::string &rnd) {
  if (rnd == "rzi")
    return std::trunc(d);
  if (rnd == "rmi")
    return std::floor(d);
  if (rnd == "rpi")
    return std::ceil(d);
  return std::nearbyint(d); // rni: to nearest even (default mode)
}

uint64_t Block::convert(const Inst &in, uint64_t v) {
  Ty dst = in.ty, src = in.ty2;
  if (in.tf32) {
    // cvt.rna.tf32.f32: the f32 rounded to 10 mantissa bits, ties away
    // from zero, in a b32 whose low 13 bits are 0 (NaN and Inf kept).
    if (in.rnd != "rna" || src != T_F32)
      fail(where(*current) + ": only cvt.rna.tf32.f32 is simulated");
    uint32_t u = uint32_t(v);
    if ((u & 0x7f800000) == 0x7f800000)
      return u & 0xffffe000 | ((u & 0x7fffff) ? 0x400000 : 0);
    u += 0x1000; // half of the dropped 13 bits: ties away from zero
    return u & 0xffffe000;
  }
  bool df = isFloat(dst), sf = isFloat(src);
  if (!df && !sf) { // integer to integer
    int64_t x = isSigned(src) ? sext(v, bitsOf(src))
                              : int64_t(v & maskBits(bitsOf(src)));
    if (in.sat) {
      unsigned b = bitsOf(dst);
      int64_t lo = isSigned(dst) ? -(int64_t(1) << (b - 1)) : 0;
      int64_t hi = isSigned(dst) ? (int64_t(1) << (b - 1)) - 1
                                 : int64_t(maskBits(b) >> 1) * 2 + 1;
      if (b < 64)
        x = std::min(std::max(x, lo), hi);
    }
    return uint64_t(x) & maskBits(bitsOf(dst));
  }
  if (in.rnd == "rna")
    fail(where(*current) + ": rounding .rna is simulated only for cvt to "
                           ".tf32");
  bool directed = in.rnd == "rz" || in.rnd == "rm" || in.rnd == "rp";
  if (df && directed && !(sf && bitsOf(dst) >= bitsOf(src)))
    fail(where(*current) + ": rounding ." + in.rnd + " of cvt to ." +
         tyName(dst) + " is not simulated");
  if (df && sf) {
    double d = toD(src, v);
    if (in.ftz && src == T_F32)
      d = ftz(float(d));
    if (in.rnd.size() == 3) // rni, rzi, ...: to an integral value
      d = roundInt(d, in.rnd);
    if (in.sat)
      d = std::isnan(d) ? 0.0 : std::min(1.0, std::max(0.0, d));
    if (dst == T_F32 && src == T_F64) {
      float f = float(d);
      return fromF(in.ftz ? ftz(f) : f);
    }
    return fromD(dst, d);
  }
  if (df) { // integer to float
    double d = isSigned(src) ? double(sext(v, bitsOf(src)))
                             : double(v & maskBits(bitsOf(src)));
    if (isSigned(src) && bitsOf(src) == 64)
      d = double(int64_t(v));
    else if (!isSigned(src) && bitsOf(src) == 64)
      d = double(v);
    if (dst == T_F32) {
      float f = isSigned(src) ? float(sext(v, bitsOf(src)))
                              : float(v & maskBits(bitsOf(src)));
      return fromF(f);
    }
    return fromD(dst, d);
  }
  // float to integer: round, saturate, NaN -> 0
  double d = toD(src, v);
  if (in.ftz && src == T_F32)
    d = ftz(float(d));
  d = roundInt(d, in.rnd.empty() ? "rzi" : in.rnd);
  unsigned b = bitsOf(dst);
  if (std::isnan(d))
    return 0;
  if (isSigned(dst)) {
    double lo = -std::ldexp(1.0, int(b) - 1),
           hi = std::ldexp(1.0, int(b) - 1) - 1;
    d = std::min(std::max(d, lo), hi);
    return uint64_t(int64_t(d)) & maskBits(b);
  }
  d = std::min(std::max(d, 0.0), std::ldexp(1.0, int(b)) - 1);
  return uint64_t(d) & maskBits(b);
}

bool Block::compare(const Inst &in, uint64_t a, uint64_t b) {
  return compare(in, a, b, in.ty);
}

bool Block::compare(const Inst &in, uint64_t a, uint64_t b, Ty ty) {
  const std::string &c = in.cmp;
  if (isFloat(ty)) {
    double x = toD(ty, a), y = toD(ty, b);
    if (in.ftz && ty == T_F32)
      x = ftz(float(x)), y = ftz(float(y));
    bool nan = std::isnan(x) || std::isnan(y);
    if (c == "eq") return !nan && x == y;
    if (c == "ne") return !nan && x != y;
    if (c == "lt") return !nan && x < y;
    if (c == "le") return !nan && x <= y;
    if (c == "gt") return !nan && x > y;
    if (c == "ge") return !nan && x >= y;
    if (c == "equ") return nan || x == y;
    if (c == "neu") return nan || x != y;
    if (c == "ltu") return nan || x < y;
    if (c == "leu") return nan || x <= y;
    if (c == "gtu") return nan || x > y;
    if (c == "geu") return nan || x >= y;
    if (c == "num") return !nan;
    if (c == "nan") return nan;
    fail(where(*current) + ": unsupported float comparison ." + c);
  }
  unsigned bits = bitsOf(ty);
  if (ty == T_PRED) {
    if (c == "eq") return (a & 1) == (b & 1);
    if (c == "ne") return (a & 1) != (b & 1);
  }
  bool s = isSigned(ty);
  int64_t sa = sext(a, bits), sb = sext(b, bits);
  uint64_t ua = a & maskBits(bits), ub = b & maskBits(bits);
  if (c == "eq") return ua == ub;
  if (c == "ne") return ua != ub;
  if (c == "lt") return s ? sa < sb : ua < ub;
  if (c == "le") return s ? sa <= sb : ua <= ub;
  if (c == "gt") return s ? sa > sb : ua > ub;
  if (c == "ge") return s ? sa >= sb : ua >= ub;
  if (c == "lo") return ua < ub;
  if (c == "ls") return ua <= ub;
  if (c == "hi") return ua > ub;
  if (c == "hs") return ua >= ub;
  fail(where(*current) + ": unsupported integer comparison ." + c);
}

uint64_t Block::intBinary(const Inst &in, uint64_t a, uint64_t b) {
  Ty ty = in.ty;
  unsigned bits = bitsOf(ty);
  bool s = isSigned(ty);
  int64_t sa = sext(a, bits), sb = sext(b, bits);
  uint64_t ua = a & maskBits(bits), ub = b & maskBits(bits);
  switch (in.op) {
  case O_ADD: return ua + ub;
  case O_SUB: return ua - ub;
  case O_MUL:
    if (in.wide) {
      if (s)
        return uint64_t(sa * sb);
      return ua * ub;
    }
    if (in.hi) {
      if (bits == 64) {
        __int128 r = s ? __int128(sa) * sb
                       : __int128((unsigned __int128)ua * ub);
        if (!s)
          return uint64_t(((unsigned __int128)ua * ub) >> 64);
        return uint64_t(r >> 64);
      }
      return s ? uint64_t((sa * sb) >> bits) : (ua * ub) >> bits;
    }
    return ua * ub;
  case O_DIV:
    if (ub == 0)
      return maskBits(bits);
    return s ? uint64_t(sa / sb) : ua / ub;
  case O_REM:
    if (ub == 0)
      return ua;
    return s ? uint64_t(sa % sb) : ua % ub;
  case O_MIN: return s ? uint64_t(std::min(sa, sb)) : std::min(ua, ub);
  case O_MAX: return s ? uint64_t(std::max(sa, sb)) : std::max(ua, ub);
  case O_AND: return a & b;
  case O_OR: return a | b;
  case O_XOR: return a ^ b;
  case O_SHL: {
    uint64_t n = b & 0xffffffff;
    return n >= bits ? 0 : ua << n;
  }
  case O_SHR: {
    uint64_t n = b & 0xffffffff;
    if (s)
      return uint64_t(n >= bits ? (sa < 0 ? -1 : 0) : sa >> n);
    return n >= bits ? 0 : ua >> n;
  }
  default:
    fail(where(*current) + ": unsupported integer operation");
  }
}

void Block::step(Thread &t) {
  while (t.st == State::Run) {
    if (t.pc >= int(p.insts.size())) {
      exitThread(t);
      return;
    }
    const Inst &in = p.insts[t.pc];
    ++t.seq;
    if (in.predReg >= 0) {
      bool pv = t.r[in.predReg] & 1;
      if (pv == in.predNeg) {
        t.pc++;
        continue;
      }
    }
    switch (in.op) {
    case O_BAR: {
      // bar.sync id{, count}: the count is a multiple of the warp size.
      current = &t;
      t.barId = in.ops.empty() ? 0 : unsigned(get(t, in.ops[0], T_U32));
      t.barCount =
          in.ops.size() > 1 ? unsigned(get(t, in.ops[1], T_U32)) : 0;
      if (t.barId > 15 || (in.ops.size() > 1 &&
                           (t.barCount == 0 || t.barCount % 32 != 0)))
        fail(where(t) + ": barrier " + std::to_string(t.barId) +
             " for " + std::to_string(t.barCount) +
             " threads: ids are 0..15 and counts nonzero multiples of 32");
      if (in.arrive) {
        // bar.arrive: counts toward the barrier's next instance and goes
        // on (the PTX ISA wants its thread count given).
        if (in.ops.size() < 2)
          fail(where(t) + ": bar.arrive needs a thread count");
        auto &[arrived, count] = barArrivals[t.barId];
        if (arrived && count != t.barCount)
          fail(where(t) + ": bar.arrive on barrier " +
               std::to_string(t.barId) + " for " +
               std::to_string(t.barCount) + " threads where earlier "
               "arrivals were for " + std::to_string(count));
        count = t.barCount;
        ++arrived;
        ++events;
        t.pc++;
        continue;
      }
      t.st = State::Bar;
      return;
    }
    case O_SHFL:
    case O_MMA:
    case O_LDMATRIX:
    case O_ELECT:
      t.st = State::Coll;
      return;
    case O_WGMMA_FENCE:
    case O_WGMMA:
    case O_WGMMA_COMMIT:
    case O_WGMMA_WAIT:
    case O_SETMAXNREG:
      t.st = State::WgColl;
      return;
    case O_MBAR_WAIT:
      // A false result is a scheduling point: the thread sleeps until the
      // mbarrier's phase completes (run() wakes it), as a spinning warp
      // lets the producer run.
      current = &t;
      if (!mbarWait(t, in)) {
        t.pc++;
        t.st = State::Sleep;
        return;
      }
      t.pc++;
      continue;
    case O_RET:
      exitThread(t);
      return;
    case O_CLUSTER_WAIT:
      current = &t;
      if (!clusterWait(t)) {
        t.st = State::ClusterBar; // Cluster::barrier() releases it
        return;
      }
      t.pc++;
      continue;
    case O_BRA:
      t.pc = int(in.ops[0].imm);
      continue;
    default:
      current = &t;
      execute(t, in);
      t.pc++;
    }
  }
}

void Block::execute(Thread &t, const Inst &in) {
  const auto &o = in.ops;
  Ty ty = in.ty;
  switch (in.op) {
  case O_NOP:
    return;
  case O_MOV: {
    if (o[0].kind == Operand::Vec) { // unpack
      uint64_t v = get(t, o[1], ty);
      unsigned part = bitsOf(ty) / unsigned(o[0].elems.size());
      for (size_t i = 0; i < o[0].elems.size(); ++i)
        set(t, o[0].elems[i], (v >> (part * i)) & maskBits(part),
            part == 16 ? T_B16 : part == 32 ? T_B32 : T_B8);
      return;
    }
    if (o[1].kind == Operand::Vec) { // pack
      unsigned part = bitsOf(ty) / unsigned(o[1].elems.size());
      uint64_t v = 0;
      for (size_t i = 0; i < o[1].elems.size(); ++i)
        v |= (get(t, o[1].elems[i], T_B32) & maskBits(part)) << (part * i);
      set(t, o[0], v, ty);
      return;
    }
    set(t, o[0], get(t, o[1], ty), ty);
    return;
  }
  case O_ADD:
  case O_SUB:
  case O_MUL:
  case O_DIV:
  case O_REM:
  case O_MIN:
  case O_MAX: {
    uint64_t a = get(t, o[1], ty), b = get(t, o[2], ty);
    if (isFloat(ty)) {
      Op op = in.op;
      bool relu = in.relu;
      if (in.propagateNaN && ty != T_F32 && ty != T_F16 && ty != T_BF16)
        unsupportedType(ty);
      RoundingScope rounding(in.rnd);
      set(t, o[0],
          floatBinary(ty, a, b, in.ftz,
                      [op, relu, nan = in.propagateNaN](
                          double x, double y, bool dbl) -> double {
                        if (nan && (std::isnan(x) || std::isnan(y)))
                          return std::numeric_limits<double>::quiet_NaN();
                        switch (op) {
                        case O_ADD: return dbl ? x + y : double(float(x) + float(y));
                        case O_SUB: return dbl ? x - y : double(float(x) - float(y));
                        case O_MUL: return dbl ? x * y : double(float(x) * float(y));
                        case O_DIV: return dbl ? x / y : double(float(x) / float(y));
                        case O_MIN:
                          if (std::isnan(x)) return y;
                          if (std::isnan(y)) return x;
                          return relu ? std::max(std::min(x, y), 0.0)
                                      : std::min(x, y);
                        default:
                          if (std::isnan(x)) return y;
                          if (std::isnan(y)) return x;
                          return relu ? std::max(std::max(x, y), 0.0)
                                      : std::max(x, y);
                        }
                      }),
          ty);
      return;
    }
    if (isPackedInt(ty) && (in.op == O_MIN || in.op == O_MAX)) {
      // max{.relu}.s16x2 / .u16x2: each half on its own (LLVM makes it of
      // a vector max of two i16 or i8 lanes).
      uint64_t r = 0;
      for (int h = 0; h < 2; ++h) {
        uint64_t x = (a >> (16 * h)) & 0xffff, y = (b >> (16 * h)) & 0xffff;
        int64_t sx = sext(x, 16), sy = sext(y, 16);
        bool takeX = ty == T_S16X2 ? (in.op == O_MAX ? sx >= sy : sx <= sy)
                                   : (in.op == O_MAX ? x >= y : x <= y);
        uint64_t v = takeX ? x : y;
        if (in.relu && sext(v, 16) < 0)
          v = 0;
        r |= v << (16 * h);
      }
      set(t, o[0], r, T_B32);
      return;
    }
    uint64_t r = intBinary(in, a, b);
    // max.relu.s32 (LLVM folds smax(smax(a, b), 0) into it): negative
    // results clamp to 0.
    if (in.relu && (in.op == O_MIN || in.op == O_MAX) &&
        sext(r, bitsOf(ty)) < 0)
      r = 0;
    if (in.op == O_ADD && in.cc) {
      unsigned bits = bitsOf(ty);
      t.carry = ((a & maskBits(bits)) + (b & maskBits(bits))) >> bits;
    }
    if (in.op == O_SUB && in.cc)
      t.carry = (a & maskBits(bitsOf(ty))) < (b & maskBits(bitsOf(ty)));
    set(t, o[0], r, in.wide ? (isSigned(ty) ? T_S64 : T_U64) : ty);
    return;
  }
  case O_ADDC:
  case O_SUBC: {
    unsigned bits = bitsOf(ty);
    uint64_t a = get(t, o[1], ty) & maskBits(bits),
             b = get(t, o[2], ty) & maskBits(bits);
    uint64_t c = t.carry;
    uint64_t r = in.op == O_ADDC ? a + b + c : a - b - c;
    if (in.cc)
      t.carry = in.op == O_ADDC ? ((a + b + c) >> bits) & 1 : (a < b + c);
    set(t, o[0], r, ty);
    return;
  }
  case O_MAD:
  case O_MADC: {
    uint64_t a = get(t, o[1], ty), b = get(t, o[2], ty),
             c = get(t, o[3], in.wide ? (isSigned(ty) ? T_S64 : T_U64) : ty);
    if (isFloat(ty)) { // mad.rn.f32 is fma.rn.f32
      set(t, o[0], fusedMultiplyAdd(in, a, b, c), ty);
      return;
    }
    unsigned bits = bitsOf(ty);
    bool s = isSigned(ty);
    uint64_t prod;
    if (in.wide) {
      prod = s ? uint64_t(sext(a, bits) * sext(b, bits))
               : (a & maskBits(bits)) * (b & maskBits(bits));
      bits = 64;
    } else if (in.hi) {
      prod = s ? uint64_t((sext(a, bits) * sext(b, bits)) >> bits)
               : ((a & maskBits(bits)) * (b & maskBits(bits))) >> bits;
    } else {
      prod = a * b;
    }
    uint64_t cin = in.op == O_MADC ? t.carry : 0;
    uint64_t pm = prod & maskBits(bits), cm = c & maskBits(bits);
    uint64_t r = pm + cm + cin;
    if (in.cc)
      t.carry = bits < 64 ? (r >> bits) & 1 : (r < pm || (cin && r == pm));
    set(t, o[0], r, in.wide ? (s ? T_S64 : T_U64) : ty);
    return;
  }
  case O_FMA: {
    uint64_t a = get(t, o[1], ty), b = get(t, o[2], ty),
             c = get(t, o[3], ty);
    set(t, o[0], fusedMultiplyAdd(in, a, b, c), ty);
    return;
  }
  case O_ABS:
  case O_NEG: {
    uint64_t a = get(t, o[1], ty);
    unsigned bits = bitsOf(ty);
    if (isFloat(ty)) {
      uint64_t sign = ty == T_F64 ? uint64_t(1) << 63
                      : ty == T_F32 ? uint64_t(1) << 31
                      : ty == T_F16X2 || ty == T_BF16X2 ? 0x80008000
                                                         : 0x8000;
      set(t, o[0], in.op == O_ABS ? a & ~sign : a ^ sign, ty);
      return;
    }
    int64_t v = sext(a, bits);
    set(t, o[0], uint64_t(in.op == O_ABS ? (v < 0 ? -v : v) : -v), ty);
    return;
  }
  case O_AND:
  case O_OR:
  case O_XOR:
  case O_SHL:
  case O_SHR:
    set(t, o[0], intBinary(in, get(t, o[1], ty), get(t, o[2], T_U32)),
        ty);
    return;
  case O_NOT:
    set(t, o[0], ~get(t, o[1], ty), ty);
    return;
  case O_SHF: {
    uint64_t a = get(t, o[1], T_B32) & 0xffffffff,
             b = get(t, o[2], T_B32) & 0xffffffff;
    uint64_t n = get(t, o[3], T_B32) & 0xffffffff;
    n = in.wrap ? n & 31 : std::min<uint64_t>(n, 32);
    uint64_t both = b << 32 | a;
    uint64_t r = in.cmp == "l" ? (both << n) >> 32 : (both >> n);
    set(t, o[0], r & 0xffffffff, T_B32);
    return;
  }
  case O_SETP: {
    uint64_t a = get(t, o[1], ty), b = get(t, o[2], ty);
    auto combine = [&](bool r) {
      if (in.boolOp.empty())
        return r;
      bool q = get(t, o[3], T_PRED) & 1;
      return in.boolOp == "and" ? (r && q)
             : in.boolOp == "or" ? (r || q)
                                 : (r != q);
    };
    if (ty == T_F16X2 || ty == T_BF16X2) {
      // setp.f16x2 p|q, a, b: p compares the low halves, q the high ones
      // (LLVM compares two f16 elements at once this way).
      Ty h = ty == T_F16X2 ? T_F16 : T_BF16;
      set(t, o[0], combine(compare(in, a & 0xffff, b & 0xffff, h)),
          T_PRED);
      if (in.pairDst)
        set(t, in.highPred,
            combine(compare(in, (a >> 16) & 0xffff, (b >> 16) & 0xffff, h)),
            T_PRED);
      return;
    }
    set(t, o[0], combine(compare(in, a, b)), T_PRED);
    return;
  }
  case O_SELP: {
    bool c = get(t, o[3], T_PRED) & 1;
    set(t, o[0], c ? get(t, o[1], ty) : get(t, o[2], ty), ty);
    return;
  }
  case O_CVT: {
    // fp8 pairs (sm_89): cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, a, b puts
    // a in d's high byte, rounded to nearest even and saturated to the
    // largest finite value (NaN stays NaN); cvt.rn.f16x2.{e4m3x2,e5m2x2}
    // d, a widens both bytes, low to low (exact).
    if (in.ty == T_E4M3X2 || in.ty == T_E5M2X2) {
      if (o.size() != 3 || in.ty2 != T_F32 || !in.sat || in.rnd != "rn" ||
          in.relu)
        fail(where(t) + ": only cvt.rn.satfinite.e4m3x2.f32 / .e5m2x2.f32 "
                        "d, a, b is simulated");
      tilec::DType d8 = in.ty == T_E4M3X2 ? tilec::DType::F8E4M3FN
                                          : tilec::DType::F8E5M2;
      uint64_t hi = tilec::encodeFloat(asF(get(t, o[1], T_F32)), d8);
      uint64_t lo = tilec::encodeFloat(asF(get(t, o[2], T_F32)), d8);
      set(t, o[0], (hi & 0xff) << 8 | (lo & 0xff), T_B16);
      return;
    }
    if (in.ty2 == T_E4M3X2 || in.ty2 == T_E5M2X2) {
      if (o.size() != 2 || in.ty != T_F16X2 || in.rnd != "rn" || in.relu)
        fail(where(t) + ": only cvt.rn.f16x2.e4m3x2 / .e5m2x2 d, a is "
                        "simulated");
      tilec::DType d8 = in.ty2 == T_E4M3X2 ? tilec::DType::F8E4M3FN
                                           : tilec::DType::F8E5M2;
      uint64_t a = get(t, o[1], T_B16);
      uint64_t lo = f32ToF16(float(tilec::decodeFloat(a & 0xff, d8)));
      uint64_t hi = f32ToF16(float(tilec::decodeFloat((a >> 8) & 0xff, d8)));
      set(t, o[0], hi << 16 | lo, T_B32);
      return;
    }
    if ((in.ty == T_BF16X2 || in.ty == T_F16X2) && o.size() == 3) {
      Ty h = in.ty == T_BF16X2 ? T_BF16 : T_F16;
      uint64_t hi = fromD(h, toD(in.ty2, get(t, o[1], in.ty2)));
      uint64_t lo = fromD(h, toD(in.ty2, get(t, o[2], in.ty2)));
      set(t, o[0], hi << 16 | lo, T_B32);
      return;
    }
    uint64_t r = convert(in, get(t, o[1], in.ty2));
    // A register wider than a signed integer destination type holds the
    // result sign-extended (LLVM compares cvt.s8.s32's 16-bit register
    // with max.s16); unsigned ones are zero-extended, as the mask does.
    if (isSigned(in.ty))
      set(t, o[0], uint64_t(sext(r, bitsOf(in.ty))), T_B64);
    else
      set(t, o[0], r, in.ty);
    return;
  }
  case O_CVTA: {
    uint64_t a = get(t, o[1], T_U64);
    uint64_t base = in.space == S_SHARED  ? kSharedWindow
                    : in.space == S_LOCAL ? kLocalWindow
                    : in.space == S_PARAM ? kParamWindow
                                          : 0;
    set(t, o[0], in.cmp == "to" ? a - base : a + base, T_U64);
    return;
  }
  case O_LD: {
    uint64_t a = memAddress(t, in, o[1]);
    unsigned bytes = std::max(1u, bitsOf(ty) / 8);
    const Operand &dst = o[0];
    // A signed load into a 64-bit register sign-extends to all 64 bits
    // (LLVM loads an i32 it then sign-extends as ld.s32 into a %rd).
    auto wide = [&](const Operand &r) {
      return bytes == 8 || (isSigned(ty) && r.kind == Operand::Reg &&
                            p.regBits[r.reg] == 64);
    };
    if (dst.kind == Operand::Vec) {
      for (size_t i = 0; i < dst.elems.size(); ++i) {
        uint64_t v = 0;
        load(t, in, a + i * bytes, &v, bytes, /*vectorElement=*/true);
        if (isSigned(ty))
          v = uint64_t(sext(v, bytes * 8));
        set(t, dst.elems[i], v, wide(dst.elems[i]) ? T_B64 : T_B32);
      }
      return;
    }
    uint64_t v = 0;
    load(t, in, a, &v, bytes);
    if (isSigned(ty))
      v = uint64_t(sext(v, bytes * 8));
    set(t, dst, v, wide(dst) ? T_B64 : (bytes == 2 && !isSigned(ty) ? T_B16 : T_B32));
    return;
  }
  case O_ST: {
    uint64_t a = memAddress(t, in, o[0]);
    unsigned bytes = std::max(1u, bitsOf(ty) / 8);
    const Operand &src = o[1];
    if (src.kind == Operand::Vec) {
      for (size_t i = 0; i < src.elems.size(); ++i) {
        uint64_t v = get(t, src.elems[i], ty);
        store(t, in, a + i * bytes, &v, bytes);
      }
      return;
    }
    uint64_t v = get(t, src, ty);
    store(t, in, a, &v, bytes);
    return;
  }
  case O_ATOM:
  case O_RED: {
    // atom.space.op.type d, [a], b (cas: d, [a], b, c); red.space.op.type
    // [a], b, where b may be a vector ({b0, b1, ...}: red.v2/.v4.f32,
    // element i at a + i * size). Threads run one at a time, so a
    // read-modify-write is atomic here by construction.
    bool red = in.op == O_RED;
    if (in.cmp.empty())
      fail(where(t) + ": " + (red ? "red" : "atom") +
           " without a supported operation");
    if (red && in.cmp == "cas")
      fail(where(t) + ": red has no cas");
    uint64_t a = memAddress(t, in, o[red ? 0 : 1]);
    unsigned bytes = std::max(1u, bitsOf(ty) / 8);
    bool half = ty == T_F16 || ty == T_BF16;
    if (half && in.cmp != "add")
      unsupportedType(ty);
    if (bytes != 4 && bytes != 8 && !half)
      fail(where(t) + ": atom on " + std::to_string(bytes) +
           "-byte values is not simulated");
    uint64_t mask = maskBits(bytes * 8);
    bool isFloat = ty == T_F32 || ty == T_F64;
    auto asDouble = [&](uint64_t v) {
      return bytes == 4 ? double(asF(v)) : u2d(v);
    };
    auto fromDouble = [&](double d) {
      return bytes == 4 ? fromF(float(d)) : d2u(d);
    };
    auto less = [&](uint64_t x, uint64_t y) {
      if (isFloat)
        return asDouble(x) < asDouble(y);
      if (isSigned(ty))
        return sext(x, bytes * 8) < sext(y, bytes * 8);
      return (x & mask) < (y & mask);
    };
    // One element at `addr`: returns the old value.
    auto rmw = [&](uint64_t addr, uint64_t b) {
      uint64_t old = 0;
      load(t, in, addr, &old, bytes);
      uint64_t r = old;
      if (half) // add.noftz.f16/.bf16: f16 never flushes here
        r = fromD(ty, double(float(toD(ty, old)) + float(toD(ty, b))));
      else if (in.cmp == "add")
        r = isFloat ? (bytes == 4 ? fromF(asF(old) + asF(b))
                                  : fromDouble(asDouble(old) + asDouble(b)))
                    : old + b;
      else if (in.cmp == "exch")
        r = b;
      else if (in.cmp == "max")
        r = less(old, b) ? b : old;
      else if (in.cmp == "min")
        r = less(b, old) ? b : old;
      else if (in.cmp == "and")
        r = old & b;
      else if (in.cmp == "or")
        r = old | b;
      else if (in.cmp == "xor")
        r = old ^ b;
      else if (in.cmp == "cas")
        r = (old & mask) == (b & mask) ? get(t, o[3], ty) : old;
      r &= mask;
      store(t, in, addr, &r, bytes);
      return old;
    };
    if (red) {
      const Operand &src = o[1];
      if (src.kind == Operand::Vec) {
        if (!isFloat || bytes != 4 || in.cmp != "add")
          fail(where(t) + ": red with a vector is add.f32 only");
        for (size_t i = 0; i < src.elems.size(); ++i)
          rmw(a + i * bytes, get(t, src.elems[i], ty));
      } else {
        rmw(a, get(t, src, ty));
      }
      return;
    }
    uint64_t old = rmw(a, get(t, o[2], ty));
    set(t, o[0], old & mask, bytes == 8 ? T_B64 : T_B32);
    return;
  }
  case O_EX2:
  case O_RSQRT:
  case O_RCP:
  case O_SQRT:
  case O_LG2:
  case O_SIN:
  case O_COS:
  case O_TANH: {
    uint64_t a = get(t, o[1], ty);
    auto f = [&](double x) -> double {
      switch (in.op) {
      case O_EX2: return std::exp2(x);
      case O_RSQRT: return 1.0 / std::sqrt(x);
      case O_RCP: return 1.0 / x;
      case O_SQRT: return std::sqrt(x);
      case O_LG2: return std::log2(x);
      case O_SIN: return std::sin(x);
      case O_COS: return std::cos(x);
      default: return std::tanh(x);
      }
    };
    if (ty == T_F32) {
      float x = asF(a);
      if (in.ftz)
        x = ftz(x);
      float r = float(f(x));
      if (in.op == O_RCP && !in.approx)
        r = 1.0f / x;
      if (in.op == O_SQRT && !in.approx)
        r = std::sqrt(x);
      set(t, o[0], fromF(in.ftz ? ftz(r) : r), ty);
    } else {
      set(t, o[0], fromD(ty, f(toD(ty, a))), ty);
    }
    return;
  }
  case O_COPYSIGN: {
    // copysign.f32 d, a, b: |b| with the sign of a
    uint64_t a = get(t, o[1], ty), b = get(t, o[2], ty);
    if (ty == T_F64)
      set(t, o[0], d2u(std::copysign(u2d(b), u2d(a))), ty);
    else
      set(t, o[0], fromF(std::copysign(asF(b), asF(a))), ty);
    return;
  }
  case O_POPC:
    set(t, o[0], uint64_t(__builtin_popcountll(get(t, o[1], ty) &
                                               maskBits(bitsOf(ty)))),
        T_U32);
    return;
  case O_CLZ: {
    unsigned bits = bitsOf(ty);
    uint64_t v = get(t, o[1], ty) & maskBits(bits);
    unsigned n = v ? unsigned(__builtin_clzll(v)) - (64 - bits) : bits;
    set(t, o[0], n, T_U32);
    return;
  }
  case O_BREV: {
    unsigned bits = bitsOf(ty);
    uint64_t v = get(t, o[1], ty), r = 0;
    for (unsigned i = 0; i < bits; ++i)
      if ((v >> i) & 1)
        r |= uint64_t(1) << (bits - 1 - i);
    set(t, o[0], r, ty);
    return;
  }
  case O_BFE: {
    unsigned bits = bitsOf(ty);
    uint64_t a = get(t, o[1], ty) & maskBits(bits);
    unsigned pos = unsigned(get(t, o[2], T_U32) & 0xff),
             len = unsigned(get(t, o[3], T_U32) & 0xff);
    uint64_t r = 0;
    if (len && pos < bits) {
      r = (a >> pos) & maskBits(std::min(len, bits - pos));
      if (isSigned(ty)) {
        unsigned top = std::min(pos + len - 1, bits - 1);
        bool sign = (a >> top) & 1;
        if (sign)
          r |= ~maskBits(std::min(len, bits - pos));
      }
    } else if (isSigned(ty) && len) {
      r = (a >> (bits - 1)) & 1 ? ~uint64_t(0) : 0;
    }
    set(t, o[0], r, ty);
    return;
  }
  case O_BFI: {
    unsigned bits = bitsOf(ty);
    uint64_t f = get(t, o[1], ty), b = get(t, o[2], ty);
    unsigned pos = unsigned(get(t, o[3], T_U32) & 0xff),
             len = unsigned(get(t, o[4], T_U32) & 0xff);
    uint64_t r = b;
    if (len && pos < bits) {
      uint64_t m = maskBits(std::min(len, bits - pos)) << pos;
      r = (b & ~m) | ((f << pos) & m);
    }
    set(t, o[0], r, ty);
    return;
  }
  case O_PRMT: {
    uint64_t a = get(t, o[1], T_B32) & 0xffffffff,
             b = get(t, o[2], T_B32) & 0xffffffff,
             c = get(t, o[3], T_B32);
    uint64_t both = b << 32 | a, r = 0;
    for (int i = 0; i < 4; ++i) {
      unsigned sel = (c >> (4 * i)) & 0xf;
      uint64_t byte = (both >> (8 * (sel & 7))) & 0xff;
      if (sel & 8)
        byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * i);
    }
    set(t, o[0], r, T_B32);
    return;
  }
  case O_TESTP: {
    double x = toD(ty, get(t, o[1], ty));
    bool r = in.cmp == "finite"     ? std::isfinite(x)
             : in.cmp == "infinite" ? std::isinf(x)
             : in.cmp == "number"   ? !std::isnan(x)
             : in.cmp == "notanumber" ? std::isnan(x)
             : in.cmp == "normal"   ? std::isnormal(x)
                                    : std::fpclassify(x) == FP_SUBNORMAL;
    set(t, o[0], r, T_PRED);
    return;
  }
  case O_CPASYNC: {
    // cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}
    uint64_t dst = address(t, o[0]), src = address(t, o[1]);
    uint64_t size = get(t, o[2], T_U32);
    uint64_t srcSize = o.size() > 3 ? get(t, o[3], T_U32) & 0xffffffff
                                    : size;
    if (size != 4 && size != 8 && size != 16)
      fail(where(t) + ": cp.async size must be 4, 8 or 16");
    if (srcSize > size)
      fail(where(t) + ": cp.async src-size larger than the copy");
    if (dst % size || (srcSize && src % size))
      fail(where(t) + ": misaligned cp.async");
    Thread::Copy c{dst, std::vector<uint8_t>(size, 0)};
    if (srcSize) {
      if (!valid(src, srcSize))
        fail(where(t) + ": cp.async reads " + std::to_string(srcSize) +
             " bytes at 0x" + hex(src) + " outside device memory");
      std::memcpy(c.data.data(), reinterpret_cast<const void *>(src),
                  srcSize);
    }
    checkShared(t, dst, size);
    for (uint64_t i = dst; i < dst + size; ++i) {
      if (readEpoch[i] == epoch && reader[i] != id(t))
        fail(where(t) + ": race: cp.async into shared byte " +
             std::to_string(i) + " that another thread read since the "
             "last barrier");
      if (inflight[i])
        fail(where(t) + ": cp.async into shared byte " + std::to_string(i) +
             " that " + inflightWriter(i) + " may still be writing");
      if (asyncReaders[i])
        fail(where(t) + ": cp.async into shared byte " + std::to_string(i) +
             " that " + asyncReader(i) + " may still be reading");
      if (mbarByte[i])
        fail(where(t) + ": cp.async into shared byte " + std::to_string(i) +
             " of the mbarrier object at " + std::to_string(i & ~7ull));
      inflight[i]++;
    }
    t.open.push_back(std::move(c));
    return;
  }
  case O_CPCOMMIT:
    t.groups.push_back(std::move(t.open));
    t.open.clear();
    return;
  case O_CPWAIT: {
    size_t keep = in.cmp == "all" ? 0 : size_t(get(t, o[0], T_U32));
    if (in.cmp == "all" && !t.open.empty()) {
      t.groups.push_back(std::move(t.open));
      t.open.clear();
    }
    while (t.groups.size() > keep) {
      for (Thread::Copy &c : t.groups.front()) {
        for (uint64_t i = c.dst; i < c.dst + c.data.size(); ++i)
          inflight[i]--;
        sharedWrite(t, c.dst, c.data.data(), c.data.size(), true);
      }
      t.groups.erase(t.groups.begin());
    }
    return;
  }
  case O_MBAR_INIT:
  case O_MBAR_ARRIVE:
  case O_MBAR_EXPECT_TX:
  case O_MBAR_INVAL:
    return mbarrier(t, in);
  case O_TMA_LOAD:
    return tmaLoad(t, in);
  case O_TMA_STORE:
    return tmaStore(t, in);
  case O_BULK_COMMIT:
    t.bulkGroups.push_back(std::move(t.bulkOpen));
    t.bulkOpen.clear();
    return;
  case O_BULK_WAIT: {
    // cp.async.bulk.wait_group{.read} N: the store reads shared memory
    // and writes global memory here, at the latest moment the ISA allows
    // (.read only promises the reads; the writes come no later).
    size_t keep = size_t(get(t, o[0], T_U32));
    while (t.bulkGroups.size() > keep) {
      for (size_t s : t.bulkGroups.front())
        performStore(stores[s]);
      t.bulkGroups.pop_front();
    }
    return;
  }
  case O_FENCE_PROXY_ASYNC:
    // Orders this thread's earlier generic-proxy writes (st.shared,
    // cp.async) before later async-proxy reads of them (wgmma, bulk tensor
    // stores) and its earlier mbarrier.init before TMA completions.
    t.proxyFence = t.mbarInitFence = genericWrites;
    return;
  case O_FENCE_MBAR_INIT:
    t.mbarInitFence = genericWrites;
    return;
  case O_MAPA:
    return mapa(t, in);
  case O_CLUSTER_ARRIVE:
    return clusterArrive(t, in);
  default:
    fail(where(t) + ": unsupported instruction");
  }
}

void Block::collective(size_t lo, size_t hi, const Inst &in) {
  current = &threads[lo];
  if (hi - lo != 32)
    fail(where(threads[lo]) + ": collective in a partial warp");
  switch (in.op) {
  case O_SHFL:
    return shfl(lo, in);
  case O_MMA:
    return mma(lo, in);
  case O_LDMATRIX:
    return ldmatrix(lo, in);
  case O_ELECT: {
    // elect.sync d|p, membermask: the lowest lane of the mask leads; every
    // lane gets the leader's lane id in d, p is true in the leader only. The
    // collective runs once all 32 lanes arrived: only a full mask is
    // modelled.
    for (size_t i = lo; i < hi; ++i)
      if ((get(threads[i], in.ops[1], T_B32) & 0xffffffff) != 0xffffffff)
        fail(where(threads[i]) + ": elect.sync with a membermask other than "
                                 "0xffffffff is not simulated");
    for (size_t i = lo; i < hi; ++i) {
      set(threads[i], in.ops[0], 0, T_B32);
      set(threads[i], in.highPred, i == lo, T_PRED);
    }
    return;
  }
  default:
    fail("not a collective");
  }
}

void Block::shfl(size_t lo, const Inst &in) {
  // shfl.sync.mode.b32 d[|p], a, b, c, membermask
  const auto &o = in.ops;
  uint64_t vals[32];
  for (int i = 0; i < 32; ++i)
    vals[i] = get(threads[lo + i], o[1], T_B32);
  for (int lane = 0; lane < 32; ++lane) {
    Thread &t = threads[lo + lane];
    uint32_t b = uint32_t(get(t, o[2], T_B32)) & 31,
             c = uint32_t(get(t, o[3], T_B32));
    uint32_t mask = (c >> 8) & 31, clamp = c & 31;
    int maxLane = int((uint32_t(lane) & mask) | (clamp & ~mask));
    int minLane = int(uint32_t(lane) & mask);
    int j = lane;
    bool ok;
    if (in.cmp == "up") {
      j = lane - int(b);
      ok = j >= maxLane;
    } else if (in.cmp == "down") {
      j = lane + int(b);
      ok = j <= maxLane;
    } else if (in.cmp == "bfly") {
      j = lane ^ int(b);
      ok = j <= maxLane;
    } else {
      j = minLane | int(b & ~mask);
      ok = j <= maxLane;
    }
    if (!ok)
      j = lane;
    const Operand &dst = o[0];
    set(t, dst, vals[j], T_B32);
  }
}

void Block::ldmatrix(size_t lo, const Inst &in) {
  // ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 {d..}, [addr]
  unsigned num = in.vec;
  const Operand &dst = in.ops[0];
  uint64_t rowAddr[32];
  for (int i = 0; i < 32; ++i)
    rowAddr[i] = address(threads[lo + i], in.ops[1]);
  for (int lane = 0; lane < 32; ++lane) {
    Thread &t = threads[lo + lane];
    int g = lane / 4, q = lane % 4;
    for (unsigned j = 0; j < num; ++j) {
      uint32_t word = 0;
      for (int h = 0; h < 2; ++h) {
        // Element (row, col) of matrix j: row from lane 8j + row.
        int row = in.trans ? 2 * q + h : g;
        int col = in.trans ? g : 2 * q + h;
        uint64_t a = rowAddr[8 * j + row];
        if (a % 16)
          fail(where(t) + ": ldmatrix row address not 16-byte aligned");
        uint16_t v;
        uint64_t sa = a >= kSharedWindow ? a - kSharedWindow : a;
        sharedRead(t, sa + 2 * uint64_t(col), &v, 2);
        word |= uint32_t(v) << (16 * h);
      }
      const Operand &d = dst.kind == Operand::Vec ? dst.elems[j] : dst;
      set(t, d, word, T_B32);
    }
  }
}

void Block::mma(size_t lo, const Inst &in) {
  if (in.tf32)
    return mmaTf32(lo, in);
  // mma.sync.aligned.m16n8k16.row.col.D.A.B.C {d}, {a}, {b}, {c}
  if (in.m != 16 || in.n != 8 || in.k != 16 ||
      !(in.mmaA == T_BF16 || in.mmaA == T_F16))
    fail(where(threads[lo]) + ": only mma m16n8k16 with f16/bf16 "
                              "operands is simulated");
  Ty half = in.mmaA;
  double A[16][16], B[16][8], C[16][8];
  bool f16Acc = in.mmaC == T_F16;
  const auto &o = in.ops;
  for (int lane = 0; lane < 32; ++lane) {
    Thread &t = threads[lo + lane];
    int g = lane / 4, q = lane % 4;
    for (int i = 0; i < 4; ++i) {
      uint64_t w = get(t, o[1].elems[i], T_B32);
      for (int h = 0; h < 2; ++h)
        A[g + 8 * (i % 2)][2 * q + h + 8 * (i / 2)] =
            toD(half, (w >> (16 * h)) & 0xffff);
    }
    for (int i = 0; i < 2; ++i) {
      uint64_t w = get(t, o[2].elems[i], T_B32);
      for (int h = 0; h < 2; ++h)
        B[2 * q + h + 8 * i][g] = toD(half, (w >> (16 * h)) & 0xffff);
    }
    if (f16Acc) {
      for (int i = 0; i < 2; ++i) {
        uint64_t w = get(t, o[3].elems[i], T_B32);
        for (int h = 0; h < 2; ++h)
          C[g + 8 * i][2 * q + h] = toD(T_F16, (w >> (16 * h)) & 0xffff);
      }
    } else {
      for (int i = 0; i < 4; ++i)
        C[g + 8 * (i / 2)][2 * q + i % 2] =
            asF(get(t, o[3].elems[i], T_F32));
    }
  }
  double D[16][8];
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c) {
      double s = 0;
      for (int k = 0; k < 16; ++k)
        s += A[r][k] * B[k][c];
      D[r][c] = double(float(s + C[r][c]));
    }
  bool f16Out = in.mmaD == T_F16;
  for (int lane = 0; lane < 32; ++lane) {
    Thread &t = threads[lo + lane];
    int g = lane / 4, q = lane % 4;
    if (f16Out) {
      for (int i = 0; i < 2; ++i) {
        uint64_t w = fromD(T_F16, D[g + 8 * i][2 * q]) |
                     fromD(T_F16, D[g + 8 * i][2 * q + 1]) << 16;
        set(t, o[0].elems[i], w, T_B32);
      }
    } else {
      for (int i = 0; i < 4; ++i)
        set(t, o[0].elems[i],
            fromF(float(D[g + 8 * (i / 2)][2 * q + i % 2])), T_F32);
    }
  }
}
void Block::mmaTf32(size_t lo, const Inst &in) {
  // mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {d0..3}, {a0..3},
  // {b0, b1}, {c0..3}: A (row g, col q), (g + 8, q), (g, q + 4),
  // (g + 8, q + 4); B (row q, col g), (q + 4, g); C and D as m16n8k16's.
  // Each operand is the b32's upper 19 bits (its low 13 ignored).
  if (in.m != 16 || in.n != 8 || in.k != 8 || in.mmaD != T_F32 ||
      in.mmaC != T_F32)
    fail(where(threads[lo]) + ": only mma m16n8k8 .f32.tf32.tf32.f32 is "
                              "simulated for tf32");
  auto tf32 = [](uint64_t w) { return double(u2f(uint32_t(w) & 0xffffe000)); };
  double A[16][8], B[8][8], C[16][8];
  const auto &o = in.ops;
  for (int lane = 0; lane < 32; ++lane) {
    Thread &t = threads[lo + lane];
    int g = lane / 4, q = lane % 4;
    for (int i = 0; i < 4; ++i)
      A[g + 8 * (i % 2)][q + 4 * (i / 2)] =
          tf32(get(t, o[1].elems[i], T_B32));
    for (int i = 0; i < 2; ++i)
      B[q + 4 * i][g] = tf32(get(t, o[2].elems[i], T_B32));
    for (int i = 0; i < 4; ++i)
      C[g + 8 * (i / 2)][2 * q + i % 2] = asF(get(t, o[3].elems[i], T_F32));
  }
  for (int lane = 0; lane < 32; ++lane) {
    Thread &t = threads[lo + lane];
    int g = lane / 4, q = lane % 4;
    for (int i = 0; i < 4; ++i) {
      int r = g + 8 * (i / 2), c = 2 * q + i % 2;
      double s = C[r][c];
      for (int k = 0; k < 8; ++k)
        s += A[r][k] * B[k][c];
      set(t, o[0].elems[i], fromF(float(s)), T_F32);
    }
  }
}
} // namespace ptxsim::detail
