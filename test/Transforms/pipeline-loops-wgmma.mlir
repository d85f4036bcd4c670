// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_90a | FileCheck %s --check-prefix=LAYOUT
// RUN: tile-opt %s --split-input-file --tile-assign-layouts | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_90a --tile-pipeline-loops=num-stages=3 --canonicalize | FileCheck %s

// On sm_90a the f16 dot with an f32 accumulator gets the warpgroup (wgmma)
// accumulator: all 4 warps along M, one instruction of N = 64. Its operand
// loads are staged by cp.async in the descriptors' swizzled layout (A:
// 16 f16 of K = 32-byte rows, 32-byte swizzle; B: 64 f16 of N = 128
// bytes), the wait before the copies fences them for the async proxy, and
// tilegpu.warpgroup_dot reads both slots (no local_load). Its accumulator
// is only carried to the next iteration's dot, so it keeps one wgmma
// group in flight (pending = 1): 4 slots, copies still 2 iterations ahead
// (write slot 2 first, wait for 1 pending copy group), and a
// tilegpu.warpgroup_wait after the loop before the accumulator is used.
// LAYOUT: #[[$V3:mma[0-9]*]] = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
// LAYOUT-LABEL: func.func @loop
// LAYOUT: tile.dot {{.*}} -> tensor<64x64xf32, #[[$V3]]>
// SM90: #[[$V2:mma[0-9]*]] = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// SM90-LABEL: func.func @loop
// SM90: tile.dot {{.*}} -> tensor<64x64xf32, #[[$V2]]>
// CHECK-DAG: #[[$NA:nvmma[0-9]*]] = #tilegpu.nvmma_shared<{swizzle = 32, order = [1, 0]}>
// CHECK-DAG: #[[$NB:nvmma[0-9]*]] = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
// CHECK-LABEL: func.func @loop
// CHECK: %[[A:.*]] = tilegpu.local_alloc : !tilegpu.smem<4x64x16xf16, #[[$NA]]>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : !tilegpu.smem<4x16x64xf16, #[[$NB]]>
// CHECK-COUNT-2: tilegpu.async_commit
// CHECK-NOT: tilegpu.async_commit
// CHECK: %[[LOOP:.*]]:5 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[RD:.*]] = %c0_i32, %[[WR:.*]] = %c2_i32)
// CHECK-NEXT: tilegpu.async_wait {fence_async, pending = 1 : i32}
// CHECK: tilegpu.async_copy {{.*}} into %[[A]][%[[WR]]]
// CHECK: tilegpu.async_copy {{.*}} into %[[B]][%[[WR]]]
// CHECK-NEXT: tilegpu.async_commit
// CHECK-NOT: tilegpu.local_load
// CHECK: arith.cmpi eq, %{{.*}}, %c4_i32
// CHECK: %[[D:.*]] = tilegpu.warpgroup_dot %[[A]][%[[RD]]], %[[B]][%[[RD]]], %[[ACC]] {pending = 1 : i32} : !tilegpu.smem<4x64x16xf16, #[[$NA]]>, !tilegpu.smem<4x16x64xf16, #[[$NB]]> -> tensor<64x64xf32, #mma>
// CHECK-NOT: tile.dot
// CHECK: scf.yield %[[D]],
// CHECK-NEXT: }
// CHECK-NEXT: %[[DONE:.*]] = tilegpu.warpgroup_wait %[[LOOP]]#0 {pending = 0 : i32} : tensor<64x64xf32, #mma>
// CHECK-NEXT: tilegpu.async_wait {pending = 0 : i32}
// CHECK: tile.convert_layout %[[DONE]]
func.func @loop(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %r = tile.range 0, 16 : tensor<16xi32>
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k16 = arith.constant dense<16> : tensor<64x1xi32>
  %ro = arith.muli %rows, %k16 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x16xi32>
  %ks = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %ksb = tile.broadcast %ks : tensor<1x16xi32> -> tensor<64x16xi32>
  %aoff = arith.addi %rob, %ksb : tensor<64x16xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x16x!tile.ptr<f16>>
  %ap0 = tile.addptr %as, %aoff : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
  %kr = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %k64 = arith.constant dense<64> : tensor<16x1xi32>
  %kro = arith.muli %kr, %k64 : tensor<16x1xi32>
  %krob = tile.broadcast %kro : tensor<16x1xi32> -> tensor<16x64xi32>
  %cols = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %boff = arith.addi %krob, %colsb : tensor<16x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %bp0 = tile.addptr %bs, %boff : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %astep = arith.constant dense<16> : tensor<64x16xi32>
  %bstep = arith.constant dense<1024> : tensor<16x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %ae, %be = scf.for %k = %c0 to %K step %c16
      iter_args(%acc_i = %zero, %ap = %ap0, %bp = %bp0)
      -> (tensor<64x64xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x64x!tile.ptr<f16>>) : i32 {
    %at = tile.load %ap : tensor<64x16x!tile.ptr<f16>>
    %bt = tile.load %bp : tensor<16x64x!tile.ptr<f16>>
    %d = tile.dot %at, %bt, %acc_i : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
    %apn = tile.addptr %ap, %astep : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
    %bpn = tile.addptr %bp, %bstep : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
    scf.yield %d, %apn, %bpn : tensor<64x64xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x64x!tile.ptr<f16>>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// An f16 accumulator, and an M that leaves warps idle (64 rows on 8 warps),
// stay on mma.sync; so do operands that cannot both be staged for wgmma
// (B's `other` is not zero): A then goes through ldmatrix too.
// LAYOUT-DAG: #[[$F16:mma[0-9]*]] = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [4, 2], instrShape = [16, 8]}>
// LAYOUT-DAG: #[[$W:mma[0-9]*]] = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
// LAYOUT-LABEL: func.func @fallbacks
// LAYOUT: tile.dot {{.*}} -> tensor<64x64xf16, #[[$F16]]>
// LAYOUT: tile.dot {{.*}} -> tensor<128x64xf32, #[[$W]]>
// LAYOUT: tile.dot {{.*}} -> tensor<64x64xf32, #[[$F16]]>
// CHECK-LABEL: func.func @fallbacks
// CHECK: tilegpu.local_alloc : !tilegpu.smem<3x128x16xf16, #shared
// CHECK: scf.for
// CHECK-NEXT: tilegpu.async_wait {pending = 1 : i32}
// CHECK: tilegpu.local_load
// CHECK: tile.dot
// CHECK-NOT: tilegpu.warpgroup_dot
func.func @fallbacks(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %q: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                     %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %pa = tile.splat %p : !tile.ptr<f16> -> tensor<64x16x!tile.ptr<f16>>
  %pb = tile.splat %p : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %pc = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %r16 = tile.range 0, 16 : tensor<16xi32>
  %r16e = tile.expand_dims %r16, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %r16b = tile.broadcast %r16e : tensor<1x16xi32> -> tensor<128x16xi32>
  %pa2s = tile.splat %p : !tile.ptr<f16> -> tensor<128x16x!tile.ptr<f16>>
  %pa2 = tile.addptr %pa2s, %r16b : tensor<128x16x!tile.ptr<f16>>, tensor<128x16xi32>
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %r64e = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %r64b = tile.broadcast %r64e : tensor<1x64xi32> -> tensor<16x64xi32>
  %pbs = tile.splat %p : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %pb2 = tile.addptr %pbs, %r64b : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %a = tile.load %pa : tensor<64x16x!tile.ptr<f16>>
  %b = tile.load %pb : tensor<16x64x!tile.ptr<f16>>
  %c16 = tile.load %pc : tensor<64x64x!tile.ptr<f16>>
  %d16 = tile.dot %a, %b, %c16 : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf16>
  tile.store %pc, %d16 : tensor<64x64x!tile.ptr<f16>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %one = arith.constant dense<1.0> : tensor<16x64xf16>
  %bm = arith.constant dense<true> : tensor<16x64xi1>
  %acc = scf.for %k = %c0 to %K step %c1 iter_args(%acc_i = %zero) -> (tensor<128x64xf32>) : i32 {
    %at = tile.load %pa2 : tensor<128x16x!tile.ptr<f16>>
    %bt = tile.load %pb2, %bm, %one : tensor<16x64x!tile.ptr<f16>>
    %d = tile.dot %at, %bt, %acc_i : tensor<128x16xf16>, tensor<16x64xf16> -> tensor<128x64xf32>
    scf.yield %d : tensor<128x64xf32>
  }
  %qo = tile.splat %q : !tile.ptr<f32> -> tensor<128x64x!tile.ptr<f32>>
  tile.store %qo, %acc : tensor<128x64x!tile.ptr<f32>>
  %z64 = arith.constant dense<0.0> : tensor<64x64xf32>
  %d3 = tile.dot %a, %b, %z64 : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  %qo3 = tile.splat %q : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %qo3, %d3 : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// The accumulator is also read in the loop (a store): its registers must
// be final in every iteration, so the dot waits for its own group
// (pending = 0) and 3 slots suffice.
// CHECK-LABEL: func.func @acc_used
// CHECK: tilegpu.local_alloc : !tilegpu.smem<3x64x16xf16
// CHECK: scf.for
// CHECK: tilegpu.warpgroup_dot
// CHECK-NOT: pending
// CHECK-SAME: -> tensor<64x64xf32, #mma>
// CHECK-NOT: tilegpu.warpgroup_wait
// CHECK: tilegpu.async_wait {pending = 0 : i32}
func.func @acc_used(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %r = tile.range 0, 16 : tensor<16xi32>
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k16 = arith.constant dense<16> : tensor<64x1xi32>
  %ro = arith.muli %rows, %k16 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x16xi32>
  %ks = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %ksb = tile.broadcast %ks : tensor<1x16xi32> -> tensor<64x16xi32>
  %aoff = arith.addi %rob, %ksb : tensor<64x16xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x16x!tile.ptr<f16>>
  %ap0 = tile.addptr %as, %aoff : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
  %kr = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %k64 = arith.constant dense<64> : tensor<16x1xi32>
  %kro = arith.muli %kr, %k64 : tensor<16x1xi32>
  %krob = tile.broadcast %kro : tensor<16x1xi32> -> tensor<16x64xi32>
  %cols = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %boff = arith.addi %krob, %colsb : tensor<16x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %bp0 = tile.addptr %bs, %boff : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %astep = arith.constant dense<16> : tensor<64x16xi32>
  %bstep = arith.constant dense<1024> : tensor<16x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %ae, %be = scf.for %k = %c0 to %K step %c16
      iter_args(%acc_i = %zero, %ap = %ap0, %bp = %bp0)
      -> (tensor<64x64xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x64x!tile.ptr<f16>>) : i32 {
    %at = tile.load %ap : tensor<64x16x!tile.ptr<f16>>
    %bt = tile.load %bp : tensor<16x64x!tile.ptr<f16>>
    %d = tile.dot %at, %bt, %acc_i : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
    %cs_in = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
    tile.store %cs_in, %d : tensor<64x64x!tile.ptr<f32>>
    %apn = tile.addptr %ap, %astep : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
    %bpn = tile.addptr %bp, %bstep : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
    scf.yield %d, %apn, %bpn : tensor<64x64xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x64x!tile.ptr<f16>>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// 5 stages of a 64x64 A and a 64x256 B (40 KB a stage): S + 1 = 6 slots
// would need 240 KB, over the 227 KB of a program, so 5 slots with copies
// S - 2 = 3 iterations ahead (wait for 2 pending copy groups).
// CHECK-LABEL: func.func @big
// CHECK: tilegpu.local_alloc : !tilegpu.smem<5x64x64xf16
// CHECK: tilegpu.local_alloc : !tilegpu.smem<5x64x256xf16
// CHECK-COUNT-3: tilegpu.async_commit
// CHECK-NOT: tilegpu.async_commit
// CHECK: scf.for {{.*}} %c0_i32, %{{.*}} = %c3_i32)
// CHECK-NEXT: tilegpu.async_wait {fence_async, pending = 2 : i32}
// CHECK: arith.cmpi eq, %{{.*}}, %c5_i32
// CHECK: tilegpu.warpgroup_dot {{.*}} {pending = 1 : i32} : {{.*}} -> tensor<64x256xf32, #mma{{[0-9]*}}>
// CHECK: tilegpu.warpgroup_wait
func.func @big(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
               %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
               %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
               %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.num_stages = 5 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %r256 = tile.range 0, 256 : tensor<256xi32>
  %rows = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %s64 = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rows, %s64 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %ks = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %ksb = tile.broadcast %ks : tensor<1x64xi32> -> tensor<64x64xi32>
  %aoff = arith.addi %rob, %ksb : tensor<64x64xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %ap0 = tile.addptr %as, %aoff : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %s256 = arith.constant dense<256> : tensor<64x1xi32>
  %kro = arith.muli %rows, %s256 : tensor<64x1xi32>
  %krob = tile.broadcast %kro : tensor<64x1xi32> -> tensor<64x256xi32>
  %cols = tile.expand_dims %r256, 0 : tensor<256xi32> -> tensor<1x256xi32>
  %colsb = tile.broadcast %cols : tensor<1x256xi32> -> tensor<64x256xi32>
  %boff = arith.addi %krob, %colsb : tensor<64x256xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<64x256x!tile.ptr<f16>>
  %bp0 = tile.addptr %bs, %boff : tensor<64x256x!tile.ptr<f16>>, tensor<64x256xi32>
  %astep = arith.constant dense<64> : tensor<64x64xi32>
  %bstep = arith.constant dense<16384> : tensor<64x256xi32>
  %zero = arith.constant dense<0.0> : tensor<64x256xf32>
  %acc, %ae, %be = scf.for %k = %c0 to %K step %c64
      iter_args(%acc_i = %zero, %ap = %ap0, %bp = %bp0)
      -> (tensor<64x256xf32>, tensor<64x64x!tile.ptr<f16>>, tensor<64x256x!tile.ptr<f16>>) : i32 {
    %at = tile.load %ap : tensor<64x64x!tile.ptr<f16>>
    %bt = tile.load %bp : tensor<64x256x!tile.ptr<f16>>
    %d = tile.dot %at, %bt, %acc_i : tensor<64x64xf16>, tensor<64x256xf16> -> tensor<64x256xf32>
    %apn = tile.addptr %ap, %astep : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    %bpn = tile.addptr %bp, %bstep : tensor<64x256x!tile.ptr<f16>>, tensor<64x256xi32>
    scf.yield %d, %apn, %bpn : tensor<64x256xf32>, tensor<64x64x!tile.ptr<f16>>, tensor<64x256x!tile.ptr<f16>>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x256x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<64x256x!tile.ptr<f32>>
  return
}

// -----

// A is loaded once before the loop, so it stays in registers: wgmma takes
// it from there (the dot_operand layout of the wgmma accumulator is
// mma.sync's A fragments, wgmma's register A), and only B is staged, in
// the descriptors' layout. Even though the accumulator is only carried to
// the next dot, the dot waits for its own group (pending = 0): the next
// iteration may redefine A's registers while a group is in flight.
// LAYOUT-LABEL: func.func @register_a
// LAYOUT: tile.dot {{.*}} -> tensor<64x64xf32, #mma>
// CHECK-LABEL: func.func @register_a
// CHECK: %[[AREG:.*]] = tile.convert_layout {{.*}} -> tensor<64x16xf16, #dot_op>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : !tilegpu.smem<3x16x64xf16, #nvmma
// CHECK-NOT: tilegpu.local_alloc
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %[[RD:.*]] = %c0_i32, %{{.*}} = %c2_i32)
// CHECK-NEXT: tilegpu.async_wait {fence_async, pending = 1 : i32}
// CHECK-NOT: tilegpu.local_load
// CHECK: tilegpu.warpgroup_dot %[[AREG]], %[[B]][%[[RD]]], %[[ACC]] : tensor<64x16xf16, #dot_op>, !tilegpu.smem<3x16x64xf16, #nvmma{{[0-9]*}}> -> tensor<64x64xf32, #mma>
// CHECK-NOT: tilegpu.warpgroup_wait
// CHECK: tilegpu.async_wait {pending = 0 : i32}
func.func @register_a(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                      %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                      %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %r = tile.range 0, 16 : tensor<16xi32>
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k16 = arith.constant dense<16> : tensor<64x1xi32>
  %ro = arith.muli %rows, %k16 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x16xi32>
  %ks = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %ksb = tile.broadcast %ks : tensor<1x16xi32> -> tensor<64x16xi32>
  %aoff = arith.addi %rob, %ksb : tensor<64x16xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x16x!tile.ptr<f16>>
  %ap = tile.addptr %as, %aoff : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
  %at = tile.load %ap : tensor<64x16x!tile.ptr<f16>>
  %kr = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %k64 = arith.constant dense<64> : tensor<16x1xi32>
  %kro = arith.muli %kr, %k64 : tensor<16x1xi32>
  %krob = tile.broadcast %kro : tensor<16x1xi32> -> tensor<16x64xi32>
  %cols = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %boff = arith.addi %krob, %colsb : tensor<16x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %bp0 = tile.addptr %bs, %boff : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %bstep = arith.constant dense<1024> : tensor<16x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %be = scf.for %k = %c0 to %K step %c16
      iter_args(%acc_i = %zero, %bp = %bp0)
      -> (tensor<64x64xf32>, tensor<16x64x!tile.ptr<f16>>) : i32 {
    %bt = tile.load %bp : tensor<16x64x!tile.ptr<f16>>
    %d = tile.dot %at, %bt, %acc_i : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
    %bpn = tile.addptr %bp, %bstep : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
    scf.yield %d, %bpn : tensor<64x64xf32>, tensor<16x64x!tile.ptr<f16>>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}
