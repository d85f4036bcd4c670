//===- Compile.cpp - the tuning space, pruned and compiled ----------------===//
//
// Pruning happens where the information is: the accumulator's size before
// anything is compiled (the GEMM's tile shape), the pipeline's own errors
// (shared memory over the target's limit, shapes the lowering refuses),
// then ptxas -v (registers, spills). A pruned candidate keeps its reason in
// the manifest, so the table shows why the space is smaller than asked.
// The builder GEMM's space is a union of families (cp.async, TMA, split-K);
// a TMA candidate is also pruned by its ring's shared memory before
// compiling and by the metadata after (descriptor loads left unstaged), and
// candidates that compile to the same kernel and grid are measured once.
//
//===----------------------------------------------------------------------===//

#include "tilec/Tune/Compile.h"
#include "tilec/Builder.h"
#include "tilec/InitAll.h"
#include "tilec/Ops.h"
#include "tilec/Params.h"
#include "tilec/Pipeline.h"
#include "tilec/Runtime/Cache.h"
#include "tilec/Runtime/Metadata.h"
#include "tilec/Support/Files.h"
#include "tilec/Support/Json.h"
#include "tilec/Target/Target.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

using namespace tilec;
using namespace tilec::tune;

namespace {

/// The first error diagnostic of a context, as "file:line:col: message".
class FirstError {
public:
  explicit FirstError(mlir::MLIRContext &context)
      : handler_(&context, [this](mlir::Diagnostic &d) {
          if (d.getSeverity() == mlir::DiagnosticSeverity::Error &&
              text_.empty()) {
            std::string where;
            if (auto loc = mlir::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
              where = loc.getFilename().str() + ":" +
                      std::to_string(loc.getLine()) + ":" +
                      std::to_string(loc.getColumn()) + ": ";
            text_ = where + d.str();
          }
          return mlir::success();
        }) {}
  std::string text() const {
    return text_.empty() ? "the compilation failed without a diagnostic"
                         : text_;
  }

private:
  std::string text_;
  mlir::ScopedDiagnosticHandler handler_;
};

bool writeFile(const std::string &path, const std::string &data,
               std::string &error) {
  std::ofstream out(path, std::ios::binary);
  out << data;
  out.close();
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

/// What compiling one candidate gave.
struct Compiled {
  std::string ptx, metadataJson, error;
};

/// Runs ptxas -v on `ptx`; fills the candidate's binary, registers and
/// spills, or prunes it.
void assemble(Candidate &c, const Compiled &compiled, const std::string &dir,
              const std::string &ptxas, const Target &target, int threads,
              const std::string &base) {
  std::string ptxPath = dir + "/" + base + ".ptx";
  std::string error;
  if (!writeFile(ptxPath, compiled.ptx, error)) {
    c.pruned = true;
    c.reason = error;
    return;
  }
  if (ptxas.empty()) { // PTX only: the driver compiles it at load
    c.binary = base + ".ptx";
    return;
  }
  std::string cubin = dir + "/" + base + ".cubin";
  std::string log = dir + "/" + base + ".ptxas.log";
  std::string arch = target.getPtxasArch();
  llvm::SmallVector<llvm::StringRef> args = {ptxas, arch, "-O3", "-v",
                                             ptxPath, "-o", cubin};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log, log};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0,
                                     0, &execError);
  auto text = llvm::MemoryBuffer::getFile(log);
  std::string output = text ? (*text)->getBuffer().str() : "";
  llvm::sys::fs::remove(log);
  llvm::sys::fs::remove(ptxPath);
  if (rc != 0) {
    c.pruned = true;
    c.reason = "ptxas failed: " +
               (output.empty() ? execError
                               : llvm::StringRef(output).trim().split('\n')
                                     .first.str());
    llvm::sys::fs::remove(cubin);
    return;
  }
  // "ptxas info    : Used 168 registers, used 1 barriers, ..." and
  // "    0 bytes stack frame, 24 bytes spill stores, 24 bytes spill loads".
  // Other lines mention registers too ("(C7514) ... accumulator registers
  // of a wgmma"): the count is the one after "Used ".
  auto numberBefore = [&](llvm::StringRef word) -> int64_t {
    size_t from = word == " registers" ? output.find("Used ") : 0;
    size_t at = output.find(word.str(), from == std::string::npos ? 0 : from);
    if (at == std::string::npos)
      return -1;
    llvm::StringRef head = llvm::StringRef(output).take_front(at).rtrim();
    size_t start = head.find_last_not_of("0123456789");
    int64_t v = -1;
    if (head.drop_front(start + 1).getAsInteger(10, v))
      return -1;
    return v;
  };
  c.registers = static_cast<int>(numberBefore(" registers"));
  int64_t stores = numberBefore(" bytes spill stores");
  int64_t loads = numberBefore(" bytes spill loads");
  c.spillBytes = std::max<int64_t>(stores, 0) + std::max<int64_t>(loads, 0);
  c.binary = base + ".cubin";
  if (c.spillBytes > 0) {
    c.pruned = true;
    c.reason = "ptxas spills " + std::to_string(stores) + " bytes to local "
               "memory (" + std::to_string(c.registers) + " registers)";
  } else if (c.registers > 0 &&
             int64_t(c.registers) * threads > target.getRegistersPerSM()) {
    c.pruned = true;
    c.reason = std::to_string(c.registers) + " registers x " +
               std::to_string(threads) + " threads = " +
               std::to_string(int64_t(c.registers) * threads) +
               ", over the " + std::to_string(target.getRegistersPerSM()) +
               " registers of an SM";
  }
  if (c.pruned) {
    llvm::sys::fs::remove(cubin);
    c.binary.clear();
  }
}

/// Writes a compiled candidate's files; prunes by the metadata's shared
/// memory and ptxas.
void finish(Candidate &c, const Compiled &compiled, const std::string &dir,
            const std::string &ptxas, const Target &target,
            const std::string &base) {
  if (!compiled.error.empty()) {
    c.pruned = true;
    c.reason = compiled.error;
    return;
  }
  int threads = 0;
  Expected<json::Value> meta = json::parse(compiled.metadataJson);
  if (meta.ok() && (*meta)["kernels"].is_array() &&
      !(*meta)["kernels"].empty()) {
    const json::Value &k = (*meta)["kernels"][0];
    c.sharedBytes = json::asInt64(k["shared_bytes"]).value_or(0);
    threads = static_cast<int>(
        json::asInt64(k["threads_per_program"]).value_or(0));
  }
  if (c.sharedBytes > target.maxSharedMemoryPerBlock()) {
    c.pruned = true;
    c.reason = std::to_string(c.sharedBytes) +
               " bytes of shared memory, over the " +
               std::to_string(target.maxSharedMemoryPerBlock()) + " of " +
               target.getChip().str();
    return;
  }
  assemble(c, compiled, dir, ptxas, target, threads, base);
  if (c.pruned)
    return;
  std::string error;
  c.metadata = base + ".json";
  if (!writeFile(dir + "/" + c.metadata, compiled.metadataJson, error)) {
    c.pruned = true;
    c.reason = error;
  }
}

/// Every combination of the space's values, the last dimension fastest.
std::vector<ParamValues> enumerate(const std::vector<SpaceDim> &space) {
  std::vector<ParamValues> out(1);
  for (const SpaceDim &d : space) {
    std::vector<ParamValues> next;
    for (const ParamValues &p : out)
      for (int64_t v : d.values) {
        ParamValues q = p;
        q.emplace_back(d.name, v);
        next.push_back(std::move(q));
      }
    out = std::move(next);
  }
  return out;
}

/// Runs `work(i)` for i in [0, n) on `jobs` threads.
void parallelFor(int n, int jobs, const std::function<void(int)> &work) {
  if (jobs <= 0)
    jobs = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<int> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < std::min(jobs, n); ++t)
    threads.emplace_back([&] {
      for (int i = next++; i < n; i = next++)
        work(i);
    });
  for (std::thread &t : threads)
    t.join();
}

/// Applies the overrides to `space`; errors name the bad one.
Status applyOverrides(std::vector<SpaceDim> &space,
                      const std::vector<SpaceDim> &overrides,
                      bool restrictToDeclared) {
  for (const SpaceDim &o : overrides) {
    auto it = std::find_if(space.begin(), space.end(),
                           [&](const SpaceDim &d) { return d.name == o.name; });
    if (it == space.end()) {
      std::string names;
      for (const SpaceDim &d : space)
        names += (names.empty() ? "" : ", ") + d.name;
      return Status::error("--space " + o.name + ": not a dimension of the "
                           "space (" + names + ")");
    }
    for (int64_t v : o.values) {
      if (o.name == "num_warps" && (v < 1 || v > 32 || (v & (v - 1))))
        return Status::error("--space num_warps: " + std::to_string(v) +
                             " is not a power of two in [1, 32]");
      if (o.name == "num_stages" && (v < 1 || v > 8))
        return Status::error("--space num_stages: " + std::to_string(v) +
                             " is not in [1, 8]");
      if (restrictToDeclared &&
          std::find(it->values.begin(), it->values.end(), v) ==
              it->values.end())
        return Status::error("--space " + o.name + ": " + std::to_string(v) +
                             " is not one of the values the file declares");
    }
    it->values = o.values;
  }
  return Status();
}

std::string progressLine(int done, int n, const Candidate &c) {
  std::string line = "[" + std::to_string(done) + "/" + std::to_string(n) +
                     "] candidate " + std::to_string(c.id) + " (" +
                     describe(c.params) + "): ";
  if (c.pruned)
    return line + "pruned: " + c.reason;
  line += "ok";
  if (c.registers >= 0)
    line += ", " + std::to_string(c.registers) + " registers";
  return line + ", " + std::to_string(c.sharedBytes) + " bytes shared";
}

/// The ptxas to run, "" for none.
std::string choosePtxas(const CompileOptions &options) {
  if (options.ptxasPath == "off")
    return "";
  return findPtxasPath(options.ptxasPath);
}

/// Compiles the candidates with `compileOne` in parallel and writes the
/// folder.
/// The split-K plans' second kernel, compiled once for the folder.
struct ReducePlan {
  std::function<Compiled()> compile; ///< null: no split-K candidates
  int64_t blockN = 0;
  std::string kernel;
};

Expected<Manifest> compileAll(
    Manifest m, const std::string &outDir, const CompileOptions &options,
    const std::function<Compiled(const Candidate &)> &compileOne,
    const std::function<std::string(const Candidate &, const Target &)>
        &prePrune,
    const ReducePlan &reducePlan = {}) {
  std::string error;
  if (!support::createFolders(outDir, error))
    return Status::error(error);
  llvm::Expected<Target> target = Target::get(options.arch);
  if (!target)
    return Status::error("--arch: " + llvm::toString(target.takeError()));
  std::string ptxas = choosePtxas(options);
  if (!options.ptxasPath.empty() && options.ptxasPath != "off" &&
      ptxas.empty())
    return Status::error("ptxas not found at '" + options.ptxasPath + "'");
  // The reduce kernel first: if it cannot be built, no split-K plan can
  // run, and each says why.
  std::string reduceError;
  ReduceStep reduce;
  bool anySplit = false;
  for (const Candidate &c : m.candidates)
    anySplit |= splitKOf(c) > 1;
  if (anySplit && reducePlan.compile) {
    Candidate r;
    finish(r, reducePlan.compile(), outDir, ptxas, *target, "reduce");
    if (r.pruned)
      reduceError = "the split-K reduce kernel: " + r.reason;
    else
      reduce = {reducePlan.kernel, r.binary, r.metadata, reducePlan.blockN};
  }
  std::mutex mutex;
  int done = 0;
  const int n = static_cast<int>(m.candidates.size());
  std::vector<std::string> ptxHash(n);
  parallelFor(n, options.jobs, [&](int i) {
    Candidate &c = m.candidates[i];
    auto start = std::chrono::steady_clock::now();
    std::string reason = prePrune ? prePrune(c, *target) : "";
    if (reason.empty() && splitKOf(c) > 1)
      reason = reduceError;
    if (!reason.empty()) {
      c.pruned = true;
      c.reason = reason;
    } else {
      Compiled compiled = compileOne(c);
      if (compiled.error.empty())
        ptxHash[i] = runtime::hash128Hex(compiled.ptx);
      finish(c, compiled, outDir, ptxas, *target,
             "c" + std::to_string(c.id));
      if (!c.pruned && splitKOf(c) > 1)
        c.reduce = reduce;
    }
    c.compileMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
    std::lock_guard<std::mutex> lock(mutex);
    ++done;
    if (options.progress)
      options.progress(progressLine(done, n, c));
  });
  // Two parameter sets can make one kernel (the TMA ring takes num_stages
  // + 1 slots only when they fit: 4 and 5 stages of 64x256 are both 5
  // slots). Measuring both would only cost time: the later one goes. Not
  // across split factors: SPLIT_K is the grid's, not the code's.
  std::map<std::string, int> firstWith;
  for (int i = 0; i < n; ++i) {
    Candidate &c = m.candidates[i];
    if (c.pruned || ptxHash[i].empty())
      continue;
    auto [it, fresh] = firstWith.emplace(
        ptxHash[i] + " SPLIT_K=" + std::to_string(splitKOf(c)), c.id);
    if (fresh)
      continue;
    llvm::sys::fs::remove(outDir + "/" + c.binary);
    llvm::sys::fs::remove(outDir + "/" + c.metadata);
    c.pruned = true;
    c.reason = "compiles to the same PTX as candidate " +
               std::to_string(it->second) + " (and launches the same grid)";
    c.binary.clear();
    c.metadata.clear();
    c.reduce = {};
    if (options.progress)
      options.progress("candidate " + std::to_string(c.id) + ": pruned: " +
                       c.reason);
  }
  if (!writeFile(outDir + "/manifest.json", writeManifest(m), error))
    return Status::error(error);
  return m;
}

} // namespace

Expected<SpaceDim> tune::parseSpaceDim(const std::string &text) {
  size_t eq = text.find('=');
  SpaceDim d;
  if (eq == std::string::npos || eq == 0)
    return Status::error("--space expects NAME=V,V,... (integers), got '" +
                         text + "'");
  d.name = text.substr(0, eq);
  std::stringstream values(text.substr(eq + 1));
  std::string item;
  while (std::getline(values, item, ',')) {
    int64_t v = 0;
    // TMA, WS and PERSISTENT are switches: 0 (off) or 1 (on).
    bool flag = d.name == "TMA" || d.name == "WS" || d.name == "PERSISTENT";
    if (llvm::StringRef(item).getAsInteger(10, v) || v < (flag ? 0 : 1))
      return Status::error("--space " + d.name + ": '" + item + "' is not " +
                           (flag ? "0 or 1" : "a positive integer"));
    // Programs per cluster: tile.num_ctas's values.
    if (d.name == "CLUSTER" && v != 1 && v != 2 && v != 4)
      return Status::error("--space CLUSTER: '" + item +
                           "' is not 1, 2 or 4 (programs per cluster)");
    if (flag && v > 1)
      return Status::error("--space " + d.name + ": '" + item +
                           "' is not 0 or 1");
    if (std::find(d.values.begin(), d.values.end(), v) != d.values.end())
      return Status::error("--space " + d.name + ": " + item +
                           " is listed twice");
    d.values.push_back(v);
  }
  if (d.values.empty())
    return Status::error("--space " + d.name + ": no values");
  return d;
}

Expected<Manifest> tune::compileTextCandidates(const std::string &path,
                                               const std::string &outDir,
                                               const CompileOptions &options) {
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return Status::error("cannot read '" + path +
                         "': " + file.getError().message());
  const std::string text = (*file)->getBuffer().str();
  Manifest m;
  m.source = path;
  m.kernelHash = runtime::hash128Hex(text);
  m.compiler = compilerIdentity();
  m.target = options.arch;
  m.problem = "gemm";
  // Parse once at the defaults: the space, the kernel's name and whether
  // it fixes num_warps / num_stages itself.
  TileParams params;
  bool fixesWarps = false, fixesStages = false;
  {
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    FirstError first(context);
    llvm::SourceMgr sourceMgr;
    mlir::OwningOpRef<mlir::ModuleOp> module = parseTileSourceWithParams(
        text, path, sourceMgr, context, {}, params);
    if (!module)
      return Status::error(first.text());
    int kernels = 0;
    for (auto func : module->getOps<mlir::func::FuncOp>()) {
      if (!mlir::tile::isKernel(func))
        continue;
      ++kernels;
      m.kernel = func.getName().str();
      fixesWarps = func->hasAttr(mlir::tile::TileDialect::getNumWarpsAttrName());
      fixesStages =
          func->hasAttr(mlir::tile::TileDialect::getNumStagesAttrName());
    }
    if (kernels != 1)
      return Status::error(path + ": tilec-tune tunes one kernel, the file "
                                  "has " + std::to_string(kernels) +
                           " (marked tile.kernel)");
  }
  for (const TileParam &p : params.declared)
    m.space.push_back({p.name, p.values});
  if (!params.find("num_warps") && !fixesWarps)
    m.space.push_back({"num_warps", {4, 8}});
  if (!params.find("num_stages") && !fixesStages)
    m.space.push_back({"num_stages", {2, 3, 4}});
  for (const SpaceDim &o : options.overrides)
    if (const TileParam *p = params.find(o.name))
      if (Status s = applyOverrides(m.space, {o}, true); !s.ok())
        return s;
  {
    std::vector<SpaceDim> rest;
    for (const SpaceDim &o : options.overrides)
      if (!params.find(o.name))
        rest.push_back(o);
    if (Status s = applyOverrides(m.space, rest, false); !s.ok())
      return s;
  }
  int id = 0;
  for (ParamValues &p : enumerate(m.space)) {
    Candidate c;
    c.id = id++;
    c.params = std::move(p);
    m.candidates.push_back(std::move(c));
  }
  return compileAll(
      m, outDir, options,
      [&](const Candidate &c) {
        Compiled out;
        mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
        context.printOpOnDiagnostic(false);
        FirstError first(context);
        PipelineOptions po;
        po.arch = options.arch;
        po.emit = EmitLevel::PTX;
        std::map<std::string, int64_t> assign;
        for (const auto &[name, value] : c.params) {
          if (params.find(name))
            assign[name] = value;
          else if (name == "num_warps")
            po.numWarps = static_cast<int>(value);
          else if (name == "num_stages")
            po.numStages = static_cast<int>(value);
        }
        llvm::SourceMgr sourceMgr;
        TileParams chosen;
        mlir::OwningOpRef<mlir::ModuleOp> module = parseTileSourceWithParams(
            text, path, sourceMgr, context, assign, chosen);
        if (!module) {
          out.error = first.text();
          return out;
        }
        for (const TileParam &p : chosen.declared)
          if (!p.used && p.name == "num_warps")
            po.numWarps = static_cast<int>(chosen.chosen.at(p.name));
          else if (!p.used && p.name == "num_stages")
            po.numStages = static_cast<int>(chosen.chosen.at(p.name));
        // A tile.target of the module must agree with --arch.
        mlir::FailureOr<CompileResult> r = compileModule(*module, po);
        if (mlir::failed(r)) {
          out.error = first.text();
          return out;
        }
        out.ptx = r->ptx;
        out.metadataJson = runtime::writeMetadata(r->metadata);
        return out;
      },
      nullptr);
}

namespace {

ops::MatmulConfig gemmConfig(const ParamValues &p) {
  ops::MatmulConfig cfg;
  cfg.aType = cfg.bType = cfg.cType = DType::BF16;
  cfg.blockM = static_cast<int>(valueOf(p, "BLOCK_M"));
  cfg.blockN = static_cast<int>(valueOf(p, "BLOCK_N"));
  cfg.blockK = static_cast<int>(valueOf(p, "BLOCK_K"));
  cfg.numWarps = static_cast<int>(valueOf(p, "num_warps"));
  cfg.groupM = static_cast<int>(valueOf(p, "GROUP_M"));
  cfg.descriptors = valueOf(p, "TMA") == 1;
  cfg.splitK = valueOf(p, "SPLIT_K") > 1;
  // One program per SM walking the tiles (grid: min(tiles, SMs)).
  cfg.persistent = valueOf(p, "PERSISTENT") == 1;
  // Programs in clusters sharing B's blocks (TMA multicast).
  cfg.numCtas = std::max<int>(1, static_cast<int>(valueOf(p, "CLUSTER")));
  if (cfg.splitK) // the partial sums; the reduce kernel casts to bf16
    cfg.cType = DType::F32;
  return cfg;
}

Kernel buildGemm(const ops::MatmulConfig &cfg) {
  return ops::matmulKernel("matmul", cfg, {},
                           [](Value acc, ops::Block &) { return acc; });
}

constexpr const char *kReduceKernel = "matmul_splitk_reduce";
constexpr int kReduceBlockN = 1024;

Kernel buildReduce() {
  ops::SplitKReduceConfig rc;
  rc.cType = DType::BF16;
  rc.blockN = kReduceBlockN;
  return ops::splitKReduceKernel(kReduceKernel, rc);
}

/// Dimensions whose --space values select families rather than replace
/// values: a TMA or split-K candidate is another kernel, not another tile.
bool selectsFamilies(const std::string &name) {
  return name == "TMA" || name == "SPLIT_K" || name == "PERSISTENT" ||
         name == "CLUSTER";
}

/// What a family without the dimension builds: PERSISTENT=0 (a grid of
/// the tiles), CLUSTER=1 (programs alone); none for the others.
std::optional<int64_t> implicitValue(const std::string &name) {
  if (name == "PERSISTENT")
    return 0;
  if (name == "CLUSTER")
    return 1;
  return std::nullopt;
}

/// The union of the families' dimensions (names in first-seen order).
std::vector<SpaceDim> unionSpace(const std::vector<SpaceFamily> &families) {
  std::vector<SpaceDim> out;
  for (const SpaceFamily &f : families)
    for (const SpaceDim &d : f.dims) {
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const SpaceDim &o) { return o.name == d.name; });
      if (it == out.end()) {
        out.push_back(d);
        continue;
      }
      for (int64_t v : d.values)
        if (std::find(it->values.begin(), it->values.end(), v) ==
            it->values.end())
          it->values.push_back(v);
    }
  return out;
}

/// Applies --space to the families: TMA and SPLIT_K keep the families (and
/// split factors) listed, any other dimension's values are replaced in
/// every family.
Status applyFamilyOverrides(std::vector<SpaceFamily> &families,
                            const std::vector<SpaceDim> &overrides) {
  for (const SpaceDim &o : overrides) {
    if (!selectsFamilies(o.name)) {
      bool found = false;
      for (SpaceFamily &f : families) {
        std::vector<SpaceDim> dims = f.dims;
        if (std::none_of(dims.begin(), dims.end(),
                         [&](const SpaceDim &d) { return d.name == o.name; }))
          continue;
        if (Status s = applyOverrides(dims, {o}, false); !s.ok())
          return s;
        f.dims = dims;
        found = true;
      }
      if (!found) {
        std::vector<SpaceDim> all = unionSpace(families);
        return applyOverrides(all, {o}, false); // the error naming the dims
      }
      continue;
    }
    std::vector<SpaceFamily> kept;
    for (SpaceFamily f : families) {
      // A family without the PERSISTENT (CLUSTER) dimension builds
      // PERSISTENT=0 (CLUSTER=1).
      std::optional<int64_t> implicit = implicitValue(o.name);
      if (implicit &&
          std::none_of(f.dims.begin(), f.dims.end(),
                       [&](const SpaceDim &d) { return d.name == o.name; }) &&
          std::find(o.values.begin(), o.values.end(), *implicit) ==
              o.values.end())
        continue;
      for (SpaceDim &d : f.dims)
        if (d.name == o.name)
          std::erase_if(d.values, [&](int64_t v) {
            return std::find(o.values.begin(), o.values.end(), v) ==
                   o.values.end();
          });
      if (std::all_of(f.dims.begin(), f.dims.end(),
                      [](const SpaceDim &d) { return !d.values.empty(); }))
        kept.push_back(std::move(f));
    }
    if (kept.empty()) {
      std::string values, names;
      for (int64_t v : o.values)
        values += (values.empty() ? "" : ", ") + std::to_string(v);
      for (const SpaceFamily &f : families)
        if (names.find(f.name) == std::string::npos)
          names += (names.empty() ? "" : ", ") + f.name;
      return Status::error("--space " + o.name + ": no family of the GEMM "
                           "space for this target has " + o.name + " in {" +
                           values + "} (families: " + names + ")");
    }
    families = std::move(kept);
  }
  return Status();
}

/// Why the builder GEMM candidate `c` cannot work on `target`, or "".
std::string pruneGemm(const Candidate &c, const Target &target) {
  // The f32 accumulator is spread over the program's threads; past the
  // 255 registers a thread has it can only spill.
  int64_t m = valueOf(c.params, "BLOCK_M"), n = valueOf(c.params, "BLOCK_N");
  int64_t k = valueOf(c.params, "BLOCK_K");
  int64_t threads = 32 * valueOf(c.params, "num_warps");
  int64_t perThread = m * n / threads;
  if (perThread > 255 - 16)
    return "the " + std::to_string(m) + " x " + std::to_string(n) +
           " f32 accumulator alone takes " + std::to_string(perThread) +
           " registers per thread (" + std::to_string(threads) +
           " threads), more than the 239 a thread can give it (255 less 16 "
           "for addresses and indices)";
  if (usesTma(c)) {
    if (!target.hasTma())
      return target.getChip().str() + " has no TMA (tensor descriptors need "
                                      "sm_90 or later)";
    if (valueOf(c.params, "WS") == 1 && valueOf(c.params, "num_warps") < 8)
      return "warp specialization needs 8 or more warps (two consumer "
             "warpgroups beside the producer's; with one, ptxas may already "
             "give it all registers and setmaxnreg could not raise them), "
             "got " +
             std::to_string(valueOf(c.params, "num_warps"));
    // tile-lower-descriptors stages A and B in a ring of num_stages + 1
    // slots when that fits, else num_stages; less than num_stages cannot
    // hold the pipeline.
    int64_t stages = valueOf(c.params, "num_stages");
    int64_t slot = (m * k + k * n) * 2; // bf16
    int64_t limit = target.maxSharedMemoryPerBlock();
    if (stages * slot > limit)
      return "the TMA ring of " + std::to_string(stages) + " slots of " +
             std::to_string(slot) + " bytes (A " + std::to_string(m) + "x" +
             std::to_string(k) + " + B " + std::to_string(k) + "x" +
             std::to_string(n) + " bf16) takes " +
             std::to_string(stages * slot) + " bytes of shared memory, over "
             "the " + std::to_string(limit) + " of " + target.getChip().str();
  }
  return "";
}

/// A TMA candidate whose descriptor loads did not become the ring of
/// tile-lower-descriptors (its shared memory holds fewer than num_stages
/// slots) would copy one block at a time with no overlap: not worth
/// measuring. Ask the metadata rather than guess the lowering's rules.
std::string checkTmaRing(const Candidate &c, const std::string &metadata) {
  int64_t m = valueOf(c.params, "BLOCK_M"), n = valueOf(c.params, "BLOCK_N");
  int64_t k = valueOf(c.params, "BLOCK_K");
  int64_t stages = valueOf(c.params, "num_stages");
  int64_t ring = stages * (m * k + k * n) * 2;
  Expected<json::Value> meta = json::parse(metadata);
  int64_t shared = 0;
  if (meta.ok() && (*meta)["kernels"].is_array() &&
      !(*meta)["kernels"].empty())
    shared = json::asInt64((*meta)["kernels"][0]["shared_bytes"]).value_or(0);
  if (shared >= ring)
    return "";
  return "the descriptor loads are not staged in a TMA ring (" +
         std::to_string(shared) + " bytes of shared memory, a ring of " +
         std::to_string(stages) + " stages needs " + std::to_string(ring) +
         "): tile-lower-descriptors does not pipeline " + std::to_string(m) +
         "x" + std::to_string(n) + " at " +
         std::to_string(valueOf(c.params, "num_warps")) + " warps";
}

} // namespace

std::vector<SpaceFamily> tune::defaultGemmFamilies(const std::string &arch) {
  auto family = [](std::string name, std::vector<int64_t> bm,
                   std::vector<int64_t> bn, std::vector<int64_t> bk,
                   std::vector<int64_t> warps, std::vector<int64_t> stages,
                   int64_t tma, std::vector<int64_t> splits,
                   std::vector<int64_t> ws = {},
                   std::vector<int64_t> persistent = {},
                   std::vector<int64_t> cluster = {}) {
    SpaceFamily f{std::move(name),
                  {{"BLOCK_M", std::move(bm)},
                   {"BLOCK_N", std::move(bn)},
                   {"BLOCK_K", std::move(bk)},
                   {"num_warps", std::move(warps)},
                   {"num_stages", std::move(stages)},
                   {"GROUP_M", {8}},
                   {"TMA", {tma}},
                   {"SPLIT_K", std::move(splits)}}};
    // Warp specialization (a producer warpgroup issuing the TMA copies) is
    // a dimension of the descriptor families: WS = 0 keeps the program's
    // own threads (thread 0 issues the copies).
    if (!ws.empty())
      f.dims.push_back({"WS", std::move(ws)});
    // Persistence (one program per SM looping over the tiles) is a
    // dimension of the 8-warp descriptor families, whose big tiles leave a
    // partial last wave on many shapes.
    if (!persistent.empty())
      f.dims.push_back({"PERSISTENT", std::move(persistent)});
    // Programs per cluster (tile.num_ctas), whose programs take vertically
    // adjacent tiles and share B's blocks by TMA multicast.
    if (!cluster.empty())
      f.dims.push_back({"CLUSTER", std::move(cluster)});
    return f;
  };
  std::vector<SpaceFamily> f = {
      family("cp.async", {64, 128}, {64, 128, 256}, {32, 64}, {4, 8}, {3, 4},
             0, {1})};
  llvm::Expected<Target> t = Target::get(arch);
  bool wgmma = t && t->hasWgmma();
  if (!t)
    llvm::consumeError(t.takeError());
  if (wgmma) {
    // The descriptor tiles that feed wgmma from the TMA ring: one or two
    // warpgroups of m64nN; 128x256 and 256x128 need both (8 warps).
    f.push_back(
        family("tma", {128}, {128}, {64}, {4, 8}, {3, 4, 5}, 1, {1}, {0, 1}));
    f.push_back(
        family("tma", {64}, {256}, {64}, {4, 8}, {3, 4, 5}, 1, {1}, {0, 1}));
    f.push_back(family("tma", {128}, {256}, {64}, {8}, {3, 4, 5}, 1, {1},
                       {0, 1}, {0, 1}));
    f.push_back(family("tma", {256}, {128}, {64}, {8}, {3, 4, 5}, 1, {1},
                       {0, 1}, {0, 1}));
    // 128x192, not a power of two: at 8192^3 it beat 128x256 (1.5924 ms
    // against 1.6505 in one H200 call, examples/matmul_tma.tile), and it
    // fills whole waves where 128 and 256 leave SMs idle (1408 x 2304 is
    // 132 tiles).
    f.push_back(family("tma", {128}, {192}, {64}, {8}, {3, 4, 5}, 1, {1},
                       {0, 1}, {0, 1}));
    // Clusters of two sharing B (warp-specialized: the multicast is the
    // ring's): the big tiles, persistent or not.
    f.push_back(family("tma-cluster", {128}, {256, 192}, {64}, {8}, {3, 4},
                       1, {1}, {1}, {0, 1}, {2}));
  }
  // Split-K for small M, large K: small tiles, so that tiles x slices fill
  // the SMs; through the TMA where there is wgmma (on 4 warps: no warp
  // specialization).
  f.push_back(family("splitk", {64, 128}, {64, 128}, {64}, {4}, {4},
                     wgmma ? 1 : 0, {2, 4, 8, 16},
                     wgmma ? std::vector<int64_t>{0} : std::vector<int64_t>{}));
  return f;
}

std::vector<SpaceDim> tune::defaultGemmSpace() {
  return unionSpace(defaultGemmFamilies("sm_90a"));
}

Expected<Manifest> tune::compileGemmCandidates(const std::string &outDir,
                                               const CompileOptions &options) {
  Manifest m;
  m.kernel = "matmul";
  m.source = "builder:matmul";
  m.compiler = compilerIdentity();
  m.target = options.arch;
  m.problem = "gemm";
  m.families = defaultGemmFamilies(options.arch);
  if (Status s = applyFamilyOverrides(m.families, options.overrides); !s.ok())
    return s;
  m.space = unionSpace(m.families);
  // The generator's IR at its default configuration, in each of its forms,
  // stands for the kernel: a change to matmulKernel or the reduce kernel
  // changes it.
  try {
    ParamValues base = {{"BLOCK_M", 128}, {"BLOCK_N", 128}, {"BLOCK_K", 32},
                        {"num_warps", 8}, {"GROUP_M", 8}};
    ParamValues tma = base, split = base;
    tma.emplace_back("TMA", 1);
    split.emplace_back("TMA", 1);
    split.emplace_back("SPLIT_K", 4);
    m.kernelHash = runtime::hash128Hex(
        "builder:matmul\n" + buildGemm(gemmConfig(base)).str() +
        buildGemm(gemmConfig(tma)).str() + buildGemm(gemmConfig(split)).str() +
        buildReduce().str());
  } catch (const BuildError &e) {
    return Status::error(std::string("the GEMM generator failed: ") +
                         e.what());
  }
  int id = 0;
  std::set<ParamValues> seen; // --space can make two families alike
  for (const SpaceFamily &f : m.families)
    for (ParamValues &p : enumerate(f.dims)) {
      // PERSISTENT=0 (CLUSTER=1) is the kernel every family without the
      // dimension builds: left out, so that such twins are one candidate.
      llvm::erase_if(p, [](const auto &kv) {
        return implicitValue(kv.first) == kv.second;
      });
      if (!seen.insert(p).second)
        continue;
      Candidate c;
      c.id = id++;
      c.family = f.name;
      c.params = std::move(p);
      m.candidates.push_back(std::move(c));
    }
  auto compileKernel = [&](const std::function<Kernel()> &build,
                           int numStages, int warpSpecialize) {
    Compiled out;
    try {
      Kernel k = build();
      PipelineOptions po;
      po.arch = options.arch;
      po.emit = EmitLevel::PTX;
      if (numStages > 0)
        po.numStages = numStages;
      if (warpSpecialize >= 0) // WS absent (-1): the pipeline's default
        po.warpSpecialize = warpSpecialize == 1;
      CompileResult r = k.compile(po);
      out.ptx = r.ptx;
      out.metadataJson = runtime::writeMetadata(r.metadata);
    } catch (const BuildError &e) {
      out.error = e.message();
    }
    return out;
  };
  ReducePlan reduce;
  reduce.kernel = kReduceKernel;
  reduce.blockN = kReduceBlockN;
  reduce.compile = [&] { return compileKernel(buildReduce, 0, -1); };
  return compileAll(
      m, outDir, options,
      [&](const Candidate &c) {
        int stages = static_cast<int>(valueOf(c.params, "num_stages"));
        Compiled out = compileKernel(
            [&] { return buildGemm(gemmConfig(c.params)); }, stages,
            static_cast<int>(valueOf(c.params, "WS")));
        if (out.error.empty() && usesTma(c))
          out.error = checkTmaRing(c, out.metadataJson);
        return out;
      },
      pruneGemm, reduce);
}
