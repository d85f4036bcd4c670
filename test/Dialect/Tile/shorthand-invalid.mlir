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
