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

// expected-error @+1 {{!tilegpu.smem layout must be a #tilegpu.shared or #tilegpu.nvmma_shared, not #tilegpu.blocked}}
func.func @smem_layout(%b: !tilegpu.smem<2x64x32xbf16, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>>)

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#sh = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_layout(%acc: tensor<128x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #sh>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op operand buffers must have #tilegpu.nvmma_shared layouts}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x128x64xbf16, #sh>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
#v2 = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [8, 1], instrShape = [16, 8]}>
func.func @wgmma_register_a_layout(%p: tensor<128x64xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #v2, kWidth = 2}>>, %acc: tensor<128x128xf32, #v3>, %s: i32) {
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op a register tile operand must have the #tilegpu.dot_operand layout {opIdx = 0, kWidth = 2} of the accumulator's layout, got 'tensor<128x64xbf16}}
  %d = tilegpu.warpgroup_dot %p, %b[%s], %acc : tensor<128x64xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #v2, kWidth = 2}>>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_buffer_without_slot(%acc: tensor<128x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op a buffer operand needs its slot: a[slot]}}
  %d = tilegpu.warpgroup_dot %a, %b[%s], %acc : !tilegpu.smem<3x128x64xbf16, #nv>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_register_a_with_slot(%p: tensor<128x64xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #v3, kWidth = 2}>>, %acc: tensor<128x128xf32, #v3>, %s: i32) {
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op a register tile operand takes no slot}}
  %d = tilegpu.warpgroup_dot %p[%s], %b[%s], %acc : tensor<128x64xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #v3, kWidth = 2}>>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_register_a_shape(%p: tensor<128x32xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #v3, kWidth = 2}>>, %acc: tensor<128x128xf32, #v3>, %s: i32) {
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op shapes do not match: a 128x32, b slot 64x128}}
  %d = tilegpu.warpgroup_dot %p, %b[%s], %acc : tensor<128x32xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #v3, kWidth = 2}>>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_types(%acc: tensor<128x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op operands must both be f16, both bf16, both fp8 (f8E4M3FN, f8E5M2) or both f32 (tf32), got 'bf16' and 'f16'}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x128x64xbf16, #nv>, !tilegpu.smem<3x64x128xf16, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_acc_type(%acc: tensor<128x128xf16, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x64xf16, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op accumulator must be f32, got 'f16'}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x128x64xf16, #nv>, !tilegpu.smem<3x64x128xf16, #nv> -> tensor<128x128xf16, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_shapes(%acc: tensor<128x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x32x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op shapes do not match: a slot 128x64, b slot 32x128, accumulator 'tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>'}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x128x64xbf16, #nv>, !tilegpu.smem<3x32x128xbf16, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 32, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_k(%acc: tensor<128x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x8xbf16, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x8x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op K must be a multiple of 16, got 8}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x128x8xbf16, #nv>, !tilegpu.smem<3x8x128xbf16, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_fp8_f16(%acc: tensor<128x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x128xf8E4M3FN, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x128x128xf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op operands must both be f16, both bf16, both fp8 (f8E4M3FN, f8E5M2) or both f32 (tf32), got 'f8E4M3FN' and 'f16'}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x128x128xf8E4M3FN, #nv>, !tilegpu.smem<3x128x128xf16, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 32, order = [1, 0]}>
#nvt = #tilegpu.nvmma_shared<{swizzle = 32, order = [0, 1]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_fp8_k(%acc: tensor<128x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x16xf8E4M3FN, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x16x128xf8E5M2, #nvt>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op K must be a multiple of 32, got 16}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x128x16xf8E4M3FN, #nv>, !tilegpu.smem<3x16x128xf8E5M2, #nvt> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_fp8_mn_major(%acc: tensor<128x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x128xf8E4M3FN, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x128x128xf8E4M3FN, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op fp8 operands must be K-major (A [M, K] with K contiguous, B a trans_view of an [N, K] slot)}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x128x128xf8E4M3FN, #nv>, !tilegpu.smem<3x128x128xf8E4M3FN, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
#nvt = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
func.func @wgmma_fp8_register_a(%acc: tensor<128x128xf32, #v3>, %p: tensor<128x128xf8E4M3FN, #tilegpu.dot_operand<{opIdx = 0, parent = #v3, kWidth = 4}>>, %s: i32) {
  %b = tilegpu.local_alloc : !tilegpu.smem<3x128x128xf8E4M3FN, #nvt>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op fp8 A must be a buffer slot (wgmma takes it from registers only in its own fragment layout)}}
  %d = tilegpu.warpgroup_dot %p, %b[%s], %acc : tensor<128x128xf8E4M3FN, #tilegpu.dot_operand<{opIdx = 0, parent = #v3, kWidth = 4}>>, !tilegpu.smem<3x128x128xf8E4M3FN, #nvt> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 32, order = [1, 0]}>
#nvt = #tilegpu.nvmma_shared<{swizzle = 32, order = [0, 1]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_tf32_k(%acc: tensor<128x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x4xf32, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x4x128xf32, #nvt>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op K must be a multiple of 8, got 4}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x128x4xf32, #nv>, !tilegpu.smem<3x4x128xf32, #nvt> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_tf32_mn_major(%acc: tensor<128x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x32xf32, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x32x128xf32, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op tf32 operands must be K-major (A [M, K] with K contiguous, B a trans_view of an [N, K] slot)}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x128x32xf32, #nv>, !tilegpu.smem<3x32x128xf32, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
#nvt = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
func.func @wgmma_tf32_register_a(%acc: tensor<128x128xf32, #v3>, %p: tensor<128x32xf32, #tilegpu.dot_operand<{opIdx = 0, parent = #v3, kWidth = 1}>>, %s: i32) {
  %b = tilegpu.local_alloc : !tilegpu.smem<3x32x128xf32, #nvt>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op tf32 A must be a buffer slot (wgmma takes it from registers only in its own fragment layout)}}
  %d = tilegpu.warpgroup_dot %p, %b[%s], %acc : tensor<128x32xf32, #tilegpu.dot_operand<{opIdx = 0, parent = #v3, kWidth = 1}>>, !tilegpu.smem<3x32x128xf32, #nvt> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v2 = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [8, 1], instrShape = [16, 8]}>
func.func @wgmma_version(%acc: tensor<128x128xf32, #v2>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op accumulator must have a #tilegpu.mma version 3 layout}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x128x64xbf16, #nv>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<128x128xf32, #v2>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_blocks(%acc: tensor<64x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x64x64xbf16, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op accumulator 'tensor<64x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>' is not a whole number of 128-row blocks and 128-column instructions}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : !tilegpu.smem<3x64x64xbf16, #nv>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<64x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_pending(%acc: tensor<128x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op pending must be >= 0, got -1}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc {pending = -1 : i32} : !tilegpu.smem<3x128x64xbf16, #nv>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_wait_pending(%acc: tensor<128x128xf32, #v3>) {
  // expected-error @+1 {{'tilegpu.warpgroup_wait' op pending must be >= 0, got -2}}
  %d = tilegpu.warpgroup_wait %acc {pending = -2 : i32} : tensor<128x128xf32, #v3>
  return
}

// -----

#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_wait_type(%acc: tensor<128x128xf16, #v3>) {
  // expected-error @+1 {{'tilegpu.warpgroup_wait' op accumulator must be f32, got 'f16'}}
  %d = tilegpu.warpgroup_wait %acc {pending = 0 : i32} : tensor<128x128xf16, #v3>
  return
}

// -----

#v2 = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [8, 1], instrShape = [16, 8]}>
func.func @wgmma_wait_layout(%acc: tensor<128x128xf32, #v2>) {
  // expected-error @+1 {{'tilegpu.warpgroup_wait' op accumulator must have a #tilegpu.mma version 3 layout}}
  %d = tilegpu.warpgroup_wait %acc {pending = 0 : i32} : tensor<128x128xf32, #v2>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_async_pending(%acc: tensor<128x128xf32, #v3>, %s: i32) {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op an async dot waits for nothing: pending must be 0, got 1}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc {async, pending = 1 : i32} : !tilegpu.smem<3x128x64xbf16, #nv>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_async_read_directly(%acc: tensor<128x128xf32, #v3>, %s: i32) -> tensor<128x128xf32, #v3> {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nv>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op the result of an async dot may only be read through tilegpu.warpgroup_wait, not by arith.addf}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc {async} : !tilegpu.smem<3x128x64xbf16, #nv>, !tilegpu.smem<3x64x128xbf16, #nv> -> tensor<128x128xf32, #v3>
  %e = arith.addf %d, %acc : tensor<128x128xf32, #v3>
  return %e : tensor<128x128xf32, #v3>
}

// -----

#v3 = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
func.func @wgmma_wait_keep_layout(%acc: tensor<128x128xf32, #v3>, %p: tensor<128x64xbf16, #v3>) {
  // expected-error @+1 {{'tilegpu.warpgroup_wait' op keep operands must be register A tiles (16-bit, #tilegpu.dot_operand {opIdx = 0, kWidth = 2} of a version 3 layout), got 'tensor<128x64xbf16}}
  %e = tilegpu.warpgroup_wait %acc keep(%p : tensor<128x64xbf16, #v3>) {pending = 0 : i32} : tensor<128x128xf32, #v3>
  return
}

// -----

#nv = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @trans_view_type() {
  %k = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nv>
  // expected-error @+1 {{'tilegpu.trans_view' op result must be '!tilegpu.smem<3x128x64xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>>' (the slots' dims and order swapped), got '!tilegpu.smem<3x128x64xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>'}}
  %kt = tilegpu.trans_view %k : !tilegpu.smem<3x64x128xbf16, #nv> -> !tilegpu.smem<3x128x64xbf16, #nv>
  return
}
