// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// n is a multiple of 16: the mask is uniform over each group of 4, so each
// group is one predicated 16-byte load (`other` where the mask is false)
// and one predicated 16-byte store.
// CHECK-LABEL: gpu.func @uniform_mask
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $4;\0A\09mov.b32 $1, $5;\0A\09mov.b32 $2, $6;\0A\09mov.b32 $3, $7;\0A\09@$8 ld.global.v4.b32 {$0, $1, $2, $3}, [ $9 + 0 ];", "=r,=r,=r,=r,r,r,r,r,b,l"
// CHECK-NOT: scf.if
// CHECK: "@$0 st.global.v4.b32 [ $1 + 0 ], {$2, $3, $4, $5};", "b,l,r,r,r,r"
func.func @uniform_mask(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                        %n: i32 {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 128 : tensor<128xi32, #b>
  %ns = tile.splat %n : i32 -> tensor<128xi32, #b>
  %m = arith.cmpi slt, %r, %ns : tensor<128xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
  %other = arith.constant dense<2.0> : tensor<128xf32, #b>
  %v = tile.load %p, %m, %other : tensor<128x!tile.ptr<f32>, #b>
  tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// Nothing is known about n: each group of 4 is one 16-byte access,
// predicated on the whole group being in bounds, and both groups' vector
// loads come before any branch (all in flight together); only when some
// group is partly in bounds does that group go element by element
// (addresses from the group's base). Stores likewise.
// CHECK-LABEL: gpu.func @runtime_mask
// CHECK: arith.andi {{.*}} : i1
// CHECK: arith.andi {{.*}} : i1
// CHECK: %[[ALL0:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: arith.andi {{.*}} : i1
// CHECK: arith.andi {{.*}} : i1
// CHECK: %[[ALL1:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: %[[ALL:.*]] = arith.andi %[[ALL0]], %[[ALL1]] : i1
// CHECK: "mov.b32 $0, $4;{{.*}}@$8 ld.global.v4.b32 {$0, $1, $2, $3}, [ $9 + 0 ];", "=r,=r,=r,=r,r,r,r,r,b,l" {{.*}}, %[[ALL0]], %[[P0:[0-9a-z_]+]]
// CHECK: "mov.b32 $0, $4;{{.*}}@$8 ld.global.v4.b32 {$0, $1, $2, $3}, [ $9 + 0 ];", "=r,=r,=r,=r,r,r,r,r,b,l" {{.*}}, %[[ALL1]], %[[P1:[0-9a-z_]+]]
// CHECK: scf.if %[[ALL]] -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT: scf.yield
// CHECK: } else {
// CHECK: scf.if %[[ALL0]] -> (f32, f32, f32, f32) {
// CHECK: } else {
// CHECK:   "mov.b32 $0, $1;\0A\09@$2 ld.global.b32 $0, [ $3 + 0 ];", "=r,r,b,l" %{{.*}}, %{{.*}}, %[[P0]]
// CHECK:   llvm.getelementptr %[[P0]][1]
// CHECK:   "mov.b32 $0, $1;\0A\09@$2 ld.global.b32 $0, [ $3 + 0 ];"
// CHECK:   llvm.getelementptr %[[P0]][2]
// CHECK:   "mov.b32 $0, $1;\0A\09@$2 ld.global.b32 $0, [ $3 + 0 ];"
// CHECK:   llvm.getelementptr %[[P0]][3]
// CHECK:   "mov.b32 $0, $1;\0A\09@$2 ld.global.b32 $0, [ $3 + 0 ];"
// CHECK: scf.if %[[ALL1]] -> (f32, f32, f32, f32) {
// CHECK-COUNT-4: ld.global.b32
// CHECK: "@$0 st.global.v4.b32 [ $1 + 0 ], {$2, $3, $4, $5};", "b,l,r,r,r,r" %[[ALL0]], %[[P0]]
// CHECK: "@$0 st.global.v4.b32 [ $1 + 0 ], {$2, $3, $4, $5};", "b,l,r,r,r,r" %[[ALL1]], %[[P1]]
// CHECK: %[[PART:.*]] = arith.xori %[[ALL]], %true : i1
// CHECK: scf.if %[[PART]] {
// CHECK: %[[NOT0:.*]] = arith.xori %[[ALL0]], %true : i1
// CHECK: scf.if %[[NOT0]] {
// CHECK-COUNT-4: "@$0 st.global.b32 [ $1 + 0 ], $2;"
// CHECK: %[[NOT1:.*]] = arith.xori %[[ALL1]], %true : i1
// CHECK: scf.if %[[NOT1]] {
// CHECK-COUNT-4: "@$0 st.global.b32 [ $1 + 0 ], $2;"
func.func @runtime_mask(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                        %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 256 : tensor<256xi32, #b>
  %ns = tile.splat %n : i32 -> tensor<256xi32, #b>
  %m = arith.cmpi slt, %r, %ns : tensor<256xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>, #b>, tensor<256xi32, #b>
  %v = tile.load %p, %m : tensor<256x!tile.ptr<f32>, #b>
  tile.store %p, %v, %m : tensor<256x!tile.ptr<f32>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// bf16: 8 elements in the 4 words of one 16-byte load, two per word.
// CHECK-LABEL: gpu.func @bf16
// CHECK: "ld.global.v4.b32 {$0, $1, $2, $3}, [ $4 + 0 ];"
// CHECK: %[[W:.*]] = llvm.extractvalue {{.*}}[0]
// CHECK: %[[LO:.*]] = arith.trunci %[[W]] : i32 to i16
// CHECK: arith.bitcast %[[LO]] : i16 to bf16
// CHECK: %[[HI:.*]] = arith.shrui %[[W]], %c16_i32
// CHECK: arith.trunci %[[HI]] : i32 to i16
// CHECK: "st.global.v4.b32 [ $0 + 0 ], {$1, $2, $3, $4};"
func.func @bf16(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 256 : tensor<256xi32, #b>
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<256x!tile.ptr<bf16>, #b>
  %p = tile.addptr %xs, %r : tensor<256x!tile.ptr<bf16>, #b>, tensor<256xi32, #b>
  %v = tile.load %p : tensor<256x!tile.ptr<bf16>, #b>
  %f = arith.extf %v : tensor<256xbf16, #b> to tensor<256xf32, #b>
  %d = arith.addf %f, %f : tensor<256xf32, #b>
  %g = arith.truncf %d : tensor<256xf32, #b> to tensor<256xbf16, #b>
  tile.store %p, %g : tensor<256x!tile.ptr<bf16>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// Without an alignment hint the pointer may sit anywhere: 4-byte accesses.
// CHECK-LABEL: gpu.func @unaligned
// CHECK-COUNT-4: "ld.global.b32 $0, [ $1 + 0 ];", "=r,l"
// CHECK-NOT: ld.global
// CHECK-COUNT-4: "st.global.b32 [ $0 + 0 ], $1;", "l,r"
func.func @unaligned(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 128 : tensor<128xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
  %v = tile.load %p : tensor<128x!tile.ptr<f32>, #b>
  tile.store %p, %v : tensor<128x!tile.ptr<f32>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// Cache operators and eviction priorities reach the PTX.
// CHECK-LABEL: gpu.func @modifiers
// CHECK: "ld.global.cg.v4.b32
// CHECK: "ld.global.L1::evict_last.v4.b32
// CHECK: "ld.volatile.global.v4.b32
// CHECK: "st.global.cs.v4.b32
// CHECK: "st.global.L1::evict_first.v4.b32
func.func @modifiers(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 128 : tensor<128xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
  %a = tile.load %p cache = cg : tensor<128x!tile.ptr<f32>, #b>
  %b = tile.load %p evict = evict_last : tensor<128x!tile.ptr<f32>, #b>
  %c = tile.load %p volatile : tensor<128x!tile.ptr<f32>, #b>
  tile.store %p, %a cache = cs : tensor<128x!tile.ptr<f32>, #b>
  tile.store %p, %b evict = evict_first : tensor<128x!tile.ptr<f32>, #b>
  tile.store %p, %c : tensor<128x!tile.ptr<f32>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>

// A scalar store runs in thread 0 only; a tile of 32 elements over 64
// threads is stored by the first warp only (the second holds replicas).
// CHECK-LABEL: gpu.func @owners
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0_i32
// CHECK: "@$0 st.global.b32 [ $1 + 0 ], $2;", "b,l,r" %[[FIRST]]
// CHECK: %[[OWNER:.*]] = arith.cmpi ult, %{{.*}}, %c32_i32
// CHECK: "@$0 st.global.b32 [ $1 + 0 ], $2;", "b,l,r" %[[OWNER]]
func.func @owners(%x: !tile.ptr<i32>, %v: i32)
    attributes {tile.kernel, tile.num_warps = 2 : i32} {
  tile.store %x, %v : !tile.ptr<i32>
  %r = tile.range 0, 32 : tensor<32xi32, #b>
  %xs = tile.splat %x : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>, #b>
  %p = tile.addptr %xs, %r : tensor<32x!tile.ptr<i32>, #b>, tensor<32xi32, #b>
  tile.store %p, %r : tensor<32x!tile.ptr<i32>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// f32 results stored as bf16: each pair of a word is rounded by one vector
// fptrunc (cvt.rn.bf16x2.f32), not two conversions and a shift and an or.
// CHECK-LABEL: gpu.func @pack_bf16
// CHECK-COUNT-4: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK-NOT: arith.truncf
// CHECK: "st.global.v4.b32 [ $0 + 0 ], {$1, $2, $3, $4};"
func.func @pack_bf16(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                     %y: !tile.ptr<bf16> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 256 : tensor<256xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>, #b>, tensor<256xi32, #b>
  %v = tile.load %xp : tensor<256x!tile.ptr<f32>, #b>
  %t = arith.truncf %v : tensor<256xf32, #b> to tensor<256xbf16, #b>
  %ys = tile.splat %y : !tile.ptr<bf16> -> tensor<256x!tile.ptr<bf16>, #b>
  %yp = tile.addptr %ys, %r : tensor<256x!tile.ptr<bf16>, #b>, tensor<256xi32, #b>
  tile.store %yp, %t : tensor<256x!tile.ptr<bf16>, #b>
  return
}
