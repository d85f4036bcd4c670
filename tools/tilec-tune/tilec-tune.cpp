//===- tilec-tune.cpp - tune kernels: compile candidates, measure them ----===//
//
// Two subcommands, because the GPU machine has no MLIR:
//   tilec-tune compile  (here, with the compiler): the tuning space, pruned,
//                       compiled into a candidate folder with manifest.json;
//   tilec-tune measure  (there, runtime only): times the candidates on the
//                       problems given, keeps the winners in the cache.
// The runtime-only build (TILEC_RUNTIME_ONLY) has `measure` only.
// docs/tuning.md describes both.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Cache.h"
#include "tilec/Support/CommandLine.h"
#include "tilec/Support/Files.h"
#include "tilec/Support/HostArgs.h"
#include "tilec/Support/Json.h"
#include "tilec/Support/Progress.h"
#include "tilec/Tune/Dispatch.h"
#include "tilec/Tune/Manifest.h"
#include "tilec/Tune/Measure.h"
#include "tilec/Tune/TuneCache.h"
#ifdef TILEC_TUNE_HAS_COMPILER
#include "tilec/Tune/Compile.h"
#endif

#include <algorithm>
#include <optional>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace tilec;
using namespace tilec::tune;

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "tilec-tune: error: %s\n", message.c_str());
  return 1;
}

bool writeText(const std::string &path, const std::string &text,
               std::string &error) {
  if (!support::createParentFolders(path, error))
    return false;
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out)
    error = "cannot write '" + path + "'";
  return static_cast<bool>(out);
}

json::Value paramsJson(const ParamValues &params) {
  json::Value o = json::Value::object();
  for (const auto &[n, v] : params)
    o[n] = v;
  return o;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

/// The width of the parameters column.
int paramsWidth(const Manifest &m) {
  size_t w = 10;
  for (const Candidate &c : m.candidates)
    w = std::max(w, describe(c.params).size());
  return static_cast<int>(w);
}

/// The candidates of a manifest as compile prints them.
void printCompileTable(const Manifest &m) {
  const int w = paramsWidth(m);
  int ok = 0;
  for (const Candidate &c : m.candidates)
    ok += !c.pruned;
  std::printf("%s (%s, %s): %zu candidates, %d compiled, %zu pruned\n",
              m.kernel.c_str(), m.source.c_str(), m.target.c_str(),
              m.candidates.size(), ok, m.candidates.size() - ok);
  std::printf("%4s  %-*s  %-7s %5s %8s  %s\n", "id", w, "parameters",
              "status", "regs", "shared", "reason");
  for (const Candidate &c : m.candidates)
    std::printf("%4d  %-*s  %-7s %5s %8s  %s\n", c.id, w,
                describe(c.params).c_str(), c.pruned ? "pruned" : "ok",
                c.pruned || c.registers < 0 ? "-"
                                            : std::to_string(c.registers).c_str(),
                c.pruned ? "-" : std::to_string(c.sharedBytes).c_str(),
                c.reason.c_str());
}

/// Prints one problem's table and winner and returns its JSON row (without
/// the problem's own fields). `flop` is 0 where the work is not known (the
/// args problem): no TFLOP/s then.
json::Value reportResult(const Manifest &m, const TuneResult &r, double flop,
                         bool &allOk) {
  auto tflops = [&](double ms) { return flop / (ms * 1e-3) / 1e12; };
  json::Value row = json::Value::object();
  row["bucket"] = r.bucket;
  row["from_cache"] = r.fromCache;
  row["cache_file"] = r.cacheFile;
  row["cache_note"] = r.cacheNote;
  row["rotating_sets"] = r.rotatingSets;
  if (!r.cacheNote.empty())
    std::printf("  cache: %s\n", r.cacheNote.c_str());
  json::Value cands = json::Value::array();
  const int w = paramsWidth(m);
  if (!r.fromCache)
    std::printf("  %d rotating buffer sets\n  %4s  %-*s %10s %10s %8s  "
                "%s\n",
                r.rotatingSets, "id", w, "parameters", "median ms", "min ms",
                flop > 0 ? "TFLOP/s" : "", "note");
  for (const Candidate &c : m.candidates) {
    json::Value o = json::Value::object();
    o["id"] = c.id;
    o["params"] = paramsJson(c.params);
    const CandidateTime *t = nullptr;
    for (const CandidateTime &x : r.times)
      if (x.id == c.id)
        t = &x;
    if (c.pruned) {
      o["status"] = "pruned";
      o["reason"] = c.reason;
    } else if (t && !t->skipped.empty()) {
      o["status"] = "skipped";
      o["reason"] = t->skipped;
    } else if (t && t->measured) {
      o["status"] = "ok";
      o["median_ms"] = t->medianMs;
      o["min_ms"] = t->minMs;
      if (flop > 0)
        o["tflops"] = tflops(t->medianMs);
    } else if (t) {
      o["status"] = "failed";
      o["reason"] = t->error;
    } else {
      o["status"] = "not measured";
    }
    if (!r.fromCache) {
      std::string note = o.contains("reason") ? o["reason"].get<std::string>()
                                              : "";
      if (c.id == r.winner.id)
        note = "winner";
      bool timed = t && t->measured;
      std::printf("  %4d  %-*s %10s %10s %8s  %s\n", c.id, w,
                  describe(c.params).c_str(),
                  timed ? fixed(t->medianMs, 4).c_str()
                        : o["status"].get<std::string>().c_str(),
                  timed ? fixed(t->minMs, 4).c_str() : "",
                  timed && flop > 0 ? fixed(tflops(t->medianMs), 1).c_str()
                                    : "",
                  note.c_str());
    }
    cands.push_back(o);
  }
  row["candidates"] = cands;
  if (r.winner.id < 0) {
    allOk = false;
    std::printf("  no candidate ran correctly\n");
    row["winner"] = nullptr;
    return row;
  }
  json::Value win = json::Value::object();
  win["id"] = r.winner.id;
  win["params"] = paramsJson(r.winner.params);
  json::Value plan = json::Value::object();
  plan["split_k"] = r.winner.plan.splitK;
  plan["tma"] = r.winner.plan.tma;
  plan["kernels"] = r.winner.plan.kernels;
  win["plan"] = plan;
  win["median_ms"] = r.winner.medianMs;
  if (flop > 0) {
    win["tflops"] = tflops(r.winner.medianMs);
    win["measured_shape"] = {r.winner.measuredShape.m,
                             r.winner.measuredShape.n,
                             r.winner.measuredShape.k};
  }
  row["winner"] = win;
  const GemmShape &ms = r.winner.measuredShape;
  std::string on = flop > 0 ? " when measured on " + std::to_string(ms.m) +
                                  "x" + std::to_string(ms.n) + "x" +
                                  std::to_string(ms.k)
                            : " when measured";
  if (r.fromCache)
    std::printf("  cache hit (%s): candidate %d (%s), %.4f ms%s; 0 "
                "measurements\n",
                r.cacheFile.c_str(), r.winner.id,
                describe(r.winner.params).c_str(), r.winner.medianMs,
                on.c_str());
  else
    std::printf("  winner: candidate %d (%s; %s), %.4f ms%s, %d measured%s%s\n",
                r.winner.id, describe(r.winner.params).c_str(),
                r.winner.plan.describe().c_str(), r.winner.medianMs,
                flop > 0 ? (", " + fixed(tflops(r.winner.medianMs), 1) +
                            " TFLOP/s")
                               .c_str()
                         : "",
                r.winner.measured, r.cacheFile.empty() ? "" : "; stored in ",
                r.cacheFile.c_str());
  return row;
}

/// The problems of one `measure`: GEMM shapes, or one args problem.
struct Problems {
  std::vector<std::string> gemms;
  std::vector<std::string> args;
  std::string grid;
};

int measure(const std::string &dir, const Problems &problems, int device,
            MeasureOptions options, const std::string &jsonOut) {
  Expected<Manifest> m = readManifest(dir);
  if (!m.ok())
    return fail(m.message());
  std::vector<GemmShape> gemms;
  for (const std::string &s : problems.gemms) {
    Expected<GemmShape> g = parseGemmShape(s);
    if (!g.ok())
      return fail("--gemm: " + g.message());
    gemms.push_back(*g);
  }
  ArgsProblem argsProblem;
  argsProblem.specs = problems.args;
  if (!problems.grid.empty()) {
    int64_t dims[3];
    if (parseGridText(problems.grid, dims) && dims[0] > 0 && dims[1] > 0 &&
        dims[2] > 0)
      argsProblem.grid = runtime::Grid(dims[0], dims[1], dims[2]);
    else
      return fail("--grid expects X[,Y[,Z]] (integers of at least 1), got '" +
                  problems.grid + "'");
  }
  Expected<runtime::Context> ctx = runtime::Context::create(device);
  if (!ctx.ok())
    return fail(ctx.message());
  options.progress = [](const std::string &line) {
    std::printf("  %s\n", line.c_str());
    std::fflush(stdout);
  };
  json::Value rows = json::Value::array();
  bool allOk = true;
  std::printf("%s on %s: %zu candidates in %s\n", m->kernel.c_str(),
              deviceIdentity(*ctx).c_str(), m->candidates.size(), dir.c_str());
  for (const GemmShape &g : gemms) {
    std::printf("gemm M=%lld N=%lld K=%lld (bucket %s)\n", (long long)g.m,
                (long long)g.n, (long long)g.k, gemmBucket(g).c_str());
    Expected<TuneResult> r = tuneGemm(*ctx, *m, dir, g, options);
    if (!r.ok())
      return fail(r.message());
    json::Value row = reportResult(*m, *r, 2.0 * g.m * g.n * g.k, allOk);
    row["m"] = g.m;
    row["n"] = g.n;
    row["k"] = g.k;
    rows.push_back(row);
  }
  if (!problems.args.empty()) {
    std::string grid = argsProblem.grid
                           ? "grid " + problems.grid
                           : "each candidate's grid rule";
    std::printf("args (%s)\n", grid.c_str());
    Expected<TuneResult> r = tuneArgs(*ctx, *m, dir, argsProblem, options);
    if (!r.ok())
      return fail(r.message());
    json::Value row = reportResult(*m, *r, 0, allOk);
    row["args"] = problems.args;
    if (argsProblem.grid)
      row["grid"] = {argsProblem.grid->x, argsProblem.grid->y,
                     argsProblem.grid->z};
    rows.push_back(row);
  }
  if (!jsonOut.empty()) {
    json::Value doc = json::Value::object();
    doc["format"] = "tilec-tune-results";
    doc["kernel"] = m->kernel;
    doc["device"] = deviceIdentity(*ctx);
    doc["shapes"] = rows;
    std::string error;
    if (!writeText(jsonOut, json::write(doc), error))
      return fail(error);
  }
  return allOk ? 0 : 1;
}

/// The specs of one args problem given as `--problem 'S;S;S'`.
std::vector<std::string> splitProblem(const std::string &text) {
  std::vector<std::string> specs;
  size_t start = 0;
  while (true) {
    size_t end = text.find(';', start);
    specs.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      return specs;
    start = end + 1;
  }
}

/// `aot`: the cached winners of `shapes` (GEMMs) or of `argsProblems` (each
/// one problem's specs) as a dispatch table in C++.
int aotTable(const std::string &dir, const std::vector<std::string> &shapes,
             const std::vector<std::vector<std::string>> &argsProblems,
             int device, const std::string &cacheDir,
             const std::string &outDir, const DispatchOptions &options) {
  Expected<Manifest> m = readManifest(dir);
  if (!m.ok())
    return fail(m.message());
  Expected<runtime::Context> ctx = runtime::Context::create(device);
  if (!ctx.ok())
    return fail(ctx.message());
  std::string folder = cacheDir;
  if (folder.empty()) {
    Expected<std::string> d = runtime::defaultCacheDir();
    if (!d.ok())
      return fail(d.message());
    folder = *d;
  }
  TuneCache cache(folder);
  auto write = [&](const Expected<std::vector<GeneratedFile>> &files,
                   size_t buckets) {
    if (!files.ok())
      return fail(files.message());
    for (const GeneratedFile &f : *files) {
      std::string error;
      if (!writeText(outDir + "/" + f.name, f.text, error))
        return fail(error);
    }
    std::printf("wrote %zu files to %s: %s.h declares %s::%s (%zu bucket%s)\n",
                files->size(), outDir.c_str(), options.baseName.c_str(),
                options.namespaceName.c_str(), m->kernel.c_str(), buckets,
                buckets == 1 ? "" : "s");
    return 0;
  };
  if (!argsProblems.empty()) {
    std::vector<std::pair<ArgsDispatchKey, Winner>> winners;
    for (const std::vector<std::string> &specs : argsProblems) {
      std::string text;
      for (const std::string &spec : specs)
        text += (text.empty() ? "" : " ") + spec;
      Expected<ArgsDispatchKey> key =
          argsProblemKey(*m, dir, ArgsProblem{specs, std::nullopt});
      if (!key.ok())
        return fail("the problem '" + text + "': " + key.message());
      TuneKeyParts parts = keyParts(*m, key->bucket, deviceIdentity(*ctx));
      parts.problem = "args";
      CacheLookup hit = cache.lookup(parts, *m);
      if (!hit.winner)
        return fail("no cached winner for the problem '" + text +
                    "' (bucket " + key->bucket + ", " + deviceIdentity(*ctx) +
                    (hit.ignored.empty() ? "" : "; ignored " + hit.ignored) +
                    "): run tilec-tune measure --arg on it first");
      winners.emplace_back(*key, *hit.winner);
    }
    return write(generateArgsDispatch(*m, dir, winners, options),
                 winners.size());
  }
  std::vector<std::pair<GemmShape, Winner>> winners;
  for (const std::string &text : shapes) {
    Expected<GemmShape> g = parseGemmShape(text);
    if (!g.ok())
      return fail("--gemm: " + g.message());
    std::string bucket = gemmBucket(*g);
    CacheLookup hit =
        cache.lookup(keyParts(*m, bucket, deviceIdentity(*ctx)), *m);
    if (!hit.winner)
      return fail("no cached winner for " + text + " (bucket " + bucket +
                  ", " + deviceIdentity(*ctx) + (hit.ignored.empty() ? "" : "; ignored " + hit.ignored) +
                  "): run tilec-tune measure on it first");
    winners.emplace_back(*g, *hit.winner);
  }
  return write(generateGemmDispatch(*m, dir, winners, options),
               winners.size());
}

} // namespace

int main(int argc, char **argv) {
  cli::CommandLine cl(
      "tilec-tune",
      "tilec-tune compile (FILE.tile | --builder matmul) -o DIR [options]\n"
      "       tilec-tune measure DIR (--gemm MxNxK... | --arg SPEC...) "
      "[options]\n"
      "       tilec-tune aot DIR (--gemm MxNxK... | --arg SPEC... | "
      "--problem 'SPEC;...'...) -o OUT [options]",
      "Tunes a kernel: `compile` enumerates its tuning space, prunes what "
      "cannot work on the target (with the reason) and compiles the rest "
      "into DIR; `measure` (runtime only: the GPU machine) times them on "
      "each problem, prints the table and keeps each winner in the cache, "
      "which later runs reuse with no measurement; `aot` writes C++ that "
      "embeds the cached winners behind one dispatch function "
      "(docs/tuning.md).");
  CLI::App &app = cl.app();
  app.require_subcommand(1);

  CLI::App *compile =
      app.add_subcommand("compile", "compile the candidates into a folder");
  std::string input, builder, outDir, arch = "sm_90a", ptxas, compileJson;
  std::vector<std::string> spaces;
  int jobs = 0;
  compile->add_option("input", input, "the .tile file (its tile.params)");
  compile->add_option("--builder", builder,
                      "a builder generator instead of a file: matmul");
  compile->add_option("-o,--output", outDir, "the candidate folder")
      ->required();
  compile->add_option("--space", spaces,
                      "NAME=V,V,...: the values of one dimension (repeatable)");
  compile->add_option("--arch", arch, "the chip")->default_str(arch);
  compile->add_option("--jobs", jobs, "compile threads (default: one per core)");
  compile->add_option("--ptxas", ptxas,
                      "ptxas to assemble and check registers with; off: "
                      "PTX only (default: the search of tilec --emit=cubin)");
  compile->add_option("--json", compileJson,
                      "also write the manifest (the table) there");

  CLI::App *measureCmd = app.add_subcommand(
      "measure", "time the candidates of a folder on the GPU");
  std::string dir, cacheDir, measureJson;
  Problems problems;
  int device = 0;
  bool noCache = false;
  MeasureOptions options;
  measureCmd->add_option("dir", dir, "the folder `compile` wrote")->required();
  measureCmd->add_option("--gemm", problems.gemms,
                         "a GEMM problem MxNxK (repeatable)");
  measureCmd->add_option("--arg", problems.args,
                         "instead of --gemm: one argument spec per kernel "
                         "parameter, in order (tilec-gpu-run's syntax)");
  measureCmd->add_option("--grid", problems.grid,
                         "with --arg: the grid X[,Y[,Z]] (default: each "
                         "candidate's tile.grid rule)");
  measureCmd->add_option("--device", device, "the GPU")->default_str("0");
  measureCmd->add_option("--warmup", options.warmup, "launches before timing")
      ->default_str(std::to_string(options.warmup));
  measureCmd->add_option("--reps", options.reps,
                         "timed launches (the median counts)")
      ->default_str(std::to_string(options.reps));
  measureCmd->add_option("--check-samples", options.checkSamples,
                         "elements of C checked against the host (0: none)")
      ->default_str(std::to_string(options.checkSamples));
  measureCmd->add_option("--cache-dir", cacheDir,
                         "the cache folder (default: the runtime's)");
  measureCmd->add_flag("--no-cache", noCache,
                       "measure even with a winner cached, store nothing");
  measureCmd->add_option("--json", measureJson, "write the results there");

  CLI::App *aot = app.add_subcommand(
      "aot", "write C++ that embeds the cached winners with a dispatch table");
  std::string aotDir, aotOut, aotCache;
  std::vector<std::string> aotGemms;
  int aotDevice = 0;
  DispatchOptions dispatch;
  aot->add_option("dir", aotDir, "the folder `compile` wrote")->required();
  std::vector<std::string> aotArgs, aotProblems;
  aot->add_option("--gemm", aotGemms,
                  "a shape whose bucket's winner goes in the table "
                  "(repeatable)");
  aot->add_option("--arg", aotArgs,
                  "instead of --gemm: one args problem, one spec per kernel "
                  "parameter (as measure's --arg)");
  aot->add_option("--problem", aotProblems,
                  "instead of --gemm: an args problem, its specs separated "
                  "by ';' (repeatable)");
  aot->add_option("-o,--output", aotOut, "the folder of the C++ files")
      ->required();
  aot->add_option("--base", dispatch.baseName,
                  "the files' base name (BASE.h, BASE.cpp, BASE_cN.*)")
      ->default_str(dispatch.baseName);
  aot->add_option("--namespace", dispatch.namespaceName,
                  "the C++ namespace")
      ->default_str(dispatch.namespaceName);
  aot->add_option("--cache-dir", aotCache,
                  "the cache folder (default: the runtime's)");
  aot->add_option("--device", aotDevice, "the GPU the winners were tuned on")
      ->default_str("0");

  if (int status = cl.parse(argc, argv); status >= 0)
    return status;
  for (CLI::App *sub : {compile, measureCmd, aot})
    if (sub->parsed() && !sub->remaining().empty()) {
      const std::string first = sub->remaining().front();
      return cl.usageError(first.size() > 1 && first[0] == '-'
                               ? "unknown option '" + first + "'"
                               : "unexpected argument '" + first + "'");
    }

  if (measureCmd->parsed()) {
    if (options.reps < 1 || options.warmup < 1)
      return cl.usageError("--reps and --warmup must be at least 1");
    if (options.checkSamples < 0)
      return cl.usageError("--check-samples must be at least 0");
    if (problems.gemms.empty() == problems.args.empty())
      return cl.usageError("measure takes --gemm shapes or the --arg specs "
                           "of one problem, one of them");
    if (!problems.grid.empty() && problems.args.empty())
      return cl.usageError("--grid goes with --arg (a GEMM's grid follows "
                           "from its shape)");
    options.useCache = !noCache;
    options.cacheDir = cacheDir;
    return measure(dir, problems, device, options, measureJson);
  }

  if (aot->parsed()) {
    std::vector<std::vector<std::string>> argsProblems;
    if (!aotArgs.empty())
      argsProblems.push_back(aotArgs);
    for (const std::string &p : aotProblems)
      argsProblems.push_back(splitProblem(p));
    if (aotGemms.empty() == argsProblems.empty())
      return cl.usageError("aot takes --gemm shapes or args problems (--arg "
                           "specs of one, --problem for each), one of them");
    return aotTable(aotDir, aotGemms, argsProblems, aotDevice, aotCache,
                    aotOut, dispatch);
  }

#ifdef TILEC_TUNE_HAS_COMPILER
  if (input.empty() == builder.empty())
    return cl.usageError("compile takes a .tile file or --builder, one of "
                         "them");
  if (!builder.empty() && builder != "matmul")
    return cl.usageError("--builder: unknown generator '" + builder +
                         "' (known: matmul)");
  CompileOptions co;
  co.arch = arch;
  co.jobs = jobs;
  co.ptxasPath = ptxas;
  for (const std::string &s : spaces) {
    Expected<SpaceDim> d = parseSpaceDim(s);
    if (!d.ok())
      return cl.usageError(d.message());
    co.overrides.push_back(*d);
  }
  // A line per candidate while they compile, on a terminal only (a log
  // or a pipe gets the table at the end, which says the same).
  if (support::stderrIsTerminal())
    co.progress = [](const std::string &line) {
      std::fprintf(stderr, "%s\n", line.c_str());
    };
  Expected<Manifest> m = builder.empty()
                             ? compileTextCandidates(input, outDir, co)
                             : compileGemmCandidates(outDir, co);
  if (!m.ok())
    return fail(m.message());
  printCompileTable(*m);
  if (!compileJson.empty()) {
    std::string error;
    if (!writeText(compileJson, writeManifest(*m), error))
      return fail(error);
  }
  bool any = false;
  for (const Candidate &c : m->candidates)
    any |= !c.pruned;
  if (!any)
    return fail("every candidate was pruned");
  return 0;
#else
  (void)jobs;
  return fail("this tilec-tune was built without the compiler "
              "(TILEC_RUNTIME_ONLY): run `tilec-tune compile` where tilec "
              "is built, and `measure` here");
#endif
}
