//===- FakeCuda.cpp - a stand-in libcuda for tests without a GPU ----------===//
//
// Built as a shared library that the runtime dlopens in place of libcuda
// (TILEC_LIBCUDA), so that the CI machine, which has no GPU, exercises the
// runtime's real code paths: driver loading through cuGetProcAddress, the
// PTX JIT and cubin cache, kernel lookup, the shared-memory opt-in, argument
// packing into cuLaunchKernel, the context retry and graph capture.
//
// "Device" memory is host memory. A "cubin" is "FAKECUBIN\n" + the PTX (what
// its linker makes), or a 64-bit ELF header followed by the PTX, sized by
// the header as a real cubin is. A
// kernel named `add` really runs (z = x + y, 1024 elements per program);
// every launch is logged with the bytes of its parameters, sized from the
// `.param` declarations of the PTX entry. `scatter(idx: ptr<i32>, y:
// ptr<f32>, n: i32)` stores y[idx[i]] = i for i < n, anywhere it is told (so
// tools' checks of writes out of bounds can be tested); after a kernel named
// `fault` every later synchronization fails, as after a real memory fault
// (a sticky error); `hello` prints "pid (X, 0, 0) hello" for each program
// X, as tile.print does; `desc_copy` copies the tensor its map describes (see there). The
// driver's rules that the runtime must respect are enforced as the real driver
// does: a launch needs the context current, more than 48 KiB of dynamic
// shared memory needs the function's attribute raised first, and the grid
// of a kernel with a `.reqnctapercluster` must be a whole number of its
// clusters (else CUDA_ERROR_INVALID_CLUSTER_SIZE).
// cuTensorMapEncodeTiled validates as the real one does and writes a
// recognizable map that launches check and the simulator reads (the
// "tensor maps" block below). With TILEC_FAKE_CUDA_WGMMA_FENCE_NOTES set,
// the simulator notes on stderr, once per process, a register accessed
// between wgmma.fence and its wgmma instead of failing the launch.
//
// A lookup at CUDA 13.0 or later gets CUDA 13's cuCtxGetDevice and
// cuCtxSynchronize, which take a context, as from the real driver.
//
// Two devices, each with its primary context. TILEC_FAKE_CUDA_MODE makes it
// a broken driver: "nodevice" (cuInit fails), "old" (CUDA 11.8), "partial"
// (no cuGraphLaunch), "refusemaps" (cuTensorMapEncodeTiled fails). Tests
// reach the fake's state through the extern "C" fake_* functions.
//
//===----------------------------------------------------------------------===//

#include "PtxSim.h"
#include "TensorMap.h"

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

struct FakeFunction {
  std::string name;
  std::string ptx;             // its module's PTX, for the simulator
  CUcontext context = nullptr; // its module's
  std::vector<unsigned> paramBytes;
  int maxDynamicShared = 48 * 1024;
  unsigned cluster[3] = {0, 0, 0}; // its .reqnctapercluster; 0: none
};

struct FakeModule {
  std::string text;
  CUcontext context = nullptr; // current when it was loaded
  std::map<std::string, std::unique_ptr<FakeFunction>> functions;
};

struct FakeLaunch {
  std::string kernel;
  unsigned grid[3], block[3], shared;
  std::vector<std::vector<unsigned char>> params;
  std::string ptx;
};

struct FakeStream {
  bool capturing = false;
  bool invalidated = false; // a synchronize during capture
  std::vector<FakeLaunch> captured;
};

struct FakeGraph {
  std::vector<FakeLaunch> launches;
};

struct FakeLink {
  char *errorLog = nullptr;
  size_t errorLogSize = 0;
  std::string cubin;
};

int gPrimaryContexts[2]; // their addresses are the devices' contexts
std::map<uint64_t, size_t> gAllocations; // live: start -> requested bytes

bool validGlobal(uint64_t addr, uint64_t bytes) {
  auto it = gAllocations.upper_bound(addr);
  if (it == gAllocations.begin())
    return false;
  --it;
  return addr + bytes <= it->first + it->second && addr + bytes >= addr;
}

bool mode(const char *m) {
  const char *env = std::getenv("TILEC_FAKE_CUDA_MODE");
  return env && std::strcmp(env, m) == 0;
}
thread_local CUcontext tCurrent = nullptr;
std::vector<CUcontext> &ctxStack() {
  static thread_local std::vector<CUcontext> s;
  return s;
}
std::mutex gMutex;
bool gPendingFault = false; // a `fault` kernel ran: synchronizing fails
int gLinks = 0, gModuleLoads = 0, gLiveAllocations = 0, gRetains = 0;
std::vector<FakeLaunch> gLaunches;

const char *errorName(CUresult r) {
  switch (r) {
  case CUDA_SUCCESS:
    return "CUDA_SUCCESS";
  case CUDA_ERROR_INVALID_VALUE:
    return "CUDA_ERROR_INVALID_VALUE";
  case CUDA_ERROR_INVALID_CONTEXT:
    return "CUDA_ERROR_INVALID_CONTEXT";
  case CUDA_ERROR_INVALID_IMAGE:
    return "CUDA_ERROR_INVALID_IMAGE";
  case CUDA_ERROR_INVALID_PTX:
    return "CUDA_ERROR_INVALID_PTX";
  case CUDA_ERROR_NOT_FOUND:
    return "CUDA_ERROR_NOT_FOUND";
  case CUDA_ERROR_INVALID_DEVICE:
    return "CUDA_ERROR_INVALID_DEVICE";
  case CUDA_ERROR_INVALID_HANDLE:
    return "CUDA_ERROR_INVALID_HANDLE";
  case CUDA_ERROR_NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE";
  case CUDA_ERROR_OUT_OF_MEMORY:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case CUDA_ERROR_ILLEGAL_ADDRESS:
    return "CUDA_ERROR_ILLEGAL_ADDRESS";
  case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
    return "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED";
  case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
    return "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED";
  case CUDA_ERROR_LAUNCH_FAILED:
    return "CUDA_ERROR_LAUNCH_FAILED";
  case CUDA_ERROR_INVALID_CLUSTER_SIZE:
    return "CUDA_ERROR_INVALID_CLUSTER_SIZE";
  default:
    return nullptr;
  }
}

/// Byte sizes of the `.param`s of `.entry name(` in PTX text.
bool parseEntry(const std::string &text, const std::string &name,
                std::vector<unsigned> &sizes) {
  size_t at = text.find(".entry " + name + "(");
  if (at == std::string::npos)
    return false;
  size_t end = text.find(')', at);
  std::string params = text.substr(at, end - at);
  size_t pos = 0;
  while ((pos = params.find(".param", pos)) != std::string::npos) {
    pos += 6;
    size_t dot = params.find('.', pos);
    // `.param .align 64 .b8 name[128]` (a tensor map by value): the type
    // follows the alignment, and an array multiplies it.
    if (params.compare(dot, 6, ".align") == 0)
      dot = params.find('.', dot + 6);
    std::string type = params.substr(dot + 1, 3);
    unsigned bytes = type.find("64") != std::string::npos   ? 8
                     : type.find("32") != std::string::npos ? 4
                     : type.find("16") != std::string::npos ? 2
                                                            : 1;
    size_t next = params.find(".param", pos);
    size_t bracket = params.find('[', dot);
    if (bracket != std::string::npos && bracket < next)
      bytes *=
          unsigned(std::strtoul(params.c_str() + bracket + 1, nullptr, 10));
    sizes.push_back(bytes);
  }
  return true;
}

/// The `.reqnctapercluster X{, Y{, Z}}` of `.entry name(` in PTX text (the
/// directives between its parameters and its body); all 0 without one.
void parseCluster(const std::string &text, const std::string &name,
                  unsigned dims[3]) {
  size_t at = text.find(".entry " + name + "(");
  size_t end = at == std::string::npos ? at : text.find(')', at);
  size_t body = end == std::string::npos ? end : text.find('{', end);
  if (body == std::string::npos)
    return;
  std::string directives = text.substr(end, body - end);
  size_t req = directives.find(".reqnctapercluster");
  if (req == std::string::npos)
    return;
  const char *p = directives.c_str() + req + std::strlen(".reqnctapercluster");
  for (int i = 0; i < 3; ++i) {
    char *next = nullptr;
    unsigned long v = std::strtoul(p, &next, 10);
    dims[i] = next == p ? 1 : unsigned(v);
    p = next;
    while (*p == ' ' || *p == '\t' || *p == ',')
      ++p;
  }
}

void runDescCopy(const FakeLaunch &l); // the "tensor maps" block below

/// TILEC_FAKE_CUDA_SIMULATE=1: every launch runs its PTX in the
/// simulator (test/lib/PtxSim/PtxSim.h); what it reports fails the launch.
CUresult runLaunch(const FakeLaunch &l, const std::string &ptx) {
  if (mode("simulate") || std::getenv("TILEC_FAKE_CUDA_SIMULATE")) {
    gLaunches.push_back(l);
    ptxsim::Launch sl;
    for (int i = 0; i < 3; ++i)
      sl.grid[i] = l.grid[i], sl.block[i] = l.block[i];
    sl.dynamicShared = l.shared;
    sl.params = l.params;
    // A wgmma.fence breach (which ptxas repairs) as a note, not a failure.
    if (std::getenv("TILEC_FAKE_CUDA_WGMMA_FENCE_NOTES"))
      sl.fenceNote = [](const std::string &note) {
        static std::set<std::string> seen; // once per process
        if (seen.insert(note).second)
          std::fprintf(stderr, "fake cuda: ptxsim note: %s\n", note.c_str());
      };
    std::string error = ptxsim::run(ptx, l.kernel, sl, validGlobal);
    if (!error.empty()) {
      std::fprintf(stderr, "fake cuda: %s\n", error.c_str());
      return CUDA_ERROR_LAUNCH_FAILED;
    }
    return CUDA_SUCCESS;
  }
  if (l.kernel == "add" && l.params.size() == 4) {
    // add(x, y, z: ptr<f32>, n: i32), 1024 elements per program.
    uint64_t x, y, z;
    int32_t n;
    std::memcpy(&x, l.params[0].data(), 8);
    std::memcpy(&y, l.params[1].data(), 8);
    std::memcpy(&z, l.params[2].data(), 8);
    std::memcpy(&n, l.params[3].data(), 4);
    int64_t end = std::min<int64_t>(n, int64_t(l.grid[0]) * 1024);
    for (int64_t i = 0; i < end; ++i)
      reinterpret_cast<float *>(z)[i] =
          reinterpret_cast<float *>(x)[i] + reinterpret_cast<float *>(y)[i];
  }
  if (l.kernel == "scatter" && l.params.size() == 3) {
    uint64_t idx, y;
    int32_t n;
    std::memcpy(&idx, l.params[0].data(), 8);
    std::memcpy(&y, l.params[1].data(), 8);
    std::memcpy(&n, l.params[2].data(), 4);
    for (int32_t i = 0; i < n; ++i)
      reinterpret_cast<float *>(y)[reinterpret_cast<int32_t *>(idx)[i]] =
          float(i);
  }
  if (l.kernel == "fault")
    gPendingFault = true;
  if (l.kernel == "hello")
    // What a kernel's tile.print writes: a line per program, to stdout
    // (tilec-gpu-run --batch captures it and compares).
    for (unsigned x = 0; x < l.grid[0]; ++x)
      std::printf("pid (%u, 0, 0) hello\n", x);
  if (l.kernel == "desc_copy")
    runDescCopy(l);
  gLaunches.push_back(l);
  return CUDA_SUCCESS;
}

// --- tensor maps (cuTensorMapEncodeTiled) ----------------------------------
//
// The real driver's validation of cuTensorMapEncodeTiled (its documentation
// in cuda.h, rule by rule: CUDA_ERROR_INVALID_VALUE on any breach), so that
// CI tests the runtime's own checks come first, and a recognizable encoding
// (test/lib/PtxSim/TensorMap.h), which the PTX simulator decodes when a
// kernel's cp.async.bulk.tensor names the map. A launch checks every
// 128-byte parameter (`.param .align 64 .b8 name[128]`): its bytes must sit
// 64-byte aligned and be a map this driver encoded, as a real kernel would
// fault on anything else.

int gTensorMapEncodes = 0;

unsigned tensorMapElementBytes(CUtensorMapDataType t) {
  return ptxsim::tensorMapElementBytes(unsigned(t));
}

CUresult fTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *address,
    const cuuint64_t *dim, const cuuint64_t *strides, const cuuint32_t *box,
    const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
    CUtensorMapFloatOOBfill fill) {
  const CUresult bad = CUDA_ERROR_INVALID_VALUE;
  if (mode("refusemaps")) // a driver error the runtime's checks cannot foresee
    return bad;
  unsigned elem = tensorMapElementBytes(type);
  uint64_t addr = reinterpret_cast<uintptr_t>(address);
  if (!map || reinterpret_cast<uintptr_t>(map) % 64 != 0 || elem == 0)
    return bad;
  if (interleave < CU_TENSOR_MAP_INTERLEAVE_NONE ||
      interleave > CU_TENSOR_MAP_INTERLEAVE_32B)
    return bad;
  bool il32 = interleave == CU_TENSOR_MAP_INTERLEAVE_32B;
  if (rank < 1 || rank > 5 ||
      (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE && rank < 3))
    return bad;
  if (addr % (il32 ? 32 : 16) != 0)
    return bad;
  for (unsigned i = 0; i < rank; ++i) {
    if (dim[i] < 1 || dim[i] > (uint64_t(1) << 32))
      return bad;
    if (box[i] < 1 || box[i] > 256)
      return bad;
    if (elementStrides[i] < 1 || elementStrides[i] > 8)
      return bad;
  }
  for (unsigned i = 0; i + 1 < rank; ++i)
    if (strides[i] % (il32 ? 32 : 16) != 0 || strides[i] >= (uint64_t(1) << 40))
      return bad;
  uint64_t inner = uint64_t(box[0]) * elem;
  if (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE && inner % 16 != 0)
    return bad;
  if (swizzle < CU_TENSOR_MAP_SWIZZLE_NONE ||
      swizzle > CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B)
    return bad;
  if (il32 && swizzle != CU_TENSOR_MAP_SWIZZLE_32B)
    return bad;
  uint64_t span = swizzle == CU_TENSOR_MAP_SWIZZLE_32B   ? 32
                  : swizzle == CU_TENSOR_MAP_SWIZZLE_64B ? 64
                                                         : 128;
  if (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE &&
      swizzle != CU_TENSOR_MAP_SWIZZLE_NONE && inner > span)
    return bad;
  if (l2 < CU_TENSOR_MAP_L2_PROMOTION_NONE ||
      l2 > CU_TENSOR_MAP_L2_PROMOTION_L2_256B)
    return bad;
  bool floating = type >= CU_TENSOR_MAP_DATA_TYPE_FLOAT16 &&
                  type <= CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ;
  if (fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA ? !floating
                                                               : fill != 0)
    return bad;

  ptxsim::TensorMap m;
  m.address = addr;
  m.rank = rank;
  for (unsigned i = 0; i < rank; ++i) {
    m.dims[i] = dim[i];
    m.box[i] = box[i];
    m.elementStrides[i] = elementStrides[i];
  }
  for (unsigned i = 0; i + 1 < rank; ++i)
    m.strides[i] = strides[i];
  m.dataType = unsigned(type);
  m.interleave = unsigned(interleave);
  m.swizzle = unsigned(swizzle);
  m.l2Promotion = unsigned(l2);
  m.oobFill = unsigned(fill);
  ptxsim::encodeTensorMap(m, reinterpret_cast<unsigned char *>(map));
  std::lock_guard<std::mutex> lock(gMutex);
  ++gTensorMapEncodes;
  return CUDA_SUCCESS;
}

/// A launch's 128-byte parameter `index` of `kernel` at `bytes`.
CUresult checkTensorMapParam(const std::string &kernel, size_t index,
                             const unsigned char *bytes) {
  ptxsim::TensorMap m;
  std::string why;
  if (reinterpret_cast<uintptr_t>(bytes) % 64 != 0)
    why = "is not 64-byte aligned";
  else
    why = ptxsim::decodeTensorMap(bytes, m);
  if (why.empty())
    return CUDA_SUCCESS;
  std::fprintf(stderr, "fake cuda: kernel %s, parameter #%zu: the map %s\n",
               kernel.c_str(), index, why.c_str());
  return CUDA_ERROR_INVALID_VALUE;
}

/// The kernel `desc_copy(a: tensor_desc<f32, rank 2>, y: ptr<f32>)` (for
/// tilec-gpu-run's tests): copies the tensor the map describes, row by row
/// through its stride, densely into y, as a TMA load of every box would.
void runDescCopy(const FakeLaunch &l) {
  if (l.params.size() != 2 || l.params[0].size() != 128)
    return;
  ptxsim::TensorMap m;
  if (!ptxsim::decodeTensorMap(l.params[0].data(), m).empty() || m.rank != 2)
    return;
  uint64_t y;
  std::memcpy(&y, l.params[1].data(), 8);
  const char *base = reinterpret_cast<const char *>(m.address);
  uint64_t cols = m.dims[0], rows = m.dims[1], stride = m.strides[0];
  for (uint64_t r = 0; r < rows; ++r)
    std::memcpy(reinterpret_cast<float *>(y) + r * cols, base + r * stride,
                cols * sizeof(float));
}

// --- the entry points ------------------------------------------------------

CUresult fInit(unsigned) {
  return mode("nodevice") ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}
CUresult fDriverGetVersion(int *v) {
  *v = mode("old") ? 11080 : 13000;
  return CUDA_SUCCESS;
}
CUresult fGetErrorName(CUresult r, const char **s) {
  *s = errorName(r);
  return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult fGetErrorString(CUresult r, const char **s) {
  *s = errorName(r) ? "fake driver error" : nullptr;
  return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult fDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal < 0 || ordinal > 1)
    return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult fDeviceGetCount(int *n) {
  *n = 2;
  return CUDA_SUCCESS;
}
CUresult fDeviceGetName(char *name, int len, CUdevice) {
  std::strncpy(name, "Fake GPU", static_cast<size_t>(len));
  return CUDA_SUCCESS;
}
CUresult fDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *v = 9;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *v = 0;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *v = 232448;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: // small: the tuner's rotation
    *v = 1 << 20;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: // an H100 / H200's
    *v = 132;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}
CUresult fPrimaryCtxRetain(CUcontext *c, CUdevice d) {
  *c = reinterpret_cast<CUcontext>(&gPrimaryContexts[d]);
  ++gRetains;
  return CUDA_SUCCESS;
}
CUresult fPrimaryCtxRelease(CUdevice) {
  --gRetains;
  return CUDA_SUCCESS;
}
CUresult fCtxSetCurrent(CUcontext c) {
  tCurrent = c;
  return CUDA_SUCCESS;
}
CUresult fCtxGetCurrent(CUcontext *c) {
  *c = tCurrent;
  return CUDA_SUCCESS;
}
CUresult fCtxPushCurrent(CUcontext c) {
  ctxStack().push_back(tCurrent);
  tCurrent = c;
  return CUDA_SUCCESS;
}
CUresult fCtxPopCurrent(CUcontext *c) {
  if (ctxStack().empty())
    return CUDA_ERROR_INVALID_CONTEXT;
  *c = tCurrent;
  tCurrent = ctxStack().back();
  ctxStack().pop_back();
  return CUDA_SUCCESS;
}
CUresult needContext() {
  return tCurrent ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}
CUresult fCtxSynchronize() {
  if (CUresult r = needContext())
    return r;
  // Sticky, as the real driver's errors after a fault are.
  return gPendingFault ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS;
}
CUresult fCtxGetDevice(CUdevice *d) {
  *d = tCurrent == reinterpret_cast<CUcontext>(&gPrimaryContexts[1]) ? 1 : 0;
  return needContext();
}
// CUDA 13 gave these two a context parameter (null: the current one) under
// the same names: a lookup at version 13000 or later gets them, as from the
// real driver (and counted: gNewSignatures). Called with the CUDA 12
// signature, `c` is whatever the register held; a context the fake never
// made is refused.
int gNewSignatures = 0;
CUresult checkContextArg(CUcontext c) {
  if (!c || c == reinterpret_cast<CUcontext>(&gPrimaryContexts[0]) ||
      c == reinterpret_cast<CUcontext>(&gPrimaryContexts[1]))
    return CUDA_SUCCESS;
  return CUDA_ERROR_INVALID_CONTEXT;
}
CUresult fCtxSynchronize13(CUcontext c) {
  if (CUresult r = checkContextArg(c))
    return r;
  return fCtxSynchronize();
}
CUresult fCtxGetDevice13(CUdevice *d, CUcontext c) {
  if (CUresult r = checkContextArg(c))
    return r;
  return fCtxGetDevice(d);
}
CUresult fMemAlloc(CUdeviceptr *p, size_t bytes) {
  if (CUresult r = needContext())
    return r;
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (bytes > (size_t(1) << 40))
    return CUDA_ERROR_OUT_OF_MEMORY;
  void *mem = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  *p = reinterpret_cast<CUdeviceptr>(mem);
  gAllocations[*p] = bytes;
  ++gLiveAllocations;
  return CUDA_SUCCESS;
}
CUresult fMemFree(CUdeviceptr p) {
  gAllocations.erase(p);
  std::free(reinterpret_cast<void *>(p));
  --gLiveAllocations;
  return CUDA_SUCCESS;
}
CUresult fMemGetInfo(size_t *free, size_t *total) {
  *free = *total = size_t(1) << 30;
  return CUDA_SUCCESS;
}
CUresult fMemcpyHtoD(CUdeviceptr d, const void *s, size_t n) {
  std::memcpy(reinterpret_cast<void *>(d), s, n);
  return needContext();
}
CUresult fMemcpyDtoH(void *d, CUdeviceptr s, size_t n) {
  std::memcpy(d, reinterpret_cast<void *>(s), n);
  return needContext();
}
CUresult fMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n) {
  std::memcpy(reinterpret_cast<void *>(d), reinterpret_cast<void *>(s), n);
  return CUDA_SUCCESS;
}
CUresult fMemcpyHtoDAsync(CUdeviceptr d, const void *s, size_t n, CUstream) {
  return fMemcpyHtoD(d, s, n);
}
CUresult fMemcpyDtoHAsync(void *d, CUdeviceptr s, size_t n, CUstream) {
  return fMemcpyDtoH(d, s, n);
}
CUresult fMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream) {
  return fMemcpyDtoD(d, s, n);
}
CUresult fMemsetD8(CUdeviceptr d, unsigned char v, size_t n) {
  std::memset(reinterpret_cast<void *>(d), v, n);
  return CUDA_SUCCESS;
}
CUresult fMemsetD16(CUdeviceptr d, unsigned short v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    std::memcpy(reinterpret_cast<char *>(d) + 2 * i, &v, 2);
  return CUDA_SUCCESS;
}
CUresult fMemsetD32(CUdeviceptr d, unsigned v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    std::memcpy(reinterpret_cast<char *>(d) + 4 * i, &v, 4);
  return CUDA_SUCCESS;
}
CUresult fMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream) {
  return fMemsetD8(d, v, n);
}
CUresult fStreamCreate(CUstream *s, unsigned) {
  *s = reinterpret_cast<CUstream>(new FakeStream);
  return needContext();
}
CUresult fStreamDestroy(CUstream s) {
  delete reinterpret_cast<FakeStream *>(s);
  return CUDA_SUCCESS;
}
CUresult fStreamSynchronize(CUstream s) {
  auto *fs = reinterpret_cast<FakeStream *>(s);
  if (fs && fs->capturing) { // as the driver: this breaks the capture
    fs->invalidated = true;
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  return CUDA_SUCCESS;
}
CUresult fStreamBeginCapture(CUstream s, CUstreamCaptureMode) {
  if (!s)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  reinterpret_cast<FakeStream *>(s)->capturing = true;
  return CUDA_SUCCESS;
}
CUresult fStreamEndCapture(CUstream s, CUgraph *g) {
  auto *fs = reinterpret_cast<FakeStream *>(s);
  fs->capturing = false;
  if (fs->invalidated) {
    fs->invalidated = false;
    fs->captured.clear();
    *g = nullptr;
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  auto *graph = new FakeGraph;
  graph->launches = std::move(fs->captured);
  fs->captured.clear();
  *g = reinterpret_cast<CUgraph>(graph);
  return CUDA_SUCCESS;
}
CUresult fEventCreate(CUevent *e, unsigned) {
  *e = reinterpret_cast<CUevent>(new double(0));
  return CUDA_SUCCESS;
}
CUresult fEventDestroy(CUevent e) {
  delete reinterpret_cast<double *>(e);
  return CUDA_SUCCESS;
}
CUresult fEventRecord(CUevent e, CUstream) {
  *reinterpret_cast<double *>(e) =
      std::chrono::duration<double, std::milli>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count();
  return CUDA_SUCCESS;
}
CUresult fEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult fEventElapsedTime(float *ms, CUevent a, CUevent b) {
  *ms = static_cast<float>(*reinterpret_cast<double *>(b) -
                           *reinterpret_cast<double *>(a));
  return CUDA_SUCCESS;
}
/// The bytes an ELF64 image spans, from its header (the driver API passes
/// no size: a cubin is as long as its headers say, with no terminator).
uint64_t elfSize(const unsigned char *b) {
  auto le = [&](unsigned at, unsigned bytes) {
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i)
      v |= uint64_t(b[at + i]) << (8 * i);
    return v;
  };
  uint64_t sections = le(0x28, 8) + le(0x3a, 2) * le(0x3c, 2);
  uint64_t segments = le(0x20, 8) + le(0x36, 2) * le(0x38, 2);
  return std::max<uint64_t>({64, sections, segments});
}

CUresult fModuleLoadData(CUmodule *m, const void *image) {
  if (CUresult r = needContext())
    return r;
  const char *text = static_cast<const char *>(image);
  const auto *bytes = static_cast<const unsigned char *>(image);
  static const char kCubin[] = "FAKECUBIN\n";
  static const char kElf[] = "\x7f"
                             "ELF";
  std::string moduleText;
  if (std::memcmp(text, kElf, 4) == 0) {
    // A 64-bit ELF header, then the PTX up to the end the header gives
    // (test/Unit/AOT/Inputs/make-fake-cubin.sh writes one).
    if (bytes[4] != 2)
      return CUDA_ERROR_INVALID_IMAGE;
    moduleText = kCubin + std::string(text + 64, elfSize(bytes) - 64);
  } else if (std::strncmp(text, kCubin, sizeof kCubin - 1) == 0) {
    // The fake linker's own output, always handed back NUL-terminated.
    moduleText = text;
  } else {
    return CUDA_ERROR_INVALID_IMAGE;
  }
  auto *mod = new FakeModule;
  mod->text = std::move(moduleText);
  mod->context = tCurrent;
  *m = reinterpret_cast<CUmodule>(mod);
  ++gModuleLoads;
  return CUDA_SUCCESS;
}
CUresult fModuleUnload(CUmodule m) {
  delete reinterpret_cast<FakeModule *>(m);
  return CUDA_SUCCESS;
}
CUresult fModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  auto *mod = reinterpret_cast<FakeModule *>(m);
  auto &slot = mod->functions[name];
  if (!slot) {
    auto fn = std::make_unique<FakeFunction>();
    fn->name = name;
    fn->context = mod->context;
    // "FAKECUBIN\n" + PTX (see fLinkAddData)
    fn->ptx = mod->text.substr(mod->text.find('\n') + 1);
    if (!parseEntry(mod->text, name, fn->paramBytes)) {
      mod->functions.erase(name);
      return CUDA_ERROR_NOT_FOUND;
    }
    parseCluster(mod->text, name, fn->cluster);
    slot = std::move(fn);
  }
  *f = reinterpret_cast<CUfunction>(slot.get());
  return CUDA_SUCCESS;
}
CUresult fFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f) {
  auto *fn = reinterpret_cast<FakeFunction *>(f);
  switch (a) {
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *v = 0;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    // A kernel named "heavy" uses too many registers for big blocks.
    *v = fn->name == "heavy" ? 256 : 1024;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *v = fn->name == "heavy" ? 255 : 32;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *v = fn->maxDynamicShared;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    *v = int(fn->cluster[a - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH]);
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}
/// A cluster's CTAs share a GPC: the fake device's 132 SMs are four GPCs
/// of 17 and four of 16, so 64 clusters of 2 (128 programs) fit at once,
/// not 66, and 32 of 4; of the kernel's compile-time shape or the
/// configuration's.
CUresult fOccupancyMaxActiveClusters(int *n, CUfunction f,
                                     const CUlaunchConfig *config) {
  if (!n || !f || !config)
    return CUDA_ERROR_INVALID_VALUE;
  auto *fn = reinterpret_cast<FakeFunction *>(f);
  unsigned size = fn->cluster[0] * fn->cluster[1] * fn->cluster[2];
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      const auto &d = config->attrs[i].value.clusterDim;
      unsigned asked = d.x * d.y * d.z;
      if (size > 1 && asked != size)
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
      size = asked;
    }
  size = size ? size : 1;
  // A kernel named "nofit" fits in no GPC (as too much shared memory
  // would make it).
  if (fn->name == "nofit") {
    *n = 0;
    return CUDA_SUCCESS;
  }
  int clusters = 0;
  for (int gpc : {17, 17, 17, 17, 16, 16, 16, 16})
    clusters += gpc / int(size);
  *n = clusters;
  return CUDA_SUCCESS;
}
CUresult fFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || v > 232448)
    return CUDA_ERROR_INVALID_VALUE;
  reinterpret_cast<FakeFunction *>(f)->maxDynamicShared = v;
  return CUDA_SUCCESS;
}
CUresult fLinkCreate(unsigned n, CUjit_option *keys, void **values,
                     CUlinkState *state) {
  if (CUresult r = needContext())
    return r;
  auto *link = new FakeLink;
  for (unsigned i = 0; i < n; ++i) {
    if (keys[i] == CU_JIT_ERROR_LOG_BUFFER)
      link->errorLog = static_cast<char *>(values[i]);
    if (keys[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      link->errorLogSize = reinterpret_cast<uintptr_t>(values[i]);
  }
  *state = reinterpret_cast<CUlinkState>(link);
  return CUDA_SUCCESS;
}
CUresult fLinkAddData(CUlinkState state, CUjitInputType type, void *data,
                      size_t size, const char *, unsigned, CUjit_option *,
                      void **) {
  auto *link = reinterpret_cast<FakeLink *>(state);
  const char *text = static_cast<const char *>(data);
  if (type != CU_JIT_INPUT_PTX || size == 0 || text[size - 1] != '\0')
    return CUDA_ERROR_INVALID_VALUE; // PTX must come NUL-terminated
  if (std::strstr(text, "SYNTAX ERROR")) {
    const char log[] = "ptxas application ptx input, line 3; error   : "
                       "syntax error (fake)";
    if (link->errorLog)
      std::strncpy(link->errorLog, log, link->errorLogSize);
    return CUDA_ERROR_INVALID_PTX;
  }
  link->cubin = std::string("FAKECUBIN\n") + text;
  return CUDA_SUCCESS;
}
CUresult fLinkComplete(CUlinkState state, void **cubin, size_t *size) {
  auto *link = reinterpret_cast<FakeLink *>(state);
  ++gLinks;
  *cubin = link->cubin.data();
  *size = link->cubin.size() + 1; // keep the NUL: the fake reads C strings
  return CUDA_SUCCESS;
}
CUresult fLinkDestroy(CUlinkState state) {
  delete reinterpret_cast<FakeLink *>(state);
  return CUDA_SUCCESS;
}
CUresult fLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                       unsigned bx, unsigned by, unsigned bz, unsigned shared,
                       CUstream stream, void **params, void **extra) {
  auto *fn = reinterpret_cast<FakeFunction *>(f);
  if (tCurrent != fn->context) // the function's context must be current
    return CUDA_ERROR_INVALID_CONTEXT;
  // Stream 0x1 stands for a bad handle the driver refuses.
  if (stream == reinterpret_cast<CUstream>(1))
    return CUDA_ERROR_INVALID_HANDLE;
  if (extra || int(shared) > fn->maxDynamicShared || bx * by * bz > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  auto partial = [](unsigned g, unsigned c) { return c == 0 || g % c; };
  if (fn->cluster[0] &&
      (partial(gx, fn->cluster[0]) || partial(gy, fn->cluster[1]) ||
       partial(gz, fn->cluster[2]))) {
    std::fprintf(stderr,
                 "fake cuda: kernel %s: grid (%u,%u,%u) is not a multiple of "
                 "its cluster shape (%u,%u,%u)\n",
                 fn->name.c_str(), gx, gy, gz, fn->cluster[0], fn->cluster[1],
                 fn->cluster[2]);
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  }
  FakeLaunch l{fn->name, {gx, gy, gz}, {bx, by, bz}, shared, {}, fn->ptx};
  for (size_t i = 0; i < fn->paramBytes.size(); ++i) {
    auto *p = static_cast<unsigned char *>(params[i]);
    if (fn->paramBytes[i] == 128)
      if (CUresult r = checkTensorMapParam(fn->name, i, p))
        return r;
    l.params.emplace_back(p, p + fn->paramBytes[i]);
  }
  std::lock_guard<std::mutex> lock(gMutex);
  auto *fs = reinterpret_cast<FakeStream *>(stream);
  if (fs && fs->capturing) {
    fs->captured.push_back(std::move(l));
    return CUDA_SUCCESS;
  }
  return runLaunch(l, l.ptx);
}
CUresult fGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g,
                                    unsigned long long) {
  *e = reinterpret_cast<CUgraphExec>(
      new FakeGraph(*reinterpret_cast<FakeGraph *>(g)));
  return CUDA_SUCCESS;
}
CUresult fGraphLaunch(CUgraphExec e, CUstream) {
  std::lock_guard<std::mutex> lock(gMutex);
  for (const FakeLaunch &l : reinterpret_cast<FakeGraph *>(e)->launches)
    if (CUresult r = runLaunch(l, l.ptx))
      return r;
  return CUDA_SUCCESS;
}
CUresult fGraphDestroy(CUgraph g) {
  delete reinterpret_cast<FakeGraph *>(g);
  return CUDA_SUCCESS;
}
CUresult fGraphExecDestroy(CUgraphExec e) {
  delete reinterpret_cast<FakeGraph *>(e);
  return CUDA_SUCCESS;
}

struct Entry {
  const char *name;
  void *fn;
  int since = 0; // the first CUDA version with this signature
};
#define E(name, fn)                                                            \
  { name, reinterpret_cast<void *>(&fn) }
#define E13(name, fn)                                                          \
  { name, reinterpret_cast<void *>(&fn), 13000 }
const Entry kEntries[] = {
    E("cuInit", fInit),
    E("cuDriverGetVersion", fDriverGetVersion),
    E("cuGetErrorName", fGetErrorName),
    E("cuGetErrorString", fGetErrorString),
    E("cuDeviceGet", fDeviceGet),
    E("cuDeviceGetCount", fDeviceGetCount),
    E("cuDeviceGetName", fDeviceGetName),
    E("cuDeviceGetAttribute", fDeviceGetAttribute),
    E("cuDevicePrimaryCtxRetain", fPrimaryCtxRetain),
    E("cuDevicePrimaryCtxRelease", fPrimaryCtxRelease),
    E("cuCtxSetCurrent", fCtxSetCurrent),
    E("cuCtxGetCurrent", fCtxGetCurrent),
    E("cuCtxPushCurrent", fCtxPushCurrent),
    E("cuCtxPopCurrent", fCtxPopCurrent),
    E13("cuCtxSynchronize", fCtxSynchronize13),
    E("cuCtxSynchronize", fCtxSynchronize),
    E13("cuCtxGetDevice", fCtxGetDevice13),
    E("cuCtxGetDevice", fCtxGetDevice),
    E("cuMemAlloc", fMemAlloc),
    E("cuMemFree", fMemFree),
    E("cuMemGetInfo", fMemGetInfo),
    E("cuMemcpyHtoD", fMemcpyHtoD),
    E("cuMemcpyDtoH", fMemcpyDtoH),
    E("cuMemcpyDtoD", fMemcpyDtoD),
    E("cuMemcpyHtoDAsync", fMemcpyHtoDAsync),
    E("cuMemcpyDtoHAsync", fMemcpyDtoHAsync),
    E("cuMemcpyDtoDAsync", fMemcpyDtoDAsync),
    E("cuMemsetD8", fMemsetD8),
    E("cuMemsetD16", fMemsetD16),
    E("cuMemsetD32", fMemsetD32),
    E("cuMemsetD8Async", fMemsetD8Async),
    E("cuStreamCreate", fStreamCreate),
    E("cuStreamDestroy", fStreamDestroy),
    E("cuStreamSynchronize", fStreamSynchronize),
    E("cuStreamBeginCapture", fStreamBeginCapture),
    E("cuStreamEndCapture", fStreamEndCapture),
    E("cuEventCreate", fEventCreate),
    E("cuEventDestroy", fEventDestroy),
    E("cuEventRecord", fEventRecord),
    E("cuEventSynchronize", fEventSynchronize),
    E("cuEventElapsedTime", fEventElapsedTime),
    E("cuModuleLoadData", fModuleLoadData),
    E("cuModuleUnload", fModuleUnload),
    E("cuModuleGetFunction", fModuleGetFunction),
    E("cuFuncGetAttribute", fFuncGetAttribute),
    E("cuFuncSetAttribute", fFuncSetAttribute),
    E("cuLinkCreate", fLinkCreate),
    E("cuLinkAddData", fLinkAddData),
    E("cuLinkComplete", fLinkComplete),
    E("cuLinkDestroy", fLinkDestroy),
    E("cuLaunchKernel", fLaunchKernel),
    E("cuOccupancyMaxActiveClusters", fOccupancyMaxActiveClusters),
    E("cuTensorMapEncodeTiled", fTensorMapEncodeTiled),
    E("cuGraphInstantiateWithFlags", fGraphInstantiateWithFlags),
    E("cuGraphLaunch", fGraphLaunch),
    E("cuGraphDestroy", fGraphDestroy),
    E("cuGraphExecDestroy", fGraphExecDestroy),
};
#undef E
#undef E13

} // namespace

extern "C" {

// What the runtime looks up by name.
// The newest signature of `symbol` at `cudaVersion` (kEntries lists the
// newer first).
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                             cuuint64_t,
                             CUdriverProcAddressQueryResult *status) {
  for (const Entry &e : kEntries)
    if (std::strcmp(e.name, symbol) == 0 && e.since <= cudaVersion &&
        !(mode("partial") && std::strcmp(symbol, "cuGraphLaunch") == 0)) {
      *pfn = e.fn;
      gNewSignatures += e.since > 0;
      if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  *pfn = nullptr;
  if (status)
    *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
CUresult cuGetErrorName(CUresult r, const char **s) {
  return fGetErrorName(r, s);
}

// What tests read.
int fake_linkCount() { return gLinks; }
int fake_moduleLoadCount() { return gModuleLoads; }
int fake_liveAllocations() { return gLiveAllocations; }
int fake_primaryRetains() { return gRetains; }
/// Lookups that got a CUDA 13 signature (cuCtxGetDevice, cuCtxSynchronize).
int fake_newSignatures() { return gNewSignatures; }
int fake_launchCount() { return static_cast<int>(gLaunches.size()); }
/// cuTensorMapEncodeTiled calls that succeeded.
int fake_tensorMapEncodeCount() { return gTensorMapEncodes; }
/// Bytes of parameter `param` of launch `index`; their count in *size.
const unsigned char *fake_launchParam(int index, int param, size_t *size) {
  const auto &p = gLaunches.at(index).params.at(param);
  *size = p.size();
  return p.data();
}
/// grid x, y, z, block x, shared bytes of launch `index`.
void fake_launchShape(int index, unsigned out[5]) {
  const FakeLaunch &l = gLaunches.at(index);
  out[0] = l.grid[0];
  out[1] = l.grid[1];
  out[2] = l.grid[2];
  out[3] = l.block[0];
  out[4] = l.shared;
}
/// Drops the calling thread's current context (as a new thread has none).
void fake_clearCurrent() { tCurrent = nullptr; }
}
