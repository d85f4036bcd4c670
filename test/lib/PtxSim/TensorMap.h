//===- TensorMap.h - the stand-in driver's tensor-map encoding --*- C++ -*-===//
//
// What the stand-in driver's cuTensorMapEncodeTiled writes into the 128
// opaque bytes of a CUtensorMap, and how the PTX simulator reads it back
// when a kernel's cp.async.bulk.tensor names the map. The 128 bytes are
// 16 little-endian qwords:
//   q0 kFakeTensorMapMagic, q1 global address, q2..q6 globalDim[0..4],
//   q7..q10 globalStrides[0..3] (bytes; the stride of dimension i + 1),
//   q11 boxDim[i] << 12i,
//   q12 elementStrides[i] << 4i | dataType << 20 | rank << 28 |
//       interleave << 32 | swizzle << 36 | l2Promotion << 40 | oobFill << 44,
//   q13, q14 zero, q15 FNV-1a of q0..q14,
// in CUDA's dimension order (0 innermost) and with CUDA's enumerators'
// values. The real driver's encoding is undocumented; this one is
// recognizable, so that a launch can check that a parameter is a map the
// driver made.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_PTXSIM_TENSORMAP_H
#define TILEC_TEST_PTXSIM_TENSORMAP_H

#include <cstdint>
#include <cstring>
#include <string>

namespace ptxsim {

constexpr uint64_t kFakeTensorMapMagic = 0x50414d434c495454ull; // "TTILCMAP"

/// A tiled tensor map, as cuTensorMapEncodeTiled takes it. The enumerators
/// are CUDA's (CUtensorMapDataType, ...Interleave, ...Swizzle,
/// ...L2promotion, ...FloatOOBfill).
struct TensorMap {
  uint64_t address = 0;
  unsigned rank = 0;
  uint64_t dims[5] = {};
  uint64_t strides[4] = {}; ///< bytes between elements of dimension i + 1
  unsigned box[5] = {}, elementStrides[5] = {};
  unsigned dataType = 0, interleave = 0, swizzle = 0, l2Promotion = 0,
           oobFill = 0;
};

/// The bytes of one element of CUtensorMapDataType `t`; 0 for the packed
/// 4- and 6-bit types, which nothing here models.
inline unsigned tensorMapElementBytes(unsigned t) {
  switch (t) {
  case 0: // UINT8
    return 1;
  case 1: // UINT16
  case 6: // FLOAT16
  case 9: // BFLOAT16
    return 2;
  case 2:  // UINT32
  case 3:  // INT32
  case 7:  // FLOAT32
  case 10: // FLOAT32_FTZ
  case 11: // TFLOAT32
  case 12: // TFLOAT32_FTZ
    return 4;
  case 4: // UINT64
  case 5: // INT64
  case 8: // FLOAT64
    return 8;
  default:
    return 0;
  }
}

inline uint64_t fakeTensorMapHash(const uint64_t *q, int n) {
  uint64_t h = 1469598103934665603ull; // FNV-1a
  for (int i = 0; i < n; ++i)
    for (int b = 0; b < 8; ++b) {
      h ^= (q[i] >> (8 * b)) & 0xff;
      h *= 1099511628211ull;
    }
  return h;
}

inline void encodeTensorMap(const TensorMap &m, unsigned char out[128]) {
  uint64_t q[16] = {};
  q[0] = kFakeTensorMapMagic;
  q[1] = m.address;
  for (unsigned i = 0; i < m.rank; ++i) {
    q[2 + i] = m.dims[i];
    q[11] |= uint64_t(m.box[i]) << (12 * i);
    q[12] |= uint64_t(m.elementStrides[i]) << (4 * i);
  }
  for (unsigned i = 0; i + 1 < m.rank; ++i)
    q[7 + i] = m.strides[i];
  q[12] |= uint64_t(m.dataType) << 20 | uint64_t(m.rank) << 28 |
           uint64_t(m.interleave) << 32 | uint64_t(m.swizzle) << 36 |
           uint64_t(m.l2Promotion) << 40 | uint64_t(m.oobFill) << 44;
  q[15] = fakeTensorMapHash(q, 15);
  std::memcpy(out, q, sizeof q);
}

/// Reads a map encodeTensorMap wrote. Returns "" or why `bytes` are no
/// such map.
inline std::string decodeTensorMap(const unsigned char bytes[128],
                                   TensorMap &m) {
  uint64_t q[16];
  std::memcpy(q, bytes, sizeof q);
  if (q[0] != kFakeTensorMapMagic || q[15] != fakeTensorMapHash(q, 15))
    return "is not a tensor map this driver encoded";
  m = TensorMap();
  m.address = q[1];
  m.rank = unsigned(q[12] >> 28) & 0xf;
  if (m.rank < 1 || m.rank > 5)
    return "has rank " + std::to_string(m.rank);
  for (unsigned i = 0; i < m.rank; ++i) {
    m.dims[i] = q[2 + i];
    m.box[i] = unsigned(q[11] >> (12 * i)) & 0xfff;
    m.elementStrides[i] = unsigned(q[12] >> (4 * i)) & 0xf;
  }
  for (unsigned i = 0; i + 1 < m.rank; ++i)
    m.strides[i] = q[7 + i];
  m.dataType = unsigned(q[12] >> 20) & 0xf;
  m.interleave = unsigned(q[12] >> 32) & 0xf;
  m.swizzle = unsigned(q[12] >> 36) & 0xf;
  m.l2Promotion = unsigned(q[12] >> 40) & 0xf;
  m.oobFill = unsigned(q[12] >> 44) & 0xf;
  return "";
}

} // namespace ptxsim

#endif // TILEC_TEST_PTXSIM_TENSORMAP_H
