// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu="max-kernel-ops=100" --verify-diagnostics

// The per-thread code budget (tilec --max-kernel-ops): LLVM's code
// generation time grows faster than the code, so a kernel over the budget
// is a located error. An estimate (an element per thread of each tile an
// op computes) refuses it before the conversion ...

#wide = #tilegpu.blocked<{sizePerThread = [64], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// expected-error @below {{kernel 'wide' would have at least 256 operations in its per-thread code, over the budget of 100 (tilec --max-kernel-ops=N raises it): its tiles are too large for its threads; use smaller tiles or more warps}}
func.func @wide(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-note @below {{64 of them for this 'tile.range'}}
  %r = tile.range 0, 2048 : tensor<2048xi32, #wide>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<2048x!tile.ptr<f32>, #wide>
  %p = tile.addptr %xs, %r : tensor<2048x!tile.ptr<f32>, #wide>, tensor<2048xi32, #wide>
  %v = tile.load %p : tensor<2048x!tile.ptr<f32>, #wide>
  tile.store %p, %v : tensor<2048x!tile.ptr<f32>, #wide>
  return
}

// -----

// ... and the count after it, where an op makes more than its elements (a
// reduction's shuffles and shared memory), names the source of the most.

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// expected-error @below {{kernel 'sum' has 127 operations in its per-thread code, over the budget of 100}}
func.func @sum(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 128 : tensor<128xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
  %v = tile.load %p : tensor<128x!tile.ptr<f32>, #b>
  // expected-note @below {{92 of them come from here}}
  %s = tile.reduce(%v) axis = 0 : (tensor<128xf32, #b>) -> f32 {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    tile.yield %t : f32
  }
  tile.store %y, %s : !tile.ptr<f32>
  return
}

// -----

// A dot on the FMA path costs a multiply-add per accumulator element and
// step of K: 16 x 16 on one warp is 8 elements a thread, times K = 32.

#c = #tilegpu.blocked<{sizePerThread = [2, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#a = #tilegpu.blocked<{sizePerThread = [2, 32], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [32, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>

// expected-error @below {{kernel 'fma' would have at least 256 operations in its per-thread code}}
func.func @fma(%s: f32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %a = tile.splat %s : f32 -> tensor<16x32xf32, #a>
  %b = tile.splat %s : f32 -> tensor<32x16xf32, #b>
  %z = arith.constant dense<0.0> : tensor<16x16xf32, #c>
  // expected-note @below {{256 of them for this 'tile.dot'}}
  %d = tile.dot %a, %b, %z : tensor<16x32xf32, #a>, tensor<32x16xf32, #b> -> tensor<16x16xf32, #c>
  return
}
