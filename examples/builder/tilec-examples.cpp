//===- tilec-examples.cpp - build the C++ example kernels -----------------===//
//
//   tilec-examples softmax                 tile IR on stdout
//   tilec-examples --compiled softmax      the pipeline's output on stdout
//   tilec-examples -o DIR softmax coscos   DIR/<name>.tile, and .ptx + .json
//                                          when the pipeline produces them
//   tilec-examples --list
//   tilec-examples --matmul-block 128,256,32 -o DIR matmul_bias_gelu
//                                          another tile of the matmul
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tilec/Pipeline.h"

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

static int usage() {
  std::cerr << "usage: tilec-examples [--list] [--compiled] [-o DIR] "
               "[--matmul-block M,N,K] NAME...\n";
  return 2;
}

int main(int argc, char **argv) {
  std::string outDir;
  bool compiled = false;
  int blockM = 0, blockN = 0, blockK = 0;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--list")) {
      for (const examples::Example &e : examples::allExamples())
        std::cout << e.name << "\n";
      return 0;
    }
    if (!std::strcmp(argv[i], "--compiled")) {
      compiled = true;
    } else if (!std::strcmp(argv[i], "--matmul-block")) {
      if (++i == argc ||
          std::sscanf(argv[i], "%d,%d,%d", &blockM, &blockN, &blockK) != 3) {
        std::cerr << "tilec-examples: error: --matmul-block takes M,N,K\n";
        return 2;
      }
    } else if (!std::strcmp(argv[i], "-o")) {
      if (++i == argc)
        return usage();
      outDir = argv[i];
    } else {
      names.push_back(argv[i]);
    }
  }
  if (names.empty())
    return usage();

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
                     : example->build();
      if (outDir.empty()) {
        // The text tilec reads, or (--compiled) what its front end makes of it.
        PipelineOptions tileLevel;
        tileLevel.emit = EmitLevel::Tile;
        std::cout << (compiled ? k.compile(tileLevel).ir : k.str());
        continue;
      }
      // Files: the text, and the PTX + metadata the runtime loads.
      CompileResult result = k.compile();
      std::string base = outDir + "/" + name;
      if (!writeFile(base + ".tile", k.str()) ||
          !writeFile(base + ".ptx", result.ptx) ||
          !writeFile(base + ".json", result.metadataJson))
        return 1;
    } catch (const BuildError &e) {
      std::cerr << e.what() << "\n";
      return 1;
    }
  }
  return 0;
}
