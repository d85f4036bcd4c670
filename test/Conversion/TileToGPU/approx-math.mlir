// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu=approx-math=1 --canonicalize --cse | FileCheck %s --check-prefix=ALL

#b = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// tile.approx_math: each f32 erf becomes t = min(|x|, 3.92) (NaN-propagating),
// P(t) by Horner (5 fma), 2^(t P(t)) on ex2.approx.ftz, 1 - that, with x's
// sign (Support/ApproxErf.h). No libdevice call is left.
// CHECK-LABEL: gpu.func @approx
// CHECK-SAME: tile.approx_math
// CHECK: %[[A:.*]] = math.absf %[[X:.*]] : f32
// CHECK: %[[T:.*]] = arith.minimumf %[[A]], %{{.*}} : f32
// CHECK: %[[P1:.*]] = math.fma %{{.*}}, %[[T]], %{{.*}} : f32
// CHECK-COUNT-4: math.fma {{.*}}, %[[T]],
// CHECK: %[[Q:.*]] = arith.mulf %{{.*}}, %[[T]] fastmath<contract> : f32
// CHECK: %[[E:.*]] = llvm.inline_asm asm_dialect = att "ex2.approx.ftz.f32 $0, $1;", "=f,f" %[[Q]]
// CHECK: %[[R:.*]] = arith.subf %{{.*}}, %[[E]] fastmath<contract> : f32
// CHECK: math.copysign %[[R]], %[[X]] : f32
// CHECK-NOT: math.erf
// CHECK: gpu.return
// ALL-LABEL: gpu.func @approx
// ALL-NOT: math.erf
// ALL: gpu.return
func.func @approx(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 1 : i32, tile.approx_math} {
  %r = tile.range 0, 64 : tensor<64xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>, #b>, tensor<64xi32, #b>
  %v = tile.load %p : tensor<64x!tile.ptr<f32>, #b>
  %e = math.erf %v : tensor<64xf32, #b>
  tile.store %p, %e : tensor<64x!tile.ptr<f32>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// Without the attribute erf stays for libdevice (convert-gpu-to-nvvm);
// approx-math=1 treats every kernel as marked. An f16 erf is never
// approximated here (it is not f32).
// CHECK-LABEL: gpu.func @precise
// CHECK-NOT: tile.approx_math
// CHECK-COUNT-2: math.erf %{{.*}} : f32
// CHECK-COUNT-2: math.erf %{{.*}} : f16
// CHECK-NOT: ex2.approx.ftz
// CHECK: gpu.return
// ALL-LABEL: gpu.func @precise
// ALL-COUNT-2: ex2.approx.ftz.f32
// ALL-COUNT-2: math.erf %{{.*}} : f16
// ALL: gpu.return
func.func @precise(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                   %h: !tile.ptr<f16> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 64 : tensor<64xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>, #b>, tensor<64xi32, #b>
  %v = tile.load %p : tensor<64x!tile.ptr<f32>, #b>
  %e = math.erf %v : tensor<64xf32, #b>
  tile.store %p, %e : tensor<64x!tile.ptr<f32>, #b>
  %hs = tile.splat %h : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>, #b>
  %hp = tile.addptr %hs, %r : tensor<64x!tile.ptr<f16>, #b>, tensor<64xi32, #b>
  %hv = tile.load %hp : tensor<64x!tile.ptr<f16>, #b>
  %he = math.erf %hv : tensor<64xf16, #b>
  tile.store %hp, %he : tensor<64x!tile.ptr<f16>, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// math.exp2 on f32: ex2.approx (denormal results kept; ptxas scales around
// MUFU.EX2); with fastmath<afn> (the builder's exp2Ftz) ex2.approx.ftz.
// CHECK-LABEL: gpu.func @exp2
// CHECK-COUNT-2: "ex2.approx.f32 $0, $1;"
// CHECK-COUNT-2: "ex2.approx.ftz.f32 $0, $1;"
// CHECK-NOT: math.exp2
// CHECK: gpu.return
func.func @exp2(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %y: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.range 0, 64 : tensor<64xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>, #b>, tensor<64xi32, #b>
  %v = tile.load %p : tensor<64x!tile.ptr<f32>, #b>
  %e = math.exp2 %v : tensor<64xf32, #b>
  tile.store %p, %e : tensor<64x!tile.ptr<f32>, #b>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #b>
  %q = tile.addptr %ys, %r : tensor<64x!tile.ptr<f32>, #b>, tensor<64xi32, #b>
  %f = math.exp2 %v fastmath<afn> : tensor<64xf32, #b>
  tile.store %q, %f : tensor<64x!tile.ptr<f32>, #b>
  return
}
