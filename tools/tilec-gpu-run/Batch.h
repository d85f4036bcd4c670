//===- Batch.h - many differential cases on one context ---------*- C++ -*-===//
//
// tilec-gpu-run --batch LIST runs the case folders listed in LIST (as
// scripts/make-gpu-cases.py writes them: a one-line `command`, the PTX and
// metadata, inputs, references, prints.expected for a kernel that prints)
// in one process on one context, and prints one verdict line per case:
//
//   PASS NAME: kernel K, grid (X, Y, Z): %y max abs err E at [I], ...
//   FAIL NAME: ...        then the checks' lines, indented by four spaces
//   CRASH NAME: error: running kernel 'K': CUDA_ERROR_...
//
// A failed launch or synchronization may leave the context unusable (CUDA's
// faults are sticky): the batch prints CRASH and stops with exit status 3,
// and its caller (scripts/diff-batch.py) starts a new process at the next
// case. So does a case that runs past --case-timeout.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_GPURUN_BATCH_H
#define TILEC_TOOLS_GPURUN_BATCH_H

#include <cstddef>
#include <string>

namespace tilec::gpurun {

struct BatchOptions {
  std::string list;
  /// The cases run: those at [first, first + count) of the list.
  size_t first = 0, count = size_t(-1);
  /// Seconds a case may take before the batch reports it and stops; 0: no
  /// limit.
  unsigned caseTimeout = 0;
  int device = 0;
};

/// The exit statuses of a batch.
enum BatchStatus {
  kBatchPassed = 0,
  kBatchFailed = 1,  ///< every case ran; some failed
  kBatchError = 2,   ///< the batch could not run (its list, no driver)
  kBatchStopped = 3, ///< a case crashed or timed out: the batch stopped
};

/// Runs the batch; returns its exit status.
int runBatch(const BatchOptions &options);

} // namespace tilec::gpurun

#endif // TILEC_TOOLS_GPURUN_BATCH_H
