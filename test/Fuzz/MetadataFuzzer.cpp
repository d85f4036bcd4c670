//===- MetadataFuzzer.cpp - libFuzzer target: the metadata reader ---------===//
//
// Any bytes given to tilec::runtime::parseMetadata are a parsed module or an
// error; never a crash, an abort or unbounded work (issue 17).
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Metadata.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view json(reinterpret_cast<const char *>(data), size);
  auto parsed = tilec::runtime::parseMetadata(json);
  if (parsed.ok())
    for (const auto &kernel : parsed->kernels)
      (void)parsed->find(kernel.name);
  return 0;
}
