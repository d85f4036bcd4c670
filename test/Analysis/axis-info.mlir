// RUN: tile-opt %s --test-print-axis-info --split-input-file -verify-diagnostics

// The 1-D elementwise pattern: pid * BLOCK + range, masked against n.
func.func @blocks(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %n: i32 {tile.divisibility = 16 : i32}, %m: i32) {
  // expected-remark @below {{contiguity = [1], divisibility = [1024], constancy = [1], constant = 1024}}
  %c1024 = arith.constant 1024 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %pid = tile.program_id 0
  // expected-remark @below {{contiguity = [1], divisibility = [1024], constancy = [1]}}
  %start = arith.muli %pid, %c1024 : i32
  // A range starting at 0: one run, first value divisible by anything.
  // expected-remark @below {{contiguity = [1024], divisibility = [1073741824], constancy = [1]}}
  %range = tile.range 0, 1024 : tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1024], constancy = [1024]}}
  %starts = tile.splat %start : i32 -> tensor<1024xi32>
  // expected-remark @below {{contiguity = [1024], divisibility = [1024], constancy = [1]}}
  %offs = arith.addi %starts, %range : tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1024]}}
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  // n is a multiple of 16: the mask is constant over aligned groups of 16.
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16]}}
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1024]}}
  %ms = tile.splat %m : i32 -> tensor<1024xi32>
  // Without a hint on m nothing is known: the lowering checks at run time.
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %mask2 = arith.cmpi slt, %offs, %ms : tensor<1024xi32>
  // `n > offs` is the same predicate, operands swapped.
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16]}}
  %mask3 = arith.cmpi sgt, %ns, %offs : tensor<1024xi32>
  // `offs <= n` changes between n and n + 1: nothing known.
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %mask4 = arith.cmpi sle, %offs, %ns : tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %both = arith.andi %mask, %mask2 : tensor<1024xi1>
  // Pointer divisibility is in bytes: 16 from the hint, offsets 4096.
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1024]}}
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  // expected-remark @below {{contiguity = [1024], divisibility = [16], constancy = [1]}}
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  // Runs of a remainder by a multiple of 16 stay runs of 16.
  // expected-remark @below {{contiguity = [16], divisibility = [16], constancy = [1]}}
  %cols = arith.remsi %offs, %ns : tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1024], constant = 4}}
  %c4 = arith.constant dense<4> : tensor<1024xi32>
  // A run divided by 4 is constant over groups of 4.
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [4]}}
  %q = arith.divsi %offs, %c4 : tensor<1024xi32>
  return
}

// -----

// 2-D: row offsets times a hinted stride plus a column range.
func.func @rows(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                %stride: i32 {tile.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %row = tile.program_id 0
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1]}}
  %start = arith.muli %row, %stride : i32
  // A scalar pointer: 16 (hint) and 16 * 2 bytes give 16.
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1]}}
  %xrow = tile.addptr %x, %start : !tile.ptr<f16>, i32
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.range 0, 64 : tensor<64xi32>
  // expected-remark @below {{contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [1, 1]}}
  %r0 = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  // expected-remark @below {{contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [8, 1]}}
  %rb = tile.broadcast %r0 : tensor<1x64xi32> -> tensor<8x64xi32>
  // expected-remark @below {{contiguity = [8], divisibility = [1073741824], constancy = [1]}}
  %m = tile.range 0, 8 : tensor<8xi32>
  // expected-remark @below {{contiguity = [8, 1], divisibility = [1073741824, 1], constancy = [1, 1]}}
  %m1 = tile.expand_dims %m, 1 : tensor<8xi32> -> tensor<8x1xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [8, 1]}}
  %ss = tile.splat %stride : i32 -> tensor<8x1xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 1]}}
  %mo = arith.muli %m1, %ss : tensor<8x1xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 64]}}
  %mb = tile.broadcast %mo : tensor<8x1xi32> -> tensor<8x64xi32>
  // expected-remark @below {{contiguity = [1, 64], divisibility = [1, 16], constancy = [1, 1]}}
  %off = arith.addi %mb, %rb : tensor<8x64xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [8, 64]}}
  %xs = tile.splat %xrow : !tile.ptr<f16> -> tensor<8x64x!tile.ptr<f16>>
  // Rows of 64 contiguous f16 starting 16-byte aligned: 16-byte vectors.
  // expected-remark @below {{contiguity = [1, 64], divisibility = [2, 16], constancy = [1, 1]}}
  %p = tile.addptr %xs, %off : tensor<8x64x!tile.ptr<f16>>, tensor<8x64xi32>
  // expected-remark @below {{contiguity = [64, 1], divisibility = [16, 1], constancy = [1, 1]}}
  %t = tile.trans %off, [1, 0] : tensor<8x64xi32> -> tensor<64x8xi32>
  // Same addresses, runs of 4-byte elements unknown.
  // expected-remark @below {{contiguity = [1, 1], divisibility = [2, 1], constancy = [1, 1]}}
  %q = tile.bitcast %p : tensor<8x64x!tile.ptr<f16>> -> tensor<8x64x!tile.ptr<i32>>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [8, 64]}}
  %qs = tile.bitcast %xs : tensor<8x64x!tile.ptr<f16>> -> tensor<8x64x!tile.ptr<i32>>
  // Loads through uniform pointers are uniform.
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [8, 64]}}
  %v = tile.load %qs : tensor<8x64x!tile.ptr<i32>>
  return
}

// -----

// Loop-carried values join their initial and yielded values.
func.func @loop(%n: i32) {
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant = 8}}
  %c8 = arith.constant 8 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [1], constant = 32}}
  %c32 = arith.constant 32 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1]}}
  %s = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %c8) -> (i32) : i32 {
    // The induction variable is a multiple of 32.
    // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [1]}}
    %k = arith.addi %i, %c0 : i32
    // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1]}}
    %next = arith.addi %acc, %k : i32
    scf.yield %next : i32
  }
  // A select between a run and a splat, under a non-uniform condition.
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.range 0, 64 : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %cond = arith.cmpi ne, %r, %r : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [64], constant = 0}}
  %z = arith.constant dense<0> : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %sel = arith.select %cond, %r, %z : tensor<64xi1>, tensor<64xi32>
  return
}
