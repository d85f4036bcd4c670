//===- tilec-profile.cpp - which bound is this kernel under? (measured) ---===//
//
//   tilec-profile DIR|FILE.analysis.json... [--out DIR] [--device-model F]
//                 [--only NAME,...] [--quick]
//   tilec-profile --render profile.json... [--out DIR] [--device-model F]
//
// Runs each workload that tilec-analyze wrote (its PTX and metadata sit
// beside the analysis) at every analysed point through the runtime: inputs
// random, rotated among copies when the L2 cache could hold them, outputs
// poisoned and checked written; GPU time as the median of event-timed
// iterations after a warm-up (triton.testing.do_bench's way), wall time per
// iteration of a loop with one synchronize (what a caller in a loop sees).
// Writes profile.json, report.txt, roofline.svg and a time-vs-size chart
// per sweep, and prints the report: achieved bandwidth and FLOP rates
// against the ceilings, the batch-doubling ratio, the verdict. --render
// redraws them from profile.json files without a GPU, merging several (runs
// of one workload each) into one.
//
// Needs only the runtime (no MLIR): it builds with -DTILEC_RUNTIME_ONLY=ON.
//
//===----------------------------------------------------------------------===//

#include "tilec/PerfModel/Report.h"
#include "tilec/Runtime/Runtime.h"
#include "tilec/Support/CommandLine.h"
#include "tilec/Support/Files.h"
#include "tilec/Support/Random.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <sys/stat.h>

using namespace tilec::perfmodel;
using namespace tilec::runtime;

namespace {

struct Options {
  std::vector<std::string> inputs;
  std::string out = "profile";
  std::string deviceModel;
  std::string render;
  std::set<std::string> only;
  bool quick = false;
};

const char *kSynopsis =
    "tilec-profile DIR|FILE.analysis.json... [--out DIR] "
    "[--device-model FILE] [--only NAME,...] [--quick]\n"
    "       tilec-profile --render profile.json... [--out DIR] "
    "[--device-model FILE]";

/// An error that is not about the command line.
int fail(const std::string &message) {
  std::fprintf(stderr, "tilec-profile: error: %s\n", message.c_str());
  return 1;
}

Expected<std::string> readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot read '" + path + "'");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Status writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out)
    return Status::error("cannot write '" + path + "'");
  return Status();
}

bool isDirectory(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string dirName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

/// The analysis files of a folder: those workloads.txt lists, in its order,
/// else every *.analysis.json sorted by name.
Expected<std::vector<std::string>> analysesIn(const std::string &dir) {
  std::vector<std::string> files;
  auto index = readText(dir + "/workloads.txt");
  if (index.ok()) {
    std::istringstream lines(*index);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty())
        files.push_back(dir + "/" + line);
    return files;
  }
  DIR *d = opendir(dir.c_str());
  if (!d)
    return Status::error("cannot read folder '" + dir + "'");
  while (dirent *e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() > 14 && name.ends_with(".analysis.json"))
      files.push_back(dir + "/" + name);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  if (files.empty())
    return Status::error("no *.analysis.json in '" + dir +
                         "' (write them with tilec-analyze -o DIR)");
  return files;
}

double nowSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

//===----------------------------------------------------------------------===//
// Measuring
//===----------------------------------------------------------------------===//

class Profiler {
public:
  Profiler(Context ctx, const Options &options)
      : ctx_(std::move(ctx)), options_(options) {
    int l2 = 0;
    if (ctx_.driver().cuDeviceGetAttribute(&l2,
                                           CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
                                           ctx_.device()) == CUDA_SUCCESS &&
        l2 > 0)
      l2Bytes_ = size_t(l2);
  }

  /// Measures every point of `w` (only the first two with --quick).
  void profile(WorkloadProfile &w, const std::string &dir);

private:
  struct Buffer {
    std::string name;
    DType type = DType::F32;
    uint64_t count = 0;
    bool read = false, written = false, covered = false;
    std::vector<DeviceMemory> copies; ///< one per input set
  };

  Status measurePoint(const WorkloadPoint &point, const std::string &dir,
                      PointMeasurement &out, std::vector<Resources> *res);
  Expected<Kernel> kernel(const std::string &dir, const LaunchAnalysis &l);
  Status fill(DeviceMemory &mem, DType type, uint64_t count);
  Status checkWritten(const Buffer &b);

  Context ctx_;
  const Options &options_;
  size_t l2Bytes_ = size_t(50) << 20;
  std::map<std::string, Module> modules_;
  std::map<DType, std::vector<uint8_t>> randomBlocks_;
};

Expected<Kernel> Profiler::kernel(const std::string &dir,
                                  const LaunchAnalysis &l) {
  std::string base = dir + "/" + l.module;
  auto it = modules_.find(base);
  if (it == modules_.end()) {
    std::string binary =
        exists(base + ".cubin") ? base + ".cubin" : base + ".ptx";
    if (!exists(binary))
      return Status::error("no " + base + ".ptx or .cubin (tilec-analyze -o " +
                           dir +
                           " writes it unless the kernel failed to "
                           "compile)");
    auto m = Module::loadFiles(ctx_, binary, base + ".json");
    if (!m.ok())
      return m.status();
    it = modules_.emplace(base, std::move(*m)).first;
  }
  return it->second.kernel(l.kernel);
}

/// Random normal values of `type` (a 4M-element block, copied over the
/// buffer on the device).
Status Profiler::fill(DeviceMemory &mem, DType type, uint64_t count) {
  unsigned bytes = unsigned(dtypeSize(type));
  std::vector<uint8_t> &block = randomBlocks_[type];
  const uint64_t blockCount = uint64_t(1) << 22;
  if (block.empty()) {
    // The GPU tests' generator (SplitMix64, Box-Muller), seeded per type.
    tilec::Rng rng(0x7111ec + unsigned(type));
    block.resize(blockCount * bytes);
    for (uint64_t i = 0; i < blockCount; ++i) {
      double v = rng.normal();
      uint8_t *at = block.data() + i * bytes;
      switch (type) {
      case DType::F32: {
        float f = float(v);
        std::memcpy(at, &f, 4);
        break;
      }
      case DType::F64:
        std::memcpy(at, &v, 8);
        break;
      case DType::F16: {
        Half h = Half::fromFloat(float(v));
        std::memcpy(at, &h.bits, 2);
        break;
      }
      case DType::BF16: {
        BFloat16 h = BFloat16::fromFloat(float(v));
        std::memcpy(at, &h.bits, 2);
        break;
      }
      default: {
        // Integers and fp8: small non-negative values (valid indices).
        int64_t x = int64_t(std::fabs(v) * 4);
        std::memcpy(at, &x, bytes);
      }
      }
    }
  }
  uint64_t total = count * bytes,
           first = std::min<uint64_t>(total, block.size());
  TILEC_RETURN_IF_ERROR(mem.copyFromHost(block.data(), first));
  // Double the filled prefix on the device until the buffer is full.
  const Driver &d = ctx_.driver();
  for (uint64_t done = first; done < total;) {
    uint64_t n = std::min(done, total - done);
    if (CUresult r = d.cuMemcpyDtoD(mem.address() + done, mem.address(), n))
      return d.error("cuMemcpyDtoD", r);
    done += n;
  }
  return Status();
}

Status Profiler::checkWritten(const Buffer &b) {
  unsigned bytes = unsigned(dtypeSize(b.type));
  uint64_t step = std::max<uint64_t>(1, b.count / 257);
  for (uint64_t i = 0; i < b.count; i += step) {
    uint8_t v[8];
    TILEC_RETURN_IF_ERROR(b.copies[0].copyToHost(v, bytes, i * bytes));
    if (std::all_of(v, v + bytes, [](uint8_t c) { return c == 0xff; }))
      return Status::error("element " + std::to_string(i) + " of buffer '" +
                           b.name +
                           "' still holds the poison written before the run: "
                           "the kernel did not write it");
  }
  return Status();
}

Status Profiler::measurePoint(const WorkloadPoint &point,
                              const std::string &dir, PointMeasurement &out,
                              std::vector<Resources> *resources) {
  // Buffers, shared between launches by name.
  std::map<std::string, Buffer> buffers;
  for (const LaunchAnalysis &l : point.launches)
    for (const LaunchArg &a : l.args) {
      if (!a.isBuffer)
        continue;
      auto type = parseDType(a.type);
      if (!type)
        return Status::error("buffer '" + a.buffer + "' has unknown type '" +
                             a.type + "'");
      Buffer &b = buffers[a.buffer];
      if (b.count && (b.count != a.count || b.type != *type))
        return Status::error("buffer '" + a.buffer +
                             "' is used with two sizes or types");
      b.name = a.buffer;
      b.type = *type;
      b.count = a.count;
      for (const BufferTraffic &t : l.counts.buffers)
        if (t.name == a.name) {
          b.read |= t.read();
          b.written |= t.written();
          b.covered |= t.stored >= t.elements;
        }
    }
  uint64_t inputBytes = 0;
  for (auto &[name, b] : buffers)
    if (b.read)
      inputBytes += b.count * dtypeSize(b.type);
  // Copies of the inputs so that repeated runs do not find them in L2.
  size_t sets = inputBytes
                    ? std::clamp<size_t>(
                          (3 * l2Bytes_ + inputBytes - 1) / inputBytes, 1, 8)
                    : 1;
  for (auto &[name, b] : buffers) {
    size_t copies = b.read ? sets : 1;
    for (size_t i = 0; i < copies; ++i) {
      auto mem = DeviceMemory::allocate(ctx_, std::max<uint64_t>(1, b.count) *
                                                  dtypeSize(b.type));
      if (!mem.ok())
        return mem.status().withContext("allocating buffer '" + name + "'");
      if (b.read)
        TILEC_RETURN_IF_ERROR(fill(*mem, b.type, b.count));
      else
        TILEC_RETURN_IF_ERROR(mem->fill8(0xff));
      b.copies.push_back(std::move(*mem));
    }
  }

  // One bound launch per launch and input set.
  std::vector<std::vector<BoundLaunch>> bound(sets);
  std::vector<Grid> grids;
  for (const LaunchAnalysis &l : point.launches) {
    auto k = kernel(dir, l);
    if (!k.ok())
      return k.status();
    if (resources) {
      Resources r;
      int regs = 0, shared = 0;
      const Driver &d = ctx_.driver();
      r.threadsPerProgram = int(k->blockThreads());
      r.dynamicSharedBytes = k->sharedBytes();
      r.source = "cuFuncGetAttribute";
      if (d.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS,
                               k->function()) == CUDA_SUCCESS)
        r.registers = regs;
      if (d.cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                               k->function()) == CUDA_SUCCESS)
        r.staticSharedBytes = shared;
      resources->push_back(r);
    }
    grids.push_back(Grid(l.counts.grid[0], l.counts.grid[1], l.counts.grid[2]));
    for (size_t s = 0; s < sets; ++s) {
      std::vector<ArgValue> values;
      for (const LaunchArg &a : l.args) {
        ArgValue v;
        if (a.isBuffer) {
          const Buffer &b = buffers.at(a.buffer);
          v = pointerArg(b.type, b.copies[b.read ? s : 0].address());
        } else if (a.isFloat) {
          v = makeArg(a.floatValue);
        } else if (a.type == "i1") {
          v = makeArg(a.intValue != 0);
        } else {
          v = makeArg(int64_t(a.intValue));
        }
        values.push_back(v);
      }
      auto b = k->bindArgs(values.data(), values.size());
      if (!b.ok())
        return b.status();
      bound[s].push_back(std::move(*b));
    }
  }

  auto stream = Stream::create(ctx_);
  if (!stream.ok())
    return stream.status();
  auto iteration = [&](size_t set) -> Status {
    const std::vector<BoundLaunch> &ls = bound[set % sets];
    for (size_t i = 0; i < ls.size(); ++i)
      TILEC_RETURN_IF_ERROR(ls[i].launch(*stream, grids[i]));
    return Status();
  };

  // GPU time: an estimate, a warm-up, then event pairs around iterations.
  auto a = Event::create(ctx_), b = Event::create(ctx_);
  if (!a.ok() || !b.ok())
    return (a.ok() ? b.status() : a.status());
  auto timed = [&](size_t set) -> Expected<double> {
    TILEC_RETURN_IF_ERROR(a->record(*stream));
    TILEC_RETURN_IF_ERROR(iteration(set));
    TILEC_RETURN_IF_ERROR(b->record(*stream));
    TILEC_RETURN_IF_ERROR(b->synchronize());
    auto ms = Event::elapsedMs(*a, *b);
    if (!ms.ok())
      return ms.status();
    return double(*ms) * 1e-3;
  };
  double estimate = 0;
  for (int i = 0; i < 3; ++i) {
    auto t = timed(size_t(i));
    if (!t.ok())
      return t.status();
    estimate = i ? std::min(estimate, *t) : *t;
  }
  estimate = std::max(estimate, 1e-6);
  double budget = options_.quick ? 0.02 : 0.05; // seconds of GPU time
  int warm = int(std::clamp(0.3 * budget / estimate, 1.0, 200.0));
  int reps = int(std::clamp(budget / estimate, 5.0, 500.0));
  // Slow kernels (over `budget`) get 5 timed runs and 3 loop iterations.
  for (int i = 0; i < warm; ++i)
    TILEC_RETURN_IF_ERROR(iteration(size_t(i)));
  std::vector<Event> starts, ends;
  for (int i = 0; i < reps; ++i) {
    auto s = Event::create(ctx_), e = Event::create(ctx_);
    if (!s.ok() || !e.ok())
      return s.ok() ? e.status() : s.status();
    starts.push_back(std::move(*s));
    ends.push_back(std::move(*e));
  }
  for (int i = 0; i < reps; ++i) {
    TILEC_RETURN_IF_ERROR(starts[size_t(i)].record(*stream));
    TILEC_RETURN_IF_ERROR(iteration(size_t(i)));
    TILEC_RETURN_IF_ERROR(ends[size_t(i)].record(*stream));
  }
  TILEC_RETURN_IF_ERROR(stream->synchronize());
  std::vector<double> seconds;
  for (int i = 0; i < reps; ++i) {
    auto ms = Event::elapsedMs(starts[size_t(i)], ends[size_t(i)]);
    if (!ms.ok())
      return ms.status();
    seconds.push_back(double(*ms) * 1e-3);
  }
  std::sort(seconds.begin(), seconds.end());
  out.deviceSeconds = seconds[seconds.size() / 2];
  out.reps = reps;

  // Wall time per iteration of a plain loop, as the seed article times it.
  int loops = int(std::clamp(budget / std::max(estimate, 5e-6), 3.0, 2000.0));
  for (int i = 0; i < std::min(loops, 10); ++i)
    TILEC_RETURN_IF_ERROR(iteration(size_t(i)));
  TILEC_RETURN_IF_ERROR(stream->synchronize());
  double t0 = nowSeconds();
  for (int i = 0; i < loops; ++i)
    TILEC_RETURN_IF_ERROR(iteration(size_t(i)));
  TILEC_RETURN_IF_ERROR(stream->synchronize());
  out.wallSeconds = (nowSeconds() - t0) / loops;

  // A kernel that writes nothing must not post a time.
  for (auto &[name, b] : buffers)
    if (b.written && !b.read && b.covered)
      TILEC_RETURN_IF_ERROR(checkWritten(b));
  return Status();
}

void Profiler::profile(WorkloadProfile &w, const std::string &dir) {
  size_t points = w.analysis.points.size();
  if (options_.quick)
    points = std::min<size_t>(points, 2);
  for (size_t i = 0; i < points; ++i) {
    PointMeasurement m;
    Status s = measurePoint(w.analysis.points[i], dir, m,
                            i == 0 ? &w.resources : nullptr);
    if (!s.ok()) {
      std::string where;
      for (const auto &[name, value] : w.analysis.points[i].vars)
        where +=
            (where.empty() ? "" : " ") + name + "=" + std::to_string(value);
      w.error = (where.empty() ? "" : "at " + where + ": ") + s.message();
      if (i == 0)
        w.measured.clear();
      return;
    }
    w.measured.push_back(m);
    std::fprintf(stderr, "  %-34s point %zu: %s GPU, %s wall per iteration\n",
                 w.analysis.name.c_str(), i,
                 formatSeconds(m.deviceSeconds).c_str(),
                 formatSeconds(m.wallSeconds).c_str());
  }
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

Status writeOutputs(const ProfileRun &run, const std::string &out,
                    bool writeProfile) {
  std::string error;
  if (!tilec::support::createFolders(out, error))
    return Status::error(error);
  if (writeProfile)
    TILEC_RETURN_IF_ERROR(writeFile(out + "/profile.json", profileJson(run)));
  std::string report = profileReport(run);
  std::fputs(report.c_str(), stdout);
  TILEC_RETURN_IF_ERROR(writeFile(out + "/report.txt", report));
  TILEC_RETURN_IF_ERROR(writeFile(out + "/roofline.svg", rooflineSvg(run)));
  for (const WorkloadProfile &w : run.workloads)
    if (w.analysis.points.size() >= 3)
      TILEC_RETURN_IF_ERROR(
          writeFile(out + "/sweep-" + workloadSlug(w.analysis.name) + ".svg",
                    sweepSvg(w, run.model)));
  return Status();
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  tilec::cli::CommandLine cl(
      "tilec-profile", kSynopsis,
      "Measures analysed workloads on the GPU and says which "
      "bound each is under (docs/analyzer.md).");
  CLI::App &app = cl.app();
  std::string only;
  app.add_option("inputs", options.inputs,
                 "folders from tilec-analyze -o, *.analysis.json files, or "
                 "with --render more profile.json files");
  app.add_option("-o,--out", options.out, "the output folder")
      ->default_str(options.out);
  app.add_option("--device-model", options.deviceModel,
                 "a device model JSON file for the verdicts");
  app.add_option("--render", options.render,
                 "draw the report and charts of a profile.json again");
  app.add_option("--only", only, "the workloads to measure, by name");
  app.add_flag("--quick", options.quick,
               "measure only the first two points of each workload");
  if (int status = cl.parse(argc, argv); status >= 0)
    return status;
  std::stringstream onlyList(only);
  for (std::string name; std::getline(onlyList, name, ',');)
    options.only.insert(name);

  std::optional<DeviceModel> model;
  if (!options.deviceModel.empty()) {
    auto m = loadDeviceModel(options.deviceModel);
    if (!m.ok())
      return fail(m.message());
    model = *m;
  }

  if (!options.render.empty()) {
    // Several profiles (one process per workload) merge into one run, in
    // the order given; the first names the device.
    std::vector<std::string> files = {options.render};
    for (const std::string &input : options.inputs) {
      if (!input.ends_with("profile.json"))
        return cl.usageError("--render takes profile.json files, not '" +
                             input + "'");
      files.push_back(input);
    }
    std::optional<ProfileRun> run;
    for (const std::string &file : files) {
      auto text = readText(file);
      if (!text.ok())
        return fail(text.message());
      auto one = parseProfileJson(*text, file);
      if (!one.ok())
        return fail(one.message());
      if (!run)
        run = std::move(*one);
      else
        for (WorkloadProfile &w : one->workloads)
          run->workloads.push_back(std::move(w));
    }
    if (model)
      run->model = *model;
    // A merged run is a new profile; a single one is only redrawn.
    Status s = writeOutputs(*run, options.out, files.size() > 1);
    if (!s.ok())
      return fail(s.message());
    return 0;
  }

  if (options.inputs.empty())
    return cl.usageError("no analyses given (a folder from tilec-analyze -o, "
                         "or *.analysis.json files)");
  // Read everything first: a typo fails before the GPU is touched.
  std::vector<std::pair<WorkloadAnalysis, std::string>> analyses;
  for (const std::string &input : options.inputs) {
    std::vector<std::string> files = {input};
    if (isDirectory(input)) {
      auto found = analysesIn(input);
      if (!found.ok())
        return fail(found.message());
      files = *found;
    }
    for (const std::string &file : files) {
      auto text = readText(file);
      if (!text.ok())
        return fail(text.message());
      auto a = parseAnalysisJson(*text, file);
      if (!a.ok())
        return fail(a.message());
      if (!options.only.empty() && !options.only.count(a->name))
        continue;
      options.only.erase(a->name);
      analyses.push_back({std::move(*a), dirName(file)});
    }
  }
  if (!options.only.empty() && analyses.size() < options.only.size())
    return fail("no workload named '" + *options.only.begin() + "'");
  if (analyses.empty())
    return fail("no workloads to profile");
  // The output folder before the measurements, so that a path that cannot
  // be written fails before the GPU is touched.
  if (std::string error; !tilec::support::createFolders(options.out, error))
    return fail(error);

  auto ctx = Context::create(0);
  if (!ctx.ok())
    return fail(ctx.message());
  ProfileRun run;
  run.device = ctx->deviceName() + " (" + ctx->arch() + ")";
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  run.date = date;
  run.model = model ? *model : analyses.front().first.device;
  Profiler profiler(*ctx, options);
  std::fprintf(stderr, "tilec-profile: %zu workloads on %s\n", analyses.size(),
               run.device.c_str());
  bool failed = false;
  for (auto &[analysis, dir] : analyses) {
    WorkloadProfile w;
    w.analysis = std::move(analysis);
    profiler.profile(w, dir);
    if (!w.error.empty()) {
      std::fprintf(stderr, "tilec-profile: %s: %s\n", w.analysis.name.c_str(),
                   w.error.c_str());
      failed = true;
    }
    run.workloads.push_back(std::move(w));
  }
  Status s = writeOutputs(run, options.out, /*writeProfile=*/true);
  if (!s.ok())
    return fail(s.message());
  return failed ? 1 : 0;
}
