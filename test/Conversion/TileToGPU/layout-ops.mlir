// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

#a = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// A layout conversion goes through shared memory: barrier, each thread
// stores its 4 elements at their indices, barrier, each loads its 4.
// CHECK: llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64}
// CHECK-LABEL: gpu.func @convert
// CHECK-SAME: tile.shared_bytes = 512 : i64
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
func.func @convert(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 128 : tensor<128xi32, #a>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #a>
  %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #a>, tensor<128xi32, #a>
  %v = tile.load %p : tensor<128x!tile.ptr<f32>, #a>
  %c = tile.convert_layout %v : tensor<128xf32, #a> -> tensor<128xf32, #b>
  %rb = tile.range 0, 128 : tensor<128xi32, #b>
  %ys = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  %q = tile.addptr %ys, %rb : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
  tile.store %q, %c : tensor<128x!tile.ptr<f32>, #b>
  return
}

// -----

#a = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#s = #tilegpu.slice<{dim = 0, parent = #a}>

// trans writes source element (i, j) at row-major position j * 4 + i of
// the 8x4 result; here lane = i * 8 + j.
// CHECK-LABEL: gpu.func @trans
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[LANE:.*]] = arith.andi %[[TID]], %c31_i32
// CHECK-DAG: %[[RS:.*]] = arith.shrui %[[LANE]], %c3_i32
// CHECK-DAG: %[[ROW:.*]] = arith.andi %[[RS]], %c3_i32
// CHECK-DAG: %[[COL:.*]] = arith.andi %[[LANE]], %c7_i32
// CHECK: %[[T:.*]] = arith.muli %[[COL]], %c4_i32
// CHECK: %[[LIN:.*]] = arith.addi %[[ROW]], %[[T]]
// CHECK: %[[OFF:.*]] = arith.muli %[[LIN]], %c4_i32
// CHECK: %[[ADDR:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]]
// CHECK: llvm.store %[[COL]], %[[ADDR]] : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load
func.func @trans(%y: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 8 : tensor<8xi32, #s>
  %r0 = tile.expand_dims %r, 0 : tensor<8xi32, #s> -> tensor<1x8xi32, #a>
  %rb = tile.broadcast %r0 : tensor<1x8xi32, #a> -> tensor<4x8xi32, #a>
  %t = tile.trans %rb, [1, 0] : tensor<4x8xi32, #a> -> tensor<8x4xi32, #b>
  %ys = tile.splat %y : !tile.ptr<i32> -> tensor<8x4x!tile.ptr<i32>, #b>
  tile.store %ys, %t : tensor<8x4x!tile.ptr<i32>, #b>
  return
}

// -----

#a = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#c = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#j = #tilegpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>

// reshape, trans, join and split: two barriers each.
// CHECK-LABEL: gpu.func @shapes
// CHECK-SAME: tile.shared_bytes = 256 : i64
// CHECK-COUNT-10: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: gpu.return
func.func @shapes(%v: i32, %y: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %ra = tile.range 0, 32 : tensor<32xi32, #c>
  %t0 = tile.reshape %ra : tensor<32xi32, #c> -> tensor<4x8xi32, #a>
  %t = tile.trans %t0, [1, 0] : tensor<4x8xi32, #a> -> tensor<8x4xi32, #b>
  %f = tile.reshape %t : tensor<8x4xi32, #b> -> tensor<32xi32, #c>
  %j = tile.join %f, %ra : tensor<32xi32, #c> -> tensor<32x2xi32, #j>
  %lo, %hi = tile.split %j : tensor<32x2xi32, #j> -> tensor<32xi32, #c>
  %s = arith.addi %lo, %hi : tensor<32xi32, #c>
  %ys = tile.splat %y : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>, #c>
  %p = tile.addptr %ys, %ra : tensor<32x!tile.ptr<i32>, #c>, tensor<32xi32, #c>
  tile.store %p, %s : tensor<32x!tile.ptr<i32>, #c>
  return
}
