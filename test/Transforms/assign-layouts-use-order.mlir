// The layout pass gives each use of a shared index tile or tile constant
// past the first its own copy. Which use is the first must not come from
// the value's use list, whose order is an accident of the IR's history:
// CSE leaves another order than the parser does for the same text, so
// the pass must print the same IR whether it runs right after CSE or on
// CSE's output parsed back.
// RUN: tile-opt %s --cse --tile-assign-layouts > %t.after-cse.mlir
// RUN: tile-opt %s --cse | tile-opt --tile-assign-layouts > %t.parsed.mlir
// RUN: diff %t.after-cse.mlir %t.parsed.mlir
// RUN: FileCheck %s < %t.parsed.mlir

// The whole pipeline, on an example and on its tile IR parsed back (the
// key mask shared by a load outside the loop and a select inside it).
// RUN: tilec %examples/matmul_bias_gelu.tile --emit=tile -o %t.mbg.mlir
// RUN: tilec %examples/matmul_bias_gelu.tile --emit=layout -o %t.mbg.a
// RUN: tilec %t.mbg.mlir --emit=layout -o %t.mbg.b
// RUN: diff %t.mbg.a %t.mbg.b

// After CSE one range feeds the three addptrs. The first in program order
// (x's) keeps it; y's and z's get copies, placed before it in that order.
// CHECK-LABEL: func.func @shared_index
// CHECK: %[[Y:.*]] = tile.range 0, 1024
// CHECK: %[[Z:.*]] = tile.range 0, 1024
// CHECK: %[[X:.*]] = tile.range 0, 1024
// CHECK: tile.addptr %{{.*}}, %[[X]]
// CHECK: tile.addptr %{{.*}}, %[[Y]]
// CHECK: tile.addptr %{{.*}}, %[[Z]]
func.func @shared_index(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %z: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r1 = tile.range 0, 1024 : tensor<1024xi32>
  %r2 = tile.range 0, 1024 : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %zs = tile.splat %z : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r1 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %yp = tile.addptr %ys, %r2 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %zp = tile.addptr %zs, %r1 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %a = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  %b = tile.load %yp : tensor<1024x!tile.ptr<f32>>
  %s = arith.addf %a, %b : tensor<1024xf32>
  tile.store %zp, %s : tensor<1024x!tile.ptr<f32>>
  return
}

// Two zero `other`s and an added zero, one constant after CSE: the first
// load keeps it, the second load and the addition get copies right after
// it, in that order.
// CHECK-LABEL: func.func @shared_constant
// CHECK: %[[C0:.*]] = arith.constant dense<0.000000e+00>
// CHECK: %[[C1:.*]] = arith.constant dense<0.000000e+00>
// CHECK: %[[C2:.*]] = arith.constant dense<0.000000e+00>
// CHECK: tile.load %{{.*}}, %{{.*}}, %[[C0]]
// CHECK: tile.load %{{.*}}, %{{.*}}, %[[C1]]
// CHECK: arith.addf %{{.*}}, %[[C2]]
func.func @shared_constant(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %z: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 256 : tensor<256xi32>
  %ns = tile.splat %n : i32 -> tensor<256xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<256xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %zs = tile.splat %z : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %yp = tile.addptr %ys, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %zp = tile.addptr %zs, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %c0 = arith.constant dense<0.0> : tensor<256xf32>
  %a = tile.load %xp, %m, %c0 : tensor<256x!tile.ptr<f32>>
  %c1 = arith.constant dense<0.0> : tensor<256xf32>
  %b = tile.load %yp, %m, %c1 : tensor<256x!tile.ptr<f32>>
  %s = arith.addf %a, %b : tensor<256xf32>
  %t = arith.addf %s, %c0 : tensor<256xf32>
  tile.store %zp, %t, %m : tensor<256x!tile.ptr<f32>>
  return
}
