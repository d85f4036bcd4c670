// RUN: tile-opt %s -split-input-file -verify-diagnostics

// The named combiners' errors, at the name.

func.func @unknown(%x: tensor<128xf32>) {
  // expected-error @+1 {{unknown combiner 'sum'; the named combiners are add, mul, max, min, umax, umin, and, or, xor, argmax, argmin (or write the region)}}
  %0 = tile.reduce sum(%x) axis = 0 : (tensor<128xf32>) -> f32
  return
}

// -----

func.func @bitwise_float(%x: tensor<128xf32>) {
  // expected-error @+1 {{combiner 'and' needs integer tiles, not 'f32'}}
  %0 = tile.reduce and(%x) axis = 0 : (tensor<128xf32>) -> f32
  return
}

// -----

func.func @unsigned_float(%x: tensor<128xf32>) {
  // expected-error @+1 {{combiner 'umax' needs integer tiles, not 'f32'}}
  %0 = tile.scan umax(%x) axis = 0 : (tensor<128xf32>) -> tensor<128xf32>
  return
}

// -----

func.func @argmax_one(%x: tensor<128xf32>) {
  // expected-error @+1 {{combiner 'argmax' takes two tiles, the values and their indices, not 1}}
  %0 = tile.reduce argmax(%x) axis = 0 : (tensor<128xf32>) -> f32
  return
}

// -----

func.func @argmax_float_index(%x: tensor<128xf32>) {
  // expected-error @+1 {{combiner 'argmax' takes values (numbers) and indices (integers), not 'f32' and 'f32'}}
  %0, %1 = tile.reduce argmax(%x, %x) axis = 0 : (tensor<128xf32>, tensor<128xf32>) -> (f32, f32)
  return
}

// -----

func.func @add_two(%x: tensor<128xf32>) {
  // expected-error @+1 {{combiner 'add' takes one tile, not 2 (several tiles reduce together with a region)}}
  %0, %1 = tile.reduce add(%x, %x) axis = 0 : (tensor<128xf32>, tensor<128xf32>) -> (f32, f32)
  return
}

// -----

func.func @not_a_tile(%x: f32) {
  // expected-error @+1 {{sources must be tiles, got 'f32'}}
  %0 = tile.reduce add(%x) axis = 0 : (f32) -> f32
  return
}

// -----

// The op's own checks still hold after the region is built.
func.func @bad_axis(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 1 is out of range for tiles of rank 1}}
  %0 = tile.reduce add(%x) axis = 1 : (tensor<128xf32>) -> f32
  return
}

// -----

func.func @bad_offset_type(%x: !tile.ptr<f32>) {
  %q = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %r = tile.range 0, 64 : tensor<64xi32>
  // expected-error @+1 {{offset type 'tensor<64xi32>' does not match the shape of 'tensor<128x!tile.ptr<f32>>'}}
  %s = tile.addptr %q, %r : tensor<128x!tile.ptr<f32>>, tensor<64xi32>
  return
}

// -----

func.func @outer_kind(%r: tensor<16xi32>, %c: tensor<32xi32>) {
  // expected-error @+1 {{unknown outer operation 'max' (add, sub, mul, and, or, xor)}}
  %0 = tile.outer max %r, %c : tensor<16xi32>, tensor<32xi32>
  return
}

// -----

func.func @outer_rank(%r: tensor<16x2xi32>, %c: tensor<32xi32>) {
  // expected-error @+1 {{tile.outer combines two 1-D tiles, got 'tensor<16x2xi32>' and 'tensor<32xi32>'}}
  %0 = tile.outer add %r, %c : tensor<16x2xi32>, tensor<32xi32>
  return
}

// -----

func.func @outer_types(%r: tensor<16xi32>, %c: tensor<32xi64>) {
  // expected-error @+1 {{'tile.outer' op operands have element types 'i32' and 'i64'}}
  %0 = tile.outer add %r, %c : tensor<16xi32>, tensor<32xi64>
  return
}

// -----

func.func @outer_float_and(%r: tensor<16xf32>, %c: tensor<32xf32>) {
  // expected-error @+1 {{'tile.outer' op 'and' does not take 'f32' tiles (integers or i1)}}
  %0 = tile.outer and %r, %c : tensor<16xf32>, tensor<32xf32>
  return
}

// -----

func.func @outer_bool_add(%r: tensor<16xi1>, %c: tensor<32xi1>) {
  // expected-error @+1 {{'tile.outer' op 'add' does not take 'i1' tiles (integers or floats)}}
  %0 = tile.outer add %r, %c : tensor<16xi1>, tensor<32xi1>
  return
}

// -----

// The verifier's own checks, reachable through the generic form.
func.func @outer_generic_rank(%r: tensor<16x2xi32>, %c: tensor<32xi32>) {
  // expected-error @+1 {{'tile.outer' op combines two 1-D tiles, got 'tensor<16x2xi32>' and 'tensor<32xi32>'}}
  %0 = "tile.outer"(%r, %c) {kind = #tile.outer<add>} : (tensor<16x2xi32>, tensor<32xi32>) -> tensor<16x32xi32>
  return
}

// -----

func.func @outer_generic_result(%r: tensor<16xi32>, %c: tensor<32xi32>) {
  // expected-error @+1 {{'tile.outer' op result 'tensor<32x16xi32>' is not the 16x32 tile of 'i32'}}
  %0 = "tile.outer"(%r, %c) {kind = #tile.outer<add>} : (tensor<16xi32>, tensor<32xi32>) -> tensor<32x16xi32>
  return
}

// -----

func.func @grouped_zero(%pid: i32, %nm: i32, %nn: i32) {
  // expected-error @+1 {{'tile.grouped_ids' op group 0 must be at least 1}}
  %m, %n = tile.grouped_ids %pid, %nm, %nn group 0
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @grouped_i64(%pid: i64, %nm: i32, %nn: i32) {
  // expected-error @+1 {{use of value '%pid' expects different type than prior uses: 'i32' vs 'i64'}}
  %m, %n = tile.grouped_ids %pid, %nm, %nn group 8
  return
}

// -----

func.func @each_kind(%x: tensor<16xf32>, %s: f32) {
  // expected-error @+1 {{unknown arith op 'sub' for tile.each (addi, subi, muli, divsi, divui, remsi, remui, andi, ori, xori, maxsi, minsi, maxui, minui, shli, shrsi, shrui, addf, subf, mulf, divf, remf, maxnumf, minnumf, maximumf, minimumf, cmpi, cmpf)}}
  %0 = tile.each sub %x, %s : tensor<16xf32>, f32
  return
}

// -----

func.func @each_predicate(%i: tensor<16xi32>, %n: i32) {
  // expected-error @+1 {{unknown cmpi predicate 'olt'}}
  %0 = tile.each cmpi olt, %i, %n : tensor<16xi32>, i32
  return
}

// -----

func.func @each_two_tiles(%x: tensor<16xf32>) {
  // expected-error @+1 {{tile.each takes a tile and a scalar of its element type, got 'tensor<16xf32>' and 'tensor<16xf32>' (for two tiles write the arith op)}}
  %0 = tile.each addf %x, %x : tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @each_scalar_type(%x: tensor<16xf32>, %s: f16) {
  // expected-error @+1 {{tile.each takes a tile and a scalar of its element type, got 'tensor<16xf32>' and 'f16'}}
  %0 = tile.each addf %x, %s : tensor<16xf32>, f16
  return
}

// -----

func.func @each_float_int(%i: tensor<16xi32>, %n: i32) {
  // expected-error @+1 {{'tile.each' op 'addf' takes floats, not 'i32'}}
  %0 = tile.each addf %i, %n : tensor<16xi32>, i32
  return
}

// -----

func.func @each_int_float(%x: tensor<16xf32>, %s: f32) {
  // expected-error @+1 {{'tile.each' op 'cmpi' takes integers, not 'f32'}}
  %0 = tile.each cmpi slt, %x, %s : tensor<16xf32>, f32
  return
}

// -----

// The verifier's own checks, reachable through the generic form.
func.func @each_generic_predicate(%i: tensor<16xi32>, %n: i32) {
  // expected-error @+1 {{'tile.each' op a comparison needs a predicate}}
  %0 = "tile.each"(%i, %n) {kind = #tile.each<cmpi>} : (tensor<16xi32>, i32) -> tensor<16xi1>
  return
}

// -----

func.func @each_generic_bad_predicate(%i: tensor<16xi32>, %n: i32) {
  // expected-error @+1 {{'tile.each' op predicate 42 is not a cmpi's}}
  %0 = "tile.each"(%i, %n) {kind = #tile.each<cmpi>, predicate = 42 : i64} : (tensor<16xi32>, i32) -> tensor<16xi1>
  return
}

// -----

func.func @each_generic_extra_predicate(%i: tensor<16xi32>, %n: i32) {
  // expected-error @+1 {{'tile.each' op only cmpi and cmpf take a predicate}}
  %0 = "tile.each"(%i, %n) {kind = #tile.each<addi>, predicate = 2 : i64} : (tensor<16xi32>, i32) -> tensor<16xi32>
  return
}

// -----

func.func @each_generic_result(%i: tensor<16xi32>, %n: i32) {
  // expected-error @+1 {{'tile.each' op result 'tensor<16xi32>' must be 'tensor<16xi1>'}}
  %0 = "tile.each"(%i, %n) {kind = #tile.each<cmpi>, predicate = 2 : i64} : (tensor<16xi32>, i32) -> tensor<16xi32>
  return
}

// -----

func.func @each_generic_scalars(%n: i32) {
  // expected-error @+1 {{'tile.each' op takes a tile and a scalar of its element type, got 'i32' and 'i32'}}
  %0 = "tile.each"(%n, %n) {kind = #tile.each<addi>} : (i32, i32) -> tensor<16xi32>
  return
}

// -----

func.func @range_offset_and_block(%s: i32, %b: i32) {
  // expected-error @+1 {{'tile.range' op takes an offset or a block index, not both}}
  %0 = tile.range 0, 128 offset %s block %b : tensor<128xi32>
  return
}

// -----

func.func @repeat_wrong_place(%l: tensor<128xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op result 'tensor<64x64xf32>' is not 'tensor<128xf32>' with a dimension at 1 (of size 1, or the source repeated along it)}}
  %0 = tile.expand_dims %l, 1 : tensor<128xf32> -> tensor<64x64xf32>
  return
}
