// RUN: tile-opt %s --tile-hoist-loads | FileCheck %s

// The weight load moves above the reduction (it only needs its pointers);
// the load after the store stays after it (it may read what was stored);
// the volatile load stays where it is.
// CHECK-LABEL: func.func @hoist
// CHECK: %[[X:.*]] = tile.load %arg0
// CHECK-NEXT: %[[W:.*]] = tile.load %arg1
// CHECK-NEXT: tile.reduce
// CHECK: tile.store %arg0
// CHECK-NEXT: tile.load %arg0
// CHECK: tile.load %arg1 volatile
// CHECK-NEXT: return
func.func @hoist(%xp: tensor<64x!tile.ptr<f32>>, %wp: tensor<64x!tile.ptr<f32>>)
    -> (f32, tensor<64xf32>, tensor<64xf32>) {
  %x = tile.load %xp : tensor<64x!tile.ptr<f32>>
  %s = tile.reduce(%x) axis = 0 : (tensor<64xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tile.yield %c : f32
  }
  %w = tile.load %wp : tensor<64x!tile.ptr<f32>>
  %y = arith.addf %x, %w : tensor<64xf32>
  tile.store %xp, %y : tensor<64x!tile.ptr<f32>>
  %z = tile.load %xp : tensor<64x!tile.ptr<f32>>
  %s2 = arith.addf %s, %s : f32
  %v = tile.load %wp volatile : tensor<64x!tile.ptr<f32>>
  return %s2, %z, %v : f32, tensor<64xf32>, tensor<64xf32>
}
