// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=3" --canonicalize | FileCheck %s

// An f32 GEMM loop at tf32 precision with both operands K-major (nn.Linear's
// A [M, K] and B [N, K]): the accumulator gets the wgmma layout, each 32-f32
// row of a block is one 128-byte swizzle atom, and the dot reads A's slot
// and B's through a transposed view (tf32 wgmma has no transposed forms).
// CHECK: #[[$MMA:mma[0-9]*]] = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
// CHECK-LABEL: func.func @tf32_ring
// CHECK: %[[A:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x128x32xf32, #[[$NV:nvmma[0-9]*]]>
// CHECK: %[[B:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x128x32xf32, #[[$NV]]>
// CHECK: tilegpu.mbarrier_expect %{{.*}} {arrive, bytes = 32768 : i32}
// CHECK: %[[BT:.*]] = tilegpu.trans_view %[[B]] : !tilegpu.smem<4x128x32xf32, #[[$NV]]> -> !tilegpu.smem<4x32x128xf32, #[[$NVT:nvmma[0-9]*]]>
// CHECK: tilegpu.warpgroup_dot %[[A]][%{{.*}}], %[[BT]][%{{.*}}], %{{.*}} {pending = 1 : i32} : !tilegpu.smem<4x128x32xf32, #[[$NV]]>, !tilegpu.smem<4x32x128xf32, #[[$NVT]]> -> tensor<128x128xf32, #[[$MMA]]>
func.func @tf32_ring(%a: !tile.tensordesc<tensor<128x32xf32>>,
                     %b: !tile.tensordesc<tensor<128x32xf32>>,
                     %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
    %at = tile.descriptor_load %a[%c0, %k] : !tile.tensordesc<tensor<128x32xf32>> -> tensor<128x32xf32>
    %bt = tile.descriptor_load %b[%c0, %k] : !tile.tensordesc<tensor<128x32xf32>> -> tensor<128x32xf32>
    %btt = tile.trans %bt, [1, 0] : tensor<128x32xf32> -> tensor<32x128xf32>
    %next = tile.dot %at, %btt, %acc_i : tensor<128x32xf32>, tensor<32x128xf32> -> tensor<128x128xf32>
    scf.yield %next : tensor<128x128xf32>
  }
  %r = tile.range 0, 128 : tensor<128xi32>
  %r2 = tile.expand_dims %r, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %rb = tile.broadcast %r2 : tensor<1x128xi32> -> tensor<128x128xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %rb : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  tile.store %cp, %acc : tensor<128x128x!tile.ptr<f32>>
  return
}

// -----

// B as users of torch.matmul pass it ([K, N], N contiguous) is MN-major,
// which tf32 wgmma cannot read: the dot keeps mma.sync's layout (version 2,
// m16n8k8 at tf32) and stays a tile.dot; so does one at ieee precision
// (exact f32 FMAs), K-major or not.
// CHECK-LABEL: func.func @tf32_mn_major
// CHECK-NOT: warpgroup_dot
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #[[$V2:mma[0-9]*]]>
// CHECK-LABEL: func.func @ieee_k_major
// CHECK-NOT: warpgroup_dot
// CHECK: tile.dot {{.*}}precision = #tile.precision<ieee>
func.func @tf32_mn_major(%a: !tile.tensordesc<tensor<128x32xf32>>,
                         %b: !tile.tensordesc<tensor<32x128xf32>>,
                         %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
    %at = tile.descriptor_load %a[%c0, %k] : !tile.tensordesc<tensor<128x32xf32>> -> tensor<128x32xf32>
    %bt = tile.descriptor_load %b[%k, %c0] : !tile.tensordesc<tensor<32x128xf32>> -> tensor<32x128xf32>
    %next = tile.dot %at, %bt, %acc_i : tensor<128x32xf32>, tensor<32x128xf32> -> tensor<128x128xf32>
    scf.yield %next : tensor<128x128xf32>
  }
  %r = tile.range 0, 128 : tensor<128xi32>
  %r2 = tile.expand_dims %r, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %rb = tile.broadcast %r2 : tensor<1x128xi32> -> tensor<128x128xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %rb : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  tile.store %cp, %acc : tensor<128x128x!tile.ptr<f32>>
  return
}
func.func @ieee_k_major(%a: !tile.tensordesc<tensor<128x32xf32>>,
                        %b: !tile.tensordesc<tensor<128x32xf32>>,
                        %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
    %at = tile.descriptor_load %a[%c0, %k] : !tile.tensordesc<tensor<128x32xf32>> -> tensor<128x32xf32>
    %bt = tile.descriptor_load %b[%c0, %k] : !tile.tensordesc<tensor<128x32xf32>> -> tensor<128x32xf32>
    %btt = tile.trans %bt, [1, 0] : tensor<128x32xf32> -> tensor<32x128xf32>
    %next = tile.dot %at, %btt, %acc_i {precision = #tile.precision<ieee>} : tensor<128x32xf32>, tensor<32x128xf32> -> tensor<128x128xf32>
    scf.yield %next : tensor<128x128xf32>
  }
  %r = tile.range 0, 128 : tensor<128xi32>
  %r2 = tile.expand_dims %r, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %rb = tile.broadcast %r2 : tensor<1x128xi32> -> tensor<128x128xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %rb : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  tile.store %cp, %acc : tensor<128x128x!tile.ptr<f32>>
  return
}
