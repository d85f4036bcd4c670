//===- Runtime.h - load and launch tilec kernels ----------------*- C++ -*-===//
//
// The tilec runtime on the CUDA Driver API, with no MLIR: a device's primary
// context, streams, events, typed device buffers, modules loaded from PTX
// (through an on-disk cubin cache) or cubin with their metadata, checked
// launches and CUDA graphs.
//
//   auto ctx = Context::create(0);                  // Expected<Context>
//   auto mod = Module::loadFiles(*ctx, "softmax.ptx"); // + softmax.json
//   auto k = mod->kernel("softmax");
//   auto x = DeviceBuffer<float>::allocate(*ctx, rows * cols);
//   Status s = k->launch(stream, Grid(rows), *x, *y, int32_t(cols));
//
// Objects share ownership of what they depend on (a buffer keeps its context
// alive, a Kernel its module), so they may be destroyed in any order. All
// calls report failures as Status/Expected; none throws or aborts.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_RUNTIME_H
#define TILEC_RUNTIME_RUNTIME_H

#include "tilec/Runtime/Args.h"
#include "tilec/Runtime/Driver.h"
#include "tilec/Runtime/Metadata.h"
#include "tilec/Runtime/Status.h"

#include <cuda.h>

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <type_traits>
#include <string>
#include <string_view>

namespace tilec::runtime {

struct ContextState;
struct ModuleState;

/// A device's primary context, retained while any object uses it.
class Context {
public:
  /// Retains the primary context of device `ordinal` and makes it current on
  /// the calling thread.
  static Expected<Context> create(int ordinal = 0);
  /// The primary context of the device whose context is current on this
  /// thread; an error if none is.
  static Expected<Context> current();
  /// Number of CUDA devices (an error without a driver).
  static Expected<int> deviceCount();

  /// Makes the context current on the calling thread.
  Status makeCurrent() const;
  /// Waits for all work of the context.
  Status synchronize() const;

  CUcontext get() const;
  CUdevice device() const;
  int ordinal() const;
  const std::string &deviceName() const;
  int computeCapabilityMajor() const;
  int computeCapabilityMinor() const;
  /// "sm_90" for a compute capability 9.0 device.
  std::string arch() const;
  const Driver &driver() const;

  const std::shared_ptr<ContextState> &state() const { return state_; }

private:
  explicit Context(std::shared_ptr<ContextState> s) : state_(std::move(s)) {}
  std::shared_ptr<ContextState> state_;
};

/// A CUDA stream (created non-blocking: it does not wait for the legacy
/// default stream). Converts to CUstream, so launches take either.
class Stream {
public:
  static Expected<Stream> create(const Context &context);
  Status synchronize() const;
  CUstream get() const { return stream_; }
  operator CUstream() const { return stream_; }

  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  ~Stream();

private:
  Stream() = default;
  std::shared_ptr<ContextState> context_;
  CUstream stream_ = nullptr;
};

/// A CUDA event that records time.
class Event {
public:
  static Expected<Event> create(const Context &context);
  Status record(CUstream stream) const;
  Status synchronize() const;
  /// Milliseconds from `start` to `end`, both recorded and complete.
  static Expected<float> elapsedMs(const Event &start, const Event &end);
  CUevent get() const { return event_; }

  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  ~Event();

private:
  Event() = default;
  std::shared_ptr<ContextState> context_;
  CUevent event_ = nullptr;
};

/// Device memory without an element type, freed on destruction.
class DeviceMemory {
public:
  static Expected<DeviceMemory> allocate(const Context &context, size_t bytes);
  uint64_t address() const { return address_; }
  size_t bytes() const { return bytes_; }

  /// Copies `bytes` bytes between the host and this memory at `offset`;
  /// refuses ranges past the end.
  Status copyFromHost(const void *src, size_t bytes, size_t offset = 0);
  Status copyToHost(void *dst, size_t bytes, size_t offset = 0) const;
  Status copyFromHostAsync(const void *src, size_t bytes, CUstream stream,
                           size_t offset = 0);
  Status copyToHostAsync(void *dst, size_t bytes, CUstream stream,
                         size_t offset = 0) const;
  /// Copies all of `src` (at most this size) to the start of this memory.
  Status copyFrom(const DeviceMemory &src, CUstream stream = nullptr);
  /// Fills the memory with a repeated 8-, 16- or 32-bit pattern (the 16- and
  /// 32-bit forms need a size that is a multiple of the pattern's).
  Status fill8(uint8_t value);
  Status fill16(uint16_t value);
  Status fill32(uint32_t value);

  DeviceMemory() = default;
  DeviceMemory(DeviceMemory &&other) noexcept;
  DeviceMemory &operator=(DeviceMemory &&other) noexcept;
  ~DeviceMemory();

private:
  Status checkRange(const char *what, size_t bytes, size_t offset) const;
  std::shared_ptr<ContextState> context_;
  uint64_t address_ = 0;
  size_t bytes_ = 0;
};

/// `count` elements of T in device memory, freed on destruction. Passes to
/// kernels as a pointer to T.
template <typename T> class DeviceBuffer {
public:
  static Expected<DeviceBuffer> allocate(const Context &context, size_t count) {
    auto mem = DeviceMemory::allocate(context, count * sizeof(T));
    if (!mem.ok())
      return mem.status();
    DeviceBuffer b;
    b.memory_ = std::move(*mem);
    b.count_ = count;
    return b;
  }
  /// A buffer holding a copy of `data`.
  static Expected<DeviceBuffer> fromHost(const Context &context,
                                         std::span<const T> data) {
    auto b = allocate(context, data.size());
    if (!b.ok())
      return b;
    TILEC_RETURN_IF_ERROR(b->copyFromHost(data));
    return b;
  }

  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  DevicePtr<T> ptr() const {
    return DevicePtr<T>::fromAddress(memory_.address());
  }
  operator DevicePtr<T>() const { return ptr(); }
  DeviceMemory &memory() { return memory_; }
  const DeviceMemory &memory() const { return memory_; }

  /// Copies `src` to the first src.size() elements.
  Status copyFromHost(std::span<const T> src) {
    return memory_.copyFromHost(src.data(), src.size_bytes());
  }
  /// Copies the first dst.size() elements to `dst`.
  Status copyToHost(std::span<T> dst) const {
    return memory_.copyToHost(dst.data(), dst.size_bytes());
  }
  Status copyFromHostAsync(std::span<const T> src, CUstream stream) {
    return memory_.copyFromHostAsync(src.data(), src.size_bytes(), stream);
  }
  Status copyToHostAsync(std::span<T> dst, CUstream stream) const {
    return memory_.copyToHostAsync(dst.data(), dst.size_bytes(), stream);
  }

private:
  DeviceMemory memory_;
  size_t count_ = 0;
};

template <typename T> ArgValue makeArg(const DeviceBuffer<T> &buffer) {
  return makeArg(buffer.ptr());
}

/// A tensor descriptor over `buffer` (Args.h's tensorDesc: shape and strides
/// in elements, outermost dimension first; contiguous when `strides` is
/// empty).
template <typename T>
TensorDescArg tensorDesc(const DeviceBuffer<T> &buffer,
                         std::initializer_list<int64_t> shape,
                         std::initializer_list<int64_t> strides = {}) {
  return tensorDesc(buffer.ptr(), shape, strides);
}

class BoundLaunch;

namespace detail {
/// Whether a launch's first argument after the stream is its grid.
template <typename... A> struct FirstIsGrid : std::false_type {};
template <typename F, typename... A>
struct FirstIsGrid<F, A...> : std::is_same<std::decay_t<F>, Grid> {};
} // namespace detail

/// A kernel of a loaded module, ready to launch: its function resolved, its
/// block size and shared memory fixed. Cheap to copy; keeps the module
/// loaded.
class Kernel {
public:
  /// Launches `grid` programs on `stream` with `args`, after checking them
  /// against the metadata (count, pointer or scalar, element type,
  /// divisibility). A tensor_desc parameter takes a TensorDescArg, whose
  /// CUtensorMap is encoded on first use (then cached by the module) and
  /// passed by value. A refused launch returns an error naming the kernel and
  /// the parameter and launches nothing.
  /// An integer parameter with a `tile.from` source may take `fromTensor`:
  /// its value then comes from the tensor argument the source names (a
  /// DLPack tensor or a descriptor; resolveFromTensor).
  template <typename... Args>
  Status launch(CUstream stream, const Grid &grid, const Args &...args) const {
    const ArgValue values[sizeof...(Args) == 0 ? 1 : sizeof...(Args)] = {
        makeArg(args)...};
    if constexpr ((std::is_same_v<Args, FromTensorTag> || ...)) {
      ArgValue resolved[sizeof...(Args)];
      TILEC_RETURN_IF_ERROR(
          resolveFromTensor(*metadata_, values, sizeof...(Args), resolved));
      return launchArgs(stream, grid, resolved, sizeof...(Args));
    }
    return launchArgs(stream, grid, values, sizeof...(Args));
  }
  /// launch() for arguments already made into ArgValues.
  Status launchArgs(CUstream stream, const Grid &grid, const ArgValue *args,
                    size_t count) const;

  /// Launches with the grid the kernel's rule (`tile.grid`, metadata
  /// "grid") computes from `args`: `k.launch(stream, x, y, z, n)`. A rule
  /// that gives 0 programs in some dimension (empty inputs) launches
  /// nothing and succeeds; a kernel without a rule is refused (ruleGrid).
  template <typename... Args>
  requires(!detail::FirstIsGrid<Args...>::value) Status
      launch(CUstream stream, const Args &...args) const {
    const ArgValue values[sizeof...(Args) == 0 ? 1 : sizeof...(Args)] = {
        makeArg(args)...};
    if constexpr ((std::is_same_v<Args, FromTensorTag> || ...)) {
      ArgValue resolved[sizeof...(Args)];
      TILEC_RETURN_IF_ERROR(
          resolveFromTensor(*metadata_, values, sizeof...(Args), resolved));
      return launchArgs(stream, resolved, sizeof...(Args));
    }
    return launchArgs(stream, values, sizeof...(Args));
  }
  /// The rule's launch for arguments already made into ArgValues.
  Status launchArgs(CUstream stream, const ArgValue *args, size_t count) const;

  /// Checks and packs `args` once, for launches that repeat them.
  template <typename... Args>
  Expected<BoundLaunch> bind(const Args &...args) const;
  Expected<BoundLaunch> bindArgs(const ArgValue *args, size_t count) const;

  const KernelMetadata &metadata() const { return *metadata_; }
  const std::string &name() const { return metadata_->name; }
  CUfunction function() const { return function_; }
  unsigned blockThreads() const { return blockThreads_; }
  unsigned sharedBytes() const { return sharedBytes_; }

  /// How many programs of this kernel the device runs at once when its
  /// programs run in clusters (metadata num_ctas > 1): the clusters that
  /// fit together (cuOccupancyMaxActiveClusters: a cluster's programs
  /// share a GPC, so on some devices fewer than SMs / num_ctas) times
  /// num_ctas. The persistent grid of a cluster kernel. For num_ctas 1, the
  /// device's SM count.
  Expected<int> residentPrograms() const;

private:
  friend class Module;
  friend class BoundLaunch;
  Kernel() = default;
  /// The slow path of a failed cuLaunchKernel: retries once if the thread had
  /// another (or no) context current, else reports the error.
  Status launchFailed(CUresult result, CUstream stream, const Grid &grid,
                      void **params) const;
  /// launchArgs for a kernel with tensor descriptor parameters.
  Status launchWithMaps(CUstream stream, const Grid &grid,
                        const ArgValue *args, size_t count) const;

  std::shared_ptr<const ModuleState> module_;
  /// The module's map cache when the kernel has descriptor parameters.
  TensorMapEncoder *tensorMaps_ = nullptr;
  unsigned descParams_ = 0;
  const KernelMetadata *metadata_ = nullptr;
  const Driver *driver_ = nullptr;
  CUfunction function_ = nullptr;
  unsigned blockThreads_ = 0;
  unsigned sharedBytes_ = 0;
};

/// A kernel with checked, packed arguments: launch() costs a grid check and
/// cuLaunchKernel.
class BoundLaunch {
public:
  Status launch(CUstream stream, const Grid &grid) const;
  const Kernel &kernel() const { return kernel_; }

private:
  friend class Kernel;
  Kernel kernel_;
  std::unique_ptr<uint64_t[]> slots_;
  std::unique_ptr<void *[]> pointers_;
  /// The encoded maps of descriptor parameters, passed by value.
  std::unique_ptr<TensorMapBytes[]> maps_;
};

template <typename... Args>
Expected<BoundLaunch> Kernel::bind(const Args &...args) const {
  const ArgValue values[sizeof...(Args) == 0 ? 1 : sizeof...(Args)] = {
      makeArg(args)...};
  if constexpr ((std::is_same_v<Args, FromTensorTag> || ...)) {
    ArgValue resolved[sizeof...(Args)];
    TILEC_RETURN_IF_ERROR(
        resolveFromTensor(*metadata_, values, sizeof...(Args), resolved));
    return bindArgs(resolved, sizeof...(Args));
  }
  return bindArgs(values, sizeof...(Args));
}

/// Where the cubin of a loaded module came from.
struct LoadInfo {
  enum class Source { Cubin, CompiledPtx, CachedCubin };
  Source source = Source::Cubin;
  /// Wall time of the load (JIT or cache read and cuModuleLoadData).
  double milliseconds = 0;
  /// The cache entry read or written; empty when the cache was not used.
  std::string cacheFile;
  /// Why the cache was not used or not written ("" when it was).
  std::string cacheNote;
  /// The JIT's info log of a compiled PTX (may be empty).
  std::string jitLog;
  /// What compiled the PTX: "ptxas <path>" (whole-program code) or "the
  /// driver's linker" (relocatable code); empty for a cubin.
  std::string compiler;
  /// Why ptxas was not used, or failed, when the driver's linker compiled.
  std::string compilerNote;
};

/// How to load a module.
struct LoadOptions {
  /// The cubin cache folder; empty: defaultCacheDir().
  std::string cacheDir;
  /// Compile PTX through the on-disk cache (read and write).
  bool useCache = true;
  /// The ptxas that compiles PTX, as whole-program code: the driver's linker
  /// compiles PTX as relocatable code, which costs some kernels registers
  /// (docs/runtime.md). Empty: $TILEC_RUNTIME_PTXAS, else
  /// $CUDA_HOME/bin/ptxas, $CUDA_PATH/bin/ptxas, ptxas in PATH,
  /// /usr/local/cuda/bin/ptxas (tilec::cuda::findPtxas). "off" (here or in the
  /// variable), none found, or a ptxas that fails: the driver's linker compiles
  /// it (LoadInfo::compilerNote says why).
  std::string ptxas;
};

/// Kernels loaded into a context, with their metadata.
class Module {
public:
  /// Loads PTX text: from the cache when a cubin of the same PTX, device,
  /// driver and compiler is there, else compiled by ptxas (LoadOptions::
  /// ptxas) or the driver's JIT (whose error log a failure reports) and
  /// stored in the cache.
  static Expected<Module> loadPtx(const Context &context, std::string_view ptx,
                                  std::string_view metadataJson,
                                  const LoadOptions &options = {});
  /// Loads a cubin (an ELF image).
  static Expected<Module> loadCubin(const Context &context,
                                    std::string_view cubin,
                                    std::string_view metadataJson);
  /// The same with metadata already in memory: a CompileResult's (tilec/
  /// Pipeline.h), so a program that compiles and launches never goes
  /// through JSON. Its target is checked against the device as above.
  static Expected<Module> loadPtx(const Context &context, std::string_view ptx,
                                  ModuleMetadata metadata,
                                  const LoadOptions &options = {});
  static Expected<Module> loadCubin(const Context &context,
                                    std::string_view cubin,
                                    ModuleMetadata metadata);
  /// Loads `binaryPath` (PTX text or a cubin, told apart by content) with the
  /// metadata at `metadataPath` (default: the binary's path with its
  /// extension replaced by .json).
  static Expected<Module> loadFiles(const Context &context,
                                    const std::string &binaryPath,
                                    const std::string &metadataPath = {},
                                    const LoadOptions &options = {});

  /// The kernel `name`, its function resolved and, for more than 48 KiB of
  /// dynamic shared memory, its limit raised.
  Expected<Kernel> kernel(std::string_view name) const;

  const ModuleMetadata &metadata() const;
  const LoadInfo &loadInfo() const;
  CUmodule get() const;

private:
  explicit Module(std::shared_ptr<ModuleState> s) : state_(std::move(s)) {}
  static Expected<Module> finishLoad(const Context &context,
                                     ModuleMetadata metadata,
                                     std::string_view image, LoadInfo info);
  std::shared_ptr<ModuleState> state_;
};

/// An instantiated CUDA graph, replayed with launch().
class Graph {
public:
  /// Captures the work `record` puts on `stream` (which must not be the
  /// legacy default stream) into a graph and instantiates it. If `record`
  /// fails, the capture is ended and its error returned.
  static Expected<Graph> capture(const Context &context, CUstream stream,
                                 const std::function<Status()> &record);
  /// Replays the graph on `stream`.
  Status launch(CUstream stream) const;

  Graph(Graph &&other) noexcept;
  Graph &operator=(Graph &&other) noexcept;
  ~Graph();

private:
  Graph() = default;
  std::shared_ptr<ContextState> context_;
  CUgraphExec exec_ = nullptr;
};

/// Reads a whole file (binary); an error names the file.
Expected<std::string> readFile(const std::string &path);

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_RUNTIME_H
