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
