//===- Analyzer.h - count what a tile kernel launch does --------*- C++ -*-===//
//
// The static side of tilec's "which bound is this kernel under?": for a
// kernel of a tile module, a grid and concrete arguments (buffer sizes and
// scalar values), count exactly the operations every program executes and
// the global memory each buffer parameter sees, without running the kernel
// on data. Programs are evaluated abstractly over intervals: a whole box of
// programs is evaluated at once with its program ids as intervals, and when
// every mask, trip count and branch comes out the same for all of them, the
// box's counts are one evaluation's times its size; otherwise the box is
// split in two. Programs differ only at the edges of the data, so a grid of
// millions of programs takes a handful of evaluations (docs/analyzer.md).
//
// Also here: the workload specs the tools take (sizes as expressions over
// variables) and the registers and shared memory ptxas reports.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PERFMODEL_ANALYZER_H
#define TILEC_PERFMODEL_ANALYZER_H

#include "tilec/PerfModel/Analysis.h"
#include "tilec/Runtime/Metadata.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tilec::perfmodel {

struct CountOptions {
  /// Abstract program evaluations allowed before giving up (a kernel whose
  /// programs all behave differently, e.g. a trip count per program, needs
  /// one per program).
  uint64_t maxEvaluations = 200000;
  /// Called after each evaluation that counted a box of programs: the
  /// programs counted so far, the grid's, the evaluations so far
  /// (tilec-analyze's progress line on a terminal).
  std::function<void(uint64_t counted, uint64_t programs,
                     uint64_t evaluations)>
      progress;
};

/// Counts launch of `kernel` (a func.func with tile.kernel in `module`) on
/// `grid`. `args` has one entry per parameter, in order: buffers (isBuffer,
/// count) for pointers, values for scalars; the analysis fills in each
/// entry's name and type from the kernel. Errors are emitted as diagnostics
/// on the module's context: at the kernel for mismatched arguments, at the
/// op for accesses outside a buffer ("bad sizes"), unsupported ops and
/// control flow that depends on loaded data.
mlir::FailureOr<LaunchCounts> countLaunch(mlir::ModuleOp module,
                                          llvm::StringRef kernel,
                                          std::array<int64_t, 3> grid,
                                          std::vector<LaunchArg> &args,
                                          const CountOptions &options = {});

/// The kernel names of a module (func.func with tile.kernel).
std::vector<std::string> kernelNames(mlir::ModuleOp module);

//===----------------------------------------------------------------------===//
// Workload specs
//===----------------------------------------------------------------------===//

/// Integer variables of a workload ("N" -> 268435456).
using Vars = std::map<std::string, int64_t>;

/// Evaluates an integer expression: literals (268435456, 2^28, 0x10), the
/// variables, + - * / % (floor division and modulo), ^ (power), parentheses
/// and cdiv(a, b), min(a, b), max(a, b). Errors name the expression and the
/// position.
llvm::Expected<int64_t> evalExpr(llvm::StringRef expr, const Vars &vars);

/// One launch as the user describes it, before evaluation.
struct LaunchSpec {
  std::string file;              ///< the .tile file
  std::string kernel;            ///< empty: the file's only kernel
  std::vector<std::string> grid; ///< 1 to 3 expressions
  /// One per kernel parameter: a buffer "n=EXPR[,buf=NAME]" or a scalar
  /// "EXPR" (integers) / a number (floats).
  std::vector<std::string> args;
};

/// A workload: launches run one after another over shared buffers.
struct WorkloadSpec {
  std::string name;
  std::string group, label;
  std::vector<std::pair<std::string, std::string>> vars; ///< name, expr
  std::string batchVar; ///< doubled for the 2N point; empty: none
  /// Extra values of the batch variable to analyse (a sweep).
  std::vector<std::string> sweep;
  std::vector<LaunchSpec> launches;
};

/// Reads a workloads file: {"workloads": [{"name": ..., "vars": {"N":
/// "2^28"}, "batch": "N", "launches": [{"file": "add.tile", "grid":
/// ["cdiv(N,1024)"], "args": ["n=N", "n=N", "n=N", "N"]}]}]}. File names
/// are relative to the workloads file.
llvm::Expected<std::vector<WorkloadSpec>>
parseWorkloadsFile(llvm::StringRef path);

/// The variables of `spec` evaluated in order (each may use the earlier
/// ones), with `overrides` replacing given values.
llvm::Expected<Vars> evalVars(const WorkloadSpec &spec,
                              const Vars &overrides = {});

/// The grid of `spec` under `vars`.
llvm::Expected<std::array<int64_t, 3>> evalGrid(const LaunchSpec &spec,
                                                const Vars &vars);

/// Parses the argument specs of `spec` under `vars` for a kernel whose
/// parameters are `paramKinds` (true: pointer) with `paramNames`; floats
/// are told by `paramIsFloat`.
llvm::Expected<std::vector<LaunchArg>>
evalArgs(const LaunchSpec &spec, const Vars &vars,
         const std::vector<std::string> &paramNames,
         const std::vector<bool> &paramIsPointer,
         const std::vector<bool> &paramIsFloat);

//===----------------------------------------------------------------------===//
// Resources
//===----------------------------------------------------------------------===//

/// Registers, spills and static shared memory per kernel from `ptxas -v`
/// on `ptx` for `arch` (runtime::parsePtxasReport). `ptxas` empty:
/// $TILEC_PTXAS, else the search of tilec::cuda::findPtxas. Fails when
/// ptxas is missing or fails.
llvm::Expected<std::map<std::string, runtime::KernelResources>>
ptxasResources(llvm::StringRef ptx, llvm::StringRef arch,
               llvm::StringRef ptxas = "");

/// True when `ptx` has tensor-core instructions (mma, wgmma).
bool hasTensorCoreInstructions(llvm::StringRef ptx);
/// For code without tensor-core instructions: counts its tile.dots on the
/// FMA pipe (kind "fma:<kind>") and says so in a note naming `module`.
void countDotsOnFmaPipe(LaunchCounts &counts, llvm::StringRef module);

//===----------------------------------------------------------------------===//
// Whole workloads
//===----------------------------------------------------------------------===//

struct AnalyzeOptions {
  DeviceModel device;
  /// Compile each file to PTX (for the profiler and for ptxas).
  bool compile = true;
  /// Ask ptxas for registers and shared memory (needs `compile`).
  bool usePtxas = true;
  std::string ptxasPath;
  CountOptions count;
};

/// A tile file compiled for the profiler: `stem`.ptx and `stem`.json.
struct CompiledModule {
  std::string stem;
  std::string ptx;
  /// The compiler's kernel metadata (with the PTX).
  std::optional<runtime::ModuleMetadata> metadata;
  std::map<std::string, Resources> resources; ///< per kernel
  /// Why there is no PTX or no ptxas report, if so.
  std::string note;
  /// The PTX has tensor-core instructions (meaningless without PTX).
  bool tensorCores = false;
};

/// Analyses workloads: parses each tile file once, runs tilec's front end,
/// counts every launch at every point (N, 2N, the sweep), and compiles each
/// file to PTX with its metadata and ptxas's report. Diagnostics go to the
/// context's handler (locations name the files).
class WorkloadAnalyzer {
public:
  WorkloadAnalyzer(mlir::MLIRContext &context, AnalyzeOptions options);
  ~WorkloadAnalyzer();

  /// Failure: the error was emitted as a diagnostic, or is in error().
  mlir::FailureOr<WorkloadAnalysis> analyze(const WorkloadSpec &spec);
  const std::string &error() const { return error_; }

  /// The files compiled so far, by stem.
  const std::map<std::string, CompiledModule> &modules() const {
    return modules_;
  }

private:
  struct File;
  mlir::FailureOr<File *> load(const std::string &path);
  mlir::FailureOr<LaunchAnalysis> analyzeLaunch(const LaunchSpec &spec,
                                                const Vars &vars);

  mlir::MLIRContext &context_;
  AnalyzeOptions options_;
  std::map<std::string, std::unique_ptr<File>> files_;
  std::map<std::string, CompiledModule> modules_;
  std::string error_;
};

} // namespace tilec::perfmodel

#endif // TILEC_PERFMODEL_ANALYZER_H
