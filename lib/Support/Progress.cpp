//===- Progress.cpp - a status line for long work on a terminal -----------===//

#include "tilec/Support/Progress.h"

#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace tilec::support {

std::string progressText(std::string_view tool, std::string_view what,
                         uint64_t done, uint64_t total,
                         std::string_view detail) {
  std::string s = std::string(tool) + ": " + std::string(what) + " " +
                  std::to_string(done);
  if (total > 0) {
    s += " of " + std::to_string(total);
    // Whole percents, rounded down (100% only when all is done), in 128
    // bits so that counts near 2^64 do not overflow.
    uint64_t percent =
        done >= total
            ? 100
            : static_cast<uint64_t>(static_cast<unsigned __int128>(done) *
                                    100 / total);
    s += " (" + std::to_string(percent) + "%)";
  }
  if (!detail.empty())
    s += ", " + std::string(detail);
  return s;
}

bool stderrIsTerminal() {
  if (!isatty(STDERR_FILENO))
    return false;
  const char *term = std::getenv("TERM");
  return !term || std::strcmp(term, "dumb") != 0;
}

ProgressLine::ProgressLine(std::string tool, bool enabled,
                           std::chrono::milliseconds interval,
                           std::chrono::milliseconds delay, std::FILE *out)
    : tool_(std::move(tool)), enabled_(enabled), interval_(interval),
      delay_(delay), out_(out), start_(std::chrono::steady_clock::now()),
      last_(start_ - interval) {}

void ProgressLine::update(std::string_view what, uint64_t done,
                          uint64_t total, std::string_view detail) {
  if (!enabled_)
    return;
  auto now = std::chrono::steady_clock::now();
  if (now - start_ < delay_ || now - last_ < interval_)
    return;
  last_ = now;
  std::string text = progressText(tool_, what, done, total, detail);
  // Pad over a longer line shown before.
  size_t length = text.size();
  if (length < shown_)
    text.append(shown_ - length, ' ');
  std::fprintf(out_, "\r%s", text.c_str());
  std::fflush(out_);
  shown_ = length;
}

void ProgressLine::clear() {
  if (!enabled_ || shown_ == 0)
    return;
  std::fprintf(out_, "\r%s\r", std::string(shown_, ' ').c_str());
  std::fflush(out_);
  shown_ = 0;
}

} // namespace tilec::support
