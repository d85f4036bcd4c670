// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu=chip=sm_80 --verify-diagnostics
// RUN: not tile-opt %s --convert-tile-to-gpu=chip=sm_70 2>&1 | FileCheck %s --check-prefix=CHIP

// CHIP: error: unknown GPU target 'sm_70' (known: sm_80, sm_89, sm_90, sm_90a, sm_100a)

func.func @bf16_add_sm80(%x: !tile.ptr<bf16>, %v: bf16) attributes {tile.kernel} {
  // expected-error @below {{'tile.atomic_rmw' op atomic add of bf16 needs sm_90}}
  %o = tile.atomic_rmw fadd %x, %v : !tile.ptr<bf16>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @fp8_convert_sm80(%x: !tile.ptr<f8E4M3FN>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %xs = tile.splat %x : !tile.ptr<f8E4M3FN> -> tensor<32x!tile.ptr<f8E4M3FN>, #b>
  %v = tile.load %xs : tensor<32x!tile.ptr<f8E4M3FN>, #b>
  // expected-error @below {{'arith.extf' op fp8 conversions need sm_89 or later (cvt .e4m3x2 / .e5m2x2); the target is sm_80}}
  %f = arith.extf %v : tensor<32xf8E4M3FN, #b> to tensor<32xf32, #b>
  return
}
