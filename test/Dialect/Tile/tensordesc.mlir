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
