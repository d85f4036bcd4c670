//===- ApiErrorsTest.cpp - runKernel's user errors ------------------------===//
//
// Every error runKernel reports for bad arguments, grids, kernels and
// unsupported IR: the run fails with a message naming what is wrong.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

using namespace tilec;
using namespace tilec::test;

namespace {

class ApiErrorsTest : public InterpreterTest {
protected:
  /// Runs `kernel` of `text` and expects failure with `message` in the
  /// errors.
  void expectError(llvm::StringRef text, llvm::StringRef kernel, Grid grid,
                   std::vector<Arg> args, llvm::StringRef message) {
    errors.clear();
    auto module = parse(text);
    ASSERT_TRUE(module);
    EXPECT_TRUE(mlir::failed(runKernel(*module, kernel, grid, args)));
    EXPECT_NE(errors.find(message.str()), std::string::npos)
        << "expected: " << message.str() << "\ngot: " << errors;
  }
};

const char *kAdd = R"mlir(
func.func @add(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  return
}
func.func @helper(%x: i32) {
  return
}
)mlir";

TEST_F(ApiErrorsTest, Arguments) {
  float buf[4];
  expectError(kAdd, "add", {1}, {Arg::buffer(buf, 4)},
              "@add takes 2 arguments, but 1 was passed");
  expectError(kAdd, "add", {1}, {Arg::scalar(1.0f), Arg::scalar<int32_t>(4)},
              "argument 0 of @add is '!tile.ptr<f32>': pass a buffer, not a "
              "scalar");
  expectError(kAdd, "add", {1},
              {Arg::buffer(buf, 4), Arg::buffer(buf, 4).named("n")},
              "%n of @add is 'i32': pass a scalar, not a buffer");
  int32_t ints[4];
  expectError(
      kAdd, "add", {1}, {Arg::buffer(ints, 4), Arg::scalar<int32_t>(4)},
      "argument 0 of @add is '!tile.ptr<f32>', but the buffer holds i32");
  expectError(kAdd, "add", {1}, {Arg::buffer(buf, 4), Arg::scalar<int64_t>(4)},
              "argument 1 of @add is 'i32', but the scalar passed is i64");
  expectError(
      kAdd, "add", {1},
      {Arg::buffer(static_cast<float *>(nullptr), 4), Arg::scalar<int32_t>(4)},
      "argument 0 is a null buffer of 4 elements");
}

TEST_F(ApiErrorsTest, GridAndKernel) {
  float buf[4];
  std::vector<Arg> args = {Arg::buffer(buf, 4), Arg::scalar<int32_t>(4)};
  expectError(kAdd, "add", {0}, args,
              "invalid grid (0, 1, 1): each dimension must be at least 1");
  expectError(kAdd, "add", {1, 70000}, args, "invalid grid (1, 70000, 1)");
  expectError(kAdd, "sub", {1}, args,
              "no function @sub in the module; its kernels: @add");
  expectError(kAdd, "helper", {1}, {Arg::scalar<int32_t>(1)},
              "@helper is not a kernel (it lacks the tile.kernel attribute)");
}

TEST_F(ApiErrorsTest, UnsupportedIR) {
  expectError(R"mlir(
func.func @k() attributes {tile.kernel} {
  %c = arith.constant true
  scf.if %c {
    gpu.barrier
  }
  return
}
)mlir",
              "k", {1}, {},
              "the CPU interpreter does not support 'gpu.barrier'");
  expectError(R"mlir(
func.func @k() attributes {tile.kernel} {
  %v = arith.constant dense<1.0> : vector<4xf32>
  %w = arith.addf %v, %v : vector<4xf32>
  return
}
)mlir",
              "k", {1}, {},
              "the CPU interpreter does not support values of type "
              "'vector<4xf32>' ('arith.constant')");
  expectError(R"mlir(
func.func @k() attributes {tile.kernel} {
  %r = tile.range 0, 33554432 : tensor<33554432xi32>
  return
}
)mlir",
              "k", {1}, {},
              "tile 'tensor<33554432xi32>' has 33554432 elements; the CPU "
              "interpreter handles at most 16777216");
  expectError(R"mlir(
func.func @k() attributes {tile.kernel} {
  cf.br ^next
^next:
  return
}
)mlir",
              "k", {1}, {},
              "kernel @k has several blocks; the CPU interpreter runs "
              "structured control flow only");
  expectError(R"mlir(
func.func private @f(%x: i32) -> i32 {
  %y = func.call @f(%x) : (i32) -> i32
  return %y : i32
}
func.func @k(%n: i32) attributes {tile.kernel} {
  %y = func.call @f(%n) : (i32) -> i32
  return
}
)mlir",
              "k", {1}, {Arg::scalar<int32_t>(1)}, "recursive call to @f");
  expectError(R"mlir(
func.func @k(%n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  scf.for %i = %c0 to %n step %c0 : i32 {
  }
  return
}
)mlir",
              "k", {1}, {Arg::scalar<int32_t>(4)},
              "scf.for in program (0, 0, 0) has step 0; the step must be "
              "positive");
}

TEST_F(ApiErrorsTest, CallsAndRegions) {
  expectError(R"mlir(
func.func private @ext(i32) -> i32
func.func @k(%n: i32) attributes {tile.kernel} {
  %y = func.call @ext(%n) : (i32) -> i32
  return
}
)mlir",
              "k", {1}, {Arg::scalar<int32_t>(1)},
              "call to @ext, which has no body");
  expectError(R"mlir(
func.func private @f(%x: i32) -> i32 {
  cf.br ^next
^next:
  return %x : i32
}
func.func @k(%n: i32) attributes {tile.kernel} {
  %y = func.call @f(%n) : (i32) -> i32
  return
}
)mlir",
              "k", {1}, {Arg::scalar<int32_t>(1)},
              "@f has several blocks; the CPU interpreter runs structured "
              "control flow only");
  expectError(R"mlir(
func.func @k() attributes {tile.kernel} {
  %c = scf.execute_region -> i32 {
    %one = arith.constant 1 : i32
    cf.br ^next(%one : i32)
  ^next(%v: i32):
    scf.yield %v : i32
  }
  return
}
)mlir",
              "k", {1}, {},
              "'scf.execute_region' has a region of several blocks; the CPU "
              "interpreter runs structured control flow only");
  expectError(R"mlir(
func.func private @k(%n: i32) attributes {tile.kernel}
)mlir",
              "k", {1}, {Arg::scalar<int32_t>(1)}, "kernel @k has no body");
}

TEST_F(ApiErrorsTest, UnsupportedMemoryAndConstants) {
  float buf[4];
  expectError(R"mlir(
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %q = tile.bitcast %p : !tile.ptr<f32> -> !tile.ptr<!tile.ptr<f32>>
  %v = tile.load %q : !tile.ptr<!tile.ptr<f32>>
  return
}
)mlir",
              "k", {1}, {Arg::buffer(buf, 4)},
              "the CPU interpreter cannot access memory of type "
              "'!tile.ptr<f32>'");
  expectError(R"mlir(
func.func @k() attributes {tile.kernel} {
  %c = arith.constant dense_resource<blob> : tensor<2xi32>
  return
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000100000002000000"
    }
  }
#-}
)mlir",
              "k", {1}, {},
              "the CPU interpreter does not support the constant "
              "dense_resource<blob>");
}

TEST_F(ApiErrorsTest, MissingFile) {
  llvm::SourceMgr sourceMgr;
  std::string readError;
  EXPECT_FALSE(
      parseTileFile("/nonexistent/k.tile", sourceMgr, context, readError));
  EXPECT_EQ(readError,
            "cannot read '/nonexistent/k.tile': No such file or directory");
}

} // namespace
