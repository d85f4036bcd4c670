//===- DLPackChecks.h - DLPack arguments inside the runtime -----*- C++ -*-===//
//
// What packArgs (Args.cpp) calls for an ArgValue of kind DLTensor; defined in
// DLPack.cpp, the one file that includes dlpack.h.
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

/// "a DLPack tensor of f32 on kDLCUDA", for messages.
std::string describeDLTensor(const void *tensor);

} // namespace tilec::runtime

#endif // TILEC_LIB_RUNTIME_DLPACKCHECKS_H
