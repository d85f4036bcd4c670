//===- Memory.cpp - host buffers and the memory checker -------------------===//

#include "Memory.h"
#include "FloatFormats.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

using namespace tilec;
using namespace tilec::interp;

static constexpr int64_t kMaxOffset = (int64_t(1) << 47) - 1;

int64_t Memory::addBuffer(Buffer buffer) {
  buffers.push_back(std::move(buffer));
  return int64_t(uint64_t(buffers.size()) << 48);
}

int64_t Memory::advance(int64_t ptr, int64_t bytes) {
  int64_t offset = byteOffset(ptr);
  int64_t moved;
  if (__builtin_add_overflow(offset, bytes, &moved))
    moved = bytes < 0 ? -kMaxOffset : kMaxOffset;
  moved = std::clamp(moved, -kMaxOffset, kMaxOffset);
  return int64_t((uint64_t(ptr) & ~((uint64_t(1) << 48) - 1)) |
                 (uint64_t(moved) & ((uint64_t(1) << 48) - 1)));
}

Fault Memory::check(int64_t ptr, unsigned size, bool isRead) const {
  const Buffer &b = buffer(ptr);
  int64_t offset = byteOffset(ptr);
  if (offset < 0 || uint64_t(offset) + size > b.bytes)
    return Fault::OutOfBounds;
  if (offset % size)
    return Fault::Misaligned;
  if (isRead && !b.written.empty())
    for (unsigned i = 0; i < size; ++i)
      if (!b.written[offset + i])
        return Fault::Uninitialized;
  return Fault::None;
}

uint32_t Memory::otherWriter(int64_t ptr, unsigned size) const {
  const Buffer &b = buffer(ptr);
  if (!program || b.writer.empty())
    return 0;
  int64_t offset = byteOffset(ptr);
  for (unsigned i = 0; i < size; ++i) {
    uint32_t w = b.writer[offset + i];
    if (w && w != program)
      return w;
  }
  return 0;
}

void Memory::stampWrite(int64_t ptr, unsigned size) {
  if (!program)
    return;
  Buffer &b = buffers[bufferId(ptr) - 1];
  if (b.writer.empty())
    b.writer.assign(b.bytes, 0);
  std::fill_n(b.writer.begin() + byteOffset(ptr), size, program);
}

std::string Memory::describe(int64_t ptr, unsigned accessSize) const {
  const Buffer &b = buffer(ptr);
  int64_t offset = byteOffset(ptr);
  std::string text;
  llvm::raw_string_ostream os(text);
  unsigned elemSize = dtypeSize(b.dtype);
  if (offset % accessSize == 0)
    os << "offset " << offset / int64_t(accessSize);
  else
    os << "byte offset " << offset;
  if (accessSize != elemSize)
    os << " (" << accessSize << "-byte elements)";
  os << " of " << b.name << ", which has " << b.count << " element"
     << (b.count == 1 ? "" : "s") << " of " << dtypeName(b.dtype);
  return text;
}

int64_t interp::loadInt(const uint8_t *addr, DType dtype) {
  // Tiles hold i1 true as -1 (all ones), as MLIR's integer semantics do.
  int64_t v = loadIntElement(addr, dtype);
  return dtype == DType::I1 ? -v : v;
}

double interp::loadFloat(const uint8_t *addr, DType dtype) {
  return loadFloatElement(addr, dtype);
}

void interp::storeInt(uint8_t *addr, DType dtype, int64_t value) {
  storeIntElement(addr, dtype, value);
}

void interp::storeFloat(uint8_t *addr, DType dtype, double value) {
  storeFloatElement(addr, dtype, value);
}
