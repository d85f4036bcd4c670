//===- Status.h - errors of the tilec runtime -------------------*- C++ -*-===//
//
// The runtime reports every failure (no driver, bad metadata, a refused
// launch, a CUDA error) as a Status or an Expected<T> carrying a message:
// tilec's one error type of the MLIR-free code (tilec/Support/Status.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_STATUS_H
#define TILEC_RUNTIME_STATUS_H

#include "tilec/Support/Status.h"

namespace tilec::runtime {
using ::tilec::Expected;
using ::tilec::Status;
} // namespace tilec::runtime

#endif // TILEC_RUNTIME_STATUS_H
