// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{!tile.ptr must point to an integer, float or pointer type, not 'index'}}
func.func @bad_pointee(%p: !tile.ptr<index>)

// -----

// expected-error @+1 {{is a tile.kernel and must not return values, but returns 'i32'}}
func.func @kernel_returns(%n: i32) -> i32 attributes {tile.kernel} {
  return %n : i32
}

// -----

// expected-error @+1 {{kernel parameter #1 has type 'tensor<4xf32>'; kernel parameters are i1, i32, i64, f16, bf16, f32, !tile.ptr or !tile.tensordesc (pass tiles through memory)}}
func.func @kernel_tile_param(%n: i32, %t: tensor<4xf32>) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{'tile.kernel' may only mark a func.func}}
module attributes {tile.kernel} {
}

// -----

// expected-error @+1 {{'tile.kernel' must be a unit attribute}}
func.func @kernel_not_unit() attributes {tile.kernel = 1 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.num_warps' must be an i32 attribute}}
func.func @warps_type() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.num_warps' must be in [1, 32] (at most 1024 threads), got 33}}
func.func @warps_value() attributes {tile.kernel, tile.num_warps = 33 : i32} {
  return
}

// -----

// expected-error @+1 {{unknown tile argument attribute 'tile.align'}}
func.func @unknown_arg_attr(%p: !tile.ptr<f32> {tile.align = 16 : i32}) {
  return
}

// -----

// expected-error @+1 {{'tile.divisibility' of parameter #0 must be an integer attribute}}
func.func @div_type(%p: !tile.ptr<f32> {tile.divisibility = "16"}) {
  return
}

// -----

// expected-error @+1 {{'tile.divisibility' of parameter #0 must be a positive power of two, got 12}}
func.func @div_value(%p: !tile.ptr<f32> {tile.divisibility = 12 : i32}) {
  return
}

// -----

// expected-error @+1 {{'tile.divisibility' applies to integer and pointer parameters, not parameter #0 of type 'f32'}}
func.func @div_float(%x: f32 {tile.divisibility = 16 : i32}) {
  return
}

// -----

func.func @program_id_axis() {
  // expected-error @+1 {{'tile.program_id' op axis must be 0, 1 or 2, got 3}}
  %0 = tile.program_id 3
  return
}

// -----

func.func @num_programs_axis() {
  // expected-error @+1 {{'tile.num_programs' op axis must be 0, 1 or 2, got -1}}
  %0 = tile.num_programs -1
  return
}

// -----

func.func @range_empty() {
  // expected-error @+1 {{'tile.range' op end (4) must be greater than start (4)}}
  %0 = tile.range 4, 4 : tensor<0xi32>
  return
}

// -----

func.func @range_size() {
  // expected-error @+1 {{'tile.range' op result type 'tensor<16xi32>' must be a 1-D tile of 8 elements (end - start)}}
  %0 = tile.range 0, 8 : tensor<16xi32>
  return
}

// -----

func.func @splat_type(%x: f32) {
  // expected-error @+1 {{'tile.splat' op result element type 'f16' differs from the scalar type 'f32'}}
  %0 = tile.splat %x : f32 -> tensor<8xf16>
  return
}

// -----

func.func @broadcast_elem(%x: tensor<1x8xf32>) {
  // expected-error @+1 {{'tile.broadcast' op cannot change the element type from 'f32' to 'f16'}}
  %0 = tile.broadcast %x : tensor<1x8xf32> -> tensor<4x8xf16>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.broadcast' op source 'tensor<8xf32>' and result 'tensor<4x8xf32>' differ in rank; use tile.expand_dims first}}
  %0 = tile.broadcast %x : tensor<8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_nonunit(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'tile.broadcast' op cannot broadcast dimension 0 of size 2 to 4 ('tensor<2x8xf32>' -> 'tensor<4x8xf32>'); only dimensions of size 1 broadcast}}
  %0 = tile.broadcast %x : tensor<2x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @expand_axis(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis 2 is out of range for a tile of rank 1 (0..1)}}
  %0 = tile.expand_dims %x, 2 : tensor<8xf32> -> tensor<8x1xf32>
  return
}

// -----

func.func @expand_result(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op result 'tensor<8x1xf32>' is not 'tensor<8xf32>' with a dimension at 0 (of size 1, or the source repeated along it)}}
  %0 = tile.expand_dims %x, 0 : tensor<8xf32> -> tensor<8x1xf32>
  return
}

// -----

func.func @reshape_elem(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reshape' op cannot change the element type from 'f32' to 'i32'}}
  %0 = tile.reshape %x : tensor<8xf32> -> tensor<2x4xi32>
  return
}

// -----

func.func @reshape_count(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reshape' op cannot reshape 'tensor<8xf32>' (8 elements) to 'tensor<3x4xf32>' (12 elements)}}
  %0 = tile.reshape %x : tensor<8xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @trans_size(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tile.trans' op order has 3 entries but the tile has rank 2}}
  %0 = tile.trans %x, [0, 1, 2] : tensor<2x4xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @trans_perm(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tile.trans' op order must be a permutation of 0..1}}
  %0 = tile.trans %x, [1, 1] : tensor<2x4xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @trans_elem(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tile.trans' op cannot change the element type}}
  %0 = tile.trans %x, [1, 0] : tensor<2x4xf32> -> tensor<4x2xf16>
  return
}

// -----

func.func @trans_result(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tile.trans' op result 'tensor<2x4xf32>' is not 'tensor<2x4xf32>' permuted by the order}}
  %0 = tile.trans %x, [1, 0] : tensor<2x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @join_operands(%a: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'tile.join' op failed to verify that all of {lhs, rhs} have same type}}
  %0 = "tile.join"(%a, %b) : (tensor<4xf32>, tensor<8xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @join_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tile.join' op result 'tensor<2x4xf32>' is not 'tensor<4xf32>' with a new minor dimension of size 2}}
  %0 = tile.join %a, %a : tensor<4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @split_minor(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{'tile.split' op source 'tensor<4x3xf32>' must have a minor dimension of 2}}
  %0, %1 = tile.split %a : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @split_result(%a: tensor<4x2xf32>) {
  // expected-error @+1 {{'tile.split' op result 'tensor<8xf32>' is not 'tensor<4x2xf32>' without its minor dimension}}
  %0, %1 = tile.split %a : tensor<4x2xf32> -> tensor<8xf32>
  return
}

// -----

func.func @convert_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tile.convert_layout' op may change only the layout, not 'tensor<4xf32>' to 'tensor<8xf32>'}}
  %0 = tile.convert_layout %a : tensor<4xf32> -> tensor<8xf32>
  return
}

// -----

func.func @addptr_shape(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<8xi32>) {
  // expected-error @+1 {{'tile.addptr' op offset type 'tensor<8xi32>' does not match the shape of 'tensor<4x!tile.ptr<f32>>'}}
  %0 = tile.addptr %p, %o : tensor<4x!tile.ptr<f32>>, tensor<8xi32>
  return
}

// -----

func.func @addptr_result(%p: !tile.ptr<f32>, %o: i32) {
  // expected-error @+2 {{'tile.addptr' op inferred type(s) '!tile.ptr<f32>' are incompatible with return type(s) of operation '!tile.ptr<f16>'}}
  // expected-error @+1 {{'tile.addptr' op failed to infer returned types}}
  %0 = "tile.addptr"(%p, %o) : (!tile.ptr<f32>, i32) -> !tile.ptr<f16>
  return
}

// -----

func.func @bitcast_shape(%p: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.bitcast' op cannot change the shape from 'tensor<4x!tile.ptr<f32>>' to '!tile.ptr<i32>'}}
  %0 = tile.bitcast %p : tensor<4x!tile.ptr<f32>> -> !tile.ptr<i32>
  return
}

// -----

func.func @load_not_pointer(%p: tensor<4xf32>) {
  // expected-error @+1 {{expected a !tile.ptr or a tile of them, got 'tensor<4xf32>'}}
  %0 = tile.load %p : tensor<4xf32>
  return
}

// -----

func.func @load_bad_cache(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{unknown cache value 'l2'}}
  %0 = tile.load %p cache = l2 : !tile.ptr<f32>
  return
}

// -----

func.func @load_mask_use(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'tensor<4xi1>' vs 'tensor<8xi1>'}}
  %0 = tile.load %p, %m : tensor<4x!tile.ptr<f32>>
  return
}

// -----

func.func @load_mask(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{'tile.load' op mask type 'tensor<8xi1>' does not match the shape of the pointers 'tensor<4x!tile.ptr<f32>>'}}
  %0 = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x!tile.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>
  return
}

// -----

func.func @load_result(%p: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.load' op result type 'tensor<4xf16>' does not match the pointers 'tensor<4x!tile.ptr<f32>>' (expected 'tensor<4xf32>')}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x!tile.ptr<f32>>) -> tensor<4xf16>
  return
}

// -----

func.func @load_other_needs_mask(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>) {
  // expected-error @+1 {{'tile.load' op 'other' needs a mask}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @load_other_type(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi1>, %o: tensor<4xf16>) {
  // expected-error @+1 {{'tile.load' op other type 'tensor<4xf16>' must be the result type 'tensor<4xf32>'}}
  %0 = "tile.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4x!tile.ptr<f32>>, tensor<4xi1>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @store_mask(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %m: i1) {
  // expected-error @+1 {{'tile.store' op mask type 'i1' does not match the shape of the pointers 'tensor<4x!tile.ptr<f32>>'}}
  "tile.store"(%p, %v, %m) : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>, i1) -> ()
  return
}

// -----

func.func @store_value(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf16>) {
  // expected-error @+1 {{'tile.store' op value type 'tensor<4xf16>' does not match the pointers 'tensor<4x!tile.ptr<f32>>' (expected 'tensor<4xf32>')}}
  "tile.store"(%p, %v) : (tensor<4x!tile.ptr<f32>>, tensor<4xf16>) -> ()
  return
}

// -----

func.func @rmw_unknown(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{unknown atomic kind 'nand'}}
  %0 = tile.atomic_rmw nand %p, %v : !tile.ptr<i32>
  return
}

// -----

func.func @rmw_mask(%p: tensor<4x!tile.ptr<i32>>, %v: tensor<4xi32>, %m: tensor<2xi1>) {
  // expected-error @+1 {{'tile.atomic_rmw' op mask type 'tensor<2xi1>' does not match the shape of the pointers 'tensor<4x!tile.ptr<i32>>'}}
  %0 = "tile.atomic_rmw"(%p, %v, %m) <{kind = #tile.rmw<add>}> : (tensor<4x!tile.ptr<i32>>, tensor<4xi32>, tensor<2xi1>) -> tensor<4xi32>
  return
}

// -----

func.func @rmw_value(%p: !tile.ptr<i32>, %v: i64) {
  // expected-error @+1 {{'tile.atomic_rmw' op value type 'i64' does not match the pointers '!tile.ptr<i32>' (expected 'i32')}}
  %0 = "tile.atomic_rmw"(%p, %v) <{kind = #tile.rmw<add>}> : (!tile.ptr<i32>, i64) -> i64
  return
}

// -----

func.func @rmw_result(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{'tile.atomic_rmw' op result type 'i64' must be the value type 'i32'}}
  %0 = "tile.atomic_rmw"(%p, %v) <{kind = #tile.rmw<add>}> : (!tile.ptr<i32>, i32) -> i64
  return
}

// -----

func.func @rmw_kind(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic 'add' does not support element type 'f32'}}
  %0 = tile.atomic_rmw add %p, %v : !tile.ptr<f32>
  return
}

// -----

func.func @cas_compare(%p: !tile.ptr<i32>, %c: i64, %v: i32) {
  // expected-error @+1 {{'tile.atomic_cas' op compare type 'i64' does not match the pointers '!tile.ptr<i32>' (expected 'i32')}}
  %0 = "tile.atomic_cas"(%p, %c, %v) : (!tile.ptr<i32>, i64, i32) -> i32
  return
}

// -----

func.func @cas_value(%p: !tile.ptr<i32>, %c: i32, %v: i64) {
  // expected-error @+1 {{'tile.atomic_cas' op value type 'i64' does not match the pointers '!tile.ptr<i32>' (expected 'i32')}}
  %0 = "tile.atomic_cas"(%p, %c, %v) : (!tile.ptr<i32>, i32, i64) -> i64
  return
}

// -----

func.func @cas_result(%p: !tile.ptr<i32>, %c: i32) {
  // expected-error @+1 {{'tile.atomic_cas' op result type 'f32' must be the value type 'i32'}}
  %0 = "tile.atomic_cas"(%p, %c, %c) : (!tile.ptr<i32>, i32, i32) -> f32
  return
}

// -----

func.func @cas_width(%p: !tile.ptr<i8>, %c: i8) {
  // expected-error @+1 {{'tile.atomic_cas' op compare-and-swap needs 16, 32 or 64-bit elements, not 'i8'}}
  %0 = tile.atomic_cas %p, %c, %c : !tile.ptr<i8>
  return
}

// -----

func.func @reduce_empty() {
  // expected-error @+1 {{'tile.reduce' op needs at least one source tile}}
  "tile.reduce"() <{axis = 0 : i32}> ({
  ^bb0:
    tile.yield
  }) : () -> ()
  return
}

// -----

func.func @reduce_shapes(%a: tensor<4xf32>, %b: tensor<8xi32>) {
  // expected-error @+1 {{'tile.reduce' op sources 'tensor<4xf32>' and 'tensor<8xi32>' differ in shape}}
  %0:2 = tile.reduce(%a, %b) axis = 0 : (tensor<4xf32>, tensor<8xi32>) -> (f32, i32) {
  ^bb0(%x: f32, %i: i32, %y: f32, %j: i32):
    tile.yield %x, %i : f32, i32
  }
  return
}

// -----

func.func @reduce_axis(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 2 is out of range for tiles of rank 2}}
  %0 = tile.reduce(%a) axis = 2 : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%x: f32, %y: f32):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @reduce_args(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner must take the accumulators then the new values, ('f32', 'f32'), but takes ('f32', 'i32')}}
  %0 = tile.reduce(%a) axis = 0 : (tensor<4xf32>) -> f32 {
  ^bb0(%x: f32, %y: i32):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @reduce_terminator(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner must end with tile.yield}}
  %0 = tile.reduce(%a) axis = 0 : (tensor<4xf32>) -> f32 {
  ^bb0(%x: f32, %y: f32):
    llvm.unreachable
  }
  return
}

// -----

func.func @reduce_yield(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner must yield ('f32'), but yields ('f32', 'f32')}}
  %0 = tile.reduce(%a) axis = 0 : (tensor<4xf32>) -> f32 {
  ^bb0(%x: f32, %y: f32):
    tile.yield %x, %y : f32, f32
  }
  return
}

// -----

func.func @reduce_results(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tile.reduce' op has 1 sources but 2 results}}
  %0:2 = tile.reduce(%a) axis = 0 : (tensor<4xf32>) -> (f32, f32) {
  ^bb0(%x: f32, %y: f32):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @reduce_result_shape(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.reduce' op reducing 'tensor<4x8xf32>' along axis 1 cannot give 'tensor<8xf32>'}}
  %0 = tile.reduce(%a) axis = 1 : (tensor<4x8xf32>) -> tensor<8xf32> {
  ^bb0(%x: f32, %y: f32):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @scan_axis(%a: tensor<4xi32>) {
  // expected-error @+1 {{'tile.scan' op axis 1 is out of range for tiles of rank 1}}
  %0 = tile.scan(%a) axis = 1 : (tensor<4xi32>) -> tensor<4xi32> {
  ^bb0(%x: i32, %y: i32):
    tile.yield %x : i32
  }
  return
}

// -----

func.func @scan_results(%a: tensor<4xi32>) {
  // expected-error @+1 {{'tile.scan' op has 1 sources but 2 results}}
  %0:2 = tile.scan(%a) axis = 0 : (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  ^bb0(%x: i32, %y: i32):
    tile.yield %x : i32
  }
  return
}

// -----

func.func @scan_result(%a: tensor<4xi32>) {
  // expected-error @+1 {{'tile.scan' op result 'tensor<4xi64>' must have the source's type 'tensor<4xi32>'}}
  %0 = tile.scan(%a) axis = 0 : (tensor<4xi32>) -> tensor<4xi64> {
  ^bb0(%x: i32, %y: i32):
    tile.yield %x : i32
  }
  return
}

// -----

func.func @dot_rank(%a: tensor<16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op operands must be 2-D tiles, got 'tensor<16xf16>', 'tensor<16x16xf16>' and 'tensor<16x16xf32>'}}
  %0 = tile.dot %a, %b, %c : tensor<16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_inner(%a: tensor<64x32xf16>, %b: tensor<16x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op inner dimensions differ: 'tensor<64x32xf16>' * 'tensor<16x64xf16>' (K = 32 vs 16)}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @dot_acc(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator 'tensor<64x64xf32>' must be 64x16 for 'tensor<64x32xf16>' * 'tensor<32x16xf16>'}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @dot_result(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op failed to verify that all of {c, result} have same type}}
  %0 = "tile.dot"(%a, %a, %c) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf16>
  return
}

// -----

func.func @dot_mixed(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op operand element types differ: 'f16' and 'bf16'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_elem(%a: tensor<16x16xi32>, %c: tensor<16x16xi32>) {
  // expected-error @+1 {{'tile.dot' op operand element type 'i32' is not one of f16, bf16, f32, f8E4M3FN, f8E5M2, i8}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xi32>, tensor<16x16xi32> -> tensor<16x16xi32>
  return
}

// -----

func.func @dot_acc_elem(%a: tensor<16x16xbf16>, %c: tensor<16x16xbf16>) {
  // expected-error @+1 {{'tile.dot' op accumulator element type 'bf16' cannot accumulate 'bf16' products (use f32)}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xbf16>
  return
}

// -----

func.func @store_operands(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{expected 2 operands}}
  tile.store %p : !tile.ptr<f32>
  return
}

// -----

// expected-error @+1 {{'tile.num_stages' must be in [1, 8], got 0}}
func.func @stages() attributes {tile.kernel, tile.num_stages = 0 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.approx_math' must be a unit attribute}}
func.func @approx_value() attributes {tile.kernel, tile.approx_math = 1 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.approx_math' may only mark a tile.kernel (tile functions take their kernel's math)}}
func.func private @approx_helper(%x: f32) -> f32 attributes {tile.approx_math}

// -----

// Operands that ODS says have one type agree in layout too: the assembly
// prints their type once, so a mismatch must be caught here.
#b0 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b1 = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @join_layouts(%a: tensor<64xf32, #b0>, %b: tensor<64xf32, #b1>) {
  // expected-error @+1 {{'tile.join' op failed to verify that all of {lhs, rhs} have same type}}
  %0 = "tile.join"(%a, %b) : (tensor<64xf32, #b0>, tensor<64xf32, #b1>) -> tensor<64x2xf32>
  return
}

// -----

#b0 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b1 = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @split_layouts(%a: tensor<64x2xf32>) {
  // expected-error @+1 {{'tile.split' op failed to verify that all of {lhs, rhs} have same type}}
  %0, %1 = "tile.split"(%a) : (tensor<64x2xf32>) -> (tensor<64xf32, #b0>, tensor<64xf32, #b1>)
  return
}

// -----

#b0 = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b1 = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @dot_layouts(%a: tensor<16x16xf32>, %c: tensor<16x16xf32, #b0>) {
  // expected-error @+1 {{'tile.dot' op failed to verify that all of {c, result} have same type}}
  %0 = "tile.dot"(%a, %a, %c) : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32, #b0>) -> tensor<16x16xf32, #b1>
  return
}

// -----

func.func @load_wt(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.load' op cache modifier 'wt' is for stores; loads take ca, cg, cs or cv}}
  %v = tile.load %x cache = wt : !tile.ptr<f32>
  return
}

// -----

func.func @store_ca(%x: !tile.ptr<f32>, %v: f32) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.store' op cache modifier 'ca' is for loads; stores take wb, cg, cs or wt}}
  tile.store %x, %v cache = ca : !tile.ptr<f32>
  return
}

// -----

func.func @cache_and_evict(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.load' op PTX cannot combine a cache modifier with an eviction policy; give one of them}}
  %v = tile.load %x cache = cg evict = evict_last : !tile.ptr<f32>
  return
}

// -----

func.func @store_cache_and_evict(%x: !tile.ptr<f32>, %v: f32) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.store' op PTX cannot combine a cache modifier with an eviction policy; give one of them}}
  tile.store %x, %v cache = cs evict = evict_first : !tile.ptr<f32>
  return
}

// -----

func.func @volatile_cache(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.load' op a volatile load takes no cache modifier or eviction policy}}
  %v = tile.load %x cache = cg volatile : !tile.ptr<f32>
  return
}

// -----

// expected-error @+1 {{kernel name "a.b" is not a valid PTX entry name}}
func.func @"a.b"() attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{kernel parameter #0 has type '!tile.ptr<!tile.ptr<f32>>'; a kernel's pointers point to i1, i8, i16, i32, i64, f16, bf16, f32, f64, f8E4M3FN or f8E5M2}}
func.func @kernel_ptr_ptr(%p: !tile.ptr<!tile.ptr<f32>>) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{'tile.divisibility' of parameter #0 is 2199023255552, above the largest the runtime accepts (2^40 = 1099511627776)}}
func.func @huge_divisibility(%n: i64 {tile.divisibility = 2199023255552 : i64}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{'tile.divisibility' of parameter #0 is 2, but an i1 parameter is 0 or 1}}
func.func @i1_divisibility(%b: i1 {tile.divisibility = 2 : i32}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{'tile.warp_specialize' must be a bool attribute (true or false)}}
func.func @ws_not_bool() attributes {tile.kernel, tile.warp_specialize = 1 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.warp_specialize' may only mark a tile.kernel}}
func.func @ws_not_kernel() attributes {tile.warp_specialize = true} {
  return
}

// -----

// expected-error @+1 {{'tile.pingpong' must be a unit attribute}}
func.func @pingpong_not_unit() attributes {tile.kernel, tile.pingpong = true} {
  return
}

// -----

// expected-error @+1 {{'tile.pingpong' may only mark a tile.kernel}}
func.func @pingpong_not_kernel() attributes {tile.pingpong} {
  return
}

// -----

// expected-error @+1 {{'tile.num_ctas' must be 1, 2 or 4 (programs per cluster along the grid's x axis), got 3}}
func.func @ctas() attributes {tile.kernel, tile.num_ctas = 3 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.num_ctas' may only mark a tile.kernel}}
func.func @ctas_not_kernel() attributes {tile.num_ctas = 2 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.num_ctas' must be an i32 attribute}}
func.func @ctas_type() attributes {tile.kernel, tile.num_ctas = 2 : i64} {
  return
}
