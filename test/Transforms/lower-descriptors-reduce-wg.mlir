// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=2" --canonicalize | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=2 warp-specialize=false" --canonicalize | FileCheck %s --check-prefix=OWN

// The attention backward's dQ by TMA reduce-adds: dQ^T = K^T dS^T is a
// wgmma accumulator ([128, 64]: warpgroup 0 holds its rows 0-63,
// warpgroup 1 rows 64-127), stored transposed into a [64, 128] f32 block
// of four 32-column boxes. Boxes 0 and 1 are warpgroup 0's rows alone,
// 2 and 3 warpgroup 1's: each warpgroup waits for its own boxes' reads
// and syncs its own threads (`warpgroups`), with one barrier of all
// before the loop and each warpgroup's wait after it.
// CHECK-LABEL: func.func @dq_reduce
// CHECK: %[[SLOT:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<1x64x128xf32
// CHECK: } consumer {
// CHECK: tilegpu.trans_view %{{.*}} : !tilegpu.smem<1x128x128xbf16
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for
// CHECK: tilegpu.tma_store_wait %[[SLOT]] warpgroups :
// CHECK-NEXT: %[[VIEW:[0-9]+]] = tilegpu.trans_view %[[SLOT]]
// CHECK-NEXT: tilegpu.local_store %{{.*}} into %[[VIEW]][%{{.*}}] : tensor<128x64xf32
// CHECK-NEXT: tilegpu.tma_store %{{.*}} from %[[SLOT]][%{{.*}}] reduce fadd async warpgroups [0, 0, 1, 1] :
// CHECK-NOT: gpu.barrier
// CHECK: }
// CHECK-NEXT: tilegpu.tma_store_wait %[[SLOT]] warpgroups :

// The same without warp specialization.
// OWN-LABEL: func.func @dq_reduce
// OWN-NOT: tilegpu.warp_specialize
// OWN: tilegpu.tma_store_wait %{{.*}} warpgroups :
// OWN-NEXT: tilegpu.trans_view
// OWN-NEXT: tilegpu.local_store
// OWN-NEXT: tilegpu.tma_store %{{.*}} reduce fadd async warpgroups [0, 0, 1, 1] :
func.func @dq_reduce(%qd: !tile.tensordesc<tensor<1x64x128xbf16>>,
                     %kd: !tile.tensordesc<tensor<1x128x128xbf16>>,
                     %dqd: !tile.tensordesc<tensor<1x64x128xf32>>,
                     %seq: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %bh = tile.program_id 1
  %k = tile.descriptor_load %kd[%bh, %c0, %c0] : !tile.tensordesc<tensor<1x128x128xbf16>> -> tensor<128x128xbf16>
  %kt = tile.trans %k, [1, 0] : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %zs = arith.constant dense<0.0> : tensor<128x64xf32>
  %zq = arith.constant dense<0.0> : tensor<128x64xf32>
  scf.for %m = %c0 to %seq step %c64 : i32 {
    %q = tile.descriptor_load %qd[%bh, %m, %c0] : !tile.tensordesc<tensor<1x64x128xbf16>> -> tensor<64x128xbf16>
    %qt = tile.trans %q, [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %st = tile.dot %k, %qt, %zs : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %p = math.exp2 %st : tensor<128x64xf32>
    %ds = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %dqt = tile.dot %kt, %ds, %zq : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %dq = tile.trans %dqt, [1, 0] : tensor<128x64xf32> -> tensor<64x128xf32>
    tile.descriptor_store %dqd[%bh, %m, %c0], %dq reduce fadd : !tile.tensordesc<tensor<1x64x128xf32>>, tensor<64x128xf32>
  }
  return
}

// -----

// Stored as it is, the accumulator's two 32-column boxes each hold rows of
// both warpgroups (and the store takes it in a blocked layout, whose
// warps split rows too): one barrier of all, thread 0 issues both.
// CHECK-LABEL: func.func @both_warpgroups
// CHECK: tilegpu.tma_store_wait %[[SLOT:[0-9]+]] :
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tilegpu.local_store %{{.*}} into %[[SLOT]][%{{.*}}] : tensor<128x64xf32
// CHECK-NEXT: tilegpu.tma_store %{{.*}} from %[[SLOT]][%{{.*}}] reduce fadd async :
// OWN-LABEL: func.func @both_warpgroups
// OWN: tilegpu.tma_store %{{.*}} reduce fadd async :
func.func @both_warpgroups(%ad: !tile.tensordesc<tensor<128x64xbf16>>,
                           %bd: !tile.tensordesc<tensor<64x64xbf16>>,
                           %yd: !tile.tensordesc<tensor<128x64xf32>>,
                           %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %b = tile.descriptor_load %bd[%c0, %c0] : !tile.tensordesc<tensor<64x64xbf16>> -> tensor<64x64xbf16>
  scf.for %i = %c0 to %n step %c64 : i32 {
    %a = tile.descriptor_load %ad[%i, %c0] : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
    %c = tile.dot %a, %b, %z : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    tile.descriptor_store %yd[%i, %c0], %c reduce fadd : !tile.tensordesc<tensor<128x64xf32>>, tensor<128x64xf32>
  }
  return
}
