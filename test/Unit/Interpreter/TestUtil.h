//===- TestUtil.h - helpers of the interpreter's unit tests -----*- C++ -*-===//
//
// Parsing kernels from strings, capturing the interpreter's diagnostics,
// seeded random inputs (never zero) and f16/bf16 conversions done with
// llvm::APFloat, independent of the interpreter's own rounding code.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_UNIT_INTERPRETER_TESTUTIL_H
#define TILEC_TEST_UNIT_INTERPRETER_TESTUTIL_H

#include "tilec/Frontend.h"
#include "tilec/Params.h"
#include "tilec/InitAll.h"
#include "tilec/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace tilec::test {

/// A context with tilec's dialects that records error messages.
class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    mlir::DialectRegistry registry;
    registerTilecDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    handler = std::make_unique<mlir::ScopedDiagnosticHandler>(
        &context, [this](mlir::Diagnostic &diag) {
          errors += diag.str() + "\n";
          return mlir::success();
        });
  }

  /// Parses a module; fails the test if it does not parse.
  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef text) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    EXPECT_TRUE(module) << errors;
    return module;
  }

  /// Parses an examples/ file.
  mlir::OwningOpRef<mlir::ModuleOp> parseExample(llvm::StringRef name) {
    llvm::SourceMgr sourceMgr;
    std::string readError;
    // With its tile.params at their defaults, as tilec reads it.
    TileParams params;
    auto module = parseTileFileWithParams(
        std::string(TILEC_EXAMPLES_DIR) + "/" + name.str(), sourceMgr,
        context, {}, params, readError);
    EXPECT_TRUE(module) << readError << errors;
    return module;
  }

  mlir::MLIRContext context;
  std::string errors;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> handler;
};

/// Uniform values in [lo, hi) with |v| >= 1e-3 (never zero).
inline std::vector<float> randomFloats(size_t n, unsigned seed, float lo = -1,
                                       float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v) {
    do
      x = dist(rng);
    while (std::fabs(x) < 1e-3f);
  }
  return v;
}

/// Rounds to a narrow format (and back to float) with APFloat.
inline float roundVia(const llvm::fltSemantics &sem, float x) {
  llvm::APFloat f(x);
  bool lost;
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  f.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToFloat();
}

inline uint16_t toBits(const llvm::fltSemantics &sem, float x) {
  llvm::APFloat f(x);
  bool lost;
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  return uint16_t(f.bitcastToAPInt().getZExtValue());
}

inline float fromBits(const llvm::fltSemantics &sem, uint16_t bits) {
  llvm::APFloat f(sem, llvm::APInt(16, bits));
  bool lost;
  f.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToFloat();
}

inline uint16_t toBF16(float x) { return toBits(llvm::APFloat::BFloat(), x); }
inline float fromBF16(uint16_t b) {
  return fromBits(llvm::APFloat::BFloat(), b);
}
inline uint16_t toF16(float x) { return toBits(llvm::APFloat::IEEEhalf(), x); }
inline float fromF16(uint16_t b) {
  return fromBits(llvm::APFloat::IEEEhalf(), b);
}

/// Expects |got - want| <= atol + rtol * |want| elementwise; reports the
/// first few mismatches.
inline void expectClose(const std::vector<float> &got,
                        const std::vector<float> &want, double atol,
                        double rtol, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int reported = 0;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double err = std::fabs(double(got[i]) - double(want[i]));
    if (!(err <= atol + rtol * std::fabs(double(want[i])))) {
      ++bad;
      if (reported++ < 5)
        ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                      << ", expected " << want[i];
    }
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size()
                     << " elements differ";
}

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace tilec::test

#endif // TILEC_TEST_UNIT_INTERPRETER_TESTUTIL_H
