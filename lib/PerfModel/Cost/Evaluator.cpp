//===- Evaluator.cpp - abstract evaluation of one box of programs ---------===//
//
// Walks the kernel body op by op over AVs (AbstractValue.h). Integer values
// are computed as intervals per element (IntOps.cpp), pointers as buffer and
// byte-offset intervals, floats not at all (their values never decide what
// is counted; only whether they came from active lanes is kept). Control
// flow is followed as in a real run: scf.for iterates its trip count,
// scf.if takes its branch, calls evaluate their callee.
//
//===----------------------------------------------------------------------===//

#include "Evaluator.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tilec::perfmodel;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string tilec::perfmodel::elementTypeName(Type type) {
  Type e = getElementTypeOrSelf(type);
  if (isa<tile::PointerType>(e))
    return "ptr";
  if (e.isIndex())
    return "index";
  std::string s;
  llvm::raw_string_ostream os(s);
  e.print(os);
  return s;
}

namespace {

unsigned intWidth(Type type) {
  Type e = getElementTypeOrSelf(type);
  if (auto i = dyn_cast<IntegerType>(e))
    return i.getWidth();
  return 64; // index
}

bool isIntLike(Type type) {
  Type e = getElementTypeOrSelf(type);
  return isa<IntegerType, IndexType>(e);
}

unsigned byteSize(Type type) {
  Type e = getElementTypeOrSelf(type);
  if (isa<tile::PointerType>(e))
    return 8;
  if (auto i = dyn_cast<IntegerType>(e))
    return std::max(1u, i.getWidth() / 8);
  if (auto f = dyn_cast<FloatType>(e))
    return f.getWidth() / 8;
  return 8;
}

SmallVector<int64_t, 2> shapeOf(Type type) {
  auto s = tile::getShapeOrEmpty(type);
  return SmallVector<int64_t, 2>(s.begin(), s.end());
}

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// A value of `type` about which nothing is known.
AV unknown(Type type, bool data = true) {
  AV v;
  v.shape = shapeOf(type);
  v.data = data;
  Type e = getElementTypeOrSelf(type);
  if (isIntLike(e)) {
    v.kind = AVKind::Int;
    v.width = intWidth(e);
    v.v.assign(size_t(v.numel()), topOf(v.width));
  } else if (auto p = dyn_cast<tile::PointerType>(e)) {
    v.kind = AVKind::Ptr;
    v.width = byteSize(p.getPointeeType());
    v.v.assign(size_t(v.numel()), topOf(64));
    v.buf.assign(size_t(v.numel()), -1);
  } else {
    v.kind = AVKind::Float;
  }
  return v;
}

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/// `src` with another shape of as many elements (or a splat of a scalar).
AV reshaped(const AV &src, ArrayRef<int64_t> shape) {
  AV r = src;
  r.shape.assign(shape.begin(), shape.end());
  if (src.isScalar() && !shape.empty()) {
    size_t n = size_t(product(shape));
    if (!src.v.empty())
      r.v.assign(n, src.v[0]);
    if (!src.buf.empty())
      r.buf.assign(n, src.buf[0]);
  }
  return r;
}

/// "[3, 7]" for element `flat` of `shape`.
std::string indexText(int64_t flat, ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "";
  std::string s = "[";
  SmallVector<int64_t> strides = stridesOf(shape);
  for (size_t i = 0; i < shape.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(flat / strides[i]);
    flat %= strides[i];
  }
  return s + "]";
}

} // namespace

AV tilec::perfmodel::gather(const AV &src, ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> strides, int64_t offset) {
  AV r;
  r.kind = src.kind;
  r.width = src.width;
  r.data = src.data;
  r.shape.assign(shape.begin(), shape.end());
  size_t n = size_t(product(shape));
  bool hasV = !src.v.empty(), hasBuf = !src.buf.empty();
  if (hasV)
    r.v.resize(n);
  if (hasBuf)
    r.buf.resize(n);
  SmallVector<int64_t> index(shape.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t at = offset;
    for (size_t d = 0; d < shape.size(); ++d)
      at += index[d] * strides[d];
    if (hasV)
      r.v[i] = src.v[size_t(at)];
    if (hasBuf)
      r.buf[i] = src.buf[size_t(at)];
    for (int d = int(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return r;
}

bool Tally::addScaled(const Tally &o, uint64_t factor) {
  auto mulAdd = [&](uint64_t &into, uint64_t v) {
    uint64_t p;
    return !__builtin_mul_overflow(v, factor, &p) &&
           !__builtin_add_overflow(into, p, &into);
  };
  for (const auto &[op, n] : o.ops)
    if (!mulAdd(ops[op], n))
      return false;
  for (const auto &[op, d] : o.dots) {
    auto &into = dots[op];
    if (!mulAdd(into.first, d.first) || !mulAdd(into.second, d.second))
      return false;
  }
  if (buffers.size() < o.buffers.size())
    buffers.resize(o.buffers.size());
  for (size_t i = 0; i < o.buffers.size(); ++i) {
    const BufferTally &b = o.buffers[i];
    BufferTally &into = buffers[i];
    if (!mulAdd(into.loaded, b.loaded) || !mulAdd(into.stored, b.stored) ||
        !mulAdd(into.atomics, b.atomics) ||
        !mulAdd(into.maskedLoads, b.maskedLoads) ||
        !mulAdd(into.maskedStores, b.maskedStores))
      return false;
  }
  notes.insert(o.notes.begin(), o.notes.end());
  return true;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

Evaluator::Evaluator(func::FuncOp kernel, std::array<int64_t, 3> grid,
                     std::vector<AVRef> params, std::vector<BufferInfo> buffers)
    : kernel_(kernel), grid_(grid), params_(std::move(params)),
      buffers_(std::move(buffers)) {}

Evaluator::Outcome Evaluator::evaluate(const std::array<Iv, 3> &pid,
                                       Tally &tally) {
  pid_ = pid;
  single_ = pid[0].definite() && pid[1].definite() && pid[2].definite();
  tally_ = &tally;
  tally.buffers.resize(params_.size());
  stop_ = false;
  reason_.clear();
  env_.clear();
  SmallVector<AVRef> results;
  if (failed(evalBlock(kernel_.getBody().front(), params_, results)))
    return stop_ ? Outcome::Indefinite : Outcome::Failed;
  return Outcome::Definite;
}

std::string Evaluator::programText() const {
  std::string s;
  bool range = false;
  for (int i = 0; i < 3; ++i) {
    s += i ? ", " : "";
    s += std::to_string(pid_[i].lo);
    if (!pid_[i].definite()) {
      s += ".." + std::to_string(pid_[i].hi);
      range = true;
    }
  }
  return (range ? "programs (" : "program (") + s + ")";
}

InFlightDiagnostic Evaluator::error(Operation *op) {
  // No "see current operation" note: the location says where.
  return emitError(op->getLoc())
         << op->getName() << " in " << programText() << ": ";
}

bool Evaluator::indefinite(Operation *op, const char *what, bool data) {
  if (single_ || data)
    return false;
  stop_ = true;
  std::string loc;
  llvm::raw_string_ostream os(loc);
  op->getLoc().print(os);
  reason_ = std::string(what) + " of " + op->getName().getStringRef().str() +
            " at " + loc;
  return true;
}

void Evaluator::count(Operation *op, uint64_t elements) {
  tally_->ops[op] += elements;
}

LogicalResult Evaluator::evalBlock(Block &block, ArrayRef<AVRef> args,
                                   SmallVectorImpl<AVRef> &results) {
  for (auto [arg, value] : llvm::zip(block.getArguments(), args))
    env_[arg] = value;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      for (Value v : op.getOperands())
        results.push_back(ref(v));
      return success();
    }
    if (failed(evalOp(&op)))
      return failure();
  }
  return success();
}

LogicalResult Evaluator::evalOp(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  if (dialect == "arith" || dialect == "math")
    return evalArith(op);
  if (dialect == "tile")
    return evalTile(op);
  if (dialect == "scf" || isa<func::CallOp>(op))
    return evalControlFlow(op);
  emitError(op->getLoc()) << "tilec-analyze does not support '" << op->getName()
                          << "'";
  return failure();
}

//===----------------------------------------------------------------------===//
// arith and math
//===----------------------------------------------------------------------===//

LogicalResult Evaluator::evalArith(Operation *op) {
  if (op->getNumResults() != 1) {
    // Multi-result ops (mul*_extended) produce integers we do not model.
    for (Value r : op->getResults())
      set(r, unknown(r.getType()));
    count(op, uint64_t(product(shapeOf(op->getResult(0).getType()))));
    return success();
  }
  Value result = op->getResult(0);
  Type type = result.getType();
  SmallVector<int64_t, 2> shape = shapeOf(type);
  size_t n = size_t(product(shape));
  bool data = false;
  for (Value v : op->getOperands())
    data |= get(v).data;

  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    AV v = unknown(type, /*data=*/false);
    if (v.kind == AVKind::Int) {
      bool i1 = v.width == 1;
      auto asInt = [&](const APInt &x) {
        return i1 ? int64_t(x.getZExtValue()) : x.getSExtValue();
      };
      if (auto dense = dyn_cast<DenseIntElementsAttr>(c.getValue())) {
        if (dense.isSplat()) {
          v.v.assign(n, Iv::of(asInt(dense.getSplatValue<APInt>())));
        } else {
          size_t i = 0;
          for (const APInt &x : dense.getValues<APInt>())
            v.v[i++] = Iv::of(asInt(x));
        }
      } else if (auto attr = dyn_cast<IntegerAttr>(c.getValue())) {
        v.v.assign(n, Iv::of(asInt(attr.getValue())));
      }
    }
    set(result, std::move(v));
    return success();
  }
  count(op, n);
  StringRef name = op->getName().getStringRef();
  StringRef shortName = name.drop_front(name.find('.') + 1);

  if (!isIntLike(type)) {
    // A float result: keep where its elements came from active lanes.
    AV r = unknown(type, /*data=*/true);
    if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      const AV &cond = get(sel.getCondition());
      const AV &a = get(sel.getTrueValue()), &b = get(sel.getFalseValue());
      if (!a.v.empty() || !b.v.empty()) {
        r.v.resize(n);
        for (size_t i = 0; i < n; ++i) {
          Iv ai = a.v.empty() ? Iv::of(1) : a.v[i];
          Iv bi = b.v.empty() ? Iv::of(1) : b.v[i];
          Iv ci = cond.v[cond.isScalar() ? 0 : i];
          r.v[i] = ci.definite() ? (ci.lo ? ai : bi) : hull(ai, bi);
        }
      }
    } else {
      for (Value operand : op->getOperands()) {
        const AV &o = get(operand);
        if (o.kind != AVKind::Float || o.v.empty() || o.shape != r.shape)
          continue;
        if (r.v.empty()) {
          r.v = o.v;
          continue;
        }
        for (size_t i = 0; i < n; ++i)
          r.v[i] = {std::min(r.v[i].lo, o.v[i].lo),
                    std::min(r.v[i].hi, o.v[i].hi)};
      }
    }
    set(result, std::move(r));
    return success();
  }

  // An integer result.
  unsigned width = intWidth(type);
  AV r = unknown(type, data);
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    const AV &a = get(cmp.getLhs()), &b = get(cmp.getRhs());
    unsigned w = intWidth(cmp.getLhs().getType());
    for (size_t i = 0; i < n; ++i)
      r.v[i] = intCompare(int(cmp.getPredicate()), a.v[i], b.v[i], w);
  } else if (isa<arith::CmpFOp, arith::FPToSIOp, arith::FPToUIOp>(op) ||
             (isa<arith::BitcastOp>(op) &&
              !isIntLike(op->getOperand(0).getType()))) {
    r.data = true; // from float data: every value possible
  } else if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    const AV &cond = get(sel.getCondition());
    const AV &a = get(sel.getTrueValue()), &b = get(sel.getFalseValue());
    for (size_t i = 0; i < n; ++i) {
      Iv c = cond.v[cond.isScalar() ? 0 : i];
      r.v[i] = c.definite() ? (c.lo ? a.v[i] : b.v[i]) : hull(a.v[i], b.v[i]);
    }
  } else if (op->getNumOperands() == 1 &&
             isIntLike(op->getOperand(0).getType())) {
    const AV &a = get(op->getOperand(0));
    unsigned from = intWidth(op->getOperand(0).getType());
    if (shortName == "absi") {
      for (size_t i = 0; i < n; ++i) {
        Iv x = a.v[i];
        r.v[i] = x.lo >= 0 ? x
                 : x.hi <= 0
                     ? fit(-__int128(x.hi), -__int128(x.lo), width)
                     : fit(0, std::max(-__int128(x.lo), __int128(x.hi)), width);
      }
    } else if (shortName.starts_with("ext") || shortName == "trunci" ||
               shortName.starts_with("index_cast") || shortName == "bitcast") {
      for (size_t i = 0; i < n; ++i)
        r.v[i] = intCast(shortName, a.v[i], from, width);
    } // else: ctlz, ctpop, ...: every value (already so).
  } else if (op->getNumOperands() == 2) {
    const AV &a = get(op->getOperand(0)), &b = get(op->getOperand(1));
    for (size_t i = 0; i < n; ++i) {
      Iv out;
      r.v[i] =
          intBinary(shortName, a.v[i], b.v[i], width, out) ? out : topOf(width);
    }
  }
  set(result, std::move(r));
  return success();
}

//===----------------------------------------------------------------------===//
// tile ops
//===----------------------------------------------------------------------===//

LogicalResult Evaluator::evalTile(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<tile::ProgramIdOp>([&](auto p) {
        AV v = unknown(p.getType(), false);
        v.v[0] = pid_[p.getAxis()];
        set(p, std::move(v));
        return success();
      })
      .Case<tile::NumProgramsOp>([&](auto p) {
        AV v = unknown(p.getType(), false);
        v.v[0] = Iv::of(grid_[p.getAxis()]);
        set(p, std::move(v));
        return success();
      })
      .Case<tile::RangeOp>([&](auto r) {
        AV v = unknown(r.getType(), false);
        for (size_t i = 0; i < v.v.size(); ++i)
          v.v[i] = Iv::of(int64_t(r.getStart()) + int64_t(i));
        set(r, std::move(v));
        return success();
      })
      .Case<tile::SplatOp, tile::ReshapeOp, tile::ExpandDimsOp,
            tile::ConvertLayoutOp>([&](Operation *o) {
        set(o->getResult(0), reshaped(get(o->getOperand(0)),
                                      shapeOf(o->getResult(0).getType())));
        return success();
      })
      .Case<tile::BroadcastOp>([&](auto b) {
        const AV &src = get(b.getSrc());
        SmallVector<int64_t, 2> shape = shapeOf(b.getType());
        SmallVector<int64_t> strides = stridesOf(src.shape);
        for (size_t d = 0; d < shape.size(); ++d)
          if (src.shape[d] == 1 && shape[d] != 1)
            strides[d] = 0;
        set(b, gather(src, shape, strides, 0));
        return success();
      })
      .Case<tile::TransOp>([&](auto t) {
        const AV &src = get(t.getSrc());
        SmallVector<int64_t> srcStrides = stridesOf(src.shape), strides;
        for (int32_t d : t.getOrder())
          strides.push_back(srcStrides[size_t(d)]);
        set(t, gather(src, shapeOf(t.getType()), strides, 0));
        return success();
      })
      .Case<tile::JoinOp>([&](auto j) {
        const AV &a = get(j.getLhs()), &b = get(j.getRhs());
        AV r = a;
        r.shape = shapeOf(j.getType());
        r.data = a.data || b.data;
        size_t n = size_t(a.numel());
        auto interleave = [&](auto &out, const auto &x, const auto &y) {
          if (x.empty() && y.empty())
            return;
          out.resize(2 * n);
          for (size_t i = 0; i < n; ++i) {
            out[2 * i] = x.empty() ? y[i] : x[i];
            out[2 * i + 1] = y.empty() ? x[i] : y[i];
          }
        };
        interleave(r.v, a.v, b.v);
        interleave(r.buf, a.buf, b.buf);
        set(j, std::move(r));
        return success();
      })
      .Case<tile::SplitOp>([&](auto s) {
        const AV &src = get(s.getSrc());
        SmallVector<int64_t, 2> shape = shapeOf(s->getResult(0).getType());
        SmallVector<int64_t> strides = stridesOf(src.shape);
        strides.pop_back();
        set(s->getResult(0), gather(src, shape, strides, 0));
        set(s->getResult(1), gather(src, shape, strides, 1));
        return success();
      })
      .Case<tile::AddPtrOp>([&](auto a) {
        const AV &p = get(a.getPtr()), &off = get(a.getOffset());
        AV r = reshaped(p, shapeOf(a.getType()));
        r.data = p.data || off.data;
        const AV offs = reshaped(off, r.shape);
        for (size_t i = 0; i < r.v.size(); ++i) {
          __int128 scale = r.width;
          r.v[i] = fit(__int128(r.v[i].lo) + offs.v[i].lo * scale,
                       __int128(r.v[i].hi) + offs.v[i].hi * scale, 64);
        }
        count(a, uint64_t(r.numel()));
        set(a, std::move(r));
        return success();
      })
      .Case<tile::BitcastOp>([&](auto b) {
        AV r = get(b.getSrc());
        auto ptr = cast<tile::PointerType>(getElementTypeOrSelf(b.getType()));
        r.width = byteSize(ptr.getPointeeType());
        set(b, std::move(r));
        return success();
      })
      .Case<tile::LoadOp, tile::StoreOp, tile::AtomicRMWOp, tile::AtomicCASOp>(
          [&](Operation *o) { return evalMemory(o); })
      .Case<tile::DescriptorLoadOp, tile::DescriptorStoreOp>(
          [&](Operation *o) { return evalDescriptor(o); })
      .Case<tile::ReduceOp, tile::ScanOp>(
          [&](Operation *o) { return evalReduce(o); })
      .Case<tile::DotOp>([&](Operation *o) { return evalDot(o); })
      .Case<tile::PrintOp, tile::AssertOp>(
          [&](Operation *) { return success(); })
      .Default([&](Operation *o) {
        emitError(o->getLoc())
            << "tilec-analyze does not support '" << o->getName() << "'";
        return failure();
      });
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

LogicalResult Evaluator::access(Operation *op, const AV &ptr, const AV *mask,
                                unsigned accessBytes, int which,
                                std::vector<Iv> *active) {
  BufferTally *tallies = tally_->buffers.data();
  size_t n = size_t(ptr.numel());
  bool maskData = mask && mask->data;
  for (size_t i = 0; i < n; ++i) {
    Iv m = mask ? mask->v[mask->isScalar() ? 0 : i] : Iv::of(1);
    if (!m.definite()) {
      if (indefinite(op, "a mask element", maskData))
        return failure();
      tally_->notes.insert(op->getName().getStringRef().str() +
                           " masks depend on loaded data: their lanes are "
                           "counted as active (an upper bound)");
      m = Iv::of(1);
    }
    if (active)
      active->push_back(m);
    int32_t buf = ptr.buf[i];
    if (buf < 0) {
      if (indefinite(op, "the buffer of a pointer", ptr.data))
        return failure();
      error(op) << "its pointers come from loaded data or select between "
                   "buffers; tilec-analyze cannot tell which buffer they "
                   "access";
      return failure();
    }
    BufferTally &t = tallies[buf];
    if (m.lo == 0) {
      (which == 0 ? t.maskedLoads : t.maskedStores) += accessBytes;
      continue;
    }
    const BufferInfo &b = buffers_[size_t(buf)];
    __int128 limit = __int128(b.bytes) - accessBytes;
    Iv off = ptr.v[i];
    bool inside = off.lo >= 0 && off.hi <= limit;
    if (!inside) {
      bool outside = off.hi < 0 || off.lo > limit;
      if (indefinite(op, "whether an access stays inside its buffer",
                     ptr.data && !outside))
        return failure();
      if (!outside) {
        tally_->notes.insert(op->getName().getStringRef().str() +
                             " addresses depend on loaded data: not "
                             "checked against the buffer sizes");
      } else {
        uint64_t elementBytes = b.elementBytes;
        error(op) << (which == 0   ? "reads"
                      : which == 1 ? "writes"
                                   : "updates")
                  << " element " << off.lo / int64_t(elementBytes) << " of %"
                  << b.name << " (lane " << indexText(int64_t(i), ptr.shape)
                  << (ptr.shape.empty() ? "0" : "") << "), but %" << b.name
                  << " has " << b.bytes / elementBytes
                  << " elements: the sizes given do not match the grid and "
                     "the scalar arguments";
        return failure();
      }
    }
    (which == 0 ? t.loaded : which == 1 ? t.stored : t.atomics) += accessBytes;
  }
  return success();
}

LogicalResult Evaluator::evalMemory(Operation *op) {
  if (auto load = dyn_cast<tile::LoadOp>(op)) {
    const AV *mask = load.getMask() ? &get(load.getMask()) : nullptr;
    std::vector<Iv> active;
    if (failed(access(op, get(load.getPtr()), mask, byteSize(load.getType()), 0,
                      &active)))
      return failure();
    AV r = unknown(load.getType());
    if (r.kind == AVKind::Float)
      r.v = std::move(active);
    set(load, std::move(r));
    return success();
  }
  if (auto store = dyn_cast<tile::StoreOp>(op)) {
    const AV *mask = store.getMask() ? &get(store.getMask()) : nullptr;
    return access(op, get(store.getPtr()), mask,
                  byteSize(store.getValue().getType()), 1, nullptr);
  }
  if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op)) {
    const AV *mask = rmw.getMask() ? &get(rmw.getMask()) : nullptr;
    if (failed(access(op, get(rmw.getPtr()), mask, byteSize(rmw.getType()), 2,
                      nullptr)))
      return failure();
    set(rmw, unknown(rmw.getType()));
    return success();
  }
  auto cas = cast<tile::AtomicCASOp>(op);
  if (failed(access(op, get(cas.getPtr()), nullptr, byteSize(cas.getType()), 2,
                    nullptr)))
    return failure();
  set(cas, unknown(cas.getType()));
  return success();
}

/// A descriptor block moves the elements inside the tensor: each counts
/// as loaded (stored; with `reduce`, as an atomic) once; the rest read as
/// zero and count as masked.
/// A loaded float block's elements are active where inside (the dot's
/// useful FLOPs).
LogicalResult Evaluator::evalDescriptor(Operation *op) {
  bool isLoad = isa<tile::DescriptorLoadOp>(op);
  Value desc = op->getOperand(0);
  auto type = cast<tile::TensorDescType>(desc.getType());
  ValueRange offsets = isLoad ? cast<tile::DescriptorLoadOp>(op).getOffsets()
                              : cast<tile::DescriptorStoreOp>(op).getOffsets();
  const AV &d = get(desc);
  int32_t buf = d.buf.empty() ? -1 : d.buf[0];
  if (buf < 0) {
    error(op) << "tilec-analyze cannot tell which tensor descriptor this is";
    return failure();
  }
  const BufferInfo &b = buffers_[size_t(buf)];
  ArrayRef<int64_t> block = type.getBlockType().getShape();
  SmallVector<Iv> start;
  for (Value o : offsets) {
    Iv v = get(o).v[0];
    if (!v.definite() && indefinite(op, "a descriptor offset", get(o).data))
      return failure();
    start.push_back(v);
  }
  int64_t elems = type.getBlockType().getNumElements();
  std::vector<Iv> active(size_t(elems), Iv::of(1));
  uint64_t inside = 0;
  SmallVector<int64_t> strides(block.size(), 1);
  for (int64_t i = int64_t(block.size()) - 1; i > 0; --i)
    strides[i - 1] = strides[i] * block[i];
  bool bounded = false;
  for (int64_t i = 0; i < elems; ++i) {
    bool in = true, maybe = false;
    for (size_t dim = 0; dim < block.size(); ++dim) {
      int64_t idx = (i / strides[dim]) % block[dim];
      Iv c{start[dim].lo + idx, start[dim].hi + idx};
      int64_t extent = dim < b.shape.size() ? b.shape[dim] : 0;
      bool surely = c.lo >= 0 && c.hi < extent;
      bool never = c.hi < 0 || c.lo >= extent;
      in &= !never;
      maybe |= !surely && !never;
    }
    if (maybe)
      bounded = true;
    active[size_t(i)] = in ? (maybe ? Iv{0, 1} : Iv::of(1)) : Iv::of(0);
    inside += in;
  }
  if (bounded)
    tally_->notes.insert(op->getName().getStringRef().str() +
                         " offsets differ between the programs counted "
                         "together: elements that may lie outside the "
                         "tensor are counted as moved (an upper bound)");
  BufferTally &t = tally_->buffers[size_t(buf)];
  uint64_t bytes = inside * b.elementBytes;
  uint64_t masked = uint64_t(elems) * b.elementBytes - bytes;
  // A reducing store (the TMA's add) counts as atomics, as tile.atomic_rmw
  // does: read and written at the L2.
  bool reduces = !isLoad && cast<tile::DescriptorStoreOp>(op).getReduce();
  (isLoad ? t.loaded : reduces ? t.atomics : t.stored) += bytes;
  (isLoad ? t.maskedLoads : t.maskedStores) += masked;
  if (isLoad) {
    auto load = cast<tile::DescriptorLoadOp>(op);
    AV r = unknown(load.getType());
    if (r.kind == AVKind::Float)
      r.v = std::move(active);
    set(load, std::move(r));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions, scans, dots
//===----------------------------------------------------------------------===//

LogicalResult Evaluator::evalReduce(Operation *op) {
  uint32_t axis = isa<tile::ReduceOp>(op) ? cast<tile::ReduceOp>(op).getAxis()
                                          : cast<tile::ScanOp>(op).getAxis();
  SmallVector<int64_t, 2> shape = shapeOf(op->getOperand(0).getType());
  int64_t length = shape[axis];
  uint64_t applications =
      uint64_t(product(shape) / std::max<int64_t>(length, 1)) *
      uint64_t(std::max<int64_t>(length - 1, 0));
  // The combiner runs on scalars once per application; nested control flow
  // would decide per element, so every op of it is counted (a bound).
  bool nested = false;
  op->getRegion(0).walk([&](Operation *inner) {
    if (inner->hasTrait<OpTrait::IsTerminator>())
      return;
    if (inner->getNumRegions())
      nested = true;
    count(inner, applications);
  });
  if (nested)
    tally_->notes.insert(op->getName().getStringRef().str() +
                         " combiner with control flow: every op of it is "
                         "counted per application (an upper bound)");
  for (Value r : op->getResults())
    set(r, unknown(r.getType()));
  return success();
}

LogicalResult Evaluator::evalDot(Operation *op) {
  auto dot = cast<tile::DotOp>(op);
  SmallVector<int64_t, 2> as = shapeOf(dot.getA().getType()),
                          bs = shapeOf(dot.getB().getType());
  if (as.size() != 2 || bs.size() != 2) {
    emitError(op->getLoc()) << "tilec-analyze counts 2-D tile.dot only";
    return failure();
  }
  int64_t m = as[0], k = as[1], n = bs[1];
  uint64_t flops = 2 * uint64_t(m) * uint64_t(n) * uint64_t(k);
  const AV &a = get(dot.getA()), &b = get(dot.getB());
  uint64_t macs = 0;
  bool bounded = false;
  // Products of two elements from active lanes: per k, active rows of A's
  // column times active columns of B's row.
  for (int64_t kk = 0; kk < k; ++kk) {
    uint64_t rows = 0, cols = 0;
    for (int64_t i = 0; i < m; ++i) {
      Iv x = a.v.empty() ? Iv::of(1) : a.v[size_t(i * k + kk)];
      if (!x.definite()) {
        if (indefinite(op, "whether a dot operand came from an active lane",
                       a.data))
          return failure();
        bounded = true;
      }
      rows += x.hi != 0;
    }
    for (int64_t j = 0; j < n; ++j) {
      Iv x = b.v.empty() ? Iv::of(1) : b.v[size_t(kk * n + j)];
      if (!x.definite()) {
        if (indefinite(op, "whether a dot operand came from an active lane",
                       b.data))
          return failure();
        bounded = true;
      }
      cols += x.hi != 0;
    }
    macs += rows * cols;
  }
  if (bounded)
    tally_->notes.insert("tile.dot operands masked by loaded data: useful "
                         "FLOPs are an upper bound");
  auto &d = tally_->dots[op];
  d.first += flops;
  d.second += 2 * macs;
  set(dot, unknown(dot.getType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

LogicalResult Evaluator::evalControlFlow(Operation *op) {
  auto bindResults = [&](Operation *o, ArrayRef<AVRef> values) {
    for (auto [r, v] : llvm::zip(o->getResults(), values))
      env_[r] = v;
  };
  auto dataDependent = [&](Operation *o, const char *what) {
    error(o) << what
             << " depends on loaded data; tilec-analyze cannot count "
                "a kernel whose control flow depends on data";
    return failure();
  };

  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    const AV &lb = get(forOp.getLowerBound()), &ub = get(forOp.getUpperBound()),
             &step = get(forOp.getStep());
    if (!lb.v[0].definite() || !ub.v[0].definite() || !step.v[0].definite()) {
      if (indefinite(op, "the trip count", lb.data || ub.data || step.data))
        return failure();
      return dataDependent(op, "its trip count");
    }
    unsigned width = intWidth(forOp.getInductionVar().getType());
    int64_t s = step.v[0].lo;
    if (s <= 0) {
      error(op) << "the step " << s << " is not positive";
      return failure();
    }
    bool isUnsigned = forOp.getUnsignedCmp();
    __int128 i = lb.v[0].lo, end = ub.v[0].lo;
    if (isUnsigned) {
      auto u = [&](int64_t v) {
        return width >= 64 || v >= 0 ? __int128(uint64_t(v))
                                     : __int128(v) + (__int128(1) << width);
      };
      i = u(lb.v[0].lo);
      end = u(ub.v[0].lo);
    }
    SmallVector<AVRef> iter;
    for (Value v : forOp.getInitArgs())
      iter.push_back(ref(v));
    for (; i < end; i += s) {
      AV iv = unknown(forOp.getInductionVar().getType(), false);
      iv.v[0] = fit(i, i, width);
      SmallVector<AVRef> args = {std::make_shared<const AV>(std::move(iv))};
      args.append(iter.begin(), iter.end());
      SmallVector<AVRef> results;
      if (failed(evalBlock(*forOp.getBody(), args, results)))
        return failure();
      iter = std::move(results);
    }
    bindResults(op, iter);
    return success();
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    const AV &cond = get(ifOp.getCondition());
    if (!cond.v[0].definite()) {
      if (indefinite(op, "a branch condition", cond.data))
        return failure();
      return dataDependent(op, "its condition");
    }
    Region &region = cond.v[0].lo ? ifOp.getThenRegion() : ifOp.getElseRegion();
    if (region.empty())
      return success();
    SmallVector<AVRef> results;
    if (failed(evalBlock(region.front(), {}, results)))
      return failure();
    bindResults(op, results);
    return success();
  }
  if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
    SmallVector<AVRef> args;
    for (Value v : whileOp.getInits())
      args.push_back(ref(v));
    for (uint64_t iteration = 0;; ++iteration) {
      if (iteration > (uint64_t(1) << 32)) {
        error(op) << "more than 2^32 iterations";
        return failure();
      }
      SmallVector<AVRef> before;
      if (failed(evalBlock(whileOp.getBefore().front(), args, before)))
        return failure();
      const AV &cond = *before.front();
      if (!cond.v[0].definite()) {
        if (indefinite(op, "a loop condition", cond.data))
          return failure();
        return dataDependent(op, "its condition");
      }
      SmallVector<AVRef> forwarded(before.begin() + 1, before.end());
      if (!cond.v[0].lo) {
        bindResults(op, forwarded);
        return success();
      }
      args.clear();
      if (failed(evalBlock(whileOp.getAfter().front(), forwarded, args)))
        return failure();
    }
  }
  if (auto exec = dyn_cast<scf::ExecuteRegionOp>(op)) {
    if (!exec.getRegion().hasOneBlock()) {
      emitError(op->getLoc()) << "tilec-analyze supports scf.execute_region "
                                 "of one block only";
      return failure();
    }
    SmallVector<AVRef> results;
    if (failed(evalBlock(exec.getRegion().front(), {}, results)))
      return failure();
    bindResults(op, results);
    return success();
  }
  if (auto call = dyn_cast<func::CallOp>(op)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, call.getCalleeAttr());
    if (!callee || callee.isExternal()) {
      emitError(op->getLoc()) << "tilec-analyze cannot evaluate a call to '"
                              << call.getCallee() << "' (no body)";
      return failure();
    }
    if (callDepth_ >= 64) {
      emitError(op->getLoc()) << "calls nested more than 64 deep (recursion?)";
      return failure();
    }
    SmallVector<AVRef> args, results;
    for (Value v : call.getOperands())
      args.push_back(ref(v));
    ++callDepth_;
    LogicalResult r = evalBlock(callee.getBody().front(), args, results);
    --callDepth_;
    if (failed(r))
      return failure();
    bindResults(op, results);
    return success();
  }
  emitError(op->getLoc()) << "tilec-analyze does not support '" << op->getName()
                          << "'";
  return failure();
}
