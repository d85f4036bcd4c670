//===- tilec-gpu-run.cpp - run a compiled kernel on the GPU and check it --===//
//
//   tilec-gpu-run k.ptx [--metadata k.json] [--kernel NAME] --grid X[,Y[,Z]]
//       --arg SPEC... [--device N] [--no-guard] [--max-report N]
//
// The GPU half of differential testing: tilec-run runs a kernel in the CPU
// interpreter and writes its inputs (save=) and results (out=); this runs
// the compiled kernel on the same inputs through the runtime (a checked
// launch, typed by the metadata) and compares (expect=) with the
// interpreter's results. Specs are tilec-run's (lib/Support/HostArgs.cpp).
//
// Every buffer is allocated with a guard of poison before and after it
// (unless --no-guard, for compute-sanitizer, which then sees any access out
// of bounds), and outputs start as poison (0xff bytes, as in tilec-run), so
// an element the kernel never writes shows. After the run: guards must be
// intact, inputs without expect= unchanged, expect= buffers within
// tolerance. Everything that can be checked without a GPU (options,
// metadata, specs, files, scalars, descriptors) is checked before the driver
// is loaded. A tensor descriptor parameter takes a buffer spec with
// shape=200x64[,strides=80x1]; the runtime encodes its map over the buffer.
//
// Exit status: 0 if every check passed, 1 if a result differs, 2 if the run
// could not be made (bad input, no driver, a refused or failed launch).
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Runtime.h"
#include "tilec/Support/CommandLine.h"
#include "tilec/Support/HostArgs.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace tilec;
using namespace tilec::runtime;

namespace {

const char *kSynopsis =
    "tilec-gpu-run KERNEL.ptx|KERNEL.cubin [--metadata FILE.json]\n"
    "         [--kernel NAME] --grid X[,Y[,Z]] --arg SPEC... [--device N]\n"
    "         [--no-guard] [--max-report N]";
const char *kDescription =
    "Runs one kernel on the GPU with one --arg per parameter, in order:\n"
    "a scalar value, or a buffer spec as tilec-run takes them (n=, in=,\n"
    "rand=, min=, max=, fill=, iota, save=, out=, print, expect=, atol=,\n"
    "rtol=), and checks every buffer given expect= against its file.\n"
    "A tensor descriptor parameter takes a buffer spec plus shape=D0xD1..\n"
    "and optionally strides=S0xS1.. (elements, outermost first; default\n"
    "contiguous; n= defaults to the elements the shape spans).\n"
    "Exit status: 0 passed, 1 results differ, 2 the run failed.";

/// Bytes of poison before and after each buffer: a multiple of 256 keeps
/// the buffer as aligned as cuMemAlloc's own allocations.
constexpr size_t kGuardBytes = 4096;

struct Options {
  std::string binary, metadata, kernel;
  Grid grid;
  std::vector<std::string> specs;
  int device = 0;
  bool guard = true;
  size_t maxReport = 10;
};

int fail(const std::string &message) {
  std::fprintf(stderr, "tilec-gpu-run: error: %s\n", message.c_str());
  return 2;
}

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

/// Parses X[,Y[,Z]].
bool parseGrid(const std::string &text, Grid &grid) {
  int64_t *dims[] = {&grid.x, &grid.y, &grid.z};
  size_t start = 0;
  for (int i = 0;; ++i) {
    if (i == 3)
      return false;
    size_t comma = text.find(',', start);
    if (!parseCount(text.substr(start, comma - start), *dims[i]))
      return false;
    if (comma == std::string::npos)
      return true;
    start = comma + 1;
  }
}

/// Parses the command line into `o`: -1 to go on, else the exit status.
int parseOptions(int argc, char **argv, Options &o) {
  tilec::cli::CommandLine cl("tilec-gpu-run", kSynopsis, kDescription);
  CLI::App &app = cl.app();
  std::string grid, device, maxReport;
  bool noGuard = false;
  app.add_option("kernel-file", o.binary, "the compiled kernels")->required();
  app.add_option("--metadata", o.metadata,
                 "the kernels' metadata (default: KERNEL with .json)");
  app.add_option("--kernel", o.kernel,
                 "the kernel to run (default: the only one)");
  app.add_option("--grid", grid, "programs along x, y, z")->required();
  app.add_option("--arg", o.specs, "one parameter's value or buffer spec")
      ->allow_extra_args(false);
  app.add_option("--device", device, "the CUDA device (default 0)");
  app.add_flag("--no-guard", noGuard,
               "allocate buffers exactly (for compute-sanitizer)");
  app.add_option("--max-report", maxReport,
                 "mismatching elements listed per buffer (default 10)");
  if (int status = cl.parse(argc, argv); status >= 0)
    return status;
  o.guard = !noGuard;
  if (!parseGrid(grid, o.grid))
    return cl.usageError("--grid expects X[,Y[,Z]] (integers), got '" + grid +
                         "'");
  int64_t number = 0;
  if (!device.empty()) {
    if (!parseCount(device, number) || number > 1024)
      return cl.usageError("--device expects a device number, got '" + device +
                           "'");
    o.device = int(number);
  }
  if (!maxReport.empty()) {
    if (!parseCount(maxReport, number))
      return cl.usageError("--max-report expects a count, got '" + maxReport +
                           "'");
    o.maxReport = size_t(number);
  }
  return -1;
}

/// The metadata's default path: the binary's, with .json for its extension.
std::string defaultMetadataPath(const std::string &binary) {
  size_t slash = binary.find_last_of('/');
  size_t dot = binary.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return binary + ".json";
  return binary.substr(0, dot) + ".json";
}

/// The kernel to run: --kernel, else the metadata's only kernel.
Expected<const KernelMetadata *> findKernel(const ModuleMetadata &module,
                                            const Options &o,
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

/// The elements a descriptor's tensor reaches, past the last one.
uint64_t spanOf(const TensorDescArg &d) {
  uint64_t span = 1;
  for (int i = 0; i < d.rank && i < kMaxTensorRank; ++i)
    span += uint64_t(d.shape[i] - 1) * uint64_t(d.strides[i]);
  return span;
}

/// Checks descriptor arguments before the GPU, as the runtime will.
struct CheckOnlyEncoder final : TensorMapEncoder {
  Status encode(const KernelMetadata &kernel, size_t index,
                const TensorDescArg &arg, TensorMapBytes &) override {
    TensorMapRequest r;
    return checkTensorDesc(kernel, index, arg, r);
  }
};

/// The ArgValue of an argument for a launch: its buffer's device address
/// (`address`), or its scalar (integers as int64 and floats as double; the
/// runtime checks that they fit the parameter and rounds floats to it).
ArgValue argValue(const HostArg &h, const ParamInfo &param, uint64_t address,
                  const TensorDescSpec &desc, TensorDescArg &descArg) {
  if (param.kind == ParamInfo::Kind::TensorDesc) {
    descArg =
        tensorDesc(pointerArg(param.type, address), desc.shape, desc.strides);
    return makeArg(descArg);
  }
  if (h.isBuffer)
    return pointerArg(param.type, address);
  if (isFloat(h.dtype))
    return makeArg(h.floatValue);
  if (h.dtype == DType::I1)
    return makeArg(h.intValue != 0);
  return makeArg(int64_t(h.intValue));
}

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

/// Checks one buffer after the run and prints what it found; true if it
/// passed. `got` is the whole allocation (guards included).
bool checkBuffer(const HostArg &h, const Buffer &a,
                 const std::vector<uint8_t> &got, const Options &o,
                 std::string &summary) {
  size_t bytes = h.data.size(), size = dtypeSize(h.dtype);
  std::string name = "%" + h.name;
  bool ok = true;
  auto note = [&](const std::string &what) {
    summary += (summary.empty() ? "" : "; ") + name + " " + what;
  };
  size_t first = 0;
  if (size_t n = countTouched(got.data(), a.guard, first)) {
    std::printf("%s: the kernel wrote %zu bytes before the buffer (from "
                "%zu bytes before its start)\n",
                name.c_str(), n, a.guard - first);
    note("written out of bounds");
    ok = false;
  }
  if (size_t n = countTouched(got.data() + a.guard + bytes, a.guard, first)) {
    std::printf("%s: the kernel wrote %zu bytes past the end of the buffer "
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
      std::printf("%s: the kernel changed %zu of %zu elements of this input "
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
    std::printf("%s: %zu elements match '%s' (%s; %s)\n", name.c_str(), c.count,
                h.expectPath.c_str(), errors.c_str(), tolerance.c_str());
    return ok;
  }
  std::printf("%s: %zu of %zu elements differ from '%s' (%s; %s)", name.c_str(),
              c.mismatches, c.count, h.expectPath.c_str(), tolerance.c_str(),
              errors.c_str());
  if (c.unwritten)
    std::printf("; %zu of them never written (still poison)", c.unwritten);
  std::printf("\n");
  for (size_t i : c.firstMismatches)
    std::printf("  %s[%zu] = %s, expected %s\n", name.c_str(), i,
                formatElement(result.data() + i * size, h.dtype).c_str(),
                formatElement(a.expected.data() + i * size, h.dtype).c_str());
  if (c.mismatches > c.firstMismatches.size())
    std::printf("  ... and %zu more\n",
                c.mismatches - c.firstMismatches.size());
  return false;
}

int run(const Options &o) {
  // Host side first: everything that needs no GPU.
  std::string metadataPath =
      o.metadata.empty() ? defaultMetadataPath(o.binary) : o.metadata;
  Expected<std::string> json = readFile(metadataPath);
  if (!json.ok())
    return fail(json.message());
  Expected<ModuleMetadata> module = parseMetadata(*json);
  if (!module.ok())
    return fail(metadataPath + ": " + module.message());
  Expected<const KernelMetadata *> found = findKernel(*module, o, metadataPath);
  if (!found.ok())
    return fail(found.message());
  const KernelMetadata &kernel = **found;
  if (Status s = checkGrid(kernel, o.grid); !s.ok())
    return fail(s.message());
  size_t n = kernel.params.size();
  if (o.specs.size() != n)
    return fail("kernel '" + kernel.name + "' takes " + std::to_string(n) +
                " argument" + (n == 1 ? "" : "s") + " (" + kernel.signature() +
                ") but " + std::to_string(o.specs.size()) + " --arg " +
                (o.specs.size() == 1 ? "was" : "were") + " given");

  std::vector<HostArg> hosts(n);
  std::vector<Buffer> buffers(n);
  std::vector<TensorDescSpec> descs(n);
  std::vector<TensorDescArg> descArgs(n); // alive until the launch returns
  for (size_t i = 0; i < n; ++i) {
    const ParamInfo &p = kernel.params[i];
    HostParam param;
    param.name = p.name;
    param.isPointer = p.kind != ParamInfo::Kind::Scalar;
    param.dtype = p.type;
    std::string spec = o.specs[i];
    if (p.kind == ParamInfo::Kind::TensorDesc) {
      spec.clear();
      std::string e = splitTensorDescSpec(o.specs[i], p.name, spec, descs[i]);
      if (!e.empty())
        return fail(e);
    }
    Expected<HostArg> arg = parseHostArg(spec, param);
    if (!arg.ok()) {
      // Quote the spec as the user wrote it, not its buffer part.
      std::string message = arg.message(), quoted = "('" + spec + "')";
      if (size_t at = message.find(quoted); at != std::string::npos)
        message.replace(at, quoted.size(), "('" + o.specs[i] + "')");
      return fail(message);
    }
    hosts[i] = std::move(*arg);
    if (!hosts[i].expectPath.empty()) {
      Expected<std::vector<uint8_t>> want = readExpected(hosts[i]);
      if (!want.ok())
        return fail(want.message());
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
      values.push_back(argValue(hosts[i], kernel.params[i], (i + 1) << 20,
                                descs[i], descArgs[i]));
    std::vector<uint64_t> slots(n);
    std::vector<void *> pointers(n);
    CheckOnlyEncoder checker;
    std::vector<TensorMapBytes> maps(kernel.tensorDescCount());
    TensorMapSlots mapSlots{&checker, maps.data()};
    if (Status s = packArgs(kernel, values.data(), n, slots.data(),
                            pointers.data(), &mapSlots);
        !s.ok())
      return fail(s.message());
    for (size_t i = 0; i < n; ++i)
      if (kernel.params[i].kind == ParamInfo::Kind::TensorDesc &&
          spanOf(descArgs[i]) > hosts[i].count())
        return fail("argument %" + kernel.params[i].name + " ('" + o.specs[i] +
                    "'): the tensor reaches element " +
                    std::to_string(spanOf(descArgs[i]) - 1) +
                    " but the buffer has " + std::to_string(hosts[i].count()) +
                    " elements");
  }
  if (Status s = saveHostInputs(hosts); !s.ok())
    return fail(s.message());

  // The GPU.
  Expected<Context> ctx = Context::create(o.device);
  if (!ctx.ok())
    return fail(ctx.message());
  Expected<Module> loaded = Module::loadFiles(*ctx, o.binary, metadataPath);
  if (!loaded.ok())
    return fail(loaded.message());
  Expected<Kernel> k = loaded->kernel(kernel.name);
  if (!k.ok())
    return fail(k.message());
  for (size_t i = 0; i < n; ++i) {
    const HostArg &h = hosts[i];
    Buffer &a = buffers[i];
    if (!h.isBuffer)
      continue;
    size_t bytes = h.data.size();
    // At least one byte: an empty buffer still needs an address.
    Expected<DeviceMemory> memory =
        DeviceMemory::allocate(*ctx, std::max<size_t>(2 * a.guard + bytes, 1));
    if (!memory.ok())
      return fail("%" + h.name + ": " + memory.message());
    a.memory = std::move(*memory);
    Status s = a.memory.fill8(kPoisonByte);
    if (s.ok() && !h.isOutput && bytes)
      s = a.memory.copyFromHost(h.data.data(), bytes, a.guard);
    if (!s.ok())
      return fail("%" + h.name + ": " + s.message());
  }
  std::vector<ArgValue> values;
  for (size_t i = 0; i < n; ++i)
    values.push_back(argValue(hosts[i], kernel.params[i],
                              buffers[i].memory.address() + buffers[i].guard,
                              descs[i], descArgs[i]));
  Status launched = k->launchArgs(nullptr, o.grid, values.data(), n);
  if (launched.ok())
    launched = ctx->synchronize();
  if (!launched.ok())
    return fail("running kernel '" + kernel.name + "': " + launched.message());

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
      return fail("%" + h.name + ": " + s.message());
    std::copy(got.begin() + a.guard, got.begin() + a.guard + h.data.size(),
              h.data.begin());
    ok &= checkBuffer(h, a, got, o, summary);
  }
  std::string printed;
  Status written = writeHostOutputs(hosts, printed);
  std::fputs(printed.c_str(), stdout);
  if (!written.ok())
    return fail(written.message());
  std::printf("tilec-gpu-run: %s: kernel %s, grid (%lld, %lld, %lld)%s%s\n",
              ok ? "PASS" : "FAIL", kernel.name.c_str(), (long long)o.grid.x,
              (long long)o.grid.y, (long long)o.grid.z,
              summary.empty() ? "" : ": ", summary.c_str());
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (int status = parseOptions(argc, argv, options); status >= 0)
    return status;
  return run(options);
}
