// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=SLOTS
// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu=cross-warp-shuffle=1 --canonicalize --cse | FileCheck %s --check-prefix=SHFL

#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// A 1-D sum over 4 warps: each thread adds its 8 elements, lanes combine
// with butterflies (offsets 1..16), lane 0 of each warp writes its partial
// to a 4-byte slot (no barrier before: nothing used shared memory yet), one
// barrier, then every thread adds the 4 adjacent partials in warp order.
// CHECK-LABEL: gpu.func @sum
// CHECK-SAME: tile.shared_bytes = 16 : i64
// CHECK-COUNT-7: arith.addf
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c1_i32, %c31_i32 : f32 -> f32
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c2_i32, %c31_i32
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c4_i32, %c31_i32
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c8_i32, %c31_i32
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c16_i32, %c31_i32
// CHECK-NOT: nvvm.barrier0
// CHECK: scf.if
// CHECK: %[[WOFF:.*]] = arith.muli %{{.*}}, %c4_i32 : i32
// CHECK: llvm.getelementptr %{{.*}}[%[[WOFF]]]
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[P0:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[A1:.*]] = llvm.getelementptr %{{.*}}[4]
// CHECK: %[[P1:.*]] = llvm.load %[[A1]] : !llvm.ptr<3> -> f32
// CHECK: arith.addf %[[P0]], %[[P1]]
// CHECK: llvm.getelementptr %{{.*}}[8]
// CHECK: llvm.getelementptr %{{.*}}[12]
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: gpu.return
// With cross-warp-shuffle, each thread reads the partial of warp
// (tid mod 4) and two more butterflies (offsets 1, 2) give every thread
// the total.
// SHFL-LABEL: gpu.func @sum
// SHFL-COUNT-5: nvvm.shfl.sync
// SHFL: nvvm.barrier0
// SHFL: %[[MINE:.*]] = arith.andi %{{.*}}, %c3_i32 : i32
// SHFL: %[[ROFF:.*]] = arith.muli %[[MINE]], %c4_i32 : i32
// SHFL: %[[RADDR:.*]] = llvm.getelementptr %{{.*}}[%[[ROFF]]]
// SHFL: %[[PART:.*]] = llvm.load %[[RADDR]] : !llvm.ptr<3> -> f32
// SHFL: %[[S1:.*]] = nvvm.shfl.sync bfly %c-1_i32, %[[PART]], %c1_i32, %c31_i32
// SHFL: %[[T1:.*]] = arith.addf %[[PART]], %[[S1]]
// SHFL: %[[S2:.*]] = nvvm.shfl.sync bfly %c-1_i32, %[[T1]], %c2_i32, %c31_i32
// SHFL: arith.addf %[[T1]], %[[S2]]
// SHFL-NOT: llvm.load
// SHFL-NOT: nvvm.barrier0
// SHFL: gpu.return
func.func @sum(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 1024 : tensor<1024xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  %v = tile.load %p : tensor<1024x!tile.ptr<f32>, #b>
  %s = tile.reduce(%v) axis = 0 : (tensor<1024xf32, #b>) -> f32 {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    tile.yield %t : f32
  }
  tile.store %y, %s : !tile.ptr<f32>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>

// Two sums in a row (layernorm's mean and variance): the second writes the
// other 32-byte region (offset 32), which nobody has read, so it needs no
// barrier before its writes (a third would reuse region 0 only after every
// thread, done reading it, passed the second's barrier). The first needs
// none either (nothing used shared memory before). One barrier each.
// CHECK-LABEL: gpu.func @two_sums
// CHECK-SAME: tile.shared_bytes = 64 : i64
// CHECK-COUNT-2: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: gpu.return
// The second reduction's slots start at byte 32.
// SLOTS-LABEL: gpu.func @two_sums
// SLOTS: llvm.store
// SLOTS: nvvm.barrier0
// SLOTS: %[[OFF:.*]] = arith.addi %{{.*}}, %c32_i32 : i32
// SLOTS: llvm.getelementptr %{{.*}}[%[[OFF]]]
// SLOTS: llvm.store
// SLOTS: nvvm.barrier0
func.func @two_sums(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %r = tile.range 0, 1024 : tensor<1024xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  %v = tile.load %p : tensor<1024x!tile.ptr<f32>, #b>
  %s = tile.reduce(%v) axis = 0 : (tensor<1024xf32, #b>) -> f32 {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    tile.yield %t : f32
  }
  %ss = tile.splat %s : f32 -> tensor<1024xf32, #b>
  %d = arith.subf %v, %ss : tensor<1024xf32, #b>
  %d2 = arith.mulf %d, %d : tensor<1024xf32, #b>
  %q = tile.reduce(%d2) axis = 0 : (tensor<1024xf32, #b>) -> f32 {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    tile.yield %t : f32
  }
  tile.store %y, %q : !tile.ptr<f32>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// A reduction in a loop: the previous iteration's readers may still be
// reading its slots, so the barrier before the writes stays (two per
// iteration).
// CHECK-LABEL: gpu.func @in_loop
// CHECK: scf.for
// CHECK: nvvm.barrier0
// CHECK: scf.if
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: llvm.load
// CHECK: scf.yield
func.func @in_loop(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %r = tile.range 0, 512 : tensor<512xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (f32) : i32 {
    %v = tile.load %p : tensor<512x!tile.ptr<f32>, #b>
    %s = tile.reduce(%v) axis = 0 : (tensor<512xf32, #b>) -> f32 {
    ^bb0(%l: f32, %m: f32):
      %t = arith.addf %l, %m : f32
      tile.yield %t : f32
    }
    %b = arith.addf %a, %s : f32
    scf.yield %b : f32
  }
  tile.store %y, %acc : !tile.ptr<f32>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #tilegpu.slice<{dim = 1, parent = #b}>

// Rows live in single warps: shuffles only, no shared memory, no barrier.
// CHECK-LABEL: gpu.func @rows
// CHECK-SAME: tile.shared_bytes = 0 : i64
// CHECK-NOT: nvvm.barrier0
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.barrier0
// CHECK: gpu.return
func.func @rows(%v: f32, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %t = tile.splat %v : f32 -> tensor<4x128xf32, #b>
  %m = tile.reduce(%t) axis = 1 : (tensor<4x128xf32, #b>) -> tensor<4xf32, #s> {
  ^bb0(%a: f32, %c: f32):
    %x = arith.maxnumf %a, %c : f32
    tile.yield %x : f32
  }
  %r = tile.range 0, 4 : tensor<4xi32, #s>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>, #s>
  %yp = tile.addptr %ys, %r : tensor<4x!tile.ptr<f32>, #s>, tensor<4xi32, #s>
  tile.store %yp, %m : tensor<4x!tile.ptr<f32>, #s>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// 16 elements over 32 lanes: lanes 16-31 hold copies, so the butterflies
// stop at offset 8 (nothing is counted twice). An argmax reduces a value
// and an index together; i32 and f32 both shuffle.
// CHECK-LABEL: gpu.func @argmax
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c1_i32, %c31_i32 : f32 -> f32
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c1_i32, %c31_i32 : i32 -> i32
// CHECK: arith.cmpf ogt
// CHECK: nvvm.shfl.sync bfly {{.*}} %c8_i32, %c31_i32 : i32 -> i32
// CHECK-NOT: nvvm.shfl.sync
// CHECK: gpu.return
func.func @argmax(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 16 : tensor<16xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<16x!tile.ptr<f32>, #b>, tensor<16xi32, #b>
  %v = tile.load %p : tensor<16x!tile.ptr<f32>, #b>
  %m, %i = tile.reduce(%v, %r) axis = 0 : (tensor<16xf32, #b>, tensor<16xi32, #b>) -> (f32, i32) {
  ^bb0(%a: f32, %ai: i32, %c: f32, %ci: i32):
    %gt = arith.cmpf ogt, %c, %a : f32
    %mv = arith.select %gt, %c, %a : f32
    %mi = arith.select %gt, %ci, %ai : i32
    tile.yield %mv, %mi : f32, i32
  }
  tile.store %y, %i : !tile.ptr<i32>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>

// An inclusive scan of 256 elements: log2(256) = 8 steps through shared
// memory, a barrier after each (double buffered).
// CHECK-LABEL: gpu.func @cumsum
// CHECK-SAME: tile.shared_bytes = 4096 : i64
// CHECK-COUNT-10: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: gpu.return
func.func @cumsum(%x: !tile.ptr<i32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %r = tile.range 0, 256 : tensor<256xi32, #b>
  %xs = tile.splat %x : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>, #b>
  %p = tile.addptr %xs, %r : tensor<256x!tile.ptr<i32>, #b>, tensor<256xi32, #b>
  %v = tile.load %p : tensor<256x!tile.ptr<i32>, #b>
  %c = tile.scan(%v) axis = 0 : (tensor<256xi32, #b>) -> tensor<256xi32, #b> {
  ^bb0(%a: i32, %d: i32):
    %s = arith.addi %a, %d : i32
    tile.yield %s : i32
  }
  tile.store %p, %c : tensor<256x!tile.ptr<i32>, #b>
  return
}
