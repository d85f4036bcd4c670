//===- Memory.cpp - constants, loads, stores, atomics, dot ----------------===//
//
// Memory ops broadcast pointers, mask and values together (as Triton does)
// and convert values to the pointee type within their kind; a conversion
// across kinds (float <-> integer) must be written with Value::to.
//
//===----------------------------------------------------------------------===//

#include "Detail.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
namespace tilec {
using namespace detail;

static bool isPtr(Type t) {
  return isa<tile::PointerType>(getElementTypeOrSelf(t));
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

static void checkShape(KernelImpl &k, const Site &s,
                       const std::vector<int64_t> &shape) {
  if (llvm::any_of(shape, [](int64_t d) { return d < 1; }))
    k.fail(s, "dimensions must be positive, got " + shapeStr(shape));
}

Value Kernel::full(const std::vector<int64_t> &shape, const Operand &value,
                   DType type, SourceLoc loc) {
  Site s = site(loc, "Kernel::full");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  checkShape(k, s, shape);
  Type elem = mlirType(type, k.context.get());
  if (value.kind() != Operand::Kind::Value)
    return Access::wrap(impl_, detail::constant(k, value, elem, shape, s));
  mlir::Value v = k.use(value.value(), s);
  if (isa<RankedTensorType>(v.getType()) || isPtr(v.getType()))
    k.fail(s, "the fill value must be a number or a numeric scalar, got " +
                  typeStr(v.getType()));
  return Access::wrap(impl_, broadcastTo(k, castTo(k, v, elem, s), shape, s));
}

Value Kernel::zeros(const std::vector<int64_t> &shape, DType type,
                    SourceLoc loc) {
  return full(shape, Operand(0, loc), type, loc);
}

Value Kernel::constant(const Operand &value, DType type, SourceLoc loc) {
  return full({}, value, type, loc);
}

//===----------------------------------------------------------------------===//
// Loads and stores
//===----------------------------------------------------------------------===//

/// Converts a stored (or `other`, or atomic) operand to the pointee type
/// `elem` and `shape`.
static mlir::Value memoryOperand(KernelImpl &k, const Site &s,
                                 const Resolved &r, Type elem,
                                 ArrayRef<int64_t> shape, StringRef what,
                                 Type ptrType) {
  if (r.isNumber())
    return constant(k, *r.operand, elem, shape, s);
  Type from = getElementTypeOrSelf(r.value.getType());
  if (isPtr(from) || isa<FloatType>(from) != isa<FloatType>(elem))
    k.fail(s, (what + " " + typeStr(r.value.getType()) +
               " does not convert implicitly to the pointee of " +
               typeStr(ptrType) + "; convert it with Value::to first")
                  .str());
  return broadcastTo(k, castTo(k, r.value, elem, s), shape, s);
}

/// The pointer operand of a memory op, checked.
static mlir::Value pointerOperand(KernelImpl &k, const Site &s,
                                  const Value &ptr) {
  mlir::Value p = k.use(ptr, s);
  if (!isPtr(p.getType()))
    k.fail(s, "expected a pointer or a tile of pointers, got " +
                  typeStr(p.getType()));
  return p;
}

/// The mask operand of a memory op, checked.
static mlir::Value maskOperand(KernelImpl &k, const Site &s,
                               const std::optional<Value> &mask) {
  if (!mask)
    return {};
  mlir::Value m = k.use(*mask, s);
  if (!getElementTypeOrSelf(m.getType()).isInteger(1))
    k.fail(s,
           "the mask must be i1 (a comparison), got " + typeStr(m.getType()));
  return m;
}

/// The broadcast shape of pointers, mask and value operands.
static SmallVector<int64_t> memoryShape(KernelImpl &k, const Site &s,
                                        ArrayRef<mlir::Value> values) {
  SmallVector<int64_t> shape;
  for (mlir::Value v : values) {
    if (!v)
      continue;
    auto next = broadcastShapes(shape, tile::getShapeOrEmpty(v.getType()));
    if (!next) {
      std::string all;
      for (mlir::Value w : values)
        if (w)
          all += (all.empty() ? "" : ", ") + typeStr(w.getType());
      k.fail(s, "pointers, mask and values (" + all +
                    ") do not broadcast to one shape");
    }
    shape = *next;
  }
  return shape;
}

static tile::CacheModifier toCache(Cache c) {
  return static_cast<tile::CacheModifier>(static_cast<int>(c));
}
static tile::EvictionPolicy toEvict(Evict e) {
  return static_cast<tile::EvictionPolicy>(static_cast<int>(e));
}

Value Kernel::load(const Value &ptr, const std::optional<Value> &mask,
                   const std::optional<Operand> &other,
                   const LoadOptions &options, SourceLoc loc) {
  Site s = site(loc, "tile.load");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  mlir::Value p = pointerOperand(k, s, ptr);
  mlir::Value m = maskOperand(k, s, mask);
  if (other && !m)
    k.fail(s, "'other' needs a mask (it fills the lanes the mask turns off)");
  SmallVector<Resolved> ops;
  // A number alone has no kernel: resolve it next to the pointer.
  Operand ptrOperand(ptr, loc);
  if (other)
    resolve({&*other, &ptrOperand}, ops, s);
  mlir::Value o = other && !ops[0].isNumber() ? ops[0].value : mlir::Value();
  SmallVector<int64_t> shape = memoryShape(k, s, {p, m, o});
  Type pointeeType = tile::getPointeeTypeSameShape(p.getType());
  Type elem = getElementTypeOrSelf(pointeeType);
  p = broadcastTo(k, p, shape, s);
  if (m)
    m = broadcastTo(k, m, shape, s);
  if (other)
    o = memoryOperand(k, s, ops[0], elem, shape, "other", p.getType());
  auto load = k.create<tile::LoadOp>(
      s, tile::getPointeeTypeSameShape(p.getType()), p, m, o,
      toCache(options.cache), toEvict(options.evict), options.isVolatile);
  std::vector<Pad> pads = padsToRank(k, Access::pads(ptr), shape.size(), s);
  if (m && !shape.empty())
    pads = mergePads(pads, {{m, mlir::Value()}});
  return Access::wrap(impl_, load, pads);
}

/// The operands of a store or an atomic: pointers, mask and value brought to
/// one shape, the value converted to the pointee type.
struct WriteOperands {
  mlir::Value ptr, mask, value;
  Type elem;
};

static WriteOperands writeOperands(KernelImpl &k, const Site &s,
                                   const Value &ptr, const Operand &value,
                                   const std::optional<Value> &mask,
                                   SourceLoc loc) {
  WriteOperands w;
  w.ptr = pointerOperand(k, s, ptr);
  w.mask = maskOperand(k, s, mask);
  SmallVector<Resolved> ops;
  // A number alone has no kernel: resolve it next to the pointer.
  Operand ptrOperand(ptr, loc);
  resolve({&value, &ptrOperand}, ops, s);
  SmallVector<int64_t> shape = memoryShape(k, s, {w.ptr, w.mask, ops[0].value});
  w.elem = getElementTypeOrSelf(tile::getPointeeTypeSameShape(w.ptr.getType()));
  w.ptr = broadcastTo(k, w.ptr, shape, s);
  if (w.mask)
    w.mask = broadcastTo(k, w.mask, shape, s);
  w.value =
      memoryOperand(k, s, ops[0], w.elem, shape, "value", w.ptr.getType());
  return w;
}

void Kernel::store(const Value &ptr, const Operand &value,
                   const std::optional<Value> &mask,
                   const StoreOptions &options, SourceLoc loc) {
  Site s = site(loc, "tile.store");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  WriteOperands w = writeOperands(k, s, ptr, value, mask, loc);
  k.create<tile::StoreOp>(s, w.ptr, w.value, w.mask, toCache(options.cache),
                          toEvict(options.evict));
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

/// The descriptor type of `desc`, and its offsets as i32 scalars.
static tile::TensorDescType descriptorOperands(
    KernelImpl &k, const Site &s, const Value &desc,
    const std::vector<Operand> &offsets, SmallVectorImpl<mlir::Value> &out) {
  mlir::Value d = k.use(desc, s);
  auto type = dyn_cast<tile::TensorDescType>(d.getType());
  if (!type)
    k.fail(s, "expects a tensor descriptor (Kernel::tensorDesc), got " +
                  typeStr(d.getType()));
  if (int64_t(offsets.size()) != type.getRank())
    k.fail(s, "the descriptor is " + std::to_string(type.getRank()) +
                  "-D but " + std::to_string(offsets.size()) + " offset" +
                  (offsets.size() == 1 ? " was" : "s were") +
                  " given (one per dimension, outermost first)");
  Type i32 = k.builder.getI32Type();
  for (const Operand &o : offsets) {
    if (o.kind() == Operand::Kind::Value) {
      mlir::Value v = k.use(o.value(), s);
      if (!v.getType().isInteger(32))
        k.fail(s, "descriptor offsets are i32 scalars, got " +
                      typeStr(v.getType()));
      out.push_back(v);
      continue;
    }
    if (o.kind() == Operand::Kind::Float || o.kind() == Operand::Kind::Bool)
      k.fail(s, "descriptor offsets are integers");
    out.push_back(constant(k, o, i32, {}, s));
  }
  return type;
}

/// The tile a descriptor access moves: the block without its leading dims
/// of 1 down to two dims (a [1, 1, 64, 128] block of a 4-D tensor moves a
/// 64x128 tile, which is what the TMA path stages).
static Type descriptorTile(tile::TensorDescType type) {
  RankedTensorType block = type.getBlockType();
  ArrayRef<int64_t> shape = block.getShape();
  while (shape.size() > 2 && shape.front() == 1)
    shape = shape.drop_front();
  return RankedTensorType::get(shape, block.getElementType());
}

Value Kernel::descriptorLoad(const Value &desc,
                             const std::vector<Operand> &offsets,
                             SourceLoc loc) {
  Site s = site(loc, "tile.descriptor_load");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  SmallVector<mlir::Value> offs;
  tile::TensorDescType type = descriptorOperands(k, s, desc, offsets, offs);
  return Access::wrap(impl_, k.create<tile::DescriptorLoadOp>(
                                 s, descriptorTile(type), k.use(desc, s),
                                 offs));
}

namespace {

/// descriptorStore and descriptorAtomicAdd: the value converted to the
/// descriptor's element type and block, stored or added.
void storeBlock(KernelImpl &k, Site s, const Value &desc,
                const std::vector<Operand> &offsets, const Operand &value,
                bool add) {
  k.checkUsable(s);
  SmallVector<mlir::Value> offs;
  tile::TensorDescType type = descriptorOperands(k, s, desc, offsets, offs);
  Type elem = type.getElementType();
  std::optional<tile::RMWKind> kind;
  if (add) {
    kind = isa<FloatType>(elem) ? tile::RMWKind::FAdd : tile::RMWKind::Add;
    if (std::optional<std::string> error =
            tile::checkDescriptorReduce(*kind, elem))
      k.fail(s, "adds into a descriptor of " + typeStr(elem) +
                    ", which the TMA cannot (" + *error + ")");
  }
  SmallVector<Resolved> ops;
  resolve({&value}, ops, s);
  if (!ops[0].isNumber()) {
    Type have = getElementTypeOrSelf(ops[0].value.getType());
    if (isa<FloatType>(have) != isa<FloatType>(elem))
      k.fail(s, std::string(add ? "adds " : "stores ") + typeStr(have) +
                    " into a descriptor of " + typeStr(elem) +
                    " (convert with .to() first)");
  }
  mlir::Value v = materialize(k, ops[0], elem,
                              cast<RankedTensorType>(descriptorTile(type))
                                  .getShape(),
                              s);
  tile::RMWKindAttr reduce =
      kind ? tile::RMWKindAttr::get(k.builder.getContext(), *kind)
           : tile::RMWKindAttr();
  k.create<tile::DescriptorStoreOp>(s, k.use(desc, s), offs, v, reduce);
}

} // namespace

void Kernel::descriptorStore(const Value &desc,
                             const std::vector<Operand> &offsets,
                             const Operand &value, SourceLoc loc) {
  storeBlock(*impl_, site(loc, "tile.descriptor_store"), desc, offsets, value,
             /*add=*/false);
}

void Kernel::descriptorAtomicAdd(const Value &desc,
                                 const std::vector<Operand> &offsets,
                                 const Operand &value, SourceLoc loc) {
  storeBlock(*impl_, site(loc, "tile.descriptor_store"), desc, offsets, value,
             /*add=*/true);
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

static tile::MemSemantic toSem(MemSem m) {
  switch (m) {
  case MemSem::relaxed:
    return tile::MemSemantic::relaxed;
  case MemSem::acquire:
    return tile::MemSemantic::acquire;
  case MemSem::release:
    return tile::MemSemantic::release;
  case MemSem::acqRel:
    return tile::MemSemantic::acq_rel;
  }
  return tile::MemSemantic::acq_rel;
}

static tile::MemScope toScope(MemScope m) {
  switch (m) {
  case MemScope::cta:
    return tile::MemScope::cta;
  case MemScope::gpu:
    return tile::MemScope::gpu;
  case MemScope::sys:
    return tile::MemScope::sys;
  }
  return tile::MemScope::gpu;
}

Value Kernel::atomic(AtomicKind kind, const Value &ptr, const Operand &value,
                     const std::optional<Value> &mask,
                     const AtomicOptions &options, SourceLoc loc) {
  Site s = site(loc, "tile.atomic_rmw");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  WriteOperands w = writeOperands(k, s, ptr, value, mask, loc);
  mlir::Value p = w.ptr, m = w.mask, v = w.value;
  Type elem = w.elem;
  tile::RMWKind rmw = tile::RMWKind::Add;
  switch (kind) {
  case AtomicKind::add:
    rmw = isa<FloatType>(elem) ? tile::RMWKind::FAdd : tile::RMWKind::Add;
    break;
  case AtomicKind::max:
    rmw = tile::RMWKind::Max;
    break;
  case AtomicKind::min:
    rmw = tile::RMWKind::Min;
    break;
  case AtomicKind::umax:
    rmw = tile::RMWKind::UMax;
    break;
  case AtomicKind::umin:
    rmw = tile::RMWKind::UMin;
    break;
  case AtomicKind::bitAnd:
    rmw = tile::RMWKind::And;
    break;
  case AtomicKind::bitOr:
    rmw = tile::RMWKind::Or;
    break;
  case AtomicKind::bitXor:
    rmw = tile::RMWKind::Xor;
    break;
  case AtomicKind::xchg:
    rmw = tile::RMWKind::Xchg;
    break;
  }
  // The dialect's verifier names unsupported kind/type pairs.
  auto op = k.create<tile::AtomicRMWOp>(
      s, v.getType(), rmw, p, v, m, toSem(options.sem), toScope(options.scope));
  return Access::wrap(impl_, op);
}

Value Kernel::atomicAdd(const Value &ptr, const Operand &value,
                        const std::optional<Value> &mask,
                        const AtomicOptions &options, SourceLoc loc) {
  return atomic(AtomicKind::add, ptr, value, mask, options, loc);
}
Value Kernel::atomicMax(const Value &ptr, const Operand &value,
                        const std::optional<Value> &mask,
                        const AtomicOptions &options, SourceLoc loc) {
  return atomic(AtomicKind::max, ptr, value, mask, options, loc);
}
Value Kernel::atomicMin(const Value &ptr, const Operand &value,
                        const std::optional<Value> &mask,
                        const AtomicOptions &options, SourceLoc loc) {
  return atomic(AtomicKind::min, ptr, value, mask, options, loc);
}
Value Kernel::atomicXchg(const Value &ptr, const Operand &value,
                         const std::optional<Value> &mask,
                         const AtomicOptions &options, SourceLoc loc) {
  return atomic(AtomicKind::xchg, ptr, value, mask, options, loc);
}

Value Kernel::atomicCAS(const Value &ptr, const Operand &cmp,
                        const Operand &value, const AtomicOptions &options,
                        SourceLoc loc) {
  Site s = site(loc, "tile.atomic_cas");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  mlir::Value p = pointerOperand(k, s, ptr);
  SmallVector<Resolved> ops;
  Operand ptrOperand(ptr, loc);
  resolve({&cmp, &value, &ptrOperand}, ops, s);
  SmallVector<int64_t> shape =
      memoryShape(k, s, {p, ops[0].value, ops[1].value});
  Type elem = getElementTypeOrSelf(tile::getPointeeTypeSameShape(p.getType()));
  p = broadcastTo(k, p, shape, s);
  mlir::Value c =
      memoryOperand(k, s, ops[0], elem, shape, "compare value", p.getType());
  mlir::Value v =
      memoryOperand(k, s, ops[1], elem, shape, "value", p.getType());
  auto op = k.create<tile::AtomicCASOp>(
      s, v.getType(), p, c, v, toSem(options.sem), toScope(options.scope));
  return Access::wrap(impl_, op);
}

//===----------------------------------------------------------------------===//
// Dot
//===----------------------------------------------------------------------===//

Value Kernel::dot(const Value &a, const Value &b,
                  const std::optional<Value> &acc, Precision precision,
                  SourceLoc loc) {
  Site s = site(loc, "tile.dot");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  mlir::Value av = k.use(a, s), bv = k.use(b, s);
  auto at = dyn_cast<RankedTensorType>(av.getType());
  auto bt = dyn_cast<RankedTensorType>(bv.getType());
  if (!at || !bt || at.getRank() != 2 || bt.getRank() != 2)
    k.fail(s, "operands must be 2-D tiles, got " + typeStr(av.getType()) +
                  " * " + typeStr(bv.getType()));
  if (at.getDimSize(1) != bt.getDimSize(0))
    k.fail(s, "inner dimensions differ: " + typeStr(at) + " * " + typeStr(bt));
  Type ea = at.getElementType(), eb = bt.getElementType();
  // (The fp8 formats mix, as tile.dot and wgmma take them.)
  if (ea != eb && !(mlir::tile::isFp8(ea) && mlir::tile::isFp8(eb)))
    k.fail(s, "operand element types differ: " + typeStr(at) + " * " +
                  typeStr(bt) + "; convert one with Value::to");
  int64_t m = at.getDimSize(0), n = bt.getDimSize(1);
  mlir::Value c;
  std::vector<Pad> pads;
  if (acc) {
    c = k.use(*acc, s);
    auto ct = dyn_cast<RankedTensorType>(c.getType());
    if (!ct || ct.getShape() != ArrayRef<int64_t>{m, n})
      k.fail(s, "accumulator " + typeStr(c.getType()) + " must be " +
                    std::to_string(m) + "x" + std::to_string(n) + " for " +
                    typeStr(at) + " * " + typeStr(bt));
    pads = Access::pads(*acc);
  } else {
    Type accElem = ea.isInteger(8) ? (Type)k.builder.getI32Type()
                                   : (Type)k.builder.getF32Type();
    c = detail::constant(k, Operand(0), accElem, {m, n}, s);
  }
  // Row padding of a and column padding of b carry over to the result.
  for (auto [mask, count] : Access::pads(a))
    if (cast<RankedTensorType>(mask.getType()).getDimSize(1) == 1)
      pads = mergePads(pads, {{mask, count}});
  for (auto [mask, count] : Access::pads(b))
    if (cast<RankedTensorType>(mask.getType()).getDimSize(0) == 1)
      pads = mergePads(pads, {{mask, count}});
  auto p = static_cast<tile::InputPrecision>(static_cast<int>(precision));
  // The dialect's verifier names unsupported operand/accumulator types.
  auto op = k.create<tile::DotOp>(s, c.getType(), av, bv, c, p);
  return Access::wrap(impl_, op, pads);
}

} // namespace tilec
