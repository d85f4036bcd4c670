//===- Npy.h - reading and writing .npy files -------------------*- C++ -*-===//
//
// The .npy files that tilec-run and tilec-gpu-run read inputs from and
// write results to (numpy's format, so that PyTorch and numpy scripts read
// them). MLIR-free: the GPU machine builds it without LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_NPY_H
#define TILEC_SUPPORT_NPY_H

#include "tilec/DType.h"
#include "tilec/Support/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilec {

/// A .npy array: its dtype (from the header's descr) and raw little-endian
/// elements in C order.
struct NpyArray {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// The descr a dtype is stored under: '<f4', '|b1', ...; bf16 and the fp8
/// types, which numpy lacks, as their bits ('<u2', '|u1').
std::string_view npyDescr(DType dtype);

/// Parses the bytes of a .npy file (format 1.0-3.0, C order) whose elements
/// must be of `expected`. `path` is only for messages.
Expected<NpyArray> parseNpy(std::string_view bytes, DType expected,
                                   std::string_view path);
/// Reads a .npy file whose elements must be of `expected`.
Expected<NpyArray> readNpy(const std::string &path, DType expected);

/// The bytes of a .npy file (format 1.0) holding `data`, elements of
/// `dtype`, with `shape` (empty: 1-D). The data starts at a multiple of 64
/// bytes, as numpy writes it.
std::string formatNpy(DType dtype, std::span<const uint8_t> data,
                      std::span<const int64_t> shape = {});
/// Writes formatNpy(...) to `path`.
Status writeNpy(const std::string &path, DType dtype,
                         std::span<const uint8_t> data,
                         std::span<const int64_t> shape = {});

/// Reads a whole file; the error names it ("cannot read 'x': reason").
Expected<std::string> readFileBytes(const std::string &path);
/// Writes a whole file; the error names it ("cannot write 'x': reason").
Status writeFileBytes(const std::string &path, std::string_view data);

} // namespace tilec

#endif // TILEC_SUPPORT_NPY_H
