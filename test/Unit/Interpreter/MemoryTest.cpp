//===- MemoryTest.cpp - atomics, control flow, calls, print, the checker --===//

#include "TestUtil.h"

using namespace tilec;
using namespace tilec::test;

namespace {

class MemoryTest : public InterpreterTest {};

TEST_F(MemoryTest, AtomicsReturnOldValuesInProgramOrder) {
  auto module = parse(R"mlir(
func.func @count(%ctr: !tile.ptr<i32>, %olds: !tile.ptr<i32>,
                 %acc: !tile.ptr<f32>, %mx: !tile.ptr<i32>)
    attributes {tile.kernel} {
  %one = arith.constant 1 : i32
  %three = arith.constant 3 : i32
  %pid = tile.program_id 0
  %pidy = tile.program_id 1
  %rowstart = arith.muli %pidy, %three : i32
  %linear = arith.addi %rowstart, %pid : i32
  %old = tile.atomic_rmw add %ctr, %one : !tile.ptr<i32>
  %slot = tile.addptr %olds, %linear : !tile.ptr<i32>, i32
  tile.store %slot, %old : !tile.ptr<i32>
  %r = tile.range 0, 8 : tensor<8xi32>
  %as = tile.splat %acc : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %ap = tile.addptr %as, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %rf = arith.sitofp %r : tensor<8xi32> to tensor<8xf32>
  %m = arith.constant dense<true> : tensor<8xi1>
  %o = tile.atomic_rmw fadd %ap, %rf, %m : tensor<8x!tile.ptr<f32>>
  %o2 = tile.atomic_rmw max %mx, %pid : !tile.ptr<i32>
  return
}
)mlir");
  ASSERT_TRUE(module);
  int32_t counter = 100, max = -5;
  std::vector<int32_t> olds(6);
  std::vector<float> acc(8, 0.5f);
  auto stats = runKernel(*module, "count", {3, 2},
                         {Arg::buffer(&counter, 1), Arg::output(olds.data(), 6),
                          Arg::buffer(acc.data(), 8), Arg::buffer(&max, 1)});
  ASSERT_TRUE(mlir::succeeded(stats)) << errors;
  EXPECT_EQ(counter, 106);
  EXPECT_EQ(max, 2);
  // Programs run x fastest: (0,0) (1,0) (2,0) (0,1) ...
  EXPECT_EQ(olds, (std::vector<int32_t>{100, 101, 102, 103, 104, 105}));
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(acc[i], 0.5f + 6 * i);
  EXPECT_EQ(stats->atomics, 6u * 10);
}

TEST_F(MemoryTest, CompareAndSwap) {
  auto module = parse(R"mlir(
func.func @lock(%l: !tile.ptr<i32>, %got: !tile.ptr<i32>)
    attributes {tile.kernel} {
  %zero = arith.constant 0 : i32
  %pid = tile.program_id 0
  %one = arith.constant 1 : i32
  %id = arith.addi %pid, %one : i32
  %old = tile.atomic_cas %l, %zero, %id : !tile.ptr<i32>
  %slot = tile.addptr %got, %pid : !tile.ptr<i32>, i32
  tile.store %slot, %old : !tile.ptr<i32>
  return
}
)mlir");
  ASSERT_TRUE(module);
  int32_t lock = 0;
  std::vector<int32_t> got(3);
  ASSERT_TRUE(mlir::succeeded(
      runKernel(*module, "lock", {3},
                {Arg::buffer(&lock, 1), Arg::output(got.data(), 3)})))
      << errors;
  EXPECT_EQ(lock, 1); // program 0 took it
  EXPECT_EQ(got, (std::vector<int32_t>{0, 1, 1}));
}

TEST_F(MemoryTest, ControlFlowAndCalls) {
  // scf.while (Collatz steps), scf.for carrying a tile, scf.if with results
  // and a call to a tile function, all without inlining.
  auto module = parse(R"mlir(
func.func private @twice(%t: tensor<4xi32>) -> tensor<4xi32> {
  %s = arith.addi %t, %t : tensor<4xi32>
  return %s : tensor<4xi32>
}
func.func @cf(%n: i32, %out: !tile.ptr<i32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %steps:2 = scf.while (%x = %n, %k = %c0) : (i32, i32) -> (i32, i32) {
    %more = arith.cmpi ne, %x, %c1 : i32
    scf.condition(%more) %x, %k : i32, i32
  } do {
  ^bb0(%x: i32, %k: i32):
    %r = arith.remsi %x, %c2 : i32
    %even = arith.cmpi eq, %r, %c0 : i32
    %next = scf.if %even -> i32 {
      %h = arith.divsi %x, %c2 : i32
      scf.yield %h : i32
    } else {
      %t = arith.muli %x, %c3 : i32
      %t1 = arith.addi %t, %c1 : i32
      scf.yield %t1 : i32
    }
    %k1 = arith.addi %k, %c1 : i32
    scf.yield %next, %k1 : i32, i32
  }
  tile.store %out, %steps#1 : !tile.ptr<i32>
  %r4 = tile.range 0, 4 : tensor<4xi32>
  %acc = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %r4)
      -> (tensor<4xi32>) : i32 {
    %d = func.call @twice(%a) : (tensor<4xi32>) -> tensor<4xi32>
    scf.yield %d : tensor<4xi32>
  }
  %os = tile.splat %out : !tile.ptr<i32> -> tensor<4x!tile.ptr<i32>>
  %one4 = tile.splat %c1 : i32 -> tensor<4xi32>
  %r41 = arith.addi %r4, %one4 : tensor<4xi32>
  %op = tile.addptr %os, %r41 : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
  tile.store %op, %acc : tensor<4x!tile.ptr<i32>>
  return
}
)mlir");
  ASSERT_TRUE(module);
  std::vector<int32_t> out(5);
  ASSERT_TRUE(mlir::succeeded(
      runKernel(*module, "cf", {1},
                {Arg::scalar<int32_t>(27), Arg::output(out.data(), 5)})))
      << errors;
  EXPECT_EQ(out, (std::vector<int32_t>{111, 0, 8, 16, 24}));
}

TEST_F(MemoryTest, PrintWritesEveryElement) {
  auto module = parse(R"mlir(
func.func @p(%x: f32) attributes {tile.kernel} {
  %r = tile.range 0, 3 : tensor<3xi32>
  %pid = tile.program_id 0
  tile.print "r = " %r : tensor<3xi32>
  tile.print "x " hex %x, %pid : f32, i32
  return
}
)mlir");
  ASSERT_TRUE(module);
  std::string text;
  llvm::raw_string_ostream os(text);
  RunOptions options;
  options.printStream = &os;
  ASSERT_TRUE(mlir::succeeded(
      runKernel(*module, "p", {2}, {Arg::scalar(1.5f)}, options)))
      << errors;
  EXPECT_EQ(text, "pid (0, 0, 0) idx [0] r = 0\n"
                  "pid (0, 0, 0) idx [1] r = 1\n"
                  "pid (0, 0, 0) idx [2] r = 2\n"
                  "pid (0, 0, 0) x (operand 0) 0x3fc00000\n"
                  "pid (0, 0, 0) x (operand 1) 0x00000000\n"
                  "pid (1, 0, 0) idx [0] r = 0\n"
                  "pid (1, 0, 0) idx [1] r = 1\n"
                  "pid (1, 0, 0) idx [2] r = 2\n"
                  "pid (1, 0, 0) x (operand 0) 0x3fc00000\n"
                  "pid (1, 0, 0) x (operand 1) 0x00000001\n");
}

/// A kernel loading 8 elements at offset `start` of %x (masked by
/// offs < n when `masked`) and storing them to %y.
std::string copyKernel(bool masked) {
  std::string load = masked
                         ? "%v = tile.load %xp, %m : tensor<8x!tile.ptr<f32>>"
                         : "%v = tile.load %xp : tensor<8x!tile.ptr<f32>>";
  return R"mlir(
func.func @copy(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %start: i32, %n: i32)
    attributes {tile.kernel} {
  %r = tile.range 0, 8 : tensor<8xi32>
  %s = tile.splat %start : i32 -> tensor<8xi32>
  %offs = arith.addi %r, %s : tensor<8xi32>
  %ns = tile.splat %n : i32 -> tensor<8xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<8xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  )mlir" +
         load + R"mlir(
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %yp, %v : tensor<8x!tile.ptr<f32>>
  return
}
)mlir";
}

TEST_F(MemoryTest, CheckerReportsOutOfBoundsAccesses) {
  std::vector<float> x(10, 1.0f), y(8);
  auto masked = parse(copyKernel(true));
  auto unmasked = parse(copyKernel(false));
  ASSERT_TRUE(masked && unmasked);
  // In bounds thanks to the mask.
  EXPECT_TRUE(mlir::succeeded(
      runKernel(*masked, "copy", {1},
                {Arg::buffer(x.data(), 10).named("x"), Arg::buffer(y.data(), 8),
                 Arg::scalar<int32_t>(5), Arg::scalar<int32_t>(10)})))
      << errors;
  // The same access without the mask reads past the end.
  EXPECT_TRUE(mlir::failed(
      runKernel(*unmasked, "copy", {1},
                {Arg::buffer(x.data(), 10).named("x"), Arg::buffer(y.data(), 8),
                 Arg::scalar<int32_t>(5), Arg::scalar<int32_t>(10)})));
  EXPECT_NE(errors.find("out-of-bounds tile.load in program (0, 0, 0) at "
                        "element [5]: offset 10 of %x, which has 10 elements "
                        "of f32 (the access has no mask; 3 elements of this "
                        "access fault)"),
            std::string::npos)
      << errors;
  // A negative offset: before the start.
  errors.clear();
  EXPECT_TRUE(mlir::failed(
      runKernel(*masked, "copy", {1},
                {Arg::buffer(x.data(), 10), Arg::buffer(y.data(), 8),
                 Arg::scalar<int32_t>(-2), Arg::scalar<int32_t>(10)})));
  EXPECT_NE(errors.find("at element [0]: offset -2 of argument 0, which has "
                        "10 elements of f32 (its mask is true; 2 elements"),
            std::string::npos)
      << errors;
}

TEST_F(MemoryTest, CheckerReportsUninitializedReads) {
  auto module = parse(copyKernel(true));
  ASSERT_TRUE(module);
  std::vector<float> x(10), y(8);
  EXPECT_TRUE(mlir::failed(
      runKernel(*module, "copy", {1},
                {Arg::output(x.data(), 10).named("x"), Arg::buffer(y.data(), 8),
                 Arg::scalar<int32_t>(0), Arg::scalar<int32_t>(10)})));
  EXPECT_NE(errors.find("tile.load in program (0, 0, 0) at element [0] reads "
                        "uninitialized memory: offset 0 of %x"),
            std::string::npos)
      << errors;
}

TEST_F(MemoryTest, CheckerReportsMisalignedAccesses) {
  auto module = parse(R"mlir(
func.func @mis(%x: !tile.ptr<f16>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : i32
  %p = tile.addptr %x, %c1 : !tile.ptr<f16>, i32
  %q = tile.bitcast %p : !tile.ptr<f16> -> !tile.ptr<i32>
  %v = tile.load %q : !tile.ptr<i32>
  return
}
)mlir");
  ASSERT_TRUE(module);
  std::vector<uint16_t> x(8);
  EXPECT_TRUE(mlir::failed(
      runKernel(*module, "mis", {1}, {Arg::buffer(x.data(), 8, DType::F16)})));
  EXPECT_NE(errors.find("misaligned tile.load in program (0, 0, 0): byte "
                        "offset 2 (4-byte elements) of argument 0, which has "
                        "8 elements of f16 is not a multiple of 4 bytes"),
            std::string::npos)
      << errors;
}

TEST_F(MemoryTest, AssertReportsProgramAndElement) {
  auto module = parse(R"mlir(
func.func @a(%n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 16 : tensor<16xi32>
  %pid = tile.program_id 0
  %p = tile.splat %pid : i32 -> tensor<16xi32>
  %s = arith.addi %r, %p : tensor<16xi32>
  %ns = tile.splat %n : i32 -> tensor<16xi32>
  %ok = arith.cmpi slt, %s, %ns : tensor<16xi32>
  tile.assert %ok, "index out of range" : tensor<16xi1>
  return
}
)mlir");
  ASSERT_TRUE(module);
  EXPECT_TRUE(
      mlir::failed(runKernel(*module, "a", {4}, {Arg::scalar<int32_t>(17)})));
  EXPECT_NE(errors.find("assertion failed in program (2, 0, 0) at element "
                        "[15]: index out of range"),
            std::string::npos)
      << errors;
}

/// Every program stores to out[0]: its id (racy) or 7 (the same value, no
/// race); with `lock`, an atomic_cas first (a kernel that synchronizes).
std::string sharedStoreKernel(bool sameValue, bool lock) {
  std::string value = sameValue ? "%seven" : "%pid";
  std::string cas = lock ? "  %o = tile.atomic_cas %l, %c0, %seven : "
                           "!tile.ptr<i32>\n"
                         : "";
  return R"mlir(
func.func @shared(%out: !tile.ptr<i32>, %l: !tile.ptr<i32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %seven = arith.constant 7 : i32
  %pid = tile.program_id 0
)mlir" + cas +
         "  tile.store %out, " + value + R"mlir( : !tile.ptr<i32>
  return
}
)mlir";
}

TEST_F(MemoryTest, RacesBetweenPrograms) {
  int32_t out = 0, lock = 0;
  auto args = [&] {
    return std::vector<Arg>{Arg::buffer(&out, 1).named("out"),
                            Arg::buffer(&lock, 1)};
  };
  auto racy = parse(sharedStoreKernel(false, false));
  ASSERT_TRUE(racy);
  EXPECT_TRUE(mlir::failed(runKernel(*racy, "shared", {3}, args())));
  EXPECT_NE(errors.find("tile.store in program (1, 0, 0) overwrites offset 0 "
                        "of %out, which has 1 element of i32, which program "
                        "(0, 0, 0) stored with another value"),
            std::string::npos)
      << errors;
  RunOptions unchecked;
  unchecked.checkRaces = false;
  EXPECT_TRUE(mlir::succeeded(
      runKernel(*racy, "shared", {3}, args(), unchecked)));
  EXPECT_EQ(out, 2);
  // The same value from every program, or a kernel that synchronizes its
  // programs, is not reported.
  for (auto [same, lock] : {std::pair{true, false}, std::pair{false, true}}) {
    errors.clear();
    auto module = parse(sharedStoreKernel(same, lock));
    ASSERT_TRUE(module);
    EXPECT_TRUE(mlir::succeeded(runKernel(*module, "shared", {3}, args())))
        << errors;
  }
}

TEST_F(MemoryTest, ReadOfAnotherProgramsStore) {
  // out[pid] = out[pid - 1] + 1: program 1 depends on program 0's store.
  auto module = parse(R"mlir(
func.func @chain(%out: !tile.ptr<i32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %pid = tile.program_id 0
  %prev = arith.subi %pid, %c1 : i32
  %has = arith.cmpi sgt, %pid, %c0 : i32
  %pp = tile.addptr %out, %prev : !tile.ptr<i32>, i32
  %v = tile.load %pp, %has, %c0 : !tile.ptr<i32>
  %n = arith.addi %v, %c1 : i32
  %p = tile.addptr %out, %pid : !tile.ptr<i32>, i32
  tile.store %p, %n : !tile.ptr<i32>
  return
}
)mlir");
  ASSERT_TRUE(module);
  std::vector<int32_t> out(4, 0);
  EXPECT_TRUE(mlir::failed(
      runKernel(*module, "chain", {4}, {Arg::buffer(out.data(), 4)})));
  EXPECT_NE(errors.find("tile.load in program (1, 0, 0) reads offset 0 of "
                        "argument 0, which has 4 elements of i32, which "
                        "program (0, 0, 0) stored: programs run in no "
                        "particular order on the GPU"),
            std::string::npos)
      << errors;
}

TEST_F(MemoryTest, DuplicateAddressesInOneStore) {
  // Four elements store to out[0]: different values race, equal ones not.
  auto kernel = [](const std::string &value) {
    return R"mlir(
func.func @dup(%out: !tile.ptr<i32>) attributes {tile.kernel} {
  %r = tile.range 0, 4 : tensor<4xi32>
  %c5 = arith.constant 5 : i32
  %five = tile.splat %c5 : i32 -> tensor<4xi32>
  %ps = tile.splat %out : !tile.ptr<i32> -> tensor<4x!tile.ptr<i32>>
  tile.store %ps, )mlir" +
           value + R"mlir( : tensor<4x!tile.ptr<i32>>
  return
}
)mlir";
  };
  int32_t out = 0;
  auto racy = parse(kernel("%r"));
  ASSERT_TRUE(racy);
  EXPECT_TRUE(
      mlir::failed(runKernel(*racy, "dup", {1}, {Arg::buffer(&out, 1)})));
  EXPECT_NE(errors.find("tile.store in program (0, 0, 0) writes offset 0 of "
                        "argument 0, which has 1 element of i32 from elements "
                        "[0] and [1] with different values: which one lands "
                        "is undefined on the GPU"),
            std::string::npos)
      << errors;
  auto same = parse(kernel("%five"));
  ASSERT_TRUE(same);
  EXPECT_TRUE(
      mlir::succeeded(runKernel(*same, "dup", {1}, {Arg::buffer(&out, 1)})))
      << errors;
  EXPECT_EQ(out, 5);
}

} // namespace
