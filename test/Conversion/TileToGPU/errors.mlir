// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu --verify-diagnostics

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

func.func @non_splat(%y: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-error @below {{'arith.constant' op tile constants must be splats (one value); non-uniform constants are not supported yet}}
  %c = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]> : tensor<32xi32, #b>
  %ys = tile.splat %y : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>, #b>
  tile.store %ys, %c : tensor<32x!tile.ptr<i32>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

func.func @fp8(%x: !tile.ptr<f8E4M3FN>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %xs = tile.splat %x : !tile.ptr<f8E4M3FN> -> tensor<32x!tile.ptr<f8E4M3FN>, #b>
  %v = tile.load %xs : tensor<32x!tile.ptr<f8E4M3FN>, #b>
  // expected-error @below {{'arith.mulf' op fp8 arithmetic is not supported: convert to f32 first (arith.extf), compute, and back (arith.truncf)}}
  %m = arith.mulf %v, %v : tensor<32xf8E4M3FN, #b>
  %s = tile.load %x : !tile.ptr<f8E4M3FN>
  // expected-error @below {{'arith.extf' op fp8 conversions of scalars are not supported yet (convert a tile)}}
  %sf = arith.extf %s : f8E4M3FN to f32
  %w = arith.extf %v : tensor<32xf8E4M3FN, #b> to tensor<32xf64, #b>
  // expected-error @below {{'arith.truncf' op converts f64 to fp8: truncate to f32 first (the GPU converts f32 pairs)}}
  %t = arith.truncf %w : tensor<32xf64, #b> to tensor<32xf8E4M3FN, #b>
  %f = arith.extf %v : tensor<32xf8E4M3FN, #b> to tensor<32xf32, #b>
  // expected-error @below {{'arith.truncf' op fp8 conversions round to nearest even only (the GPU's cvt.rn.satfinite)}}
  %z = arith.truncf %f toward_zero : tensor<32xf32, #b> to tensor<32xf8E4M3FN, #b>
  return
}


// -----

func.func @no_layout(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  // expected-error @below {{'tile.range' op tile type 'tensor<32xi32>' has no layout; run tile-assign-layouts first}}
  %r = tile.range 0, 32 : tensor<32xi32>
  return
}

// -----

func.func private @helper(i32) -> i32

func.func @call(%n: i32) attributes {tile.kernel} {
  // expected-error @below {{'func.call' op calls @helper, which was not inlined; kernels cannot call functions on the GPU yet}}
  %r = func.call @helper(%n) : (i32) -> i32
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

func.func @foreign(%t: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %s = tile.splat %t : i32 -> tensor<32xi32, #b>
  // expected-error @below {{'cf.br' op on tiles is not supported by the GPU lowering}}
  cf.br ^bb1(%s : tensor<32xi32, #b>)
^bb1(%a: tensor<32xi32, #b>):
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>

func.func @warps(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  // expected-error @below {{'tile.range' op tile type 'tensor<64xi32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>' is laid out for 2 warps but the kernel has 4}}
  %r = tile.range 0, 64 : tensor<64xi32, #b>
  return
}

// -----

#bl = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

func.func @mma_operands(%s: bf16, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %a = tile.splat %s : bf16 -> tensor<16x16xbf16, #bl>
  %z = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
  // expected-error @below {{'tile.dot' op operands of an mma dot must have the #tilegpu.dot_operand layouts of its accumulator (run tile-assign-layouts)}}
  %d = tile.dot %a, %a, %z : tensor<16x16xbf16, #bl>, tensor<16x16xbf16, #bl> -> tensor<16x16xf32, #mma>
  return
}

// -----

// fp8 dots become tilegpu.warpgroup_dot in tile-lower-descriptors (which
// explains why one cannot); any left here are refused.
#bl = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>

func.func @fp8_dot(%x: !tile.ptr<f8E4M3FN>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %xs = tile.splat %x : !tile.ptr<f8E4M3FN> -> tensor<16x16x!tile.ptr<f8E4M3FN>, #bl>
  %a = tile.load %xs : tensor<16x16x!tile.ptr<f8E4M3FN>, #bl>
  %z = arith.constant dense<0.0> : tensor<16x16xf32, #bl>
  // expected-error @below {{'tile.dot' op an fp8 dot runs only as a tilegpu.warpgroup_dot (run tile-lower-descriptors, which says why it cannot)}}
  %d = tile.dot %a, %a, %z : tensor<16x16xf8E4M3FN, #bl>, tensor<16x16xf8E4M3FN, #bl> -> tensor<16x16xf32, #bl>
  return
}

// -----

#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>

func.func @mma_types(%s: f32, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %a = tile.splat %s : f32 -> tensor<16x16xf32, #a>
  %b = tile.splat %s : f32 -> tensor<16x16xf32, #b>
  %z = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
  // expected-error @below {{'tile.dot' op mma.sync needs f16 or bf16 operands with an f32 (or, for f16, f16) accumulator, or f32 operands at tf32 precision, got 'tensor<16x16xf32, #tilegpu.dot_operand<{opIdx = 0, parent = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 2}>>' and 'tensor<16x16xf32, #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>'}}
  %d = tile.dot %a, %b, %z {precision = #tile.precision<ieee>} : tensor<16x16xf32, #a>, tensor<16x16xf32, #b> -> tensor<16x16xf32, #mma>
  return
}

// -----

// tf32 runs m16n8k8 with kWidth 1 operands: kWidth 2 is not its layout, and
// K must be a multiple of 8.
#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
#a1 = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 1}>
#b1 = #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 1}>

func.func @mma_tf32(%s: f32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %a = tile.splat %s : f32 -> tensor<16x16xf32, #a>
  %b = tile.splat %s : f32 -> tensor<16x16xf32, #b>
  %z = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
  // expected-error @below {{'tile.dot' op operands of an mma dot must have the #tilegpu.dot_operand layouts of its accumulator (run tile-assign-layouts)}}
  %d = tile.dot %a, %b, %z : tensor<16x16xf32, #a>, tensor<16x16xf32, #b> -> tensor<16x16xf32, #mma>
  %a1 = tile.splat %s : f32 -> tensor<16x12xf32, #a1>
  %b1 = tile.splat %s : f32 -> tensor<12x16xf32, #b1>
  // expected-error @below {{'tile.dot' op mma.sync m16n8k8 needs M % 16, N % 8 and K % 8 to be 0, got 16x16x12}}
  %e = tile.dot %a1, %b1, %z : tensor<16x12xf32, #a1>, tensor<12x16xf32, #b1> -> tensor<16x16xf32, #mma>
  return
}

// -----

// 4-element threads on 32 lanes over 100 elements: lanes 25..31 would hold
// copies of lanes 0..6, neither a cover, a padding that every thread's
// first element survives, nor a uniform replication. Said once per type,
// where it first appears.
#bad = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @bad_layout(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-error @below {{'tile.range' op tile type 'tensor<100xi32, #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>' cannot be lowered: along each dim its layout's lanes and warps must cover the shape exactly, pad it (every thread's first element inside the shape) or replicate it uniformly (a whole number of steps, a power of two of distinct lanes)}}
  %r = tile.range 0, 100 : tensor<100xi32, #bad>
  %s = arith.addi %r, %r : tensor<100xi32, #bad>
  return
}
