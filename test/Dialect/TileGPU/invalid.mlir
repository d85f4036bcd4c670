// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Verifiers of the shared memory type and ops.

#sh = #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
func.func @async_copy_shape(%p: tensor<64x16x!tile.ptr<bf16>>, %s: i32) {
  %buf = tilegpu.local_alloc : !tilegpu.smem<3x64x32xbf16, #sh>
  // expected-error @+1 {{'tilegpu.async_copy' op pointer tile 'tensor<64x16x!tile.ptr<bf16>>' does not have the shape of a slot of '!tilegpu.smem<3x64x32xbf16, #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>'}}
  tilegpu.async_copy %p into %buf[%s] : tensor<64x16x!tile.ptr<bf16>> into !tilegpu.smem<3x64x32xbf16, #sh>
  return
}

// -----

#sh = #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
func.func @async_copy_type(%p: tensor<64x32x!tile.ptr<f16>>, %s: i32) {
  %buf = tilegpu.local_alloc : !tilegpu.smem<3x64x32xbf16, #sh>
  // expected-error @+1 {{'tilegpu.async_copy' op copies 'f16' into a buffer of 'bf16'}}
  tilegpu.async_copy %p into %buf[%s] : tensor<64x32x!tile.ptr<f16>> into !tilegpu.smem<3x64x32xbf16, #sh>
  return
}

// -----

#sh = #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
func.func @async_copy_mask(%p: tensor<64x32x!tile.ptr<bf16>>, %m: tensor<64x16xi1>, %s: i32) {
  %buf = tilegpu.local_alloc : !tilegpu.smem<3x64x32xbf16, #sh>
  // expected-error @+1 {{'tilegpu.async_copy' op mask 'tensor<64x16xi1>' does not match the pointers 'tensor<64x32x!tile.ptr<bf16>>'}}
  tilegpu.async_copy %p, %m into %buf[%s] : tensor<64x32x!tile.ptr<bf16>>, tensor<64x16xi1> into !tilegpu.smem<3x64x32xbf16, #sh>
  return
}

// -----

#sh = #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
func.func @local_load_shape(%s: i32) {
  %buf = tilegpu.local_alloc : !tilegpu.smem<3x64x32xbf16, #sh>
  // expected-error @+1 {{'tilegpu.local_load' op result 'tensor<32x64xbf16>' is not a slot of '!tilegpu.smem<3x64x32xbf16, #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>'}}
  %t = tilegpu.local_load %buf[%s] : !tilegpu.smem<3x64x32xbf16, #sh> -> tensor<32x64xbf16>
  return
}

// -----

func.func @async_wait_pending() {
  // expected-error @+1 {{'tilegpu.async_wait' op pending must be >= 0, got -1}}
  tilegpu.async_wait {pending = -1 : i32}
  return
}

// -----

// expected-error @+1 {{!tilegpu.smem holds slots of 2-D tiles: its shape must be 3 positive sizes (slots, rows, columns)}}
func.func @smem_rank(%b: !tilegpu.smem<64x32xbf16, #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>)

// -----

// expected-error @+1 {{!tilegpu.smem elements must be integers or floats, not '!tile.ptr<f32>'}}
func.func @smem_elem(%b: !tilegpu.smem<2x64x32x!tile.ptr<f32>, #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>)

// -----

// expected-error @+1 {{!tilegpu.smem layout must be a #tilegpu.shared, not #tilegpu.blocked}}
func.func @smem_layout(%b: !tilegpu.smem<2x64x32xbf16, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>>)
