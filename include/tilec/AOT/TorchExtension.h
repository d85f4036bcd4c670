//===- TorchExtension.h - kernels as PyTorch operators ----------*- C++ -*-===//
//
// Turns compiled kernels (PTX or cubin) and their metadata into the source of
// a PyTorch C++ extension that registers each kernel as
// `torch.ops.<library>.<kernel>` (docs/pytorch.md):
//
//   torch.ops.tilec.add(x, y, z, n)      # z is written in place
//
// The one .cpp holds the AOT header and source of generateCppKernels (the
// binary and metadata embedded, the runtime loads them into PyTorch's
// primary context on first use per device), one checked CUDA implementation
// per kernel (TORCH_CHECKs on device, dtype, contiguity, alignment and the
// kernel's extents; the launch on PyTorch's current stream with the grid of
// the kernel's rule, or an explicit `int[] grid` argument for a kernel
// without one) and a Meta implementation (the same checks, no launch) for
// torch.compile's fake tensors. Needs no MLIR and no PyTorch to generate.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_AOT_TORCHEXTENSION_H
#define TILEC_AOT_TORCHEXTENSION_H

#include "tilec/Runtime/Status.h"

#include <string>
#include <string_view>

namespace tilec::aot {

struct TorchExtensionOptions {
  /// The operator namespace: torch.ops.<library>.<kernel>. The generated
  /// code registers with TORCH_LIBRARY_FRAGMENT, so several extensions may
  /// share one library name.
  std::string library = "tilec";
  /// Where the kernels came from, for the comments and load errors.
  std::string origin;
  /// The files of the binary and of the metadata, for errors.
  std::string binaryName, metadataName;
};

/// The extension's C++ source. Fails on what generateCppKernels refuses, on
/// tensor_desc parameters (not bound yet) and on a library name that is not
/// an identifier.
runtime::Expected<std::string>
generateTorchExtension(std::string_view binary, std::string_view metadataJson,
                       const TorchExtensionOptions &options = {});

} // namespace tilec::aot

#endif // TILEC_AOT_TORCHEXTENSION_H
