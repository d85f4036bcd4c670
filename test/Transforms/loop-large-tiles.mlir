// RUN: tile-opt %s -split-input-file --tile-loop-large-tiles=max-unchunked-elements-per-thread=0 -verify-diagnostics | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-loop-large-tiles=max-elements-per-thread=0 2>/dev/null | FileCheck %s --check-prefix=NOLOOP
// RUN: tile-opt %s -split-input-file --tile-loop-large-tiles="chunk-elements-per-thread=64 max-unchunked-elements-per-thread=0" 2>/dev/null | FileCheck %s --check-prefix=CHUNK

// A 1-D add of 8192 elements on one warp: 256 per thread, in 8 chunks of
// 1024 (32 per thread, 8 vectors of 4: the layout's period is 128). The
// range of a chunk is its own range plus the induction variable; splats
// and the ops on the chunk keep their layout.
// CHECK-LABEL: func.func @add
// CHECK: %[[LB:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[UB:.*]] = arith.constant 8192 : i32
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 1024 : i32
// CHECK: scf.for %[[I:.*]] = %[[LB]] to %[[UB]] step %[[STEP]] : i32 {
// CHECK-NEXT: %[[R:.*]] = tile.range 0, 1024 : tensor<1024xi32, #blocked>
// CHECK-NEXT: %[[IS:.*]] = tile.splat %[[I]] : i32 -> tensor<1024xi32, #blocked>
// CHECK-NEXT: %[[RI:.*]] = arith.addi %[[R]], %[[IS]] : tensor<1024xi32, #blocked>
// CHECK-NEXT: %[[PS:.*]] = tile.splat %{{.*}} : i32 -> tensor<1024xi32, #blocked>
// CHECK-NEXT: %[[OFFS:.*]] = arith.addi %[[PS]], %[[RI]]
// CHECK: %[[M:.*]] = arith.cmpi slt, %[[OFFS]], %{{.*}} : tensor<1024xi32, #blocked>
// CHECK: %[[A:.*]] = tile.load %{{.*}}, %[[M]] : tensor<1024x!tile.ptr<f32>, #blocked>
// CHECK: %[[B:.*]] = tile.load %{{.*}}, %[[M]] : tensor<1024x!tile.ptr<f32>, #blocked>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : tensor<1024xf32, #blocked>
// CHECK-NEXT: tile.store %{{.*}}, %[[S]], %[[M]] : tensor<1024x!tile.ptr<f32>, #blocked>
// CHECK-NEXT: }
// CHECK-NEXT: return
// NOLOOP-LABEL: func.func @add
// NOLOOP-NOT: scf.for
// NOLOOP: tile.load %{{.*}} : tensor<8192x!tile.ptr<f32>, #blocked>
// CHUNK-LABEL: func.func @add
// CHUNK: %[[STEP:.*]] = arith.constant 2048 : i32
// CHUNK: scf.for %{{.*}} step %[[STEP]] : i32 {
// CHUNK-NEXT: tile.range 0, 2048 : tensor<2048xi32, #blocked>
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %z: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c8192_i32 = arith.constant 8192 : i32
  %0 = tile.program_id 0
  %1 = arith.muli %0, %c8192_i32 : i32
  %2 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %3 = tile.splat %1 : i32 -> tensor<8192xi32, #blocked>
  %4 = arith.addi %3, %2 : tensor<8192xi32, #blocked>
  %5 = tile.splat %n : i32 -> tensor<8192xi32, #blocked>
  %6 = arith.cmpi slt, %4, %5 : tensor<8192xi32, #blocked>
  %7 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %8 = tile.addptr %7, %4 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %9 = tile.splat %y : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %10 = tile.addptr %9, %4 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %11 = tile.splat %z : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %12 = tile.addptr %11, %4 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %13 = tile.load %8, %6 : tensor<8192x!tile.ptr<f32>, #blocked>
  %14 = tile.load %10, %6 : tensor<8192x!tile.ptr<f32>, #blocked>
  %15 = arith.addf %13, %14 : tensor<8192xf32, #blocked>
  tile.store %12, %15, %6 : tensor<8192x!tile.ptr<f32>, #blocked>
  return
}

// -----

// A 2^20-element tile on four warps: 8192 per thread, 256 chunks.
// CHECK-LABEL: func.func @huge
// CHECK: %[[STEP:.*]] = arith.constant 4096 : i32
// CHECK: scf.for %{{.*}} step %[[STEP]] : i32 {
// CHECK: tile.store %{{.*}} : tensor<4096x!tile.ptr<f32>, #blocked>
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @huge(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %0 = tile.range 0, 1048576 : tensor<1048576xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<1048576x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<1048576x!tile.ptr<f32>, #blocked>, tensor<1048576xi32, #blocked>
  %3 = tile.load %2 : tensor<1048576x!tile.ptr<f32>, #blocked>
  %4 = math.exp %3 : tensor<1048576xf32, #blocked>
  %5 = tile.splat %y : !tile.ptr<f32> -> tensor<1048576x!tile.ptr<f32>, #blocked>
  %6 = tile.addptr %5, %0 : tensor<1048576x!tile.ptr<f32>, #blocked>, tensor<1048576xi32, #blocked>
  tile.store %6, %4 : tensor<1048576x!tile.ptr<f32>, #blocked>
  return
}

// -----

// 128 elements per thread is the default's limit: left as it is.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.for
// CHECK: return
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @small(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %0 = tile.range 0, 4096 : tensor<4096xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<4096x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<4096x!tile.ptr<f32>, #blocked>, tensor<4096xi32, #blocked>
  %3 = tile.load %2 : tensor<4096x!tile.ptr<f32>, #blocked>
  %4 = arith.addf %3, %3 : tensor<4096xf32, #blocked>
  tile.store %2, %4 : tensor<4096x!tile.ptr<f32>, #blocked>
  return
}

// -----

// Reductions along the chunked dim: each chunk combines into accumulator
// tiles (the first chunk taken as it is), reduced once after the loop; the
// scalar arithmetic on the sum, between the reductions, moves after the
// loop with them; the stores after the loop stay there.
// CHECK-LABEL: func.func @sum_argmax
// CHECK-DAG: %[[LB:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[Z0:.*]] = arith.constant dense<0.000000e+00> : tensor<1024xf32, #blocked>
// CHECK-DAG: %[[Z1:.*]] = arith.constant dense<0.000000e+00> : tensor<1024xf32, #blocked>
// CHECK-DAG: %[[Z2:.*]] = arith.constant dense<0> : tensor<1024xi32, #blocked>
// CHECK: %[[ACC:.*]]:3 = scf.for %[[I:.*]] = %[[LB]] to %{{.*}} step %{{.*}} iter_args(%[[SUM:.*]] = %[[Z0]], %[[MAXV:.*]] = %[[Z1]], %[[MAXI:.*]] = %[[Z2]]) -> (tensor<1024xf32, #blocked>, tensor<1024xf32, #blocked>, tensor<1024xi32, #blocked>) : i32 {
// CHECK: %[[V:.*]] = tile.load {{.*}} : tensor<1024x!tile.ptr<f32>, #blocked>
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[SUM]], %[[V]] : tensor<1024xf32, #blocked>
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %[[LB]] : i32
// CHECK-NEXT: %[[NSUM:.*]] = arith.select %[[FIRST]], %[[V]], %[[ADD]] : tensor<1024xf32, #blocked>
// CHECK-NEXT: arith.cmpf ogt, %[[V]], %[[MAXV]] : tensor<1024xf32, #blocked>
// CHECK: %[[BV:.*]] = arith.select %{{.*}}, %[[V]], %[[MAXV]] : tensor<1024xi1, #blocked>, tensor<1024xf32, #blocked>
// CHECK-NEXT: %[[BI:.*]] = arith.select %{{.*}}, %{{.*}}, %[[MAXI]] : tensor<1024xi1, #blocked>, tensor<1024xi32, #blocked>
// CHECK-NEXT: %[[NV:.*]] = arith.select %[[FIRST]], %[[V]], %[[BV]]
// CHECK-NEXT: %[[NI:.*]] = arith.select %[[FIRST]], %{{.*}}, %[[BI]]
// CHECK-NEXT: scf.yield %[[NSUM]], %[[NV]], %[[NI]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[S:.*]] = tile.reduce add(%[[ACC]]#0) axis = 0 : (tensor<1024xf32, #blocked>) -> f32
// CHECK-NEXT: %[[AM:.*]]:2 = tile.reduce argmax(%[[ACC]]#1, %[[ACC]]#2) axis = 0 : (tensor<1024xf32, #blocked>, tensor<1024xi32, #blocked>) -> (f32, i32)
// CHECK-NEXT: %[[MEAN:.*]] = arith.divf %[[S]], %{{.*}} : f32
// CHECK: tile.store %{{.*}}, %[[MEAN]] : !tile.ptr<f32>
// CHECK: tile.store %{{.*}}, %[[AM]]#1 : !tile.ptr<i32>
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @sum_argmax(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32>, %idx: !tile.ptr<i32>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %cst = arith.constant dense<0.000000e+00> : tensor<8192xf32, #blocked>
  %c8192_i32 = arith.constant 8192 : i32
  %0 = tile.program_id 0
  %1 = arith.muli %0, %c8192_i32 : i32
  %2 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %3 = tile.splat %1 : i32 -> tensor<8192xi32, #blocked>
  %4 = arith.addi %3, %2 : tensor<8192xi32, #blocked>
  %5 = tile.splat %n : i32 -> tensor<8192xi32, #blocked>
  %6 = arith.cmpi slt, %4, %5 : tensor<8192xi32, #blocked>
  %7 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %8 = tile.addptr %7, %4 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %9 = tile.load %8, %6, %cst : tensor<8192x!tile.ptr<f32>, #blocked>
  %10 = tile.reduce add(%9) axis = 0 : (tensor<8192xf32, #blocked>) -> f32
  %11 = arith.sitofp %n : i32 to f32
  %12 = arith.divf %10, %11 : f32
  %13:2 = tile.reduce argmax(%9, %4) axis = 0 : (tensor<8192xf32, #blocked>, tensor<8192xi32, #blocked>) -> (f32, i32)
  %14 = tile.addptr %out, %0 : !tile.ptr<f32>, i32
  tile.store %14, %12 : !tile.ptr<f32>
  %15 = tile.addptr %idx, %0 : !tile.ptr<i32>, i32
  tile.store %15, %13#1 : !tile.ptr<i32>
  return
}

// -----

// 16 rows of 512 on one warp (a row is 16 per thread): chunks of two rows
// (along the columns a chunk would be one layout period, 64 per thread).
// The bias, a tile without the rows, is loaded before the loop (a load
// between the loop's ops only moves up) and broadcast to each chunk; the
// column sums reduce along the chunked rows.
// CHECK-LABEL: func.func @rows
// CHECK: %[[BIAS:.*]] = tile.load %{{.*}} : tensor<512x!tile.ptr<f32>, #[[COLS:.*]]>
// CHECK-NEXT: %[[B1:.*]] = tile.expand_dims %[[BIAS]], 0
// CHECK: %[[STEP:.*]] = arith.constant 2 : i32
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} step %[[STEP]] iter_args(%{{.*}} = %{{.*}}) -> (tensor<2x512xf32, #blocked>) : i32 {
// CHECK: tile.range 0, 2 : tensor<2xi32, #{{.*}}>
// CHECK: tile.load %{{.*}} : tensor<2x512x!tile.ptr<f32>, #blocked>
// CHECK: tile.broadcast %[[B1]] : tensor<1x512xf32, #blocked> -> tensor<2x512xf32, #blocked>
// CHECK: tile.store %{{.*}} : tensor<2x512x!tile.ptr<f32>, #blocked>
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[CS:.*]] = tile.reduce add(%[[ACC]]) axis = 0 : (tensor<2x512xf32, #blocked>) -> tensor<512xf32, #[[COLS]]>
// CHECK: tile.store %{{.*}}, %[[CS]] : tensor<512x!tile.ptr<f32>, #[[COLS]]>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked}>
func.func @rows(%x: !tile.ptr<f32>, %b: !tile.ptr<f32>, %y: !tile.ptr<f32>, %colsum: !tile.ptr<f32>, %M: i32, %N: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c16_i32 = arith.constant 16 : i32
  %0 = tile.program_id 0
  %1 = arith.muli %0, %c16_i32 : i32
  %2 = tile.range 0, 16 : tensor<16xi32, #slice>
  %3 = tile.splat %1 : i32 -> tensor<16xi32, #slice>
  %4 = arith.addi %3, %2 : tensor<16xi32, #slice>
  %5 = tile.range 0, 512 : tensor<512xi32, #slice1>
  %6 = tile.splat %N : i32 -> tensor<16xi32, #slice>
  %7 = arith.muli %4, %6 : tensor<16xi32, #slice>
  %8 = tile.expand_dims %7, 1 : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
  %9 = tile.broadcast %8 : tensor<16x1xi32, #blocked> -> tensor<16x512xi32, #blocked>
  %10 = tile.expand_dims %5, 0 : tensor<512xi32, #slice1> -> tensor<1x512xi32, #blocked>
  %11 = tile.broadcast %10 : tensor<1x512xi32, #blocked> -> tensor<16x512xi32, #blocked>
  %12 = arith.addi %9, %11 : tensor<16x512xi32, #blocked>
  %13 = tile.splat %x : !tile.ptr<f32> -> tensor<16x512x!tile.ptr<f32>, #blocked>
  %14 = tile.addptr %13, %12 : tensor<16x512x!tile.ptr<f32>, #blocked>, tensor<16x512xi32, #blocked>
  %15 = tile.load %14 : tensor<16x512x!tile.ptr<f32>, #blocked>
  %16 = tile.splat %b : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #slice1>
  %17 = tile.addptr %16, %5 : tensor<512x!tile.ptr<f32>, #slice1>, tensor<512xi32, #slice1>
  %18 = tile.load %17 : tensor<512x!tile.ptr<f32>, #slice1>
  %19 = tile.expand_dims %18, 0 : tensor<512xf32, #slice1> -> tensor<1x512xf32, #blocked>
  %20 = tile.broadcast %19 : tensor<1x512xf32, #blocked> -> tensor<16x512xf32, #blocked>
  %21 = arith.addf %15, %20 : tensor<16x512xf32, #blocked>
  %22 = tile.splat %y : !tile.ptr<f32> -> tensor<16x512x!tile.ptr<f32>, #blocked>
  %23 = tile.addptr %22, %12 : tensor<16x512x!tile.ptr<f32>, #blocked>, tensor<16x512xi32, #blocked>
  tile.store %23, %21 : tensor<16x512x!tile.ptr<f32>, #blocked>
  %24 = tile.reduce add(%21) axis = 0 : (tensor<16x512xf32, #blocked>) -> tensor<512xf32, #slice1>
  %25 = tile.splat %colsum : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #slice1>
  %26 = tile.addptr %25, %5 : tensor<512x!tile.ptr<f32>, #slice1>, tensor<512xi32, #slice1>
  tile.store %26, %24 : tensor<512x!tile.ptr<f32>, #slice1>
  return
}

// -----

// Ops inside an scf.for run in a loop of their own inside it.
// CHECK-LABEL: func.func @nested
// CHECK: scf.for %[[K:.*]] = {{.*}} : i32 {
// CHECK: scf.for %{{.*}} : i32 {
// CHECK: tile.splat %[[K]] : i32 -> tensor<1024xi32, #blocked>
// CHECK: tile.store %{{.*}} : tensor<1024x!tile.ptr<f32>, #blocked>
// CHECK-NEXT: }
// CHECK-NEXT: }
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @nested(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %k: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  scf.for %arg3 = %c0_i32 to %k step %c1_i32  : i32 {
    %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
    %1 = tile.splat %arg3 : i32 -> tensor<8192xi32, #blocked>
    %2 = arith.addi %1, %0 : tensor<8192xi32, #blocked>
    %3 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
    %4 = tile.addptr %3, %2 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
    %5 = tile.load %4 : tensor<8192x!tile.ptr<f32>, #blocked>
    %6 = tile.splat %y : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
    %7 = tile.addptr %6, %2 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
    tile.store %7, %5 : tensor<8192x!tile.ptr<f32>, #blocked>
  }
  return
}

// -----

// The tensor cores' layouts are what their instructions need: not counted,
// no warning.
// CHECK-LABEL: func.func @mma
// CHECK-NOT: scf.for
// CHECK: return
#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
func.func @mma(%a: f32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %0 = tile.splat %a : f32 -> tensor<128x128xf32, #mma>
  %1 = arith.addf %0, %0 : tensor<128x128xf32, #mma>
  return
}

// -----

// A chunked op that uses a reduction along the chunked dim of the same tiles
// runs in a later loop: the max of the chunks, then x - max, each loop
// loading its chunk of x (the loads run again), the store in the last.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[ACC:.*]] = scf.for {{.*}} iter_args(%[[M:.*]] = %{{.*}}) -> (tensor<1024xf32, #blocked>) : i32 {
// CHECK: %[[X0:.*]] = tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #blocked>
// CHECK-NEXT: arith.maxnumf %[[M]], %[[X0]] : tensor<1024xf32, #blocked>
// CHECK-NOT: tile.store
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[MAX:.*]] = tile.reduce max(%[[ACC]]) axis = 0 : (tensor<1024xf32, #blocked>) -> f32
// CHECK: scf.for %{{.*}} : i32 {
// CHECK: %[[X1:.*]] = tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #blocked>
// CHECK-NEXT: %[[MS:.*]] = tile.splat %[[MAX]] : f32 -> tensor<1024xf32, #blocked>
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[X1]], %[[MS]] : tensor<1024xf32, #blocked>
// CHECK: tile.store %{{.*}}, %[[D]] : tensor<1024x!tile.ptr<f32>, #blocked>
// CHECK-NEXT: }
// CHECK-NEXT: return
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @softmax(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %3 = tile.load %2 : tensor<8192x!tile.ptr<f32>, #blocked>
  %4 = tile.reduce max(%3) axis = 0 : (tensor<8192xf32, #blocked>) -> f32
  %5 = tile.splat %4 : f32 -> tensor<8192xf32, #blocked>
  %6 = arith.subf %3, %5 : tensor<8192xf32, #blocked>
  %7 = tile.splat %y : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %8 = tile.addptr %7, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  tile.store %8, %6 : tensor<8192x!tile.ptr<f32>, #blocked>
  return
}

// -----

// A store that no later reduction needs waits for the last loop, where the
// loads it needs run again: the copy of x is stored beside x - max(x).
// CHECK-LABEL: func.func @copy_then_shift
// CHECK: scf.for {{.*}} iter_args
// CHECK-NOT: tile.store
// CHECK: tile.reduce max
// CHECK: scf.for
// CHECK: %[[X:.*]] = tile.load
// CHECK: tile.store %{{.*}}, %[[X]] : tensor<1024x!tile.ptr<f32>, #blocked>
// CHECK: arith.subf %[[X]]
// CHECK: tile.store
// CHECK-NEXT: }
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @copy_then_shift(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %z: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %3 = tile.load %2 : tensor<8192x!tile.ptr<f32>, #blocked>
  %4 = tile.splat %y : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %5 = tile.addptr %4, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  tile.store %5, %3 : tensor<8192x!tile.ptr<f32>, #blocked>
  %6 = tile.reduce max(%3) axis = 0 : (tensor<8192xf32, #blocked>) -> f32
  %7 = tile.splat %6 : f32 -> tensor<8192xf32, #blocked>
  %8 = arith.subf %3, %7 : tensor<8192xf32, #blocked>
  %9 = tile.splat %z : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %10 = tile.addptr %9, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  tile.store %10, %8 : tensor<8192x!tile.ptr<f32>, #blocked>
  return
}

// -----

// What stays unrolled, with a warning: a scalar store of a reduction along
// the chunked dim between the loops' ops ...
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @max_stored_between(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %m: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{tile 'tensor<8192xi32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>' holds 256 elements per thread and stays unrolled (compile time and registers grow with it): 'tile.store', which has memory effects and uses a reduction along the chunked dim, lies between its ops}}
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %3 = tile.load %2 : tensor<8192x!tile.ptr<f32>, #blocked>
  %4 = tile.reduce max(%3) axis = 0 : (tensor<8192xf32, #blocked>) -> f32
  tile.store %m, %4 : !tile.ptr<f32>
  %5 = tile.splat %4 : f32 -> tensor<8192xf32, #blocked>
  %6 = arith.subf %3, %5 : tensor<8192xf32, #blocked>
  %7 = tile.splat %y : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %8 = tile.addptr %7, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  tile.store %8, %6 : tensor<8192x!tile.ptr<f32>, #blocked>
  return
}

// -----

// ... a load after a write of the same ops that a reduction needs (in the
// first loop it would read memory before the write, which waits for the
// last loop) ...
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @reload(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{stays unrolled (compile time and registers grow with it): 'tile.load' follows 'tile.store', which writes memory, but runs before the last loop}}
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %3 = tile.load %2 : tensor<8192x!tile.ptr<f32>, #blocked>
  %4 = math.exp %3 : tensor<8192xf32, #blocked>
  tile.store %2, %4 : tensor<8192x!tile.ptr<f32>, #blocked>
  %5 = tile.load %2 : tensor<8192x!tile.ptr<f32>, #blocked>
  %6 = tile.reduce add(%5) axis = 0 : (tensor<8192xf32, #blocked>) -> f32
  %7 = tile.splat %6 : f32 -> tensor<8192xf32, #blocked>
  %8 = arith.divf %5, %7 : tensor<8192xf32, #blocked>
  %9 = tile.splat %y : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %10 = tile.addptr %9, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  tile.store %10, %8 : tensor<8192x!tile.ptr<f32>, #blocked>
  return
}

// -----

// ... an atomic whose old values a reduction needs (it would run twice) ...
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @atomic_then_max(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{stays unrolled (compile time and registers grow with it): 'tile.atomic_rmw' writes memory and its result is used before a reduction along the chunked dim that later chunked ops use}}
  %c = arith.constant dense<1.000000e+00> : tensor<8192xf32, #blocked>
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %3 = tile.atomic_rmw fadd %2, %c : tensor<8192x!tile.ptr<f32>, #blocked>
  %4 = tile.reduce max(%3) axis = 0 : (tensor<8192xf32, #blocked>) -> f32
  %5 = tile.splat %4 : f32 -> tensor<8192xf32, #blocked>
  %6 = arith.subf %3, %5 : tensor<8192xf32, #blocked>
  %7 = tile.splat %y : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %8 = tile.addptr %7, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  tile.store %8, %6 : tensor<8192x!tile.ptr<f32>, #blocked>
  return
}

// -----

// ... a write between the loop's ops (it would move past the chunks) ...
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @store_between(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %flag: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c1_i32 = arith.constant 1 : i32
  // expected-warning @below {{stays unrolled (compile time and registers grow with it): 'tile.store', which writes memory, lies between its ops}}
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %3 = tile.load %2 : tensor<8192x!tile.ptr<f32>, #blocked>
  tile.store %flag, %c1_i32 : !tile.ptr<i32>
  %4 = tile.splat %y : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %5 = tile.addptr %4, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  tile.store %5, %3 : tensor<8192x!tile.ptr<f32>, #blocked>
  return
}

// -----

// ... an op that cannot run in chunks (a print names each element's index)
// ...
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @print(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{stays unrolled (compile time and registers grow with it): its tile tensor<8192xf32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>> is used by 'tile.print', which cannot run in chunks}}
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %3 = tile.load %2 : tensor<8192x!tile.ptr<f32>, #blocked>
  tile.print "v = " %3 : tensor<8192xf32, #blocked>
  return
}

// -----

// ... a tile that crosses into a region (each block is chunked on its own)
// ...
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @crossing(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %k: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  // expected-warning @below {{stays unrolled (compile time and registers grow with it): its tile tensor<8192xi32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>> is used inside 'scf.for'}}
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  scf.for %arg3 = %c0_i32 to %k step %c1_i32  : i32 {
    // expected-warning @below {{stays unrolled (compile time and registers grow with it): its tile tensor<8192xi32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>> is defined outside the ops of its block}}
    %1 = tile.splat %arg3 : i32 -> tensor<8192xi32, #blocked>
    %2 = arith.addi %0, %1 : tensor<8192xi32, #blocked>
    %3 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
    %4 = tile.addptr %3, %2 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
    %5 = tile.load %4 : tensor<8192x!tile.ptr<f32>, #blocked>
    %6 = tile.splat %y : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
    %7 = tile.addptr %6, %2 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
    tile.store %7, %5 : tensor<8192x!tile.ptr<f32>, #blocked>
  }
  return
}

// -----

// ... two dims of one tile tied together (x[i, j] + rowsum(x)[j]: a chunk
// of rows would need a chunk of columns too) ...
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#rows = #tilegpu.slice<{dim = 1, parent = #blocked}>
#cols = #tilegpu.slice<{dim = 0, parent = #blocked}>
func.func @transposed(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{holds 2048 elements per thread and stays unrolled (compile time and registers grow with it): two dims of tensor<256x256x!tile.ptr<f32>, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>> would be chunked together}}
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<256x256x!tile.ptr<f32>, #blocked>
  %3 = tile.load %1 : tensor<256x256x!tile.ptr<f32>, #blocked>
  %4 = tile.reduce add(%3) axis = 1 : (tensor<256x256xf32, #blocked>) -> tensor<256xf32, #rows>
  %5 = tile.convert_layout %4 : tensor<256xf32, #rows> -> tensor<256xf32, #cols>
  %6 = tile.expand_dims %5, 0 : tensor<256xf32, #cols> -> tensor<1x256xf32, #blocked>
  %7 = tile.broadcast %6 : tensor<1x256xf32, #blocked> -> tensor<256x256xf32, #blocked>
  %8 = arith.addf %3, %7 : tensor<256x256xf32, #blocked>
  tile.store %1, %8 : tensor<256x256x!tile.ptr<f32>, #blocked>
  return
}

// -----

// ... a tile of the chunked dim in a tensor-core layout ...
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
func.func @to_mma(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{holds 512 elements per thread and stays unrolled (compile time and registers grow with it): the layout of tensor<64x256xf32, #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>> is not blocked with threads and warps dividing dim 0}}
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<64x256x!tile.ptr<f32>, #blocked>
  %3 = tile.load %1 : tensor<64x256x!tile.ptr<f32>, #blocked>
  %4 = tile.convert_layout %3 : tensor<64x256xf32, #blocked> -> tensor<64x256xf32, #mma>
  %5 = arith.addf %4, %4 : tensor<64x256xf32, #mma>
  return
}

// -----

// ... a dim of one layout period (a thread's 256 elements are one vector of
// the layout) ...
#blocked = #tilegpu.blocked<{sizePerThread = [256], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @one_period(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{holds 256 elements per thread and stays unrolled (compile time and registers grow with it): the chunked dim holds one layout period}}
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %3 = tile.load %2 : tensor<8192x!tile.ptr<f32>, #blocked>
  %4 = arith.addf %3, %3 : tensor<8192xf32, #blocked>
  tile.store %2, %4 : tensor<8192x!tile.ptr<f32>, #blocked>
  return
}

// -----

// ... a combiner that does not apply to tiles (an scf.if) ...
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @combiner(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{stays unrolled (compile time and registers grow with it): the combiner of a reduction along the chunked dim does not apply to tiles}}
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %3 = tile.load %2 : tensor<8192x!tile.ptr<f32>, #blocked>
  %4 = tile.reduce(%3) axis = 0 : (tensor<8192xf32, #blocked>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    %r = scf.if %c -> f32 {
      scf.yield %b : f32
    } else {
      scf.yield %a : f32
    }
    tile.yield %r : f32
  }
  tile.store %y, %4 : !tile.ptr<f32>
  return
}

// -----

// ... a reduction of pointers along the chunked dim (an accumulator needs a
// start value) ...
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @pointers(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{stays unrolled (compile time and registers grow with it): a reduction along the chunked dim of tensor<8192x!tile.ptr<f32>, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>}}
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %3 = tile.reduce(%2) axis = 0 : (tensor<8192x!tile.ptr<f32>, #blocked>) -> !tile.ptr<f32> {
  ^bb0(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>):
    tile.yield %a : !tile.ptr<f32>
  }
  %4 = tile.load %3 : !tile.ptr<f32>
  tile.store %y, %4 : !tile.ptr<f32>
  return
}

// -----

// ... a reduction along the chunked dim whose sources differ in layout (one
// accumulator layout for all) ...
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @two_layouts(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{stays unrolled (compile time and registers grow with it): the sources of a reduction along the chunked dim differ in layout}}
  %0 = tile.range 0, 8192 : tensor<8192xi32, #blocked>
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<8192x!tile.ptr<f32>, #blocked>, tensor<8192xi32, #blocked>
  %3 = tile.load %2 : tensor<8192x!tile.ptr<f32>, #blocked>
  %i = tile.range 0, 8192 : tensor<8192xi32, #blocked1>
  %4:2 = tile.reduce argmax(%3, %i) axis = 0 : (tensor<8192xf32, #blocked>, tensor<8192xi32, #blocked1>) -> (f32, i32)
  tile.store %y, %4#1 : !tile.ptr<i32>
  return
}

// -----

// ... and chunks that leave a tile as large as it was (the column sums,
// reshaped, hold 512 per thread in their layout; the columns cannot be
// chunked: a reshape uses them).
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#cols = #tilegpu.slice<{dim = 0, parent = #blocked}>
#wide = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @not_smaller(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{holds 512 elements per thread and stays unrolled (compile time and registers grow with it): its chunks would not be smaller}}
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<2x8192x!tile.ptr<f32>, #blocked>
  %2 = tile.load %1 : tensor<2x8192x!tile.ptr<f32>, #blocked>
  %3 = tile.reduce add(%2) axis = 0 : (tensor<2x8192xf32, #blocked>) -> tensor<8192xf32, #cols>
  %4 = tile.reshape %3 : tensor<8192xf32, #cols> -> tensor<2x4096xf32, #wide>
  %5 = tile.splat %y : !tile.ptr<f32> -> tensor<2x4096x!tile.ptr<f32>, #wide>
  tile.store %5, %4 : tensor<2x4096x!tile.ptr<f32>, #wide>
  return
}

// -----

// Chunks that leave a tile larger than the limit are still made, with a
// warning: chunks of one row of 8192 (the layout's smallest; the columns
// cannot be chunked: a print uses them) ...
// CHECK-LABEL: func.func @no_smaller_chunk
// CHECK: scf.for {{.*}} -> (tensor<1x8192xf32, #blocked>)
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#cols = #tilegpu.slice<{dim = 0, parent = #blocked}>
func.func @no_smaller_chunk(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{tile 'tensor<2x8192x!tile.ptr<f32>, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>>' still holds 256 elements per thread after the loop over chunks of the other tiles: its layout allows no smaller chunk}}
  %1 = tile.splat %x : !tile.ptr<f32> -> tensor<2x8192x!tile.ptr<f32>, #blocked>
  %2 = tile.load %1 : tensor<2x8192x!tile.ptr<f32>, #blocked>
  %3 = tile.reduce add(%2) axis = 0 : (tensor<2x8192xf32, #blocked>) -> tensor<8192xf32, #cols>
  tile.print "s = " %3 : tensor<8192xf32, #cols>
  return
}

// -----

// ... or a row broadcast to every chunk that is itself that large.
// CHECK-LABEL: func.func @lacks
// CHECK: tile.load %{{.*}} : tensor<8192x!tile.ptr<f32>, #[[COLS:.*]]>
// CHECK: scf.for
// CHECK: tile.store %{{.*}} : tensor<1x8192x!tile.ptr<f32>, #blocked>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#cols = #tilegpu.slice<{dim = 0, parent = #blocked}>
func.func @lacks(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-warning @below {{tile 'tensor<8192x!tile.ptr<f32>, #tilegpu.slice<{dim = 0, parent = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>}>>' still holds 256 elements per thread after the loop over chunks of the other tiles: it lacks the chunked dim}}
  %0 = tile.splat %x : !tile.ptr<f32> -> tensor<8192x!tile.ptr<f32>, #cols>
  %1 = tile.load %0 : tensor<8192x!tile.ptr<f32>, #cols>
  tile.print "b = " %1 : tensor<8192xf32, #cols>
  %2 = tile.expand_dims %1, 0 : tensor<8192xf32, #cols> -> tensor<1x8192xf32, #blocked>
  %3 = tile.broadcast %2 : tensor<1x8192xf32, #blocked> -> tensor<2x8192xf32, #blocked>
  %4 = arith.addf %3, %3 : tensor<2x8192xf32, #blocked>
  %5 = tile.splat %y : !tile.ptr<f32> -> tensor<2x8192x!tile.ptr<f32>, #blocked>
  tile.store %5, %4 : tensor<2x8192x!tile.ptr<f32>, #blocked>
  return
}
