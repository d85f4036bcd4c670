// RUN: tile-opt %s --convert-tile-to-gpu=chip=sm_90 --verify-diagnostics
// tilegpu.warpgroup_dot is sm_90a's; on plain sm_90 it is rejected at the op.

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_target(%s: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  %acc = arith.constant dense<0.0> : tensor<128x128xf32, #v3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op needs sm_90a (wgmma); the target has none}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x128x64xbf16, #nv>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<128x128xf32, #v3>
  // expected-error @+1 {{'tilegpu.warpgroup_wait' op needs sm_90a (wgmma); the target has none}}
  %e = tilegpu.warpgroup_wait %d {pending = 0 : i32} : tensor<128x128xf32, #v3>
  return
}
