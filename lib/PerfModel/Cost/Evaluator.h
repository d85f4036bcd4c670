//===- Evaluator.h - one abstract evaluation of a kernel --------*- C++ -*-===//
//
// Evaluates a kernel's body once for a box of programs (program ids as
// intervals), counting as it goes: elements through each arithmetic op,
// FLOPs of each dot, bytes each buffer parameter loads, stores or masks
// off. The outcome says whether the counts hold for every program of the
// box (Definite) or whether something that decides them (a mask element, a
// trip count, a branch, whether an access stays inside its buffer) differs
// between programs of the box (Indefinite: split the box). For a single
// program, indefinite values can only come from loaded data; the counts
// then take the upper bound and say so in a note, or, where no bound makes
// sense (data-dependent trip counts and branches), fail with a diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_PERFMODEL_COST_EVALUATOR_H
#define TILEC_LIB_PERFMODEL_COST_EVALUATOR_H

#include "AbstractValue.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"

#include <array>
#include <set>
#include <string>
#include <vector>

namespace tilec::perfmodel {

/// Bytes of global memory one buffer parameter saw.
struct BufferTally {
  uint64_t loaded = 0, stored = 0, atomics = 0;
  uint64_t maskedLoads = 0, maskedStores = 0;
};

/// Counts of one evaluation, or of many scaled and summed.
struct Tally {
  /// Elements through each op (scalars count 1).
  llvm::DenseMap<mlir::Operation *, uint64_t> ops;
  /// Each tile.dot's FLOPs and useful FLOPs.
  llvm::DenseMap<mlir::Operation *, std::pair<uint64_t, uint64_t>> dots;
  std::vector<BufferTally> buffers; ///< per kernel parameter
  std::set<std::string> notes;

  /// this += other * factor; false if a count overflows 64 bits.
  bool addScaled(const Tally &other, uint64_t factor);
};

/// What a pointer parameter refers to.
struct BufferInfo {
  std::string name;
  uint64_t bytes = 0;        ///< the buffer's size
  unsigned elementBytes = 1; ///< of the parameter's pointee type
  /// A tensor descriptor's tensor (elements, outermost first); empty for
  /// pointers.
  std::vector<int64_t> shape, strides;
};

class Evaluator {
public:
  enum class Outcome { Definite, Indefinite, Failed };

  /// `params` are the abstract values of the kernel's parameters;
  /// `buffers` (indexed like the parameters) the buffers behind pointers.
  Evaluator(mlir::func::FuncOp kernel, std::array<int64_t, 3> grid,
            std::vector<AVRef> params, std::vector<BufferInfo> buffers);

  /// Evaluates the programs whose ids lie in `pid` (per axis), adding the
  /// counts of one such program to `tally`.
  Outcome evaluate(const std::array<Iv, 3> &pid, Tally &tally);

  /// After Indefinite: what differed, for debugging.
  const std::string &reason() const { return reason_; }

private:
  mlir::LogicalResult evalBlock(mlir::Block &block, llvm::ArrayRef<AVRef> args,
                                llvm::SmallVectorImpl<AVRef> &results);
  mlir::LogicalResult evalOp(mlir::Operation *op);
  mlir::LogicalResult evalArith(mlir::Operation *op);
  mlir::LogicalResult evalTile(mlir::Operation *op);
  mlir::LogicalResult evalMemory(mlir::Operation *op);
  mlir::LogicalResult evalControlFlow(mlir::Operation *op);
  mlir::LogicalResult evalReduce(mlir::Operation *op);
  mlir::LogicalResult evalDot(mlir::Operation *op);
  mlir::LogicalResult evalDescriptor(mlir::Operation *op);

  /// Accounts the lanes of a load/store/atomic through `ptr` under `mask`
  /// (null: all active); `active` receives each lane's activity.
  mlir::LogicalResult access(mlir::Operation *op, const AV &ptr, const AV *mask,
                             unsigned accessBytes, int which,
                             std::vector<Iv> *active);

  /// Something that decides the counts is not the same in every program of
  /// the box. Over a box: stops the evaluation (returns true). For one
  /// program, or when derived from loaded data (`data`), splitting the box
  /// cannot help: returns false, and the caller bounds it or fails.
  bool indefinite(mlir::Operation *op, const char *what, bool data);
  /// An error at `op`: "<op> in program (x, y, z)" (a range for a box).
  mlir::InFlightDiagnostic error(mlir::Operation *op);
  std::string programText() const;
  void count(mlir::Operation *op, uint64_t elements);

  const AV &get(mlir::Value v) const { return *env_.lookup(v); }
  AVRef ref(mlir::Value v) const { return env_.lookup(v); }
  void set(mlir::Value v, AV value) {
    env_[v] = std::make_shared<const AV>(std::move(value));
  }

  mlir::func::FuncOp kernel_;
  std::array<int64_t, 3> grid_;
  std::vector<AVRef> params_;
  std::vector<BufferInfo> buffers_;

  std::array<Iv, 3> pid_;
  bool single_ = false;
  Tally *tally_ = nullptr;
  bool stop_ = false; ///< indefinite over a box: unwind
  std::string reason_;
  llvm::DenseMap<mlir::Value, AVRef> env_;
  unsigned callDepth_ = 0;
};

/// The element type name used in counts: "f32", "i32", "ptr", "index".
std::string elementTypeName(mlir::Type type);
/// A kernel parameter's source name (its NameLoc), else "argN".
std::string paramName(mlir::func::FuncOp func, unsigned index);

/// Integer semantics over intervals (IntOps.cpp). `name` is the arith op
/// name without dialect ("addi"); returns false for ops it does not model
/// (the caller then takes every value).
bool intBinary(llvm::StringRef name, Iv a, Iv b, unsigned width, Iv &out);
/// arith.cmpi with predicate `pred` (arith::CmpIPredicate as an int).
Iv intCompare(int pred, Iv a, Iv b, unsigned width);
/// extsi/extui/trunci/index_cast from `from` bits to `to` bits.
Iv intCast(llvm::StringRef name, Iv a, unsigned from, unsigned to);

} // namespace tilec::perfmodel

#endif // TILEC_LIB_PERFMODEL_COST_EVALUATOR_H
