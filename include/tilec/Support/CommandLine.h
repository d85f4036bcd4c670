//===- CommandLine.h - the tools' option parsing (CLI11) --------*- C++ -*-===//
//
// tilec-gpu-run, tilec-profile, tilec-aot, tilec-bench and tilec-examples
// parse their options with CLI11 through this class, so that they agree
// with each other and with tilec (LLVM's cl::opt): `--opt=value` and
// `--opt value`, `--help` (usage, description and the options on stdout,
// exit 0), `--version` ("TOOL (tilec VERSION, commit C)" on stdout, exit
// 0), and a usage error is "TOOL: error: MESSAGE" naming the option,
// then the usage line, on stderr with exit status 2.
//
// Header-only, as CLI11 is: only the tools include it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_COMMANDLINE_H
#define TILEC_SUPPORT_COMMANDLINE_H

#include "tilec/Version.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace tilec::cli {

/// The exit status of every usage error.
inline constexpr int kUsageError = 2;

/// What --version prints for `tool`: "TOOL (tilec 0.3.0, commit abc)", the
/// commit left out when the build was not configured from a git checkout.
inline std::string versionLine(const std::string &tool) {
  std::string line = tool + " (tilec " TILEC_VERSION;
  if (*TILEC_GIT_COMMIT)
    line += std::string(", commit ") + TILEC_GIT_COMMIT;
  return line + ")";
}

/// --help as tilec's tools print it: "usage: SYNOPSIS", the description,
/// then CLI11's list of arguments and options.
class HelpFormatter : public CLI::Formatter {
public:
  explicit HelpFormatter(std::string synopsis)
      : synopsis_(std::move(synopsis)) {}
  std::string make_help(const CLI::App *app, std::string,
                        CLI::AppFormatMode mode) const override {
    std::string out = "usage: " + synopsis_ + "\n";
    if (!app->get_description().empty())
      out += "\n" + app->get_description() + "\n";
    out += make_positionals(app);
    out += make_groups(app, mode);
    if (!app->get_footer().empty())
      out += "\n" + app->get_footer() + "\n";
    return out;
  }

private:
  std::string synopsis_;
};

/// One tool's command line.
class CommandLine {
public:
  /// `tool` names the tool in messages; `synopsis` follows "usage: ".
  CommandLine(std::string tool, std::string synopsis, std::string description)
      : app_(std::move(description), tool), tool_(std::move(tool)),
        synopsis_(std::move(synopsis)) {
    app_.formatter(std::make_shared<HelpFormatter>(synopsis_));
    app_.get_formatter()->column_width(26);
    app_.set_help_flag("-h,--help", "print this help and exit");
    app_.set_version_flag("--version", versionLine(tool_),
                          "print tilec's version and exit");
    // Extra arguments are collected and reported by parse(), which says
    // "unknown option" (CLI11: "The following argument was not expected").
    app_.allow_extras();
  }

  /// Where the tool declares its options.
  CLI::App &app() { return app_; }

  /// Parses `argv`. -1: go on; otherwise the tool exits with the status
  /// returned, after --help (0) or a usage error (kUsageError), both
  /// printed.
  int parse(int argc, char **argv) {
    try {
      app_.parse(argc, argv);
    } catch (const CLI::CallForHelp &) {
      std::fputs(app_.help().c_str(), stdout);
      return 0;
    } catch (const CLI::CallForVersion &v) {
      std::printf("%s\n", v.what());
      return 0;
    } catch (const CLI::ParseError &e) {
      return usageError(e.what());
    }
    std::vector<std::string> extra = app_.remaining();
    if (extra.empty())
      return -1;
    const std::string &first = extra.front();
    if (first.size() > 1 && first[0] == '-')
      return usageError("unknown option '" + first + "'");
    return usageError("unexpected argument '" + first + "'");
  }

  /// Reports a usage error found after parsing (a value of the wrong
  /// form): `message` should name the option. Returns kUsageError.
  int usageError(const std::string &message) const {
    std::fprintf(stderr,
                 "%s: error: %s\nusage: %s\n(--help lists the "
                 "options)\n",
                 tool_.c_str(), message.c_str(), synopsis_.c_str());
    return kUsageError;
  }

private:
  CLI::App app_;
  std::string tool_, synopsis_;
};

} // namespace tilec::cli

#endif // TILEC_SUPPORT_COMMANDLINE_H
