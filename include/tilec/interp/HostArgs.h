//===- HostArgs.h - kernel arguments from command-line specs ----*- C++ -*-===//
//
// What `tilec-run` (and `tilec --run-cpu`) use to turn one text spec per
// kernel parameter into host buffers and scalars, and to write the buffers
// back after the run. docs/interpreter.md describes the spec syntax:
//
//   1000                      a scalar, parsed as the parameter's type
//   n=1000,rand=7,min=0       a buffer of 1000 random elements
//   in=x.npy                  a buffer read from a .npy (or raw) file
//   n=1000,out=y.npy          an output buffer, written after the run
//   n=1000,expect=ref.npy     an output buffer compared with a file
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_INTERP_HOSTARGS_H
#define TILEC_INTERP_HOSTARGS_H

#include "tilec/Interpreter.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// A kernel argument built from a spec, owning its buffer.
struct HostArg {
  std::string spec;
  std::string name; ///< without '%'; empty if unknown
  bool isBuffer = false;
  DType dtype = DType::I32;
  std::vector<uint8_t> data;        ///< the buffer's bytes
  bool isOutput = false;            ///< contents undefined before the run
  std::string outPath;              ///< written after the run when set
  bool print = false;               ///< printed after the run
  std::string expectPath;           ///< compared with after the run when set
  std::optional<double> atol, rtol; ///< tolerances of the comparison
  int64_t intValue = 0;             ///< scalars
  double floatValue = 0;

  size_t count() const { return data.size() / dtypeSize(dtype); }
  /// The Arg for runKernel (pointing into `data`).
  Arg toArg();
};

/// Builds the argument of one kernel parameter of type `paramType` from its
/// spec. `name` (without '%') is used in messages and printing.
llvm::Expected<HostArg> parseHostArg(llvm::StringRef spec, mlir::Type paramType,
                                     llvm::StringRef name);

/// Writes the buffers that asked for it (out=, print) after a run; prints
/// to `os`.
llvm::Error writeHostOutputs(std::vector<HostArg> &args, llvm::raw_ostream &os);

/// Compares the buffers that asked for it (expect=) with their files:
/// |got - want| <= atol + rtol * |want| elementwise (NaN matches NaN), with
/// defaults by dtype (exact for integers). Fails naming the first mismatch.
llvm::Error checkHostExpectations(std::vector<HostArg> &args);

/// A .npy array: its dtype (from the header's descr) and raw little-endian
/// elements.
struct NpyArray {
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// Reads a .npy file (format 1.0-3.0, C order). bf16 and the fp8 types,
/// which numpy lacks, are read from unsigned-integer arrays of their width
/// when `expected` asks for them.
llvm::Expected<NpyArray> readNpy(llvm::StringRef path, DType expected);
/// Writes a 1-D .npy file; bf16 and fp8 are written as their bits (u2/u1).
llvm::Error writeNpy(llvm::StringRef path, DType dtype,
                     llvm::ArrayRef<uint8_t> data);

} // namespace tilec

#endif // TILEC_INTERP_HOSTARGS_H
