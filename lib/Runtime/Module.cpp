//===- Module.cpp - loading modules, launching kernels --------------------===//
//
// Loading: PTX goes through the on-disk cache (Cache.h) and, on a miss,
// through ptxas when one is installed (Ptxas.cpp: whole-program code), else
// through cuLink* so that the driver hands back the cubin it compiled; the
// cubin is then stored. Launching: Kernel::launchArgs is the hot path, a pack
// of the arguments into stack slots (Args.cpp) and one cuLaunchKernel; anything
// that can fail slowly lives in cold functions.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "tilec/Runtime/Cache.h"
#include "tilec/Target/Chip.h"

#include <chrono>
#include <cstring>
#include <vector>

namespace tilec::runtime {

ModuleState::~ModuleState() {
  if (module) {
    ScopedContext scope(*context);
    context->driver->cuModuleUnload(module);
  }
}

namespace {

/// The JIT options of every PTX compile; part of the cache key.
constexpr const char *kJitOptionsText = "cuLink O4 target-from-context";

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

bool isElf(std::string_view data) {
  return data.size() >= 4 && std::memcmp(data.data(),
                                         "\x7f"
                                         "ELF",
                                         4) == 0;
}
bool isFatbin(std::string_view data) {
  return data.size() >= 4 &&
         std::memcmp(data.data(), "\x50\xed\x55\xba", 4) == 0;
}

/// Refuses kernels built for a newer (or, for sm_XYa, another) device.
Status checkTarget(const ModuleMetadata &m, const ContextState &s) {
  // parseMetadata checked the chip; a ModuleMetadata built in code may not.
  auto chip = lookupChip(m.target);
  if (!chip.ok())
    return chip.status();
  if (!chip->runsOn(s.ccMajor, s.ccMinor))
    return Status::error("the kernels were compiled for " + m.target + " but " +
                         s.describe() + " is sm_" +
                         std::to_string(s.ccMajor * 10 + s.ccMinor));
  return Status();
}

/// Compiles PTX with the driver's JIT; returns the cubin.
Expected<std::string> compilePtx(const ContextState &s, std::string_view ptx,
                                 std::string &infoLog) {
  const Driver *d = s.driver;
  ScopedContext scope(s);
  TILEC_RETURN_IF_ERROR(scope.status());
  std::vector<char> errorLog(16384, '\0'), info(16384, '\0');
  CUjit_option keys[] = {
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {
      errorLog.data(), reinterpret_cast<void *>(uintptr_t(errorLog.size() - 1)),
      info.data(), reinterpret_cast<void *>(uintptr_t(info.size() - 1))};
  CUlinkState link = nullptr;
  if (CUresult r = d->cuLinkCreate(4, keys, values, &link); r != CUDA_SUCCESS)
    return d->error("cuLinkCreate", r);
  // The driver wants PTX NUL-terminated.
  std::string text(ptx);
  auto fail = [&](const char *what, CUresult r) {
    std::string log = errorLog.data();
    d->cuLinkDestroy(link);
    return Status::error("the CUDA driver could not compile the PTX (" +
                         std::string(what) + ": " + d->errorString(r) + ")" +
                         (log.empty() ? "" : ":\n" + log));
  };
  if (CUresult r =
          d->cuLinkAddData(link, CU_JIT_INPUT_PTX, text.data(), text.size() + 1,
                           "tilec.ptx", 0, nullptr, nullptr);
      r != CUDA_SUCCESS)
    return fail("cuLinkAddData", r);
  void *cubin = nullptr;
  size_t size = 0;
  if (CUresult r = d->cuLinkComplete(link, &cubin, &size); r != CUDA_SUCCESS)
    return fail("cuLinkComplete", r);
  std::string out(static_cast<const char *>(cubin), size);
  infoLog = info.data();
  d->cuLinkDestroy(link);
  return out;
}

} // namespace

Expected<Module> Module::finishLoad(const Context &context,
                                    ModuleMetadata metadata,
                                    std::string_view image, LoadInfo info) {
  const auto &s = context.state();
  const Driver *d = s->driver;
  ScopedContext scope(*s);
  TILEC_RETURN_IF_ERROR(scope.status());
  auto state = std::make_shared<ModuleState>();
  state->context = s;
  if (CUresult r = d->cuModuleLoadData(&state->module, image.data());
      r != CUDA_SUCCESS)
    return d->error("cuModuleLoadData", r)
        .withContext("cannot load the kernels on " + s->describe());
  // Every kernel the metadata promises must be in the image: finding out at
  // load beats finding out at the first launch.
  for (const KernelMetadata &k : metadata.kernels) {
    CUfunction f;
    if (CUresult r = d->cuModuleGetFunction(&f, state->module, k.name.c_str());
        r != CUDA_SUCCESS)
      return Status::error("kernel '" + k.name +
                           "' is in the metadata but not in the module (" +
                           d->errorString(r) + ")");
  }
  state->metadata = std::move(metadata);
  state->info = std::move(info);
  for (const KernelMetadata &k : state->metadata.kernels)
    if (k.tensorDescCount() != 0 && !state->tensorMaps)
      state->tensorMaps = std::make_unique<TensorMapCache>(d);
  return Module(std::move(state));
}

Expected<Module> Module::loadPtx(const Context &context, std::string_view ptx,
                                 std::string_view metadataJson,
                                 const LoadOptions &options) {
  auto metadata = parseMetadata(metadataJson);
  if (!metadata.ok())
    return metadata.status();
  return loadPtx(context, ptx, std::move(*metadata), options);
}

Expected<Module> Module::loadPtx(const Context &context, std::string_view ptx,
                                 ModuleMetadata metadata,
                                 const LoadOptions &options) {
  auto start = std::chrono::steady_clock::now();
  const auto &s = context.state();
  TILEC_RETURN_IF_ERROR(checkTarget(metadata, *s));

  LoadInfo info;
  // Who compiles: ptxas (whole-program code) when one is installed, else
  // the driver's linker. The compiler is part of the cache key.
  std::string ptxas = findRuntimePtxas(options.ptxas, info.compilerNote);
  std::string arch = context.arch();
  if (const Chip *chip = findChip(metadata.target); chip && chip->archSpecific)
    arch = metadata.target; // sm_90a PTX needs -arch=sm_90a
  std::string driverId = s->driver->identity();
  auto keyFor = [&](const std::string &compiler) {
    return cubinCacheKey({ptx, arch, driverId, compiler});
  };
  std::optional<CubinCache> cache;
  std::string key;
  if (options.useCache) {
    Expected<std::string> dir = options.cacheDir.empty()
                                    ? defaultCacheDir()
                                    : Expected<std::string>(options.cacheDir);
    if (dir.ok()) {
      cache.emplace(*dir);
      key = keyFor(ptxas.empty() ? kJitOptionsText : ptxasIdentity(ptxas));
      info.cacheFile = cache->pathFor(key);
      if (std::optional<std::string> cubin = cache->lookup(key)) {
        info.source = LoadInfo::Source::CachedCubin;
        info.compiler =
            ptxas.empty() ? "the driver's linker" : "ptxas " + ptxas;
        auto loaded = finishLoad(context, metadata, *cubin, info);
        if (loaded.ok()) {
          loaded->state_->info.milliseconds = msSince(start);
          return loaded;
        }
        // A cubin the driver refuses is rebuilt below and overwritten.
        info.cacheNote =
            "the cached cubin was refused (" + loaded.message() + "); rebuilt";
      }
    } else {
      info.cacheNote = dir.message();
    }
  } else {
    info.cacheNote = "the cache is off for this load";
  }

  std::optional<std::string> cubin;
  if (!ptxas.empty()) {
    std::string log;
    Expected<std::string> compiled = runPtxas(ptxas, ptx, arch, log);
    if (compiled.ok()) {
      cubin = std::move(*compiled);
      info.jitLog = std::move(log);
      info.compiler = "ptxas " + ptxas;
    } else {
      // The driver may still take it (a ptxas older than the driver, say);
      // its entry is the linker's.
      info.compilerNote = compiled.message();
      if (cache) {
        key = keyFor(kJitOptionsText);
        info.cacheFile = cache->pathFor(key);
      }
    }
  }
  if (!cubin) {
    auto linked = compilePtx(*s, ptx, info.jitLog);
    if (!linked.ok())
      return linked.status();
    cubin = std::move(*linked);
    info.compiler = "the driver's linker";
  }
  info.source = LoadInfo::Source::CompiledPtx;
  if (cache) {
    Status stored = cache->store(key, *cubin);
    if (!stored.ok()) {
      info.cacheNote = stored.message();
      info.cacheFile.clear();
    }
  }
  auto loaded = finishLoad(context, std::move(metadata), *cubin, info);
  if (loaded.ok())
    loaded->state_->info.milliseconds = msSince(start);
  return loaded;
}

Expected<Module> Module::loadCubin(const Context &context,
                                   std::string_view cubin,
                                   std::string_view metadataJson) {
  if (!isElf(cubin) && !isFatbin(cubin))
    return Status::error("the data is not a cubin (no ELF header); load PTX "
                         "text with Module::loadPtx");
  auto metadata = parseMetadata(metadataJson);
  if (!metadata.ok())
    return metadata.status();
  return loadCubin(context, cubin, std::move(*metadata));
}

Expected<Module> Module::loadCubin(const Context &context,
                                   std::string_view cubin,
                                   ModuleMetadata metadata) {
  auto start = std::chrono::steady_clock::now();
  if (!isElf(cubin) && !isFatbin(cubin))
    return Status::error("the data is not a cubin (no ELF header); load PTX "
                         "text with Module::loadPtx");
  TILEC_RETURN_IF_ERROR(checkTarget(metadata, *context.state()));
  LoadInfo info;
  info.source = LoadInfo::Source::Cubin;
  auto loaded = finishLoad(context, std::move(metadata), cubin, info);
  if (loaded.ok())
    loaded->state_->info.milliseconds = msSince(start);
  return loaded;
}

Expected<Module> Module::loadFiles(const Context &context,
                                   const std::string &binaryPath,
                                   const std::string &metadataPath,
                                   const LoadOptions &options) {
  std::string jsonPath = metadataPath;
  if (jsonPath.empty()) {
    size_t slash = binaryPath.find_last_of('/');
    size_t dot = binaryPath.find_last_of('.');
    bool hasExt =
        dot != std::string::npos && (slash == std::string::npos || dot > slash);
    jsonPath = (hasExt ? binaryPath.substr(0, dot) : binaryPath) + ".json";
  }
  auto binary = readFile(binaryPath);
  if (!binary.ok())
    return binary.status();
  auto json = readFile(jsonPath);
  if (!json.ok())
    return json.status();
  Expected<Module> m =
      isElf(*binary) || isFatbin(*binary)
          ? loadCubin(context, *binary, *json)
          : (binary->find(".target") != std::string::npos
                 ? loadPtx(context, *binary, *json, options)
                 : Expected<Module>(Status::error(
                       "is neither PTX (no .target directive) nor a cubin")));
  if (!m.ok())
    return m.status().withContext(binaryPath);
  return m;
}

const ModuleMetadata &Module::metadata() const { return state_->metadata; }
const LoadInfo &Module::loadInfo() const { return state_->info; }
CUmodule Module::get() const { return state_->module; }

Expected<Kernel> Module::kernel(std::string_view name) const {
  const ModuleState &m = *state_;
  const ContextState &s = *m.context;
  const Driver *d = s.driver;
  const KernelMetadata *meta = m.metadata.find(name);
  if (!meta)
    return Status::error("the module has no kernel '" + std::string(name) +
                         "' (its kernels: " + m.metadata.kernelNames() + ")");
  ScopedContext scope(s);
  TILEC_RETURN_IF_ERROR(scope.status());
  Kernel k;
  if (CUresult r =
          d->cuModuleGetFunction(&k.function_, m.module, meta->name.c_str());
      r != CUDA_SUCCESS)
    return d->error("cuModuleGetFunction", r)
        .withContext("kernel '" + meta->name + "'");

  int staticShared = 0, maxThreads = 0, registers = 0;
  d->cuFuncGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                        k.function_);
  d->cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                        k.function_);
  d->cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, k.function_);
  if (staticShared + meta->sharedBytes > s.sharedOptin)
    return Status::error("kernel '" + meta->name + "' needs " +
                         std::to_string(staticShared + meta->sharedBytes) +
                         " bytes of shared memory (" +
                         std::to_string(meta->sharedBytes) + " dynamic) but " +
                         s.describe() + " allows at most " +
                         std::to_string(s.sharedOptin));
  // Above 48 KiB in all, a block's dynamic shared memory must be opted in.
  if (staticShared + meta->sharedBytes > 48 * 1024) {
    if (CUresult r = d->cuFuncSetAttribute(
            k.function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            static_cast<int>(meta->sharedBytes));
        r != CUDA_SUCCESS)
      return d->error("cuFuncSetAttribute", r)
          .withContext("kernel '" + meta->name +
                       "': raising its dynamic "
                       "shared memory to " +
                       std::to_string(meta->sharedBytes) + " bytes");
  }
  if (maxThreads < meta->threadsPerProgram)
    return Status::error("kernel '" + meta->name + "' runs " +
                         std::to_string(meta->threadsPerProgram) +
                         " threads per program but its code allows at most " +
                         std::to_string(maxThreads) + " (it uses " +
                         std::to_string(registers) + " registers per thread)");
  k.module_ = state_;
  k.descParams_ = meta->tensorDescCount();
  if (k.descParams_ != 0)
    k.tensorMaps_ = m.tensorMaps.get();
  k.metadata_ = meta;
  k.driver_ = d;
  k.blockThreads_ = static_cast<unsigned>(meta->threadsPerProgram);
  k.sharedBytes_ = static_cast<unsigned>(meta->sharedBytes);
  return k;
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

Status Kernel::launchArgs(CUstream stream, const Grid &grid,
                          const ArgValue *args, size_t count) const {
  if (descParams_ != 0)
    return launchWithMaps(stream, grid, args, count);
  if (count > kInlineParams) [[unlikely]] {
    std::vector<uint64_t> slots(count);
    std::vector<void *> pointers(count);
    TILEC_RETURN_IF_ERROR(
        packArgs(*metadata_, args, count, slots.data(), pointers.data()));
    TILEC_RETURN_IF_ERROR(checkGrid(*metadata_, grid));
    CUresult r = driver_->cuLaunchKernel(
        function_, unsigned(grid.x), unsigned(grid.y), unsigned(grid.z),
        blockThreads_, 1, 1, sharedBytes_, stream, pointers.data(), nullptr);
    if (r != CUDA_SUCCESS)
      return launchFailed(r, stream, grid, pointers.data());
    return Status();
  }
  uint64_t slots[kInlineParams];
  void *pointers[kInlineParams];
  TILEC_RETURN_IF_ERROR(packArgs(*metadata_, args, count, slots, pointers));
  TILEC_RETURN_IF_ERROR(checkGrid(*metadata_, grid));
  CUresult r = driver_->cuLaunchKernel(
      function_, unsigned(grid.x), unsigned(grid.y), unsigned(grid.z),
      blockThreads_, 1, 1, sharedBytes_, stream, pointers, nullptr);
  if (r != CUDA_SUCCESS) [[unlikely]]
    return launchFailed(r, stream, grid, pointers);
  return Status();
}

Status Kernel::launchArgs(CUstream stream, const ArgValue *args,
                          size_t count) const {
  Expected<Grid> grid = ruleGrid(*metadata_, args, count);
  if (!grid.ok())
    return grid.status();
  if (grid->x == 0 || grid->y == 0 || grid->z == 0)
    return Status();
  return launchArgs(stream, *grid, args, count);
}

/// Most descriptor parameters whose maps a launch keeps on the stack.
constexpr unsigned kInlineMaps = 4;

Status Kernel::launchWithMaps(CUstream stream, const Grid &grid,
                              const ArgValue *args, size_t count) const {
  // The maps live on this frame until cuLaunchKernel, which copies the
  // parameters, returns; CUtensorMap's 64-byte alignment is the type's.
  TensorMapBytes inlineMaps[kInlineMaps];
  std::unique_ptr<TensorMapBytes[]> heapMaps;
  TensorMapSlots maps{tensorMaps_, inlineMaps};
  if (descParams_ > kInlineMaps) [[unlikely]] {
    heapMaps = std::make_unique<TensorMapBytes[]>(descParams_);
    maps.maps = heapMaps.get();
  }
  uint64_t inlineSlots[kInlineParams];
  void *inlinePointers[kInlineParams];
  std::vector<uint64_t> heapSlots;
  std::vector<void *> heapPointers;
  uint64_t *slots = inlineSlots;
  void **pointers = inlinePointers;
  if (count > kInlineParams) [[unlikely]] {
    heapSlots.resize(count);
    heapPointers.resize(count);
    slots = heapSlots.data();
    pointers = heapPointers.data();
  }
  TILEC_RETURN_IF_ERROR(
      packArgs(*metadata_, args, count, slots, pointers, &maps));
  TILEC_RETURN_IF_ERROR(checkGrid(*metadata_, grid));
  CUresult r = driver_->cuLaunchKernel(
      function_, unsigned(grid.x), unsigned(grid.y), unsigned(grid.z),
      blockThreads_, 1, 1, sharedBytes_, stream, pointers, nullptr);
  if (r != CUDA_SUCCESS) [[unlikely]]
    return launchFailed(r, stream, grid, pointers);
  return Status();
}

Status Kernel::launchFailed(CUresult result, CUstream stream, const Grid &grid,
                            void **params) const {
  const ContextState &s = *module_->context;
  // A thread with no (or another) context current cannot launch our
  // function: make ours current and try once more.
  CUcontext current = nullptr;
  driver_->cuCtxGetCurrent(&current);
  if (current != s.context &&
      driver_->cuCtxSetCurrent(s.context) == CUDA_SUCCESS)
    result = driver_->cuLaunchKernel(
        function_, unsigned(grid.x), unsigned(grid.y), unsigned(grid.z),
        blockThreads_, 1, 1, sharedBytes_, stream, params, nullptr);
  if (result == CUDA_SUCCESS)
    return Status();
  return Status::error("launch of kernel '" + metadata_->name + "' (grid (" +
                       std::to_string(grid.x) + ", " + std::to_string(grid.y) +
                       ", " + std::to_string(grid.z) + "), " +
                       std::to_string(blockThreads_) + " threads, " +
                       std::to_string(sharedBytes_) +
                       " bytes of shared memory) failed: cuLaunchKernel: " +
                       driver_->errorString(result));
}

Expected<int> Kernel::residentPrograms() const {
  const ContextState &s = *module_->context;
  ScopedContext scope(s);
  TILEC_RETURN_IF_ERROR(scope.status());
  const int ctas = metadata_->numCtas;
  if (ctas == 1) {
    int sms = 0;
    if (CUresult r = driver_->cuDeviceGetAttribute(
            &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, s.device);
        r != CUDA_SUCCESS)
      return driver_->error("cuDeviceGetAttribute", r)
          .withContext("kernel '" + metadata_->name + "': the SM count");
    return sms;
  }
  // The kernel's cluster shape is its own (.reqnctapercluster): the
  // configuration names none.
  CUlaunchConfig config = {};
  config.gridDimX = unsigned(ctas);
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = blockThreads_;
  config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = sharedBytes_;
  int clusters = 0;
  if (CUresult r =
          driver_->cuOccupancyMaxActiveClusters(&clusters, function_, &config);
      r != CUDA_SUCCESS)
    return driver_->error("cuOccupancyMaxActiveClusters", r)
        .withContext("kernel '" + metadata_->name + "' in clusters of " +
                     std::to_string(ctas));
  if (clusters < 1)
    return Status::error("kernel '" + metadata_->name + "': no cluster of " +
                         std::to_string(ctas) + " programs fits " +
                         s.describe() + " (" + std::to_string(blockThreads_) +
                         " threads and " + std::to_string(sharedBytes_) +
                         " bytes of shared memory each)");
  return clusters * ctas;
}

Expected<BoundLaunch> Kernel::bindArgs(const ArgValue *args,
                                       size_t count) const {
  BoundLaunch b;
  b.kernel_ = *this;
  size_t n = count == 0 ? 1 : count;
  b.slots_ = std::make_unique<uint64_t[]>(n);
  b.pointers_ = std::make_unique<void *[]>(n);
  // Encoded once here; the bound launch passes the same bytes every time.
  TensorMapSlots maps{tensorMaps_, nullptr};
  if (descParams_ != 0) {
    b.maps_ = std::make_unique<TensorMapBytes[]>(descParams_);
    maps.maps = b.maps_.get();
  }
  TILEC_RETURN_IF_ERROR(packArgs(*metadata_, args, count, b.slots_.get(),
                                 b.pointers_.get(),
                                 descParams_ != 0 ? &maps : nullptr));
  return b;
}

Status BoundLaunch::launch(CUstream stream, const Grid &grid) const {
  const Kernel &k = kernel_;
  TILEC_RETURN_IF_ERROR(checkGrid(*k.metadata_, grid));
  CUresult r = k.driver_->cuLaunchKernel(
      k.function_, unsigned(grid.x), unsigned(grid.y), unsigned(grid.z),
      k.blockThreads_, 1, 1, k.sharedBytes_, stream, pointers_.get(), nullptr);
  if (r != CUDA_SUCCESS) [[unlikely]]
    return k.launchFailed(r, stream, grid, pointers_.get());
  return Status();
}

} // namespace tilec::runtime
