//===- MeasureArgs.cpp - tuning any kernel on arguments from specs --------===//
//
// The args problem: a kernel of any signature, its arguments given as
// tilec-gpu-run's specs. The buffers are made once on the host from the
// specs and copied into rotating sets (inputs with their contents, outputs
// poisoned), so that, as for the GEMM, a launch does not find its inputs
// in L2 from the previous one. Each candidate first runs once on set 0,
// restored to the specs' contents, and its outputs are compared with
// their expect= files or, without one, with the first candidate that ran:
// a candidate that is fast because it computes something else cannot win.
// The grid is the caller's or each candidate's own launch rule (its
// tile.grid may name the tuned parameters: "cdiv(n, ${BLOCK})").
//
//===----------------------------------------------------------------------===//

#include "tilec/Tune/Measure.h"
#include "MeasureCommon.h"
#include "tilec/Runtime/HostArgValues.h"

#include <algorithm>
#include <bit>
#include <optional>

using namespace tilec;
using namespace tilec::tune;
using namespace tilec::runtime;

namespace {

/// `v` (at least 1) rounded up to a power of two.
int64_t roundUpPow2(int64_t v) {
  return int64_t(std::bit_ceil(uint64_t(std::max<int64_t>(v, 1))));
}

/// The kernel's parameters must be the first candidate's: the specs are
/// parsed once, against them.
std::string sameSignature(const KernelMetadata &k,
                          const std::vector<ParamInfo> &first,
                          const std::string &firstSignature) {
  bool same = k.params.size() == first.size();
  for (size_t i = 0; same && i < first.size(); ++i)
    same = k.params[i].name == first[i].name &&
           k.params[i].kind == first[i].kind &&
           k.params[i].type == first[i].type;
  if (same)
    return "";
  return "its parameters (" + k.signature() +
         ") are not the first candidate's (" + firstSignature + ")";
}

/// An integer argument's part of the bucket: rounded up to a power of two
/// (0 and negatives as they are), and its alignment (the largest power of
/// two up to 16 dividing it).
std::pair<int64_t, int64_t> intKey(int64_t v) {
  int64_t align = 1;
  while (align < 16 && v % (2 * align) == 0 && v != 0)
    align *= 2;
  return {v > 0 ? roundUpPow2(v) : v, align};
}

/// The specs of `problem` parsed against the kernel's parameters.
Expected<std::vector<HostArg>> parseSpecs(const std::string &kernel,
                                          const KernelMetadata &k,
                                          const ArgsProblem &problem) {
  const size_t n = k.params.size();
  if (problem.specs.size() != n)
    return Status::error(
        "kernel '" + kernel + "' takes " + std::to_string(n) + " argument" +
        (n == 1 ? "" : "s") + " (" + k.signature() + ") but " +
        std::to_string(problem.specs.size()) + " spec" +
        (problem.specs.size() == 1 ? " was" : "s were") + " given");
  std::vector<HostArg> args(n);
  for (size_t i = 0; i < n; ++i) {
    Expected<HostArg> h = parseHostArgFor(problem.specs[i], k.params[i]);
    if (!h.ok())
      return h.status();
    args[i] = std::move(*h);
  }
  return args;
}

} // namespace

std::string tune::argsBucket(const std::vector<ParamInfo> &params,
                             const std::vector<HostArg> &args) {
  std::string out;
  auto add = [&](const std::string &word) {
    out += (out.empty() ? "" : " ") + word;
  };
  for (size_t i = 0; i < params.size() && i < args.size(); ++i) {
    const ParamInfo &p = params[i];
    const HostArg &a = args[i];
    if (p.kind == ParamInfo::Kind::TensorDesc) {
      std::string dims;
      for (int64_t d : a.desc.shape)
        dims += (dims.empty() ? "" : "x") + std::to_string(roundUpPow2(d));
      add(p.name + "[" + dims + "]");
    } else if (a.isBuffer) {
      add(p.name + "[" + std::to_string(roundUpPow2(int64_t(a.count()))) +
          "]");
    } else if (!isFloat(a.dtype)) {
      auto [value, align] = intKey(a.intValue);
      add(p.name + "=" + std::to_string(value) + "/a" +
          std::to_string(align));
    }
  }
  return out;
}

ArgsDispatchKey tune::argsDispatchKey(const std::vector<ParamInfo> &params,
                                      const std::vector<HostArg> &args) {
  ArgsDispatchKey key;
  key.bucket = argsBucket(params, args);
  for (size_t i = 0; i < params.size() && i < args.size(); ++i) {
    const ParamInfo &p = params[i];
    const HostArg &a = args[i];
    if (p.kind == ParamInfo::Kind::TensorDesc) {
      for (int64_t d : a.desc.shape) {
        key.values.push_back(roundUpPow2(d));
        key.aligns.push_back(1);
      }
    } else if (p.kind == ParamInfo::Kind::Scalar && !a.isBuffer &&
               !isFloat(a.dtype)) {
      auto [value, align] = intKey(a.intValue);
      key.values.push_back(value);
      key.aligns.push_back(align);
    }
  }
  return key;
}

Expected<ArgsDispatchKey> tune::argsProblemKey(const Manifest &manifest,
                                               const std::string &dir,
                                               const ArgsProblem &problem) {
  const Candidate *first = nullptr;
  for (const Candidate &c : manifest.candidates)
    if (!c.pruned && splitKOf(c) == 1) {
      first = &c;
      break;
    }
  if (!first)
    return Status::error("no candidate of the manifest runs as one kernel");
  Expected<std::string> text = readFile(dir + "/" + first->metadata);
  if (!text.ok())
    return text.status();
  Expected<ModuleMetadata> md = parseMetadata(*text);
  if (!md.ok())
    return md.status().withContext(dir + "/" + first->metadata);
  const KernelMetadata *k = md->find(manifest.kernel);
  if (!k)
    return Status::error(dir + "/" + first->metadata + ": no kernel '" +
                         manifest.kernel + "'");
  Expected<std::vector<HostArg>> args =
      parseSpecs(manifest.kernel, *k, problem);
  if (!args.ok())
    return args.status();
  return argsDispatchKey(k->params, *args);
}

Expected<TuneResult> tune::tuneArgs(const Context &context,
                                    const Manifest &manifest,
                                    const std::string &dir,
                                    const ArgsProblem &problem,
                                    const MeasureOptions &options) {
  TuneResult result;
  std::vector<const Candidate *> todo;
  for (const Candidate &c : manifest.candidates) {
    if (c.pruned)
      continue;
    if (splitKOf(c) > 1) {
      CandidateTime t;
      t.id = c.id;
      t.skipped = "a split-K plan is two kernels: it runs as the gemm "
                  "problem (--gemm) only";
      result.times.push_back(t);
      continue;
    }
    todo.push_back(&c);
  }
  if (todo.empty())
    return Status::error(result.times.empty()
                             ? "every candidate of the manifest was pruned"
                             : "no candidate of the manifest runs as one "
                               "kernel (" +
                                   result.times.front().skipped + ")");

  // The first candidate's parameters parse the specs.
  Expected<Module> firstModule =
      Module::loadFiles(context, dir + "/" + todo[0]->binary,
                        dir + "/" + todo[0]->metadata);
  if (!firstModule.ok())
    return firstModule.status();
  Expected<Kernel> firstKernel = firstModule->kernel(manifest.kernel);
  if (!firstKernel.ok())
    return firstKernel.status();
  const std::vector<ParamInfo> params = firstKernel->metadata().params;
  const std::string signature = firstKernel->metadata().signature();
  const size_t n = params.size();
  Expected<std::vector<HostArg>> parsed =
      parseSpecs(manifest.kernel, firstKernel->metadata(), problem);
  if (!parsed.ok())
    return parsed.status();
  std::vector<HostArg> args = std::move(*parsed);
  std::vector<std::vector<uint8_t>> expected(n); // from expect=
  size_t setBytes = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!args[i].expectPath.empty()) {
      Expected<std::vector<uint8_t>> want = readExpected(args[i]);
      if (!want.ok())
        return want.status();
      expected[i] = std::move(*want);
    }
    if (args[i].isBuffer)
      setBytes += args[i].data.size();
  }
  // Compared after the check launch: an output (n= alone) or expect=.
  auto checked = [&](size_t i) {
    return args[i].isBuffer &&
           (args[i].isOutput || !args[i].expectPath.empty());
  };
  if (!problem.grid && firstKernel->metadata().grid.empty())
    return Status::error("kernel '" + manifest.kernel +
                         "' declares no launch rule (tile.grid): give the "
                         "grid (--grid X[,Y[,Z]])");

  result.bucket = argsBucket(params, args);
  if (options.progress)
    options.progress("bucket " + result.bucket);
  TuneKeyParts parts =
      keyParts(manifest, result.bucket, deviceIdentity(context));
  parts.problem = "args";
  result.key = tuneKey(parts);
  std::optional<TuneCache> cache;
  if (tune::detail::lookupWinner(manifest, parts, options, result, cache))
    return result;

  // The rotating sets, each buffer with its contents (outputs: poison).
  const size_t sets = tune::detail::rotatingSetCount(context, setBytes, options);
  result.rotatingSets = static_cast<int>(sets);
  std::vector<std::vector<std::optional<DeviceMemory>>> bufs(sets);
  auto fill = [&](size_t set, size_t i) -> Status {
    const HostArg &h = args[i];
    DeviceMemory &m = *bufs[set][i];
    if (h.isOutput || h.data.empty())
      return m.fill8(kPoisonByte);
    return m.copyFromHost(h.data.data(), h.data.size());
  };
  for (size_t set = 0; set < sets; ++set) {
    bufs[set].resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (!args[i].isBuffer)
        continue;
      // At least one byte: an empty buffer still needs an address.
      auto m = DeviceMemory::allocate(
          context, std::max<size_t>(args[i].data.size(), 1));
      if (!m.ok())
        return Status::error("cannot allocate %" + params[i].name +
                             " of rotating buffer set " + std::to_string(set) +
                             " of " + std::to_string(sets) + ": " +
                             m.message());
      bufs[set][i].emplace(std::move(*m));
      if (Status s = fill(set, i); !s.ok())
        return s;
    }
  }

  Expected<Stream> stream = Stream::create(context);
  if (!stream.ok())
    return stream.status();
  // The first candidate that ran: the reference of outputs without expect=.
  std::vector<std::vector<uint8_t>> reference(n);
  int referenceId = -1;
  const int count = static_cast<int>(todo.size());
  double bestMs = 0;
  int bestId = -1;
  bool anyDesc = false;
  for (const ParamInfo &p : params)
    anyDesc |= p.kind == ParamInfo::Kind::TensorDesc;
  for (int c = 0; c < count; ++c) {
    const Candidate &cand = *todo[c];
    CandidateTime t;
    t.id = cand.id;
    auto finish = [&](std::string error) {
      t.error = std::move(error);
      result.times.push_back(t);
      tune::detail::reportProgress(options, c, count, cand, t, bestId, bestMs);
    };
    Expected<Module> module = Module::loadFiles(
        context, dir + "/" + cand.binary, dir + "/" + cand.metadata);
    if (!module.ok()) {
      finish(module.message());
      continue;
    }
    Expected<Kernel> kernel = module->kernel(manifest.kernel);
    if (!kernel.ok()) {
      finish(kernel.message());
      continue;
    }
    if (std::string e = sameSignature(kernel->metadata(), params, signature);
        !e.empty()) {
      finish(e);
      continue;
    }
    std::vector<TensorDescArg> descArgs(n);
    std::vector<ArgValue> values(n);
    auto valuesOf = [&](size_t set) {
      for (size_t i = 0; i < n; ++i)
        values[i] = hostArgValue(
            args[i], params[i],
            args[i].isBuffer ? bufs[set][i]->address() : 0, descArgs[i]);
    };
    valuesOf(0);
    Grid grid;
    if (problem.grid) {
      grid = *problem.grid;
    } else {
      Expected<Grid> g = ruleGrid(kernel->metadata(), values.data(), n);
      if (!g.ok()) {
        finish(g.message());
        continue;
      }
      grid = *g;
    }
    auto launch = [&](size_t index) -> Status {
      valuesOf(index % sets);
      return kernel->launchArgs(stream->get(), grid, values.data(), n);
    };
    // The check: set 0 as the specs made it, one launch, the outputs back.
    Status s;
    for (size_t i = 0; s.ok() && i < n; ++i)
      if (args[i].isBuffer)
        s = fill(0, i);
    if (s.ok())
      s = launch(0);
    if (s.ok())
      s = stream->synchronize();
    std::vector<std::vector<uint8_t>> got(n);
    for (size_t i = 0; s.ok() && i < n; ++i) {
      if (!checked(i))
        continue;
      got[i].resize(args[i].data.size());
      s = bufs[0][i]->copyToHost(got[i].data(), got[i].size());
      if (!s.ok())
        break;
      const bool hasFile = !args[i].expectPath.empty();
      if (!hasFile && referenceId < 0)
        continue; // this candidate becomes the reference
      const std::vector<uint8_t> &want =
          hasFile ? expected[i] : reference[i];
      auto [atol, rtol] = defaultTolerance(args[i].dtype);
      Comparison cmp = compareElements(
          args[i].dtype, got[i], want, args[i].atol.value_or(atol),
          args[i].rtol.value_or(rtol), /*keep=*/1);
      if (cmp.ok())
        continue;
      size_t at = cmp.firstMismatches.empty() ? 0 : cmp.firstMismatches[0];
      const size_t size = dtypeSize(args[i].dtype);
      s = Status::error(
          "wrong result: %" + params[i].name + "[" + std::to_string(at) +
          "] = " + formatElement(got[i].data() + at * size, args[i].dtype) +
          ", " +
          (hasFile ? "'" + args[i].expectPath + "' has "
                   : "candidate " + std::to_string(referenceId) + " gave ") +
          formatElement(want.data() + at * size, args[i].dtype) + " (" +
          std::to_string(cmp.mismatches) + " of " + std::to_string(cmp.count) +
          " elements differ)");
    }
    if (s.ok())
      s = tune::detail::timeLaunches(context, *stream, launch, sets, anyDesc,
                                     options, t);
    if (!s.ok()) {
      finish(s.message());
      continue;
    }
    if (referenceId < 0) {
      referenceId = cand.id;
      reference = std::move(got);
    }
    if (bestId < 0 || t.medianMs < bestMs) {
      bestMs = t.medianMs;
      bestId = cand.id;
    }
    finish("");
  }
  tune::detail::setWinner(manifest, bestId, bestMs, count, cache, parts,
                          result);
  return result;
}
