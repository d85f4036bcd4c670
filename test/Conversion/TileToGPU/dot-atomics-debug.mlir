// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

#c = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#a = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [16, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// The FMA dot: 4x8 accumulator, one element per thread, K = 16: the
// bf16 operands widen to f32 and 16 fused multiply-adds make the element.
// CHECK-LABEL: gpu.func @dot
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-COUNT-16: math.fma
// CHECK-NOT: math.fma
// CHECK: gpu.return
func.func @dot(%s: bf16, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %a = tile.splat %s : bf16 -> tensor<4x16xbf16, #a>
  %b = tile.splat %s : bf16 -> tensor<16x8xbf16, #b>
  %z = arith.constant dense<0.0> : tensor<4x8xf32, #c>
  %d = tile.dot %a, %b, %z : tensor<4x16xbf16, #a>, tensor<16x8xbf16, #b> -> tensor<4x8xf32, #c>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<4x8x!tile.ptr<f32>, #c>
  tile.store %ys, %d : tensor<4x8x!tile.ptr<f32>, #c>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// Atomics: one atom per element with the ordering and scope asked for; a
// scalar atomic runs in thread 0 and its old value reaches every thread
// through shared memory.
// CHECK-LABEL: gpu.func @atomics
// CHECK: "mov.b32 $0, 0;\0A\09@$1 atom.global.acq_rel.gpu.add.f32 $0, [ $2 + 0 ], $3;", "=r,b,l,r"
// CHECK: "mov.b32 $0, 0;\0A\09atom.global.relaxed.cta.max.s32 $0, [ $1 + 0 ], $2;", "=r,l,r"
// CHECK: "mov.b32 $0, 0;\0A\09atom.global.acq_rel.gpu.cas.b32 $0, [ $1 + 0 ], $2, $3;"
// CHECK: %[[T0:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32
// CHECK: %[[OLD:.*]] = llvm.inline_asm {{.*}}"mov.b64 $0, 0;\0A\09@$1 atom.global.acq_rel.sys.exch.b64 $0, [ $2 + 0 ], $3;", "=l,b,l,l" %[[T0]]
// CHECK: nvvm.barrier0
// CHECK: scf.if %[[T0]] {
// CHECK:   llvm.store %[[OLD]]
// CHECK: nvvm.barrier0
// CHECK: llvm.load
func.func @atomics(%f: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                   %i: !tile.ptr<i32>, %l: !tile.ptr<i64>, %v: i64)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 32 : tensor<32xi32, #b>
  %fs = tile.splat %f : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #b>
  %fp = tile.addptr %fs, %r : tensor<32x!tile.ptr<f32>, #b>, tensor<32xi32, #b>
  %one = arith.constant dense<1.0> : tensor<32xf32, #b>
  %m = arith.constant dense<true> : tensor<32xi1, #b>
  %mm = arith.cmpi slt, %r, %r : tensor<32xi32, #b>
  %o1 = tile.atomic_rmw fadd %fp, %one, %mm : tensor<32x!tile.ptr<f32>, #b>
  %is = tile.splat %i : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>, #b>
  %ip = tile.addptr %is, %r : tensor<32x!tile.ptr<i32>, #b>, tensor<32xi32, #b>
  %o2 = tile.atomic_rmw max %ip, %r sem = relaxed scope = cta : tensor<32x!tile.ptr<i32>, #b>
  %o3 = tile.atomic_cas %ip, %r, %o2 : tensor<32x!tile.ptr<i32>, #b>
  %o4 = tile.atomic_rmw xchg %l, %v scope = sys : !tile.ptr<i64>
  tile.store %l, %o4 : !tile.ptr<i64>
  tile.store %ip, %o3 : tensor<32x!tile.ptr<i32>, #b>
  tile.store %fp, %o1 : tensor<32x!tile.ptr<f32>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// print: vprintf lines with the program id and each element's index, in
// the interpreter's format (so that scripts/gpu-diff.sh can compare them):
// one line per element of each argument, "(operand k) " when there are
// several, floats with 9 significant digits (5 for f16), hex zero-padded;
// a scalar is the program's, printed by thread 0 only;
// assert: a cf.assert (__assertfail) per element.
// CHECK-LABEL: gpu.func @debug
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0_i32
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: gpu.printf "pid (%d, %d, %d) n =%d\0A"
// CHECK: gpu.printf "pid (%d, %d, %d) idx [%d] n =0x%08x\0A"
// CHECK: gpu.printf "pid (%d, %d, %d) idx [%d] n =0x%08x\0A"
// CHECK: gpu.printf "pid (%d, %d, %d) idx [%d] v = (operand 0) %.9g\0A"
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: gpu.printf "pid (%d, %d, %d) v = (operand 1) %.5g\0A"
// CHECK: cf.assert %{{.*}}, "100%% sure"
// CHECK: cf.assert %{{.*}}, "100%% sure"
// CHECK: gpu.printf "pid (%d, %d, %d) done, 100%% sure\0A"
func.func @debug(%n: i32, %h: f16) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 64 : tensor<64xi32, #b>
  tile.print "n =" %n : i32
  tile.print "n =" hex %r : tensor<64xi32, #b>
  %f = arith.sitofp %r : tensor<64xi32, #b> to tensor<64xf32, #b>
  tile.print "v = " %f, %h : tensor<64xf32, #b>, f16
  %ns = tile.splat %n : i32 -> tensor<64xi32, #b>
  %ok = arith.cmpi slt, %r, %ns : tensor<64xi32, #b>
  tile.assert %ok, "100%% sure" : tensor<64xi1, #b>
  tile.print "done, 100% sure"
  return
}
