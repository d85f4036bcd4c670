// RUN: tile-opt %s --test-print-cluster-uniformity --split-input-file -verify-diagnostics

// Program p = 2 c + r of clusters of two: what every program of a cluster
// computes alike (uniform), what follows the rank (E + coef * rank), and
// what the analysis cannot tell.
func.func @pairs(%M: i32, %N: i32) attributes {tile.kernel, tile.num_ctas = 2 : i32} {
  // expected-remark @below {{uniform, divisor 2, non-negative}}
  %c2 = arith.constant 2 : i32
  // expected-remark @below {{uniform, divisor 128, non-negative}}
  %c128 = arith.constant 128 : i32
  // expected-remark @below {{E + 1 * rank, divisor 2, non-negative}}
  %pid = tile.program_id 0
  // expected-remark @below {{uniform, divisor 1, non-negative}}
  %py = tile.program_id 1
  // expected-remark @below {{uniform, divisor 2, non-negative}}
  %nprog = tile.num_programs 0
  // The cluster and the rank: pid / 2 and pid % 2.
  // expected-remark @below {{uniform, divisor 1, non-negative}}
  %cluster = arith.divui %pid, %c2 : i32
  // expected-remark @below {{E + 1 * rank, divisor 0, non-negative}}
  %rank = arith.remui %pid, %c2 : i32
  // expected-remark @below {{uniform, divisor 1, non-negative}}
  %clusters = arith.divui %nprog, %c2 : i32
  // expected-remark @below {{E + 128 * rank, divisor 256, non-negative}}
  %m0 = arith.muli %pid, %c128 : i32
  // A parameter is uniform, of unknown sign.
  // expected-remark @below {{uniform, divisor 1}}
  %mp = arith.addi %M, %c2 : i32
  // expected-remark @below {{uniform, divisor 1}}
  %npm = arith.divsi %mp, %c128 : i32
  // A loop from the cluster, by the clusters: its induction variable and
  // what the group order makes of it are uniform.
  // expected-remark @below {{uniform, divisor 1}}
  %tiles = arith.muli %npm, %N : i32
  scf.for %t = %cluster to %tiles step %clusters : i32 {
    // expected-remark @below {{result #0: uniform, divisor 1, non-negative}}
    // expected-remark @below {{result #1: uniform, divisor 1, non-negative}}
    %q, %n = tile.grouped_ids %t, %npm, %N group 4
    // expected-remark @below {{uniform, divisor 2}}
    %q2 = arith.muli %q, %c2 : i32
    // expected-remark @below {{E + 1 * rank, divisor 2}}
    %pm = arith.addi %q2, %rank : i32
  }
  // A loop from the program id: its variable follows the rank; a division
  // by 2 of a value not known to be a multiple of 2 plus the rank is
  // unknown.
  scf.for %t = %pid to %tiles step %nprog : i32 {
    // expected-remark @below {{E + 1 * rank, divisor 2, non-negative}}
    %t1 = arith.addi %t, %c2 : i32
    // expected-remark @below {{E + 1 * rank, divisor 1, non-negative}}
    %odd = arith.addi %t, %py : i32
    // expected-remark @below {{unknown}}
    %half = arith.divui %odd, %c2 : i32
    // expected-remark @below {{unknown}}
    %g:2 = tile.grouped_ids %t, %npm, %N group 8
  }
  return
}

// -----

// Kernels with programs alone get no remarks.
func.func @alone() attributes {tile.kernel} {
  %pid = tile.program_id 0
  return
}
