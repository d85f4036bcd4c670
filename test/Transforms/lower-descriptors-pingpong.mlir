// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=3" --canonicalize -verify-diagnostics | FileCheck %s

// tile.pingpong: the two consumer warpgroups take turns. Warpgroup 1 gives
// warpgroup 0 the first turn; in each step of both loops a warpgroup waits
// for its turn before its first wgmma (after K's slot has landed) and
// passes it once its last wgmma is issued and its slots released; after
// the loops warpgroup 0 takes the turn passed last.
// CHECK-LABEL: func.func @pingpong
// CHECK: } consumer {
// CHECK-NEXT: tilegpu.warpgroup_turn "start"
// CHECK: scf.for
// CHECK: tilegpu.mbarrier_wait
// CHECK-NEXT: tilegpu.warpgroup_turn "wait"
// CHECK-NEXT: tilegpu.warpgroup_dot
// CHECK: tilegpu.warpgroup_dot
// CHECK-NEXT: tilegpu.mbarrier_arrive
// CHECK-NEXT: tilegpu.warpgroup_turn "pass"
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: tilegpu.warpgroup_turn "wait"
// CHECK: tilegpu.warpgroup_turn "pass"
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tilegpu.warpgroup_turn "finish"
func.func @pingpong(%qd: !tile.tensordesc<tensor<1x128x64xbf16>>,
                     %kd: !tile.tensordesc<tensor<1x64x64xbf16>>,
                     %vd: !tile.tensordesc<tensor<1x64x64xbf16>>,
                     %o: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                     %mid: i32, %seq: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.pingpong} {
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

// Turns need a warp-specialized loop of two consumer warpgroups.
// expected-error @+1 {{'tile.pingpong' needs a warp-specialized loop with two consumer warpgroups: tile.num_warps = 8 and a loop whose wgmma dots (sm_90a) read descriptor loads (the kernel has 4 warps, no loop warp-specialized)}}
func.func @four_warps(%qd: !tile.tensordesc<tensor<1x64x64xbf16>>,
                      %kd: !tile.tensordesc<tensor<1x64x64xbf16>>,
                      %o: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %seq: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.pingpong} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %q = tile.descriptor_load %qd[%c0, %c0, %c0] : !tile.tensordesc<tensor<1x64x64xbf16>> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %n = %c0 to %seq step %c64 iter_args(%a = %z) -> (tensor<64x64xf32>) : i32 {
    %k = tile.descriptor_load %kd[%c0, %n, %c0] : !tile.tensordesc<tensor<1x64x64xbf16>> -> tensor<64x64xbf16>
    %d = tile.dot %q, %k, %a : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %os, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// expected-error @+1 {{'tile.pingpong' needs a warp-specialized loop with two consumer warpgroups: tile.num_warps = 8 and a loop whose wgmma dots (sm_90a) read descriptor loads (the kernel has 8 warps, no loop warp-specialized)}}
func.func @no_descriptors(%o: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.pingpong} {
  %z = arith.constant dense<0.0> : tensor<128xf32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  tile.store %os, %z : tensor<128x!tile.ptr<f32>>
  return
}
