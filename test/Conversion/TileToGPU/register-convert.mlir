// RUN: tile-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#opa = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#opb = #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
#r = #tilegpu.slice<{dim = 1, parent = #mma}>
#c = #tilegpu.slice<{dim = 0, parent = #mma}>

// With the warps along M, lane l of a warp holds, of the 16x8 accumulator
// tiles at columns 16i and 16i + 8, exactly the A fragment of the k16 step
// i (rows l/4 and l/4 + 8, columns 2(l%4) + {0, 1, 8, 9}): the conversion
// from the accumulator of one dot to the A operand of the next renames
// registers, with no shared memory and no barrier (attention's P V).
// CHECK-LABEL: gpu.func @chain
// CHECK-SAME: tile.shared_bytes = 0 : i64
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: nvvm.ldmatrix
// CHECK: nvvm.mma.sync
func.func @chain(%h: bf16, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %ri = tile.range 0, 64 : tensor<64xi32, #r>
  %ci = tile.range 0, 64 : tensor<64xi32, #c>
  %r2 = tile.expand_dims %ri, 1 : tensor<64xi32, #r> -> tensor<64x1xi32, #mma>
  %c2 = tile.expand_dims %ci, 0 : tensor<64xi32, #c> -> tensor<1x64xi32, #mma>
  %rb = tile.broadcast %r2 : tensor<64x1xi32, #mma> -> tensor<64x64xi32, #mma>
  %cb = tile.broadcast %c2 : tensor<1x64xi32, #mma> -> tensor<64x64xi32, #mma>
  %idx = arith.addi %rb, %cb : tensor<64x64xi32, #mma>
  %f = arith.sitofp %idx : tensor<64x64xi32, #mma> to tensor<64x64xbf16, #mma>
  %a = tile.convert_layout %f : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #opa>
  %b = tile.splat %h : bf16 -> tensor<64x64xbf16, #opb>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %d = tile.dot %a, %b, %zero : tensor<64x64xbf16, #opa>, tensor<64x64xbf16, #opb> -> tensor<64x64xf32, #mma>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #mma>
  %yp = tile.addptr %ys, %idx : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xi32, #mma>
  tile.store %yp, %d : tensor<64x64x!tile.ptr<f32>, #mma>
  return
}

// -----

#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opa = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#opb = #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
#r = #tilegpu.slice<{dim = 1, parent = #mma}>
#c = #tilegpu.slice<{dim = 0, parent = #mma}>

// Warps split along N hold only some columns of their rows, but the A
// operand needs all of them: through shared memory and ldmatrix.
// CHECK-LABEL: gpu.func @split
// CHECK-SAME: tile.shared_bytes = 8192
// CHECK: nvvm.barrier0
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.mma.sync
func.func @split(%h: bf16, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %ri = tile.range 0, 64 : tensor<64xi32, #r>
  %ci = tile.range 0, 64 : tensor<64xi32, #c>
  %r2 = tile.expand_dims %ri, 1 : tensor<64xi32, #r> -> tensor<64x1xi32, #mma>
  %c2 = tile.expand_dims %ci, 0 : tensor<64xi32, #c> -> tensor<1x64xi32, #mma>
  %rb = tile.broadcast %r2 : tensor<64x1xi32, #mma> -> tensor<64x64xi32, #mma>
  %cb = tile.broadcast %c2 : tensor<1x64xi32, #mma> -> tensor<64x64xi32, #mma>
  %idx = arith.addi %rb, %cb : tensor<64x64xi32, #mma>
  %f = arith.sitofp %idx : tensor<64x64xi32, #mma> to tensor<64x64xbf16, #mma>
  %a = tile.convert_layout %f : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #opa>
  %b = tile.splat %h : bf16 -> tensor<64x64xbf16, #opb>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %d = tile.dot %a, %b, %zero : tensor<64x64xbf16, #opa>, tensor<64x64xbf16, #opb> -> tensor<64x64xf32, #mma>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #mma>
  %yp = tile.addptr %ys, %idx : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xi32, #mma>
  tile.store %yp, %d : tensor<64x64x!tile.ptr<f32>, #mma>
  return
}

// -----

#v3a = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#v3b = #tilegpu.mma<{versionMajor = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>

// Two wgmma accumulator layouts that differ only in the instruction's N
// put every element in the same thread: the conversion is the identity.
// CHECK-LABEL: gpu.func @same_threads
// CHECK-SAME: tile.shared_bytes = 0 : i64
// CHECK-NOT: nvvm.barrier0
// CHECK: gpu.return
func.func @same_threads(%y: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<64x128x!tile.ptr<f32>, #v3a>
  %v = tile.load %ys : tensor<64x128x!tile.ptr<f32>, #v3a>
  %c = tile.convert_layout %v : tensor<64x128xf32, #v3a> -> tensor<64x128xf32, #v3b>
  %ys2 = tile.splat %y : !tile.ptr<f32> -> tensor<64x128x!tile.ptr<f32>, #v3b>
  tile.store %ys2, %c : tensor<64x128x!tile.ptr<f32>, #v3b>
  return
}
