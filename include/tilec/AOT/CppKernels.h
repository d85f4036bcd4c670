//===- CppKernels.h - ahead-of-time C++ kernel headers ----------*- C++ -*-===//
//
// Turns compiled kernels (PTX text or a cubin) and their metadata into a C++
// header and source that embed both and give each kernel a typed function:
//
//   tilec_kernels::softmax(stream, grid, x, y, n_cols);
//
// with DevicePtr<float> for `ptr<f32>` parameters and int32_t/float/... for
// scalars, so that a program includes the header, compiles the source and
// links the runtime, with no files to find at run time. `tilec-aot` and
// `tilec --emit=cpp-header` both call generateCppKernels. Needs no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_AOT_CPPKERNELS_H
#define TILEC_AOT_CPPKERNELS_H

#include "tilec/Runtime/Metadata.h"
#include "tilec/Runtime/Status.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::aot {

struct CppKernelsOptions {
  /// The C++ namespace of the generated code ("a::b" allowed).
  std::string namespaceName = "tilec_kernels";
  /// How the source includes the header: `#include "<headerInclude>"`
  /// (empty: no include, for a source pasted after the header).
  std::string headerInclude = "kernels.h";
  /// Where the kernels came from, for the generated files' comments.
  std::string origin;
  /// The files of the binary and of the metadata, put in front of the
  /// errors about each (empty: none).
  std::string binaryName, metadataName;
};

struct CppKernels {
  std::string header;
  std::string source;
};

/// Generates the header and source. `binary` is PTX text or a cubin/fatbin
/// (told apart by content). Fails on invalid metadata, on kernels of the
/// metadata that are not `.entry` functions of the PTX, and on kernel or
/// namespace names that cannot be C++ identifiers; a parameter whose name
/// cannot be one is called argN (its position) instead.
runtime::Expected<CppKernels>
generateCppKernels(std::string_view binary, std::string_view metadataJson,
                   const CppKernelsOptions &options = {});
/// The same from metadata in memory (a CompileResult's): `tilec
/// --emit=cpp-header` never goes through a JSON file.
runtime::Expected<CppKernels>
generateCppKernels(std::string_view binary,
                   const runtime::ModuleMetadata &metadata,
                   const CppKernelsOptions &options = {});

/// True for a name the generated C++ may use as is: an identifier that is
/// not a C++ keyword and not reserved (no `__`, no leading `_` + capital).
bool isCppIdentifier(std::string_view s);

/// The C++ type a generated launch function takes for parameter `p`:
/// `::tilec::runtime::DevicePtr<float>` for a `ptr<f32>`, `int32_t`,
/// `const ::tilec::runtime::TensorDescArg &` for a descriptor.
std::string cppParamType(const runtime::ParamInfo &p);

/// The C++ names of `k`'s parameters: the metadata's where usable, `name_`
/// where it is a C++ keyword or in `reserved` (names the calling code
/// declares), else argN.
std::vector<std::string> cppParamNames(const runtime::KernelMetadata &k,
                                       const std::set<std::string> &reserved);

} // namespace tilec::aot

#endif // TILEC_AOT_CPPKERNELS_H
