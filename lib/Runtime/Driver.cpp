//===- Driver.cpp - loading libcuda at run time ---------------------------===//
//
// dlopen + cuGetProcAddress: the only two symbols taken by name with dlsym
// are cuGetProcAddress (to find everything else at CUDA 12.0's signatures,
// kDriverApiVersion below, which selects the `_v2`/`_v3` variants Driver.h
// declares) and cuGetErrorName (to word errors met while bootstrapping).
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Driver.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <mutex>

namespace tilec::runtime {

namespace {

/// Words for the errors a broken installation gives before cuGetErrorName is
/// usable (the link stub answers every call with CUDA_ERROR_STUB_LIBRARY).
std::string bootstrapErrorString(CUresult r,
                                 decltype(&::cuGetErrorName) getName) {
  const char *name = nullptr;
  if (getName && getName(r, &name) == CUDA_SUCCESS && name)
    return name;
  switch (r) {
  case CUDA_ERROR_STUB_LIBRARY:
    return "CUDA_ERROR_STUB_LIBRARY (the library is CUDA's link stub, not a "
           "driver)";
  case CUDA_ERROR_NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)";
  default:
    return "CUDA error " + std::to_string(static_cast<int>(r));
  }
}

std::string resolvedFile(void *handle, const std::string &fallback) {
  struct link_map *map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name ||
      !*map->l_name)
    return fallback;
  char buf[PATH_MAX];
  if (realpath(map->l_name, buf))
    return buf;
  return map->l_name;
}

} // namespace

std::string Driver::defaultLibraryPath() {
  const char *env = std::getenv("TILEC_LIBCUDA");
  return env && *env ? env : "libcuda.so.1";
}

/// The CUDA version whose signatures the entry points are asked for: those
/// Driver.h declares. Not CUDA_VERSION: CUDA 13 changed cuCtxGetDevice and
/// cuCtxSynchronize to take a context under the same names, so a lookup at
/// 13000 returns functions that the declared types call with a garbage
/// context (a crash on the H200). 12.0 is also the oldest driver tilec runs on.
constexpr int kDriverApiVersion = 12000;

Expected<std::unique_ptr<Driver>> Driver::load(const std::string &path) {
  dlerror();
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return Status::error("no CUDA driver found: " + path +
                         " could not be loaded (" +
                         (why ? why : "unknown reason") + ")");
  }
  std::unique_ptr<Driver> d(new Driver);
  d->handle_ = handle;
  d->libraryFile_ = resolvedFile(handle, path);
  const std::string where = "the CUDA driver " + d->libraryFile_;

  auto getName = reinterpret_cast<decltype(&::cuGetErrorName)>(
      dlsym(handle, "cuGetErrorName"));
  using GetProc = CUresult (*)(const char *, void **, int, cuuint64_t,
                               CUdriverProcAddressQueryResult *);
  auto getProc =
      reinterpret_cast<GetProc>(dlsym(handle, "cuGetProcAddress_v2"));
  if (!getProc)
    return Status::error(where +
                         " is too old: it has no cuGetProcAddress_v2 (tilec "
                         "needs a driver for CUDA 12.0 or newer)");

  auto resolve = [&](const char *name, void **fn) -> Status {
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult r = getProc(name, fn, kDriverApiVersion,
                         CU_GET_PROC_ADDRESS_DEFAULT, &found);
    // A missing symbol comes back as CUDA_ERROR_NOT_FOUND with a status that
    // says why; name what is missing rather than the error.
    if (found != CU_GET_PROC_ADDRESS_SUCCESS || (r == CUDA_SUCCESS && !*fn))
      return Status::error(where + " lacks " + name +
                           " (tilec needs a driver for CUDA 12.0 or newer)");
    if (r != CUDA_SUCCESS)
      return Status::error(where + ": cuGetProcAddress(" + name +
                           ") failed: " + bootstrapErrorString(r, getName));
    return Status();
  };
#define TILEC_RESOLVE_ENTRY(name)                                              \
  TILEC_RETURN_IF_ERROR(resolve(#name, reinterpret_cast<void **>(&d->name)));
  TILEC_DRIVER_ENTRY_POINTS(TILEC_RESOLVE_ENTRY)
#undef TILEC_RESOLVE_ENTRY

  if (CUresult r = d->cuInit(0); r != CUDA_SUCCESS)
    return Status::error(
        where + " failed to initialise: cuInit failed: " + d->errorString(r));
  if (CUresult r = d->cuDriverGetVersion(&d->version_); r != CUDA_SUCCESS)
    return d->error("cuDriverGetVersion", r);
  if (d->version_ < kDriverApiVersion)
    return Status::error(where + " supports CUDA " +
                         std::to_string(d->version_ / 1000) + "." +
                         std::to_string(d->version_ % 1000 / 10) +
                         "; tilec needs CUDA 12.0 or newer");
  return d;
}

Expected<const Driver *> Driver::get() {
  static std::mutex mutex;
  // Never destroyed: contexts and modules held by globals (an AOT program's
  // generated one) are destroyed at exit after any static made here, and
  // still call the driver then. The library stays loaded anyway.
  static Driver *driver = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (!driver) {
    auto loaded = load(defaultLibraryPath());
    if (!loaded.ok())
      return loaded.status();
    driver = loaded->release();
  }
  return static_cast<const Driver *>(driver);
}

// The library stays loaded: unloading libcuda while the process may still
// hold contexts and modules is unsafe, and a process loads it once.
Driver::~Driver() = default;

std::string Driver::identity() const {
  std::string id = std::to_string(version_) + " " + libraryFile_;
  struct stat st;
  if (stat(libraryFile_.c_str(), &st) == 0)
    id += " " + std::to_string(static_cast<long long>(st.st_size));
  return id;
}

std::string Driver::errorString(CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    return bootstrapErrorString(result, nullptr);
  std::string out = name;
  if (cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    out += std::string(" (") + text + ")";
  return out;
}

Status Driver::error(const char *what, CUresult result) const {
  return Status::error(std::string(what) + " failed: " + errorString(result));
}

} // namespace tilec::runtime
