//===- Compile.h - the tuning space, pruned and compiled --------*- C++ -*-===//
//
// The compiler half of the tuner (`tilec-tune compile`): enumerates a
// kernel's tuning space, drops what cannot work on the target with a
// reason (the accumulator's registers, a pipeline error such as too much
// shared memory, ptxas's registers and spills), compiles the rest in
// parallel threads (one MLIRContext each; ptxas runs outside the
// pipeline's code generation lock), and writes the candidate folder of
// Manifest.h.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TUNE_COMPILE_H
#define TILEC_TUNE_COMPILE_H

#include "tilec/Support/Status.h"
#include "tilec/Tune/Manifest.h"

#include <functional>
#include <string>
#include <vector>

namespace tilec::tune {

struct CompileOptions {
  std::string arch = "sm_90a";
  /// Replace dimensions of the space (`--space NAME=V,V`): a declared text
  /// parameter takes a subset of its declared values; num_warps and
  /// num_stages any valid values.
  std::vector<SpaceDim> overrides;
  int jobs = 0;          ///< threads; 0: one per core
  std::string ptxasPath; ///< empty: the search; "off": PTX only, unpruned
  std::function<void(const std::string &)> progress;
};

/// The text kernel at `path`: its tile.params, and num_warps {4, 8} and
/// num_stages {2, 3, 4} unless declared or fixed by the kernel's
/// attributes. The kernel hash is that of the file's text.
Expected<Manifest> compileTextCandidates(const std::string &path,
                                         const std::string &outDir,
                                         const CompileOptions &options);

/// The builder's GEMM (ops::matmulKernel, bf16 A, B and C, no epilogue)
/// over the families of defaultGemmFamilies(options.arch); split-K plans
/// share one reduce kernel (reduce.cubin). The kernel hash is that of the
/// generator's IR (each form) at its default configuration.
Expected<Manifest> compileGemmCandidates(const std::string &outDir,
                                         const CompileOptions &options);

/// The families of compileGemmCandidates' space for `arch` (every family
/// has the dimensions BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages,
/// GROUP_M, TMA and SPLIT_K): "cp.async" (pointer loads, 48), on targets
/// with wgmma "tma" (A and B through tensor descriptors: 128x128, 64x256,
/// 128x256, 256x128, K step 64, stages 3 to 5), and "splitk" (SPLIT_K 2 to
/// 16 over 64/128-row and -column tiles; through descriptors where there
/// is wgmma). `--space` replaces a dimension's values in every family,
/// except TMA and SPLIT_K, whose values select families (and factors).
std::vector<SpaceFamily> defaultGemmFamilies(const std::string &arch);
/// The union of defaultGemmFamilies("sm_90a")'s dimensions.
std::vector<SpaceDim> defaultGemmSpace();

/// Parses "NAME=V,V,..." (a --space).
Expected<SpaceDim> parseSpaceDim(const std::string &text);

} // namespace tilec::tune

#endif // TILEC_TUNE_COMPILE_H
