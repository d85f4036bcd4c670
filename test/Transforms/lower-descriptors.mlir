// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=3 warp-specialize=false" --canonicalize | FileCheck %s

// A wgmma dot whose operands are descriptor loads in the loop reads a
// 4-slot ring (num-stages + 1) of 128-byte-swizzled slots, one mbarrier
// per slot (count 1): three stages issued before the loop by thread 0
// (each only if that iteration exists), then per iteration a parity wait
// on the slot's mbarrier, the warpgroup_dot with one group in flight, a
// barrier and the refill of the slot the previous iteration read. The
// loop carries the slot and its phase; after it the accumulator is waited
// for.
// CHECK: #[[$NVMMA:nvmma[0-9]*]] = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
// CHECK-LABEL: func.func @ring
// CHECK: %[[A:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x128x64xbf16, #[[$NVMMA]]>
// CHECK: %[[B:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x64x128xbf16, #[[$NVMMA]]>
// CHECK: %[[BARS:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x1x1xi64
// CHECK: tilegpu.mbarrier_init %[[BARS]] {count = 1 : i32}
// CHECK: scf.if
// CHECK-NEXT: tilegpu.mbarrier_expect %[[BARS]][%{{.*}}] {arrive, bytes = 32768 : i32}
// CHECK-NEXT: tilegpu.tma_load %{{.*}} into %[[A]]
// CHECK-NEXT: tilegpu.tma_load %{{.*}} into %[[B]]
// CHECK-COUNT-2: tilegpu.tma_load
// CHECK: scf.for {{.*}} iter_args(%{{[a-z0-9]+}} = %{{[a-z0-9_]+}}, %[[SLOT:arg[0-9]+]] = %c0_i32, %[[PHASE:arg[0-9]+]] = %c0_i32)
// CHECK-NEXT: tilegpu.mbarrier_wait %[[BARS]][%[[SLOT]]], %[[PHASE]]
// CHECK: tilegpu.warpgroup_dot %[[A]][%[[SLOT]]], %[[B]][%[[SLOT]]], %{{.*}} {pending = 1 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: tilegpu.mbarrier_expect %[[BARS]]
// CHECK: tilegpu.tma_load
// CHECK: tilegpu.tma_load
// CHECK: arith.xori %[[PHASE]]
// CHECK: scf.yield
// CHECK: tilegpu.warpgroup_wait %{{.*}} {pending = 0 : i32}
// CHECK-NOT: tile.descriptor_load
func.func @ring(%a: !tile.tensordesc<tensor<128x64xbf16>>,
                %b: !tile.tensordesc<tensor<64x128xbf16>>,
                %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
    %at = tile.descriptor_load %a[%c0, %k] : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
    %bt = tile.descriptor_load %b[%k, %c0] : !tile.tensordesc<tensor<64x128xbf16>> -> tensor<64x128xbf16>
    %next = tile.dot %at, %bt, %acc_i : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %next : tensor<128x128xf32>
  }
  %r = tile.range 0, 128 : tensor<128xi32>
  %r2 = tile.expand_dims %r, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %rb = tile.broadcast %r2 : tensor<128x1xi32> -> tensor<128x128xi32>
  %cs = tile.splat %c : !tile.ptr<bf16> -> tensor<128x128x!tile.ptr<bf16>>
  %cp = tile.addptr %cs, %rb : tensor<128x128x!tile.ptr<bf16>>, tensor<128x128xi32>
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %cp, %out : tensor<128x128x!tile.ptr<bf16>>
  return
}

// -----

// Outside a loop: one slot, the kernel's mbarrier (one arrival per
// thread), a barrier, thread 0's expect and copy, every thread's wait,
// then local_load. A store: barrier, local_store, tma_store.
// CHECK-LABEL: func.func @copy
// CHECK: %[[BAR:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<1x1x1xi64
// CHECK: tilegpu.mbarrier_init %[[BAR]] {count = 128 : i32}
// CHECK: %[[IN:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<1x64x32xf16, #nvmma
// CHECK: %[[OUT:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<1x64x32xf16
// CHECK: gpu.barrier
// CHECK-NEXT: tilegpu.mbarrier_expect %[[BAR]][%{{.*}}] {bytes = 4096 : i32}
// CHECK-NEXT: tilegpu.tma_load %{{.*}} into %[[IN]][%{{.*}}], %[[BAR]]
// CHECK-NEXT: tilegpu.mbarrier_wait %[[BAR]][%{{.*}}] :
// CHECK-NEXT: tilegpu.local_load %[[IN]]
// CHECK: gpu.barrier
// CHECK-NEXT: tilegpu.local_store %{{.*}} into %[[OUT]]
// CHECK-NEXT: tilegpu.tma_store %{{.*}} from %[[OUT]]
func.func @copy(%x: !tile.tensordesc<tensor<64x32xf16>>,
                %y: !tile.tensordesc<tensor<64x32xf16>>, %i: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %t = tile.descriptor_load %x[%i, %i] : !tile.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
  %u = arith.addf %t, %t : tensor<64x32xf16>
  tile.descriptor_store %y[%i, %i], %u : !tile.tensordesc<tensor<64x32xf16>>, tensor<64x32xf16>
  return
}

// -----

// A store that adds keeps its reduction on the TMA's store.
// CHECK-LABEL: func.func @add_into
// CHECK: %[[OUT:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<1x64x32xf32
// CHECK: gpu.barrier
// CHECK-NEXT: tilegpu.local_store %{{.*}} into %[[OUT]]
// CHECK-NEXT: tilegpu.tma_store %{{.*}} from %[[OUT]][%{{.*}}] reduce fadd :
func.func @add_into(%y: !tile.tensordesc<tensor<64x32xf32>>, %i: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %u = arith.constant dense<1.0> : tensor<64x32xf32>
  tile.descriptor_store %y[%i, %i], %u reduce fadd : !tile.tensordesc<tensor<64x32xf32>>, tensor<64x32xf32>
  return
}

// -----

// In a loop a reducing store does not wait for its slot's read: thread 0
// waits before the next iteration's barrier and once after the loop, both
// naming the slot (which keeps it live to there).
// CHECK-LABEL: func.func @add_in_loop
// CHECK: %[[SLOT:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<1x64x32xf32
// CHECK: scf.for
// CHECK: tilegpu.tma_store_wait %[[SLOT]] :
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tilegpu.local_store %{{.*}} into %[[SLOT]]
// CHECK-NEXT: tilegpu.tma_store %{{.*}} from %[[SLOT]][%{{.*}}] reduce fadd async :
// CHECK: }
// CHECK-NEXT: tilegpu.tma_store_wait %[[SLOT]] :
// CHECK-NEXT: return
func.func @add_in_loop(%y: !tile.tensordesc<tensor<64x32xf32>>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %u = arith.constant dense<1.0> : tensor<64x32xf32>
  scf.for %i = %c0 to %n step %c64 : i32 {
    tile.descriptor_store %y[%i, %c0], %u reduce fadd : !tile.tensordesc<tensor<64x32xf32>>, tensor<64x32xf32>
  }
  return
}

// -----

// A transposed tile is stored untransposed into the slot's transposed
// view: no tile.trans (and no exchange through the scratch) remains.
// CHECK-LABEL: func.func @store_transposed
// CHECK: %[[SLOT:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<1x64x32xf32
// CHECK-NOT: tile.trans
// CHECK: %[[VIEW:[0-9]+]] = tilegpu.trans_view %[[SLOT]] : !tilegpu.smem<1x64x32xf32, {{.*}}> -> !tilegpu.smem<1x32x64xf32
// CHECK-NEXT: tilegpu.local_store %{{.*}} into %[[VIEW]][%{{.*}}] : tensor<32x64xf32
// CHECK-NEXT: tilegpu.tma_store %{{.*}} from %[[SLOT]][%{{.*}}] reduce fadd :
func.func @store_transposed(%x: !tile.tensordesc<tensor<32x64xf32>>,
                            %y: !tile.tensordesc<tensor<64x32xf32>>, %i: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %t = tile.descriptor_load %x[%i, %i] : !tile.tensordesc<tensor<32x64xf32>> -> tensor<32x64xf32>
  %u = tile.trans %t, [1, 0] : tensor<32x64xf32> -> tensor<64x32xf32>
  tile.descriptor_store %y[%i, %i], %u reduce fadd : !tile.tensordesc<tensor<64x32xf32>>, tensor<64x32xf32>
  return
}
