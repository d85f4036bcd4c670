// RUN: tile-opt %s --tile-loop-large-tiles=max-unchunked-elements-per-thread=128 -verify-diagnostics
// RUN: tile-opt %s --tile-loop-large-tiles=max-unchunked-elements-per-thread=0 2>&1 | FileCheck %s --check-prefix=OFF

// A tile that cannot run in chunks and holds more elements per thread than
// max-unchunked-elements-per-thread is an error, not the warning (0: no
// limit; the default, 512, in loop-large-tiles.mlir's cases).
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @print(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-error @below {{tile 'tensor<8192xi32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>' holds 256 elements per thread and cannot run in chunks (its tile tensor<8192xf32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>> is used by 'tile.print', which cannot run in chunks): over the 128 a thread may hold unrolled (compile time grows quadratically with them); use a smaller tile or more warps, or raise --max-unchunked-elements}}
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %3 = tile.load %2 : tensor<8192x!tile.ptr<f32>, #blocked>
  tile.print "v = " %3 : tensor<8192xf32, #blocked>
  return
}
// OFF: warning: tile {{.*}} holds 256 elements per thread and stays unrolled
