//===- ErrorTest.cpp - every misuse gives its error at the call site ------===//
//
// One test per message: each checks the line (the test's own), the API entry
// named and the message text, and that the kernel refuses further work but
// never holds invalid IR.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "tilec/Ops.h"

#include "mlir/IR/Verifier.h"

using namespace tilec;
using namespace tilec::test;

namespace {

/// A kernel with a few values to misuse.
struct Fixture : public ::testing::Test {
  Kernel k{"misuse"};
  Value fp = k.pointer("fp", DType::F32);
  Value ip = k.pointer("ip", DType::I32);
  Value n = k.scalar("n", DType::I32);
  Value r = k.range(64);
  Value f = k.zeros({64}, DType::F32);
  Value h = k.zeros({64, 32}, DType::F16);
};

using Errors = Fixture;

//--- Kernels and parameters ---------------------------------------------------

TEST_F(Errors, KernelName) {
  EXPECT_BUILD_ERROR(Kernel("2fast"), "Kernel",
                     "kernel name '2fast' is not an identifier");
}

TEST_F(Errors, NumWarps) {
  EXPECT_BUILD_ERROR(Kernel("k", {.numWarps = 33}), "Kernel",
                     "numWarps must be in [1, 32] (or 0: the layout pass "
                     "chooses), got 33");
  EXPECT_BUILD_ERROR(Kernel("k", {.numStages = 9}), "Kernel",
                     "numStages must be in [1, 8] (or 0: the pipeline's "
                     "default), got 9");
  EXPECT_BUILD_ERROR(Kernel("k", {.numCtas = 3}), "Kernel",
                     "numCtas must be 1, 2 or 4 (programs per cluster), got 3");
}

TEST_F(Errors, ParamName) {
  EXPECT_BUILD_ERROR(k.pointer("x-y", DType::F32), "Kernel::pointer",
                     "parameter name 'x-y' is not an identifier");
}

TEST_F(Errors, DuplicateParam) {
  EXPECT_BUILD_ERROR(k.scalar("n", DType::I32), "Kernel::scalar",
                     "kernel 'misuse' already has a parameter named 'n'");
}

TEST_F(Errors, GridRule) {
  EXPECT_BUILD_ERROR(k.setGrid({"cdiv(m, 64)"}), "Kernel::setGrid",
                     "grid rule x: at character 6 of \"cdiv(m, 64)\": "
                     "unknown parameter 'm' (the kernel's integer "
                     "parameters: n)");
}

TEST_F(Errors, GridRuleOnAPointer) {
  EXPECT_BUILD_ERROR(k.setGrid({"1", "fp"}), "Kernel::setGrid",
                     "grid rule y: at character 1 of \"fp\": parameter 'fp' "
                     "is a pointer");
}

TEST_F(Errors, GridRuleDimensions) {
  EXPECT_BUILD_ERROR(k.setGrid({}), "Kernel::setGrid",
                     "a grid rule has 1 to 3 expressions (x, y, z), got 0");
}

TEST_F(Errors, GridRuleOnADescriptor) {
  Kernel d("d");
  d.tensorDesc("t", DType::I32, {64, 64});
  EXPECT_BUILD_ERROR(d.setGrid({"t"}), "Kernel::setGrid",
                     "grid rule x: at character 1 of \"t\": parameter 't' "
                     "is a tensor descriptor");
}

TEST_F(Errors, MarkOutputOfAScalar) {
  EXPECT_BUILD_ERROR(k.markOutput(n), "Kernel::markOutput",
                     "markOutput applies to pointer parameters, not 'n'");
}

TEST_F(Errors, MarkOutputOfAValue) {
  EXPECT_BUILD_ERROR(k.markOutput(r), "Kernel::markOutput",
                     "markOutput takes a parameter of kernel 'misuse'");
}

TEST_F(Errors, MarkOutputOfAnotherKernel) {
  Kernel other("other");
  Value q = other.pointer("q", DType::F32);
  EXPECT_BUILD_ERROR(k.markOutput(q), "Kernel::markOutput",
                     "markOutput takes a parameter of kernel 'misuse'");
}

TEST_F(Errors, ShapeOfAScalar) {
  EXPECT_BUILD_ERROR(k.setShape(n, {"n"}), "Kernel::setShape",
                     "setShape applies to pointer and tensor descriptor "
                     "parameters, not 'n'");
}

TEST_F(Errors, ShapeSizes) {
  EXPECT_BUILD_ERROR(k.setShape(fp, {}), "Kernel::setShape",
                     "a shape has 1 to 5 sizes, got 0");
}

TEST_F(Errors, ShapeRule) {
  EXPECT_BUILD_ERROR(k.setShape(fp, {"n", "q"}), "Kernel::setShape",
                     "shape of 'fp', size 1: at character 1 of \"q\": "
                     "unknown parameter 'q' (the kernel's integer "
                     "parameters: n)");
}

TEST_F(Errors, ShapeRankOfADescriptor) {
  Kernel d("d");
  Value t = d.tensorDesc("t", DType::F16, {64, 64});
  d.scalar("m", DType::I32);
  EXPECT_BUILD_ERROR(d.setShape(t, {"m"}), "Kernel::setShape",
                     "'t' is a rank-2 tensor descriptor but the shape has 1 "
                     "sizes");
}

TEST_F(Errors, FromOfAPointer) {
  EXPECT_BUILD_ERROR(k.setFrom(fp, "fp.numel()"), "Kernel::setFrom",
                     "setFrom applies to i32 and i64 scalar parameters, not "
                     "'fp'");
}

TEST_F(Errors, FromSource) {
  EXPECT_BUILD_ERROR(k.setFrom(n, "n.size(0)"), "Kernel::setFrom",
                     "source of 'n': at character 1 of \"n.size(0)\": "
                     "parameter 'n' is not an integer scalar, not a tensor (a "
                     "pointer or a tensor descriptor)");
  Kernel d("d");
  Value t = d.tensorDesc("t", DType::F16, {64, 64});
  Value m = d.scalar("m", DType::I32);
  EXPECT_BUILD_ERROR(d.setFrom(m, "t.stride(2)"), "Kernel::setFrom",
                     "source of 'm': at character 10 of \"t.stride(2)\": "
                     "dimension 2 is out of range for 't' (rank 2)");
  // A kernel is unusable after an error: a fresh one takes a good source.
  Kernel e("e");
  e.tensorDesc("t", DType::F16, {64, 64});
  Value m2 = e.scalar("m", DType::I32);
  e.setFrom(m2, "t.size(-1)");
  EXPECT_NE(e.str().find("tile.from = \"t.size(-1)\""), std::string::npos)
      << e.str();
  (void)t;
}

TEST_F(Errors, Divisibility) {
  EXPECT_BUILD_ERROR(
      k.pointer("q", DType::F32, 12), "Kernel::pointer",
      "divisibility of 'q' must be a positive power of two, got 12");
}

TEST_F(Errors, DivisibilityOfFloat) {
  EXPECT_BUILD_ERROR(k.scalar("eps", DType::F32, 16), "Kernel::scalar",
                     "divisibility applies to integer and pointer parameters, "
                     "not 'eps' of type f32");
}

TEST_F(Errors, ScalarType) {
  EXPECT_BUILD_ERROR(k.scalar("b", DType::I8), "Kernel::scalar",
                     "scalar parameter 'b' has type i8; kernel scalars are i1, "
                     "i32, i64, f16, bf16 or f32");
}

TEST_F(Errors, TensorDescBlock) {
  EXPECT_BUILD_ERROR(k.tensorDesc("d", DType::F32, {512, 4}),
                     "Kernel::tensorDesc",
                     "tensor descriptor 'd': dimension 0 of the block is 512; "
                     "a tensor descriptor's block dimensions are 1 to 256 "
                     "elements (the TMA's box limit)");
}

TEST_F(Errors, TensorDescInnerBytes) {
  EXPECT_BUILD_ERROR(k.tensorDesc("d", DType::F16, {64, 4}),
                     "Kernel::tensorDesc",
                     "the innermost block dimension spans 8 bytes");
}

TEST_F(Errors, TensorDescBool) {
  EXPECT_BUILD_ERROR(k.tensorDesc("d", DType::I1, {64, 16}),
                     "Kernel::tensorDesc",
                     "tensor descriptor 'd' has element type i1");
}

TEST_F(Errors, DescriptorOffsets) {
  Value d = k.tensorDesc("d", DType::F32, {8, 8});
  EXPECT_BUILD_ERROR(k.descriptorLoad(d, {n}), "tile.descriptor_load",
                     "the descriptor is 2-D but 1 offset was given (one per "
                     "dimension, outermost first)");
}

TEST_F(Errors, DescriptorOfPointer) {
  EXPECT_BUILD_ERROR(k.descriptorLoad(fp, {n, n}), "tile.descriptor_load",
                     "expects a tensor descriptor (Kernel::tensorDesc), got ");
}

TEST_F(Errors, DescriptorStoreKind) {
  Value d = k.tensorDesc("d", DType::F32, {8, 8});
  Value i = k.zeros({8, 8}, DType::I32);
  EXPECT_BUILD_ERROR(k.descriptorStore(d, {n, n}, i), "tile.descriptor_store",
                     "into a descriptor of");
}

TEST_F(Errors, DescriptorAtomicAdd) {
  // The TMA adds f32, f16, bf16 and i32 only.
  Value d = k.tensorDesc("d", DType::I64, {8, 8});
  EXPECT_BUILD_ERROR(k.descriptorAtomicAdd(d, {n, n}, 1),
                     "tile.descriptor_store",
                     "adds into a descriptor of i64, which the TMA cannot "
                     "(reduce add needs i32 elements, got i64)");
}

TEST_F(Errors, DescriptorAtomicAddKind) {
  Value f = k.tensorDesc("f", DType::F32, {8, 8});
  Value i = k.zeros({8, 8}, DType::I32);
  EXPECT_BUILD_ERROR(k.descriptorAtomicAdd(f, {n, n}, i),
                     "tile.descriptor_store",
                     "adds i32 into a descriptor of f32");
}

TEST_F(Errors, GridAxis) {
  EXPECT_BUILD_ERROR(k.programId(3), "tile.program_id",
                     "grid axis must be 0, 1 or 2, got 3");
}

TEST_F(Errors, RangeBounds) {
  EXPECT_BUILD_ERROR(k.range(8, 8), "tile.range",
                     "end (8) must be greater than start (8)");
}

TEST_F(Errors, RangeFitsI32) {
  EXPECT_BUILD_ERROR(k.range(int64_t(1) << 33), "tile.range",
                     "bounds [0, 8589934592) do not fit in i32");
}

//--- Values -------------------------------------------------------------------

TEST_F(Errors, NullValueQuery) {
  EXPECT_BUILD_ERROR(Value().shape(), "Value::shape",
                     "the Value is null (default-constructed)");
}

TEST_F(Errors, NullOperand) {
  EXPECT_BUILD_ERROR(Value() + 1, "operator+",
                     "operand is a default-constructed (null) Value");
}

TEST_F(Errors, NullOperandOfKernel) {
  EXPECT_BUILD_ERROR(k.load(Value()), "tile.load",
                     "operand is a default-constructed (null) Value");
}

TEST_F(Errors, NumbersOnly) {
  EXPECT_BUILD_ERROR(maximum(1, 2), "maximum",
                     "needs at least one Value operand (all are numbers)");
}

TEST_F(Errors, OtherKernel) {
  Kernel other("other");
  EXPECT_BUILD_ERROR(
      other.load(fp), "tile.load",
      "operand belongs to kernel 'misuse', not to kernel 'other'");
}

TEST_F(Errors, ValueEscapesLoop) {
  Value inside;
  k.forLoop(0, n, 1, [&](Value i) { inside = i * 2; });
  EXPECT_BUILD_ERROR(inside + 1, "operator+",
                     "operand i32 was defined inside a forLoop body and cannot "
                     "be used outside it");
}

TEST_F(Errors, ValueEscapesWhile) {
  Value inside;
  k.whileLoop(
      {n}, [](std::vector<Value> c) { return c[0] > 0; },
      [&](std::vector<Value> c) {
        inside = c[0] - 1;
        return std::vector<Value>{inside};
      });
  EXPECT_BUILD_ERROR(inside * 2, "operator*",
                     "operand i32 was defined inside a whileLoop body and "
                     "cannot be used outside it");
}

TEST_F(Errors, ValueEscapesIf) {
  Value inside;
  k.ifThen(n > 0, [&] { inside = n + 1; });
  EXPECT_BUILD_ERROR(k.store(ip, inside), "tile.store",
                     "operand i32 was defined inside an ifThen/ifThenElse "
                     "branch and cannot be used outside it");
}

TEST_F(Errors, ValueEscapesCombiner) {
  Value inside;
  (void)k.reduce(f, 0, [&](Value a, Value b) { return inside = a + b; });
  EXPECT_BUILD_ERROR(inside + 1, "operator+",
                     "operand f32 was defined inside a reduce/scan combiner "
                     "and cannot be used outside it");
}

TEST_F(Errors, CombinerCapturesOuterValue) {
  EXPECT_BUILD_ERROR(
      k.reduce(f, 0, [&](Value a, Value b) { return a + b + f; }), "operator+",
      "a reduce/scan combiner may use only its arguments and numbers, not the "
      "outer value 64xf32");
}

TEST_F(Errors, UnusableAfterError) {
  EXPECT_THROW(k.programId(7), BuildError);
  EXPECT_BUILD_ERROR(k.range(4), "tile.range",
                     "kernel 'misuse' is unusable after an earlier error: ");
}

TEST_F(Errors, Broadcast) {
  EXPECT_BUILD_ERROR(h + r, "operator+",
                     "operands 64x32xf16 and 64xi32 do not broadcast");
}

TEST_F(Errors, NumberNotInteger) {
  EXPECT_BUILD_ERROR(
      k.full({4}, 1.5, DType::I32), "Kernel::full",
      "the number 1.500000 is not an integer and cannot be an i32");
}

TEST_F(Errors, NumberDoesNotFit) {
  EXPECT_BUILD_ERROR(k.zeros({4}, DType::I8) + 300, "operator+",
                     "the number 300 does not fit in i8");
}

TEST_F(Errors, NumberOverflows) {
  EXPECT_BUILD_ERROR(h * 70000.0, "operator*",
                     "the number 70000.000000 overflows f16");
}

TEST_F(Errors, ComputeOnPointers) {
  EXPECT_BUILD_ERROR(exp(fp) + 1, "exp",
                     "needs numbers, got pointers !tile.ptr<f32>");
}

TEST_F(Errors, PointerInPromotion) {
  EXPECT_BUILD_ERROR(fma(fp, 1.0, 1.0), "fma",
                     "cannot compute on pointers (!tile.ptr<f32>); pointers "
                     "only move by integer offsets (ptr + n)");
}

TEST_F(Errors, PointerMultiply) {
  EXPECT_BUILD_ERROR(
      fp * 2, "operator*",
      "cannot compute on pointers (!tile.ptr<f32> and 2); pointers only move "
      "by integer offsets (ptr + n, ptr - n)");
}

TEST_F(Errors, TwoPointers) {
  EXPECT_BUILD_ERROR(
      fp + ip, "operator+",
      "cannot combine two pointers (!tile.ptr<f32> and !tile.ptr<i32>)");
}

TEST_F(Errors, NumberMinusPointer) {
  EXPECT_BUILD_ERROR(
      1 - fp, "operator-",
      "cannot subtract a pointer from a number (1 and !tile.ptr<f32>)");
}

TEST_F(Errors, FloatOffsetNumber) {
  EXPECT_BUILD_ERROR(fp + 0.5, "operator+",
                     "pointer offset must be an integer, not 0.500000");
}

TEST_F(Errors, FloatOffsetTile) {
  EXPECT_BUILD_ERROR(fp + f, "operator+",
                     "pointer offset must be an integer, not 64xf32");
}

TEST_F(Errors, BitwiseOnFloats) {
  EXPECT_BUILD_ERROR(f & 1, "operator&",
                     "needs integer or i1 operands, got 64xf32 and 1");
}

TEST_F(Errors, UMulHiWidth) {
  EXPECT_BUILD_ERROR(umulhi(k.zeros({4}, DType::I16), 3), "umulhi",
                     "needs i32 or i64 operands, got 4xi16 and 3");
}

TEST_F(Errors, CdivOfFloats) {
  EXPECT_BUILD_ERROR(cdiv(f, 2), "cdiv",
                     "needs integer operands, got 64xf32 and 2");
}

TEST_F(Errors, UnaryOnPointer) {
  EXPECT_BUILD_ERROR(-fp, "operator-",
                     "cannot compute on pointers (!tile.ptr<f32>)");
}

TEST_F(Errors, NegateBool) {
  EXPECT_BUILD_ERROR(-(r < 3), "operator-",
                     "cannot negate i1 values; use operator! (logical not)");
}

TEST_F(Errors, NotOfFloat) {
  EXPECT_BUILD_ERROR(~f, "operator~",
                     "needs an integer or i1 operand, got 64xf32");
}

TEST_F(Errors, AbsOfPointer) {
  EXPECT_BUILD_ERROR(abs(fp), "abs",
                     "needs numbers, got pointers !tile.ptr<f32>");
}

TEST_F(Errors, FmaOfIntegers) {
  EXPECT_BUILD_ERROR(fma(r, r, 1), "fma",
                     "needs float operands, got 64xi32 and 64xi32 and 1");
}

TEST_F(Errors, WhereCondition) {
  EXPECT_BUILD_ERROR(where(f, 1.0, 2.0), "where",
                     "condition must be i1 (a comparison or mask), got 64xf32");
}

TEST_F(Errors, WherePointerBranches) {
  EXPECT_BUILD_ERROR(
      where(r < 2, fp, ip), "where",
      "cannot choose between 64xi1 and !tile.ptr<f32> and !tile.ptr<i32>; "
      "pointer branches must have one pointer type");
}

TEST_F(Errors, ConvertPointers) {
  EXPECT_BUILD_ERROR(fp.to(DType::F16), "Value::to",
                     "cannot convert pointers !tile.ptr<f32> to f16; use "
                     "bitcast to retype pointers");
}

TEST_F(Errors, BitcastWidth) {
  EXPECT_BUILD_ERROR(
      f.bitcast(DType::F16), "Value::bitcast",
      "bitcast from f32 to f16 changes the width (32 to 16 bits)");
}

TEST_F(Errors, Axis) {
  EXPECT_BUILD_ERROR(h.expandDims(4), "Value::expandDims",
                     "axis 4 is out of range for 64x32xf16 (rank 2)");
}

TEST_F(Errors, BroadcastTo) {
  EXPECT_BUILD_ERROR(r.broadcastTo({64, 32}), "Value::broadcastTo",
                     "cannot broadcast 64xi32 to 64x32 (trailing dimensions "
                     "must be equal or 1)");
}

TEST_F(Errors, ReshapeDims) {
  EXPECT_BUILD_ERROR(r.reshape({0, 64}), "Value::reshape",
                     "dimensions must be positive, got 0x64");
}

TEST_F(Errors, ReshapeCount) {
  EXPECT_BUILD_ERROR(
      r.reshape({8, 4}), "Value::reshape",
      "cannot reshape 64xi32 (64 elements) to 8x4 (32 elements)");
}

TEST_F(Errors, TransposeScalar) {
  EXPECT_BUILD_ERROR(n.trans(), "Value::trans",
                     "cannot transpose the scalar i32");
}

TEST_F(Errors, TransposeOrder) {
  EXPECT_BUILD_ERROR(
      h.trans({0, 0}), "Value::trans",
      "order [0, 0] is not a permutation of the 2 dimensions of 64x32xf16");
}

TEST_F(Errors, PaddingOfScalar) {
  EXPECT_BUILD_ERROR(n.maskedBy(r < 3), "Value::maskedBy",
                     "a scalar (i32) has no lanes to mark as padding");
}

TEST_F(Errors, PaddingMask) {
  EXPECT_BUILD_ERROR(
      f.maskedBy(r), "Value::maskedBy",
      "the mask 64xi32 must be an i1 tile that broadcasts to 64xf32");
}

TEST_F(Errors, PaddingCount) {
  EXPECT_BUILD_ERROR(f.maskedBy(r < 3, f), "Value::maskedBy",
                     "the count must be an integer scalar, got 64xf32");
}

TEST_F(Errors, JoinScalars) {
  EXPECT_BUILD_ERROR(join(n, n), "tile.join", "needs tiles, got i32 and i32");
}

TEST_F(Errors, Split) {
  EXPECT_BUILD_ERROR(
      split(h), "tile.split",
      "needs a tile of rank >= 2 whose minor dimension is 2, got 64x32xf16");
}

//--- Constants and memory -----------------------------------------------------

TEST_F(Errors, FullShape) {
  EXPECT_BUILD_ERROR(k.zeros({4, -1}, DType::F32), "Kernel::full",
                     "dimensions must be positive, got 4x-1");
}

TEST_F(Errors, FullValue) {
  EXPECT_BUILD_ERROR(
      k.full({4}, f, DType::F32), "Kernel::full",
      "the fill value must be a number or a numeric scalar, got 64xf32");
}

TEST_F(Errors, LoadNonPointer) {
  EXPECT_BUILD_ERROR(k.load(f), "tile.load",
                     "expected a pointer or a tile of pointers, got 64xf32");
}

TEST_F(Errors, MaskType) {
  EXPECT_BUILD_ERROR(k.load(fp + r, r), "tile.load",
                     "the mask must be i1 (a comparison), got 64xi32");
}

TEST_F(Errors, OtherWithoutMask) {
  EXPECT_BUILD_ERROR(k.load(fp + r, {}, 0.0), "tile.load",
                     "'other' needs a mask");
}

TEST_F(Errors, MemoryBroadcast) {
  EXPECT_BUILD_ERROR(k.load(fp + r, k.range(32) < 3), "tile.load",
                     "pointers, mask and values (64x!tile.ptr<f32>, 32xi1) do "
                     "not broadcast to one shape");
}

TEST_F(Errors, StoreAcrossKinds) {
  EXPECT_BUILD_ERROR(k.store(ip + r, f), "tile.store",
                     "value 64xf32 does not convert implicitly to the pointee "
                     "of 64x!tile.ptr<i32>; convert it with Value::to first");
}

TEST_F(Errors, OtherAcrossKinds) {
  EXPECT_BUILD_ERROR(k.load(ip + r, r < 3, f), "tile.load",
                     "other 64xf32 does not convert implicitly to the pointee "
                     "of 64x!tile.ptr<i32>");
}

TEST_F(Errors, CompareValueAcrossKinds) {
  EXPECT_BUILD_ERROR(k.atomicCAS(ip, f, 1), "tile.atomic_cas",
                     "compare value 64xf32 does not convert implicitly to the "
                     "pointee of 64x!tile.ptr<i32>");
}

TEST_F(Errors, AtomicKindAndType) {
  EXPECT_BUILD_ERROR(
      k.atomic(AtomicKind::bitAnd, fp, 1.0), "tile.atomic_rmw",
      "'tile.atomic_rmw' op atomic 'and' does not support element type 'f32'");
}

TEST_F(Errors, CasWidth) {
  Value bp = k.pointer("bp", DType::I8);
  EXPECT_BUILD_ERROR(k.atomicCAS(bp, 0, 1), "tile.atomic_cas",
                     "'tile.atomic_cas' op compare-and-swap needs 16, 32 or "
                     "64-bit elements, not 'i8'");
}

//--- Dot ----------------------------------------------------------------------

TEST_F(Errors, DotRank) {
  EXPECT_BUILD_ERROR(k.dot(f, h), "tile.dot",
                     "operands must be 2-D tiles, got 64xf32 * 64x32xf16");
}

TEST_F(Errors, DotInner) {
  EXPECT_BUILD_ERROR(
      k.dot(k.zeros({64, 32}, DType::F16), k.zeros({16, 64}, DType::F16)),
      "tile.dot", "inner dimensions differ: 64x32xf16 * 16x64xf16");
}

TEST_F(Errors, DotTypes) {
  EXPECT_BUILD_ERROR(k.dot(h, k.zeros({32, 16}, DType::BF16)), "tile.dot",
                     "operand element types differ: 64x32xf16 * 32x16xbf16; "
                     "convert one with Value::to");
}

TEST_F(Errors, DotAccumulatorShape) {
  EXPECT_BUILD_ERROR(
      k.dot(h, h.trans(), k.zeros({32, 32}, DType::F32)), "tile.dot",
      "accumulator 32x32xf32 must be 64x64 for 64x32xf16 * 32x64xf16");
}

TEST_F(Errors, DotOperandType) {
  Value a = k.zeros({16, 16}, DType::I32);
  EXPECT_BUILD_ERROR(k.dot(a, a), "tile.dot",
                     "'tile.dot' op operand element type 'i32' is not one of "
                     "f16, bf16, f32, f8E4M3FN, f8E5M2, i8");
}

TEST_F(Errors, DotAccumulatorType) {
  Value a = k.zeros({16, 16}, DType::BF16);
  EXPECT_BUILD_ERROR(k.dot(a, a, k.zeros({16, 16}, DType::BF16)), "tile.dot",
                     "'tile.dot' op accumulator element type 'bf16' cannot "
                     "accumulate 'bf16' products (use f32)");
}

//--- Reductions and scans -----------------------------------------------------

TEST_F(Errors, ReduceNothing) {
  EXPECT_BUILD_ERROR(
      k.reduce(std::vector<Value>{}, 0,
               [](std::vector<Value> a, std::vector<Value>) { return a; }),
      "tile.reduce", "needs at least one tile");
}

TEST_F(Errors, ReduceScalar) {
  EXPECT_BUILD_ERROR(k.reduce(n, 0, Combine::sum), "tile.reduce",
                     "needs tiles, got the scalar i32");
}

TEST_F(Errors, ReducePointers) {
  EXPECT_BUILD_ERROR(k.reduce(fp + r, 0, Combine::max), "tile.reduce",
                     "cannot combine pointers (64x!tile.ptr<f32>)");
}

TEST_F(Errors, ReduceShapes) {
  EXPECT_BUILD_ERROR(
      k.reduce({f, h}, 0,
               [](std::vector<Value> a, std::vector<Value>) { return a; }),
      "tile.reduce",
      "tiles combined together must have one shape, got 64xf32 and 64x32xf16");
}

TEST_F(Errors, ReduceAxis) {
  EXPECT_BUILD_ERROR(k.scan(h, 2, Combine::sum), "tile.scan",
                     "axis 2 is out of range for 64x32xf16 (rank 2)");
}

TEST_F(Errors, BitwiseCombineOnFloats) {
  EXPECT_BUILD_ERROR(k.reduce(f, 0, Combine::bitXor), "tile.reduce",
                     "Combine::bitXor needs integer or i1 tiles, got 64xf32");
}

TEST_F(Errors, SumOfBools) {
  EXPECT_BUILD_ERROR(
      k.reduce(r < 3, 0, Combine::sum), "tile.reduce",
      "Combine::sum on i1 tiles would wrap; convert them with .to(i32) first");
}

TEST_F(Errors, CombinerArity) {
  EXPECT_BUILD_ERROR(k.reduce({f, f}, 0,
                              [](std::vector<Value> a, std::vector<Value>) {
                                return std::vector<Value>{a[0]};
                              }),
                     "tile.reduce",
                     "the combiner returns 1 value(s), 2 expected");
}

TEST_F(Errors, CombinerType) {
  EXPECT_BUILD_ERROR(
      k.reduce(f, 0, [](Value a, Value b) { return (a + b).to(DType::F16); }),
      "tile.reduce", "the combiner result #0 is f16 but must be f32");
}

//--- Control flow -------------------------------------------------------------

TEST_F(Errors, LoopBoundType) {
  EXPECT_BUILD_ERROR(k.forLoop(0, f, 1, [](Value) {}), "scf.for",
                     "the upper bound must be an integer scalar, got 64xf32");
}

TEST_F(Errors, LoopBoundNumber) {
  EXPECT_BUILD_ERROR(k.forLoop(0.5, n, 1, [](Value) {}), "scf.for",
                     "the lower bound must be an integer");
}

TEST_F(Errors, LoopStep) {
  EXPECT_BUILD_ERROR(k.forLoop(0, n, 0, [](Value) {}), "scf.for",
                     "the step must be positive, got 0");
}

TEST_F(Errors, LoopCarriedType) {
  EXPECT_BUILD_ERROR(
      k.forLoop(0, n, 1, f,
                [](Value, Value acc) { return acc.to(DType::F16); }),
      "scf.for", "the loop body result #0 is 64xf16 but must be 64xf32");
}

TEST_F(Errors, LoopCarriedCount) {
  EXPECT_BUILD_ERROR(k.forLoop(0, n, 1, {f, f},
                               [](Value, std::vector<Value> c) {
                                 return std::vector<Value>{c[0]};
                               }),
                     "scf.for", "the loop body returns 1 value(s), 2 expected");
}

TEST_F(Errors, WhileCondition) {
  EXPECT_BUILD_ERROR(k.whileLoop(
                         {n}, [](std::vector<Value> c) { return c[0]; },
                         [](std::vector<Value> c) { return c; }),
                     "scf.while", "the condition must be a scalar i1, got i32");
}

TEST_F(Errors, IfTileCondition) {
  EXPECT_BUILD_ERROR(k.ifThen(r < 3, [] {}), "scf.if",
                     "the condition must be a scalar i1, got 64xi1; choose "
                     "between tiles with where()");
}

TEST_F(Errors, IfBranchTypes) {
  EXPECT_BUILD_ERROR(k.ifThenElse(
                         n > 0, [&] { return n; }, [&] { return f; }),
                     "scf.if",
                     "the else branch result #0 is 64xf32 but must be i32");
}

TEST_F(Errors, AssertCondition) {
  EXPECT_BUILD_ERROR(k.deviceAssert(r, "r"), "tile.assert",
                     "the condition must be i1 (a comparison), got 64xi32");
}

TEST_F(Errors, ForeignExceptionInBody) {
  EXPECT_THROW(
      k.forLoop(0, n, 1, [](Value) { throw std::runtime_error("user"); }),
      std::runtime_error);
  EXPECT_BUILD_ERROR(k.range(4), "tile.range",
                     "unusable after an earlier error: an exception escaped "
                     "the body of a loop, if or combiner");
}

TEST_F(Errors, VerifierFailureLeavesNoOp) {
  mlir::ModuleOp m = k.module();
  // The dialect's verifier rejects this op after it is built: it is erased.
  EXPECT_THROW(k.atomic(AtomicKind::bitOr, fp, 1.0), BuildError);
  EXPECT_EQ(countOps<mlir::tile::AtomicRMWOp>(m), 0);
  EXPECT_TRUE(mlir::succeeded(mlir::verify(m.getOperation())));
}

TEST_F(Errors, ModuleVerifierDiagnosticAtTheBuildingLine) {
  unsigned line = __LINE__ + 1;
  Value r2 = k.range(16);
  (void)r2;
  mlir::ModuleOp m = k.module();
  // Break the op behind the builder's back: the module verifier's
  // diagnostic comes back as a BuildError at the line that built the op.
  m.walk([&](mlir::tile::RangeOp op) {
    if (lineOf(op) == line)
      op.setEnd(0);
  });
  try {
    (void)k.str();
    ADD_FAILURE() << "no BuildError";
  } catch (const BuildError &e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.op(), "Kernel::str");
    EXPECT_NE(e.message().find("'tile.range' op end (0) must be greater "
                               "than start (0)"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(Errors, NothingReachesThePipelineAfterAnError) {
  // A body left unfinished by an error: the kernel refuses to print or
  // compile it.
  EXPECT_THROW(k.forLoop(0, n, 1, [&](Value) { (void)k.dot(f, f); }),
               BuildError);
  EXPECT_BUILD_ERROR(k.compile(), "Kernel::compile",
                     "unusable after an earlier error");
  EXPECT_BUILD_ERROR(k.str(), "Kernel::str", "unusable after an earlier error");
}

//--- The op library -----------------------------------------------------------

TEST_F(Errors, OpsNullInput) {
  EXPECT_BUILD_ERROR(ops::relu(Value()), "relu",
                     "the input is a default-constructed (null) Value");
}

TEST_F(Errors, OpsPointerInput) {
  EXPECT_BUILD_ERROR(ops::relu(fp), "relu",
                     "needs a tile of numbers, got !tile.ptr<f32>");
}

TEST_F(Errors, ReluOfBools) {
  EXPECT_BUILD_ERROR(ops::relu(r < 3), "relu",
                     "is not defined for i1 tiles (64xi1)");
}

TEST_F(Errors, GeluApproximate) {
  EXPECT_BUILD_ERROR(ops::gelu(f, "fast"), "gelu",
                     "approximate must be \"none\" or \"tanh\", got \"fast\"");
}

TEST_F(Errors, GeluOfIntegers) {
  EXPECT_BUILD_ERROR(ops::gelu(r), "gelu",
                     "needs a floating-point tile, got 64xi32");
}

TEST_F(Errors, SiluOfIntegers) {
  EXPECT_BUILD_ERROR(ops::silu(r), "silu",
                     "needs a floating-point tile, got 64xi32");
}

TEST_F(Errors, SoftplusOfIntegers) {
  EXPECT_BUILD_ERROR(ops::softplus(r), "softplus",
                     "needs a floating-point tile, got 64xi32");
}

TEST_F(Errors, ClampWithoutBounds) {
  EXPECT_BUILD_ERROR(ops::clamp(f, std::nullopt), "clamp",
                     "at least one of min and max must be given");
}

TEST_F(Errors, ReductionNullInput) {
  EXPECT_BUILD_ERROR(ops::sum(Value(), 0), "sum",
                     "the input is a default-constructed (null) Value");
}

TEST_F(Errors, ReductionOfScalar) {
  EXPECT_BUILD_ERROR(ops::max(n, 0), "max", "needs a tile, got the scalar i32");
}

TEST_F(Errors, ReductionDim) {
  EXPECT_BUILD_ERROR(ops::softmax(h, 2), "softmax",
                     "dim 2 is out of range for 64x32xf16 (rank 2)");
}

TEST_F(Errors, ReductionOfPointers) {
  EXPECT_BUILD_ERROR(ops::sum(fp + r, 0), "sum",
                     "needs a tile of numbers, got 64x!tile.ptr<f32>");
}

TEST_F(Errors, MeanOfIntegers) {
  EXPECT_BUILD_ERROR(ops::mean(r, 0), "mean",
                     "needs a floating-point tile (as torch.mean), got 64xi32");
}

TEST_F(Errors, LayerNormNullInput) {
  EXPECT_BUILD_ERROR(ops::layer_norm(Value()), "layer_norm",
                     "the input is a default-constructed (null) Value");
}

TEST_F(Errors, VarOfIntegers) {
  EXPECT_BUILD_ERROR(ops::var(r, 0), "var",
                     "needs a floating-point tile (as torch.var), got 64xi32");
}

TEST_F(Errors, OpsErrorInsideBuilderCallNamesBoth) {
  EXPECT_BUILD_ERROR(ops::layer_norm(h, k.zeros({16}, DType::F16)),
                     "layer_norm: operator*", "do not broadcast");
}

TEST_F(Errors, SeedType) {
  EXPECT_BUILD_ERROR(ops::rand(k.scalar("s", DType::F32), r), "rand: philox",
                     "the seed must be an i32 or i64 scalar, got f32");
}

TEST_F(Errors, SeedNull) {
  EXPECT_BUILD_ERROR(ops::rand(Value(), r), "rand: philox",
                     "the seed is a default-constructed (null) Value");
}

TEST_F(Errors, SeedNumber) {
  EXPECT_BUILD_ERROR(ops::rand(1.5, r), "rand: philox",
                     "the seed must be an integer");
}

TEST_F(Errors, OffsetsType) {
  EXPECT_BUILD_ERROR(
      ops::rand(7, f), "rand: philox",
      "offsets must be an i32 tile (or a narrower integer), got 64xf32");
}

TEST_F(Errors, OffsetsNull) {
  EXPECT_BUILD_ERROR(ops::randint(7, Value()), "randint: philox",
                     "offsets is a default-constructed (null) Value");
}

TEST_F(Errors, DropoutProbability) {
  EXPECT_BUILD_ERROR(
      ops::dropout(f, 1.5, 7, r), "dropout",
      "dropout probability has to be between 0 and 1, but got 1.5");
}

TEST_F(Errors, DropoutNull) {
  EXPECT_BUILD_ERROR(ops::dropout(Value(), 0.5, 7, r), "dropout",
                     "the input is a default-constructed (null) Value");
}

//--- Kernel generators --------------------------------------------------------

using Generators = ::testing::Test;

TEST_F(Generators, ArgKind) {
  EXPECT_BUILD_ERROR(
      ops::pointwiseKernel("p", {ops::columnInput("w", DType::F32)}, {},
                           [](ops::Block &) {}),
      "pointwiseKernel",
      "argument 'w' is a columnInput, which pointwiseKernel does not take");
}

TEST_F(Generators, BlockSize) {
  EXPECT_BUILD_ERROR(
      ops::pointwiseKernel("p", {}, {.blockSize = 100}, [](ops::Block &) {}),
      "pointwiseKernel", "blockSize must be a positive power of two, got 100");
}

TEST_F(Generators, BlockCols) {
  // Any positive count (3072, 5000); not 0.
  EXPECT_BUILD_ERROR(
      ops::rowwiseKernel("r", {}, {.blockCols = 0}, [](ops::Block &) {}),
      "rowwiseKernel", "blockCols must be positive, got 0");
}

/// Thrown by test bodies to stop a generator once they have checked an error.
struct Stop {};

/// Builds a pointwise (or rowwise, with `rows`) kernel whose body runs
/// `check`, then stops it.
template <typename Check>
void inBody(const std::vector<ops::Arg> &args, Check check,
            int rowsPerProgram = 0) {
  auto body = [&](ops::Block &b) {
    check(b);
    throw Stop();
  };
  if (rowsPerProgram)
    EXPECT_THROW(ops::rowwiseKernel(
                     "r", args,
                     {.blockCols = 64, .rowsPerProgram = rowsPerProgram}, body),
                 Stop);
  else
    EXPECT_THROW(ops::pointwiseKernel("p", args, {}, body), Stop);
}

TEST_F(Generators, UnknownName) {
  inBody({ops::input("x", DType::F32)}, [](ops::Block &b) {
    EXPECT_BUILD_ERROR(b["z"], "Block",
                       "no argument named 'z' (arguments: x, n)");
  });
}

TEST_F(Generators, ReadOutput) {
  inBody({ops::output("y", DType::F32)}, [](ops::Block &b) {
    EXPECT_BUILD_ERROR(b["y"], "Block",
                       "'y' is an output; write it with Block::store");
  });
}

TEST_F(Generators, StoreUnknown) {
  inBody({}, [](ops::Block &b) {
    EXPECT_BUILD_ERROR(b.store("q", 1), "Block::store",
                       "no output named 'q' (arguments: n)");
  });
}

TEST_F(Generators, StoreInput) {
  inBody({ops::input("x", DType::F32)}, [](ops::Block &b) {
    EXPECT_BUILD_ERROR(b.store("x", b["x"]), "Block::store",
                       "'x' is an input, not an output");
  });
}

TEST_F(Generators, StoreTwice) {
  inBody({ops::output("y", DType::F32)}, [](ops::Block &b) {
    b.store("y", 1.0);
    EXPECT_BUILD_ERROR(b.store("y", 2.0), "Block::store",
                       "output 'y' is already written");
  });
}

TEST_F(Generators, StoreConversionNamesBoth) {
  inBody({ops::input("x", DType::F32), ops::output("y", DType::I32)},
         [](ops::Block &b) {
           EXPECT_BUILD_ERROR(b.store("y", b["x"]), "Block::store: tile.store",
                              "value 1024xf32 does not convert implicitly");
         });
}

TEST_F(Generators, NoRows) {
  inBody({}, [](ops::Block &b) {
    EXPECT_BUILD_ERROR(b.rows(), "Block::rows",
                       "a pointwiseKernel block has no rows; use index()");
  });
}

TEST_F(Generators, NoCols) {
  inBody({}, [](ops::Block &b) {
    EXPECT_BUILD_ERROR(b.cols(), "Block::cols",
                       "a pointwiseKernel block has no columns; use index()");
  });
}

TEST_F(Generators, RowOutputOfOneRow) {
  inBody(
      {ops::input("x", DType::F32), ops::rowOutput("m", DType::F32)},
      [](ops::Block &b) {
        EXPECT_BUILD_ERROR(b.store("m", b["x"]), "Block::store",
                           "row output 'm' takes one value per row (a scalar "
                           "or a 1-element tile here), got 64xf32");
      },
      /*rowsPerProgram=*/1);
}

TEST_F(Generators, RowOutputOfRows) {
  inBody(
      {ops::input("x", DType::F32), ops::rowOutput("m", DType::F32)},
      [](ops::Block &b) {
        EXPECT_BUILD_ERROR(b.store("m", b["x"]), "Block::store",
                           "row output 'm' takes one value per row (4 or 4x1 "
                           "here), got 4x64xf32");
      },
      /*rowsPerProgram=*/4);
}

TEST_F(Generators, BodyErrorsPointIntoTheBody) {
  // The body's own line, not the generator's.
  inBody({ops::input("x", DType::F32)}, [](ops::Block &b) {
    EXPECT_BUILD_ERROR(ops::mean(b["x"].to(DType::I32), 0), "mean",
                       "needs a floating-point tile");
  });
}

TEST_F(Generators, NeverWritten) {
  EXPECT_BUILD_ERROR(ops::pointwiseKernel("p", {ops::output("y", DType::F32)},
                                          {}, [](ops::Block &) {}),
                     "pointwiseKernel", "output 'y' is never written");
}

TEST_F(Generators, NeverUsed) {
  EXPECT_BUILD_ERROR(
      ops::rowwiseKernel(
          "r", {ops::input("x", DType::F32), ops::scalar("eps", DType::F32)},
          {}, [](ops::Block &b) { (void)b["x"]; }),
      "rowwiseKernel", "argument 'eps' is declared but never used");
}

TEST_F(Generators, MatmulTypes) {
  EXPECT_BUILD_ERROR(
      ops::matmulKernel("m", {.aType = DType::F16, .bType = DType::BF16}, {},
                        [](Value acc, ops::Block &) { return acc; }),
      "matmulKernel", "aType and bType differ (f16 and bf16)");
}

TEST_F(Generators, MatmulGroup) {
  EXPECT_BUILD_ERROR(
      ops::matmulKernel("m", {.groupM = 0}, {},
                        [](Value acc, ops::Block &) { return acc; }),
      "matmulKernel", "groupM must be at least 1, got 0");
}

TEST_F(Generators, MatmulClusters) {
  EXPECT_BUILD_ERROR(
      ops::matmulKernel("m", {.numCtas = 8}, {},
                        [](Value acc, ops::Block &) { return acc; }),
      "matmulKernel", "numCtas must be 1, 2 or 4, got 8");
  EXPECT_BUILD_ERROR(
      ops::matmulKernel("m", {.numCtas = 2}, {},
                        [](Value acc, ops::Block &) { return acc; }),
      "matmulKernel",
      "numCtas 2 shares B's blocks through tensor descriptors: it needs "
      "descriptors and no splitK");
}

TEST_F(Generators, MatmulFp8) {
  auto plain = [](Value acc, ops::Block &) { return acc; };
  EXPECT_BUILD_ERROR(
      ops::matmulKernel("m",
                        {.aType = DType::F8E4M3FN, .bType = DType::F8E4M3FN,
                         .descriptors = true},
                        {}, plain),
      "matmulKernel",
      "fp8 operands need descriptors and bTransposed: wgmma reads fp8 A and "
      "B K-major only, from the TMA's slots (B given as N x K, as "
      "torch._scaled_mm's b.t())");
  EXPECT_BUILD_ERROR(
      ops::matmulKernel("m",
                        {.aType = DType::F8E4M3FN, .bType = DType::F8E5M2,
                         .bTransposed = true},
                        {}, plain),
      "matmulKernel", "fp8 operands need descriptors and bTransposed");
  // fp8 formats mix; an fp8 and a 16-bit operand do not.
  EXPECT_BUILD_ERROR(
      ops::matmulKernel("m", {.aType = DType::F8E4M3FN, .bType = DType::BF16},
                        {}, plain),
      "matmulKernel", "aType and bType differ (f8E4M3FN and bf16)");
}

TEST_F(Generators, MatmulUnknownTarget) {
  EXPECT_BUILD_ERROR(
      ops::matmulKernel("m", {.target = "sm_75"}, {},
                        [](Value acc, ops::Block &) { return acc; }),
      "matmulKernel", "target: unknown GPU target 'sm_75'");
}

// The target's default tile: wgmma's 128x256 (K step 32) on sm_90a, the
// mma.sync tile 128x128 (K step 64) elsewhere; a tile the config gives
// wins dimension by dimension.
TEST_F(Generators, MatmulDefaultTile) {
  ops::MatmulTile h = ops::defaultMatmulTile("sm_90a");
  EXPECT_EQ(h.m, 128);
  EXPECT_EQ(h.n, 256);
  EXPECT_EQ(h.k, 32);
  ops::MatmulTile d = ops::defaultMatmulTile("");
  EXPECT_EQ(d.m, 128);
  EXPECT_EQ(d.n, 128);
  EXPECT_EQ(d.k, 64);
  auto identity = [](Value acc, ops::Block &) { return acc; };
  std::string hopper =
      ops::matmulKernel("m", {.target = "sm_90a"}, {}, identity).str();
  EXPECT_NE(hopper.find("tensor<128x32xbf16>, tensor<32x256xbf16> -> "
                        "tensor<128x256xf32>"),
            std::string::npos)
      << hopper;
  std::string mixed =
      ops::matmulKernel("m", {.blockN = 64, .target = "sm_90a"}, {}, identity)
          .str();
  EXPECT_NE(mixed.find("tensor<128x32xbf16>, tensor<32x64xbf16> -> "
                       "tensor<128x64xf32>"),
            std::string::npos)
      << mixed;
  EXPECT_BUILD_ERROR(ops::defaultMatmulTile("sm_1"), "defaultMatmulTile",
                     "target: unknown GPU target 'sm_1'");
}

TEST_F(Generators, MatmulNullEpilogue) {
  EXPECT_BUILD_ERROR(
      ops::matmulKernel("m", {}, {},
                        [](Value, ops::Block &) { return Value(); }),
      "matmulKernel", "the epilogue returned a null Value");
}

TEST_F(Generators, AttentionDType) {
  EXPECT_BUILD_ERROR(
      ops::attentionKernel("a", {.dtype = DType::F32}),
      "attentionKernel",
      "dtype must be bf16 or f16 (the tensor cores' 16-bit types), got f32");
}

TEST_F(Generators, AttentionBlocks) {
  EXPECT_BUILD_ERROR(ops::attentionKernel("a", {.headDim = 48}),
                     "attentionKernel",
                     "headDim must be a power of two of at least 16, got 48");
  EXPECT_BUILD_ERROR(
      ops::attentionKernel("a", {.blockM = 64, .blockN = 128}),
      "attentionKernel",
      "blockM (64) must be a multiple of blockN (128): a causal program's "
      "diagonal starts at a key block");
  EXPECT_BUILD_ERROR(ops::attentionKernel("a", {.numWarps = 8,
                                                .descriptors = false,
                                                .pingpong = true}),
                     "attentionKernel",
                     "pingpong needs descriptors and numWarps = 8 (two "
                     "consumer warpgroups take turns)");
  EXPECT_BUILD_ERROR(ops::attentionKernel("a", {.overlapSoftmax = true}),
                     "attentionKernel",
                     "overlapSoftmax needs descriptors (the previous block's "
                     "V is read at a negative offset first, which a "
                     "descriptor reads as zeros)");
  EXPECT_BUILD_ERROR(ops::attentionKernel("a", {.descriptors = true,
                                                .rescaleFirst = true}),
                     "attentionKernel",
                     "rescaleFirst needs overlapSoftmax (it orders the "
                     "overlapped step)");
}

TEST_F(Generators, AttentionBackwardConfig) {
  EXPECT_BUILD_ERROR(ops::attentionBwdDkDvKernel("a", {.dtype = DType::F32}),
                     "attentionBwdDkDvKernel",
                     "dtype must be bf16 or f16 (the tensor cores' 16-bit "
                     "types), got f32");
  EXPECT_BUILD_ERROR(ops::attentionBwdDqKernel("a", {.headDim = 96}),
                     "attentionBwdDqKernel",
                     "headDim must be a power of two of at least 16, got 96");
  EXPECT_BUILD_ERROR(
      ops::attentionBwdPreprocessKernel("a", {.blockM = 32, .blockN = 64}),
      "attentionBwdPreprocessKernel",
      "blockM (32) must be a multiple of blockN (64)");
  // The dK/dV kernel takes any blocks, unless it stores dS for the dQ
  // kernel's blocks to read.
  EXPECT_BUILD_ERROR(ops::attentionBwdDkDvKernel(
                         "a", {.blockM = 32, .blockN = 64, .storeDs = true}),
                     "attentionBwdDkDvKernel",
                     "blockM (32) must be a multiple of blockN (64)");
  EXPECT_BUILD_ERROR(ops::attentionBwdDkDvKernel(
                         "a", {.storeDs = true, .descriptors = true}),
                     "attentionBwdDkDvKernel",
                     "the store-dS variant reads q, k, v and do through "
                     "pointers: descriptors and storeDs do not go together");
  EXPECT_BUILD_ERROR(ops::attentionBwdDkDvKernel(
                         "a", {.storeDs = true, .dqAtomic = true}),
                     "attentionBwdDkDvKernel",
                     "storeDs writes dS for a dQ kernel and dqAtomic adds dQ "
                     "itself: choose one");
  EXPECT_BUILD_ERROR(ops::attentionBwdDkDvKernel(
                         "a", {.dqAtomic = true, .dqReduce = true}),
                     "attentionBwdDkDvKernel",
                     "dqReduce adds dQ through a tensor descriptor: it needs "
                     "dqAtomic and descriptors");
}

TEST_F(Generators, SdpaShapes) {
  using ops::TensorSpec;
  const DType bf = DType::BF16;
  TensorSpec q{bf, {2, 8, 100, 64}}, kv{bf, {2, 2, 100, 64}};
  EXPECT_BUILD_ERROR(
      ops::scaled_dot_product_attention({bf, {8, 100, 64}}, kv, kv),
      "scaled_dot_product_attention",
      "q must be [batch, heads, seq, head_dim], got [8, 100, 64]");
  EXPECT_BUILD_ERROR(
      ops::scaled_dot_product_attention(q, kv, {bf, {2, 2, 100, 32}}),
      "scaled_dot_product_attention",
      "k [2, 2, 100, 64] and v [2, 2, 100, 32] must have the same shape");
  EXPECT_BUILD_ERROR(
      ops::scaled_dot_product_attention(q, {bf, {2, 2, 100, 32}},
                                        {bf, {2, 2, 100, 32}}),
      "scaled_dot_product_attention",
      "k's head_dim (32) must equal q's (64)");
  EXPECT_BUILD_ERROR(
      ops::scaled_dot_product_attention(q, {bf, {1, 2, 100, 64}},
                                        {bf, {1, 2, 100, 64}}),
      "scaled_dot_product_attention", "k's batch (1) must equal q's (2)");
  EXPECT_BUILD_ERROR(
      ops::scaled_dot_product_attention(q, {bf, {2, 2, 50, 64}},
                                        {bf, {2, 2, 50, 64}}),
      "scaled_dot_product_attention",
      "k's seq (50) must equal q's (100): the kernels take one sequence "
      "length");
  EXPECT_BUILD_ERROR(
      ops::scaled_dot_product_attention(q, {bf, {2, 3, 100, 64}},
                                        {bf, {2, 3, 100, 64}}),
      "scaled_dot_product_attention",
      "q's heads (8) must be a multiple of k's (3) for grouped-query "
      "attention");
  EXPECT_BUILD_ERROR(
      ops::scaled_dot_product_attention({bf, {2, 8, 100, 48}},
                                        {bf, {2, 2, 100, 48}},
                                        {bf, {2, 2, 100, 48}}),
      "scaled_dot_product_attention",
      "head_dim must be a power of two from 16 to 256, got 48");
  // Tensor descriptors: strides of 16 bytes, head_dim up to 128.
  EXPECT_BUILD_ERROR(
      ops::scaled_dot_product_attention(
          {bf, {2, 8, 100, 64}, {8 * 100 * 64, 100 * 64, 68, 1}}, kv, kv,
          {.descriptors = true}),
      "scaled_dot_product_attention",
      "q's stride 2 (68 elements) is not a multiple of 16 bytes, which a "
      "tensor descriptor needs");
  EXPECT_BUILD_ERROR(ops::scaled_dot_product_attention(
                         {bf, {2, 8, 100, 256}}, {bf, {2, 2, 100, 256}},
                         {bf, {2, 2, 100, 256}}, {.descriptors = true}),
                     "scaled_dot_product_attention",
                     "with descriptors head_dim is at most 128, got 256");
}

TEST_F(Generators, SdpaDTypesAndStrides) {
  using ops::TensorSpec;
  const DType bf = DType::BF16;
  TensorSpec q{bf, {2, 8, 100, 64}}, kv{bf, {2, 2, 100, 64}};
  EXPECT_BUILD_ERROR(
      ops::scaled_dot_product_attention({DType::F32, q.sizes}, kv, kv),
      "scaled_dot_product_attention", "q must be bf16 or f16, got f32");
  EXPECT_BUILD_ERROR(
      ops::scaled_dot_product_attention(q, kv, {DType::F16, kv.sizes}),
      "scaled_dot_product_attention",
      "v is f16 but q is bf16: all three must have one dtype");
  // [b, h, s, d] viewed from a [b, h, d, s] tensor: head_dim not contiguous.
  EXPECT_BUILD_ERROR(ops::scaled_dot_product_attention(
                         q, {bf, kv.sizes, {12800, 6400, 1, 100}}, kv),
                     "scaled_dot_product_attention",
                     "k's head_dim must be contiguous (stride 1), got "
                     "stride 100");
  EXPECT_BUILD_ERROR(
      ops::scaled_dot_product_attention(q, kv, {bf, kv.sizes, {1, 2}}),
      "scaled_dot_product_attention", "v has 2 strides for 4 dims");
}

TEST_F(Generators, ParamClash) {
  EXPECT_BUILD_ERROR(ops::pointwiseKernel("p", {ops::input("n", DType::F32)},
                                          {}, [](ops::Block &) {}),
                     "pointwiseKernel: Kernel::scalar",
                     "kernel 'p' already has a parameter named 'n'");
}

} // namespace
