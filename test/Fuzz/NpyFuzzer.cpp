//===- NpyFuzzer.cpp - libFuzzer target: the .npy reader -------------------===//
//
// The first byte picks the element type expected, the rest is the file: a
// parsed array (whose size matches its header) or an error (issue 17).
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/Npy.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  static const tilec::DType types[] = {
      tilec::DType::F32, tilec::DType::F16, tilec::DType::BF16,
      tilec::DType::I32, tilec::DType::I64, tilec::DType::I1,
      tilec::DType::F64, tilec::DType::I8};
  tilec::DType type = types[data[0] % (sizeof(types) / sizeof(types[0]))];
  std::string_view bytes(reinterpret_cast<const char *>(data + 1), size - 1);
  auto array = tilec::parseNpy(bytes, type, "fuzz.npy");
  if (array.ok()) {
    size_t elements = 1;
    for (auto d : array->shape)
      elements *= d;
    if (array->data.size() != elements * tilec::dtypeSize(type))
      std::abort(); // a parsed array must hold what its header says
  }
  return 0;
}
