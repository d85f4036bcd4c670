// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s
// RUN: tile-opt %s --canonicalize | FileCheck %s --check-prefix=EXPAND

// tile.each, the shorthand for an arith op with a splat scalar operand: it
// prints back as written and expands into the splat and the arith op, the
// scalar on the side the types put it.

// CHECK-LABEL: func.func @each
// EXPAND-LABEL: func.func @each
// EXPAND-SAME: (%[[X:.*]]: tensor<128xf32>, %[[S:.*]]: f32, %[[I:.*]]: tensor<128xi32>, %[[N:.*]]: i32)
func.func @each(%x: tensor<128xf32>, %s: f32, %i: tensor<128xi32>, %n: i32)
    -> (tensor<128xf32>, tensor<128xf32>, tensor<128xi1>, tensor<128xi32>, tensor<128xi1>) {
  // CHECK: tile.each subf %arg0, %arg1 : tensor<128xf32>, f32
  // EXPAND: %[[SS:.*]] = tile.splat %[[S]] : f32 -> tensor<128xf32>
  // EXPAND: %[[D:.*]] = arith.subf %[[X]], %[[SS]] : tensor<128xf32>
  %d = tile.each subf %x, %s : tensor<128xf32>, f32
  // The scalar on the left: s / x.
  // CHECK: tile.each divf %arg1, %arg0 : f32, tensor<128xf32>
  // EXPAND: %[[Q:.*]] = arith.divf %{{.*}}, %[[X]] : tensor<128xf32>
  %q = tile.each divf %s, %x : f32, tensor<128xf32>
  // CHECK: tile.each cmpi slt, %arg2, %arg3 : tensor<128xi32>, i32
  // EXPAND: %[[NS:.*]] = tile.splat %[[N]] : i32 -> tensor<128xi32>
  // EXPAND: %[[M:.*]] = arith.cmpi slt, %[[I]], %[[NS]] : tensor<128xi32>
  %m = tile.each cmpi slt, %i, %n : tensor<128xi32>, i32
  // CHECK: tile.each muli %arg2, %arg3 : tensor<128xi32>, i32
  // EXPAND: %[[P:.*]] = arith.muli %[[I]], %{{.*}} : tensor<128xi32>
  %p = tile.each muli %i, %n : tensor<128xi32>, i32
  // CHECK: tile.each cmpf oge, %arg1, %arg0 : f32, tensor<128xf32>
  // EXPAND: %[[F:.*]] = arith.cmpf oge, %{{.*}}, %[[X]] : tensor<128xf32>
  %f = tile.each cmpf oge, %s, %x : f32, tensor<128xf32>
  // EXPAND: return %[[D]], %[[Q]], %[[M]], %[[P]], %[[F]]
  // EXPAND-NOT: tile.each
  return %d, %q, %m, %p, %f : tensor<128xf32>, tensor<128xf32>, tensor<128xi1>, tensor<128xi32>, tensor<128xi1>
}

// Every kind prints back by its arith name, on 2-D tiles too.
// CHECK-LABEL: func.func @kinds
// EXPAND-LABEL: func.func @kinds
func.func @kinds(%i: tensor<4x8xi32>, %n: i32, %x: tensor<4x8xf16>, %s: f16)
    -> (tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xi1>, tensor<4x8xi1>) {
  // CHECK: tile.each addi
  // EXPAND: arith.addi {{.*}} : tensor<4x8xi32>
  %0 = tile.each addi %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each subi
  %1 = tile.each subi %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each divsi
  %2 = tile.each divsi %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each divui
  %3 = tile.each divui %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each remsi
  // EXPAND: arith.remsi {{.*}} : tensor<4x8xi32>
  %4 = tile.each remsi %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each remui
  %5 = tile.each remui %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each andi
  %6 = tile.each andi %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each ori
  %7 = tile.each ori %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each xori
  %8 = tile.each xori %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each maxsi
  // EXPAND: arith.maxsi {{.*}} : tensor<4x8xi32>
  %9 = tile.each maxsi %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each minsi
  %10 = tile.each minsi %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each maxui
  %11 = tile.each maxui %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each minui
  %12 = tile.each minui %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each shli
  %13 = tile.each shli %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each shrsi
  %14 = tile.each shrsi %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each shrui
  // EXPAND: arith.shrui {{.*}} : tensor<4x8xi32>
  %15 = tile.each shrui %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each addf
  // EXPAND: arith.addf {{.*}} : tensor<4x8xf16>
  %16 = tile.each addf %x, %s : tensor<4x8xf16>, f16
  // CHECK: tile.each mulf
  %17 = tile.each mulf %x, %s : tensor<4x8xf16>, f16
  // CHECK: tile.each remf
  %18 = tile.each remf %x, %s : tensor<4x8xf16>, f16
  // CHECK: tile.each maxnumf
  // EXPAND: arith.maxnumf {{.*}} : tensor<4x8xf16>
  %19 = tile.each maxnumf %x, %s : tensor<4x8xf16>, f16
  // CHECK: tile.each minnumf
  %20 = tile.each minnumf %x, %s : tensor<4x8xf16>, f16
  // CHECK: tile.each maximumf
  %21 = tile.each maximumf %x, %s : tensor<4x8xf16>, f16
  // CHECK: tile.each minimumf
  // EXPAND: arith.minimumf {{.*}} : tensor<4x8xf16>
  %22 = tile.each minimumf %x, %s : tensor<4x8xf16>, f16
  // CHECK: tile.each cmpi uge, %{{.*}}, %{{.*}} : tensor<4x8xi32>, i32
  // EXPAND: arith.cmpi uge, {{.*}} : tensor<4x8xi32>
  %23 = tile.each cmpi uge, %i, %n : tensor<4x8xi32>, i32
  // CHECK: tile.each cmpf une, %{{.*}}, %{{.*}} : tensor<4x8xf16>, f16
  %24 = tile.each cmpf une, %x, %s : tensor<4x8xf16>, f16
  // EXPAND-NOT: tile.each
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24
      : tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xi1>, tensor<4x8xi1>
}
