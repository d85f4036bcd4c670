//===- Program.h - the PTX simulator's decoded program ----------*- C++ -*-===//
//
// What the parser (Parser.cpp) makes of a kernel and the interpreter
// (Block.h) runs: instructions with their modifiers decoded into enums,
// operands, symbols, registers by index; and the number conversions and
// text helpers both use. Internal to test/lib/PtxSim.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_PTXSIM_PROGRAM_H
#define TILEC_TEST_PTXSIM_PROGRAM_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxsim::detail {

struct SimError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const std::string &msg) { throw SimError(msg); }

//===----------------------------------------------------------------------===//
// Numbers
//===----------------------------------------------------------------------===//

inline uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float u2f(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint64_t d2u(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
inline double u2d(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

inline uint16_t f32ToBf16(float f) {
  uint32_t u = f2u(f);
  if (std::isnan(f))
    return uint16_t((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1); // round to nearest even
  return uint16_t(u >> 16);
}
inline float bf16ToF32(uint16_t h) { return u2f(uint32_t(h) << 16); }

inline uint16_t f32ToF16(float f) {
  uint32_t u = f2u(f);
  uint32_t sign = (u >> 16) & 0x8000;
  int32_t exp = int32_t((u >> 23) & 0xff);
  uint32_t man = u & 0x7fffff;
  if (exp == 0xff)
    return uint16_t(sign | 0x7c00 | (man ? 0x200 : 0));
  int32_t e = exp - 127 + 15;
  if (e >= 31)
    return uint16_t(sign | 0x7c00);
  if (e <= 0) { // subnormal or zero
    if (e < -10)
      return uint16_t(sign);
    man |= 0x800000;
    uint32_t shift = uint32_t(14 - e);
    uint32_t half = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = uint32_t(e) << 10 | (man >> 13);
  uint32_t rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is right
  return uint16_t(sign | half);
}
inline float f16ToF32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0) {
    if (man == 0)
      return u2f(sign);
    float f = std::ldexp(float(man), -24);
    return sign ? -f : f;
  }
  if (exp == 31)
    return u2f(sign | 0x7f800000 | (man << 13));
  return u2f(sign | ((exp + 112) << 23) | (man << 13));
}

inline float ftz(float f) {
  if (std::fpclassify(f) == FP_SUBNORMAL)
    return std::copysign(0.0f, f);
  return f;
}

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

enum Ty : uint8_t {
  T_NONE, T_B8, T_B16, T_B32, T_B64, T_U8, T_U16, T_U32, T_U64, T_S8,
  T_S16, T_S32, T_S64, T_F16, T_F16X2, T_BF16, T_BF16X2, T_F32, T_F64, T_PRED,
  T_U16X2, T_S16X2,
  // Only as wgmma's A and B types (the parser takes them nowhere else).
  T_E4M3, T_E5M2,
  // Only as cvt's packed fp8 pairs (to and from f32 / f16x2 pairs).
  T_E4M3X2, T_E5M2X2
};

inline Ty parseTy(const std::string &s) {
  static const std::map<std::string, Ty> m = {
      {"b8", T_B8},       {"b16", T_B16},   {"b32", T_B32},
      {"b64", T_B64},     {"u8", T_U8},     {"u16", T_U16},
      {"u32", T_U32},     {"u64", T_U64},   {"s8", T_S8},
      {"s16", T_S16},     {"s32", T_S32},   {"s64", T_S64},
      {"f16", T_F16},     {"f16x2", T_F16X2}, {"bf16", T_BF16},
      {"bf16x2", T_BF16X2}, {"f32", T_F32}, {"f64", T_F64},
      {"pred", T_PRED},   {"u16x2", T_U16X2}, {"s16x2", T_S16X2}};
  auto it = m.find(s);
  return it == m.end() ? T_NONE : it->second;
}
inline const char *tyName(Ty t) {
  static const char *names[] = {
      "(none)", "b8",  "b16",  "b32",   "b64",  "u8",     "u16",
      "u32",    "u64", "s8",   "s16",   "s32",  "s64",    "f16",
      "f16x2",  "bf16", "bf16x2", "f32", "f64",  "pred", "u16x2",
      "s16x2",  "e4m3", "e5m2", "e4m3x2", "e5m2x2"};
  return names[t];
}
/// PTX's other fundamental and packed types (PTX ISA 8.x): an instruction
/// on one of them is refused, where ignoring the modifier would compute on
/// the wrong bits.
inline bool isUnmodelledPtxType(const std::string &s) {
  static const char *names[] = {
      "b128",   "tf32",   "e4m3",   "e5m2",   "e4m3x2", "e5m2x2", "e4m3x4",
      "e5m2x4", "e2m1",   "e2m1x2", "e2m1x4", "e3m2",   "e3m2x2", "e2m3",
      "e2m3x2", "ue8m0",  "ue8m0x2", "s4",    "u4",     "s2",     "u2",
      "f32x2",  "f16x4",  "bf16x4", "f8",     "f8x2"};
  for (const char *n : names)
    if (s == n)
      return true;
  return false;
}
inline unsigned bitsOf(Ty t) {
  switch (t) {
  case T_B8: case T_U8: case T_S8: case T_E4M3: case T_E5M2: return 8;
  case T_E4M3X2: case T_E5M2X2:
  case T_B16: case T_U16: case T_S16: case T_F16: case T_BF16: return 16;
  case T_B64: case T_U64: case T_S64: case T_F64: return 64;
  case T_PRED: return 1;
  default: return 32;
  }
}
inline bool isSigned(Ty t) {
  return t == T_S8 || t == T_S16 || t == T_S32 || t == T_S64;
}
/// Two 16-bit integers in a 32-bit register (min/max of PTX 8.0).
inline bool isPackedInt(Ty t) { return t == T_U16X2 || t == T_S16X2; }
inline bool isFloat(Ty t) {
  return t == T_F16 || t == T_F16X2 || t == T_BF16 || t == T_BF16X2 ||
         t == T_F32 || t == T_F64;
}
inline uint64_t maskBits(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}
inline int64_t sext(uint64_t v, unsigned bits) {
  if (bits >= 64)
    return int64_t(v);
  uint64_t m = uint64_t(1) << (bits - 1);
  v &= maskBits(bits);
  return int64_t((v ^ m) - m);
}

enum Op : uint8_t {
  O_MOV, O_ADD, O_SUB, O_MUL, O_MAD, O_FMA, O_DIV, O_REM, O_ABS, O_NEG,
  O_MIN, O_MAX, O_AND, O_OR, O_XOR, O_NOT, O_SHL, O_SHR, O_SHF, O_SETP,
  O_SELP, O_CVT, O_CVTA, O_LD, O_ST, O_BAR, O_SHFL, O_BRA, O_RET, O_EX2,
  O_RSQRT, O_RCP, O_SQRT, O_LG2, O_SIN, O_COS, O_TANH, O_COPYSIGN, O_POPC,
  O_CLZ, O_BREV, O_BFE, O_BFI, O_PRMT, O_MMA, O_LDMATRIX, O_CPASYNC,
  O_CPCOMMIT, O_CPWAIT, O_NOP, O_ADDC, O_SUBC, O_MADC, O_TESTP, O_ATOM, O_RED,
  // sm_90a: warpgroup MMA, mbarriers, the Tensor Memory Accelerator.
  O_WGMMA_FENCE, O_WGMMA, O_WGMMA_COMMIT, O_WGMMA_WAIT, O_MBAR_INIT,
  O_MBAR_ARRIVE, O_MBAR_EXPECT_TX, O_MBAR_WAIT, O_MBAR_INVAL, O_TMA_LOAD,
  O_TMA_STORE, O_BULK_COMMIT, O_BULK_WAIT, O_FENCE_PROXY_ASYNC,
  O_FENCE_MBAR_INIT, O_SETMAXNREG, O_ELECT,
  // sm_90 thread-block clusters.
  O_MAPA, O_CLUSTER_ARRIVE, O_CLUSTER_WAIT
};

enum Space : uint8_t { S_GENERIC, S_GLOBAL, S_SHARED, S_LOCAL, S_PARAM };

enum Special : uint8_t {
  SP_TID_X, SP_TID_Y, SP_TID_Z, SP_NTID_X, SP_NTID_Y, SP_NTID_Z,
  SP_CTAID_X, SP_CTAID_Y, SP_CTAID_Z, SP_NCTAID_X, SP_NCTAID_Y, SP_NCTAID_Z,
  SP_LANEID, SP_WARPID, SP_CLOCK, SP_DYNAMIC_SMEM,
  // The CTA's place in its cluster (all from the kernel's
  // .reqnctapercluster: a kernel without one runs in clusters of one CTA).
  SP_CLUSTERID_X, SP_CLUSTERID_Y, SP_CLUSTERID_Z,
  SP_NCLUSTERID_X, SP_NCLUSTERID_Y, SP_NCLUSTERID_Z,
  SP_CLUSTER_CTAID_X, SP_CLUSTER_CTAID_Y, SP_CLUSTER_CTAID_Z,
  SP_CLUSTER_NCTAID_X, SP_CLUSTER_NCTAID_Y, SP_CLUSTER_NCTAID_Z,
  SP_CLUSTER_CTARANK, SP_CLUSTER_NCTARANK, SP_IS_EXPLICIT_CLUSTER
};

struct Operand {
  enum Kind : uint8_t { Reg, Imm, Addr, Vec, Spec, Sym, Label, Sink } kind =
      Imm;
  int reg = -1;      ///< Reg, Addr base
  uint64_t imm = 0;  ///< Imm (bits), Spec (which), Label (index), Sym
  bool immFloat = false, immDouble = false;
  int sym = -1;       ///< Addr / Sym: symbol index
  int64_t offset = 0; ///< Addr
  std::vector<Operand> elems;
};

struct Symbol {
  std::string name;
  Space space;
  uint64_t addr = 0; ///< shared/local offset, global host address
  size_t size = 0;
  int param = -1;
};

struct Inst {
  Op op = O_NOP;
  Ty ty = T_NONE, ty2 = T_NONE; ///< type; source type of cvt
  Space space = S_GENERIC;
  int predReg = -1;
  bool predNeg = false;
  // Decoded modifiers.
  std::string cmp;        ///< setp comparison, shfl mode, shf dir, atom op
  std::string boolOp;     ///< setp .and/.or/.xor
  std::string rnd;        ///< cvt rounding
  bool ftz = false, sat = false, hi = false, wide = false, lo = false;
  bool cc = false, trans = false, approx = false, wrap = false;
  bool relu = false;      ///< min/max .relu: a negative result becomes 0
  bool arrive = false;    ///< bar.arrive: count toward the barrier, no wait
  bool tf32 = false;      ///< cvt to .tf32, or mma on .tf32 operands
  bool propagateNaN = false; ///< min/max .NaN: a NaN operand gives NaN
  /// setp.f16x2/.bf16x2 `p|q`: q, the predicate of the high halves (p, the
  /// low halves', is ops[0]).
  Operand highPred;
  bool pairDst = false;
  unsigned vec = 1;       ///< ld/st .v2/.v4; ldmatrix .x1/.x2/.x4
  unsigned m = 0, n = 0, k = 0;
  Ty mmaD = T_NONE, mmaA = T_NONE, mmaC = T_NONE;
  Ty mmaB = T_NONE; ///< wgmma's B type
  /// mbarrier try_wait/test_wait .parity; arrive .expect_tx; setmaxnreg
  /// .inc; cp.async.bulk.wait_group .read.
  bool parity = false, expectTx = false, inc = false, readOnly = false;
  unsigned dims = 0;       ///< cp.async.bulk.tensor .1d ... .5d
  bool cacheHint = false;  ///< .L2::cache_hint: one more operand, a hint
  /// The state space named was .shared::cluster (not .shared or
  /// .shared::cta): its addresses may lie in another CTA of the cluster.
  bool clusterSpace = false;
  /// cp.async.bulk.tensor .multicast::cluster: one more operand, ctaMask;
  /// barrier.cluster.arrive .relaxed: it releases nothing.
  bool multicast = false, relaxed = false;
  std::vector<Operand> ops;
  int line = 0;
  std::string text;
};

constexpr uint64_t kReservedShared = 1024;

struct Program {
  std::vector<Inst> insts;
  std::vector<Symbol> symbols;
  std::map<std::string, int> symbolIndex;
  std::map<std::string, int> regIndex;
  std::vector<unsigned> paramSizes;
  /// Register names by index, for messages.
  std::vector<std::string> regNames;
  /// Registers that some wgmma.mma_async reads or writes: the only ones
  /// whose accesses the wgmma rules constrain.
  std::vector<uint8_t> wgmmaRegister;
  /// Each register's width in bits (0: unknown), from its declaration or
  /// LLVM's naming of it.
  std::vector<uint8_t> regBits;
  size_t localSize = 0;
  /// The end of the static shared variables; they start after the 1 KiB
  /// the driver reserves at the bottom of a block's shared memory window
  /// (cudaDevAttrReservedSharedMemoryPerBlock, sm_80 and later: an sm_90
  /// kernel's dynamic shared memory starts at address 1024).
  size_t staticShared = kReservedShared;
  /// The dynamic array's alignment (its `.align`).
  size_t dynamicAlign = 16;
  /// The entry's `.reqnctapercluster` (1, 1, 1 without one) and whether it
  /// declared a cluster (`.explicitcluster` or `.reqnctapercluster`).
  unsigned cluster[3] = {1, 1, 1};
  bool explicitCluster = false;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> globals;
};

inline std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

inline std::vector<std::string> splitTop(const std::string &s, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '[' || c == '{')
      ++depth;
    if (c == ']' || c == '}')
      --depth;
    if (c == sep && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty())
    out.push_back(trim(cur));
  return out;
}

inline std::vector<std::string> splitDots(const std::string &s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == '.') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

inline bool parseInt(const std::string &s, int64_t &v) {
  if (s.empty())
    return false;
  char *end = nullptr;
  std::string t = s;
  if (!t.empty() && (t.back() == 'U' || t.back() == 'u'))
    t.pop_back();
  if (t.size() > 2 && (t[0] == '0' || t[0] == '-') &&
      (t.find("0x") != std::string::npos || t.find("0X") != std::string::npos))
    v = int64_t(std::strtoull(t.c_str(), &end, 16));
  else if (std::isdigit(static_cast<unsigned char>(t[0])))
    v = int64_t(std::strtoull(t.c_str(), &end, 10)); // up to 2^64 - 1
  else if (t[0] == '-')
    v = std::strtoll(t.c_str(), &end, 10);
  else
    return false;
  return end && *end == '\0';
}

inline bool isComparison(const std::string &t) {
  static const char *names[] = {
      "eq",  "ne",  "lt",  "le",   "gt",   "ge",     "lo",       "ls",
      "hi",  "hs",  "equ", "neu",  "ltu",  "leu",    "gtu",      "geu",
      "num", "nan", "bfly", "up",  "down", "idx",    "l",        "r",
      "finite", "infinite", "number", "notanumber", "normal", "subnormal"};
  for (const char *n : names)
    if (t == n)
      return true;
  return false;
}

/// Parses the entry `kernel` of the PTX module `text` into `p`; fails
/// (SimError) naming the line of what it cannot parse or does not model.
void parseProgram(Program &p, const std::string &text,
                  const std::string &kernel);

} // namespace ptxsim::detail

#endif // TILEC_TEST_PTXSIM_PROGRAM_H
