//===- Passes.td - conversions out of the tile dialect -----*- tablegen -*-===//

#ifndef TILEC_CONVERSION_PASSES_TD
#define TILEC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower tile kernels to gpu.func kernels of per-thread code";
  let description = [{
    Moves every tile kernel into a `gpu.module @tilec_kernels` targeting
    `#nvvm.target<chip = ...>` and rewrites it as a `gpu.func` kernel
    (`known_block_size` = 32 * warps) in which each thread computes the
    elements its layout gives it: tiles become that many scalars (1:N type
    conversion), loads and stores become (predicated) vector accesses,
    reductions become shuffles and shared memory, layout changes go through
    shared memory. Arith and math ops stay on scalars, for
    `convert-gpu-to-nvvm`. Needs tile-assign-layouts to have run. Each
    kernel records its shared memory bytes in `tile.shared_bytes`. A kernel
    whose per-thread code would be over `max-kernel-ops` operations is an
    error at the kernel, with a note at the op that makes the most of it.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "GPU target (sm_80, sm_89, sm_90, sm_90a, sm_100a; "
           "tilec::Target)">,
    Option<"optLevel", "opt-level", "int", /*default=*/"3",
           "Optimization level recorded in the NVVM target">,
    Option<"fastMath", "fast-math", "bool", /*default=*/"true",
           "Lower f32 exp/exp2/rsqrt to the hardware approximations "
           "(ex2.approx, rsqrt.approx) as Triton does">,
    Option<"approxMath", "approx-math", "bool", /*default=*/"false",
           "Every kernel as if marked tile.approx_math: f32 erf through a "
           "degree-5 polynomial and ex2.approx (absolute error under 5e-7 "
           "instead of libdevice's 2 ulp; Support/ApproxErf.h)">,
    Option<"crossWarpShuffle", "cross-warp-shuffle", "bool",
           /*default=*/"false",
           "Reductions across warps: every thread reads one warp's partial "
           "from shared memory and combines them with shuffles, instead of "
           "reading all partials (16 bytes at a time) and combining them "
           "(the default: its dependence chain is shorter; measured 1% "
           "faster on layernorm, docs/performance.md)">,
    Option<"libdeviceFtz", "libdevice-ftz", "bool", /*default=*/"false",
           "Let libdevice functions flush f32 denormals to zero "
           "(nvvm-reflect-ftz = 1, as Triton does)">,
    Option<"maxKernelOps", "max-kernel-ops", "int64_t",
           /*default=*/"int64_t(1) << 15",
           "The most operations a kernel's per-thread code may have: a "
           "kernel estimated over it is an error before the conversion, and "
           "one converted over it after (the time of the passes after it and "
           "of LLVM's code generation grows faster than the code: 2^15 "
           "operations take seconds, ten times more minutes)">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
  ];
}

#endif // TILEC_CONVERSION_PASSES_TD
