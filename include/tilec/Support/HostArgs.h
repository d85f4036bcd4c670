//===- HostArgs.h - kernel arguments from command-line specs ----*- C++ -*-===//
//
// One text spec per kernel parameter becomes a host buffer or a scalar, and
// after a run the buffers are written, printed and compared with reference
// files. tilec-run (on the CPU interpreter) and tilec-gpu-run (on the GPU,
// built without MLIR) share this code, so a spec means the same in both and
// both generate the same random inputs for a seed. docs/interpreter.md
// describes the syntax:
//
//   1000                      a scalar, parsed as the parameter's type
//   n=1000,rand=7,min=0       a buffer of 1000 random elements
//   in=x.npy                  a buffer read from a .npy (or raw) file
//   n=1000,out=y.npy          an output buffer, written after the run
//   n=1000,expect=ref.npy     an output buffer compared with a file
//   rand=7,shape=40x96        a tensor descriptor's buffer and tensor
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_HOSTARGS_H
#define TILEC_SUPPORT_HOSTARGS_H

#include "tilec/DType.h"
#include "tilec/Support/Status.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilec {

/// A kernel parameter as a spec is parsed against it.
struct HostParam {
  std::string name; ///< without '%', for messages and printing
  bool isPointer = false;
  DType dtype = DType::I32; ///< the pointee type of a pointer
};

/// The tensor of a tensor descriptor argument, from its spec's shape= and
/// strides= items (elements, outermost first; strides empty: contiguous).
struct TensorDescSpec {
  std::vector<int64_t> shape, strides;
};

/// A kernel argument built from a spec, owning its buffer.
struct HostArg {
  std::string spec;
  std::string name; ///< without '%'
  bool isBuffer = false;
  DType dtype = DType::I32;
  std::vector<uint8_t> data;        ///< the buffer's bytes
  bool isOutput = false;            ///< no source: contents undefined before
  std::string inPath;               ///< in=: where the contents came from
  std::string savePath;             ///< save=: written before the run
  std::string outPath;              ///< out=: written after the run
  bool print = false;               ///< printed after the run
  std::string expectPath;           ///< expect=: compared with after the run
  std::optional<double> atol, rtol; ///< tolerances of the comparison
  int64_t intValue = 0;             ///< integer scalars (i1: 0 or 1)
  double floatValue = 0;            ///< float scalars
  /// A tensor descriptor's tensor (shape empty for others).
  TensorDescSpec desc;

  size_t count() const { return data.size() / dtypeSize(dtype); }
};

/// What every element of an output buffer starts as: all bits set is NaN in
/// every float type, so that unwritten elements stand out. tilec-run and
/// tilec-gpu-run poison alike, so an element that neither run writes
/// compares equal.
inline constexpr uint8_t kPoisonByte = 0xff;

/// The most bytes one buffer spec may ask for (n=), so that a typo gives a
/// message rather than an allocation failure.
inline constexpr uint64_t kMaxBufferBytes = uint64_t(16) << 30;

/// Parses a launch grid "X[,Y[,Z]]" (decimal counts; missing dims are 1)
/// into `dims`, as tilec-run, tilec-gpu-run and tilec-tune take it. A
/// count of 0 parses (the launch refuses it with its own message).
bool parseGridText(std::string_view text, int64_t dims[3]);

/// Builds the argument of `param` from its spec. Errors read
/// "argument %x ('SPEC'): why". A buffer may take at most `maxBufferBytes`
/// (the fuzzer asks for less than the tools' kMaxBufferBytes).
Expected<HostArg> parseHostArg(std::string_view spec, const HostParam &param,
                               uint64_t maxBufferBytes = kMaxBufferBytes);


/// Splits a tensor descriptor's spec ("n=..,rand=1,shape=200x64[,strides=
/// 64x1]") into its buffer spec (`rest`) and `d`. Without n= or in=, the
/// buffer gets n= the elements the tensor spans. Returns an error message
/// ("argument %NAME ('SPEC'): why"), or empty.
std::string splitTensorDescSpec(const std::string &spec,
                                const std::string &name, std::string &rest,
                                TensorDescSpec &d);

/// Writes the buffers that asked for it with save= (their contents before
/// the run: the inputs a run on another device needs).
Status saveHostInputs(const std::vector<HostArg> &args);

/// Writes the buffers that asked for it with out=, and appends the lines of
/// those that asked for print ("%y[3] = 1.5") to `printed`.
Status writeHostOutputs(const std::vector<HostArg> &args,
                                 std::string &printed);

/// An element as tilec-run prints it: "%.9g" for floats, decimal integers
/// (i1 as 0 or 1).
std::string formatElement(const uint8_t *addr, DType dtype);

/// The elements of a file of `dtype`: .npy (its descr must be the dtype's),
/// else raw little-endian bytes.
Expected<std::vector<uint8_t>> readElements(const std::string &path,
                                                   DType dtype);

/// Default comparison tolerances {atol, rtol}: a few units in the last place
/// of the dtype, relative, and as much absolute near zero; 0 for integers.
std::pair<double, double> defaultTolerance(DType dtype);

/// The outcome of comparing a buffer with its reference.
struct Comparison {
  double atol = 0, rtol = 0;
  size_t count = 0;      ///< elements compared
  size_t mismatches = 0; ///< elements out of tolerance
  /// Mismatches where the result still holds the poison (kPoisonByte in
  /// every byte) and the reference does not: elements never written.
  size_t unwritten = 0;
  std::vector<size_t> firstMismatches; ///< the first few, in index order
  /// Largest |got - want| over elements finite in both, and where.
  double maxAbsError = 0;
  size_t maxAbsErrorAt = 0;
  /// ||got - want|| / ||want|| (2-norms over elements finite in both;
  /// ||got - want|| alone when the reference is all zero).
  double normRelError = 0;
  bool ok() const { return mismatches == 0; }
};

/// Compares `got` with `want` (elements of `dtype`, the same size):
/// |got - want| <= atol + rtol * |want| elementwise, NaN matches NaN,
/// integers exactly unless a tolerance is given. Keeps up to `keep` mismatch
/// indices.
Comparison compareElements(DType dtype, std::span<const uint8_t> got,
                           std::span<const uint8_t> want, double atol,
                           double rtol, size_t keep = 10);

/// The reference of `arg`'s expect= file, checked to hold as many elements
/// as the buffer ("%y has 4 elements but 'ref.npy' holds 3").
Expected<std::vector<uint8_t>> readExpected(const HostArg &arg);

/// Compares the buffers that asked for it (expect=) with their files, with
/// their tolerances or the dtype's defaults. Fails naming the first buffer
/// that differs, how many elements do and the first of them.
Status checkHostExpectations(const std::vector<HostArg> &args);

} // namespace tilec

#endif // TILEC_SUPPORT_HOSTARGS_H
