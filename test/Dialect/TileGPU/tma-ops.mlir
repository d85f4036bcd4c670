// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// mbarriers and TMA copies (made by tile-lower-descriptors).
#plain = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
// CHECK-LABEL: func.func @tma
func.func @tma(%d: !tile.tensordesc<tensor<128x64xbf16>>, %m: i32, %k: i32,
               %s: i32, %p: i32, %v: tensor<128x64xbf16>) -> tensor<128x64xbf16> {
  // CHECK: %[[BARS:.*]] = tilegpu.local_alloc : !tilegpu.smem<3x1x1xi64
  %bars = tilegpu.local_alloc : !tilegpu.smem<3x1x1xi64, #plain>
  // CHECK: %[[BUF:.*]] = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nvmma>
  %buf = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nvmma>
  // CHECK: tilegpu.mbarrier_init %[[BARS]] {count = 1 : i32}
  tilegpu.mbarrier_init %bars {count = 1 : i32} : !tilegpu.smem<3x1x1xi64, #plain>
  // CHECK: tilegpu.mbarrier_expect %[[BARS]][%{{.*}}] {arrive, bytes = 16384 : i32}
  tilegpu.mbarrier_expect %bars[%s] {arrive, bytes = 16384 : i32} : !tilegpu.smem<3x1x1xi64, #plain>
  // CHECK: tilegpu.mbarrier_expect %[[BARS]][%{{.*}}] {bytes = 16384 : i32}
  tilegpu.mbarrier_expect %bars[%s] {bytes = 16384 : i32} : !tilegpu.smem<3x1x1xi64, #plain>
  // CHECK: tilegpu.tma_load %{{.*}}[%{{.*}}, %{{.*}}] into %[[BUF]][%{{.*}}], %[[BARS]][%{{.*}}] : !tile.tensordesc<tensor<128x64xbf16>> into
  tilegpu.tma_load %d[%m, %k] into %buf[%s], %bars[%s] : !tile.tensordesc<tensor<128x64xbf16>> into !tilegpu.smem<3x128x64xbf16, #nvmma>, !tilegpu.smem<3x1x1xi64, #plain>
  // CHECK: tilegpu.mbarrier_wait %[[BARS]][%{{.*}}], %{{.*}} :
  tilegpu.mbarrier_wait %bars[%s], %p : !tilegpu.smem<3x1x1xi64, #plain>
  // CHECK: tilegpu.mbarrier_wait %[[BARS]][%{{.*}}] :
  tilegpu.mbarrier_wait %bars[%s] : !tilegpu.smem<3x1x1xi64, #plain>
  // CHECK: tilegpu.local_store %{{.*}} into %[[BUF]][%{{.*}}] : tensor<128x64xbf16> into
  tilegpu.local_store %v into %buf[%s] : tensor<128x64xbf16> into !tilegpu.smem<3x128x64xbf16, #nvmma>
  // CHECK: tilegpu.tma_store %{{.*}}[%{{.*}}, %{{.*}}] from %[[BUF]][%{{.*}}] : !tile.tensordesc<tensor<128x64xbf16>> from
  tilegpu.tma_store %d[%m, %k] from %buf[%s] : !tile.tensordesc<tensor<128x64xbf16>> from !tilegpu.smem<3x128x64xbf16, #nvmma>
  // A reduce-add whose wait for the slot's read comes later.
  // CHECK: tilegpu.tma_store %{{.*}}[%{{.*}}, %{{.*}}] from %[[BUF]][%{{.*}}] reduce fadd async : !tile.tensordesc<tensor<128x64xbf16>> from
  tilegpu.tma_store %d[%m, %k] from %buf[%s] reduce fadd async : !tile.tensordesc<tensor<128x64xbf16>> from !tilegpu.smem<3x128x64xbf16, #nvmma>
  // CHECK: tilegpu.tma_store_wait %[[BUF]] : !tilegpu.smem<3x128x64xbf16
  tilegpu.tma_store_wait %buf : !tilegpu.smem<3x128x64xbf16, #nvmma>
  %t = tilegpu.local_load %buf[%s] : !tilegpu.smem<3x128x64xbf16, #nvmma> -> tensor<128x64xbf16>
  return %t : tensor<128x64xbf16>
}

// A warp-specialized program: the producer and consumer regions, and the
// consumers' per-warp release of a slot.
// CHECK-LABEL: func.func @specialized
func.func @specialized(%s: i32, %p: i32) {
  %bars = tilegpu.local_alloc : !tilegpu.smem<3x1x1xi64, #plain>
  // CHECK: tilegpu.warp_specialize producer {
  // CHECK-NEXT: tilegpu.mbarrier_wait %{{.*}}[%{{.*}}], %{{.*}} :
  // CHECK-NEXT: } consumer {
  // CHECK-NEXT: tilegpu.mbarrier_arrive %{{.*}}[%{{.*}}] : !tilegpu.smem<3x1x1xi64
  // CHECK-NEXT: } {consumer_registers = 232 : i32, producer_registers = 40 : i32}
  tilegpu.warp_specialize producer {
    tilegpu.mbarrier_wait %bars[%s], %p : !tilegpu.smem<3x1x1xi64, #plain>
  } consumer {
    tilegpu.mbarrier_arrive %bars[%s] : !tilegpu.smem<3x1x1xi64, #plain>
  } {consumer_registers = 232 : i32, producer_registers = 40 : i32}
  return
}

// The two consumer warpgroups' turns (tile.pingpong).
// CHECK-LABEL: func.func @turns
// CHECK: } consumer {
// CHECK-NEXT: tilegpu.warpgroup_turn "start"
// CHECK-NEXT: tilegpu.warpgroup_turn "wait"
// CHECK-NEXT: tilegpu.warpgroup_turn "pass"
// CHECK-NEXT: tilegpu.warpgroup_turn "finish"
func.func @turns() attributes {tile.num_warps = 8 : i32} {
  tilegpu.warp_specialize producer {
  } consumer {
    tilegpu.warpgroup_turn "start"
    tilegpu.warpgroup_turn "wait"
    tilegpu.warpgroup_turn "pass"
    tilegpu.warpgroup_turn "finish"
  } {consumer_registers = 232 : i32, producer_registers = 40 : i32}
  return
}

// Stores whose boxes each warpgroup issues for itself, and the waits of
// each warpgroup's first thread.
// CHECK-LABEL: func.func @per_warpgroup
func.func @per_warpgroup(%d: !tile.tensordesc<tensor<64x128xf32>>, %i: i32)
    attributes {tile.num_warps = 8 : i32} {
  // CHECK: %[[B:.*]] = tilegpu.local_alloc : !tilegpu.smem<1x64x128xf32
  %buf = tilegpu.local_alloc : !tilegpu.smem<1x64x128xf32, #nvmma>
  // CHECK: tilegpu.tma_store_wait %[[B]] warpgroups : !tilegpu.smem<1x64x128xf32
  tilegpu.tma_store_wait %buf warpgroups : !tilegpu.smem<1x64x128xf32, #nvmma>
  // CHECK: tilegpu.tma_store %{{.*}}[%{{.*}}, %{{.*}}] from %[[B]][%{{.*}}] reduce fadd async warpgroups [0, 0, 1, 1] : !tile.tensordesc<tensor<64x128xf32>> from
  tilegpu.tma_store %d[%i, %i] from %buf[%i] reduce fadd async warpgroups [0, 0, 1, 1] : !tile.tensordesc<tensor<64x128xf32>> from !tilegpu.smem<1x64x128xf32, #nvmma>
  // CHECK: tilegpu.tma_store %{{.*}}[%{{.*}}, %{{.*}}] from %[[B]][%{{.*}}] warpgroups [1, 0, 1, 0] : !tile.tensordesc<tensor<64x128xf32>> from
  tilegpu.tma_store %d[%i, %i] from %buf[%i] warpgroups [1, 0, 1, 0] : !tile.tensordesc<tensor<64x128xf32>> from !tilegpu.smem<1x64x128xf32, #nvmma>
  return
}

// A kernel whose programs run in clusters of two: a multicast copy, the
// release of a slot in every program of the cluster, the cluster barrier.
// CHECK-LABEL: func.func @cluster
func.func @cluster(%d: !tile.tensordesc<tensor<64x256xbf16>>, %i: i32)
    attributes {tile.kernel, tile.num_ctas = 2 : i32} {
  %buf = tilegpu.local_alloc : !tilegpu.smem<2x64x256xbf16, #nvmma>
  %bars = tilegpu.local_alloc : !tilegpu.smem<2x1x1xi64, #plain>
  // CHECK: tilegpu.cluster_barrier
  tilegpu.cluster_barrier
  // CHECK: tilegpu.tma_load %{{.*}}[%{{.*}}, %{{.*}}] into %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {multicast = 2 : i32} :
  tilegpu.tma_load %d[%i, %i] into %buf[%i], %bars[%i] {multicast = 2 : i32} : !tile.tensordesc<tensor<64x256xbf16>> into !tilegpu.smem<2x64x256xbf16, #nvmma>, !tilegpu.smem<2x1x1xi64, #plain>
  // CHECK: tilegpu.mbarrier_arrive %{{.*}}[%{{.*}}] {cluster = 2 : i32} :
  tilegpu.mbarrier_arrive %bars[%i] {cluster = 2 : i32} : !tilegpu.smem<2x1x1xi64, #plain>
  return
}
