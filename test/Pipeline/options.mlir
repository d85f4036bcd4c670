// tile-opt's --tilec-pipeline: its options are typed and its targets checked.

// RUN: not tile-opt %s --tilec-pipeline="emit=layuot" 2>&1 | FileCheck %s --check-prefix=EMIT
// EMIT: for the --emit option: 'layuot' is not an emit level (tile, layout, gpu, llvm, ptx)

// RUN: tile-opt %s --tilec-pipeline="emit=layout" | FileCheck %s --check-prefix=LAYOUT
// LAYOUT: tile.range 0, 128 : tensor<128xi32, #blocked>

// Every pass that decides by target rejects an unknown chip, naming the
// known ones (tilec::Target is their one parser).
// RUN: not tile-opt %s --tilec-pipeline="emit=layout arch=sm_75" 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not tile-opt %s --tile-assign-layouts=chip=sm_75 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not tile-opt %s --tile-pipeline-loops=chip=sm_75 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: error: unknown GPU target 'sm_75' (known: sm_80, sm_89, sm_90, sm_90a, sm_100a)

// The chip reaches the NVVM target and the PTX: `.target` and the PTX
// version it needs.
// RUN: tile-opt %s --tilec-pipeline="emit=gpu arch=sm_100a" | FileCheck %s --check-prefix=GPU100
// GPU100: #nvvm.target<O = 3, chip = "sm_100a", features = "+ptx86">
// RUN: tilec %s --arch=sm_90a -o - | FileCheck %s --check-prefix=PTX90A
// PTX90A: .version 8.1
// PTX90A: .target sm_90a
// RUN: tilec %s --arch=sm_100a -o - | FileCheck %s --check-prefix=PTX100A
// PTX100A: .version 8.6
// PTX100A: .target sm_100a
// RUN: tilec %s --arch=sm_89 -o - | FileCheck %s --check-prefix=PTX89
// PTX89: .target sm_89

func.func @k(%p: !tile.ptr<i32>) attributes {tile.kernel} {
  %r = tile.range 0, 128 : tensor<128xi32>
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  %pa = tile.addptr %ps, %r : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  tile.store %pa, %r : tensor<128x!tile.ptr<i32>>
  return
}
