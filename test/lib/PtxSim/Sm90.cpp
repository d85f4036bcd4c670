//===- Sm90.cpp - the PTX simulator's sm_90a instructions -----------------===//
//
// sm_90a (Hopper.h has the ISA's arithmetic):
// - wgmma.mma_async m64nNk16 with .f32 accumulators and bf16/f16 A and B,
//   A from a matrix descriptor or registers, B from one: every layout of
//   the ISA (K- or MN-major by imm-trans, no swizzle or a 32-, 64-,
//   128-byte one), imm-scale-a/b, scale-d; m64nNk32 on .e4m3/.e5m2 A and B
//   (mixed too) and m64nNk8 on .tf32 ones (f32 words, the low 13 mantissa
//   bits dropped) from descriptors, K-major as the ISA fixes them (no
//   imm-trans operands). Issuing checks the operands
//   (descriptors and scale-d the same in all 128 threads, a wgmma.fence
//   since each register's last access) and locks the shared bytes and
//   registers it uses; the product is computed when the wait_group that
//   retires it runs, from shared memory then: until then a write of those
//   bytes (st.shared, cp.async, TMA), an access of those registers (other
//   than by the next wgmma of the same accumulator) or the block's exit is
//   an error, and a missing wait leaves wrong numbers too.
// - cp.async.bulk.tensor .1d-.5d .tile loads with mbarrier::complete_tx
//   (out-of-bounds elements zero, the map's swizzle applied to the shared
//   address) and stores with bulk_group (out-of-bounds elements dropped,
//   run at cp.async.bulk.wait_group; cp.reduce.async.bulk.tensor's .add
//   likewise, adding in the map's INT32, FLOAT16, FLOAT32 or BFLOAT16
//   instead of writing); the tensor map is the stand-in
//   driver's encoding (TensorMap.h), at a cvta.param'd parameter or in
//   global memory.
// - mbarrier init/arrive{.expect_tx}/expect_tx/try_wait{.parity}/
//   test_wait/inval with the ISA's phases and transaction counts;
//   fence.mbarrier_init (or fence.proxy.async) must follow an init before a
//   TMA signals the object.
// - fence.proxy.async: shared bytes written through the generic proxy
//   (st.shared, cp.async) and read by wgmma or a TMA store need one from
//   their writer after the write.
// - setmaxnreg (its operand's range only), named barriers with counts,
//   elect.sync over a full warp (Block.cpp).
// - Clusters (Cluster.cpp): a TMA load into another CTA of the cluster, or
//   .multicast::cluster into each CTA of its ctaMask, and mbarrier.arrive
//   on another CTA's mbarrier.
// Not modelled, an error where met: im2col, bulk copies without .tensor,
// integer wgmma, fp8 and tf32 A from registers, .f16 accumulators, sparse
// wgmma, descriptor base offsets, interleaved maps, NaN fill, element strides,
// the 128-byte swizzles with 32/64-byte atoms, mbarrier operations other than
// arrive on another CTA's mbarrier.
//
//===----------------------------------------------------------------------===//

#include "Block.h"
#include "Cluster.h"

#include "tilec/Support/FloatFormats.h"

#include <algorithm>
#include <cstring>

namespace ptxsim::detail {

bool Block::warpgroupCollectives() {
  size_t n = threads.size();
  bool progress = false;
  for (size_t g = 0; g < warpgroups.size(); ++g) {
    size_t lo = g * 128, hi = std::min(n, lo + 128);
    bool all = true;
    int pc = -1;
    for (size_t t = lo; t < hi; ++t) {
      if (threads[t].st != State::WgColl) {
        all = false;
        continue;
      }
      if (hi - lo != 128)
        fail(where(threads[t]) + ": a warpgroup instruction in a block of " +
             std::to_string(n) + " threads, which leave warpgroup " +
             std::to_string(g) + " incomplete");
      if (pc == -1)
        pc = threads[t].pc;
      else if (pc != threads[t].pc)
        all = false;
    }
    if (!all || pc < 0)
      continue;
    warpgroupCollective(g, p.insts[pc]);
    for (size_t t = lo; t < hi; ++t) {
      threads[t].st = State::Run;
      threads[t].pc++;
    }
    progress = true;
    ++events;
  }
  return progress;
}

bool Block::mbarChanged(const Thread &t) const {
  auto it = mbars.find(t.sleepMbar);
  return it == mbars.end() || it->second.b.phase != t.sleepPhase;
}

void Block::touch(const Thread &t, int reg) const {
  if (t.inflightUse[reg]) {
    int line = 0;
    const Warpgroup &g = warpgroups[t.tid / 128];
    auto uses = [&](const WgmmaOp &op) {
      for (int i = 0; i < 2; ++i)
        for (const Operand &e : p.insts[op.pc].ops[i].elems)
          if (e.kind == Operand::Reg && e.reg == reg)
            return true;
      return false;
    };
    for (const WgmmaOp &op : g.open)
      if (!line && uses(op))
        line = p.insts[op.pc].line;
    for (const auto &grp : g.groups)
      for (const WgmmaOp &op : grp)
        if (!line && uses(op))
          line = p.insts[op.pc].line;
    fail(where(t) + ": accesses register " + p.regNames[reg] +
         ", which the in-flight wgmma.mma_async of line " +
         std::to_string(line) +
         " uses: no wgmma.wait_group has retired it");
  }
  t.regAccess[reg] = t.seq;
  t.regAccessPc[reg] = t.pc;
}

std::string Block::inflightWriter(uint64_t i) const {
  for (const TensorCopy &c : loads)
    if (i >= c.smem && i < c.smem + c.bytes)
      return "the TMA load of line " + std::to_string(p.insts[c.pc].line) +
             (c.source == rank
                  ? ""
                  : " (issued by cluster rank " + std::to_string(c.source) +
                        ")");
  return "a cp.async";
}

std::string Block::asyncReader(uint64_t i) const {
  for (const Warpgroup &g : warpgroups) {
    auto covers = [&](const WgmmaOp &op) {
      for (const auto *v : {&op.aAddr, &op.bAddr})
        for (uint64_t x : *v)
          if (i >= x && i < x + 2)
            return true;
      return false;
    };
    for (const WgmmaOp &op : g.open)
      if (covers(op))
        return "the in-flight wgmma.mma_async of line " +
               std::to_string(p.insts[op.pc].line);
    for (const auto &grp : g.groups)
      for (const WgmmaOp &op : grp)
        if (covers(op))
          return "the in-flight wgmma.mma_async of line " +
                 std::to_string(p.insts[op.pc].line);
  }
  auto store = [&](size_t s) {
    return i >= stores[s].smem && i < stores[s].smem + stores[s].bytes;
  };
  for (const Thread &t : threads) {
    for (size_t s : t.bulkOpen)
      if (store(s))
        return "the cp.async.bulk tensor store of line " +
               std::to_string(p.insts[stores[s].pc].line);
    for (const auto &grp : t.bulkGroups)
      for (size_t s : grp)
        if (store(s))
          return "the cp.async.bulk tensor store of line " +
                 std::to_string(p.insts[stores[s].pc].line);
  }
  return "an asynchronous read";
}

uint64_t Block::mbarAddress(const Thread &t, const Inst &in, const Operand &o,
                            Block **owner) {
  uint64_t a = address(t, o);
  bool cluster = in.clusterSpace;
  if (in.space == S_GENERIC) {
    if (a < kSharedWindow || a >= kLocalWindow)
      fail(where(t) + ": the mbarrier's generic address 0x" + hex(a) +
           " is not in shared memory");
    a -= kSharedWindow;
    cluster = true;
  }
  Block &b = sharedOwner(t, a, cluster);
  if (owner)
    *owner = &b;
  else if (&b != this)
    fail(where(t) + ": only mbarrier.arrive may reach the mbarrier of "
                    "another CTA of the cluster (here cluster rank " +
         std::to_string(b.rank) + "'s)");
  return a;
}

Block::Mbarrier &Block::liveMbar(const Thread &t, uint64_t a,
                                 const char *what) {
  auto it = mbars.find(a);
  if (it == mbars.end())
    fail(where(t) + ": " + what + " on shared " + std::to_string(a) + of(t) +
         ", where no mbarrier.init made an mbarrier object");
  return it->second;
}

void Block::phaseDone(const Mbarrier &m, uint64_t phaseBefore) {
  if (m.b.phase != phaseBefore)
    ++epoch;
}

void Block::mbarrier(Thread &t, const Inst &in) {
  const auto &o = in.ops;
  if (in.op == O_MBAR_INIT) { // init [addr], count
    uint64_t a = mbarAddress(t, in, o[0]);
    if (a % 8)
      fail(where(t) + ": mbarrier object at shared " + std::to_string(a) +
           " is not 8-byte aligned");
    checkShared(t, a, 8);
    if (mbars.count(a))
      fail(where(t) + ": mbarrier.init on shared " + std::to_string(a) +
           ", which holds a valid mbarrier (initialized at line " +
           std::to_string(mbars[a].line) + "; mbarrier.inval it first)");
    for (uint64_t i = a; i < a + 8; ++i) {
      if (inflight[i] || asyncReaders[i])
        fail(where(t) + ": mbarrier.init on shared byte " +
             std::to_string(i) + ", which an asynchronous copy or wgmma "
             "may still access");
      mbarByte[i] = 1;
    }
    Mbarrier m;
    if (std::string e = m.b.init(get(t, o[1], T_U32)); !e.empty())
      fail(where(t) + ": " + e);
    m.initThread = t.tid;
    m.initWrite = ++genericWrites;
    m.line = in.line;
    mbars[a] = m;
    ++events;
    return;
  }
  if (in.op == O_MBAR_INVAL) { // inval [addr]
    uint64_t a = mbarAddress(t, in, o[0]);
    liveMbar(t, a, "mbarrier.inval");
    for (const TensorCopy &c : loads)
      if (c.mbar == a)
        fail(where(t) + ": mbarrier.inval of the mbarrier that the TMA "
                        "load of line " +
             std::to_string(p.insts[c.pc].line) + " will signal");
    mbars.erase(a);
    for (uint64_t i = a; i < a + 8; ++i)
      mbarByte[i] = 0;
    ++events;
    return;
  }
  if (in.op == O_MBAR_EXPECT_TX) { // expect_tx [addr], txCount
    uint64_t a = mbarAddress(t, in, o[0]);
    Mbarrier &m = liveMbar(t, a, "mbarrier.expect_tx");
    uint64_t phase = m.b.phase;
    if (std::string e = m.b.expectTx(get(t, o[1], T_U32)); !e.empty())
      fail(where(t) + ": mbarrier at shared " + std::to_string(a) + ": " + e);
    phaseDone(m, phase);
    ++events;
    return;
  }
  // arrive{.expect_tx} state, [addr]{, count | txCount}: the mbarrier may
  // be another CTA's (a shared::cluster address).
  Block *owner = this;
  uint64_t a = mbarAddress(t, in, o[1], &owner);
  Block &d = *owner;
  if (&d != this)
    d.checkAlive(t, "mbarrier.arrive");
  Mbarrier &m = d.liveMbar(t, a, "mbarrier.arrive");
  if (&d != this)
    d.checkPeerInit(t, m, a, /*asyncProxy=*/false, "mbarrier.arrive");
  uint64_t phase = m.b.phase;
  uint64_t count = 1;
  std::string mbarName = "mbarrier at shared " + std::to_string(a) + d.of(t);
  if (in.expectTx) {
    if (o.size() < 3)
      fail(where(t) + ": mbarrier.arrive.expect_tx needs a txCount");
    if (std::string e = m.b.expectTx(get(t, o[2], T_U32)); !e.empty())
      fail(where(t) + ": " + mbarName + ": " + e);
  } else if (o.size() > 2) {
    count = get(t, o[2], T_U32);
  }
  uint64_t state = m.b.state();
  if (std::string e = m.b.arrive(count); !e.empty())
    fail(where(t) + ": " + mbarName + ": " + e);
  d.phaseDone(m, phase);
  if (&d != this) {
    RemoteOp op;
    op.arrive = true;
    op.mbar = a;
    op.phase = phase;
    d.noteRemote(t, op);
  }
  set(t, o[0], state, T_B64);
  ++events;
}

bool Block::mbarWait(Thread &t, const Inst &in) {
  const auto &o = in.ops;
  uint64_t a = mbarAddress(t, in, o[1]);
  Mbarrier &m = liveMbar(t, a, "mbarrier.try_wait");
  uint64_t v = get(t, o[2], in.parity ? T_U32 : T_B64);
  bool done = false;
  if (in.parity) {
    if (v > 1)
      fail(where(t) + ": phase parity " + std::to_string(v) +
           " is neither 0 nor 1");
    done = m.b.parityCompleted(unsigned(v));
  } else if (std::string e = m.b.stateCompleted(v, done); !e.empty()) {
    fail(where(t) + ": mbarrier at shared " + std::to_string(a) + ": " + e);
  }
  set(t, o[0], done, T_PRED);
  if (done)
    orderRemoteOps(a, m.b.phase);
  if (!done) {
    t.sleepMbar = a;
    t.sleepPhase = m.b.phase;
    t.sleepParity = in.parity ? int(v) : -1;
  }
  return done;
}

TensorMap Block::tensorMapOperand(Thread &t, const Operand &o) {
  unsigned char bytes[128];
  if (o.sym >= 0) // as ptxas: "state space mismatch"
    fail(where(t) + ": the tensor map operand must be a generic address "
                    "(cvta.param of the parameter), not the symbol " +
         p.symbols[o.sym].name);
  uint64_t a = address(t, o);
  bool param = a >= kParamWindow;
  if (param)
    a -= kParamWindow;
  if (param) {
    unsigned idx = unsigned(a >> 32), off = unsigned(a & 0xffffffff);
    if (idx >= l.params.size() || off + 128 > l.params[idx].size())
      fail(where(t) + ": the tensor map is not a 128-byte parameter");
    std::memcpy(bytes, l.params[idx].data() + off, 128);
  } else {
    if (a % 64 || !valid(a, 128))
      fail(where(t) + ": the tensor map at 0x" + hex(a) +
           " is neither a parameter nor 64-byte aligned device memory");
    std::memcpy(bytes, reinterpret_cast<const void *>(a), 128);
  }
  TensorMap m;
  if (std::string e = decodeTensorMap(bytes, m); !e.empty())
    fail(where(t) + ": the tensor map operand " + e);
  const char *why = nullptr;
  if (tensorMapElementBytes(m.dataType) == 0)
    why = "a packed sub-byte data type";
  else if (m.interleave != 0)
    why = "an interleaved layout";
  else if (m.swizzle > 3)
    why = "a 128-byte swizzle with a 32- or 64-byte atom";
  else if (m.oobFill != 0)
    why = "NaN fill of out-of-bounds elements";
  for (unsigned i = 0; i < m.rank && !why; ++i)
    if (m.elementStrides[i] != 1)
      why = "element strides other than 1";
  if (why)
    fail(where(t) + ": a tensor map with " + std::string(why) +
         " is not simulated");
  return m;
}

Block::TensorCopy Block::tensorCopy(Thread &t, const Inst &in,
                                    const Operand &map,
                                    const Operand &smemOperand) {
  TensorCopy c;
  c.pc = t.pc;
  c.thread = t.tid;
  c.map = tensorMapOperand(t, map);
  if (map.elems.size() != in.dims || c.map.rank != in.dims)
    fail(where(t) + ": a ." + std::to_string(in.dims) + "d copy with " +
         std::to_string(map.elems.size()) + " coordinates of a rank-" +
         std::to_string(c.map.rank) + " tensor map");
  for (unsigned i = 0; i < in.dims; ++i)
    c.coords[i] = int64_t(int32_t(get(t, map.elems[i], T_S32)));
  c.smem = address(t, smemOperand);
  if (c.smem >= kSharedWindow)
    fail(where(t) + ": the shared-memory operand is a generic address");
  // A load's destination is a shared::cluster address: its block's rank in
  // c.source until tmaLoad sends the copy there.
  if (in.op == O_TMA_LOAD)
    c.source = sharedOwner(t, c.smem, true).rank;
  c.bytes = tensorMapElementBytes(c.map.dataType);
  for (unsigned i = 0; i < c.map.rank; ++i)
    c.bytes *= c.map.box[i];
  if (c.smem % 128)
    fail(where(t) + ": the shared-memory address " +
         std::to_string(c.smem) + " of a bulk tensor copy is not "
                                  "128-byte aligned");
  checkShared(t, c.smem, c.bytes);
  return c;
}

template <typename F> void Block::forEachBoxElement(const TensorCopy &c, F f) {
  const TensorMap &m = c.map;
  unsigned e = tensorMapElementBytes(m.dataType);
  static const unsigned swizzleBytes[] = {0, 32, 64, 128};
  unsigned idx[5] = {};
  uint64_t linear = 0;
  while (true) {
    bool in = true;
    uint64_t g = m.address;
    for (unsigned d = 0; d < m.rank; ++d) {
      int64_t x = c.coords[d] + idx[d];
      in &= x >= 0 && uint64_t(x) < m.dims[d];
      g += uint64_t(x) * (d == 0 ? e : m.strides[d - 1]);
    }
    f(hopper::swizzle(c.smem + linear * e, swizzleBytes[m.swizzle]), g, in);
    ++linear;
    unsigned d = 0;
    while (d < m.rank && ++idx[d] == m.box[d])
      idx[d++] = 0;
    if (d == m.rank)
      return;
  }
}

void Block::tmaLoad(Thread &t, const Inst &in) {
  const auto &o = in.ops;
  if (o.size() != 3u + in.multicast + in.cacheHint)
    fail(where(t) + ": a tensor load takes [dst], [map, {...}], [mbar]" +
         (in.multicast ? ", ctaMask" : ""));
  TensorCopy c = tensorCopy(t, in, o[1], o[0]);
  unsigned dstRank = c.source;
  c.mbar = address(t, o[2]);
  unsigned mbarRank = sharedOwner(t, c.mbar, true).rank;
  c.thread = t.tid;
  c.source = rank;
  c.seq = cluster.loadSeq++;
  size_t n = cluster.blocks.size();
  if (!in.multicast) {
    if (mbarRank != dstRank)
      fail(where(t) + ": the TMA load's mbarrier is in cluster rank " +
           std::to_string(mbarRank) + ", its destination in rank " +
           std::to_string(dstRank) + ": they must be in one CTA");
    peer(dstRank).queueLoad(t, c);
    return;
  }
  // .multicast::cluster: the box lands at the same offset in every CTA of
  // ctaMask, each signalling its own mbarrier at the same offset.
  uint64_t mask = get(t, o[3], T_U16) & 0xffff;
  if (mask == 0 || mask >> n)
    fail(where(t) + ": the ctaMask 0x" + hex(mask) +
         " of a multicast names no CTA or one outside the cluster of " +
         std::to_string(n));
  for (unsigned r = 0; r < n; ++r)
    if (mask >> r & 1)
      peer(r).queueLoad(t, c);
}

void Block::queueLoad(const Thread &t, TensorCopy c) {
  if (&home(t) != this)
    checkAlive(t, "a TMA load");
  Mbarrier &m = liveMbar(t, c.mbar, "a TMA load's complete_tx");
  if (&home(t) != this) {
    checkPeerInit(t, m, c.mbar, /*asyncProxy=*/true, "a TMA load");
  } else {
    const Thread &init = threads[m.initThread];
    if (init.mbarInitFence < m.initWrite)
      fail(where(t) + ": the TMA load signals the mbarrier at shared " +
           std::to_string(c.mbar) + ", whose mbarrier.init (line " +
           std::to_string(m.line) + ", thread " +
           std::to_string(m.initThread) +
           ") no fence.mbarrier_init or fence.proxy.async made visible to "
           "the async proxy");
  }
  std::string into = of(t);
  forEachBoxElement(c, [&](uint64_t s, uint64_t, bool) {
    unsigned e = tensorMapElementBytes(c.map.dataType);
    checkShared(t, s, e); // a swizzle may move it past a short box
    for (uint64_t i = s; i < s + e; ++i) {
      if (inflight[i])
        fail(where(t) + ": TMA load into shared byte " + std::to_string(i) +
             into + " while " + inflightWriter(i) +
             " may still be writing it");
      if (asyncReaders[i])
        fail(where(t) + ": TMA load into shared byte " + std::to_string(i) +
             into + " that " + asyncReader(i) + " may still be reading");
      if (mbarByte[i])
        fail(where(t) + ": TMA load into shared byte " + std::to_string(i) +
             into + " of the mbarrier object at " +
             std::to_string(i & ~7ull));
    }
  });
  forEachBoxElement(c, [&](uint64_t s, uint64_t, bool) {
    for (uint64_t i = s; i < s + tensorMapElementBytes(c.map.dataType); ++i)
      inflight[i]++;
  });
  loads.push_back(c);
}

void Block::deliverLoad() {
  TensorCopy c = loads.front();
  loads.pop_front();
  const Thread &t = peer(c.source).threads[c.thread];
  unsigned e = tensorMapElementBytes(c.map.dataType);
  forEachBoxElement(c, [&](uint64_t s, uint64_t g, bool in) {
    unsigned char v[8] = {};
    if (in) {
      if (!valid(g, e))
        fail(where(t, c.pc) + ": the TMA load reads " + std::to_string(e) +
             " bytes at 0x" + hex(g) + " outside device memory");
      std::memcpy(v, reinterpret_cast<const void *>(g), e);
    }
    for (uint64_t i = s; i < s + e; ++i) {
      inflight[i]--;
      written[i] = 1;
      writer[i] = -1;
      writeEpoch[i] = -1; // ordered by its mbarrier, not by barriers
      genWrite[i] = 0;
    }
    std::memcpy(&smem[s], v, e);
  });
  // mbarrier.inval and a second init refuse while the load is pending.
  Mbarrier &m = mbars.at(c.mbar);
  uint64_t phase = m.b.phase;
  if (std::string err = m.b.completeTx(c.bytes); !err.empty())
    fail(where(t, c.pc) + ": complete_tx of the TMA load" + of(t) + ": " +
         err);
  phaseDone(m, phase);
  if (c.source != rank) {
    // Landed: this CTA must see it (its mbarrier wait) before it exits.
    RemoteOp op;
    op.source = id(t);
    op.pc = c.pc;
    op.tma = true;
    op.mbar = c.mbar;
    op.phase = phase;
    op.arrivals = ~uint64_t(0);
    remoteOps.push_back(op);
  }
  ++events;
}

void Block::checkAsyncRead(const Thread &t, uint64_t a, uint64_t n,
                           const char *who, bool ownWritesOrdered) {
  checkShared(t, a, n);
  for (uint64_t i = a; i < a + n; ++i) {
    if (inflight[i])
      fail(where(t) + ": " + who + " reads shared byte " +
           std::to_string(i) + " while " + inflightWriter(i) +
           " may still be writing it");
    if (mbarByte[i])
      fail(where(t) + ": " + who + " reads shared byte " +
           std::to_string(i) + " of the mbarrier object at " +
           std::to_string(i & ~7ull));
    if (!written[i])
      fail(where(t) + ": " + who + " reads shared byte " +
           std::to_string(i) + ", which nothing wrote");
    if (writeEpoch[i] == epoch &&
        !(ownWritesOrdered && writer[i] == id(t)))
      fail(where(t) + ": race: " + who + " reads shared byte " +
           std::to_string(i) + " written by " + threadName(writer[i], t) +
           " since the last barrier");
    if (genWrite[i] && byId(writer[i]).proxyFence < genWrite[i])
      fail(where(t) + ": " + who + " reads shared byte " +
           std::to_string(i) + ", which " + threadName(writer[i], t) +
           " wrote through the generic proxy with no fence.proxy.async "
           "after it");
  }
}

void Block::tmaStore(Thread &t, const Inst &in) {
  const auto &o = in.ops;
  if (o.size() != 2u + in.cacheHint)
    fail(where(t) + ": a tensor store takes [map, {...}], [src]");
  TensorCopy c = tensorCopy(t, in, o[0], o[1]);
  c.add = in.cmp == "reduce.add";
  unsigned e = tensorMapElementBytes(c.map.dataType);
  if (c.add && !(c.map.dataType == 3 || c.map.dataType == 6 ||
                 c.map.dataType == 7 || c.map.dataType == 9))
    fail(where(t) + ": the simulated reduce.add takes tensor maps of INT32, "
                    "FLOAT16, FLOAT32 or BFLOAT16 (data type " +
         std::to_string(c.map.dataType) + ")");
  // Elements outside the tensor are dropped: what shared memory holds
  // there does not matter.
  forEachBoxElement(c, [&](uint64_t s, uint64_t, bool in) {
    checkShared(t, s, e);
    if (in)
      checkAsyncRead(t, s, e, "the TMA store", /*ownWritesOrdered=*/true);
  });
  forEachBoxElement(c, [&](uint64_t s, uint64_t, bool) {
    for (uint64_t i = s; i < s + e; ++i)
      asyncReaders[i]++;
  });
  t.bulkOpen.push_back(stores.size());
  stores.push_back(c);
}

void Block::performStore(const TensorCopy &c) {
  const Thread &t = threads[c.thread];
  unsigned e = tensorMapElementBytes(c.map.dataType);
  forEachBoxElement(c, [&](uint64_t s, uint64_t g, bool in) {
    for (uint64_t i = s; i < s + e; ++i)
      asyncReaders[i]--;
    if (!in)
      return;
    if (!valid(g, e))
      fail(where(t, c.pc) + ": the TMA store writes " + std::to_string(e) +
           " bytes at 0x" + hex(g) + " outside device memory");
    if (c.add) {
      // Element by element, in the map's type (f16 and bf16 rounded to
      // nearest even once per element, as an atomic add does).
      void *dst = reinterpret_cast<void *>(g);
      if (c.map.dataType == 3) {
        uint32_t a, b;
        std::memcpy(&a, dst, 4), std::memcpy(&b, &smem[s], 4);
        a += b;
        std::memcpy(dst, &a, 4);
      } else if (c.map.dataType == 7) {
        float a, b;
        std::memcpy(&a, dst, 4), std::memcpy(&b, &smem[s], 4);
        a += b;
        std::memcpy(dst, &a, 4);
      } else {
        uint16_t a, b;
        std::memcpy(&a, dst, 2), std::memcpy(&b, &smem[s], 2);
        bool half = c.map.dataType == 6;
        float sum = half ? f16ToF32(a) + f16ToF32(b)
                         : bf16ToF32(a) + bf16ToF32(b);
        a = half ? f32ToF16(sum) : f32ToBf16(sum);
        std::memcpy(dst, &a, 2);
      }
      return;
    }
    std::memcpy(reinterpret_cast<void *>(g), &smem[s], e);
  });
  ++events;
}

void Block::warpgroupCollective(size_t g, const Inst &in) {
  Thread &t0 = threads[g * 128];
  current = &t0;
  switch (in.op) {
  case O_WGMMA_FENCE:
    for (size_t i = g * 128; i < g * 128 + 128; ++i) {
      threads[i].wgFenceSeq = threads[i].seq;
      threads[i].wgFencePc = threads[i].pc;
      threads[i].wgFenced = true;
    }
    return;
  case O_SETMAXNREG: {
    // setmaxnreg.{inc,dec}.sync.aligned.u32 N: only its operand's range
    // is checked; register counts do not change what the code computes.
    uint64_t nreg = in.ops.empty() || in.ops[0].kind != Operand::Imm
                        ? 0
                        : in.ops[0].imm;
    if (nreg < 24 || nreg > 256 || nreg % 8)
      fail(where(t0) + ": setmaxnreg's register count must be an "
                       "immediate in [24, 256] and a multiple of 8");
    return;
  }
  case O_WGMMA:
    return wgmmaIssue(g, in);
  case O_WGMMA_COMMIT:
    warpgroups[g].groups.push_back(std::move(warpgroups[g].open));
    warpgroups[g].open.clear();
    return;
  case O_WGMMA_WAIT: {
    if (in.ops.size() != 1 || in.ops[0].kind != Operand::Imm)
      fail(where(t0) + ": wgmma.wait_group takes an immediate count");
    size_t keep = size_t(in.ops[0].imm);
    while (warpgroups[g].groups.size() > keep) {
      for (WgmmaOp &op : warpgroups[g].groups.front())
        wgmmaRetire(g, op);
      warpgroups[g].groups.pop_front();
    }
    return;
  }
  default:
    fail("not a warpgroup instruction");
  }
}

bool Block::sharesRegister(const Operand &a, const Operand &b) {
  for (const Operand &x : a.elems)
    for (const Operand &y : b.elems)
      if (x.kind == Operand::Reg && y.kind == Operand::Reg && x.reg == y.reg)
        return true;
  return false;
}

bool Block::sameRegisters(const Operand &a, const Operand &b) {
  if (a.elems.size() != b.elems.size())
    return false;
  for (size_t i = 0; i < a.elems.size(); ++i)
    if (a.elems[i].kind != Operand::Reg || b.elems[i].kind != Operand::Reg ||
        a.elems[i].reg != b.elems[i].reg)
      return false;
  return true;
}

void Block::wgmmaIssue(size_t g, const Inst &in) {
  const Thread &t0 = threads[g * 128];
  const auto &o = in.ops;
  auto isFp8 = [](Ty t) { return t == T_E4M3 || t == T_E5M2; };
  bool fp8 = isFp8(in.mmaA);
  // .tf32 A and B: b32 words whose low 13 mantissa bits the tensor cores
  // drop (the parser marks them; their type is T_B32).
  bool tf32 = in.tf32;
  // K per instruction: 32 bytes of each operand's row.
  unsigned kk = fp8 ? 32 : tf32 ? 8 : 16;
  if (in.m != 64 || in.k != kk || in.n < 8 || in.n > 256 || in.n % 8)
    fail(where(t0) + ": only wgmma shapes m64nNk16 (m64nNk32 for fp8, "
                     "m64nNk8 for tf32; N a multiple of 8 up to 256) are "
                     "simulated");
  if (in.mmaD != T_F32)
    fail(where(t0) + ": only .f32 accumulators of wgmma are simulated");
  if (fp8    ? !isFp8(in.mmaB)
      : tf32 ? in.mmaA != T_B32 || in.mmaB != T_B32
             : (in.mmaA != T_BF16 && in.mmaA != T_F16) || in.mmaB != in.mmaA)
    fail(where(t0) + ": only wgmma on .bf16 or .f16 A and B, on "
                     ".e4m3/.e5m2 ones or on .tf32 ones is simulated");
  bool regA = o.size() > 1 && o[1].kind == Operand::Vec;
  if ((fp8 || tf32) && regA)
    fail(where(t0) + ": " + (fp8 ? "fp8" : "tf32") +
         " wgmma with A from registers is not simulated");
  // fp8 and tf32 take no imm-trans-a/b operands (both K-major).
  unsigned operands = (regA ? 7u : 8u) - (fp8 || tf32 ? 2u : 0u);
  if (o.size() != operands)
    fail(where(t0) + ": wgmma.mma_async takes " + std::to_string(operands) +
         " operands here");
  if (o[0].kind != Operand::Vec || o[0].elems.size() != in.n / 2)
    fail(where(t0) + ": the accumulator of m64n" + std::to_string(in.n) +
         "k" + std::to_string(kk) + ".f32 is " + std::to_string(in.n / 2) +
         " registers");
  if (regA && o[1].elems.size() != 4)
    fail(where(t0) + ": A from registers is 4 registers");
  for (const Operand *v : {&o[0], regA ? &o[1] : nullptr})
    if (v)
      for (const Operand &e : v->elems)
        if (e.kind != Operand::Reg)
          fail(where(t0) + ": wgmma's register operands must be registers");
  auto immediate = [&](size_t i, std::initializer_list<int64_t> allowed) {
    if (o[i].kind != Operand::Imm)
      fail(where(t0) + ": operand " + std::to_string(i + 1) +
           " of wgmma.mma_async must be an immediate");
    for (int64_t v : allowed)
      if (int64_t(o[i].imm) == v)
        return v;
    fail(where(t0) + ": operand " + std::to_string(i + 1) +
         " of wgmma.mma_async is " + std::to_string(int64_t(o[i].imm)) +
         ", out of its range");
  };
  WgmmaOp op;
  op.pc = t0.pc;
  op.scaleA = double(immediate(4, {1, -1}));
  op.scaleB = double(immediate(5, {1, -1}));
  bool transA = regA || fp8 || tf32 ? false : immediate(6, {0, 1}) == 1;
  bool transB = fp8 || tf32 ? false : immediate(regA ? 6 : 7, {0, 1}) == 1;
  // The descriptors and scale-d: one value for the whole warpgroup.
  uint64_t descA = regA ? 0 : get(t0, o[1], T_B64);
  uint64_t descB = get(t0, o[2], T_B64);
  op.scaleD = get(t0, o[3], T_PRED) & 1;
  for (size_t i = g * 128; i < g * 128 + 128; ++i) {
    const Thread &t = threads[i];
    if ((!regA && get(t, o[1], T_B64) != descA) ||
        get(t, o[2], T_B64) != descB)
      fail(where(t) + ": the matrix descriptors differ between threads "
                      "of the warpgroup (thread " +
           std::to_string(t0.tid) + "'s and this one's)");
    if ((get(t, o[3], T_PRED) & 1) != op.scaleD)
      fail(where(t) + ": scale-d differs between threads of the warpgroup");
  }
  // wgmma.fence: before the warpgroup's first wgmma, and between a
  // thread's access of a register and a wgmma that uses it (a chain of
  // wgmma on one accumulator needs none: their own accesses are not
  // recorded).
  for (size_t i = g * 128; i < g * 128 + 128; ++i) {
    const Thread &t = threads[i];
    if (!t.wgFenced)
      fail(where(t) + ": wgmma.mma_async with no wgmma.fence before it");
    for (const Operand *v : {&o[0], regA ? &o[1] : nullptr})
      if (v)
        for (const Operand &e : v->elems)
          if (t.regAccess[e.reg] > t.wgFenceSeq) {
            const Inst &access = p.insts[t.regAccessPc[e.reg]];
            std::string what =
                "register " + p.regNames[e.reg] + " was accessed by line " +
                std::to_string(access.line) + " '" + brief(access.text) +
                "' after the wgmma.fence of line " +
                std::to_string(p.insts[t.wgFencePc].line) +
                ": a wgmma.fence must order the access before the "
                "wgmma.mma_async";
            if (!l.fenceNote)
              fail(where(t) + ": " + what);
            // Once per access and launch: ptxas repairs this (its C7519
            // "warpgroup.arrive is injected"), at a cost.
            if (noted.insert(t.regAccessPc[e.reg]).second)
              l.fenceNote("line " + std::to_string(in.line) + " '" +
                          brief(in.text) + "': " + what);
            break;
          }
  }
  // In-flight ops may share this one's accumulator only as the same
  // chain (the same registers, shape and types), and neither may use the
  // other's accumulator as A.
  const Warpgroup &wg = warpgroups[g];
  auto conflicts = [&](const WgmmaOp &x) {
    const Inst &xi = p.insts[x.pc];
    bool xRegA = xi.ops[1].kind == Operand::Vec;
    if (sharesRegister(xi.ops[0], o[0]) &&
        !(sameRegisters(xi.ops[0], o[0]) && xi.n == in.n &&
          xi.mmaA == in.mmaA))
      fail(where(t0) + ": shares accumulator registers with the in-flight "
                       "wgmma.mma_async of line " +
           std::to_string(xi.line) + " without being its chain");
    if ((regA && sharesRegister(xi.ops[0], o[1])) ||
        (xRegA && sharesRegister(xi.ops[1], o[0])))
      fail(where(t0) + ": uses as A the accumulator of the in-flight "
                       "wgmma.mma_async of line " +
           std::to_string(xi.line) + " (or the other way round)");
  };
  for (const WgmmaOp &x : wg.open)
    conflicts(x);
  for (const auto &grp : wg.groups)
    for (const WgmmaOp &x : grp)
      conflicts(x);
  // The shared-memory operands.
  unsigned e = fp8 ? 1 : tf32 ? 4 : 2;
  hopper::MatrixDescriptor da, db;
  if (!regA)
    if (std::string err = hopper::decodeDescriptor(descA, da); !err.empty())
      fail(where(t0) + ": a-desc 0x" + hex(descA) + ": " + err);
  if (std::string err = hopper::decodeDescriptor(descB, db); !err.empty())
    fail(where(t0) + ": b-desc 0x" + hex(descB) + ": " + err);
  if (!regA)
    for (unsigned m = 0; m < 64; ++m)
      for (unsigned k = 0; k < kk; ++k)
        op.aAddr.push_back(hopper::operandAddress(da, transA, m, k, e));
  for (unsigned k = 0; k < kk; ++k)
    for (unsigned n = 0; n < in.n; ++n)
      op.bAddr.push_back(hopper::operandAddress(db, transB, n, k, e));
  for (const auto *v : {&op.aAddr, &op.bAddr})
    for (uint64_t a : *v)
      checkAsyncRead(t0, a, e, "wgmma.mma_async");
  for (const auto *v : {&op.aAddr, &op.bAddr})
    for (uint64_t a : *v)
      for (uint64_t i = a; i < a + e; ++i)
        asyncReaders[i]++;
  for (size_t i = g * 128; i < g * 128 + 128; ++i)
    for (const Operand *v : {&o[0], regA ? &o[1] : nullptr})
      if (v)
        for (const Operand &r : v->elems)
          threads[i].inflightUse[r.reg]++;
  warpgroups[g].open.push_back(std::move(op));
}

void Block::wgmmaRetire(size_t g, const WgmmaOp &op) {
  const Inst &in = p.insts[op.pc];
  const auto &o = in.ops;
  bool regA = o[1].kind == Operand::Vec;
  Ty half = in.mmaA;
  unsigned n = in.n, kk = in.k, e = bitsOf(in.mmaA) / 8;
  std::vector<double> A(64 * kk), B(kk * n), C(64 * n, 0.0);
  auto element = [&](uint64_t a, Ty ty) {
    if (ty == T_E4M3 || ty == T_E5M2)
      return tilec::decodeFloat(
          smem[a], ty == T_E4M3 ? tilec::DType::F8E4M3FN : tilec::DType::F8E5M2);
    if (in.tf32) { // the f32 bits with the low 13 of the mantissa dropped
      uint32_t w;
      std::memcpy(&w, &smem[a], 4);
      return double(u2f(w & 0xffffe000u));
    }
    uint16_t v;
    std::memcpy(&v, &smem[a], 2);
    return toD(ty, v);
  };
  for (size_t i = 0; i < op.aAddr.size(); ++i)
    A[i] = element(op.aAddr[i], in.mmaA) * op.scaleA;
  for (size_t i = 0; i < op.bAddr.size(); ++i)
    B[i] = element(op.bAddr[i], in.mmaB) * op.scaleB;
  for (unsigned i = 0; i < 128; ++i) {
    const Thread &t = threads[g * 128 + i];
    unsigned w = i / 32, gr = (i % 32) / 4, q = i % 4;
    if (regA)
      for (unsigned j = 0; j < 4; ++j) {
        uint64_t bits = t.r[o[1].elems[j].reg];
        for (unsigned h = 0; h < 2; ++h)
          A[(16 * w + gr + 8 * (j % 2)) * 16 + 2 * q + h + 8 * (j / 2)] =
              toD(half, (bits >> (16 * h)) & 0xffff) * op.scaleA;
      }
    if (op.scaleD)
      for (unsigned j = 0; j < n / 2; ++j)
        C[(16 * w + gr + 8 * ((j % 4) / 2)) * n + 8 * (j / 4) + 2 * q +
          j % 2] = asF(t.r[o[0].elems[j].reg]);
  }
  for (unsigned i = 0; i < 128; ++i) {
    Thread &t = threads[g * 128 + i];
    unsigned w = i / 32, gr = (i % 32) / 4, q = i % 4;
    for (unsigned j = 0; j < n / 2; ++j) {
      unsigned row = 16 * w + gr + 8 * ((j % 4) / 2),
               col = 8 * (j / 4) + 2 * q + j % 2;
      double sum = 0;
      for (unsigned k = 0; k < kk; ++k)
        sum += A[row * kk + k] * B[k * n + col];
      t.r[o[0].elems[j].reg] = fromF(float(sum + C[row * n + col]));
    }
    for (const Operand *v : {&o[0], regA ? &o[1] : nullptr})
      if (v)
        for (const Operand &r : v->elems)
          t.inflightUse[r.reg]--;
  }
  for (const auto *v : {&op.aAddr, &op.bAddr})
    for (uint64_t a : *v)
      for (uint64_t i = a; i < a + e; ++i)
        asyncReaders[i]--;
}
} // namespace ptxsim::detail
