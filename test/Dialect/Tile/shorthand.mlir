// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s
// RUN: tile-opt %s --canonicalize | FileCheck %s --check-prefix=EXPAND

// The text shorthands (docs/dialect.md): a named combiner instead of the
// region, a pointer tile from a scalar base, a range offset by a scalar.
// They parse to the same ops and print back the same way; the general forms
// still parse, and a region that is exactly a named combiner prints as the
// name.

// CHECK-LABEL: func.func @named
func.func @named(%x: tensor<8x16xf32>, %n: tensor<256xi32>, %b: tensor<64xi1>) {
  // CHECK: tile.reduce add(%{{.*}}) axis = 1 : (tensor<8x16xf32>) -> tensor<8xf32>
  %0 = tile.reduce add(%x) axis = 1 : (tensor<8x16xf32>) -> tensor<8xf32>
  // CHECK: tile.reduce mul(%{{.*}}) axis = 0 : (tensor<8x16xf32>) -> tensor<16xf32>
  %1 = tile.reduce mul(%x) axis = 0 : (tensor<8x16xf32>) -> tensor<16xf32>
  // CHECK: tile.reduce max(%{{.*}}) axis = 1
  %2 = tile.reduce max(%x) axis = 1 : (tensor<8x16xf32>) -> tensor<8xf32>
  // CHECK: tile.reduce min(%{{.*}}) axis = 1
  %3 = tile.reduce min(%x) axis = 1 : (tensor<8x16xf32>) -> tensor<8xf32>
  // CHECK: tile.reduce max(%{{.*}}) axis = 0 : (tensor<256xi32>) -> i32
  %4 = tile.reduce max(%n) axis = 0 : (tensor<256xi32>) -> i32
  // CHECK: tile.reduce umax(%{{.*}}) axis = 0
  %5 = tile.reduce umax(%n) axis = 0 : (tensor<256xi32>) -> i32
  // CHECK: tile.reduce umin(%{{.*}}) axis = 0
  %6 = tile.reduce umin(%n) axis = 0 : (tensor<256xi32>) -> i32
  // CHECK: tile.reduce and(%{{.*}}) axis = 0 : (tensor<64xi1>) -> i1
  %7 = tile.reduce and(%b) axis = 0 : (tensor<64xi1>) -> i1
  // CHECK: tile.reduce or(%{{.*}}) axis = 0
  %8 = tile.reduce or(%n) axis = 0 : (tensor<256xi32>) -> i32
  // CHECK: tile.reduce xor(%{{.*}}) axis = 0
  %9 = tile.reduce xor(%n) axis = 0 : (tensor<256xi32>) -> i32
  // CHECK: tile.scan add(%{{.*}}) axis = 0 : (tensor<256xi32>) -> tensor<256xi32>
  %10 = tile.scan add(%n) axis = 0 : (tensor<256xi32>) -> tensor<256xi32>
  // CHECK: tile.scan max(%{{.*}}) axis = 1 reverse : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %11 = tile.scan max(%x) axis = 1 reverse : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return
}

// CHECK-LABEL: func.func @argmax
func.func @argmax(%x: tensor<8x16xf32>, %i: tensor<8x16xi32>, %k: tensor<128xi64>, %j: tensor<128xi32>) {
  // CHECK: tile.reduce argmax(%{{.*}}, %{{.*}}) axis = 1 : (tensor<8x16xf32>, tensor<8x16xi32>) -> (tensor<8xf32>, tensor<8xi32>)
  %v, %idx = tile.reduce argmax(%x, %i) axis = 1 : (tensor<8x16xf32>, tensor<8x16xi32>) -> (tensor<8xf32>, tensor<8xi32>)
  // CHECK: tile.reduce argmin(%{{.*}}, %{{.*}}) axis = 0 : (tensor<128xi64>, tensor<128xi32>) -> (i64, i32)
  %w, %jdx = tile.reduce argmin(%k, %j) axis = 0 : (tensor<128xi64>, tensor<128xi32>) -> (i64, i32)
  return
}

// The general form: a region that is a named combiner prints as the name,
// any other region as a region.
// CHECK-LABEL: func.func @general
func.func @general(%x: tensor<128xf32>) {
  // CHECK: tile.reduce add(%{{.*}}) axis = 0 : (tensor<128xf32>) -> f32
  %0 = tile.reduce(%x) axis = 0 : (tensor<128xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  // Operands swapped: not the named combiner's region.
  // CHECK: tile.reduce(%{{.*}}) axis = 0 : (tensor<128xf32>) -> f32 {
  // CHECK: arith.addf %{{.*}}, %{{.*}} : f32
  %1 = tile.reduce(%x) axis = 0 : (tensor<128xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %b, %a : f32
    tile.yield %s : f32
  }
  // CHECK: tile.reduce(%{{.*}}) axis = 0 : (tensor<128xf32>) -> f32 {
  // CHECK: arith.maximumf
  %2 = tile.reduce(%x) axis = 0 : (tensor<128xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %s = arith.maximumf %a, %b : f32
    tile.yield %s : f32
  }
  // Fast-math flags are part of the op: a region, not `add`.
  // CHECK: tile.reduce(%{{.*}}) axis = 0 : (tensor<128xf32>) -> f32 {
  // CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<fast> : f32
  %3 = tile.reduce(%x) axis = 0 : (tensor<128xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b fastmath<fast> : f32
    tile.yield %s : f32
  }
  return
}

// A pointer tile from a scalar base and offsets; a range offset by a scalar.
// CHECK-LABEL: func.func @pointers
// EXPAND-LABEL: func.func @pointers
func.func @pointers(%x: !tile.ptr<f32>, %start: i32) -> tensor<128x!tile.ptr<f32>> {
  // CHECK: %[[OFFS:.*]] = tile.range 0, 128 offset %{{.*}} : tensor<128xi32>
  // EXPAND: %[[R:.*]] = tile.range 0, 128 : tensor<128xi32>
  // EXPAND: %[[S:.*]] = tile.splat %{{.*}} : i32 -> tensor<128xi32>
  // EXPAND: %[[OFFS:.*]] = arith.addi %[[S]], %[[R]] : tensor<128xi32>
  %offs = tile.range 0, 128 offset %start : tensor<128xi32>
  // CHECK: tile.addptr %{{.*}}, %[[OFFS]] : !tile.ptr<f32>, tensor<128xi32>
  // EXPAND: %[[B:.*]] = tile.splat %{{.*}} : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  // EXPAND: tile.addptr %[[B]], %[[OFFS]] : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %p = tile.addptr %x, %offs : !tile.ptr<f32>, tensor<128xi32>
  return %p : tensor<128x!tile.ptr<f32>>
}

// A pointer tile advanced by one scalar offset: the offset is splatted.
// CHECK-LABEL: func.func @step
// EXPAND-LABEL: func.func @step
// EXPAND-SAME: (%[[P:.*]]: tensor<16x64x!tile.ptr<bf16>>, %[[K:.*]]: i32)
func.func @step(%p: tensor<16x64x!tile.ptr<bf16>>, %k: i32) -> tensor<16x64x!tile.ptr<bf16>> {
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : tensor<16x64x!tile.ptr<bf16>>, i32
  // EXPAND: %[[KS:.*]] = tile.splat %[[K]] : i32 -> tensor<16x64xi32>
  // EXPAND: tile.addptr %[[P]], %[[KS]] : tensor<16x64x!tile.ptr<bf16>>, tensor<16x64xi32>
  %q = tile.addptr %p, %k : tensor<16x64x!tile.ptr<bf16>>, i32
  return %q : tensor<16x64x!tile.ptr<bf16>>
}

// The b-th block of a range's length: b * 128 + [0, 128).
// CHECK-LABEL: func.func @block
// EXPAND-LABEL: func.func @block
// EXPAND-SAME: (%[[B:.*]]: i32)
func.func @block(%b: i32) -> tensor<128xi32> {
  // CHECK: tile.range 0, 128 block %{{.*}} : tensor<128xi32>
  // EXPAND: %[[L:.*]] = arith.constant 128 : i32
  // EXPAND: %[[S:.*]] = arith.muli %[[B]], %[[L]] : i32
  // EXPAND: %[[R:.*]] = tile.range 0, 128 : tensor<128xi32>
  // EXPAND: %[[SS:.*]] = tile.splat %[[S]] : i32 -> tensor<128xi32>
  // EXPAND: arith.addi %[[SS]], %[[R]] : tensor<128xi32>
  %r = tile.range 0, 128 block %b : tensor<128xi32>
  return %r : tensor<128xi32>
}

// The block's length is end - start, not end.
// CHECK-LABEL: func.func @block_start
// EXPAND-LABEL: func.func @block_start
func.func @block_start(%b: i32) -> tensor<32xi32> {
  // CHECK: tile.range 32, 64 block %{{.*}} : tensor<32xi32>
  // EXPAND: arith.constant 32 : i32
  // EXPAND: tile.range 32, 64 : tensor<32xi32>
  %r = tile.range 32, 64 block %b : tensor<32xi32>
  return %r : tensor<32xi32>
}

// expand_dims to a dimension larger than 1 repeats the source along it:
// the unit expand_dims and a broadcast.
// CHECK-LABEL: func.func @repeat
// EXPAND-LABEL: func.func @repeat
// EXPAND-SAME: (%[[L:.*]]: tensor<128xf32>, %[[B:.*]]: tensor<64xf32>)
func.func @repeat(%l: tensor<128xf32>, %b: tensor<64xf32>) -> (tensor<128x64xf32>, tensor<32x64xf32>, tensor<128x1xf32>) {
  // CHECK: tile.expand_dims %{{.*}}, 1 : tensor<128xf32> -> tensor<128x64xf32>
  // EXPAND: %[[E:.*]] = tile.expand_dims %[[L]], 1 : tensor<128xf32> -> tensor<128x1xf32>
  // EXPAND: %[[R:.*]] = tile.broadcast %[[E]] : tensor<128x1xf32> -> tensor<128x64xf32>
  %r = tile.expand_dims %l, 1 : tensor<128xf32> -> tensor<128x64xf32>
  // CHECK: tile.expand_dims %{{.*}}, 0 : tensor<64xf32> -> tensor<32x64xf32>
  // EXPAND: %[[F:.*]] = tile.expand_dims %[[B]], 0 : tensor<64xf32> -> tensor<1x64xf32>
  // EXPAND: %[[C:.*]] = tile.broadcast %[[F]] : tensor<1x64xf32> -> tensor<32x64xf32>
  %c = tile.expand_dims %b, 0 : tensor<64xf32> -> tensor<32x64xf32>
  // A unit dimension stays as it is.
  // CHECK: tile.expand_dims %{{.*}}, 1 : tensor<128xf32> -> tensor<128x1xf32>
  %u = tile.expand_dims %l, 1 : tensor<128xf32> -> tensor<128x1xf32>
  // EXPAND: return %[[R]], %[[C]], %{{.*}}
  return %r, %c, %u : tensor<128x64xf32>, tensor<32x64xf32>, tensor<128x1xf32>
}

// A repeating expand_dims under a reshape is not a reshape of its source.
// EXPAND-LABEL: func.func @repeat_reshape
func.func @repeat_reshape(%l: tensor<4xf32>) -> tensor<8xf32> {
  // EXPAND: tile.expand_dims %{{.*}}, 1 : tensor<4xf32> -> tensor<4x1xf32>
  // EXPAND: tile.broadcast %{{.*}} : tensor<4x1xf32> -> tensor<4x2xf32>
  // EXPAND: tile.reshape %{{.*}} : tensor<4x2xf32> -> tensor<8xf32>
  %r = tile.expand_dims %l, 1 : tensor<4xf32> -> tensor<4x2xf32>
  %f = tile.reshape %r : tensor<4x2xf32> -> tensor<8xf32>
  return %f : tensor<8xf32>
}
