//===- TestMemory.h - device memory of the simulator's unit tests ---------===//

#ifndef TILEC_TEST_UNIT_PTXSIM_TESTMEMORY_H
#define TILEC_TEST_UNIT_PTXSIM_TESTMEMORY_H

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace ptxsim_test {

/// Device memory for a test: 256-byte aligned, as the driver's.
struct Memory {
  explicit Memory(size_t bytes)
      : size(bytes), data(static_cast<uint8_t *>(std::aligned_alloc(
                              256, (bytes + 255) / 256 * 256)),
                          &std::free) {
    std::memset(data.get(), 0, bytes);
  }
  uint64_t address(size_t offset = 0) const {
    return reinterpret_cast<uint64_t>(data.get()) + offset;
  }
  template <typename T> T &at(size_t offset) {
    return *reinterpret_cast<T *>(data.get() + offset);
  }
  size_t size;
  std::unique_ptr<uint8_t, decltype(&std::free)> data;
};

} // namespace ptxsim_test

#endif // TILEC_TEST_UNIT_PTXSIM_TESTMEMORY_H
