// RUN: tile-opt %s --split-input-file --tile-assign-layouts | FileCheck %s

// One zero constant is the `other` of a row-major load and of a
// column-major one. A value has one layout, so the constant would tie the
// two loads into one group (one of them uncoalesced); each use gets its
// own copy, and each load the layout of its own accesses.
// CHECK-DAG: #[[$ROWS:.*]] = #tilegpu.blocked<{sizePerThread = [1, 8], {{.*}} order = [1, 0]}>
// CHECK-DAG: #[[$COLS:.*]] = #tilegpu.blocked<{sizePerThread = [8, 1], {{.*}} order = [0, 1]}>
// CHECK-LABEL: func.func @shared_other
// CHECK-DAG: %[[Z1:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xbf16, #[[$ROWS]]>
// CHECK-DAG: %[[Z2:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xbf16, #[[$COLS]]>
// CHECK-DAG: tile.load %{{.*}}, %{{.*}}, %[[Z1]] : tensor<64x64x!tile.ptr<bf16>, #[[$ROWS]]>
// CHECK-DAG: tile.load %{{.*}}, %{{.*}}, %[[Z2]] : tensor<64x64x!tile.ptr<bf16>, #[[$COLS]]>
func.func @shared_other(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                        %y: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                        %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rc = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rr = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %row = arith.muli %rc, %c64 : tensor<64x1xi32>
  %rowb = tile.broadcast %row : tensor<64x1xi32> -> tensor<64x64xi32>
  %colb = tile.broadcast %rr : tensor<1x64xi32> -> tensor<64x64xi32>
  %ncol = tile.broadcast %rc : tensor<64x1xi32> -> tensor<64x64xi32>
  %c64r = arith.constant dense<64> : tensor<1x64xi32>
  %rowt = arith.muli %rr, %c64r : tensor<1x64xi32>
  %rowtb = tile.broadcast %rowt : tensor<1x64xi32> -> tensor<64x64xi32>
  // x[i * 64 + j] (rows contiguous) and x[i + j * 64] (columns contiguous).
  %offr = arith.addi %rowb, %colb : tensor<64x64xi32>
  %offc = arith.addi %ncol, %rowtb : tensor<64x64xi32>
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<64x64x!tile.ptr<bf16>>
  %pr = tile.addptr %xs, %offr : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  %xs2 = tile.splat %x : !tile.ptr<bf16> -> tensor<64x64x!tile.ptr<bf16>>
  %pc = tile.addptr %xs2, %offc : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  %ns = tile.splat %n : i32 -> tensor<64x64xi32>
  %nsc = tile.splat %n : i32 -> tensor<64x64xi32>
  %m = arith.cmpi slt, %offr, %ns : tensor<64x64xi32>
  %mc = arith.cmpi slt, %offc, %nsc : tensor<64x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xbf16>
  %a = tile.load %pr, %m, %zero : tensor<64x64x!tile.ptr<bf16>>
  %b = tile.load %pc, %mc, %zero : tensor<64x64x!tile.ptr<bf16>>
  %ys = tile.splat %y : !tile.ptr<bf16> -> tensor<64x64x!tile.ptr<bf16>>
  %qr = tile.addptr %ys, %offr : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  %ys2 = tile.splat %y : !tile.ptr<bf16> -> tensor<64x64x!tile.ptr<bf16>>
  %qc = tile.addptr %ys2, %offc : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  tile.store %qr, %a : tensor<64x64x!tile.ptr<bf16>>
  tile.store %qc, %b : tensor<64x64x!tile.ptr<bf16>>
  return
}

// -----

// Attention's chain: P = exp2(Q K^T), cast to bf16, is the A operand of
// P V. Both dots put all 8 warps along M, so each warp's rows of the first
// accumulator are the rows of the second's A operand that it needs (the
// conversion between them is a register renaming, see
// test/Conversion/TileToGPU/layout-ops.mlir). Alone, the same 128x64 dot
// splits its warps [4, 2].
// CHECK-DAG: #[[$CHAIN:.*]] = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [8, 1], instrShape = [16, 8]}>
// CHECK-DAG: #[[$ALONE:.*]] = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [4, 2], instrShape = [16, 8]}>
// CHECK-DAG: #[[$OPA:.*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #[[$CHAIN]], kWidth = 2}>
// CHECK-LABEL: func.func @chained
// CHECK: %[[S:.*]] = tile.dot {{.*}} -> tensor<128x64xf32, #[[$CHAIN]]>
// CHECK: %[[P:.*]] = arith.truncf {{.*}} : tensor<128x64xf32, #[[$CHAIN]]> to tensor<128x64xbf16, #[[$CHAIN]]>
// CHECK: %[[PA:.*]] = tile.convert_layout %[[P]] : tensor<128x64xbf16, #[[$CHAIN]]> -> tensor<128x64xbf16, #[[$OPA]]>
// CHECK: tile.dot %[[PA]], {{.*}} -> tensor<128x64xf32, #[[$CHAIN]]>
// CHECK-LABEL: func.func @alone
// CHECK: tile.dot {{.*}} -> tensor<128x64xf32, #[[$ALONE]]>
func.func @chained(%h: bf16, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %q = tile.splat %h : bf16 -> tensor<128x64xbf16>
  %k = tile.splat %h : bf16 -> tensor<64x64xbf16>
  %v = tile.splat %h : bf16 -> tensor<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %q, %k, %zero : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  %e = math.exp2 %s : tensor<128x64xf32>
  %p = arith.truncf %e : tensor<128x64xf32> to tensor<128x64xbf16>
  %o = tile.dot %p, %v, %zero : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<128x64x!tile.ptr<f32>>
  tile.store %ys, %o : tensor<128x64x!tile.ptr<f32>>
  return
}
func.func @alone(%h: bf16, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %q = tile.splat %h : bf16 -> tensor<128x64xbf16>
  %k = tile.splat %h : bf16 -> tensor<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %q, %k, %zero : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<128x64x!tile.ptr<f32>>
  tile.store %ys, %s : tensor<128x64x!tile.ptr<f32>>
  return
}
