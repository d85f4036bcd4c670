// RUN: tile-opt %s --split-input-file --tile-assign-layouts=chip=sm_80 --tile-lower-descriptors=chip=sm_80 -verify-diagnostics

// Before sm_90 there is no TMA: each descriptor access is an error at its op.
func.func @no_tma(%x: !tile.tensordesc<tensor<64x32xf16>>, %i: i32)
    attributes {tile.kernel} {
  // expected-error @+1 {{'tile.descriptor_load' op needs the Tensor Memory Accelerator (sm_90 or later); sm_80 has none: read and write the tensor with tile.load and tile.store of pointer tiles}}
  %t = tile.descriptor_load %x[%i, %i] : !tile.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
  // expected-error @+1 {{'tile.descriptor_store' op needs the Tensor Memory Accelerator}}
  tile.descriptor_store %x[%i, %i], %t : !tile.tensordesc<tensor<64x32xf16>>, tensor<64x32xf16>
  return
}

// -----

// Before sm_90 there are no thread-block clusters.
// expected-error @+1 {{'func.func' op runs its programs in clusters of 2 (tile.num_ctas), which need sm_90 or later; sm_80 has none: drop tile.num_ctas}}
func.func @no_clusters(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_ctas = 2 : i32} {
  return
}
