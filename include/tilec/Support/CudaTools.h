//===- CudaTools.h - finding ptxas, libdevice and the toolkit ---*- C++ -*-===//
//
// The one search for the CUDA toolkit's files, shared by the compiler (ptxas
// for --emit=cubin, libdevice for math functions, the analyzer's ptxas -v)
// and the runtime (whole-program ptxas). MLIR-free, so the runtime-only
// build has it too. Each search looks, in order, at what the caller was told
// (an option or its environment variable), then $CUDA_HOME and $CUDA_PATH,
// then PATH, then the fixed root (/usr/local/cuda).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_CUDATOOLS_H
#define TILEC_SUPPORT_CUDATOOLS_H

#include <string>
#include <string_view>

namespace tilec::cuda {

/// The root tried last, where NVIDIA's installers put the toolkit.
inline constexpr std::string_view kDefaultRoot = "/usr/local/cuda";

/// libdevice below a toolkit root.
inline constexpr std::string_view kLibdeviceSubpath =
    "nvvm/libdevice/libdevice.10.bc";

/// The ptxas to run. `configured` (an option), else $`envVar` when `envVar`
/// is not null, is used alone when not empty: it must be an executable.
/// Otherwise the first executable of $CUDA_HOME/bin/ptxas,
/// $CUDA_PATH/bin/ptxas, ptxas in PATH and `root`/bin/ptxas. Empty when
/// none is; `why` (if given) then says what was tried.
std::string findPtxas(std::string_view configured, const char *envVar,
                      std::string *why = nullptr,
                      std::string_view root = kDefaultRoot);

/// The toolkit root whose libdevice the PTX links: $CUDA_ROOT, $CUDA_HOME or
/// $CUDA_PATH if one is set (the first set is used alone, so that a user's
/// choice is never silently replaced), else the folder above the ptxas in
/// PATH, else `root`. Empty when the chosen root has no libdevice.
std::string findToolkit(std::string_view root = kDefaultRoot);

/// `findToolkit(root)`'s libdevice.10.bc, or empty.
std::string findLibdevice(std::string_view root = kDefaultRoot);

/// Whether `path` is a regular file this process may execute.
bool isExecutableFile(const std::string &path);

} // namespace tilec::cuda

#endif // TILEC_SUPPORT_CUDATOOLS_H
