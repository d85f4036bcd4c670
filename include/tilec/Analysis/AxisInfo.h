//===- AxisInfo.h - contiguity, divisibility, constancy ---------*- C++ -*-===//
//
// A forward dataflow analysis over integer and pointer values (scalars and
// tiles) that tells the GPU lowering when neighbouring elements of a tile
// are consecutive addresses, how aligned they are and when a mask is uniform
// over a group of elements: what decides 128-bit vector memory accesses.
//
// Per dimension d of a value (a scalar has one dimension of size 1):
//  - contiguity[d] = c: along d the values form runs v, v+1, ..., v+c-1
//    over every aligned block of c elements;
//  - divisibility[d] = D: the first value of each such run is a multiple of
//    D (for pointers, the address in bytes);
//  - constancy[d] = k: the value is the same over every aligned block of k
//    elements along d.
// All three are powers of two; kernel parameters take divisibility from
// their `tile.divisibility` hint.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_AXISINFO_H
#define TILEC_ANALYSIS_AXISINFO_H

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace mlir::tile {

class AxisInfo {
public:
  using DimVector = SmallVector<int64_t, 4>;
  /// Divisibility of 0, and the cap of every divisibility.
  static constexpr int64_t kMaxDivisor = int64_t(1) << 30;

  /// The uninitialized state (nothing known yet, the optimistic start).
  AxisInfo() = default;
  AxisInfo(DimVector contiguity, DimVector divisibility, DimVector constancy,
           std::optional<int64_t> constant = std::nullopt);
  /// Nothing known about a value of rank `rank` (0 for a scalar).
  static AxisInfo getPessimistic(unsigned rank);
  /// What is known about a value of `type` before looking at its definition.
  static AxisInfo getPessimistic(Type type);

  bool isInitialized() const { return initialized; }
  unsigned getRank() const { return contiguity.size(); }
  int64_t getContiguity(unsigned d) const { return contiguity[d]; }
  int64_t getDivisibility(unsigned d) const { return divisibility[d]; }
  int64_t getConstancy(unsigned d) const { return constancy[d]; }
  ArrayRef<int64_t> getContiguity() const { return contiguity; }
  ArrayRef<int64_t> getDivisibility() const { return divisibility; }
  ArrayRef<int64_t> getConstancy() const { return constancy; }
  std::optional<int64_t> getConstantValue() const { return constant; }
  /// The divisibility of the first value of every aligned run of `len`
  /// elements along d (smaller than getDivisibility when len < contiguity).
  int64_t getDivisibilityAt(unsigned d, int64_t len) const;
  /// A divisor of every element (the best over all dimensions).
  int64_t getElementDivisibility() const;

  bool operator==(const AxisInfo &other) const;
  static AxisInfo join(const AxisInfo &lhs, const AxisInfo &rhs);
  void print(raw_ostream &os) const;

private:
  bool initialized = false;
  DimVector contiguity, divisibility, constancy;
  std::optional<int64_t> constant;
};

/// The largest power of two dividing `v` (kMaxDivisor for 0).
int64_t highestPowerOf2Divisor(int64_t v);

class AxisInfoLattice : public dataflow::Lattice<AxisInfo> {
public:
  using Lattice::Lattice;
};

/// The dataflow analysis; load it into a DataFlowSolver together with
/// DeadCodeAnalysis and SparseConstantPropagation.
class AxisInfoAnalysis
    : public dataflow::SparseForwardDataFlowAnalysis<AxisInfoLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;
  LogicalResult visitOperation(Operation *op,
                               ArrayRef<const AxisInfoLattice *> operands,
                               ArrayRef<AxisInfoLattice *> results) override;
  void visitNonControlFlowArguments(Operation *op,
                                    const RegionSuccessor &successor,
                                    ArrayRef<AxisInfoLattice *> argLattices,
                                    unsigned firstIndex) override;
  void setToEntryState(AxisInfoLattice *lattice) override;
};

/// Runs the analysis on `root` once and answers queries.
class ModuleAxisInfo {
public:
  explicit ModuleAxisInfo(Operation *root);
  /// The info of `value`; pessimistic if the analysis did not reach it.
  AxisInfo get(Value value) const;
  bool succeeded() const { return ok; }

private:
  DataFlowSolver solver;
  bool ok = false;
};

} // namespace mlir::tile

#endif // TILEC_ANALYSIS_AXISINFO_H
