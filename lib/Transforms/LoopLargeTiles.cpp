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
//    run in scf.for loops at the place of its last op, each iteration on the
//    next chunk of that dimension (a multiple of every layout's extent
//    there, so a chunk of the same layout gives each thread the elements it
//    held before, a chunk at a time); tiles without the dimension (the
//    sources of broadcasts along it) are computed before the loops as they
//    were; a reduction along the dimension combines each chunk element by
//    element into an accumulator tile (its combiner applied to tiles; the
//    first chunk taken as it is) and reduces that once after its loop, and
//    the pure ops that use its result move after that loop. A chunked op
//    that uses such a reduction runs in a later loop (softmax: the max, the
//    sum of exp(x - max), then the quotient: three loops), which computes
//    again the chunked ops it needs from earlier loops (the loads of x);
//    every write then runs in the last loop, so that what runs again reads
//    what it read the first time. Within a thread, memory is accessed chunk
//    by chunk rather than op by op, which only a kernel whose elements
//    meet at one address through different pointers could tell;
//  - or it stays as it was, with a warning naming the tile and why (an op
//    that cannot run in chunks, a layout that does not divide, a write
//    whose result is used before a later loop, an op with memory effects
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
#include "llvm/Support/Debug.h"

#include <numeric>

namespace tilec {
#define GEN_PASS_DEF_TILELOOPLARGETILES
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

#define DEBUG_TYPE "tile-loop-large-tiles"

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
  // The loop of each op in inLoop, and before which loop each op of
  // moveAfter goes (numLoops: after the last).
  llvm::DenseMap<Operation *, unsigned> loopOf;
  unsigned numLoops = 1;
  Operation *last = nullptr; // the loops take its place

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
    // Ops tie only dims of one extent (a broadcast's unit dims are not tied).
    assert((!plan.size || plan.size == size) && "a dim class of two extents");
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
      // Every tile an op in the loop makes is a chunk: the ops tie the
      // chunked dim of an operand to their results (a broadcast's unit dim
      // is in a class of extent 1, never chunked; a reduction along it
      // accumulates).
      assert(llvm::all_of(op->getResults(),
                          [&](Value res) {
                            return !isa<RankedTensorType>(res.getType()) ||
                                   plan.dimOf.count(res);
                          }) &&
             "an op in the loop makes a tile without the chunked dim");
    }
    inLoop.insert(op);
    plan.inLoop.push_back(op);
  }

  // Loops: an op runs in the loop after every reduction along the chunked
  // dim whose result it uses (a chunk of softmax's x - max(x) needs the
  // max of all chunks first), and the chunked ops it uses from earlier
  // loops run again in its loop. The pure ops using those results, first
  // seen between the loop's ops, move between the loops.
  Operation *first = plan.inLoop.front();
  plan.last = plan.inLoop.back();
  llvm::DenseMap<Value, unsigned> available; // results from after a loop
  auto loopFor = [&](Operation *op) {
    unsigned loop = 0;
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        if (auto it = available.find(v); it != available.end())
          loop = std::max(loop, it->second);
        Operation *def = v.getDefiningOp();
        if (def && inLoop.count(def) && !plan.isAccumulating(def))
          loop = std::max(loop, plan.loopOf[def]);
      }
    });
    return loop;
  };
  for (Operation *op = first;; op = op->getNextNode()) {
    unsigned loop = loopFor(op);
    if (inLoop.count(op)) {
      plan.loopOf[op] = loop;
      plan.numLoops = std::max(plan.numLoops, loop + 1);
      if (plan.isAccumulating(op))
        for (Value v : op->getResults())
          available[v] = loop + 1;
    } else if (loop > 0) {
      // Ops between the loop's ops stay before them, or move between them.
      if (!isMemoryEffectFree(op)) {
        why = "'" + op->getName().getStringRef().str() +
              "', which has memory effects and uses a reduction along the "
              "chunked dim, lies between its ops";
        return failure();
      }
      plan.moveAfter.push_back(op);
      plan.loopOf[op] = loop;
      for (Value v : op->getResults())
        available[v] = loop;
    } else if (!onlyReads(op)) {
      // Moving a read before the chunks' writes can change what it reads
      // only where one element's write and another's read meet in one
      // program, which the threads of that program already race for
      // (nothing orders a thread's read after another thread's write);
      // writes keep their order.
      why = "'" + op->getName().getStringRef().str() +
            "', which writes memory, lies between its ops";
      return failure();
    }
    if (op == plan.last)
      break;
  }
  // What runs again in a later loop must read what it read the first time:
  // only the last loop writes. A write whose result nothing uses (a store)
  // waits for the last loop; its chunk's loads run again there before it.
  // A read after a write in program order then runs in the last loop only:
  // in an earlier one it would miss what the write (of its own element,
  // perhaps) stores.
  if (plan.numLoops > 1) {
    Operation *firstWrite = nullptr;
    for (Operation *op : plan.inLoop) {
      unsigned &loop = plan.loopOf[op];
      if (onlyReads(op)) {
        if (firstWrite && loop + 1 < plan.numLoops && !isMemoryEffectFree(op)) {
          why = "'" + op->getName().getStringRef().str() + "' follows '" +
                firstWrite->getName().getStringRef().str() +
                "', which writes memory, but runs before the last loop";
          return failure();
        }
        continue;
      }
      if (!firstWrite)
        firstWrite = op;
      if (loop + 1 == plan.numLoops)
        continue;
      if (!op->use_empty()) {
        why = "'" + op->getName().getStringRef().str() +
              "' writes memory and its result is used before a reduction "
              "along the chunked dim that later chunked ops use";
        return failure();
      }
      loop = plan.numLoops - 1;
    }
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
  // A chunk, a multiple of the layouts' period, holds exactly its share of
  // each thread's elements.
  assert(llvm::all_of(plan.dimOf,
                      [&](auto entry) {
                        Value v = entry.first;
                        return elementsPerThread(plan.chunkType(v)) *
                                   (plan.size / plan.chunk) ==
                               elementsPerThread(tileType(v));
                      }) &&
         "a chunk does not hold its share of each thread's elements");
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

/// The ops loop `k` of `plan` runs: its reductions along the chunked dim and
/// writes, and the chunked ops they use (from this loop or, again, from
/// earlier ones), in program order.
SmallVector<Operation *> opsOfLoop(const Plan &plan, unsigned k) {
  llvm::DenseSet<Operation *> inLoop(plan.inLoop.begin(), plan.inLoop.end());
  llvm::DenseSet<Operation *> needed;
  SmallVector<Operation *> work;
  for (Operation *op : plan.inLoop)
    if (plan.loopOf.lookup(op) == k &&
        (plan.isAccumulating(op) || !onlyReads(op)))
      work.push_back(op);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!needed.insert(op).second)
      continue;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp();
          def && inLoop.count(def) && !plan.isAccumulating(def))
        work.push_back(def);
  }
  SmallVector<Operation *> ops;
  for (Operation *op : plan.inLoop)
    if (needed.count(op))
      ops.push_back(op);
  return ops;
}

/// Emits loop `k` of `plan` before `b`'s insertion point and, after it, the
/// reductions of its accumulators, which replace the original reductions.
/// Returns the last op emitted (null for a loop with nothing to do: its ops
/// are dead).
Operation *emitLoop(OpBuilder &b, const Plan &plan, unsigned k) {
  SmallVector<Operation *> ops = opsOfLoop(plan, k);
  if (ops.empty())
    return nullptr;
  Location loc = ops.front()->getLoc();
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  Value lb = constant(0), ub = constant(plan.size), step = constant(plan.chunk);

  // The accumulators of the reductions along the chunked dim; the first
  // iteration takes its chunk as it is, so their start is any value.
  SmallVector<Operation *> reductions;
  SmallVector<Value> inits;
  for (Operation *op : ops)
    if (plan.isAccumulating(op)) {
      reductions.push_back(op);
      for (Value src : cast<ReduceOp>(op).getSrcs()) {
        RankedTensorType type = plan.chunkType(src);
        inits.push_back(arith::ConstantOp::create(
            b, loc,
            SplatElementsAttr::get(type,
                                   b.getZeroAttr(type.getElementType()))));
      }
    }

  auto loop = scf::ForOp::create(
      b, loc, lb, ub, step, inits,
      [&](OpBuilder &nb, Location, Value iv, ValueRange accs) {
        IRMapping map;
        SmallVector<Value> next;
        Value isFirst;
        for (Operation *op : ops) {
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

  // The reductions along the chunked dim, once, on the accumulators. Their
  // users (later loops' ops included) take the new results.
  Operation *after = loop;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfter(loop);
  unsigned accIndex = 0;
  for (Operation *op : reductions) {
    IRMapping map;
    for (Value src : cast<ReduceOp>(op).getSrcs())
      map.map(src, loop.getResult(accIndex++));
    after = b.clone(*op, map);
    op->replaceAllUsesWith(after->getResults());
  }
  return after;
}

/// Rewrites the component as `plan` says: its loops one after the other
/// where its last op was, each preceded by the pure ops that use the
/// previous loops' reductions.
void applyPlan(const Plan &plan) {
  OpBuilder b(plan.last);
  for (unsigned k = 0; k <= plan.numLoops; ++k) {
    for (Operation *op : plan.moveAfter)
      if (plan.loopOf.lookup(op) == k)
        op->moveBefore(b.getInsertionBlock(), b.getInsertionPoint());
    if (k == plan.numLoops)
      break;
    if (Operation *after = emitLoop(b, plan, k))
      b.setInsertionPointAfter(after);
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
      std::string why = best ? "its chunks would not be smaller" : firstWhy;
      if (overLimit(most)) {
        errorAt(c, largest, most, why);
        return signalPassFailure();
      }
      warnAt(c, largest)
          << "tile " << largest.getType() << " holds " << most
          << " elements per thread and stays unrolled (compile time and "
             "registers grow with it): "
          << why;
      return;
    }
    // A tile without the chunked dim stays as it was: say so if it is
    // still large.
    if (best->maxAfter > maxElementsPerThread) {
      bool chunked = best->dimOf.count(best->largestAfter);
      std::string why = chunked ? "its layout allows no smaller chunk"
                                : "it lacks the chunked dim";
      if (overLimit(best->maxAfter)) {
        errorAt(c, best->largestAfter, best->maxAfter,
                "after the loop over chunks of the other tiles, " + why);
        return signalPassFailure();
      }
      warnAt(c, best->largestAfter)
          << "tile " << best->largestAfter.getType() << " still holds "
          << best->maxAfter << " elements per thread after the loop over "
          << "chunks of the other tiles: " << why;
    }
    LLVM_DEBUG(llvm::dbgs()
               << "tile-loop-large-tiles: " << largest.getType() << " (" << most
               << " per thread): " << best->numLoops << " loop(s) over "
               << best->size / best->chunk << " chunks of " << best->chunk
               << ", at most " << best->maxAfter << " per thread\n");
    applyPlan(*best);
  }

  /// The first op of `c` on `tile` that has a place in the source
  /// (canonicalization leaves constants without one).
  Operation *placeOf(Component &c, Value tile) {
    for (Operation *op : c.ops)
      if (!isa<UnknownLoc>(op->getLoc()) &&
          llvm::is_contained(tileValues(op), tile))
        return op;
    return c.ops.front();
  }
  InFlightDiagnostic warnAt(Component &c, Value tile) {
    return placeOf(c, tile)->emitWarning();
  }

  /// More elements per thread than may stay unrolled: LLVM's straight-line
  /// strength reduction is quadratic in a block's addresses (a gather of
  /// 2048 a thread summed in a loop took it over 100 s), so such a tile is
  /// an error rather than minutes of compilation.
  bool overLimit(int64_t perThread) const {
    return maxUnchunkedElementsPerThread > 0 &&
           perThread > maxUnchunkedElementsPerThread;
  }
  void errorAt(Component &c, Value tile, int64_t perThread,
               const std::string &why) {
    placeOf(c, tile)->emitError()
        << "tile " << tile.getType() << " holds " << perThread
        << " elements per thread and cannot run in chunks (" << why
        << "): over the " << int64_t(maxUnchunkedElementsPerThread)
        << " a thread may hold unrolled (compile time grows quadratically "
           "with them); use a smaller tile or more warps, or raise "
           "--max-unchunked-elements";
  }
};

} // namespace
