// RUN: tile-opt %s --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors=chip=sm_90a -verify-diagnostics

// Blocks the TMA cannot lay out as #tilegpu.nvmma_shared are refused for now.
func.func @f32_block(%x: !tile.tensordesc<tensor<64x32xf32>>, %i: i32)
    attributes {tile.kernel} {
  // expected-error @+1 {{'tile.descriptor_load' op block 'tensor<64x32xf32>' cannot be moved by the TMA into a swizzled slot: tilec lowers 2-D f16/bf16 blocks with a multiple of 8 rows of a multiple of 32 bytes}}
  %t = tile.descriptor_load %x[%i, %i] : !tile.tensordesc<tensor<64x32xf32>> -> tensor<64x32xf32>
  return
}
