//===- Dispatch.h - tuned dispatch tables for AOT headers -------*- C++ -*-===//
//
// `tilec-tune aot` turns the cached winners of a candidate folder into C++
// that a deployed program compiles in: each winner's kernel embedded by
// generateCppKernels (one namespace per candidate) and one function that
// computes the problem's bucket (a GEMM's as gemmBucket does, any other
// kernel's from its integer arguments), looks it up in a table and
// launches the winner with its grid. No tuning, no files at run time.
// Needs no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TUNE_DISPATCH_H
#define TILEC_TUNE_DISPATCH_H

#include "tilec/Support/Status.h"
#include "tilec/Tune/Manifest.h"
#include "tilec/Tune/Measure.h"
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

/// The files for the winners of args problems (`tilec-tune measure --arg`):
/// each winner's kernel embedded as for the GEMM, and one function with the
/// kernel's own parameters, `NS::<kernel>(stream, x, y, z, n)`, that
/// computes the arguments' dispatch key (argsDispatchKey: integer scalars
/// and descriptor shapes; a pointer has no size at run time), takes the
/// entry of that key, else the nearest, skipping entries whose kernel's
/// tile.divisibility hints the arguments break, and launches it on its own
/// grid rule (every winner must have one) or, when no winner has a rule,
/// on the grid the caller gives (`NS::<kernel>(stream, grid, ...)`).
/// Errors: no winners, a winner that is not a candidate, winners of
/// different signatures, two problems of one key with different winners,
/// a mix of winners with and without a grid rule.
Expected<std::vector<GeneratedFile>>
generateArgsDispatch(const Manifest &manifest, const std::string &dir,
                     const std::vector<std::pair<ArgsDispatchKey, Winner>> &winners,
                     const DispatchOptions &options);

} // namespace tilec::tune

#endif // TILEC_TUNE_DISPATCH_H
