//===- Args.h - kernel arguments and their checks ---------------*- C++ -*-===//
//
// A launch turns each C++ argument into an ArgValue (a tagged 16-byte value),
// checks it against the kernel's metadata and writes it into the kernel's
// parameter slots. Everything here is plain host code, so the checks and
// their messages are unit-tested without a GPU.
//
// Conversions: integers go to integer parameters when the value fits, floats
// (float, double, Half, BFloat16) to float parameters, bool to i1; integer to
// float and float to integer are refused, as are pointers of another element
// type. Host pointers do not convert at all (a compile error): device
// addresses come typed, as DevicePtr<T> or DeviceBuffer<T>.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_ARGS_H
#define TILEC_RUNTIME_ARGS_H

#include "tilec/Runtime/Metadata.h"
#include "tilec/Runtime/Status.h"
#include "tilec/Runtime/TensorDesc.h"
#include "tilec/Runtime/Types.h"

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

namespace tilec::runtime {

/// A device address of elements of type T (no ownership).
template <typename T> struct DevicePtr {
  uint64_t address = 0;

  DevicePtr() = default;
  static DevicePtr fromAddress(uint64_t address) {
    DevicePtr p;
    p.address = address;
    return p;
  }
  /// The address `count` elements further.
  DevicePtr operator+(int64_t count) const {
    return fromAddress(address + uint64_t(count * int64_t(sizeof(T))));
  }
  explicit operator bool() const { return address != 0; }
};

/// The programs of a launch along x, y, z.
struct Grid {
  int64_t x = 1, y = 1, z = 1;
  Grid() = default;
  Grid(int64_t gx, int64_t gy = 1, int64_t gz = 1) : x(gx), y(gy), z(gz) {}
};

/// One argument of a launch, before it is checked against a parameter.
struct ArgValue {
  enum class Kind : uint8_t {
    Pointer,
    SignedInt,
    UnsignedInt,
    Float,
    Bool,
    TensorDesc,
    /// A DLPack tensor (tilec/Runtime/DLPack.h) for a pointer parameter:
    /// checked against it (device, dtype, alignment, strides, extent) at
    /// launch, then passed as its data address.
    DLTensor,
    /// `fromTensor` for an integer parameter with a `tile.from` source: the
    /// launch templates replace it by the value that source gives for the
    /// tensor argument it names (resolveFromTensor).
    FromTensor
  };
  Kind kind = Kind::SignedInt;
  /// Pointer, TensorDesc: the element type; SignedInt/UnsignedInt: the C++
  /// type's width (I8..I64); Float: F16/BF16/F32/F64; Bool: I1; DLTensor:
  /// unused (the tensor's dtype is checked against the parameter).
  DType type = DType::I32;
  union {
    uint64_t address; ///< Pointer
    /// TensorDesc: the argument, which must outlive the launch call (the
    /// variadic launch() and bind() keep theirs alive).
    const TensorDescArg *desc;
    /// DLTensor: the `::DLTensor` (an anonymous struct in dlpack.h, hence
    /// void here), which must outlive the launch call.
    const void *dlTensor;
    int64_t i;        ///< SignedInt
    uint64_t u;       ///< UnsignedInt
    double f;         ///< Float (F16/BF16 held exactly as double)
    bool b;           ///< Bool
  };
  ArgValue() : u(0) {}
};

/// Spelling of an argument for messages: "a pointer to f32", "an i64 integer".
std::string describeArg(const ArgValue &arg);

/// A pointer argument to elements of `type` at `address` (for callers that
/// know the type at run time, e.g. from the metadata).
inline ArgValue pointerArg(DType type, uint64_t address) {
  ArgValue a;
  a.kind = ArgValue::Kind::Pointer;
  a.type = type;
  a.address = address;
  return a;
}

/// The placeholder for an integer parameter whose `tile.from` names a
/// tensor argument (a DLPack tensor or a descriptor: they carry sizes and
/// strides): `k.launch(stream, x, y, z, tilec::runtime::fromTensor)` passes
/// z.size(0) for `n` when the kernel says `tile.from = "z.size(0)"`.
struct FromTensorTag {};
inline constexpr FromTensorTag fromTensor{};

// makeArg: one overload per accepted C++ argument type (found by ADL, so the
// runtime's buffer types add their own).
inline ArgValue makeArg(FromTensorTag) {
  ArgValue a;
  a.kind = ArgValue::Kind::FromTensor;
  return a;
}
template <typename T> ArgValue makeArg(DevicePtr<T> p) {
  return pointerArg(DTypeOf<T>::value, p.address);
}
inline ArgValue makeArg(bool v) {
  ArgValue a;
  a.kind = ArgValue::Kind::Bool;
  a.type = DType::I1;
  a.b = v;
  return a;
}
template <std::integral T>
requires(!std::same_as<T, bool>) ArgValue makeArg(T v) {
  ArgValue a;
  constexpr DType width = sizeof(T) == 1   ? DType::I8
                               : sizeof(T) == 2 ? DType::I16
                               : sizeof(T) == 4 ? DType::I32
                                                : DType::I64;
  a.type = width;
  if constexpr (std::is_signed_v<T>) {
    a.kind = ArgValue::Kind::SignedInt;
    a.i = v;
  } else {
    a.kind = ArgValue::Kind::UnsignedInt;
    a.u = v;
  }
  return a;
}
inline ArgValue makeArg(float v) {
  ArgValue a;
  a.kind = ArgValue::Kind::Float;
  a.type = DType::F32;
  a.f = v;
  return a;
}
inline ArgValue makeArg(double v) {
  ArgValue a;
  a.kind = ArgValue::Kind::Float;
  a.type = DType::F64;
  a.f = v;
  return a;
}
inline ArgValue makeArg(Half v) {
  ArgValue a;
  a.kind = ArgValue::Kind::Float;
  a.type = DType::F16;
  a.f = v.toFloat();
  return a;
}
inline ArgValue makeArg(BFloat16 v) {
  ArgValue a;
  a.kind = ArgValue::Kind::Float;
  a.type = DType::BF16;
  a.f = v.toFloat();
  return a;
}
/// A tensor descriptor argument (for a tensor_desc parameter); refers to
/// `d`, which must outlive the launch.
inline ArgValue makeArg(const TensorDescArg &d) {
  ArgValue a;
  a.kind = ArgValue::Kind::TensorDesc;
  a.type = d.type;
  a.desc = &d;
  return a;
}

/// The tensor of `shape` (in elements, outermost dimension first, as
/// PyTorch's size()) at `p`, contiguous row-major, or with `strides` (in
/// elements, outermost first; the last must be 1), for a tensor_desc
/// parameter:
///
///   kernel.launch(stream, grid, tensorDesc(a.ptr(), {M, K}), ...);
template <typename T>
TensorDescArg tensorDesc(DevicePtr<T> p, std::initializer_list<int64_t> shape,
                         std::initializer_list<int64_t> strides = {}) {
  return TensorDescArg::make(
      DTypeOf<T>::value, p.address,
      std::span<const int64_t>(shape.begin(), shape.size()),
      std::span<const int64_t>(strides.begin(), strides.size()));
}
/// The same from a pointer argument of a run-time type (pointerArg()).
inline TensorDescArg tensorDesc(const ArgValue &pointer,
                                std::span<const int64_t> shape,
                                std::span<const int64_t> strides = {}) {
  return TensorDescArg::make(pointer.type, pointer.address, shape, strides);
}

/// Host pointers are never kernel arguments: wrap device addresses in
/// DevicePtr<T>.
template <typename T> ArgValue makeArg(T *) = delete;

/// Most parameters a launch packs on the stack; longer lists use the heap.
inline constexpr size_t kInlineParams = 32;

/// Checks `args[0..count)` against `kernel`'s parameters and writes each into
/// `slots[i]` (8 bytes per parameter, value in the low bytes), setting
/// `pointers[i] = &slots[i]` as cuLaunchKernel wants. A tensor_desc
/// parameter's map is encoded by `maps->encoder` into the next of
/// `maps->maps` and passed by value (`pointers[i]` points at those 128
/// bytes); a kernel with descriptor parameters needs `maps`. Errors name the
/// kernel and the parameter: "kernel 'add', parameter 'n' (#3): ...".
Status packArgs(const KernelMetadata &kernel, const ArgValue *args,
                size_t count, uint64_t *slots, void **pointers,
                const TensorMapSlots *maps = nullptr);

/// `args[0..count)` with each `fromTensor` replaced by the value of its
/// parameter's `tile.from` for the tensor argument it names, into `out`
/// (count values). Errors name the parameter: one without `tile.from`, a
/// source whose tensor is a plain address (no sizes: give a DLPack tensor
/// or a descriptor, or the value), a dimension the tensor lacks, a quotient
/// that does not go exactly. The launch and bind templates call it when an
/// argument is `fromTensor`; launchArgs and packArgs take resolved values.
Status resolveFromTensor(const KernelMetadata &kernel, const ArgValue *args,
                         size_t count, ArgValue *out);

/// Checks a launch's grid: every dimension at least 1, x below 2^31 and a
/// multiple of the kernel's num_ctas, y and z at most 65535.
Status checkGrid(const KernelMetadata &kernel, const Grid &grid);

/// The grid `kernel`'s rule (metadata "grid", docs/metadata.md) gives for
/// `args[0..count)`: its expressions evaluated on the integer arguments they
/// name; dimensions without an expression are 1. Errors: no rule, a count
/// or an argument the launch would refuse anyway (the same message), an
/// overflow or a division by zero. A dimension may come out 0 (empty
/// inputs): the rule launches then launch nothing. Not range-checked: that
/// is checkGrid's.
Expected<Grid> ruleGrid(const KernelMetadata &kernel, const ArgValue *args,
                        size_t count);

/// Every check a launch of `kernel` on `grid` (null: its rule's grid) with
/// `args[0..count)` makes before the driver, with the same messages, and no
/// driver: the rule's grid (0 programs: nothing else is checked, as such a
/// launch launches nothing), packArgs (tensor descriptors through
/// checkTensorDesc, encoded by nobody) and checkGrid. For bindings that must
/// refuse what the launch would without a GPU, such as a PyTorch operator's
/// Meta implementation (torch.compile's tracing).
Status checkLaunch(const KernelMetadata &kernel, const Grid *grid,
                   const ArgValue *args, size_t count);

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_ARGS_H
