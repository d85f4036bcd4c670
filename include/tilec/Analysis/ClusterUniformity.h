//===- ClusterUniformity.h - values equal across a cluster's programs ----===//
//
// In a kernel whose programs run in clusters of n along the grid's x axis
// (tile.num_ctas = n), program p = n * c + r runs as rank r of cluster c.
// This analysis says, for a scalar integer value, whether it has the form
// E + k * r with E the same in every program of a cluster and k a known
// constant: k = 0 is a value every program of the cluster computes alike
// (a TMA block they may share, a loop all of them run as often). It follows
// the integer arithmetic the tile programs use to map program ids to tiles
// (program_id(0) = n c + r, num_programs(0) a multiple of n, +, -, *, / and
// % by constants, tile.grouped_ids and any pure op of uniform operands),
// the induction variables of scf.for loops, and the kernel's parameters
// (uniform); anything else is unknown.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_CLUSTERUNIFORMITY_H
#define TILEC_ANALYSIS_CLUSTERUNIFORMITY_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <optional>

namespace mlir::tile {

/// v = E + coef * r for every rank r of the cluster, E the same for all of
/// them and a multiple of `divisor` (0: E is 0); `nonNegative` when v >= 0
/// for every r.
struct ClusterAffine {
  int64_t coef = 0;
  int64_t divisor = 1;
  bool nonNegative = false;
  bool uniform() const { return coef == 0; }
};

class ClusterUniformity {
public:
  /// For a kernel of `ctas` programs per cluster.
  explicit ClusterUniformity(int ctas) : ctas(ctas) {}

  /// The form of a scalar integer (or index) value, or nullopt when the
  /// analysis cannot tell.
  std::optional<ClusterAffine> get(Value v);

  /// Whether every program of the cluster computes the same `v`.
  bool isUniform(Value v) {
    std::optional<ClusterAffine> a = get(v);
    return a && a->uniform();
  }

private:
  std::optional<ClusterAffine> compute(Value v);
  int ctas;
  llvm::DenseMap<Value, std::optional<ClusterAffine>> cache;
};

} // namespace mlir::tile

#endif // TILEC_ANALYSIS_CLUSTERUNIFORMITY_H
