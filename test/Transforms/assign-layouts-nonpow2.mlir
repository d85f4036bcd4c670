// RUN: tile-opt %s --split-input-file --tile-assign-layouts | FileCheck %s

// Layouts of tiles that are not powers of two (docs/pipeline.md, "Layouts
// of any shape"): exact covers with non-power-of-two repetitions, warp
// counts and elements per thread where the factors allow, the fewest
// padded slots where they do not; without tile.num_warps the pass picks
// the warps.

// Tiles of 3 f32: fewer elements than threads and odd, so each thread holds
// all 3 (one warp: the fewest wasted slots) and lanes replicate them.
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [3], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
// CHECK-LABEL: func.func @t3
// CHECK-SAME: tile.num_warps = 1 : i32
// CHECK: tile.load {{.*}} : tensor<3x!tile.ptr<f32>, #[[$B]]>
func.func @t3(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 3 : tensor<3xi32>
  %ns = tile.splat %n : i32 -> tensor<3xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<3xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<3x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<3x!tile.ptr<f32>>, tensor<3xi32>
  %v = tile.load %p, %m : tensor<3x!tile.ptr<f32>>
  tile.store %p, %v, %m : tensor<3x!tile.ptr<f32>>
  return
}

// -----

// 12 f32: 4 distinct lanes of 3 (the odd factor stays in the thread), one
// warp.
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [3], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
// CHECK-LABEL: func.func @t12
// CHECK-SAME: tile.num_warps = 1 : i32
// CHECK: tile.load {{.*}} : tensor<12x!tile.ptr<f32>, #[[$B]]>
func.func @t12(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 12 : tensor<12xi32>
  %ns = tile.splat %n : i32 -> tensor<12xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<12xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<12x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<12x!tile.ptr<f32>>, tensor<12xi32>
  %v = tile.load %p, %m : tensor<12x!tile.ptr<f32>>
  tile.store %p, %v, %m : tensor<12x!tile.ptr<f32>>
  return
}

// -----

// 96 f32 on 4 warps (forced): one element per thread (fewer elements than
// threads), 32 lanes, 3 distinct warps; the fourth replicates the first
// uniformly (96 is a whole number of warps' 32).
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @t96
// CHECK-SAME: tile.num_warps = 4 : i32
// CHECK: tile.load {{.*}} : tensor<96x!tile.ptr<f32>, #[[$B]]>
func.func @t96(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 96 : tensor<96xi32>
  %ns = tile.splat %n : i32 -> tensor<96xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<96xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<96x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<96x!tile.ptr<f32>>, tensor<96xi32>
  %v = tile.load %p, %m : tensor<96x!tile.ptr<f32>>
  tile.store %p, %v, %m : tensor<96x!tile.ptr<f32>>
  return
}

// -----

// 3072 bf16: exact on 1, 2, 3, 4, 6, 8, 12 or 16 warps; the fewest whose
// threads hold at most 24 elements: 4 warps x 32 lanes x 8, 3 repetitions
// (three 16-byte vectors each).
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @t3072
// CHECK-SAME: tile.num_warps = 4 : i32
// CHECK: tile.load {{.*}} : tensor<3072x!tile.ptr<bf16>, #[[$B]]>
func.func @t3072(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
    %n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 3072 : tensor<3072xi32>
  %ns = tile.splat %n : i32 -> tensor<3072xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<3072xi32>
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<3072x!tile.ptr<bf16>>
  %p = tile.addptr %xs, %r : tensor<3072x!tile.ptr<bf16>>, tensor<3072xi32>
  %v = tile.load %p, %m : tensor<3072x!tile.ptr<bf16>>
  tile.store %p, %v, %m : tensor<3072x!tile.ptr<bf16>>
  return
}

// -----

// 3072 bf16 forced to 4 warps: 3 repetitions of 1024, exact.
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @t3072w4
// CHECK-SAME: tile.num_warps = 4 : i32
// CHECK: tile.load {{.*}} : tensor<3072x!tile.ptr<bf16>, #[[$B]]>
func.func @t3072w4(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
    %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 3072 : tensor<3072xi32>
  %ns = tile.splat %n : i32 -> tensor<3072xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<3072xi32>
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<3072x!tile.ptr<bf16>>
  %p = tile.addptr %xs, %r : tensor<3072x!tile.ptr<bf16>>, tensor<3072xi32>
  %v = tile.load %p, %m : tensor<3072x!tile.ptr<bf16>>
  tile.store %p, %v, %m : tensor<3072x!tile.ptr<bf16>>
  return
}

// -----

// 3072 bf16 forced to 24 warps: 4 elements each (8 would leave half the
// warps replicas), exact.
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [24], order = [0]}>
// CHECK-LABEL: func.func @t3072w24
// CHECK-SAME: tile.num_warps = 24 : i32
// CHECK: tile.load {{.*}} : tensor<3072x!tile.ptr<bf16>, #[[$B]]>
func.func @t3072w24(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
    %n: i32) attributes {tile.kernel, tile.num_warps = 24 : i32} {
  %r = tile.range 0, 3072 : tensor<3072xi32>
  %ns = tile.splat %n : i32 -> tensor<3072xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<3072xi32>
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<3072x!tile.ptr<bf16>>
  %p = tile.addptr %xs, %r : tensor<3072x!tile.ptr<bf16>>, tensor<3072xi32>
  %v = tile.load %p, %m : tensor<3072x!tile.ptr<bf16>>
  tile.store %p, %v, %m : tensor<3072x!tile.ptr<bf16>>
  return
}

// -----

// 5000 f32: no cover is exact (1250 vectors are no multiple of 32 lanes);
// 5120 slots pad the fewest (120) at the widest vector, on 5, 8 or 10
// warps; a tie that pads goes to the most warps: 10 warps x 32 x 4 x 4
// repetitions.
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [10], order = [0]}>
// CHECK-LABEL: func.func @t5000
// CHECK-SAME: tile.num_warps = 10 : i32
// CHECK: tile.load {{.*}} : tensor<5000x!tile.ptr<f32>, #[[$B]]>
func.func @t5000(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
    %n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 5000 : tensor<5000xi32>
  %ns = tile.splat %n : i32 -> tensor<5000xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<5000xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<5000x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<5000x!tile.ptr<f32>>, tensor<5000xi32>
  %v = tile.load %p, %m : tensor<5000x!tile.ptr<f32>>
  tile.store %p, %v, %m : tensor<5000x!tile.ptr<f32>>
  return
}

// -----

// 96x128 bf16: 16 lanes x 8 along a row, 2 rows per warp, 16 warps, 3
// repetitions along the rows: exact (fewer warps would give each thread
// more than 24 elements).
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [16, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @t96x128
// CHECK-SAME: tile.num_warps = 16 : i32
// CHECK: tile.load {{.*}} : tensor<96x128x!tile.ptr<bf16>, #[[$B]]>
func.func @t96x128(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
    %ld: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %rm = tile.range 0, 96 : tensor<96xi32>
  %rn = tile.range 0, 128 : tensor<128xi32>
  %mc = tile.expand_dims %rm, 1 : tensor<96xi32> -> tensor<96x1xi32>
  %nr = tile.expand_dims %rn, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %lds = tile.splat %ld : i32 -> tensor<96x1xi32>
  %row = arith.muli %mc, %lds : tensor<96x1xi32>
  %rowb = tile.broadcast %row : tensor<96x1xi32> -> tensor<96x128xi32>
  %nb = tile.broadcast %nr : tensor<1x128xi32> -> tensor<96x128xi32>
  %off = arith.addi %rowb, %nb : tensor<96x128xi32>
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<96x128x!tile.ptr<bf16>>
  %p = tile.addptr %xs, %off : tensor<96x128x!tile.ptr<bf16>>, tensor<96x128xi32>
  %v = tile.load %p : tensor<96x128x!tile.ptr<bf16>>
  tile.store %p, %v : tensor<96x128x!tile.ptr<bf16>>
  return
}

// -----

// 128x192 bf16 on 8 warps (forced): 8 lanes x 8 along a row (3
// repetitions of 64 columns), 4 rows per warp, 8 warps down: exact.
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @t128x192
// CHECK-SAME: tile.num_warps = 8 : i32
// CHECK: tile.load {{.*}} : tensor<128x192x!tile.ptr<bf16>, #[[$B]]>
func.func @t128x192(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
    %ld: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %rm = tile.range 0, 128 : tensor<128xi32>
  %rn = tile.range 0, 192 : tensor<192xi32>
  %mc = tile.expand_dims %rm, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %nr = tile.expand_dims %rn, 0 : tensor<192xi32> -> tensor<1x192xi32>
  %lds = tile.splat %ld : i32 -> tensor<128x1xi32>
  %row = arith.muli %mc, %lds : tensor<128x1xi32>
  %rowb = tile.broadcast %row : tensor<128x1xi32> -> tensor<128x192xi32>
  %nb = tile.broadcast %nr : tensor<1x192xi32> -> tensor<128x192xi32>
  %off = arith.addi %rowb, %nb : tensor<128x192xi32>
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<128x192x!tile.ptr<bf16>>
  %p = tile.addptr %xs, %off : tensor<128x192x!tile.ptr<bf16>>, tensor<128x192xi32>
  %v = tile.load %p : tensor<128x192x!tile.ptr<bf16>>
  tile.store %p, %v : tensor<128x192x!tile.ptr<bf16>>
  return
}
