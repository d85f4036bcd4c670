//===- Batch.cpp - many differential cases on one context -----------------===//
//
// One process and one context for many cases: what a case costs is then
// its module's load and its launch, not a process and a context. Verdicts
// are flushed one by one, so that whoever reads them knows which case was
// running when the process died.
//
//===----------------------------------------------------------------------===//

#include "Batch.h"
#include "GpuCase.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace tilec;
using namespace tilec::runtime;

namespace tilec::gpurun {

namespace {

/// Ends the process when a case runs past its time: a kernel that never
/// returns leaves nothing else to do. The verdict goes to `fd`, a copy of
/// stdout made before any case could redirect it.
class Watchdog {
public:
  Watchdog(unsigned seconds, int fd) : seconds_(seconds), fd_(fd) {
    if (seconds_)
      thread_ = std::thread([this] { watch(); });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable())
      thread_.join();
  }
  void arm(const std::string &name) {
    std::lock_guard<std::mutex> lock(mutex_);
    name_ = name;
    deadline_ = Clock::now() + std::chrono::seconds(seconds_);
    armed_ = true;
    changed_.notify_all();
  }
  void disarm() {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
  }

private:
  using Clock = std::chrono::steady_clock;
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!done_) {
      if (!armed_) {
        changed_.wait(lock);
        continue;
      }
      if (changed_.wait_until(lock, deadline_) != std::cv_status::timeout ||
          !armed_ || Clock::now() < deadline_)
        continue;
      dprintf(fd_,
              "CRASH %s: no verdict after %u s (--case-timeout): the kernel "
              "or its load hangs; the batch stops\n",
              name_.c_str(), seconds_);
      std::_Exit(kBatchStopped);
    }
  }

  unsigned seconds_;
  int fd_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string name_;
  Clock::time_point deadline_;
  bool armed_ = false, done_ = false;
};

/// The case folders of `list`, absolute (relative ones are relative to the
/// list's folder); blank lines and lines starting with '#' are skipped.
Expected<std::vector<std::string>> readList(const std::string &list) {
  Expected<std::string> text = readFile(list);
  if (!text.ok())
    return text.status();
  std::string base;
  if (size_t slash = list.find_last_of('/'); slash != std::string::npos)
    base = list.substr(0, slash + 1);
  if (base.empty() || base[0] != '/') {
    char cwd[4096];
    if (!::getcwd(cwd, sizeof cwd))
      return Status::error(std::string("cannot read the current folder: ") +
                           std::strerror(errno));
    base = std::string(cwd) + "/" + base;
  }
  std::vector<std::string> folders;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos || line[begin] == '#')
      continue;
    size_t end = line.find_last_not_of(" \t\r");
    std::string folder = line.substr(begin, end - begin + 1);
    folders.push_back(folder[0] == '/' ? folder : base + folder);
  }
  return folders;
}

std::string baseName(std::string path) {
  while (path.size() > 1 && path.back() == '/')
    path.pop_back();
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<std::string> splitWords(const std::string &text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  std::string word;
  while (in >> word)
    words.push_back(word);
  return words;
}

/// The lines of `text` that start with `prefix`, sorted bytewise (as
/// `LC_ALL=C sort` does in scripts/gpu-diff.sh).
std::vector<std::string> sortedLines(const std::string &text,
                                     const char *prefix) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0)
      lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

/// Compares a kernel's tile.print lines with the interpreter's, in any
/// order; returns why they differ, or empty.
std::string comparePrints(const std::string &output,
                          const std::string &expectedText) {
  std::vector<std::string> got = sortedLines(output, "pid (");
  std::vector<std::string> want = sortedLines(expectedText, "");
  if (got == want)
    return "";
  std::vector<std::string> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                      std::back_inserter(extra));
  std::string diff;
  for (size_t i = 0; i < missing.size() && i < 2; ++i)
    diff += "< " + missing[i] + " ";
  for (size_t i = 0; i < extra.size() && i + missing.size() < 2; ++i)
    diff += "> " + extra[i] + " ";
  return "tile.print lines differ from the interpreter's (" +
         std::to_string(got.size()) + " vs " + std::to_string(want.size()) +
         "; diff: " + diff + ")";
}

/// Appends `text`'s lines, indented by four spaces, to `out` (at most
/// `most` lines, then how many more there were).
void appendIndented(std::string &out, const std::string &text, size_t most) {
  std::istringstream in(text);
  std::string line;
  size_t lines = 0;
  while (std::getline(in, line))
    if (lines++ < most)
      out += "    " + line + "\n";
  if (lines > most)
    out += "    ... and " + std::to_string(lines - most) + " more lines\n";
}

/// Makes the paths the runtime takes from the environment absolute: the
/// batch runs each case in its folder, where a relative driver, ptxas or
/// cache folder would name something else.
void absoluteEnvironment() {
  char cwd[4096];
  if (!::getcwd(cwd, sizeof cwd))
    return;
  for (const char *name : {"TILEC_LIBCUDA", "TILEC_RUNTIME_PTXAS",
                           "TILEC_CACHE_DIR", "XDG_CACHE_HOME", "CUDA_HOME",
                           "CUDA_PATH", "TMPDIR"}) {
    const char *value = std::getenv(name);
    if (!value || !*value || *value == '/' || std::strcmp(value, "off") == 0)
      continue;
    // A bare library name is the loader's to search for.
    if (std::strcmp(name, "TILEC_LIBCUDA") == 0 && !std::strchr(value, '/'))
      continue;
    ::setenv(name, (std::string(cwd) + "/" + value).c_str(), 1);
  }
}

/// Lines of a failing case's checks printed under its verdict.
constexpr size_t kMostReportLines = 24;

} // namespace

int runBatch(const BatchOptions &b) {
  Expected<std::vector<std::string>> folders = readList(b.list);
  if (!folders.ok()) {
    std::fprintf(stderr, "tilec-gpu-run: error: %s\n",
                 folders.message().c_str());
    return kBatchError;
  }
  if (b.first > folders->size()) {
    std::fprintf(stderr,
                 "tilec-gpu-run: error: --first %zu is past the end of '%s' "
                 "(%zu cases)\n",
                 b.first, b.list.c_str(), folders->size());
    return kBatchError;
  }
  size_t end =
      folders->size() - b.first < b.count ? folders->size() : b.first + b.count;

  absoluteEnvironment();
  std::fflush(stdout);
  int verdictFd = ::dup(STDOUT_FILENO);
  Watchdog watchdog(b.caseTimeout, verdictFd < 0 ? STDOUT_FILENO : verdictFd);
  std::optional<Context> context;
  std::string contextError;
  ContextSource source = [&]() -> Expected<const Context *> {
    if (!context && contextError.empty()) {
      Expected<Context> made = Context::create(b.device);
      if (!made.ok())
        contextError = made.message();
      else
        context = std::move(*made);
    }
    if (!context)
      return Status::error(contextError);
    return &*context;
  };

  size_t passed = 0, failedCases = 0;
  for (size_t i = b.first; i < end; ++i) {
    const std::string &folder = (*folders)[i];
    std::string name = baseName(folder);
    watchdog.arm(name);
    std::string verdict, details;
    bool stop = false;
    CaseOptions o;
    std::string error;
    Expected<std::string> command = readFile(folder + "/command");
    std::vector<std::string> words;
    if (!command.ok())
      error = command.message();
    else if (words = splitWords(*command);
             words.empty() || baseName(words[0]) != "tilec-gpu-run")
      error = folder + "/command is not a tilec-gpu-run command";
    else if (::chdir(folder.c_str()) != 0)
      error = "cannot enter " + folder + ": " + std::strerror(errno);
    else if (std::string e = parseCaseCommand(
                 std::vector<std::string>(words.begin() + 1, words.end()), o);
             !e.empty())
      error = folder + "/command: " + e;
    else if (o.device != b.device)
      error = "the command runs on device " + std::to_string(o.device) +
              " but the batch on device " + std::to_string(b.device);

    if (!error.empty()) {
      verdict = "FAIL " + name + ": error: " + error;
    } else {
      Expected<std::string> prints = readFile("prints.expected");
      CaseResult r = runCase(o, source, prints.ok());
      if (!contextError.empty()) {
        std::fprintf(stderr, "tilec-gpu-run: error: %s\n",
                     contextError.c_str());
        return kBatchError;
      }
      switch (r.outcome) {
      case Outcome::Passed:
        if (prints.ok()) {
          if (std::string why = comparePrints(r.kernelOutput, *prints);
              !why.empty()) {
            verdict = "FAIL " + name + ": " + why;
            break;
          }
          r.summary += " (+ " +
                       std::to_string(sortedLines(*prints, "").size()) +
                       " print lines as the interpreter's)";
        }
        verdict = "PASS " + name + ": " + r.summary;
        break;
      case Outcome::Differs:
        verdict = "FAIL " + name + ": " + r.summary;
        appendIndented(details, r.report, kMostReportLines);
        break;
      case Outcome::Failed:
        verdict = "FAIL " + name + ": error: " + r.error;
        appendIndented(details, r.report, kMostReportLines);
        // A failed load or copy may come from a context that a fault
        // already broke; go on only on one that still works.
        if (r.touchedDevice && context)
          if (Status s = context->synchronize(); !s.ok()) {
            details += "    the context fails after this case (" + s.message() +
                       "): the batch stops\n";
            stop = true;
          }
        break;
      case Outcome::Crashed:
        verdict = "CRASH " + name + ": error: " + r.error;
        appendIndented(details, r.report, kMostReportLines);
        stop = true;
        break;
      }
    }
    // One line a verdict: a message's own lines go under it, indented.
    for (size_t at = verdict.find('\n'); at != std::string::npos;
         at = verdict.find('\n', at + 1))
      verdict.replace(at, 1, "\n    ");
    bool pass = verdict.rfind("PASS ", 0) == 0;
    pass ? ++passed : ++failedCases;
    std::printf("%s\n%s", verdict.c_str(), details.c_str());
    std::fflush(stdout);
    watchdog.disarm();
    if (stop)
      return kBatchStopped;
  }
  std::string range = end > b.first ? "cases " + std::to_string(b.first) +
                                          ".." + std::to_string(end - 1)
                                    : "no cases";
  std::printf("tilec-gpu-run: batch: %zu passed, %zu failed (%s of %s)\n",
              passed, failedCases, range.c_str(), b.list.c_str());
  std::fflush(stdout);
  return failedCases ? kBatchFailed : kBatchPassed;
}

} // namespace tilec::gpurun
