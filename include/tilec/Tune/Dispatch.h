//===- Dispatch.h - a tuned GEMM dispatch table for AOT headers -*- C++ -*-===//
//
// `tilec-tune aot` turns the cached winners of a candidate folder into C++
// that a deployed program compiles in: each winner's kernel embedded by
// generateCppKernels (one namespace per candidate) and one `matmul(...)`
// that computes the shape's bucket as gemmBucket does, looks it up in a
// table and launches the winner with its grid. No tuning, no files at run
// time. Needs no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TUNE_DISPATCH_H
#define TILEC_TUNE_DISPATCH_H

#include "tilec/Support/Status.h"
#include "tilec/Tune/Manifest.h"
#include "tilec/Tune/TuneCache.h"

#include <string>
#include <utility>
#include <vector>

namespace tilec::tune {

struct DispatchOptions {
  std::string namespaceName = "tilec_tuned";
  /// The files' base name: BASE.h, BASE.cpp, BASE_cN.h, BASE_cN.cpp.
  std::string baseName = "tuned";
};

struct GeneratedFile {
  std::string name; ///< relative to the output folder
  std::string text;
};

/// The files for `winners` (a shape measured, its bucket's winner), for
/// candidates of `manifest` in `dir`. Errors: a winner pruned or missing, a
/// binary that cannot be read, the generator's own errors.
Expected<std::vector<GeneratedFile>>
generateGemmDispatch(const Manifest &manifest, const std::string &dir,
                     const std::vector<std::pair<GemmShape, Winner>> &winners,
                     const DispatchOptions &options);

} // namespace tilec::tune

#endif // TILEC_TUNE_DISPATCH_H
