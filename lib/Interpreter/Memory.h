//===- Memory.h - host buffers and the memory checker -----------*- C++ -*-===//
//
// Kernel pointers are packed words: the buffer's id (1-based) in the top 16
// bits, a signed byte offset in the low 48. Pointer arithmetic only changes
// the offset, so an access can always be checked against the one buffer the
// pointer was derived from, and a report can name it and the offset even
// when the offset is far outside it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_INTERPRETER_MEMORY_H
#define TILEC_LIB_INTERPRETER_MEMORY_H

#include "tilec/Interpreter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilec::interp {

/// A host buffer the kernel may access.
struct Buffer {
  std::string name; ///< for messages: "%x" or "argument 0"
  DType dtype;
  uint8_t *data;
  uint64_t count; ///< elements of dtype
  uint64_t bytes;
  /// One flag per byte, set once written; empty unless the buffer was passed
  /// as an output (its initial contents undefined).
  std::vector<uint8_t> written;
  /// Per byte, the program (Memory::program) whose plain store wrote it
  /// last, 0 for none; allocated by the first store when races are checked.
  std::vector<uint32_t> writer;
};

/// Why an access is invalid.
enum class Fault { None, OutOfBounds, Misaligned, Uninitialized };

class Memory {
public:
  /// Adds a buffer; returns a pointer to its first byte.
  int64_t addBuffer(Buffer buffer);

  static unsigned bufferId(int64_t ptr) { return uint64_t(ptr) >> 48; }
  static int64_t byteOffset(int64_t ptr) {
    return int64_t(uint64_t(ptr) << 16) >> 16;
  }
  /// `ptr` moved by `bytes`; offsets that leave the 48-bit range saturate at
  /// its ends (still out of bounds).
  static int64_t advance(int64_t ptr, int64_t bytes);

  /// Checks an access of `size` bytes at `ptr`.
  Fault check(int64_t ptr, unsigned size, bool isRead) const;
  /// The host address of a checked pointer.
  uint8_t *address(int64_t ptr) const {
    return buffers[bufferId(ptr) - 1].data + byteOffset(ptr);
  }
  /// Records that `size` bytes at `ptr` were written.
  void markWritten(int64_t ptr, unsigned size) {
    Buffer &b = buffers[bufferId(ptr) - 1];
    if (!b.written.empty())
      std::fill_n(b.written.begin() + byteOffset(ptr), size, 1);
  }
  const Buffer &buffer(int64_t ptr) const { return buffers[bufferId(ptr) - 1]; }

  /// Race checks between programs: on when `program` (the running program's
  /// stamp, nonzero) is set.
  uint32_t program = 0;
  /// The stamp of another program whose plain store wrote one of the `size`
  /// bytes at `ptr`, or 0.
  uint32_t otherWriter(int64_t ptr, unsigned size) const;
  /// Records that the running program's plain store wrote `size` bytes.
  void stampWrite(int64_t ptr, unsigned size);

  /// Describes where `ptr` points, for messages: "offset 1000 of %x (1000
  /// elements of f32)", in units of `accessSize`-byte elements when aligned.
  std::string describe(int64_t ptr, unsigned accessSize) const;

private:
  std::vector<Buffer> buffers;
};

/// Reads one element of `dtype` at `addr`: sign-extended integers (i1 as
/// 0/-1), or float values.
int64_t loadInt(const uint8_t *addr, DType dtype);
double loadFloat(const uint8_t *addr, DType dtype);
/// Writes one element of `dtype` at `addr`.
void storeInt(uint8_t *addr, DType dtype, int64_t value);
void storeFloat(uint8_t *addr, DType dtype, double value);

} // namespace tilec::interp

#endif // TILEC_LIB_INTERPRETER_MEMORY_H
