// A stand-in for the few PyTorch C++ declarations that the sources of
// `tilec --emit=torch` use, so that CI (no PyTorch) can compile them
// (test/AOT/torch.test, -fsyntax-only). Signatures follow PyTorch 2.x; it
// checks that the generated code is C++ that names these APIs as PyTorch
// declares them, not PyTorch's behaviour.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <tuple>
#include <string>
#include <type_traits>
#include <vector>

namespace at {
class Tensor;
} // namespace at

namespace c10 {
using DeviceIndex = int8_t;
struct TensorImpl {
  void bump_version();
  bool has_symbolic_sizes_strides() const;
};
class SymInt {
public:
  SymInt(int64_t);
  int64_t guard_int(const char *file, int64_t line) const;
  int64_t expect_int() const;
  std::optional<int64_t> maybe_as_int() const;
  bool is_symbolic() const;
  SymInt operator-() const;
  SymInt operator+(const SymInt &) const;
  SymInt operator-(const SymInt &) const;
  SymInt operator*(const SymInt &) const;
  SymInt operator/(const SymInt &) const;
  SymInt operator%(const SymInt &) const;
  bool operator<(const SymInt &) const;
  bool operator>=(const SymInt &) const;
  bool operator!=(const SymInt &) const;
};
bool operator>=(const SymInt &, int64_t);
bool operator!=(const SymInt &, int64_t);
bool operator==(const SymInt &, int64_t);
SymInt operator+(const SymInt &, int64_t);
SymInt operator-(const SymInt &, int64_t);
std::ostream &operator<<(std::ostream &, const SymInt &);
struct GradMode {
  static bool is_enabled();
};
class DispatchKeySet {
public:
  constexpr DispatchKeySet operator&(DispatchKeySet) const { return {}; }
};
constexpr DispatchKeySet after_ADInplaceOrView_keyset;
template <typename F> class TypedOperatorHandle;
template <typename R, typename... Args> class TypedOperatorHandle<R(Args...)> {
public:
  R redispatch(DispatchKeySet, Args...) const;
};
class OperatorHandle {
public:
  template <typename F> TypedOperatorHandle<F> typed() const;
};
class Dispatcher {
public:
  static Dispatcher &singleton();
  OperatorHandle findSchemaOrThrow(const char *name, const char *overload);
};
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
  ArrayRef(std::initializer_list<T>);
  const T *begin() const;
  const T *end() const;
  size_t size() const;
  const T &operator[](size_t) const;
};
template <typename T> std::ostream &operator<<(std::ostream &, ArrayRef<T>);
namespace cuda {
DeviceIndex current_device();
DeviceIndex device_count() noexcept;
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
} // namespace at
namespace c10 {
using SymIntArrayRef = ArrayRef<SymInt>;
} // namespace c10
namespace at {
struct TensorOptions {
  TensorOptions dtype(ScalarType) const;
};
class Tensor {
public:
  TensorOptions options() const;
  int64_t size(int64_t) const;
  c10::SymInt sym_size(int64_t) const;
  c10::SymInt sym_stride(int64_t) const;
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
  c10::SymInt sym_numel() const;
  c10::SymIntArrayRef sym_sizes() const;
  c10::SymIntArrayRef sym_strides() const;
  bool requires_grad() const;
  c10::TensorImpl *unsafeGetTensorImpl() const;
};
Tensor empty(IntArrayRef, TensorOptions);
Tensor empty_symint(c10::SymIntArrayRef, TensorOptions);
namespace detail {
Tensor empty_cuda(IntArrayRef, ScalarType, std::optional<c10::Device>,
                  std::optional<int>);
} // namespace detail
namespace cuda {
c10::cuda::CUDAStream getCurrentCUDAStream(c10::DeviceIndex);
} // namespace cuda
} // namespace at

#define TORCH_CHECK(cond, ...)                                                 \
  do {                                                                         \
    if (!(cond))                                                               \
      ::c10::detail::torchCheckFail(__VA_ARGS__);                              \
  } while (false)

namespace c10 {
/// TORCH_FN(f): f as a compile-time function pointer.
template <typename F, F *f> struct CompileTimeFunctionPointer {};
} // namespace c10
#define TORCH_FN(f)                                                            \
  ::c10::CompileTimeFunctionPointer<std::remove_pointer_t<decltype(&f)>, &f>()

namespace torch {
struct Library {
  void def(const char *schema);
  template <typename F, F *f>
  void impl(const char *name, c10::CompileTimeFunctionPointer<F, f>);
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
