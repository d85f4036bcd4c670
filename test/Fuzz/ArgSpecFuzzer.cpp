//===- ArgSpecFuzzer.cpp - libFuzzer target: argument specs ---------------===//
//
// tilec-run's and tilec-gpu-run's --arg specs ("n=4000,rand=1", "3.5"),
// parsed against a pointer or a scalar parameter that the first byte picks:
// an argument or an error, never a crash (issue 17). Specs naming files
// (in=, expect=, save=, out=) are left out: file I/O is not the parser's
// behaviour. Buffers are limited to 64 MiB here (the tools allow 16 GiB).
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/HostArgs.h"

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

// Files are not the parser's business: specs that name one are left out.
static bool namesFile(const std::string &spec) {
  for (const char *key : {"in", "expect", "save", "out"})
    for (size_t at = spec.find(key); at != std::string::npos;
         at = spec.find(key, at + 1)) {
      size_t i = at + std::strlen(key);
      while (i < spec.size() && std::isspace(static_cast<unsigned char>(spec[i])))
        ++i;
      if (i < spec.size() && spec[i] == '=')
        return true;
    }
  return false;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  static const tilec::DType types[] = {tilec::DType::F32, tilec::DType::F16,
                                       tilec::DType::BF16, tilec::DType::I32,
                                       tilec::DType::I64, tilec::DType::I1};
  tilec::HostParam param;
  param.name = "x";
  param.isPointer = data[0] & 1;
  param.dtype = types[(data[0] >> 1) % (sizeof(types) / sizeof(types[0]))];
  std::string spec(reinterpret_cast<const char *>(data + 1), size - 1);
  if (namesFile(spec))
    return 0;
  // Buffers of up to 64 MiB: the tools' 16 GiB is valid but beyond the
  // fuzzer's memory.
  auto arg = tilec::parseHostArg(spec, param, uint64_t(64) << 20);
  if (arg.ok() && arg->isBuffer &&
      arg->data.size() != arg->count() * tilec::dtypeSize(arg->dtype))
    std::abort(); // a buffer holds whole elements
  return 0;
}
