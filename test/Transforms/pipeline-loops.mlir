// RUN: tile-opt %s --split-input-file --tile-assign-layouts --tile-pipeline-loops=num-stages=4 --canonicalize | FileCheck %s

// The loads feeding an mma dot become cp.async copies into 4-slot buffers:
// three stages before the loop (masked off past the bound, one group
// each), then per iteration a wait for its own group, the copy three
// iterations ahead into the slot the last iteration read, and ldmatrix
// reads from the current slot. The loop carries the ahead pointers and the
// two slot numbers; its original pointers are gone.
// CHECK-LABEL: func.func @loop
// CHECK: %[[A:.*]] = tilegpu.local_alloc : !tilegpu.smem<4x64x16xf16, #[[$SA:shared[0-9]*]]>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : !tilegpu.smem<4x16x64xf16, #[[$SB:shared[0-9]*]]>
// CHECK: %[[IN0:.*]] = arith.cmpi sgt, %[[K:.*]], %c0_i32
// CHECK: %[[M0:.*]] = tile.splat %[[IN0]] : i1 -> tensor<64x16xi1
// CHECK: tilegpu.async_copy %{{.*}}, %[[M0]] into %[[A]][%c0_i32]
// CHECK: tilegpu.async_copy %{{.*}}, %{{.*}} into %[[B]][%c0_i32]
// CHECK: tilegpu.async_commit
// CHECK: tilegpu.async_copy {{.*}} %[[A]][%c1_i32]
// CHECK: tilegpu.async_copy {{.*}} %[[B]][%c1_i32]
// CHECK: tilegpu.async_commit
// CHECK: tilegpu.async_copy {{.*}} %[[A]][%c2_i32]
// CHECK: tilegpu.async_copy {{.*}} %[[B]][%c2_i32]
// CHECK: tilegpu.async_commit
// CHECK: scf.for %[[IV:.*]] = %c0_i32 to %[[K]] step %c16_i32 iter_args(%[[ACC:.*]] = %{{.*}}, %[[PB:.*]] = %{{.*}}, %[[PA:.*]] = %{{.*}}, %[[RD:.*]] = %c0_i32, %[[WR:.*]] = %c3_i32) -> (tensor<64x64xf32, #mma>, tensor<16x64x!tile.ptr<f16>, #{{.*}}>, tensor<64x16x!tile.ptr<f16>, #{{.*}}>, i32, i32)
// CHECK-NEXT: tilegpu.async_wait {pending = 2 : i32}
// CHECK: %[[AHEAD:.*]] = arith.addi %[[IV]], %c48_i32
// CHECK: arith.cmpi slt, %[[AHEAD]], %[[K]]
// CHECK: tilegpu.async_copy %[[PA]], %{{.*}} into %[[A]][%[[WR]]]
// CHECK: tilegpu.async_copy %[[PB]], %{{.*}} into %[[B]][%[[WR]]]
// CHECK-NEXT: tilegpu.async_commit
// CHECK: %[[LA:.*]] = tilegpu.local_load %[[A]][%[[RD]]] : !tilegpu.smem<4x64x16xf16, #[[$SA]]> -> tensor<64x16xf16, #dot_op>
// CHECK: %[[LB:.*]] = tilegpu.local_load %[[B]][%[[RD]]] : !tilegpu.smem<4x16x64xf16, #[[$SB]]> -> tensor<16x64xf16, #dot_op1>
// CHECK: tile.dot %[[LA]], %[[LB]], %[[ACC]]
// CHECK-NOT: tile.load
// CHECK: }
// CHECK-NEXT: tilegpu.async_wait {pending = 0 : i32}
func.func @loop(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %r = tile.range 0, 16 : tensor<16xi32>
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k16 = arith.constant dense<16> : tensor<64x1xi32>
  %ro = arith.muli %rows, %k16 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x16xi32>
  %ks = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %ksb = tile.broadcast %ks : tensor<1x16xi32> -> tensor<64x16xi32>
  %aoff = arith.addi %rob, %ksb : tensor<64x16xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x16x!tile.ptr<f16>>
  %ap0 = tile.addptr %as, %aoff : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
  %kr = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %k64 = arith.constant dense<64> : tensor<16x1xi32>
  %kro = arith.muli %kr, %k64 : tensor<16x1xi32>
  %krob = tile.broadcast %kro : tensor<16x1xi32> -> tensor<16x64xi32>
  %cols = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %boff = arith.addi %krob, %colsb : tensor<16x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %bp0 = tile.addptr %bs, %boff : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %astep = arith.constant dense<16> : tensor<64x16xi32>
  %bstep = arith.constant dense<1024> : tensor<16x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %ae, %be = scf.for %k = %c0 to %K step %c16
      iter_args(%acc_i = %zero, %ap = %ap0, %bp = %bp0)
      -> (tensor<64x64xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x64x!tile.ptr<f16>>) : i32 {
    %at = tile.load %ap : tensor<64x16x!tile.ptr<f16>>
    %bt = tile.load %bp : tensor<16x64x!tile.ptr<f16>>
    %d = tile.dot %at, %bt, %acc_i : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
    %apn = tile.addptr %ap, %astep : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
    %bpn = tile.addptr %bp, %bstep : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
    scf.yield %d, %apn, %bpn : tensor<64x64xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x64x!tile.ptr<f16>>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// A load with a non-zero `other` stays (cp.async fills zeros); the other
// operand's load is pipelined alone.
// CHECK-LABEL: func.func @other
// CHECK: tilegpu.local_alloc : !tilegpu.smem<4x16x64xf16
// CHECK-NOT: tilegpu.local_alloc
// CHECK: scf.for
// CHECK: tile.load {{.*}} : tensor<64x16x!tile.ptr<f16>
// CHECK: tilegpu.local_load
func.func @other(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %r = tile.range 0, 16 : tensor<16xi32>
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k16 = arith.constant dense<16> : tensor<64x1xi32>
  %ro = arith.muli %rows, %k16 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x16xi32>
  %ks = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %ksb = tile.broadcast %ks : tensor<1x16xi32> -> tensor<64x16xi32>
  %aoff = arith.addi %rob, %ksb : tensor<64x16xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x16x!tile.ptr<f16>>
  %ap0 = tile.addptr %as, %aoff : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
  %kr = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %k64 = arith.constant dense<64> : tensor<16x1xi32>
  %kro = arith.muli %kr, %k64 : tensor<16x1xi32>
  %krob = tile.broadcast %kro : tensor<16x1xi32> -> tensor<16x64xi32>
  %cols = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %boff = arith.addi %krob, %colsb : tensor<16x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %bp0 = tile.addptr %bs, %boff : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %astep = arith.constant dense<16> : tensor<64x16xi32>
  %bstep = arith.constant dense<1024> : tensor<16x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %ae, %be = scf.for %k = %c0 to %K step %c16
      iter_args(%acc_i = %zero, %ap = %ap0, %bp = %bp0)
      -> (tensor<64x64xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x64x!tile.ptr<f16>>) : i32 {
    %one = arith.constant dense<1.0> : tensor<64x16xf16>
    %true = arith.constant dense<true> : tensor<64x16xi1>
    %at = tile.load %ap, %true, %one : tensor<64x16x!tile.ptr<f16>>
    %bt = tile.load %bp : tensor<16x64x!tile.ptr<f16>>
    %d = tile.dot %at, %bt, %acc_i : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
    %apn = tile.addptr %ap, %astep : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
    %bpn = tile.addptr %bp, %bstep : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
    scf.yield %d, %apn, %bpn : tensor<64x64xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x64x!tile.ptr<f16>>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// tile.num_stages = 1: no pipelining.
// CHECK-LABEL: func.func @single
// CHECK-NOT: tilegpu.async_copy
// CHECK: tile.load
// CHECK: tile.load
func.func @single(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.num_stages = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %r = tile.range 0, 16 : tensor<16xi32>
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k16 = arith.constant dense<16> : tensor<64x1xi32>
  %ro = arith.muli %rows, %k16 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x16xi32>
  %ks = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %ksb = tile.broadcast %ks : tensor<1x16xi32> -> tensor<64x16xi32>
  %aoff = arith.addi %rob, %ksb : tensor<64x16xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x16x!tile.ptr<f16>>
  %ap0 = tile.addptr %as, %aoff : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
  %kr = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %k64 = arith.constant dense<64> : tensor<16x1xi32>
  %kro = arith.muli %kr, %k64 : tensor<16x1xi32>
  %krob = tile.broadcast %kro : tensor<16x1xi32> -> tensor<16x64xi32>
  %cols = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %boff = arith.addi %krob, %colsb : tensor<16x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %bp0 = tile.addptr %bs, %boff : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %astep = arith.constant dense<16> : tensor<64x16xi32>
  %bstep = arith.constant dense<1024> : tensor<16x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %ae, %be = scf.for %k = %c0 to %K step %c16
      iter_args(%acc_i = %zero, %ap = %ap0, %bp = %bp0)
      -> (tensor<64x64xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x64x!tile.ptr<f16>>) : i32 {
    %at = tile.load %ap : tensor<64x16x!tile.ptr<f16>>
    %bt = tile.load %bp : tensor<16x64x!tile.ptr<f16>>
    %d = tile.dot %at, %bt, %acc_i : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
    %apn = tile.addptr %ap, %astep : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
    %bpn = tile.addptr %bp, %bstep : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
    scf.yield %d, %apn, %bpn : tensor<64x64xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x64x!tile.ptr<f16>>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// The B pointers advance by a loaded value (a multiple of 64, so the loads
// still vectorize): their addresses cannot run ahead, so the loop is left
// alone.
// CHECK-LABEL: func.func @chase
// CHECK-NOT: tilegpu.async_copy
// CHECK: scf.for
// CHECK-COUNT-2: tile.load {{.*}}f16
func.func @chase(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %s: !tile.ptr<i32>,
                %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %r = tile.range 0, 16 : tensor<16xi32>
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k16 = arith.constant dense<16> : tensor<64x1xi32>
  %ro = arith.muli %rows, %k16 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x16xi32>
  %ks = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %ksb = tile.broadcast %ks : tensor<1x16xi32> -> tensor<64x16xi32>
  %aoff = arith.addi %rob, %ksb : tensor<64x16xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x16x!tile.ptr<f16>>
  %ap0 = tile.addptr %as, %aoff : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
  %kr = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %k64 = arith.constant dense<64> : tensor<16x1xi32>
  %kro = arith.muli %kr, %k64 : tensor<16x1xi32>
  %krob = tile.broadcast %kro : tensor<16x1xi32> -> tensor<16x64xi32>
  %cols = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %boff = arith.addi %krob, %colsb : tensor<16x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>>
  %bp0 = tile.addptr %bs, %boff : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %astep = arith.constant dense<16> : tensor<64x16xi32>
  %bstep = arith.constant dense<1024> : tensor<16x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %ae, %be = scf.for %k = %c0 to %K step %c16
      iter_args(%acc_i = %zero, %ap = %ap0, %bp = %bp0)
      -> (tensor<64x64xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x64x!tile.ptr<f16>>) : i32 {
    %at = tile.load %ap : tensor<64x16x!tile.ptr<f16>>
    %bt = tile.load %bp : tensor<16x64x!tile.ptr<f16>>
    %d = tile.dot %at, %bt, %acc_i : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
    %apn = tile.addptr %ap, %astep : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
    %step = tile.load %s : !tile.ptr<i32>
    %c64 = arith.constant 64 : i32
    %step64 = arith.muli %step, %c64 : i32
    %steps = tile.splat %step64 : i32 -> tensor<16x64xi32>
    %bpn = tile.addptr %bp, %steps : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
    scf.yield %d, %apn, %bpn : tensor<64x64xf32>, tensor<64x16x!tile.ptr<f16>>, tensor<16x64x!tile.ptr<f16>>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// f32 operands of a tf32 dot are staged the same way, 16 bytes (4
// elements) per cp.async, and read back into kWidth-1 operand layouts.
// CHECK-LABEL: func.func @tf32
// CHECK: %[[A:.*]] = tilegpu.local_alloc : !tilegpu.smem<4x64x16xf32, #[[$SA:shared[0-9]*]]>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : !tilegpu.smem<4x16x64xf32, #[[$SB:shared[0-9]*]]>
// CHECK-COUNT-3: tilegpu.async_commit
// CHECK: scf.for
// CHECK: tilegpu.async_copy {{.*}} into %[[A]]
// CHECK: tilegpu.async_copy {{.*}} into %[[B]]
// CHECK: tilegpu.local_load %[[A]][%{{.*}}] : !tilegpu.smem<4x64x16xf32, #[[$SA]]> -> tensor<64x16xf32, #[[$OPA:dot_op[0-9]*]]>
// CHECK: tilegpu.local_load %[[B]][%{{.*}}] : !tilegpu.smem<4x16x64xf32, #[[$SB]]> -> tensor<16x64xf32, #[[$OPB:dot_op[0-9]*]]>
// CHECK: tile.dot {{.*}} : tensor<64x16xf32, #[[$OPA]]>, tensor<16x64xf32, #[[$OPB]]> -> tensor<64x64xf32, #mma>
// CHECK-NOT: tile.load
func.func @tf32(%a: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %b: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %r = tile.range 0, 16 : tensor<16xi32>
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k16 = arith.constant dense<16> : tensor<64x1xi32>
  %ro = arith.muli %rows, %k16 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x16xi32>
  %ks = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %ksb = tile.broadcast %ks : tensor<1x16xi32> -> tensor<64x16xi32>
  %aoff = arith.addi %rob, %ksb : tensor<64x16xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<64x16x!tile.ptr<f32>>
  %ap0 = tile.addptr %as, %aoff : tensor<64x16x!tile.ptr<f32>>, tensor<64x16xi32>
  %kr = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %k64 = arith.constant dense<64> : tensor<16x1xi32>
  %kro = arith.muli %kr, %k64 : tensor<16x1xi32>
  %krob = tile.broadcast %kro : tensor<16x1xi32> -> tensor<16x64xi32>
  %cols = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %boff = arith.addi %krob, %colsb : tensor<16x64xi32>
  %bs = tile.splat %b : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>>
  %bp0 = tile.addptr %bs, %boff : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %astep = arith.constant dense<16> : tensor<64x16xi32>
  %bstep = arith.constant dense<1024> : tensor<16x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %ae, %be = scf.for %k = %c0 to %K step %c16
      iter_args(%acc_i = %zero, %ap = %ap0, %bp = %bp0)
      -> (tensor<64x64xf32>, tensor<64x16x!tile.ptr<f32>>, tensor<16x64x!tile.ptr<f32>>) : i32 {
    %at = tile.load %ap : tensor<64x16x!tile.ptr<f32>>
    %bt = tile.load %bp : tensor<16x64x!tile.ptr<f32>>
    %d = tile.dot %at, %bt, %acc_i : tensor<64x16xf32>, tensor<16x64xf32> -> tensor<64x64xf32>
    %apn = tile.addptr %ap, %astep : tensor<64x16x!tile.ptr<f32>>, tensor<64x16xi32>
    %bpn = tile.addptr %bp, %bstep : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
    scf.yield %d, %apn, %bpn : tensor<64x64xf32>, tensor<64x16x!tile.ptr<f32>>, tensor<16x64x!tile.ptr<f32>>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %cs, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}
