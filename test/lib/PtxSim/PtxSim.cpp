//===- PtxSim.cpp - a PTX interpreter for tests without a GPU -------------===//
//
// Parsing: the module's `.global` arrays and `.extern .shared` symbols, the
// entry's parameters, its `.local` depot, labels and instructions (inline
// assembly included: registers are global by name, labels belong to their
// innermost `{ }` block, as LAB_WAIT in each of tilec's try_wait loops).
// Each instruction's dotted modifiers are decoded once into enums; one the
// simulator does not honour for that instruction is an error there.
//
// Execution: one block at a time; its threads run one after another until
// each reaches a barrier, a warp-collective instruction (shfl, mma,
// ldmatrix), a warpgroup instruction (wgmma.*, setmaxnreg), an mbarrier
// try_wait that returned false, or the end; a collective runs when all
// lanes of the warp (all 128 threads of the warpgroup) wait at the same
// one, a barrier when its thread count arrived (`bar.sync id, count`, or
// the whole block), a sleeper wakes when its mbarrier's phase completes.
// Only when no thread can run does the oldest TMA load land (its bytes,
// then complete_tx on its mbarrier), so that a thread reading a copy's
// destination without waiting runs first and is reported. Registers hold
// raw bits (64 per register); floating-point arithmetic is done in
// float/double with PTX's rounding where it matters (f16/bf16 round to
// nearest even). Shared memory keeps, per byte, who wrote and read it in
// which barrier interval, to report races (a barrier or a completed
// mbarrier phase starts a new interval for every thread: exact for the
// threads that took part, optimistic for the others).
//
// sm_90a (Hopper.h has the ISA's arithmetic):
// - wgmma.mma_async m64nNk16 with .f32 accumulators and bf16/f16 A and B,
//   A from a matrix descriptor or registers, B from one: every layout of
//   the ISA (K- or MN-major by imm-trans, no swizzle or a 32-, 64-,
//   128-byte one), imm-scale-a/b, scale-d. Issuing checks the operands
//   (descriptors and scale-d the same in all 128 threads, a wgmma.fence
//   since each register's last access) and locks the shared bytes and
//   registers it uses; the product is computed when the wait_group that
//   retires it runs, from shared memory then: until then a write of those
//   bytes (st.shared, cp.async, TMA), an access of those registers (other
//   than by the next wgmma of the same accumulator) or the block's exit is
//   an error, and a missing wait leaves wrong numbers too.
// - cp.async.bulk.tensor .1d-.5d .tile loads with mbarrier::complete_tx
//   (out-of-bounds elements zero, the map's swizzle applied to the shared
//   address) and stores with bulk_group (out-of-bounds elements dropped,
//   run at cp.async.bulk.wait_group); the tensor map is the stand-in
//   driver's encoding (TensorMap.h), at a cvta.param'd parameter or in
//   global memory.
// - mbarrier init/arrive{.expect_tx}/expect_tx/try_wait{.parity}/
//   test_wait/inval with the ISA's phases and transaction counts;
//   fence.mbarrier_init (or fence.proxy.async) must follow an init before a
//   TMA signals the object.
// - fence.proxy.async: shared bytes written through the generic proxy
//   (st.shared, cp.async) and read by wgmma or a TMA store need one from
//   their writer after the write.
// - setmaxnreg (its operand's range only), named barriers with counts.
// Not modelled, an error where met: clusters of more than one CTA
// (.shared::cluster is the CTA's own memory), multicast, im2col, bulk
// copies without .tensor, tf32/fp8/integer wgmma, .f16 accumulators,
// sparse wgmma, descriptor base offsets, interleaved maps, NaN fill,
// element strides, the 128-byte swizzles with 32/64-byte atoms.
//
//===----------------------------------------------------------------------===//

#include "PtxSim.h"

#include "Hopper.h"
#include "TensorMap.h"

#include <algorithm>
#include <cmath>
#include <cfenv>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace ptxsim {
namespace {

struct SimError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string &msg) { throw SimError(msg); }

//===----------------------------------------------------------------------===//
// Numbers
//===----------------------------------------------------------------------===//

uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float u2f(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint64_t d2u(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
double u2d(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

uint16_t f32ToBf16(float f) {
  uint32_t u = f2u(f);
  if (std::isnan(f))
    return uint16_t((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1); // round to nearest even
  return uint16_t(u >> 16);
}
float bf16ToF32(uint16_t h) { return u2f(uint32_t(h) << 16); }

uint16_t f32ToF16(float f) {
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
float f16ToF32(uint16_t h) {
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

float ftz(float f) {
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
  T_U16X2, T_S16X2
};

Ty parseTy(const std::string &s) {
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
const char *tyName(Ty t) {
  static const char *names[] = {
      "(none)", "b8",  "b16",  "b32",   "b64",  "u8",     "u16",
      "u32",    "u64", "s8",   "s16",   "s32",  "s64",    "f16",
      "f16x2",  "bf16", "bf16x2", "f32", "f64",  "pred", "u16x2",
      "s16x2"};
  return names[t];
}
/// PTX's other fundamental and packed types (PTX ISA 8.x): an instruction
/// on one of them is refused, where ignoring the modifier would compute on
/// the wrong bits.
bool isUnmodelledPtxType(const std::string &s) {
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
unsigned bitsOf(Ty t) {
  switch (t) {
  case T_B8: case T_U8: case T_S8: return 8;
  case T_B16: case T_U16: case T_S16: case T_F16: case T_BF16: return 16;
  case T_B64: case T_U64: case T_S64: case T_F64: return 64;
  case T_PRED: return 1;
  default: return 32;
  }
}
bool isSigned(Ty t) { return t == T_S8 || t == T_S16 || t == T_S32 || t == T_S64; }
/// Two 16-bit integers in a 32-bit register (min/max of PTX 8.0).
bool isPackedInt(Ty t) { return t == T_U16X2 || t == T_S16X2; }
bool isFloat(Ty t) {
  return t == T_F16 || t == T_F16X2 || t == T_BF16 || t == T_BF16X2 ||
         t == T_F32 || t == T_F64;
}
uint64_t maskBits(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}
int64_t sext(uint64_t v, unsigned bits) {
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
  O_CPCOMMIT, O_CPWAIT, O_NOP, O_ADDC, O_SUBC, O_MADC, O_TESTP, O_ATOM,
  // sm_90a: warpgroup MMA, mbarriers, the Tensor Memory Accelerator.
  O_WGMMA_FENCE, O_WGMMA, O_WGMMA_COMMIT, O_WGMMA_WAIT, O_MBAR_INIT,
  O_MBAR_ARRIVE, O_MBAR_EXPECT_TX, O_MBAR_WAIT, O_MBAR_INVAL, O_TMA_LOAD,
  O_TMA_STORE, O_BULK_COMMIT, O_BULK_WAIT, O_FENCE_PROXY_ASYNC,
  O_FENCE_MBAR_INIT, O_SETMAXNREG
};

enum Space : uint8_t { S_GENERIC, S_GLOBAL, S_SHARED, S_LOCAL, S_PARAM };

enum Special : uint8_t {
  SP_TID_X, SP_TID_Y, SP_TID_Z, SP_NTID_X, SP_NTID_Y, SP_NTID_Z,
  SP_CTAID_X, SP_CTAID_Y, SP_CTAID_Z, SP_NCTAID_X, SP_NCTAID_Y, SP_NCTAID_Z,
  SP_LANEID, SP_WARPID, SP_CLOCK
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
  size_t localSize = 0;
  /// The end of the static shared variables; they start after the 1 KiB
  /// the driver reserves at the bottom of a block's shared memory window
  /// (cudaDevAttrReservedSharedMemoryPerBlock, sm_80 and later: an sm_90
  /// kernel's dynamic shared memory starts at address 1024).
  size_t staticShared = kReservedShared;
  /// The dynamic array's alignment (its `.align`).
  size_t dynamicAlign = 16;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> globals;
};

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> splitTop(const std::string &s, char sep) {
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

std::vector<std::string> splitDots(const std::string &s) {
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

bool parseInt(const std::string &s, int64_t &v) {
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

bool isComparison(const std::string &t) {
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

class Parser {
public:
  explicit Parser(Program &p) : p(p) {}

  int reg(const std::string &name) {
    auto it = p.regIndex.find(name);
    if (it != p.regIndex.end())
      return it->second;
    int id = int(p.regIndex.size());
    p.regIndex[name] = id;
    return id;
  }

  Operand operand(const std::string &raw, int line) {
    std::string s = trim(raw);
    Operand o;
    if (s.empty())
      fail("line " + std::to_string(line) + ": empty operand");
    if (s == "_") {
      o.kind = Operand::Sink;
      return o;
    }
    if (s[0] == '{') {
      o.kind = Operand::Vec;
      for (const std::string &e : splitTop(s.substr(1, s.size() - 2), ','))
        o.elems.push_back(operand(e, line));
      return o;
    }
    if (s[0] == '[') {
      o.kind = Operand::Addr;
      std::string inner = s.substr(1, s.size() - 2);
      // [tensorMap, {c0, c1, ...}]: the coordinates of a bulk tensor copy.
      std::vector<std::string> parts = splitTop(inner, ',');
      if (parts.size() == 2 && !parts[1].empty() && parts[1][0] == '{') {
        o.elems = operand(parts[1], line).elems;
        inner = parts[0];
      }
      // base + offset, base + -offset, base, offset
      size_t plus = inner.find('+');
      std::string base = trim(plus == std::string::npos ? inner
                                                        : inner.substr(0, plus));
      std::string off =
          plus == std::string::npos ? "" : trim(inner.substr(plus + 1));
      int64_t v;
      if (parseInt(base, v)) {
        o.offset = v;
      } else if (base[0] == '%') {
        o.reg = reg(base);
      } else {
        auto it = p.symbolIndex.find(base);
        if (it == p.symbolIndex.end()) {
          // Reported after parsing, so that an unsupported instruction
          // behind it (the `call` whose .param blocks these name) is the
          // error.
          if (unknownSymbol.empty())
            unknownSymbol = "line " + std::to_string(line) +
                            ": unknown symbol " + base;
          return o;
        }
        o.sym = it->second;
      }
      if (!off.empty()) {
        if (!parseInt(off, v))
          fail("line " + std::to_string(line) + ": bad offset " + off);
        o.offset += v;
      }
      return o;
    }
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
      o.kind = Operand::Imm;
      o.imm = std::strtoull(s.c_str() + 2, nullptr, 16);
      o.immFloat = true;
      return o;
    }
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
      o.kind = Operand::Imm;
      o.imm = std::strtoull(s.c_str() + 2, nullptr, 16);
      o.immDouble = true;
      return o;
    }
    int64_t v;
    if (parseInt(s, v)) {
      o.kind = Operand::Imm;
      o.imm = uint64_t(v);
      return o;
    }
    if (s[0] == '%') {
      static const std::map<std::string, Special> specials = {
          {"%tid.x", SP_TID_X},       {"%tid.y", SP_TID_Y},
          {"%tid.z", SP_TID_Z},       {"%ntid.x", SP_NTID_X},
          {"%ntid.y", SP_NTID_Y},     {"%ntid.z", SP_NTID_Z},
          {"%ctaid.x", SP_CTAID_X},   {"%ctaid.y", SP_CTAID_Y},
          {"%ctaid.z", SP_CTAID_Z},   {"%nctaid.x", SP_NCTAID_X},
          {"%nctaid.y", SP_NCTAID_Y}, {"%nctaid.z", SP_NCTAID_Z},
          {"%laneid", SP_LANEID},     {"%warpid", SP_WARPID},
          {"%clock", SP_CLOCK},       {"%clock64", SP_CLOCK}};
      auto it = specials.find(s);
      if (it != specials.end()) {
        o.kind = Operand::Spec;
        o.imm = it->second;
        return o;
      }
      o.kind = Operand::Reg;
      o.reg = reg(s);
      return o;
    }
    if (plainRegisters.count(s)) {
      o.kind = Operand::Reg;
      o.reg = reg(s);
      return o;
    }
    auto sym = p.symbolIndex.find(s);
    if (sym != p.symbolIndex.end()) {
      o.kind = Operand::Sym;
      o.sym = sym->second;
      return o;
    }
    if (s[0] == '$' || std::isalpha(static_cast<unsigned char>(s[0])) ||
        s[0] == '_') {
      o.kind = Operand::Label; // resolved after parsing
      o.imm = 0;
      pendingLabels.push_back({s, scopes});
      o.sym = int(pendingLabels.size()) - 1;
      return o;
    }
    fail("line " + std::to_string(line) + ": cannot parse operand '" + s +
         "'");
  }

  void instruction(const std::string &text, int line) {
    Inst in;
    in.line = line;
    in.text = text;
    std::string s = trim(text);
    if (s[0] == '@') {
      size_t sp = s.find_first_of(" \t");
      std::string pr = s.substr(1, sp - 1);
      if (pr[0] == '!') {
        in.predNeg = true;
        pr = pr.substr(1);
      }
      in.predReg = reg(pr);
      s = trim(s.substr(sp));
    }
    size_t sp = s.find_first_of(" \t");
    std::string opcode = sp == std::string::npos ? s : s.substr(0, sp);
    std::string rest = sp == std::string::npos ? "" : trim(s.substr(sp));
    std::vector<std::string> tok = splitDots(opcode);
    const std::string &name = tok[0];
    static const std::map<std::string, Op> ops = {
        {"mov", O_MOV},     {"add", O_ADD},     {"sub", O_SUB},
        {"mul", O_MUL},     {"mad", O_MAD},     {"fma", O_FMA},
        {"div", O_DIV},     {"rem", O_REM},     {"abs", O_ABS},
        {"neg", O_NEG},     {"min", O_MIN},     {"max", O_MAX},
        {"and", O_AND},     {"or", O_OR},       {"xor", O_XOR},
        {"not", O_NOT},     {"shl", O_SHL},     {"shr", O_SHR},
        {"shf", O_SHF},     {"setp", O_SETP},   {"selp", O_SELP},
        {"cvt", O_CVT},     {"cvta", O_CVTA},   {"ld", O_LD},
        {"ldu", O_LD},      {"st", O_ST},       {"bar", O_BAR},
        {"barrier", O_BAR}, {"shfl", O_SHFL},   {"bra", O_BRA},
        {"ret", O_RET},     {"exit", O_RET},    {"ex2", O_EX2},
        {"rsqrt", O_RSQRT}, {"rcp", O_RCP},     {"sqrt", O_SQRT},
        {"lg2", O_LG2},     {"sin", O_SIN},     {"cos", O_COS},
        {"tanh", O_TANH},   {"copysign", O_COPYSIGN},
        {"popc", O_POPC},   {"clz", O_CLZ},     {"brev", O_BREV},
        {"bfe", O_BFE},     {"bfi", O_BFI},     {"prmt", O_PRMT},
        {"mma", O_MMA},     {"ldmatrix", O_LDMATRIX},
        {"membar", O_NOP},  {"fence", O_NOP},   {"addc", O_ADDC},
        {"subc", O_SUBC},   {"madc", O_MADC},   {"testp", O_TESTP},
        {"atom", O_ATOM}};
    auto it = ops.find(name);
    size_t firstModifier = sm90Opcode(tok, in);
    if (firstModifier == ~size_t(0)) {
      fail(at(line, text) + ": unsupported instruction " + opcode);
    } else if (firstModifier) {
      // decoded by sm90Opcode
    } else if (name == "cp") {
      if (tok.size() > 1 && tok[1] == "async") {
        if (tok.size() > 2 && tok[2] == "commit_group")
          in.op = O_CPCOMMIT;
        else if (tok.size() > 2 &&
                 (tok[2] == "wait_group" || tok[2] == "wait_all"))
          in.op = O_CPWAIT;
        else
          in.op = O_CPASYNC;
      } else {
        fail(at(line, text) + ": unsupported instruction " + opcode);
      }
    } else if (it == ops.end()) {
      fail(at(line, text) + ": unsupported instruction " + opcode);
    } else {
      in.op = it->second;
    }
    std::vector<Ty> types;
    std::vector<Space> tmaSpaces; ///< cp.async.bulk.tensor's, in order
    bool tile = false, completeTx = false, bulkGroup = false;
    for (size_t i = std::max<size_t>(1, firstModifier); i < tok.size(); ++i) {
      const std::string &t = tok[i];
      Ty ty = parseTy(t);
      if (ty != T_NONE) {
        types.push_back(ty);
        continue;
      }
      if (in.op == O_TMA_LOAD) { // the direction is decided below
        if (t == "shared::cluster" || t == "shared::cta" || t == "global") {
          tmaSpaces.push_back(t == "global" ? S_GLOBAL : S_SHARED);
          continue;
        }
        if (t == "tile" || t == "mbarrier::complete_tx::bytes" ||
            t == "bulk_group" || t == "L2::cache_hint") {
          tile |= t == "tile";
          completeTx |= t == "mbarrier::complete_tx::bytes";
          bulkGroup |= t == "bulk_group";
          in.cacheHint |= t == "L2::cache_hint";
          continue;
        }
      }
      if (in.op == O_MBAR_WAIT && t == "parity") {
        in.parity = true;
        continue;
      }
      if (in.op == O_BULK_WAIT && t == "read") {
        in.readOnly = true;
        continue;
      }
      if (in.op == O_FENCE_PROXY_ASYNC &&
          (t == "shared::cta" || t == "shared::cluster" || t == "global"))
        continue; // the proxy fence covers every state space here
      if ((in.op == O_SETP || in.op == O_SHFL || in.op == O_SHF ||
           in.op == O_TESTP) &&
          isComparison(t)) {
        in.cmp = t;
        continue;
      }
      if (in.op == O_SETP && (t == "and" || t == "or" || t == "xor")) {
        in.boolOp = t;
        continue;
      }
      if (in.op == O_ATOM &&
          (t == "add" || t == "exch" || t == "max" || t == "min" ||
           t == "and" || t == "or" || t == "xor" || t == "cas")) {
        in.cmp = t; // the operation; .sem and .scope change nothing here
        continue;
      }
      if (t == "global")
        in.space = S_GLOBAL;
      else if (t == "shared")
        in.space = in.space == S_GENERIC ? S_SHARED : in.space;
      else if (t == "local")
        in.space = S_LOCAL;
      else if (t == "param")
        in.space = S_PARAM;
      else if (t == "const")
        in.space = S_GLOBAL;
      else if (t == "v2")
        in.vec = 2;
      else if (t == "v4")
        in.vec = 4;
      else if (t == "x1")
        in.vec = 1;
      else if (t == "x2")
        in.vec = 2;
      else if (t == "x4")
        in.vec = 4;
      else if (t == "ftz")
        in.ftz = true;
      else if (t == "sat" || t == "satfinite")
        in.sat = true;
      else if (t == "hi")
        in.hi = true;
      else if (t == "lo")
        in.lo = true;
      else if (t == "wide")
        in.wide = true;
      else if (t == "cc")
        in.cc = true;
      else if (t == "trans")
        in.trans = true;
      else if (t == "approx" || t == "full")
        in.approx = true;
      else if (t == "wrap")
        in.wrap = true;
      else if (t == "relu")
        in.relu = true;
      else if (t == "to")
        in.cmp = "to";
      else if (t == "rn" || t == "rz" || t == "rm" || t == "rp" ||
               t == "rni" || t == "rzi" || t == "rmi" || t == "rpi")
        in.rnd = t;
      else if (t.size() > 1 && t[0] == 'm' &&
               (in.op == O_MMA || in.op == O_WGMMA) &&
               t.find('n') != std::string::npos &&
               t.find('k') != std::string::npos)
        std::sscanf(t.c_str(), "m%un%uk%u", &in.m, &in.n, &in.k);
      else if (t == "NaN" && (in.op == O_MIN || in.op == O_MAX))
        in.propagateNaN = true;
      else if (t == "shared::cta" || t == "shared::cluster")
        in.space = S_SHARED; // a one-block cluster: the block's own memory
      else if (isUnmodelledPtxType(t))
        fail(at(line, text) + ": unsupported type ." + t);
      else if (!changesNothing(in.op, t))
        fail(at(line, text) + ": unsupported modifier ." + t);
    }
    if (in.op == O_MMA) {
      // mma.sync.aligned.m16n8k16.row.col.D.A.B.C
      if (types.size() != 4)
        fail("line " + std::to_string(line) + ": mma needs 4 types");
      in.mmaD = types[0], in.mmaA = types[1], in.mmaC = types[3];
    } else if (in.op == O_WGMMA) {
      // wgmma.mma_async.sync.aligned.shape.D.A.B
      if (types.size() != 3)
        fail(at(line, text) + ": wgmma.mma_async needs 3 types");
      in.mmaD = types[0], in.mmaA = types[1], in.mmaB = types[2];
    } else if (in.op == O_TMA_LOAD) {
      // .shared::cluster.global: a load; .global.shared::cta: a store.
      bool load = tmaSpaces.size() == 2 && tmaSpaces[0] == S_SHARED &&
                  tmaSpaces[1] == S_GLOBAL;
      bool store = tmaSpaces.size() == 2 && tmaSpaces[0] == S_GLOBAL &&
                   tmaSpaces[1] == S_SHARED;
      if (!tile)
        fail(at(line, text) + ": only the .tile mode of cp.async.bulk.tensor "
                              "is simulated");
      if (load && !completeTx)
        fail(at(line, text) + ": a tensor load needs "
                              ".mbarrier::complete_tx::bytes");
      if (store && !bulkGroup)
        fail(at(line, text) + ": a tensor store needs .bulk_group");
      if (!load && !store)
        fail(at(line, text) + ": unsupported direction of cp.async.bulk.tensor");
      if (store)
        in.op = O_TMA_STORE;
    } else if (in.op == O_CVT) {
      if (types.size() >= 2)
        in.ty = types[0], in.ty2 = types[1];
    } else if (!types.empty()) {
      in.ty = types.back();
    }
    checkHonoured(in, text);
    if (in.op == O_CPWAIT && tok[2] == "wait_all")
      in.cmp = "all";
    for (const std::string &o : splitTop(rest, ','))
      in.ops.push_back(operand(o, line));
    if (in.op == O_SETP && !in.ops.empty()) {
      std::string first = splitTop(rest, ',')[0];
      if (size_t bar = first.find('|'); bar != std::string::npos) {
        if (in.ty != T_F16X2 && in.ty != T_BF16X2)
          fail("line " + std::to_string(line) +
               ": a predicate pair needs setp of .f16x2 or .bf16x2");
        in.ops[0] = operand(first.substr(0, bar), line);
        in.highPred = operand(first.substr(bar + 1), line);
        in.pairDst = true;
      }
    }
    p.insts.push_back(std::move(in));
  }

  /// Decodes the opcode of an sm_90a instruction into `in.op` (and the
  /// flags its words set). Returns the index of its first modifier, 0 for
  /// an instruction of no sm_90a family, ~0 for one the simulator does not
  /// model (cp.async.bulk without .tensor, mbarrier.arrive_drop, ...).
  static size_t sm90Opcode(const std::vector<std::string> &tok, Inst &in) {
    auto word = [&](size_t i) { return i < tok.size() ? tok[i] : ""; };
    const std::string &name = tok[0];
    if (name == "wgmma") {
      static const std::map<std::string, Op> ops = {
          {"fence", O_WGMMA_FENCE},
          {"mma_async", O_WGMMA},
          {"commit_group", O_WGMMA_COMMIT},
          {"wait_group", O_WGMMA_WAIT}};
      auto it = ops.find(word(1));
      if (it == ops.end())
        return ~size_t(0);
      in.op = it->second;
      return 2;
    }
    if (name == "mbarrier") {
      const std::string w = word(1);
      if (w == "arrive") {
        in.op = O_MBAR_ARRIVE;
        in.expectTx = word(2) == "expect_tx";
        return in.expectTx ? 3 : 2;
      }
      in.op = w == "init"                             ? O_MBAR_INIT
              : w == "expect_tx"                      ? O_MBAR_EXPECT_TX
              : w == "try_wait" || w == "test_wait"   ? O_MBAR_WAIT
              : w == "inval"                          ? O_MBAR_INVAL
                                                      : O_NOP;
      return in.op == O_NOP ? ~size_t(0) : 2;
    }
    if (name == "cp" && word(1) == "async" && word(2) == "bulk") {
      if (word(3) == "commit_group") {
        in.op = O_BULK_COMMIT;
        return 4;
      }
      if (word(3) == "wait_group") {
        in.op = O_BULK_WAIT;
        return 4;
      }
      const std::string d = word(4);
      if (word(3) != "tensor" || d.size() != 2 || d[1] != 'd' || d[0] < '1' ||
          d[0] > '5')
        return ~size_t(0);
      in.op = O_TMA_LOAD; // or a store: the parser decides by the spaces
      in.dims = unsigned(d[0] - '0');
      return 5;
    }
    if (name == "fence" && word(1) == "proxy") {
      if (word(2) != "async")
        return ~size_t(0);
      in.op = O_FENCE_PROXY_ASYNC;
      return 3;
    }
    if (name == "fence" && word(1) == "mbarrier_init") {
      in.op = O_FENCE_MBAR_INIT;
      return 2;
    }
    if (name == "setmaxnreg") {
      if (word(1) != "inc" && word(1) != "dec")
        return ~size_t(0);
      in.op = O_SETMAXNREG;
      in.inc = word(1) == "inc";
      return 2;
    }
    return 0;
  }

  static std::string at(int line, const std::string &text) {
    return "line " + std::to_string(line) + " '" + trim(text) + "'";
  }

  /// Modifiers that do not change a result in a sequential simulation
  /// (synchronization, memory order and scope, cache operators and hints,
  /// operand layouts); any other modifier is an error, never ignored.
  static bool changesNothing(Op op, const std::string &t) {
    static const char *names[] = {
        "sync",   "aligned", "uni",     "nc",       "ca",     "cg",
        "cs",     "lu",      "cv",      "wb",       "wt",     "gpu",
        "cta",    "sys",     "cluster", "relaxed",  "acquire", "release",
        "acq_rel", "sc",     "weak",    "volatile"};
    for (const char *n : names)
      if (t == n)
        return true;
    if (t.rfind("L1::", 0) == 0 || t.rfind("L2::", 0) == 0)
      return true;
    if (op == O_ATOM && t == "noftz")
      return true; // the simulator flushes no f16/bf16 subnormal anyway
    if (op == O_MMA && (t == "row" || t == "col"))
      return true;
    if (op == O_LDMATRIX && t == "m8n8")
      return true;
    return op == O_CPASYNC || op == O_CPCOMMIT || op == O_CPWAIT ||
           op == O_NOP; // decoded from tok[1..2]; fence/membar do nothing
  }

  /// Refuses decoded modifiers the operation does not implement, so that a
  /// `.sat`, `.relu` or rounding mode is either honoured or an error.
  static void checkHonoured(const Inst &in, const std::string &text) {
    auto refuse = [&](const std::string &what) {
      fail(at(in.line, text) + ": unsupported modifier ." + what);
    };
    if (in.sat && in.op != O_CVT)
      refuse("sat");
    if (in.relu && in.op != O_MIN && in.op != O_MAX)
      refuse("relu");
    if (isPackedInt(in.ty) && in.op != O_MIN && in.op != O_MAX &&
        in.op != O_MOV)
      fail(at(in.line, text) + ": unsupported type ." + tyName(in.ty) +
           " for this instruction");
    if (in.rnd.empty() || in.rnd == "rn" || in.op == O_CVT)
      return; // cvt checks its rounding where it converts
    bool directed = in.op == O_ADD || in.op == O_SUB || in.op == O_MUL ||
                    in.op == O_FMA || in.op == O_MAD || in.op == O_DIV;
    if (!directed || (in.ty != T_F32 && in.ty != T_F64))
      refuse(in.rnd);
  }

  /// A label names the one of its innermost enclosing `{ }` scope (inline
  /// assembly reuses names such as LAB_WAIT in every instance).
  void resolveLabels() {
    for (Inst &in : p.insts)
      for (Operand &o : in.ops)
        if (o.kind == Operand::Label) {
          const PendingLabel &l = pendingLabels[o.sym];
          bool found = false;
          for (auto s = l.scopes.rbegin(); s != l.scopes.rend() && !found;
               ++s) {
            auto it = labels.find({*s, l.name});
            if (it != labels.end()) {
              o.imm = uint64_t(it->second);
              found = true;
            }
          }
          if (!found)
            fail("line " + std::to_string(in.line) + ": unknown label " +
                 l.name);
        }
  }

  void parse(const std::string &text, const std::string &kernel) {
    std::istringstream is(text);
    std::string line;
    int lineNo = 0;
    bool inKernel = false, inParams = false, done = false;
    int depth = 0, pendingLine = 0;
    std::string pending;
    while (std::getline(is, line)) {
      ++lineNo;
      size_t c = line.find("//");
      if (c != std::string::npos)
        line = line.substr(0, c);
      std::string s = trim(line);
      if (s.empty() || done)
        continue;
      if (!inKernel) {
        if (s.rfind(".global", 0) == 0 || s.rfind(".extern .shared", 0) == 0 ||
            s.rfind(".shared", 0) == 0 || s.rfind(".const", 0) == 0)
          moduleVariable(s);
        size_t e = s.find(".entry " + kernel + "(");
        if (e == std::string::npos)
          e = s.find(".entry " + kernel + " (");
        if (e != std::string::npos) {
          inKernel = inParams = true;
          continue;
        }
        continue;
      }
      if (inParams) {
        if (s[0] == ')') {
          inParams = false;
          continue;
        }
        param(s);
        continue;
      }
      if (pending.empty()) {
        if (s == "{") {
          if (++depth >= 2)
            scopes.push_back(nextScope++);
          continue;
        }
        if (s == "}") {
          if (depth >= 2)
            scopes.pop_back();
          if (--depth == 0)
            done = true;
          continue;
        }
        if (depth == 0)
          continue; // .maxntid and other performance directives
        if (s[0] == '.') {
          if (s.rfind(".local", 0) == 0)
            localVariable(s);
          else if (s.rfind(".reg", 0) == 0)
            registerDeclaration(s);
          else if (s.rfind(".shared", 0) == 0)
            moduleVariable(s);
          continue; // .reg, .pragma, ...
        }
        // Labels.
        while (true) {
          // A label is an identifier and a colon; `::` (shared::cluster)
          // and dotted opcodes are not.
          size_t colon = s.find(':');
          size_t firstSpace = s.find_first_of(" \t;{");
          if (colon != std::string::npos &&
              (firstSpace == std::string::npos || colon < firstSpace) &&
              s.compare(colon, 2, "::") != 0 &&
              s.substr(0, colon).find('.') == std::string::npos) {
            labels[{scopes.back(), trim(s.substr(0, colon))}] =
                int(p.insts.size());
            s = trim(s.substr(colon + 1));
            continue;
          }
          break;
        }
        if (s.empty())
          continue;
        pendingLine = lineNo;
      }
      // Instructions end at ';' and may span lines.
      pending += (pending.empty() ? "" : " ") + s;
      size_t semi;
      while ((semi = pending.find(';')) != std::string::npos) {
        std::string stmt = trim(pending.substr(0, semi));
        pending = trim(pending.substr(semi + 1));
        if (!stmt.empty())
          instruction(stmt, pendingLine);
      }
    }
    if (!inKernel)
      fail("no .entry " + kernel + " in the module");
    if (!unknownSymbol.empty())
      fail(unknownSymbol);
    resolveLabels();
    p.regNames.resize(p.regIndex.size());
    for (const auto &[name, id] : p.regIndex)
      p.regNames[id] = name;
    p.wgmmaRegister.assign(p.regIndex.size(), 0);
    for (const Inst &in : p.insts)
      if (in.op == O_WGMMA)
        for (int i = 0; i < 2; ++i)
          for (const Operand &e : in.ops[i].elems)
            if (e.kind == Operand::Reg)
              p.wgmmaRegister[e.reg] = 1;
  }

private:
  Program &p;
  struct PendingLabel {
    std::string name;
    std::vector<int> scopes; ///< enclosing scopes where it is used
  };
  std::vector<PendingLabel> pendingLabels;
  /// Labels by (scope, name); scope 0 is the kernel's body, each nested
  /// `{ }` block another.
  std::map<std::pair<int, std::string>, int> labels;
  std::vector<int> scopes = {0};
  int nextScope = 1;
  /// Registers declared without a `%` (inline assembly's `.reg .pred p`).
  std::set<std::string> plainRegisters;
  std::string unknownSymbol; ///< the first, with its line


  void addSymbol(Symbol s) {
    p.symbolIndex[s.name] = int(p.symbols.size());
    p.symbols.push_back(std::move(s));
  }

  static size_t arraySize(const std::string &s, std::string &name) {
    size_t lb = s.find('[');
    size_t nameStart = s.find_last_of(" \t", lb) + 1;
    name = s.substr(nameStart, lb - nameStart);
    size_t rb = s.find(']', lb);
    std::string n = s.substr(lb + 1, rb - lb - 1);
    return n.empty() ? 0 : std::strtoull(n.c_str(), nullptr, 10);
  }

  void moduleVariable(const std::string &s) {
    std::string name;
    if (s.find('[') == std::string::npos)
      fail("unsupported module variable: " + s);
    size_t size = arraySize(s, name);
    Symbol sym;
    sym.name = name;
    sym.size = size;
    if (s.find(".shared") != std::string::npos) {
      sym.space = S_SHARED;
      size_t align = 16;
      if (size_t at = s.find(".align "); at != std::string::npos)
        align = std::max<size_t>(
            16, std::strtoull(s.c_str() + at + 7, nullptr, 10));
      if (s.find(".extern") != std::string::npos) {
        sym.addr = ~uint64_t(0); // the dynamic array: placed at launch
        p.dynamicAlign = std::max(p.dynamicAlign, align);
      } else {
        p.staticShared = (p.staticShared + align - 1) / align * align;
        sym.addr = p.staticShared;
        p.staticShared += size;
      }
      addSymbol(sym);
      return;
    }
    auto data = std::make_unique<std::vector<uint8_t>>(size, 0);
    size_t eq = s.find('=');
    if (eq != std::string::npos) {
      size_t lb = s.find('{', eq), rb = s.find('}', eq);
      std::string list = s.substr(lb + 1, rb - lb - 1);
      std::vector<std::string> bytes = splitTop(list, ',');
      for (size_t i = 0; i < bytes.size() && i < size; ++i)
        (*data)[i] = uint8_t(std::strtol(bytes[i].c_str(), nullptr, 0));
    }
    sym.space = S_GLOBAL;
    sym.addr = reinterpret_cast<uint64_t>(data->data());
    p.globals.push_back(std::move(data));
    addSymbol(sym);
  }

  void registerDeclaration(const std::string &s) {
    std::string names = s.substr(4);
    for (char &c : names)
      if (c == ',' || c == ';')
        c = ' ';
    std::istringstream is(names);
    std::string w;
    while (is >> w)
      if (w[0] != '.' && w[0] != '%')
        plainRegisters.insert(w);
  }

  void localVariable(const std::string &s) {
    std::string name;
    size_t size = arraySize(s, name);
    Symbol sym;
    sym.name = name;
    sym.space = S_LOCAL;
    p.localSize = (p.localSize + 15) / 16 * 16;
    sym.addr = p.localSize;
    sym.size = size;
    p.localSize += size;
    addSymbol(sym);
  }

  void param(const std::string &raw) {
    std::string s = raw;
    if (!s.empty() && s.back() == ',')
      s.pop_back();
    std::istringstream is(s);
    std::string word, name, type;
    std::vector<std::string> words;
    while (is >> word)
      words.push_back(word);
    name = words.back();
    unsigned bytes = 4;
    for (const std::string &w : words)
      if (w[0] == '.' && parseTy(w.substr(1)) != T_NONE)
        bytes = std::max(1u, bitsOf(parseTy(w.substr(1))) / 8);
    // `.param .align 64 .b8 name[128]` (a tensor map by value).
    if (size_t lb = name.find('['); lb != std::string::npos) {
      bytes *= unsigned(std::strtoul(name.c_str() + lb + 1, nullptr, 10));
      name = name.substr(0, lb);
    }
    Symbol sym;
    sym.name = name;
    sym.space = S_PARAM;
    sym.param = int(p.paramSizes.size());
    // Its address in the .param space: `mov.b64 %rd, name` takes it,
    // ld.param and cvta.param read it (see paramAddress).
    sym.addr = uint64_t(sym.param) << 32;
    sym.size = bytes;
    p.paramSizes.push_back(bytes);
    addSymbol(sym);
  }
};

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

/// The host's rounding mode set to a PTX one (.rz/.rm/.rp) for the f32/f64
/// arithmetic of one instruction (the parser allows those modes nowhere
/// else), restored after it. The file is compiled with -frounding-math, so
/// that the compiler keeps the arithmetic inside the scope.
class RoundingScope {
public:
  explicit RoundingScope(const std::string &rnd) {
    int mode = rnd == "rz"   ? FE_TOWARDZERO
               : rnd == "rm" ? FE_DOWNWARD
               : rnd == "rp" ? FE_UPWARD
                             : FE_TONEAREST;
    if (mode != FE_TONEAREST) {
      saved = std::fegetround();
      std::fesetround(mode);
    }
  }
  ~RoundingScope() {
    if (saved != -1)
      std::fesetround(saved);
  }
  RoundingScope(const RoundingScope &) = delete;
  RoundingScope &operator=(const RoundingScope &) = delete;

private:
  int saved = -1;
};

// Generic addresses: the shared, local and kernel-parameter windows (a
// parameter's .param address is its index * 2^32 + the byte offset).
constexpr uint64_t kSharedWindow = uint64_t(1) << 60;
constexpr uint64_t kLocalWindow = uint64_t(1) << 61;
constexpr uint64_t kParamWindow = uint64_t(1) << 62;

/// Run: runs; Bar: at a barrier; Coll: at a warp collective; WgColl: at a
/// warpgroup collective (wgmma, setmaxnreg); Sleep: its mbarrier.try_wait
/// returned false and it waits for the mbarrier's phase to complete.
enum class State : uint8_t { Run, Bar, Coll, WgColl, Sleep, Exit };

struct Thread {
  int pc = 0;
  State st = State::Run;
  unsigned tid = 0, x = 0, y = 0, z = 0;
  std::vector<uint64_t> r;
  std::vector<uint8_t> local;
  bool carry = false;
  /// cp.async copies: each group is a list of (shared offset, bytes).
  struct Copy {
    uint64_t dst;
    std::vector<uint8_t> data;
  };
  std::vector<Copy> open;
  std::vector<std::vector<Copy>> groups;

  /// Instructions executed (the clock of the ordering rules below).
  uint64_t seq = 0;
  /// At a barrier: its id and thread count (0: the whole block).
  unsigned barId = 0, barCount = 0;
  /// Asleep after a false try_wait: the mbarrier, the phase it was in and
  /// the parity waited for (-1: a wait on an arrive's state).
  uint64_t sleepMbar = 0, sleepPhase = 0;
  int sleepParity = -1;
  /// wgmma.fence: when the last one ran (wgFenced: one ran).
  uint64_t wgFenceSeq = 0;
  bool wgFenced = false;
  /// Per register that some wgmma.mma_async uses: when an ordinary
  /// instruction last accessed it, and how many in-flight wgmma ops use it.
  mutable std::vector<uint64_t> regAccess;
  mutable std::vector<int> regAccessPc; ///< the instruction of that access
  int wgFencePc = -1;
  std::vector<uint16_t> inflightUse;
  /// The block's generic-write count at this thread's last
  /// fence.proxy.async and fence.mbarrier_init.
  uint64_t proxyFence = 0, mbarInitFence = 0;
  /// cp.async.bulk tensor stores (indices into Block::stores): not yet
  /// committed, and the committed bulk async-groups, oldest first.
  std::vector<size_t> bulkOpen;
  std::deque<std::vector<size_t>> bulkGroups;
};

class Block {
public:
  Block(const Program &p, const Launch &l, const GlobalCheck &valid,
        unsigned bx, unsigned by, unsigned bz, std::set<int> &noted)
      : p(p), l(l), valid(valid), ctaid{bx, by, bz}, noted(noted) {
    dynBase = (p.staticShared + p.dynamicAlign - 1) / p.dynamicAlign *
              p.dynamicAlign;
    smemSize = dynBase + l.dynamicShared;
    smem.assign(smemSize, 0);
    written.assign(smemSize, 0);
    writer.assign(smemSize, -1);
    writeEpoch.assign(smemSize, -1);
    reader.assign(smemSize, -1);
    readEpoch.assign(smemSize, -1);
    inflight.assign(smemSize, 0);
    genWrite.assign(smemSize, 0);
    asyncReaders.assign(smemSize, 0);
    mbarByte.assign(smemSize, 0);
    unsigned n = l.block[0] * l.block[1] * l.block[2];
    threads.resize(n);
    for (unsigned t = 0; t < n; ++t) {
      Thread &th = threads[t];
      th.tid = t;
      th.x = t % l.block[0];
      th.y = (t / l.block[0]) % l.block[1];
      th.z = t / (l.block[0] * l.block[1]);
      th.r.assign(p.regIndex.size(), 0);
      th.local.assign(p.localSize, 0);
      th.regAccess.assign(p.regIndex.size(), 0);
      th.regAccessPc.assign(p.regIndex.size(), -1);
      th.inflightUse.assign(p.regIndex.size(), 0);
    }
    warpgroups.resize((n + 127) / 128);
  }

  /// Runs the block to its end. Each round runs every runnable thread until
  /// it blocks, then completes what can complete: warp and warpgroup
  /// collectives whose threads all arrived, barriers whose count arrived,
  /// sleepers whose mbarrier phase completed. Only when nothing can run
  /// does the oldest TMA load land, so that a thread that reads a copy's
  /// destination without waiting for it runs first and is caught.
  void run() {
    size_t n = threads.size();
    uint64_t probed = ~uint64_t(0);
    while (true) {
      bool progress = false;
      for (Thread &t : threads)
        if (t.st == State::Run) {
          step(t);
          progress = true;
        }
      progress |= warpCollectives();
      progress |= warpgroupCollectives();
      progress |= barriers();
      for (Thread &t : threads)
        if (t.st == State::Sleep && mbarChanged(t)) {
          t.st = State::Run;
          progress = true;
        }
      if (progress)
        continue;
      size_t exited = 0;
      for (Thread &t : threads)
        exited += t.st == State::Exit;
      if (exited == n)
        break;
      if (!loads.empty()) {
        deliverLoad();
        continue;
      }
      // A thread whose try_wait returned false may do other work before it
      // tries again: let the sleepers run once more; if nothing changed
      // since they last did, the block is stuck.
      bool sleeping = false;
      for (Thread &t : threads)
        sleeping |= t.st == State::Sleep;
      if (sleeping && events != probed) {
        probed = events;
        for (Thread &t : threads)
          if (t.st == State::Sleep)
            t.st = State::Run;
        continue;
      }
      deadlock();
    }
    for (Thread &t : threads) {
      bool pending = !t.open.empty();
      for (const auto &g : t.groups)
        pending |= !g.empty();
      if (pending)
        fail(where(t) + ": cp.async copies still pending at exit");
      std::vector<size_t> stillPending = t.bulkOpen;
      for (const auto &g : t.bulkGroups)
        stillPending.insert(stillPending.end(), g.begin(), g.end());
      if (!stillPending.empty())
        fail(where(t) + ": a cp.async.bulk tensor store (line " +
             std::to_string(p.insts[stores[stillPending.front()].pc].line) +
             ") may still read shared memory at exit: no "
             "cp.async.bulk.wait_group waited for it");
    }
    for (size_t g = 0; g < warpgroups.size(); ++g)
      if (!warpgroups[g].open.empty() || !warpgroups[g].groups.empty()) {
        const WgmmaOp &op = warpgroups[g].open.empty()
                                ? warpgroups[g].groups.front().front()
                                : warpgroups[g].open.front();
        fail(blockName() + " warpgroup " + std::to_string(g) +
             ": the wgmma.mma_async of line " +
             std::to_string(p.insts[op.pc].line) +
             " is still in flight at exit: no wgmma.wait_group retired it");
      }
    if (!loads.empty())
      fail(blockName() + ": the TMA load of line " +
           std::to_string(p.insts[loads.front().pc].line) + " (thread " +
           std::to_string(loads.front().thread) +
           ") is still in flight when every thread exited");
  }

private:
  const Program &p;
  const Launch &l;
  const GlobalCheck &valid;
  unsigned ctaid[3];
  std::vector<Thread> threads;
  std::vector<uint8_t> smem, written;
  std::vector<int16_t> writer, reader;
  std::vector<int32_t> writeEpoch, readEpoch;
  std::vector<uint16_t> inflight;
  uint64_t dynBase = 0, smemSize = 0;
  int32_t epoch = 0;
  /// The thread whose instruction runs, for errors deep in its semantics.
  const Thread *current = nullptr;

  // sm_90a. Shared memory, per byte: the block's generic-write count when
  // a thread last wrote it through the generic proxy (0: nothing did since
  // an asynchronous write), the asynchronous reads in flight (wgmma, bulk
  // tensor stores) and whether an mbarrier object holds it.
  std::vector<uint32_t> genWrite;
  std::vector<uint16_t> asyncReaders;
  std::vector<uint8_t> mbarByte;
  uint32_t genericWrites = 0;
  /// Counts what another thread may wait for (mbarrier operations, barriers,
  /// collectives, stores, landed copies, exits): sleepers that run and
  /// change none of it are deadlocked.
  uint64_t events = 0;

  struct Mbarrier {
    hopper::MBarrier b;
    unsigned initThread = 0;
    uint32_t initWrite = 0; ///< genericWrites when it was initialized
    int line = 0;           ///< of its mbarrier.init
  };
  std::map<uint64_t, Mbarrier> mbars; ///< live ones, by shared address

  /// A wgmma.mma_async in flight: its instruction, its operands' scales and
  /// the shared-memory addresses of its elements (A: 64 x 16 when it comes
  /// from shared memory, B: 16 x N, both row-major).
  struct WgmmaOp {
    int pc = 0;
    bool scaleD = true;
    double scaleA = 1, scaleB = 1;
    std::vector<uint64_t> aAddr, bAddr;
  };
  struct Warpgroup {
    std::vector<WgmmaOp> open;               ///< not yet committed
    std::deque<std::vector<WgmmaOp>> groups; ///< committed, oldest first
  };
  std::vector<Warpgroup> warpgroups;

  /// A bulk tensor copy: its instruction and thread, the tensor map, the
  /// box's origin, its shared-memory side and (a load) its mbarrier.
  struct TensorCopy {
    int pc = 0;
    unsigned thread = 0;
    TensorMap map;
    int64_t coords[5] = {};
    uint64_t smem = 0, bytes = 0, mbar = 0;
  };
  /// wgmma instructions whose wgmma.fence breach was noted (Launch), over
  /// the whole launch.
  std::set<int> &noted;
  std::deque<TensorCopy> loads;   ///< in flight, oldest first
  std::vector<TensorCopy> stores; ///< every store issued; threads index it

  std::string blockName() const {
    return "block (" + std::to_string(ctaid[0]) + "," +
           std::to_string(ctaid[1]) + "," + std::to_string(ctaid[2]) + ")";
  }

  /// The thread and the instruction at `pc` (its current one by default).
  std::string where(const Thread &t, int pc = -1) const {
    std::ostringstream os;
    if (pc < 0)
      pc = std::min<int>(t.pc, int(p.insts.size()) - 1);
    os << blockName() << " thread " << t.tid;
    if (pc >= 0)
      os << " line " << p.insts[pc].line << " '" << brief(p.insts[pc].text)
         << "'";
    return os.str();
  }

  /// An instruction's text for a message: a wgmma's 128 registers cut.
  static std::string brief(const std::string &text) {
    std::string s = trim(text);
    return s.size() <= 160 ? s : s.substr(0, 150) + " ...";
  }

  // --- scheduling -------------------------------------------------------

  /// Runs the warp collectives (shfl, mma, ldmatrix) whose 32 lanes all
  /// wait at the same one.
  bool warpCollectives() {
    size_t n = threads.size();
    bool progress = false;
    for (size_t w = 0; w * 32 < n; ++w) {
      size_t lo = w * 32, hi = std::min(n, lo + 32);
      bool all = true;
      int pc = -1;
      for (size_t t = lo; t < hi; ++t) {
        if (threads[t].st != State::Coll) {
          all = false;
          break;
        }
        if (pc == -1)
          pc = threads[t].pc;
        else if (pc != threads[t].pc)
          fail(where(threads[t]) +
               ": lanes of one warp wait at different collective "
               "instructions (lines " +
               std::to_string(p.insts[pc].line) + " and " +
               std::to_string(p.insts[threads[t].pc].line) + ")");
      }
      if (all && pc >= 0) {
        collective(lo, hi, p.insts[pc]);
        for (size_t t = lo; t < hi; ++t) {
          threads[t].st = State::Run;
          threads[t].pc++;
        }
        progress = true;
        ++events;
      }
    }
    return progress;
  }

  /// Runs the warpgroup instructions (wgmma.*, setmaxnreg: .sync.aligned
  /// over the 4 warps 4g .. 4g + 3) whose 128 threads all wait at the same
  /// one. The ISA requires all of them to execute it; waiting for all is
  /// stricter than wgmma.wait_group's warp-level .sync, which is harmless
  /// where the four warps run the same code.
  bool warpgroupCollectives() {
    size_t n = threads.size();
    bool progress = false;
    for (size_t g = 0; g < warpgroups.size(); ++g) {
      size_t lo = g * 128, hi = std::min(n, lo + 128);
      bool all = true;
      int pc = -1;
      for (size_t t = lo; t < hi; ++t) {
        if (threads[t].st != State::WgColl) {
          all = false;
          continue;
        }
        if (hi - lo != 128)
          fail(where(threads[t]) + ": a warpgroup instruction in a block of " +
               std::to_string(n) + " threads, which leave warpgroup " +
               std::to_string(g) + " incomplete");
        if (pc == -1)
          pc = threads[t].pc;
        else if (pc != threads[t].pc)
          all = false;
      }
      if (!all || pc < 0)
        continue;
      warpgroupCollective(g, p.insts[pc]);
      for (size_t t = lo; t < hi; ++t) {
        threads[t].st = State::Run;
        threads[t].pc++;
      }
      progress = true;
      ++events;
    }
    return progress;
  }

  /// Releases the barriers that their thread count reached: `bar.sync id`
  /// waits for the whole block, `bar.sync id, count` for `count` threads
  /// (the consumer warps of a warp-specialized kernel use one of those).
  /// Each release starts a new interval of the race checks, for every
  /// thread: exact for those that took part, optimistic for the others.
  bool barriers() {
    size_t n = threads.size();
    std::map<unsigned, std::vector<Thread *>> waiting;
    for (Thread &t : threads)
      if (t.st == State::Bar)
        waiting[t.barId].push_back(&t);
    bool progress = false;
    for (auto &[id, ts] : waiting) {
      unsigned count = ts.front()->barCount;
      for (Thread *t : ts)
        if (t->barCount != count)
          fail(where(*t) + ": barrier " + std::to_string(id) + " for " +
               std::to_string(t->barCount) + " threads where thread " +
               std::to_string(ts.front()->tid) + " waits at it for " +
               std::to_string(count));
      size_t need = count ? count : n;
      if (ts.size() < need)
        continue;
      // More threads than the count: the first `count` complete this
      // instance of the barrier, the others wait for the next one.
      ++epoch;
      ++events;
      for (size_t i = 0; i < need; ++i) {
        ts[i]->st = State::Run;
        ts[i]->pc++;
      }
      progress = true;
    }
    return progress;
  }

  /// Whether the phase a sleeping thread saw on its mbarrier completed (or
  /// the object went away, which its next try_wait reports).
  bool mbarChanged(const Thread &t) const {
    auto it = mbars.find(t.sleepMbar);
    return it == mbars.end() || it->second.b.phase != t.sleepPhase;
  }

  /// No thread can go on: names what each kind of waiter waits for, the
  /// mbarrier and its phase first.
  [[noreturn]] void deadlock() const {
    size_t bar = 0, coll = 0, asleep = 0, exited = 0;
    for (const Thread &t : threads) {
      bar += t.st == State::Bar;
      coll += t.st == State::Coll || t.st == State::WgColl;
      asleep += t.st == State::Sleep;
      exited += t.st == State::Exit;
    }
    std::string msg = blockName() + ": deadlock: every live thread waits (" +
                      std::to_string(asleep) + " on mbarriers, " +
                      std::to_string(bar) + " at barriers, " +
                      std::to_string(coll) + " at collectives; " +
                      std::to_string(exited) + " exited)";
    // Each distinct wait on an mbarrier (a producer's and a consumer's, say),
    // by its first thread.
    std::set<std::tuple<uint64_t, int, uint64_t, int>> seen;
    for (const Thread &t : threads)
      if (t.st == State::Sleep &&
          seen.insert({t.sleepMbar, t.sleepParity, t.sleepPhase, t.pc})
              .second &&
          seen.size() <= 4) {
        auto it = mbars.find(t.sleepMbar);
        msg += "; " + where(t, t.pc - 1) + " waits on the mbarrier at shared " +
               std::to_string(t.sleepMbar) + " for " +
               (t.sleepParity >= 0
                    ? "the phase of parity " + std::to_string(t.sleepParity)
                    : "phase " + std::to_string(t.sleepPhase)) +
               " to complete";
        if (it != mbars.end()) {
          const hopper::MBarrier &b = it->second.b;
          msg += " (it is in phase " + std::to_string(b.phase) + " with " +
                 std::to_string(b.pending) + " of " +
                 std::to_string(b.expected) +
                 " arrivals pending, transaction count " +
                 std::to_string(b.tx) + ")";
        }
      }
    if (!seen.empty())
      fail(msg);
    for (const Thread &t : threads)
      if (t.st == State::Bar)
        fail(msg + "; " + where(t) + " waits at barrier " +
             std::to_string(t.barId) +
             (t.barCount ? " for " + std::to_string(t.barCount) + " threads"
                         : " for the whole block"));
    for (const Thread &t : threads)
      if (t.st != State::Exit)
        fail(msg + "; " + where(t) + " waits at a collective");
    fail(msg);
  }

  // --- operands -------------------------------------------------------

  uint64_t special(const Thread &t, uint64_t which) const {
    switch (which) {
    case SP_TID_X: return t.x;
    case SP_TID_Y: return t.y;
    case SP_TID_Z: return t.z;
    case SP_NTID_X: return l.block[0];
    case SP_NTID_Y: return l.block[1];
    case SP_NTID_Z: return l.block[2];
    case SP_CTAID_X: return ctaid[0];
    case SP_CTAID_Y: return ctaid[1];
    case SP_CTAID_Z: return ctaid[2];
    case SP_NCTAID_X: return l.grid[0];
    case SP_NCTAID_Y: return l.grid[1];
    case SP_NCTAID_Z: return l.grid[2];
    case SP_LANEID: return t.tid % 32;
    case SP_WARPID: return t.tid / 32;
    default: return 0;
    }
  }

  uint64_t symbolValue(const Symbol &s) const {
    if (s.space == S_SHARED)
      return s.addr == ~uint64_t(0) ? dynBase : s.addr;
    return s.addr; // local offset or global host address
  }

  /// The operand's bits for an operation of type `ty`.
  uint64_t get(const Thread &t, const Operand &o, Ty ty) const {
    switch (o.kind) {
    case Operand::Reg:
      if (p.wgmmaRegister[o.reg])
        touch(t, o.reg);
      return t.r[o.reg];
    case Operand::Imm:
      if (o.immFloat && ty == T_F64)
        return d2u(double(u2f(uint32_t(o.imm))));
      if (o.immDouble && ty == T_F32)
        return f2u(float(u2d(o.imm)));
      if (!o.immFloat && !o.immDouble && ty == T_F32)
        return f2u(float(int64_t(o.imm)));
      if (!o.immFloat && !o.immDouble && ty == T_F64)
        return d2u(double(int64_t(o.imm)));
      return o.imm;
    case Operand::Spec:
      return special(t, o.imm);
    case Operand::Sym:
      return symbolValue(p.symbols[o.sym]);
    default:
      fail(where(t) + ": bad source operand");
    }
  }

  void set(Thread &t, const Operand &o, uint64_t v, Ty ty) {
    if (o.kind == Operand::Sink)
      return;
    if (o.kind != Operand::Reg)
      fail(where(t) + ": destination is not a register");
    if (p.wgmmaRegister[o.reg])
      touch(t, o.reg);
    if (ty == T_PRED)
      v &= 1;
    else
      v &= maskBits(bitsOf(ty) == 1 ? 1 : bitsOf(ty));
    t.r[o.reg] = v;
  }

  /// An ordinary instruction accesses register `reg` that some
  /// wgmma.mma_async uses. While one in flight uses it, that is an error
  /// (the ISA: accessing the accumulator or A registers of a wgmma before
  /// the wgmma.wait_group that retires it is undefined); otherwise its time
  /// is kept for the next wgmma's wgmma.fence rule.
  void touch(const Thread &t, int reg) const {
    if (t.inflightUse[reg]) {
      int line = 0;
      const Warpgroup &g = warpgroups[t.tid / 128];
      auto uses = [&](const WgmmaOp &op) {
        for (int i = 0; i < 2; ++i)
          for (const Operand &e : p.insts[op.pc].ops[i].elems)
            if (e.kind == Operand::Reg && e.reg == reg)
              return true;
        return false;
      };
      for (const WgmmaOp &op : g.open)
        if (!line && uses(op))
          line = p.insts[op.pc].line;
      for (const auto &grp : g.groups)
        for (const WgmmaOp &op : grp)
          if (!line && uses(op))
            line = p.insts[op.pc].line;
      fail(where(t) + ": accesses register " + p.regNames[reg] +
           ", which the in-flight wgmma.mma_async of line " +
           std::to_string(line) +
           " uses: no wgmma.wait_group has retired it");
    }
    t.regAccess[reg] = t.seq;
    t.regAccessPc[reg] = t.pc;
  }

  uint64_t address(const Thread &t, const Operand &o) const {
    if (o.kind != Operand::Addr)
      fail(where(t) + ": expected an address operand");
    uint64_t a = 0;
    if (o.reg >= 0)
      a = t.r[o.reg];
    else if (o.sym >= 0)
      a = symbolValue(p.symbols[o.sym]);
    return a + uint64_t(o.offset);
  }

  // --- memory ---------------------------------------------------------

  void checkShared(const Thread &t, uint64_t a, uint64_t n) const {
    if (a < kReservedShared)
      fail(where(t) + ": shared access at " + std::to_string(a) +
           ", in the 1 KiB below 1024 that the driver reserves");
    if (a + n > smemSize || a + n < a)
      fail(where(t) + ": shared access of " + std::to_string(n) +
           " bytes at " + std::to_string(a) + " past the " +
           std::to_string(smemSize) + " bytes of shared memory");
  }

  /// `mayBeUnwritten`: an element of a vector load, which LLVM widens over
  /// padding (e.g. 4-byte values in 8-byte slots); its value goes unused.
  /// A scalar load may cover unwritten bytes beside written ones: LLVM
  /// merges adjacent narrow loads (three i8 partials of a cross-warp
  /// reduction read as one b32 whose fourth byte no warp wrote) and drops
  /// the extra bits; a load of only unwritten bytes is an error.
  void sharedRead(const Thread &t, uint64_t a, void *dst, uint64_t n,
                  bool mayBeUnwritten = false) {
    checkShared(t, a, n);
    for (uint64_t i = a; i < a + n && !mayBeUnwritten; ++i)
      mayBeUnwritten = n > 1 && written[i];
    for (uint64_t i = a; i < a + n; ++i) {
      if (inflight[i])
        fail(where(t) + ": reads shared byte " + std::to_string(i) +
             " while " + inflightWriter(i) + " may still be writing it");
      if (mbarByte[i])
        fail(where(t) + ": reads shared byte " + std::to_string(i) +
             " of the mbarrier object at " + std::to_string(i & ~7ull) +
             " (only mbarrier instructions may access it)");
      if (!written[i] && !mayBeUnwritten)
        fail(where(t) + ": reads shared byte " + std::to_string(i) +
             ", which nothing wrote");
      if (writeEpoch[i] == epoch && writer[i] != int16_t(t.tid))
        fail(where(t) + ": race: reads shared byte " + std::to_string(i) +
             " written by thread " + std::to_string(writer[i]) +
             " since the last barrier");
      if (readEpoch[i] != epoch) {
        readEpoch[i] = epoch;
        reader[i] = int16_t(t.tid);
      } else if (reader[i] != int16_t(t.tid)) {
        reader[i] = -2; // several readers
      }
    }
    std::memcpy(dst, &smem[a], n);
  }

  void sharedWrite(const Thread &t, uint64_t a, const void *src, uint64_t n,
                   bool async = false) {
    checkShared(t, a, n);
    ++genericWrites;
    for (uint64_t i = a; i < a + n; ++i) {
      if (!async && inflight[i])
        fail(where(t) + ": writes shared byte " + std::to_string(i) +
             " while " + inflightWriter(i) + " may still be writing it");
      if (mbarByte[i])
        fail(where(t) + ": writes shared byte " + std::to_string(i) +
             " of the mbarrier object at " + std::to_string(i & ~7ull) +
             " (only mbarrier instructions may access it)");
      if (asyncReaders[i])
        fail(where(t) + ": writes shared byte " + std::to_string(i) +
             " that " + asyncReader(i) + " may still be reading");
      if (writeEpoch[i] == epoch && writer[i] != int16_t(t.tid))
        fail(where(t) + ": race: writes shared byte " + std::to_string(i) +
             " also written by thread " + std::to_string(writer[i]) +
             " since the last barrier");
      if (readEpoch[i] == epoch && reader[i] != int16_t(t.tid))
        fail(where(t) + ": race: writes shared byte " + std::to_string(i) +
             " read by " +
             (reader[i] == -2 ? std::string("several threads")
                              : "thread " + std::to_string(reader[i])) +
             " since the last barrier");
      writeEpoch[i] = epoch;
      writer[i] = int16_t(t.tid);
      written[i] = 1;
      genWrite[i] = genericWrites;
    }
    std::memcpy(&smem[a], src, n);
    ++events;
  }

  /// What may still be writing shared byte `i` (inflight): a TMA load that
  /// covers it, else a cp.async.
  std::string inflightWriter(uint64_t i) const {
    for (const TensorCopy &c : loads)
      if (i >= c.smem && i < c.smem + c.bytes)
        return "the TMA load of line " + std::to_string(p.insts[c.pc].line);
    return "a cp.async";
  }

  /// What may still be reading shared byte `i` (asyncReaders): a wgmma in
  /// flight or a bulk tensor store not yet waited for.
  std::string asyncReader(uint64_t i) const {
    for (const Warpgroup &g : warpgroups) {
      auto covers = [&](const WgmmaOp &op) {
        for (const auto *v : {&op.aAddr, &op.bAddr})
          for (uint64_t x : *v)
            if (i >= x && i < x + 2)
              return true;
        return false;
      };
      for (const WgmmaOp &op : g.open)
        if (covers(op))
          return "the in-flight wgmma.mma_async of line " +
                 std::to_string(p.insts[op.pc].line);
      for (const auto &grp : g.groups)
        for (const WgmmaOp &op : grp)
          if (covers(op))
            return "the in-flight wgmma.mma_async of line " +
                   std::to_string(p.insts[op.pc].line);
    }
    auto store = [&](size_t s) {
      return i >= stores[s].smem && i < stores[s].smem + stores[s].bytes;
    };
    for (const Thread &t : threads) {
      for (size_t s : t.bulkOpen)
        if (store(s))
          return "the cp.async.bulk tensor store of line " +
                 std::to_string(p.insts[stores[s].pc].line);
      for (const auto &grp : t.bulkGroups)
        for (size_t s : grp)
          if (store(s))
            return "the cp.async.bulk tensor store of line " +
                   std::to_string(p.insts[stores[s].pc].line);
    }
    return "an asynchronous read";
  }

  void load(Thread &t, Space space, uint64_t a, void *dst, uint64_t n,
            bool vectorElement = false) {
    if (space == S_GENERIC) {
      if (a >= kParamWindow) {
        space = S_PARAM;
        a -= kParamWindow;
      } else if (a >= kLocalWindow) {
        space = S_LOCAL;
        a -= kLocalWindow;
      } else if (a >= kSharedWindow) {
        space = S_SHARED;
        a -= kSharedWindow;
      } else {
        space = S_GLOBAL;
      }
    }
    switch (space) {
    case S_GLOBAL:
      if (!valid(a, n))
        fail(where(t) + ": global read of " + std::to_string(n) +
             " bytes at 0x" + hex(a) + " outside device memory");
      std::memcpy(dst, reinterpret_cast<const void *>(a), n);
      return;
    case S_SHARED:
      sharedRead(t, a, dst, n, vectorElement);
      return;
    case S_LOCAL:
      if (a + n > t.local.size())
        fail(where(t) + ": local read past the depot");
      std::memcpy(dst, &t.local[a], n);
      return;
    case S_PARAM: {
      // a is the parameter index * 2^32 + byte offset (see paramAddress).
      unsigned idx = unsigned(a >> 32), off = unsigned(a & 0xffffffff);
      if (idx >= l.params.size() || off + n > l.params[idx].size())
        fail(where(t) + ": parameter read out of range");
      std::memcpy(dst, l.params[idx].data() + off, n);
      return;
    }
    default:
      fail(where(t) + ": bad state space");
    }
  }

  void store(Thread &t, Space space, uint64_t a, const void *src,
             uint64_t n) {
    ++events;
    if (space == S_GENERIC) {
      if (a >= kParamWindow) {
        space = S_PARAM;
        a -= kParamWindow;
      } else if (a >= kLocalWindow) {
        space = S_LOCAL;
        a -= kLocalWindow;
      } else if (a >= kSharedWindow) {
        space = S_SHARED;
        a -= kSharedWindow;
      } else {
        space = S_GLOBAL;
      }
    }
    switch (space) {
    case S_GLOBAL:
      if (!valid(a, n))
        fail(where(t) + ": global write of " + std::to_string(n) +
             " bytes at 0x" + hex(a) + " outside device memory");
      std::memcpy(reinterpret_cast<void *>(a), src, n);
      return;
    case S_SHARED:
      sharedWrite(t, a, src, n);
      return;
    case S_LOCAL:
      if (a + n > t.local.size())
        fail(where(t) + ": local write past the depot");
      std::memcpy(&t.local[a], src, n);
      return;
    default:
      fail(where(t) + ": cannot store to this state space");
    }
  }

  static std::string hex(uint64_t v) {
    std::ostringstream os;
    os << std::hex << v;
    return os.str();
  }

  uint64_t memAddress(const Thread &t, const Inst &in, const Operand &o) {
    if (in.space == S_PARAM && o.sym >= 0 &&
        p.symbols[o.sym].space == S_PARAM)
      return (uint64_t(p.symbols[o.sym].param) << 32) + uint64_t(o.offset);
    return address(t, o);
  }

  // --- scalar semantics -------------------------------------------------

  static float asF(uint64_t v) { return u2f(uint32_t(v)); }
  static uint64_t fromF(float f) { return f2u(f); }

  /// Fails at the current instruction: the simulator has no semantics for
  /// `ty` there (a silent 0 would look like a wrong compiler).
  [[noreturn]] void unsupportedType(Ty ty) const {
    fail(where(*current) + ": unsupported type ." + tyName(ty) +
         " for this instruction");
  }

  /// Applies a binary float op to f32/f64/f16/bf16 (and x2) values.
  template <typename F>
  uint64_t floatBinary(Ty ty, uint64_t a, uint64_t b, bool flush, F f) {
    switch (ty) {
    case T_F32: {
      float x = asF(a), y = asF(b);
      if (flush)
        x = ftz(x), y = ftz(y);
      float r = float(f(double(x), double(y), false));
      return fromF(flush ? ftz(r) : r);
    }
    case T_F64:
      return d2u(f(u2d(a), u2d(b), true));
    case T_F16:
      return f32ToF16(float(f(f16ToF32(uint16_t(a)), f16ToF32(uint16_t(b)),
                              false)));
    case T_BF16:
      return f32ToBf16(float(f(bf16ToF32(uint16_t(a)),
                               bf16ToF32(uint16_t(b)), false)));
    case T_F16X2:
    case T_BF16X2: {
      Ty h = ty == T_F16X2 ? T_F16 : T_BF16;
      uint64_t lo = floatBinary(h, a & 0xffff, b & 0xffff, flush, f);
      uint64_t hi = floatBinary(h, (a >> 16) & 0xffff, (b >> 16) & 0xffff,
                                flush, f);
      return lo | hi << 16;
    }
    default:
      unsupportedType(ty);
    }
  }

  double toD(Ty ty, uint64_t v) const {
    switch (ty) {
    case T_F32: return asF(v);
    case T_F64: return u2d(v);
    case T_F16: return f16ToF32(uint16_t(v));
    case T_BF16: return bf16ToF32(uint16_t(v));
    default: unsupportedType(ty);
    }
  }
  uint64_t fromD(Ty ty, double d) const {
    switch (ty) {
    case T_F32: return fromF(float(d));
    case T_F64: return d2u(d);
    case T_F16: return f32ToF16(float(d));
    case T_BF16: return f32ToBf16(float(d));
    default: unsupportedType(ty);
    }
  }

  /// fma/mad of floats: f32 and f64 in the instruction's rounding mode,
  /// f16/bf16 (and x2) through double, rounded to nearest.
  uint64_t fusedMultiplyAdd(const Inst &in, uint64_t a, uint64_t b,
                            uint64_t c) const {
    Ty ty = in.ty;
    RoundingScope rounding(in.rnd);
    if (ty == T_F32) {
      float x = asF(a), y = asF(b), z = asF(c);
      if (in.ftz)
        x = ftz(x), y = ftz(y), z = ftz(z);
      float r = std::fma(x, y, z);
      return fromF(in.ftz ? ftz(r) : r);
    }
    if (ty == T_F64)
      return d2u(std::fma(u2d(a), u2d(b), u2d(c)));
    if (ty == T_F16X2 || ty == T_BF16X2) {
      Ty h = ty == T_F16X2 ? T_F16 : T_BF16;
      uint64_t r = 0;
      for (int i = 0; i < 2; ++i) {
        double v = std::fma(toD(h, (a >> 16 * i) & 0xffff),
                            toD(h, (b >> 16 * i) & 0xffff),
                            toD(h, (c >> 16 * i) & 0xffff));
        r |= fromD(h, v) << 16 * i;
      }
      return r;
    }
    return fromD(ty, std::fma(toD(ty, a), toD(ty, b), toD(ty, c)));
  }

  static double roundInt(double d, const std::string &rnd) {
    if (rnd == "rzi")
      return std::trunc(d);
    if (rnd == "rmi")
      return std::floor(d);
    if (rnd == "rpi")
      return std::ceil(d);
    return std::nearbyint(d); // rni: to nearest even (default mode)
  }

  uint64_t convert(const Inst &in, uint64_t v) {
    Ty dst = in.ty, src = in.ty2;
    bool df = isFloat(dst), sf = isFloat(src);
    if (!df && !sf) { // integer to integer
      int64_t x = isSigned(src) ? sext(v, bitsOf(src))
                                : int64_t(v & maskBits(bitsOf(src)));
      if (in.sat) {
        unsigned b = bitsOf(dst);
        int64_t lo = isSigned(dst) ? -(int64_t(1) << (b - 1)) : 0;
        int64_t hi = isSigned(dst) ? (int64_t(1) << (b - 1)) - 1
                                   : int64_t(maskBits(b) >> 1) * 2 + 1;
        if (b < 64)
          x = std::min(std::max(x, lo), hi);
      }
      return uint64_t(x) & maskBits(bitsOf(dst));
    }
    bool directed = in.rnd == "rz" || in.rnd == "rm" || in.rnd == "rp";
    if (df && directed && !(sf && bitsOf(dst) >= bitsOf(src)))
      fail(where(*current) + ": rounding ." + in.rnd + " of cvt to ." +
           tyName(dst) + " is not simulated");
    if (df && sf) {
      double d = toD(src, v);
      if (in.ftz && src == T_F32)
        d = ftz(float(d));
      if (in.rnd.size() == 3) // rni, rzi, ...: to an integral value
        d = roundInt(d, in.rnd);
      if (in.sat)
        d = std::isnan(d) ? 0.0 : std::min(1.0, std::max(0.0, d));
      if (dst == T_F32 && src == T_F64) {
        float f = float(d);
        return fromF(in.ftz ? ftz(f) : f);
      }
      return fromD(dst, d);
    }
    if (df) { // integer to float
      double d = isSigned(src) ? double(sext(v, bitsOf(src)))
                               : double(v & maskBits(bitsOf(src)));
      if (isSigned(src) && bitsOf(src) == 64)
        d = double(int64_t(v));
      else if (!isSigned(src) && bitsOf(src) == 64)
        d = double(v);
      if (dst == T_F32) {
        float f = isSigned(src) ? float(sext(v, bitsOf(src)))
                                : float(v & maskBits(bitsOf(src)));
        return fromF(f);
      }
      return fromD(dst, d);
    }
    // float to integer: round, saturate, NaN -> 0
    double d = toD(src, v);
    if (in.ftz && src == T_F32)
      d = ftz(float(d));
    d = roundInt(d, in.rnd.empty() ? "rzi" : in.rnd);
    unsigned b = bitsOf(dst);
    if (std::isnan(d))
      return 0;
    if (isSigned(dst)) {
      double lo = -std::ldexp(1.0, int(b) - 1),
             hi = std::ldexp(1.0, int(b) - 1) - 1;
      d = std::min(std::max(d, lo), hi);
      return uint64_t(int64_t(d)) & maskBits(b);
    }
    d = std::min(std::max(d, 0.0), std::ldexp(1.0, int(b)) - 1);
    return uint64_t(d) & maskBits(b);
  }

  bool compare(const Inst &in, uint64_t a, uint64_t b) {
    return compare(in, a, b, in.ty);
  }
  bool compare(const Inst &in, uint64_t a, uint64_t b, Ty ty) {
    const std::string &c = in.cmp;
    if (isFloat(ty)) {
      double x = toD(ty, a), y = toD(ty, b);
      if (in.ftz && ty == T_F32)
        x = ftz(float(x)), y = ftz(float(y));
      bool nan = std::isnan(x) || std::isnan(y);
      if (c == "eq") return !nan && x == y;
      if (c == "ne") return !nan && x != y;
      if (c == "lt") return !nan && x < y;
      if (c == "le") return !nan && x <= y;
      if (c == "gt") return !nan && x > y;
      if (c == "ge") return !nan && x >= y;
      if (c == "equ") return nan || x == y;
      if (c == "neu") return nan || x != y;
      if (c == "ltu") return nan || x < y;
      if (c == "leu") return nan || x <= y;
      if (c == "gtu") return nan || x > y;
      if (c == "geu") return nan || x >= y;
      if (c == "num") return !nan;
      if (c == "nan") return nan;
      fail(where(*current) + ": unsupported float comparison ." + c);
    }
    unsigned bits = bitsOf(ty);
    if (ty == T_PRED) {
      if (c == "eq") return (a & 1) == (b & 1);
      if (c == "ne") return (a & 1) != (b & 1);
    }
    bool s = isSigned(ty);
    int64_t sa = sext(a, bits), sb = sext(b, bits);
    uint64_t ua = a & maskBits(bits), ub = b & maskBits(bits);
    if (c == "eq") return ua == ub;
    if (c == "ne") return ua != ub;
    if (c == "lt") return s ? sa < sb : ua < ub;
    if (c == "le") return s ? sa <= sb : ua <= ub;
    if (c == "gt") return s ? sa > sb : ua > ub;
    if (c == "ge") return s ? sa >= sb : ua >= ub;
    if (c == "lo") return ua < ub;
    if (c == "ls") return ua <= ub;
    if (c == "hi") return ua > ub;
    if (c == "hs") return ua >= ub;
    fail(where(*current) + ": unsupported integer comparison ." + c);
  }

  uint64_t intBinary(const Inst &in, uint64_t a, uint64_t b) {
    Ty ty = in.ty;
    unsigned bits = bitsOf(ty);
    bool s = isSigned(ty);
    int64_t sa = sext(a, bits), sb = sext(b, bits);
    uint64_t ua = a & maskBits(bits), ub = b & maskBits(bits);
    switch (in.op) {
    case O_ADD: return ua + ub;
    case O_SUB: return ua - ub;
    case O_MUL:
      if (in.wide) {
        if (s)
          return uint64_t(sa * sb);
        return ua * ub;
      }
      if (in.hi) {
        if (bits == 64) {
          __int128 r = s ? __int128(sa) * sb
                         : __int128((unsigned __int128)ua * ub);
          if (!s)
            return uint64_t(((unsigned __int128)ua * ub) >> 64);
          return uint64_t(r >> 64);
        }
        return s ? uint64_t((sa * sb) >> bits) : (ua * ub) >> bits;
      }
      return ua * ub;
    case O_DIV:
      if (ub == 0)
        return maskBits(bits);
      return s ? uint64_t(sa / sb) : ua / ub;
    case O_REM:
      if (ub == 0)
        return ua;
      return s ? uint64_t(sa % sb) : ua % ub;
    case O_MIN: return s ? uint64_t(std::min(sa, sb)) : std::min(ua, ub);
    case O_MAX: return s ? uint64_t(std::max(sa, sb)) : std::max(ua, ub);
    case O_AND: return a & b;
    case O_OR: return a | b;
    case O_XOR: return a ^ b;
    case O_SHL: {
      uint64_t n = b & 0xffffffff;
      return n >= bits ? 0 : ua << n;
    }
    case O_SHR: {
      uint64_t n = b & 0xffffffff;
      if (s)
        return uint64_t(n >= bits ? (sa < 0 ? -1 : 0) : sa >> n);
      return n >= bits ? 0 : ua >> n;
    }
    default:
      fail(where(*current) + ": unsupported integer operation");
    }
  }

  // --- the interpreter ----------------------------------------------------

  void step(Thread &t) {
    while (t.st == State::Run) {
      if (t.pc >= int(p.insts.size())) {
        t.st = State::Exit;
        ++events;
        return;
      }
      const Inst &in = p.insts[t.pc];
      ++t.seq;
      if (in.predReg >= 0) {
        bool pv = t.r[in.predReg] & 1;
        if (pv == in.predNeg) {
          t.pc++;
          continue;
        }
      }
      switch (in.op) {
      case O_BAR: {
        // bar.sync id{, count}: the count is a multiple of the warp size.
        current = &t;
        t.barId = in.ops.empty() ? 0 : unsigned(get(t, in.ops[0], T_U32));
        t.barCount =
            in.ops.size() > 1 ? unsigned(get(t, in.ops[1], T_U32)) : 0;
        if (t.barId > 15 || (in.ops.size() > 1 &&
                             (t.barCount == 0 || t.barCount % 32 != 0)))
          fail(where(t) + ": barrier " + std::to_string(t.barId) +
               " for " + std::to_string(t.barCount) +
               " threads: ids are 0..15 and counts nonzero multiples of 32");
        t.st = State::Bar;
        return;
      }
      case O_SHFL:
      case O_MMA:
      case O_LDMATRIX:
        t.st = State::Coll;
        return;
      case O_WGMMA_FENCE:
      case O_WGMMA:
      case O_WGMMA_COMMIT:
      case O_WGMMA_WAIT:
      case O_SETMAXNREG:
        t.st = State::WgColl;
        return;
      case O_MBAR_WAIT:
        // A false result is a scheduling point: the thread sleeps until the
        // mbarrier's phase completes (run() wakes it), as a spinning warp
        // lets the producer run.
        current = &t;
        if (!mbarWait(t, in)) {
          t.pc++;
          t.st = State::Sleep;
          return;
        }
        t.pc++;
        continue;
      case O_RET:
        t.st = State::Exit;
        ++events;
        return;
      case O_BRA:
        t.pc = int(in.ops[0].imm);
        continue;
      default:
        current = &t;
        execute(t, in);
        t.pc++;
      }
    }
  }

  void execute(Thread &t, const Inst &in) {
    const auto &o = in.ops;
    Ty ty = in.ty;
    switch (in.op) {
    case O_NOP:
      return;
    case O_MOV: {
      if (o[0].kind == Operand::Vec) { // unpack
        uint64_t v = get(t, o[1], ty);
        unsigned part = bitsOf(ty) / unsigned(o[0].elems.size());
        for (size_t i = 0; i < o[0].elems.size(); ++i)
          set(t, o[0].elems[i], (v >> (part * i)) & maskBits(part),
              part == 16 ? T_B16 : part == 32 ? T_B32 : T_B8);
        return;
      }
      if (o[1].kind == Operand::Vec) { // pack
        unsigned part = bitsOf(ty) / unsigned(o[1].elems.size());
        uint64_t v = 0;
        for (size_t i = 0; i < o[1].elems.size(); ++i)
          v |= (get(t, o[1].elems[i], T_B32) & maskBits(part)) << (part * i);
        set(t, o[0], v, ty);
        return;
      }
      set(t, o[0], get(t, o[1], ty), ty);
      return;
    }
    case O_ADD:
    case O_SUB:
    case O_MUL:
    case O_DIV:
    case O_REM:
    case O_MIN:
    case O_MAX: {
      uint64_t a = get(t, o[1], ty), b = get(t, o[2], ty);
      if (isFloat(ty)) {
        Op op = in.op;
        bool relu = in.relu;
        if (in.propagateNaN && ty != T_F32 && ty != T_F16 && ty != T_BF16)
          unsupportedType(ty);
        RoundingScope rounding(in.rnd);
        set(t, o[0],
            floatBinary(ty, a, b, in.ftz,
                        [op, relu, nan = in.propagateNaN](
                            double x, double y, bool dbl) -> double {
                          if (nan && (std::isnan(x) || std::isnan(y)))
                            return std::numeric_limits<double>::quiet_NaN();
                          switch (op) {
                          case O_ADD: return dbl ? x + y : double(float(x) + float(y));
                          case O_SUB: return dbl ? x - y : double(float(x) - float(y));
                          case O_MUL: return dbl ? x * y : double(float(x) * float(y));
                          case O_DIV: return dbl ? x / y : double(float(x) / float(y));
                          case O_MIN:
                            if (std::isnan(x)) return y;
                            if (std::isnan(y)) return x;
                            return relu ? std::max(std::min(x, y), 0.0)
                                        : std::min(x, y);
                          default:
                            if (std::isnan(x)) return y;
                            if (std::isnan(y)) return x;
                            return relu ? std::max(std::max(x, y), 0.0)
                                        : std::max(x, y);
                          }
                        }),
            ty);
        return;
      }
      if (isPackedInt(ty) && (in.op == O_MIN || in.op == O_MAX)) {
        // max{.relu}.s16x2 / .u16x2: each half on its own (LLVM makes it of
        // a vector max of two i16 or i8 lanes).
        uint64_t r = 0;
        for (int h = 0; h < 2; ++h) {
          uint64_t x = (a >> (16 * h)) & 0xffff, y = (b >> (16 * h)) & 0xffff;
          int64_t sx = sext(x, 16), sy = sext(y, 16);
          bool takeX = ty == T_S16X2 ? (in.op == O_MAX ? sx >= sy : sx <= sy)
                                     : (in.op == O_MAX ? x >= y : x <= y);
          uint64_t v = takeX ? x : y;
          if (in.relu && sext(v, 16) < 0)
            v = 0;
          r |= v << (16 * h);
        }
        set(t, o[0], r, T_B32);
        return;
      }
      uint64_t r = intBinary(in, a, b);
      // max.relu.s32 (LLVM folds smax(smax(a, b), 0) into it): negative
      // results clamp to 0.
      if (in.relu && (in.op == O_MIN || in.op == O_MAX) &&
          sext(r, bitsOf(ty)) < 0)
        r = 0;
      if (in.op == O_ADD && in.cc) {
        unsigned bits = bitsOf(ty);
        t.carry = ((a & maskBits(bits)) + (b & maskBits(bits))) >> bits;
      }
      if (in.op == O_SUB && in.cc)
        t.carry = (a & maskBits(bitsOf(ty))) < (b & maskBits(bitsOf(ty)));
      set(t, o[0], r, in.wide ? (isSigned(ty) ? T_S64 : T_U64) : ty);
      return;
    }
    case O_ADDC:
    case O_SUBC: {
      unsigned bits = bitsOf(ty);
      uint64_t a = get(t, o[1], ty) & maskBits(bits),
               b = get(t, o[2], ty) & maskBits(bits);
      uint64_t c = t.carry;
      uint64_t r = in.op == O_ADDC ? a + b + c : a - b - c;
      if (in.cc)
        t.carry = in.op == O_ADDC ? ((a + b + c) >> bits) & 1 : (a < b + c);
      set(t, o[0], r, ty);
      return;
    }
    case O_MAD:
    case O_MADC: {
      uint64_t a = get(t, o[1], ty), b = get(t, o[2], ty),
               c = get(t, o[3], in.wide ? (isSigned(ty) ? T_S64 : T_U64) : ty);
      if (isFloat(ty)) { // mad.rn.f32 is fma.rn.f32
        set(t, o[0], fusedMultiplyAdd(in, a, b, c), ty);
        return;
      }
      unsigned bits = bitsOf(ty);
      bool s = isSigned(ty);
      uint64_t prod;
      if (in.wide) {
        prod = s ? uint64_t(sext(a, bits) * sext(b, bits))
                 : (a & maskBits(bits)) * (b & maskBits(bits));
        bits = 64;
      } else if (in.hi) {
        prod = s ? uint64_t((sext(a, bits) * sext(b, bits)) >> bits)
                 : ((a & maskBits(bits)) * (b & maskBits(bits))) >> bits;
      } else {
        prod = a * b;
      }
      uint64_t cin = in.op == O_MADC ? t.carry : 0;
      uint64_t pm = prod & maskBits(bits), cm = c & maskBits(bits);
      uint64_t r = pm + cm + cin;
      if (in.cc)
        t.carry = bits < 64 ? (r >> bits) & 1 : (r < pm || (cin && r == pm));
      set(t, o[0], r, in.wide ? (s ? T_S64 : T_U64) : ty);
      return;
    }
    case O_FMA: {
      uint64_t a = get(t, o[1], ty), b = get(t, o[2], ty),
               c = get(t, o[3], ty);
      set(t, o[0], fusedMultiplyAdd(in, a, b, c), ty);
      return;
    }
    case O_ABS:
    case O_NEG: {
      uint64_t a = get(t, o[1], ty);
      unsigned bits = bitsOf(ty);
      if (isFloat(ty)) {
        uint64_t sign = ty == T_F64 ? uint64_t(1) << 63
                        : ty == T_F32 ? uint64_t(1) << 31
                        : ty == T_F16X2 || ty == T_BF16X2 ? 0x80008000
                                                           : 0x8000;
        set(t, o[0], in.op == O_ABS ? a & ~sign : a ^ sign, ty);
        return;
      }
      int64_t v = sext(a, bits);
      set(t, o[0], uint64_t(in.op == O_ABS ? (v < 0 ? -v : v) : -v), ty);
      return;
    }
    case O_AND:
    case O_OR:
    case O_XOR:
    case O_SHL:
    case O_SHR:
      set(t, o[0], intBinary(in, get(t, o[1], ty), get(t, o[2], T_U32)),
          ty);
      return;
    case O_NOT:
      set(t, o[0], ~get(t, o[1], ty), ty);
      return;
    case O_SHF: {
      uint64_t a = get(t, o[1], T_B32) & 0xffffffff,
               b = get(t, o[2], T_B32) & 0xffffffff;
      uint64_t n = get(t, o[3], T_B32) & 0xffffffff;
      n = in.wrap ? n & 31 : std::min<uint64_t>(n, 32);
      uint64_t both = b << 32 | a;
      uint64_t r = in.cmp == "l" ? (both << n) >> 32 : (both >> n);
      set(t, o[0], r & 0xffffffff, T_B32);
      return;
    }
    case O_SETP: {
      uint64_t a = get(t, o[1], ty), b = get(t, o[2], ty);
      auto combine = [&](bool r) {
        if (in.boolOp.empty())
          return r;
        bool q = get(t, o[3], T_PRED) & 1;
        return in.boolOp == "and" ? (r && q)
               : in.boolOp == "or" ? (r || q)
                                   : (r != q);
      };
      if (ty == T_F16X2 || ty == T_BF16X2) {
        // setp.f16x2 p|q, a, b: p compares the low halves, q the high ones
        // (LLVM compares two f16 elements at once this way).
        Ty h = ty == T_F16X2 ? T_F16 : T_BF16;
        set(t, o[0], combine(compare(in, a & 0xffff, b & 0xffff, h)),
            T_PRED);
        if (in.pairDst)
          set(t, in.highPred,
              combine(compare(in, (a >> 16) & 0xffff, (b >> 16) & 0xffff, h)),
              T_PRED);
        return;
      }
      set(t, o[0], combine(compare(in, a, b)), T_PRED);
      return;
    }
    case O_SELP: {
      bool c = get(t, o[3], T_PRED) & 1;
      set(t, o[0], c ? get(t, o[1], ty) : get(t, o[2], ty), ty);
      return;
    }
    case O_CVT: {
      if ((in.ty == T_BF16X2 || in.ty == T_F16X2) && o.size() == 3) {
        Ty h = in.ty == T_BF16X2 ? T_BF16 : T_F16;
        uint64_t hi = fromD(h, toD(in.ty2, get(t, o[1], in.ty2)));
        uint64_t lo = fromD(h, toD(in.ty2, get(t, o[2], in.ty2)));
        set(t, o[0], hi << 16 | lo, T_B32);
        return;
      }
      uint64_t r = convert(in, get(t, o[1], in.ty2));
      // A register wider than a signed integer destination type holds the
      // result sign-extended (LLVM compares cvt.s8.s32's 16-bit register
      // with max.s16); unsigned ones are zero-extended, as the mask does.
      if (isSigned(in.ty))
        set(t, o[0], uint64_t(sext(r, bitsOf(in.ty))), T_B64);
      else
        set(t, o[0], r, in.ty);
      return;
    }
    case O_CVTA: {
      uint64_t a = get(t, o[1], T_U64);
      uint64_t base = in.space == S_SHARED  ? kSharedWindow
                      : in.space == S_LOCAL ? kLocalWindow
                      : in.space == S_PARAM ? kParamWindow
                                            : 0;
      set(t, o[0], in.cmp == "to" ? a - base : a + base, T_U64);
      return;
    }
    case O_LD: {
      uint64_t a = memAddress(t, in, o[1]);
      unsigned bytes = std::max(1u, bitsOf(ty) / 8);
      const Operand &dst = o[0];
      if (dst.kind == Operand::Vec) {
        for (size_t i = 0; i < dst.elems.size(); ++i) {
          uint64_t v = 0;
          load(t, in.space, a + i * bytes, &v, bytes, /*vectorElement=*/true);
          if (isSigned(ty))
            v = uint64_t(sext(v, bytes * 8));
          set(t, dst.elems[i], v, bytes == 8 ? T_B64 : T_B32);
        }
        return;
      }
      uint64_t v = 0;
      load(t, in.space, a, &v, bytes);
      if (isSigned(ty))
        v = uint64_t(sext(v, bytes * 8));
      set(t, dst, v, bytes == 8 ? T_B64 : (bytes == 2 && !isSigned(ty) ? T_B16 : T_B32));
      return;
    }
    case O_ST: {
      uint64_t a = memAddress(t, in, o[0]);
      unsigned bytes = std::max(1u, bitsOf(ty) / 8);
      const Operand &src = o[1];
      if (src.kind == Operand::Vec) {
        for (size_t i = 0; i < src.elems.size(); ++i) {
          uint64_t v = get(t, src.elems[i], ty);
          store(t, in.space, a + i * bytes, &v, bytes);
        }
        return;
      }
      uint64_t v = get(t, src, ty);
      store(t, in.space, a, &v, bytes);
      return;
    }
    case O_ATOM: {
      // atom.space.op.type d, [a], b (cas: d, [a], b, c). Threads run one
      // at a time, so a read-modify-write is atomic here by construction.
      if (in.cmp.empty())
        fail(where(t) + ": atom without a supported operation");
      uint64_t a = memAddress(t, in, o[1]);
      unsigned bytes = std::max(1u, bitsOf(ty) / 8);
      bool half = ty == T_F16 || ty == T_BF16;
      if (half && in.cmp != "add")
        unsupportedType(ty);
      if (bytes != 4 && bytes != 8 && !half)
        fail(where(t) + ": atom on " + std::to_string(bytes) +
             "-byte values is not simulated");
      uint64_t old = 0;
      load(t, in.space, a, &old, bytes);
      uint64_t b = get(t, o[2], ty), mask = maskBits(bytes * 8);
      uint64_t r = old;
      bool isFloat = ty == T_F32 || ty == T_F64;
      auto asDouble = [&](uint64_t v) {
        return bytes == 4 ? double(asF(v)) : u2d(v);
      };
      auto fromDouble = [&](double d) {
        return bytes == 4 ? fromF(float(d)) : d2u(d);
      };
      auto less = [&](uint64_t x, uint64_t y) {
        if (isFloat)
          return asDouble(x) < asDouble(y);
        if (isSigned(ty))
          return sext(x, bytes * 8) < sext(y, bytes * 8);
        return (x & mask) < (y & mask);
      };
      if (half) // atom.add.noftz.f16/.bf16: f16 never flushes here
        r = fromD(ty, double(float(toD(ty, old)) + float(toD(ty, b))));
      else if (in.cmp == "add")
        r = isFloat ? (bytes == 4 ? fromF(asF(old) + asF(b))
                                  : fromDouble(asDouble(old) + asDouble(b)))
                    : old + b;
      else if (in.cmp == "exch")
        r = b;
      else if (in.cmp == "max")
        r = less(old, b) ? b : old;
      else if (in.cmp == "min")
        r = less(b, old) ? b : old;
      else if (in.cmp == "and")
        r = old & b;
      else if (in.cmp == "or")
        r = old | b;
      else if (in.cmp == "xor")
        r = old ^ b;
      else if (in.cmp == "cas")
        r = (old & mask) == (b & mask) ? get(t, o[3], ty) : old;
      r &= mask;
      store(t, in.space, a, &r, bytes);
      set(t, o[0], old & mask, bytes == 8 ? T_B64 : T_B32);
      return;
    }
    case O_EX2:
    case O_RSQRT:
    case O_RCP:
    case O_SQRT:
    case O_LG2:
    case O_SIN:
    case O_COS:
    case O_TANH: {
      uint64_t a = get(t, o[1], ty);
      auto f = [&](double x) -> double {
        switch (in.op) {
        case O_EX2: return std::exp2(x);
        case O_RSQRT: return 1.0 / std::sqrt(x);
        case O_RCP: return 1.0 / x;
        case O_SQRT: return std::sqrt(x);
        case O_LG2: return std::log2(x);
        case O_SIN: return std::sin(x);
        case O_COS: return std::cos(x);
        default: return std::tanh(x);
        }
      };
      if (ty == T_F32) {
        float x = asF(a);
        if (in.ftz)
          x = ftz(x);
        float r = float(f(x));
        if (in.op == O_RCP && !in.approx)
          r = 1.0f / x;
        if (in.op == O_SQRT && !in.approx)
          r = std::sqrt(x);
        set(t, o[0], fromF(in.ftz ? ftz(r) : r), ty);
      } else {
        set(t, o[0], fromD(ty, f(toD(ty, a))), ty);
      }
      return;
    }
    case O_COPYSIGN: {
      // copysign.f32 d, a, b: |b| with the sign of a
      uint64_t a = get(t, o[1], ty), b = get(t, o[2], ty);
      if (ty == T_F64)
        set(t, o[0], d2u(std::copysign(u2d(b), u2d(a))), ty);
      else
        set(t, o[0], fromF(std::copysign(asF(b), asF(a))), ty);
      return;
    }
    case O_POPC:
      set(t, o[0], uint64_t(__builtin_popcountll(get(t, o[1], ty) &
                                                 maskBits(bitsOf(ty)))),
          T_U32);
      return;
    case O_CLZ: {
      unsigned bits = bitsOf(ty);
      uint64_t v = get(t, o[1], ty) & maskBits(bits);
      unsigned n = v ? unsigned(__builtin_clzll(v)) - (64 - bits) : bits;
      set(t, o[0], n, T_U32);
      return;
    }
    case O_BREV: {
      unsigned bits = bitsOf(ty);
      uint64_t v = get(t, o[1], ty), r = 0;
      for (unsigned i = 0; i < bits; ++i)
        if ((v >> i) & 1)
          r |= uint64_t(1) << (bits - 1 - i);
      set(t, o[0], r, ty);
      return;
    }
    case O_BFE: {
      unsigned bits = bitsOf(ty);
      uint64_t a = get(t, o[1], ty) & maskBits(bits);
      unsigned pos = unsigned(get(t, o[2], T_U32) & 0xff),
               len = unsigned(get(t, o[3], T_U32) & 0xff);
      uint64_t r = 0;
      if (len && pos < bits) {
        r = (a >> pos) & maskBits(std::min(len, bits - pos));
        if (isSigned(ty)) {
          unsigned top = std::min(pos + len - 1, bits - 1);
          bool sign = (a >> top) & 1;
          if (sign)
            r |= ~maskBits(std::min(len, bits - pos));
        }
      } else if (isSigned(ty) && len) {
        r = (a >> (bits - 1)) & 1 ? ~uint64_t(0) : 0;
      }
      set(t, o[0], r, ty);
      return;
    }
    case O_BFI: {
      unsigned bits = bitsOf(ty);
      uint64_t f = get(t, o[1], ty), b = get(t, o[2], ty);
      unsigned pos = unsigned(get(t, o[3], T_U32) & 0xff),
               len = unsigned(get(t, o[4], T_U32) & 0xff);
      uint64_t r = b;
      if (len && pos < bits) {
        uint64_t m = maskBits(std::min(len, bits - pos)) << pos;
        r = (b & ~m) | ((f << pos) & m);
      }
      set(t, o[0], r, ty);
      return;
    }
    case O_PRMT: {
      uint64_t a = get(t, o[1], T_B32) & 0xffffffff,
               b = get(t, o[2], T_B32) & 0xffffffff,
               c = get(t, o[3], T_B32);
      uint64_t both = b << 32 | a, r = 0;
      for (int i = 0; i < 4; ++i) {
        unsigned sel = (c >> (4 * i)) & 0xf;
        uint64_t byte = (both >> (8 * (sel & 7))) & 0xff;
        if (sel & 8)
          byte = (byte & 0x80) ? 0xff : 0;
        r |= byte << (8 * i);
      }
      set(t, o[0], r, T_B32);
      return;
    }
    case O_TESTP: {
      double x = toD(ty, get(t, o[1], ty));
      bool r = in.cmp == "finite"     ? std::isfinite(x)
               : in.cmp == "infinite" ? std::isinf(x)
               : in.cmp == "number"   ? !std::isnan(x)
               : in.cmp == "notanumber" ? std::isnan(x)
               : in.cmp == "normal"   ? std::isnormal(x)
                                      : std::fpclassify(x) == FP_SUBNORMAL;
      set(t, o[0], r, T_PRED);
      return;
    }
    case O_CPASYNC: {
      // cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}
      uint64_t dst = address(t, o[0]), src = address(t, o[1]);
      uint64_t size = get(t, o[2], T_U32);
      uint64_t srcSize = o.size() > 3 ? get(t, o[3], T_U32) & 0xffffffff
                                      : size;
      if (size != 4 && size != 8 && size != 16)
        fail(where(t) + ": cp.async size must be 4, 8 or 16");
      if (srcSize > size)
        fail(where(t) + ": cp.async src-size larger than the copy");
      if (dst % size || (srcSize && src % size))
        fail(where(t) + ": misaligned cp.async");
      Thread::Copy c{dst, std::vector<uint8_t>(size, 0)};
      if (srcSize) {
        if (!valid(src, srcSize))
          fail(where(t) + ": cp.async reads " + std::to_string(srcSize) +
               " bytes at 0x" + hex(src) + " outside device memory");
        std::memcpy(c.data.data(), reinterpret_cast<const void *>(src),
                    srcSize);
      }
      checkShared(t, dst, size);
      for (uint64_t i = dst; i < dst + size; ++i) {
        if (readEpoch[i] == epoch && reader[i] != int16_t(t.tid))
          fail(where(t) + ": race: cp.async into shared byte " +
               std::to_string(i) + " that another thread read since the "
               "last barrier");
        if (inflight[i])
          fail(where(t) + ": cp.async into shared byte " + std::to_string(i) +
               " that " + inflightWriter(i) + " may still be writing");
        if (asyncReaders[i])
          fail(where(t) + ": cp.async into shared byte " + std::to_string(i) +
               " that " + asyncReader(i) + " may still be reading");
        if (mbarByte[i])
          fail(where(t) + ": cp.async into shared byte " + std::to_string(i) +
               " of the mbarrier object at " + std::to_string(i & ~7ull));
        inflight[i]++;
      }
      t.open.push_back(std::move(c));
      return;
    }
    case O_CPCOMMIT:
      t.groups.push_back(std::move(t.open));
      t.open.clear();
      return;
    case O_CPWAIT: {
      size_t keep = in.cmp == "all" ? 0 : size_t(get(t, o[0], T_U32));
      if (in.cmp == "all" && !t.open.empty()) {
        t.groups.push_back(std::move(t.open));
        t.open.clear();
      }
      while (t.groups.size() > keep) {
        for (Thread::Copy &c : t.groups.front()) {
          for (uint64_t i = c.dst; i < c.dst + c.data.size(); ++i)
            inflight[i]--;
          sharedWrite(t, c.dst, c.data.data(), c.data.size(), true);
        }
        t.groups.erase(t.groups.begin());
      }
      return;
    }
    case O_MBAR_INIT:
    case O_MBAR_ARRIVE:
    case O_MBAR_EXPECT_TX:
    case O_MBAR_INVAL:
      return mbarrier(t, in);
    case O_TMA_LOAD:
      return tmaLoad(t, in);
    case O_TMA_STORE:
      return tmaStore(t, in);
    case O_BULK_COMMIT:
      t.bulkGroups.push_back(std::move(t.bulkOpen));
      t.bulkOpen.clear();
      return;
    case O_BULK_WAIT: {
      // cp.async.bulk.wait_group{.read} N: the store reads shared memory
      // and writes global memory here, at the latest moment the ISA allows
      // (.read only promises the reads; the writes come no later).
      size_t keep = size_t(get(t, o[0], T_U32));
      while (t.bulkGroups.size() > keep) {
        for (size_t s : t.bulkGroups.front())
          performStore(stores[s]);
        t.bulkGroups.pop_front();
      }
      return;
    }
    case O_FENCE_PROXY_ASYNC:
      // Orders this thread's earlier generic-proxy writes (st.shared,
      // cp.async) before later async-proxy reads of them (wgmma, bulk tensor
      // stores) and its earlier mbarrier.init before TMA completions.
      t.proxyFence = t.mbarInitFence = genericWrites;
      return;
    case O_FENCE_MBAR_INIT:
      t.mbarInitFence = genericWrites;
      return;
    default:
      fail(where(t) + ": unsupported instruction");
    }
  }

  // --- sm_90a: mbarriers ----------------------------------------------------

  /// The shared address of an mbarrier operand: .shared instructions take
  /// it as is, generic ones through the shared window.
  uint64_t mbarAddress(const Thread &t, const Inst &in, const Operand &o) {
    uint64_t a = address(t, o);
    if (in.space == S_GENERIC) {
      if (a < kSharedWindow || a >= kLocalWindow)
        fail(where(t) + ": the mbarrier's generic address 0x" + hex(a) +
             " is not in shared memory");
      a -= kSharedWindow;
    }
    return a;
  }

  Mbarrier &liveMbar(const Thread &t, uint64_t a, const char *what) {
    auto it = mbars.find(a);
    if (it == mbars.end())
      fail(where(t) + ": " + what + " on shared " + std::to_string(a) +
           ", where no mbarrier.init made an mbarrier object");
    return it->second;
  }

  /// A completed phase orders the arrivals' earlier accesses before the
  /// waiters' later ones: a new interval of the race checks, as a barrier
  /// (optimistic for threads that took no part).
  void phaseDone(const Mbarrier &m, uint64_t phaseBefore) {
    if (m.b.phase != phaseBefore)
      ++epoch;
  }

  /// mbarrier.init, .arrive{.expect_tx}, .expect_tx, .inval.
  void mbarrier(Thread &t, const Inst &in) {
    const auto &o = in.ops;
    if (in.op == O_MBAR_INIT) { // init [addr], count
      uint64_t a = mbarAddress(t, in, o[0]);
      if (a % 8)
        fail(where(t) + ": mbarrier object at shared " + std::to_string(a) +
             " is not 8-byte aligned");
      checkShared(t, a, 8);
      if (mbars.count(a))
        fail(where(t) + ": mbarrier.init on shared " + std::to_string(a) +
             ", which holds a valid mbarrier (initialized at line " +
             std::to_string(mbars[a].line) + "; mbarrier.inval it first)");
      for (uint64_t i = a; i < a + 8; ++i) {
        if (inflight[i] || asyncReaders[i])
          fail(where(t) + ": mbarrier.init on shared byte " +
               std::to_string(i) + ", which an asynchronous copy or wgmma "
               "may still access");
        mbarByte[i] = 1;
      }
      Mbarrier m;
      if (std::string e = m.b.init(get(t, o[1], T_U32)); !e.empty())
        fail(where(t) + ": " + e);
      m.initThread = t.tid;
      m.initWrite = ++genericWrites;
      m.line = in.line;
      mbars[a] = m;
      ++events;
      return;
    }
    if (in.op == O_MBAR_INVAL) { // inval [addr]
      uint64_t a = mbarAddress(t, in, o[0]);
      liveMbar(t, a, "mbarrier.inval");
      for (const TensorCopy &c : loads)
        if (c.mbar == a)
          fail(where(t) + ": mbarrier.inval of the mbarrier that the TMA "
                          "load of line " +
               std::to_string(p.insts[c.pc].line) + " will signal");
      mbars.erase(a);
      for (uint64_t i = a; i < a + 8; ++i)
        mbarByte[i] = 0;
      ++events;
      return;
    }
    if (in.op == O_MBAR_EXPECT_TX) { // expect_tx [addr], txCount
      uint64_t a = mbarAddress(t, in, o[0]);
      Mbarrier &m = liveMbar(t, a, "mbarrier.expect_tx");
      uint64_t phase = m.b.phase;
      if (std::string e = m.b.expectTx(get(t, o[1], T_U32)); !e.empty())
        fail(where(t) + ": mbarrier at shared " + std::to_string(a) + ": " + e);
      phaseDone(m, phase);
      ++events;
      return;
    }
    // arrive{.expect_tx} state, [addr]{, count | txCount}
    uint64_t a = mbarAddress(t, in, o[1]);
    Mbarrier &m = liveMbar(t, a, "mbarrier.arrive");
    uint64_t phase = m.b.phase;
    uint64_t count = 1;
    if (in.expectTx) {
      if (o.size() < 3)
        fail(where(t) + ": mbarrier.arrive.expect_tx needs a txCount");
      if (std::string e = m.b.expectTx(get(t, o[2], T_U32)); !e.empty())
        fail(where(t) + ": mbarrier at shared " + std::to_string(a) + ": " + e);
    } else if (o.size() > 2) {
      count = get(t, o[2], T_U32);
    }
    uint64_t state = m.b.state();
    if (std::string e = m.b.arrive(count); !e.empty())
      fail(where(t) + ": mbarrier at shared " + std::to_string(a) + ": " + e);
    phaseDone(m, phase);
    set(t, o[0], state, T_B64);
    ++events;
  }

  /// mbarrier.try_wait / test_wait{.parity} waitComplete, [addr], operand:
  /// writes whether the phase completed, which it returns.
  bool mbarWait(Thread &t, const Inst &in) {
    const auto &o = in.ops;
    uint64_t a = mbarAddress(t, in, o[1]);
    Mbarrier &m = liveMbar(t, a, "mbarrier.try_wait");
    uint64_t v = get(t, o[2], in.parity ? T_U32 : T_B64);
    bool done = false;
    if (in.parity) {
      if (v > 1)
        fail(where(t) + ": phase parity " + std::to_string(v) +
             " is neither 0 nor 1");
      done = m.b.parityCompleted(unsigned(v));
    } else if (std::string e = m.b.stateCompleted(v, done); !e.empty()) {
      fail(where(t) + ": mbarrier at shared " + std::to_string(a) + ": " + e);
    }
    set(t, o[0], done, T_PRED);
    if (!done) {
      t.sleepMbar = a;
      t.sleepPhase = m.b.phase;
      t.sleepParity = in.parity ? int(v) : -1;
    }
    return done;
  }

  // --- sm_90a: the Tensor Memory Accelerator --------------------------------

  /// The tensor map that a bulk tensor copy's [tensorMap, {...}] operand
  /// addresses: the generic address of a kernel parameter (cvta.param) or of
  /// 128 bytes of global memory, in the stand-in driver's encoding
  /// (TensorMap.h). Refuses what the copy below does not model.
  TensorMap tensorMapOperand(Thread &t, const Operand &o) {
    unsigned char bytes[128];
    if (o.sym >= 0) // as ptxas: "state space mismatch"
      fail(where(t) + ": the tensor map operand must be a generic address "
                      "(cvta.param of the parameter), not the symbol " +
           p.symbols[o.sym].name);
    uint64_t a = address(t, o);
    bool param = a >= kParamWindow;
    if (param)
      a -= kParamWindow;
    if (param) {
      unsigned idx = unsigned(a >> 32), off = unsigned(a & 0xffffffff);
      if (idx >= l.params.size() || off + 128 > l.params[idx].size())
        fail(where(t) + ": the tensor map is not a 128-byte parameter");
      std::memcpy(bytes, l.params[idx].data() + off, 128);
    } else {
      if (a % 64 || !valid(a, 128))
        fail(where(t) + ": the tensor map at 0x" + hex(a) +
             " is neither a parameter nor 64-byte aligned device memory");
      std::memcpy(bytes, reinterpret_cast<const void *>(a), 128);
    }
    TensorMap m;
    if (std::string e = decodeTensorMap(bytes, m); !e.empty())
      fail(where(t) + ": the tensor map operand " + e);
    const char *why = nullptr;
    if (tensorMapElementBytes(m.dataType) == 0)
      why = "a packed sub-byte data type";
    else if (m.interleave != 0)
      why = "an interleaved layout";
    else if (m.swizzle > 3)
      why = "a 128-byte swizzle with a 32- or 64-byte atom";
    else if (m.oobFill != 0)
      why = "NaN fill of out-of-bounds elements";
    for (unsigned i = 0; i < m.rank && !why; ++i)
      if (m.elementStrides[i] != 1)
        why = "element strides other than 1";
    if (why)
      fail(where(t) + ": a tensor map with " + std::string(why) +
           " is not simulated");
    return m;
  }

  /// The copy's box origin and shared-memory side; checks the operands.
  TensorCopy tensorCopy(Thread &t, const Inst &in, const Operand &map,
                        const Operand &smemOperand) {
    TensorCopy c;
    c.pc = t.pc;
    c.thread = t.tid;
    c.map = tensorMapOperand(t, map);
    if (map.elems.size() != in.dims || c.map.rank != in.dims)
      fail(where(t) + ": a ." + std::to_string(in.dims) + "d copy with " +
           std::to_string(map.elems.size()) + " coordinates of a rank-" +
           std::to_string(c.map.rank) + " tensor map");
    for (unsigned i = 0; i < in.dims; ++i)
      c.coords[i] = int64_t(int32_t(get(t, map.elems[i], T_S32)));
    c.smem = address(t, smemOperand);
    if (c.smem >= kSharedWindow)
      fail(where(t) + ": the shared-memory operand is a generic address");
    c.bytes = tensorMapElementBytes(c.map.dataType);
    for (unsigned i = 0; i < c.map.rank; ++i)
      c.bytes *= c.map.box[i];
    if (c.smem % 128)
      fail(where(t) + ": the shared-memory address " +
           std::to_string(c.smem) + " of a bulk tensor copy is not "
                                    "128-byte aligned");
    checkShared(t, c.smem, c.bytes);
    return c;
  }

  /// Visits the box's elements in shared-memory order: `f(shared address,
  /// global address, in bounds)`. The box is dense in shared memory
  /// (dimension 0 innermost) and swizzled as the map says; elements outside
  /// the tensor have no global address.
  template <typename F> void forEachBoxElement(const TensorCopy &c, F f) {
    const TensorMap &m = c.map;
    unsigned e = tensorMapElementBytes(m.dataType);
    static const unsigned swizzleBytes[] = {0, 32, 64, 128};
    unsigned idx[5] = {};
    uint64_t linear = 0;
    while (true) {
      bool in = true;
      uint64_t g = m.address;
      for (unsigned d = 0; d < m.rank; ++d) {
        int64_t x = c.coords[d] + idx[d];
        in &= x >= 0 && uint64_t(x) < m.dims[d];
        g += uint64_t(x) * (d == 0 ? e : m.strides[d - 1]);
      }
      f(hopper::swizzle(c.smem + linear * e, swizzleBytes[m.swizzle]), g, in);
      ++linear;
      unsigned d = 0;
      while (d < m.rank && ++idx[d] == m.box[d])
        idx[d++] = 0;
      if (d == m.rank)
        return;
    }
  }

  /// cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::
  /// complete_tx::bytes [dst], [map, {c...}], [mbar]: queued; it lands when
  /// no thread can run (deliverLoad). Its destination may be neither read
  /// nor written until then.
  void tmaLoad(Thread &t, const Inst &in) {
    const auto &o = in.ops;
    if (o.size() != 3u + in.cacheHint)
      fail(where(t) + ": a tensor load takes [dst], [map, {...}], [mbar]");
    TensorCopy c = tensorCopy(t, in, o[1], o[0]);
    c.mbar = address(t, o[2]);
    Mbarrier &m = liveMbar(t, c.mbar, "a TMA load's complete_tx");
    const Thread &init = threads[m.initThread];
    if (init.mbarInitFence < m.initWrite)
      fail(where(t) + ": the TMA load signals the mbarrier at shared " +
           std::to_string(c.mbar) + ", whose mbarrier.init (line " +
           std::to_string(m.line) + ", thread " +
           std::to_string(m.initThread) +
           ") no fence.mbarrier_init or fence.proxy.async made visible to "
           "the async proxy");
    forEachBoxElement(c, [&](uint64_t s, uint64_t, bool) {
      unsigned e = tensorMapElementBytes(c.map.dataType);
      checkShared(t, s, e); // a swizzle may move it past a short box
      for (uint64_t i = s; i < s + e; ++i) {
        if (inflight[i])
          fail(where(t) + ": TMA load into shared byte " + std::to_string(i) +
               " while " + inflightWriter(i) + " may still be writing it");
        if (asyncReaders[i])
          fail(where(t) + ": TMA load into shared byte " + std::to_string(i) +
               " that " + asyncReader(i) + " may still be reading");
        if (mbarByte[i])
          fail(where(t) + ": TMA load into shared byte " + std::to_string(i) +
               " of the mbarrier object at " + std::to_string(i & ~7ull));
      }
    });
    forEachBoxElement(c, [&](uint64_t s, uint64_t, bool) {
      for (uint64_t i = s; i < s + tensorMapElementBytes(c.map.dataType); ++i)
        inflight[i]++;
    });
    loads.push_back(c);
  }

  /// The oldest TMA load lands: the box's in-bounds elements from global
  /// memory, zeros elsewhere (the map's fill), then complete_tx of the
  /// box's bytes on its mbarrier.
  void deliverLoad() {
    TensorCopy c = loads.front();
    loads.pop_front();
    const Thread &t = threads[c.thread];
    unsigned e = tensorMapElementBytes(c.map.dataType);
    forEachBoxElement(c, [&](uint64_t s, uint64_t g, bool in) {
      unsigned char v[8] = {};
      if (in) {
        if (!valid(g, e))
          fail(where(t, c.pc) + ": the TMA load reads " + std::to_string(e) +
               " bytes at 0x" + hex(g) + " outside device memory");
        std::memcpy(v, reinterpret_cast<const void *>(g), e);
      }
      for (uint64_t i = s; i < s + e; ++i) {
        inflight[i]--;
        written[i] = 1;
        writer[i] = -1;
        writeEpoch[i] = -1; // ordered by its mbarrier, not by barriers
        genWrite[i] = 0;
      }
      std::memcpy(&smem[s], v, e);
    });
    // mbarrier.inval and a second init refuse while the load is pending.
    Mbarrier &m = mbars.at(c.mbar);
    uint64_t phase = m.b.phase;
    if (std::string err = m.b.completeTx(c.bytes); !err.empty())
      fail(where(t, c.pc) + ": complete_tx of the TMA load: " + err);
    phaseDone(m, phase);
    ++events;
  }

  /// The checks of an asynchronous-proxy read of shared bytes [a, a + n)
  /// (wgmma, a bulk tensor store) when it is issued: written, landed, no
  /// generic write since the last barrier, and every generic write made
  /// visible to the async proxy by its writer's fence.proxy.async.
  void checkAsyncRead(const Thread &t, uint64_t a, uint64_t n,
                      const char *who, bool ownWritesOrdered = false) {
    checkShared(t, a, n);
    for (uint64_t i = a; i < a + n; ++i) {
      if (inflight[i])
        fail(where(t) + ": " + who + " reads shared byte " +
             std::to_string(i) + " while " + inflightWriter(i) +
             " may still be writing it");
      if (mbarByte[i])
        fail(where(t) + ": " + who + " reads shared byte " +
             std::to_string(i) + " of the mbarrier object at " +
             std::to_string(i & ~7ull));
      if (!written[i])
        fail(where(t) + ": " + who + " reads shared byte " +
             std::to_string(i) + ", which nothing wrote");
      if (writeEpoch[i] == epoch &&
          !(ownWritesOrdered && writer[i] == int16_t(t.tid)))
        fail(where(t) + ": race: " + who + " reads shared byte " +
             std::to_string(i) + " written by thread " +
             std::to_string(writer[i]) + " since the last barrier");
      if (genWrite[i] && threads[writer[i]].proxyFence < genWrite[i])
        fail(where(t) + ": " + who + " reads shared byte " +
             std::to_string(i) + ", which thread " +
             std::to_string(writer[i]) +
             " wrote through the generic proxy with no fence.proxy.async "
             "after it");
    }
  }

  /// cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group [map,
  /// {c...}], [src]: pending in the thread's bulk async-group until a
  /// cp.async.bulk.wait_group retires it; its source may not be written
  /// until then.
  void tmaStore(Thread &t, const Inst &in) {
    const auto &o = in.ops;
    if (o.size() != 2u + in.cacheHint)
      fail(where(t) + ": a tensor store takes [map, {...}], [src]");
    TensorCopy c = tensorCopy(t, in, o[0], o[1]);
    unsigned e = tensorMapElementBytes(c.map.dataType);
    // Elements outside the tensor are dropped: what shared memory holds
    // there does not matter.
    forEachBoxElement(c, [&](uint64_t s, uint64_t, bool in) {
      checkShared(t, s, e);
      if (in)
        checkAsyncRead(t, s, e, "the TMA store", /*ownWritesOrdered=*/true);
    });
    forEachBoxElement(c, [&](uint64_t s, uint64_t, bool) {
      for (uint64_t i = s; i < s + e; ++i)
        asyncReaders[i]++;
    });
    t.bulkOpen.push_back(stores.size());
    stores.push_back(c);
  }

  /// A bulk tensor store runs: in-bounds elements go to global memory, the
  /// others nowhere.
  void performStore(const TensorCopy &c) {
    const Thread &t = threads[c.thread];
    unsigned e = tensorMapElementBytes(c.map.dataType);
    forEachBoxElement(c, [&](uint64_t s, uint64_t g, bool in) {
      for (uint64_t i = s; i < s + e; ++i)
        asyncReaders[i]--;
      if (!in)
        return;
      if (!valid(g, e))
        fail(where(t, c.pc) + ": the TMA store writes " + std::to_string(e) +
             " bytes at 0x" + hex(g) + " outside device memory");
      std::memcpy(reinterpret_cast<void *>(g), &smem[s], e);
    });
    ++events;
  }

  // --- sm_90a: warpgroup instructions ---------------------------------------

  void warpgroupCollective(size_t g, const Inst &in) {
    Thread &t0 = threads[g * 128];
    current = &t0;
    switch (in.op) {
    case O_WGMMA_FENCE:
      for (size_t i = g * 128; i < g * 128 + 128; ++i) {
        threads[i].wgFenceSeq = threads[i].seq;
        threads[i].wgFencePc = threads[i].pc;
        threads[i].wgFenced = true;
      }
      return;
    case O_SETMAXNREG: {
      // setmaxnreg.{inc,dec}.sync.aligned.u32 N: only its operand's range
      // is checked; register counts do not change what the code computes.
      uint64_t nreg = in.ops.empty() || in.ops[0].kind != Operand::Imm
                          ? 0
                          : in.ops[0].imm;
      if (nreg < 24 || nreg > 256 || nreg % 8)
        fail(where(t0) + ": setmaxnreg's register count must be an "
                         "immediate in [24, 256] and a multiple of 8");
      return;
    }
    case O_WGMMA:
      return wgmmaIssue(g, in);
    case O_WGMMA_COMMIT:
      warpgroups[g].groups.push_back(std::move(warpgroups[g].open));
      warpgroups[g].open.clear();
      return;
    case O_WGMMA_WAIT: {
      if (in.ops.size() != 1 || in.ops[0].kind != Operand::Imm)
        fail(where(t0) + ": wgmma.wait_group takes an immediate count");
      size_t keep = size_t(in.ops[0].imm);
      while (warpgroups[g].groups.size() > keep) {
        for (WgmmaOp &op : warpgroups[g].groups.front())
          wgmmaRetire(g, op);
        warpgroups[g].groups.pop_front();
      }
      return;
    }
    default:
      fail("not a warpgroup instruction");
    }
  }

  static bool sharesRegister(const Operand &a, const Operand &b) {
    for (const Operand &x : a.elems)
      for (const Operand &y : b.elems)
        if (x.kind == Operand::Reg && y.kind == Operand::Reg && x.reg == y.reg)
          return true;
    return false;
  }
  static bool sameRegisters(const Operand &a, const Operand &b) {
    if (a.elems.size() != b.elems.size())
      return false;
    for (size_t i = 0; i < a.elems.size(); ++i)
      if (a.elems[i].kind != Operand::Reg || b.elems[i].kind != Operand::Reg ||
          a.elems[i].reg != b.elems[i].reg)
        return false;
    return true;
  }

  /// wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}.{bf16,f16} d,
  /// a-desc | {a0..a3}, b-desc, scale-d, imm-scale-a, imm-scale-b{,
  /// imm-trans-a}, imm-trans-b: checks its operands and the ordering rules,
  /// locks its registers and shared-memory operands; the product is
  /// computed when a wgmma.wait_group retires it.
  void wgmmaIssue(size_t g, const Inst &in) {
    const Thread &t0 = threads[g * 128];
    const auto &o = in.ops;
    if (in.m != 64 || in.k != 16 || in.n < 8 || in.n > 256 || in.n % 8)
      fail(where(t0) + ": only wgmma shapes m64nNk16 (N a multiple of 8 up "
                       "to 256) are simulated");
    if (in.mmaD != T_F32)
      fail(where(t0) + ": only .f32 accumulators of wgmma are simulated");
    if ((in.mmaA != T_BF16 && in.mmaA != T_F16) || in.mmaB != in.mmaA)
      fail(where(t0) + ": only wgmma on .bf16 or .f16 A and B is simulated");
    bool regA = o.size() > 1 && o[1].kind == Operand::Vec;
    if (o.size() != (regA ? 7u : 8u))
      fail(where(t0) + ": wgmma.mma_async takes " +
           std::string(regA ? "7" : "8") + " operands here");
    if (o[0].kind != Operand::Vec || o[0].elems.size() != in.n / 2)
      fail(where(t0) + ": the accumulator of m64n" + std::to_string(in.n) +
           "k16.f32 is " + std::to_string(in.n / 2) + " registers");
    if (regA && o[1].elems.size() != 4)
      fail(where(t0) + ": A from registers is 4 registers");
    for (const Operand *v : {&o[0], regA ? &o[1] : nullptr})
      if (v)
        for (const Operand &e : v->elems)
          if (e.kind != Operand::Reg)
            fail(where(t0) + ": wgmma's register operands must be registers");
    auto immediate = [&](size_t i, std::initializer_list<int64_t> allowed) {
      if (o[i].kind != Operand::Imm)
        fail(where(t0) + ": operand " + std::to_string(i + 1) +
             " of wgmma.mma_async must be an immediate");
      for (int64_t v : allowed)
        if (int64_t(o[i].imm) == v)
          return v;
      fail(where(t0) + ": operand " + std::to_string(i + 1) +
           " of wgmma.mma_async is " + std::to_string(int64_t(o[i].imm)) +
           ", out of its range");
    };
    WgmmaOp op;
    op.pc = t0.pc;
    op.scaleA = double(immediate(4, {1, -1}));
    op.scaleB = double(immediate(5, {1, -1}));
    bool transA = regA ? false : immediate(6, {0, 1}) == 1;
    bool transB = immediate(regA ? 6 : 7, {0, 1}) == 1;
    // The descriptors and scale-d: one value for the whole warpgroup.
    uint64_t descA = regA ? 0 : get(t0, o[1], T_B64);
    uint64_t descB = get(t0, o[2], T_B64);
    op.scaleD = get(t0, o[3], T_PRED) & 1;
    for (size_t i = g * 128; i < g * 128 + 128; ++i) {
      const Thread &t = threads[i];
      if ((!regA && get(t, o[1], T_B64) != descA) ||
          get(t, o[2], T_B64) != descB)
        fail(where(t) + ": the matrix descriptors differ between threads "
                        "of the warpgroup (thread " +
             std::to_string(t0.tid) + "'s and this one's)");
      if ((get(t, o[3], T_PRED) & 1) != op.scaleD)
        fail(where(t) + ": scale-d differs between threads of the warpgroup");
    }
    // wgmma.fence: before the warpgroup's first wgmma, and between a
    // thread's access of a register and a wgmma that uses it (a chain of
    // wgmma on one accumulator needs none: their own accesses are not
    // recorded).
    for (size_t i = g * 128; i < g * 128 + 128; ++i) {
      const Thread &t = threads[i];
      if (!t.wgFenced)
        fail(where(t) + ": wgmma.mma_async with no wgmma.fence before it");
      for (const Operand *v : {&o[0], regA ? &o[1] : nullptr})
        if (v)
          for (const Operand &e : v->elems)
            if (t.regAccess[e.reg] > t.wgFenceSeq) {
              const Inst &access = p.insts[t.regAccessPc[e.reg]];
              std::string what =
                  "register " + p.regNames[e.reg] + " was accessed by line " +
                  std::to_string(access.line) + " '" + brief(access.text) +
                  "' after the wgmma.fence of line " +
                  std::to_string(p.insts[t.wgFencePc].line) +
                  ": a wgmma.fence must order the access before the "
                  "wgmma.mma_async";
              if (!l.fenceNote)
                fail(where(t) + ": " + what);
              // Once per access and launch: ptxas repairs this (its C7519
              // "warpgroup.arrive is injected"), at a cost.
              if (noted.insert(t.regAccessPc[e.reg]).second)
                l.fenceNote("line " + std::to_string(in.line) + " '" +
                            brief(in.text) + "': " + what);
              break;
            }
    }
    // In-flight ops may share this one's accumulator only as the same
    // chain (the same registers, shape and types), and neither may use the
    // other's accumulator as A.
    const Warpgroup &wg = warpgroups[g];
    auto conflicts = [&](const WgmmaOp &x) {
      const Inst &xi = p.insts[x.pc];
      bool xRegA = xi.ops[1].kind == Operand::Vec;
      if (sharesRegister(xi.ops[0], o[0]) &&
          !(sameRegisters(xi.ops[0], o[0]) && xi.n == in.n &&
            xi.mmaA == in.mmaA))
        fail(where(t0) + ": shares accumulator registers with the in-flight "
                         "wgmma.mma_async of line " +
             std::to_string(xi.line) + " without being its chain");
      if ((regA && sharesRegister(xi.ops[0], o[1])) ||
          (xRegA && sharesRegister(xi.ops[1], o[0])))
        fail(where(t0) + ": uses as A the accumulator of the in-flight "
                         "wgmma.mma_async of line " +
             std::to_string(xi.line) + " (or the other way round)");
    };
    for (const WgmmaOp &x : wg.open)
      conflicts(x);
    for (const auto &grp : wg.groups)
      for (const WgmmaOp &x : grp)
        conflicts(x);
    // The shared-memory operands.
    unsigned e = 2;
    hopper::MatrixDescriptor da, db;
    if (!regA)
      if (std::string err = hopper::decodeDescriptor(descA, da); !err.empty())
        fail(where(t0) + ": a-desc 0x" + hex(descA) + ": " + err);
    if (std::string err = hopper::decodeDescriptor(descB, db); !err.empty())
      fail(where(t0) + ": b-desc 0x" + hex(descB) + ": " + err);
    if (!regA)
      for (unsigned m = 0; m < 64; ++m)
        for (unsigned k = 0; k < 16; ++k)
          op.aAddr.push_back(hopper::operandAddress(da, transA, m, k, e));
    for (unsigned k = 0; k < 16; ++k)
      for (unsigned n = 0; n < in.n; ++n)
        op.bAddr.push_back(hopper::operandAddress(db, transB, n, k, e));
    for (const auto *v : {&op.aAddr, &op.bAddr})
      for (uint64_t a : *v)
        checkAsyncRead(t0, a, e, "wgmma.mma_async");
    for (const auto *v : {&op.aAddr, &op.bAddr})
      for (uint64_t a : *v)
        for (uint64_t i = a; i < a + e; ++i)
          asyncReaders[i]++;
    for (size_t i = g * 128; i < g * 128 + 128; ++i)
      for (const Operand *v : {&o[0], regA ? &o[1] : nullptr})
        if (v)
          for (const Operand &r : v->elems)
            threads[i].inflightUse[r.reg]++;
    warpgroups[g].open.push_back(std::move(op));
  }

  /// A wgmma.mma_async retires: D = A * B (+ D) over its warpgroup, read
  /// from shared memory and registers now and written to the accumulator
  /// registers (the PTX ISA's m64nNk16 fragments: thread l of warp w of the
  /// warpgroup, g = l / 4, q = l % 4, holds D rows 16w + g (+ 8) and
  /// columns 8j + 2q (+ 1); A's registers rows 16w + g (+ 8), k 2q (+ 1)
  /// (+ 8)).
  void wgmmaRetire(size_t g, const WgmmaOp &op) {
    const Inst &in = p.insts[op.pc];
    const auto &o = in.ops;
    bool regA = o[1].kind == Operand::Vec;
    Ty half = in.mmaA;
    unsigned n = in.n;
    std::vector<double> A(64 * 16), B(16 * n), C(64 * n, 0.0);
    auto element = [&](uint64_t a) {
      uint16_t v;
      std::memcpy(&v, &smem[a], 2);
      return toD(half, v);
    };
    for (size_t i = 0; i < op.aAddr.size(); ++i)
      A[i] = element(op.aAddr[i]) * op.scaleA;
    for (size_t i = 0; i < op.bAddr.size(); ++i)
      B[i] = element(op.bAddr[i]) * op.scaleB;
    for (unsigned i = 0; i < 128; ++i) {
      const Thread &t = threads[g * 128 + i];
      unsigned w = i / 32, gr = (i % 32) / 4, q = i % 4;
      if (regA)
        for (unsigned j = 0; j < 4; ++j) {
          uint64_t bits = t.r[o[1].elems[j].reg];
          for (unsigned h = 0; h < 2; ++h)
            A[(16 * w + gr + 8 * (j % 2)) * 16 + 2 * q + h + 8 * (j / 2)] =
                toD(half, (bits >> (16 * h)) & 0xffff) * op.scaleA;
        }
      if (op.scaleD)
        for (unsigned j = 0; j < n / 2; ++j)
          C[(16 * w + gr + 8 * ((j % 4) / 2)) * n + 8 * (j / 4) + 2 * q +
            j % 2] = asF(t.r[o[0].elems[j].reg]);
    }
    for (unsigned i = 0; i < 128; ++i) {
      Thread &t = threads[g * 128 + i];
      unsigned w = i / 32, gr = (i % 32) / 4, q = i % 4;
      for (unsigned j = 0; j < n / 2; ++j) {
        unsigned row = 16 * w + gr + 8 * ((j % 4) / 2),
                 col = 8 * (j / 4) + 2 * q + j % 2;
        double sum = 0;
        for (unsigned k = 0; k < 16; ++k)
          sum += A[row * 16 + k] * B[k * n + col];
        t.r[o[0].elems[j].reg] = fromF(float(sum + C[row * n + col]));
      }
      for (const Operand *v : {&o[0], regA ? &o[1] : nullptr})
        if (v)
          for (const Operand &r : v->elems)
            t.inflightUse[r.reg]--;
    }
    for (const auto *v : {&op.aAddr, &op.bAddr})
      for (uint64_t a : *v)
        for (uint64_t i = a; i < a + 2; ++i)
          asyncReaders[i]--;
  }

  // --- warp collectives ---------------------------------------------------

  void collective(size_t lo, size_t hi, const Inst &in) {
    current = &threads[lo];
    if (hi - lo != 32)
      fail(where(threads[lo]) + ": collective in a partial warp");
    switch (in.op) {
    case O_SHFL:
      return shfl(lo, in);
    case O_MMA:
      return mma(lo, in);
    case O_LDMATRIX:
      return ldmatrix(lo, in);
    default:
      fail("not a collective");
    }
  }

  void shfl(size_t lo, const Inst &in) {
    // shfl.sync.mode.b32 d[|p], a, b, c, membermask
    const auto &o = in.ops;
    uint64_t vals[32];
    for (int i = 0; i < 32; ++i)
      vals[i] = get(threads[lo + i], o[1], T_B32);
    for (int lane = 0; lane < 32; ++lane) {
      Thread &t = threads[lo + lane];
      uint32_t b = uint32_t(get(t, o[2], T_B32)) & 31,
               c = uint32_t(get(t, o[3], T_B32));
      uint32_t mask = (c >> 8) & 31, clamp = c & 31;
      int maxLane = int((uint32_t(lane) & mask) | (clamp & ~mask));
      int minLane = int(uint32_t(lane) & mask);
      int j = lane;
      bool ok;
      if (in.cmp == "up") {
        j = lane - int(b);
        ok = j >= maxLane;
      } else if (in.cmp == "down") {
        j = lane + int(b);
        ok = j <= maxLane;
      } else if (in.cmp == "bfly") {
        j = lane ^ int(b);
        ok = j <= maxLane;
      } else {
        j = minLane | int(b & ~mask);
        ok = j <= maxLane;
      }
      if (!ok)
        j = lane;
      const Operand &dst = o[0];
      set(t, dst, vals[j], T_B32);
    }
  }

  void ldmatrix(size_t lo, const Inst &in) {
    // ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 {d..}, [addr]
    unsigned num = in.vec;
    const Operand &dst = in.ops[0];
    uint64_t rowAddr[32];
    for (int i = 0; i < 32; ++i)
      rowAddr[i] = address(threads[lo + i], in.ops[1]);
    for (int lane = 0; lane < 32; ++lane) {
      Thread &t = threads[lo + lane];
      int g = lane / 4, q = lane % 4;
      for (unsigned j = 0; j < num; ++j) {
        uint32_t word = 0;
        for (int h = 0; h < 2; ++h) {
          // Element (row, col) of matrix j: row from lane 8j + row.
          int row = in.trans ? 2 * q + h : g;
          int col = in.trans ? g : 2 * q + h;
          uint64_t a = rowAddr[8 * j + row];
          if (a % 16)
            fail(where(t) + ": ldmatrix row address not 16-byte aligned");
          uint16_t v;
          uint64_t sa = a >= kSharedWindow ? a - kSharedWindow : a;
          sharedRead(t, sa + 2 * uint64_t(col), &v, 2);
          word |= uint32_t(v) << (16 * h);
        }
        const Operand &d = dst.kind == Operand::Vec ? dst.elems[j] : dst;
        set(t, d, word, T_B32);
      }
    }
  }

  void mma(size_t lo, const Inst &in) {
    // mma.sync.aligned.m16n8k16.row.col.D.A.B.C {d}, {a}, {b}, {c}
    if (in.m != 16 || in.n != 8 || in.k != 16 ||
        !(in.mmaA == T_BF16 || in.mmaA == T_F16))
      fail(where(threads[lo]) + ": only mma m16n8k16 with f16/bf16 "
                                "operands is simulated");
    Ty half = in.mmaA;
    double A[16][16], B[16][8], C[16][8];
    bool f16Acc = in.mmaC == T_F16;
    const auto &o = in.ops;
    for (int lane = 0; lane < 32; ++lane) {
      Thread &t = threads[lo + lane];
      int g = lane / 4, q = lane % 4;
      for (int i = 0; i < 4; ++i) {
        uint64_t w = get(t, o[1].elems[i], T_B32);
        for (int h = 0; h < 2; ++h)
          A[g + 8 * (i % 2)][2 * q + h + 8 * (i / 2)] =
              toD(half, (w >> (16 * h)) & 0xffff);
      }
      for (int i = 0; i < 2; ++i) {
        uint64_t w = get(t, o[2].elems[i], T_B32);
        for (int h = 0; h < 2; ++h)
          B[2 * q + h + 8 * i][g] = toD(half, (w >> (16 * h)) & 0xffff);
      }
      if (f16Acc) {
        for (int i = 0; i < 2; ++i) {
          uint64_t w = get(t, o[3].elems[i], T_B32);
          for (int h = 0; h < 2; ++h)
            C[g + 8 * i][2 * q + h] = toD(T_F16, (w >> (16 * h)) & 0xffff);
        }
      } else {
        for (int i = 0; i < 4; ++i)
          C[g + 8 * (i / 2)][2 * q + i % 2] =
              asF(get(t, o[3].elems[i], T_F32));
      }
    }
    double D[16][8];
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 8; ++c) {
        double s = 0;
        for (int k = 0; k < 16; ++k)
          s += A[r][k] * B[k][c];
        D[r][c] = double(float(s + C[r][c]));
      }
    bool f16Out = in.mmaD == T_F16;
    for (int lane = 0; lane < 32; ++lane) {
      Thread &t = threads[lo + lane];
      int g = lane / 4, q = lane % 4;
      if (f16Out) {
        for (int i = 0; i < 2; ++i) {
          uint64_t w = fromD(T_F16, D[g + 8 * i][2 * q]) |
                       fromD(T_F16, D[g + 8 * i][2 * q + 1]) << 16;
          set(t, o[0].elems[i], w, T_B32);
        }
      } else {
        for (int i = 0; i < 4; ++i)
          set(t, o[0].elems[i],
              fromF(float(D[g + 8 * (i / 2)][2 * q + i % 2])), T_F32);
      }
    }
  }
};

std::mutex gCacheMutex;
std::map<std::pair<std::string, std::string>, std::shared_ptr<Program>>
    gCache;

std::shared_ptr<Program> getProgram(const std::string &ptx,
                                    const std::string &kernel) {
  std::lock_guard<std::mutex> lock(gCacheMutex);
  auto key = std::make_pair(kernel, ptx);
  auto it = gCache.find(key);
  if (it != gCache.end())
    return it->second;
  auto prog = std::make_shared<Program>();
  Parser(*prog).parse(ptx, kernel);
  gCache[key] = prog;
  return prog;
}

} // namespace

std::string run(const std::string &ptx, const std::string &kernel,
                const Launch &launch, const GlobalCheck &valid) {
  try {
    std::shared_ptr<Program> prog = getProgram(ptx, kernel);
    // The module's own arrays (libdevice tables) are device memory too.
    GlobalCheck inModule = [&](uint64_t a, uint64_t n) {
      for (const auto &g : prog->globals) {
        uint64_t lo = reinterpret_cast<uint64_t>(g->data());
        if (a >= lo && a + n <= lo + g->size())
          return true;
      }
      return valid(a, n);
    };
    if (launch.params.size() != prog->paramSizes.size())
      return "ptxsim: " + kernel + " takes " +
             std::to_string(prog->paramSizes.size()) + " parameters, got " +
             std::to_string(launch.params.size());
    std::set<int> noted;
    for (unsigned z = 0; z < launch.grid[2]; ++z)
      for (unsigned y = 0; y < launch.grid[1]; ++y)
        for (unsigned x = 0; x < launch.grid[0]; ++x) {
          Block b(*prog, launch, inModule, x, y, z, noted);
          b.run();
        }
    return "";
  } catch (const SimError &e) {
    return std::string("ptxsim: ") + kernel + ": " + e.what();
  }
}

} // namespace ptxsim
