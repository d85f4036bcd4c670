//===- FuzzDriver.cpp - a fuzz target's main without libFuzzer ------------===//
//
// Runs a libFuzzer target (LLVMFuzzerTestOneInput) where libFuzzer cannot:
// in the regular GCC build, whose compiler libraries are already built for
// the test suite (instrumenting them with Clang's sanitizers is a second
// build of the compiler; docs/development.md, "The pipeline to PTX").
// Without coverage it replays the corpus, then mutates its inputs at random
// for a time or execution budget: byte flips, inserts and deletions, and,
// since the inputs are program text, line and token splices between corpus
// files and numbers changed to boundary values. Inputs that went deep (the
// target's inputDepth hook, FuzzHooks.h) become bases for further
// mutations, so that valid programs are mutated rather than only the seeds.
//
// Each input runs in a forked child with a budget: CPU time (RLIMIT_CPU)
// and wall-clock time (the parent kills the child at the deadline), and
// memory (RLIMIT_AS above the address space the parent had mapped, and the
// parent polling the child's resident set). A child that crashes, aborts,
// exits, runs out of time or runs out of memory is a finding: its input is
// saved under -artifact_prefix with its output (.log), the smallest input
// of each kind of finding kept, and the run goes on. The flags are
// libFuzzer's where it has one, so scripts/fuzz.sh passes both the same:
//
//   DRIVER [-flag=value...] CORPUS_DIR...   replay, then mutate
//   DRIVER [-flag=value...] FILE...         run each file once
//
// -max_total_time=S (0: none), -runs=N (executions; -1: none), -timeout=S
// (per input, default 10), -rss_limit_mb=M (default 2048), -seed=N,
// -artifact_prefix=P, -max_len=N, -workers=N (children at a time,
// default 1), -print_final_stats=1 (always on). Exit status 1 if any
// finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzHooks.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" [[gnu::weak]] int LLVMFuzzerInitialize(int *argc, char ***argv);

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Bytes = std::string; // an input; std::string for its helpers

// Exit statuses of a child. A child that returns from the target exits
// with kExitDone + its depth; any other end is a finding.
constexpr int kExitDone = 100;
constexpr int kExitOom = 99;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

struct Flags {
  double maxTotalTime = 0;
  long long runs = -1;
  double timeout = 10;
  long long rssLimitMb = 2048;
  std::optional<unsigned long long> seed;
  std::string artifactPrefix = "./";
  size_t maxLen = 0;
  int workers = 1;
  std::vector<std::string> paths;
};

[[noreturn]] void usage(const std::string &message) {
  std::fprintf(stderr, "fuzz driver: %s\n", message.c_str());
  std::exit(2);
}

Flags parseFlags(int argc, char **argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') {
      f.paths.emplace_back(arg);
      continue;
    }
    size_t eq = arg.find('=');
    if (eq == std::string_view::npos)
      usage("flags are -name=value, got '" + std::string(arg) + "'");
    std::string name(arg.substr(1, eq - 1));
    std::string value(arg.substr(eq + 1));
    auto number = [&]() -> double {
      char *end = nullptr;
      double v = std::strtod(value.c_str(), &end);
      if (value.empty() || *end)
        usage("-" + name + " needs a number, got '" + value + "'");
      return v;
    };
    if (name == "max_total_time")
      f.maxTotalTime = number();
    else if (name == "runs")
      f.runs = static_cast<long long>(number());
    else if (name == "timeout")
      f.timeout = number();
    else if (name == "rss_limit_mb")
      f.rssLimitMb = static_cast<long long>(number());
    else if (name == "seed")
      f.seed = static_cast<unsigned long long>(number());
    else if (name == "artifact_prefix")
      f.artifactPrefix = value;
    else if (name == "max_len")
      f.maxLen = static_cast<size_t>(number());
    else if (name == "workers")
      f.workers = std::max(1, static_cast<int>(number()));
    else if (name == "print_final_stats")
      ; // the statistics are always printed
    else
      usage("unknown flag -" + name);
  }
  if (f.timeout <= 0)
    usage("-timeout must be positive");
  return f;
}

std::optional<Bytes> readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// FNV-1a, to name artifacts by their contents.
uint64_t hashBytes(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s)
    h = (h ^ c) * 1099511628211ull;
  return h;
}

/// Address space mapped now, in bytes (the libraries and heap a forked
/// child starts with; its RLIMIT_AS is this plus the budget).
size_t mappedBytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  size_t size = 0;
  statm >> size;
  return size * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

/// Resident set of `pid` in bytes, 0 if gone.
size_t residentBytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

//===----------------------------------------------------------------------===//
// Mutations
//===----------------------------------------------------------------------===//

/// Numbers worth trying where a number was: the edges of the integer types,
/// of tile sizes and budgets, and of what fits in a shift.
const std::vector<std::string> kBoundaryNumbers = {
    "0",
    "1",
    "2",
    "3",
    "-1",
    "-2",
    "5",
    "7",
    "8",
    "15",
    "16",
    "17",
    "31",
    "32",
    "33",
    "63",
    "64",
    "65",
    "127",
    "128",
    "129",
    "255",
    "256",
    "511",
    "512",
    "1000",
    "1023",
    "1024",
    "4096",
    "8192",
    "32767",
    "32768",
    "65535",
    "65536",
    "1048576",
    "1048577",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "1.0e38",
    "1.0e-45",
    "0.5",
    "nan",
    "inf",
    "0x7FC00000",
    "0xFFFFFFFF"};

/// Characters the text form is made of, for random inserts that parse.
constexpr std::string_view kSyntax = "%@#!<>()[]{},:=x.-+ \n\"0123456789";

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '$';
}

/// One token of program text: an identifier (`tile.load`, `f32`,
/// `%offs`), a number, or one other character.
struct Token {
  size_t begin, end;
  enum Kind { Ident, Value, Number, Other } kind;
};

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    size_t b = i;
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '-' && i + 1 < s.size() &&
         std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      ++i;
      while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) ||
                              s[i] == '.' || s[i] == 'e'))
        ++i;
      tokens.push_back({b, i, Token::Number});
    } else if (c == '%' || c == '@' || c == '^' || c == '#') {
      ++i;
      while (i < s.size() && isIdentChar(s[i]))
        ++i;
      tokens.push_back({b, i, Token::Value});
    } else if (isIdentChar(c) || c == '!') {
      ++i;
      while (i < s.size() && isIdentChar(s[i]))
        ++i;
      tokens.push_back({b, i, Token::Ident});
    } else {
      tokens.push_back({b, ++i, Token::Other});
    }
  }
  return tokens;
}

/// Splits into lines, each with its '\n'.
std::vector<std::string_view> splitLines(std::string_view s) {
  std::vector<std::string_view> lines;
  size_t b = 0;
  while (b < s.size()) {
    size_t e = s.find('\n', b);
    e = e == std::string_view::npos ? s.size() : e + 1;
    lines.push_back(s.substr(b, e - b));
    b = e;
  }
  return lines;
}

class Mutator {
public:
  Mutator(uint64_t seed, size_t maxLen) : rng_(seed), maxLen_(maxLen) {}

  /// Words and lines of the corpus, spliced into mutants.
  void learn(const Bytes &input) {
    for (const Token &t : tokenize(input)) {
      std::string text = input.substr(t.begin, t.end - t.begin);
      if (t.kind == Token::Ident && dictSet_.insert(text).second)
        idents_.push_back(text);
    }
    for (std::string_view line : splitLines(input))
      if (line.size() > 1 && line.size() < 400 && lines_.size() < 20000)
        lines_.emplace_back(line);
  }

  /// `base` changed by one to three mutations; `other` is another input
  /// for crossovers.
  Bytes mutate(const Bytes &base, const Bytes &other) {
    Bytes s = base;
    int n = 1 + (pick(4) == 0 ? 1 + pick(2) : 0);
    for (int i = 0; i < n; ++i)
      mutateOnce(s, other);
    if (s.size() > maxLen_)
      s.resize(maxLen_);
    return s;
  }

  size_t pick(size_t n) {
    return n ? std::uniform_int_distribution<size_t>(0, n - 1)(rng_) : 0;
  }
  std::mt19937_64 &rng() { return rng_; }

private:
  void mutateOnce(Bytes &s, const Bytes &other) {
    switch (pick(16)) {
    case 0: // flip a bit
      if (!s.empty())
        s[pick(s.size())] ^= static_cast<char>(1u << pick(8));
      return;
    case 1: // a leading byte (option bytes, magic numbers) to any value
      if (!s.empty())
        s[pick(std::min<size_t>(s.size(), 4))] = static_cast<char>(pick(256));
      return;
    case 2: { // insert characters of the syntax
      size_t at = pick(s.size() + 1);
      size_t len = 1 + pick(4);
      std::string ins;
      for (size_t i = 0; i < len; ++i)
        ins += kSyntax[pick(kSyntax.size())];
      s.insert(at, ins);
      return;
    }
    case 3: // erase a range
      if (!s.empty()) {
        size_t at = pick(s.size());
        s.erase(at, 1 + pick(std::min<size_t>(16, s.size() - at)));
      }
      return;
    case 4: // copy a range elsewhere
      if (!s.empty()) {
        size_t at = pick(s.size());
        std::string piece = s.substr(at, 1 + pick(32));
        s.insert(pick(s.size() + 1), piece);
      }
      return;
    case 5:
    case 6:
    case 7:
      mutateNumber(s);
      return;
    case 8:
    case 9:
      replaceToken(s);
      return;
    case 10:
      renameValue(s);
      return;
    case 11:
    case 12:
      mutateLines(s);
      return;
    case 13: { // crossover at line boundaries
      std::vector<std::string_view> a = splitLines(s), b = splitLines(other);
      if (a.empty() || b.empty())
        return;
      size_t i = pick(a.size()), j = pick(b.size());
      Bytes out;
      for (size_t k = 0; k < i; ++k)
        out += a[k];
      for (size_t k = j; k < b.size(); ++k)
        out += b[k];
      s = out;
      return;
    }
    case 14: { // a random byte anywhere
      if (!s.empty())
        s[pick(s.size())] = static_cast<char>(pick(256));
      return;
    }
    default: { // insert a word of the corpus
      if (idents_.empty())
        return;
      std::vector<Token> tokens = tokenize(s);
      size_t at = tokens.empty() ? 0 : tokens[pick(tokens.size())].begin;
      s.insert(at, idents_[pick(idents_.size())] + " ");
      return;
    }
    }
  }

  /// A number becomes a boundary value, or moves by one or a factor of two.
  void mutateNumber(Bytes &s) {
    std::vector<Token> numbers;
    for (const Token &t : tokenize(s))
      if (t.kind == Token::Number)
        numbers.push_back(t);
    // Digits inside words too: the 128 and 64 of `tensor<128x64xf32>`.
    if (numbers.empty() || pick(2)) {
      for (size_t i = 0; i < s.size();) {
        if (std::isdigit(static_cast<unsigned char>(s[i]))) {
          size_t b = i;
          while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
            ++i;
          numbers.push_back({b, i, Token::Number});
        } else {
          ++i;
        }
      }
    }
    if (numbers.empty())
      return;
    const Token &t = numbers[pick(numbers.size())];
    std::string old = s.substr(t.begin, t.end - t.begin);
    std::string repl;
    long long v = std::strtoll(old.c_str(), nullptr, 10);
    switch (pick(4)) {
    case 0:
      repl = std::to_string(v + 1);
      break;
    case 1:
      repl = std::to_string(v - 1);
      break;
    case 2:
      repl = std::to_string(pick(2) ? v * 2 : v / 2);
      break;
    default:
      repl = kBoundaryNumbers[pick(kBoundaryNumbers.size())];
    }
    s.replace(t.begin, t.end - t.begin, repl);
  }

  /// A word becomes another word of the corpus (an op name, a type, an
  /// attribute name).
  void replaceToken(Bytes &s) {
    std::vector<Token> tokens = tokenize(s);
    std::vector<const Token *> words;
    for (const Token &t : tokens)
      if (t.kind == Token::Ident)
        words.push_back(&t);
    if (words.empty() || idents_.empty())
      return;
    const Token *t = words[pick(words.size())];
    s.replace(t->begin, t->end - t->begin, idents_[pick(idents_.size())]);
  }

  /// A use of a value becomes a use of another value of the same input.
  void renameValue(Bytes &s) {
    std::vector<Token> values;
    for (const Token &t : tokenize(s))
      if (t.kind == Token::Value && s[t.begin] == '%')
        values.push_back(t);
    if (values.size() < 2)
      return;
    const Token &from = values[pick(values.size())];
    const Token &to = values[pick(values.size())];
    std::string name = s.substr(to.begin, to.end - to.begin);
    s.replace(from.begin, from.end - from.begin, name);
  }

  /// A line is deleted, duplicated, swapped with the next, or replaced by
  /// (or preceded by) a line of another corpus file.
  void mutateLines(Bytes &s) {
    std::vector<std::string_view> lines = splitLines(s);
    if (lines.empty())
      return;
    std::vector<std::string> out(lines.begin(), lines.end());
    size_t i = pick(out.size());
    switch (pick(5)) {
    case 0:
      out.erase(out.begin() + i);
      break;
    case 1:
      out.insert(out.begin() + i, out[i]);
      break;
    case 2:
      if (i + 1 < out.size())
        std::swap(out[i], out[i + 1]);
      break;
    case 3:
      if (!lines_.empty())
        out[i] = lines_[pick(lines_.size())];
      break;
    default:
      if (!lines_.empty())
        out.insert(out.begin() + i, lines_[pick(lines_.size())]);
    }
    s.clear();
    for (const std::string &l : out)
      s += l;
  }

  std::mt19937_64 rng_;
  size_t maxLen_;
  std::vector<std::string> idents_;
  std::set<std::string> dictSet_;
  std::vector<std::string> lines_;
};

//===----------------------------------------------------------------------===//
// Running inputs in children
//===----------------------------------------------------------------------===//

enum class Outcome { Done, Crash, Timeout, Oom, Exit };

const char *outcomeName(Outcome o) {
  switch (o) {
  case Outcome::Done:
    return "done";
  case Outcome::Crash:
    return "crash";
  case Outcome::Timeout:
    return "timeout";
  case Outcome::Oom:
    return "oom";
  case Outcome::Exit:
    return "exit";
  }
  return "?";
}

struct Result {
  Outcome outcome = Outcome::Done;
  int depth = 0;
  std::string what; ///< the signal or exit status, for findings
  std::string log;  ///< what the child printed
  double seconds = 0;
  size_t maxRssMb = 0;
};

/// A forked child running one input.
struct Slot {
  pid_t pid = -1;
  int logFd = -1;
  Bytes input;
  std::string corpusFile; ///< where the input came from; empty: a mutant
  Clock::time_point start, lastRssCheck;
  bool killedForTime = false, killedForMemory = false;
};

class Runner {
public:
  explicit Runner(const Flags &flags) : flags_(flags) {
    // The address space a child starts with (libraries, the target's
    // initialized state); RLIMIT_AS adds the budget to it. ASan reserves
    // terabytes of shadow: there only the resident set is watched.
    baseAddressSpace_ = mappedBytes(getpid());
  }

  /// Forks a child that runs `input` and exits; fills `slot`.
  void start(Slot &slot) {
    if (slot.logFd < 0) {
      slot.logFd = memfd_create("fuzz-log", 0);
      if (slot.logFd < 0) {
        std::perror("fuzz driver: memfd_create");
        std::exit(2);
      }
    }
    (void)ftruncate(slot.logFd, 0);
    lseek(slot.logFd, 0, SEEK_SET);
    std::fflush(stdout);
    std::fflush(stderr);
    slot.start = slot.lastRssCheck = Clock::now();
    slot.killedForTime = slot.killedForMemory = false;
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("fuzz driver: fork");
      std::exit(2);
    }
    if (pid == 0)
      runChild(slot);
    slot.pid = pid;
  }

  /// Whether `slot`'s child ended; kills it past its budget.
  std::optional<Result> poll(Slot &slot) {
    int status = 0;
    struct rusage usage {};
    pid_t r = wait4(slot.pid, &status, WNOHANG, &usage);
    double seconds =
        std::chrono::duration<double>(Clock::now() - slot.start).count();
    if (r == 0) {
      if (seconds > flags_.timeout + 0.5 && !slot.killedForTime) {
        slot.killedForTime = true;
        kill(slot.pid, SIGKILL);
      } else if (!slot.killedForMemory && Clock::now() - slot.lastRssCheck >
                                              std::chrono::milliseconds(10)) {
        // The resident set, as libFuzzer's -rss_limit_mb watches it (the
        // only limit under ASan, whose shadow defeats RLIMIT_AS).
        slot.lastRssCheck = Clock::now();
        if (residentBytes(slot.pid) > static_cast<size_t>(flags_.rssLimitMb)
                                          << 20) {
          slot.killedForMemory = true;
          kill(slot.pid, SIGKILL);
        }
      }
      return std::nullopt;
    }
    if (r < 0) {
      std::perror("fuzz driver: wait4");
      std::exit(2);
    }
    slot.pid = -1;
    Result res;
    res.seconds = seconds;
    res.maxRssMb = static_cast<size_t>(usage.ru_maxrss) / 1024;
    res.log = readLog(slot.logFd);
    bool saysOom = res.log.find("out of memory") != std::string::npos ||
                   res.log.find("std::bad_alloc") != std::string::npos;
    if (WIFEXITED(status)) {
      int code = WEXITSTATUS(status);
      if (code >= kExitDone && code < kExitDone + 16) {
        res.outcome = Outcome::Done;
        res.depth = code - kExitDone;
      } else if (code == kExitOom) {
        res.outcome = Outcome::Oom;
        res.what = "operator new failed";
      } else {
        res.outcome = Outcome::Exit;
        res.what = "exit status " + std::to_string(code);
      }
      return res;
    }
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    const char *abbrev = sigabbrev_np(sig);
    res.what =
        abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
    if (slot.killedForTime) {
      res.outcome = Outcome::Timeout;
      char text[64];
      std::snprintf(text, sizeof text, "over %g s of wall time",
                    flags_.timeout);
      res.what = text;
    } else if (sig == SIGXCPU) {
      res.outcome = Outcome::Timeout;
      res.what = "over the CPU time limit";
    } else if (slot.killedForMemory) {
      res.outcome = Outcome::Oom;
      res.what =
          "resident set over " + std::to_string(flags_.rssLimitMb) + " MiB";
    } else if (saysOom) {
      res.outcome = Outcome::Oom;
      res.what += " after an allocation failed";
    } else {
      res.outcome = Outcome::Crash;
    }
    return res;
  }

private:
  [[noreturn]] void runChild(Slot &slot) {
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, nullptr);
    dup2(slot.logFd, STDOUT_FILENO);
    dup2(slot.logFd, STDERR_FILENO);
    struct rlimit core {
      0, 0
    };
    setrlimit(RLIMIT_CORE, &core);
    // CPU seconds, rounded up; the wall clock is the parent's.
    rlim_t cpu = static_cast<rlim_t>(flags_.timeout) + 1;
    struct rlimit cpuLimit {
      cpu, cpu + 1
    };
    setrlimit(RLIMIT_CPU, &cpuLimit);
    if (!kAsan) {
      rlim_t as =
          baseAddressSpace_ + (static_cast<rlim_t>(flags_.rssLimitMb) << 20);
      struct rlimit asLimit {
        as, as
      };
      setrlimit(RLIMIT_AS, &asLimit);
    }
    std::set_new_handler([] {
      static const char message[] =
          "fuzz driver: out of memory (operator new)\n";
      (void)!write(STDERR_FILENO, message, sizeof(message) - 1);
      _exit(kExitOom);
    });
    // An exact-size copy: a read past the end leaves the input's bytes.
    uint8_t *copy = static_cast<uint8_t *>(std::malloc(slot.input.size() + 1));
    std::memcpy(copy, slot.input.data(), slot.input.size());
    LLVMFuzzerTestOneInput(copy, slot.input.size());
    int depth = tilec::fuzz::inputDepth ? tilec::fuzz::inputDepth() : 0;
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(kExitDone + std::clamp(depth, 0, 15));
  }

  static std::string readLog(int fd) {
    std::string log;
    off_t size = lseek(fd, 0, SEEK_END);
    if (size <= 0)
      return log;
    size_t keep = std::min<size_t>(static_cast<size_t>(size), 64 << 10);
    log.resize(keep);
    ssize_t got = pread(fd, log.data(), keep, 0);
    log.resize(got > 0 ? static_cast<size_t>(got) : 0);
    return log;
  }

  const Flags &flags_;
  size_t baseAddressSpace_ = 0;
};

//===----------------------------------------------------------------------===//
// Findings
//===----------------------------------------------------------------------===//

/// What tells two findings apart: the kind, and the first line of the
/// log that says what happened, or the first frames of its stack trace,
/// without addresses.
std::string signatureOf(const Result &r) {
  std::string sig = std::string(outcomeName(r.outcome)) + ": ";
  std::istringstream lines(r.log);
  std::string line, frames;
  int nframes = 0;
  while (std::getline(lines, line)) {
    if (line.find("LLVM ERROR") != std::string::npos ||
        line.find("Assertion") != std::string::npos ||
        line.find("terminate called") != std::string::npos ||
        line.find("ERROR: AddressSanitizer") != std::string::npos ||
        line.find("runtime error:") != std::string::npos)
      return sig + line.substr(0, 200);
    // LLVM's stack trace: " #3 0x00007f... mlir::Foo(...) (lib+0x...)".
    size_t hash = line.find('#');
    if (hash != std::string::npos && hash < 4 && nframes < 8) {
      size_t fn = line.find(' ', line.find("0x", hash));
      if (fn != std::string::npos) {
        std::string f = line.substr(fn + 1);
        f = f.substr(0, f.find(" ("));
        // Frames of the signal handler and the driver say nothing.
        if (f.find("llvm::sys::") == std::string::npos &&
            f.find("SignalHandler") == std::string::npos &&
            f.find("libc.so") == std::string::npos && !f.empty() &&
            f[0] != '0') {
          frames += (nframes ? " < " : "") + f.substr(0, 80);
          if (++nframes == 3)
            break;
        }
      }
    }
  }
  return sig + (frames.empty() ? r.what : frames);
}

struct Finding {
  std::string signature;
  size_t count = 0;
  size_t size = 0;
  std::string artifact;
};

class Findings {
public:
  explicit Findings(std::string prefix) : prefix_(std::move(prefix)) {}

  /// Records `r` of `input`; keeps the smallest input of each signature.
  void add(const Bytes &input, const Result &r) {
    std::string sig = signatureOf(r);
    Finding &f = bySignature_[sig];
    bool first = f.count++ == 0;
    if (!first && input.size() >= f.size)
      return;
    if (!f.artifact.empty()) {
      std::remove(f.artifact.c_str());
      std::remove((f.artifact + ".log").c_str());
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx",
                  static_cast<unsigned long long>(hashBytes(input)));
    f.signature = sig;
    f.size = input.size();
    f.artifact = prefix_ + outcomeName(r.outcome) + "-" + hex;
    std::ofstream(f.artifact, std::ios::binary) << input;
    std::ofstream log(f.artifact + ".log", std::ios::binary);
    log << "# " << sig << "\n# " << r.what << ", " << r.seconds << " s, "
        << r.maxRssMb << " MiB resident at most\n";
    if (tilec::fuzz::describeInput)
      log << "# reproduce: "
          << tilec::fuzz::describeInput(
                 reinterpret_cast<const uint8_t *>(input.data()), input.size())
          << "\n";
    log << r.log;
    std::printf("%s %s (%s, %.2f s, %zu MiB): %s\n",
                first ? "FINDING" : "smaller", outcomeName(r.outcome),
                r.what.c_str(), r.seconds, r.maxRssMb, f.artifact.c_str());
    if (first) {
      std::printf("  %s\n", sig.c_str());
      if (tilec::fuzz::describeInput)
        std::printf(
            "  reproduce: %s\n",
            tilec::fuzz::describeInput(
                reinterpret_cast<const uint8_t *>(input.data()), input.size())
                .c_str());
    }
    std::fflush(stdout);
  }

  size_t total() const {
    size_t n = 0;
    for (auto &[sig, f] : bySignature_)
      n += f.count;
    return n;
  }
  const std::map<std::string, Finding> &all() const { return bySignature_; }

private:
  std::string prefix_;
  std::map<std::string, Finding> bySignature_;
};

} // namespace

int main(int argc, char **argv) {
  Flags flags = parseFlags(argc, argv);
  if (flags.paths.empty())
    usage("give corpus folders (replay, then mutate) or files (run each)");

  // Folders are corpora; files alone are inputs to run once each.
  std::vector<std::pair<std::string, Bytes>> corpus;
  bool filesOnly = true;
  for (const std::string &p : flags.paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      filesOnly = false;
      std::vector<fs::path> files;
      for (const auto &e : fs::directory_iterator(p, ec))
        if (e.is_regular_file())
          files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const fs::path &f : files)
        if (auto b = readFile(f))
          corpus.emplace_back(f.string(), std::move(*b));
    } else if (auto b = readFile(p)) {
      corpus.emplace_back(p, std::move(*b));
    } else {
      usage("cannot read '" + p + "'");
    }
  }
  if (flags.maxLen == 0) {
    size_t longest = 0;
    for (auto &[name, b] : corpus)
      longest = std::max(longest, b.size());
    flags.maxLen = std::max<size_t>(4096, 2 * longest);
  }
  uint64_t seed =
      flags.seed
          ? *flags.seed
          : static_cast<uint64_t>(Clock::now().time_since_epoch().count());

  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  std::printf("INFO: seed %llu, %zu inputs, timeout %g s, memory %lld MiB, "
              "%d worker(s)\n",
              static_cast<unsigned long long>(seed), corpus.size(),
              flags.timeout, flags.rssLimitMb, flags.workers);
  std::fflush(stdout);

  // SIGCHLD is blocked so that the loop below can wait for it.
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, nullptr);
  Runner runner(flags);
  Findings findings(flags.artifactPrefix);
  Mutator mutator(seed, flags.maxLen);
  for (auto &[name, b] : corpus)
    mutator.learn(b);
  // The bases of mutations: the corpus, then inputs that went deep.
  std::vector<Bytes> pool;
  for (auto &[name, b] : corpus)
    pool.push_back(b);
  const size_t seeds = pool.size();
  constexpr size_t kPoolLimit = 4096;

  auto start = Clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  long long executed = 0, kept = 0;
  size_t replayed = 0;
  long long depthCount[16] = {};
  double lastReport = 0;
  auto budgetLeft = [&] {
    if (filesOnly)
      return replayed < corpus.size();
    if (replayed < corpus.size())
      return true; // the corpus is always replayed whole
    if (flags.runs >= 0 && executed >= flags.runs)
      return false;
    if (flags.maxTotalTime > 0 && elapsed() >= flags.maxTotalTime)
      return false;
    return flags.runs >= 0 || flags.maxTotalTime > 0;
  };

  std::vector<Slot> slots(static_cast<size_t>(flags.workers));
  size_t running = 0;
  while (true) {
    for (Slot &slot : slots) {
      if (slot.pid >= 0 || !budgetLeft())
        continue;
      if (replayed < corpus.size()) {
        slot.corpusFile = corpus[replayed].first;
        slot.input = corpus[replayed++].second;
      } else {
        size_t base = mutator.pick(2) && pool.size() > seeds
                          ? seeds + mutator.pick(pool.size() - seeds)
                          : mutator.pick(seeds);
        slot.input =
            mutator.mutate(pool[base], pool[mutator.pick(pool.size())]);
        slot.corpusFile.clear();
      }
      runner.start(slot);
      ++running;
    }
    if (running == 0)
      break;
    bool ended = false;
    for (Slot &slot : slots) {
      if (slot.pid < 0)
        continue;
      std::optional<Result> r = runner.poll(slot);
      if (!r)
        continue;
      ended = true;
      --running;
      ++executed;
      if (r->outcome != Outcome::Done) {
        // A corpus file that fails is named: it is a regression.
        if (!slot.corpusFile.empty())
          std::printf("FAILED %s: %s (%s)\n", slot.corpusFile.c_str(),
                      outcomeName(r->outcome), r->what.c_str());
        findings.add(slot.input, *r);
        continue;
      }
      ++depthCount[r->depth];
      // Without coverage, depth stands for it: an input that got through
      // the front end is kept as a base, one that went all the way always.
      if (slot.corpusFile.empty() &&
          ((r->depth >= 2) || (r->depth == 1 && mutator.pick(4) == 0))) {
        ++kept;
        if (pool.size() < kPoolLimit)
          pool.push_back(slot.input);
        else
          pool[seeds + mutator.pick(pool.size() - seeds)] = slot.input;
      }
    }
    if (!ended) {
      // Sleep until a child ends (SIGCHLD, blocked, stays pending until
      // taken here) or 10 ms pass for the deadlines and the memory watch.
      sigset_t chld;
      sigemptyset(&chld);
      sigaddset(&chld, SIGCHLD);
      struct timespec tick {
        0, 10 * 1000 * 1000
      };
      sigtimedwait(&chld, nullptr, &tick);
    }
    if (elapsed() - lastReport >= 10) {
      lastReport = elapsed();
      std::printf("#%lld\t%.0f s\texec/s: %.1f\tpool: %zu\tdepth 0/1/2: "
                  "%lld/%lld/%lld\tfindings: %zu\n",
                  executed, lastReport, executed / lastReport, pool.size(),
                  depthCount[0], depthCount[1], depthCount[2],
                  findings.total());
      std::fflush(stdout);
    }
  }

  double total = elapsed();
  std::printf("Done %lld runs in %.0f second(s)\n", executed, total);
  std::printf("stat::number_of_executed_units: %lld\n", executed);
  std::printf("stat::average_exec_per_sec:     %.0f\n",
              total > 0 ? executed / total : 0.0);
  std::printf("stat::new_units_added:          %lld\n", kept);
  std::printf("stat::depth_histogram:          %lld %lld %lld\n", depthCount[0],
              depthCount[1], depthCount[2]);
  std::printf("stat::findings:                 %zu (%zu distinct)\n",
              findings.total(), findings.all().size());
  for (auto &[sig, f] : findings.all())
    std::printf("  %zu x %s\n    smallest: %s (%zu bytes)\n", f.count,
                sig.c_str(), f.artifact.c_str(), f.size);
  return findings.total() ? 1 : 0;
}
