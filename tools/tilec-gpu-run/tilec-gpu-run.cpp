//===- tilec-gpu-run.cpp - run a compiled kernel on the GPU and check it --===//
//
//   tilec-gpu-run k.ptx [--metadata k.json] [--kernel NAME] --grid X[,Y[,Z]]
//       --arg SPEC... [--device N] [--no-guard] [--max-report N]
//   tilec-gpu-run --batch LIST [--first I] [--count N] [--case-timeout S]
//       [--device N]
//
// The GPU half of differential testing: tilec-run runs a kernel in the CPU
// interpreter and writes its inputs (save=) and results (out=); this runs
// the compiled kernel on the same inputs through the runtime (a checked
// launch, typed by the metadata) and compares (expect=) with the
// interpreter's results. Specs are tilec-run's (lib/Support/HostArgs.cpp).
// GpuCase.cpp says what is checked; everything that can be checked without
// a GPU is, before the driver is loaded. A tensor descriptor parameter takes
// a buffer spec with shape=200x64[,strides=80x1]; the runtime encodes its
// map over the buffer.
//
// Exit status: 0 if every check passed, 1 if a result differs, 2 if the run
// could not be made (bad input, no driver, a refused or failed launch).
//
// --batch runs the case folders of LIST (scripts/make-gpu-cases.py's, each
// with its `command`) in one process on one context, a verdict line each
// (Batch.h); exit status 3 when a crash stopped it.
//
//===----------------------------------------------------------------------===//

#include "Batch.h"
#include "GpuCase.h"

#include "tilec/Support/CommandLine.h"

#include <cstdio>
#include <optional>
#include <string>

using namespace tilec;
using namespace tilec::gpurun;

namespace {

const char *kSynopsis =
    "tilec-gpu-run KERNEL.ptx|KERNEL.cubin [--metadata FILE.json]\n"
    "         [--kernel NAME] --grid X[,Y[,Z]] --arg SPEC... [--device N]\n"
    "         [--no-guard] [--max-report N]\n"
    "       tilec-gpu-run --batch LIST [--first I] [--count N]\n"
    "         [--case-timeout S] [--device N]";
const char *kDescription =
    "Runs one kernel on the GPU with one --arg per parameter, in order:\n"
    "a scalar value, or a buffer spec as tilec-run takes them (n=, in=,\n"
    "rand=, min=, max=, fill=, iota, save=, out=, print, expect=, atol=,\n"
    "rtol=), and checks every buffer given expect= against its file.\n"
    "A tensor descriptor parameter takes a buffer spec plus shape=D0xD1..\n"
    "and optionally strides=S0xS1.. (elements, outermost first; default\n"
    "contiguous; n= defaults to the elements the shape spans).\n"
    "Exit status: 0 passed, 1 results differ, 2 the run failed.\n"
    "With --batch, runs the case folders listed in LIST (one a line, as\n"
    "scripts/make-gpu-cases.py writes them) on one context, each by its\n"
    "`command`, and prints a PASS, FAIL or CRASH line per case; a crash\n"
    "stops the batch (exit status 3).";

int fail(const std::string &message) {
  std::fprintf(stderr, "tilec-gpu-run: error: %s\n", message.c_str());
  return 2;
}

/// Runs one case as its own process: the context is made once the host-side
/// checks have passed, and the checks' lines go to stdout.
int runSingle(const CaseOptions &o) {
  std::optional<runtime::Context> context;
  ContextSource source = [&]() -> Expected<const runtime::Context *> {
    Expected<runtime::Context> made = runtime::Context::create(o.device);
    if (!made.ok())
      return made.status();
    context = std::move(*made);
    return &*context;
  };
  CaseResult r = runCase(o, source);
  std::fputs(r.report.c_str(), stdout);
  switch (r.outcome) {
  case Outcome::Passed:
  case Outcome::Differs: {
    bool ok = r.outcome == Outcome::Passed;
    std::printf("tilec-gpu-run: %s: %s\n", ok ? "PASS" : "FAIL",
                r.summary.c_str());
    return ok ? 0 : 1;
  }
  case Outcome::Failed:
  case Outcome::Crashed:
    break;
  }
  return fail(r.error);
}

} // namespace

int main(int argc, char **argv) {
  tilec::cli::CommandLine cl("tilec-gpu-run", kSynopsis, kDescription);
  CLI::App &app = cl.app();
  CaseOptions o;
  CaseOptionText text;
  addCaseOptions(app, o, text);
  BatchOptions b;
  std::string first, count, timeout;
  app.add_option("--batch", b.list,
                 "run the case folders listed in this file, one a line");
  app.add_option("--first", first,
                 "with --batch: the first case to run (default 0)");
  app.add_option("--count", count,
                 "with --batch: how many cases to run (default: the rest)");
  app.add_option("--case-timeout", timeout,
                 "with --batch: seconds a case may take (default: no limit)");
  if (int status = cl.parse(argc, argv); status >= 0)
    return status;

  if (app.count("--batch") == 0) {
    for (const char *option : {"--first", "--count", "--case-timeout"})
      if (app.count(option))
        return cl.usageError(std::string(option) + " goes with --batch");
    if (std::string e = finishCaseOptions(app, text, o); !e.empty())
      return cl.usageError(e);
    return runSingle(o);
  }
  for (const char *option : {"kernel-file", "--metadata", "--kernel", "--grid",
                             "--arg", "--no-guard", "--max-report"})
    if (app.count(option))
      return cl.usageError(std::string(option) +
                           " does not go with --batch (each case's command "
                           "gives it)");
  auto number = [](const std::string &value, size_t &out) {
    if (value.empty() || value.size() > 9 ||
        value.find_first_not_of("0123456789") != std::string::npos)
      return false;
    out = std::stoul(value);
    return true;
  };
  size_t n = 0;
  if (!first.empty() && !number(first, b.first))
    return cl.usageError("--first expects a case index, got '" + first + "'");
  if (!count.empty() && !number(count, b.count))
    return cl.usageError("--count expects a count, got '" + count + "'");
  if (!timeout.empty()) {
    if (!number(timeout, n))
      return cl.usageError("--case-timeout expects seconds, got '" + timeout +
                           "'");
    b.caseTimeout = unsigned(n);
  }
  if (!text.device.empty()) {
    if (!number(text.device, n) || n > 1024)
      return cl.usageError("--device expects a device number, got '" +
                           text.device + "'");
    b.device = int(n);
  }
  return runBatch(b);
}
