//===- Control.cpp - reductions, scans, loops, ifs, debug ops -------------===//
//
// Ops with regions are created empty, filled by calling the user's lambda
// with the insertion point inside the region, then terminated and verified.
// The lambda runs in this library's frames (not inside an MLIR callback), so
// a BuildError it throws unwinds cleanly; any exception escaping a body marks
// the kernel unusable, since the region it left is unfinished.
//
//===----------------------------------------------------------------------===//

#include "Detail.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
namespace tilec {
using namespace detail;

/// Runs user code that builds a region body; an escaping exception leaves the
/// region unfinished, so the kernel becomes unusable.
template <typename Fn>
static auto runBody(KernelImpl &k, Fn &&fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const BuildError &) {
    throw;
  } catch (...) {
    if (!k.broken)
      k.broken = "an exception escaped the body of a loop, if or combiner";
    throw;
  }
}

/// Erases the terminator some builders add to a new block, so that the body
/// can be appended and terminated by hand.
static void dropTerminator(Block &block) {
  if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
    block.back().erase();
}

/// Checks the values a body returns against the expected types.
static SmallVector<mlir::Value> bodyResults(KernelImpl &k, const Site &s,
                                            const std::vector<Value> &values,
                                            TypeRange expected,
                                            StringRef what) {
  if (values.size() != expected.size())
    k.fail(s, (what + " returns " + Twine(values.size()) + " value(s), " +
               Twine(expected.size()) + " expected")
                  .str());
  SmallVector<mlir::Value> out;
  for (auto [i, v] : llvm::enumerate(values)) {
    mlir::Value raw = k.use(v, s);
    if (raw.getType() != expected[i])
      k.fail(s,
             (what + " result #" + Twine(i) + " is " + typeStr(raw.getType()) +
              " but must be " + typeStr(expected[i]))
                 .str());
    out.push_back(raw);
  }
  return out;
}

static std::vector<Value> wrapAll(const std::shared_ptr<KernelImpl> &k,
                                  ValueRange values) {
  std::vector<Value> out;
  for (mlir::Value v : values)
    out.push_back(Access::wrap(k, v));
  return out;
}

//===----------------------------------------------------------------------===//
// Reduce and scan
//===----------------------------------------------------------------------===//

using Combiner =
    std::function<std::vector<Value>(std::vector<Value>, std::vector<Value>)>;

/// Builds a tile.reduce (or tile.scan) of `xs` along `axis` with `combiner`.
static std::vector<Value> combine(const std::shared_ptr<KernelImpl> &kp,
                                  bool isScan, const std::vector<Value> &xs,
                                  int axis, const Combiner &combiner, bool flag,
                                  const Site &s) {
  KernelImpl &k = *kp;
  k.checkUsable(s);
  if (xs.empty())
    k.fail(s, "needs at least one tile");
  SmallVector<mlir::Value> srcs;
  for (const Value &x : xs) {
    mlir::Value v = k.use(x, s);
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      k.fail(s, "needs tiles, got the scalar " + typeStr(v.getType()));
    if (isa<tile::PointerType>(t.getElementType()))
      k.fail(s, "cannot combine pointers (" + typeStr(t) + ")");
    if (!srcs.empty() &&
        cast<RankedTensorType>(srcs[0].getType()).getShape() != t.getShape())
      k.fail(s, "tiles combined together must have one shape, got " +
                    typeStr(srcs[0].getType()) + " and " + typeStr(t));
    srcs.push_back(v);
  }
  auto first = cast<RankedTensorType>(srcs[0].getType());
  int64_t rank = first.getRank();
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    k.fail(s, "axis " + std::to_string(axis) + " is out of range for " +
                  typeStr(first) + " (rank " + std::to_string(rank) + ")");

  SmallVector<Type> elems, resultTypes;
  SmallVector<int64_t> reduced(first.getShape());
  reduced.erase(reduced.begin() + a);
  for (mlir::Value v : srcs) {
    Type e = getElementTypeOrSelf(v.getType());
    elems.push_back(e);
    if (isScan)
      resultTypes.push_back(v.getType());
    else
      resultTypes.push_back(
          reduced.empty() ? e : (Type)RankedTensorType::get(reduced, e));
  }

  Location l = k.loc(s);
  Operation *op;
  Region *region;
  if (isScan) {
    auto scan = tile::ScanOp::create(k.builder, l, resultTypes, srcs,
                                     (uint32_t)a, flag);
    op = scan;
    region = &scan.getCombineOp();
  } else {
    auto reduce =
        tile::ReduceOp::create(k.builder, l, resultTypes, srcs, (uint32_t)a);
    op = reduce;
    region = &reduce.getCombineOp();
  }
  {
    OpBuilder::InsertionGuard guard(k.builder);
    SmallVector<Type> argTypes(elems);
    argTypes.append(elems.begin(), elems.end());
    SmallVector<Location> argLocs(argTypes.size(), l);
    Block *block = k.builder.createBlock(region, {}, argTypes, argLocs);
    k.isolated.push_back(region);
    struct PopIsolation {
      KernelImpl &k;
      ~PopIsolation() { k.isolated.pop_back(); }
    } pop{k};
    std::vector<Value> args = wrapAll(kp, block->getArguments());
    std::vector<Value> acc(args.begin(), args.begin() + elems.size());
    std::vector<Value> cur(args.begin() + elems.size(), args.end());
    std::vector<Value> results = runBody(k, [&] { return combiner(acc, cur); });
    SmallVector<mlir::Value> yielded =
        bodyResults(k, s, results, elems, "the combiner");
    tile::YieldOp::create(k.builder, l, yielded);
  }
  k.verifyNew(op, s);

  std::vector<Value> out;
  for (auto [i, r] : llvm::enumerate(op->getResults())) {
    // The source's padding that does not vary along the axis still marks
    // whole results as padding; padding along the axis is not excluded.
    std::vector<Pad> pads;
    for (auto [mask, count] : Access::pads(xs[i])) {
      auto mt = cast<RankedTensorType>(mask.getType());
      if (isScan) {
        pads.emplace_back(mask, count);
      } else if (!reduced.empty() && mt.getDimSize(a) == 1) {
        SmallVector<int64_t> shape(mt.getShape());
        shape.erase(shape.begin() + a);
        pads.emplace_back(
            k.create<tile::ReshapeOp>(
                s, RankedTensorType::get(shape, mt.getElementType()), mask),
            count);
      }
    }
    mlir::Value v = r;
    if (!isScan && flag) {
      SmallVector<int64_t> kept(first.getShape());
      kept[a] = 1;
      Type type = RankedTensorType::get(kept, elems[i]);
      v = reduced.empty() ? (mlir::Value)k.create<tile::SplatOp>(s, type, v)
                          : (mlir::Value)k.create<tile::ExpandDimsOp>(
                                s, type, v, (uint32_t)a);
      pads.clear();
      for (auto [mask, count] : Access::pads(xs[i]))
        if (cast<RankedTensorType>(mask.getType()).getDimSize(a) == 1)
          pads.emplace_back(mask, count);
    }
    out.push_back(Access::wrap(kp, v, pads));
  }
  return out;
}

/// The built-in combiner `c` on one pair of scalars.
static mlir::Value combineScalars(KernelImpl &k, const Site &s, Combine c,
                                  mlir::Value a, mlir::Value b) {
  Type t = a.getType();
  bool isF = isa<FloatType>(t);
  switch (c) {
  case Combine::sum:
    return isF ? (mlir::Value)k.create<arith::AddFOp>(s, a, b)
               : k.create<arith::AddIOp>(s, a, b);
  case Combine::prod:
    return isF ? (mlir::Value)k.create<arith::MulFOp>(s, a, b)
               : k.create<arith::MulIOp>(s, a, b);
  case Combine::max:
    return isF              ? (mlir::Value)k.create<arith::MaxNumFOp>(s, a, b)
           : t.isInteger(1) ? (mlir::Value)k.create<arith::OrIOp>(s, a, b)
                            : k.create<arith::MaxSIOp>(s, a, b);
  case Combine::min:
    return isF              ? (mlir::Value)k.create<arith::MinNumFOp>(s, a, b)
           : t.isInteger(1) ? (mlir::Value)k.create<arith::AndIOp>(s, a, b)
                            : k.create<arith::MinSIOp>(s, a, b);
  case Combine::bitAnd:
    return k.create<arith::AndIOp>(s, a, b);
  case Combine::bitOr:
    return k.create<arith::OrIOp>(s, a, b);
  case Combine::bitXor:
    return k.create<arith::XOrIOp>(s, a, b);
  }
  return {};
}

static const char *combineName(Combine c) {
  switch (c) {
  case Combine::sum:
    return "sum";
  case Combine::prod:
    return "prod";
  case Combine::max:
    return "max";
  case Combine::min:
    return "min";
  case Combine::bitAnd:
    return "bitAnd";
  case Combine::bitOr:
    return "bitOr";
  case Combine::bitXor:
    return "bitXor";
  }
  return "?";
}

/// A combiner for `c`, after checking it applies to `x`'s element type.
static Combiner builtinCombiner(const std::shared_ptr<KernelImpl> &kp,
                                const Site &s, const Value &x, Combine c) {
  KernelImpl &k = *kp;
  Type t = getElementTypeOrSelf(k.use(x, s).getType());
  bool bitwise =
      c == Combine::bitAnd || c == Combine::bitOr || c == Combine::bitXor;
  if (bitwise && isa<FloatType>(t))
    k.fail(s, std::string("Combine::") + combineName(c) +
                  " needs integer or i1 tiles, got " +
                  typeStr(k.use(x, s).getType()));
  if ((c == Combine::sum || c == Combine::prod) && t.isInteger(1))
    k.fail(s, std::string("Combine::") + combineName(c) +
                  " on i1 tiles would wrap; convert them with .to(i32) "
                  "first");
  return [kp, s, c](std::vector<Value> acc, std::vector<Value> cur) {
    mlir::Value r =
        combineScalars(*kp, s, c, kp->use(acc[0], s), kp->use(cur[0], s));
    return std::vector<Value>{Access::wrap(kp, r)};
  };
}

/// Adapts a single-value combiner.
static Combiner single(const std::function<Value(Value, Value)> &fn) {
  return [fn](std::vector<Value> acc, std::vector<Value> cur) {
    return std::vector<Value>{fn(acc[0], cur[0])};
  };
}

Value Kernel::reduce(const Value &x, int axis, Combine c, bool keepDims,
                     SourceLoc loc) {
  Site s = site(loc, "tile.reduce");
  impl_->checkUsable(s);
  return combine(impl_, false, {x}, axis, builtinCombiner(impl_, s, x, c),
                 keepDims, s)[0];
}

Value Kernel::reduce(const Value &x, int axis,
                     const std::function<Value(Value, Value)> &combiner,
                     bool keepDims, SourceLoc loc) {
  Site s = site(loc, "tile.reduce");
  return combine(impl_, false, {x}, axis, single(combiner), keepDims, s)[0];
}

std::vector<Value> Kernel::reduce(const std::vector<Value> &xs, int axis,
                                  const Combiner &combiner, bool keepDims,
                                  SourceLoc loc) {
  Site s = site(loc, "tile.reduce");
  return combine(impl_, false, xs, axis, combiner, keepDims, s);
}

Value Kernel::scan(const Value &x, int axis, Combine c, bool reverse,
                   SourceLoc loc) {
  Site s = site(loc, "tile.scan");
  impl_->checkUsable(s);
  return combine(impl_, true, {x}, axis, builtinCombiner(impl_, s, x, c),
                 reverse, s)[0];
}

Value Kernel::scan(const Value &x, int axis,
                   const std::function<Value(Value, Value)> &combiner,
                   bool reverse, SourceLoc loc) {
  Site s = site(loc, "tile.scan");
  return combine(impl_, true, {x}, axis, single(combiner), reverse, s)[0];
}

std::vector<Value> Kernel::scan(const std::vector<Value> &xs, int axis,
                                const Combiner &combiner, bool reverse,
                                SourceLoc loc) {
  Site s = site(loc, "tile.scan");
  return combine(impl_, true, xs, axis, combiner, reverse, s);
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

/// Loop bounds as values of one integer type (i64 if any needs it).
static SmallVector<mlir::Value> loopBounds(KernelImpl &k, const Site &s,
                                           ArrayRef<const Operand *> bounds) {
  Type i32 = k.builder.getI32Type(), i64 = k.builder.getI64Type();
  Type type = i32;
  SmallVector<mlir::Value> values(bounds.size());
  const char *names[] = {"lower bound", "upper bound", "step"};
  for (auto [i, b] : llvm::enumerate(bounds)) {
    if (b->kind() == Operand::Kind::Value) {
      mlir::Value v = k.use(b->value(), s);
      if (!isa<IntegerType>(v.getType()) || v.getType().isInteger(1))
        k.fail(s, std::string("the ") + names[i] +
                      " must be an integer scalar, got " +
                      typeStr(v.getType()));
      if (v.getType().isInteger(64))
        type = i64;
      values[i] = v;
      continue;
    }
    if (b->kind() == Operand::Kind::Float || b->kind() == Operand::Kind::Bool)
      k.fail(s, std::string("the ") + names[i] + " must be an integer");
    int64_t n = b->kind() == Operand::Kind::Unsigned
                    ? (int64_t)b->unsignedValue()
                    : b->intValue();
    if (i == 2 && n <= 0)
      k.fail(s, "the step must be positive, got " + std::to_string(n));
    if (n > INT32_MAX || n < INT32_MIN)
      type = i64;
  }
  for (auto [i, b] : llvm::enumerate(bounds))
    values[i] = values[i] ? castTo(k, values[i], type, s)
                          : constant(k, *b, type, {}, s);
  return values;
}

std::vector<Value> Kernel::forLoop(
    const Operand &lo, const Operand &hi, const Operand &step,
    const std::vector<Value> &init,
    const std::function<std::vector<Value>(Value, std::vector<Value>)> &body,
    SourceLoc loc) {
  Site s = site(loc, "scf.for");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  SmallVector<mlir::Value> inits;
  for (const Value &v : init)
    inits.push_back(k.use(v, s));
  SmallVector<mlir::Value> b = loopBounds(k, s, {&lo, &hi, &step});
  scf::ForOp loop;
  {
    OpBuilder::InsertionGuard guard(k.builder);
    loop = scf::ForOp::create(k.builder, k.loc(s), b[0], b[1], b[2], inits);
  }
  {
    OpBuilder::InsertionGuard guard(k.builder);
    Block *block = loop.getBody();
    // Without carried values scf.for brings its own yield.
    dropTerminator(*block);
    k.builder.setInsertionPointToEnd(block);
    std::vector<Value> carried = wrapAll(impl_, loop.getRegionIterArgs());
    Value iv = Access::wrap(impl_, loop.getInductionVar());
    std::vector<Value> next = runBody(k, [&] { return body(iv, carried); });
    SmallVector<mlir::Value> yielded =
        bodyResults(k, s, next, TypeRange(ValueRange(inits)), "the loop body");
    scf::YieldOp::create(k.builder, k.loc(s), yielded);
  }
  k.verifyNew(loop, s);
  return wrapAll(impl_, loop.getResults());
}

void Kernel::forLoop(const Operand &lo, const Operand &hi, const Operand &step,
                     const std::function<void(Value)> &body, SourceLoc loc) {
  forLoop(
      lo, hi, step, std::vector<Value>{},
      [&](Value iv, std::vector<Value>) {
        body(iv);
        return std::vector<Value>{};
      },
      loc);
}

Value Kernel::forLoop(const Operand &lo, const Operand &hi, const Operand &step,
                      const Value &init,
                      const std::function<Value(Value, Value)> &body,
                      SourceLoc loc) {
  return forLoop(
      lo, hi, step, std::vector<Value>{init},
      [&](Value iv, std::vector<Value> carried) {
        return std::vector<Value>{body(iv, carried[0])};
      },
      loc)[0];
}

std::vector<Value> Kernel::whileLoop(
    const std::vector<Value> &init,
    const std::function<Value(std::vector<Value>)> &cond,
    const std::function<std::vector<Value>(std::vector<Value>)> &body,
    SourceLoc loc) {
  Site s = site(loc, "scf.while");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  SmallVector<mlir::Value> inits;
  SmallVector<Type> types;
  for (const Value &v : init) {
    inits.push_back(k.use(v, s));
    types.push_back(inits.back().getType());
  }
  Location l = k.loc(s);
  auto loop = scf::WhileOp::create(k.builder, l, types, inits);
  SmallVector<Location> locs(types.size(), l);
  {
    OpBuilder::InsertionGuard guard(k.builder);
    Block *before = k.builder.createBlock(&loop.getBefore(), {}, types, locs);
    std::vector<Value> args = wrapAll(impl_, before->getArguments());
    Value c = runBody(k, [&] { return cond(args); });
    mlir::Value cv = k.use(c, s);
    if (!cv.getType().isInteger(1))
      k.fail(s,
             "the condition must be a scalar i1, got " + typeStr(cv.getType()));
    scf::ConditionOp::create(k.builder, l, cv, before->getArguments());
  }
  {
    OpBuilder::InsertionGuard guard(k.builder);
    Block *after = k.builder.createBlock(&loop.getAfter(), {}, types, locs);
    std::vector<Value> args = wrapAll(impl_, after->getArguments());
    std::vector<Value> next = runBody(k, [&] { return body(args); });
    scf::YieldOp::create(k.builder, l,
                         bodyResults(k, s, next, types, "the loop body"));
  }
  k.verifyNew(loop, s);
  return wrapAll(impl_, loop.getResults());
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

static mlir::Value ifCondition(KernelImpl &k, const Site &s,
                               const Value &cond) {
  mlir::Value c = k.use(cond, s);
  if (!c.getType().isInteger(1))
    k.fail(s, "the condition must be a scalar i1, got " + typeStr(c.getType()) +
                  (isa<RankedTensorType>(c.getType())
                       ? "; choose between tiles with where()"
                       : ""));
  return c;
}

void Kernel::ifThen(const Value &cond, const std::function<void()> &then,
                    SourceLoc loc) {
  Site s = site(loc, "scf.if");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  mlir::Value c = ifCondition(k, s, cond);
  auto op = scf::IfOp::create(k.builder, k.loc(s), TypeRange{}, c,
                              /*addThenBlock=*/true, /*addElseBlock=*/false);
  {
    OpBuilder::InsertionGuard guard(k.builder);
    dropTerminator(op.getThenRegion().front());
    k.builder.setInsertionPointToEnd(&op.getThenRegion().front());
    runBody(k, then);
    scf::YieldOp::create(k.builder, k.loc(s));
  }
  k.verifyNew(op, s);
}

std::vector<Value> Kernel::ifImpl(
    const Value &cond, const std::function<std::vector<Value>()> &then,
    const std::function<std::vector<Value>()> &otherwise, SourceLoc loc) {
  Site s = site(loc, "scf.if");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  mlir::Value c = ifCondition(k, s, cond);
  Location l = k.loc(s);
  // Result types are known once the then-branch is built: build both
  // branches in a result-less if, then move them into the final one.
  auto draft = scf::IfOp::create(k.builder, l, TypeRange{}, c,
                                 /*addThenBlock=*/true, /*addElseBlock=*/true);
  SmallVector<Type> types;
  {
    OpBuilder::InsertionGuard guard(k.builder);
    dropTerminator(draft.getThenRegion().front());
    dropTerminator(draft.getElseRegion().front());
    k.builder.setInsertionPointToEnd(&draft.getThenRegion().front());
    std::vector<Value> tv = runBody(k, then);
    SmallVector<mlir::Value> raw;
    for (const Value &v : tv) {
      raw.push_back(k.use(v, s));
      types.push_back(raw.back().getType());
    }
    scf::YieldOp::create(k.builder, l, raw);
    k.builder.setInsertionPointToEnd(&draft.getElseRegion().front());
    std::vector<Value> ev = runBody(k, otherwise);
    scf::YieldOp::create(k.builder, l,
                         bodyResults(k, s, ev, types, "the else branch"));
  }
  scf::IfOp op = draft;
  if (!types.empty()) {
    op = scf::IfOp::create(k.builder, l, types, c, /*addThenBlock=*/false,
                           /*addElseBlock=*/false);
    op.getThenRegion().takeBody(draft.getThenRegion());
    op.getElseRegion().takeBody(draft.getElseRegion());
    draft->erase();
  }
  k.verifyNew(op, s);
  return wrapAll(impl_, op.getResults());
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

void Kernel::print(std::string_view prefix, const std::vector<Value> &args,
                   bool hex, SourceLoc loc) {
  Site s = site(loc, "tile.print");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  SmallVector<mlir::Value> values;
  for (const Value &v : args)
    values.push_back(k.use(v, s));
  k.create<tile::PrintOp>(s, StringRef(prefix), hex, values);
}

void Kernel::deviceAssert(const Value &cond, std::string_view message,
                          SourceLoc loc) {
  Site s = site(loc, "tile.assert");
  KernelImpl &k = *impl_;
  k.checkUsable(s);
  mlir::Value c = k.use(cond, s);
  if (!getElementTypeOrSelf(c.getType()).isInteger(1))
    k.fail(s, "the condition must be i1 (a comparison), got " +
                  typeStr(c.getType()));
  k.create<tile::AssertOp>(s, c, StringRef(message));
}

} // namespace tilec
