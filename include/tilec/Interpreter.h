//===- Interpreter.h - run tile kernels on the CPU --------------*- C++ -*-===//
//
// A reference execution of tile kernels on the host, with the GPU path's
// semantics (masks, f16/bf16 rounding after every op, fp32 dot accumulation,
// atomics) and a memory checker: every load, store and atomic is checked
// against the buffers passed in, and reads of never-written bytes of buffers
// passed as outputs are reported. Errors are MLIR diagnostics at the failing
// op's location; docs/interpreter.md describes the semantics.
//
//   std::vector<float> x(n), y(n), z(n);
//   auto stats = tilec::runKernel(module, "add", {ceilDiv(n, 1024)},
//                                 {tilec::Arg::buffer(x.data(), n),
//                                  tilec::Arg::buffer(y.data(), n),
//                                  tilec::Arg::output(z.data(), n),
//                                  tilec::Arg::scalar<int32_t>(n)});
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_INTERPRETER_H
#define TILEC_INTERPRETER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "tilec/DTypeMlir.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace llvm {
class raw_ostream;
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
class ModuleOp;
class Type;
} // namespace mlir

namespace tilec {


/// One kernel argument: a host buffer (for a `!tile.ptr<T>` parameter) or a
/// scalar.
class Arg {
public:
  /// A buffer of `count` elements whose contents the kernel may read.
  static Arg buffer(void *data, size_t count, DType dtype);
  /// A buffer whose contents are undefined before the kernel runs: reading
  /// an element that the kernel has not written is reported as an error.
  static Arg output(void *data, size_t count, DType dtype);
  /// `buffer`/`output` with the dtype taken from the C++ element type.
  template <typename T> static Arg buffer(T *data, size_t count) {
    return buffer(data, count, dtypeFor<T>());
  }
  template <typename T> static Arg output(T *data, size_t count) {
    return output(data, count, dtypeFor<T>());
  }
  /// A tensor descriptor (a `!tile.tensordesc` parameter): `buffer` (made
  /// by `buffer` or `output`) viewed as a tensor of `shape` with `strides`
  /// in elements, outermost dimension first (empty: contiguous), as the GPU
  /// runtime's tensorDesc() takes it.
  static Arg tensorDesc(Arg buffer, std::vector<int64_t> shape,
                        std::vector<int64_t> strides = {});
  /// A scalar of the C++ type's dtype (bool, int8..int64, float, double).
  template <typename T> static Arg scalar(T value) {
    if constexpr (std::is_floating_point_v<T>)
      return scalar(dtypeFor<T>(), static_cast<double>(value));
    else
      return scalarInt(dtypeFor<T>(), static_cast<int64_t>(value));
  }
  /// A floating-point scalar of any float dtype (rounded to it), e.g. f16.
  static Arg scalar(DType dtype, double value);
  /// An integer scalar of any integer dtype (wrapped to its width).
  static Arg scalarInt(DType dtype, int64_t value);

  /// Names the argument in error messages ("%x"); default "argument N".
  Arg &named(std::string name) {
    name_ = std::move(name);
    return *this;
  }

  bool isBuffer() const { return isBuffer_; }
  bool isTensorDesc() const { return !descShape_.empty(); }
  const std::vector<int64_t> &descShape() const { return descShape_; }
  const std::vector<int64_t> &descStrides() const { return descStrides_; }
  DType dtype() const { return dtype_; }
  void *data() const { return data_; }
  size_t count() const { return count_; }
  bool isOutput() const { return isOutput_; }
  int64_t intValue() const { return intValue_; }
  double floatValue() const { return floatValue_; }
  const std::string &name() const { return name_; }

  template <typename T> static constexpr DType dtypeFor() {
    if constexpr (std::is_same_v<T, bool>)
      return DType::I1;
    else if constexpr (std::is_same_v<T, float>)
      return DType::F32;
    else if constexpr (std::is_same_v<T, double>)
      return DType::F64;
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 1)
      return DType::I8;
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 2)
      return DType::I16;
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 4)
      return DType::I32;
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 8)
      return DType::I64;
    else
      static_assert(sizeof(T) == 0, "no dtype for this C++ type; pass one");
  }

private:
  Arg() = default;
  bool isBuffer_ = false;
  bool isOutput_ = false;
  DType dtype_ = DType::I32;
  void *data_ = nullptr;
  size_t count_ = 0;
  int64_t intValue_ = 0;
  double floatValue_ = 0;
  std::string name_;
  std::vector<int64_t> descShape_, descStrides_;
};

/// Programs along x, y, z (what `tile.num_programs` returns).
struct Grid {
  int64_t x = 1, y = 1, z = 1;
};

struct RunOptions {
  /// Where `tile.print` writes; llvm::outs() when null.
  llvm::raw_ostream *printStream = nullptr;
  /// Rounds the f32 operands of `tile.dot` with precision tf32 to tf32 (as
  /// the tensor cores do); false computes them as ieee.
  bool emulateTF32 = true;
  /// Reports plain (non-atomic) accesses that race between programs: a
  /// load of bytes another program stored, a store over bytes another
  /// program stored with a different value, and two elements of one store
  /// writing different values to one address. Kernels that synchronize
  /// programs (tile.atomic_cas or atomic xchg) are not checked.
  bool checkRaces = true;
  /// Called after each program with the programs run and the grid's total
  /// (tilec-run's progress line on a terminal).
  std::function<void(uint64_t done, uint64_t total)> onProgramDone;
};

/// What a run did.
struct RunStats {
  uint64_t programs = 0;
  uint64_t opsExecuted = 0; ///< ops run, summed over programs
  uint64_t elementsLoaded = 0;
  uint64_t elementsStored = 0;
  uint64_t atomics = 0;
};

/// Runs kernel `kernel` (a func.func with `tile.kernel`) of `module` for
/// every program of `grid`, in order x fastest, then y, then z. Buffers are
/// read and written in place. Failures (bad arguments, an unsupported op, an
/// out-of-bounds access, an uninitialized read, a failed tile.assert) are
/// emitted as error diagnostics on the module's context, at the op's location
/// when there is one, and stop the run.
mlir::FailureOr<RunStats> runKernel(mlir::ModuleOp module,
                                    llvm::StringRef kernel, const Grid &grid,
                                    llvm::ArrayRef<Arg> args,
                                    const RunOptions &options = {});

} // namespace tilec

#endif // TILEC_INTERPRETER_H
