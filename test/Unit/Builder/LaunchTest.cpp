//===- LaunchTest.cpp - a built kernel, compiled and launched -------------===//
//
// The seam between the builder and the runtime: Kernel::compile()'s PTX and
// metadata load through runtime::Module::loadPtx and launch with typed
// arguments. CI has no GPU: the stand-in libcuda runs the PTX in its
// simulator (TILEC_FAKE_CUDA_SIMULATE), so the numbers are checked too.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "tilec/Pipeline.h"
#include "tilec/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <vector>

using namespace tilec;

namespace {
// Before any runtime call: the stand-in driver, simulating launches (PTX
// compiled by its linker: it cannot load an installed ptxas's cubins), and a
// cache folder of this test's own.
const bool kFakeDriver =
    (setenv("TILEC_LIBCUDA", TILEC_FAKE_CUDA, 1),
     setenv("TILEC_FAKE_CUDA_SIMULATE", "1", 1),
     setenv("TILEC_RUNTIME_PTXAS", "off", 1),
     setenv("TILEC_CACHE_DIR", TILEC_TEST_CACHE_DIR, 1), true);

TEST(BuilderLaunch, CompiledKernelRunsThroughTheRuntime) {
  ASSERT_TRUE(kFakeDriver);
  const int block = 256, n = 1000; // 4 programs, the last one masked
  CompileResult compiled = examples::buildAdd(block).compile();
  ASSERT_FALSE(compiled.ptx.empty());

  auto ctx = runtime::Context::create(0);
  ASSERT_TRUE(ctx.ok()) << ctx.message();
  auto module = runtime::Module::loadPtx(*ctx, compiled.ptx, compiled.metadata);
  ASSERT_TRUE(module.ok()) << module.message();
  auto add = module->kernel("add");
  ASSERT_TRUE(add.ok()) << add.message();

  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-4.f, 4.f);
  std::vector<float> x(n), y(n), z(n, -1.f);
  for (int i = 0; i < n; ++i) {
    x[i] = dist(gen);
    y[i] = dist(gen);
  }
  auto dx = runtime::DeviceBuffer<float>::fromHost(*ctx, x);
  auto dy = runtime::DeviceBuffer<float>::fromHost(*ctx, y);
  auto dz = runtime::DeviceBuffer<float>::fromHost(*ctx, z);
  ASSERT_TRUE(dx.ok() && dy.ok() && dz.ok());

  runtime::Status s = add->launch(nullptr, runtime::Grid((n + block - 1) / block),
                                  *dx, *dy, *dz, int32_t(n));
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(ctx->synchronize().ok());
  ASSERT_TRUE(dz->copyToHost(z).ok());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(z[i], x[i] + y[i]) << "element " << i;

  // The metadata the builder wrote is what the runtime checks launches
  // against: a wrong argument type is refused, naming the parameter.
  runtime::Status bad = add->launch(nullptr, runtime::Grid(1), *dx, *dy, *dz,
                                    1.5f);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("kernel 'add', parameter 'n' (#3)"),
            std::string::npos)
      << bad.message();
}
} // namespace
