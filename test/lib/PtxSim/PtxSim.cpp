//===- PtxSim.cpp - a PTX interpreter for tests without a GPU -------------===//
//
// Parsing: the module's `.global` arrays and `.extern .shared` symbols, the
// entry's parameters, its `.local` depot, labels and instructions (inline
// assembly included: its braces are ignored, registers are global by
// name). Each instruction's dotted modifiers are decoded once into enums;
// one the simulator does not honour for that instruction is an error there.
//
// Execution: one block at a time; its threads run one after another until
// each reaches a barrier, a warp-collective instruction (shfl, mma,
// ldmatrix) or the end; a collective runs when all lanes of the warp wait
// at the same one, a barrier when all threads of the block do. Registers
// hold raw bits (64 per register); floating-point arithmetic is done in
// float/double with PTX's rounding where it matters (f16/bf16 round to
// nearest even). Shared memory keeps, per byte, who wrote and read it in
// which barrier interval, to report races.
//
//===----------------------------------------------------------------------===//

#include "PtxSim.h"

#include <algorithm>
#include <cmath>
#include <cfenv>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
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
  O_CPCOMMIT, O_CPWAIT, O_NOP, O_ADDC, O_SUBC, O_MADC, O_TESTP, O_ATOM
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
  std::vector<Operand> ops;
  int line = 0;
  std::string text;
};

struct Program {
  std::vector<Inst> insts;
  std::vector<Symbol> symbols;
  std::map<std::string, int> symbolIndex;
  std::map<std::string, int> regIndex;
  std::map<std::string, int> labels;
  std::vector<unsigned> paramSizes;
  size_t localSize = 0;
  size_t staticShared = 0;
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
  else if (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-')
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
      pendingLabels.push_back(s);
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
    if (name == "cp") {
      if (tok.size() > 1 && tok[1] == "async") {
        if (tok.size() > 2 && tok[2] == "bulk")
          fail(at(line, text) + ": unsupported instruction " + opcode);
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
    for (size_t i = 1; i < tok.size(); ++i) {
      const std::string &t = tok[i];
      Ty ty = parseTy(t);
      if (ty != T_NONE) {
        types.push_back(ty);
        continue;
      }
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
      else if (t.size() > 1 && t[0] == 'm' && in.op == O_MMA &&
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

  void resolveLabels() {
    for (Inst &in : p.insts)
      for (Operand &o : in.ops)
        if (o.kind == Operand::Label) {
          const std::string &name = pendingLabels[o.sym];
          auto it = p.labels.find(name);
          if (it == p.labels.end())
            fail("line " + std::to_string(in.line) + ": unknown label " +
                 name);
          o.imm = uint64_t(it->second);
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
          ++depth;
          continue;
        }
        if (s == "}") {
          if (--depth == 0)
            done = true;
          continue;
        }
        if (depth == 0)
          continue; // .maxntid and other performance directives
        if (s[0] == '.') {
          if (s.rfind(".local", 0) == 0)
            localVariable(s);
          else if (s.rfind(".shared", 0) == 0)
            moduleVariable(s);
          continue; // .reg, .pragma, ...
        }
        // Labels.
        while (true) {
          size_t colon = s.find(':');
          size_t firstSpace = s.find_first_of(" \t;{");
          if (colon != std::string::npos &&
              (firstSpace == std::string::npos || colon < firstSpace)) {
            p.labels[trim(s.substr(0, colon))] = int(p.insts.size());
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
  }

private:
  Program &p;
  std::vector<std::string> pendingLabels;
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
      if (s.find(".extern") != std::string::npos) {
        sym.addr = ~uint64_t(0); // the dynamic array: placed at launch
      } else {
        p.staticShared = (p.staticShared + 15) / 16 * 16;
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
    Symbol sym;
    sym.name = name;
    sym.space = S_PARAM;
    sym.param = int(p.paramSizes.size());
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

constexpr uint64_t kSharedWindow = uint64_t(1) << 60;
constexpr uint64_t kLocalWindow = uint64_t(1) << 61;

enum class State : uint8_t { Run, Bar, Coll, Exit };

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
};

class Block {
public:
  Block(const Program &p, const Launch &l, const GlobalCheck &valid,
        unsigned bx, unsigned by, unsigned bz)
      : p(p), l(l), valid(valid), ctaid{bx, by, bz} {
    dynBase = (p.staticShared + 15) / 16 * 16;
    smemSize = dynBase + l.dynamicShared;
    smem.assign(smemSize, 0);
    written.assign(smemSize, 0);
    writer.assign(smemSize, -1);
    writeEpoch.assign(smemSize, -1);
    reader.assign(smemSize, -1);
    readEpoch.assign(smemSize, -1);
    inflight.assign(smemSize, 0);
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
    }
  }

  void run() {
    size_t n = threads.size();
    while (true) {
      for (Thread &t : threads)
        if (t.st == State::Run)
          step(t);
      bool progress = false;
      // Warp collectives: all lanes at one instruction.
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
        }
      }
      if (progress)
        continue;
      size_t atBar = 0, exited = 0;
      for (Thread &t : threads) {
        atBar += t.st == State::Bar;
        exited += t.st == State::Exit;
      }
      if (exited == n)
        break;
      if (atBar + exited == n && exited == 0) {
        ++epoch;
        for (Thread &t : threads) {
          t.st = State::Run;
          t.pc++;
        }
        continue;
      }
      // Stuck: report one waiting thread.
      for (Thread &t : threads)
        if (t.st != State::Exit)
          fail(where(t) + ": deadlock (" + std::to_string(atBar) +
               " threads at a barrier, " + std::to_string(exited) +
               " exited, others at a collective)");
    }
    for (Thread &t : threads) {
      bool pending = !t.open.empty();
      for (const auto &g : t.groups)
        pending |= !g.empty();
      if (pending)
        fail(where(t) + ": cp.async copies still pending at exit");
    }
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

  std::string where(const Thread &t) const {
    std::ostringstream os;
    int pc = std::min<int>(t.pc, int(p.insts.size()) - 1);
    os << "block (" << ctaid[0] << "," << ctaid[1] << "," << ctaid[2]
       << ") thread " << t.tid;
    if (pc >= 0)
      os << " line " << p.insts[pc].line << " '" << trim(p.insts[pc].text)
         << "'";
    return os.str();
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
    if (ty == T_PRED)
      v &= 1;
    else
      v &= maskBits(bitsOf(ty) == 1 ? 1 : bitsOf(ty));
    t.r[o.reg] = v;
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
             " while a cp.async may still be writing it");
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
    for (uint64_t i = a; i < a + n; ++i) {
      if (!async && inflight[i])
        fail(where(t) + ": writes shared byte " + std::to_string(i) +
             " while a cp.async may still be writing it");
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
    }
    std::memcpy(&smem[a], src, n);
  }

  void load(Thread &t, Space space, uint64_t a, void *dst, uint64_t n,
            bool vectorElement = false) {
    if (space == S_GENERIC) {
      if (a >= kLocalWindow) {
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
    if (space == S_GENERIC) {
      if (a >= kLocalWindow) {
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
        return;
      }
      const Inst &in = p.insts[t.pc];
      if (in.predReg >= 0) {
        bool pv = t.r[in.predReg] & 1;
        if (pv == in.predNeg) {
          t.pc++;
          continue;
        }
      }
      switch (in.op) {
      case O_BAR:
        t.st = State::Bar;
        return;
      case O_SHFL:
      case O_MMA:
      case O_LDMATRIX:
        t.st = State::Coll;
        return;
      case O_RET:
        t.st = State::Exit;
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
               " that another cp.async may still be writing");
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
    default:
      fail(where(t) + ": unsupported instruction");
    }
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
    for (unsigned z = 0; z < launch.grid[2]; ++z)
      for (unsigned y = 0; y < launch.grid[1]; ++y)
        for (unsigned x = 0; x < launch.grid[0]; ++x) {
          Block b(*prog, launch, inModule, x, y, z);
          b.run();
        }
    return "";
  } catch (const SimError &e) {
    return std::string("ptxsim: ") + kernel + ": " + e.what();
  }
}

} // namespace ptxsim
