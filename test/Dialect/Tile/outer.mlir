// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s
// RUN: tile-opt %s --canonicalize | FileCheck %s --check-prefix=EXPAND

// tile.outer, the shorthand for lhs[:, None] kind rhs[None, :]: it prints
// back as written and expands into expand_dims, broadcast and the arith op.

// CHECK-LABEL: func.func @outer
// EXPAND-LABEL: func.func @outer
func.func @outer(%r: tensor<128xi32>, %c: tensor<64xi32>, %rm: tensor<128xi1>,
                 %cm: tensor<64xi1>, %f: tensor<4xf32>, %g: tensor<8xf32>)
    -> (tensor<128x64xi32>, tensor<128x64xi1>, tensor<4x8xf32>) {
  // CHECK: %[[O:.*]] = tile.outer add %{{.*}}, %{{.*}} : tensor<128xi32>, tensor<64xi32>
  // EXPAND: %[[L:.*]] = tile.expand_dims %arg0, 1 : tensor<128xi32> -> tensor<128x1xi32>
  // EXPAND: %[[LB:.*]] = tile.broadcast %[[L]] : tensor<128x1xi32> -> tensor<128x64xi32>
  // EXPAND: %[[R:.*]] = tile.expand_dims %arg1, 0 : tensor<64xi32> -> tensor<1x64xi32>
  // EXPAND: %[[RB:.*]] = tile.broadcast %[[R]] : tensor<1x64xi32> -> tensor<128x64xi32>
  // EXPAND: arith.addi %[[LB]], %[[RB]] : tensor<128x64xi32>
  %o = tile.outer add %r, %c : tensor<128xi32>, tensor<64xi32>
  // CHECK: tile.outer and %{{.*}}, %{{.*}} : tensor<128xi1>, tensor<64xi1>
  // EXPAND: arith.andi {{.*}} : tensor<128x64xi1>
  %m = tile.outer and %rm, %cm : tensor<128xi1>, tensor<64xi1>
  // CHECK: tile.outer mul %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<8xf32>
  // EXPAND: arith.mulf {{.*}} : tensor<4x8xf32>
  %p = tile.outer mul %f, %g : tensor<4xf32>, tensor<8xf32>
  // EXPAND-NOT: tile.outer
  return %o, %m, %p : tensor<128x64xi32>, tensor<128x64xi1>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @kinds
func.func @kinds(%r: tensor<16xi32>, %c: tensor<32xi32>) {
  // CHECK: tile.outer sub
  %0 = tile.outer sub %r, %c : tensor<16xi32>, tensor<32xi32>
  // CHECK: tile.outer or
  %1 = tile.outer or %r, %c : tensor<16xi32>, tensor<32xi32>
  // CHECK: tile.outer xor
  %2 = tile.outer xor %r, %c : tensor<16xi32>, tensor<32xi32>
  return
}
