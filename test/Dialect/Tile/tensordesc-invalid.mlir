// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{!tile.tensordesc holds i8, i16, i32, i64, f16, bf16, f32, f64, f8E4M3FN or f8E5M2 elements, not 'i1'}}
func.func @bool_block(%d: !tile.tensordesc<tensor<128x128xi1>>)

// -----

// expected-error @+1 {{not '!tile.ptr<f32>'}}
func.func @ptr_block(%d: !tile.tensordesc<tensor<128x2x!tile.ptr<f32>>>)

// -----

// expected-error @+1 {{dimension 0 of the block is 512; a tensor descriptor's block dimensions are 1 to 256 elements (the TMA's box limit)}}
func.func @too_tall(%d: !tile.tensordesc<tensor<512x64xbf16>>)

// -----

// expected-error @+1 {{a !tile.tensordesc block has 1 to 5 dimensions, not 6}}
func.func @rank6(%d: !tile.tensordesc<tensor<2x2x2x2x2x8xbf16>>)

// -----

// expected-error @+1 {{the innermost block dimension spans 12 bytes; a tensor descriptor's must span a multiple of 16 bytes (the TMA's box rule)}}
func.func @narrow(%d: !tile.tensordesc<tensor<64x3xf32>>)

// -----

func.func @offset_count(%d: !tile.tensordesc<tensor<64x64xbf16>>, %i: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op has 1 offset, but the descriptor is 2-D (one offset per dimension, outermost first)}}
  %t = tile.descriptor_load %d[%i] : !tile.tensordesc<tensor<64x64xbf16>> -> tensor<64x64xbf16>
  return
}

// -----

func.func @load_shape(%d: !tile.tensordesc<tensor<64x64xbf16>>, %i: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op expects the result to be the descriptor's block 'tensor<64x64xbf16>' (or that block without leading dimensions of 1), got 'tensor<64x32xbf16>'}}
  %t = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<64x64xbf16>> -> tensor<64x32xbf16>
  return
}

// -----

func.func @store_type(%d: !tile.tensordesc<tensor<64x64xbf16>>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.descriptor_store' op expects the value to be the descriptor's block 'tensor<64x64xbf16>' (or that block without leading dimensions of 1), got 'tensor<64x64xf32>'}}
  tile.descriptor_store %d[%i, %i], %v : !tile.tensordesc<tensor<64x64xbf16>>, tensor<64x64xf32>
  return
}

// -----

func.func @store_offsets(%d: !tile.tensordesc<tensor<64x64xbf16>>, %i: i32, %v: tensor<64x64xbf16>) {
  // expected-error @+1 {{'tile.descriptor_store' op has 3 offsets, but the descriptor is 2-D}}
  tile.descriptor_store %d[%i, %i, %i], %v : !tile.tensordesc<tensor<64x64xbf16>>, tensor<64x64xbf16>
  return
}

// -----

// 32 descriptors of 128 bytes (aligned to 64) and one more pointer do not fit the 4 KiB parameter space.
// expected-error @+1 {{has 33 parameters of 4104 bytes; the PTX parameter space holds 4096 bytes}}
func.func @too_many(%d0: !tile.tensordesc<tensor<16x8xf16>>, %d1: !tile.tensordesc<tensor<16x8xf16>>, %d2: !tile.tensordesc<tensor<16x8xf16>>, %d3: !tile.tensordesc<tensor<16x8xf16>>, %d4: !tile.tensordesc<tensor<16x8xf16>>, %d5: !tile.tensordesc<tensor<16x8xf16>>, %d6: !tile.tensordesc<tensor<16x8xf16>>, %d7: !tile.tensordesc<tensor<16x8xf16>>, %d8: !tile.tensordesc<tensor<16x8xf16>>, %d9: !tile.tensordesc<tensor<16x8xf16>>, %d10: !tile.tensordesc<tensor<16x8xf16>>, %d11: !tile.tensordesc<tensor<16x8xf16>>, %d12: !tile.tensordesc<tensor<16x8xf16>>, %d13: !tile.tensordesc<tensor<16x8xf16>>, %d14: !tile.tensordesc<tensor<16x8xf16>>, %d15: !tile.tensordesc<tensor<16x8xf16>>, %d16: !tile.tensordesc<tensor<16x8xf16>>, %d17: !tile.tensordesc<tensor<16x8xf16>>, %d18: !tile.tensordesc<tensor<16x8xf16>>, %d19: !tile.tensordesc<tensor<16x8xf16>>, %d20: !tile.tensordesc<tensor<16x8xf16>>, %d21: !tile.tensordesc<tensor<16x8xf16>>, %d22: !tile.tensordesc<tensor<16x8xf16>>, %d23: !tile.tensordesc<tensor<16x8xf16>>, %d24: !tile.tensordesc<tensor<16x8xf16>>, %d25: !tile.tensordesc<tensor<16x8xf16>>, %d26: !tile.tensordesc<tensor<16x8xf16>>, %d27: !tile.tensordesc<tensor<16x8xf16>>, %d28: !tile.tensordesc<tensor<16x8xf16>>, %d29: !tile.tensordesc<tensor<16x8xf16>>, %d30: !tile.tensordesc<tensor<16x8xf16>>, %d31: !tile.tensordesc<tensor<16x8xf16>>, %p: !tile.ptr<f32>) attributes {tile.kernel} {
  return
}

// -----

// Only leading dims of 1 may be dropped.
func.func @drop_non_unit(%d: !tile.tensordesc<tensor<2x64x64xbf16>>, %i: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op expects the result to be the descriptor's block 'tensor<2x64x64xbf16>' (or that block without leading dimensions of 1), got 'tensor<64x64xbf16>'}}
  %t = tile.descriptor_load %d[%i, %i, %i] : !tile.tensordesc<tensor<2x64x64xbf16>> -> tensor<64x64xbf16>
  return
}

// -----

func.func @drop_inner(%d: !tile.tensordesc<tensor<64x1x64xbf16>>, %i: i32) {
  // expected-error @+1 {{got 'tensor<64x64xbf16>'}}
  %t = tile.descriptor_load %d[%i, %i, %i] : !tile.tensordesc<tensor<64x1x64xbf16>> -> tensor<64x64xbf16>
  return
}

// -----

func.func @reduce_fadd_int(%d: !tile.tensordesc<tensor<64x64xi32>>, %i: i32, %v: tensor<64x64xi32>) {
  // expected-error @+1 {{'tile.descriptor_store' op reduce fadd needs f32, f16 or bf16 elements, got i32}}
  tile.descriptor_store %d[%i, %i], %v reduce fadd : !tile.tensordesc<tensor<64x64xi32>>, tensor<64x64xi32>
  return
}

// -----

func.func @reduce_add_i64(%d: !tile.tensordesc<tensor<64x64xi64>>, %i: i32, %v: tensor<64x64xi64>) {
  // expected-error @+1 {{'tile.descriptor_store' op reduce add needs i32 elements, got i64}}
  tile.descriptor_store %d[%i, %i], %v reduce add : !tile.tensordesc<tensor<64x64xi64>>, tensor<64x64xi64>
  return
}

// -----

func.func @reduce_max(%d: !tile.tensordesc<tensor<64x64xf32>>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.descriptor_store' op a descriptor store reduces with fadd (f32, f16, bf16) or add (i32), not max (the TMA's min, max and bitwise reductions are not supported)}}
  tile.descriptor_store %d[%i, %i], %v reduce max : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32>
  return
}

// -----

func.func @reduce_word(%d: !tile.tensordesc<tensor<64x64xf32>>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{expected a reduction (fadd or add) after 'reduce', got 'sum'}}
  tile.descriptor_store %d[%i, %i], %v reduce sum : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32>
  return
}
