//===- Metadata.h - the kernels' metadata (docs/metadata.md) ----*- C++ -*-===//
//
// The contract between tilec and the runtime: what each kernel is called,
// how many threads a program has, its dynamic shared memory and its
// parameters. One definition for both sides: the compiler hands these
// structs out in its CompileResult (tilec/Pipeline.h) and the runtime loads
// kernels with them. JSON is only the file form (`k.json`, docs/metadata.md):
// writeMetadata() writes it, parseMetadata() reads it back, checking every
// field and naming the kernel and parameter of the first bad one.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_METADATA_H
#define TILEC_RUNTIME_METADATA_H

#include "tilec/Runtime/Status.h"
#include "tilec/Runtime/Types.h"
#include "tilec/Support/GridRule.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::runtime {

/// Most dimensions a tensor descriptor has (the TMA's limit).
inline constexpr int kMaxTensorRank = 5;

/// What a tensor_desc parameter fixes at compile time: the block one TMA copy
/// moves (outermost dimension first), the shared-memory swizzle, and what
/// reads out of bounds give.
struct TensorDescInfo {
  int rank = 0;
  /// The box of one TMA copy (cuTensorMapEncodeTiled's boxDim).
  int64_t block[kMaxTensorRank] = {};
  /// The block one descriptor_load / descriptor_store moves (the kernel's
  /// tensordesc type): `block` repeated along the innermost dimension when
  /// the box is narrower (`"tile"`; the box itself when absent). A
  /// caller's grid follows from it.
  int64_t tile[kMaxTensorRank] = {};
  /// Swizzle span in bytes: 0 (none), 32, 64 or 128.
  int swizzle = 0;
  /// Out-of-bounds elements read as NaN (`"fill": "nan"`), else as zero.
  bool nanFill = false;

  bool operator==(const TensorDescInfo &) const = default;
};

/// One PTX parameter of a kernel.
struct ParamInfo {
  enum class Kind : uint8_t { Pointer, Scalar, TensorDesc };
  std::string name;
  Kind kind = Kind::Scalar;
  /// The pointee type of a pointer, the type of a scalar, the element type
  /// of a tensor descriptor.
  DType type = DType::I32;
  /// Integers are multiples of it; pointers' byte addresses are.
  int64_t divisibility = 1;
  /// Kind::TensorDesc only.
  TensorDescInfo desc;
  /// Pointers and tensor descriptors: the kernel writes through it
  /// (`"output": true`): a pointer marked `tile.output`, a descriptor the
  /// kernel stores through (tilec derives it). Bindings that know which
  /// arguments mutate (PyTorch's schemas) read it; the launch does not.
  bool output = false;
  /// Pointers: how many elements the kernel may reach from it, as a rule
  /// over the integer scalars (`"extent": "n"`, `tile.extent`), when the
  /// kernel declares one. Bindings with sized tensors (PyTorch, DLPack)
  /// check it; a bare address cannot be.
  std::optional<grid::Expr> extent;
  /// Pointers and tensor descriptors: the sizes of the dense tensor the
  /// parameter addresses, outermost first, as rules over the integer
  /// scalars (`"shape": ["M", "N"]`, `tile.shape`), when the kernel
  /// declares them. A pointer's extent is then their product (tilec writes
  /// both). Bindings with sized tensors check the sizes, and PyTorch's
  /// operators allocate an output that has a shape (docs/pytorch.md).
  std::vector<grid::Expr> shape;
  /// Integer scalars: the tensor argument a binding that is given tensors
  /// takes the value from (`"from": "a.size(0)"`, `tile.from`), so that
  /// its callers do not pass it: PyTorch's operators (docs/pytorch.md).
  /// The launch itself takes the value as any scalar.
  std::optional<grid::Source> from;
  /// Bytes the parameter takes in the kernel ABI (8 for pointers; i1 is
  /// widened to 4; 128 for a tensor descriptor, a CUtensorMap by value).
  unsigned abiBytes() const;

  bool operator==(const ParamInfo &) const = default;
};

/// What ptxas reported for a kernel (`ptxas -v`): the metadata carries it
/// when tilec ran ptxas (--emit=cubin, --resource-usage, a C++ header that
/// embeds a cubin), so that a spilling kernel is visible without a GPU.
struct KernelResources {
  /// Registers per thread.
  int registers = 0;
  /// Bytes of register spills written to and read from local memory.
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  /// The stack frame per thread (spills and local arrays).
  int64_t stackBytes = 0;
  /// Static shared memory (`.shared` declarations), beside the dynamic
  /// `shared_bytes` the launch passes.
  int64_t staticSharedBytes = 0;

  bool spills() const { return spillStoreBytes > 0 || spillLoadBytes > 0; }
  bool operator==(const KernelResources &) const = default;
};

/// One kernel of a module.
struct KernelMetadata {
  std::string name;
  int numWarps = 0;
  int threadsPerProgram = 0;
  int64_t sharedBytes = 0;
  /// Programs per thread-block cluster along the grid's x axis
  /// (`"num_ctas"`, the kernel's `tile.num_ctas`; 1, 2 or 4): the launch's
  /// x must be a multiple of it.
  int numCtas = 1;
  std::vector<ParamInfo> params;
  /// How the launch grid follows from the integer scalars (`"grid"`, the
  /// `tile.grid` attribute); empty when the kernel declares none (the
  /// caller then gives the grid).
  grid::Rule grid;
  /// ptxas's report (`"resources"`), when tilec ran ptxas; empty for PTX
  /// compiled without it.
  std::optional<KernelResources> resources;
  /// How many of `params` are tensor descriptors.
  unsigned tensorDescCount() const;

  /// "x: ptr<f32>, y: ptr<f32>, n_cols: i32", for messages and docs.
  std::string signature() const;

  bool operator==(const KernelMetadata &) const = default;
};

/// The metadata format version this runtime reads (and tilec writes).
inline constexpr int kMetadataVersion = 1;

/// A `tilec-kernels` document.
struct ModuleMetadata {
  int version = kMetadataVersion;
  /// "sm_90", "sm_90a", ...: a chip of tilec/Target/Chip.h (checked).
  std::string target;
  std::vector<KernelMetadata> kernels;

  /// The kernel named `name`, or null.
  const KernelMetadata *find(std::string_view name) const;
  /// "add, softmax" (or "none"), for messages.
  std::string kernelNames() const;

  bool operator==(const ModuleMetadata &) const = default;
};

/// Parses and checks a metadata document. Errors start with
/// "invalid kernel metadata: " and name the field (kernels[0] 'softmax',
/// params[2] 'n_cols', ...). Unknown keys are ignored so that newer tilec
/// versions can add fields without breaking older runtimes.
Expected<ModuleMetadata> parseMetadata(std::string_view json);

/// The `tilec-kernels` document of `metadata` (one field per line, two-space
/// indent, ending in a newline): what tilec writes as `k.json` and what
/// parseMetadata reads back to an equal ModuleMetadata. Writes what it is
/// given; the reader is the check.
std::string writeMetadata(const ModuleMetadata &metadata);

/// The kernels of a `ptxas -v` report (its stderr), by entry name:
///
///   ptxas info    : Compiling entry function 'softmax' for 'sm_90'
///   ptxas info    : Function properties for softmax
///       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
///   ptxas info    : Used 27 registers, used 1 barriers, 32 bytes smem
///
/// Lines it does not know are skipped; a kernel without a "Used N registers"
/// line is left out.
std::map<std::string, KernelResources> parsePtxasReport(std::string_view report);

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_METADATA_H
