//===- FloatFormats.h - the float formats in the interpreter ----*- C++ -*-===//
//
// The formats live in lib/Support (tilec-gpu-run encodes and decodes
// elements with them too); the interpreter's code names them unqualified
// inside tilec::interp, where its own formatOf(mlir::Type) would otherwise
// hide the DType overload.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_INTERPRETER_FLOATFORMATS_H
#define TILEC_LIB_INTERPRETER_FLOATFORMATS_H

#include "tilec/Interpreter.h"
#include "tilec/Support/FloatFormats.h"

namespace tilec::interp {
using tilec::decodeFloat;
using tilec::encodeFloat;
using tilec::FloatFormat;
using tilec::formatOf;
using tilec::getRoundFn;
using tilec::RoundFn;
using tilec::RoundMode;
using tilec::roundToFormat;
} // namespace tilec::interp

#endif // TILEC_LIB_INTERPRETER_FLOATFORMATS_H
