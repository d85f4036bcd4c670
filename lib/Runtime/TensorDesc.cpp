//===- TensorDesc.cpp - checking tensor descriptor arguments --------------===//
//
// The host-side half of a descriptor launch: a TensorDescArg checked against
// its parameter and against the rules cuTensorMapEncodeTiled documents, and
// turned into the driver's argument order. The checks run here, not in the
// driver, so that a bad argument gets a message naming the parameter and the
// dimension instead of CUDA_ERROR_INVALID_VALUE. Only a cache miss runs
// them (TensorMapCache.cpp).
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/TensorDesc.h"

#include <cuda.h>

#include <algorithm>
#include <cstdio>

namespace tilec::runtime {

static_assert(sizeof(TensorMapBytes) == sizeof(CUtensorMap) &&
                  alignof(TensorMapBytes) >= alignof(CUtensorMap),
              "TensorMapBytes must be laid out as a CUtensorMap");

TensorDescArg TensorDescArg::make(DType type, uint64_t address,
                                  std::span<const int64_t> shape,
                                  std::span<const int64_t> strides) {
  TensorDescArg d;
  d.address = address;
  d.type = type;
  d.rank = static_cast<int>(shape.size());
  d.strideCount = strides.empty() ? d.rank : static_cast<int>(strides.size());
  for (size_t i = 0; i < shape.size() && i < size_t(kMaxTensorRank); ++i)
    d.shape[i] = shape[i];
  if (strides.empty()) {
    int64_t stride = 1;
    for (int i = std::min(d.rank, kMaxTensorRank) - 1; i >= 0; --i) {
      d.strides[i] = stride;
      stride *= d.shape[i];
    }
  } else {
    for (size_t i = 0; i < strides.size() && i < size_t(kMaxTensorRank); ++i)
      d.strides[i] = strides[i];
  }
  return d;
}

int tensorMapDataType(DType type) {
  switch (type) {
  case DType::I8:
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  case DType::I16:
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  case DType::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case DType::I64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  case DType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case DType::F64:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  default:
    return -1;
  }
}

namespace {

[[gnu::cold, gnu::noinline]] Status
descError(const KernelMetadata &k, size_t index, const std::string &what) {
  return Status::error("kernel '" + k.name + "', parameter '" +
                       k.params[index].name + "' (#" + std::to_string(index) +
                       "): " + what);
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

} // namespace

Status checkTensorDesc(const KernelMetadata &kernel, size_t index,
                       const TensorDescArg &arg, TensorMapRequest &out) {
  const ParamInfo &p = kernel.params[index];
  const TensorDescInfo &info = p.desc;
  auto fail = [&](const std::string &what) {
    return descError(kernel, index, what);
  };
  if (arg.type != p.type)
    return fail("expects a tensor descriptor of " +
                std::string(dtypeName(p.type)) + " but got one of " +
                std::string(dtypeName(arg.type)));
  if (arg.rank != info.rank)
    return fail("expects a rank-" + std::to_string(info.rank) +
                " tensor (block " +
                [&] {
                  std::string b;
                  for (int d = 0; d < info.rank; ++d)
                    b += (d ? "x" : "") + std::to_string(info.block[d]);
                  return b;
                }() +
                ") but got rank " + std::to_string(arg.rank));
  if (arg.strideCount != arg.rank)
    return fail("the tensor has " + std::to_string(arg.rank) +
                " dimensions but " + std::to_string(arg.strideCount) +
                " strides");
  const int rank = arg.rank;
  const uint64_t elem = dtypeSize(p.type);
  // INTERLEAVE_NONE (the only layout tilec uses) needs 16-byte alignment.
  if (arg.address % 16 != 0)
    return fail("base address " + hex(arg.address) +
                " is not a multiple of 16 bytes (the TMA needs a 16-byte "
                "aligned tensor)");
  for (int i = 0; i < rank; ++i)
    if (arg.shape[i] < 1 || uint64_t(arg.shape[i]) > (uint64_t(1) << 32))
      return fail("shape[" + std::to_string(i) + "] is " +
                  std::to_string(arg.shape[i]) +
                  ", not in [1, 2^32] (shape is outermost dimension first)");
  if (arg.strides[rank - 1] != 1)
    return fail("strides[" + std::to_string(rank - 1) + "] is " +
                std::to_string(arg.strides[rank - 1]) +
                ": the innermost dimension must be contiguous (stride 1; "
                "strides are in elements, outermost dimension first)");
  for (int i = 0; i + 1 < rank; ++i) {
    int64_t s = arg.strides[i];
    // Spelled only on failure: launches check every stride of every
    // descriptor they encode, and a PyTorch operator's Meta implementation
    // on each call.
    auto which = [&] {
      return "strides[" + std::to_string(i) + "] is " + std::to_string(s) +
             " elements";
    };
    if (s < 1)
      return fail(which() + ", not positive");
    if (uint64_t(s) >= (uint64_t(1) << 40) / elem)
      return fail(which() + ", not below 2^40 bytes");
    if (uint64_t(s) * elem % 16 != 0)
      return fail(which() + " (" + std::to_string(uint64_t(s) * elem) +
                  " bytes), not a multiple of 16 bytes");
  }

  out = TensorMapRequest();
  out.dataType = tensorMapDataType(p.type);
  out.rank = unsigned(rank);
  out.address = arg.address;
  // CUDA's dimension 0 is our last (innermost) one.
  for (int c = 0; c < rank; ++c) {
    int u = rank - 1 - c;
    out.globalDim[c] = uint64_t(arg.shape[u]);
    out.boxDim[c] = uint32_t(info.block[u]);
    out.elementStrides[c] = 1;
    if (c > 0)
      out.globalStrides[c - 1] = uint64_t(arg.strides[u]) * elem;
  }
  out.interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  out.swizzle = info.swizzle == 0    ? CU_TENSOR_MAP_SWIZZLE_NONE
                : info.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                : info.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                     : CU_TENSOR_MAP_SWIZZLE_128B;
  // 128-byte L2 sectors, as CUTLASS and Triton ask for tiles of GEMMs.
  out.l2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  out.oobFill = info.nanFill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                             : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  return Status();
}

} // namespace tilec::runtime
