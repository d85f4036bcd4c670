// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s

// CHECK-LABEL: func.func @copy
// CHECK-SAME: %[[A:.*]]: !tile.tensordesc<tensor<128x64xbf16>>, %[[C:.*]]: !tile.tensordesc<tensor<128x64xbf16>>
// CHECK: %[[T:.*]] = tile.descriptor_load %[[A]][%{{.*}}, %{{.*}}] : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
// CHECK: tile.descriptor_store %[[C]][%{{.*}}, %{{.*}}], %[[T]] : !tile.tensordesc<tensor<128x64xbf16>>, tensor<128x64xbf16>
func.func @copy(%a: !tile.tensordesc<tensor<128x64xbf16>>,
                %c: !tile.tensordesc<tensor<128x64xbf16>>) attributes {tile.kernel} {
  %pid = tile.program_id 0
  %c128 = arith.constant 128 : i32
  %m = arith.muli %pid, %c128 : i32
  %k = arith.constant 0 : i32
  %t = tile.descriptor_load %a[%m, %k] : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
  tile.descriptor_store %c[%m, %k], %t : !tile.tensordesc<tensor<128x64xbf16>>, tensor<128x64xbf16>
  return
}

// A store that adds: fadd into f32, f16, bf16, add into i32.
// CHECK-LABEL: func.func @reduce
// CHECK: tile.descriptor_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} reduce fadd : !tile.tensordesc<tensor<64x32xf32>>, tensor<64x32xf32>
// CHECK: tile.descriptor_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} reduce fadd : !tile.tensordesc<tensor<64x32xbf16>>, tensor<64x32xbf16>
// CHECK: tile.descriptor_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} reduce add : !tile.tensordesc<tensor<64x32xi32>>, tensor<64x32xi32>
func.func @reduce(%f: !tile.tensordesc<tensor<64x32xf32>>, %b: !tile.tensordesc<tensor<64x32xbf16>>,
                  %n: !tile.tensordesc<tensor<64x32xi32>>, %i: i32) attributes {tile.kernel} {
  %vf = tile.descriptor_load %f[%i, %i] : !tile.tensordesc<tensor<64x32xf32>> -> tensor<64x32xf32>
  %vb = tile.descriptor_load %b[%i, %i] : !tile.tensordesc<tensor<64x32xbf16>> -> tensor<64x32xbf16>
  %vn = tile.descriptor_load %n[%i, %i] : !tile.tensordesc<tensor<64x32xi32>> -> tensor<64x32xi32>
  tile.descriptor_store %f[%i, %i], %vf reduce fadd : !tile.tensordesc<tensor<64x32xf32>>, tensor<64x32xf32>
  tile.descriptor_store %b[%i, %i], %vb reduce fadd : !tile.tensordesc<tensor<64x32xbf16>>, tensor<64x32xbf16>
  tile.descriptor_store %n[%i, %i], %vn reduce add : !tile.tensordesc<tensor<64x32xi32>>, tensor<64x32xi32>
  return
}

// Every rank from 1 to 5 and the narrow and wide element types.
// CHECK-LABEL: func.func @ranks
// CHECK-SAME: !tile.tensordesc<tensor<16xi8>>
// CHECK-SAME: !tile.tensordesc<tensor<2x4x8x16x2xf64>>
// CHECK-SAME: !tile.tensordesc<tensor<256x16xf8E4M3FN>>
func.func @ranks(%a: !tile.tensordesc<tensor<16xi8>>,
                 %b: !tile.tensordesc<tensor<2x4x8x16x2xf64>>,
                 %c: !tile.tensordesc<tensor<256x16xf8E4M3FN>>) attributes {tile.kernel} {
  return
}

// A block of a 4-D tensor whose leading dims are 1 loads and stores as a
// 2-D tile (the result may drop the block's leading dims of 1).
// CHECK-LABEL: func.func @squeezed
// CHECK: tile.descriptor_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : !tile.tensordesc<tensor<1x1x64x128xbf16>> -> tensor<64x128xbf16>
// CHECK: tile.descriptor_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : !tile.tensordesc<tensor<1x1x64x128xbf16>> -> tensor<1x64x128xbf16>
// CHECK: tile.descriptor_store %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : !tile.tensordesc<tensor<1x1x64x128xbf16>>, tensor<64x128xbf16>
func.func @squeezed(%k: !tile.tensordesc<tensor<1x1x64x128xbf16>>, %b: i32, %h: i32, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %t = tile.descriptor_load %k[%b, %h, %n, %c0] : !tile.tensordesc<tensor<1x1x64x128xbf16>> -> tensor<64x128xbf16>
  %u = tile.descriptor_load %k[%b, %h, %n, %c0] : !tile.tensordesc<tensor<1x1x64x128xbf16>> -> tensor<1x64x128xbf16>
  tile.descriptor_store %k[%b, %h, %n, %c0], %t : !tile.tensordesc<tensor<1x1x64x128xbf16>>, tensor<64x128xbf16>
  return
}
