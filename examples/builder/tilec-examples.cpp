//===- tilec-examples.cpp - build the C++ example kernels -----------------===//
//
//   tilec-examples softmax                 tile IR on stdout
//   tilec-examples --compiled softmax      the pipeline's output on stdout
//   tilec-examples -o DIR softmax coscos   DIR/<name>.tile, and .ptx + .json
//                                          when the pipeline produces them
//   tilec-examples --list
//   tilec-examples --matmul-block 128,256,32 -o DIR matmul_bias_gelu
//                                          another tile of the matmul
//   tilec-examples --arch sm_90a -o DIR matmul
//                                          for that chip: the matmul takes
//                                          its tile, the PTX its target
//   tilec-examples --persistent matmul     persistent programs (grid: SMs)
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tilec/Pipeline.h"
#include "tilec/Support/CommandLine.h"
#include "tilec/Support/Files.h"
#include "tilec/Target/Target.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

using namespace tilec;

static bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    std::cerr << "tilec-examples: error: cannot write " << path << "\n";
    return false;
  }
  return true;
}

int main(int argc, char **argv) {
  std::string outDir, block, arch;
  bool compiled = false, list = false, persistent = false;
  int blockM = 0, blockN = 0, blockK = 0;
  std::vector<std::string> names;
  cli::CommandLine cl(
      "tilec-examples",
      "tilec-examples [--list] [--compiled] [-o DIR] [--matmul-block M,N,K] "
      "[--arch CHIP] [--persistent] NAME...",
      "Builds the C++ builder's example kernels: their tile IR on stdout, or "
      "with -o DIR the files DIR/NAME.tile, .ptx and .json.");
  CLI::App &app = cl.app();
  app.add_option("names", names, "the examples to build (see --list)");
  app.add_flag("--list", list, "list the examples and exit");
  app.add_flag("--compiled", compiled,
               "print the pipeline's tile-level output instead");
  app.add_option("-o", outDir, "write files into this folder");
  app.add_option("--matmul-block", block,
                 "another tile of matmul_bias_gelu (M,N,K)");
  app.add_option("--arch", arch,
                 "the chip to build for (" + Target::getKnownChipList() +
                     "; default " + std::string(Target::kDefaultChip) +
                     "): the matmul's default tile and the PTX's target");
  app.add_flag("--persistent", persistent,
               "matmul: persistent programs (launch one per SM; each loops "
               "over the output tiles)");
  if (int status = cl.parse(argc, argv); status >= 0)
    return status;
  if (list) {
    for (const examples::Example &e : examples::allExamples())
      std::cout << e.name << "\n";
    return 0;
  }
  if (!block.empty() &&
      std::sscanf(block.c_str(), "%d,%d,%d", &blockM, &blockN, &blockK) != 3)
    return cl.usageError("--matmul-block takes M,N,K, got '" + block + "'");
  if (names.empty())
    return cl.usageError("no example named (see --list)");
  if (!arch.empty())
    if (llvm::Expected<Target> t = Target::get(arch); !t)
      return cl.usageError("--arch: " + llvm::toString(t.takeError()));

  for (const std::string &name : names) {
    const examples::Example *example = nullptr;
    for (const examples::Example &e : examples::allExamples())
      if (name == e.name)
        example = &e;
    if (!example) {
      std::cerr << "tilec-examples: error: no example named '" << name
                << "' (see --list)\n";
      return 1;
    }
    try {
      // The builder checks the sizes (a BuildError at this call).
      Kernel k = blockM && name == "matmul_bias_gelu"
                     ? examples::buildMatmulBiasGelu(blockM, blockN, blockK)
                 : name == "matmul" ? examples::buildMatmul(arch, persistent)
                                    : example->build();
      if (outDir.empty()) {
        // The text tilec reads, or (--compiled) what its front end makes of it.
        PipelineOptions tileLevel;
        tileLevel.emit = EmitLevel::Tile;
        std::cout << (compiled ? k.compile(tileLevel).ir : k.str());
        continue;
      }
      // Files: the text, and the PTX + metadata the runtime loads.
      PipelineOptions options;
      if (!arch.empty())
        options.arch = arch;
      CompileResult result = k.compile(options);
      std::string error;
      if (!support::createFolders(outDir, error)) {
        std::cerr << "tilec-examples: error: " << error << "\n";
        return 1;
      }
      std::string base = outDir + "/" + name;
      if (!writeFile(base + ".tile", k.str()) ||
          !writeFile(base + ".ptx", result.ptx) ||
          !writeFile(base + ".json", runtime::writeMetadata(result.metadata)))
        return 1;
    } catch (const BuildError &e) {
      std::cerr << e.what() << "\n";
      return 1;
    }
  }
  return 0;
}
