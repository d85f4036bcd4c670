// RUN: tile-opt %s --split-input-file --verify-diagnostics | tile-opt | FileCheck %s

// Layouts round-trip and print as #blocked / #slice / #mma / #dot_op
// aliases.
// CHECK-DAG: #blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #slice = #tilegpu.slice<{dim = 1, parent = #blocked}>
// CHECK-DAG: #mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [4, 2], instrShape = [16, 8]}>
// CHECK-DAG: #dot_op = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
// CHECK-DAG: #dot_op1 = #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
// CHECK-DAG: #slice1 = #tilegpu.slice<{dim = 0, parent = #mma}>
// CHECK-DAG: #shared = #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
// CHECK-LABEL: func.func @roundtrip
// CHECK-SAME: tensor<8x64xf32, #blocked>
// CHECK-SAME: tensor<8xf32, #slice>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #tilegpu.slice<{dim = 1, parent = #b}>
func.func @roundtrip(%x: tensor<8x64xf32, #b>, %y: tensor<8xf32, #s>) {
  return
}

// CHECK-LABEL: func.func @mma
// CHECK-SAME: tensor<128x128xf32, #mma>
// CHECK-SAME: tensor<128x32xbf16, #dot_op>
// CHECK-SAME: tensor<32x128xbf16, #dot_op1>
// CHECK-SAME: tensor<128xf32, #slice1>
#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [4, 2], instrShape = [16, 8]}>
#a = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#bop = #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
#row = #tilegpu.slice<{dim = 0, parent = #mma}>
func.func @mma(%c: tensor<128x128xf32, #mma>, %x: tensor<128x32xbf16, #a>,
               %y: tensor<32x128xbf16, #bop>, %r: tensor<128xf32, #row>) {
  return
}

// CHECK-LABEL: func.func @shared
// CHECK-SAME: tile.layout = #shared
func.func @shared() attributes {tile.layout = #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>} {
  return
}

// -----

// expected-error @below {{#tilegpu.blocked threadsPerWarp must multiply to 32, got 16}}
func.func @threads(%x: tensor<8xf32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [1], order = [0]}>>)

// -----

// Lane coordinates are bit fields of the lane id; elements per thread and
// warps may be any positive count (see the non-power-of-two layouts below).
// expected-error @below {{#tilegpu.blocked threadsPerWarp must be powers of two, got 3}}
func.func @pow2(%x: tensor<8x8xf32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [3, 8], warpsPerCTA = [1, 1], order = [1, 0]}>>)

// -----

// expected-error @below {{#tilegpu.blocked sizes must be positive}}
func.func @zero(%x: tensor<8xf32, #tilegpu.blocked<{sizePerThread = [0], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>)

// -----

// Warp counts past a program's 32 are refused before anything is sized by
// them (2^29 x 2 used to run the conversion out of memory).
// expected-error @below {{#tilegpu.mma warpsPerCTA [2, 536870912] asks for more than 32 warps (the most a program has)}}
func.func @mma_warps(%x: tensor<64x64xf32, #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [2, 536870912], instrShape = [16, 8]}>>)

// -----

// The product is taken in 64 bits: 2^16 x 2^16 does not wrap to 0.
// expected-error @below {{#tilegpu.blocked warpsPerCTA [65536, 65536] asks for more than 32 warps (the most a program has)}}
func.func @blocked_warps(%x: tensor<8x8xf32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [65536, 65536], order = [1, 0]}>>)

// -----

// expected-error @below {{#tilegpu.blocked warpsPerCTA [8, 8] asks for more than 32 warps (the most a program has)}}
func.func @blocked_64_warps(%x: tensor<8x8xf32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [8, 8], order = [1, 0]}>>)

// -----

// expected-error @below {{#tilegpu.blocked order must be a permutation of 0..1}}
func.func @order(%x: tensor<8x8xf32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 1]}>>)

// -----

// expected-error @below {{#tilegpu.blocked needs sizePerThread, threadsPerWarp, warpsPerCTA and order of one non-zero rank}}
func.func @rank(%x: tensor<8x8xf32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>>)

// -----

// expected-error @below {{#tilegpu.slice of a rank-1 layout has rank 0; a reduction to a scalar needs no layout}}
func.func @slice1(%x: tensor<8xf32, #tilegpu.slice<{dim = 0, parent = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>}>>)

// -----

// expected-error @below {{#tilegpu.slice dim 2 is out of range for a parent of rank 2}}
func.func @slicedim(%x: tensor<8xf32, #tilegpu.slice<{dim = 2, parent = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>}>>)

// -----

// expected-error @below {{#tilegpu.slice parent must be a #tilegpu.blocked, #tilegpu.mma, #tilegpu.dot_operand or #tilegpu.slice layout, got 1 : i32}}
func.func @sliceparent(%x: tensor<8xf32, #tilegpu.slice<{dim = 0, parent = 1 : i32}>>)

// -----

// expected-error @below {{#tilegpu.mma versionMajor 4 is not supported (2: mma.sync, 3: wgmma)}}
func.func @mmaversion(%x: tensor<16x16xf32, #tilegpu.mma<{versionMajor = 4, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>)

// -----

// expected-error @below {{#tilegpu.mma warpsPerCTA must be positive}}
func.func @mmawarps(%x: tensor<16x16xf32, #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [0, 1], instrShape = [16, 8]}>>)

// -----

// expected-error @below {{#tilegpu.mma warpsPerCTA must have 2 entries, got 1}}
func.func @mmarank(%x: tensor<16x16xf32, #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [4], instrShape = [16, 8]}>>)

// -----

// expected-error @below {{#tilegpu.mma instrShape must be [16, 8] (the accumulator tile of mma.sync m16n8kK)}}
func.func @mmainstr(%x: tensor<16x16xf32, #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 16]}>>)

// -----

// expected-error @below {{#tilegpu.dot_operand opIdx must be 0 (A) or 1 (B), got 2}}
func.func @dotidx(%x: tensor<16x16xf16, #tilegpu.dot_operand<{opIdx = 2, parent = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 2}>>)

// -----

// expected-error @below {{#tilegpu.dot_operand parent must be a #tilegpu.mma layout, got #tilegpu.blocked}}
func.func @dotparent(%x: tensor<16x16xf16, #tilegpu.dot_operand<{opIdx = 0, parent = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>, kWidth = 2}>>)

// -----

// expected-error @below {{#tilegpu.dot_operand kWidth must be 1, 2 or 4 (K elements per 32-bit register), got 3}}
func.func @dotkwidth(%x: tensor<16x16xf16, #tilegpu.dot_operand<{opIdx = 0, parent = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 3}>>)

// -----

// expected-error @below {{#tilegpu.shared vec, perPhase and maxPhase must be powers of two, got 3}}
func.func @sharedvec() attributes {tile.layout = #tilegpu.shared<{vec = 8, perPhase = 3, maxPhase = 4, order = [1, 0]}>}

// -----

// expected-error @below {{#tilegpu.shared order must be [0, 1] or [1, 0]}}
func.func @sharedorder() attributes {tile.layout = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 1]}>}

// -----

// expected-error @below {{#tilegpu.mma version 3 (wgmma) needs warpsPerCTA [4k, 1] (whole warpgroups along M)}}
func.func @wgmma_warps(%x: tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [4, 2], instrShape = [64, 128]}>>)

// -----

// expected-error @below {{#tilegpu.mma version 3 (wgmma) needs instrShape [64, N] with N a multiple of 8 up to 256}}
func.func @wgmma_instr(%x: tensor<128x512xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 512]}>>)

// -----

// expected-error @below {{#tilegpu.nvmma_shared swizzle must be 32, 64 or 128 (bytes), got 16}}
func.func @nvmma_swizzle(%x: !tilegpu.smem<3x64x64xbf16, #tilegpu.nvmma_shared<{swizzle = 16, order = [1, 0]}>>)

// -----

// expected-error @below {{#tilegpu.nvmma_shared order must be [0, 1] or [1, 0]}}
func.func @nvmma_order(%x: !tilegpu.smem<3x64x64xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 1]}>>)
