// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Shared memory buffers and asynchronous copies (made by the pipeliner).
// CHECK-LABEL: func.func @async
func.func @async(%p: tensor<64x32x!tile.ptr<bf16>>, %m: tensor<64x32xi1>,
                 %slot: i32) -> tensor<64x32xbf16> {
  // CHECK: %[[B:.*]] = tilegpu.local_alloc : !tilegpu.smem<3x64x32xbf16, #shared>
  %buf = tilegpu.local_alloc : !tilegpu.smem<3x64x32xbf16, #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>
  // CHECK: tilegpu.async_copy %{{.*}}, %{{.*}} into %[[B]][%{{.*}}] : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi1> into !tilegpu.smem<3x64x32xbf16
  tilegpu.async_copy %p, %m into %buf[%slot] : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi1> into !tilegpu.smem<3x64x32xbf16, #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>
  // CHECK: tilegpu.async_copy %{{.*}} into %[[B]][%{{.*}}] : tensor<64x32x!tile.ptr<bf16>> into !tilegpu.smem
  tilegpu.async_copy %p into %buf[%slot] : tensor<64x32x!tile.ptr<bf16>> into !tilegpu.smem<3x64x32xbf16, #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>
  // CHECK: tilegpu.async_commit
  tilegpu.async_commit
  // CHECK: tilegpu.async_wait {pending = 1 : i32}
  tilegpu.async_wait {pending = 1 : i32}
  // CHECK: tilegpu.local_load %[[B]][%{{.*}}] : !tilegpu.smem<3x64x32xbf16, {{.*}}> -> tensor<64x32xbf16>
  %t = tilegpu.local_load %buf[%slot] : !tilegpu.smem<3x64x32xbf16, #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>> -> tensor<64x32xbf16>
  return %t : tensor<64x32xbf16>
}

// The warpgroup MMA of sm_90a: operands in shared memory slots with the
// descriptors' swizzled layout, the accumulator in the version 3 layout.
// CHECK-LABEL: func.func @warpgroup_dot
// CHECK: %[[A:.*]] = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #nvmma>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nvmma>
// CHECK: tilegpu.async_wait {fence_async, pending = 1 : i32}
// CHECK: tilegpu.warpgroup_dot %[[A]][%{{.*}}], %[[B]][%{{.*}}], %{{.*}} : !tilegpu.smem<3x128x64xbf16, #nvmma>, !tilegpu.smem<3x64x128xbf16, #nvmma> -> tensor<128x128xf32, #mma{{[0-9]*}}>
func.func @warpgroup_dot(%acc: tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>,
                         %slot: i32) -> tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>> {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>
  tilegpu.async_wait {fence_async, pending = 1 : i32}
  %d = tilegpu.warpgroup_dot %a[%slot], %b[%slot], %acc : !tilegpu.smem<3x128x64xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>, !tilegpu.smem<3x64x128xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>> -> tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>
  return %d : tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>
}

// A from registers (the accumulator layout's dot_operand), B from a slot.
// CHECK-LABEL: func.func @warpgroup_dot_register_a
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %{{.*}}[%{{.*}}], %{{.*}} : tensor<128x64xbf16, #dot_op>, !tilegpu.smem<3x64x128xbf16, #nvmma> -> tensor<128x128xf32, #mma{{[0-9]*}}>
func.func @warpgroup_dot_register_a(%p: tensor<128x64xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>, kWidth = 2}>>,
                                    %acc: tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>,
                                    %slot: i32) -> tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>> {
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>
  %d = tilegpu.warpgroup_dot %p, %b[%slot], %acc : tensor<128x64xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>, kWidth = 2}>>, !tilegpu.smem<3x64x128xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>> -> tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>
  return %d : tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>
}

// An in-flight wgmma group (pending = 1) and the wait that ends it.
// An async dot with register A, completed by a wait that keeps A.
// CHECK-LABEL: func.func @warpgroup_dot_async
// CHECK: %[[D:.*]] = tilegpu.warpgroup_dot %[[P:[^,]*]], %{{.*}}[%{{.*}}], %{{.*}} {async}
// CHECK: tilegpu.warpgroup_wait %[[D]] keep(%[[P]] : tensor<128x64xbf16, #dot_op>) {pending = 0 : i32} : tensor<128x128xf32, #mma{{[0-9]*}}>
func.func @warpgroup_dot_async(%p: tensor<128x64xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>, kWidth = 2}>>,
                               %acc: tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>,
                               %slot: i32) -> tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>> {
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>
  %d = tilegpu.warpgroup_dot %p, %b[%slot], %acc {async} : tensor<128x64xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>, kWidth = 2}>>, !tilegpu.smem<3x64x128xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>> -> tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>
  %e = tilegpu.warpgroup_wait %d keep(%p : tensor<128x64xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>, kWidth = 2}>>) {pending = 0 : i32} : tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>
  return %e : tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>
}

// CHECK-LABEL: func.func @warpgroup_wait
// CHECK: %[[D:.*]] = tilegpu.warpgroup_dot %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} {pending = 1 : i32} : !tilegpu.smem<3x128x64xbf16, #nvmma>
// CHECK: tilegpu.warpgroup_wait %[[D]] {pending = 0 : i32} : tensor<128x128xf32, #mma{{[0-9]*}}>
func.func @warpgroup_wait(%acc: tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>,
                          %slot: i32) -> tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>> {
  %a = tilegpu.local_alloc : !tilegpu.smem<3x128x64xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>
  %b = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>
  %d = tilegpu.warpgroup_dot %a[%slot], %b[%slot], %acc {pending = 1 : i32} : !tilegpu.smem<3x128x64xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>, !tilegpu.smem<3x64x128xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>> -> tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>
  %e = tilegpu.warpgroup_wait %d {pending = 0 : i32} : tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>
  return %e : tensor<128x128xf32, #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>
}

// A buffer read with its slots' dims swapped: K staged as [keys, dim]
// (dim contiguous) is Q K^T's K-major B operand [dim, keys].
// CHECK-LABEL: func.func @trans_view
// CHECK: %[[K:.*]] = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #nvmma>
// CHECK: tilegpu.trans_view %[[K]] : !tilegpu.smem<3x64x128xbf16, #nvmma> -> !tilegpu.smem<3x128x64xbf16, #nvmma1>
// CHECK: tilegpu.trans_view %{{.*}} : !tilegpu.smem<2x64x32xbf16, #shared> -> !tilegpu.smem<2x32x64xbf16, #shared1>
func.func @trans_view(%slot: i32) {
  %k = tilegpu.local_alloc : !tilegpu.smem<3x64x128xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>
  %kt = tilegpu.trans_view %k : !tilegpu.smem<3x64x128xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>> -> !tilegpu.smem<3x128x64xbf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>>
  %s = tilegpu.local_alloc : !tilegpu.smem<2x64x32xbf16, #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>
  %st = tilegpu.trans_view %s : !tilegpu.smem<2x64x32xbf16, #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>> -> !tilegpu.smem<2x32x64xbf16, #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]}>>
  return
}
