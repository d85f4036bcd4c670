//===- DeviceModelFuzzer.cpp - libFuzzer target: device model JSON --------===//
//
// tilec-analyze --device=FILE.json: a model or an error naming the bad
// value, never a crash (issue 17).
//
//===----------------------------------------------------------------------===//

#include "tilec/PerfModel/DeviceModel.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const tilec::perfmodel::DeviceModel fallback =
      *tilec::perfmodel::builtinDeviceModel("h200");
  std::string_view json(reinterpret_cast<const char *>(data), size);
  auto model = tilec::perfmodel::parseDeviceModel(json, "fuzz.json", fallback);
  if (model.ok()) {
    tilec::perfmodel::Resources r;
    r.threadsPerProgram = 128;
    r.registers = 32;
    r.staticSharedBytes = 0;
    (void)tilec::perfmodel::computeOccupancy(*model, r);
  }
  return 0;
}
