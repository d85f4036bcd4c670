//===- tilec-aot.cpp - C++ headers for compiled kernels -------------------===//
//
//   tilec-aot k.ptx -o out/k_kernels [--metadata k.json] [--namespace ns]
//   tilec-aot k.cubin --torch -o out/k_torch.cpp [--library tilec]
//
// Reads compiled kernels (PTX or cubin) and their metadata (default: the
// input with .json for its extension) and writes out/k_kernels.h and
// out/k_kernels.cpp (lib/AOT/CppKernels.cpp says what they hold); with
// --torch, the one source of a PyTorch extension (lib/AOT/TorchExtension.cpp).
// Needs no
// MLIR, so it runs where the runtime builds.
//
//===----------------------------------------------------------------------===//

#include "tilec/AOT/CppKernels.h"
#include "tilec/AOT/TorchExtension.h"
#include "tilec/Runtime/Runtime.h"
#include "tilec/Support/CommandLine.h"
#include "tilec/Support/Files.h"

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
  aot::TorchExtensionOptions torchOptions;
  bool torch = false;
  cli::CommandLine cl("tilec-aot",
                      "tilec-aot INPUT.ptx|INPUT.cubin -o OUTPUT_BASE "
                      "[--metadata INPUT.json] [--namespace NAME] | "
                      "--torch -o OUTPUT.cpp [--library NAME]",
                      "Writes OUTPUT_BASE.h and OUTPUT_BASE.cpp: the kernels "
                      "embedded, one typed C++ function per kernel.");
  CLI::App &app = cl.app();
  app.add_option("input", input, "the compiled kernels (PTX or cubin)")
      ->required();
  app.add_option("-o,--output", output, "the outputs' path without .h/.cpp")
      ->required();
  app.add_option("--metadata", metadata,
                 "the kernels' metadata (default: INPUT with .json)");
  app.add_option("--namespace", options.namespaceName,
                 "the C++ namespace of the functions")
      ->default_str(options.namespaceName);
  app.add_flag("--torch", torch,
               "write a PyTorch extension (OUTPUT is its .cpp) registering "
               "each kernel as torch.ops.LIBRARY.<name>");
  app.add_option("--library", torchOptions.library,
                 "--torch's operator library (torch.ops.NAME)")
      ->default_str(torchOptions.library);
  if (int status = cl.parse(argc, argv); status >= 0)
    return status;
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
  std::string error;
  if (torch) {
    torchOptions.origin = baseName(input) + " and " + baseName(metadata);
    torchOptions.binaryName = input;
    torchOptions.metadataName = metadata;
    auto extension = aot::generateTorchExtension(*binary, *json, torchOptions);
    if (!extension.ok())
      return fail(extension.message());
    if (!support::createParentFolders(output, error) ||
        !writeFile(output, *extension, error))
      return fail(error);
    return 0;
  }
  options.headerInclude = baseName(output) + ".h";
  options.origin = baseName(input) + " and " + baseName(metadata);
  options.binaryName = input;
  options.metadataName = metadata;
  auto generated = aot::generateCppKernels(*binary, *json, options);
  if (!generated.ok())
    return fail(generated.message());
  if (!support::createParentFolders(output + ".h", error) ||
      !writeFile(output + ".h", generated->header, error) ||
      !writeFile(output + ".cpp", generated->source, error))
    return fail(error);
  return 0;
}
