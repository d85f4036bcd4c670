// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=3" --canonicalize | FileCheck %s

// Warp specialization (the default on sm_90a): a producer region that
// waits for each slot to be released (parity 1 first: a fresh slot passes)
// and refills it by TMA, completing on the slot's full mbarrier; the
// consumers wait on the full mbarrier, run the warpgroup_dot with one
// group in flight and, from the second iteration on, release the slot the
// previous iteration read (one arrival per warp: count 8). All 4 slots are
// in flight; no program-wide barrier in the loop. The tile program's
// loop and epilogue move to the consumers; the scalar offsets stay for
// both (the canonicalizer hoists the accumulator's zero, a constant).
// CHECK-LABEL: func.func @ring
// CHECK-SAME: tilegpu.producer_warps = 4 : i32
// CHECK: arith.muli
// CHECK: %[[A:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x128x64xbf16, #[[$NVMMA:nvmma[0-9]*]]>
// CHECK: %[[B:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x64x256xbf16, #[[$NVMMA]]>
// CHECK: %[[FULL:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x1x1xi64
// CHECK-NEXT: tilegpu.mbarrier_init %[[FULL]] {count = 1 : i32}
// CHECK: %[[EMPTY:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x1x1xi64
// CHECK-NEXT: tilegpu.mbarrier_init %[[EMPTY]] {count = 8 : i32}
// CHECK-NEXT: tilegpu.warp_specialize producer {
// CHECK-NEXT: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PS:.*]] = %c0_i32, %[[PP:.*]] = %c0_i32)
// CHECK-NEXT: %[[REL:.*]] = arith.xori %[[PP]], %c1_i32
// CHECK-NEXT: tilegpu.mbarrier_wait %[[EMPTY]][%[[PS]]], %[[REL]]
// CHECK-NEXT: tilegpu.mbarrier_expect %[[FULL]][%[[PS]]] {arrive, bytes = 49152 : i32}
// CHECK-NEXT: tilegpu.tma_load %{{.*}}[%{{.*}}, %[[I]]] into %[[A]][%[[PS]]], %[[FULL]][%[[PS]]]
// CHECK-NEXT: tilegpu.tma_load %{{.*}}[%[[I]], %{{.*}}] into %[[B]][%[[PS]]], %[[FULL]][%[[PS]]]
// CHECK: scf.yield
// CHECK: } consumer {
// CHECK-NEXT: scf.for %[[K:.*]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[SLOT:.*]] = %c0_i32, %[[PHASE:.*]] = %c0_i32)
// CHECK-NEXT: tilegpu.mbarrier_wait %[[FULL]][%[[SLOT]]], %[[PHASE]]
// CHECK-NEXT: tilegpu.warpgroup_dot %[[A]][%[[SLOT]]], %[[B]][%[[SLOT]]], %{{.*}} {pending = 1 : i32}
// CHECK-NOT: gpu.barrier
// CHECK: arith.cmpi ne, %[[K]]
// CHECK-NEXT: scf.if
// CHECK: tilegpu.mbarrier_arrive %[[EMPTY]]
// CHECK: tilegpu.warpgroup_wait %{{.*}} {pending = 0 : i32}
// CHECK: tile.store
// CHECK-NEXT: } {consumer_registers = 232 : i32, producer_registers = 40 : i32}
// CHECK-NEXT: return
func.func @ring(%a: !tile.tensordesc<tensor<128x64xbf16>>,
                %b: !tile.tensordesc<tensor<64x256xbf16>>,
                %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %px = tile.program_id 0
  %m0 = arith.muli %px, %c128 : i32
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %zero) -> (tensor<128x256xf32>) : i32 {
    %at = tile.descriptor_load %a[%m0, %k] : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
    %bt = tile.descriptor_load %b[%k, %c0] : !tile.tensordesc<tensor<64x256xbf16>> -> tensor<64x256xbf16>
    %next = tile.dot %at, %bt, %acc_i : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
    scf.yield %next : tensor<128x256xf32>
  }
  %r = tile.range 0, 256 : tensor<256xi32>
  %r2 = tile.expand_dims %r, 0 : tensor<256xi32> -> tensor<1x256xi32>
  %rb = tile.broadcast %r2 : tensor<1x256xi32> -> tensor<128x256xi32>
  %cs = tile.splat %c : !tile.ptr<bf16> -> tensor<128x256x!tile.ptr<bf16>>
  %cp = tile.addptr %cs, %rb : tensor<128x256x!tile.ptr<bf16>>, tensor<128x256xi32>
  %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
  tile.store %cp, %out : tensor<128x256x!tile.ptr<bf16>>
  return
}

// -----

// tile.warp_specialize = false keeps the program's own threads feeding the
// ring (thread 0 between the dots, a barrier before each refill).
// CHECK-LABEL: func.func @own_threads
// CHECK-NOT: tilegpu.producer_warps
// CHECK-NOT: tilegpu.warp_specialize
// CHECK: tilegpu.warpgroup_dot
// CHECK-NEXT: gpu.barrier
func.func @own_threads(%a: !tile.tensordesc<tensor<128x64xbf16>>,
                       %b: !tile.tensordesc<tensor<64x128xbf16>>,
                       %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.warp_specialize = false} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
    %at = tile.descriptor_load %a[%c0, %k] : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
    %bt = tile.descriptor_load %b[%k, %c0] : !tile.tensordesc<tensor<64x128xbf16>> -> tensor<64x128xbf16>
    %next = tile.dot %at, %bt, %acc_i : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %next : tensor<128x128xf32>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<128x128x!tile.ptr<f32>>
  return
}

// -----

// A producer input that is not pure scalar code (a value loaded from
// memory bounds the loop): no warp specialization, the other schedule.
// CHECK-LABEL: func.func @loaded_bound
// CHECK-NOT: tilegpu.warp_specialize
// CHECK: tilegpu.warpgroup_dot
// CHECK-NEXT: gpu.barrier
func.func @loaded_bound(%a: !tile.tensordesc<tensor<128x64xbf16>>,
                        %b: !tile.tensordesc<tensor<64x128xbf16>>,
                        %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                        %kp: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %K = tile.load %kp : !tile.ptr<i32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
    %at = tile.descriptor_load %a[%c0, %k] : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
    %bt = tile.descriptor_load %b[%k, %c0] : !tile.tensordesc<tensor<64x128xbf16>> -> tensor<64x128xbf16>
    %next = tile.dot %at, %bt, %acc_i : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %next : tensor<128x128xf32>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<128x128x!tile.ptr<f32>>
  return
}

// -----

// A persistent loop nest: the producer clones the outer loop and the
// scalar offsets it computes, and the ring's slot and parity run on from
// one outer iteration to the next on both sides; after each inner loop the
// consumers release its last slot. The epilogue's conversion scratch is
// live beside the slots here, so the ring is num_stages (3) slots deep.
// CHECK-LABEL: func.func @persistent
// CHECK: %[[A:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16
// CHECK: %[[FULL:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<3x1x1xi64
// CHECK: %[[EMPTY:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<3x1x1xi64
// CHECK: tilegpu.warp_specialize producer {
// CHECK-NEXT: scf.for %[[T:.*]] = %{{.*}} iter_args(%[[OS:.*]] = %c0_i32, %[[OP:.*]] = %c0_i32)
// CHECK-NEXT: %[[M0:.*]] = arith.muli %[[T]], %c128_i32
// CHECK-NEXT: %[[IN:.*]]:2 = scf.for %{{.*}} iter_args(%[[PS:.*]] = %[[OS]], %{{.*}} = %[[OP]])
// CHECK: tilegpu.mbarrier_wait %[[EMPTY]][%[[PS]]]
// CHECK: tilegpu.tma_load %{{.*}}[%[[M0]], %{{.*}}] into %[[A]][%[[PS]]]
// CHECK: scf.yield %[[IN]]#0, %[[IN]]#1
// CHECK: } consumer {
// CHECK: scf.for %{{.*}} iter_args(%[[CS:.*]] = %c0_i32, %[[CP:.*]] = %c0_i32)
// CHECK: %[[K:.*]]:3 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[CS]], %{{.*}} = %[[CP]])
// CHECK: tilegpu.warpgroup_dot
// CHECK: tilegpu.warpgroup_wait
// CHECK-NEXT: arith.cmpi sgt
// CHECK-NEXT: scf.if
// CHECK: tilegpu.mbarrier_arrive %[[EMPTY]]
// CHECK: tile.store
// CHECK: scf.yield %[[K]]#1, %[[K]]#2
func.func @persistent(%a: !tile.tensordesc<tensor<128x64xbf16>>,
                      %b: !tile.tensordesc<tensor<64x256xbf16>>,
                      %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                      %K: i32, %tiles: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id 0
  %np = tile.num_programs 0
  scf.for %t = %pid to %tiles step %np : i32 {
    %m0 = arith.muli %t, %c128 : i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %zero) -> (tensor<128x256xf32>) : i32 {
      %at = tile.descriptor_load %a[%m0, %k] : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
      %bt = tile.descriptor_load %b[%k, %c0] : !tile.tensordesc<tensor<64x256xbf16>> -> tensor<64x256xbf16>
      %next = tile.dot %at, %bt, %acc_i : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
      scf.yield %next : tensor<128x256xf32>
    }
    %m0s = tile.splat %m0 : i32 -> tensor<128x256xi32>
    %cs = tile.splat %c : !tile.ptr<bf16> -> tensor<128x256x!tile.ptr<bf16>>
    %cp = tile.addptr %cs, %m0s : tensor<128x256x!tile.ptr<bf16>>, tensor<128x256xi32>
    %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
    tile.store %cp, %out : tensor<128x256x!tile.ptr<bf16>>
  }
  return
}

// -----

// Four warps (one consumer warpgroup): ptxas could already give them 248
// registers or more at entry, so setmaxnreg would gain nothing; the
// program's own threads feed the ring.
// CHECK-LABEL: func.func @four_warps
// CHECK-NOT: tilegpu.warp_specialize
// CHECK: tilegpu.warpgroup_dot
// CHECK-NEXT: gpu.barrier
func.func @four_warps(%a: !tile.tensordesc<tensor<64x64xbf16>>,
                      %b: !tile.tensordesc<tensor<64x128xbf16>>,
                      %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %zero) -> (tensor<64x128xf32>) : i32 {
    %at = tile.descriptor_load %a[%c0, %k] : !tile.tensordesc<tensor<64x64xbf16>> -> tensor<64x64xbf16>
    %bt = tile.descriptor_load %b[%k, %c0] : !tile.tensordesc<tensor<64x128xbf16>> -> tensor<64x128xbf16>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x128x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<64x128x!tile.ptr<f32>>
  return
}
