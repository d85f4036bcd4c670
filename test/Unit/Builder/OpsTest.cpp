//===- OpsTest.cpp - the op library and its fused kernels -----------------===//
//
// Fusion (one kernel, each input read once, before and after the pipeline),
// the structure the numerics rules demand (masked reductions, f32
// accumulation, true counts), dtype rules, and Philox against Random123's
// known-answer vectors (the pipeline folds constant counters to constants).
// Numeric checks of whole kernels will run through the CPU interpreter.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "Kernels.h"

#include "tilec/Ops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <array>
#include <cmath>

using namespace tilec;
using namespace tilec::test;
namespace arith = mlir::arith;
namespace tile = mlir::tile;

namespace {

/// Checks: one kernel; each input parameter loaded exactly once and each
/// output stored exactly once, in the built module and after the pipeline.
void expectFused(const Kernel &k, const std::vector<std::string> &inputs,
                 const std::vector<std::string> &outputs) {
  auto check = [&](mlir::ModuleOp m, const char *when) {
    SCOPED_TRACE(when);
    EXPECT_EQ(countOps<mlir::func::FuncOp>(m), 1);
    EXPECT_EQ(countOps<mlir::func::CallOp>(m), 0);
    auto loads = accessesPerParam<tile::LoadOp>(m, k);
    auto stores = accessesPerParam<tile::StoreOp>(m, k);
    size_t loadCount = 0, storeCount = 0;
    for (const std::string &in : inputs) {
      EXPECT_EQ(loads[in], 1) << in;
      loadCount += loads[in];
    }
    for (const std::string &out : outputs) {
      EXPECT_EQ(stores[out], 1) << out;
      storeCount += stores[out];
    }
    // Nothing else touches memory: intermediates stay in registers.
    EXPECT_EQ(countOps<tile::LoadOp>(m), (int)loadCount);
    EXPECT_EQ(countOps<tile::StoreOp>(m), (int)storeCount);
  };
  check(k.module(), "built");
  check(*compiled(k), "compiled");
}

TEST(Fusion, Examples) {
  expectFused(examples::buildCosCos(), {"x"}, {"y"});
  expectFused(examples::buildBiasGelu(), {"x", "bias"}, {"y"});
  expectFused(examples::buildBiasGelu(2048, 1, DType::F16, true), {"x", "bias"},
              {"y"});
  expectFused(examples::buildSoftmax(), {"x"}, {"y"});
  expectFused(examples::buildScaledMaskedSoftmax(), {"x", "mask"}, {"y"});
  expectFused(examples::buildLayerNorm(), {"x", "w", "b"}, {"y"});
  expectFused(examples::buildResidualRmsNorm(), {"x", "residual", "w"},
              {"h", "y"});
}

TEST(Fusion, MatmulEpilogue) {
  Kernel k = examples::buildMatmulBiasGelu();
  mlir::ModuleOp m = k.module();
  auto loads = accessesPerParam<tile::LoadOp>(m, k);
  // A and B tiles are loaded once per K step, inside the one loop.
  EXPECT_EQ(loads["a"], 1);
  EXPECT_EQ(loads["b"], 1);
  EXPECT_EQ(loads["bias"], 1);
  EXPECT_EQ(accessesPerParam<tile::StoreOp>(m, k)["c"], 1);
  EXPECT_EQ(countOps<mlir::scf::ForOp>(m), 1);
  EXPECT_EQ(countOps<tile::DotOp>(m), 1);
  EXPECT_EQ(countOps<mlir::math::ErfOp>(m), 1);
  std::vector<std::string> names;
  for (const ParamInfo &p : k.params())
    names.push_back(p.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"a", "b", "c", "bias", "M", "N", "K",
                                      "stride_am", "stride_bk", "stride_cm"}));
}

/// A row function of six PyTorch operators on three inputs, written once as
/// one would in PyTorch.
TEST(Fusion, RowFunctionOfSeveralOps) {
  Kernel k = ops::rowwiseKernel(
      "block",
      {ops::input("x", DType::BF16), ops::input("residual", DType::BF16),
       ops::columnInput("w", DType::BF16), ops::output("y", DType::BF16),
       ops::scalar("scale", DType::F32)},
      {.blockCols = 1024, .rowsPerProgram = 2}, [](ops::Block &b) {
        Value h = b["x"] + b["residual"];
        Value n = ops::rms_norm(h, b["w"]);
        b.store("y", ops::softmax(ops::silu(n) * b["scale"], -1) + h);
      });
  expectFused(k, {"x", "residual", "w"}, {"y"});
  // Padding in both directions is separable: the reductions use the n_cols
  // count and no mask is reduced.
  mlir::ModuleOp m = k.module();
  int maskReductions = 0;
  m.walk([&](tile::ReduceOp op) {
    auto t = llvm::cast<mlir::RankedTensorType>(op.getSrcs()[0].getType());
    maskReductions += !t.getElementType().isF32();
  });
  EXPECT_EQ(maskReductions, 0);
}

TEST(Ops, GeneratorParameters) {
  auto names = [](const Kernel &k) {
    std::vector<std::string> out;
    for (const ParamInfo &p : k.params())
      out.push_back(p.name);
    return out;
  };
  EXPECT_EQ(names(examples::buildCosCos()),
            (std::vector<std::string>{"x", "y", "n"}));
  EXPECT_EQ(names(examples::buildResidualRmsNorm()),
            (std::vector<std::string>{"x", "residual", "w", "h", "y", "eps",
                                      "n_rows", "n_cols"}));
  std::vector<ParamInfo> p = examples::buildSoftmax().params();
  EXPECT_EQ(p[0].divisibility, 16);
  EXPECT_EQ(p.back().divisibility, 16); // n_cols, as configured
}

/// The f32 constant splat `c` of a select's false branch, if it is one.
static std::optional<double> selectFill(arith::SelectOp op) {
  auto cst = op.getFalseValue().getDefiningOp<arith::ConstantOp>();
  if (!cst)
    return std::nullopt;
  auto dense = llvm::dyn_cast<mlir::DenseFPElementsAttr>(cst.getValue());
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<llvm::APFloat>().convertToDouble();
}

TEST(Ops, SoftmaxExcludesPaddingAndIsStable) {
  Kernel k = examples::buildSoftmax();
  mlir::ModuleOp m = k.module();
  std::vector<double> fills;
  m.walk([&](arith::SelectOp op) {
    if (auto f = selectFill(op))
      fills.push_back(*f);
  });
  // -inf before the max, 0 before the sum.
  ASSERT_EQ(fills.size(), 2u);
  EXPECT_TRUE(std::isinf(fills[0]) && fills[0] < 0);
  EXPECT_EQ(fills[1], 0.0);
  EXPECT_EQ(countOps<tile::ReduceOp>(m), 2);
  EXPECT_EQ(countOps<arith::MaximumFOp>(m), 1); // NaN propagates, as torch
  // exp(x - max): the subtraction feeds the exp.
  m.walk([](mlir::math::ExpOp op) {
    EXPECT_TRUE(op.getOperand().getDefiningOp<arith::SubFOp>());
  });
}

TEST(Ops, MeansDivideByTheTrueCount) {
  // With the generator's count hint: the mean divides by n_cols.
  Kernel k = examples::buildLayerNorm();
  mlir::ModuleOp m = k.module();
  int fromParam = 0;
  m.walk([&](arith::SIToFPOp op) {
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(op.getIn()))
      fromParam += k.params()[arg.getArgNumber()].name == "n_cols";
  });
  EXPECT_GE(fromParam, 1);
  EXPECT_EQ(countOps<tile::ReduceOp>(m), 2); // sum, sum of squares

  // Without a hint (a plain masked load) the mask itself is counted.
  Kernel k2("mean");
  Value p = k2.pointer("p", DType::F16), n = k2.scalar("n", DType::I32);
  Value offs = k2.range(256);
  Value mu = ops::mean(k2.load(p + offs, offs < n), 0);
  EXPECT_EQ(mu.dtype(), DType::F16);
  mlir::ModuleOp m2 = k2.module();
  int intReductions = 0;
  m2.walk([&](tile::ReduceOp op) {
    auto t = llvm::cast<mlir::RankedTensorType>(op.getSrcs()[0].getType());
    intReductions += t.getElementType().isInteger(32);
  });
  EXPECT_EQ(intReductions, 1);
}

TEST(Ops, HalfReductionsAccumulateInF32) {
  Kernel k("half");
  Value x = k.zeros({8, 128}, DType::BF16);
  Value s = ops::sum(x, 1);
  EXPECT_EQ(s.dtype(), DType::BF16);
  EXPECT_EQ(s.shape(), std::vector<int64_t>{8});
  EXPECT_EQ(ops::mean(x, -1, /*keepdim=*/true).shape(),
            (std::vector<int64_t>{8, 1}));
  EXPECT_EQ(ops::var(x, 0).dtype(), DType::BF16);
  EXPECT_EQ(ops::sum(k.range(16), 0).dtype(), DType::I64);
  EXPECT_EQ(ops::sum(k.range(16) < 3, 0).dtype(), DType::I64);
  EXPECT_EQ(ops::max(x, 0).dtype(), DType::BF16); // exact: no upcast
  k.module().walk([](tile::ReduceOp op) {
    mlir::Type t = llvm::cast<mlir::RankedTensorType>(op.getSrcs()[0].getType())
                       .getElementType();
    // Sums run in f32 (or i64); the max compares bf16 exactly.
    EXPECT_TRUE(t.isF32() || t.isInteger(64) || t.isBF16());
    if (t.isBF16())
      EXPECT_TRUE(
          llvm::isa<arith::MaximumFOp>(op.getCombineOp().front().front()));
  });
}

TEST(Ops, ArgmaxReducesValuesAndIndices) {
  Kernel k("argmax");
  Value x = k.zeros({4, 64}, DType::F32);
  Value i = ops::argmax(x, 1);
  EXPECT_EQ(i.dtype(), DType::I32);
  EXPECT_EQ(i.shape(), std::vector<int64_t>{4});
  EXPECT_EQ(ops::argmin(x, 0, true).shape(), (std::vector<int64_t>{1, 64}));
  int pairs = 0;
  k.module().walk(
      [&](tile::ReduceOp op) { pairs += op.getSrcs().size() == 2; });
  EXPECT_EQ(pairs, 2);
}

TEST(Ops, ElementwiseDTypes) {
  Kernel k("dtypes");
  Value h = k.zeros({16}, DType::F16);
  Value i = k.range(16);
  EXPECT_EQ(ops::gelu(h).dtype(), DType::F16);
  EXPECT_EQ(ops::gelu(h, "tanh").dtype(), DType::F16);
  EXPECT_EQ(ops::silu(h).dtype(), DType::F16);
  EXPECT_EQ(ops::sigmoid(i).dtype(), DType::F32);
  EXPECT_EQ(ops::softplus(h).dtype(), DType::F16);
  EXPECT_EQ(ops::relu(i).dtype(), DType::I32);
  EXPECT_EQ(ops::div(i, 2).dtype(), DType::F32); // true division
  EXPECT_EQ(ops::div(h, 2).dtype(), DType::F16);
  EXPECT_EQ(ops::add(h, 1).dtype(), DType::F16);
  EXPECT_EQ(ops::clamp(h, 0.0, 6.0).dtype(), DType::F16);
  EXPECT_EQ(ops::clamp(i, std::nullopt, 3).dtype(), DType::I32);
  EXPECT_EQ(ops::neg(h).dtype(), DType::F16);
  EXPECT_EQ(ops::log_softmax(h, 0).dtype(), DType::F16);
  Value a = k.zeros({32, 16}, DType::F16);
  EXPECT_EQ(ops::matmul(a, a.trans()).dtype(), DType::F16);
  // GELU on f16 computes in f32: the erf sees f32.
  k.module().walk([](mlir::math::ErfOp op) {
    EXPECT_TRUE(llvm::cast<mlir::RankedTensorType>(op.getType())
                    .getElementType()
                    .isF32());
  });
}

TEST(Ops, Dropout) {
  Kernel k("dropout");
  Value x = k.zeros({64}, DType::F16);
  Value offs = k.range(64);
  EXPECT_TRUE(ops::dropout(x, 0.0, 1, offs).sameAs(x));
  EXPECT_TRUE(ops::dropout(x, 0.5, 1, offs, /*training=*/false).sameAs(x));
  EXPECT_EQ(ops::dropout(x, 1.0, 1, offs).dtype(), DType::F16);
  Value d = ops::dropout(x, 0.25, k.scalar("seed", DType::I64), offs);
  EXPECT_EQ(d.dtype(), DType::F16);
  // keep = rand > p; the kept lanes scale by 1 / (1 - p).
  int gt = 0;
  k.module().walk([&](arith::CmpFOp op) {
    gt += op.getPredicate() == arith::CmpFPredicate::OGT;
  });
  EXPECT_EQ(gt, 1);
  EXPECT_EQ(countOps<arith::MulUIExtendedOp>(k.module()), 20); // 10 rounds
}

/// The i32 constants a compiled kernel stores, in store order.
static std::vector<uint32_t> storedConstants(const Kernel &k) {
  std::vector<uint32_t> out;
  auto m = compiled(k);
  m->walk([&](tile::StoreOp op) {
    auto cst = op.getValue().getDefiningOp<arith::ConstantOp>();
    if (!cst) {
      ADD_FAILURE() << "stored value did not fold to a constant";
      return;
    }
    auto dense = llvm::cast<mlir::DenseIntElementsAttr>(cst.getValue());
    out.push_back((uint32_t)dense.getSplatValue<llvm::APInt>().getZExtValue());
  });
  return out;
}

/// Stores philox(seed, ctr) of constant counters and returns what folds.
static std::vector<uint32_t> philoxFolded(uint64_t seed,
                                          std::array<uint32_t, 4> ctr) {
  Kernel k("philox");
  Value out = k.pointer("out", DType::I32);
  auto word = [&](uint32_t v) { return k.full({4}, v, DType::I32); };
  std::vector<Value> r =
      ops::philox(seed, word(ctr[0]), word(ctr[1]), word(ctr[2]), word(ctr[3]));
  for (int i = 0; i < 4; ++i)
    k.store(out + i * 4 + k.range(4), r[i]);
  return storedConstants(k);
}

TEST(Ops, PhiloxMatchesRandom123KnownAnswers) {
  // Random123's kat_vectors for philox4x32_10: counter, key, result.
  EXPECT_EQ(
      philoxFolded(0, {0, 0, 0, 0}),
      (std::vector<uint32_t>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(
      philoxFolded(0xffffffffffffffffull,
                   {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}),
      (std::vector<uint32_t>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  // key = (0xa4093822, 0x299f31d0): the seed's low word first.
  EXPECT_EQ(
      philoxFolded(0x299f31d0a4093822ull,
                   {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}),
      (std::vector<uint32_t>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Ops, RandIsTritonsUniformOfRandint) {
  // rand(seed, 0) is Triton's uint_to_uniform_float of philox's first word:
  // bits 0x6627e8d5 (seed 0, offset 0) are non-negative, times 2^-31-ish.
  Kernel k("rand");
  Value out = k.pointer("out", DType::F32);
  Value u = ops::rand(0, k.zeros({4}, DType::I32));
  EXPECT_EQ(u.dtype(), DType::F32);
  k.store(out + k.range(4), u);
  auto m = compiled(k);
  float expected = (float)(int32_t)0x6627e8d5 * 4.6566127342e-10f;
  int found = 0;
  m->walk([&](tile::StoreOp op) {
    auto cst = op.getValue().getDefiningOp<arith::ConstantOp>();
    ASSERT_TRUE(cst);
    auto dense = llvm::cast<mlir::DenseFPElementsAttr>(cst.getValue());
    EXPECT_EQ(dense.getSplatValue<llvm::APFloat>().convertToFloat(), expected);
    ++found;
  });
  EXPECT_EQ(found, 1);
}

TEST(Ops, RandnAndRandintShapes) {
  Kernel k("randn");
  Value offs = k.range(128);
  EXPECT_EQ(ops::randn(k.scalar("seed", DType::I32), offs).dtype(), DType::F32);
  EXPECT_EQ(ops::randint(5, offs).shape(), std::vector<int64_t>{128});
  EXPECT_EQ(ops::randint4x(5, offs).size(), 4u);
}

TEST(Ops, OpsReportTheUsersLine) {
  Kernel k("lines");
  Value x = k.zeros({4, 64}, DType::F32);
  unsigned line = __LINE__ + 1;
  (void)ops::softmax(x, -1);
  int checked = 0;
  k.module().walk([&](mlir::Operation *op) {
    if (llvm::isa<tile::ReduceOp, mlir::math::ExpOp, arith::DivFOp>(op)) {
      EXPECT_EQ(lineOf(op), line) << op->getName().getStringRef().str();
      ++checked;
    }
  });
  EXPECT_EQ(checked, 4);
}

} // namespace
