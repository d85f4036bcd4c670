// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// A padded layout: 5000 f32 in 4 repetitions of 10 warps x 32 lanes x 4
// (5120 slots). Warp coordinates of 10 warps are a remainder, not a mask;
// the elements of the last repetition (offsets 3840..3843) are checked
// against the shape (base < 5000 - offset) and left out of the sum by a
// select; the 10 warp partials are read one after the other.
#p = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [10], order = [0]}>
// CHECK-LABEL: gpu.func @padded_sum
// CHECK: arith.remui %{{.*}}, %c10_i32
// CHECK-DAG: arith.cmpi ult, %{{.*}}, %c1160_i32
// CHECK-DAG: arith.cmpi ult, %{{.*}}, %c1157_i32
// CHECK: arith.select
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c16_i32, %c31_i32
// CHECK: nvvm.barrier0
// CHECK-COUNT-9: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: gpu.return
func.func @padded_sum(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 10 : i32} {
  %r = tile.range 0, 5000 : tensor<5000xi32, #p>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<5000x!tile.ptr<f32>, #p>
  %p = tile.addptr %xs, %r : tensor<5000x!tile.ptr<f32>, #p>, tensor<5000xi32, #p>
  %v = tile.load %p : tensor<5000x!tile.ptr<f32>, #p>
  %s = tile.reduce(%v) axis = 0 : (tensor<5000xf32, #p>) -> f32 {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    tile.yield %t : f32
  }
  tile.store %y, %s : !tile.ptr<f32>
  return
}

// -----

// A store of the padded tile: the last repetition's vectors are stored
// only where they are inside the shape (one predicate per 16-byte vector);
// the others unpredicated.
#p = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [10], order = [0]}>
// CHECK-LABEL: gpu.func @padded_store
// CHECK: arith.cmpi ult, %{{.*}}, %c1160_i32
// CHECK: st.global.v4.b32
// CHECK: gpu.return
func.func @padded_store(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 10 : i32} {
  %r = tile.range 0, 5000 : tensor<5000xi32, #p>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<5000x!tile.ptr<f32>, #p>
  %p = tile.addptr %xs, %r : tensor<5000x!tile.ptr<f32>, #p>, tensor<5000xi32, #p>
  %f = arith.sitofp %r : tensor<5000xi32, #p> to tensor<5000xf32, #p>
  tile.store %p, %f : tensor<5000x!tile.ptr<f32>, #p>
  return
}

// -----

// 12 warps with 2 rows per warp along dim 0 of a 96 x 128 tile: warp
// coordinates divide and take remainders by 12; 96 rows are 4 exact
// repetitions of 24, and a reduction along the rows reads 12 partials.
#b = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [12, 1], order = [1, 0]}>
// CHECK-LABEL: gpu.func @rows12
// CHECK-SAME: tile.shared_bytes = 6144 : i64
// CHECK-NOT: arith.select
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c16_i32, %c31_i32
// CHECK: nvvm.barrier0
// CHECK: gpu.return
func.func @rows12(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 12 : i32} {
  %rm = tile.range 0, 96 : tensor<96xi32, #tilegpu.slice<{dim = 1, parent = #b}>>
  %rn = tile.range 0, 128 : tensor<128xi32, #tilegpu.slice<{dim = 0, parent = #b}>>
  %mc = tile.expand_dims %rm, 1 : tensor<96xi32, #tilegpu.slice<{dim = 1, parent = #b}>> -> tensor<96x1xi32, #b>
  %nr = tile.expand_dims %rn, 0 : tensor<128xi32, #tilegpu.slice<{dim = 0, parent = #b}>> -> tensor<1x128xi32, #b>
  %c128 = arith.constant dense<128> : tensor<96x1xi32, #b>
  %row = arith.muli %mc, %c128 : tensor<96x1xi32, #b>
  %rowb = tile.broadcast %row : tensor<96x1xi32, #b> -> tensor<96x128xi32, #b>
  %nb = tile.broadcast %nr : tensor<1x128xi32, #b> -> tensor<96x128xi32, #b>
  %off = arith.addi %rowb, %nb : tensor<96x128xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<96x128x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %off : tensor<96x128x!tile.ptr<f32>, #b>, tensor<96x128xi32, #b>
  %v = tile.load %p : tensor<96x128x!tile.ptr<f32>, #b>
  %s = tile.reduce(%v) axis = 0 : (tensor<96x128xf32, #b>) -> tensor<128xf32, #tilegpu.slice<{dim = 0, parent = #b}>> {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    tile.yield %t : f32
  }
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #tilegpu.slice<{dim = 0, parent = #b}>>
  %yp = tile.addptr %ys, %rn : tensor<128x!tile.ptr<f32>, #tilegpu.slice<{dim = 0, parent = #b}>>, tensor<128xi32, #tilegpu.slice<{dim = 0, parent = #b}>>
  tile.store %yp, %s : tensor<128x!tile.ptr<f32>, #tilegpu.slice<{dim = 0, parent = #b}>>
  return
}
