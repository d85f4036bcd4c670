// A stand-in for the few PyTorch C++ declarations that the sources of
// `tilec --emit=torch` use, so that CI (no PyTorch) can compile them
// (test/AOT/torch.test, -fsyntax-only). Signatures follow PyTorch 2.x; it
// checks that the generated code is C++ that names these APIs as PyTorch
// declares them, not PyTorch's behaviour.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace c10 {
using DeviceIndex = int8_t;
enum class ScalarType { Bool, Char, Short, Int, Long, Half, BFloat16, Float,
                        Double, Float8_e4m3fn, Float8_e5m2 };
std::ostream &operator<<(std::ostream &, ScalarType);
struct Device {
  DeviceIndex index() const;
  bool operator==(const Device &) const;
};
std::ostream &operator<<(std::ostream &, const Device &);
template <typename T> class ArrayRef {
public:
  size_t size() const;
  const T &operator[](size_t) const;
};
namespace cuda {
DeviceIndex current_device();
struct CUDAGuard {
  explicit CUDAGuard(DeviceIndex);
};
struct CUDAStream {
  CUstream stream() const;
};
} // namespace cuda
namespace detail {
template <typename... Args> void torchCheckFail(const Args &...);
} // namespace detail
} // namespace c10

namespace at {
using c10::ScalarType;
constexpr ScalarType kBool = ScalarType::Bool, kChar = ScalarType::Char,
                     kShort = ScalarType::Short, kInt = ScalarType::Int,
                     kLong = ScalarType::Long, kHalf = ScalarType::Half,
                     kBFloat16 = ScalarType::BFloat16,
                     kFloat = ScalarType::Float, kDouble = ScalarType::Double,
                     kFloat8_e4m3fn = ScalarType::Float8_e4m3fn,
                     kFloat8_e5m2 = ScalarType::Float8_e5m2;
using IntArrayRef = c10::ArrayRef<int64_t>;
class Tensor {
public:
  bool is_cuda() const;
  bool is_meta() const;
  c10::Device device() const;
  ScalarType scalar_type() const;
  bool is_contiguous() const;
  const void *const_data_ptr() const;
  void *mutable_data_ptr() const;
  int64_t numel() const;
  int64_t dim() const;
  IntArrayRef sizes() const;
  IntArrayRef strides() const;
};
namespace cuda {
c10::cuda::CUDAStream getCurrentCUDAStream(c10::DeviceIndex);
} // namespace cuda
} // namespace at

#define TORCH_CHECK(cond, ...)                                                 \
  do {                                                                         \
    if (!(cond))                                                               \
      ::c10::detail::torchCheckFail(__VA_ARGS__);                              \
  } while (false)

namespace torch {
struct Library {
  void def(const char *schema);
  template <typename F> void impl(const char *name, F *function);
};
} // namespace torch
#define FAKE_TORCH_CAT2(a, b) a##b
#define FAKE_TORCH_CAT(a, b) FAKE_TORCH_CAT2(a, b)
#define TORCH_LIBRARY_FRAGMENT(ns, m)                                          \
  [[maybe_unused]] static void FAKE_TORCH_CAT(fake_def_, __LINE__)(           \
      ::torch::Library & m)
#define TORCH_LIBRARY_IMPL(ns, key, m)                                         \
  [[maybe_unused]] static void FAKE_TORCH_CAT(fake_impl_, __LINE__)(          \
      ::torch::Library & m)
