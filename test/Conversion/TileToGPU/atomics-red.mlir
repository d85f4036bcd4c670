// RUN: tile-opt %s --convert-tile-to-gpu=chip=sm_90a --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --convert-tile-to-gpu=chip=sm_80 --canonicalize --cse | FileCheck %s --check-prefix=SM80

#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// An atomic whose old values nobody reads is a `red` (no result register
// to wait for) when it is relaxed or release; f32 adds of four contiguous,
// 16-byte aligned elements per thread are one vector red on sm_90 and
// later (PTX 8.1), one per element before. An acq_rel atomic stays an
// `atom` (its acquire orders later loads even when its value is unused),
// as does one whose values are read.
// CHECK-LABEL: gpu.func @reductions
// CHECK: "@$0 red.global.relaxed.gpu.add.v4.f32 [ $1 + 0 ], {$2, $3, $4, $5};", "b,l,r,r,r,r"
// CHECK-NOT: red.global.relaxed.gpu.add.f32
// CHECK: "red.global.release.cta.add.u32 [ $0 + 0 ], $1;", "l,r"
// CHECK: "mov.b32 $0, 0;\0A\09atom.global.acq_rel.gpu.add.f32
// CHECK: "mov.b32 $0, 0;\0A\09atom.global.relaxed.gpu.add.f32
// SM80-LABEL: gpu.func @reductions
// SM80-COUNT-4: "@$0 red.global.relaxed.gpu.add.f32 [ $1 + 0 ], $2;", "b,l,r"
// SM80-NOT: .v4.f32
func.func @reductions(%f: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %i: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                      %n: i32 {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 128 : tensor<128xi32, #b>
  %fs = tile.splat %f : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  %fp = tile.addptr %fs, %r : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
  %one = arith.constant dense<1.0> : tensor<128xf32, #b>
  %ns = tile.splat %n : i32 -> tensor<128xi32, #b>
  %in = arith.cmpi slt, %r, %ns : tensor<128xi32, #b>
  %o1 = tile.atomic_rmw fadd %fp, %one, %in sem = relaxed : tensor<128x!tile.ptr<f32>, #b>
  %is = tile.splat %i : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>, #b>
  %ip = tile.addptr %is, %r : tensor<128x!tile.ptr<i32>, #b>, tensor<128xi32, #b>
  %o2 = tile.atomic_rmw add %ip, %r sem = release scope = cta : tensor<128x!tile.ptr<i32>, #b>
  %o3 = tile.atomic_rmw fadd %fp, %one : tensor<128x!tile.ptr<f32>, #b>
  %o4 = tile.atomic_rmw fadd %fp, %one sem = relaxed : tensor<128x!tile.ptr<f32>, #b>
  tile.store %fp, %o4 : tensor<128x!tile.ptr<f32>, #b>
  return
}
