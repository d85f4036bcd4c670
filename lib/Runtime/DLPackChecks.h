//===- DLPackChecks.h - DLPack arguments inside the runtime -----*- C++ -*-===//
//
// What packArgs (Args.cpp) calls for an ArgValue of kind DLTensor, defined in
// DLPack.cpp, the one file that includes dlpack.h; and the rule checks both
// share (Args.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_RUNTIME_DLPACKCHECKS_H
#define TILEC_LIB_RUNTIME_DLPACKCHECKS_H

#include "tilec/Runtime/Args.h"

namespace tilec::runtime {

/// Checks the DLPack tensor `args[index]` against pointer parameter `index`
/// of `kernel` and gives its data address (data + byte_offset). Errors name
/// the kernel and parameter.
Expected<uint64_t> checkDLTensor(const KernelMetadata &kernel, size_t index,
                                 const ArgValue *args, size_t count);

/// The value of `rule` (parameter `index`'s extent or one of its sizes,
/// called `what` in messages) for the integer arguments it reads. Errors
/// name the kernel and parameter: an argument it reads that is not an
/// integer, overflow.
Expected<int64_t> evaluateParamRule(const KernelMetadata &kernel, size_t index,
                                    const grid::Expr &rule,
                                    const std::string &what,
                                    const ArgValue *args, size_t count);

/// Whether the `rank` sizes `sizes` (outermost first) of the tensor given
/// for parameter `index` are its `tile.shape` for these arguments; OK when
/// the parameter declares no shape.
Status checkShape(const KernelMetadata &kernel, size_t index,
                  const int64_t *sizes, int rank, const ArgValue *args,
                  size_t count);

/// Whether every integer scalar whose `tile.from` names parameter `index`
/// has the value the tensor given for it (`rank` sizes and, unless null
/// for compact row-major, strides in elements) says; an error names the
/// scalar.
Status checkSources(const KernelMetadata &kernel, size_t index,
                    const int64_t *sizes, const int64_t *strides, int rank,
                    const ArgValue *args, size_t count);

/// The sizes, strides (null: compact row-major) and rank of a DLPack tensor
/// argument (`arg.dlTensor`).
struct TensorSizes {
  const int64_t *sizes = nullptr;
  const int64_t *strides = nullptr;
  int rank = 0;
};
TensorSizes dlTensorSizes(const ArgValue &arg);

/// "a DLPack tensor of f32 on kDLCUDA", for messages.
std::string describeDLTensor(const void *tensor);

} // namespace tilec::runtime

#endif // TILEC_LIB_RUNTIME_DLPACKCHECKS_H
