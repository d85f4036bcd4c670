//===- DLPack.cpp - checking DLPack tensor arguments ----------------------===//
//
// The checks of tilec/Runtime/DLPack.h, made before the driver is called so
// that a refused launch launches nothing and names the parameter. Only this
// file includes dlpack.h (DLTensor is an anonymous struct there, so the rest
// of the runtime holds it as void).
//
//===----------------------------------------------------------------------===//

#include "DLPackChecks.h"
#include "tilec/Runtime/DLPack.h"

#include <cstdio>

namespace tilec::runtime {

namespace {

std::string deviceName(int32_t type) {
  switch (type) {
  case kDLCPU:
    return "kDLCPU";
  case kDLCUDA:
    return "kDLCUDA";
  case kDLCUDAHost:
    return "kDLCUDAHost";
  case kDLCUDAManaged:
    return "kDLCUDAManaged";
  case kDLROCM:
    return "kDLROCM";
  default:
    return "device type " + std::to_string(type);
  }
}

/// The DLPack code and bits of an element type. i1 is a byte (kDLBool, code
/// 6, in DLPack 0.8; kDLUInt 8 before); the 8-bit floats have no code in
/// DLPack 0.6 and match nothing.
bool matches(DType t, const DLDataType &d) {
  if (d.lanes != 1)
    return false;
  constexpr uint8_t kBool = 6;
  switch (t) {
  case DType::I1:
    return d.bits == 8 && (d.code == kBool || d.code == kDLUInt);
  case DType::I8:
  case DType::I16:
  case DType::I32:
  case DType::I64:
    return d.code == kDLInt && d.bits == 8 * dtypeSize(t);
  case DType::F16:
  case DType::F32:
  case DType::F64:
    return d.code == kDLFloat && d.bits == 8 * dtypeSize(t);
  case DType::BF16:
    return d.code == kDLBfloat && d.bits == 16;
  default:
    return false;
  }
}

std::string dtypeText(const DLDataType &d) {
  const char *code = d.code == kDLInt      ? "int"
                     : d.code == kDLUInt   ? "uint"
                     : d.code == kDLFloat  ? "float"
                     : d.code == kDLBfloat ? "bfloat"
                     : d.code == 6         ? "bool"
                                           : "code ";
  std::string s = code;
  if (std::string(code) == "code ")
    s += std::to_string(d.code) + " ";
  s += std::to_string(d.bits);
  if (d.lanes != 1)
    s += "x" + std::to_string(d.lanes);
  return s;
}

Status paramError(const KernelMetadata &k, size_t index,
                  const std::string &what) {
  return Status::error("kernel '" + k.name + "', parameter '" +
                       k.params[index].name + "' (#" + std::to_string(index) +
                       "): " + what);
}

} // namespace

std::string describeDLTensor(const void *tensor) {
  const auto *t = static_cast<const DLTensor *>(tensor);
  return "a DLPack tensor of " + dtypeText(t->dtype) + " on " +
         deviceName(t->device.device_type);
}

Expected<uint64_t> checkDLTensor(const KernelMetadata &kernel, size_t index,
                                 const ArgValue *args, size_t count) {
  const ParamInfo &p = kernel.params[index];
  const auto &t = *static_cast<const DLTensor *>(args[index].dlTensor);
  auto fail = [&](const std::string &what) {
    return paramError(kernel, index, what);
  };
  int32_t device = t.device.device_type;
  if (device != kDLCUDA && device != kDLCUDAManaged)
    return fail("expects a CUDA tensor but got " + describeDLTensor(&t));
  if (!matches(p.type, t.dtype))
    return fail("expects a tensor of " + std::string(dtypeName(p.type)) +
                " but got " + describeDLTensor(&t));
  if (t.ndim < 0)
    return fail("the DLPack tensor has ndim " + std::to_string(t.ndim));
  // Elements, and the strides of the compact row-major layout the kernels
  // index (a dimension of size 1 may have any stride, as PyTorch's
  // is_contiguous says), except in dimensions whose strides the kernel
  // takes as scalars (tile.from): there any stride, the span the view
  // reaches counted instead.
  auto taken = [&](int32_t d) {
    for (const ParamInfo &q : kernel.params)
      if (q.from && q.from->param == int(index) &&
          q.from->kind == grid::Source::Kind::Stride &&
          (q.from->dim < 0 ? q.from->dim + t.ndim : q.from->dim) == d)
        return true;
    return false;
  };
  bool strided = false;
  int64_t elements = 1, expect = 1, span = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    int64_t size = t.shape[d];
    if (size < 0)
      return fail("shape[" + std::to_string(d) + "] is " +
                  std::to_string(size));
    int64_t stride = t.strides ? t.strides[d] : expect;
    bool free = t.strides && taken(d);
    strided |= free;
    if (t.strides && size != 1 && !free && stride != expect)
      return fail("strides[" + std::to_string(d) + "] is " +
                  std::to_string(stride) + " but the kernel reads "
                  "dense row-major memory, where it is " +
                  std::to_string(expect) + " (make the tensor contiguous)");
    int64_t reach;
    if (__builtin_mul_overflow(elements, size, &elements) ||
        (size > 1 && (__builtin_mul_overflow(stride, size, &expect) ||
                      __builtin_mul_overflow(size - 1, stride, &reach) ||
                      __builtin_add_overflow(span, reach, &span))))
      return fail("the tensor's element count overflows 64 bits");
  }
  if (elements == 0)
    span = 0;
  if (!strided)
    span = elements;
  uint64_t address = reinterpret_cast<uint64_t>(t.data) + t.byte_offset;
  if (address % static_cast<uint64_t>(p.divisibility) != 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx",
                  static_cast<unsigned long long>(address));
    return fail(std::string("address ") + buf + " (data + byte_offset) is "
                "not a multiple of " + std::to_string(p.divisibility) +
                " bytes (the divisibility the kernel was compiled for)");
  }
  if (p.extent) {
    // The rule reads integer arguments; a wrong one is packArgs' error.
    Expected<int64_t> need =
        evaluateParamRule(kernel, index, *p.extent, "extent", args, count);
    if (!need.ok())
      return need.status();
    if (span < *need)
      return fail(std::string(strided ? "the tensor spans " : "the tensor has ") +
                  std::to_string(span) + " elements but the kernel reaches " +
                  std::to_string(*need) + " (extent \"" + p.extent->text() +
                  "\")");
  }
  if (!p.shape.empty())
    TILEC_RETURN_IF_ERROR(checkShape(kernel, index, t.shape, t.ndim, args, count));
  TILEC_RETURN_IF_ERROR(
      checkSources(kernel, index, t.shape, t.strides, t.ndim, args, count));
  return address;
}

TensorSizes dlTensorSizes(const ArgValue &arg) {
  const auto &t = *static_cast<const DLTensor *>(arg.dlTensor);
  return {t.shape, t.strides, t.ndim};
}

} // namespace tilec::runtime
