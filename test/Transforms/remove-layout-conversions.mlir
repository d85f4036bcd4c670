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
