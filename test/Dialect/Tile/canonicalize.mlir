// RUN: tile-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @splat_constant
// CHECK: %[[C:.*]] = arith.constant dense<2.500000e+00> : tensor<8xf32>
// CHECK-NOT: tile.splat
// CHECK: return %[[C]]
func.func @splat_constant() -> tensor<8xf32> {
  %c = arith.constant 2.5 : f32
  %s = tile.splat %c : f32 -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_chain
// CHECK-SAME: (%[[X:.*]]: tensor<1x1xf32>)
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[X]] : tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_chain(%x: tensor<1x1xf32>) -> tensor<4x8xf32> {
  %a = tile.broadcast %x : tensor<1x1xf32> -> tensor<1x8xf32>
  %b = tile.broadcast %a : tensor<1x8xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @broadcast_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %b = tile.broadcast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// A splat moves through every shape op.
// CHECK-LABEL: func.func @splat_through_shape_ops
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK-DAG: %[[B:.*]] = tile.splat %[[X]] : i32 -> tensor<4x8xi32>
// CHECK-DAG: %[[E:.*]] = tile.splat %[[X]] : i32 -> tensor<8x1xi32>
// CHECK-DAG: %[[R:.*]] = tile.splat %[[X]] : i32 -> tensor<32xi32>
// CHECK-DAG: %[[T:.*]] = tile.splat %[[X]] : i32 -> tensor<8x4xi32>
// CHECK-NOT: tile.broadcast
// CHECK-NOT: tile.expand_dims
// CHECK-NOT: tile.reshape
// CHECK-NOT: tile.trans
// CHECK: return %[[B]], %[[E]], %[[R]], %[[T]]
func.func @splat_through_shape_ops(%x: i32)
    -> (tensor<4x8xi32>, tensor<8x1xi32>, tensor<32xi32>, tensor<8x4xi32>) {
  %s = tile.splat %x : i32 -> tensor<1x8xi32>
  %b = tile.broadcast %s : tensor<1x8xi32> -> tensor<4x8xi32>
  %v = tile.splat %x : i32 -> tensor<8xi32>
  %e = tile.expand_dims %v, 1 : tensor<8xi32> -> tensor<8x1xi32>
  %r = tile.reshape %b : tensor<4x8xi32> -> tensor<32xi32>
  %t = tile.trans %b, [1, 0] : tensor<4x8xi32> -> tensor<8x4xi32>
  return %b, %e, %r, %t : tensor<4x8xi32>, tensor<8x1xi32>, tensor<32xi32>, tensor<8x4xi32>
}

// -----

// CHECK-LABEL: func.func @addptr_zero
// CHECK-SAME: (%[[P:.*]]: tensor<8x!tile.ptr<f32>>, %[[Q:.*]]: !tile.ptr<f32>)
// CHECK-NOT: tile.addptr
// CHECK: return %[[P]], %[[Q]]
func.func @addptr_zero(%p: tensor<8x!tile.ptr<f32>>, %q: !tile.ptr<f32>)
    -> (tensor<8x!tile.ptr<f32>>, !tile.ptr<f32>) {
  %z = arith.constant dense<0> : tensor<8xi32>
  %a = tile.addptr %p, %z : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %c0 = arith.constant 0 : i64
  %b = tile.addptr %q, %c0 : !tile.ptr<f32>, i64
  return %a, %b : tensor<8x!tile.ptr<f32>>, !tile.ptr<f32>
}

// -----

// CHECK-LABEL: func.func @addptr_nonzero
// CHECK: tile.addptr
func.func @addptr_nonzero(%q: !tile.ptr<f32>) -> !tile.ptr<f32> {
  %c1 = arith.constant 1 : i32
  %b = tile.addptr %q, %c1 : !tile.ptr<f32>, i32
  return %b : !tile.ptr<f32>
}

// -----

// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<32xf32>)
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[X]] : tensor<32xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain(%x: tensor<32xf32>) -> tensor<2x16xf32> {
  %a = tile.expand_dims %x, 0 : tensor<32xf32> -> tensor<1x32xf32>
  %b = tile.reshape %a : tensor<1x32xf32> -> tensor<4x8xf32>
  %c = tile.reshape %b : tensor<4x8xf32> -> tensor<2x16xf32>
  return %c : tensor<2x16xf32>
}

// -----

// CHECK-LABEL: func.func @expand_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[X]] : tensor<4x8xf32> -> tensor<32x1xf32>
// CHECK-NEXT: return %[[R]]
func.func @expand_of_reshape(%x: tensor<4x8xf32>) -> tensor<32x1xf32> {
  %a = tile.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %b = tile.expand_dims %a, 1 : tensor<32xf32> -> tensor<32x1xf32>
  return %b : tensor<32x1xf32>
}

// -----

// CHECK-LABEL: func.func @trans_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = tile.trans %[[X]], [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @trans_chain(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %a = tile.trans %x, [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %b = tile.trans %a, [1, 2, 0] : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %b : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @trans_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @trans_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tile.trans %x, [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %b = tile.trans %a, [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_constant
// CHECK: %[[C:.*]] = arith.constant dense<1> : tensor<4x8xi32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_constant() -> tensor<4x8xi32> {
  %c = arith.constant dense<1> : tensor<1x8xi32>
  %b = tile.broadcast %c : tensor<1x8xi32> -> tensor<4x8xi32>
  return %b : tensor<4x8xi32>
}

// -----

// CHECK-LABEL: func.func @convert_identity
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @convert_identity(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = tile.convert_layout %x : tensor<8xf32> -> tensor<8xf32>
  return %a : tensor<8xf32>
}
