//===- TensorMapCache.cpp - encoded tensor maps, per module ---------------===//
//
// A launch with a tensor descriptor needs the 128-byte CUtensorMap of its
// argument. Encoding it means checking the argument (TensorDesc.cpp) and a
// call into the driver; a kernel launched in a loop passes the same tensors
// every time, so each module keeps the maps it encoded, keyed by what
// determines one: the parameter (which fixes element type, block, swizzle
// and fill) and the argument's address, shape and strides. A hit is a hash,
// a compare and a 128-byte copy under an uncontended mutex.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cstring>

namespace tilec::runtime {

bool TensorMapCache::Key::operator==(const Key &o) const {
  return param == o.param && address == o.address && rank == o.rank &&
         std::memcmp(shape, o.shape, sizeof shape) == 0 &&
         std::memcmp(strides, o.strides, sizeof strides) == 0;
}

size_t TensorMapCache::KeyHash::operator()(const Key &k) const {
  // FNV-1a over the fields; the key is a few dozen bytes.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  mix(reinterpret_cast<uintptr_t>(k.param));
  mix(k.address);
  mix(uint64_t(k.rank));
  for (int i = 0; i < k.rank; ++i) {
    mix(uint64_t(k.shape[i]));
    mix(uint64_t(k.strides[i]));
  }
  return size_t(h);
}

size_t TensorMapCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return maps_.size();
}

Status TensorMapCache::encode(const KernelMetadata &kernel, size_t index,
                              const TensorDescArg &arg, TensorMapBytes &out) {
  Key key;
  key.param = &kernel.params[index];
  key.address = arg.address;
  // A malformed argument (rank above 5, stride count off) is never stored:
  // it fails the check below, so the key needs only what a valid one has.
  key.rank =
      arg.rank == arg.strideCount && arg.rank >= 1 && arg.rank <= kMaxTensorRank
          ? arg.rank
          : -1;
  if (key.rank > 0) {
    std::memcpy(key.shape, arg.shape, sizeof(int64_t) * key.rank);
    std::memcpy(key.strides, arg.strides, sizeof(int64_t) * key.rank);
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = maps_.find(key); it != maps_.end()) [[likely]] {
      out = it->second;
      return Status();
    }
  }
  return encodeMiss(kernel, index, arg, key, out);
}

Status TensorMapCache::encodeMiss(const KernelMetadata &kernel, size_t index,
                                  const TensorDescArg &arg, const Key &key,
                                  TensorMapBytes &out) {
  TensorMapRequest r;
  TILEC_RETURN_IF_ERROR(checkTensorDesc(kernel, index, arg, r));
  CUtensorMap map;
  CUresult result = driver_->cuTensorMapEncodeTiled(
      &map, CUtensorMapDataType(r.dataType), r.rank,
      reinterpret_cast<void *>(uintptr_t(r.address)), r.globalDim,
      r.globalStrides, r.boxDim, r.elementStrides,
      CUtensorMapInterleave(r.interleave), CUtensorMapSwizzle(r.swizzle),
      CUtensorMapL2promotion(r.l2Promotion),
      CUtensorMapFloatOOBfill(r.oobFill));
  if (result != CUDA_SUCCESS)
    return driver_->error("cuTensorMapEncodeTiled", result)
        .withContext("kernel '" + kernel.name + "', parameter '" +
                     kernel.params[index].name + "' (#" +
                     std::to_string(index) + ")");
  std::memcpy(&out, &map, sizeof map);
  std::lock_guard<std::mutex> lock(mutex_);
  // Bounded: a program that launches over ever new tensors starts over
  // rather than growing without end.
  if (maps_.size() >= kMaxEntries)
    maps_.clear();
  maps_.emplace(key, out);
  return Status();
}

} // namespace tilec::runtime
