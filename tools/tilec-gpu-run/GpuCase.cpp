//===- GpuCase.cpp - one differential case of tilec-gpu-run ---------------===//
//
// Every buffer is allocated with a guard of poison before and after it
// (unless the case asks for none, for compute-sanitizer, which then sees
// any access out of bounds), and outputs start as poison (0xff bytes, as in
// tilec-run), so an element the kernel never writes shows. After the run:
// guards must be intact, inputs without expect= unchanged, expect= buffers
// within tolerance. Everything that can be checked without a GPU (metadata,
// specs, files, scalars, descriptors) is checked before the context is
// asked for.
//
//===----------------------------------------------------------------------===//

#include "GpuCase.h"

#include "tilec/Runtime/HostArgValues.h"
#include "tilec/Support/HostArgs.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <unistd.h>

using namespace tilec;
using namespace tilec::runtime;

namespace tilec::gpurun {

namespace {

/// Bytes of poison before and after each buffer: a multiple of 256 keeps
/// the buffer as aligned as cuMemAlloc's own allocations.
constexpr size_t kGuardBytes = 4096;

/// Appends printf-style text to `out`.
[[gnu::format(printf, 2, 3)]] void appendf(std::string &out, const char *fmt,
                                           ...) {
  va_list args, copy;
  va_start(args, fmt);
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  if (n > 0) {
    size_t at = out.size();
    out.resize(at + size_t(n) + 1);
    std::vsnprintf(out.data() + at, size_t(n) + 1, fmt, args);
    out.resize(at + size_t(n));
  }
  va_end(args);
}

/// The metadata's default path: the binary's, with .json for its extension.
std::string defaultMetadataPath(const std::string &binary) {
  size_t slash = binary.find_last_of('/');
  size_t dot = binary.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return binary + ".json";
  return binary.substr(0, dot) + ".json";
}

/// The kernel to run: the case's --kernel, else the metadata's only kernel.
Expected<const KernelMetadata *> findKernel(const ModuleMetadata &module,
                                            const CaseOptions &o,
                                            const std::string &path) {
  if (!o.kernel.empty()) {
    if (const KernelMetadata *k = module.find(o.kernel))
      return k;
    return Status::error("no kernel '" + o.kernel + "' in '" + path +
                         "' (its kernels: " + module.kernelNames() + ")");
  }
  if (module.kernels.size() != 1)
    return Status::error("'" + path + "' has " +
                         std::to_string(module.kernels.size()) +
                         " kernels; choose one with --kernel");
  return &module.kernels.front();
}

/// What a buffer argument needs beside its HostArg: its contents before the
/// run, its reference, and its allocation (the buffer between two guards).
struct Buffer {
  std::vector<uint8_t> initial;
  std::vector<uint8_t> expected;
  DeviceMemory memory;
  size_t guard = 0; ///< bytes of guard on each side
};

/// Checks descriptor arguments before the GPU, as the runtime will.
struct CheckOnlyEncoder final : TensorMapEncoder {
  Status encode(const KernelMetadata &kernel, size_t index,
                const TensorDescArg &arg, TensorMapBytes &) override {
    TensorMapRequest r;
    return checkTensorDesc(kernel, index, arg, r);
  }
};

/// Bytes of `bytes` that are not poison, and the first one's index.
size_t countTouched(const uint8_t *bytes, size_t n, size_t &first) {
  size_t touched = 0;
  for (size_t i = 0; i < n; ++i)
    if (bytes[i] != kPoisonByte && !touched++)
      first = i;
  return touched;
}

std::string format(const char *fmt, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, value);
  return buffer;
}

/// Checks one buffer after the run, appending what it found to `report`;
/// true if it passed. `got` is the whole allocation (guards included).
bool checkBuffer(const HostArg &h, const Buffer &a,
                 const std::vector<uint8_t> &got, const CaseOptions &o,
                 std::string &report, std::string &summary) {
  size_t bytes = h.data.size(), size = dtypeSize(h.dtype);
  std::string name = "%" + h.name;
  bool ok = true;
  auto note = [&](const std::string &what) {
    summary += (summary.empty() ? "" : "; ") + name + " " + what;
  };
  size_t first = 0;
  if (size_t n = countTouched(got.data(), a.guard, first)) {
    appendf(report,
            "%s: the kernel wrote %zu bytes before the buffer (from "
            "%zu bytes before its start)\n",
            name.c_str(), n, a.guard - first);
    note("written out of bounds");
    ok = false;
  }
  if (size_t n = countTouched(got.data() + a.guard + bytes, a.guard, first)) {
    appendf(report,
            "%s: the kernel wrote %zu bytes past the end of the buffer "
            "(the first at element %zu)\n",
            name.c_str(), n, h.count() + first / size);
    note("written out of bounds");
    ok = false;
  }
  std::span<const uint8_t> result(got.data() + a.guard, bytes);
  if (h.expectPath.empty()) {
    if (h.isOutput)
      return ok;
    // An input the kernel is not expected to write must be as it was.
    Comparison c = compareElements(h.dtype, result, a.initial, 0, 0, 1);
    if (!c.ok()) {
      size_t i = c.firstMismatches.front();
      appendf(report,
              "%s: the kernel changed %zu of %zu elements of this input "
              "(the first is [%zu]: %s, was %s); give it expect= if the "
              "kernel writes it\n",
              name.c_str(), c.mismatches, c.count, i,
              formatElement(result.data() + i * size, h.dtype).c_str(),
              formatElement(a.initial.data() + i * size, h.dtype).c_str());
      note("changed");
      ok = false;
    }
    return ok;
  }
  auto [atol, rtol] = defaultTolerance(h.dtype);
  Comparison c =
      compareElements(h.dtype, result, a.expected, h.atol.value_or(atol),
                      h.rtol.value_or(rtol), o.maxReport);
  std::string errors = "max abs err " + format("%.3g", c.maxAbsError) +
                       " at [" + std::to_string(c.maxAbsErrorAt) +
                       "], norm rel err " + format("%.3g", c.normRelError);
  std::string tolerance =
      "atol " + format("%g", c.atol) + ", rtol " + format("%g", c.rtol);
  note(c.ok() ? errors
              : std::to_string(c.mismatches) + " of " +
                    std::to_string(c.count) + " differ, " + errors);
  if (c.ok()) {
    appendf(report, "%s: %zu elements match '%s' (%s; %s)\n", name.c_str(),
            c.count, h.expectPath.c_str(), errors.c_str(), tolerance.c_str());
    return ok;
  }
  appendf(report, "%s: %zu of %zu elements differ from '%s' (%s; %s)",
          name.c_str(), c.mismatches, c.count, h.expectPath.c_str(),
          tolerance.c_str(), errors.c_str());
  if (c.unwritten)
    appendf(report, "; %zu of them never written (still poison)", c.unwritten);
  report += "\n";
  for (size_t i : c.firstMismatches)
    appendf(report, "  %s[%zu] = %s, expected %s\n", name.c_str(), i,
            formatElement(result.data() + i * size, h.dtype).c_str(),
            formatElement(a.expected.data() + i * size, h.dtype).c_str());
  if (c.mismatches > c.firstMismatches.size())
    appendf(report, "  ... and %zu more\n",
            c.mismatches - c.firstMismatches.size());
  return false;
}

/// Sends this process's stdout to a temporary file while it lives, for
/// what a kernel prints (the driver writes tile.print's lines to stdout at
/// the synchronization); take() restores stdout and returns the text.
class StdoutCapture {
public:
  Status begin() {
    std::fflush(stdout);
    file_ = std::tmpfile();
    if (!file_)
      return Status::error(std::string("cannot capture the kernel's output: ") +
                           std::strerror(errno));
    saved_ = ::dup(STDOUT_FILENO);
    if (saved_ < 0 || ::dup2(::fileno(file_), STDOUT_FILENO) < 0)
      return Status::error(std::string("cannot capture the kernel's output: ") +
                           std::strerror(errno));
    return Status();
  }
  std::string take() {
    std::string text;
    if (saved_ < 0)
      return text;
    std::fflush(stdout);
    ::dup2(saved_, STDOUT_FILENO);
    ::close(saved_);
    saved_ = -1;
    std::rewind(file_);
    char buffer[4096];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, file_))
      text.append(buffer, n);
    return text;
  }
  ~StdoutCapture() {
    take();
    if (file_)
      std::fclose(file_);
  }

private:
  std::FILE *file_ = nullptr;
  int saved_ = -1;
};

bool parseCount(const std::string &text, int64_t &value) {
  if (text.empty() || text.size() > 18)
    return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    value = value * 10 + (c - '0');
  }
  return true;
}

CaseResult failed(std::string message, bool touchedDevice = false) {
  CaseResult r;
  r.outcome = Outcome::Failed;
  r.error = std::move(message);
  r.touchedDevice = touchedDevice;
  return r;
}

} // namespace

void addCaseOptions(CLI::App &app, CaseOptions &o, CaseOptionText &text) {
  app.add_option("kernel-file", o.binary, "the compiled kernels");
  app.add_option("--metadata", o.metadata,
                 "the kernels' metadata (default: KERNEL with .json)");
  app.add_option("--kernel", o.kernel,
                 "the kernel to run (default: the only one)");
  app.add_option("--grid", text.grid, "programs along x, y, z");
  app.add_option("--arg", o.specs, "one parameter's value or buffer spec")
      ->allow_extra_args(false);
  app.add_option("--device", text.device, "the CUDA device (default 0)");
  app.add_flag("--no-guard", text.noGuard,
               "allocate buffers exactly (for compute-sanitizer)");
  app.add_option("--max-report", text.maxReport,
                 "mismatching elements listed per buffer (default 10)");
}

std::string finishCaseOptions(const CLI::App &app, const CaseOptionText &text,
                              CaseOptions &o) {
  if (app.count("kernel-file") == 0)
    return "kernel-file is required";
  if (app.count("--grid") == 0)
    return "--grid is required";
  o.guard = !text.noGuard;
  int64_t dims[3];
  if (!parseGridText(text.grid, dims))
    return "--grid expects X[,Y[,Z]] (integers), got '" + text.grid + "'";
  o.grid = Grid(dims[0], dims[1], dims[2]);
  int64_t number = 0;
  if (!text.device.empty()) {
    if (!parseCount(text.device, number) || number > 1024)
      return "--device expects a device number, got '" + text.device + "'";
    o.device = int(number);
  }
  if (!text.maxReport.empty()) {
    if (!parseCount(text.maxReport, number))
      return "--max-report expects a count, got '" + text.maxReport + "'";
    o.maxReport = size_t(number);
  }
  return "";
}

std::string parseCaseCommand(const std::vector<std::string> &words,
                             CaseOptions &o) {
  CLI::App app;
  CaseOptionText text;
  addCaseOptions(app, o, text);
  app.allow_extras();
  // CLI11 takes the arguments last first.
  std::vector<std::string> args(words.rbegin(), words.rend());
  try {
    app.parse(args);
  } catch (const CLI::ParseError &e) {
    return e.what();
  }
  std::vector<std::string> extra = app.remaining();
  if (!extra.empty()) {
    const std::string &first = extra.front();
    if (first.size() > 1 && first[0] == '-')
      return "unknown option '" + first + "'";
    return "unexpected argument '" + first + "'";
  }
  return finishCaseOptions(app, text, o);
}

CaseResult runCase(const CaseOptions &o, const ContextSource &contextSource,
                   bool captureKernelOutput) {
  // Host side first: everything that needs no GPU.
  std::string metadataPath =
      o.metadata.empty() ? defaultMetadataPath(o.binary) : o.metadata;
  Expected<std::string> json = readFile(metadataPath);
  if (!json.ok())
    return failed(json.message());
  Expected<ModuleMetadata> module = parseMetadata(*json);
  if (!module.ok())
    return failed(metadataPath + ": " + module.message());
  Expected<const KernelMetadata *> found = findKernel(*module, o, metadataPath);
  if (!found.ok())
    return failed(found.message());
  const KernelMetadata &kernel = **found;
  if (Status s = checkGrid(kernel, o.grid); !s.ok())
    return failed(s.message());
  size_t n = kernel.params.size();
  if (o.specs.size() != n)
    return failed("kernel '" + kernel.name + "' takes " + std::to_string(n) +
                  " argument" + (n == 1 ? "" : "s") + " (" +
                  kernel.signature() + ") but " +
                  std::to_string(o.specs.size()) + " --arg " +
                  (o.specs.size() == 1 ? "was" : "were") + " given");

  std::vector<HostArg> hosts(n);
  std::vector<Buffer> buffers(n);
  std::vector<TensorDescArg> descArgs(n); // alive until the launch returns
  for (size_t i = 0; i < n; ++i) {
    Expected<HostArg> arg = parseHostArgFor(o.specs[i], kernel.params[i]);
    if (!arg.ok())
      return failed(arg.message());
    hosts[i] = std::move(*arg);
    if (!hosts[i].expectPath.empty()) {
      Expected<std::vector<uint8_t>> want = readExpected(hosts[i]);
      if (!want.ok())
        return failed(want.message());
      buffers[i].expected = std::move(*want);
    }
    buffers[i].initial = hosts[i].data;
    buffers[i].guard = o.guard ? kGuardBytes : 0;
  }
  // The scalars against their parameters (range, divisibility), with
  // stand-in addresses for the buffers: refused here, the launch would be.
  // Descriptors are checked too (as the runtime will, before encoding), and
  // their tensor must lie within the buffer.
  {
    std::vector<ArgValue> values;
    for (size_t i = 0; i < n; ++i)
      values.push_back(hostArgValue(hosts[i], kernel.params[i], (i + 1) << 20,
                                descArgs[i]));
    std::vector<uint64_t> slots(n);
    std::vector<void *> pointers(n);
    CheckOnlyEncoder checker;
    std::vector<TensorMapBytes> maps(kernel.tensorDescCount());
    TensorMapSlots mapSlots{&checker, maps.data()};
    if (Status s = packArgs(kernel, values.data(), n, slots.data(),
                            pointers.data(), &mapSlots);
        !s.ok())
      return failed(s.message());
    for (size_t i = 0; i < n; ++i)
      if (kernel.params[i].kind == ParamInfo::Kind::TensorDesc &&
          tensorSpan(descArgs[i]) > hosts[i].count())
        return failed("argument %" + kernel.params[i].name + " ('" +
                      o.specs[i] + "'): the tensor reaches element " +
                      std::to_string(tensorSpan(descArgs[i]) - 1) +
                      " but the buffer has " +
                      std::to_string(hosts[i].count()) + " elements");
  }
  if (Status s = saveHostInputs(hosts); !s.ok())
    return failed(s.message());

  // The GPU.
  Expected<const Context *> context = contextSource();
  if (!context.ok())
    return failed(context.message());
  const Context &ctx = **context;
  Expected<Module> loaded = Module::loadFiles(ctx, o.binary, metadataPath);
  if (!loaded.ok())
    return failed(loaded.message(), true);
  Expected<Kernel> k = loaded->kernel(kernel.name);
  if (!k.ok())
    return failed(k.message(), true);
  for (size_t i = 0; i < n; ++i) {
    const HostArg &h = hosts[i];
    Buffer &a = buffers[i];
    if (!h.isBuffer)
      continue;
    size_t bytes = h.data.size();
    // At least one byte: an empty buffer still needs an address.
    Expected<DeviceMemory> memory =
        DeviceMemory::allocate(ctx, std::max<size_t>(2 * a.guard + bytes, 1));
    if (!memory.ok())
      return failed("%" + h.name + ": " + memory.message(), true);
    a.memory = std::move(*memory);
    Status s = a.memory.fill8(kPoisonByte);
    if (s.ok() && !h.isOutput && bytes)
      s = a.memory.copyFromHost(h.data.data(), bytes, a.guard);
    if (!s.ok())
      return failed("%" + h.name + ": " + s.message(), true);
  }
  std::vector<ArgValue> values;
  for (size_t i = 0; i < n; ++i)
    values.push_back(hostArgValue(hosts[i], kernel.params[i],
                              buffers[i].memory.address() + buffers[i].guard,
                              descArgs[i]));
  CaseResult result;
  Status launched;
  {
    StdoutCapture capture;
    if (captureKernelOutput)
      if (Status s = capture.begin(); !s.ok())
        return failed(s.message(), true);
    launched = k->launchArgs(nullptr, o.grid, values.data(), n);
    if (launched.ok())
      launched = ctx.synchronize();
    result.kernelOutput = capture.take();
  }
  if (!launched.ok()) {
    result.outcome = Outcome::Crashed;
    result.touchedDevice = true;
    result.error =
        "running kernel '" + kernel.name + "': " + launched.message();
    return result;
  }

  // Results.
  bool ok = true;
  std::string summary;
  for (size_t i = 0; i < n; ++i) {
    HostArg &h = hosts[i];
    const Buffer &a = buffers[i];
    if (!h.isBuffer)
      continue;
    std::vector<uint8_t> got(a.memory.bytes());
    if (Status s = a.memory.copyToHost(got.data(), got.size()); !s.ok())
      return failed("%" + h.name + ": " + s.message(), true);
    std::copy(got.begin() + a.guard, got.begin() + a.guard + h.data.size(),
              h.data.begin());
    ok &= checkBuffer(h, a, got, o, result.report, summary);
  }
  std::string printed;
  Status written = writeHostOutputs(hosts, printed);
  result.report += printed;
  if (!written.ok()) {
    CaseResult r = failed(written.message(), true);
    r.report = std::move(result.report);
    return r;
  }
  char grid[96];
  std::snprintf(grid, sizeof grid, "grid (%lld, %lld, %lld)",
                (long long)o.grid.x, (long long)o.grid.y, (long long)o.grid.z);
  result.summary = "kernel " + kernel.name + ", " + grid +
                   (summary.empty() ? "" : ": ") + summary;
  result.outcome = ok ? Outcome::Passed : Outcome::Differs;
  return result;
}

} // namespace tilec::gpurun
