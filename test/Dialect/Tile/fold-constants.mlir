// RUN: tile-opt %s --canonicalize | FileCheck %s

// Folds that give attributes need the dialect's constant materializer.

// CHECK-LABEL: func.func @splat_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<7> : tensor<4xi32>
// CHECK-NEXT: return %[[C]]
func.func @splat_of_constant() -> tensor<4xi32> {
  %c = arith.constant 7 : i32
  %s = tile.splat %c : i32 -> tensor<4xi32>
  return %s : tensor<4xi32>
}

// CHECK-LABEL: func.func @broadcast_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<1.500000e+00> : tensor<8x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_of_constant() -> tensor<8x4xf32> {
  %c = arith.constant dense<1.5> : tensor<1x4xf32>
  %b = tile.broadcast %c : tensor<1x4xf32> -> tensor<8x4xf32>
  return %b : tensor<8x4xf32>
}
