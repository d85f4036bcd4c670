//===- Sm90OnGpu.cpp - Sm90Test's kernels on an sm_90 GPU -----------------===//
//
// The numerical tests of Sm90Test.cpp (wgmma on every shared-memory layout,
// TMA boxes, mbarrier handshakes) with each kernel run on the GPU through
// the CUDA driver API instead of the simulator: where both pass, the
// simulator reads the PTX ISA as the hardware does. Not part of the build
// (CI has no GPU); scripts/ptxsim-on-gpu.sh compiles it and says which
// tests to run (the misuse tests would hang or fault a GPU).
//
//===----------------------------------------------------------------------===//

#define PTXSIM_TESTS_ON_GPU
#include "Sm90Test.cpp"

#include <cuda.h>
#include <dlfcn.h>

namespace {

/// The driver's entry points, from libcuda through dlopen.
struct Driver {
  void *lib = nullptr;
  CUcontext context = nullptr;
  template <typename F> F get(const char *name) {
    void *f = dlsym(lib, name);
    if (!f) {
      std::fprintf(stderr, "libcuda has no %s\n", name);
      std::exit(2);
    }
    return reinterpret_cast<F>(f);
  }
  Driver() {
    lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
      std::fprintf(stderr, "no libcuda.so.1: %s\n", dlerror());
      std::exit(2);
    }
    CUdevice device;
    get<CUresult (*)(unsigned)>("cuInit")(0);
    get<CUresult (*)(CUdevice *, int)>("cuDeviceGet")(&device, 0);
    get<CUresult (*)(CUcontext *, CUdevice)>("cuDevicePrimaryCtxRetain")(
        &context, device);
    get<CUresult (*)(CUcontext)>("cuCtxSetCurrent")(context);
  }
};

std::string check(Driver &d, CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return "";
  const char *s = "?";
  d.get<CUresult (*)(CUresult, const char **)>("cuGetErrorString")(r, &s);
  return std::string(what) + ": " + s;
}

} // namespace

std::string runOnGpu(const std::string &ptx, unsigned threads, unsigned shared,
                     uint8_t *mem, size_t bytes, const ptxsim::TensorMap *map) {
  static Driver d;
  std::string e;
  char log[8192] = "";
  CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER,
                         CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof log)};
  CUmodule module;
  if (!(e = check(
            d,
            d.get<CUresult (*)(CUmodule *, const void *, unsigned,
                               CUjit_option *, void **)>("cuModuleLoadDataEx")(
                &module, ptx.c_str(), 2, keys, values),
            "cuModuleLoadDataEx"))
           .empty())
    return e + " " + log;
  CUfunction f;
  d.get<CUresult (*)(CUfunction *, CUmodule, const char *)>(
      "cuModuleGetFunction")(&f, module, "k");
  d.get<CUresult (*)(CUfunction, CUfunction_attribute, int)>(
      "cuFuncSetAttribute")(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                            int(shared));
  CUdeviceptr dmem;
  d.get<CUresult (*)(CUdeviceptr *, size_t)>("cuMemAlloc_v2")(&dmem, bytes);
  d.get<CUresult (*)(CUdeviceptr, const void *, size_t)>("cuMemcpyHtoD_v2")(
      dmem, mem, bytes);
  // The test's map points into `mem`: the same offset of the copy.
  alignas(64) CUtensorMap tensorMap = {};
  if (map) {
    uint64_t address = dmem + (map->address - reinterpret_cast<uint64_t>(mem));
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], elementStrides[5];
    for (unsigned i = 0; i < map->rank; ++i) {
      dims[i] = map->dims[i];
      box[i] = map->box[i];
      elementStrides[i] = map->elementStrides[i];
      if (i + 1 < map->rank)
        strides[i] = map->strides[i];
    }
    using Encode = CUresult (*)(
        CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
        const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
        const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
        CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
    if (!(e = check(d,
                    d.get<Encode>("cuTensorMapEncodeTiled")(
                        &tensorMap, CUtensorMapDataType(map->dataType),
                        map->rank, reinterpret_cast<void *>(address), dims,
                        strides, box, elementStrides,
                        CUtensorMapInterleave(map->interleave),
                        CUtensorMapSwizzle(map->swizzle),
                        CUtensorMapL2promotion(map->l2Promotion),
                        CUtensorMapFloatOOBfill(map->oobFill)),
                    "cuTensorMapEncodeTiled"))
             .empty())
      return e;
  }
  uint64_t buf = dmem;
  void *args[] = {&buf, &tensorMap};
  using Launch =
      CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                   unsigned, unsigned, CUstream, void **, void **);
  e = check(d,
            d.get<Launch>("cuLaunchKernel")(f, 1, 1, 1, threads, 1, 1, shared,
                                            nullptr, args, nullptr),
            "cuLaunchKernel");
  if (e.empty())
    e = check(d, d.get<CUresult (*)()>("cuCtxSynchronize")(),
              "cuCtxSynchronize");
  d.get<CUresult (*)(void *, CUdeviceptr, size_t)>("cuMemcpyDtoH_v2")(mem, dmem,
                                                                      bytes);
  d.get<CUresult (*)(CUdeviceptr)>("cuMemFree_v2")(dmem);
  d.get<CUresult (*)(CUmodule)>("cuModuleUnload")(module);
  return e;
}
