//===- Parser.cpp - the PTX simulator's parser ----------------------------===//
//
// Parsing: the module's `.global` arrays and `.extern .shared` symbols, the
// entry's parameters, its `.local` depot, labels and instructions (inline
// assembly included: registers are global by name, labels belong to their
// innermost `{ }` block, as LAB_WAIT in each of tilec's try_wait loops).
// Each instruction's dotted modifiers are decoded once into enums; one the
// simulator does not honour for that instruction is an error there.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace ptxsim::detail {
namespace {

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
          {"%clock", SP_CLOCK},       {"%clock64", SP_CLOCK},
          {"%clusterid.x", SP_CLUSTERID_X},
          {"%clusterid.y", SP_CLUSTERID_Y},
          {"%clusterid.z", SP_CLUSTERID_Z},
          {"%nclusterid.x", SP_NCLUSTERID_X},
          {"%nclusterid.y", SP_NCLUSTERID_Y},
          {"%nclusterid.z", SP_NCLUSTERID_Z},
          {"%cluster_ctaid.x", SP_CLUSTER_CTAID_X},
          {"%cluster_ctaid.y", SP_CLUSTER_CTAID_Y},
          {"%cluster_ctaid.z", SP_CLUSTER_CTAID_Z},
          {"%cluster_nctaid.x", SP_CLUSTER_NCTAID_X},
          {"%cluster_nctaid.y", SP_CLUSTER_NCTAID_Y},
          {"%cluster_nctaid.z", SP_CLUSTER_NCTAID_Z},
          {"%cluster_ctarank", SP_CLUSTER_CTARANK},
          {"%cluster_nctarank", SP_CLUSTER_NCTARANK},
          {"%is_explicit_cluster", SP_IS_EXPLICIT_CLUSTER},
          {"%dynamic_smem_size", SP_DYNAMIC_SMEM}};
      auto it = specials.find(s);
      // Other special registers (%smid, %globaltimer, %lanemask_lt, ...)
      // would read as a zero register: refused. A register name has no '.'.
      static const char *unmodelled[] = {
          "%smid",   "%nsmid",  "%gridid", "%lanemask", "%globaltimer",
          "%pm",     "%envreg", "%total_smem_size", "%aggr_smem_size",
          "%reserved_smem", "%current_graph_exec", "%nwarpid"};
      if (it == specials.end()) {
        bool refused = s.find('.') != std::string::npos;
        for (const char *u : unmodelled)
          refused |= s.rfind(u, 0) == 0;
        if (refused)
          fail("line " + std::to_string(line) + ": special register " + s +
               " is not simulated");
      }
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
        {"atom", O_ATOM},   {"red", O_RED},     {"elect", O_ELECT}};
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
      // tf32 (19 significant bits in a b32) only where it is modelled: the
      // operands of mma.sync m16n8k8 and wgmma k8, and cvt.rna.tf32.f32.
      if (t == "tf32" &&
          (in.op == O_MMA || in.op == O_CVT || in.op == O_WGMMA)) {
        in.tf32 = true;
        types.push_back(T_B32);
        continue;
      }
      // fp8 only as wgmma's operand types (Sm90.cpp decodes them there)
      // and cvt's packed pairs (Block.cpp).
      if ((t == "e4m3" || t == "e5m2") && in.op == O_WGMMA) {
        types.push_back(t == "e4m3" ? T_E4M3 : T_E5M2);
        continue;
      }
      if ((t == "e4m3x2" || t == "e5m2x2") && in.op == O_CVT) {
        types.push_back(t == "e4m3x2" ? T_E4M3X2 : T_E5M2X2);
        continue;
      }
      if (in.op == O_TMA_LOAD) { // the direction is decided below
        if (in.cmp == "reduce" && t == "add") {
          in.cmp = "reduce.add";
          continue;
        }
        if (t == "shared::cluster" || t == "shared::cta" || t == "global") {
          tmaSpaces.push_back(t == "global" ? S_GLOBAL : S_SHARED);
          continue;
        }
        if (t == "multicast::cluster") {
          in.multicast = true;
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
      if (in.op == O_CLUSTER_ARRIVE && t == "relaxed") {
        in.relaxed = true;
        continue;
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
      if ((in.op == O_ATOM || in.op == O_RED) &&
          (t == "add" || t == "exch" || t == "max" || t == "min" ||
           t == "and" || t == "or" || t == "xor" || t == "cas")) {
        in.cmp = t; // the operation; .sem and .scope change nothing here
        continue;
      }
      // Its addresses may be another CTA's (Block::sharedOwner).
      in.clusterSpace |= t == "shared::cluster";
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
      else if (t == "arrive" && in.op == O_BAR)
        in.arrive = true;
      else if (t == "to")
        in.cmp = "to";
      else if (t == "rn" || t == "rz" || t == "rm" || t == "rp" || t == "rna" ||
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
        in.space = S_SHARED; // .shared::cluster: clusterSpace, above
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
      if (in.cmp == "reduce")
        fail(at(line, text) + ": only the .add of cp.reduce.async.bulk.tensor "
                              "is simulated");
      if (!in.cmp.empty() && !store)
        fail(at(line, text) + ": cp.reduce.async.bulk.tensor goes from "
                              "shared::cta to global");
      if (in.multicast && !load)
        fail(at(line, text) + ": .multicast::cluster is a tensor load's");
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
    if (in.op == O_ELECT) {
      // elect.sync d|p, membermask
      std::string first = splitTop(rest, ',')[0];
      size_t bar = first.find('|');
      if (bar == std::string::npos || in.ops.size() != 2)
        fail(at(line, text) + ": elect.sync takes d|p, membermask");
      in.ops[0] = operand(first.substr(0, bar), line);
      in.highPred = operand(first.substr(bar + 1), line);
    }
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
    if (name == "cp" && word(1) == "reduce" && word(2) == "async" &&
        word(3) == "bulk" && word(4) == "tensor") {
      // cp.reduce.async.bulk.tensor.Nd.global.shared::cta.OP.tile.bulk_group:
      // a store that combines (the parser checks the direction and OP).
      const std::string d = word(5);
      if (d.size() != 2 || d[1] != 'd' || d[0] < '1' || d[0] > '5')
        return ~size_t(0);
      in.op = O_TMA_LOAD;
      in.dims = unsigned(d[0] - '0');
      in.cmp = "reduce";
      return 6;
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
    if (name == "barrier" && word(1) == "cluster") {
      // barrier.cluster.arrive{.release,.relaxed}{.aligned},
      // barrier.cluster.wait{.acquire}{.aligned}
      if (word(2) != "arrive" && word(2) != "wait")
        return ~size_t(0);
      in.op = word(2) == "arrive" ? O_CLUSTER_ARRIVE : O_CLUSTER_WAIT;
      return 3;
    }
    if (name == "mapa") {
      in.op = O_MAPA;
      return 1;
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
    if ((op == O_ATOM || op == O_RED) && t == "noftz")
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
          inKernel = true;
          // `.entry k()`: no parameters to read.
          inParams = trim(s.substr(s.find('(', e) + 1)).rfind(')', 0) != 0;
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
        if (depth == 0) {
          clusterDirective(s, lineNo); // .maxntid and the like: ignored
          continue;
        }
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
    if (p.explicitCluster && !sawClusterShape)
      fail(".entry " + kernel + " has .explicitcluster but no "
           ".reqnctapercluster: a cluster shape given at launch is not "
           "simulated");
    if (!unknownSymbol.empty())
      fail(unknownSymbol);
    resolveLabels();
    p.regNames.resize(p.regIndex.size());
    for (const auto &[name, id] : p.regIndex)
      p.regNames[id] = name;
    // Each register's width: its .reg declaration's (by its name, or by
    // its prefix: %rd<22> declares %rd0..%rd21), else LLVM's naming (%rd
    // 64, %rs 16, %r 32 bits), else unknown (0).
    p.regBits.assign(p.regIndex.size(), 0);
    for (const auto &[name, id] : p.regIndex) {
      std::string prefix = name.substr(0, name.find_last_not_of("0123456789") + 1);
      auto it = declaredBits.find(name);
      if (it == declaredBits.end())
        it = declaredBits.find(prefix);
      p.regBits[id] = it != declaredBits.end() ? it->second
                      : prefix == "%rd"        ? 64
                      : prefix == "%rs"        ? 16
                      : prefix == "%r"         ? 32
                                               : 0;
    }
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
  /// Register name prefixes (or names) and their declared widths.
  std::map<std::string, unsigned> declaredBits;
  std::string unknownSymbol; ///< the first, with its line
  bool sawClusterShape = false; ///< a .reqnctapercluster

  /// The entry's cluster directives (between its parameters and its body):
  /// `.explicitcluster`, `.reqnctapercluster X{, Y{, Z}}`; the others
  /// (.maxclusterrank, .maxntid, ...) do not change what the kernel does.
  void clusterDirective(const std::string &s, int line) {
    if (s.rfind(".explicitcluster", 0) == 0) {
      p.explicitCluster = true;
      return;
    }
    const std::string dir = ".reqnctapercluster";
    if (s.rfind(dir, 0) != 0)
      return;
    std::vector<std::string> dims = splitTop(s.substr(dir.size()), ',');
    if (dims.empty() || dims.size() > 3)
      fail("line " + std::to_string(line) + ": bad " + dir);
    for (size_t i = 0; i < dims.size(); ++i) {
      int64_t v;
      if (!parseInt(dims[i], v) || v < 1 || v > 1024)
        fail("line " + std::to_string(line) + ": bad " + dir + " " +
             dims[i]);
      p.cluster[i] = unsigned(v);
    }
    p.explicitCluster = sawClusterShape = true;
  }


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
    unsigned bits = 0;
    while (is >> w) {
      if (w[0] == '.') { // the type: .b64, .s32, .f16, .pred, ...
        size_t d = w.find_first_of("0123456789");
        bits = d == std::string::npos ? 0 : unsigned(std::stoul(w.substr(d)));
        continue;
      }
      if (w[0] != '%') {
        plainRegisters.insert(w);
        continue;
      }
      size_t lt = w.find('<'); // %rd<22>: the prefix %rd
      declaredBits[lt == std::string::npos ? w : w.substr(0, lt)] = bits;
    }
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

} // namespace

void parseProgram(Program &p, const std::string &text,
                  const std::string &kernel) {
  Parser(p).parse(text, kernel);
}

} // namespace ptxsim::detail
