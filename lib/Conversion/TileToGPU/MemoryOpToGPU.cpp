//===- MemoryOpToGPU.cpp - loads, stores, atomics -------------------------===//
//
// Global memory accesses become inline PTX, one instruction per group of
// `vec` consecutive elements of a thread: vec is the largest power of two
// that the layout keeps in one thread, the axis analysis proves contiguous
// and aligned, and fits 16 bytes. Masks:
//  - uniform over each group (constancy >= vec): one predicated access;
//  - otherwise: the full vector access when every lane of the group is in
//    bounds, else one predicated scalar access per element, so that a mask
//    like `offs < n` with an unknown n still gives 16-byte accesses for all
//    but the last group.
// Stores and atomics of replicated elements run in one owner thread only.
//
//===----------------------------------------------------------------------===//

#include "TileToGPUPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

// `-debug-only=convert-tile-to-gpu` explains each access's vector width
// (docs/development.md: needs an LLVM with assertions).
#define DEBUG_TYPE "convert-tile-to-gpu"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tile::gpu_lowering;

namespace {

/// Bits an element of `type` (lowered) takes in memory.
unsigned memBits(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return 64;
  if (type.isInteger(1))
    return 8;
  return type.getIntOrFloatBitWidth();
}

/// The element as an integer of memBits bits.
Value toBits(OpBuilder &b, Location loc, Value v) {
  Type type = v.getType();
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v);
  if (type.isInteger(1))
    return arith::ExtUIOp::create(b, loc, b.getI8Type(), v);
  if (isa<FloatType>(type))
    return arith::BitcastOp::create(
        b, loc, b.getIntegerType(type.getIntOrFloatBitWidth()), v);
  return v;
}

Value fromBits(OpBuilder &b, Location loc, Value bits, Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::IntToPtrOp::create(b, loc, type, bits);
  if (type.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bits,
                                 arith::ConstantIntOp::create(
                                     b, loc, bits.getType(), 0));
  if (isa<FloatType>(type))
    return arith::BitcastOp::create(b, loc, type, bits);
  return bits;
}

/// How a group of `vec` elements moves: numWords registers of wordBits.
struct Access {
  int64_t vec = 1;
  unsigned elemBits = 32, wordBits = 32, numWords = 1;
  /// Register type of a word (PTX has no 8-bit registers: 16 bits).
  Type regType(MLIRContext *ctx) const {
    return IntegerType::get(ctx, wordBits == 32 ? 32 : 16);
  }
  StringRef regConstraint() const { return wordBits == 32 ? "r" : "h"; }
  std::string ptxType() const {
    return wordBits == 8 ? "u8" : "b" + std::to_string(wordBits);
  }
  std::string vecSuffix() const {
    return numWords > 1 ? ".v" + std::to_string(numWords) : "";
  }
};

Access makeAccess(int64_t vec, unsigned elemBits) {
  Access a;
  a.vec = vec;
  a.elemBits = elemBits;
  unsigned total = vec * elemBits;
  a.wordBits = std::min(32u, total);
  a.numWords = total / a.wordBits;
  return a;
}

/// Two f16/bf16 elements that are both roundings of f32 values, as one
/// 32-bit word from one vector rounding (cvt.rn.bf16x2.f32 /
/// cvt.rn.f16x2.f32 on sm_80+): one instruction per pair instead of two
/// conversions and the shift and or that pack them. Null otherwise.
Value packTruncPair(OpBuilder &b, Location loc, ValueRange elems,
                    Type wordInt) {
  if (elems.size() != 2 || !wordInt.isInteger(32))
    return {};
  SmallVector<Value> wide;
  for (Value e : elems) {
    auto trunc = e.getDefiningOp<arith::TruncFOp>();
    if (!trunc || !trunc.getIn().getType().isF32() ||
        !isa<BFloat16Type, Float16Type>(e.getType()) ||
        trunc.getRoundingmodeAttr())
      return {};
    wide.push_back(trunc.getIn());
  }
  Type narrow = elems[0].getType();
  if (elems[1].getType() != narrow)
    return {};
  auto v2f32 = VectorType::get({2}, b.getF32Type());
  Value v = LLVM::UndefOp::create(b, loc, v2f32);
  for (unsigned k = 0; k < 2; ++k)
    v = LLVM::InsertElementOp::create(
        b, loc, v, wide[k],
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), k));
  Value r = LLVM::FPTruncOp::create(b, loc, VectorType::get({2}, narrow), v);
  return LLVM::BitcastOp::create(b, loc, wordInt, r);
}

/// Packs `elems` (lowered element values) into the words of `a`.
SmallVector<Value> pack(OpBuilder &b, Location loc, ValueRange elems,
                        const Access &a) {
  Type reg = a.regType(b.getContext());
  Type wordInt = b.getIntegerType(a.wordBits);
  SmallVector<Value> words;
  if (a.elemBits > a.wordBits) { // 64-bit elements: two words each
    for (Value e : elems) {
      Value bits = toBits(b, loc, e);
      Value c32 = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 32);
      words.push_back(arith::TruncIOp::create(b, loc, wordInt, bits));
      words.push_back(arith::TruncIOp::create(
          b, loc, wordInt, arith::ShRUIOp::create(b, loc, bits, c32)));
    }
    return words;
  }
  unsigned perWord = a.wordBits / a.elemBits;
  for (unsigned w = 0; w < a.numWords; ++w) {
    if (Value both = packTruncPair(b, loc, elems.slice(w * perWord, perWord),
                                   wordInt)) {
      words.push_back(both);
      continue;
    }
    Value word;
    for (unsigned k = 0; k < perWord; ++k) {
      Value bits = toBits(b, loc, elems[w * perWord + k]);
      if (a.elemBits != a.wordBits)
        bits = arith::ExtUIOp::create(b, loc, wordInt, bits);
      if (k)
        bits = arith::ShLIOp::create(
            b, loc, bits,
            arith::ConstantIntOp::create(b, loc, wordInt, k * a.elemBits));
      word = word ? (Value)arith::OrIOp::create(b, loc, word, bits) : bits;
    }
    if (wordInt != reg)
      word = arith::ExtUIOp::create(b, loc, reg, word);
    words.push_back(word);
  }
  return words;
}

/// The inverse of pack.
SmallVector<Value> unpack(OpBuilder &b, Location loc, ValueRange words,
                          Type elemType, const Access &a) {
  Type wordInt = b.getIntegerType(a.wordBits);
  Type elemInt = b.getIntegerType(a.elemBits);
  SmallVector<Value> elems;
  if (a.elemBits > a.wordBits) {
    Type i64 = b.getI64Type();
    for (unsigned w = 0; w < words.size(); w += 2) {
      Value lo = arith::ExtUIOp::create(b, loc, i64, words[w]);
      Value hi = arith::ExtUIOp::create(b, loc, i64, words[w + 1]);
      hi = arith::ShLIOp::create(
          b, loc, hi, arith::ConstantIntOp::create(b, loc, i64, 32));
      elems.push_back(fromBits(b, loc, arith::OrIOp::create(b, loc, lo, hi),
                               elemType));
    }
    return elems;
  }
  unsigned perWord = a.wordBits / a.elemBits;
  for (Value word : words) {
    if (word.getType() != wordInt)
      word = arith::TruncIOp::create(b, loc, wordInt, word);
    for (unsigned k = 0; k < perWord; ++k) {
      Value bits = word;
      if (k)
        bits = arith::ShRUIOp::create(
            b, loc, bits,
            arith::ConstantIntOp::create(b, loc, wordInt, k * a.elemBits));
      if (a.elemBits != a.wordBits)
        bits = arith::TruncIOp::create(b, loc, elemInt, bits);
      elems.push_back(fromBits(b, loc, bits, elemType));
    }
  }
  return elems;
}

Value inlinePtx(OpBuilder &b, Location loc, Type resultType,
                ValueRange operands, StringRef text, StringRef constraints) {
  MLIRContext *ctx = b.getContext();
  auto op = LLVM::InlineAsmOp::create(
      b, loc, resultType, operands, b.getStringAttr(text),
      b.getStringAttr(constraints), /*has_side_effects=*/b.getUnitAttr(),
      /*is_align_stack=*/UnitAttr(),
      LLVM::TailCallKindAttr::get(ctx, LLVM::TailCallKind::None),
      LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
  return op.getNumResults() ? op.getResult(0) : Value();
}

/// The words of an inline-asm result (a struct when there are several).
SmallVector<Value> asmWords(OpBuilder &b, Location loc, Value result,
                            unsigned n) {
  if (n == 1)
    return {result};
  SmallVector<Value> words;
  for (unsigned i = 0; i < n; ++i)
    words.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
  return words;
}

std::string cacheSuffix(CacheModifier c) {
  return c == CacheModifier::none ? "" : "." + stringifyCacheModifier(c).str();
}

std::string evictSuffix(EvictionPolicy e) {
  switch (e) {
  case EvictionPolicy::normal:
    return "";
  case EvictionPolicy::evict_first:
    return ".L1::evict_first";
  case EvictionPolicy::evict_last:
    return ".L1::evict_last";
  }
  return "";
}

/// Emits one (optionally predicated) load of a group; `others` are words
/// taken where the predicate is false.
SmallVector<Value> emitLoad(OpBuilder &b, Location loc, Value addr, Value pred,
                            ValueRange others, const Access &a,
                            StringRef modifiers) {
  MLIRContext *ctx = b.getContext();
  Type reg = a.regType(ctx);
  std::string text, constraints;
  llvm::raw_string_ostream os(text);
  unsigned n = a.numWords;
  for (unsigned i = 0; i < n; ++i)
    constraints += (i ? ",=" : "=") + a.regConstraint().str();
  SmallVector<Value> operands;
  unsigned next = n;
  if (pred) {
    // Outputs start as `other` and keep it where nothing is loaded.
    for (unsigned i = 0; i < n; ++i) {
      os << "mov.b" << (a.wordBits == 32 ? 32 : 16) << " $" << i << ", $"
         << next++ << ";\n\t";
      operands.push_back(others[i]);
      constraints += "," + a.regConstraint().str();
    }
    os << "@$" << next++ << " ";
    operands.push_back(pred);
    constraints += ",b";
  }
  os << modifiers << a.vecSuffix() << "." << a.ptxType()
     << " ";
  if (n > 1) {
    os << "{";
    for (unsigned i = 0; i < n; ++i)
      os << (i ? ", $" : "$") << i;
    os << "}";
  } else {
    os << "$0";
  }
  os << ", [ $" << next << " + 0 ];";
  operands.push_back(addr);
  constraints += ",l";
  Type resultType = reg;
  if (n > 1)
    resultType = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(n, reg));
  return asmWords(b, loc,
                  inlinePtx(b, loc, resultType, operands, text, constraints),
                  n);
}

/// Emits `[@pred] <instruction> [addr], word` (or `{words}`) as inline PTX
/// without a result: one store or reduction of a group, each word in a
/// register of constraint `reg`.
void emitWrite(OpBuilder &b, Location loc, StringRef instruction, Value addr,
               Value pred, ValueRange words, StringRef reg) {
  std::string text, constraints;
  llvm::raw_string_ostream os(text);
  SmallVector<Value> operands;
  unsigned next = 0;
  if (pred) {
    os << "@$" << next++ << " ";
    operands.push_back(pred);
    constraints = "b,";
  }
  os << instruction << " [ $" << next++ << " + 0 ], ";
  operands.push_back(addr);
  constraints += "l";
  if (words.size() > 1)
    os << "{";
  for (unsigned i = 0; i < words.size(); ++i) {
    os << (i ? ", $" : "$") << next++;
    operands.push_back(words[i]);
    constraints += "," + reg.str();
  }
  if (words.size() > 1)
    os << "}";
  os << ";";
  inlinePtx(b, loc, Type(), operands, text, constraints);
}

/// Emits one (optionally predicated) store of a group.
void emitStore(OpBuilder &b, Location loc, Value addr, Value pred,
               ValueRange words, const Access &a, StringRef modifiers) {
  std::string instruction =
      "st.global" + modifiers.str() + a.vecSuffix() + "." +
      (a.wordBits == 8 ? std::string("b8") : a.ptxType());
  emitWrite(b, loc, instruction, addr, pred, words, a.regConstraint());
}

/// The address `k` elements past `base` (within a contiguous group: using
/// it instead of the element's own pointer lets LLVM drop the per-element
/// address arithmetic, e.g. a remainder per element).
Value elementAddress(OpBuilder &b, Location loc, Value base, int64_t k,
                     Type elemType) {
  if (k == 0)
    return base;
  Type memType = elemType.isInteger(1) ? b.getI8Type() : elemType;
  return LLVM::GEPOp::create(b, loc, base.getType(), memType, base,
                             ArrayRef<LLVM::GEPArg>{int32_t(k)});
}

Value andPred(OpBuilder &b, Location loc, Value a, Value c) {
  if (!a)
    return c;
  if (!c)
    return a;
  return arith::AndIOp::create(b, loc, a, c);
}

/// Per group of `vec` consecutive elements, the and of their masks; and the
/// and of those over the thread (is every group whole?).
std::pair<SmallVector<Value>, Value> groupMasks(OpBuilder &b, Location loc,
                                                ValueRange masks,
                                                int64_t vec) {
  SmallVector<Value> groups;
  Value whole;
  for (size_t g = 0; g < masks.size(); g += vec) {
    Value all;
    for (int64_t k = 0; k < vec; ++k)
      all = andPred(b, loc, all, masks[g + k]);
    groups.push_back(all);
    whole = andPred(b, loc, whole, all);
  }
  return {groups, whole};
}

/// What the axis analysis allows for the accesses through `ptr`.
struct VecInfo {
  int64_t vec = 1;
  bool maskUniform = true;
};

VecInfo getVecInfo(const LoweringContext &ctx, Value ptr, Value mask,
                   unsigned elemBits) {
  VecInfo v;
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type)
    return v;
  FailureOr<DistributedLayout> layout = DistributedLayout::get(type);
  if (failed(layout))
    return v;
  unsigned d0 = layout->getOrder()[0];
  if (layout->isSliced(d0))
    return v;
  unsigned t0 = 0;
  for (unsigned t = 0; t < type.getRank(); ++t)
    if (layout->getBlockedDim(t) == d0)
      t0 = t;
  AxisInfo info = ctx.axis->get(ptr);
  int64_t bytes = std::max(1u, elemBits / 8);
  int64_t vec = std::min<int64_t>(
      {layout->getVec(d0), info.getContiguity(t0),
       std::max<int64_t>(1, info.getDivisibility(t0) / bytes),
       std::max<int64_t>(1, 128 / std::max(8u, elemBits))});
  v.vec = int64_t(1) << llvm::Log2_64(std::max<int64_t>(vec, 1));
  // A vector must not run past the end of the dim (where a padded layout
  // wraps onto its start).
  while (type.getDimSize(t0) % v.vec)
    v.vec /= 2;
  if (mask)
    v.maskUniform = ctx.axis->get(mask).getConstancy(t0) >= v.vec;
  LLVM_DEBUG(
      llvm::dbgs() << "access " << ptr.getLoc() << " along dim " << t0
                   << ": layout vec " << layout->getVec(d0) << ", contiguity "
                   << info.getContiguity(t0) << ", divisibility "
                   << info.getDivisibility(t0) << " bytes, 16-byte limit "
                   << 128 / std::max(8u, elemBits) << " -> vector of " << v.vec
                   << (mask && !v.maskUniform ? " (mask varies within it)" : "")
                   << "\n");
  return v;
}

/// The per-element pointers, masks, values of an access, with the layout
/// (scalars: one element, no layout).
struct Operands {
  std::optional<DistributedLayout> layout;
  SmallVector<Value> ptrs, masks, values;
};

/// tile.load -> ld.global per group of elements.
struct LoadOpLowering : public OpConversionPattern<LoadOp> {
  LoadOpLowering(const TypeConverter &tc, MLIRContext *ctx,
                 const LoweringContext &lc)
      : OpConversionPattern(tc, ctx), lc(lc) {}
  const LoweringContext &lc;

  LogicalResult
  matchAndRewrite(LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = *getTypeConverter<TileTypeConverter>();
    Location loc = op.getLoc();
    Type elemType = tc.convertElementType(getElementTypeOrSelf(op.getType()));
    unsigned bits = memBits(elemType);
    VecInfo vi = getVecInfo(lc, op.getPtr(), op.getMask(), bits);
    Access a = makeAccess(vi.vec, bits);
    // Volatile excludes cache modifiers (checked before the conversion).
    std::string mods = op.getIsVolatile()
                           ? std::string("ld.volatile.global")
                           : "ld.global" + cacheSuffix(op.getCache()) +
                                 evictSuffix(op.getEvict());

    ValueRange ptrs = adaptor.getPtr();
    ValueRange masks = op.getMask() ? adaptor.getMask() : ValueRange();
    ValueRange others = op.getOther() ? adaptor.getOther() : ValueRange();
    SmallVector<Value> results;
    Value zero = arith::ConstantIntOp::create(rewriter, loc,
                                              a.regType(getContext()), 0);
    auto otherWordsOf = [&](OpBuilder &b, Location l, size_t g) {
      SmallVector<Value> words(a.numWords, zero);
      if (!others.empty())
        words = pack(b, l, others.slice(g, a.vec), a);
      return words;
    };
    if (masks.empty() || vi.maskUniform) {
      for (size_t g = 0; g < ptrs.size(); g += a.vec) {
        Value pred = masks.empty() ? Value() : masks[g];
        SmallVector<Value> words = emitLoad(rewriter, loc, ptrs[g], pred,
                                            otherWordsOf(rewriter, loc, g),
                                            a, mods);
        llvm::append_range(results,
                           unpack(rewriter, loc, words, elemType, a));
      }
      replaceWithValues(rewriter, op, results);
      return success();
    }
    // Masks that vary inside a group (e.g. `offs < n`, n unknown): every
    // group's vector load first, predicated on the whole group being in
    // bounds, so that all of the thread's 16-byte loads are in flight
    // together; then, only if some group is partly in bounds, those groups
    // element by element. (With one branch per group, the vector loads of
    // later groups sat behind earlier groups' element-wise paths.)
    auto [alls, allThread] = groupMasks(rewriter, loc, masks, a.vec);
    for (auto [n, all] : llvm::enumerate(alls)) {
      size_t g = n * a.vec;
      SmallVector<Value> words = emitLoad(rewriter, loc, ptrs[g], all,
                                          otherWordsOf(rewriter, loc, g), a,
                                          mods);
      llvm::append_range(results, unpack(rewriter, loc, words, elemType, a));
    }
    auto elementwise = [&](OpBuilder &b, Location l, size_t g) {
      Access one = makeAccess(1, bits);
      Value zero1 =
          arith::ConstantIntOp::create(b, l, one.regType(getContext()), 0);
      SmallVector<Value> elems;
      for (int64_t k = 0; k < a.vec; ++k) {
        SmallVector<Value> other(one.numWords, zero1);
        if (!others.empty())
          other = pack(b, l, others.slice(g + k, 1), one);
        SmallVector<Value> words =
            emitLoad(b, l, elementAddress(b, l, ptrs[g], k, elemType),
                     masks[g + k], other, one, mods);
        elems.push_back(unpack(b, l, words, elemType, one)[0]);
      }
      return elems;
    };
    bool oneGroup = alls.size() == 1;
    auto ifOp = scf::IfOp::create(
        rewriter, loc, allThread,
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, results); },
        [&](OpBuilder &b, Location l) {
          SmallVector<Value> elems;
          for (auto [n, all] : llvm::enumerate(alls)) {
            size_t g = n * a.vec;
            ValueRange vec = ArrayRef<Value>(results).slice(g, a.vec);
            if (oneGroup) {
              llvm::append_range(elems, elementwise(b, l, g));
              continue;
            }
            auto inner = scf::IfOp::create(
                b, l, all,
                [&](OpBuilder &b2, Location l2) {
                  scf::YieldOp::create(b2, l2, vec);
                },
                [&](OpBuilder &b2, Location l2) {
                  scf::YieldOp::create(b2, l2, elementwise(b2, l2, g));
                });
            llvm::append_range(elems, inner.getResults());
          }
          scf::YieldOp::create(b, l, elems);
        });
    results.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    replaceWithValues(rewriter, op, results);
    return success();
  }
};

/// tile.store -> st.global per group of elements.
struct StoreOpLowering : public OpConversionPattern<StoreOp> {
  StoreOpLowering(const TypeConverter &tc, MLIRContext *ctx,
                  const LoweringContext &lc)
      : OpConversionPattern(tc, ctx), lc(lc) {}
  const LoweringContext &lc;

  LogicalResult
  matchAndRewrite(StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = *getTypeConverter<TileTypeConverter>();
    Location loc = op.getLoc();
    Type elemType =
        tc.convertElementType(getElementTypeOrSelf(op.getValue().getType()));
    unsigned bits = memBits(elemType);
    VecInfo vi = getVecInfo(lc, op.getPtr(), op.getMask(), bits);
    Access a = makeAccess(vi.vec, bits);
    std::string mods = cacheSuffix(op.getCache()) + evictSuffix(op.getEvict());

    // One thread writes each element: replicas, padding copies and, for a
    // scalar store, all threads but the first stay silent.
    SmallVector<Value> owners;
    if (auto type = dyn_cast<RankedTensorType>(op.getPtr().getType())) {
      owners = emitElementOwners(rewriter, loc, *DistributedLayout::get(type));
    } else {
      Value tid = NVVM::ThreadIdXOp::create(rewriter, loc,
                                            rewriter.getI32Type());
      owners.push_back(arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, tid,
          i32Val(rewriter, loc, 0)));
    }
    ValueRange ptrs = adaptor.getPtr();
    ValueRange values = adaptor.getValue();
    ValueRange masks = op.getMask() ? adaptor.getMask() : ValueRange();
    if (masks.empty() || vi.maskUniform) {
      for (size_t g = 0; g < ptrs.size(); g += a.vec) {
        Value pred = andPred(rewriter, loc,
                             masks.empty() ? Value() : masks[g], owners[g]);
        emitStore(rewriter, loc, ptrs[g], pred,
                  pack(rewriter, loc, values.slice(g, a.vec), a), a, mods);
      }
      rewriter.eraseOp(op);
      return success();
    }
    // As for loads: every in-bounds group's vector store, then the partial
    // groups element by element, only if there are any.
    auto [alls, allThread] = groupMasks(rewriter, loc, masks, a.vec);
    for (auto [n, all] : llvm::enumerate(alls)) {
      size_t g = n * a.vec;
      emitStore(rewriter, loc, ptrs[g], andPred(rewriter, loc, all, owners[g]),
                pack(rewriter, loc, values.slice(g, a.vec), a), a, mods);
    }
    auto elementwise = [&](OpBuilder &b, Location l, size_t g) {
      Access one = makeAccess(1, bits);
      for (int64_t k = 0; k < a.vec; ++k)
        emitStore(b, l, elementAddress(b, l, ptrs[g], k, elemType),
                  andPred(b, l, masks[g + k], owners[g + k]),
                  pack(b, l, values.slice(g + k, 1), one), one, mods);
    };
    Value partial = arith::XOrIOp::create(rewriter, loc, allThread,
                                          i1Val(rewriter, loc, true));
    scf::IfOp::create(rewriter, loc, partial, [&](OpBuilder &b, Location l) {
      for (auto [n, all] : llvm::enumerate(alls)) {
        size_t g = n * a.vec;
        if (alls.size() == 1) {
          elementwise(b, l, g);
          continue;
        }
        Value notAll = arith::XOrIOp::create(b, l, all, i1Val(b, l, true));
        scf::IfOp::create(b, l, notAll, [&](OpBuilder &b2, Location l2) {
          elementwise(b2, l2, g);
          scf::YieldOp::create(b2, l2);
        });
      }
      scf::YieldOp::create(b, l);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

/// PTX `.op.type` of an atomic read-modify-write on `elem`.
std::string rmwSuffix(RMWKind kind, Type elem) {
  unsigned w = elem.getIntOrFloatBitWidth();
  std::string u = "u" + std::to_string(w), s = "s" + std::to_string(w),
              b = "b" + std::to_string(w);
  switch (kind) {
  case RMWKind::Add:
    return ".add." + u;
  case RMWKind::FAdd:
    if (elem.isF16())
      return ".add.noftz.f16";
    if (elem.isBF16())
      return ".add.noftz.bf16";
    return ".add.f" + std::to_string(w);
  case RMWKind::Max:
    return ".max." + s;
  case RMWKind::Min:
    return ".min." + s;
  case RMWKind::UMax:
    return ".max." + u;
  case RMWKind::UMin:
    return ".min." + u;
  case RMWKind::And:
    return ".and." + b;
  case RMWKind::Or:
    return ".or." + b;
  case RMWKind::Xor:
    return ".xor." + b;
  case RMWKind::Xchg:
    return ".exch." + b;
  }
  return "";
}

std::string orderingSuffix(MemSemantic sem, MemScope scope) {
  return "." + stringifyMemSemantic(sem).str() + "." +
         stringifyMemScope(scope).str();
}

/// Runs `atom` on each element the thread owns; the old values reach the
/// replicas (and, for scalars, every thread) through shared memory.
///
/// A float max or min (`floatMinMax`: RMWKind::Max or Min on f32/f64) has
/// no PTX instruction; it is one of two integer atomics on the bits, chosen
/// by the value's sign: IEEE floats of the same sign order as their bit
/// patterns, ascending as signed integers when non-negative and descending
/// as unsigned ones when negative, and every non-negative pattern is below
/// every negative one as unsigned and above it as signed. So max(m, v) is
/// max.s(m, v) for v >= +0 and min.u(m, v) for v < 0 (sign bit set: -0.0
/// too), min the other way round: Triton's and CUDA's usual form. A NaN
/// compares as larger than every number of its sign.
template <typename AtomicOp>
LogicalResult lowerAtomic(AtomicOp op, ValueRange ptrs, ValueRange masks,
                          ArrayRef<ValueRange> args, StringRef opSuffix,
                          ConversionPatternRewriter &rewriter,
                          const TileTypeConverter &tc,
                          std::optional<RMWKind> floatMinMax = std::nullopt) {
  Location loc = op.getLoc();
  Type elemType = tc.convertElementType(getElementTypeOrSelf(op.getType()));
  unsigned w = elemType.getIntOrFloatBitWidth();
  Type regType = rewriter.getIntegerType(w == 64 ? 64 : (w == 16 ? 16 : 32));
  StringRef reg = w == 64 ? "l" : (w == 16 ? "h" : "r");
  auto tensor = dyn_cast<RankedTensorType>(op.getType());
  std::optional<DistributedLayout> layout;
  // Replicas and padding copies must not repeat the operation.
  SmallVector<Value> owners;
  if (tensor) {
    layout = *DistributedLayout::get(tensor);
    owners = emitElementOwners(rewriter, loc, *layout);
  } else {
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    owners.push_back(arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, tid, i32Val(rewriter, loc, 0)));
  }
  std::string ordering = orderingSuffix(op.getSem(), op.getScope());
  SmallVector<Value> old;
  for (size_t i = 0; i < ptrs.size(); ++i) {
    Value pred = andPred(rewriter, loc, masks.empty() ? Value() : masks[i],
                         owners[i]);
    std::string text, constraints = "=" + reg.str();
    llvm::raw_string_ostream os(text);
    SmallVector<Value> operands;
    unsigned next = 1;
    os << "mov.b" << regType.getIntOrFloatBitWidth() << " $0, 0;\n\t";
    if (floatMinMax) {
      // $1 the value's bits, $2 the address, $3 the predicate if any.
      std::string v = "$1", addr = "$2", bits = std::to_string(w);
      Value bitsV = toBits(rewriter, loc, args[0][i]);
      operands.push_back(bitsV);
      operands.push_back(ptrs[i]);
      constraints += "," + reg.str() + ",l";
      std::string guard;
      if (pred) {
        operands.push_back(pred);
        constraints += ",b";
        guard = ".and";
      }
      bool max = *floatMinMax == RMWKind::Max;
      std::string p = pred ? ", $3" : "";
      // %-names, scoped by the braces (names of LLVM's own registers end
      // in digits).
      os << "{\n\t.reg .pred %fpos, %fneg;\n\t"
         << "setp.ge" << guard << ".s" << bits << " %fpos, " << v << ", 0"
         << p << ";\n\t"
         << "setp.lt" << guard << ".s" << bits << " %fneg, " << v << ", 0"
         << p << ";\n\t"
         << "@%fpos atom.global" << ordering << (max ? ".max.s" : ".min.s")
         << bits << " $0, [ " << addr << " + 0 ], " << v << ";\n\t"
         << "@%fneg atom.global" << ordering << (max ? ".min.u" : ".max.u")
         << bits << " $0, [ " << addr << " + 0 ], " << v << ";\n\t}";
      Value r = inlinePtx(rewriter, loc, regType, operands, text, constraints);
      old.push_back(fromBits(rewriter, loc, r, elemType));
      continue;
    }
    if (pred) {
      os << "@$" << next++ << " ";
      operands.push_back(pred);
      constraints += ",b";
    }
    os << "atom.global" << ordering << opSuffix << " $0, [ $" << next++
       << " + 0 ]";
    operands.push_back(ptrs[i]);
    constraints += ",l";
    for (ValueRange arg : args) {
      Value bitsV = toBits(rewriter, loc, arg[i]);
      if (bitsV.getType() != regType)
        bitsV = arith::ExtUIOp::create(rewriter, loc, regType, bitsV);
      os << ", $" << next++;
      operands.push_back(bitsV);
      constraints += "," + reg.str();
    }
    os << ";";
    Value r = inlinePtx(rewriter, loc, regType, operands, text, constraints);
    if (regType.getIntOrFloatBitWidth() != w)
      r = arith::TruncIOp::create(rewriter, loc, rewriter.getIntegerType(w), r);
    old.push_back(fromBits(rewriter, loc, r, elemType));
  }
  if (op->use_empty() || llvm::all_of(owners, [](Value v) { return !v; })) {
    replaceWithValues(rewriter, op, old);
    return success();
  }
  // Broadcast the owners' old values.
  SmallVector<Value> values;
  if (layout) {
    ArrayRef<int64_t> shape = tensor.getShape();
    // One predicate for the whole thread unless padding makes it per
    // element.
    bool uniform = llvm::all_equal(owners);
    SmemTile src{*layout, old,
                 [shape](OpBuilder &b, Location l, ArrayRef<Value> idx) {
                   return linearize(b, l, idx, shape);
                 },
                 uniform ? owners[0] : Value(),
                 uniform ? SmallVector<Value>() : owners};
    SmemTile dst{*layout, {}, src.linear};
    values = exchangeThroughShared(rewriter, loc, elemType, {src}, {dst})[0];
  } else {
    barrier(rewriter, loc);
    auto ifOp = scf::IfOp::create(rewriter, loc, owners[0], false);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      storeShared(rewriter, loc, old[0], i32Val(rewriter, loc, 0));
    }
    barrier(rewriter, loc);
    values.push_back(loadShared(rewriter, loc, elemType,
                                i32Val(rewriter, loc, 0)));
  }
  replaceWithValues(rewriter, op, values);
  return success();
}

/// A read-modify-write whose old values nobody reads, relaxed or release:
/// `red` instead of `atom` (no result to wait for), and f32 adds in groups
/// of 2 or 4 contiguous, aligned elements as one vector `red` on sm_90+
/// (PTX 8.1's red.global.add.v2/v4.f32), as a store's vectors (the axis
/// analysis; a mask that varies within a group splits it).
void lowerReduction(AtomicRMWOp op, ValueRange ptrs, ValueRange masks,
                    ValueRange vals, StringRef opSuffix,
                    ConversionPatternRewriter &rewriter,
                    const TileTypeConverter &tc, const LoweringContext &lc) {
  Location loc = op.getLoc();
  Type elemType = tc.convertElementType(getElementTypeOrSelf(op.getType()));
  unsigned w = elemType.getIntOrFloatBitWidth();
  Type regType = rewriter.getIntegerType(w == 64 ? 64 : (w == 16 ? 16 : 32));
  StringRef reg = w == 64 ? "l" : (w == 16 ? "h" : "r");
  SmallVector<Value> owners;
  int64_t vec = 1;
  if (auto tensor = dyn_cast<RankedTensorType>(op.getType())) {
    owners = emitElementOwners(rewriter, loc, *DistributedLayout::get(tensor));
    if (elemType.isF32() && op.getKind() == RMWKind::FAdd &&
        lc.target->getSmVersion() >= 90 && lc.target->getPtxVersion() >= 81) {
      VecInfo vi = getVecInfo(lc, op.getPtr(), op.getMask(), w);
      if (!op.getMask() || vi.maskUniform)
        vec = std::min<int64_t>(vi.vec, 4);
    }
  } else {
    Value tid =
        NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    owners.push_back(arith::CmpIOp::create(rewriter, loc,
                                           arith::CmpIPredicate::eq, tid,
                                           i32Val(rewriter, loc, 0)));
  }
  // `.add.f32` -> `.add.v4.f32`
  std::string suffix = opSuffix.str();
  if (vec > 1)
    suffix.insert(suffix.rfind('.'), ".v" + std::to_string(vec));
  std::string ordering = orderingSuffix(op.getSem(), op.getScope());
  for (size_t g = 0; g < ptrs.size(); g += vec) {
    // Replicas and padding copies stay silent (a group's elements share
    // their owner: one thread holds the contiguous vector).
    Value pred =
        andPred(rewriter, loc, masks.empty() ? Value() : masks[g], owners[g]);
    SmallVector<Value> words;
    for (int64_t k = 0; k < vec; ++k) {
      Value bits = toBits(rewriter, loc, vals[g + k]);
      if (bits.getType() != regType)
        bits = arith::ExtUIOp::create(rewriter, loc, regType, bits);
      words.push_back(bits);
    }
    emitWrite(rewriter, loc, "red.global" + ordering + suffix, ptrs[g], pred,
              words, reg);
  }
  rewriter.eraseOp(op);
}

/// tile.atomic_rmw -> atom.global.<sem>.<scope>.<op> (red when its old
/// values are not read: lowerReduction).
struct AtomicRMWOpLowering : public OpConversionPattern<AtomicRMWOp> {
  AtomicRMWOpLowering(const TypeConverter &tc, MLIRContext *ctx,
                      const LoweringContext &lc)
      : OpConversionPattern(tc, ctx), lc(lc) {}
  const LoweringContext &lc;

  LogicalResult
  matchAndRewrite(AtomicRMWOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = *getTypeConverter<TileTypeConverter>();
    Type elem = getElementTypeOrSelf(op.getType());
    std::optional<RMWKind> floatMinMax;
    if (isa<FloatType>(elem) &&
        (op.getKind() == RMWKind::Max || op.getKind() == RMWKind::Min))
      floatMinMax = op.getKind();
    bool reduction =
        op->use_empty() && !floatMinMax && op.getKind() != RMWKind::Xchg &&
        (op.getSem() == MemSemantic::relaxed ||
         op.getSem() == MemSemantic::release);
    if (reduction) {
      lowerReduction(op, adaptor.getPtr(),
                     op.getMask() ? adaptor.getMask() : ValueRange(),
                     adaptor.getVal(), rmwSuffix(op.getKind(), elem), rewriter,
                     tc, lc);
      return success();
    }
    return lowerAtomic(op, adaptor.getPtr(),
                       op.getMask() ? adaptor.getMask() : ValueRange(),
                       {adaptor.getVal()}, rmwSuffix(op.getKind(), elem),
                       rewriter, tc, floatMinMax);
  }
};

/// tile.atomic_cas -> atom.global.<sem>.<scope>.cas.
struct AtomicCASOpLowering : public OpConversionPattern<AtomicCASOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AtomicCASOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = *getTypeConverter<TileTypeConverter>();
    unsigned w = getElementTypeOrSelf(op.getType()).getIntOrFloatBitWidth();
    return lowerAtomic(op, adaptor.getPtr(), ValueRange(),
                       {adaptor.getCmp(), adaptor.getVal()},
                       ".cas.b" + std::to_string(w), rewriter, tc);
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateMemoryPatterns(
    TileTypeConverter &tc, RewritePatternSet &patterns,
    const LoweringContext &ctx) {
  MLIRContext *mctx = patterns.getContext();
  patterns.add<LoadOpLowering, StoreOpLowering>(tc, mctx, ctx);
  patterns.add<AtomicRMWOpLowering>(tc, mctx, ctx);
  patterns.add<AtomicCASOpLowering>(tc, mctx);
}
