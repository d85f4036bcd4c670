// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=3" --canonicalize | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=3" 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN

// A kernel in clusters whose programs share nothing is warned, with the
// reason (the two kernels that multicast are not).
// WARN-NOT: warning
// WARN: lower-descriptors-cluster.mlir:{{[0-9]+}}:1: warning: tile.num_ctas = 2: nothing is multicast: the bounds of the loop at line {{[0-9]+}}:3 may differ between the programs of a cluster (e.g. a start at program_id 0: step over clusters, program_id 0 / 2, as examples/matmul_tma_cluster.tile does)
// WARN-NEXT: func.func @per_program_loop
// WARN: lower-descriptors-cluster.mlir:{{[0-9]+}}:1: warning: tile.num_ctas = 2: nothing is multicast: no descriptor block of the TMA ring is loaded alike by every program of a cluster (offsets that follow program_id 0 differ) in 2 or more TMA boxes
// WARN-NEXT: func.func @not_shared
// WARN: lower-descriptors-cluster.mlir:{{[0-9]+}}:1: warning: tile.num_ctas = 2: nothing is multicast: only a warp-specialized TMA ring is shared by a cluster, and the kernel has none
// WARN-NEXT: func.func @no_ring
// WARN-NOT: warning

// Programs in clusters of two (tile.num_ctas = 2) whose B offsets are the
// same in both programs of a cluster (a constant column, the K loop's
// induction variable from uniform bounds): B's copies are multicast (each
// program copies half of its four boxes into both programs' slots), A's
// (offset by program_id 0, which differs) are not. Both programs release
// the slots in both (the empty mbarriers count 8 warps x 2 programs); a
// cluster barrier follows the mbarriers' initialization and ends the
// kernel.
// CHECK-LABEL: func.func @multicast_b
// CHECK: %[[A:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x128x64xbf16
// CHECK: %[[B:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x64x256xbf16
// CHECK: %[[FULL:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x1x1xi64
// CHECK-NEXT: tilegpu.mbarrier_init %[[FULL]] {count = 1 : i32}
// CHECK: %[[EMPTY:[0-9]+]] = tilegpu.local_alloc : !tilegpu.smem<4x1x1xi64
// CHECK-NEXT: tilegpu.mbarrier_init %[[EMPTY]] {count = 16 : i32}
// CHECK-NEXT: tilegpu.cluster_barrier
// CHECK-NEXT: tilegpu.warp_specialize producer {
// CHECK: tilegpu.mbarrier_expect %[[FULL]][%{{.*}}] {arrive, bytes = 49152 : i32}
// CHECK-NEXT: tilegpu.tma_load %{{.*}} into %[[A]][%{{.*}}], %[[FULL]][%{{.*}}] :
// CHECK-NEXT: tilegpu.tma_load %{{.*}} into %[[B]][%{{.*}}], %[[FULL]][%{{.*}}] {multicast = 2 : i32} :
// CHECK: } consumer {
// CHECK: tilegpu.mbarrier_arrive %[[EMPTY]][%{{.*}}] {cluster = 2 : i32}
// CHECK: tile.store
// CHECK-NEXT: } {consumer_registers = 232 : i32, producer_registers = 40 : i32}
// CHECK-NEXT: tilegpu.cluster_barrier
// CHECK-NEXT: return
func.func @multicast_b(%a: !tile.tensordesc<tensor<128x64xbf16>>,
                       %b: !tile.tensordesc<tensor<64x256xbf16>>,
                       %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.num_ctas = 2 : i32} {
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
  %cs = tile.splat %c : !tile.ptr<bf16> -> tensor<128x256x!tile.ptr<bf16>>
  %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
  tile.store %cs, %out : tensor<128x256x!tile.ptr<bf16>>
  return
}

// -----

// Persistent programs over pairs of tile rows (examples/matmul_tma_cluster.tile):
// cluster c = pid / 2 walks the pairs c, c + clusters, ... (uniform bounds),
// B's column from tile.grouped_ids of the pair (uniform), A's row 2 * pair
// + pid % 2 (not). In four-program clusters B's four boxes are one each.
// CHECK-LABEL: func.func @pairs
// CHECK: tilegpu.mbarrier_init %{{.*}} {count = 32 : i32}
// CHECK-NEXT: tilegpu.cluster_barrier
// CHECK: tilegpu.tma_load %{{.*}} :
// CHECK-NEXT: tilegpu.tma_load %{{.*}} {multicast = 4 : i32} :
// CHECK: tilegpu.mbarrier_arrive %{{.*}} {cluster = 4 : i32}
// CHECK: tilegpu.cluster_barrier
// CHECK-NEXT: return
func.func @pairs(%a: !tile.tensordesc<tensor<128x64xbf16>>,
                 %b: !tile.tensordesc<tensor<64x256xbf16>>,
                 %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                 %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.num_ctas = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pid = tile.program_id 0
  %nprog = tile.num_programs 0
  %cluster = arith.divui %pid, %c4 : i32
  %rank = arith.remui %pid, %c4 : i32
  %clusters = arith.divui %nprog, %c4 : i32
  %npm = arith.divsi %M, %c128 : i32
  %npn = arith.divsi %N, %c256 : i32
  %groups = arith.divsi %npm, %c4 : i32
  %tiles = arith.muli %groups, %npn : i32
  scf.for %t = %cluster to %tiles step %clusters : i32 {
    %gm, %pn = tile.grouped_ids %t, %groups, %npn group 4
    %gm4 = arith.muli %gm, %c4 : i32
    %pm = arith.addi %gm4, %rank : i32
    %m0 = arith.muli %pm, %c128 : i32
    %n0 = arith.muli %pn, %c256 : i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %zero) -> (tensor<128x256xf32>) : i32 {
      %at = tile.descriptor_load %a[%m0, %k] : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
      %bt = tile.descriptor_load %b[%k, %n0] : !tile.tensordesc<tensor<64x256xbf16>> -> tensor<64x256xbf16>
      %next = tile.dot %at, %bt, %acc_i : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
      scf.yield %next : tensor<128x256xf32>
    }
    %cs = tile.splat %c : !tile.ptr<bf16> -> tensor<128x256x!tile.ptr<bf16>>
    %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
    tile.store %cs, %out : tensor<128x256x!tile.ptr<bf16>>
  }
  return
}

// -----

// Each program walking tiles pid, pid + programs, ... (the loop's start
// differs across the cluster, so its trip count may too): nothing is
// multicast, the slots are each program's own.
// CHECK-LABEL: func.func @per_program_loop
// CHECK-NOT: multicast
// CHECK-NOT: cluster
// CHECK: tilegpu.mbarrier_init %{{.*}} {count = 8 : i32}
// CHECK-NOT: multicast
// CHECK-NOT: cluster
// CHECK: return
func.func @per_program_loop(%a: !tile.tensordesc<tensor<128x64xbf16>>,
                            %b: !tile.tensordesc<tensor<64x256xbf16>>,
                            %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                            %T: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.num_ctas = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id 0
  %nprog = tile.num_programs 0
  scf.for %t = %pid to %T step %nprog : i32 {
    %m0 = arith.muli %t, %c128 : i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %zero) -> (tensor<128x256xf32>) : i32 {
      %at = tile.descriptor_load %a[%m0, %k] : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
      %bt = tile.descriptor_load %b[%k, %c0] : !tile.tensordesc<tensor<64x256xbf16>> -> tensor<64x256xbf16>
      %next = tile.dot %at, %bt, %acc_i : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
      scf.yield %next : tensor<128x256xf32>
    }
    %cs = tile.splat %c : !tile.ptr<bf16> -> tensor<128x256x!tile.ptr<bf16>>
    %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
    tile.store %cs, %out : tensor<128x256x!tile.ptr<bf16>>
  }
  return
}

// -----

// B's column from tile.grouped_ids of the program id itself (two programs
// of a cluster may get different columns), and a B block of one box (no
// box for the second program): neither is multicast.
// CHECK-LABEL: func.func @not_shared
// CHECK-NOT: multicast
// CHECK-NOT: cluster
// CHECK: return
func.func @not_shared(%a: !tile.tensordesc<tensor<128x64xbf16>>,
                      %b: !tile.tensordesc<tensor<64x256xbf16>>,
                      %b2: !tile.tensordesc<tensor<64x64xbf16>>,
                      %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %npm: i32, %npn: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.num_ctas = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pid = tile.program_id 0
  %pm, %pn = tile.grouped_ids %pid, %npm, %npn group 8
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %zero2 = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc:2 = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %zero, %acc2_i = %zero2) -> (tensor<128x256xf32>, tensor<128x64xf32>) : i32 {
    %at = tile.descriptor_load %a[%m0, %k] : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
    %bt = tile.descriptor_load %b[%k, %n0] : !tile.tensordesc<tensor<64x256xbf16>> -> tensor<64x256xbf16>
    %b2t = tile.descriptor_load %b2[%k, %c0] : !tile.tensordesc<tensor<64x64xbf16>> -> tensor<64x64xbf16>
    %next = tile.dot %at, %bt, %acc_i : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
    %next2 = tile.dot %at, %b2t, %acc2_i : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    scf.yield %next, %next2 : tensor<128x256xf32>, tensor<128x64xf32>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<128x256x!tile.ptr<f32>>
  tile.store %cs, %acc#0 : tensor<128x256x!tile.ptr<f32>>
  %cs2 = tile.splat %c : !tile.ptr<f32> -> tensor<128x64x!tile.ptr<f32>>
  tile.store %cs2, %acc#1 : tensor<128x64x!tile.ptr<f32>>
  return
}

// -----

// No descriptor loads at all: the clusters share nothing (warned above).
// CHECK-LABEL: func.func @no_ring
// CHECK-NOT: cluster_barrier
func.func @no_ring(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_ctas = 2 : i32} {
  %pid = tile.program_id 0
  %v = tile.load %x : !tile.ptr<f32>
  tile.store %x, %v : !tile.ptr<f32>
  return
}
