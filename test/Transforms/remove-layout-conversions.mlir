// RUN: tile-opt %s --split-input-file --tile-remove-layout-conversions --canonicalize | FileCheck %s

#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#sa = #tilegpu.slice<{dim = 1, parent = #a}>

// Row offsets (range * 64) are recomputed in the second layout instead of
// going through shared memory; the first-layout copy is then dead.
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [1, 8]
// CHECK-NEXT: #[[$S:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$B]]}>
// CHECK-LABEL: func.func @index_math
// CHECK-NOT: tile.convert_layout
// CHECK: tile.range 0, 64 : tensor<64xi32, #[[$S]]>
// CHECK: tile.expand_dims {{.*}} -> tensor<64x1xi32, #[[$B]]>
// CHECK: arith.muli {{.*}} : tensor<64x1xi32, #[[$B]]>
// CHECK: tile.broadcast {{.*}} : tensor<64x1xi32, #[[$B]]> -> tensor<64x32xi32, #[[$B]]>
func.func @index_math() -> tensor<64x32xi32, #b> {
  %r = tile.range 0, 64 : tensor<64xi32, #sa>
  %r1 = tile.expand_dims %r, 1 : tensor<64xi32, #sa> -> tensor<64x1xi32, #a>
  %k = arith.constant dense<64> : tensor<64x1xi32, #a>
  %ro = arith.muli %r1, %k : tensor<64x1xi32, #a>
  %c = tile.convert_layout %ro : tensor<64x1xi32, #a> -> tensor<64x1xi32, #b>
  %rb = tile.broadcast %c : tensor<64x1xi32, #b> -> tensor<64x32xi32, #b>
  return %rb : tensor<64x32xi32, #b>
}

// -----

#a = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// Loaded data cannot be recomputed: the conversion stays. A chain of two
// conversions becomes one; a conversion back to the source layout vanishes.
// CHECK-LABEL: func.func @loaded
// CHECK: %[[V:.*]] = tile.load
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[V]]
// CHECK-NEXT: return %[[C]], %[[V]]
func.func @loaded(%p: tensor<512x!tile.ptr<f32>, #a>)
    -> (tensor<512xf32, #b>, tensor<512xf32, #a>) {
  %v = tile.load %p : tensor<512x!tile.ptr<f32>, #a>
  %c = tile.convert_layout %v : tensor<512xf32, #a> -> tensor<512xf32, #b>
  %d = tile.convert_layout %c : tensor<512xf32, #b> -> tensor<512xf32, #a>
  %e = tile.convert_layout %d : tensor<512xf32, #a> -> tensor<512xf32, #b>
  return %e, %d : tensor<512xf32, #b>, tensor<512xf32, #a>
}

// -----

#blk = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
#sb = #tilegpu.slice<{dim = 1, parent = #blk}>
#sm = #tilegpu.slice<{dim = 0, parent = #mma}>

// A matmul epilogue's bias row (128 elements, cast to f32) is loaded again
// in the accumulator's slice, with its addresses and mask recomputed there,
// instead of going through shared memory; the first load is then dead.
// CHECK: #[[$MMA:.*]] = #tilegpu.mma
// CHECK: #[[$SM:.*]] = #tilegpu.slice<{dim = 0, parent = #[[$MMA]]}>
// CHECK-LABEL: func.func @bias_row
// CHECK-NOT: tile.convert_layout
// CHECK: tile.range 0, 128 : tensor<128xi32, #[[$SM]]>
// CHECK: arith.cmpi slt, {{.*}} : tensor<128xi32, #[[$SM]]>
// CHECK: tile.load {{.*}} : tensor<128x!tile.ptr<bf16>, #[[$SM]]>
// CHECK-NOT: tile.load
// CHECK: arith.extf {{.*}} : tensor<128xbf16, #[[$SM]]> to tensor<128xf32, #[[$SM]]>
// CHECK-NOT: tile.convert_layout
func.func @bias_row(%bias: !tile.ptr<bf16>, %n: i32, %acc: tensor<128x128xf32, #mma>) -> tensor<128x128xf32, #mma> {
  %r = tile.range 0, 128 : tensor<128xi32, #sb>
  %ps = tile.splat %bias : !tile.ptr<bf16> -> tensor<128x!tile.ptr<bf16>, #sb>
  %p = tile.addptr %ps, %r : tensor<128x!tile.ptr<bf16>, #sb>, tensor<128xi32, #sb>
  %ns = tile.splat %n : i32 -> tensor<128xi32, #sb>
  %m = arith.cmpi slt, %r, %ns : tensor<128xi32, #sb>
  %zero = arith.constant dense<0.0> : tensor<128xbf16, #sb>
  %v = tile.load %p, %m, %zero : tensor<128x!tile.ptr<bf16>, #sb>
  %f = arith.extf %v : tensor<128xbf16, #sb> to tensor<128xf32, #sb>
  %c = tile.convert_layout %f : tensor<128xf32, #sb> -> tensor<128xf32, #sm>
  %e = tile.expand_dims %c, 0 : tensor<128xf32, #sm> -> tensor<1x128xf32, #mma>
  %b = tile.broadcast %e : tensor<1x128xf32, #mma> -> tensor<128x128xf32, #mma>
  %s = arith.addf %acc, %b : tensor<128x128xf32, #mma>
  return %s : tensor<128x128xf32, #mma>
}

// -----

#a = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// A volatile load is never issued twice, however small (its pointers could
// be recomputed): the conversion stays.
// CHECK-LABEL: func.func @volatile_small
// CHECK: tile.load
// CHECK-NOT: tile.load
// CHECK: tile.convert_layout
func.func @volatile_small(%x: !tile.ptr<f32>) -> tensor<128xf32, #b> {
  %r = tile.range 0, 128 : tensor<128xi32, #a>
  %ps = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #a>
  %p = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>, #a>, tensor<128xi32, #a>
  %v = tile.load %p volatile : tensor<128x!tile.ptr<f32>, #a>
  %c = tile.convert_layout %v : tensor<128xf32, #a> -> tensor<128xf32, #b>
  return %c : tensor<128xf32, #b>
}
