// RUN: tile-opt %s --tile-assign-layouts=chip=sm_90a --tile-lower-descriptors="chip=sm_90a num-stages=3" -verify-diagnostics
// An fp8 dot that cannot run on wgmma is an error at the dot, with the
// rule (on sm_90, without wgmma: test/tilec/wgmma-fp8.test).

// B loaded [K, N] (N contiguous) is not staged for an fp8 dot, which
// therefore cannot run: an error at the dot that gives the rule.
func.func @fp8_mn_major(%a: !tile.tensordesc<tensor<128x128xf8E4M3FN>>,
                        %b: !tile.tensordesc<tensor<128x128xf8E4M3FN>>,
                        %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
    %at = tile.descriptor_load %a[%c0, %k] : !tile.tensordesc<tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
    %bt = tile.descriptor_load %b[%k, %c0] : !tile.tensordesc<tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
    // expected-error @+1 {{'tile.dot' op an fp8 dot runs only on wgmma (sm_90a), in a loop whose operands are tensor-descriptor loads read K-major: A as an [M, K] block, B as an [N, K] block through tile.trans (fp8 wgmma has no transposed operands), with an f32 accumulator, K a multiple of 32, M of 16 * num_warps and num_warps of 4; the target is sm_90a}}
    %next = tile.dot %at, %bt, %acc_i : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
    scf.yield %next : tensor<128x128xf32>
  }
  %r = tile.range 0, 128 : tensor<128xi32>
  %r2 = tile.expand_dims %r, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %rb = tile.broadcast %r2 : tensor<1x128xi32> -> tensor<128x128xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %rb : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  tile.store %cp, %acc : tensor<128x128x!tile.ptr<f32>>
  return
}

