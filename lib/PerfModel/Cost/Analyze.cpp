//===- Analyze.cpp - whole workloads: parse, compile, count every point ---===//

#include "tilec/PerfModel/Analyzer.h"

#include "Evaluator.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Frontend.h"
#include "tilec/Params.h"
#include "tilec/Pipeline.h"
#include "tilec/Runtime/Metadata.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace tilec::perfmodel;

struct WorkloadAnalyzer::File {
  std::string path, stem;
  OwningOpRef<ModuleOp> source; ///< as parsed
  OwningOpRef<ModuleOp> tile;   ///< after tilec's front end: what is counted
};

WorkloadAnalyzer::WorkloadAnalyzer(MLIRContext &context, AnalyzeOptions options)
    : context_(context), options_(std::move(options)) {}

WorkloadAnalyzer::~WorkloadAnalyzer() = default;

FailureOr<WorkloadAnalyzer::File *>
WorkloadAnalyzer::load(const std::string &path) {
  auto it = files_.find(path);
  if (it != files_.end())
    return it->second.get();
  // The parser reads a SourceMgr's main buffer: one SourceMgr per file.
  // Its locations name the file, so diagnostic handlers find the source.
  llvm::SourceMgr sourceMgr;
  // A file with tile.params is analyzed at its parameters' first values.
  std::string readError;
  tilec::TileParams params;
  OwningOpRef<ModuleOp> source = tilec::parseTileFileWithParams(
      path, sourceMgr, context_, {}, params, readError);
  if (!readError.empty()) {
    error_ = readError;
    return failure();
  }
  if (!source)
    return failure();
  auto file = std::make_unique<File>();
  file->path = path;
  file->stem = llvm::sys::path::stem(path).str();
  for (const auto &[otherPath, other] : files_)
    if (other->stem == file->stem) {
      error_ = "'" + path + "' and '" + otherPath +
               "' have one name; the profiler finds modules by file name";
      return failure();
    }
  file->source = std::move(source);

  // What the compiler keeps after inlining and folding is what runs.
  file->tile = cast<ModuleOp>((*file->source)->clone());
  tilec::PipelineOptions tileLevel;
  tileLevel.emit = tilec::EmitLevel::Tile;
  tileLevel.arch = options_.device.arch;
  if (failed(tilec::compileModule(*file->tile, tileLevel)))
    return failure();

  CompiledModule compiled;
  compiled.stem = file->stem;
  if (options_.compile) {
    // A kernel the backend cannot lower is still counted: keep the first
    // error as a note instead of failing.
    std::string firstError;
    OwningOpRef<ModuleOp> ptxModule = cast<ModuleOp>((*file->source)->clone());
    tilec::PipelineOptions ptxLevel;
    ptxLevel.emit = tilec::EmitLevel::PTX;
    ptxLevel.arch = options_.device.arch;
    FailureOr<tilec::CompileResult> result;
    {
      ScopedDiagnosticHandler capture(&context_, [&](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error && firstError.empty())
          firstError = d.str();
        return success();
      });
      result = tilec::compileModule(*ptxModule, ptxLevel);
    }
    if (failed(result)) {
      compiled.note = "not compiled to PTX: " + firstError;
    } else {
      compiled.ptx = result->ptx;
      compiled.metadata = result->metadata;
      compiled.tensorCores = hasTensorCoreInstructions(compiled.ptx);
      if (options_.usePtxas) {
        auto resources =
            ptxasResources(compiled.ptx, ptxLevel.arch, options_.ptxasPath);
        if (resources) {
          // The metadata tilec-analyze -o writes carries them too.
          for (auto &[name, used] : *resources) {
            compiled.resources[name] = Resources::fromPtxas(used);
            for (runtime::KernelMetadata &k : compiled.metadata->kernels)
              if (k.name == name)
                k.resources = used;
          }
        } else
          compiled.note = llvm::toString(resources.takeError());
      } else {
        compiled.note = "ptxas not run (--no-ptxas)";
      }
    }
  } else {
    compiled.note = "not compiled (--no-compile)";
  }
  modules_[file->stem] = std::move(compiled);
  File *raw = file.get();
  files_[path] = std::move(file);
  return raw;
}

FailureOr<LaunchAnalysis>
WorkloadAnalyzer::analyzeLaunch(const LaunchSpec &spec, const Vars &vars) {
  FailureOr<File *> loaded = load(spec.file);
  if (failed(loaded))
    return failure();
  File &file = **loaded;
  std::vector<std::string> kernels = kernelNames(*file.tile);
  std::string kernel = spec.kernel;
  if (kernel.empty()) {
    if (kernels.size() != 1) {
      error_ = "'" + spec.file + "' has " + std::to_string(kernels.size()) +
               " kernels; name one with \"kernel\" (--kernel)";
      return failure();
    }
    kernel = kernels.front();
  }
  auto func = file.tile->lookupSymbol<func::FuncOp>(kernel);
  if (!func || !tile::isKernel(func)) {
    std::string names;
    for (const std::string &n : kernels)
      names += (names.empty() ? "" : ", ") + n;
    error_ = "no kernel '" + kernel + "' in '" + spec.file +
             "' (its kernels: " + (names.empty() ? "none" : names) + ")";
    return failure();
  }
  auto grid = evalGrid(spec, vars);
  if (!grid) {
    error_ =
        "the grid of '" + kernel + "': " + llvm::toString(grid.takeError());
    return failure();
  }
  std::vector<std::string> names;
  std::vector<bool> isPointer, isFloat;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    Type t = func.getArgument(i).getType();
    names.push_back(paramName(func, i));
    isPointer.push_back(isa<tile::PointerType, tile::TensorDescType>(t));
    isFloat.push_back(isa<FloatType>(t));
  }
  LaunchSpec named = spec;
  named.kernel = kernel;
  auto args = evalArgs(named, vars, names, isPointer, isFloat);
  if (!args) {
    error_ = llvm::toString(args.takeError());
    return failure();
  }
  LaunchAnalysis launch;
  launch.module = file.stem;
  launch.kernel = kernel;
  launch.args = std::move(*args);
  FailureOr<LaunchCounts> counts =
      countLaunch(*file.tile, kernel, *grid, launch.args, options_.count);
  if (failed(counts))
    return failure();
  launch.counts = std::move(*counts);

  Resources &r = launch.resources;
  r.threadsPerProgram = 32 * tile::getNumWarps(func);
  const CompiledModule &compiled = modules_[file.stem];
  // The floor follows the code that runs: dots compiled without tensor-core
  // instructions run on the FMA pipe.
  if (!compiled.ptx.empty() && !compiled.tensorCores)
    countDotsOnFmaPipe(launch.counts, file.stem);
  auto found = compiled.resources.find(kernel);
  if (found != compiled.resources.end()) {
    int threads = r.threadsPerProgram;
    r = found->second;
    r.threadsPerProgram = threads;
  } else {
    r.source = compiled.note.empty() ? "no ptxas report" : compiled.note;
  }
  // Dynamic shared memory is the compiler's (metadata), not ptxas's.
  if (compiled.metadata)
    if (const runtime::KernelMetadata *k = compiled.metadata->find(kernel))
      r.dynamicSharedBytes = k->sharedBytes;
  return launch;
}

FailureOr<WorkloadAnalysis>
WorkloadAnalyzer::analyze(const WorkloadSpec &spec) {
  error_.clear();
  auto base = evalVars(spec);
  if (!base) {
    error_ = spec.name + ": " + llvm::toString(base.takeError());
    return failure();
  }
  std::vector<Vars> points = {*base};
  if (!spec.batchVar.empty()) {
    auto it = base->find(spec.batchVar);
    if (it == base->end()) {
      error_ =
          spec.name + ": the batch variable '" + spec.batchVar + "' is not set";
      return failure();
    }
    std::vector<int64_t> values = {2 * it->second};
    for (const std::string &s : spec.sweep) {
      auto v = evalExpr(s, *base);
      if (!v) {
        error_ = spec.name + ": sweep: " + llvm::toString(v.takeError());
        return failure();
      }
      values.push_back(*v);
    }
    for (int64_t value : values) {
      auto vars = evalVars(spec, {{spec.batchVar, value}});
      if (!vars) {
        error_ = spec.name + ": " + llvm::toString(vars.takeError());
        return failure();
      }
      points.push_back(*vars);
    }
  }
  WorkloadAnalysis analysis;
  analysis.name = spec.name;
  analysis.group = spec.group;
  analysis.label = spec.label;
  analysis.batchVar = spec.batchVar;
  analysis.device = options_.device;
  for (const Vars &vars : points) {
    WorkloadPoint point;
    // In the order the workload lists them.
    for (const auto &[name, expr] : spec.vars)
      point.vars.push_back({name, vars.at(name)});
    for (const LaunchSpec &l : spec.launches) {
      FailureOr<LaunchAnalysis> launch = analyzeLaunch(l, vars);
      if (failed(launch)) {
        if (!error_.empty())
          error_ = spec.name + ": " + error_;
        return failure();
      }
      point.launches.push_back(std::move(*launch));
    }
    analysis.points.push_back(std::move(point));
  }
  return analysis;
}
