//===- HostArgs.h - kernel arguments from command-line specs ----*- C++ -*-===//
//
// What `tilec-run` (and `tilec --run-cpu`) use to turn one text spec per
// kernel parameter into host buffers and scalars for the interpreter. The
// specs themselves, .npy files, writing and comparing the results are
// MLIR-free and shared with tilec-gpu-run (tilec/Support/HostArgs.h); this
// adds what needs MLIR: parameter types, and the interpreter's Arg.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_INTERP_HOSTARGS_H
#define TILEC_INTERP_HOSTARGS_H

#include "tilec/Interpreter.h"
#include "tilec/Support/HostArgs.h"

#include "llvm/Support/Error.h"

namespace tilec {

/// Builds the argument of one kernel parameter of type `paramType` from its
/// spec. `name` (without '%') is used in messages and printing.
llvm::Expected<HostArg> parseHostArg(llvm::StringRef spec, mlir::Type paramType,
                                     llvm::StringRef name);

/// The Arg for runKernel (pointing into `arg.data`).
Arg toArg(HostArg &arg);

} // namespace tilec

#endif // TILEC_INTERP_HOSTARGS_H
