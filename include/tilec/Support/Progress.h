//===- Progress.h - a status line for long work on a terminal ---*- C++ -*-===//
//
// tilec-run on a large grid, tilec-analyze on a kernel whose programs
// differ, minutes of work with nothing on the screen looks like a hang. A
// ProgressLine shows one line on stderr that rewrites itself ("\r") while
// the work runs and is erased when it ends, as cmake and ninja do; when
// stderr is not a terminal (a pipe, a log, CI) it writes nothing, so logs
// and tests see the tools' output alone. MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_PROGRESS_H
#define TILEC_SUPPORT_PROGRESS_H

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace tilec::support {

/// The text of one update: "tilec-run: program 1200 of 4096 (29%)", then
/// ", " and `detail` when there is one. `total` 0: no count of the whole
/// ("tilec-analyze: evaluation 12").
std::string progressText(std::string_view tool, std::string_view what,
                         uint64_t done, uint64_t total,
                         std::string_view detail = {});

/// True when stderr is a terminal that can rewrite a line (not TERM=dumb).
bool stderrIsTerminal();

class ProgressLine {
public:
  /// Shows nothing unless `enabled`; updates come at most every
  /// `interval`, and none in the first `delay` (short work stays silent).
  explicit ProgressLine(
      std::string tool, bool enabled = stderrIsTerminal(),
      std::chrono::milliseconds interval = std::chrono::milliseconds(100),
      std::chrono::milliseconds delay = std::chrono::milliseconds(500),
      std::FILE *out = stderr);
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;
  ~ProgressLine() { clear(); }

  /// Shows progressText(tool, what, done, total, detail) if it is time to.
  void update(std::string_view what, uint64_t done, uint64_t total,
              std::string_view detail = {});
  /// Erases the line (before other output, and at the end).
  void clear();
  bool enabled() const { return enabled_; }

private:
  std::string tool_;
  bool enabled_;
  std::chrono::milliseconds interval_, delay_;
  std::FILE *out_;
  std::chrono::steady_clock::time_point start_, last_;
  size_t shown_ = 0; ///< the length of the line on the screen, 0: none
};

} // namespace tilec::support

#endif // TILEC_SUPPORT_PROGRESS_H
