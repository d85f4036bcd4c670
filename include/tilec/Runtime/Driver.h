//===- Driver.h - the CUDA driver, loaded at run time -----------*- C++ -*-===//
//
// The runtime never links libcuda: it dlopens it (`libcuda.so.1`, or the file
// named by the environment variable TILEC_LIBCUDA) and resolves each entry
// point through cuGetProcAddress at CUDA 12.0 (Driver.cpp's
// kDriverApiVersion), which picks the `_v2`/`_v3` variants whose signatures
// this header declares. A program built with the runtime therefore starts on machines
// with no GPU; its first runtime call then reports "no CUDA driver found".
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_DRIVER_H
#define TILEC_RUNTIME_DRIVER_H

#include "tilec/Runtime/Status.h"

#include <cuda.h>

#include <memory>
#include <string>

namespace tilec::runtime {

/// The entry points the runtime uses (one pointer each, typed after cuda.h).
#define TILEC_DRIVER_ENTRY_POINTS(X)                                           \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuCtxGetDevice)                                                            \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemGetInfo)                                                              \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemcpyDtoD)                                                              \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemsetD8)                                                                \
  X(cuMemsetD16)                                                               \
  X(cuMemsetD32)                                                               \
  X(cuMemsetD8Async)                                                           \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuModuleLoadData)                                                          \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncGetAttribute)                                                        \
  X(cuFuncSetAttribute)                                                        \
  X(cuLinkCreate)                                                              \
  X(cuLinkAddData)                                                             \
  X(cuLinkComplete)                                                            \
  X(cuLinkDestroy)                                                             \
  X(cuLaunchKernel)                                                            \
  X(cuOccupancyMaxActiveClusters)                                              \
  X(cuTensorMapEncodeTiled)                                                    \
  X(cuGraphInstantiateWithFlags)                                               \
  X(cuGraphLaunch)                                                             \
  X(cuGraphDestroy)                                                            \
  X(cuGraphExecDestroy)

/// A loaded CUDA driver: its entry points and what identifies it.
class Driver {
public:
#define TILEC_DECLARE_ENTRY(name) decltype(&::name) name = nullptr;
  TILEC_DRIVER_ENTRY_POINTS(TILEC_DECLARE_ENTRY)
#undef TILEC_DECLARE_ENTRY

  /// The process's driver: loaded (and cuInit'ed) on the first successful
  /// call from TILEC_LIBCUDA or libcuda.so.1; a failure is not remembered, so
  /// a later call tries again.
  static Expected<const Driver *> get();

  /// Loads the driver library at `path` and initialises it (for tests and
  /// tools; get() is what programs use).
  static Expected<std::unique_ptr<Driver>> load(const std::string &path);

  /// The library name get() loads: $TILEC_LIBCUDA if set, else libcuda.so.1.
  static std::string defaultLibraryPath();

  /// cuDriverGetVersion's value (13000 for CUDA 13.0).
  int version() const { return version_; }
  /// The resolved file the library was loaded from (the versioned
  /// libcuda.so.580.xx), which names the exact driver build.
  const std::string &libraryFile() const { return libraryFile_; }
  /// "13000 /usr/lib/.../libcuda.so.580.95.05": identifies the driver build
  /// whose PTX compiler produced a cubin (a cache key part).
  std::string identity() const;

  /// "CUDA_ERROR_INVALID_VALUE (invalid argument)", or "CUDA error 999" when
  /// the driver cannot name it.
  std::string errorString(CUresult result) const;
  /// "`what` failed: <errorString>", as a Status.
  Status error(const char *what, CUresult result) const;

  ~Driver();
  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;

private:
  Driver() = default;
  void *handle_ = nullptr;
  int version_ = 0;
  std::string libraryFile_;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_DRIVER_H
