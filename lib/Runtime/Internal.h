//===- Internal.h - state shared by the runtime's objects -------*- C++ -*-===//
//
// The reference-counted state behind Context and Module, and a guard that
// makes a context current for the duration of a (non-hot-path) call.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_RUNTIME_INTERNAL_H
#define TILEC_LIB_RUNTIME_INTERNAL_H

#include "tilec/Runtime/Runtime.h"

#include <mutex>
#include <unordered_map>

namespace tilec::runtime {

struct ContextState {
  const Driver *driver = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  int ordinal = 0;
  int ccMajor = 0, ccMinor = 0;
  std::string name;
  /// Most shared memory (static + dynamic) a block may opt in to.
  int sharedOptin = 0;

  /// "device 0 (NVIDIA H200)", for messages.
  std::string describe() const {
    return "device " + std::to_string(ordinal) + " (" + name + ")";
  }
  ~ContextState();
};

/// The CUtensorMaps a module's launches encoded (TensorMapCache.cpp), keyed
/// by parameter, address, shape and strides; thread-safe.
class TensorMapCache final : public TensorMapEncoder {
public:
  explicit TensorMapCache(const Driver *driver) : driver_(driver) {}
  /// The map of `arg` for parameter `index` of `kernel` (whose metadata
  /// lives as long as the module): from the cache, else checked, encoded by
  /// cuTensorMapEncodeTiled and stored.
  Status encode(const KernelMetadata &kernel, size_t index,
                const TensorDescArg &arg, TensorMapBytes &out) override;
  size_t size() const;
  /// Entries kept before the cache starts over.
  static constexpr size_t kMaxEntries = 1024;

private:
  struct Key {
    const ParamInfo *param = nullptr;
    uint64_t address = 0;
    int rank = 0;
    int64_t shape[kMaxTensorRank] = {};
    int64_t strides[kMaxTensorRank] = {};
    bool operator==(const Key &o) const;
  };
  struct KeyHash {
    size_t operator()(const Key &k) const;
  };
  [[gnu::cold, gnu::noinline]] Status
  encodeMiss(const KernelMetadata &kernel, size_t index,
             const TensorDescArg &arg, const Key &key, TensorMapBytes &out);

  const Driver *driver_;
  mutable std::mutex mutex_;
  std::unordered_map<Key, TensorMapBytes, KeyHash> maps_;
};

struct ModuleState {
  std::shared_ptr<ContextState> context;
  CUmodule module = nullptr;
  ModuleMetadata metadata;
  LoadInfo info;
  /// Null when no kernel of the module has a descriptor parameter.
  std::unique_ptr<TensorMapCache> tensorMaps;
  ~ModuleState();
};

/// Makes `state`'s context current until destruction, unless it already is.
class ScopedContext {
public:
  explicit ScopedContext(const ContextState &state) : driver_(state.driver) {
    CUcontext current = nullptr;
    driver_->cuCtxGetCurrent(&current);
    if (current != state.context) {
      CUresult r = driver_->cuCtxPushCurrent(state.context);
      if (r == CUDA_SUCCESS)
        pushed_ = true;
      else
        status_ = driver_->error("cuCtxPushCurrent", r);
    }
  }
  ~ScopedContext() {
    if (pushed_) {
      CUcontext popped;
      driver_->cuCtxPopCurrent(&popped);
    }
  }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;
  /// Whether the context could be made current.
  const Status &status() const { return status_; }

private:
  const Driver *driver_;
  bool pushed_ = false;
  Status status_;
};

/// The ptxas that LoadOptions::ptxas `configured` names (Ptxas.cpp), or ""
/// with `note` saying why there is none.
std::string findRuntimePtxas(const std::string &configured, std::string &note);

/// Path, size and modification time of `ptxas`: its part of a cache key.
std::string ptxasIdentity(const std::string &ptxas);

/// Compiles `ptx` for `arch` (sm_90, sm_90a) with `ptxas` as whole-program
/// code; its messages go to `log`.
Expected<std::string> runPtxas(const std::string &ptxas, std::string_view ptx,
                               const std::string &arch, std::string &log);

} // namespace tilec::runtime

#endif // TILEC_LIB_RUNTIME_INTERNAL_H
