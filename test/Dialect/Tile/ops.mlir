// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// CHECK-LABEL: func.func @ids
func.func @ids() -> (i32, i32) {
  // CHECK: tile.program_id 0
  %0 = tile.program_id 0
  // CHECK: tile.num_programs 2
  %1 = tile.num_programs 2
  return %0, %1 : i32, i32
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: f32, %t: tensor<4x32xf32>) -> tensor<32x4xf32> {
  // CHECK: tile.range 3, 10 : tensor<7xi32>
  %r = tile.range 3, 10 : tensor<7xi32>
  // CHECK: tile.splat %{{.*}} : f32 -> tensor<1x32xf32>
  %s = tile.splat %x : f32 -> tensor<1x32xf32>
  // CHECK: tile.broadcast %{{.*}} : tensor<1x32xf32> -> tensor<4x32xf32>
  %b = tile.broadcast %s : tensor<1x32xf32> -> tensor<4x32xf32>
  // CHECK: tile.expand_dims %{{.*}}, 0 : tensor<7xi32> -> tensor<1x7xi32>
  %e = tile.expand_dims %r, 0 : tensor<7xi32> -> tensor<1x7xi32>
  // CHECK: tile.reshape %{{.*}} : tensor<4x32xf32> -> tensor<128xf32>
  %f = tile.reshape %b : tensor<4x32xf32> -> tensor<128xf32>
  // CHECK: tile.trans %{{.*}}, [1, 0] : tensor<4x32xf32> -> tensor<32x4xf32>
  %t2 = tile.trans %t, [1, 0] : tensor<4x32xf32> -> tensor<32x4xf32>
  // CHECK: tile.join %{{.*}}, %{{.*}} : tensor<4x32xf32> -> tensor<4x32x2xf32>
  %j = tile.join %t, %b : tensor<4x32xf32> -> tensor<4x32x2xf32>
  // CHECK: tile.split %{{.*}} : tensor<4x32x2xf32> -> tensor<4x32xf32>
  %l, %h = tile.split %j : tensor<4x32x2xf32> -> tensor<4x32xf32>
  // CHECK: tile.convert_layout %{{.*}} : tensor<4x32xf32> -> tensor<4x32xf32>
  %c = tile.convert_layout %l : tensor<4x32xf32> -> tensor<4x32xf32>
  return %t2 : tensor<32x4xf32>
}

// CHECK-LABEL: func.func @memory
func.func @memory(%p: !tile.ptr<f32>, %offs: tensor<64xi32>, %m: tensor<64xi1>,
                  %v: tensor<64xf32>, %i: !tile.ptr<i32>, %k: i32) {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %q = tile.addptr %ps, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : !tile.ptr<i32>, i32
  %i2 = tile.addptr %i, %k : !tile.ptr<i32>, i32
  // CHECK: tile.load %{{.*}} : tensor<64x!tile.ptr<f32>>
  %a = tile.load %q : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} cache = cg : tensor<64x!tile.ptr<f32>>
  %b = tile.load %q, %m, %v cache = cg : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.load %{{.*}} evict = evict_last : tensor<64x!tile.ptr<f32>>
  %b2 = tile.load %q evict = evict_last : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.load %{{.*}} volatile : tensor<64x!tile.ptr<f32>>
  %b3 = tile.load %q volatile : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.load %{{.*}} : !tile.ptr<i32>
  %s = tile.load %i : !tile.ptr<i32>
  // CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} cache = wt : tensor<64x!tile.ptr<f32>>
  tile.store %q, %a, %m cache = wt : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.store %{{.*}}, %{{.*}} evict = evict_first : !tile.ptr<i32>
  tile.store %i, %s evict = evict_first : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw fadd %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
  %o1 = tile.atomic_rmw fadd %q, %b, %m : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.atomic_rmw max %{{.*}}, %{{.*}} sem = relaxed scope = cta : !tile.ptr<i32>
  %o2 = tile.atomic_rmw max %i, %k sem = relaxed scope = cta : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw xchg %{{.*}}, %{{.*}} sem = acquire scope = sys : !tile.ptr<i32>
  %o3 = tile.atomic_rmw xchg %i, %k sem = acquire scope = sys : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw add
  %o4 = tile.atomic_rmw add %i, %k : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw min
  %o5 = tile.atomic_rmw min %i, %k : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw umax
  %o6 = tile.atomic_rmw umax %i, %k : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw umin
  %o7 = tile.atomic_rmw umin %i, %k : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw and
  %o8 = tile.atomic_rmw and %i, %k : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw or
  %o9 = tile.atomic_rmw or %i, %k : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw xor
  %o10 = tile.atomic_rmw xor %i, %k sem = release : !tile.ptr<i32>
  // CHECK: tile.atomic_cas %{{.*}}, %{{.*}}, %{{.*}} : !tile.ptr<i32>
  %o11 = tile.atomic_cas %i, %k, %k : !tile.ptr<i32>
  // CHECK: tile.bitcast %{{.*}} : !tile.ptr<f32> -> !tile.ptr<i32>
  %c = tile.bitcast %p : !tile.ptr<f32> -> !tile.ptr<i32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<8x16xf32>, %i: tensor<8x16xi32>)
    -> (tensor<8xf32>, tensor<8xi32>, f32, tensor<8x16xf32>) {
  // CHECK: tile.reduce(%{{.*}}, %{{.*}}) axis = 1 : (tensor<8x16xf32>, tensor<8x16xi32>) -> (tensor<8xf32>, tensor<8xi32>)
  %v, %idx = tile.reduce(%x, %i) axis = 1 : (tensor<8x16xf32>, tensor<8x16xi32>) -> (tensor<8xf32>, tensor<8xi32>) {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %b, %a : f32
    %m = arith.select %gt, %b, %a : f32
    %mi = arith.select %gt, %bi, %ai : i32
    // CHECK: tile.yield %{{.*}}, %{{.*}} : f32, i32
    tile.yield %m, %mi : f32, i32
  }
  %flat = tile.reshape %x : tensor<8x16xf32> -> tensor<128xf32>
  // CHECK: tile.reduce add(%{{.*}}) axis = 0 : (tensor<128xf32>) -> f32
  %s = tile.reduce(%flat) axis = 0 : (tensor<128xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tile.yield %c : f32
  }
  // CHECK: tile.scan add(%{{.*}}) axis = 1 reverse : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %c = tile.scan(%x) axis = 1 reverse : (tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%a: f32, %b: f32):
    %d = arith.addf %a, %b : f32
    tile.yield %d : f32
  }
  return %v, %idx, %s, %c : tensor<8xf32>, tensor<8xi32>, f32, tensor<8x16xf32>
}

// CHECK-LABEL: func.func @dots
func.func @dots(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>,
                %c: tensor<64x16xf32>, %c16: tensor<64x16xf16>,
                %a32: tensor<64x32xf32>, %b32: tensor<32x16xf32>,
                %a8: tensor<64x32xi8>, %b8: tensor<32x16xi8>,
                %c8: tensor<64x16xi32>) {
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf32>
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf32>
  // CHECK: tile.dot {{.*}} -> tensor<64x16xf16>
  %1 = tile.dot %a, %b, %c16 : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} {precision = #tile.precision<ieee>}
  %2 = tile.dot %a32, %b32, %c {precision = #tile.precision<ieee>} : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  // CHECK: tile.dot {{.*}} -> tensor<64x16xi32>
  %3 = tile.dot %a8, %b8, %c8 : tensor<64x32xi8>, tensor<32x16xi8> -> tensor<64x16xi32>
  return
}

// CHECK-LABEL: func.func @casts
func.func @casts(%x: tensor<16xf32>) -> tensor<16xf32> {
  // fp8 types parse and cast through arith.
  // CHECK: arith.truncf %{{.*}} : tensor<16xf32> to tensor<16xf8E4M3FN>
  %a = arith.truncf %x : tensor<16xf32> to tensor<16xf8E4M3FN>
  // CHECK: arith.truncf %{{.*}} : tensor<16xf32> to tensor<16xf8E5M2>
  %b = arith.truncf %x : tensor<16xf32> to tensor<16xf8E5M2>
  %c = arith.extf %a : tensor<16xf8E4M3FN> to tensor<16xf32>
  %d = arith.truncf %x : tensor<16xf32> to tensor<16xbf16>
  %e = arith.fptosi %x : tensor<16xf32> to tensor<16xi8>
  return %c : tensor<16xf32>
}

// CHECK-LABEL: func.func @debug
func.func @debug(%x: tensor<16xf32>, %n: i32, %m: tensor<16xi1>) {
  // CHECK: tile.print "x = " %{{.*}}, %{{.*}} : tensor<16xf32>, i32
  tile.print "x = " %x, %n : tensor<16xf32>, i32
  // CHECK: tile.print "bits" hex %{{.*}} : tensor<16xf32>
  tile.print "bits" hex %x : tensor<16xf32>
  // CHECK: tile.print "here"
  tile.print "here"
  // CHECK: tile.assert %{{.*}}, "in bounds" : tensor<16xi1>
  tile.assert %m, "in bounds" : tensor<16xi1>
  return
}

// CHECK-LABEL: func.func @kernel
// CHECK-SAME: tile.divisibility = 16 : i32
// CHECK-SAME: attributes {tile.kernel, tile.num_warps = 8 : i32}
func.func @kernel(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %n: i64,
                  %f: f16, %g: bf16, %h: f32, %b: i1)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  // CHECK: call @helper
  %r = func.call @helper(%n) : (i64) -> i64
  return
}
func.func private @helper(%n: i64) -> i64 {
  return %n : i64
}
