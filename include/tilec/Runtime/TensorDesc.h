//===- TensorDesc.h - tensor descriptor arguments (TMA) ---------*- C++ -*-===//
//
// A kernel parameter of kind `tensor_desc` (docs/metadata.md) is a 128-byte
// CUtensorMap passed by value (`.param .align 64 .b8 name[128]`). The user
// gives a TensorDescArg, a tensor in device memory; at launch the runtime
// checks it against the parameter and the Driver API's rules for
// cuTensorMapEncodeTiled, encodes it (once per distinct argument: a
// per-module cache) and passes the 128 bytes by value.
//
// **Dimension order.** Shapes, strides and blocks are given outermost
// dimension first, in elements: row-major, as PyTorch's `size()` and
// `stride()` and Triton's `block_shape`. CUDA numbers dimensions the other
// way round (its dimension 0 is the innermost, contiguous one, and its
// strides are in bytes); checkTensorDesc() converts.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_TENSORDESC_H
#define TILEC_RUNTIME_TENSORDESC_H

#include "tilec/Runtime/Metadata.h"
#include "tilec/Runtime/Status.h"
#include "tilec/Runtime/Types.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace tilec::runtime {

/// A tensor in device memory, for a tensor_desc parameter: its base address,
/// element type, and global shape and strides in elements, **outermost
/// dimension first**. The innermost dimension must be contiguous (stride 1).
struct TensorDescArg {
  uint64_t address = 0;
  DType type = DType::F32;
  /// Dimensions given (checked at launch: 1..5 and the parameter's rank).
  int rank = 0;
  /// Strides given; differs from `rank` only for a malformed argument
  /// (reported at launch).
  int strideCount = 0;
  int64_t shape[kMaxTensorRank] = {};
  int64_t strides[kMaxTensorRank] = {};

  /// The tensor of `shape` at `address`; empty `strides`: contiguous
  /// row-major (the last dimension varies fastest).
  static TensorDescArg make(DType type, uint64_t address,
                            std::span<const int64_t> shape,
                            std::span<const int64_t> strides = {});
};

/// 128 bytes laid out as a CUtensorMap: the driver wants the map 64-byte
/// aligned, CUDA 13's cuda.h declares it 128-byte aligned; 128 serves both.
struct alignas(128) TensorMapBytes {
  uint64_t opaque[16];
};

/// The arguments of cuTensorMapEncodeTiled for one TensorDescArg, in CUDA's
/// order (index 0 = innermost dimension), enums as cuda.h numbers them.
struct TensorMapRequest {
  int dataType = 0; ///< CUtensorMapDataType
  unsigned rank = 0;
  uint64_t address = 0;
  uint64_t globalDim[kMaxTensorRank] = {};
  uint64_t globalStrides[kMaxTensorRank - 1] = {}; ///< bytes, dims 1..rank-1
  uint32_t boxDim[kMaxTensorRank] = {};
  uint32_t elementStrides[kMaxTensorRank] = {};
  int interleave = 0; ///< CU_TENSOR_MAP_INTERLEAVE_NONE
  int swizzle = 0;    ///< CUtensorMapSwizzle
  int l2Promotion = 0;
  int oobFill = 0; ///< CUtensorMapFloatOOBfill
};

/// The CUtensorMapDataType for elements of `type`, or -1 when the TMA has
/// none (i1). 8-bit floats travel as UINT8.
int tensorMapDataType(DType type);

/// Checks `arg` against tensor_desc parameter `index` of `kernel` (element
/// type, rank) and the Driver API's rules (base address 16-byte aligned,
/// every dimension in [1, 2^32], innermost stride 1, the other strides
/// positive multiples of 16 bytes below 2^40), and fills `out` in CUDA's
/// order. Errors name the kernel and the parameter.
Status checkTensorDesc(const KernelMetadata &kernel, size_t index,
                       const TensorDescArg &arg, TensorMapRequest &out);

/// Encodes the CUtensorMap of a descriptor argument into `out` (the runtime's
/// per-module cache does, through the driver; tests may stand in).
class TensorMapEncoder {
public:
  virtual Status encode(const KernelMetadata &kernel, size_t index,
                        const TensorDescArg &arg, TensorMapBytes &out) = 0;

protected:
  ~TensorMapEncoder() = default;
};

/// Where packArgs puts the maps of a launch's descriptor parameters: `maps`
/// holds one per tensor_desc parameter, in parameter order.
struct TensorMapSlots {
  TensorMapEncoder *encoder = nullptr;
  TensorMapBytes *maps = nullptr;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_TENSORDESC_H
