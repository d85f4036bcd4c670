//===- AssignLayouts.cpp - attach distributed layouts to tiles ------------===//
//
// Assumes: verified, inlined tile kernels (func.func with tile.kernel), of
// tiles of any static shape. Guarantees: every tile type inside a
// kernel carries a #tilegpu.blocked or #tilegpu.slice encoding, and
//  - operands and results of elementwise, memory and scan ops, and values
//    carried through scf.for / scf.if / scf.while, share one layout;
//  - the two halves of a tile.join (and of a tile.split) share one layout,
//    as their ODS type constraint requires;
//  - tile.broadcast has one layout on both sides, tile.expand_dims's source
//    is #tilegpu.slice<axis> of its result's, tile.reduce's tile results are
//    #tilegpu.slice<axis> of their sources';
//  - a tile.dot that mma.sync can run (f16/bf16 operands, see
//    getMmaLayoutFor; on sm_90a the wgmma version 3 when it fits) has a
//    #tilegpu.mma accumulator and #tilegpu.dot_operand
//    operands; loads and stores of those tiles keep a blocked layout of
//    their own (coalesced, vectorized) and meet the dot's layouts through
//    tile.convert_layout (shared memory, ldmatrix);
//  - any other dot (the FMA path) has operands that hold whole rows of A
//    and columns of B in the threads that own the accumulator's rows and
//    columns (inserting tile.convert_layout where these cannot all hold).
//
// Each op says how its tiles' layouts relate (LayoutRelationOpInterface,
// else the Elementwise trait; scf control flow is known here); a region-free
// op with two tiles or more and no rule is an error.
//
// Method: union-find groups the values that must share a layout; groups
// that nothing derives from get a blocked layout chosen for their memory
// accesses (coalesced, vectorized per the axis analysis); the rest derive
// theirs along broadcasts, unit dimensions, reductions and dots, in program
// order; a group with two different derived layouts takes the first and the
// others get a conversion. The groups of mma dots are found first, with
// loads and stores not tying their data to their addresses, and every load
// result or store value in such a group is split from its memory op by a
// conversion; the mma accumulators' groups take #tilegpu.mma before the rest.
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Passes.h"

#include "tilec/Analysis/AxisInfo.h"
#include "tilec/Dialect/TileGPU/IR/TileLayout.h"
#include "tilec/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Debug.h"

#include <limits>

namespace tilec {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

#define DEBUG_TYPE "tile-assign-layouts"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// The uses of `v` in `func`, by their owners' order in a pre-order walk,
/// then by operand number. A use list's order is an accident of how the IR
/// was built or rewritten (the parser, CSE and a builder each leave another
/// one for the same program), so a choice made by position in it would
/// make the output depend on the IR's history.
SmallVector<OpOperand *> getUsesInProgramOrder(func::FuncOp func, Value v) {
  DenseMap<Operation *, unsigned> position;
  for (Operation *user : v.getUsers())
    position[user] = 0;
  unsigned n = 0;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    auto it = position.find(op);
    if (it != position.end())
      it->second = n;
    ++n;
  });
  SmallVector<OpOperand *> uses;
  for (OpOperand &u : v.getUses())
    uses.push_back(&u);
  llvm::sort(uses, [&](OpOperand *a, OpOperand *b) {
    return std::make_pair(position[a->getOwner()], a->getOperandNumber()) <
           std::make_pair(position[b->getOwner()], b->getOperandNumber());
  });
  return uses;
}

/// How a receiving tile's layout follows from a supplying tile's.
enum class Derivation { Same, Slice, DotA, DotB };

struct Edge {
  Operation *op;
  Value supplier, receiver;
  Derivation kind;
  unsigned axis = 0;   ///< Slice: the removed dim
  int64_t k = 0;       ///< DotA/DotB: the reduction length
  unsigned kWidth = 0; ///< DotA/DotB: the mma operands' kWidth
};

/// The layout of a dot operand for an FMA dot with accumulator layout `acc`:
/// the accumulator's threads and warps, each thread holding all of K.
Attribute getDotOperandLayout(Attribute acc, Derivation kind, int64_t k) {
  auto blocked = dyn_cast<BlockedLayoutAttr>(acc);
  if (!blocked || blocked.getRank() != 2)
    return {};
  SmallVector<unsigned> spt(blocked.getSizePerThread());
  spt[kind == Derivation::DotA ? 1 : 0] = k;
  return BlockedLayoutAttr::get(acc.getContext(), spt,
                                blocked.getThreadsPerWarp(),
                                blocked.getWarpsPerCTA(), blocked.getOrder());
}

/// The operand layout of a dot with accumulator layout `acc`: mma
/// operands for an mma accumulator, FMA operands for a blocked one.
Attribute getOperandLayout(Attribute acc, Derivation kind, int64_t k,
                           unsigned kWidth) {
  if (auto mma = dyn_cast_if_present<MmaLayoutAttr>(acc))
    return DotOperandLayoutAttr::get(acc.getContext(),
                                     kind == Derivation::DotA ? 0 : 1, mma,
                                     kWidth);
  return getDotOperandLayout(acc, kind, k);
}

Attribute derive(const Edge &e, Attribute supplier) {
  switch (e.kind) {
  case Derivation::Same:
    return supplier;
  case Derivation::Slice:
    return SliceLayoutAttr::get(supplier.getContext(), e.axis, supplier);
  case Derivation::DotA:
  case Derivation::DotB:
    return getOperandLayout(supplier, e.kind, e.k, e.kWidth);
  }
  return {};
}

unsigned getKWidth(DotOp dot) {
  return getMmaKWidth(dot.getA().getType().getElementTypeBitWidth());
}

Attribute getLayout(Value v) {
  return cast<RankedTensorType>(v.getType()).getEncoding();
}

RankedTensorType withLayout(Type type, Attribute layout) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get(t.getShape(), t.getElementType(), layout);
}

/// Sets a value's type to carry `layout`, keeping constants consistent.
void setLayout(Value v, Attribute layout) {
  RankedTensorType type = withLayout(v.getType(), layout);
  v.setType(type);
  if (auto cst = v.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
      cst.setValueAttr(dense.reshape(type));
}

class LayoutAssigner : public LayoutRelations {
public:
  LayoutAssigner(func::FuncOp func, const ModuleAxisInfo &axis, int numWarps,
                 bool wgmma, bool autoWarps)
      : func(func), axis(axis), numWarps(numWarps), wgmma(wgmma),
        autoWarps(autoWarps) {}

  /// The warps the layouts were made for.
  int getNumWarps() const { return numWarps; }

  LogicalResult run() {
    splitSharedConstants();
    findChainedDots();
    // First pass: which tiles belong to mma dots, with memory data kept
    // apart from addresses.
    if (failed(collect(/*splitMemoryData=*/true)))
      return failure();
    splitMmaMemoryData();
    reset();
    if (failed(collect(/*splitMemoryData=*/false)))
      return failure();
    if (autoWarps)
      pickNumWarps();
    assign();
    for (auto [i, v] : llvm::enumerate(values))
      setLayout(v, layouts[find(i)]);
    insertConversions();
    return success();
  }

private:
  func::FuncOp func;
  const ModuleAxisInfo &axis;
  int numWarps;
  bool wgmma;
  bool autoWarps;

  bool splitData = false;
  SmallVector<Value> values;
  DenseMap<Value, unsigned> index;
  SmallVector<unsigned> parent;
  SmallVector<Edge> edges;
  /// Per value: the pointer tiles of the memory ops touching it.
  SmallVector<SmallVector<Value, 1>> anchors;
  DenseMap<unsigned, Attribute> layouts; // by group root

  unsigned find(unsigned i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  }
  void unite(Value a, Value b) {
    auto ia = index.find(a), ib = index.find(b);
    if (ia == index.end() || ib == index.end())
      return;
    unsigned ra = find(ia->second), rb = find(ib->second);
    if (ra != rb)
      parent[std::max(ra, rb)] = std::min(ra, rb);
  }
  void uniteAll(ValueRange vs) {
    for (Value v : vs)
      unite(vs.front(), v);
  }

  LogicalResult addValue(Value v, Operation *where) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return success();
    index[v] = values.size();
    values.push_back(v);
    parent.push_back(parent.size());
    anchors.emplace_back();
    return success();
  }

  void reset() {
    values.clear();
    index.clear();
    parent.clear();
    edges.clear();
    anchors.clear();
    layouts.clear();
  }

  /// Dots that feed, or are fed by, another dot's A operand (see
  /// findChainedDots).
  DenseSet<Operation *> chained;

  /// True when `dot`'s operands are K-major blocks of tensor descriptors
  /// loaded beside it: A an [M, K] block as loaded, B an [N, K] block
  /// through tile.trans (tf32 wgmma's one form; tile-lower-descriptors
  /// stages them so).
  static bool kMajorDescriptorOperands(DotOp dot) {
    auto beside = [&](Operation *op) {
      return op && op->getBlock() == dot->getBlock();
    };
    // Through the layout conversions this pass inserts.
    auto def = [](Value v) {
      while (auto c = v.getDefiningOp<ConvertLayoutOp>())
        v = c.getSrc();
      return v.getDefiningOp();
    };
    auto a = dyn_cast_if_present<DescriptorLoadOp>(def(dot.getA()));
    auto trans = dyn_cast_if_present<TransOp>(def(dot.getB()));
    auto b = trans ? dyn_cast_if_present<DescriptorLoadOp>(def(trans.getSrc()))
                   : DescriptorLoadOp();
    return beside(a) && beside(trans) && beside(b);
  }

  MmaLayoutAttr mmaLayout(DotOp dot) {
    MmaLayoutAttr mma = getMmaLayoutFor(dot, numWarps, wgmma,
                                        wgmma && kMajorDescriptorOperands(dot));
    // A chained dot puts every warp along M: then each warp holds whole rows
    // of the first dot's accumulator, which are the rows of the second's A
    // operand it needs (a register permutation, no shared memory), and the
    // row statistics between them (attention's max and sum) are reduced
    // within the warp. Version 3 layouts are [w, 1] already.
    int64_t m = dot.getType().getDimSize(0);
    if (mma && mma.getVersionMajor() == 2 && chained.contains(dot) &&
        m >= 16 * int64_t(numWarps))
      return MmaLayoutAttr::get(dot.getContext(), 2, {unsigned(numWarps), 1},
                                {16, 8});
    return mma;
  }

  /// One value has one layout, so a tile constant used by several ops
  /// (the zero `other` of two loads) would tie their layouts together:
  /// each use past the first (in program order) gets its own copy. The CSE after the pass
  /// merges copies that end up with one layout.
  void splitSharedConstants() {
    SmallVector<arith::ConstantOp> shared;
    func.walk([&](arith::ConstantOp c) {
      if (isa<RankedTensorType>(c.getType()) && !c->hasOneUse() &&
          !c->use_empty())
        shared.push_back(c);
    });
    for (arith::ConstantOp c : shared) {
      SmallVector<OpOperand *> uses = getUsesInProgramOrder(func, c);
      OpBuilder b(c);
      b.setInsertionPointAfter(c);
      for (OpOperand *u : llvm::drop_begin(uses))
        u->set(b.clone(*c)->getResult(0));
    }
  }

  /// Marks the dots whose A operand is computed (through elementwise ops:
  /// scaling, exp2, a cast) from another dot's result in the same block,
  /// and those dots: attention's P V after Q K^T.
  void findChainedDots() {
    func.walk([&](DotOp second) {
      SmallVector<Value> work{second.getA()};
      DenseSet<Value> seen;
      while (!work.empty() && seen.size() < 64) {
        Value v = work.pop_back_val();
        if (!seen.insert(v).second)
          continue;
        Operation *def = v.getDefiningOp();
        if (!def || def->getBlock() != second->getBlock())
          continue;
        if (auto first = dyn_cast<DotOp>(def)) {
          chained.insert(first);
          chained.insert(second);
          continue;
        }
        if (def->hasTrait<OpTrait::Elementwise>())
          for (Value o : def->getOperands())
            if (isa<RankedTensorType>(o.getType()))
              work.push_back(o);
      }
    });
  }

  /// Loads whose results and stores whose values share a group with an mma
  /// dot's tiles get a tile.convert_layout between the data and the memory
  /// op, so that the access keeps a coalesced blocked layout.
  void splitMmaMemoryData() {
    DenseSet<unsigned> dotGroups;
    func.walk([&](DotOp d) {
      if (mmaLayout(d))
        for (Value v : {d.getA(), d.getB(), d.getC(), d.getResult()})
          dotGroups.insert(find(index[v]));
    });
    auto inDotGroup = [&](Value v) {
      auto it = index.find(v);
      return it != index.end() && dotGroups.contains(find(it->second));
    };
    func.walk([&](Operation *op) {
      if (auto load = dyn_cast<LoadOp>(op)) {
        Value r = load.getResult();
        if (!isa<RankedTensorType>(r.getType()) || !inDotGroup(r))
          return;
        OpBuilder b(op->getContext());
        b.setInsertionPointAfter(op);
        auto c = ConvertLayoutOp::create(b, op->getLoc(), r.getType(), r);
        r.replaceAllUsesExcept(c, c);
      } else if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
        // Its slot is read back (or staged for wgmma) on its own.
        Value r = load.getResult();
        if (!inDotGroup(r))
          return;
        OpBuilder b(op->getContext());
        b.setInsertionPointAfter(op);
        auto c = ConvertLayoutOp::create(b, op->getLoc(), r.getType(), r);
        r.replaceAllUsesExcept(c, c);
      } else if (auto store = dyn_cast<StoreOp>(op)) {
        Value v = store.getValue();
        if (isa<RankedTensorType>(v.getType()) && inDotGroup(v))
          convertOperand(store.getValueMutable(), getLayout(v));
      } else if (auto store = dyn_cast<DescriptorStoreOp>(op)) {
        Value v = store.getValue();
        if (inDotGroup(v))
          convertOperand(store.getValueMutable(), getLayout(v));
      }
    });
  }

  LogicalResult collect(bool splitMemoryData) {
    splitData = splitMemoryData;
    WalkResult walk = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (Region &r : op->getRegions())
        for (Block &b : r)
          for (BlockArgument arg : b.getArguments())
            if (failed(addValue(arg, op)))
              return WalkResult::interrupt();
      for (Value res : op->getResults())
        if (failed(addValue(res, op)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();

    WalkResult related = func.walk([&](Operation *op) {
      return failed(relate(op)) ? WalkResult::interrupt()
                                : WalkResult::advance();
    });
    return failure(related.wasInterrupted());
  }

  void addAnchor(Value ptr) {
    auto it = index.find(ptr);
    if (it != index.end())
      anchors[it->second].push_back(ptr);
  }

  /// Records what `op` says about the layouts of its tiles: its
  /// LayoutRelationOpInterface rule, the control flow of scf, or for
  /// Elementwise ops (arith, math) one layout. A region-free op with two
  /// tiles or more and none of these is an error: a silent default would
  /// give a new op's tiles layouts its lowering does not expect.
  LogicalResult relate(Operation *op) {
    // Terminators are related through their parent op.
    if (op->hasTrait<OpTrait::IsTerminator>())
      return success();
    if (auto rule = dyn_cast<LayoutRelationOpInterface>(op)) {
      rule.relateLayouts(*this);
      return success();
    }
    if (auto f = dyn_cast<scf::ForOp>(op)) {
      auto yield = cast<scf::YieldOp>(f.getBody()->getTerminator());
      for (unsigned i = 0; i < f.getNumResults(); ++i)
        uniteAll({f.getInitArgs()[i], f.getRegionIterArgs()[i],
                  f.getResult(i), yield.getOperand(i)});
      return success();
    }
    if (auto i = dyn_cast<scf::IfOp>(op)) {
      for (unsigned n = 0; n < i.getNumResults(); ++n) {
        unite(i.getResult(n), i.thenYield().getOperand(n));
        if (!i.getElseRegion().empty())
          unite(i.getResult(n), i.elseYield().getOperand(n));
      }
      return success();
    }
    if (auto w = dyn_cast<scf::WhileOp>(op)) {
      auto yield = w.getYieldOp();
      for (unsigned n = 0; n < w.getInits().size(); ++n)
        uniteAll({w.getInits()[n], w.getBeforeArguments()[n],
                  yield.getOperand(n)});
      auto cond = w.getConditionOp();
      for (unsigned n = 0; n < w.getNumResults(); ++n)
        uniteAll({cond.getArgs()[n], w.getAfterArguments()[n],
                  w.getResult(n)});
      return success();
    }
    // Other ops with regions (the kernel itself) relate nothing; their
    // bodies are walked.
    if (op->getNumRegions() != 0)
      return success();
    if (op->hasTrait<OpTrait::Elementwise>()) {
      sameLayoutAll(op);
      return success();
    }
    auto isTile = [](Value v) { return isa<RankedTensorType>(v.getType()); };
    if (llvm::count_if(op->getOperands(), isTile) +
            llvm::count_if(op->getResults(), isTile) <=
        1)
      return success();
    return op->emitOpError("has no layout rule: tile-assign-layouts relates "
                           "the layouts of an op's tiles through "
                           "tile::LayoutRelationOpInterface or the "
                           "Elementwise trait");
  }

  // LayoutRelations: what the ops report.
  void sameLayout(ValueRange vs) override {
    SmallVector<Value> tiles;
    for (Value v : vs)
      if (isa<RankedTensorType>(v.getType()))
        tiles.push_back(v);
    if (!tiles.empty())
      uniteAll(tiles);
  }
  void sameAs(Operation *op, Value receiver, Value supplier) override {
    edges.push_back({op, supplier, receiver, Derivation::Same});
  }
  void sliceOf(Operation *op, Value sliced, Value full,
               unsigned axis) override {
    if (isa<RankedTensorType>(sliced.getType()))
      edges.push_back({op, full, sliced, Derivation::Slice, axis});
  }
  void dotOperands(DotOp d) override {
    unite(d.getC(), d.getResult());
    int64_t k = d.getA().getType().getDimSize(1);
    unsigned kw = getKWidth(d);
    edges.push_back({d, d.getC(), d.getA(), Derivation::DotA, 0, k, kw});
    edges.push_back({d, d.getC(), d.getB(), Derivation::DotB, 0, k, kw});
  }
  void memoryAccess(Value ptr, ValueRange addresses, ValueRange data) override {
    // While the mma groups are found, data is not tied to its addresses.
    SmallVector<Value> tiles(addresses);
    if (!splitData)
      llvm::append_range(tiles, data);
    sameLayout(tiles);
    addAnchor(ptr);
  }

  /// A blocked layout for a group that nothing derives: coalesced along
  /// the most contiguous dim of its memory accesses, as wide a vector per
  /// thread as contiguity and alignment allow (at most 16 bytes), without
  /// leaving threads idle.
  Attribute choose(unsigned group) { return choose(group, numWarps); }
  BlockedLayoutAttr choose(unsigned group, int numWarps) {
    auto type = cast<RankedTensorType>(values[group].getType());
    ArrayRef<int64_t> shape = type.getShape();
    unsigned rank = shape.size();
    SmallVector<unsigned> order;
    for (unsigned d = rank; d-- > 0;)
      order.push_back(d);
    int64_t bestContig = 0;
    SmallVector<std::pair<unsigned, int64_t>> vecs; // (fast dim, elems)
    for (unsigned i = 0; i < values.size(); ++i) {
      if (find(i) != group)
        continue;
      for (Value ptr : anchors[i]) {
        AxisInfo info = axis.get(ptr);
        if (info.getRank() != rank)
          continue;
        SmallVector<unsigned> ord(order);
        llvm::stable_sort(ord, [&](unsigned a, unsigned b) {
          return info.getContiguity(a) > info.getContiguity(b);
        });
        auto ptrType = cast<PointerType>(getElementTypeOrSelf(ptr.getType()));
        Type pointee = ptrType.getPointeeType();
        int64_t bytes = isa<PointerType>(pointee)
                            ? 8
                            : std::max<int64_t>(
                                  1, pointee.getIntOrFloatBitWidth() / 8);
        unsigned d0 = ord[0];
        int64_t vec = std::min<int64_t>(
            {info.getContiguity(d0),
             std::max<int64_t>(1, info.getDivisibility(d0) / bytes),
             std::max<int64_t>(1, 16 / bytes)});
        if (info.getContiguity(d0) > bestContig) {
          bestContig = info.getContiguity(d0);
          order = ord;
        }
        vecs.push_back({d0, vec});
        LLVM_DEBUG(llvm::dbgs() << "  access " << ptr << ": contiguity "
                                << info.getContiguity(d0) << ", divisibility "
                                << info.getDivisibility(d0) << " along dim "
                                << d0 << " -> vector of " << vec << "\n");
      }
    }
    int64_t spt = 1;
    for (auto [d, v] : vecs)
      if (d == order[0])
        spt = std::max(spt, v);
    int64_t threads = 32 * numWarps;
    spt = std::min<int64_t>(spt,
                            std::max<int64_t>(1, type.getNumElements() /
                                                     threads));
    // A power of two that divides the fast dim: a vector never straddles
    // the end of a row of 5000 (nor its padding's wrap to the start).
    spt = int64_t(1) << llvm::Log2_64(spt);
    while (shape[order[0]] % spt)
      spt /= 2;
    BlockedLayoutAttr chosen =
        getDefaultBlockedLayout(func.getContext(), shape, order, spt, numWarps);
    LLVM_DEBUG(llvm::dbgs()
               << "group of " << values[group] << ": " << vecs.size()
               << " accesses, " << spt << " elements per thread along dim "
               << order[0] << " (capped by " << type.getNumElements()
               << " elements / " << threads << " threads) -> " << chosen
               << "\n");
    return chosen;
  }

  /// The groups whose layout is chosen (not derived), as a choice needs.
  SmallVector<unsigned> getChosenGroups() {
    DenseSet<unsigned> derived;
    for (const Edge &e : edges)
      derived.insert(find(index[e.receiver]));
    SmallVector<unsigned> roots;
    for (unsigned i = 0; i < values.size(); ++i)
      if (find(i) == i && !derived.contains(i))
        roots.push_back(i);
    return roots;
  }

  /// The number of warps for a kernel that does not set tile.num_warps and
  /// has a tile that is not a power of two: over 1..16 warps, the fewest
  /// wasted element slots (padding and replicas: perThread x threads -
  /// elements, summed over the chosen layouts). Among exact covers (no
  /// waste) the fewest warps whose threads hold at most kMaxElemsPerThread
  /// elements of every tile win: a memory-bound row kernel wants several
  /// vectors in flight per thread more than it wants threads (on the H200
  /// the 3072-wide bf16 layernorm took 0.099 ms on 4 warps, 24 elements or
  /// three 16-byte vectors each: 96% of the copy bandwidth; 0.101 on 6,
  /// 0.121 on 8, 0.126 on 12, one vector each; 0.165 on 16). Other ties go
  /// to the most warps (at most 512 threads), as measured for the padded
  /// 5000 f32 (10 warps, 95% of copy; fewer were not measured). So 3072
  /// bf16 takes 4 warps, 5000 f32 10 (120 padded slots, 4 vectors each),
  /// 96x128 bf16 16.
  static constexpr int64_t kMaxElemsPerThread = 24;
  void pickNumWarps() {
    bool pow2 = true, dots = false;
    for (Value v : values)
      pow2 &= hasPowerOfTwoShape(
          cast<RankedTensorType>(v.getType()).getShape());
    func.walk([&](DotOp) { dots = true; });
    if (pow2 || dots)
      return;
    SmallVector<unsigned> groups = getChosenGroups();
    int best = numWarps;
    int64_t bestWaste = std::numeric_limits<int64_t>::max();
    bool bestFits = false;
    for (int w = 1; w <= 16; ++w) {
      int64_t waste = 0, perThread = 0;
      for (unsigned g : groups) {
        auto type = cast<RankedTensorType>(values[g].getType());
        FailureOr<DistributedLayout> dl =
            DistributedLayout::get(choose(g, w), type.getShape());
        if (failed(dl)) {
          waste += type.getNumElements() * 32;
          continue;
        }
        waste += dl->getNumElems() * 32 * w - type.getNumElements();
        perThread = std::max<int64_t>(perThread, dl->getNumElems());
      }
      bool fits = waste == 0 && perThread <= kMaxElemsPerThread;
      // Fewer wasted slots win; at equal waste the first count that fits
      // stays, and until one fits each larger count replaces the last.
      if (waste < bestWaste || (waste == bestWaste && !bestFits)) {
        best = w;
        bestWaste = waste;
        bestFits = fits;
      }
    }
    LLVM_DEBUG(llvm::dbgs() << "num_warps " << best << " (" << bestWaste
                            << " wasted slots)\n");
    numWarps = best;
  }

  void assign() {
    // mma accumulators first: nothing else may decide their layout.
    func.walk([&](DotOp d) {
      if (MmaLayoutAttr mma = mmaLayout(d)) {
        unsigned g = find(index[d.getC()]);
        if (!layouts.count(g)) {
          layouts[g] = mma;
          LLVM_DEBUG(llvm::dbgs()
                     << "mma accumulator of " << d << " -> " << mma << "\n");
        }
      }
    });
    DenseSet<unsigned> derived;
    for (const Edge &e : edges)
      derived.insert(find(index[e.receiver]));
    for (unsigned i = 0; i < values.size(); ++i)
      if (find(i) == i && !derived.contains(i) && !layouts.count(i))
        layouts[i] = choose(i);
    while (true) {
      bool changed = true;
      while (changed) {
        changed = false;
        for (const Edge &e : edges) {
          unsigned s = find(index[e.supplier]), r = find(index[e.receiver]);
          if (!layouts.count(s) || layouts.count(r))
            continue;
          if (Attribute l = derive(e, layouts[s])) {
            layouts[r] = l;
            changed = true;
            LLVM_DEBUG(llvm::dbgs() << "derived along " << *e.op << ": "
                                    << e.receiver << " -> " << l << "\n");
          }
        }
      }
      // Groups only reachable through a cycle (or an underivable dot
      // operand) start from a fresh choice.
      unsigned next = values.size();
      for (unsigned i = 0; i < values.size() && next == values.size(); ++i)
        if (!layouts.count(find(i)))
          next = find(i);
      if (next == values.size())
        break;
      layouts[next] = choose(next);
    }
  }

  /// Converts `v` to `layout` for the single use `use`.
  void convertOperand(OpOperand &use, Attribute layout) {
    OpBuilder b(use.getOwner());
    Value v = use.get();
    Value c = ConvertLayoutOp::create(b, use.getOwner()->getLoc(),
                                      withLayout(v.getType(), layout), v);
    use.set(c);
  }

  /// An FMA dot whose accumulator group is an mma one (it shares an
  /// accumulator with an mma dot) runs on a blocked copy of it.
  Attribute blockAccumulator(DotOp d) {
    auto type = d.getType();
    Attribute mma = type.getEncoding();
    Attribute blocked = getDefaultBlockedLayout(
        d.getContext(), type.getShape(), {1, 0}, 1, numWarps);
    convertOperand(d.getCMutable(), blocked);
    d.getResult().setType(withLayout(type, blocked));
    OpBuilder b(d.getContext());
    b.setInsertionPointAfter(d);
    auto c = ConvertLayoutOp::create(b, d.getLoc(), withLayout(type, mma),
                                     d.getResult());
    d.getResult().replaceAllUsesExcept(c, c);
    return blocked;
  }

  void insertConversions() {
    func.walk([&](Operation *op) {
      if (auto b = dyn_cast<BroadcastOp>(op)) {
        if (getLayout(b.getSrc()) != getLayout(b.getResult()))
          convertOperand(b.getSrcMutable(), getLayout(b.getResult()));
      } else if (auto e = dyn_cast<ExpandDimsOp>(op)) {
        Attribute want = SliceLayoutAttr::get(
            op->getContext(), e.getAxis(), getLayout(e.getResult()));
        if (getLayout(e.getSrc()) != want)
          convertOperand(e.getSrcMutable(), want);
      } else if (auto r = dyn_cast<ReduceOp>(op)) {
        for (auto [src, res] : llvm::zip(r.getSrcs(), r.getResults())) {
          if (!isa<RankedTensorType>(res.getType()))
            continue;
          Attribute want = SliceLayoutAttr::get(op->getContext(), r.getAxis(),
                                                getLayout(src));
          Attribute have = getLayout(res);
          if (have == want)
            continue;
          res.setType(withLayout(res.getType(), want));
          OpBuilder b(op->getContext());
          b.setInsertionPointAfter(op);
          auto c = ConvertLayoutOp::create(
              b, op->getLoc(), withLayout(res.getType(), have), res);
          res.replaceAllUsesExcept(c, c);
        }
      } else if (auto d = dyn_cast<DotOp>(op)) {
        Attribute acc = getLayout(d.getC());
        if (isa<MmaLayoutAttr>(acc) && !mmaLayout(d))
          acc = blockAccumulator(d);
        int64_t k = d.getA().getType().getDimSize(1);
        unsigned kw = getKWidth(d);
        if (Attribute a = getOperandLayout(acc, Derivation::DotA, k, kw);
            a && getLayout(d.getA()) != a)
          convertOperand(d.getAMutable(), a);
        if (Attribute bl = getOperandLayout(acc, Derivation::DotB, k, kw);
            bl && getLayout(d.getB()) != bl)
          convertOperand(d.getBMutable(), bl);
      }
    });
  }
};

/// Ops that compute addresses and masks from scalars: ranges, splats,
/// broadcasts, expand_dims, addptr, tile constants, and integer (i1
/// included) elementwise arith.
bool isIndexOp(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions())
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return false;
  if (isa<RangeOp, SplatOp, BroadcastOp, ExpandDimsOp, AddPtrOp,
          arith::ConstantOp>(op))
    return true;
  return isa<arith::ArithDialect>(op->getDialect()) &&
         op->hasTrait<OpTrait::Elementwise>() && isMemoryEffectFree(op) &&
         type.getElementType().isIntOrIndex();
}

/// True when `v` is computed by index ops only, from scalars, at most
/// `depth` ops deep.
bool isIndexTile(Value v, int depth) {
  Operation *def = v.getDefiningOp();
  if (!def || depth == 0 || !isIndexOp(def))
    return false;
  for (Value o : def->getOperands())
    if (isa<RankedTensorType>(o.getType()) && !isIndexTile(o, depth - 1))
      return false;
  return true;
}

/// A copy of index tile `v`'s whole computation at `b`'s insertion point.
Value cloneIndexTile(OpBuilder &b, Value v) {
  Operation *def = v.getDefiningOp();
  IRMapping map;
  for (Value o : def->getOperands())
    if (isa<RankedTensorType>(o.getType()))
      map.map(o, cloneIndexTile(b, o));
  return b.clone(*def, map)->getResult(0);
}

/// One value has one layout, so an address or mask tile used by several
/// ops ties their layouts together: a key mask shared by a [D, N] load of
/// K^T and the [M, N] scores it masks (one value when D = M, after CSE)
/// gave the load the dot accumulator's layout, and scalar loads. Each use
/// past the first (in program order) gets its own copy of the whole computation (from
/// scalars: cheap), before the axis analysis so that the copies have
/// theirs; the CSE after the pass merges copies that end up alike.
void splitSharedIndexTiles(func::FuncOp func) {
  SmallVector<Value> shared;
  func.walk([&](Operation *op) {
    if (op->getNumResults() != 1 || isa<arith::ConstantOp>(op))
      return;
    Value v = op->getResult(0);
    if (!v.use_empty() && !v.hasOneUse() && isIndexTile(v, 8))
      shared.push_back(v);
  });
  for (Value v : shared) {
    SmallVector<OpOperand *> uses = getUsesInProgramOrder(func, v);
    OpBuilder b(v.getDefiningOp());
    for (OpOperand *u : llvm::drop_begin(uses))
      u->set(cloneIndexTile(b, v));
  }
}

struct TileAssignLayouts
    : public tilec::impl::TileAssignLayoutsBase<TileAssignLayouts> {
  using Base::Base;
  void runOnOperation() override {
    // Every known target runs the blocked and mma.sync layouts chosen here;
    // the chip is validated so that target-specific layouts (wgmma) have it.
    llvm::Expected<tilec::Target> target = tilec::Target::get(chip);
    if (!target) {
      getOperation().emitError(llvm::toString(target.takeError()));
      return signalPassFailure();
    }
    // Text shorthands the front end expands (tile-opt may not have).
    tile::expandShorthands(getOperation());
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isKernel(func))
        splitSharedIndexTiles(func);
    ModuleAxisInfo axis(getOperation());
    if (!axis.succeeded())
      return signalPassFailure();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!isKernel(func))
        continue;
      int warps = getNumWarps(func, numWarps);
      bool forced = func->hasAttr(TileDialect::getNumWarpsAttrName());
      LayoutAssigner assigner(func, axis, warps, target->hasWgmma(), !forced);
      if (failed(assigner.run()))
        return signalPassFailure();
      warps = assigner.getNumWarps();
      // The lowering and the metadata launch what the layouts were made for.
      func->setAttr(TileDialect::getNumWarpsAttrName(),
                    IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                     warps));
    }
  }
};

} // namespace
