// Built against an installed tilec with find_package(tilec): the vector add
// of examples/builder/add.cpp, built with the C++ API and compiled to PTX
// in-process; writes OUT.ptx and its metadata OUT.json (docs/metadata.md).
//   outside-builder add.ptx
#include "tilec/Builder.h"
#include "tilec/Pipeline.h"

#include <cstdio>
#include <fstream>
#include <string>

static bool write(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return bool(out);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: outside-builder OUT.ptx\n");
    return 2;
  }
  std::string ptx = argv[1];
  try {
    tilec::Kernel k("add");
    tilec::Value x = k.pointer("x", tilec::f32, 16);
    tilec::Value y = k.pointer("y", tilec::f32, 16);
    tilec::Value z = k.pointer("z", tilec::f32, 16);
    tilec::Value n = k.scalar("n", tilec::i32);
    tilec::Value offs = k.programId(0) * 1024 + k.range(1024);
    tilec::Value mask = offs < n;
    k.store(z + offs, k.load(x + offs, mask) + k.load(y + offs, mask), mask);
    tilec::CompileResult r = k.compile();
    std::string json = ptx.substr(0, ptx.rfind('.')) + ".json";
    if (!write(ptx, r.ptx) ||
        !write(json, tilec::runtime::writeMetadata(r.metadata))) {
      std::fprintf(stderr, "outside-builder: cannot write %s\n", ptx.c_str());
      return 1;
    }
    std::printf("%s: %s(%s)\n", ptx.c_str(), r.metadata.kernels[0].name.c_str(),
                r.metadata.kernels[0].signature().c_str());
  } catch (const tilec::BuildError &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
