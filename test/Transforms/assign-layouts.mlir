// RUN: tile-opt %s --split-input-file --tile-assign-layouts --verify-diagnostics | FileCheck %s

// f32, 16-byte aligned, contiguous: 4 elements (16 bytes) per thread, lanes
// then warps along the tile, two repetitions to cover 1024 elements.
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @vec4
// CHECK: tile.range 0, 1024 : tensor<1024xi32, #[[$B]]>
// CHECK: arith.cmpi slt, {{.*}} : tensor<1024xi32, #[[$B]]>
// CHECK: tile.load {{.*}} : tensor<1024x!tile.ptr<f32>, #[[$B]]>
// CHECK: arith.addf {{.*}} : tensor<1024xf32, #[[$B]]>
// CHECK: tile.store {{.*}} : tensor<1024x!tile.ptr<f32>, #[[$B]]>
func.func @vec4(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 1024 : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %p, %m : tensor<1024x!tile.ptr<f32>>
  %w = arith.addf %v, %v : tensor<1024xf32>
  tile.store %p, %w, %m : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// bf16: 8 elements make 16 bytes. The f32 arithmetic shares the layout.
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
// CHECK-LABEL: func.func @vec8
// CHECK: arith.extf {{.*}} : tensor<4096xbf16, #[[$B]]> to tensor<4096xf32, #[[$B]]>
func.func @vec8(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %r = tile.range 0, 4096 : tensor<4096xi32>
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<4096x!tile.ptr<bf16>>
  %p = tile.addptr %xs, %r : tensor<4096x!tile.ptr<bf16>>, tensor<4096xi32>
  %v = tile.load %p : tensor<4096x!tile.ptr<bf16>>
  %f = arith.extf %v : tensor<4096xbf16> to tensor<4096xf32>
  %g = arith.truncf %f : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %p, %g : tensor<4096x!tile.ptr<bf16>>
  return
}

// -----

// No alignment hint: one element per thread. A tile smaller than the
// program (64 elements, 128 threads) is replicated: the leftover warps
// repeat along the slowest dimension. --num-warps applies without
// tile.num_warps.
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @unaligned
// CHECK: tile.load {{.*}} : tensor<64x!tile.ptr<f32>, #[[$B]]>
func.func @unaligned(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %p : tensor<64x!tile.ptr<f32>>
  tile.store %p, %v : tensor<64x!tile.ptr<f32>>
  return
}

// -----

// Rows: the reduction's result has the slice layout of its source; the
// row index feeds expand_dims, so it has that slice layout too.
// CHECK-DAG: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[$ROW:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$B]]}>
// CHECK-DAG: #[[$COL:.*]] = #tilegpu.slice<{dim = 0, parent = #[[$B]]}>
// CHECK-LABEL: func.func @rowsum
// CHECK: tile.range 0, 8 : tensor<8xi32, #[[$ROW]]>
// CHECK: tile.range 0, 128 : tensor<128xi32, #[[$COL]]>
// CHECK: tile.expand_dims {{.*}} : tensor<8xi32, #[[$ROW]]> -> tensor<8x1xi32, #[[$B]]>
// CHECK: tile.broadcast {{.*}} : tensor<8x1xi32, #[[$B]]> -> tensor<8x128xi32, #[[$B]]>
// CHECK: tile.reduce add({{.*}}) axis = 1 : (tensor<8x128xf32, #[[$B]]>) -> tensor<8xf32, #[[$ROW]]>
// CHECK: tile.store {{.*}} : tensor<8x!tile.ptr<f32>, #[[$ROW]]>
func.func @rowsum(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %y: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 8 : tensor<8xi32>
  %c = tile.range 0, 128 : tensor<128xi32>
  %r1 = tile.expand_dims %r, 1 : tensor<8xi32> -> tensor<8x1xi32>
  %c128 = arith.constant dense<128> : tensor<8x1xi32>
  %ro = arith.muli %r1, %c128 : tensor<8x1xi32>
  %rb = tile.broadcast %ro : tensor<8x1xi32> -> tensor<8x128xi32>
  %c0 = tile.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c0 : tensor<1x128xi32> -> tensor<8x128xi32>
  %off = arith.addi %rb, %cb : tensor<8x128xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x128x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %off : tensor<8x128x!tile.ptr<f32>>, tensor<8x128xi32>
  %v = tile.load %xp : tensor<8x128x!tile.ptr<f32>>
  %s = tile.reduce(%v) axis = 1 : (tensor<8x128xf32>) -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.yield %t : f32
  }
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %yp, %s : tensor<8x!tile.ptr<f32>>
  return
}

// -----

// Column-contiguous memory (the fast dimension is dim 0): order = [0, 1].
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: func.func @colmajor
// CHECK: tile.load {{.*}} : tensor<128x4x!tile.ptr<f32>, #[[$B]]>
func.func @colmajor(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 128 : tensor<128xi32>
  %r1 = tile.expand_dims %r, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %rb = tile.broadcast %r1 : tensor<128x1xi32> -> tensor<128x4xi32>
  %c = tile.range 0, 4 : tensor<4xi32>
  %c0 = tile.expand_dims %c, 0 : tensor<4xi32> -> tensor<1x4xi32>
  %k = arith.constant dense<1024> : tensor<1x4xi32>
  %cs = arith.muli %c0, %k : tensor<1x4xi32>
  %cb = tile.broadcast %cs : tensor<1x4xi32> -> tensor<128x4xi32>
  %off = arith.addi %rb, %cb : tensor<128x4xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x4x!tile.ptr<f32>>
  %p = tile.addptr %xs, %off : tensor<128x4x!tile.ptr<f32>>, tensor<128x4xi32>
  %v = tile.load %p : tensor<128x4x!tile.ptr<f32>>
  tile.store %p, %v : tensor<128x4x!tile.ptr<f32>>
  return
}

// -----

// Loop-carried tiles share the layout of their initial and yielded values.
// CHECK: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} -> (tensor<128xf32, #[[$B]]>, tensor<128x!tile.ptr<f32>, #[[$B]]>)
func.func @loop(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 128 : tensor<128xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %p0 = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %step = arith.constant dense<128> : tensor<128xi32>
  %acc, %p = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero, %q = %p0)
      -> (tensor<128xf32>, tensor<128x!tile.ptr<f32>>) : i32 {
    %v = tile.load %q : tensor<128x!tile.ptr<f32>>
    %s = arith.addf %a, %v : tensor<128xf32>
    %q2 = tile.addptr %q, %step : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    scf.yield %s, %q2 : tensor<128xf32>, tensor<128x!tile.ptr<f32>>
  }
  tile.store %p0, %acc : tensor<128x!tile.ptr<f32>>
  return
}

// -----

// An FMA dot: operands hold whole rows of A / columns of B for the
// accumulator's threads; tiles made only for the dot take those layouts.
// CHECK-DAG: #[[$C:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
// CHECK-DAG: #[[$A:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
// CHECK-DAG: #[[$BB:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [16, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @dot
// CHECK: tile.dot {{.*}} : tensor<2x16xf32, #[[$A]]>, tensor<16x16xf32, #[[$BB]]> -> tensor<2x16xf32, #[[$C]]>
func.func @dot(%s: f32, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %a = tile.splat %s : f32 -> tensor<2x16xf32>
  %b = tile.splat %s : f32 -> tensor<16x16xf32>
  %zero = arith.constant dense<0.0> : tensor<2x16xf32>
  %d = tile.dot %a, %b, %zero {precision = #tile.precision<ieee>} : tensor<2x16xf32>, tensor<16x16xf32> -> tensor<2x16xf32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<2x16x!tile.ptr<f32>>
  tile.store %ys, %d : tensor<2x16x!tile.ptr<f32>>
  return
}

// -----

// Two broadcasts of one column tile into tiles of different layouts: the
// column takes the first layout and the second broadcast gets a conversion.
// The column is data (loaded): an address computed from scalars only would
// be copied per use instead (@split_index below).
// CHECK-LABEL: func.func @conflict
// CHECK: %[[RO:.*]] = arith.muli {{.*}} : tensor<64x1xi32, #[[L1:.*]]>
// CHECK: tile.broadcast %[[RO]] : tensor<64x1xi32, #[[L1]]> -> tensor<64x64xi32, #[[L1]]>
// CHECK: %[[CVT:.*]] = tile.convert_layout %[[RO]] : tensor<64x1xi32, #[[L1]]> -> tensor<64x1xi32, #[[L2:.*]]>
// CHECK: tile.broadcast %[[CVT]] : tensor<64x1xi32, #[[L2]]> -> tensor<64x32xi32, #[[L2]]>
func.func @conflict(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                    %y: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %rowp: !tile.ptr<i32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %r1 = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rs = tile.splat %rowp : !tile.ptr<i32> -> tensor<64x1x!tile.ptr<i32>>
  %rp = tile.addptr %rs, %r1 : tensor<64x1x!tile.ptr<i32>>, tensor<64x1xi32>
  %rl = tile.load %rp : tensor<64x1x!tile.ptr<i32>>
  %k = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rl, %k : tensor<64x1xi32>
  %c = tile.range 0, 64 : tensor<64xi32>
  %c0 = tile.expand_dims %c, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %c0 : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %v = tile.load %xp : tensor<64x64x!tile.ptr<f32>>
  tile.store %xp, %v : tensor<64x64x!tile.ptr<f32>>
  // f16 rows of 32: another layout for the same row offsets.
  %rb2 = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x32xi32>
  %c2 = tile.range 0, 32 : tensor<32xi32>
  %c20 = tile.expand_dims %c2, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cb2 = tile.broadcast %c20 : tensor<1x32xi32> -> tensor<64x32xi32>
  %off2 = arith.addi %rb2, %cb2 : tensor<64x32xi32>
  %ys = tile.splat %y : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %yp = tile.addptr %ys, %off2 : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %w = tile.load %yp : tensor<64x32x!tile.ptr<f16>>
  tile.store %yp, %w : tensor<64x32x!tile.ptr<f16>>
  return
}

// -----

// A bf16 dot runs on mma.sync: the accumulator (and the values it is
// carried and combined with) takes #tilegpu.mma, the operands the matching
// #tilegpu.dot_operand; the loads keep coalesced blocked layouts of their own
// and meet the dot through conversions, as does the store of the result.
// The bias row is loaded in a slice of the mma layout, no conversion.
// CHECK-DAG: #[[$MMA:mma[0-9]*]] = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-DAG: #[[$OPA:dot_op[0-9]*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #[[$MMA]], kWidth = 2}>
// CHECK-DAG: #[[$OPB:dot_op[0-9]*]] = #tilegpu.dot_operand<{opIdx = 1, parent = #[[$MMA]], kWidth = 2}>
// CHECK-DAG: #[[$ROW:slice[0-9]*]] = #tilegpu.slice<{dim = 0, parent = #[[$MMA]]}>
// CHECK-LABEL: func.func @mma
// CHECK: %[[A:.*]] = tile.load {{.*}} : tensor<64x32x!tile.ptr<bf16>, #[[$LA:blocked[0-9]*]]>
// CHECK: %[[CA:.*]] = tile.convert_layout %[[A]] : tensor<64x32xbf16, #[[$LA]]> -> tensor<64x32xbf16, #[[$OPA]]>
// CHECK: %[[B:.*]] = tile.load {{.*}} : tensor<32x64x!tile.ptr<bf16>, #[[$LB:blocked[0-9]*]]>
// CHECK: %[[CB:.*]] = tile.convert_layout %[[B]] : tensor<32x64xbf16, #[[$LB]]> -> tensor<32x64xbf16, #[[$OPB]]>
// CHECK: %[[D:.*]] = tile.dot %[[CA]], %[[CB]], %{{.*}} : tensor<64x32xbf16, #[[$OPA]]>, tensor<32x64xbf16, #[[$OPB]]> -> tensor<64x64xf32, #[[$MMA]]>
// CHECK: tile.load {{.*}} : tensor<64x!tile.ptr<f32>, #[[$ROW]]>
// CHECK: %[[SUM:.*]] = arith.addf %[[D]], {{.*}} : tensor<64x64xf32, #[[$MMA]]>
// CHECK: %[[T:.*]] = arith.truncf %[[SUM]] : tensor<64x64xf32, #[[$MMA]]> to tensor<64x64xbf16, #[[$MMA]]>
// CHECK: %[[CT:.*]] = tile.convert_layout %[[T]] : tensor<64x64xbf16, #[[$MMA]]> -> tensor<64x64xbf16, #[[$LC:blocked[0-9]*]]>
// CHECK: tile.store {{.*}}, %[[CT]] : tensor<64x64x!tile.ptr<bf16>, #[[$LC]]>
func.func @mma(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
               %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
               %bias: !tile.ptr<f32> {tile.divisibility = 16 : i32},
               %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %r32 = tile.range 0, 32 : tensor<32xi32>
  %k64 = arith.constant dense<64> : tensor<64x1xi32>
  %k32 = arith.constant dense<32> : tensor<64x1xi32>
  %k64b = arith.constant dense<64> : tensor<32x1xi32>
  %rows = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %ks = tile.expand_dims %r32, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %kr = tile.expand_dims %r32, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %arow = arith.muli %rows, %k32 : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %ksb = tile.broadcast %ks : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %ksb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
  %brow = arith.muli %kr, %k64b : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %colsb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<bf16> -> tensor<32x64x!tile.ptr<bf16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<bf16>>, tensor<32x64xi32>
  %at = tile.load %ap : tensor<64x32x!tile.ptr<bf16>>
  %bt = tile.load %bp : tensor<32x64x!tile.ptr<bf16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %at, %bt, %zero : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  %bias_s = tile.splat %bias : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %rbias = tile.range 0, 64 : tensor<64xi32>
  %bias_p = tile.addptr %bias_s, %rbias : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %bv = tile.load %bias_p : tensor<64x!tile.ptr<f32>>
  %bv2 = tile.expand_dims %bv, 0 : tensor<64xf32> -> tensor<1x64xf32>
  %bvb = tile.broadcast %bv2 : tensor<1x64xf32> -> tensor<64x64xf32>
  %sum = arith.addf %d, %bvb : tensor<64x64xf32>
  %t = arith.truncf %sum : tensor<64x64xf32> to tensor<64x64xbf16>
  %crow = arith.muli %rows, %k64 : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %colsc = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %colsc : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<bf16> -> tensor<64x64x!tile.ptr<bf16>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  tile.store %cp, %t : tensor<64x64x!tile.ptr<bf16>>
  return
}

// -----

// Dots mma.sync cannot take stay on the FMA path (blocked accumulator):
// f32 operands at ieee precision, and an accumulator with fewer than 16
// rows.
// CHECK-LABEL: func.func @notmma
// CHECK-NOT: #tilegpu.mma
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #blocked
// CHECK: tile.dot {{.*}} -> tensor<8x64xf32, #blocked
func.func @notmma(%s: f32, %h: bf16, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %a = tile.splat %s : f32 -> tensor<64x16xf32>
  %b = tile.splat %s : f32 -> tensor<16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero {precision = #tile.precision<ieee>} : tensor<64x16xf32>, tensor<16x64xf32> -> tensor<64x64xf32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %ys, %d : tensor<64x64x!tile.ptr<f32>>
  %ha = tile.splat %h : bf16 -> tensor<8x16xbf16>
  %hb = tile.splat %h : bf16 -> tensor<16x64xbf16>
  %hz = arith.constant dense<0.0> : tensor<8x64xf32>
  %e = tile.dot %ha, %hb, %hz : tensor<8x16xbf16>, tensor<16x64xbf16> -> tensor<8x64xf32>
  %es = tile.splat %y : !tile.ptr<f32> -> tensor<8x64x!tile.ptr<f32>>
  tile.store %es, %e : tensor<8x64x!tile.ptr<f32>>
  return
}

// -----

// An address or mask computed from scalars only, used by two ops whose
// tiles want different layouts, is copied per use before the layouts are
// chosen (the key mask of attention's K^T load and of its scores, one value
// after CSE when head_dim equals the query block): the K^T copy keeps its
// column-major layout, the row-major copy its own, and no conversion.
// CHECK-DAG: #[[$COLS:blocked[0-9]*]] = #tilegpu.blocked<{{.*}}order = [0, 1]}>
// CHECK-DAG: #[[$ROWS:blocked[0-9]*]] = #tilegpu.blocked<{{.*}}order = [1, 0]}>
// CHECK-LABEL: func.func @split_index
// CHECK-NOT: tile.convert_layout
// CHECK: tile.load {{.*}} : tensor<64x64x!tile.ptr<bf16>, #[[$COLS]]>
// CHECK: tile.store {{.*}} : tensor<64x64x!tile.ptr<bf16>, #[[$COLS]]>
// CHECK: tile.load {{.*}} : tensor<64x64x!tile.ptr<bf16>, #[[$ROWS]]>
// CHECK: tile.store {{.*}} : tensor<64x64x!tile.ptr<bf16>, #[[$ROWS]]>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @split_index(%k: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                       %o: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                       %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %col = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %row = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ns = tile.splat %n : i32 -> tensor<1x64xi32>
  %in = arith.cmpi slt, %col, %ns : tensor<1x64xi32>
  %inb = tile.broadcast %in : tensor<1x64xi1> -> tensor<64x64xi1>
  %zero = arith.constant dense<0.0> : tensor<64x64xbf16>
  %stride = arith.constant dense<64> : tensor<1x64xi32>
  %rstride = arith.constant dense<64> : tensor<64x1xi32>
  // K^T: contiguous along dim 0, copied from k to o.
  %cs = arith.muli %col, %stride : tensor<1x64xi32>
  %rowb = tile.broadcast %row : tensor<64x1xi32> -> tensor<64x64xi32>
  %csb = tile.broadcast %cs : tensor<1x64xi32> -> tensor<64x64xi32>
  %toff = arith.addi %rowb, %csb : tensor<64x64xi32>
  %ks = tile.splat %k : !tile.ptr<bf16> -> tensor<64x64x!tile.ptr<bf16>>
  %kp = tile.addptr %ks, %toff : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  %kt = tile.load %kp, %inb, %zero : tensor<64x64x!tile.ptr<bf16>>
  %os = tile.splat %o : !tile.ptr<bf16> -> tensor<64x64x!tile.ptr<bf16>>
  %op = tile.addptr %os, %toff : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  tile.store %op, %kt, %inb : tensor<64x64x!tile.ptr<bf16>>
  // Row-major, contiguous along dim 1, with the same mask.
  %rs = arith.muli %row, %rstride : tensor<64x1xi32>
  %rsb = tile.broadcast %rs : tensor<64x1xi32> -> tensor<64x64xi32>
  %colb = tile.broadcast %col : tensor<1x64xi32> -> tensor<64x64xi32>
  %roff = arith.addi %rsb, %colb : tensor<64x64xi32>
  %kp2 = tile.addptr %ks, %roff : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  %kr = tile.load %kp2, %inb, %zero : tensor<64x64x!tile.ptr<bf16>>
  %op2 = tile.addptr %os, %roff : tensor<64x64x!tile.ptr<bf16>>, tensor<64x64xi32>
  tile.store %op2, %kr, %inb : tensor<64x64x!tile.ptr<bf16>>
  return
}

// -----

// f32 operands at the default tf32 precision run on mma.sync m16n8k8: the
// operands take kWidth 1 (one f32 per register); K needs only be a
// multiple of 8.
// CHECK-DAG: #[[$MMA:mma[0-9]*]] = #tilegpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-DAG: #[[$OPA:dot_op[0-9]*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #[[$MMA]], kWidth = 1}>
// CHECK-DAG: #[[$OPB:dot_op[0-9]*]] = #tilegpu.dot_operand<{opIdx = 1, parent = #[[$MMA]], kWidth = 1}>
// CHECK-LABEL: func.func @tf32
// CHECK: tile.dot {{.*}} : tensor<64x24xf32, #[[$OPA]]>, tensor<24x64xf32, #[[$OPB]]> -> tensor<64x64xf32, #[[$MMA]]>
func.func @tf32(%s: f32, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %a = tile.splat %s : f32 -> tensor<64x24xf32>
  %b = tile.splat %s : f32 -> tensor<24x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x24xf32>, tensor<24x64xf32> -> tensor<64x64xf32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %ys, %d : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// An atomic add of a dot's result keeps the dot's layout (its pointers
// take it): converting the result to a coalesced layout first costs a
// shared-memory round trip that measured more than the wider reds it
// allows (the attention backward's dQ: 18.0 against 10.0 ms on an H100).
// CHECK-DAG: #[[$AMMA:mma[0-9]*]] = #tilegpu.mma<{versionMajor = 2
// CHECK-LABEL: func.func @mma_atomic
// CHECK: %[[D:.*]] = tile.dot {{.*}} -> tensor<64x64xf32, #[[$AMMA]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.atomic_rmw fadd %{{.*}}, %[[D]] sem = relaxed : tensor<64x64x!tile.ptr<f32>, #[[$AMMA]]>
func.func @mma_atomic(%x: bf16, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %a = tile.splat %x : bf16 -> tensor<64x32xbf16>
  %b = tile.splat %x : bf16 -> tensor<32x64xbf16>
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %k64 = arith.constant dense<64> : tensor<64x1xi32>
  %rows = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %crow = arith.muli %rows, %k64 : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %colsb : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %z : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  %old = tile.atomic_rmw fadd %cp, %d sem = relaxed : tensor<64x64x!tile.ptr<f32>>
  return
}
