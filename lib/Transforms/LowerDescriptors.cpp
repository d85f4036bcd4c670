//===- LowerDescriptors.cpp - tensor descriptor accesses through the TMA --===//
//
// Assumes: kernels with layouts (tile-assign-layouts), tile.descriptor_load
// results that feed a dot separated from it by a tile.convert_layout.
// Guarantees: no tile.descriptor_load / tile.descriptor_store is left; on
// a target without the TMA (before sm_90) each is a located error.
//
// A loop's wgmma dots whose B operand (and A, or A is a register tile in
// the accumulator layout's dot_operand, or A is read in place from the slot
// of a descriptor load outside the loop, loaded once: attention's Q) is
// `tile.descriptor_load(d, offsets)` behind tile.convert_layout and at most
// one 2-D tile.trans (read through a tilegpu.trans_view of the slot: K^T
// from K's block), the offsets computed in the loop from its induction
// variable and values from outside alone (pure, region-free ops), read
// their staged blocks from an R-slot ring of #tilegpu.nvmma_shared slots
// (the boxes' swizzle, tilegpu::getTmaBox), R = num_stages + 1 when that
// fits the target's shared memory beside what else is live then, else
// num_stages. Each dot's loads form a group. A lone dot of two staged
// operands whose accumulator is only carried (a GEMM loop) keeps one wgmma
// group in flight (pending = 1); other dots complete before they return
// (tile-async-dots may let them run on until their result is read). Two
// schedules feed the ring. (A in place may also be read through one 2-D
// tile.trans: the backward's K^T.)
//
// A dot of such a loop whose B is instead a 16-bit tile computed in the
// body (the attention backward's dS^T as the B of dQ^T = K^T dS^T) reads
// it from two staging slots of its own, used in turn:
//   barrier                            // before the loop
//   for i: local_store B -> stage[i % 2]; fence.proxy.async; barrier
//          warpgroup_dot a, stage[i % 2]   // pending = 0
// stage[i % 2] was last read by iteration i - 2's wgmma, which every
// warpgroup completed before it reached iteration i - 1's barrier.
//
// Warp-specialized (the default for the kernel's first such loop when it
// lies at the top level of the kernel or in a nest of scf.for loops there,
// what the producer needs from outside it is pure scalar code, the program
// has 8 or more warps (with 4, setmaxnreg could not raise the consumers'
// registers), and tile.warp_specialize is not false): a
// tilegpu.warp_specialize adds a producer warpgroup to the program's
// num_warps consumer warps; in a nest the producer clones the outer loops'
// scalar code and the ring's slot and parity run on from one outer
// iteration to the next. Later top-level loops (or nests) whose dots read
// the same descriptors' blocks share the ring: the producer feeds them in
// turn, the slot and parity running on (attention's unmasked and masked
// loops). Per group and slot two mbarriers: `full` (count 1: the
// producer's arrive.expect_tx, then the TMA's bytes) and `empty` (count
// num_warps: lane 0 of each consumer warp).
//
//   producer (one thread; setmaxnreg.dec):
//     for each loop, for i (slot r, phase p carried):
//       for each group g:
//         try_wait.parity(empty_g[r], p ^ 1)   // a fresh slot passes at once
//         arrive.expect_tx(full_g[r], bytes of g); TMA g's blocks -> slot r
//   consumers (setmaxnreg.inc; the tile program's ops outside the loops,
//   except the producer's scalar inputs, move here too):
//     for each loop, for i (slot r, phase p carried):
//       ... for each dot g, in place:
//       try_wait.parity(full_g[r], p)
//       warpgroup_dot slot r
//       each warp arrives on empty_g[r]   // pending = 1: on the previous
//                                         // slot, from i = 1 on
//     warpgroup_wait {pending = 0}        // pending = 1 only
//
// All R slots are in flight: the producer refills a slot as soon as every
// consumer warp has retired the wgmma that read it, with no barrier of the
// whole program. With pending = 1 each warp releases slot r - 1 after its
// dot of iteration i has retired i - 1's group, and the last slot after
// the loop when another stage follows. Barriers among the consumers
// (layout conversions in the epilogue) become the named barrier 1 over
// their threads when lowered.
//
// Otherwise the program's own threads feed each loop's ring, one
// mbarrier per slot for the whole stage (arrival count 1):
//
//   init the R mbarriers (then a barrier)
//   for s in 0 .. R-2, if iteration s exists:
//     thread 0: arrive.expect_tx(bar[s], stage bytes); TMA -> slot s
//   for i (slot r = i % R, phase p = (i / R) % 2, both carried):
//     every thread: try_wait.parity(bar[r], p)     // slot r has landed
//     the dots on slot r (the GEMM's {pending = 1}: i - 1's group retired)
//     barrier                                      // ... in every warpgroup
//     if iteration i + R - 1 exists, thread 0:
//       arrive.expect_tx(bar[w]); TMA -> slot w = (i + R - 1) % R = (i - 1) % R
//   warpgroup_wait {pending = 0}                   // pending = 1 only
//
// Why slot w may be refilled: it was last read by iteration i - 1's wgmma.
// Each warpgroup's warpgroup_dot of iteration i waited (wait_group 1) for
// its own group of i - 1 before the barrier, so after the barrier every
// warpgroup has retired the wgmma that read w; the copy is issued only
// then. In use at once: slot r (wgmma i, in flight), the R - 2 slots of
// iterations i + 1 .. i + R - 2 (copies in flight or landed) and w. Each
// slot's phase flips on each use, so the parity a consumer waits for is
// the carried p, flipped when r wraps. With pending = 0 the same schedule
// holds.
//
// (Each loop has a ring of its own here: two loops in a row take the
// shared memory of both.)
//
// In a kernel of tile.num_ctas = n > 1 (programs in clusters of n along
// x) the warp-specialized ring multicasts each load whose offsets are the
// same in every program of a cluster, in loop nests whose bounds are too
// (planMulticast, ClusterUniformity), and whose block has n boxes or more:
// box c by the program of rank c % n into all n slots (tma_load
// multicast); the group's consumers release its slots in every program
// (mbarrier_arrive cluster; empty counts num_warps x n), and a
// cluster_barrier follows the mbarriers' initialization and ends the
// kernel.
//
// Every other descriptor access goes through one slot of its own and one
// mbarrier per kernel (arrival count = the program's threads; a load whose
// tile only becomes a dot operand is read from the slot in that layout):
//   load:  barrier (earlier readers of the slot and the mbarrier's last
//          phase are done); thread 0: expect_tx(bytes), TMA -> slot;
//          every thread: arrive + try_wait on its state; local_load
//   store: barrier; local_store; tilegpu.tma_store (fence.proxy.async,
//          barrier, thread 0's TMA store, wait until it has read the slot)
//
// Blocks go only where the TMA's boxes give the nvmma_shared arrangement:
// f16/bf16 blocks that are 2-D after their leading dims of 1, with rows a
// multiple of 8 and rows of a multiple of 32 bytes, moved as 2-D tiles
// (the access drops the leading dims); others are a located error.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/ClusterUniformity.h"
#include "tilec/Analysis/SharedMemory.h"
#include "tilec/Target/Target.h"
#include "tilec/Transforms/Passes.h"

#include "tilec/Dialect/TileGPU/IR/TileLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

namespace tilec {
#define GEN_PASS_DEF_TILELOWERDESCRIPTORS
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

/// For a store of a tile of `type` whose dim `dim` is the slot's last (the
/// one the TMA's `copies` boxes split in equal runs): per box, the
/// warpgroup (four consecutive warps) that holds every element of its
/// run, when each run is held by one warpgroup alone, the program has two
/// warpgroups or more and the layout holds no padding; else nothing.
static std::optional<SmallVector<int32_t>>
boxWarpgroups(RankedTensorType type, unsigned dim, int64_t copies) {
  FailureOr<DistributedLayout> l = DistributedLayout::get(type);
  if (copies < 2 || failed(l) || l->getNumWarps() < 8 ||
      l->getNumWarps() % 4 || type.getDimSize(dim) % copies)
    return std::nullopt;
  for (unsigned d = 0; d < l->getRank(); ++d)
    if (l->isPadded(d))
      return std::nullopt;
  int64_t run = type.getDimSize(dim) / copies;
  unsigned d = l->getBlockedDim(dim);
  SmallVector<int32_t> owners(copies, -1);
  for (int64_t warp = 0; warp < l->getNumWarps(); ++warp)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t i = 0; i < l->getNumElems(); ++i) {
        int64_t idx = l->getIndex(
            d, l->getSubIndices(i)[d], (lane / l->getLaneStride(d)) % l->getTpw(d),
            (warp / l->getWarpStride(d)) % l->getWpc(d));
        int32_t &o = owners[idx / run];
        if (o >= 0 && o != warp / 4)
          return std::nullopt;
        o = int32_t(warp / 4);
      }
  if (llvm::is_contained(owners, -1))
    return std::nullopt;
  return owners;
}

namespace {

Value constant(OpBuilder &b, Location loc, Type type, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

/// The slot layout a block travels in, or null when the TMA cannot give
/// it the nvmma_shared arrangement.
NvmmaSharedLayoutAttr slotLayout(TensorDescType desc) {
  TmaBox box = getTmaBox(desc.getBlockType().getShape(),
                         desc.getElementType().getIntOrFloatBitWidth());
  if (!box.swizzle)
    return {};
  return NvmmaSharedLayoutAttr::get(desc.getContext(), box.swizzle, {1, 0});
}

/// The slot layout a register B operand of `type` ([K, N]) is staged in:
/// N contiguous, swizzled as wgmma reads it; null when no swizzle fits.
NvmmaSharedLayoutAttr stagingLayout(RankedTensorType type) {
  return getNvmmaSharedLayout(type.getContext(), type.getShape(), {1, 0},
                              type.getElementTypeBitWidth());
}

int64_t blockBytes(TensorDescType desc) {
  return tilec::smem::slotBytes(desc.getElementType(),
                                desc.getBlockType().getNumElements());
}

Value allocSlots(OpBuilder &b, Location loc, TensorDescType desc,
                 int64_t slots) {
  // The slot is the block without its leading dims of 1 (checkAccess).
  SmallVector<int64_t> shape{slots};
  ArrayRef<int64_t> block = desc.getBlockType().getShape();
  llvm::append_range(shape,
                     block.take_back(std::min<size_t>(2, block.size())));
  return LocalAllocOp::create(
      b, loc,
      SharedMemType::get(b.getContext(), shape, desc.getElementType(),
                         slotLayout(desc)));
}

/// `slots` mbarriers, initialized with `count` arrivals.
Value allocBarriers(OpBuilder &b, Location loc, int64_t slots, int count) {
  MLIRContext *ctx = b.getContext();
  auto plain = SharedLayoutAttr::get(ctx, 1, 1, 1, {1, 0});
  Value bars = LocalAllocOp::create(
      b, loc,
      SharedMemType::get(ctx, {slots, 1, 1}, b.getI64Type(), plain));
  MBarrierInitOp::create(b, loc, bars, b.getI32IntegerAttr(count));
  return bars;
}

/// How a wgmma dot operand reads a descriptor load of the loop's body: the
/// load, then tile.convert_layout ops and at most one 2-D tile.trans, in
/// the loop's body. The load is staged in a ring of slots that the dot
/// reads in place; a trans reads the slot through a tilegpu.trans_view.
/// One load may feed several operands (the attention backward's Q as Q^T
/// and Q), through ops they share; nothing else may read them
/// (findStagedLoop checks).
struct OperandChain {
  mutable DescriptorLoadOp load; // (MLIR's op classes are not const-correct)
  bool trans = false;
  /// The ops between the dot and the load, the dot's side first.
  SmallVector<Operation *, 2> between;
};

/// The staged load behind dot operand `operand`, or none.
std::optional<OperandChain> operandChain(Value operand, Block *body) {
  OperandChain c;
  for (Value v = operand;;) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body)
      return std::nullopt;
    if (auto load = dyn_cast<DescriptorLoadOp>(def)) {
      // wgmma reads 16-bit, fp8 and (tf32) f32 slots in place; other
      // blocks are loaded to registers first.
      Type elem = load.getDesc().getType().getElementType();
      if (!slotLayout(load.getDesc().getType()) ||
          !(elem.getIntOrFloatBitWidth() == 16 || isFp8(elem) ||
            elem.isF32()) ||
          cast<RankedTensorType>(load.getType()).getRank() != 2 ||
          c.between.empty())
        return std::nullopt;
      c.load = load;
      return c;
    }
    c.between.push_back(def);
    if (auto convert = dyn_cast<ConvertLayoutOp>(def)) {
      v = convert.getSrc();
    } else if (auto trans = dyn_cast<TransOp>(def);
               trans && !c.trans && trans.getType().getRank() == 2) {
      c.trans = true;
      v = trans.getSrc();
    } else {
      return std::nullopt;
    }
  }
}

/// True when `dot`'s A operand is a register tile that wgmma takes as it
/// is: the accumulator layout's dot_operand (mma.sync's A fragments).
bool registerA(DotOp dot) {
  auto op = dyn_cast_if_present<DotOperandLayoutAttr>(
      dot.getA().getType().getEncoding());
  return op && op.getOpIdx() == 0 && op.getKWidth() == 2 &&
         op.getParent() == dot.getType().getEncoding() &&
         dot.getA().getType().getElementTypeBitWidth() == 16;
}

/// A descriptor load outside the loops whose tile feeds only dot A
/// operands (through tile.convert_layout, and at most one 2-D tile.trans
/// on the way to each): loaded once into a slot that each wgmma reads in
/// place (attention's Q; the backward's K, and K^T through a
/// tilegpu.trans_view of its slot), not into registers. `trans` tells
/// whether `a` is the tile transposed.
DescriptorLoadOp inPlaceLoad(Value a, bool *trans = nullptr) {
  bool t = false;
  for (;;) {
    if (auto convert = a.getDefiningOp<ConvertLayoutOp>()) {
      a = convert.getSrc();
    } else if (auto tr = a.getDefiningOp<TransOp>();
               tr && !t && tr.getType().getRank() == 2) {
      t = true;
      a = tr.getSrc();
    } else {
      break;
    }
  }
  auto load = a.getDefiningOp<DescriptorLoadOp>();
  if (!load || !slotLayout(load.getDesc().getType()) ||
      cast<RankedTensorType>(load.getType()).getRank() != 2)
    return {};
  SmallVector<std::pair<Value, bool>> values{{load.getResult(), false}};
  while (!values.empty()) {
    auto [v, crossed] = values.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto c = dyn_cast<ConvertLayoutOp>(user))
        values.push_back({c.getResult(), crossed});
      else if (auto tr = dyn_cast<TransOp>(user);
               tr && !crossed && tr.getType().getRank() == 2)
        values.push_back({tr.getResult(), true});
      else if (!isa<DotOp>(user) || use.getOperandNumber() != 0)
        return {};
    }
  }
  if (trans)
    *trans = t;
  return load;
}

/// The register tile behind `dot`'s B operand when it is computed in
/// `body` (through tile.convert_layout ops there): a 16-bit 2-D tile that
/// wgmma can only read from shared memory, so each iteration stores it to
/// one of two slots of its own first (the attention backward's dS^T as the
/// B of dQ^T = K^T dS^T). None for anything else, a load among them.
Value stagedRegisterB(DotOp dot, Block *body) {
  Value b = dot.getB();
  while (auto convert = b.getDefiningOp<ConvertLayoutOp>()) {
    if (convert->getBlock() != body)
      return {};
    b = convert.getSrc();
  }
  Operation *def = b.getDefiningOp();
  auto type = cast<RankedTensorType>(b.getType());
  if (!def || def->getBlock() != body ||
      isa<DescriptorLoadOp, LoadOp>(def) || type.getRank() != 2 ||
      type.getElementTypeBitWidth() != 16 || !stagingLayout(type))
    return {};
  return b;
}

/// The offsets' backward slice in `loop`'s body, in body order; fails when
/// it reads a carried value or anything impure.
LogicalResult offsetSlice(scf::ForOp loop, ArrayRef<Operation *> loads,
                          SmallVectorImpl<Operation *> &slice) {
  Block *body = loop.getBody();
  SetVector<Operation *> set;
  SmallVector<Value> worklist;
  for (Operation *l : loads)
    llvm::append_range(worklist, cast<DescriptorLoadOp>(l).getOffsets());
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body && arg != loop.getInductionVar())
        return failure();
      continue;
    }
    Operation *op = v.getDefiningOp();
    if (op->getBlock() != body) {
      if (loop->isAncestor(op))
        return failure();
      continue;
    }
    if (!isMemoryEffectFree(op) || op->getNumRegions() != 0)
      return failure();
    if (set.insert(op))
      llvm::append_range(worklist, op->getOperands());
  }
  slice.assign(set.begin(), set.end());
  llvm::sort(slice, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return success();
}

/// True when the dot's accumulator only goes from one iteration's dot to
/// the next, so one wgmma group may stay in flight.
bool accumulatorOnlyCarried(scf::ForOp loop, DotOp dot) {
  auto arg = dyn_cast<BlockArgument>(dot.getC());
  if (!arg || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0 ||
      !arg.hasOneUse() || !dot->hasOneUse())
    return false;
  OpOperand &use = *dot->getUses().begin();
  return use.getOwner() == loop.getBody()->getTerminator() &&
         use.getOperandNumber() == arg.getArgNumber() - 1;
}

/// A descriptor load staged in the ring; its group is the first dot that
/// reads it (that dot waits for it to land).
struct StagedLoad {
  mutable DescriptorLoadOp load;
  int group = 0;
};

/// A dot operand read from a ring slot.
struct RingOperand {
  int load = -1; ///< index into StagedLoop::loads; -1: not from the ring
  bool trans = false;
  SmallVector<Operation *, 2> between;
};

/// A wgmma dot of a staged loop: B, and A unless it is a register tile or
/// read in place, from the ring; or B a register tile of the body staged
/// through two slots of its own (`stagedB`).
struct RingDot {
  mutable DotOp dot;
  RingOperand a, b;
  DescriptorLoadOp inPlaceA; ///< A read in place from its own slot
  bool inPlaceTrans = false; ///< ... through a tilegpu.trans_view
  Value stagedB;             ///< B's register tile, stored each iteration
};

/// A loop whose wgmma dots read descriptor loads of its body, with what
/// staging them needs: R slots of every load, filled by iteration. Dot g's
/// group is the loads it reads first: they land on one `full` mbarrier and
/// (warp-specialized) are released on one `empty` after the last dot that
/// reads them.
struct StagedLoop {
  mutable scf::ForOp loop;
  SmallVector<StagedLoad> loads; ///< in the order the dots first read them
  SmallVector<RingDot> dots;     ///< body order
  SmallVector<Operation *> slice; ///< the offsets' ops, in body order
  int64_t slots = 0;
  /// wgmma.wait_group of the dots: 1 for a lone dot of two staged operands
  /// that only carries its accumulator (a GEMM loop), else 0.
  int pending = 0;

  bool hasGroup(size_t g) const {
    return llvm::any_of(loads,
                        [&](const StagedLoad &l) { return l.group == int(g); });
  }
  int64_t groupBytes(size_t g) const {
    int64_t bytes = 0;
    for (const StagedLoad &l : loads)
      if (l.group == int(g))
        bytes += blockBytes(l.load.getDesc().getType());
    return bytes;
  }
  int64_t stageBytes() const {
    int64_t bytes = 0;
    for (const StagedLoad &l : loads)
      bytes += blockBytes(l.load.getDesc().getType());
    return bytes;
  }
  /// The groups whose last reader is dot g.
  SmallVector<size_t> releasedAfter(size_t g) const {
    SmallVector<size_t> groups;
    for (size_t h = 0; h < dots.size(); ++h) {
      if (!hasGroup(h))
        continue;
      size_t last = h;
      for (size_t d = 0; d < dots.size(); ++d)
        for (const RingOperand *o : {&dots[d].a, &dots[d].b})
          if (o->load >= 0 && loads[o->load].group == int(h))
            last = std::max(last, d);
      if (last == g)
        groups.push_back(h);
    }
    return groups;
  }
  /// Each load's descriptor and group: loops whose rings agree share one.
  SmallVector<std::pair<Type, int>> ringTypes() const {
    SmallVector<std::pair<Type, int>> types;
    for (const StagedLoad &l : loads)
      types.push_back({l.load.getDesc().getType(), l.group});
    return types;
  }
};

std::optional<StagedLoop> findStagedLoop(scf::ForOp loop, int stages,
                                         const tilec::Target &target) {
  Block *body = loop.getBody();
  StagedLoop sl;
  sl.loop = loop;
  DenseMap<Operation *, int> loadIndex;
  auto operand = [&](const OperandChain &c, int dot) {
    auto [it, fresh] = loadIndex.try_emplace(c.load, int(sl.loads.size()));
    if (fresh)
      sl.loads.push_back({c.load, dot});
    return RingOperand{it->second, c.trans, c.between};
  };
  for (DotOp d : body->getOps<DotOp>()) {
    auto mma = dyn_cast_if_present<MmaLayoutAttr>(d.getType().getEncoding());
    if (!mma || mma.getVersionMajor() != 3)
      continue;
    std::optional<OperandChain> b = operandChain(d.getB(), body);
    RingDot rd{d};
    if (!b && !(rd.stagedB = stagedRegisterB(d, body)))
      continue;
    std::optional<OperandChain> a = operandChain(d.getA(), body);
    if (!a) {
      if (DescriptorLoadOp load = inPlaceLoad(d.getA(), &rd.inPlaceTrans);
          load && !loop->isAncestor(load))
        rd.inPlaceA = load;
      else if (!registerA(d))
        continue;
    }
    // wgmma reads fp8 and tf32 operands K-major only: A's slot as loaded
    // ([M, K]), B's through a transposed view of an [N, K] block. Other
    // fp8 dots stay tile.dot, which the GPU lowering refuses with the
    // rule; other tf32 ones run as mma.sync (the layout pass gives tf32
    // the wgmma accumulator only for this form).
    Type aElem = d.getA().getType().getElementType();
    if ((isFp8(aElem) || aElem.isF32()) && (!a || a->trans || !b || !b->trans))
      continue;
    int index = int(sl.dots.size());
    if (a)
      rd.a = operand(*a, index);
    if (b)
      rd.b = operand(*b, index);
    sl.dots.push_back(rd);
  }
  // A staged load and the ops between it and the dots are read by those
  // ops and the dots alone.
  llvm::SmallPtrSet<Operation *, 16> chainOps, ringDots;
  for (const RingDot &d : sl.dots) {
    ringDots.insert(d.dot);
    for (const RingOperand *o : {&d.a, &d.b})
      chainOps.insert(o->between.begin(), o->between.end());
  }
  for (const StagedLoad &l : sl.loads)
    chainOps.insert(l.load);
  for (Operation *op : chainOps)
    for (Operation *user : op->getUsers())
      if (!chainOps.contains(user) && !ringDots.contains(user))
        return std::nullopt;
  SmallVector<Operation *> loadOps;
  for (const StagedLoad &l : sl.loads)
    loadOps.push_back(l.load);
  if (sl.loads.empty() || failed(offsetSlice(loop, loadOps, sl.slice)))
    return std::nullopt;
  if (sl.dots.size() == 1 && sl.dots[0].a.load >= 0 &&
      accumulatorOnlyCarried(loop, sl.dots[0].dot))
    sl.pending = 1;

  // What else lives in shared memory while the ring does: the scratch of
  // layout conversions inside the loop nest and the slots of the kernel's
  // other descriptor accesses (each loaded once, as attention's Q).
  int64_t other = 0;
  Operation *outermost = loop;
  for (Operation *p = loop->getParentOp(); isa<scf::ForOp>(p);
       p = p->getParentOp())
    outermost = p;
  // (The staged loads' conversions go away with them.)
  llvm::SmallPtrSet<Operation *, 8> staged;
  for (const RingDot &d : sl.dots)
    for (const RingOperand *o : {&d.a, &d.b})
      staged.insert(o->between.begin(), o->between.end());
  outermost->walk([&](Operation *op) {
    if (!staged.contains(op))
      other = std::max(other, tilec::smem::scratchBytes(op));
  });
  other = llvm::alignTo(other, 1024);
  for (const RingDot &d : sl.dots)
    if (d.stagedB)
      other += 2 * llvm::alignTo(
          cast<RankedTensorType>(d.stagedB.getType()).getNumElements() * 2,
          1024);
  // (Loads in a block with a dot, staged in some ring, are not counted.)
  auto kernel = loop->getParentOfType<func::FuncOp>();
  kernel.walk([&](Operation *op) {
    if (!isa<DescriptorLoadOp, DescriptorStoreOp>(op) ||
        !op->getBlock()->getOps<DotOp>().empty())
      return;
    other += llvm::alignTo(
        blockBytes(cast<TensorDescType>(op->getOperand(0).getType())), 1024);
  });
  sl.slots = stages + 1;
  if (!tilec::smem::fits(sl.slots * sl.stageBytes() + other, target))
    sl.slots = stages;
  return sl;
}

/// The ring a staged loop reads: R slots of every load, and per dot (its
/// group) `full` mbarriers the TMA completes and, warp-specialized,
/// `empty` ones the consumers release; unspecialized, one `full` set for
/// all groups.
struct Ring {
  SmallVector<Value> bufs;  ///< per load
  SmallVector<Value> full;  ///< per group (null when empty), or one
  SmallVector<Value> empty; ///< per group (null when empty), warp-specialized
  int64_t slots = 0;
  /// Per load: multicast to the cluster's `ctas` programs (warp-specialized
  /// rings of a kernel with tile.num_ctas > 1; none elsewhere).
  SmallVector<bool> multicast;
  int ctas = 1;

  /// Whether group g's slots are filled in every program of the cluster:
  /// its consumers release them in all (tilegpu.mbarrier_arrive cluster).
  bool clusterWide(const StagedLoop &sl, size_t g) const {
    for (auto [i, l] : llvm::enumerate(sl.loads))
      if (l.group == int(g) && i < multicast.size() && multicast[i])
        return true;
    return false;
  }
  /// Releases group g's `slot` (lane 0 of each warp; in the whole cluster
  /// where multicast copies fill it).
  void release(OpBuilder &b, Location loc, const StagedLoop &sl, size_t g,
               Value slot) const {
    MBarrierArriveOp::create(
        b, loc, empty[g], slot,
        clusterWide(sl, g) ? b.getI32IntegerAttr(ctas) : IntegerAttr());
  }

  Value fullOf(size_t group) const {
    return full[std::min(group, full.size() - 1)];
  }
};

Ring allocRing(OpBuilder &b, Location loc, const StagedLoop &sl,
               bool perGroup, int emptyCount,
               ArrayRef<bool> multicast = {}, int ctas = 1) {
  Ring ring;
  ring.slots = sl.slots;
  ring.multicast.assign(multicast.begin(), multicast.end());
  ring.ctas = ctas;
  for (const StagedLoad &l : sl.loads)
    ring.bufs.push_back(allocSlots(b, loc, l.load.getDesc().getType(),
                                   sl.slots));
  // Per group: none for a dot that reads only slots earlier dots waited for.
  for (size_t g = 0; g < (perGroup ? sl.dots.size() : 1); ++g)
    ring.full.push_back(!perGroup || sl.hasGroup(g)
                            ? allocBarriers(b, loc, sl.slots, 1)
                            : Value());
  // A cluster-wide group's consumers arrive from every program.
  if (emptyCount)
    for (size_t g = 0; g < sl.dots.size(); ++g)
      ring.empty.push_back(
          sl.hasGroup(g)
              ? allocBarriers(b, loc, sl.slots,
                              emptyCount * (ring.clusterWide(sl, g) ? ctas : 1))
              : Value());
  return ring;
}

/// Thread 0 expects group `group`'s bytes (or, with group = -1, the whole
/// stage's) on its full mbarrier of `slot` and starts their copies, the
/// offsets looked up in `map` (the slice cloned for the iteration).
void emitGroup(OpBuilder &b, Location loc, const StagedLoop &sl,
               const Ring &ring, int group, Value slot, IRMapping &map) {
  int64_t bytes = group < 0 ? sl.stageBytes() : sl.groupBytes(group);
  Value full = ring.fullOf(std::max(group, 0));
  MBarrierExpectOp::create(b, loc, full, slot, b.getI32IntegerAttr(bytes),
                           b.getUnitAttr());
  for (auto [i, l] : llvm::enumerate(sl.loads)) {
    if (group >= 0 && l.group != group)
      continue;
    SmallVector<Value> offsets;
    for (Value o : l.load.getOffsets())
      offsets.push_back(map.lookupOrDefault(o));
    bool multicast = i < ring.multicast.size() && ring.multicast[i];
    TmaLoadOp::create(b, loc, l.load.getDesc(), offsets, ring.bufs[i], slot,
                      full, slot,
                      multicast ? b.getI32IntegerAttr(ring.ctas)
                                : IntegerAttr());
  }
}

/// Clones the offsets' slice for iteration `iv` into `map`.
void cloneSlice(OpBuilder &b, const StagedLoop &sl, Value iv, IRMapping &map) {
  map.map(sl.loop.getInductionVar(), iv);
  for (Operation *op : sl.slice)
    b.clone(*op, map);
}

/// The whole stage of iteration `iv` into `slot` if that iteration exists
/// (`loop` bounds it), by thread 0.
void issueStage(OpBuilder &b, Location loc, const StagedLoop &sl,
                scf::ForOp loop, const Ring &ring, Value iv, Value slot) {
  Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv,
                                       loop.getUpperBound());
  auto ifOp = scf::IfOp::create(b, loc, exists, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  IRMapping map;
  cloneSlice(b, sl, iv, map);
  emitGroup(b, loc, sl, ring, -1, slot, map);
}

/// (slot + 1) % slots and the phase, flipped when the slot wraps.
std::pair<Value, Value> nextSlot(OpBuilder &b, Location loc, Value slot,
                                 Value phase, int64_t slots) {
  Type i32 = b.getI32Type();
  Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slot,
                                     constant(b, loc, i32, slots - 1));
  Value next = arith::SelectOp::create(
      b, loc, last, constant(b, loc, i32, 0),
      arith::AddIOp::create(b, loc, slot, constant(b, loc, i32, 1)));
  Value flip = arith::ExtUIOp::create(b, loc, i32, last);
  return {next, arith::XOrIOp::create(b, loc, phase, flip)};
}

/// (slot - 1) % slots: the slot the previous iteration read.
Value previousSlot(OpBuilder &b, Location loc, Value slot, int64_t slots) {
  Type i32 = b.getI32Type();
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slot,
                                      constant(b, loc, i32, 0));
  return arith::SelectOp::create(
      b, loc, first, constant(b, loc, i32, slots - 1),
      arith::SubIOp::create(b, loc, slot, constant(b, loc, i32, 1)));
}

/// Descriptor loads read in place: each goes into one slot of its own by
/// the program's (or the consumers') threads where it stood, once.
class InPlaceSlots {
public:
  explicit InPlaceSlots(func::FuncOp kernel) : kernel(kernel) {}

  /// The slot buffer of `load`, loaded at the load's place on first use.
  Value get(DescriptorLoadOp load);
  /// Erases the loads read in place, and the conversions of their tiles,
  /// once nothing else reads them.
  void eraseLoads();

private:
  func::FuncOp kernel;
  DenseMap<Operation *, Value> slots;
  Value bar;
};

/// The slot buffer operand `o` reads: the ring's buffer, or its
/// trans_view (made once per buffer, before the loop, into `views`).
Value operandBuffer(OpBuilder &b, Location loc, const Ring &ring,
                    const RingOperand &o, DenseMap<Value, Value> &views) {
  Value buf = ring.bufs[o.load];
  if (!o.trans)
    return buf;
  Value &view = views[buf];
  if (!view) {
    auto type = cast<SharedMemType>(buf.getType());
    view = TransViewOp::create(b, loc, TransViewOp::getTransposedType(type),
                               buf);
  }
  return view;
}

/// Rewrites `sl.loop` to read its staged loads from the ring: the loop
/// carries the slot it reads and that slot's phase parity; each dot waits
/// for its group's full mbarrier of the slot, runs as a warpgroup_dot, then
/// `afterDot` runs (at the point after the dot, given the new loop, the
/// slot and the group). The loads and the ops between them and the dots
/// are erased; with pending = 1, a warpgroup_wait after the loop retires
/// the last group (`*lastWait`). The loop starts at slot `init[0]` with
/// parity `init[1]` (both 0 when not given). Returns the new loop.
scf::ForOp
readRing(StagedLoop &sl, const Ring &ring, InPlaceSlots &inPlace,
         function_ref<void(OpBuilder &, scf::ForOp, Value, size_t)> afterDot,
         ArrayRef<Value> init = {}, Operation **lastWait = nullptr) {
  scf::ForOp loop = sl.loop;
  Location loc = loop.getLoc();
  Block *body = loop.getBody();
  Type i32 = IntegerType::get(loop.getContext(), 32);
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  SmallVector<Value, 2> start(init);
  if (start.empty()) {
    Value zero = constant(rewriter, loc, i32, 0);
    start = {zero, zero};
  }
  // Views, in-place slots and staging slots are made outside the loop.
  DenseMap<Value, Value> views;
  SmallVector<Value> aBufs, bBufs, inPlaceA;
  for (const RingDot &d : sl.dots) {
    aBufs.push_back(d.a.load >= 0
                        ? operandBuffer(rewriter, loc, ring, d.a, views)
                        : Value());
    if (d.stagedB) {
      auto type = cast<RankedTensorType>(d.stagedB.getType());
      SmallVector<int64_t> shape{2};
      llvm::append_range(shape, type.getShape());
      bBufs.push_back(LocalAllocOp::create(
          rewriter, loc,
          SharedMemType::get(rewriter.getContext(), shape,
                             type.getElementType(), stagingLayout(type))));
    } else {
      bBufs.push_back(operandBuffer(rewriter, loc, ring, d.b, views));
    }
    Value a = d.inPlaceA ? inPlace.get(d.inPlaceA) : Value();
    rewriter.setInsertionPoint(loop);
    if (a && d.inPlaceTrans) {
      Value &view = views[a];
      if (!view)
        view = TransViewOp::create(
            rewriter, loc,
            TransViewOp::getTransposedType(cast<SharedMemType>(a.getType())),
            a);
      a = view;
    }
    inPlaceA.push_back(a);
  }
  rewriter.setInsertionPoint(loop);
  Value c0 = constant(rewriter, loc, i32, 0);
  // Staging slots are used in turn, one per iteration: a store into one
  // follows the barrier of the iteration before, which every warpgroup
  // reached after its wgmma that read that slot two iterations ago had
  // completed. Across two runs of the loop (an outer loop around it), one
  // barrier before it does that.
  bool staged = llvm::any_of(sl.dots, [](const RingDot &d) {
    return bool(d.stagedB);
  });
  if (staged)
    gpu::BarrierOp::create(rewriter, loc);

  Value slot, phase;
  auto newLoop = cast<scf::ForOp>(
      *cast<LoopLikeOpInterface>(loop.getOperation())
           .replaceWithAdditionalYields(
               rewriter, start,
               /*replaceInitOperandUsesInLoop=*/false,
               [&](OpBuilder &ob, Location l,
                   ArrayRef<BlockArgument> newArgs) -> SmallVector<Value> {
                 OpBuilder::InsertionGuard guard(ob);
                 slot = newArgs[0];
                 phase = newArgs[1];
                 ob.setInsertionPoint(body->getTerminator());
                 auto [next, nextPhase] =
                     nextSlot(ob, l, slot, phase, sl.slots);
                 return {next, nextPhase};
               }));
  sl.loop = newLoop;

  for (size_t g = 0; g < sl.dots.size(); ++g) {
    RingDot &d = sl.dots[g];
    OpBuilder db(d.dot);
    // Each group's slot is waited for before its first reader; unspecialized,
    // one full mbarrier covers the stage, before the first dot.
    if (ring.full.size() > 1 ? sl.hasGroup(g) : g == 0)
      MBarrierWaitOp::create(db, d.dot.getLoc(), ring.fullOf(g), slot, phase);
    Value a = d.dot.getA();
    Value aSlot;
    if (d.a.load >= 0) {
      a = aBufs[g];
      aSlot = slot;
    } else if (d.inPlaceA) {
      a = inPlaceA[g];
      aSlot = c0;
    }
    Value bSlot = slot;
    Operation *bConvert = nullptr;
    if (d.stagedB) {
      // Slot (iv - lb) / step % 2: the tile goes in, is made visible to
      // the async proxy, and every consumer has written its part before
      // any wgmma reads it.
      Location l = d.dot.getLoc();
      Value iv = newLoop.getInductionVar();
      Value n = arith::DivUIOp::create(
          db, l,
          arith::SubIOp::create(db, l, iv, newLoop.getLowerBound()),
          newLoop.getStep());
      if (n.getType() != i32)
        n = arith::IndexCastOp::create(db, l, i32, n);
      Value turn = arith::AndIOp::create(db, l, n, constant(db, l, i32, 1));
      LocalStoreOp::create(db, l, d.stagedB, bBufs[g], turn);
      // The fence, then the barrier that tilegpu.async_wait ends with.
      AsyncWaitOp::create(db, l, 0).setFenceAsync(true);
      bSlot = turn;
      bConvert = d.dot.getB().getDefiningOp();
    }
    Value r = WarpgroupDotOp::create(db, d.dot.getLoc(), d.dot.getType(), a,
                                     aSlot, bBufs[g], bSlot, d.dot.getC(),
                                     d.stagedB ? 0 : sl.pending);
    d.dot.replaceAllUsesWith(r);
    afterDot(db, newLoop, slot, g);
    d.dot.erase();
    d.dot = {};
    // The conversions that made B's register operand, now unread.
    while (bConvert && bConvert->use_empty() &&
           isa<ConvertLayoutOp>(bConvert)) {
      Operation *src = bConvert->getOperand(0).getDefiningOp();
      bConvert->erase();
      bConvert = src;
    }
    if (sl.pending) {
      OpBuilder b(newLoop->getContext());
      b.setInsertionPointAfter(newLoop);
      auto yield = cast<scf::YieldOp>(newLoop.getBody()->getTerminator());
      for (OpResult res : newLoop.getResults()) {
        // The carried accumulator: the result the warpgroup_dot is yielded as.
        if (yield.getOperand(res.getResultNumber()) != r)
          continue;
        Value done = WarpgroupWaitOp::create(b, loc, res.getType(), res,
                                             ValueRange(), 0);
        res.replaceAllUsesExcept(done, done.getDefiningOp());
        if (lastWait)
          *lastWait = done.getDefiningOp();
      }
    }
  }
  // The ops between the loads and the dots (shared by operands that read
  // one load), readers before what they read, then the loads.
  SetVector<Operation *> between;
  for (RingDot &d : sl.dots)
    for (RingOperand *o : {&d.a, &d.b}) {
      between.insert(o->between.begin(), o->between.end());
      o->between.clear();
    }
  SmallVector<Operation *> dead(between.begin(), between.end());
  llvm::sort(dead, [](Operation *x, Operation *y) {
    return y->isBeforeInBlock(x);
  });
  for (Operation *op : dead)
    op->erase();
  for (StagedLoad &l : sl.loads) {
    l.load.erase();
    l.load = {};
  }
  return newLoop;
}

/// Stages the descriptor loads of `sl` with the program's own threads (the
/// first schedule at the top of the file).
void pipelineLoop(StagedLoop &sl, InPlaceSlots &inPlace) {
  scf::ForOp loop = sl.loop;
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Type ivType = loop.getLowerBound().getType();
  Type i32 = b.getI32Type();
  Value step = loop.getStep(), lb = loop.getLowerBound();
  Ring ring = allocRing(b, loc, sl, /*perGroup=*/false, /*emptyCount=*/0);
  for (int64_t s = 0; s + 1 < sl.slots; ++s) {
    Value iv = arith::AddIOp::create(
        b, loc, lb,
        arith::MulIOp::create(b, loc, step, constant(b, loc, ivType, s)));
    issueStage(b, loc, sl, loop, ring, iv, constant(b, loc, i32, s));
  }
  // After the last dot: a barrier, then the refill of the slot i - 1 read.
  size_t lastDot = sl.dots.size() - 1;
  StagedLoop *slp = &sl;
  readRing(sl, ring, inPlace,
           [&](OpBuilder &db, scf::ForOp newLoop, Value slot, size_t g) {
             if (g != lastDot)
               return;
             gpu::BarrierOp::create(db, loc);
             Value ahead = arith::AddIOp::create(
                 db, loc, newLoop.getInductionVar(),
                 arith::MulIOp::create(
                     db, loc, step,
                     constant(db, loc, ivType, slp->slots - 1)));
             // The body (with the slice) moved into the new loop: its
             // induction variable is the one the slice reads.
             StagedLoop moved = *slp;
             moved.loop = newLoop;
             issueStage(db, loc, moved, newLoop, ring, ahead,
                        previousSlot(db, loc, slot, slp->slots));
           });
}

Value InPlaceSlots::get(DescriptorLoadOp load) {
  auto it = slots.find(load);
  if (it != slots.end())
    return it->second;
  // Slots and the mbarrier go first in the kernel.
  Block &body = kernel.getBody().front();
  OpBuilder entry = OpBuilder::atBlockBegin(&body);
  Location loc = kernel.getLoc();
  Type i32 = entry.getI32Type();
  TensorDescType desc = load.getDesc().getType();
  if (!bar)
    bar = allocBarriers(entry, loc, 1, 32 * getNumWarps(kernel));
  Value buf = allocSlots(entry, load.getLoc(), desc, 1);
  OpBuilder b(load);
  Location l = load.getLoc();
  Value c0 = constant(b, l, i32, 0);
  gpu::BarrierOp::create(b, l);
  MBarrierExpectOp::create(b, l, bar, c0,
                           b.getI32IntegerAttr(blockBytes(desc)), UnitAttr());
  TmaLoadOp::create(b, l, load.getDesc(), load.getOffsets(), buf, c0, bar,
                    c0, IntegerAttr());
  MBarrierWaitOp::create(b, l, bar, c0, Value());
  slots[load] = buf;
  return buf;
}

void InPlaceSlots::eraseLoads() {
  for (auto &[op, buf] : slots) {
    // The converts between the load and the dots, dead once every dot reads
    // the slot; erased users first.
    SmallVector<Operation *> dead;
    SmallVector<Value> values{op->getResult(0)};
    while (!values.empty()) {
      Value v = values.pop_back_val();
      for (Operation *user : v.getUsers()) {
        dead.push_back(user);
        values.push_back(user->getResult(0));
      }
    }
    for (Operation *d : llvm::reverse(dead))
      if (d->use_empty())
        d->erase();
    if (op->use_empty())
      op->erase();
  }
}

/// The setmaxnreg budgets of a warp-specialized program with `warps`
/// consumer warps: the producer warpgroup keeps 40 registers, the
/// consumers share the rest of what ptxas gives the program at entry
/// (65536 / threads, a multiple of 8, at most 255); none when that would
/// not raise the consumers' count.
std::optional<std::pair<int, int>> registerBudgets(int warps) {
  const int producer = 40;
  int threads = 32 * (warps + WarpSpecializeOp::kProducerWarps);
  int atEntry = std::min(255, 65536 / threads) & ~7;
  int consumer = ((atEntry * threads - 32 * WarpSpecializeOp::kProducerWarps *
                                           producer) /
                  (32 * warps)) &
                 ~7;
  consumer = std::min(consumer, 240);
  // setmaxnreg.inc may not lower the count: with few consumer warps (4:
  // ptxas may already give them 255 at entry) there is nothing to gain.
  if (consumer <= atEntry)
    return std::nullopt;
  return std::pair{producer, consumer};
}

/// A staged loop and the scf.for nest around it up to the kernel's top
/// level (outermost first, ending with the loop).
struct Chain {
  StagedLoop *sl;
  SmallVector<scf::ForOp> loops;
};

/// The ops outside the chains' loops that the producer needs (the loop
/// nests' bounds and what the offsets read from outside their loops), all
/// in the kernel's top block or the bodies of the outer loops; failure when
/// one of them is not pure scalar code that every thread may run, or reads
/// a value an outer loop carries.
FailureOr<llvm::SmallPtrSet<Operation *, 16>>
producerInputs(ArrayRef<Chain> chains) {
  llvm::SmallPtrSet<Operation *, 16> needed;
  for (const Chain &chain : chains) {
    scf::ForOp loop = chain.loops.back();
    SmallVector<Value> worklist;
    for (scf::ForOp l : chain.loops)
      llvm::append_range(worklist, ValueRange{l.getLowerBound(),
                                              l.getUpperBound(), l.getStep()});
    auto fromOutside = [&](ValueRange values) {
      for (Value v : values)
        if (!loop->isAncestor(v.getParentBlock()->getParentOp()))
          worklist.push_back(v);
    };
    for (Operation *op : chain.sl->slice)
      fromOutside(op->getOperands());
    for (const StagedLoad &l : chain.sl->loads)
      fromOutside(l.load.getOffsets());
    llvm::SmallPtrSet<Block *, 4> blocks{chain.loops.front()->getBlock()};
    for (scf::ForOp l : ArrayRef(chain.loops).drop_back())
      blocks.insert(l.getBody());
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        // An outer loop's induction variable is the producer's own; what it
        // carries is not.
        auto owner = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
        if (blocks.contains(arg.getOwner()) && owner &&
            arg != owner.getInductionVar())
          return failure();
        continue;
      }
      Operation *op = v.getDefiningOp();
      if (needed.contains(op))
        continue;
      if (!blocks.contains(op->getBlock()) || !isMemoryEffectFree(op) ||
          op->getNumRegions() ||
          llvm::any_of(op->getResultTypes(),
                       [](Type t) { return isa<ShapedType>(t); }))
        return failure();
      needed.insert(op);
      llvm::append_range(worklist, op->getOperands());
    }
  }
  return needed;
}

/// Ping-pong in a consumer loop: each warpgroup waits for its turn before
/// issuing the iteration's first wgmma and passes it on once its last one
/// is issued (after that dot's slot releases), so that its softmax runs
/// while the other warpgroup's products do.
void takeTurns(scf::ForOp loop) {
  SmallVector<WarpgroupDotOp> dots(loop.getBody()->getOps<WarpgroupDotOp>());
  if (dots.empty())
    return;
  OpBuilder b(dots.front());
  WarpgroupTurnOp::create(b, loop.getLoc(), "wait");
  Operation *after = dots.back();
  while (isa_and_present<MBarrierArriveOp>(after->getNextNode()))
    after = after->getNextNode();
  b.setInsertionPointAfter(after);
  WarpgroupTurnOp::create(b, loop.getLoc(), "pass");
}

/// The chain of `sl`: its loop and the scf.for loops around it up to the
/// kernel's body, or none when another op stands between.
std::optional<Chain> chainOf(func::FuncOp func, StagedLoop &sl) {
  Chain chain{&sl, {sl.loop}};
  for (Operation *p = sl.loop->getParentOp(); p != func; p = p->getParentOp()) {
    auto outer = dyn_cast<scf::ForOp>(p);
    if (!outer)
      return std::nullopt;
    chain.loops.insert(chain.loops.begin(), outer);
  }
  return chain;
}

/// Per load of the chains' ring (each chain's loads in the ring's order):
/// whether the cluster's programs (tile.num_ctas > 1) multicast it. A load
/// is multicast when every program of a cluster loads the same block
/// (offsets uniform across the cluster, ClusterUniformity) in every chain,
/// every loop of the chains runs alike in all of them (uniform bounds: the
/// producers fill, and the consumers release, the same slots in the same
/// order), and its block has a box for each program (each program copies
/// some of every multicast group, so none runs a phase ahead of the
/// others' releases).
/// When none is, the kernel is warned (tile.num_ctas then buys nothing).
SmallVector<bool> planMulticast(func::FuncOp func, ArrayRef<Chain> chains) {
  int ctas = getNumCtas(func);
  size_t loads = chains.front().sl->loads.size();
  SmallVector<bool> multicast(loads, false);
  if (ctas == 1)
    return multicast;
  ClusterUniformity cluster(ctas);
  for (const Chain &chain : chains)
    for (scf::ForOp l : chain.loops)
      if (!cluster.isUniform(l.getLowerBound()) ||
          !cluster.isUniform(l.getUpperBound()) ||
          !cluster.isUniform(l.getStep())) {
        auto at = l.getLoc()->findInstanceOf<FileLineColLoc>();
        func.emitWarning()
            << "tile.num_ctas = " << ctas
            << ": nothing is multicast: the bounds of the loop at line "
            << (at ? std::to_string(at.getLine()) + ":" +
                         std::to_string(at.getColumn())
                   : std::string("?"))
            << " may differ between the programs of a cluster (e.g. a "
               "start at program_id 0: step over clusters, program_id 0 / "
            << ctas << ", as examples/matmul_tma_cluster.tile does)";
        return multicast;
      }
  for (size_t i = 0; i < loads; ++i) {
    bool shared = true;
    for (const Chain &chain : chains) {
      if (i >= chain.sl->loads.size()) {
        shared = false;
        break;
      }
      DescriptorLoadOp load = chain.sl->loads[i].load;
      TensorDescType desc = load.getDesc().getType();
      TmaBox box = getTmaBox(desc.getBlockType().getShape(),
                             desc.getElementType().getIntOrFloatBitWidth());
      shared &= box.copies >= ctas &&
                llvm::all_of(load.getOffsets(), [&](Value o) {
                  return cluster.isUniform(o);
                });
    }
    multicast[i] = shared;
  }
  if (!llvm::is_contained(multicast, true))
    func.emitWarning() << "tile.num_ctas = " << ctas
                       << ": nothing is multicast: no descriptor block of "
                          "the TMA ring is loaded alike by every program "
                          "of a cluster (offsets that follow program_id 0 "
                          "differ) in "
                       << ctas << " or more TMA boxes";
  return multicast;
}

/// Warp-specializes a kernel whose body's top level holds the `chains`'
/// loops (each alone, or in a nest of scf.for loops: persistent programs),
/// in program order, sharing one ring: the second schedule at the top of
/// the file. The producer feeds the chains one after the other; the
/// ring's slot and parity run on from one loop (and outer iteration) to
/// the next. False when it does not apply.
bool warpSpecialize(func::FuncOp func, MutableArrayRef<Chain> chains,
                    InPlaceSlots &inPlace) {
  int warps = getNumWarps(func);
  bool pingpong = func->hasAttr(TileDialect::getPingPongAttrName());
  std::optional<std::pair<int, int>> budgets = registerBudgets(warps);
  if (warps % 4 || !budgets)
    return false;
  FailureOr<llvm::SmallPtrSet<Operation *, 16>> needed =
      producerInputs(chains);
  if (failed(needed))
    return false;

  StagedLoop &first = *chains.front().sl;
  Location loc = first.loop.getLoc();
  MLIRContext *ctx = first.loop.getContext();
  Block *top = chains.front().loops.front()->getBlock();
  // The producer's scalar inputs of the top level that stand after the
  // first loop (a later loop's bounds) move before it, in order: both sides
  // see them.
  Operation *start = chains.front().loops.front();
  for (Operation *op = start->getNextNode(); op;) {
    Operation *next = op->getNextNode();
    if (needed->contains(op))
      op->moveBefore(start);
    op = next;
  }
  OpBuilder b(start);
  Type i32 = b.getI32Type();
  SmallVector<bool> multicast = planMulticast(func, chains);
  bool clustered = llvm::is_contained(multicast, true);
  Ring ring = allocRing(b, loc, first, /*perGroup=*/true, warps, multicast,
                        getNumCtas(func));
  Operation *firstRingOp = ring.bufs[0].getDefiningOp();
  auto [producerRegs, consumerRegs] = *budgets;
  // With multicast copies, no program's copy or release reaches another's
  // mbarriers before their initialization.
  if (clustered)
    ClusterBarrierOp::create(b, loc);
  auto ws = WarpSpecializeOp::create(b, loc, producerRegs, consumerRegs);
  Block *producer = b.createBlock(&ws.getProducer());
  Block *consumer = b.createBlock(&ws.getConsumer());

  // The consumers take the tile program's top-level ops that the producer
  // does not need, the loop nests, and everything after them; the ring's
  // allocations and initialization (between `firstRingOp` and ws) stay.
  SmallVector<Operation *> moved;
  bool inRing = false;
  for (Operation &op : *top) {
    if (&op == firstRingOp)
      inRing = true;
    if (&op == ws.getOperation())
      inRing = false;
    else if (!inRing && !needed->contains(&op) &&
             !op.hasTrait<OpTrait::IsTerminator>())
      moved.push_back(&op);
  }
  for (Operation *op : moved)
    op->moveBefore(consumer, consumer->end());

  // The producer: one thread, one stage per iteration of each loop nest,
  // each group into a slot the consumers have released (a fresh slot's
  // wait for parity 1 passes); the outer loops' scalar code it needs is
  // cloned.
  b.setInsertionPointToStart(producer);
  Value zero = constant(b, loc, i32, 0);
  IRMapping map;
  std::function<ValueRange(const Chain &, size_t, Value, Value)> feed =
      [&](const Chain &chain, size_t level, Value slot0,
          Value phase0) -> ValueRange {
    scf::ForOp l = chain.loops[level];
    auto f = scf::ForOp::create(b, loc, map.lookupOrDefault(l.getLowerBound()),
                                map.lookupOrDefault(l.getUpperBound()),
                                map.lookupOrDefault(l.getStep()),
                                ValueRange{slot0, phase0});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(f.getBody());
    Value slot = f.getRegionIterArg(0), phase = f.getRegionIterArg(1);
    if (level + 1 < chain.loops.size()) {
      map.map(l.getInductionVar(), f.getInductionVar());
      for (Operation &op : l.getBody()->without_terminator())
        if (needed->contains(&op))
          b.clone(op, map);
      scf::YieldOp::create(b, loc, feed(chain, level + 1, slot, phase));
      return f.getResults();
    }
    Value released =
        arith::XOrIOp::create(b, loc, phase, constant(b, loc, i32, 1));
    cloneSlice(b, *chain.sl, f.getInductionVar(), map);
    for (size_t g = 0; g < chain.sl->dots.size(); ++g) {
      if (!chain.sl->hasGroup(g))
        continue;
      MBarrierWaitOp::create(b, loc, ring.empty[g], slot, released);
      emitGroup(b, loc, *chain.sl, ring, int(g), slot, map);
    }
    auto [next, nextPhase] = nextSlot(b, loc, slot, phase, ring.slots);
    scf::YieldOp::create(b, loc, ValueRange{next, nextPhase});
    return f.getResults();
  };
  {
    Value slot = zero, phase = zero;
    for (const Chain &chain : chains) {
      ValueRange r = feed(chain, 0, slot, phase);
      slot = r[0];
      phase = r[1];
    }
  }

  // The consumers: each chain's outer loops carry the slot and parity from
  // one iteration to the next (yielded as carried until the inner loop is
  // rewritten, then its results); the first loop starts at slot 0, each
  // later one where the one before it stopped.
  IRRewriter rewriter(ctx);
  rewriter.setInsertionPointToStart(consumer);
  Value z = constant(rewriter, loc, i32, 0);
  SmallVector<Value, 2> carried = {z, z};
  Operation *lastTop = nullptr;
  for (Chain &chain : chains) {
    StagedLoop &sl = *chain.sl;
    sl.slots = ring.slots;
    SmallVector<scf::ForOp> outers;
    SmallVector<Value, 2> loopInit = carried;
    for (scf::ForOp l : ArrayRef(chain.loops).drop_back()) {
      rewriter.setInsertionPoint(l);
      auto n = cast<scf::ForOp>(
          *cast<LoopLikeOpInterface>(l.getOperation())
               .replaceWithAdditionalYields(
                   rewriter, loopInit, /*replaceInitOperandUsesInLoop=*/false,
                   [&](OpBuilder &, Location, ArrayRef<BlockArgument> args)
                       -> SmallVector<Value> {
                     return {args[0], args[1]};
                   }));
      outers.push_back(n);
      loopInit = {n.getRegionIterArgs().take_back(2)[0],
                  n.getRegionIterArgs().take_back(2)[1]};
    }

    // The consumers release each group's slot once the wgmma that read it
    // retired: with one group in flight (pending = 1), the previous
    // iteration's slot, and the last one after the loop; else right after
    // the dot.
    Operation *lastWait = nullptr;
    scf::ForOp inner = readRing(
        sl, ring, inPlace,
        [&](OpBuilder &db, scf::ForOp newLoop, Value slot, size_t g) {
          if (!sl.pending) {
            for (size_t h : sl.releasedAfter(g))
              ring.release(db, loc, sl, h, slot);
            return;
          }
          Value notFirst = arith::CmpIOp::create(
              db, loc, arith::CmpIPredicate::ne, newLoop.getInductionVar(),
              newLoop.getLowerBound());
          auto ifOp = scf::IfOp::create(db, loc, notFirst, false);
          OpBuilder::InsertionGuard guard(db);
          db.setInsertionPoint(ifOp.thenBlock()->getTerminator());
          ring.release(db, loc, sl, g,
                       previousSlot(db, loc, slot, ring.slots));
        },
        loopInit, &lastWait);
    if (lastWait && (!outers.empty() || &chain != &chains.back())) {
      // The producer's next stage (of this nest or the next loop) waits
      // for the last slot too. (Not after the last loop: nobody waits, and
      // the arrive there made ptxas serialize the GEMM's wgmma, C7515.)
      OpBuilder ab(lastWait->getContext());
      ab.setInsertionPointAfter(lastWait);
      Value ran = arith::CmpIOp::create(ab, loc, arith::CmpIPredicate::slt,
                                        inner.getLowerBound(),
                                        inner.getUpperBound());
      auto ifOp = scf::IfOp::create(ab, loc, ran, false);
      ab.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      ring.release(ab, loc, sl, 0,
                   previousSlot(ab, loc, inner.getResults().take_back(2)[0],
                                ring.slots));
    }
    // Each outer loop yields what the loop inside it left.
    ValueRange result = inner.getResults().take_back(2);
    for (scf::ForOp n : llvm::reverse(outers)) {
      auto yield = cast<scf::YieldOp>(n.getBody()->getTerminator());
      unsigned e = yield.getNumOperands();
      yield->setOperand(e - 2, result[0]);
      yield->setOperand(e - 1, result[1]);
      result = n.getResults().take_back(2);
    }
    carried = {result[0], result[1]};
    if (pingpong)
      takeTurns(inner);
    // The chain's outermost loop as rewritten (the old ones are erased).
    lastTop = outers.empty() ? inner.getOperation() : outers.front();
  }
  if (pingpong) {
    // Warpgroup 0 goes first; it takes the last turn warpgroup 1 passes.
    OpBuilder tb = OpBuilder::atBlockBegin(consumer);
    WarpgroupTurnOp::create(tb, loc, "start");
    tb.setInsertionPointAfter(lastTop);
    WarpgroupTurnOp::create(tb, loc, "finish");
  }
  // ... and none exits while another may still copy into its slots or
  // arrive on its mbarriers.
  if (clustered) {
    OpBuilder after(ws->getContext());
    after.setInsertionPointAfter(ws);
    ClusterBarrierOp::create(after, loc);
  }
  func->setAttr(WarpSpecializeOp::getProducerWarpsAttrName(),
                IntegerAttr::get(IntegerType::get(ctx, 32),
                                 WarpSpecializeOp::kProducerWarps));
  return true;
}

/// A descriptor access the TMA can make, or a located error.
LogicalResult checkAccess(Operation *op, TensorDescType desc, Type tile,
                          const tilec::Target &target) {
  if (!target.hasTma())
    return op->emitOpError("needs the Tensor Memory Accelerator (sm_90 or "
                           "later); ")
           << target.getChip()
           << " has none: read and write the tensor with tile.load and "
              "tile.store of pointer tiles";
  if (!slotLayout(desc))
    return op->emitOpError("block ")
           << desc.getBlockType()
           << " cannot be moved by the TMA into a swizzled slot: tilec "
              "lowers 8-, 16- and 32-bit blocks that are 2-D after their "
              "leading dims of 1, with a multiple of 8 rows of a multiple "
              "of 32 bytes";
  if (auto t = cast<RankedTensorType>(tile); t.getRank() != 2)
    return op->emitOpError("accesses a ")
           << RankedTensorType::get(t.getShape(), t.getElementType())
           << " tile; tilec moves descriptor blocks as 2-D tiles: drop the "
              "block's leading dims of 1 from the tile's type";
  return success();
}

struct TileLowerDescriptors
    : public tilec::impl::TileLowerDescriptorsBase<TileLowerDescriptors> {
  using Base::Base;
  void runOnOperation() override {
    llvm::Expected<tilec::Target> target = tilec::Target::get(chip);
    if (!target) {
      getOperation().emitError(llvm::toString(target.takeError()));
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isKernel(func) &&
          (failed(lowerKernel(func, *target)) || failed(checkFp8Dots(func, *target))))
        return signalPassFailure();
  }

  /// fp8 dots run on wgmma alone, from a ring's K-major slots: one still a
  /// tile.dot here has no way to run (a target without wgmma, B loaded
  /// [K, N], pointer loads, a layout wgmma cannot take).
  LogicalResult checkFp8Dots(func::FuncOp func, const tilec::Target &target) {
    bool ok = true;
    func.walk([&](DotOp dot) {
      if (!isFp8(dot.getA().getType()))
        return;
      ok = false;
      dot.emitOpError(
          "an fp8 dot runs only on wgmma (sm_90a), in a loop whose operands "
          "are tensor-descriptor loads read K-major: A as an [M, K] block, B "
          "as an [N, K] block through tile.trans (fp8 wgmma has no "
          "transposed operands), with an f32 accumulator, K a multiple of "
          "32, M of 16 * num_warps and num_warps of 4; the target is ")
          << target.getChip();
    });
    return success(ok);
  }

  LogicalResult lowerKernel(func::FuncOp func, const tilec::Target &target) {
    if (int ctas = getNumCtas(func); ctas > 1 && !target.hasClusters())
      return func.emitOpError("runs its programs in clusters of ")
             << ctas << " (tile.num_ctas), which need sm_90 or later; "
             << target.getChip() << " has none: drop tile.num_ctas";
    SmallVector<Operation *> accesses;
    bool ok = true;
    func.walk([&](Operation *op) {
      if (auto l = dyn_cast<DescriptorLoadOp>(op))
        ok &= succeeded(
            checkAccess(op, l.getDesc().getType(), l.getType(), target));
      else if (auto s = dyn_cast<DescriptorStoreOp>(op))
        ok &= succeeded(checkAccess(op, s.getDesc().getType(),
                                    s.getValue().getType(), target));
      else
        return;
      accesses.push_back(op);
    });
    if (!ok)
      return failure();
    // tile.pingpong asks for turns that only a warp-specialized loop of two
    // consumer warpgroups can take: an error otherwise, never ignored.
    auto checkPingPong = [&](bool specialized) -> LogicalResult {
      if (!func->hasAttr(TileDialect::getPingPongAttrName()) ||
          (specialized && getNumWarps(func) == 8))
        return success();
      return func.emitError("'tile.pingpong' needs a warp-specialized loop "
                            "with two consumer warpgroups: tile.num_warps = "
                            "8 and a loop whose wgmma dots (sm_90a) read "
                            "descriptor loads (the kernel has ")
             << getNumWarps(func) << " warps"
             << (specialized ? ")" : ", no loop warp-specialized)");
    };
    // Clusters share only a warp-specialized ring's blocks.
    auto warnUnshared = [&]() {
      if (int ctas = getNumCtas(func); ctas > 1)
        func.emitWarning() << "tile.num_ctas = " << ctas
                           << ": nothing is multicast: only a "
                              "warp-specialized TMA ring is shared by a "
                              "cluster, and the kernel has none";
    };
    if (accesses.empty()) {
      warnUnshared();
      return checkPingPong(false);
    }
    int stages = numStages;
    if (auto attr = func->getAttrOfType<IntegerAttr>(
            TileDialect::getNumStagesAttrName()))
      stages = attr.getInt();
    InPlaceSlots inPlace(func);
    bool specialized = false;
    if (target.hasWgmma() && stages >= 2) {
      bool specialize = warpSpecializeByDefault;
      if (auto attr = func->getAttrOfType<BoolAttr>(
              TileDialect::getWarpSpecializeAttrName()))
        specialize = attr.getValue();
      // The staged loops in program order. A rewrite replaces only its own
      // loop (warp-specialized, also the loops around it, whose bodies move
      // with the ops in them).
      SmallVector<std::unique_ptr<StagedLoop>> loops;
      func.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
        if (std::optional<StagedLoop> sl = findStagedLoop(loop, stages, target))
          loops.push_back(std::make_unique<StagedLoop>(std::move(*sl)));
      });
      // One producer per program: it feeds the first loop that can have
      // one and the later loops (nests) at the top level that read a ring
      // of the same blocks (attention's unmasked and masked loops).
      SmallVector<Chain> chains;
      for (auto &sl : loops) {
        if (!specialize)
          break;
        std::optional<Chain> chain = chainOf(func, *sl);
        if (!chain) {
          if (chains.empty())
            break;
          continue;
        }
        if (!chains.empty() &&
            (chain->loops.front() == chains.back().loops.front() ||
             sl->ringTypes() != chains.front().sl->ringTypes()))
          continue;
        chains.push_back(*chain);
      }
      if (!chains.empty()) {
        // A shared ring has the fewest slots any of its loops affords.
        int64_t slots = chains.front().sl->slots;
        for (const Chain &c : chains)
          slots = std::min(slots, c.sl->slots);
        for (Chain &c : chains)
          c.sl->slots = slots;
        if (!warpSpecialize(func, chains, inPlace))
          chains.clear();
      }
      for (auto &sl : loops)
        if (llvm::none_of(chains, [&](const Chain &c) { return c.sl == sl.get(); }))
          pipelineLoop(*sl, inPlace);
      specialized = !chains.empty();
    }
    if (failed(checkPingPong(specialized)))
      return failure();
    if (!specialized)
      warnUnshared();
    inPlace.eraseLoads();

    // The rest, one slot each and one mbarrier for the kernel.
    SmallVector<Operation *> rest;
    func.walk([&](Operation *op) {
      if (isa<DescriptorLoadOp, DescriptorStoreOp>(op))
        rest.push_back(op);
    });
    if (rest.empty())
      return success();
    // Slots go first in the kernel, each after the last (the kernel's first
    // op may be a descriptor access that is replaced).
    Block &body = func.getBody().front();
    OpBuilder entry = OpBuilder::atBlockBegin(&body);
    Operation *firstOp = &body.front();
    entry.setInsertionPoint(firstOp);
    // An anchor that stays: the allocations go before it.
    Location loc = func.getLoc();
    Type i32 = entry.getI32Type();
    Operation *anchor = arith::ConstantOp::create(
        entry, loc, entry.getI32IntegerAttr(0));
    entry.setInsertionPoint(anchor);
    for (Operation *op : rest) {
      OpBuilder b(op);
      Location l = op->getLoc();
      if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
        Value buf = inPlace.get(load);
        Value c0 = constant(b, l, i32, 0);
        // A tile converted to a dot operand at once is read from the slot
        // in that layout (ldmatrix), not through a second exchange.
        Operation *user =
            load->hasOneUse() ? *load->getUsers().begin() : nullptr;
        auto convert = dyn_cast_if_present<ConvertLayoutOp>(user);
        if (convert && isa<DotOperandLayoutAttr>(convert.getType().getEncoding())) {
          b.setInsertionPoint(convert);
          Value v = LocalLoadOp::create(b, l, convert.getType(), buf, c0);
          convert.replaceAllUsesWith(v);
          convert.erase();
        } else {
          Value v = LocalLoadOp::create(b, l, load.getType(), buf, c0);
          load.replaceAllUsesWith(v);
        }
        load.erase();
        continue;
      }
      auto store = cast<DescriptorStoreOp>(op);
      TensorDescType descType = store.getDesc().getType();
      Value buf = allocSlots(entry, l, descType, 1);
      Value c0 = constant(b, l, i32, 0);
      // A transposed tile (tile.trans of a 2-D tile, used by this store
      // alone) is written untransposed into the slot's transposed view:
      // no exchange through the scratch first.
      Value value = store.getValue();
      auto trans = value.getDefiningOp<TransOp>();
      if (trans && trans->hasOneUse() &&
          cast<RankedTensorType>(value.getType()).getRank() == 2 &&
          trans.getOrder()[0] == 1)
        value = trans.getSrc();
      else
        trans = {};
      // Where each of the slot's boxes is written by one warpgroup alone
      // (the rows of a wgmma accumulator, stored transposed), each
      // warpgroup syncs only its own threads and issues its own boxes.
      auto valueType = cast<RankedTensorType>(value.getType());
      TmaBox box = getTmaBox(descType.getBlockType().getShape(),
                             descType.getElementType().getIntOrFloatBitWidth());
      std::optional<SmallVector<int32_t>> owners = boxWarpgroups(
          valueType, trans ? 0 : valueType.getRank() - 1, box.copies);
      // A reduction in a loop leaves the wait for its slot's read to the
      // next iteration's store (and to after the outermost loop), so that
      // the TMA reads the slot while the step goes on; the first thread
      // waits before the barrier that lets the others write the slot.
      Operation *outer = nullptr;
      if (store.getReduce())
        for (Operation *p = store->getParentOp(); p && !isa<func::FuncOp>(p);
             p = p->getParentOp()) {
          if (isa<WarpSpecializeOp>(p))
            break;
          if (isa<scf::ForOp, scf::WhileOp>(p))
            outer = p;
        }
      if (outer && owners) {
        // Each warpgroup's first thread waits for its own boxes' reads,
        // then the warpgroup's barrier; one barrier of all before the
        // loop orders the slot's first writes after earlier users of its
        // bytes.
        OpBuilder before(outer);
        gpu::BarrierOp::create(before, l);
        TmaStoreWaitOp::create(b, l, buf, /*warpgroups=*/true);
      } else {
        if (outer)
          TmaStoreWaitOp::create(b, l, buf);
        gpu::BarrierOp::create(b, l);
      }
      Value into = buf;
      if (trans)
        into = TransViewOp::create(
            b, l,
            TransViewOp::getTransposedType(cast<SharedMemType>(buf.getType())),
            buf);
      LocalStoreOp::create(b, l, value, into, c0);
      auto tma = TmaStoreOp::create(
          b, l, store.getDesc(), store.getOffsets(), buf, c0,
          store.getReduceAttr(), /*async=*/UnitAttr(),
          owners ? b.getDenseI32ArrayAttr(*owners) : DenseI32ArrayAttr());
      if (outer) {
        tma.setAsync(true);
        OpBuilder after(outer->getContext());
        after.setInsertionPointAfter(outer);
        TmaStoreWaitOp::create(after, l, buf, /*warpgroups=*/bool(owners));
      }
      store.erase();
      if (trans)
        trans.erase();
    }
    anchor->erase();
    return success();
  }
};

} // namespace
