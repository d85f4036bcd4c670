//===- tilec-aot.cpp - C++ headers for compiled kernels -------------------===//
//
//   tilec-aot k.ptx -o out/k_kernels [--metadata k.json] [--namespace ns]
//
// Reads compiled kernels (PTX or cubin) and their metadata (default: the
// input with .json for its extension) and writes out/k_kernels.h and
// out/k_kernels.cpp (lib/AOT/CppKernels.cpp says what they hold). Needs no
// MLIR, so it runs where the runtime builds.
//
//===----------------------------------------------------------------------===//

#include "tilec/aot/CppKernels.h"
#include "tilec/runtime/Runtime.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

using namespace tilec;

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "tilec-aot: error: %s\n", message.c_str());
  return 1;
}

const char *kUsage =
    "usage: tilec-aot INPUT.ptx|INPUT.cubin -o OUTPUT_BASE [--metadata "
    "INPUT.json] [--namespace NAME]\n"
    "  writes OUTPUT_BASE.h and OUTPUT_BASE.cpp: the kernels embedded, one\n"
    "  typed C++ function per kernel (default namespace tilec_kernels)\n";

bool writeFile(const std::string &path, const std::string &text,
               std::string &error) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok)
    error = "cannot write " + path + ": " + std::strerror(errno);
  return ok;
}

std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

int main(int argc, char **argv) {
  std::string input, output, metadata;
  aot::CppKernelsOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "-o" || arg == "--metadata" || arg == "--namespace") {
      const char *v = value();
      if (!v)
        return fail("option " + arg + " needs a value\n" + kUsage);
      (arg == "-o"           ? output
       : arg == "--metadata" ? metadata
                             : options.namespaceName) = v;
      continue;
    }
    if (!arg.empty() && arg[0] == '-')
      return fail("unknown option '" + arg + "'\n" + kUsage);
    if (!input.empty())
      return fail("more than one input ('" + input + "', '" + arg + "')\n" +
                  kUsage);
    input = arg;
  }
  if (input.empty())
    return fail(std::string("no input file\n") + kUsage);
  if (output.empty())
    return fail(std::string("no output (-o OUTPUT_BASE)\n") + kUsage);
  if (metadata.empty()) {
    size_t slash = input.find_last_of('/');
    size_t dot = input.find_last_of('.');
    bool hasExt =
        dot != std::string::npos && (slash == std::string::npos || dot > slash);
    metadata = (hasExt ? input.substr(0, dot) : input) + ".json";
  }

  auto binary = runtime::readFile(input);
  if (!binary.ok())
    return fail(binary.message());
  auto json = runtime::readFile(metadata);
  if (!json.ok())
    return fail(json.message());
  options.headerInclude = baseName(output) + ".h";
  options.origin = baseName(input) + " and " + baseName(metadata);
  auto generated = aot::generateCppKernels(*binary, *json, options);
  if (!generated.ok())
    return fail(input + ": " + generated.message());
  std::string error;
  if (!writeFile(output + ".h", generated->header, error) ||
      !writeFile(output + ".cpp", generated->source, error))
    return fail(error);
  return 0;
}
