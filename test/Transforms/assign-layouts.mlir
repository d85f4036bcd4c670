// RUN: tile-opt %s --split-input-file --tile-assign-layouts --verify-diagnostics | FileCheck %s

// f32, 16-byte aligned, contiguous: 4 elements (16 bytes) per thread, lanes
// then warps along the tile, two repetitions to cover 1024 elements.
// CHECK: #[[$B:.*]] = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @vec4
// CHECK: tile.range 0, 1024 : tensor<1024xi32, #[[$B]]>
// CHECK: arith.cmpi slt, {{.*}} : tensor<1024xi32, #[[$B]]>
// CHECK: tile.load {{.*}} : tensor<1024x!tile.ptr<f32>, #[[$B]]>
// CHECK: arith.addf {{.*}} : tensor<1024xf32, #[[$B]]>
// CHECK: tile.store {{.*}} : tensor<1024x!tile.ptr<f32>, #[[$B]]>
func.func @vec4(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 1024 : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %p, %m : tensor<1024x!tile.ptr<f32>>
  %w = arith.addf %v, %v : tensor<1024xf32>
  tile.store %p, %w, %m : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// bf16: 8 elements make 16 bytes. The f32 arithmetic shares the layout.
// CHECK: #[[$B:.*]] = #tile.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
// CHECK-LABEL: func.func @vec8
// CHECK: arith.extf {{.*}} : tensor<4096xbf16, #[[$B]]> to tensor<4096xf32, #[[$B]]>
func.func @vec8(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %r = tile.range 0, 4096 : tensor<4096xi32>
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<4096x!tile.ptr<bf16>>
  %p = tile.addptr %xs, %r : tensor<4096x!tile.ptr<bf16>>, tensor<4096xi32>
  %v = tile.load %p : tensor<4096x!tile.ptr<bf16>>
  %f = arith.extf %v : tensor<4096xbf16> to tensor<4096xf32>
  %g = arith.truncf %f : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %p, %g : tensor<4096x!tile.ptr<bf16>>
  return
}

// -----

// No alignment hint: one element per thread. A tile smaller than the
// program (64 elements, 128 threads) is replicated: the leftover warps
// repeat along the slowest dimension. --num-warps applies without
// tile.num_warps.
// CHECK: #[[$B:.*]] = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @unaligned
// CHECK: tile.load {{.*}} : tensor<64x!tile.ptr<f32>, #[[$B]]>
func.func @unaligned(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %p : tensor<64x!tile.ptr<f32>>
  tile.store %p, %v : tensor<64x!tile.ptr<f32>>
  return
}

// -----

// Rows: the reduction's result has the slice layout of its source; the
// row index feeds expand_dims, so it has that slice layout too.
// CHECK-DAG: #[[$B:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[$ROW:.*]] = #tile.slice<{dim = 1, parent = #[[$B]]}>
// CHECK-DAG: #[[$COL:.*]] = #tile.slice<{dim = 0, parent = #[[$B]]}>
// CHECK-LABEL: func.func @rowsum
// CHECK: tile.range 0, 8 : tensor<8xi32, #[[$ROW]]>
// CHECK: tile.range 0, 128 : tensor<128xi32, #[[$COL]]>
// CHECK: tile.expand_dims {{.*}} : tensor<8xi32, #[[$ROW]]> -> tensor<8x1xi32, #[[$B]]>
// CHECK: tile.broadcast {{.*}} : tensor<8x1xi32, #[[$B]]> -> tensor<8x128xi32, #[[$B]]>
// CHECK: tile.reduce({{.*}}) axis = 1 : (tensor<8x128xf32, #[[$B]]>) -> tensor<8xf32, #[[$ROW]]>
// CHECK: tile.store {{.*}} : tensor<8x!tile.ptr<f32>, #[[$ROW]]>
func.func @rowsum(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %y: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 8 : tensor<8xi32>
  %c = tile.range 0, 128 : tensor<128xi32>
  %r1 = tile.expand_dims %r, 1 : tensor<8xi32> -> tensor<8x1xi32>
  %c128 = arith.constant dense<128> : tensor<8x1xi32>
  %ro = arith.muli %r1, %c128 : tensor<8x1xi32>
  %rb = tile.broadcast %ro : tensor<8x1xi32> -> tensor<8x128xi32>
  %c0 = tile.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c0 : tensor<1x128xi32> -> tensor<8x128xi32>
  %off = arith.addi %rb, %cb : tensor<8x128xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x128x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %off : tensor<8x128x!tile.ptr<f32>>, tensor<8x128xi32>
  %v = tile.load %xp : tensor<8x128x!tile.ptr<f32>>
  %s = tile.reduce(%v) axis = 1 : (tensor<8x128xf32>) -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.yield %t : f32
  }
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %yp, %s : tensor<8x!tile.ptr<f32>>
  return
}

// -----

// Column-contiguous memory (the fast dimension is dim 0): order = [0, 1].
// CHECK: #[[$B:.*]] = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: func.func @colmajor
// CHECK: tile.load {{.*}} : tensor<128x4x!tile.ptr<f32>, #[[$B]]>
func.func @colmajor(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 128 : tensor<128xi32>
  %r1 = tile.expand_dims %r, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %rb = tile.broadcast %r1 : tensor<128x1xi32> -> tensor<128x4xi32>
  %c = tile.range 0, 4 : tensor<4xi32>
  %c0 = tile.expand_dims %c, 0 : tensor<4xi32> -> tensor<1x4xi32>
  %k = arith.constant dense<1024> : tensor<1x4xi32>
  %cs = arith.muli %c0, %k : tensor<1x4xi32>
  %cb = tile.broadcast %cs : tensor<1x4xi32> -> tensor<128x4xi32>
  %off = arith.addi %rb, %cb : tensor<128x4xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x4x!tile.ptr<f32>>
  %p = tile.addptr %xs, %off : tensor<128x4x!tile.ptr<f32>>, tensor<128x4xi32>
  %v = tile.load %p : tensor<128x4x!tile.ptr<f32>>
  tile.store %p, %v : tensor<128x4x!tile.ptr<f32>>
  return
}

// -----

// Loop-carried tiles share the layout of their initial and yielded values.
// CHECK: #[[$B:.*]] = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} -> (tensor<128xf32, #[[$B]]>, tensor<128x!tile.ptr<f32>, #[[$B]]>)
func.func @loop(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 128 : tensor<128xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %p0 = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %step = arith.constant dense<128> : tensor<128xi32>
  %acc, %p = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero, %q = %p0)
      -> (tensor<128xf32>, tensor<128x!tile.ptr<f32>>) : i32 {
    %v = tile.load %q : tensor<128x!tile.ptr<f32>>
    %s = arith.addf %a, %v : tensor<128xf32>
    %q2 = tile.addptr %q, %step : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    scf.yield %s, %q2 : tensor<128xf32>, tensor<128x!tile.ptr<f32>>
  }
  tile.store %p0, %acc : tensor<128x!tile.ptr<f32>>
  return
}

// -----

// An FMA dot: operands hold whole rows of A / columns of B for the
// accumulator's threads; tiles made only for the dot take those layouts.
// CHECK-DAG: #[[$C:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
// CHECK-DAG: #[[$A:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [1, 16], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
// CHECK-DAG: #[[$BB:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [16, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @dot
// CHECK: tile.dot {{.*}} : tensor<2x16xf32, #[[$A]]>, tensor<16x16xf32, #[[$BB]]> -> tensor<2x16xf32, #[[$C]]>
func.func @dot(%s: f32, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %a = tile.splat %s : f32 -> tensor<2x16xf32>
  %b = tile.splat %s : f32 -> tensor<16x16xf32>
  %zero = arith.constant dense<0.0> : tensor<2x16xf32>
  %d = tile.dot %a, %b, %zero {precision = #tile.precision<ieee>} : tensor<2x16xf32>, tensor<16x16xf32> -> tensor<2x16xf32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<2x16x!tile.ptr<f32>>
  tile.store %ys, %d : tensor<2x16x!tile.ptr<f32>>
  return
}

// -----

// Two broadcasts of one column tile into tiles of different layouts: the
// column takes the first layout and the second broadcast gets a conversion.
// CHECK-LABEL: func.func @conflict
// CHECK: %[[RO:.*]] = arith.muli {{.*}} : tensor<64x1xi32, #[[L1:.*]]>
// CHECK: tile.broadcast %[[RO]] : tensor<64x1xi32, #[[L1]]> -> tensor<64x64xi32, #[[L1]]>
// CHECK: %[[CVT:.*]] = tile.convert_layout %[[RO]] : tensor<64x1xi32, #[[L1]]> -> tensor<64x1xi32, #[[L2:.*]]>
// CHECK: tile.broadcast %[[CVT]] : tensor<64x1xi32, #[[L2]]> -> tensor<64x32xi32, #[[L2]]>
func.func @conflict(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                    %y: !tile.ptr<f16> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %r1 = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %r1, %k : tensor<64x1xi32>
  %c = tile.range 0, 64 : tensor<64xi32>
  %c0 = tile.expand_dims %c, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %c0 : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %v = tile.load %xp : tensor<64x64x!tile.ptr<f32>>
  tile.store %xp, %v : tensor<64x64x!tile.ptr<f32>>
  // f16 rows of 32: another layout for the same row offsets.
  %rb2 = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x32xi32>
  %c2 = tile.range 0, 32 : tensor<32xi32>
  %c20 = tile.expand_dims %c2, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cb2 = tile.broadcast %c20 : tensor<1x32xi32> -> tensor<64x32xi32>
  %off2 = arith.addi %rb2, %cb2 : tensor<64x32xi32>
  %ys = tile.splat %y : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %yp = tile.addptr %ys, %off2 : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %w = tile.load %yp : tensor<64x32x!tile.ptr<f16>>
  tile.store %yp, %w : tensor<64x32x!tile.ptr<f16>>
  return
}

// -----

func.func @not_pow2(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  // expected-error @below {{tile shape 'tensor<100xi32>' is not a power of two in every dimension; the GPU lowering supports power-of-two tiles only}}
  %r = tile.range 0, 100 : tensor<100xi32>
  return
}
