// RUN: tile-opt %s --split-input-file --verify-diagnostics | tile-opt | FileCheck %s

// Layouts round-trip and print as #blocked / #slice aliases.
// CHECK: #blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK: #slice = #tile.slice<{dim = 1, parent = #blocked}>
// CHECK-LABEL: func.func @roundtrip
// CHECK-SAME: tensor<8x64xf32, #blocked>
// CHECK-SAME: tensor<8xf32, #slice>
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #tile.slice<{dim = 1, parent = #b}>
func.func @roundtrip(%x: tensor<8x64xf32, #b>, %y: tensor<8xf32, #s>) {
  return
}

// -----

// expected-error @below {{#tile.blocked threadsPerWarp must multiply to 32, got 16}}
func.func @threads(%x: tensor<8xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [1], order = [0]}>>)

// -----

// expected-error @below {{#tile.blocked sizes must be powers of two, got 3}}
func.func @pow2(%x: tensor<8xf32, #tile.blocked<{sizePerThread = [3], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>)

// -----

// expected-error @below {{#tile.blocked order must be a permutation of 0..1}}
func.func @order(%x: tensor<8x8xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 1]}>>)

// -----

// expected-error @below {{#tile.blocked needs sizePerThread, threadsPerWarp, warpsPerCTA and order of one non-zero rank}}
func.func @rank(%x: tensor<8x8xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>>)

// -----

// expected-error @below {{#tile.slice of a rank-1 layout has rank 0; a reduction to a scalar needs no layout}}
func.func @slice1(%x: tensor<8xf32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>}>>)

// -----

// expected-error @below {{#tile.slice dim 2 is out of range for a parent of rank 2}}
func.func @slicedim(%x: tensor<8xf32, #tile.slice<{dim = 2, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>}>>)

// -----

// expected-error @below {{#tile.slice parent must be a #tile.blocked or #tile.slice layout, got 1 : i32}}
func.func @sliceparent(%x: tensor<8xf32, #tile.slice<{dim = 0, parent = 1 : i32}>>)
