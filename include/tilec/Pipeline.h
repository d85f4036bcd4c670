//===- Pipeline.h - the tilec compilation pipeline --------------*- C++ -*-===//
//
// The pipeline shared by the `tilec` driver, `tile-opt` (as a named pipeline)
// and the C++ builder API.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PIPELINE_H
#define TILEC_PIPELINE_H

#include "tilec/Runtime/Metadata.h"

#include "mlir/Support/LLVM.h"
#include <optional>
#include <string>

namespace mlir {
class ModuleOp;
class OpPassManager;
} // namespace mlir

namespace tilec {

/// How far `tilec` lowers a module.
enum class EmitLevel {
  Tile,   ///< verified, inlined, canonicalized tile IR
  Layout, ///< tile IR whose tiles carry distributed layouts
  GPU,    ///< gpu.module of gpu.func kernels with per-thread code
  LLVM,   ///< the gpu.module in the LLVM and NVVM dialects
  PTX,    ///< PTX text (and the kernel metadata)
  Cubin,  ///< PTX assembled by ptxas (and the kernel metadata)
};

/// Options of the pipeline; each has a `tilec` flag of the same meaning.
struct PipelineOptions {
  EmitLevel emit = EmitLevel::PTX;
  /// A chip tilec::Target knows (sm_80, sm_89, sm_90, sm_90a, sm_100a);
  /// compileModule rejects any other.
  std::string arch = "sm_90";
  int numWarps = 4;           ///< default for kernels without tile.num_warps
  /// Software pipelining depth of dot operand loads in loops, for kernels
  /// without tile.num_stages (1: none).
  int numStages = 3;
  /// Warp-specialize TMA-fed wgmma loops (a producer warpgroup issues the
  /// copies) in kernels without tile.warp_specialize.
  bool warpSpecialize = true;
  int optLevel = 3;           ///< 0..3
  /// Every kernel as if marked tile.approx_math (f32 erf in ten
  /// instructions, absolute error under 5e-7; Support/ApproxErf.h).
  bool approxMath = false;
  /// The most elements one tile (a value of tensor type) may have; checked
  /// before any lowering, so a huge tile is a located error instead of an
  /// out-of-memory abort or an hour of code generation. 2^20 is Triton's
  /// limit too, and 16x the largest tile of examples/ (128 x 128).
  int64_t maxTileElements = int64_t(1) << 20;
  /// Tiles with more elements per thread than this are computed in a loop
  /// over chunks of at most 32 (tile-loop-large-tiles), so that code size
  /// and compile time do not grow with them; 0: never. The default is the
  /// largest per-thread tile of examples/ (a 128 x 256 accumulator on 8
  /// warps), whose code stays as it is.
  int64_t maxUnrolledElements = 128;
  /// A tile that cannot run in chunks (a scan, a tile carried by a loop,
  /// ...) and holds more elements per thread than this is a located error:
  /// LLVM's time grows quadratically with the unrolled elements (a
  /// loop-carried gather of 2048 a thread: over 100 s; 512: seconds); 0:
  /// no limit. Not checked when maxUnrolledElements is 0.
  int64_t maxUnchunkedElements = 512;
  /// The most operations a kernel's per-thread code may have, checked by
  /// convert-tile-to-gpu on an estimate before it converts and on the
  /// count after: LLVM's code generation time grows faster than the code
  /// (tiles within maxTileElements can still take it minutes), so a kernel
  /// over it is a located error instead.
  int64_t maxKernelOps = int64_t(1) << 15;
  /// ptxas for EmitLevel::Cubin; empty: findPtxasPath's search.
  std::string ptxasPath;
  /// Apply MLIR's pass-manager command-line options (IR printing, timing):
  /// set by tools that registered them (tilec), not by library users.
  bool applyCommandLineOptions = false;
};

/// Appends to `pm` (anchored on builtin.module) the passes that take a tile
/// module to `options.emit`.
void buildTilecPipeline(mlir::OpPassManager &pm,
                        const PipelineOptions &options);

/// What compiling a module produces; fields past the emit level stay empty.
struct CompileResult {
  std::string ir;    ///< the module's text after the pipeline
  std::string ptx;   ///< PTX (emit >= ptx)
  std::string cubin; ///< cubin bytes (emit == cubin)
  /// The kernels' metadata (emit >= ptx), the runtime's own types: pass it
  /// to runtime::Module::loadPtx as is; runtime::writeMetadata makes the
  /// `k.json` file of docs/metadata.md from it. With emit == cubin each
  /// kernel's `resources` holds what ptxas -v reported.
  runtime::ModuleMetadata metadata;
};

/// The ptxas that EmitLevel::Cubin would run: `configured` if not empty,
/// else $TILEC_PTXAS, else the search of tilec::cuda::findPtxas; empty if
/// that one is not an executable.
std::string findPtxasPath(const std::string &configured);

/// `ptx` with every `neg.s16` and `neg.s32` written as `not` then `add 1`
/// (two's complement, in place: `neg.s32 %r1, %r2;` becomes `not.b32 %r1,
/// %r2; add.s32 %r1, %r1, 1;`). CUDA 13.0's ptxas at -O1 and above (and the
/// 580 driver's JIT) drops a negation that it folds into a three-operand
/// integer min/max (VIMNMX3), so that `max(max(a, -b), c)` computes
/// `max(a, b, c)`; ptxas 13.5 negates correctly (docs/development.md,
/// "ptxas bugs"). compileModule applies it to all the PTX it emits.
std::string avoidPtxasNegBug(llvm::StringRef ptx);

/// The chip a module names in its `tile.target` string attribute (validated
/// by Target::get; an error at the module otherwise), or none.
mlir::FailureOr<std::optional<std::string>> moduleTarget(mlir::ModuleOp module);

/// Runs the pipeline on `module` (in place) up to `options.emit`. A module
/// with `tile.target` must name `options.arch` (else an error). Errors are
/// reported through the module's context diagnostics and give failure().
/// Kernel parameter names in the metadata come from the parameters' NameLoc
/// locations (tilec/Frontend.h's parseTileFile sets them), else `argN`.
/// MLIR's pass-manager command-line options apply when
/// `options.applyCommandLineOptions`.
mlir::FailureOr<CompileResult> compileModule(mlir::ModuleOp module,
                                             const PipelineOptions &options);

/// The CUDA toolkit whose libdevice the PTX links (math functions such as
/// cos and erf): $CUDA_ROOT, $CUDA_HOME or $CUDA_PATH if one is set (the
/// first set is used, valid or not), else the folder above `ptxas` in PATH,
/// else /usr/local/cuda; empty when that has no nvvm/libdevice.
std::string findCudaToolkit();

} // namespace tilec

#endif // TILEC_PIPELINE_H
