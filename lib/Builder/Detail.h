//===- Detail.h - the builder's private state -------------------*- C++ -*-===//
//
// KernelImpl owns the MLIR context, module and OpBuilder of one Kernel;
// Access converts between the public handles and MLIR values. Every public
// entry resolves its Site first (the user's line, or the outermost CallSite's)
// so that ops get that location and errors name it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_BUILDER_DETAIL_H
#define TILEC_LIB_BUILDER_DETAIL_H

#include "tilec/Builder.h"
#include "tilec/DTypeMlir.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>

namespace tilec::detail {

/// Where an API call happens and what to call it in errors.
struct Site {
  SourceLoc loc;
  /// The entry as errors name it: "tile.dot", or "softmax: operator-" inside
  /// a CallSite named softmax.
  std::string op;
};

/// Resolves the site of a call at `loc` to the API entry `op`, taking the
/// active CallSite into account.
Site site(const SourceLoc &loc, std::string_view op);

/// One padding mask: (i1 tile of the value's rank, count or null).
using Pad = std::pair<mlir::Value, mlir::Value>;

/// Collects a context's error diagnostics while alive, so that the
/// builder's own verifier and pipeline runs turn them into BuildErrors;
/// outside, diagnostics reach the context's other handlers (the
/// interpreter's users, say).
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(mlir::MLIRContext *context);
  ~DiagnosticCapture();
  DiagnosticCapture(const DiagnosticCapture &) = delete;
  DiagnosticCapture &operator=(const DiagnosticCapture &) = delete;
  /// The first error and its location, if any.
  std::optional<std::pair<mlir::Location, std::string>> first() const;

private:
  mlir::MLIRContext *context;
  uint64_t id;
  std::vector<std::pair<mlir::Location, std::string>> errors;
};

struct KernelImpl {
  KernelImpl(std::string name, int numWarps, const Site &where);
  ~KernelImpl();

  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  mlir::OpBuilder builder;
  std::string name;
  int numWarps;
  std::vector<ParamInfo> params;
  /// The first error; the kernel refuses further work once set.
  std::optional<std::string> broken;
  /// Combiner regions being built: values from outside them are refused.
  std::vector<mlir::Region *> isolated;

  /// The MLIR location of a site.
  mlir::Location loc(const Site &s);
  /// Throws BuildError at `s` and marks the kernel unusable.
  [[noreturn]] void fail(const Site &s, const std::string &message);
  /// Throws if the kernel is unusable.
  void checkUsable(const Site &s);
  /// The MLIR value of `v`, checking it is usable here: non-null, of this
  /// kernel, defined where the insertion point can see it.
  mlir::Value use(const Value &v, const Site &s);
  /// Runs `op`'s verifier; on failure erases it and throws its diagnostic.
  void verifyNew(mlir::Operation *op, const Site &s);
  /// Verifies the whole module; throws the first diagnostic at its location.
  void verifyModule(const Site &s);

  /// Creates an op and verifies it (see verifyNew).
  template <typename OpTy, typename... Args>
  OpTy create(const Site &s, Args &&...args) {
    auto op = OpTy::create(builder, loc(s), std::forward<Args>(args)...);
    verifyNew(op.getOperation(), s);
    return op;
  }
};

/// Conversions between the public handles and the IR.
struct Access {
  static Value wrap(const std::shared_ptr<KernelImpl> &k, mlir::Value v,
                    std::vector<Pad> pads = {});
  static mlir::Value raw(const Value &v) {
    return mlir::Value::getFromOpaquePointer(v.value_);
  }
  static const std::shared_ptr<KernelImpl> &impl(const Value &v) {
    return v.kernel_;
  }
  static const std::shared_ptr<KernelImpl> &impl(const Kernel &k) {
    return k.impl_;
  }
  static Kernel kernel(std::shared_ptr<KernelImpl> impl) {
    return Kernel(std::move(impl));
  }
  static std::vector<Pad> pads(const Value &v);
  static void setPads(Value &v, const std::vector<Pad> &pads);
};

//===----------------------------------------------------------------------===//
// Type helpers (Types.cpp)
//===----------------------------------------------------------------------===//

/// "128x64xf32", "i32", "128x!tile.ptr<f16>".
std::string typeStr(mlir::Type type);
std::string shapeStr(llvm::ArrayRef<int64_t> shape);
/// The NumPy broadcast of two shapes, or nullopt.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

//===----------------------------------------------------------------------===//
// IR helpers shared by the builder's files (Values.cpp)
//===----------------------------------------------------------------------===//

/// `v` broadcast to `shape` (splat, expand_dims, broadcast as needed); the
/// caller has checked that it broadcasts.
mlir::Value broadcastTo(KernelImpl &k, mlir::Value v,
                        llvm::ArrayRef<int64_t> shape, const Site &s);
/// `v` converted elementwise to element type `elem` (see Value::to).
mlir::Value castTo(KernelImpl &k, mlir::Value v, mlir::Type elem,
                   const Site &s);
/// A constant `number` of element type `elem` and `shape` ({} for scalar);
/// fails if the number does not fit.
mlir::Value constant(KernelImpl &k, const Operand &number, mlir::Type elem,
                     llvm::ArrayRef<int64_t> shape, const Site &s);
/// Pads of `v` (rank r) moved to rank `rank` by leading unit dimensions.
std::vector<Pad> padsToRank(KernelImpl &k, const std::vector<Pad> &pads,
                            int64_t rank, const Site &s);
/// The union of two pad lists (deduplicated).
std::vector<Pad> mergePads(const std::vector<Pad> &a,
                           const std::vector<Pad> &b);

/// An operand resolved against the kernel: a value, or a weak number.
struct Resolved {
  const Operand *operand;
  mlir::Value value; ///< null for numbers
  std::vector<Pad> pads;
  bool isNumber() const { return !value; }
};
/// Resolves operands, finding the kernel among them; fails if none is a Value.
std::shared_ptr<KernelImpl> resolve(llvm::ArrayRef<const Operand *> operands,
                                    llvm::SmallVectorImpl<Resolved> &out,
                                    const Site &s);
/// The PyTorch result element type of combining `operands`.
mlir::Type promote(KernelImpl &k, llvm::ArrayRef<Resolved> operands,
                   const Site &s);
/// The common broadcast shape of the operands (numbers do not count).
llvm::SmallVector<int64_t>
commonShape(KernelImpl &k, llvm::ArrayRef<Resolved> operands, const Site &s);
/// Operand `r` as a value of element type `elem` and shape `shape`.
mlir::Value materialize(KernelImpl &k, const Resolved &r, mlir::Type elem,
                        llvm::ArrayRef<int64_t> shape, const Site &s);

} // namespace tilec::detail

#endif // TILEC_LIB_BUILDER_DETAIL_H
