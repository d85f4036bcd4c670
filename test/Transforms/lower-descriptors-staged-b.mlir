// RUN: tile-opt %s --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=2" --canonicalize | FileCheck %s
// RUN: tile-opt %s --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=2 warp-specialize=false" --canonicalize | FileCheck %s --check-prefix=OWN

// The attention backward's dQ by atomics (one key block K per program,
// Q blocks through the ring): S^T = K Q^T, then dQ^T = K^T dS^T, whose
// A is K read in place through a trans_view of its slot and whose B,
// computed in registers, wgmma can only read from shared memory: two
// staging slots of its own ([128 keys, 64 queries], N contiguous), used in
// turn (iteration i stores into slot i % 2, which iteration i - 2's wgmma
// read before every warpgroup reached iteration i - 1's barrier), the
// generic-to-async proxy fence, then one consumer barrier (every warp's
// part is in); one barrier before the loop covers its first two
// iterations.
// CHECK-LABEL: func.func @dq_atomic
// CHECK: %[[K:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<1x128x128xbf16, #[[$NV:nvmma[0-9]*]]>
// CHECK: tilegpu.warp_specialize producer {
// CHECK: } consumer {
// CHECK: %[[STAGE:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<2x128x64xbf16, #[[$NV2:nvmma[0-9]*]]>
// CHECK: %[[KT:.*]] = tilegpu.trans_view %[[K]] : !tilegpu.smem<1x128x128xbf16, #[[$NV]]> -> !tilegpu.smem<1x128x128xbf16, #[[$NVT:nvmma[0-9]*]]>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for %[[I:.*]] = %c0_i32 to
// CHECK: %[[ST:.*]] = tilegpu.warpgroup_dot %[[K]][%c0_i32], %{{.*}}[%{{.*}}], %{{.*}} :
// CHECK-NOT: gpu.barrier
// CHECK: %[[N:.*]] = arith.divui %[[I]], %c64_i32 : i32
// CHECK-NEXT: %[[T:.*]] = arith.andi %[[N]], %c1_i32 : i32
// CHECK-NEXT: tilegpu.local_store %{{.*}} into %[[STAGE]][%[[T]]] : tensor<128x64xbf16, #{{.*}}> into !tilegpu.smem<2x128x64xbf16, #[[$NV2]]>
// CHECK-NEXT: tilegpu.async_wait {fence_async, pending = 0 : i32}
// CHECK-NEXT: %[[DQT:.*]] = tilegpu.warpgroup_dot %[[KT]][%c0_i32], %[[STAGE]][%[[T]]], %{{.*}} : !tilegpu.smem<1x128x128xbf16, #[[$NVT]]>, !tilegpu.smem<2x128x64xbf16, #[[$NV2]]> -> tensor<128x64xf32
// CHECK: tile.atomic_rmw fadd %{{.*}}, %{{.*}} sem = relaxed
// No register copy of K or of dS^T's dot operand is left.
// CHECK-NOT: tile.descriptor_load

// Fed by the program's own threads, the same staging; the ring's refill
// follows the last dot (after its barrier).
// OWN-LABEL: func.func @dq_atomic
// OWN-NOT: tilegpu.warp_specialize
// OWN: tilegpu.warpgroup_dot
// OWN: arith.andi
// OWN-NEXT: tilegpu.local_store
// OWN-NEXT: tilegpu.async_wait {fence_async, pending = 0 : i32}
// OWN-NEXT: tilegpu.warpgroup_dot
// OWN-NEXT: gpu.barrier
// OWN: tilegpu.mbarrier_expect
func.func @dq_atomic(%qd: !tile.tensordesc<tensor<1x64x128xbf16>>,
                     %kd: !tile.tensordesc<tensor<1x128x128xbf16>>,
                     %dq: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                     %seq: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %bh = tile.program_id 1
  %k = tile.descriptor_load %kd[%bh, %c0, %c0] : !tile.tensordesc<tensor<1x128x128xbf16>> -> tensor<128x128xbf16>
  %kt = tile.trans %k, [1, 0] : tensor<128x128xbf16> -> tensor<128x128xbf16>
  %zs = arith.constant dense<0.0> : tensor<128x64xf32>
  %zq = arith.constant dense<0.0> : tensor<128x64xf32>
  %rd = tile.range 0, 128 : tensor<128xi32>
  %rq = tile.range 0, 64 : tensor<64xi32>
  %rc = tile.expand_dims %rd, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %rr = tile.expand_dims %rq, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rcb = tile.broadcast %rc : tensor<128x1xi32> -> tensor<128x64xi32>
  %c128t = arith.constant dense<128> : tensor<1x64xi32>
  %rrs = arith.muli %rr, %c128t : tensor<1x64xi32>
  %rrb = tile.broadcast %rrs : tensor<1x64xi32> -> tensor<128x64xi32>
  %offs = arith.addi %rcb, %rrb : tensor<128x64xi32>
  scf.for %m = %c0 to %seq step %c64 : i32 {
    %q = tile.descriptor_load %qd[%bh, %m, %c0] : !tile.tensordesc<tensor<1x64x128xbf16>> -> tensor<64x128xbf16>
    %qt = tile.trans %q, [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %st = tile.dot %k, %qt, %zs : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %p = math.exp2 %st : tensor<128x64xf32>
    %ds = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %dqt = tile.dot %kt, %ds, %zq : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %mo = arith.muli %m, %c64 : i32
    %base = tile.addptr %dq, %mo : !tile.ptr<f32>, i32
    %bs = tile.splat %base : !tile.ptr<f32> -> tensor<128x64x!tile.ptr<f32>>
    %ptrs = tile.addptr %bs, %offs : tensor<128x64x!tile.ptr<f32>>, tensor<128x64xi32>
    %old = tile.atomic_rmw fadd %ptrs, %dqt sem = relaxed : tensor<128x64x!tile.ptr<f32>>
  }
  return
}
