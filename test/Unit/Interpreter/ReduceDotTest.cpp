//===- ReduceDotTest.cpp - reductions, scans, dot, shape ops --------------===//

#include "TestUtil.h"

using namespace tilec;
using namespace tilec::test;

namespace {

class ReduceDotTest : public InterpreterTest {};

/// Argmax of 37 floats with a two-operand reduction; ties go to the lower
/// index. `combiner` is the body of the combiner block.
std::string argmaxKernel(const std::string &combiner) {
  return R"mlir(
func.func @argmax(%x: !tile.ptr<f32>, %vo: !tile.ptr<f32>, %io: !tile.ptr<i32>)
    attributes {tile.kernel} {
  %idx = tile.range 0, 37 : tensor<37xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<37x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %idx : tensor<37x!tile.ptr<f32>>, tensor<37xi32>
  %v = tile.load %xp : tensor<37x!tile.ptr<f32>>
  %m, %i = tile.reduce(%v, %idx) axis = 0
      : (tensor<37xf32>, tensor<37xi32>) -> (f32, i32) {
  ^bb0(%av: f32, %ai: i32, %bv: f32, %bi: i32):
)mlir" + combiner +
         R"mlir(
  }
  tile.store %vo, %m : !tile.ptr<f32>
  tile.store %io, %i : !tile.ptr<i32>
  return
}
)mlir";
}

TEST_F(ReduceDotTest, ArgmaxWithTwoOperands) {
  // The elementwise combiner runs on whole tiles; the one with scf.if runs
  // element by element. Both must agree with the reference.
  std::string elementwise = R"mlir(
    %gt = arith.cmpf ogt, %av, %bv : f32
    %eq = arith.cmpf oeq, %av, %bv : f32
    %lt = arith.cmpi slt, %ai, %bi : i32
    %tie = arith.andi %eq, %lt : i1
    %a = arith.ori %gt, %tie : i1
    %rv = arith.select %a, %av, %bv : f32
    %ri = arith.select %a, %ai, %bi : i32
    tile.yield %rv, %ri : f32, i32)mlir";
  std::string branchy = R"mlir(
    %gt = arith.cmpf ogt, %av, %bv : f32
    %eq = arith.cmpf oeq, %av, %bv : f32
    %lt = arith.cmpi slt, %ai, %bi : i32
    %tie = arith.andi %eq, %lt : i1
    %a = arith.ori %gt, %tie : i1
    %rv, %ri = scf.if %a -> (f32, i32) {
      scf.yield %av, %ai : f32, i32
    } else {
      scf.yield %bv, %bi : f32, i32
    }
    tile.yield %rv, %ri : f32, i32)mlir";
  for (const std::string &combiner : {elementwise, branchy}) {
    auto module = parse(argmaxKernel(combiner));
    ASSERT_TRUE(module);
    auto x = randomFloats(37, 21);
    x[30] = x[11] = 5.0f; // a tie: the lower index wins
    float value = 0;
    int32_t index = -1;
    ASSERT_TRUE(mlir::succeeded(
        runKernel(*module, "argmax", {1},
                  {Arg::buffer(x.data(), 37), Arg::output(&value, 1),
                   Arg::output(&index, 1)})))
        << errors;
    EXPECT_EQ(value, 5.0f);
    EXPECT_EQ(index, 11);
  }
}

/// Sums a 5x7 i32 tile along `axis`, and scans it along `axis`.
std::string sumScanKernel(int axis, bool reverse) {
  std::string outShape = axis == 0 ? "7" : "5";
  std::string rev = reverse ? " reverse" : "";
  return R"mlir(
func.func @k(%x: !tile.ptr<i32>, %s: !tile.ptr<i32>, %c: !tile.ptr<i32>)
    attributes {tile.kernel} {
  %r35 = tile.range 0, 35 : tensor<35xi32>
  %idx = tile.reshape %r35 : tensor<35xi32> -> tensor<5x7xi32>
  %xs = tile.splat %x : !tile.ptr<i32> -> tensor<5x7x!tile.ptr<i32>>
  %xp = tile.addptr %xs, %idx : tensor<5x7x!tile.ptr<i32>>, tensor<5x7xi32>
  %v = tile.load %xp : tensor<5x7x!tile.ptr<i32>>
  %sum = tile.reduce(%v) axis = )mlir" +
         std::to_string(axis) + R"mlir( : (tensor<5x7xi32>) -> tensor<)mlir" +
         outShape + R"mlir(xi32> {
  ^bb0(%a: i32, %b: i32):
    %t = arith.addi %a, %b : i32
    tile.yield %t : i32
  }
  %ro = tile.range 0, )mlir" +
         outShape + " : tensor<" + outShape + R"mlir(xi32>
  %ss = tile.splat %s : !tile.ptr<i32> -> tensor<)mlir" +
         outShape + R"mlir(x!tile.ptr<i32>>
  %sp = tile.addptr %ss, %ro : tensor<)mlir" +
         outShape + "x!tile.ptr<i32>>, tensor<" + outShape + R"mlir(xi32>
  tile.store %sp, %sum : tensor<)mlir" +
         outShape + R"mlir(x!tile.ptr<i32>>
  %cum = tile.scan(%v) axis = )mlir" +
         std::to_string(axis) + rev +
         R"mlir( : (tensor<5x7xi32>) -> tensor<5x7xi32> {
  ^bb0(%a: i32, %b: i32):
    %t = arith.addi %a, %b : i32
    tile.yield %t : i32
  }
  %cs = tile.splat %c : !tile.ptr<i32> -> tensor<5x7x!tile.ptr<i32>>
  %cp = tile.addptr %cs, %idx : tensor<5x7x!tile.ptr<i32>>, tensor<5x7xi32>
  tile.store %cp, %cum : tensor<5x7x!tile.ptr<i32>>
  return
}
)mlir";
}

TEST_F(ReduceDotTest, SumAndScanAlongEachAxis) {
  std::vector<int32_t> x(35);
  for (int i = 0; i < 35; ++i)
    x[i] = (i * 37) % 23 - 11;
  for (int axis : {0, 1}) {
    for (bool reverse : {false, true}) {
      auto module = parse(sumScanKernel(axis, reverse));
      ASSERT_TRUE(module);
      std::vector<int32_t> sum(axis == 0 ? 7 : 5), cum(35);
      ASSERT_TRUE(mlir::succeeded(runKernel(
          *module, "k", {1},
          {Arg::buffer(x.data(), 35), Arg::output(sum.data(), sum.size()),
           Arg::output(cum.data(), 35)})))
          << errors;
      for (int r = 0; r < 5; ++r)
        for (int c = 0; c < 7; ++c) {
          int32_t s = 0, prefix = 0;
          for (int k = 0; k < (axis == 0 ? 5 : 7); ++k) {
            int32_t v = axis == 0 ? x[k * 7 + c] : x[r * 7 + k];
            s += v;
            int pos = axis == 0 ? r : c;
            if (reverse ? k >= pos : k <= pos)
              prefix += v;
          }
          EXPECT_EQ(sum[axis == 0 ? c : r], s);
          EXPECT_EQ(cum[r * 7 + c], prefix)
              << "axis " << axis << " reverse " << reverse << " at " << r << ","
              << c;
        }
    }
  }
}

/// d = a * b + c on 2x3 * 3x2 tiles of `type` with accumulator `acc`.
std::string dotKernel(const std::string &type, const std::string &acc,
                      const std::string &attrs = "") {
  auto ptrTile = [&](const std::string &shape, const std::string &t) {
    return "tensor<" + shape + "x!tile.ptr<" + t + ">>";
  };
  auto load = [&](const std::string &name, const std::string &ptr,
                  const std::string &shape, const std::string &t, int64_t n) {
    return "  %r" + name + " = tile.range 0, " + std::to_string(n) +
           " : tensor<" + std::to_string(n) + "xi32>\n  %i" + name +
           " = tile.reshape %r" + name + " : tensor<" + std::to_string(n) +
           "xi32> -> tensor<" + shape + "xi32>\n  %s" + name +
           " = tile.splat " + ptr + " : !tile.ptr<" + t + "> -> " +
           ptrTile(shape, t) + "\n  %p" + name + " = tile.addptr %s" + name +
           ", %i" + name + " : " + ptrTile(shape, t) + ", tensor<" + shape +
           "xi32>\n";
  };
  return "func.func @dot(%a: !tile.ptr<" + type + ">, %b: !tile.ptr<" + type +
         ">, %c: !tile.ptr<" + acc + ">, %d: !tile.ptr<" + acc +
         ">) attributes {tile.kernel} {\n" + load("a", "%a", "2x3", type, 6) +
         load("b", "%b", "3x2", type, 6) + load("c", "%c", "2x2", acc, 4) +
         load("d", "%d", "2x2", acc, 4) +
         "  %va = tile.load %pa : " + ptrTile("2x3", type) +
         "\n  %vb = tile.load %pb : " + ptrTile("3x2", type) +
         "\n  %vc = tile.load %pc : " + ptrTile("2x2", acc) +
         "\n  %vd = tile.dot %va, %vb, %vc " + attrs + ": tensor<2x3x" + type +
         ">, tensor<3x2x" + type + "> -> tensor<2x2x" + acc +
         ">\n  tile.store %pd, %vd : " + ptrTile("2x2", acc) +
         "\n  return\n}\n";
}

TEST_F(ReduceDotTest, DotI8AccumulatesInI32) {
  auto module = parse(dotKernel("i8", "i32"));
  ASSERT_TRUE(module);
  std::vector<int8_t> a = {127, -128, 5, 100, 100, -7},
                      b = {127, 1, 127, 2, -3, 4};
  std::vector<int32_t> c = {1, 2, 3, 4}, d(4);
  ASSERT_TRUE(mlir::succeeded(
      runKernel(*module, "dot", {1},
                {Arg::buffer(a.data(), 6), Arg::buffer(b.data(), 6),
                 Arg::buffer(c.data(), 4), Arg::output(d.data(), 4)})))
      << errors;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      int32_t want = c[i * 2 + j];
      for (int k = 0; k < 3; ++k)
        want += int32_t(a[i * 3 + k]) * b[k * 2 + j];
      EXPECT_EQ(d[i * 2 + j], want);
    }
}

TEST_F(ReduceDotTest, DotF32Tf32RoundsOperands) {
  // 1 + 2^-12 is not a tf32 value: tf32 sees 1, ieee keeps it.
  std::vector<float> a = {1 + 0x1p-12f, 0, 0, 0, 0, 0}, b = {1, 0, 0, 0, 0, 0},
                     c(4, 0.0f), d(4);
  for (auto [attrs, want] :
       {std::pair<std::string, float>{"", 1.0f},
        std::pair<std::string, float>{"{precision = #tile.precision<ieee>} ",
                                      1 + 0x1p-12f}}) {
    auto module = parse(dotKernel("f32", "f32", attrs));
    ASSERT_TRUE(module);
    ASSERT_TRUE(mlir::succeeded(
        runKernel(*module, "dot", {1},
                  {Arg::buffer(a.data(), 6), Arg::buffer(b.data(), 6),
                   Arg::buffer(c.data(), 4), Arg::output(d.data(), 4)})))
        << errors;
    EXPECT_EQ(d[0], want) << attrs;
  }
}

TEST_F(ReduceDotTest, DotF16WithF16Accumulator) {
  auto module = parse(dotKernel("f16", "f16"));
  ASSERT_TRUE(module);
  auto af = randomFloats(6, 22), bf = randomFloats(6, 23),
       cf = randomFloats(4, 24);
  std::vector<uint16_t> a(6), b(6), c(4), d(4);
  for (int i = 0; i < 6; ++i) {
    a[i] = toF16(af[i]);
    b[i] = toF16(bf[i]);
  }
  for (int i = 0; i < 4; ++i)
    c[i] = toF16(cf[i]);
  ASSERT_TRUE(
      mlir::succeeded(runKernel(*module, "dot", {1},
                                {Arg::buffer(a.data(), 6, DType::F16),
                                 Arg::buffer(b.data(), 6, DType::F16),
                                 Arg::buffer(c.data(), 4, DType::F16),
                                 Arg::output(d.data(), 4, DType::F16)})))
      << errors;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      float acc = fromF16(c[i * 2 + j]);
      for (int k = 0; k < 3; ++k)
        acc += fromF16(a[i * 3 + k]) * fromF16(b[k * 2 + j]);
      EXPECT_EQ(d[i * 2 + j], toF16(acc));
    }
}

TEST_F(ReduceDotTest, ShapeOps) {
  // trans, join/split, broadcast, expand_dims, reshape, convert_layout on a
  // 4x6 tile; the kernel writes trans(x) and the split halves of
  // join(x, x * 2) swapped, so out1 = x * 2, out2 = x.
  auto module = parse(R"mlir(
func.func @k(%x: !tile.ptr<i32>, %t: !tile.ptr<i32>, %o1: !tile.ptr<i32>,
             %o2: !tile.ptr<i32>, %row: !tile.ptr<i32>)
    attributes {tile.kernel} {
  %r24 = tile.range 0, 24 : tensor<24xi32>
  %i = tile.reshape %r24 : tensor<24xi32> -> tensor<4x6xi32>
  %xs = tile.splat %x : !tile.ptr<i32> -> tensor<4x6x!tile.ptr<i32>>
  %xp = tile.addptr %xs, %i : tensor<4x6x!tile.ptr<i32>>, tensor<4x6xi32>
  %v = tile.load %xp : tensor<4x6x!tile.ptr<i32>>
  %vt = tile.trans %v, [1, 0] : tensor<4x6xi32> -> tensor<6x4xi32>
  %it = tile.reshape %r24 : tensor<24xi32> -> tensor<6x4xi32>
  %ts = tile.splat %t : !tile.ptr<i32> -> tensor<6x4x!tile.ptr<i32>>
  %tp = tile.addptr %ts, %it : tensor<6x4x!tile.ptr<i32>>, tensor<6x4xi32>
  tile.store %tp, %vt : tensor<6x4x!tile.ptr<i32>>
  %two = arith.constant dense<2> : tensor<4x6xi32>
  %v2 = arith.muli %v, %two : tensor<4x6xi32>
  %j = tile.join %v, %v2 : tensor<4x6xi32> -> tensor<4x6x2xi32>
  %jc = tile.convert_layout %j : tensor<4x6x2xi32> -> tensor<4x6x2xi32>
  %lo, %hi = tile.split %jc : tensor<4x6x2xi32> -> tensor<4x6xi32>
  %o1s = tile.splat %o1 : !tile.ptr<i32> -> tensor<4x6x!tile.ptr<i32>>
  %o1p = tile.addptr %o1s, %i : tensor<4x6x!tile.ptr<i32>>, tensor<4x6xi32>
  tile.store %o1p, %hi : tensor<4x6x!tile.ptr<i32>>
  %o2s = tile.splat %o2 : !tile.ptr<i32> -> tensor<4x6x!tile.ptr<i32>>
  %o2p = tile.addptr %o2s, %i : tensor<4x6x!tile.ptr<i32>>, tensor<4x6xi32>
  tile.store %o2p, %lo : tensor<4x6x!tile.ptr<i32>>
  %r6 = tile.range 0, 6 : tensor<6xi32>
  %r16 = tile.expand_dims %r6, 0 : tensor<6xi32> -> tensor<1x6xi32>
  %rb = tile.broadcast %r16 : tensor<1x6xi32> -> tensor<4x6xi32>
  %rs = tile.splat %row : !tile.ptr<i32> -> tensor<4x6x!tile.ptr<i32>>
  %rp = tile.addptr %rs, %i : tensor<4x6x!tile.ptr<i32>>, tensor<4x6xi32>
  tile.store %rp, %rb : tensor<4x6x!tile.ptr<i32>>
  return
}
)mlir");
  ASSERT_TRUE(module);
  std::vector<int32_t> x(24), t(24), o1(24), o2(24), row(24);
  for (int i = 0; i < 24; ++i)
    x[i] = i * 3 + 1;
  ASSERT_TRUE(mlir::succeeded(
      runKernel(*module, "k", {1},
                {Arg::buffer(x.data(), 24), Arg::output(t.data(), 24),
                 Arg::output(o1.data(), 24), Arg::output(o2.data(), 24),
                 Arg::output(row.data(), 24)})))
      << errors;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) {
      EXPECT_EQ(t[c * 4 + r], x[r * 6 + c]);
      EXPECT_EQ(o1[r * 6 + c], 2 * x[r * 6 + c]);
      EXPECT_EQ(o2[r * 6 + c], x[r * 6 + c]);
      EXPECT_EQ(row[r * 6 + c], c);
    }
}

TEST_F(ReduceDotTest, CombinerConstantsTakeTheTilesShape) {
  // Combiners whose results start from a constant: 0 + a + b (a sum), and a
  // scan yielding the constant 7 (every element but the first becomes 7).
  // Odd lengths make the tree reduce 1-element tiles.
  auto module = parse(R"mlir(
func.func @k(%x: !tile.ptr<f32>, %sum: !tile.ptr<f32>, %sc: !tile.ptr<f32>)
    attributes {tile.kernel} {
  %r = tile.range 0, 3 : tensor<3xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<3x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<3x!tile.ptr<f32>>, tensor<3xi32>
  %v = tile.load %xp : tensor<3x!tile.ptr<f32>>
  %s = tile.reduce(%v) axis = 0 : (tensor<3xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %z = arith.constant 0.0 : f32
    %za = arith.addf %z, %a : f32
    %t = arith.addf %za, %b : f32
    tile.yield %t : f32
  }
  tile.store %sum, %s : !tile.ptr<f32>
  %c = tile.scan(%v) axis = 0 : (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: f32, %b: f32):
    %seven = arith.constant 7.0 : f32
    tile.yield %seven : f32
  }
  %cs = tile.splat %sc : !tile.ptr<f32> -> tensor<3x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %r : tensor<3x!tile.ptr<f32>>, tensor<3xi32>
  tile.store %cp, %c : tensor<3x!tile.ptr<f32>>
  return
}
)mlir");
  ASSERT_TRUE(module);
  std::vector<float> x = {1.5f, -2.25f, 4.0f}, scan(3);
  float sum = 0;
  ASSERT_TRUE(mlir::succeeded(
      runKernel(*module, "k", {1},
                {Arg::buffer(x.data(), 3), Arg::output(&sum, 1),
                 Arg::output(scan.data(), 3)})))
      << errors;
  EXPECT_EQ(sum, 3.25f);
  EXPECT_EQ(scan, (std::vector<float>{1.5f, 7.0f, 7.0f}));
}

} // namespace
