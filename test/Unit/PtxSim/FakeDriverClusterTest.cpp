//===- FakeDriverClusterTest.cpp - cluster launches in the stand-in driver ===//
//
// The stand-in libcuda (test/lib/FakeCuda) with a kernel of 2-CTA clusters:
// its `.reqnctapercluster` shows in the function's attributes, a grid that
// is no whole number of clusters fails to launch with
// CUDA_ERROR_INVALID_CLUSTER_SIZE as from the real driver, and with
// TILEC_FAKE_CUDA_SIMULATE=1 the launch runs in the simulator.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

/// Each CTA's thread 0 writes its rank to shared memory, the cluster syncs,
/// and it stores its peer's rank (read through mapa) at buf[%ctaid.x].
const char *kPtx = R"(.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry k(
  .param .u64 buf
)
.explicitcluster
.reqnctapercluster 2, 1, 1
{
  .reg .b64 %rd<8>; .reg .b32 %r<16>; .reg .pred %p<4>;
  ld.param.u64 %rd1, [buf];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, smem;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $synced;
  st.shared.u32 [%r3], %r2;
$synced:
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  @%p1 bra $done;
  xor.b32 %r4, %r2, 1;
  mapa.shared::cluster.u32 %r5, %r3, %r4;
  ld.shared::cluster.u32 %r6, [%r5];
  mov.u32 %r7, %ctaid.x;
  mul.wide.u32 %rd2, %r7, 4;
  add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r6;
$done:
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
)";

struct Driver {
  Driver() {
    lib = dlopen(TILEC_FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      return;
    auto proc = reinterpret_cast<decltype(&cuGetProcAddress)>(
        dlsym(lib, "cuGetProcAddress_v2"));
    auto get = [&](const char *name, auto &fn) {
      void *p = nullptr;
      if (proc && proc(name, &p, 12000, 0, nullptr) == CUDA_SUCCESS)
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    get("cuInit", init);
    get("cuDevicePrimaryCtxRetain", retain);
    get("cuCtxSetCurrent", setCurrent);
    get("cuModuleLoadData", loadData);
    get("cuModuleGetFunction", getFunction);
    get("cuFuncGetAttribute", attribute);
    get("cuLaunchKernel", launch);
    get("cuMemAlloc", alloc);
    get("cuMemcpyDtoH", toHost);
    get("cuMemsetD32", memset32);
    get("cuMemFree", memFree);
    get("cuModuleUnload", unload);
    get("cuDevicePrimaryCtxRelease", release);
  }
  ~Driver() {
    if (lib)
      dlclose(lib);
  }
  void *lib = nullptr;
  decltype(&cuInit) init = nullptr;
  decltype(&cuDevicePrimaryCtxRetain) retain = nullptr;
  decltype(&cuCtxSetCurrent) setCurrent = nullptr;
  decltype(&cuModuleLoadData) loadData = nullptr;
  decltype(&cuModuleGetFunction) getFunction = nullptr;
  decltype(&cuFuncGetAttribute) attribute = nullptr;
  decltype(&cuLaunchKernel) launch = nullptr;
  decltype(&cuMemAlloc) alloc = nullptr;
  decltype(&cuMemcpyDtoH) toHost = nullptr;
  decltype(&cuMemsetD32) memset32 = nullptr;
  decltype(&cuMemFree) memFree = nullptr;
  decltype(&cuModuleUnload) unload = nullptr;
  decltype(&cuDevicePrimaryCtxRelease) release = nullptr;
};

TEST(FakeDriverCluster, ShapeAttributesLaunchesAndSimulation) {
  Driver d;
  ASSERT_NE(d.lib, nullptr) << dlerror();
  ASSERT_TRUE(d.init && d.retain && d.setCurrent && d.loadData &&
              d.getFunction && d.attribute && d.launch && d.alloc &&
              d.toHost && d.memset32 && d.memFree && d.unload && d.release);
  ASSERT_EQ(d.init(0), CUDA_SUCCESS);
  CUcontext ctx;
  ASSERT_EQ(d.retain(&ctx, 0), CUDA_SUCCESS);
  ASSERT_EQ(d.setCurrent(ctx), CUDA_SUCCESS);
  std::string image = std::string("FAKECUBIN\n") + kPtx;
  CUmodule mod;
  ASSERT_EQ(d.loadData(&mod, image.c_str()), CUDA_SUCCESS);
  CUfunction f;
  ASSERT_EQ(d.getFunction(&f, mod, "k"), CUDA_SUCCESS);
  int dims[3] = {};
  ASSERT_EQ(d.attribute(&dims[0], CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, f),
            CUDA_SUCCESS);
  ASSERT_EQ(d.attribute(&dims[1], CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, f),
            CUDA_SUCCESS);
  ASSERT_EQ(d.attribute(&dims[2], CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, f),
            CUDA_SUCCESS);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], 1);
  EXPECT_EQ(dims[2], 1);

  CUdeviceptr buf;
  ASSERT_EQ(d.alloc(&buf, 4 * sizeof(unsigned)), CUDA_SUCCESS);
  ASSERT_EQ(d.memset32(buf, 7, 4), CUDA_SUCCESS);
  void *params[] = {&buf};
  setenv("TILEC_FAKE_CUDA_SIMULATE", "1", 1);
  EXPECT_EQ(d.launch(f, 3, 1, 1, 32, 1, 1, 16, nullptr, params, nullptr),
            CUDA_ERROR_INVALID_CLUSTER_SIZE);
  ASSERT_EQ(d.launch(f, 4, 1, 1, 32, 1, 1, 16, nullptr, params, nullptr),
            CUDA_SUCCESS);
  unsigned out[4];
  ASSERT_EQ(d.toHost(out, buf, sizeof out), CUDA_SUCCESS);
  // Each block got its peer's rank: block x holds rank x % 2.
  for (unsigned x = 0; x < 4; ++x)
    EXPECT_EQ(out[x], (x % 2) ^ 1) << "block " << x;
  unsetenv("TILEC_FAKE_CUDA_SIMULATE");
  // Everything the test made goes back (the ASan build checks for leaks).
  EXPECT_EQ(d.memFree(buf), CUDA_SUCCESS);
  EXPECT_EQ(d.unload(mod), CUDA_SUCCESS);
  EXPECT_EQ(d.release(0), CUDA_SUCCESS);
}

} // namespace
