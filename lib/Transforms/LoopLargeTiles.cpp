//===- LoopLargeTiles.cpp - loops over chunks of large tiles --------------===//
//
// The GPU lowering gives a thread one scalar per element it holds and emits
// straight-line code per element, so a tile of many elements per thread
// makes a long block: LLVM's NVPTX pipeline is superlinear on it (its
// straight-line strength reduction compares candidates of one block pairwise:
// 99% of a 64K-element add's 11 s), and the code is as long as the tile. This
// pass bounds both by running such tiles in chunks:
//
//   %offs = tile.range 0, 65536 : tensor<65536xi32, #b>      // 512/thread
//   %x = tile.load %p, %m ...     (every op of the tile)
//
// becomes
//
//   scf.for %i = 0 to 65536 step 4096 : i32 {
//     %r = tile.range 0, 4096 : tensor<4096xi32, #b>          // 32/thread
//     %offs = arith.addi %r, splat(%i)
//     %x = tile.load %p, %m ...   (the same ops on 4096-element tiles)
//   }
//
// Assumes: kernels after tile-assign-layouts (tiles without layouts are left
// alone; only blocked layouts count: the tensor cores' are what their
// instructions need). The unit is a component: the ops of one block connected
// through tile values, each tile used only by ops of that block. Guarantees,
// for a component holding a tile of more than max-elements-per-thread:
//  - either it is rewritten: its ops on tiles that have the chosen dimension
//    run in one scf.for at the place of its last op, each iteration on the
//    next chunk of that dimension (a multiple of every layout's extent
//    there, so a chunk of the same layout gives each thread the elements it
//    held before, a chunk at a time); tiles without the dimension (the
//    sources of broadcasts along it) are computed before the loop as they
//    were; a reduction along the dimension combines each chunk element by
//    element into an accumulator tile (its combiner applied to tiles; the
//    first chunk taken as it is) and reduces that once after the loop, and
//    the pure ops that use its result move after the loop. Within a thread,
//    memory is then accessed chunk by chunk rather than op by op, which only
//    a kernel whose threads already race could tell;
//  - or it stays as it was, with a warning naming the tile and why (an op
//    that cannot run in chunks, a layout that does not divide, a chunked op
//    that uses a reduction of the same tiles, an op with memory effects
//    between its ops, ...).
// Components at most that large are never touched, so their code is what it
// was.
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Passes.h"

#include "tilec/Dialect/TileGPU/IR/TileLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <numeric>

namespace tilec {
#define GEN_PASS_DEF_TILELOOPLARGETILES
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// Union-find over small integer ids.
class UnionFind {
public:
  unsigned add() {
    parent.push_back(parent.size());
    return parent.size() - 1;
  }
  unsigned find(unsigned x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(unsigned a, unsigned b) { parent[find(a)] = find(b); }

private:
  SmallVector<unsigned> parent;
};

/// How an op relates the dimensions of its tiles.
enum class OpKind {
  Elementwise, // every tile of the op has one shape, dims correspond
  Range,       // a 1-D index tile
  Splat,       // a tile of one scalar (tile.splat, a splat arith.constant)
  Broadcast,   // unit dims repeated
  ExpandDims,  // a unit dim inserted
  Reduce,      // a dim reduced
  Opaque,      // cannot run in chunks
};

OpKind classify(Operation *op) {
  if (isa<RangeOp>(op))
    return OpKind::Range;
  if (isa<SplatOp>(op))
    return OpKind::Splat;
  if (auto cst = dyn_cast<arith::ConstantOp>(op))
    return isa<SplatElementsAttr>(cst.getValue()) ? OpKind::Splat
                                                  : OpKind::Opaque;
  if (isa<BroadcastOp>(op))
    return OpKind::Broadcast;
  if (isa<ExpandDimsOp>(op))
    return OpKind::ExpandDims;
  if (isa<ReduceOp>(op))
    return OpKind::Reduce;
  if (isa<AddPtrOp, BitcastOp, LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp,
          ConvertLayoutOp>(op))
    return OpKind::Elementwise;
  // arith.select with a scalar condition, casts, math: all elementwise.
  if (isa_and_present<arith::ArithDialect, math::MathDialect>(
          op->getDialect()) &&
      op->hasTrait<OpTrait::Elementwise>() && op->getNumRegions() == 0)
    return OpKind::Elementwise;
  return OpKind::Opaque;
}

SmallVector<Value> tileValues(Operation *op) {
  SmallVector<Value> values;
  for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
    if (isa<RankedTensorType>(v.getType()))
      values.push_back(v);
  return values;
}

RankedTensorType tileType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Elements per thread of a tile, or 0 when it has no distributed layout.
int64_t elementsPerThread(RankedTensorType type) {
  FailureOr<DistributedLayout> layout = DistributedLayout::get(type);
  return succeeded(layout) ? layout->getNumElems() : 0;
}

/// Elements per thread of a tile whose layout is blocked (or a slice of
/// one); 0 for the tensor cores' layouts, whose size the dot's instructions
/// set (a dot operand every warp holds whole), and for tiles without one.
int64_t blockedElementsPerThread(RankedTensorType type) {
  FailureOr<DistributedLayout> layout = DistributedLayout::get(type);
  return succeeded(layout) && isa<BlockedLayoutAttr>(layout->getRoot())
             ? layout->getNumElems()
             : 0;
}

/// The combiner ops that also work on tiles (elementwise, or scalar
/// constants made splats) and have no effects.
bool isTileableCombiner(ReduceOp reduce) {
  for (Operation &op : reduce.getCombineOp().front().without_terminator()) {
    if (isa<arith::ConstantOp>(op) &&
        !isa<ShapedType>(op.getResult(0).getType()))
      continue;
    if (classify(&op) != OpKind::Elementwise || !isMemoryEffectFree(&op) ||
        isa<ShapedType>(op.getResult(0).getType()))
      return false;
    // Only integers and floats get a zero for the accumulator's start.
    for (Value v : op.getOperands())
      if (!v.getType().isIntOrFloat())
        return false;
  }
  return true;
}

/// True when `op` and everything in it at most read memory.
bool onlyReads(Operation *op) {
  WalkResult r = op->walk([](Operation *nested) {
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested)) {
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (const MemoryEffects::EffectInstance &e : list)
        if (!isa<MemoryEffects::Read>(e.getEffect()))
          return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    return WalkResult::interrupt(); // unknown effects
  });
  return !r.wasInterrupted();
}

/// The ops of one block connected by tiles, and what the pass can say about
/// their dimensions.
struct Component {
  Block *block;
  SmallVector<Operation *> ops; // program order
  SmallVector<Value> values;    // every tile the ops touch
  // Tiles that cannot be chunked: used by an op that cannot run in chunks,
  // defined outside the block, or used in a region nested in another op.
  llvm::DenseMap<Value, std::string> pinned;
  // The dim classes: tile dims the ops tie together.
  llvm::DenseMap<std::pair<Value, unsigned>, unsigned> dimIds;
  UnionFind dims;

  unsigned dimId(Value v, unsigned d) {
    auto [it, inserted] = dimIds.try_emplace({v, d}, 0);
    if (inserted)
      it->second = dims.add();
    return it->second;
  }
  unsigned dimClass(Value v, unsigned d) { return dims.find(dimId(v, d)); }
};

/// What one component becomes.
struct Plan {
  int64_t size = 0;  // extent of the chunked dim
  int64_t chunk = 0; // its extent in one iteration
  int64_t maxAfter = 0;
  Value largestAfter;                    // the tile holding maxAfter
  llvm::DenseMap<Value, unsigned> dimOf; // chunked tiles: which of their dims
  SmallVector<Operation *> inLoop;       // program order
  SmallVector<Operation *> moveAfter;    // program order
  Operation *last = nullptr;             // the loop takes its place

  RankedTensorType chunkType(Value v) const {
    RankedTensorType type = tileType(v);
    SmallVector<int64_t> shape(type.getShape());
    shape[dimOf.lookup(v)] = chunk;
    return RankedTensorType::get(shape, type.getElementType(),
                                 type.getEncoding());
  }
  /// A reduction along the chunked dim: its accumulators cross iterations.
  bool isAccumulating(Operation *op) const {
    auto reduce = dyn_cast<ReduceOp>(op);
    return reduce &&
           dimOf.lookup(reduce.getSrcs()[0]) == unsigned(reduce.getAxis());
  }
};

/// Ties the dims of `op`'s tiles as its kind says.
void tieDims(Component &c, Operation *op, OpKind kind) {
  switch (kind) {
  case OpKind::Elementwise: {
    SmallVector<Value> tiles = tileValues(op);
    for (Value v : tiles)
      for (unsigned d = 0; d < tileType(v).getRank(); ++d)
        c.dims.unite(c.dimId(tiles[0], d), c.dimId(v, d));
    return;
  }
  case OpKind::Broadcast: {
    auto b = cast<BroadcastOp>(op);
    RankedTensorType src = tileType(b.getSrc()), res = tileType(b.getResult());
    for (unsigned d = 0; d < src.getRank(); ++d)
      if (src.getDimSize(d) == res.getDimSize(d))
        c.dims.unite(c.dimId(b.getSrc(), d), c.dimId(b.getResult(), d));
    return;
  }
  case OpKind::ExpandDims: {
    auto e = cast<ExpandDimsOp>(op);
    unsigned axis = e.getAxis();
    for (unsigned d = 0; d < tileType(e.getSrc()).getRank(); ++d)
      c.dims.unite(c.dimId(e.getSrc(), d),
                   c.dimId(e.getResult(), d < axis ? d : d + 1));
    return;
  }
  case OpKind::Reduce: {
    auto r = cast<ReduceOp>(op);
    unsigned axis = r.getAxis();
    Value first = r.getSrcs()[0];
    for (Value src : r.getSrcs())
      for (unsigned d = 0; d < tileType(src).getRank(); ++d)
        c.dims.unite(c.dimId(first, d), c.dimId(src, d));
    for (Value res : r.getResults())
      if (isa<RankedTensorType>(res.getType()))
        for (unsigned d = 0; d < tileType(first).getRank(); ++d)
          if (d != axis)
            c.dims.unite(c.dimId(first, d), c.dimId(res, d < axis ? d : d - 1));
    return;
  }
  case OpKind::Range:
  case OpKind::Splat:
  case OpKind::Opaque:
    return;
  }
}

/// Elementwise ops need one shape on every tile.
bool shapesAgree(Operation *op) {
  SmallVector<Value> tiles = tileValues(op);
  return llvm::all_of(tiles, [&](Value v) {
    return tileType(v).getShape() == tileType(tiles[0]).getShape();
  });
}

/// Splits the ops of `block` into components and records what ties or pins
/// their dims.
SmallVector<Component> findComponents(Block &block) {
  SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, unsigned> index;
  for (Operation &op : block) {
    index[&op] = ops.size();
    ops.push_back(&op);
  }
  UnionFind opSets;
  for (size_t i = 0; i < ops.size(); ++i)
    opSets.add();
  for (Operation *op : ops)
    for (Value v : op->getResults()) {
      if (!isa<RankedTensorType>(v.getType()))
        continue;
      for (Operation *user : v.getUsers())
        if (Operation *anc = block.findAncestorOpInBlock(*user))
          opSets.unite(index[op], index[anc]);
    }

  llvm::DenseMap<unsigned, unsigned> componentOf;
  SmallVector<Component> components;
  for (Operation *op : ops) {
    if (tileValues(op).empty())
      continue;
    auto [it, inserted] =
        componentOf.try_emplace(opSets.find(index[op]), components.size());
    if (inserted) {
      components.emplace_back();
      components.back().block = &block;
    }
    components[it->second].ops.push_back(op);
  }

  for (Component &c : components) {
    llvm::SetVector<Value> values;
    for (Operation *op : c.ops) {
      OpKind kind = classify(op);
      if (kind == OpKind::Elementwise && !shapesAgree(op))
        kind = OpKind::Opaque;
      for (Value v : tileValues(op)) {
        values.insert(v);
        if (kind == OpKind::Opaque)
          c.pinned.try_emplace(v, "used by '" +
                                      op->getName().getStringRef().str() +
                                      "', which cannot run in chunks");
      }
      for (Value v : op->getOperands())
        if (isa<RankedTensorType>(v.getType()) &&
            (isa<BlockArgument>(v) || v.getParentBlock() != c.block))
          c.pinned.try_emplace(v, "defined outside the ops of its block");
      for (Value v : op->getResults())
        if (isa<RankedTensorType>(v.getType()))
          for (Operation *user : v.getUsers())
            if (user->getBlock() != c.block)
              c.pinned.try_emplace(v, "used inside '" +
                                          c.block->findAncestorOpInBlock(*user)
                                              ->getName()
                                              .getStringRef()
                                              .str() +
                                          "'");
      tieDims(c, op, kind);
    }
    c.values = values.takeVector();
  }
  return components;
}

/// The extent along root dim `d` of a blocked layout's threads and warps:
/// chunks are multiples of it.
std::optional<int64_t> layoutPeriod(RankedTensorType type, unsigned tileDim) {
  FailureOr<DistributedLayout> layout = DistributedLayout::get(type);
  if (failed(layout))
    return std::nullopt;
  auto blocked = dyn_cast<BlockedLayoutAttr>(layout->getRoot());
  if (!blocked)
    return std::nullopt;
  unsigned d = layout->getBlockedDim(tileDim);
  return int64_t(blocked.getSizePerThread()[d]) *
         blocked.getThreadsPerWarp()[d] * blocked.getWarpsPerCTA()[d];
}

std::string describe(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// The plan chunking the dims of class `cls`, or why there is none.
FailureOr<Plan> planFor(Component &c, unsigned cls, int64_t chunkTarget,
                        std::string &why) {
  Plan plan;
  for (Value v : c.values) {
    RankedTensorType type = tileType(v);
    for (unsigned d = 0; d < type.getRank(); ++d) {
      if (c.dimClass(v, d) != cls)
        continue;
      if (plan.dimOf.count(v)) {
        why = "two dims of " + describe(type) + " would be chunked together";
        return failure();
      }
      plan.dimOf[v] = d;
    }
  }
  int64_t period = 1;
  for (auto [v, d] : plan.dimOf) {
    RankedTensorType type = tileType(v);
    if (auto it = c.pinned.find(v); it != c.pinned.end()) {
      why = "its tile " + describe(type) + " is " + it->second;
      return failure();
    }
    int64_t size = type.getDimSize(d);
    if (plan.size && plan.size != size) {
      why = "its tiles differ in extent along the chunked dim";
      return failure();
    }
    plan.size = size;
    std::optional<int64_t> p = layoutPeriod(type, d);
    if (!p || size % *p) {
      why = "the layout of " + describe(type) +
            " is not blocked with threads and warps dividing dim " +
            std::to_string(d);
      return failure();
    }
    period = std::lcm(period, *p);
  }
  if (plan.size <= 1 || plan.size % period || plan.size == period) {
    why = "the chunked dim holds one layout period";
    return failure();
  }

  // The ops: in the loop (touching a chunked tile) or not.
  llvm::DenseSet<Operation *> inLoop;
  for (Operation *op : c.ops) {
    bool chunked = llvm::any_of(tileValues(op),
                                [&](Value v) { return plan.dimOf.count(v); });
    if (!chunked)
      continue;
    if (plan.isAccumulating(op)) {
      auto reduce = cast<ReduceOp>(op);
      if (!isTileableCombiner(reduce)) {
        why = "the combiner of a reduction along the chunked dim does not "
              "apply to tiles";
        return failure();
      }
      RankedTensorType first = plan.chunkType(reduce.getSrcs()[0]);
      for (Value src : reduce.getSrcs()) {
        // The accumulators start as zeros (any value: the first chunk
        // replaces them).
        if (!tileType(src).getElementType().isIntOrFloat()) {
          why =
              "a reduction along the chunked dim of " + describe(tileType(src));
          return failure();
        }
        if (plan.chunkType(src).getShape() != first.getShape() ||
            plan.chunkType(src).getEncoding() != first.getEncoding()) {
          why = "the sources of a reduction along the chunked dim differ in "
                "layout";
          return failure();
        }
      }
    } else {
      // Every tile an op in the loop makes is a chunk.
      for (Value res : op->getResults())
        if (isa<RankedTensorType>(res.getType()) && !plan.dimOf.count(res)) {
          why = "'" + op->getName().getStringRef().str() +
                "' makes a tile without the chunked dim";
          return failure();
        }
    }
    inLoop.insert(op);
    plan.inLoop.push_back(op);
  }

  // What uses a reduction along the chunked dim runs after the loop; the
  // loop cannot use it.
  Operation *first = plan.inLoop.front();
  plan.last = plan.inLoop.back();
  llvm::DenseSet<Value> afterValues;
  for (Operation *op : plan.inLoop)
    if (plan.isAccumulating(op))
      afterValues.insert(op->getResults().begin(), op->getResults().end());
  auto usesAfterValue = [&](Operation *op) {
    bool uses = false;
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (afterValues.count(v))
          uses = true;
    });
    return uses;
  };
  for (Operation *op = first->getNextNode(); op && op != plan.last;
       op = op->getNextNode()) {
    bool after = usesAfterValue(op);
    if (inLoop.count(op)) {
      if (after) {
        why = "'" + op->getName().getStringRef().str() +
              "' uses a reduction along the chunked dim of the same tiles";
        return failure();
      }
      continue;
    }
    // Ops between the loop's ops stay before it, or move after it. Moving
    // a read before the chunks' writes can change what it reads only where
    // one element's write and another's read meet in one program, which
    // the threads of that program already race for (nothing orders a
    // thread's read after another thread's write); writes keep their order.
    if (after ? !isMemoryEffectFree(op) : !onlyReads(op)) {
      why = "'" + op->getName().getStringRef().str() + "', which " +
            (after ? "has memory effects and uses a reduction along the "
                     "chunked dim,"
                   : "writes memory,") +
            " lies between its ops";
      return failure();
    }
    if (after) {
      plan.moveAfter.push_back(op);
      afterValues.insert(op->getResults().begin(), op->getResults().end());
    }
  }
  if (usesAfterValue(plan.last)) {
    why = "'" + plan.last->getName().getStringRef().str() +
          "' uses a reduction along the chunked dim of the same tiles";
    return failure();
  }

  // The chunk: the most layout periods, dividing the extent, that keep each
  // chunk within the target.
  int64_t reps = plan.size / period;
  int64_t maxChunked = 0;
  for (auto [v, d] : plan.dimOf)
    maxChunked = std::max(maxChunked, elementsPerThread(tileType(v)));
  int64_t best = 1;
  for (int64_t m = 1; m < reps; ++m)
    if (reps % m == 0 && maxChunked * period * m / plan.size <= chunkTarget)
      best = m;
  plan.chunk = period * best;
  // The most a tile holds per thread after the rewrite: a chunk, or a tile
  // without the dim (computed before the loop as it was).
  for (Value v : c.values) {
    int64_t n = elementsPerThread(tileType(v));
    if (plan.dimOf.count(v))
      n = n * plan.chunk / plan.size;
    if (n > plan.maxAfter) {
      plan.maxAfter = n;
      plan.largestAfter = v;
    }
  }
  // The chunks must hold exactly their share of each thread's elements.
  for (auto [v, d] : plan.dimOf) {
    int64_t whole = elementsPerThread(tileType(v));
    if (elementsPerThread(plan.chunkType(v)) * (plan.size / plan.chunk) !=
        whole) {
      why = "a chunk of " + describe(tileType(v)) +
            " does not hold its share of each thread's elements";
      return failure();
    }
  }
  return plan;
}

/// `reduce`'s combiner on tiles: the accumulators `acc` and the chunk's
/// `src`, element by element.
SmallVector<Value> combineTiles(OpBuilder &b, ReduceOp reduce, ValueRange acc,
                                ValueRange src) {
  Block &body = reduce.getCombineOp().front();
  RankedTensorType shape = cast<RankedTensorType>(src[0].getType());
  auto tileOf = [&](Type elem) {
    return RankedTensorType::get(shape.getShape(), elem, shape.getEncoding());
  };
  IRMapping map;
  for (auto [i, arg] : llvm::enumerate(body.getArguments()))
    map.map(arg, i < acc.size() ? acc[i] : src[i - acc.size()]);
  for (Operation &op : body.without_terminator()) {
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto value = cast<TypedAttr>(cst.getValue());
      map.map(cst.getResult(),
              arith::ConstantOp::create(
                  b, cst.getLoc(),
                  SplatElementsAttr::get(tileOf(value.getType()), value)));
      continue;
    }
    Operation *tiled = b.clone(op, map);
    for (Value res : tiled->getResults())
      res.setType(tileOf(res.getType()));
  }
  SmallVector<Value> combined;
  for (Value v : body.getTerminator()->getOperands())
    combined.push_back(map.lookup(v));
  return combined;
}

/// Rewrites the component as `plan` says.
void applyPlan(const Plan &plan) {
  Operation *last = plan.last;
  Location loc = plan.inLoop.front()->getLoc();
  OpBuilder b(last);
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  Value lb = constant(0), ub = constant(plan.size), step = constant(plan.chunk);

  // The accumulators of the reductions along the chunked dim; the first
  // iteration takes its chunk as it is, so their start is any value.
  SmallVector<Value> inits;
  for (Operation *op : plan.inLoop)
    if (plan.isAccumulating(op))
      for (Value src : cast<ReduceOp>(op).getSrcs()) {
        RankedTensorType type = plan.chunkType(src);
        inits.push_back(arith::ConstantOp::create(
            b, loc,
            SplatElementsAttr::get(type,
                                   b.getZeroAttr(type.getElementType()))));
      }

  auto loop = scf::ForOp::create(
      b, loc, lb, ub, step, inits,
      [&](OpBuilder &nb, Location, Value iv, ValueRange accs) {
        IRMapping map;
        SmallVector<Value> next;
        Value isFirst;
        for (Operation *op : plan.inLoop) {
          if (auto range = dyn_cast<RangeOp>(op)) {
            RankedTensorType type = plan.chunkType(range.getResult());
            int32_t start = range.getStart();
            Value local = RangeOp::create(
                nb, range.getLoc(), type, nb.getI32IntegerAttr(start),
                nb.getI32IntegerAttr(start + int32_t(plan.chunk)));
            Value offset = SplatOp::create(
                nb, range.getLoc(),
                RankedTensorType::get(type.getShape(), i32, type.getEncoding()),
                iv);
            map.map(range.getResult(),
                    arith::AddIOp::create(nb, range.getLoc(), local, offset));
            continue;
          }
          if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
            auto splat = cast<SplatElementsAttr>(cst.getValue());
            map.map(
                cst.getResult(),
                arith::ConstantOp::create(
                    nb, cst.getLoc(),
                    SplatElementsAttr::get(plan.chunkType(cst.getResult()),
                                           splat.getSplatValue<Attribute>())));
            continue;
          }
          if (plan.isAccumulating(op)) {
            auto reduce = cast<ReduceOp>(op);
            SmallVector<Value> src;
            for (Value s : reduce.getSrcs())
              src.push_back(map.lookup(s));
            ValueRange acc = accs.slice(next.size(), src.size());
            SmallVector<Value> combined = combineTiles(nb, reduce, acc, src);
            if (!isFirst)
              isFirst = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq,
                                              iv, lb);
            for (auto [s, comb] : llvm::zip(src, combined))
              next.push_back(arith::SelectOp::create(nb, reduce.getLoc(),
                                                     isFirst, s, comb));
            continue;
          }
          Operation *chunked = nb.clone(*op, map);
          for (auto [orig, res] :
               llvm::zip(op->getResults(), chunked->getResults()))
            if (plan.dimOf.count(orig))
              res.setType(plan.chunkType(orig));
        }
        scf::YieldOp::create(nb, loc, next);
      });

  // The reductions along the chunked dim, once, on the accumulators; then
  // what uses them.
  b.setInsertionPointAfter(loop);
  Operation *after = loop;
  unsigned accIndex = 0;
  for (Operation *op : plan.inLoop) {
    if (!plan.isAccumulating(op))
      continue;
    IRMapping map;
    for (Value src : cast<ReduceOp>(op).getSrcs())
      map.map(src, loop.getResult(accIndex++));
    after = b.clone(*op, map);
    op->replaceAllUsesWith(after->getResults());
  }
  for (Operation *op : plan.moveAfter) {
    op->moveAfter(after);
    after = op;
  }
  for (Operation *op : llvm::reverse(plan.inLoop))
    op->erase();
}

struct TileLoopLargeTiles
    : public tilec::impl::TileLoopLargeTilesBase<TileLoopLargeTiles> {
  using TileLoopLargeTilesBase::TileLoopLargeTilesBase;

  void runOnOperation() override {
    if (maxElementsPerThread <= 0)
      return;
    int64_t chunkTarget = std::max<int64_t>(
        1, std::min<int64_t>(chunkElementsPerThread, maxElementsPerThread));
    SmallVector<Block *> blocks;
    getOperation().walk([&](func::FuncOp func) {
      if (!isKernel(func))
        return;
      func.walk([&](Block *block) {
        // Combiner regions hold scalars only.
        if (!isa<ReduceOp, ScanOp>(block->getParentOp()))
          blocks.push_back(block);
      });
    });
    for (Block *block : blocks)
      for (Component &c : findComponents(*block))
        runOnComponent(c, chunkTarget);
  }

  void runOnComponent(Component &c, int64_t chunkTarget) {
    Value largest;
    int64_t most = 0;
    for (Value v : c.values)
      if (int64_t n = blockedElementsPerThread(tileType(v)); n > most) {
        most = n;
        largest = v;
      }
    if (most <= maxElementsPerThread)
      return;
    // Candidate dims: those of the largest tile; the plan leaving the
    // fewest elements per thread wins, then the one with fewer iterations.
    std::optional<Plan> best;
    std::string firstWhy;
    for (unsigned d = 0; d < tileType(largest).getRank(); ++d) {
      std::string why;
      FailureOr<Plan> plan =
          planFor(c, c.dimClass(largest, d), chunkTarget, why);
      if (failed(plan)) {
        if (firstWhy.empty())
          firstWhy = why;
        continue;
      }
      if (!best || plan->maxAfter < best->maxAfter ||
          (plan->maxAfter == best->maxAfter &&
           plan->size / plan->chunk < best->size / best->chunk))
        best = std::move(*plan);
    }
    if (!best || best->maxAfter >= most) {
      warnAt(c, largest)
          << "tile " << largest.getType() << " holds " << most
          << " elements per thread and stays unrolled (compile time and "
             "registers grow with it): "
          << (best ? "its chunks would not be smaller" : firstWhy);
      return;
    }
    // A tile without the chunked dim stays as it was: say so if it is
    // still large.
    if (best->maxAfter > maxElementsPerThread) {
      bool chunked = best->dimOf.count(best->largestAfter);
      warnAt(c, best->largestAfter)
          << "tile " << best->largestAfter.getType() << " still holds "
          << best->maxAfter << " elements per thread after the loop over "
          << "chunks of the other tiles: "
          << (chunked ? "its layout allows no smaller chunk"
                      : "it lacks the chunked dim");
    }
    applyPlan(*best);
  }

  /// A warning at the first op of `c` on `tile` that has a place in the
  /// source (canonicalization leaves constants without one).
  InFlightDiagnostic warnAt(Component &c, Value tile) {
    Operation *where = c.ops.front();
    for (Operation *op : c.ops)
      if (!isa<UnknownLoc>(op->getLoc()) &&
          llvm::is_contained(tileValues(op), tile)) {
        where = op;
        break;
      }
    return where->emitWarning();
  }
};

} // namespace
