//===- GpuCase.h - one differential case of tilec-gpu-run -------*- C++ -*-===//
//
// One run of a compiled kernel against the CPU interpreter's results: the
// host-side checks (metadata, specs, files, scalars, descriptors), then the
// launch on a context and the comparison of every buffer. tilec-gpu-run
// runs one case per process; its --batch mode (Batch.cpp) runs many on one
// context.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_GPURUN_GPUCASE_H
#define TILEC_TOOLS_GPURUN_GPUCASE_H

#include "tilec/Runtime/Runtime.h"

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
} // namespace CLI

namespace tilec::gpurun {

/// What one case runs: a kernel file, its grid and one spec per parameter.
struct CaseOptions {
  std::string binary, metadata, kernel;
  runtime::Grid grid;
  std::vector<std::string> specs;
  int device = 0;
  bool guard = true;
  size_t maxReport = 10;
};

/// The text of the options that need checking after CLI11's parse.
struct CaseOptionText {
  std::string grid, device, maxReport;
  bool noGuard = false;
};

/// Declares a case's options (the kernel file, --metadata, --kernel, --grid,
/// --arg, --device, --no-guard, --max-report) on `app`: the command line of
/// tilec-gpu-run, or a batch case's `command`.
void addCaseOptions(CLI::App &app, CaseOptions &o, CaseOptionText &text);

/// Checks what addCaseOptions parsed into `o` (the kernel file and --grid
/// given, the grid's, device's and count's forms); returns a usage error's
/// message naming the option, or empty.
std::string finishCaseOptions(const CLI::App &app, const CaseOptionText &text,
                              CaseOptions &o);

/// Parses a batch case's command (its words after the tool's name) into
/// `o`; returns an error message, or empty.
std::string parseCaseCommand(const std::vector<std::string> &words,
                             CaseOptions &o);

/// How a case ended.
enum class Outcome {
  Passed,  ///< every check passed (exit status 0)
  Differs, ///< a result differs from its reference (exit status 1)
  Failed,  ///< the run could not be made (exit status 2)
  Crashed, ///< the launch or the synchronization after it failed: the
           ///< context may be unusable (a fault is sticky in CUDA)
};

struct CaseResult {
  Outcome outcome = Outcome::Failed;
  /// Failed or Crashed: what went wrong.
  std::string error;
  /// Whether the failure came after the context was used (a load, an
  /// allocation, a copy): the context may then be unusable too.
  bool touchedDevice = false;
  /// The lines of each buffer's check, and the buffers' print lines.
  std::string report;
  /// "kernel K, grid (X, Y, Z)[: what each buffer's check found]".
  std::string summary;
  /// With `captureKernelOutput`: what the kernel wrote to stdout (tile.print).
  std::string kernelOutput;
};

/// The context a case runs on, made when the first case needs it, so that
/// every host-side error comes before a missing driver's.
using ContextSource = std::function<Expected<const runtime::Context *>()>;

/// Runs one case. With `captureKernelOutput`, what the kernel prints during
/// the launch is captured (stdout redirected) into the result.
CaseResult runCase(const CaseOptions &o, const ContextSource &context,
                   bool captureKernelOutput = false);

} // namespace tilec::gpurun

#endif // TILEC_TOOLS_GPURUN_GPUCASE_H
