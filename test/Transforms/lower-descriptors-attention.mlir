// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=3" --canonicalize | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=3 warp-specialize=false" --canonicalize | FileCheck %s --check-prefix=OWN

// Attention's shape of loop: two dots per step, S = Q K^T with K's block
// read transposed and Q loaded once before the loops, then O += P V with P
// computed in registers; two loops in a row (unmasked, then masked) over
// the same K and V blocks.
//
// Warp-specialized: one ring of K and V slots serves both loops; each dot
// has its own full and empty mbarriers (K's and V's), so S = Q K^T starts
// when K has landed and K's slot is released as soon as that dot is done.
// The producer feeds the first loop, then the second from where it
// stopped; so do the consumers. Q is read in place from its slot by both
// loops' first dots (no register copy), K through a trans_view of its slots.
// CHECK-LABEL: func.func @attention
// CHECK-DAG: %[[QBAR:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<1x1x1xi64
// CHECK-DAG: %[[Q:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<1x128x64xbf16, #[[$NV:nvmma[0-9]*]]>
// CHECK: %[[K:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x64x64xbf16, #[[$NV]]>
// CHECK-NEXT: %[[V:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x64x64xbf16, #[[$NV]]>
// CHECK-NEXT: %[[KFULL:[0-9]+]] = tilegpu.local_alloc
// CHECK-NEXT: tilegpu.mbarrier_init %[[KFULL]] {count = 1 : i32}
// CHECK-NEXT: %[[VFULL:[0-9]+]] = tilegpu.local_alloc
// CHECK-NEXT: tilegpu.mbarrier_init %[[VFULL]] {count = 1 : i32}
// CHECK-NEXT: %[[KEMPTY:[0-9]+]] = tilegpu.local_alloc
// CHECK-NEXT: tilegpu.mbarrier_init %[[KEMPTY]] {count = 8 : i32}
// CHECK-NEXT: %[[VEMPTY:[0-9]+]] = tilegpu.local_alloc
// CHECK-NEXT: tilegpu.mbarrier_init %[[VEMPTY]] {count = 8 : i32}
// CHECK-NEXT: tilegpu.warp_specialize producer {
// CHECK-NEXT: %[[P1:.*]]:2 = scf.for %[[I:.*]] = %c0_i32 to %[[MID:.*]] step %c64_i32 iter_args(%[[S:.*]] = %c0_i32, %[[PH:.*]] = %c0_i32)
// CHECK-NEXT: %[[REL:.*]] = arith.xori %[[PH]], %c1_i32
// CHECK-NEXT: tilegpu.mbarrier_wait %[[KEMPTY]][%[[S]]], %[[REL]]
// CHECK-NEXT: tilegpu.mbarrier_expect %[[KFULL]][%[[S]]] {arrive, bytes = 8192 : i32}
// CHECK-NEXT: tilegpu.tma_load %{{.*}}[%{{.*}}, %[[I]], %c0_i32] into %[[K]][%[[S]]], %[[KFULL]][%[[S]]]
// CHECK-NEXT: tilegpu.mbarrier_wait %[[VEMPTY]][%[[S]]], %[[REL]]
// CHECK-NEXT: tilegpu.mbarrier_expect %[[VFULL]][%[[S]]] {arrive, bytes = 8192 : i32}
// CHECK-NEXT: tilegpu.tma_load %{{.*}}[%{{.*}}, %[[I]], %c0_i32] into %[[V]][%[[S]]], %[[VFULL]][%[[S]]]
// CHECK: scf.for %{{.*}} = %[[MID]] to %{{.*}} step %c64_i32 iter_args(%{{.*}} = %[[P1]]#0, %{{.*}} = %[[P1]]#1)
// CHECK: } consumer {
// CHECK: tilegpu.mbarrier_expect %[[QBAR]]
// CHECK-NEXT: tilegpu.tma_load %{{.*}} into %[[Q]][%c0_i32]
// CHECK-NEXT: tilegpu.mbarrier_wait %[[QBAR]][%c0_i32] :
// CHECK: %[[KT:.*]] = tilegpu.trans_view %[[K]] : !tilegpu.smem<4x64x64xbf16, #[[$NV]]> -> !tilegpu.smem<4x64x64xbf16, #[[$NVT:nvmma[0-9]*]]>
// CHECK: %[[C1:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[CS:.*]] = %c0_i32, %[[CP:.*]] = %c0_i32)
// CHECK-NEXT: tilegpu.mbarrier_wait %[[KFULL]][%[[CS]]], %[[CP]]
// CHECK-NEXT: %{{.*}} = tilegpu.warpgroup_dot %[[Q]][%c0_i32], %[[KT]][%[[CS]]], %{{.*}} : !tilegpu.smem<1x128x64xbf16, #[[$NV]]>, !tilegpu.smem<4x64x64xbf16, #[[$NVT]]> -> tensor<128x64xf32
// CHECK-NEXT: tilegpu.mbarrier_arrive %[[KEMPTY]][%[[CS]]]
// CHECK: tilegpu.mbarrier_wait %[[VFULL]][%[[CS]]], %[[CP]]
// CHECK-NEXT: %{{.*}} = tilegpu.warpgroup_dot %{{.*}}, %[[V]][%[[CS]]], %{{.*}} : tensor<128x64xbf16, #{{.*}}>, !tilegpu.smem<4x64x64xbf16, #[[$NV]]>
// CHECK-NEXT: tilegpu.mbarrier_arrive %[[VEMPTY]][%[[CS]]]
// CHECK-NOT: gpu.barrier
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[C1]]#0, %{{.*}} = %[[C1]]#1, %{{.*}} = %[[C1]]#2)
// CHECK: tilegpu.warpgroup_dot %[[Q]][%c0_i32], %{{.*}}[
// CHECK: tile.store
// CHECK: } {consumer_registers = 232 : i32, producer_registers = 40 : i32}

// Fed by the program's own threads: one ring per loop, one full mbarrier
// per slot for the whole stage (K and V: 16 KB), waited for before the
// first dot; after the last dot a barrier, then thread 0 refills the slot
// the previous step read.
// OWN-LABEL: func.func @attention
// OWN-NOT: tilegpu.warp_specialize
// OWN: %[[BARS:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x1x1xi64
// OWN: tilegpu.mbarrier_expect %[[BARS]][%c0_i32] {arrive, bytes = 16384 : i32}
// OWN: scf.for
// OWN: tilegpu.mbarrier_wait %[[BARS]]
// OWN-NEXT: tilegpu.warpgroup_dot
// OWN-NOT: tilegpu.mbarrier_wait
// OWN: tilegpu.warpgroup_dot
// OWN-NEXT: gpu.barrier
// OWN: tilegpu.mbarrier_expect %[[BARS]]
func.func @attention(%qd: !tile.tensordesc<tensor<1x128x64xbf16>>,
                     %kd: !tile.tensordesc<tensor<1x64x64xbf16>>,
                     %vd: !tile.tensordesc<tensor<1x64x64xbf16>>,
                     %o: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                     %mid: i32, %seq: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %bh = tile.program_id 1
  %q = tile.descriptor_load %qd[%bh, %c0, %c0] : !tile.tensordesc<tensor<1x128x64xbf16>> -> tensor<128x64xbf16>
  %zs = arith.constant dense<0.0> : tensor<128x64xf32>
  %zo = arith.constant dense<0.0> : tensor<128x64xf32>
  %o1 = scf.for %n = %c0 to %mid step %c64 iter_args(%acc = %zo) -> (tensor<128x64xf32>) : i32 {
    %k = tile.descriptor_load %kd[%bh, %n, %c0] : !tile.tensordesc<tensor<1x64x64xbf16>> -> tensor<64x64xbf16>
    %kt = tile.trans %k, [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %v = tile.descriptor_load %vd[%bh, %n, %c0] : !tile.tensordesc<tensor<1x64x64xbf16>> -> tensor<64x64xbf16>
    %s = tile.dot %q, %kt, %zs : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %p = math.exp2 %s : tensor<128x64xf32>
    %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %next = tile.dot %p16, %v, %acc : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    scf.yield %next : tensor<128x64xf32>
  }
  %o2 = scf.for %n = %mid to %seq step %c64 iter_args(%acc = %o1) -> (tensor<128x64xf32>) : i32 {
    %k = tile.descriptor_load %kd[%bh, %n, %c0] : !tile.tensordesc<tensor<1x64x64xbf16>> -> tensor<64x64xbf16>
    %kt = tile.trans %k, [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %v = tile.descriptor_load %vd[%bh, %n, %c0] : !tile.tensordesc<tensor<1x64x64xbf16>> -> tensor<64x64xbf16>
    %s = tile.dot %q, %kt, %zs : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %sm = arith.negf %s : tensor<128x64xf32>
    %p = math.exp2 %sm : tensor<128x64xf32>
    %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %next = tile.dot %p16, %v, %acc : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    scf.yield %next : tensor<128x64xf32>
  }
  %r = tile.range 0, 64 : tensor<64xi32>
  %r2 = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %r2 : tensor<1x64xi32> -> tensor<128x64xi32>
  %os = tile.splat %o : !tile.ptr<bf16> -> tensor<128x64x!tile.ptr<bf16>>
  %op = tile.addptr %os, %rb : tensor<128x64x!tile.ptr<bf16>>, tensor<128x64xi32>
  %out = arith.truncf %o2 : tensor<128x64xf32> to tensor<128x64xbf16>
  tile.store %op, %out : tensor<128x64x!tile.ptr<bf16>>
  return
}

// -----

// The attention backward's shape (dK, dV for one key block): one staged
// load feeding two dots (Q, as Q^T for S^T = K Q^T and as Q for
// dK += P^T Q). A load belongs to the first dot that reads it: S^T waits
// for Q's slot, dV for dO's; each slot is released after its last reader
// (dO's after dV, Q's after dK).
// CHECK-LABEL: func.func @backward
// CHECK: %[[Q:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x64x64xbf16
// CHECK-NEXT: %[[DO:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x64x64xbf16
// CHECK-NEXT: %[[QFULL:[0-9]+]] = tilegpu.local_alloc
// CHECK: %[[DOFULL:[0-9]+]] = tilegpu.local_alloc
// CHECK: %[[QEMPTY:[0-9]+]] = tilegpu.local_alloc
// CHECK: %[[DOEMPTY:[0-9]+]] = tilegpu.local_alloc
// CHECK-NEXT: tilegpu.mbarrier_init %[[DOEMPTY]]
// CHECK-NEXT: tilegpu.warp_specialize producer {
// CHECK: tilegpu.mbarrier_wait %[[QEMPTY]]
// CHECK-NEXT: tilegpu.mbarrier_expect %[[QFULL]][%{{.*}}] {arrive, bytes = 8192 : i32}
// CHECK-NEXT: tilegpu.tma_load {{.*}} into %[[Q]]
// CHECK-NEXT: tilegpu.mbarrier_wait %[[DOEMPTY]]
// CHECK-NEXT: tilegpu.mbarrier_expect %[[DOFULL]][%{{.*}}] {arrive, bytes = 8192 : i32}
// CHECK-NEXT: tilegpu.tma_load {{.*}} into %[[DO]]
// CHECK-NOT: tilegpu.tma_load
// CHECK: } consumer {
// CHECK: %[[QT:.*]] = tilegpu.trans_view %[[Q]]
// CHECK: scf.for
// CHECK-NEXT: tilegpu.mbarrier_wait %[[QFULL]]
// CHECK-NEXT: tilegpu.warpgroup_dot %{{.*}}[%c0_i32], %[[QT]][%[[S:.*]]], %{{.*}}
// CHECK-NOT: tilegpu.mbarrier_arrive
// CHECK: tilegpu.mbarrier_wait %[[DOFULL]]
// CHECK-NEXT: tilegpu.warpgroup_dot %{{.*}}, %[[DO]][%[[S]]]
// CHECK-NEXT: tilegpu.mbarrier_arrive %[[DOEMPTY]][%[[S]]]
// CHECK-NOT: tilegpu.mbarrier_wait
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %[[Q]][%[[S]]]
// CHECK-NEXT: tilegpu.mbarrier_arrive %[[QEMPTY]][%[[S]]]
func.func @backward(%kd: !tile.tensordesc<tensor<1x128x64xbf16>>,
                    %qd: !tile.tensordesc<tensor<1x64x64xbf16>>,
                    %dod: !tile.tensordesc<tensor<1x64x64xbf16>>,
                    %o: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                    %seq: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %bh = tile.program_id 1
  %k = tile.descriptor_load %kd[%bh, %c0, %c0] : !tile.tensordesc<tensor<1x128x64xbf16>> -> tensor<128x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %dk, %dv = scf.for %m = %c0 to %seq step %c64 iter_args(%ak = %z, %av = %z) -> (tensor<128x64xf32>, tensor<128x64xf32>) : i32 {
    %q = tile.descriptor_load %qd[%bh, %m, %c0] : !tile.tensordesc<tensor<1x64x64xbf16>> -> tensor<64x64xbf16>
    %do = tile.descriptor_load %dod[%bh, %m, %c0] : !tile.tensordesc<tensor<1x64x64xbf16>> -> tensor<64x64xbf16>
    %qt = tile.trans %q, [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %st = tile.dot %k, %qt, %z : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %pt = math.exp2 %st : tensor<128x64xf32>
    %p16 = arith.truncf %pt : tensor<128x64xf32> to tensor<128x64xbf16>
    %nv = tile.dot %p16, %do, %av : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %nk = tile.dot %p16, %q, %ak : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    scf.yield %nk, %nv : tensor<128x64xf32>, tensor<128x64xf32>
  }
  %r = tile.range 0, 64 : tensor<64xi32>
  %r2 = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %r2 : tensor<1x64xi32> -> tensor<128x64xi32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<128x64x!tile.ptr<f32>>
  %op = tile.addptr %os, %rb : tensor<128x64x!tile.ptr<f32>>, tensor<128x64xi32>
  %sum = arith.addf %dk, %dv : tensor<128x64xf32>
  tile.store %op, %sum : tensor<128x64x!tile.ptr<f32>>
  return
}
