// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu=fast-math=0 --canonicalize --cse | FileCheck %s --check-prefix=NOFAST

#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>

// The kernel ABI: one parameter each, pointers as global pointers, i1 as an
// i32 compared with 0; 64 threads. Each thread holds 4 consecutive elements
// of the 256: index lane * 4 + warp * 128 + e.
// CHECK-LABEL: gpu.func @kernel(
// CHECK-SAME: %[[X:.*]]: !llvm.ptr<1>, %[[N:.*]]: i32, %[[F:.*]]: i32) kernel
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK-DAG: %[[FLAG:.*]] = arith.cmpi ne, %[[F]], %c0_i32 : i32
// CHECK-DAG: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-DAG: %[[LANE:.*]] = arith.andi %[[TID]], %c31_i32
// CHECK-DAG: %[[W:.*]] = arith.shrui %[[TID]], %c5_i32
// CHECK: %[[WARP:.*]] = arith.andi %[[W]], %c1_i32
// CHECK: %[[LL:.*]] = arith.muli %[[LANE]], %c4_i32
// CHECK: %[[WL:.*]] = arith.muli %[[WARP]], %c128_i32
// CHECK: %[[I0:.*]] = arith.addi %[[LL]], %[[WL]]
// CHECK: %[[I1:.*]] = arith.addi %[[I0]], %c1_i32
// CHECK: %[[I2:.*]] = arith.addi %[[I0]], %c2_i32
// CHECK: %[[I3:.*]] = arith.addi %[[I0]], %c3_i32
// CHECK: %[[Y0:.*]] = arith.addi %[[I0]], %[[N]] : i32
// CHECK: %[[Y1:.*]] = arith.addi %[[I1]], %[[N]] : i32
// CHECK: %[[Y2:.*]] = arith.addi %[[I2]], %[[N]] : i32
// CHECK: %[[Y3:.*]] = arith.addi %[[I3]], %[[N]] : i32
// exp(x) = 2^(x log2 e) on the ex2.approx unit.
// CHECK: %[[M:.*]] = arith.mulf {{.*}}, %cst fastmath<contract> : f32
// CHECK: llvm.inline_asm asm_dialect = att "ex2.approx.f32 $0, $1;", "=f,f" %[[M]]
// CHECK-COUNT-3: ex2.approx.f32
// Scalar operands (the i1 condition) are shared by every element.
// CHECK-COUNT-4: arith.select %[[FLAG]]
// CHECK: gpu.return
func.func @kernel(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %n: i32, %flag: i1)
    attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %r = tile.range 0, 256 : tensor<256xi32, #b>
  %ns = tile.splat %n : i32 -> tensor<256xi32, #b>
  %y = arith.addi %r, %ns : tensor<256xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %y : tensor<256x!tile.ptr<f32>, #b>, tensor<256xi32, #b>
  %v = tile.load %p : tensor<256x!tile.ptr<f32>, #b>
  %e = math.exp %v : tensor<256xf32, #b>
  %s = arith.select %flag, %e, %v : tensor<256xf32, #b>
  tile.store %p, %s : tensor<256x!tile.ptr<f32>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#s0 = #tilegpu.slice<{dim = 0, parent = #b}>
#s1 = #tilegpu.slice<{dim = 1, parent = #b}>

// Grid queries, splat constants, unit dims and broadcasts move no data:
// expand_dims forwards the slice's elements, broadcast repeats them.
// CHECK-LABEL: gpu.func @shapes(
// CHECK-DAG: nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-DAG: nvvm.read.ptx.sreg.nctaid.z : i32
// CHECK-DAG: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[LANE:.*]] = arith.andi %[[TID]], %c31_i32
// Row index: lane bits 2-4.
// CHECK-DAG: %[[RS:.*]] = arith.shrui %[[LANE]], %c2_i32
// CHECK-DAG: %[[RL:.*]] = arith.andi %[[RS]], %c7_i32
// Column index: lane bits 0-1 times 2 (2 elements per thread along dim 1).
// CHECK-DAG: %[[CL:.*]] = arith.andi %[[LANE]], %c3_i32
// CHECK: %[[C0:.*]] = arith.muli %[[CL]], %c2_i32
// CHECK: %[[C1:.*]] = arith.addi %[[C0]], %c1_i32
// 8x8 tile, 32 threads, 2 elements each: row r + column c0 and c0 + 1.
// CHECK: %[[S0:.*]] = arith.addi %[[RL]], %[[C0]]
// CHECK: %[[S1:.*]] = arith.addi %[[RL]], %[[C1]]
// CHECK: llvm.inline_asm {{.*}}st.global{{.*}} %[[S0]]
// CHECK: llvm.inline_asm {{.*}}st.global{{.*}} %[[S1]]
func.func @shapes(%out: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %pid = tile.program_id 1
  %np = tile.num_programs 2
  %r = tile.range 0, 8 : tensor<8xi32, #s1>
  %c = tile.range 0, 8 : tensor<8xi32, #s0>
  %r1 = tile.expand_dims %r, 1 : tensor<8xi32, #s1> -> tensor<8x1xi32, #b>
  %c1 = tile.expand_dims %c, 0 : tensor<8xi32, #s0> -> tensor<1x8xi32, #b>
  %rb = tile.broadcast %r1 : tensor<8x1xi32, #b> -> tensor<8x8xi32, #b>
  %cb = tile.broadcast %c1 : tensor<1x8xi32, #b> -> tensor<8x8xi32, #b>
  %sum = arith.addi %rb, %cb : tensor<8x8xi32, #b>
  %k = arith.addi %pid, %np : i32
  %ks = tile.splat %k : i32 -> tensor<8x8xi32, #b>
  %os = tile.splat %out : !tile.ptr<i32> -> tensor<8x8x!tile.ptr<i32>, #b>
  %op = tile.addptr %os, %ks : tensor<8x8x!tile.ptr<i32>, #b>, tensor<8x8xi32, #b>
  tile.store %op, %sum : tensor<8x8x!tile.ptr<i32>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// `r < n` with n a multiple of 16 is constant over aligned runs of 16, so a
// thread's 8 consecutive elements share one compare (and the select uses
// it for all 8); `r < m` (m unknown) needs one compare per element.
// CHECK-LABEL: gpu.func @constancy
// CHECK: %[[C:.*]] = arith.cmpi slt, %{{.*}}, %arg1 : i32
// CHECK-NOT: arith.cmpi slt, %{{.*}}, %arg1
// CHECK-COUNT-8: arith.cmpi slt, %{{.*}}, %arg2 : i32
// CHECK-COUNT-8: arith.select %[[C]]
// CHECK-NOT: arith.cmpi slt, %{{.*}}, %arg1
// CHECK: gpu.return
func.func @constancy(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                     %n: i32 {tile.divisibility = 16 : i32}, %m: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 256 : tensor<256xi32, #b>
  %ns = tile.splat %n : i32 -> tensor<256xi32, #b>
  %ms = tile.splat %m : i32 -> tensor<256xi32, #b>
  %a = arith.cmpi slt, %r, %ns : tensor<256xi32, #b>
  %c = arith.cmpi slt, %r, %ms : tensor<256xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>, #b>, tensor<256xi32, #b>
  %v = tile.load %p : tensor<256x!tile.ptr<f32>, #b>
  %z = arith.constant dense<0.0> : tensor<256xf32, #b>
  %s = arith.select %a, %v, %z : tensor<256xi1, #b>, tensor<256xf32, #b>
  %t = arith.select %c, %s, %z : tensor<256xi1, #b>, tensor<256xf32, #b>
  tile.store %p, %t : tensor<256x!tile.ptr<f32>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// Fast math: f32 division is div.full.f32 (f64 keeps arith.divf, the IEEE
// division), and float add/sub/mul carry `contract` so that LLVM may fuse
// a multiply into the add that uses it (one fma).
// CHECK-LABEL: gpu.func @fastmath
// CHECK: %[[Q:.*]] = llvm.inline_asm asm_dialect = att "div.full.f32 $0, $1, $2;", "=f,f,f"
// CHECK: %[[P:.*]] = arith.mulf %[[Q]], %{{.*}} fastmath<contract> : f32
// CHECK: arith.addf %[[P]], %{{.*}} fastmath<contract> : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// NOFAST-LABEL: gpu.func @fastmath
// NOFAST: arith.divf %{{.*}}, %{{.*}} : f32
// NOFAST-NOT: fastmath<contract>
// NOFAST-NOT: div.full
func.func @fastmath(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                    %y: !tile.ptr<f64> {tile.divisibility = 16 : i32},
                    %d: f32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 32 : tensor<32xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<32x!tile.ptr<f32>, #b>, tensor<32xi32, #b>
  %v = tile.load %p : tensor<32x!tile.ptr<f32>, #b>
  %ds = tile.splat %d : f32 -> tensor<32xf32, #b>
  %q = arith.divf %v, %ds : tensor<32xf32, #b>
  %m = arith.mulf %q, %v : tensor<32xf32, #b>
  %a = arith.addf %m, %ds : tensor<32xf32, #b>
  tile.store %p, %a : tensor<32x!tile.ptr<f32>, #b>
  %ys = tile.splat %y : !tile.ptr<f64> -> tensor<32x!tile.ptr<f64>, #b>
  %yp = tile.addptr %ys, %r : tensor<32x!tile.ptr<f64>, #b>, tensor<32xi32, #b>
  %w = arith.extf %v : tensor<32xf32, #b> to tensor<32xf64, #b>
  %wq = arith.divf %w, %w : tensor<32xf64, #b>
  tile.store %yp, %wq : tensor<32x!tile.ptr<f64>, #b>
  return
}
