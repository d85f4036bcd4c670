// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s
// RUN: tile-opt %s --canonicalize | FileCheck %s --check-prefix=EXPAND

// tile.grouped_ids, the shorthand for Triton's grouped launch order: it
// prints back as written and expands into the arith ops the matmul
// examples wrote by hand.

// CHECK-LABEL: func.func @grouped
// EXPAND-LABEL: func.func @grouped
// EXPAND-SAME: (%[[PID:.*]]: i32, %[[NM:.*]]: i32, %[[NN:.*]]: i32)
func.func @grouped(%pid: i32, %num_m: i32, %num_n: i32) -> (i32, i32) {
  // CHECK: %{{.*}}, %{{.*}} = tile.grouped_ids %arg0, %arg1, %arg2 group 8
  // EXPAND: %[[G:.*]] = arith.constant 8 : i32
  // EXPAND: %[[W:.*]] = arith.muli %[[NN]], %[[G]] : i32
  // EXPAND: %[[GID:.*]] = arith.divsi %[[PID]], %[[W]] : i32
  // EXPAND: %[[FIRST:.*]] = arith.muli %[[GID]], %[[G]] : i32
  // EXPAND: %[[LEFT:.*]] = arith.subi %[[NM]], %[[FIRST]] : i32
  // EXPAND: %[[SIZE:.*]] = arith.minsi %[[LEFT]], %[[G]] : i32
  // EXPAND: %[[IN:.*]] = arith.remsi %[[PID]], %[[W]] : i32
  // EXPAND: %[[MIN:.*]] = arith.remsi %[[IN]], %[[SIZE]] : i32
  // EXPAND: %[[M:.*]] = arith.addi %[[FIRST]], %[[MIN]] : i32
  // EXPAND: %[[N:.*]] = arith.divsi %[[IN]], %[[SIZE]] : i32
  // EXPAND: return %[[M]], %[[N]] : i32, i32
  // EXPAND-NOT: tile.grouped_ids
  %m, %n = tile.grouped_ids %pid, %num_m, %num_n group 8
  return %m, %n : i32, i32
}

// CHECK-LABEL: func.func @group_one
func.func @group_one(%pid: i32, %num_m: i32, %num_n: i32) -> i32 {
  // CHECK: tile.grouped_ids %arg0, %arg1, %arg2 group 1
  %m, %n = tile.grouped_ids %pid, %num_m, %num_n group 1
  return %n : i32
}
