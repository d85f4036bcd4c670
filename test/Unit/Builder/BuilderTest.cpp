//===- BuilderTest.cpp - kernels built through the core API ---------------===//
//
// What each API entry builds: ops, types, shapes, promotion and broadcasting,
// regions, locations, the printed text and its round trip through the parser.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "Kernels.h"

#include "tilec/InitAll.h"
#include "tilec/Ops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

using namespace tilec;
using namespace tilec::test;
namespace arith = mlir::arith;
namespace tile = mlir::tile;

namespace {

TEST(Builder, VectorAdd) {
  Kernel k = examples::buildAdd(1024);
  EXPECT_EQ(k.name(), "add");
  EXPECT_EQ(k.numWarps(), 4);
  std::vector<ParamInfo> params = k.params();
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[0].name, "x");
  EXPECT_TRUE(params[0].isPointer);
  EXPECT_EQ(params[0].dtype, DType::F32);
  EXPECT_EQ(params[0].divisibility, 16);
  EXPECT_EQ(params[3].name, "n");
  EXPECT_FALSE(params[3].isPointer);
  EXPECT_EQ(params[3].dtype, DType::I32);
  EXPECT_EQ(params[3].divisibility, 1);

  mlir::ModuleOp m = k.module();
  EXPECT_EQ(countOps<mlir::func::FuncOp>(m), 1);
  EXPECT_EQ(countOps<tile::ProgramIdOp>(m), 1);
  EXPECT_EQ(countOps<tile::RangeOp>(m), 1);
  EXPECT_EQ(countOps<arith::AddFOp>(m), 1);
  auto loads = accessesPerParam<tile::LoadOp>(m, k);
  EXPECT_EQ(loads["x"], 1);
  EXPECT_EQ(loads["y"], 1);
  EXPECT_EQ(accessesPerParam<tile::StoreOp>(m, k)["z"], 1);
  // Every access is masked by offs < n.
  m.walk([](tile::LoadOp op) { EXPECT_TRUE(op.getMask()); });

  std::string text = k.str();
  EXPECT_NE(text.find("func.func @add(%x: !tile.ptr<f32> {tile.divisibility = "
                      "16 : i32}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tile.kernel, tile.num_warps = 4 : i32"),
            std::string::npos);
  // markOutput and setShape: z is written and holds n elements.
  EXPECT_NE(text.find("%z: !tile.ptr<f32> {tile.divisibility = 16 : i32, "
                      "tile.output, tile.shape = [\"n\"]}"),
            std::string::npos)
      << text;
}

TEST(Builder, ReadsLikeTriton) {
  const int BLOCK = 256;
  Kernel k("coscos");
  Value xp = k.pointer("x", f32, 16), yp = k.pointer("y", f32, 16);
  Value n = k.scalar("n", i32);
  auto offs = k.programId(0) * BLOCK + k.range(BLOCK);
  auto x = k.load(xp + offs, offs < n, 0.f);
  k.store(yp + offs, cos(cos(x)), offs < n);
  mlir::ModuleOp m = k.module();
  EXPECT_EQ(countOps<mlir::math::CosOp>(m), 2);
  m.walk([](tile::LoadOp op) { EXPECT_TRUE(op.getOther()); });
  EXPECT_EQ(accessesPerParam<tile::StoreOp>(m, k)["y"], 1);
}

TEST(Builder, ValuesKnowTheirTypes) {
  Kernel k("types");
  Value p = k.pointer("p", DType::BF16);
  Value n = k.scalar("n", DType::I64);
  Value r = k.range(8, 24);
  EXPECT_TRUE(p.isPointer());
  EXPECT_EQ(p.dtype(), DType::BF16);
  EXPECT_EQ(p.typeStr(), "!tile.ptr<bf16>");
  EXPECT_EQ(n.rank(), 0);
  EXPECT_EQ(r.shape(), std::vector<int64_t>{16});
  EXPECT_EQ(r.dtype(), DType::I32);
  EXPECT_EQ((p + r).typeStr(), "16x!tile.ptr<bf16>");
  EXPECT_TRUE(Value().isNull());
  EXPECT_TRUE(p.kernel().module() == k.module());
}

TEST(Builder, ScalarsSplatAndTilesBroadcast) {
  Kernel k("bcast");
  Value rows = k.range(4).expandDims(1); // 4x1
  Value cols = k.range(8);               // 8
  Value sum = rows + cols;
  EXPECT_EQ(sum.shape(), (std::vector<int64_t>{4, 8}));
  Value scaled = sum * k.scalar("s", DType::I32);
  EXPECT_EQ(scaled.shape(), (std::vector<int64_t>{4, 8}));
  mlir::ModuleOp m = k.module();
  // cols gains a leading unit dimension, both then broadcast; s is splat.
  EXPECT_EQ(countOps<tile::ExpandDimsOp>(m), 2);
  EXPECT_EQ(countOps<tile::BroadcastOp>(m), 2);
  EXPECT_EQ(countOps<tile::SplatOp>(m), 1);
  EXPECT_EQ(k.range(4).broadcastTo({3, 4}).shape(),
            (std::vector<int64_t>{3, 4}));
  auto [a, b] = broadcast(k.range(2).expandDims(0), k.range(3).expandDims(1));
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(b.shape(), (std::vector<int64_t>{3, 2}));
}

TEST(Builder, PromotionFollowsPyTorch) {
  Kernel k("promote");
  Value i32t = k.range(16);
  Value f16t = k.zeros({16}, DType::F16);
  Value bf16t = k.zeros({16}, DType::BF16);
  Value f32t = k.zeros({16}, DType::F32);
  Value i8t = k.zeros({16}, DType::I8);
  Value boolt = i32t < 3;
  Value f32s = k.scalar("f", DType::F32);
  Value i64s = k.scalar("l", DType::I64);
  Value f16s = k.scalar("h", DType::F16);

  EXPECT_EQ((i32t + 1).dtype(), DType::I32);      // weak int number
  EXPECT_EQ((i32t * 1.5).dtype(), DType::F32);    // float number, int tile
  EXPECT_EQ((f16t * 2.0).dtype(), DType::F16);    // weak float number
  EXPECT_EQ((f16t + f32s).dtype(), DType::F16);   // tile beats scalar
  EXPECT_EQ((i32t + i64s).dtype(), DType::I32);   // same kind: tile wins
  EXPECT_EQ((i32t + f16s).dtype(), DType::F16);   // scalar of higher kind
  EXPECT_EQ((f16t + f32t).dtype(), DType::F32);   // wider float
  EXPECT_EQ((f16t + bf16t).dtype(), DType::F32);  // f16 with bf16
  EXPECT_EQ((i8t + i32t).dtype(), DType::I32);    // wider integer
  EXPECT_EQ((i32t + f16t).dtype(), DType::F16);   // float kind wins
  EXPECT_EQ((boolt + boolt).dtype(), DType::I32); // C++: bools add as ints
  EXPECT_EQ((boolt & true).dtype(), DType::I1);
  EXPECT_EQ((i32t < 2.5).dtype(), DType::I1);
  EXPECT_EQ(resultType({f16t, f32s, 1}), DType::F16);
  EXPECT_EQ(resultType({i32t, 2.0}), DType::F32);
}

TEST(Builder, IntegerDivisionIsCpp) {
  Kernel k("divs");
  Value i = k.range(8);
  (void)(i / 2);
  (void)(i % 3);
  (void)(i.to(DType::F32) % 3);
  mlir::ModuleOp m = k.module();
  EXPECT_EQ(countOps<arith::DivSIOp>(m), 1);
  EXPECT_EQ(countOps<arith::RemSIOp>(m), 1);
  EXPECT_EQ(countOps<arith::RemFOp>(m), 1);
}

TEST(Builder, ComparisonsPickPredicates) {
  Kernel k("cmp");
  Value f = k.zeros({4}, DType::F32);
  Value b = k.range(4) < 2;
  (void)(f < 1.0);
  (void)(f != 1.0);
  (void)(b < (k.range(4) > 1));
  std::vector<std::string> preds;
  k.module().walk([&](arith::CmpFOp op) {
    preds.push_back(arith::stringifyCmpFPredicate(op.getPredicate()).str());
  });
  k.module().walk([&](arith::CmpIOp op) {
    preds.push_back(arith::stringifyCmpIPredicate(op.getPredicate()).str());
  });
  // Ordered float compares, `!=` unordered (NaN != x), i1 compared unsigned.
  EXPECT_EQ(preds,
            (std::vector<std::string>{"olt", "une", "slt", "sgt", "ult"}));
}

TEST(Builder, CastsPickOps) {
  Kernel k("casts");
  Value f = k.zeros({4}, DType::F32);
  Value i = k.range(4);
  Value b = i < 2;
  EXPECT_EQ(f.to(DType::F16).dtype(), DType::F16);
  (void)f.to(DType::F16).to(DType::BF16); // same width: through f32
  (void)i.to(DType::F32);
  (void)b.to(DType::F32);
  (void)f.to(DType::I1);
  (void)i.to(DType::I1);
  (void)b.to(DType::I32);
  (void)i.to(DType::I64).to(DType::I8);
  EXPECT_EQ(f.bitcast(DType::I32).dtype(), DType::I32);
  Value p = k.pointer("p", DType::F32);
  EXPECT_EQ(p.bitcast(DType::I32).typeStr(), "!tile.ptr<i32>");
  mlir::ModuleOp m = k.module();
  // f32->f16 twice, then f16->bf16 through f32.
  EXPECT_EQ(countOps<arith::TruncFOp>(m), 3);
  EXPECT_EQ(countOps<arith::ExtFOp>(m), 1);
  EXPECT_EQ(countOps<arith::SIToFPOp>(m), 1);
  EXPECT_EQ(countOps<arith::UIToFPOp>(m), 1);
  EXPECT_EQ(countOps<arith::ExtUIOp>(m), 1);
  EXPECT_EQ(countOps<arith::ExtSIOp>(m), 1);
  EXPECT_EQ(countOps<arith::TruncIOp>(m), 1);
  EXPECT_EQ(countOps<arith::BitcastOp>(m), 1);
  EXPECT_EQ(countOps<tile::BitcastOp>(m), 1);
  EXPECT_EQ(countOps(m, "arith.cmpf"), 1);
  EXPECT_EQ(countOps(m, "arith.cmpi"), 2); // i < 2 and i != 0
}

TEST(Builder, PointerArithmetic) {
  Kernel k("ptrs");
  Value p = k.pointer("p", DType::F16);
  Value offs = k.range(32);
  Value a = p + offs;
  Value b = 2 + p;
  Value c = p - 1;
  EXPECT_EQ(a.typeStr(), "32x!tile.ptr<f16>");
  EXPECT_EQ(b.typeStr(), "!tile.ptr<f16>");
  EXPECT_EQ(c.typeStr(), "!tile.ptr<f16>");
  EXPECT_EQ((p + k.scalar("big", DType::I64)).typeStr(), "!tile.ptr<f16>");
  mlir::ModuleOp m = k.module();
  EXPECT_EQ(countOps<tile::AddPtrOp>(m), 4);
  EXPECT_EQ(countOps<arith::SubIOp>(m), 1); // p - 1 adds -1
}

TEST(Builder, MathComputesNarrowFloatsInF32) {
  Kernel k("math");
  Value h = k.zeros({8}, DType::F16);
  Value e = exp(h);
  EXPECT_EQ(e.dtype(), DType::F16);
  EXPECT_EQ(cos(k.range(8)).dtype(), DType::F32); // ints give f32
  EXPECT_EQ(abs(k.range(8)).dtype(), DType::I32);
  EXPECT_EQ(pow(h, 2).dtype(), DType::F16);
  EXPECT_EQ(pow(k.range(8), 2).dtype(), DType::I32);
  EXPECT_EQ(pow(h, 0.5).dtype(), DType::F16);
  EXPECT_EQ(maximum(h, 1).dtype(), DType::F16);
  EXPECT_EQ(fma(h, h, 1.0).dtype(), DType::F16);
  EXPECT_EQ(umulhi(k.range(8), 0xD2511F53u).dtype(), DType::I32);
  EXPECT_EQ(cdiv(k.scalar("n", DType::I32), 128).dtype(), DType::I32);
  mlir::ModuleOp m = k.module();
  mlir::math::ExpOp exp0;
  m.walk([&](mlir::math::ExpOp op) { exp0 = op; });
  ASSERT_TRUE(exp0);
  EXPECT_TRUE(llvm::cast<mlir::RankedTensorType>(exp0.getType())
                  .getElementType()
                  .isF32());
  EXPECT_EQ(countOps<mlir::math::FPowIOp>(m), 1);
  EXPECT_EQ(countOps<mlir::math::IPowIOp>(m), 1);
  EXPECT_EQ(countOps<mlir::math::PowFOp>(m), 1);
  EXPECT_EQ(countOps<arith::MaximumFOp>(m), 1);
  EXPECT_EQ(countOps<arith::MulUIExtendedOp>(m), 1);
  EXPECT_EQ(countOps<mlir::math::AbsIOp>(m), 1);
}

TEST(Builder, WhereBroadcastsAndPromotes) {
  Kernel k("where");
  Value i = k.range(8);
  Value w = where(i < 4, k.zeros({2, 8}, DType::F16), 1.0);
  EXPECT_EQ(w.shape(), (std::vector<int64_t>{2, 8}));
  EXPECT_EQ(w.dtype(), DType::F16);
  Value p = k.pointer("p", DType::F32);
  EXPECT_EQ(where(i < 4, p + i, p + 2 * i).typeStr(), "8x!tile.ptr<f32>");
}

TEST(Builder, ShapeOps) {
  Kernel k("shapes");
  Value x = k.zeros({4, 32}, DType::F32);
  EXPECT_EQ(x.reshape({128}).shape(), std::vector<int64_t>{128});
  EXPECT_EQ(x.trans().shape(), (std::vector<int64_t>{32, 4}));
  EXPECT_EQ(x.trans({1, 0}).shape(), (std::vector<int64_t>{32, 4}));
  EXPECT_EQ(x.expandDims(-1).shape(), (std::vector<int64_t>{4, 32, 1}));
  Value j = join(x, x + 1);
  EXPECT_EQ(j.shape(), (std::vector<int64_t>{4, 32, 2}));
  auto [a, b] = split(j);
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{4, 32}));
  EXPECT_EQ(b.dtype(), DType::F32);
  mlir::ModuleOp m = k.module();
  EXPECT_EQ(countOps<tile::ReshapeOp>(m), 1);
  EXPECT_EQ(countOps<tile::TransOp>(m), 2);
  EXPECT_EQ(countOps<tile::JoinOp>(m), 1);
  EXPECT_EQ(countOps<tile::SplitOp>(m), 1);
}

// PTX's ld takes a cache operator or an eviction priority, not both: the
// op's verifier says so at the call.
TEST(Builder, CacheAndEvictionRejected) {
  Kernel k("mem");
  Value p = k.pointer("p", DType::F16);
  Value offs = k.range(64);
  try {
    k.load(p + offs, {}, {}, {.cache = Cache::cg, .evict = Evict::evictLast});
    FAIL() << "expected a BuildError";
  } catch (const BuildError &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "'tile.load' op PTX cannot combine a cache modifier with "
                  "an eviction policy"),
              std::string::npos)
        << e.what();
  }
}

TEST(Builder, LoadStoreOptionsAndOther) {
  Kernel k("mem");
  Value p = k.pointer("p", DType::F16);
  Value q = k.pointer("q", DType::I8);
  Value offs = k.range(64);
  Value v = k.load(p + offs, offs < 50, -1.0, {.cache = Cache::cg});
  EXPECT_EQ(v.dtype(), DType::F16);
  Value w = k.load(p + offs, {}, {}, {.evict = Evict::evictLast});
  EXPECT_EQ(w.dtype(), DType::F16);
  // f32 results round to the f16 pointee; i1 stores widen to i8.
  k.store(p + offs, v.to(DType::F32) * 2, offs < 50, {.cache = Cache::cs});
  k.store(q + offs, offs < 10);
  Value s = k.load(p, {}, {}, {.isVolatile = true});
  EXPECT_EQ(s.rank(), 0);
  std::string text = k.str();
  EXPECT_NE(text.find("cache = cg :"), std::string::npos) << text;
  EXPECT_NE(text.find("evict = evict_last"), std::string::npos) << text;
  EXPECT_NE(text.find("cache = cs"), std::string::npos);
  EXPECT_NE(text.find("volatile"), std::string::npos);
  mlir::ModuleOp m = k.module();
  m.walk([](tile::LoadOp op) {
    if (op.getMask())
      EXPECT_TRUE(op.getOther());
  });
  EXPECT_EQ(countOps<arith::ExtUIOp>(m), 1);
}

TEST(Builder, Atomics) {
  Kernel k("atomics");
  Value f = k.pointer("f", DType::F32);
  Value i = k.pointer("i", DType::I32);
  Value offs = k.range(16);
  (void)k.atomicAdd(f + offs, 1.0, offs < 8);
  (void)k.atomicAdd(i, 1);
  (void)k.atomicMax(i + offs, offs, {},
                    {.sem = MemSem::relaxed, .scope = MemScope::cta});
  (void)k.atomic(AtomicKind::bitXor, i, 3);
  Value old = k.atomicCAS(i, 0, 1);
  EXPECT_EQ(old.dtype(), DType::I32);
  std::vector<tile::RMWKind> kinds;
  k.module().walk([&](tile::AtomicRMWOp op) { kinds.push_back(op.getKind()); });
  EXPECT_EQ(kinds, (std::vector<tile::RMWKind>{
                       tile::RMWKind::FAdd, tile::RMWKind::Add,
                       tile::RMWKind::Max, tile::RMWKind::Xor}));
  EXPECT_NE(k.str().find("sem = relaxed scope = cta"), std::string::npos);
  EXPECT_EQ(countOps<tile::AtomicCASOp>(k.module()), 1);
}

TEST(Builder, DotAccumulators) {
  Kernel k("dots");
  Value a = k.zeros({64, 32}, DType::F16), b = k.zeros({32, 16}, DType::F16);
  Value d = k.dot(a, b);
  EXPECT_EQ(d.shape(), (std::vector<int64_t>{64, 16}));
  EXPECT_EQ(d.dtype(), DType::F32);
  Value acc = k.zeros({64, 16}, DType::F16);
  EXPECT_EQ(k.dot(a, b, acc).dtype(), DType::F16);
  Value ai = k.zeros({16, 32}, DType::I8), bi = k.zeros({32, 16}, DType::I8);
  EXPECT_EQ(k.dot(ai, bi).dtype(), DType::I32);
  Value af = k.zeros({16, 16}, DType::F32);
  (void)k.dot(af, af, {}, Precision::ieee);
  EXPECT_NE(k.str().find("precision = #tile.precision<ieee>"),
            std::string::npos)
      << k.str();
  EXPECT_EQ(countOps<tile::DotOp>(k.module()), 4);
}

TEST(Builder, ReduceWithBuiltinAndLambdaCombiners) {
  Kernel k("reduce");
  Value x = k.zeros({4, 64}, DType::F32);
  Value rowMax = k.reduce(x, 1, Combine::max);
  EXPECT_EQ(rowMax.shape(), std::vector<int64_t>{4});
  Value kept = k.reduce(x, -1, Combine::sum, /*keepDims=*/true);
  EXPECT_EQ(kept.shape(), (std::vector<int64_t>{4, 1}));
  Value total = k.reduce(k.reduce(x, 0, [](Value a, Value b) { return a + b; }),
                         0, [](Value a, Value b) { return a * b + 1; });
  EXPECT_EQ(total.rank(), 0);
  // Several tiles reduced together: the maximum and where it is.
  Value idx = k.range(64).expandDims(0).broadcastTo({4, 64});
  std::vector<Value> mx =
      k.reduce({x, idx}, 1, [](std::vector<Value> acc, std::vector<Value> cur) {
        Value pick = cur[0] > acc[0];
        return std::vector<Value>{where(pick, cur[0], acc[0]),
                                  where(pick, cur[1], acc[1])};
      });
  ASSERT_EQ(mx.size(), 2u);
  EXPECT_EQ(mx[1].dtype(), DType::I32);
  mlir::ModuleOp m = k.module();
  EXPECT_EQ(countOps<tile::ReduceOp>(m), 5);
  EXPECT_EQ(countOps<arith::MaxNumFOp>(m), 1); // Combine::max ignores NaN
  EXPECT_EQ(countOps<tile::YieldOp>(m), 5);
}

TEST(Builder, Scans) {
  Kernel k("scans");
  Value x = k.range(128);
  Value c = k.scan(x, 0, Combine::sum);
  Value r = k.scan(
      x, 0, [](Value a, Value b) { return maximum(a, b); },
      /*reverse=*/true);
  EXPECT_EQ(c.shape(), std::vector<int64_t>{128});
  EXPECT_EQ(r.dtype(), DType::I32);
  std::string text = k.str();
  EXPECT_NE(text.find("tile.scan"), std::string::npos);
  EXPECT_NE(text.find("reverse"), std::string::npos);
}

TEST(Builder, ForLoopCarriesValues) {
  Kernel k("loops");
  Value n = k.scalar("n", DType::I32);
  Value acc =
      k.forLoop(0, n, 16, k.zeros({16}, DType::F32), [&](Value i, Value acc) {
        return acc + (i + k.range(16)).to(DType::F32);
      });
  EXPECT_EQ(acc.shape(), std::vector<int64_t>{16});
  std::vector<Value> two =
      k.forLoop(0, 8, 1, {acc, k.constant(0, DType::I32)},
                [](Value i, std::vector<Value> c) {
                  return std::vector<Value>{c[0] * 2, c[1] + i};
                });
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1].dtype(), DType::I32);
  int visits = 0;
  k.forLoop(0, k.scalar("big", DType::I64), 1, [&](Value i) {
    ++visits;
    EXPECT_EQ(i.dtype(), DType::I64); // an i64 bound makes the loop i64
  });
  EXPECT_EQ(visits, 1); // the body is built once, not run
  mlir::ModuleOp m = k.module();
  EXPECT_EQ(countOps<mlir::scf::ForOp>(m), 3);
  int iterArgs = 0;
  m.walk([&](mlir::scf::ForOp op) { iterArgs += op.getInitArgs().size(); });
  EXPECT_EQ(iterArgs, 3);
}

TEST(Builder, WhileLoop) {
  Kernel k("whiles");
  Value n = k.scalar("n", DType::I32);
  std::vector<Value> r = k.whileLoop(
      {k.constant(1, DType::I32)},
      [&](std::vector<Value> c) { return c[0] < n; },
      [](std::vector<Value> c) { return std::vector<Value>{c[0] * 2}; });
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].dtype(), DType::I32);
  EXPECT_EQ(countOps<mlir::scf::WhileOp>(k.module()), 1);
  EXPECT_EQ(countOps<mlir::scf::ConditionOp>(k.module()), 1);
}

TEST(Builder, Ifs) {
  Kernel k("ifs");
  Value n = k.scalar("n", DType::I32);
  Value p = k.pointer("p", DType::I32);
  k.ifThen(n > 0, [&] { k.store(p, n); });
  Value one = k.ifThenElse(
      n > 1, [&] { return n * 2; }, [&] { return n + 0; });
  EXPECT_EQ(one.dtype(), DType::I32);
  std::vector<Value> two = k.ifThenElse(
      n > 2,
      [&] {
        return std::vector<Value>{n, k.range(4)};
      },
      [&] {
        return std::vector<Value>{n + 1, k.range(4) * 2};
      });
  EXPECT_EQ(two[1].shape(), std::vector<int64_t>{4});
  k.ifThenElse(
      n > 3, [&] { k.store(p, 1); }, [&] { k.store(p, 2); });
  mlir::ModuleOp m = k.module();
  EXPECT_EQ(countOps<mlir::scf::IfOp>(m), 4);
  int withElse = 0, results = 0;
  m.walk([&](mlir::scf::IfOp op) {
    withElse += !op.getElseRegion().empty();
    results += op.getNumResults();
  });
  EXPECT_EQ(withElse, 3);
  EXPECT_EQ(results, 3);
}

TEST(Builder, PrintAndAssert) {
  Kernel k("debug");
  Value x = k.range(16);
  k.print("x = ", {x, k.programId(0)}, /*hex=*/true);
  k.deviceAssert(x < 16, "x out of range");
  std::string text = k.str();
  EXPECT_NE(text.find("tile.print \"x = \" hex"), std::string::npos) << text;
  EXPECT_NE(text.find("tile.assert"), std::string::npos);
  EXPECT_NE(text.find("\"x out of range\""), std::string::npos);
}

TEST(Builder, OpsCarryTheCallersLine) {
  Kernel k("lines");
  Value p = k.pointer("p", DType::F32);
  unsigned line = __LINE__ + 1;
  Value v = k.load(p + k.range(8));
  unsigned sumLine = __LINE__ + 1;
  Value s = v + 1;
  (void)s;
  mlir::ModuleOp m = k.module();
  m.walk([&](tile::LoadOp op) { EXPECT_EQ(lineOf(op), line); });
  m.walk([&](arith::AddFOp op) { EXPECT_EQ(lineOf(op), sumLine); });
  auto file = llvm::cast<mlir::FileLineColLoc>(
      (*m.getOps<mlir::func::FuncOp>().begin()).getLoc());
  EXPECT_NE(file.getFilename().str().find("BuilderTest.cpp"),
            std::string::npos);
}

/// A composite written by a user: its ops take the caller's line.
static Value squarePlusOne(const Value &x,
                           SourceLoc loc = SourceLoc::current()) {
  CallSite site("squarePlusOne", loc);
  return x * x + 1;
}

TEST(Builder, CallSiteLocatesCompositeOps) {
  Kernel k("composite");
  Value x = k.zeros({8}, DType::F32);
  unsigned line = __LINE__ + 1;
  (void)squarePlusOne(x);
  mlir::ModuleOp m = k.module();
  int checked = 0;
  m.walk([&](mlir::Operation *op) {
    if (llvm::isa<arith::MulFOp, arith::AddFOp>(op)) {
      EXPECT_EQ(lineOf(op), line);
      ++checked;
    }
  });
  EXPECT_EQ(checked, 2);
}

TEST(Builder, PaddingFollowsElementwiseOps) {
  Kernel k("padding");
  Value p = k.pointer("p", DType::F32);
  Value offs = k.range(64);
  Value x = k.load(p + offs, offs < 40);
  EXPECT_TRUE(x.hasPadding());
  EXPECT_TRUE((exp(x) * 2 + 1).hasPadding());
  EXPECT_EQ((x + x).padding().size(), 1u); // one mask, not two
  EXPECT_FALSE(x.withoutPadding().hasPadding());
  Value n = k.scalar("n", DType::I32);
  Value y = x.withoutPadding().maskedBy(offs < n, n);
  ASSERT_EQ(y.padding().size(), 1u);
  EXPECT_FALSE(y.padding()[0].count.isNull());
  // Naming the count of a load's own mask adds it to that mask.
  Value mask = offs < 40;
  Value z = k.load(p + offs, mask).maskedBy(mask, n);
  ASSERT_EQ(z.padding().size(), 1u);
  EXPECT_FALSE(z.padding()[0].count.isNull());
  // Padding follows shape changes.
  EXPECT_EQ(x.expandDims(0).padding()[0].valid.shape(),
            (std::vector<int64_t>{1, 64}));
  EXPECT_EQ((x.expandDims(1) + k.zeros({64, 4}, DType::F32))
                .padding()[0]
                .valid.shape(),
            (std::vector<int64_t>{64, 1}));
  EXPECT_FALSE(k.load(p + offs).hasPadding());
}

TEST(Builder, ValuesFromOneKernelShareIt) {
  Kernel k("handles");
  Kernel alias = k.range(4).kernel();
  (void)alias.range(8);
  EXPECT_EQ(countOps<tile::RangeOp>(k.module()), 2);
}

/// Parses `text` with the dialects tilec reads.
static mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &ctx,
                                               const std::string &text) {
  mlir::DialectRegistry registry;
  registerTilecDialects(registry);
  ctx.appendDialectRegistry(registry);
  return mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
}

TEST(Builder, PrintedTextRoundTrips) {
  for (const examples::Example &e : examples::allExamples()) {
    SCOPED_TRACE(e.name);
    Kernel k = e.build();
    for (bool locations : {false, true}) {
      std::string text = k.str({.paramNames = false, .locations = locations});
      mlir::MLIRContext ctx;
      auto parsed = parse(ctx, text);
      ASSERT_TRUE(parsed);
      EXPECT_TRUE(mlir::succeeded(mlir::verify(*parsed)));
      std::string again;
      llvm::raw_string_ostream os(again);
      mlir::OpPrintingFlags flags;
      if (locations)
        flags.enableDebugInfo();
      parsed->print(os, flags);
      EXPECT_EQ(again, text);
    }
    // With parameter names the text parses too (names become %argN).
    mlir::MLIRContext ctx;
    EXPECT_TRUE(parse(ctx, k.str()));
  }
}

TEST(Builder, CompileRunsThePipelineOnACopy) {
  Kernel k = examples::buildSoftmax();
  std::string before = k.str();
  PipelineOptions tileLevel;
  tileLevel.emit = EmitLevel::Tile;
  CompileResult r = k.compile(tileLevel);
  EXPECT_NE(r.ir.find("func.func @softmax"), std::string::npos);
  EXPECT_TRUE(r.ptx.empty());
  // The kernel keeps its own module and compiles again.
  EXPECT_EQ(k.str(), before);
  PipelineOptions options = tileLevel;
  options.arch = "sm_80";
  EXPECT_EQ(k.compile(options).ir, r.ir);
  // Canonicalization removed the unused index computation of the block.
  EXPECT_LT(r.ir.size(), k.str({.paramNames = false}).size());
}

TEST(Builder, CompileDefaultsToPtxAndMetadata) {
  Kernel k = examples::buildSoftmax();
  CompileResult r = k.compile();
  EXPECT_NE(r.ptx.find(".entry softmax("), std::string::npos);
  // The builder's parameter names reach the runtime's metadata, typed.
  ASSERT_EQ(r.metadata.kernels.size(), 1u);
  const runtime::KernelMetadata &m = r.metadata.kernels[0];
  EXPECT_EQ(r.metadata.target, "sm_90");
  EXPECT_EQ(m.name, "softmax");
  EXPECT_EQ(m.numWarps, 16);
  EXPECT_EQ(m.threadsPerProgram, 512);
  EXPECT_EQ(m.sharedBytes, 128); // one 8-byte slot per warp
  EXPECT_EQ(m.signature(),
            "x: ptr<f32>, y: ptr<f32>, n_rows: i32, n_cols: i32");
  // The file form reads back to the same value.
  auto back = runtime::parseMetadata(runtime::writeMetadata(r.metadata));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(*back, r.metadata);
}

/// numWarps = 0 leaves the warps to the layout pass, which the metadata
/// reports: 4 for a 3072-wide bf16 row of 16-byte vectors (three per
/// thread: the fewest warps holding at most 24 elements each).
TEST(Builder, RowwiseKernelOf3072LetsThePassChooseTheWarps) {
  Kernel k = ops::rowwiseKernel(
      "scale3072",
      {ops::input("x", DType::BF16), ops::output("y", DType::BF16)},
      {.blockCols = 3072, .numWarps = 0, .colsDivisibility = 16},
      [](ops::Block &b) { b.store("y", b["x"] * b["x"]); });
  EXPECT_EQ(k.str().find("tile.num_warps"), std::string::npos) << k.str();
  CompileResult r = k.compile();
  ASSERT_EQ(r.metadata.kernels.size(), 1u);
  EXPECT_EQ(r.metadata.kernels[0].numWarps, 4);
  EXPECT_EQ(r.metadata.kernels[0].threadsPerProgram, 128);
  EXPECT_NE(r.ptx.find(".maxntid 128, 1, 1"), std::string::npos);
}

} // namespace

TEST(Builder, ApproxMathMarksTheKernel) {
  auto build = [](bool approx) {
    Kernel k("erf_k", {.numWarps = 1, .approxMath = approx});
    Value xp = k.pointer("x", f32, 16);
    auto offs = k.range(64);
    k.store(xp + offs, erf(k.load(xp + offs)));
    return k;
  };
  Kernel approx = build(true), precise = build(false);
  EXPECT_NE(approx.str().find("tile.approx_math"), std::string::npos)
      << approx.str();
  EXPECT_EQ(precise.str().find("tile.approx_math"), std::string::npos);
  // The PTX: the clamp of the short erf, not libdevice's choice between
  // its two polynomials (selp).
  std::string fast = approx.compile().ptx, slow = precise.compile().ptx;
  EXPECT_NE(fast.find("min.NaN.f32"), std::string::npos) << fast;
  EXPECT_EQ(fast.find("selp.f32"), std::string::npos) << fast;
  EXPECT_EQ(slow.find("min.NaN.f32"), std::string::npos) << slow;
  EXPECT_NE(slow.find("selp.f32"), std::string::npos) << slow;
  EXPECT_LT(fast.size(), slow.size());
}
