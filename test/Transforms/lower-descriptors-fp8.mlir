// RUN: tile-opt %s --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=3" --canonicalize | FileCheck %s

// An fp8 GEMM loop (torch._scaled_mm's operands: A [M, K], B [N, K], both
// K contiguous): the accumulator gets the wgmma layout, A's 128 x 128 e4m3
// block travels in one 128-byte swizzle atom a row, B's [N, K] block too,
// and the dot reads B through a transposed view of its slot (K-major, the
// only way fp8 wgmma reads B).
// CHECK: #[[$MMA:mma[0-9]*]] = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 256]}>
// CHECK-LABEL: func.func @fp8_ring
// CHECK: %[[A:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x128x128xf8E4M3FN, #[[$NV:nvmma[0-9]*]]>
// CHECK: %[[B:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x256x128xf8E5M2, #[[$NV]]>
// CHECK: tilegpu.mbarrier_expect %{{.*}} {arrive, bytes = 49152 : i32}
// CHECK: %[[BT:.*]] = tilegpu.trans_view %[[B]] : !tilegpu.smem<4x256x128xf8E5M2, #[[$NV]]> -> !tilegpu.smem<4x128x256xf8E5M2, #[[$NVT:nvmma[0-9]*]]>
// CHECK: tilegpu.warpgroup_dot %[[A]][%{{.*}}], %[[BT]][%{{.*}}], %{{.*}} {pending = 1 : i32} : !tilegpu.smem<4x128x128xf8E4M3FN, #[[$NV]]>, !tilegpu.smem<4x128x256xf8E5M2, #[[$NVT]]> -> tensor<128x256xf32, #[[$MMA]]>
func.func @fp8_ring(%a: !tile.tensordesc<tensor<128x128xf8E4M3FN>>,
                    %b: !tile.tensordesc<tensor<256x128xf8E5M2>>,
                    %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%acc_i = %zero) -> (tensor<128x256xf32>) : i32 {
    %at = tile.descriptor_load %a[%c0, %k] : !tile.tensordesc<tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
    %bt = tile.descriptor_load %b[%c0, %k] : !tile.tensordesc<tensor<256x128xf8E5M2>> -> tensor<256x128xf8E5M2>
    %btt = tile.trans %bt, [1, 0] : tensor<256x128xf8E5M2> -> tensor<128x256xf8E5M2>
    %next = tile.dot %at, %btt, %acc_i : tensor<128x128xf8E4M3FN>, tensor<128x256xf8E5M2> -> tensor<128x256xf32>
    scf.yield %next : tensor<128x256xf32>
  }
  %r = tile.range 0, 256 : tensor<256xi32>
  %r2 = tile.expand_dims %r, 0 : tensor<256xi32> -> tensor<1x256xi32>
  %rb = tile.broadcast %r2 : tensor<1x256xi32> -> tensor<128x256xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<128x256x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %rb : tensor<128x256x!tile.ptr<f32>>, tensor<128x256xi32>
  tile.store %cp, %acc : tensor<128x256x!tile.ptr<f32>>
  return
}
