// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// A 16x16x16 bf16 dot on one warp: each operand goes to shared memory in
// 16-byte runs (the swizzled layout) between barriers and comes back with
// one ldmatrix.x4 (A row-major, B transposed: its rows are K); two
// mma.sync m16n8k16 (two 8-column halves of the accumulator) share A's
// registers.
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
// CHECK-LABEL: gpu.func @mma
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: nvvm.ldmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: nvvm.ldmatrix {{.*}} layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK: %[[D0:.*]] = nvvm.mma.sync A[%[[A0:.*]], %[[A1:.*]], %[[A2:.*]], %[[A3:.*]]] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: nvvm.mma.sync A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]]
// CHECK-NOT: nvvm.mma.sync
// The accumulator is stored from the mma layout: pairs of columns.
// CHECK-COUNT-8: st.global.b32
func.func @mma(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %p = tile.splat %x : !tile.ptr<bf16> -> tensor<16x16x!tile.ptr<bf16>, #bl>
  %v = tile.load %p : tensor<16x16x!tile.ptr<bf16>, #bl>
  %va = tile.convert_layout %v : tensor<16x16xbf16, #bl> -> tensor<16x16xbf16, #a>
  %vb = tile.convert_layout %v : tensor<16x16xbf16, #bl> -> tensor<16x16xbf16, #b>
  %z = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
  %d = tile.dot %va, %vb, %z : tensor<16x16xbf16, #a>, tensor<16x16xbf16, #b> -> tensor<16x16xf32, #mma>
  %q = tile.splat %y : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>, #mma>
  tile.store %q, %d : tensor<16x16x!tile.ptr<f32>, #mma>
  return
}

// -----

// f16 accumulation: the accumulator travels as two f16x2 registers.
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
// CHECK-LABEL: gpu.func @f16acc
// CHECK: nvvm.mma.sync {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
func.func @f16acc(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %p = tile.splat %x : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>, #bl>
  %v = tile.load %p : tensor<16x16x!tile.ptr<f16>, #bl>
  %va = tile.convert_layout %v : tensor<16x16xf16, #bl> -> tensor<16x16xf16, #a>
  %vb = tile.convert_layout %v : tensor<16x16xf16, #bl> -> tensor<16x16xf16, #b>
  %z = arith.constant dense<0.0> : tensor<16x16xf16, #mma>
  %d = tile.dot %va, %vb, %z : tensor<16x16xf16, #a>, tensor<16x16xf16, #b> -> tensor<16x16xf16, #mma>
  %q = tile.splat %y : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>, #mma>
  tile.store %q, %d : tensor<16x16x!tile.ptr<f16>, #mma>
  return
}

// -----

// The pipeliner's ops: the buffer at its offset in shared memory, 16-byte
// cp.async per thread (the zero-fill size chosen by the mask, uniform over
// each run here), commit, wait + barrier, ldmatrix from the slot.
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#rows = #tilegpu.slice<{dim = 1, parent = #bl}>
#cols = #tilegpu.slice<{dim = 0, parent = #bl}>
#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#sh = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
// The buffer (2 slots of 512 bytes) overlaps nothing: 1024 bytes in all.
// CHECK: tile.shared_bytes = {async = 1024 : i64}
// CHECK-LABEL: gpu.func @async
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK: %[[SIZE:.*]] = arith.select %{{.*}}, %c16_i32, %c0_i32 : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.ldmatrix {{.*}} num = 4 : i32
func.func @async(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                 %n: i32, %y: !tile.ptr<bf16>)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 16 : tensor<16xi32, #rows>
  %c = tile.range 0, 16 : tensor<16xi32, #cols>
  %r2 = tile.expand_dims %r, 1 : tensor<16xi32, #rows> -> tensor<16x1xi32, #bl>
  %c2 = tile.expand_dims %c, 0 : tensor<16xi32, #cols> -> tensor<1x16xi32, #bl>
  %k16 = arith.constant dense<16> : tensor<16x1xi32, #bl>
  %ro = arith.muli %r2, %k16 : tensor<16x1xi32, #bl>
  %rob = tile.broadcast %ro : tensor<16x1xi32, #bl> -> tensor<16x16xi32, #bl>
  %cb = tile.broadcast %c2 : tensor<1x16xi32, #bl> -> tensor<16x16xi32, #bl>
  %off = arith.addi %rob, %cb : tensor<16x16xi32, #bl>
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<16x16x!tile.ptr<bf16>, #bl>
  %p = tile.addptr %xs, %off : tensor<16x16x!tile.ptr<bf16>, #bl>, tensor<16x16xi32, #bl>
  %ns = tile.splat %n : i32 -> tensor<16x1xi32, #bl>
  %m1 = arith.cmpi slt, %r2, %ns : tensor<16x1xi32, #bl>
  %m = tile.broadcast %m1 : tensor<16x1xi1, #bl> -> tensor<16x16xi1, #bl>
  %buf = tilegpu.local_alloc : !tilegpu.smem<2x16x16xbf16, #sh>
  %s0 = arith.constant 0 : i32
  tilegpu.async_copy %p, %m into %buf[%s0] : tensor<16x16x!tile.ptr<bf16>, #bl>, tensor<16x16xi1, #bl> into !tilegpu.smem<2x16x16xbf16, #sh>
  tilegpu.async_commit
  tilegpu.async_wait {pending = 0 : i32}
  %v = tilegpu.local_load %buf[%s0] : !tilegpu.smem<2x16x16xbf16, #sh> -> tensor<16x16xbf16, #a>
  %ys = tile.splat %y : !tile.ptr<bf16> -> tensor<16x16x!tile.ptr<bf16>, #a>
  tile.store %ys, %v : tensor<16x16x!tile.ptr<bf16>, #a>
  return
}

// -----

// A conversion (1 KiB of scratch at offset 0) runs while the buffer lives:
// the buffer goes after the scratch, 2 KiB in all.
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#bl2 = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [0, 1]}>
#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#sh = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
// CHECK: tile.shared_bytes = {inside = 2048 : i64}
// CHECK-LABEL: gpu.func @inside
// CHECK: llvm.getelementptr %{{.*}}[1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
func.func @inside(%x: !tile.ptr<bf16>, %f: !tile.ptr<f32>, %y: !tile.ptr<bf16>)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<16x16x!tile.ptr<bf16>, #bl>
  %buf = tilegpu.local_alloc : !tilegpu.smem<2x16x16xbf16, #sh>
  %s0 = arith.constant 0 : i32
  tilegpu.async_copy %xs into %buf[%s0] : tensor<16x16x!tile.ptr<bf16>, #bl> into !tilegpu.smem<2x16x16xbf16, #sh>
  tilegpu.async_commit
  tilegpu.async_wait {pending = 0 : i32}
  %fs = tile.splat %f : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>, #bl>
  %fv = tile.load %fs : tensor<16x16x!tile.ptr<f32>, #bl>
  %fc = tile.convert_layout %fv : tensor<16x16xf32, #bl> -> tensor<16x16xf32, #bl2>
  %fs2 = tile.splat %f : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>, #bl2>
  tile.store %fs2, %fc : tensor<16x16x!tile.ptr<f32>, #bl2>
  %v = tilegpu.local_load %buf[%s0] : !tilegpu.smem<2x16x16xbf16, #sh> -> tensor<16x16xbf16, #a>
  %ys = tile.splat %y : !tile.ptr<bf16> -> tensor<16x16x!tile.ptr<bf16>, #a>
  tile.store %ys, %v : tensor<16x16x!tile.ptr<bf16>, #a>
  return
}

// -----

// f32 operands at tf32 precision: kWidth 1 operands, each element rounded
// by cvt.rna.tf32.f32 into a b32 register, one mma.sync m16n8k8 per
// 16x8 tile and step of 8 along K (four A registers, two B).
#bl = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 1}>
#b = #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 1}>
// CHECK-LABEL: gpu.func @tf32
// CHECK-COUNT-6: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
func.func @tf32(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<16x8x!tile.ptr<f32>, #bl>
  %v = tile.load %p : tensor<16x8x!tile.ptr<f32>, #bl>
  %va = tile.convert_layout %v : tensor<16x8xf32, #bl> -> tensor<16x8xf32, #a>
  %q8 = tile.splat %x : !tile.ptr<f32> -> tensor<8x8x!tile.ptr<f32>, #bl>
  %w = tile.load %q8 : tensor<8x8x!tile.ptr<f32>, #bl>
  %vb = tile.convert_layout %w : tensor<8x8xf32, #bl> -> tensor<8x8xf32, #b>
  %z = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
  %d = tile.dot %va, %vb, %z : tensor<16x8xf32, #a>, tensor<8x8xf32, #b> -> tensor<16x8xf32, #mma>
  %q = tile.splat %y : !tile.ptr<f32> -> tensor<16x8x!tile.ptr<f32>, #mma>
  tile.store %q, %d : tensor<16x8x!tile.ptr<f32>, #mma>
  return
}
