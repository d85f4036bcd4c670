//===- CountTest.cpp - exact counts of kernel launches, by hand -----------===//
//
// Every count here is worked out by hand from the kernel's text (the
// comments show the arithmetic), on small launches with ragged edges; the
// interpreter cross-checks the loads and stores of every example; the
// interval semantics are checked against brute force; and each user error
// has its message checked.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "tilec/Frontend.h"
#include "tilec/Pipeline.h"
#include "tilec/PerfModel/Analyzer.h"

#include "Evaluator.h" // the interval semantics, tested directly

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <fstream>

using namespace tilec;
using namespace tilec::perfmodel;
using tilec::test::InterpreterTest;

namespace {

class CountTest : public InterpreterTest {
protected:
  /// Parses `text`, naming kernel parameters after their `%names`.
  mlir::OwningOpRef<mlir::ModuleOp> parseNamed(llvm::StringRef text,
                                               llvm::StringRef file = "k") {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, file), llvm::SMLoc());
    auto module = parseTileSource(sourceMgr, context);
    if (!module)
      ADD_FAILURE() << errors;
    return module;
  }
  std::string example(llvm::StringRef name) {
    auto buffer = llvm::MemoryBuffer::getFile(std::string(TILEC_EXAMPLES_DIR) +
                                              "/" + name.str());
    EXPECT_TRUE(bool(buffer)) << name.str();
    return buffer ? (*buffer)->getBuffer().str() : "";
  }

  static LaunchArg buffer(uint64_t n) {
    LaunchArg a;
    a.isBuffer = true;
    a.count = n;
    return a;
  }
  static LaunchArg scalar(int64_t v) {
    LaunchArg a;
    a.intValue = v;
    return a;
  }
  static LaunchArg real(double v) {
    LaunchArg a;
    a.isFloat = true;
    a.floatValue = v;
    return a;
  }

  LaunchCounts count(mlir::ModuleOp module, llvm::StringRef kernel,
                     std::array<int64_t, 3> grid, std::vector<LaunchArg> args,
                     CountOptions options = {}) {
    auto counts = countLaunch(module, kernel, grid, args, options);
    EXPECT_TRUE(mlir::succeeded(counts)) << errors;
    return mlir::succeeded(counts) ? *counts : LaunchCounts();
  }
  /// The diagnostic of a failing count.
  std::string countError(mlir::ModuleOp module, llvm::StringRef kernel,
                         std::array<int64_t, 3> grid,
                         std::vector<LaunchArg> args,
                         CountOptions options = {}) {
    errors.clear();
    auto counts = countLaunch(module, kernel, grid, args, options);
    EXPECT_TRUE(mlir::failed(counts));
    return errors;
  }
  static const BufferTraffic &buf(const LaunchCounts &c, llvm::StringRef n) {
    for (const BufferTraffic &b : c.buffers)
      if (b.name == n)
        return b;
    static BufferTraffic none;
    ADD_FAILURE() << "no buffer " << n.str();
    return none;
  }
};

//===----------------------------------------------------------------------===//
// Counts by hand
//===----------------------------------------------------------------------===//

TEST_F(CountTest, AddOverThousandElements) {
  auto m = parseNamed(example("add.tile"), "add.tile");
  // n = 1000 in one 1024-wide program: 24 lanes masked off per access.
  LaunchCounts c =
      count(*m, "add", {1, 1, 1},
            {buffer(1000), buffer(1000), buffer(1000), scalar(1000)});
  EXPECT_EQ(c.opCount("arith.addf", "f32"), 1024u);
  EXPECT_EQ(c.opCount("arith.addi", "i32"), 1024u);
  EXPECT_EQ(c.opCount("arith.cmpi", "i32"), 1024u);
  EXPECT_EQ(c.opCount("arith.muli", "i32"), 1u); // pid * 1024, a scalar
  EXPECT_EQ(c.opCount("tile.addptr", "ptr"), 3u * 1024);
  EXPECT_EQ(c.ops.size(), 5u);
  EXPECT_EQ(buf(c, "x").loaded, 1000u);
  EXPECT_EQ(buf(c, "x").maskedLoads, 24u);
  EXPECT_EQ(buf(c, "y").loaded, 1000u);
  EXPECT_EQ(buf(c, "z").stored, 1000u);
  EXPECT_EQ(buf(c, "z").maskedStores, 24u);
  EXPECT_EQ(buf(c, "z").loaded, 0u);
  EXPECT_EQ(c.minimalBytes(), 3u * 4000);
  EXPECT_EQ(c.issuedBytes(), 3u * 4000);
  EXPECT_EQ(c.maskedLanes(), 3u * 24);
  EXPECT_EQ(c.evaluations, 1u);
  EXPECT_TRUE(c.notes.empty());
  WorkByClass w = classifyWork(c);
  EXPECT_EQ(w.fp32Flops, 1024);
  EXPECT_EQ(w.intOps, 1024 + 1024 + 1 + 3072);
}

TEST_F(CountTest, ProgramsDifferOnlyAtTheEdge) {
  auto m = parseNamed(example("add.tile"));
  // 2^20 + 1 elements: 1025 programs, the last with one active lane.
  // Bisection evaluates a handful of boxes, not 1025 programs.
  const uint64_t n = (1u << 20) + 1;
  LaunchCounts c = count(*m, "add", {1025, 1, 1},
                         {buffer(n), buffer(n), buffer(n), scalar(int64_t(n))});
  EXPECT_EQ(buf(c, "x").loaded, n);
  EXPECT_EQ(buf(c, "x").maskedLoads, 1025u * 1024 - n);
  EXPECT_EQ(buf(c, "z").stored, n);
  EXPECT_EQ(c.opCount("arith.addf", "f32"), 1025u * 1024);
  EXPECT_LE(c.evaluations, 2u * 11 + 1);
  EXPECT_GE(c.evaluations, 3u);
  // A full grid is one evaluation.
  const uint64_t full = uint64_t(1) << 28;
  c = count(*m, "add", {int64_t(full / 1024), 1, 1},
            {buffer(full), buffer(full), buffer(full), scalar(int64_t(full))});
  EXPECT_EQ(c.evaluations, 1u);
  EXPECT_EQ(c.minimalBytes(), 12 * full);
}

TEST_F(CountTest, SoftmaxThreeRowsOfHundred) {
  // n_cols = 100 breaks the example's divisibility-16 promise (see the
  // error test below); this copy makes no such promise.
  std::string text = example("softmax.tile");
  std::string hint = "%n_cols: i32 {tile.divisibility = 16 : i32}";
  text.replace(text.find(hint), hint.size(), "%n_cols: i32");
  auto m = parseNamed(text);
  LaunchCounts c =
      count(*m, "softmax", {3, 1, 1}, {buffer(300), buffer(300), scalar(100)});
  // Per program: a 4096-wide tile of which 100 lanes are active.
  EXPECT_EQ(buf(c, "x").loaded, 300u);
  EXPECT_EQ(buf(c, "x").maskedLoads, 3u * 3996);
  EXPECT_EQ(buf(c, "y").stored, 300u);
  EXPECT_EQ(buf(c, "y").maskedStores, 3u * 3996);
  // Two reductions of 4096 elements: 4095 combiner applications each.
  EXPECT_EQ(c.opCount("arith.maxnumf", "f32"), 3u * 4095);
  EXPECT_EQ(c.opCount("arith.addf", "f32"), 3u * 4095);
  EXPECT_EQ(c.opCount("arith.subf", "f32"), 3u * 4096);
  EXPECT_EQ(c.opCount("math.exp", "f32"), 3u * 4096);
  EXPECT_EQ(c.opCount("arith.divf", "f32"), 3u * 4096);
  EXPECT_EQ(c.opCount("arith.cmpi", "i32"), 3u * 4096);
  // Two scalar addptrs (row starts) and two 4096-wide ones per program.
  EXPECT_EQ(c.opCount("tile.addptr", "ptr"), 3u * (2 + 2 * 4096));
  EXPECT_EQ(c.opCount("arith.muli", "i32"), 3u);
  WorkByClass w = classifyWork(c);
  EXPECT_EQ(w.fp32Flops, 3 * (4095 + 4095 + 4096 + 4096));
  EXPECT_EQ(w.special.at("exp"), 3 * 4096);
  EXPECT_EQ(c.minimalBytes(), 2u * 300 * 4);
}

TEST_F(CountTest, MatmulWithEdges) {
  auto m = parseNamed(example("matmul.tile"));
  // M = 100, N = 70, K = 100 in one 128 x 128 program stepping 64 over K;
  // rows padded to 112 (A) and 80 (B, C) elements for the divisibility
  // hints.
  const int64_t M = 100, N = 70, K = 100, sa = 112, sb = 80, sc = 80;
  LaunchCounts c =
      count(*m, "matmul", {1, 1, 1},
            {buffer(M * sa), buffer(K * sb), buffer(M * sc), scalar(M),
             scalar(N), scalar(K), scalar(sa), scalar(sb), scalar(sc)});
  // Two K steps (k = 0, 64) of a 128x64 by 64x128 dot: 2 * 2*128*128*64.
  ASSERT_EQ(c.dots.size(), 1u);
  EXPECT_EQ(c.dots[0].kind, "bf16");
  EXPECT_EQ(c.dots[0].flops, 2u * 2 * 128 * 128 * 64);
  // Useful products: rows < 100, columns < 70, k < 100: 2*M*N*K.
  EXPECT_EQ(c.dots[0].useful, uint64_t(2 * M * N * K));
  // A: 100 rows x (64 + 36) columns loaded, the rest of 2 x 128x64 masked.
  EXPECT_EQ(buf(c, "a").loaded, uint64_t(M * K));
  EXPECT_EQ(buf(c, "a").maskedLoads, 2u * 128 * 64 - uint64_t(M * K));
  EXPECT_EQ(buf(c, "b").loaded, uint64_t(K * N));
  EXPECT_EQ(buf(c, "b").maskedLoads, 2u * 64 * 128 - uint64_t(K * N));
  EXPECT_EQ(buf(c, "c").stored, uint64_t(M * N));
  EXPECT_EQ(buf(c, "c").maskedStores, 128u * 128 - uint64_t(M * N));
  // Minimal bytes are the buffers as given, padding included.
  EXPECT_EQ(c.minimalBytes(), uint64_t(2 * (M * sa + K * sb + M * sc)));
  // Masks: two 128x64 ands per step, one 128x128 for C.
  EXPECT_EQ(c.opCount("arith.andi", "i1"), 2u * 2 * 8192 + 16384);
  // Pointers: A and B tiles, advanced each step, and the C tile.
  EXPECT_EQ(c.opCount("tile.addptr", "ptr"), 2u * 8192 + 2 * 2 * 8192 + 16384);
  EXPECT_EQ(c.opCount("arith.truncf", "bf16"), 16384u);
  // K - k per step, and the rows of program groups left (L2 grouping).
  EXPECT_EQ(c.opCount("arith.subi", "i32"), 2u + 1);
}

TEST_F(CountTest, EveryProgramRereadsTheBias) {
  auto m = parseNamed(example("bias_gelu.tile"));
  // 3 rows of 32: one 2048-wide program; b (32 elements) is read per lane.
  LaunchCounts c =
      count(*m, "bias_gelu", {1, 1, 1},
            {buffer(96), buffer(32), buffer(96), scalar(96), scalar(32)});
  EXPECT_EQ(buf(c, "x").loaded, 96u);
  EXPECT_EQ(buf(c, "b").loaded, 96u); // each bias element 3 times
  EXPECT_EQ(buf(c, "b").maskedLoads, 2048u - 96);
  EXPECT_EQ(buf(c, "y").stored, 96u);
  EXPECT_EQ(c.minimalBytes(), 2u * (96 + 32 + 96));
  EXPECT_EQ(c.issuedBytes(), 2u * (96 + 96 + 96));
  // bias add, x * rsqrt2, erf + 1, x * 0.5, product: 5 per element (the
  // gelu call as written is evaluated through the call).
  EXPECT_EQ(classifyWork(c).fp32Flops, 5 * 2048);
  EXPECT_EQ(c.opCount("math.erf", "f32"), 2048u);
  EXPECT_EQ(c.opCount("arith.remsi", "i32"), 2048u);
  EXPECT_EQ(c.opCount("arith.extf", "f32"), 2u * 2048);
}

TEST_F(CountTest, LayerNormRereadsItsWeights) {
  auto m = parseNamed(example("layernorm.tile"));
  LaunchCounts c = count(*m, "layernorm", {4, 1, 1},
                         {buffer(4 * 48), buffer(48), buffer(48),
                          buffer(4 * 48), scalar(48), real(1e-5)});
  EXPECT_EQ(buf(c, "x").loaded, 4u * 48);
  EXPECT_EQ(buf(c, "w").loaded, 4u * 48); // every row reads all of w
  EXPECT_EQ(buf(c, "b").loaded, 4u * 48);
  EXPECT_EQ(buf(c, "y").stored, 4u * 48);
  EXPECT_EQ(c.opCount("math.rsqrt", "f32"), 4u); // one scalar per row
  // mean and variance: two divides and eps added, as scalars per row.
  EXPECT_EQ(c.opCount("arith.divf", "f32"), 8u);
  EXPECT_EQ(c.minimalBytes(), 2u * (4 * 48 + 48 + 48 + 4 * 48));
  EXPECT_EQ(c.issuedBytes(), 2u * 4 * (48 * 4));
}

TEST_F(CountTest, PerProgramTripCountsStillExact) {
  auto m = parseNamed(R"(
func.func @tri(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %pid = tile.program_id 0
  %r = tile.range 0, 16 : tensor<16xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  scf.for %i = %c0 to %pid step %c1 : i32 {
    %v = tile.load %p : tensor<16x!tile.ptr<f32>>
    %w = arith.mulf %v, %v : tensor<16xf32>
    tile.store %p, %w : tensor<16x!tile.ptr<f32>>
  }
  return
})");
  // Program p loops p times: 0 + 1 + ... + 99 = 4950 iterations.
  LaunchCounts c = count(*m, "tri", {100, 1, 1}, {buffer(16)});
  EXPECT_EQ(c.opCount("arith.mulf", "f32"), 4950u * 16);
  EXPECT_EQ(buf(c, "x").loaded, 4950u * 16);
  EXPECT_EQ(buf(c, "x").stored, 4950u * 16);
  EXPECT_LE(c.evaluations, 2u * 100);
  // A cap on evaluations turns into an error naming the difference.
  std::string e =
      countError(*m, "tri", {100, 1, 1}, {buffer(16)}, CountOptions{10});
  EXPECT_NE(e.find("counting needs more than 10 program evaluations (its "
                   "programs differ in more than their edges; last "
                   "difference: the trip count of scf.for at"),
            std::string::npos)
      << e;
}

TEST_F(CountTest, DataDependentMasksAreBounded) {
  auto m = parseNamed(R"(
func.func @relu_inplace(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %p : tensor<64x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %neg = arith.cmpf olt, %v, %zero : tensor<64xf32>
  tile.store %p, %zero, %neg : tensor<64x!tile.ptr<f32>>
  return
})");
  // Over 1000 programs: the data-dependent mask does not split the grid.
  LaunchCounts c = count(*m, "relu_inplace", {1000, 1, 1}, {buffer(64)});
  EXPECT_EQ(c.evaluations, 1u);
  EXPECT_EQ(buf(c, "x").stored, 64000u); // every lane: an upper bound
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0], "tile.store masks depend on loaded data: their lanes "
                        "are counted as active (an upper bound)");
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(CountTest, BadSizesAreOutOfBoundsAccesses) {
  auto m = parseNamed(example("add.tile"), "add.tile");
  // x is one element short of n.
  std::string e =
      countError(*m, "add", {1, 1, 1},
                 {buffer(999), buffer(1000), buffer(1000), scalar(1000)});
  EXPECT_EQ(e, "tile.load in program (0, 0, 0): reads element 999 of %x "
               "(lane [999]), but %x has 999 elements: the sizes given do not "
               "match the grid and the scalar arguments\n");
  // Too many programs for n: the store of program 2 runs past z.
  e = countError(*m, "add", {3, 1, 1},
                 {buffer(3000), buffer(3000), buffer(2048), scalar(3000)});
  EXPECT_NE(e.find("tile.store in program (2, 0, 0): writes element 2048 of "
                   "%z (lane [0]), but %z has 2048 elements"),
            std::string::npos)
      << e;
}

TEST_F(CountTest, ArgumentErrors) {
  auto m = parseNamed(example("add.tile"));
  EXPECT_EQ(countError(*m, "nope", {1, 1, 1}, {}),
            "no kernel named 'nope' (kernels here: add)\n");
  EXPECT_EQ(
      countError(*m, "add", {1, 1, 1}, {buffer(10), buffer(10), buffer(10)}),
      "kernel 'add' takes 4 arguments (x: ptr<f32>, y: ptr<f32>, z: "
      "ptr<f32>, n: i32) but 3 were given\n");
  EXPECT_EQ(countError(*m, "add", {1, 1, 1},
                       {scalar(1), buffer(10), buffer(10), scalar(10)}),
            "kernel 'add', parameter 'x' (#0) is a pointer to f32: give its "
            "buffer size (n=COUNT), not a value\n");
  EXPECT_EQ(countError(*m, "add", {1, 1, 1},
                       {buffer(10), buffer(10), buffer(10), buffer(10)}),
            "kernel 'add', parameter 'n' (#3) is a i32 scalar: give a value, "
            "not a buffer\n");
  EXPECT_EQ(countError(
                *m, "add", {1, 1, 1},
                {buffer(10), buffer(10), buffer(10), scalar(int64_t(1) << 32)}),
            "kernel 'add', parameter 'n' (#3): value 4294967296 does not fit "
            "in i32\n");
  EXPECT_EQ(countError(*m, "add", {1, 1, 1},
                       {buffer(10), buffer(10), buffer(10), real(1.5)}),
            "kernel 'add', parameter 'n' (#3) is an integer (i32) but got "
            "1.5\n");
  EXPECT_EQ(countError(*m, "add", {0, 1, 1},
                       {buffer(10), buffer(10), buffer(10), scalar(10)}),
            "grid (0, 1, 1): x must be in [1, 2147483647] (CUDA's limits)\n");
  EXPECT_EQ(countError(*m, "add", {1, 70000, 1},
                       {buffer(10), buffer(10), buffer(10), scalar(10)}),
            "grid (1, 70000, 1): y must be in [1, 65535] (CUDA's limits)\n");
  auto s = parseNamed(example("softmax.tile"));
  EXPECT_EQ(countError(*s, "softmax", {3, 1, 1},
                       {buffer(300), buffer(300), scalar(100)}),
            "kernel 'softmax', parameter 'n_cols' (#2): value 100 is not a "
            "multiple of 16 (the divisibility the kernel was compiled for; "
            "the runtime refuses such a launch)\n");
}

TEST_F(CountTest, KernelsItCannotCount) {
  auto m = parseNamed(R"(
func.func @k(%x: !tile.ptr<i32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = tile.load %x : !tile.ptr<i32>
  scf.for %i = %c0 to %n step %c1 : i32 {
  }
  return
}
func.func @b(%x: !tile.ptr<i32>) attributes {tile.kernel} {
  gpu.barrier
  return
})",
                      "k.tile");
  EXPECT_EQ(countError(*m, "k", {1, 1, 1}, {buffer(1)}),
            "scf.for in program (0, 0, 0): its trip count depends on loaded "
            "data; tilec-analyze cannot count a kernel whose control flow "
            "depends on data\n");
  EXPECT_EQ(countError(*m, "b", {1, 1, 1}, {buffer(1)}),
            "tilec-analyze does not support 'gpu.barrier'\n");
}

//===----------------------------------------------------------------------===//
// The interpreter agrees on loads and stores
//===----------------------------------------------------------------------===//

TEST_F(CountTest, InterpreterAgreesOnEveryExample) {
  struct Case {
    const char *file, *kernel;
    Grid grid;
    std::vector<std::pair<DType, int64_t>> buffers; // -1: a scalar
    std::vector<double> scalars;
  };
  const DType f32 = DType::F32, f16 = DType::F16, bf16 = DType::BF16;
  std::vector<Case> cases = {
      {"add.tile", "add", {3}, {{f32, 2500}, {f32, 2500}, {f32, 2500}}, {2500}},
      {"coscos.tile", "coscos", {2}, {{f32, 1500}, {f32, 1500}}, {1500}},
      {"cos.tile", "cos", {2}, {{f32, 1100}, {f32, 1100}}, {1100}},
      {"bias_gelu.tile",
       "bias_gelu",
       {1},
       {{bf16, 240}, {bf16, 48}, {bf16, 240}},
       {240, 48}},
      {"bias_relu.tile",
       "bias_relu",
       {2},
       {{bf16, 2100}, {bf16, 16}, {bf16, 2100}},
       {2096, 16}},
      {"softmax.tile", "softmax", {5}, {{f32, 240}, {f32, 240}}, {48}},
      {"layernorm.tile",
       "layernorm",
       {3},
       {{f16, 192}, {f16, 64}, {f16, 64}, {f16, 192}},
       {64, 1e-5}},
      {"rmsnorm.tile",
       "rmsnorm",
       {3},
       {{f16, 96}, {f16, 96}, {f16, 32}, {f16, 96}, {f16, 96}},
       {32, 1e-6}},
      {"matmul.tile",
       "matmul",
       {2, 1},
       {{bf16, 130 * 48}, {bf16, 40 * 80}, {bf16, 130 * 80}},
       {130, 70, 40, 48, 80, 80}},
  };
  for (const Case &k : cases) {
    SCOPED_TRACE(k.file);
    auto parsed = parseExample(k.file);
    ASSERT_TRUE(parsed);
    std::vector<std::vector<uint8_t>> storage;
    std::vector<Arg> args;
    std::vector<LaunchArg> launch;
    for (auto [dtype, n] : k.buffers) {
      storage.emplace_back(size_t(n) * dtypeSize(dtype), 0);
      args.push_back(Arg::buffer(storage.back().data(), size_t(n), dtype));
      launch.push_back(buffer(uint64_t(n)));
    }
    auto func = parsed->lookupSymbol<mlir::func::FuncOp>(k.kernel);
    ASSERT_TRUE(func);
    for (size_t i = 0; i < k.scalars.size(); ++i) {
      mlir::Type t = func.getArgument(unsigned(k.buffers.size() + i)).getType();
      if (t.isF32()) {
        args.push_back(Arg::scalar(float(k.scalars[i])));
        launch.push_back(real(k.scalars[i]));
      } else {
        args.push_back(Arg::scalar(int32_t(k.scalars[i])));
        launch.push_back(scalar(int64_t(k.scalars[i])));
      }
    }
    RunOptions quiet;
    quiet.checkRaces = false;
    auto stats = runKernel(*parsed, k.kernel, k.grid, args, quiet);
    ASSERT_TRUE(mlir::succeeded(stats)) << errors;
    LaunchCounts c =
        count(*parsed, k.kernel, {k.grid.x, k.grid.y, k.grid.z}, launch);
    uint64_t loaded = 0, stored = 0;
    for (const BufferTraffic &b : c.buffers) {
      loaded += b.loaded;
      stored += b.stored;
    }
    EXPECT_EQ(loaded, stats->elementsLoaded);
    EXPECT_EQ(stored, stats->elementsStored);
    EXPECT_EQ(c.programs(), stats->programs);
  }
}

//===----------------------------------------------------------------------===//
// The new examples compute what they say
//===----------------------------------------------------------------------===//

TEST_F(CountTest, CosExampleComputesCos) {
  auto m = parseExample("cos.tile");
  const int n = 2500;
  std::vector<float> x = test::randomFloats(n, 11, -10, 10), y(n);
  auto stats = runKernel(*m, "cos", {3},
                         {Arg::buffer(x.data(), n), Arg::output(y.data(), n),
                          Arg::scalar<int32_t>(n)});
  ASSERT_TRUE(mlir::succeeded(stats)) << errors;
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i)
    want[i] = std::cos(x[i]);
  test::expectClose(y, want, 1e-6, 1e-6, "cos");
}

TEST_F(CountTest, BiasReluExampleComputesRelu) {
  auto m = parseExample("bias_relu.tile");
  const int rows = 37, cols = 48, n = rows * cols;
  std::vector<float> xf = test::randomFloats(n, 3),
                     bf = test::randomFloats(cols, 4);
  std::vector<uint16_t> x(n), b(cols), y(n);
  for (int i = 0; i < n; ++i)
    x[i] = test::toBF16(xf[i]);
  for (int i = 0; i < cols; ++i)
    b[i] = test::toBF16(bf[i]);
  auto stats = runKernel(*m, "bias_relu", {test::ceilDiv(n, 2048)},
                         {Arg::buffer(x.data(), n, DType::BF16),
                          Arg::buffer(b.data(), cols, DType::BF16),
                          Arg::output(y.data(), n, DType::BF16),
                          Arg::scalar<int32_t>(n), Arg::scalar<int32_t>(cols)});
  ASSERT_TRUE(mlir::succeeded(stats)) << errors;
  int negative = 0;
  for (int i = 0; i < n; ++i) {
    // In f32, rounded to bf16 once: exactly representable after rounding.
    float v = test::fromBF16(x[i]) + test::fromBF16(b[i % cols]);
    negative += v < 0;
    ASSERT_EQ(y[i], test::toBF16(std::max(v, 0.0f))) << "element " << i;
  }
  EXPECT_GT(negative, n / 4); // the test exercises both sides of zero
}

//===----------------------------------------------------------------------===//
// Interval semantics against brute force
//===----------------------------------------------------------------------===//

/// The interpreter's value of an integer op on `width`-bit values (held
/// sign-extended; i1 as 0/1 here).
int64_t wrap(__int128 v, unsigned width) {
  if (width == 1)
    return int64_t(v & 1);
  unsigned __int128 mask = (static_cast<unsigned __int128>(1) << width) - 1;
  uint64_t low = uint64_t(static_cast<unsigned __int128>(v) & mask);
  if (width < 64 && (low >> (width - 1)) & 1)
    low |= ~uint64_t(0) << width;
  return int64_t(low);
}
uint64_t asUnsigned(int64_t v, unsigned width) {
  if (width == 1 || width >= 64)
    return uint64_t(v);
  return uint64_t(v) & ((uint64_t(1) << width) - 1);
}
int64_t concrete(const std::string &op, int64_t a, int64_t b, unsigned w) {
  __int128 x = a, y = b;
  uint64_t ux = asUnsigned(a, w), uy = asUnsigned(b, w);
  auto floorDiv = [](__int128 p, __int128 q) {
    __int128 r = p / q;
    return (p % q != 0 && ((p < 0) != (q < 0))) ? r - 1 : r;
  };
  if (op == "addi")
    return wrap(x + y, w);
  if (op == "subi")
    return wrap(x - y, w);
  if (op == "muli")
    return wrap(x * y, w);
  if (op == "divsi")
    return b == 0 ? -1 : wrap(x / y, w);
  if (op == "remsi")
    return b == 0 ? a : wrap(x % y, w);
  if (op == "floordivsi")
    return b == 0 ? -1 : wrap(floorDiv(x, y), w);
  if (op == "ceildivsi")
    return b == 0 ? -1 : wrap(-floorDiv(-x, y), w);
  if (op == "divui")
    return uy == 0 ? -1 : wrap(__int128(ux / uy), w);
  if (op == "remui")
    return uy == 0 ? a : wrap(__int128(ux % uy), w);
  if (op == "andi")
    return wrap(x & y, w);
  if (op == "ori")
    return wrap(x | y, w);
  if (op == "xori")
    return wrap(x ^ y, w);
  if (op == "minsi")
    return std::min(a, b);
  if (op == "maxsi")
    return std::max(a, b);
  if (op == "minui")
    return ux < uy ? a : b;
  if (op == "maxui")
    return ux > uy ? a : b;
  if (op == "shli")
    return uy >= w ? 0 : wrap(x << uy, w);
  if (op == "shrsi")
    return uy >= w ? (a < 0 ? -1 : 0) : (a >> uy);
  if (op == "shrui")
    return uy >= w ? 0 : wrap(__int128(ux >> uy), w);
  ADD_FAILURE() << op;
  return 0;
}

TEST(IntervalSemantics, SoundAgainstBruteForce) {
  std::mt19937_64 rng(42);
  const char *ops[] = {"addi",       "subi",      "muli",  "divsi", "remsi",
                       "floordivsi", "ceildivsi", "divui", "remui", "andi",
                       "ori",        "xori",      "minsi", "maxsi", "minui",
                       "maxui",      "shli",      "shrsi", "shrui"};
  for (unsigned width : {8u, 32u}) {
    Iv top = topOf(width);
    auto pick = [&]() {
      // Near zero, near the limits, or anywhere.
      std::uniform_int_distribution<int> kind(0, 2);
      int64_t center = kind(rng) == 0   ? 0
                       : kind(rng) == 1 ? top.hi - 3
                                        : int64_t(rng() % 200) - 100;
      int64_t lo = std::max(top.lo, center - int64_t(rng() % 6));
      int64_t hi = std::min(top.hi, lo + int64_t(rng() % 6));
      return Iv{lo, hi};
    };
    for (const char *op : ops)
      for (int trial = 0; trial < 300; ++trial) {
        Iv a = pick(), b = pick();
        if (std::string(op).starts_with("sh"))
          b = {int64_t(rng() % (width + 2)), 0};
        if (std::string(op).starts_with("sh"))
          b.hi = b.lo + int64_t(rng() % 2);
        Iv r;
        ASSERT_TRUE(intBinary(op, a, b, width, r)) << op;
        for (int64_t x = a.lo; x <= a.hi; ++x)
          for (int64_t y = b.lo; y <= b.hi; ++y) {
            int64_t v = concrete(op, x, y, width);
            ASSERT_TRUE(v >= r.lo && v <= r.hi)
                << op << " i" << width << ": " << x << ", " << y << " gives "
                << v << ", outside [" << r.lo << ", " << r.hi << "] for ["
                << a.lo << ", " << a.hi << "] and [" << b.lo << ", " << b.hi
                << "]";
          }
        // Definite operands give a definite result.
        if (a.definite() && b.definite())
          EXPECT_TRUE(r.definite()) << op;
      }
  }
  // Comparisons: a definite answer must be the answer for every pair.
  const char *preds[] = {"eq",  "ne",  "slt", "sle", "sgt",
                         "sge", "ult", "ule", "ugt", "uge"};
  for (int p = 0; p < 10; ++p)
    for (int trial = 0; trial < 300; ++trial) {
      Iv a{int64_t(rng() % 20) - 10, 0}, b{int64_t(rng() % 20) - 10, 0};
      a.hi = a.lo + int64_t(rng() % 4);
      b.hi = b.lo + int64_t(rng() % 4);
      Iv r = intCompare(p, a, b, 32);
      for (int64_t x = a.lo; x <= a.hi; ++x)
        for (int64_t y = b.lo; y <= b.hi; ++y) {
          uint64_t ux = asUnsigned(x, 32), uy = asUnsigned(y, 32);
          bool v = p == 0   ? x == y
                   : p == 1 ? x != y
                   : p == 2 ? x < y
                   : p == 3 ? x <= y
                   : p == 4 ? x > y
                   : p == 5 ? x >= y
                   : p == 6 ? ux < uy
                   : p == 7 ? ux <= uy
                   : p == 8 ? ux > uy
                            : ux >= uy;
          ASSERT_TRUE(int64_t(v) >= r.lo && int64_t(v) <= r.hi)
              << preds[p] << " " << x << " " << y;
        }
    }
  // i1 logic is three-valued.
  Iv t = Iv::of(1), f = Iv::of(0), u{0, 1}, r;
  ASSERT_TRUE(intBinary("andi", f, u, 1, r));
  EXPECT_EQ(r, f);
  ASSERT_TRUE(intBinary("ori", t, u, 1, r));
  EXPECT_EQ(r, t);
  ASSERT_TRUE(intBinary("andi", t, u, 1, r));
  EXPECT_EQ(r, u);
  EXPECT_EQ(intCast("extsi", t, 1, 32), Iv::of(-1));
  EXPECT_EQ(intCast("extui", t, 1, 32), Iv::of(1));
  EXPECT_EQ(intCast("trunci", Iv{0, 300}, 32, 8), topOf(8));
  EXPECT_EQ(intCast("trunci", Iv::of(300), 32, 8), Iv::of(44));
}

//===----------------------------------------------------------------------===//
// Expressions, workload files, ptxas reports
//===----------------------------------------------------------------------===//

int64_t eval(llvm::StringRef e, const Vars &vars = {}) {
  auto v = evalExpr(e, vars);
  EXPECT_TRUE(bool(v)) << e.str();
  if (!v) {
    llvm::consumeError(v.takeError());
    return 0;
  }
  return *v;
}
std::string evalError(llvm::StringRef e, const Vars &vars = {}) {
  auto v = evalExpr(e, vars);
  EXPECT_FALSE(bool(v)) << e.str();
  return v ? "" : llvm::toString(v.takeError());
}

TEST(Expressions, Values) {
  Vars v = {{"N", 1000}, {"M", 7}};
  EXPECT_EQ(eval("2^28"), int64_t(1) << 28);
  EXPECT_EQ(eval("2^3^2"), 512); // right associative
  EXPECT_EQ(eval("cdiv(N, 1024)", v), 1);
  EXPECT_EQ(eval("cdiv(N,128)*128 - N", v), 24);
  EXPECT_EQ(eval("-7 / 2"), -4); // floor division
  EXPECT_EQ(eval("-7 % 2"), 1);
  EXPECT_EQ(eval("min(M, 3) + max(M, 3)", v), 10);
  EXPECT_EQ(eval("0x10 * (M + 1)", v), 128);
  EXPECT_EQ(evalError("N + Q", v),
            "expression 'N + Q': unknown variable 'Q' (set: M, N) at "
            "position 5");
  EXPECT_EQ(evalError("N / (M - 7)", v),
            "expression 'N / (M - 7)': division by zero at position 5");
  EXPECT_EQ(evalError("2^64"),
            "expression '2^64': the value overflows 64 bits at position 5");
  EXPECT_EQ(evalError("cdiv(4, 0)"),
            "expression 'cdiv(4, 0)': cdiv by a divisor that is not positive "
            "at position 1");
  EXPECT_EQ(evalError("pow(2, 3)"),
            "expression 'pow(2, 3)': unknown function 'pow' (known: cdiv, "
            "min, max) at position 1");
  EXPECT_EQ(evalError("(1 + 2"), "expression '(1 + 2': expected ')' at "
                                 "position 7");
  EXPECT_EQ(evalError("3 3"), "expression '3 3': unexpected '3' at position 3");
  EXPECT_EQ(evalError(""), "empty expression");
  EXPECT_EQ(evalError("12abc"),
            "expression '12abc': bad number '12abc' at position 1");
}

TEST(Workloads, TheExamplesFileReads) {
  auto specs =
      parseWorkloadsFile(std::string(TILEC_EXAMPLES_DIR) + "/workloads.json");
  ASSERT_TRUE(bool(specs)) << llvm::toString(specs.takeError());
  ASSERT_EQ(specs->size(), 10u);
  const WorkloadSpec &unfused = (*specs)[3];
  EXPECT_EQ(unfused.group, "fusion: cos(cos(x)) fp32 2^28");
  ASSERT_EQ(unfused.launches.size(), 2u);
  EXPECT_EQ(unfused.launches[1].args[0], "n=N,buf=t");
  EXPECT_EQ(unfused.launches[0].file,
            std::string(TILEC_EXAMPLES_DIR) + "/cos.tile");
  auto vars = evalVars((*specs)[9]);
  ASSERT_TRUE(bool(vars));
  EXPECT_EQ(vars->at("K"), 8192);
  auto doubled = evalVars((*specs)[9], {{"M", 16384}});
  ASSERT_TRUE(bool(doubled));
  EXPECT_EQ(doubled->at("M"), 16384);
}

std::string workloadsError(const std::string &json) {
  llvm::SmallString<128> path;
  llvm::sys::fs::createTemporaryFile("workloads", "json", path);
  {
    std::ofstream out(path.c_str());
    out << json;
  }
  auto specs = parseWorkloadsFile(path);
  llvm::sys::fs::remove(path);
  EXPECT_FALSE(bool(specs)) << json;
  if (specs)
    return "";
  std::string message = llvm::toString(specs.takeError());
  // Without the temporary file's name.
  size_t colon = message.find(": ");
  return message.substr(colon + 2);
}

TEST(Workloads, FileErrors) {
  EXPECT_EQ(workloadsError("{\"w\": 1}"), "expected {\"workloads\": [...]}");
  EXPECT_EQ(workloadsError("{\"workloads\": [3]}"),
            "workloads[0] must be an object");
  EXPECT_EQ(workloadsError("{\"workloads\": [{\"name\": \"a\", \"lanches\": "
                           "[]}]}"),
            "workloads[0] ('a'): unknown key 'lanches' (known: name, group, "
            "label, vars, batch, sweep, launches)");
  EXPECT_EQ(workloadsError("{\"workloads\": [{\"launches\": []}]}"),
            "workloads[0]: 'name' is missing");
  EXPECT_EQ(workloadsError("{\"workloads\": [{\"name\": \"a\", \"batch\": "
                           "\"N\", \"launches\": []}]}"),
            "workloads[0] ('a'): the batch variable 'N' is not among its "
            "vars");
  EXPECT_EQ(workloadsError("{\"workloads\": [{\"name\": \"a\", \"launches\": "
                           "[]}]}"),
            "workloads[0] ('a'): 'launches' must be a non-empty array");
  EXPECT_EQ(workloadsError("{\"workloads\": [{\"name\": \"a\", \"launches\": "
                           "[{\"grid\": [\"1\"], \"args\": []}]}]}"),
            "workloads[0] ('a'), launches[0]: 'file' is missing");
  EXPECT_EQ(workloadsError("{\"workloads\": [{\"name\": \"a\", \"launches\": "
                           "[{\"file\": \"k.tile\", \"grid\": 4, \"args\": "
                           "[]}]}]}"),
            "workloads[0] ('a'), launches[0]: 'grid' must be an array of "
            "strings");
  EXPECT_EQ(workloadsError("{\"workloads\": [{\"name\": \"a\", \"sweep\": "
                           "[\"2\"], \"launches\": [{}]}]}"),
            "workloads[0] ('a'): 'sweep' needs a 'batch' variable to vary");
  EXPECT_NE(workloadsError("{").find("not JSON"), std::string::npos);
  auto missing = parseWorkloadsFile("/nonexistent/w.json");
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "cannot read workloads file '/nonexistent/w.json': No such file "
            "or directory");
}

TEST(Workloads, ArgumentSpecs) {
  LaunchSpec spec;
  spec.kernel = "k";
  spec.args = {"n=N*2,buf=t", "N", "1e-5"};
  Vars vars = {{"N", 8}};
  auto args = evalArgs(spec, vars, {"x", "n", "eps"}, {true, false, false},
                       {false, false, true});
  ASSERT_TRUE(bool(args));
  EXPECT_EQ((*args)[0].count, 16u);
  EXPECT_EQ((*args)[0].buffer, "t");
  EXPECT_EQ((*args)[1].intValue, 8);
  EXPECT_DOUBLE_EQ((*args)[2].floatValue, 1e-5);
  auto error = [&](std::vector<std::string> specs) {
    spec.args = specs;
    auto a = evalArgs(spec, vars, {"x", "n", "eps"}, {true, false, false},
                      {false, false, true});
    EXPECT_FALSE(bool(a));
    return a ? "" : llvm::toString(a.takeError());
  };
  EXPECT_EQ(error({"8", "N", "1"}),
            "argument 0 ('x' = '8'): 'x' is a pointer: give n=COUNT[,buf=NAME] "
            "(unknown item '8')");
  EXPECT_EQ(error({"buf=t", "N", "1"}),
            "argument 0 ('x' = 'buf=t'): 'x' is a pointer: give its buffer "
            "size as n=COUNT");
  EXPECT_EQ(error({"n=8", "n=8", "1"}),
            "argument 1 ('n' = 'n=8'): 'n' is a scalar: give a value, not a "
            "buffer");
  EXPECT_EQ(error({"n=8", "N", "small"}),
            "argument 2 ('eps' = 'small'): 'eps' is a float: give a number "
            "(expression 'small': unknown variable 'small' (set: N) at "
            "position 1)");
  EXPECT_EQ(error({"n=-1", "N", "1"}),
            "argument 0 ('x' = 'n=-1'): a buffer cannot have -1 elements");
  EXPECT_EQ(error({"n=8"}),
            "kernel 'k' takes 3 arguments (x, n, eps) but 1 was given");
  LaunchSpec grid;
  grid.grid = {"1", "2", "3", "4"};
  auto g = evalGrid(grid, vars);
  ASSERT_FALSE(bool(g));
  EXPECT_EQ(llvm::toString(g.takeError()),
            "the grid needs 1 to 3 sizes, got 4");
}

TEST(Ptxas, ReportParses) {
  std::map<std::string, Resources> r;
  for (auto &[name, used] : tilec::runtime::parsePtxasReport(R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'softmax' for 'sm_90'
ptxas info    : Function properties for softmax
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 27 registers, used 1 barriers, 32 bytes smem
ptxas info    : Compiling entry function 'matmul' for 'sm_90'
ptxas info    : Function properties for matmul
    6520 bytes stack frame, 17360 bytes spill stores, 15728 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 6520 bytes cumulative stack size
)"))
    r[name] = Resources::fromPtxas(used);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r["softmax"].registers, 27);
  EXPECT_EQ(r["softmax"].staticSharedBytes, 32);
  EXPECT_EQ(r["softmax"].spillBytes, 0);
  EXPECT_EQ(r["matmul"].registers, 32);
  EXPECT_EQ(r["matmul"].staticSharedBytes, 0);
  EXPECT_EQ(r["matmul"].spillBytes, 17360 + 15728);
  EXPECT_EQ(r["matmul"].stackBytes, 6520);
  EXPECT_EQ(r["matmul"].source, "ptxas -v");
}

TEST(Ptxas, TensorCoreInstructions) {
  EXPECT_TRUE(hasTensorCoreInstructions(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1}"));
  EXPECT_TRUE(hasTensorCoreInstructions("wgmma.mma_async.sync.aligned"));
  EXPECT_FALSE(hasTensorCoreInstructions("fma.rn.f32 %f1, %f2, %f3, %f4;"));
  LaunchCounts c;
  c.dots = {{"bf16", 100, 90}, {"ieee", 10, 10}};
  countDotsOnFmaPipe(c, "matmul");
  EXPECT_EQ(c.dots[0].kind, "fma:bf16");
  EXPECT_EQ(c.dots[1].kind, "ieee");
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0], "matmul.ptx has no tensor-core instructions (mma, "
                        "wgmma): its tile.dot work is counted on the FMA "
                        "pipe");
  countDotsOnFmaPipe(c, "matmul"); // once is enough
  EXPECT_EQ(c.notes.size(), 1u);
}

//===----------------------------------------------------------------------===//
// Whole workloads through the front end
//===----------------------------------------------------------------------===//

class WorkloadTest : public InterpreterTest {
protected:
  WorkloadTest() { context.printOpOnDiagnostic(false); }
  mlir::FailureOr<WorkloadAnalysis> analyze(const std::string &name) {
    auto specs =
        parseWorkloadsFile(std::string(TILEC_EXAMPLES_DIR) + "/workloads.json");
    EXPECT_TRUE(bool(specs));
    AnalyzeOptions options;
    options.device = *builtinDeviceModel("h200");
    options.compile = false; // counts only: no PTX needed here
    WorkloadAnalyzer analyzer(context, options);
    for (const WorkloadSpec &s : *specs)
      if (s.name == name) {
        auto a = analyzer.analyze(s);
        EXPECT_TRUE(mlir::succeeded(a)) << errors << analyzer.error();
        return a;
      }
    ADD_FAILURE() << "no workload " << name;
    return mlir::failure();
  }
};

TEST_F(WorkloadTest, FusionHalvesTheBytes) {
  auto fused = analyze("cos(cos(x)) fp32 2^28");
  auto unfused = analyze("cos, cos fp32 2^28 (unfused)");
  ASSERT_TRUE(mlir::succeeded(fused) && mlir::succeeded(unfused));
  const uint64_t n = uint64_t(1) << 28;
  EXPECT_EQ(fused->points[0].minimalBytes(), 8 * n);
  EXPECT_EQ(unfused->points[0].minimalBytes(), 16 * n);
  EXPECT_EQ(fused->points[0].work().special.at("cos"), double(2 * n));
  EXPECT_EQ(unfused->points[0].work().special.at("cos"), double(2 * n));
  // N and 2N.
  ASSERT_EQ(fused->points.size(), 2u);
  EXPECT_EQ(fused->points[1].vars[0].second, int64_t(2 * n));
  EXPECT_EQ(fused->points[1].minimalBytes(), 16 * n);
  // The unfused launches share t: written by the first, read by the second.
  EXPECT_EQ(unfused->points[0].launches[1].args[0].buffer, "t");
  // The front end inlined nothing here; the counts come from after it.
  EXPECT_EQ(fused->points[0].launches[0].counts.evaluations, 1u);
  Prediction p = fused->points[0].predict(fused->device);
  EXPECT_EQ(p.regime(), "bandwidth");
}

TEST_F(WorkloadTest, GeluAndReluMoveTheSameBytes) {
  auto gelu = analyze("gelu(x+b) bf16 16384^2");
  auto relu = analyze("relu(x+b) bf16 16384^2");
  ASSERT_TRUE(mlir::succeeded(gelu) && mlir::succeeded(relu));
  EXPECT_EQ(gelu->points[0].minimalBytes(), relu->points[0].minimalBytes());
  WorkByClass g = gelu->points[0].work(), r = relu->points[0].work();
  const double n = 16384.0 * 16384;
  EXPECT_EQ(g.special.at("erf"), n);
  EXPECT_EQ(g.fp32Flops, 5 * n);
  EXPECT_EQ(r.fp32Flops, 2 * n); // bias add and max
  EXPECT_EQ(gelu->points[0].predict(gelu->device).regime(), "bandwidth");
  EXPECT_EQ(relu->points[0].predict(relu->device).regime(), "bandwidth");
}

TEST_F(WorkloadTest, TinyAddIsOverheadAndMatmulCompute) {
  auto tiny = analyze("add fp32 2^12 (tiny)");
  ASSERT_TRUE(mlir::succeeded(tiny));
  EXPECT_EQ(tiny->points[0].predict(tiny->device).regime(), "overhead");
  auto mm = analyze("matmul bf16 8192^3");
  ASSERT_TRUE(mlir::succeeded(mm));
  const LaunchCounts &c = mm->points[0].launches[0].counts;
  EXPECT_EQ(c.dots[0].flops, 2ull * 8192 * 8192 * 8192);
  EXPECT_EQ(c.dots[0].useful, c.dots[0].flops);
  EXPECT_EQ(c.evaluations, 1u);
  // Each A tile is read by all 64 column programs.
  EXPECT_EQ(c.buffers[0].loaded, 64ull * 8192 * 8192);
  Prediction p = mm->points[0].predict(mm->device);
  EXPECT_EQ(p.regime(), "compute");
  EXPECT_EQ(p.limit, "tensor");
}

} // namespace
