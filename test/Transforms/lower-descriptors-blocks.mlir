// RUN: tile-opt %s --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors=chip=sm_90a -split-input-file -verify-diagnostics

// Blocks the TMA cannot lay out as #tilegpu.nvmma_shared are refused for now.
func.func @f64_block(%x: !tile.tensordesc<tensor<64x32xf64>>, %i: i32)
    attributes {tile.kernel} {
  // expected-error @+1 {{'tile.descriptor_load' op block 'tensor<64x32xf64>' cannot be moved by the TMA into a swizzled slot: tilec lowers 8-, 16- and 32-bit blocks that are 2-D after their leading dims of 1, with a multiple of 8 rows of a multiple of 32 bytes}}
  %t = tile.descriptor_load %x[%i, %i] : !tile.tensordesc<tensor<64x32xf64>> -> tensor<64x32xf64>
  return
}

// -----

// A 32-bit block's rows need 32 bytes too: 4 f32 are 16.
func.func @f32_narrow(%x: !tile.tensordesc<tensor<64x4xf32>>, %i: i32)
    attributes {tile.kernel} {
  // expected-error @+1 {{'tile.descriptor_load' op block 'tensor<64x4xf32>' cannot be moved by the TMA into a swizzled slot}}
  %t = tile.descriptor_load %x[%i, %i] : !tile.tensordesc<tensor<64x4xf32>> -> tensor<64x4xf32>
  return
}

// -----

// A block of more than two dims moves as the 2-D tile of its last two.
func.func @rank4_tile(%x: !tile.tensordesc<tensor<1x1x64x64xbf16>>, %i: i32)
    attributes {tile.kernel} {
  // expected-error @+1 {{'tile.descriptor_load' op accesses a 'tensor<1x1x64x64xbf16>' tile; tilec moves descriptor blocks as 2-D tiles: drop the block's leading dims of 1 from the tile's type}}
  %t = tile.descriptor_load %x[%i, %i, %i, %i] : !tile.tensordesc<tensor<1x1x64x64xbf16>> -> tensor<1x1x64x64xbf16>
  return
}
