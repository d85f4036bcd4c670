//===- tilec-analyze.cpp - which bound is this kernel under? (static) -----===//
//
// Counts what a tile kernel launch does (FLOPs by class, bytes minimal and
// issued, registers, occupancy) and predicts its time floor and bound on a
// device model. One launch from the command line, or every workload of a
// workloads file; -o DIR also writes what tilec-profile needs to measure
// them on the GPU (PTX, metadata, one analysis JSON per workload). The
// work is in lib/PerfModel; this file handles options, files and errors.
//
//   tilec-analyze examples/add.tile --set N=2^28 --grid 'cdiv(N,1024)' \
//     --arg n=N --arg n=N --arg n=N --arg N --batch N
//   tilec-analyze --workloads examples/workloads.json -o .gpu-profile
//
//===----------------------------------------------------------------------===//

#include "tilec/InitAll.h"
#include "tilec/PerfModel/Analyzer.h"
#include "tilec/PerfModel/Report.h"
#include "tilec/Support/Progress.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;
using namespace tilec::perfmodel;
namespace cl = llvm::cl;

static cl::OptionCategory category("tilec-analyze options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("[<kernel .tile file>]"),
                                      cl::cat(category));
static cl::opt<std::string>
    workloadsFile("workloads",
                  cl::desc("Analyse every workload of this JSON file"),
                  cl::value_desc("file"), cl::cat(category));
static cl::list<std::string>
    only("only", cl::desc("With --workloads: only these workloads (names)"),
         cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string>
    kernelName("kernel", cl::desc("Kernel (default: the file's only one)"),
               cl::cat(category));
static cl::opt<std::string>
    gridText("grid", cl::desc("Programs: X[,Y[,Z]], integer expressions"),
             cl::init("1"), cl::cat(category));
static cl::list<std::string> argSpecs(
    "arg",
    cl::desc("One per kernel parameter, in order: n=EXPR[,buf=NAME] for a "
             "pointer (its buffer's elements), EXPR or a number for a "
             "scalar"),
    cl::cat(category));
static cl::list<std::string>
    setVars("set", cl::desc("A variable for the expressions: VAR=EXPR"),
            cl::cat(category));
static cl::opt<std::string>
    batchVar("batch",
             cl::desc("Variable doubled for the 2N point (batch doubling)"),
             cl::cat(category));
static cl::list<std::string>
    sweep("sweep", cl::desc("More values of the batch variable to analyse"),
          cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string>
    workloadName("name", cl::desc("Name of the workload"), cl::cat(category));
static cl::opt<std::string> device(
    "device",
    cl::desc("Device model: h200, h100, a100, or a JSON file of ceilings"),
    cl::init("h200"), cl::cat(category));
static cl::opt<std::string>
    outputDir("o",
              cl::desc("Folder for tilec-profile: PTX, metadata, analyses, "
                       "report, predicted roofline"),
              cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string> jsonFile("json",
                                     cl::desc("Write the analysis JSON here"),
                                     cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    svgFile("svg", cl::desc("Write the roofline of the predictions here"),
            cl::value_desc("file"), cl::cat(category));
static cl::opt<bool> noPtxas("no-ptxas",
                             cl::desc("Do not ask ptxas for registers"),
                             cl::cat(category));
static cl::opt<bool>
    noCompile("no-compile",
              cl::desc("Do not compile to PTX (no registers either)"),
              cl::cat(category));
static cl::opt<std::string> ptxasPath("ptxas", cl::desc("ptxas to run"),
                                      cl::value_desc("path"),
                                      cl::cat(category));
static cl::opt<unsigned> maxEvaluations(
    "max-evaluations",
    cl::desc("Program evaluations allowed per launch (default 200000)"),
    cl::init(200000), cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "tilec-analyze: error: " << message << "\n";
  return 1;
}

static bool writeFile(const std::string &path, llvm::StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    fail("cannot write '" + path + "': " + ec.message());
    return false;
  }
  os << contents;
  return true;
}

/// Splits at commas outside parentheses ("cdiv(N,128),4" -> 2 parts).
static std::vector<std::string> splitTopLevel(llvm::StringRef text) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (char c : text) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == ',' && depth == 0)
      parts.emplace_back();
    else
      parts.back() += c;
  }
  return parts;
}

/// The workload of the command-line options.
static llvm::Expected<WorkloadSpec> commandLineWorkload() {
  WorkloadSpec spec;
  LaunchSpec launch;
  launch.file = inputFile;
  launch.kernel = kernelName;
  launch.grid = splitTopLevel(gridText);
  launch.args.assign(argSpecs.begin(), argSpecs.end());
  for (const std::string &s : setVars) {
    auto [name, expr] = llvm::StringRef(s).split('=');
    if (name.trim().empty() || expr.trim().empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--set expects VAR=EXPR, got '" + s + "'");
    spec.vars.push_back({name.trim().str(), expr.trim().str()});
  }
  spec.batchVar = batchVar;
  if (!spec.batchVar.empty()) {
    bool found = false;
    for (const auto &v : spec.vars)
      found |= v.first == spec.batchVar;
    if (!found)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--batch=" + spec.batchVar +
                                         " names no --set variable");
  }
  spec.sweep.assign(sweep.begin(), sweep.end());
  if (!spec.sweep.empty() && spec.batchVar.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--sweep needs --batch");
  spec.name = workloadName.empty() ? llvm::sys::path::stem(inputFile).str()
                                   : std::string(workloadName);
  spec.launches.push_back(launch);
  return spec;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tilec-analyze: is a kernel compute-, bandwidth- or overhead-bound? "
      "(static counts and floors)\n\n"
      "  tilec-analyze examples/add.tile --set N=2^28 --grid 'cdiv(N,1024)' "
      "\\\n    --arg n=N --arg n=N --arg n=N --arg N --batch N\n"
      "  tilec-analyze --workloads examples/workloads.json -o .gpu-profile\n");

  if (workloadsFile.empty() == inputFile.empty())
    return fail("give a .tile file or --workloads=FILE (one of them)");
  auto model = loadDeviceModel(device);
  if (!model.ok())
    return fail(model.message());

  std::vector<WorkloadSpec> specs;
  if (!workloadsFile.empty()) {
    auto parsed = parseWorkloadsFile(workloadsFile);
    if (!parsed)
      return fail(llvm::toString(parsed.takeError()));
    std::set<std::string> wanted(only.begin(), only.end());
    for (WorkloadSpec &s : *parsed)
      if (only.empty() || wanted.count(s.name)) {
        wanted.erase(s.name);
        specs.push_back(std::move(s));
      }
    if (!wanted.empty())
      return fail("no workload named '" + *wanted.begin() + "' in '" +
                  workloadsFile + "'");
  } else {
    auto spec = commandLineWorkload();
    if (!spec)
      return fail(llvm::toString(spec.takeError()));
    specs.push_back(std::move(*spec));
  }
  if (!outputDir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail("cannot create '" + outputDir + "': " + ec.message());

  DialectRegistry registry;
  tilec::registerTilecDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  AnalyzeOptions options;
  options.device = *model;
  options.compile = !noCompile;
  options.usePtxas = !noPtxas;
  options.ptxasPath = ptxasPath;
  options.count.maxEvaluations = maxEvaluations;
  // Kernels whose programs differ take many evaluations on a large grid:
  // a line on a terminal says how far the counting is.
  tilec::support::ProgressLine progress("tilec-analyze");
  std::string current;
  if (progress.enabled())
    options.count.progress = [&](uint64_t counted, uint64_t programs,
                                 uint64_t evaluations) {
      progress.update(current + ": counted programs", counted, programs,
                      std::to_string(evaluations) + " evaluations");
    };
  // An error goes on a clean line.
  ScopedDiagnosticHandler clearFirst(&context, [&](Diagnostic &) {
    progress.clear();
    return failure();
  });
  WorkloadAnalyzer analyzer(context, options);

  ProfileRun predictions;
  predictions.model = *model;
  std::string report, index;
  std::set<std::string> slugs;
  for (const WorkloadSpec &spec : specs) {
    current = spec.name;
    FailureOr<WorkloadAnalysis> analysis = analyzer.analyze(spec);
    progress.clear();
    if (failed(analysis)) {
      if (!analyzer.error().empty())
        return fail(analyzer.error());
      return 1; // the diagnostics were printed
    }
    std::string text = analysisReport(*analysis);
    llvm::outs() << text;
    llvm::outs().flush();
    report += text;
    if (!jsonFile.empty() && !writeFile(jsonFile, analysisJson(*analysis)))
      return 1;
    if (!outputDir.empty()) {
      std::string name = workloadSlug(spec.name);
      while (!slugs.insert(name).second)
        name += "-2";
      std::string file = name + ".analysis.json";
      llvm::SmallString<128> path(outputDir);
      llvm::sys::path::append(path, file);
      if (!writeFile(path.str().str(), analysisJson(*analysis)))
        return 1;
      index += file + "\n";
    }
    predictions.workloads.push_back({*analysis, {}, {}, ""});
  }
  if (!outputDir.empty()) {
    for (const auto &[stem, module] : analyzer.modules()) {
      if (module.ptx.empty()) {
        llvm::errs() << "tilec-analyze: warning: " << stem << ": "
                     << module.note << "; tilec-profile cannot run it\n";
        continue;
      }
      llvm::SmallString<128> ptx(outputDir), json(outputDir);
      llvm::sys::path::append(ptx, stem + ".ptx");
      llvm::sys::path::append(json, stem + ".json");
      if (!writeFile(ptx.str().str(), module.ptx) ||
          !writeFile(json.str().str(),
                     tilec::runtime::writeMetadata(*module.metadata)))
        return 1;
    }
    llvm::SmallString<128> path(outputDir);
    llvm::sys::path::append(path, "workloads.txt");
    if (!writeFile(path.str().str(), index))
      return 1;
    path = outputDir;
    llvm::sys::path::append(path, "analysis.txt");
    if (!writeFile(path.str().str(), report))
      return 1;
    path = outputDir;
    llvm::sys::path::append(path, "roofline-predicted.svg");
    if (!writeFile(path.str().str(), rooflineSvg(predictions)))
      return 1;
  }
  if (!svgFile.empty() && !writeFile(svgFile, rooflineSvg(predictions)))
    return 1;
  return 0;
}
