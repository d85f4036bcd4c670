//===- Dispatch.cpp - tuned dispatch tables for AOT headers ---------------===//
//
// The GEMM's generated lookup repeats gemmBucket's rule in the generated
// code (powers of two of M, N, K, at least 16, and the strides' alignment),
// so that a shape the tuner never saw finds the entry its bucket was tuned
// for. A bucket without an entry takes the entry of the same N, K and
// alignment with the nearest M, else any entry whose alignment the strides
// meet (nearest in M, N, K), so a deployed program always has a kernel; a
// shape whose strides no entry can take is an error Status. An args
// problem's lookup keys on argsDispatchKey (what a call can see: its
// integer arguments and descriptor shapes) and skips the entries whose
// kernel's divisibility hints the arguments break.
//===----------------------------------------------------------------------===//

#include "tilec/Tune/Dispatch.h"
#include "tilec/AOT/CppKernels.h"
#include "tilec/DType.h"
#include "tilec/Runtime/Metadata.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

using namespace tilec;
using namespace tilec::tune;

namespace {

Expected<std::string> readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot read '" + path + "'");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The generated tables' distance between two bucket values, in powers of
/// two (a GEMM's are at least 16; an args problem's may be 0 or negative).
constexpr const char *kDistanceCpp = R"(int64_t distance(int64_t a, int64_t b) { // in powers of two
  if (a <= 0 || b <= 0)
    return a == b ? 0 : 64;
  int64_t d = 0;
  for (; a < b; a *= 2)
    ++d;
  for (; b < a; b *= 2)
    ++d;
  return d;
}

)";

/// A candidate's binary and metadata as read from its folder.
struct CandidateFiles {
  std::string binary, metadata;
  runtime::ModuleMetadata parsed;
};

Expected<CandidateFiles> readCandidate(const std::string &dir,
                                       const Candidate &c) {
  CandidateFiles f;
  Expected<std::string> binary = readAll(dir + "/" + c.binary);
  if (!binary.ok())
    return binary.status();
  Expected<std::string> meta = readAll(dir + "/" + c.metadata);
  if (!meta.ok())
    return meta.status();
  Expected<runtime::ModuleMetadata> md = runtime::parseMetadata(*meta);
  if (!md.ok())
    return md.status().withContext(dir + "/" + c.metadata);
  f.binary = std::move(*binary);
  f.metadata = std::move(*meta);
  f.parsed = std::move(*md);
  return f;
}

/// Candidate `c` (its binary and metadata given) as generateCppKernels'
/// BASE_cN.h and .cpp, in namespace NS::cN.
Status embedCandidate(const Candidate &c, const std::string &binary,
                      const std::string &metadata,
                      const DispatchOptions &options,
                      std::vector<GeneratedFile> &files) {
  aot::CppKernelsOptions ko;
  std::string base = options.baseName + "_c" + std::to_string(c.id);
  ko.namespaceName = options.namespaceName + "::c" + std::to_string(c.id);
  ko.headerInclude = base + ".h";
  ko.origin = "tilec-tune candidate " + std::to_string(c.id) + " (" +
              describe(c.params) + ")";
  ko.binaryName = c.binary;
  ko.metadataName = c.metadata;
  auto gen = aot::generateCppKernels(binary, metadata, ko);
  if (!gen.ok())
    return gen.status();
  files.push_back({base + ".h", gen->header});
  files.push_back({base + ".cpp", gen->source});
  return Status();
}

/// The include guard of the table's header.
std::string headerGuard(const DispatchOptions &options) {
  std::string guard = "TILEC_TUNED_";
  for (char ch : options.namespaceName + "_" + options.baseName + "_H")
    guard += std::isalnum(static_cast<unsigned char>(ch))
                 ? char(std::toupper(static_cast<unsigned char>(ch)))
                 : '_';
  return guard;
}

int64_t pow2AtLeast16(int64_t v) {
  int64_t p = 16;
  while (p < v)
    p *= 2;
  return p;
}

int64_t alignOf(const GemmShape &s) {
  int64_t align = 1;
  while (align < 16 && s.k % (align * 2) == 0 && s.n % (align * 2) == 0)
    align *= 2;
  return align;
}

const char *cppType(DType t) {
  switch (t) {
  case DType::BF16:
    return "::tilec::runtime::DevicePtr<::tilec::runtime::BFloat16>";
  case DType::F16:
    return "::tilec::runtime::DevicePtr<::tilec::runtime::Half>";
  default:
    return "::tilec::runtime::DevicePtr<float>";
  }
}

} // namespace

Expected<std::vector<GeneratedFile>>
tune::generateGemmDispatch(const Manifest &m, const std::string &dir,
                           const std::vector<std::pair<GemmShape, Winner>> &winners,
                           const DispatchOptions &options) {
  if (winners.empty())
    return Status::error("no winners to put in the table");
  std::vector<GeneratedFile> files;
  std::set<int> ids;
  std::string ptrTypes[3];
  bool reduceEmbedded = false;
  std::string reduceKernel;
  int64_t reduceBlockN = 0;
  for (const auto &[shape, w] : winners) {
    const Candidate *c = m.find(w.id);
    if (!c || c->pruned)
      return Status::error("the winner for " + std::to_string(shape.m) + "x" +
                           std::to_string(shape.n) + "x" +
                           std::to_string(shape.k) + ", candidate " +
                           std::to_string(w.id) +
                           ", is not a candidate of the folder");
    if (!ids.insert(w.id).second)
      continue;
    Expected<CandidateFiles> read = readCandidate(dir, *c);
    if (!read.ok())
      return read.status();
    const std::string *binary = &read->binary, *meta = &read->metadata;
    const runtime::KernelMetadata *k = read->parsed.find(m.kernel);
    if (!k || k->params.size() != 9)
      return Status::error(dir + "/" + c->metadata + ": no GEMM kernel '" +
                           m.kernel + "'");
    // The user passes pointers; the table makes the descriptors. C's type
    // is the reduce's output for a split-K plan.
    if (splitKOf(*c) == 1)
      ptrTypes[2] = cppType(k->params[2].type);
    for (int i = 0; i < 2; ++i)
      ptrTypes[i] = cppType(k->params[i].type);
    if (splitKOf(*c) > 1 && !reduceEmbedded) {
      Expected<std::string> rbin = readAll(dir + "/" + c->reduce.binary);
      if (!rbin.ok())
        return rbin.status();
      Expected<std::string> rmeta = readAll(dir + "/" + c->reduce.metadata);
      if (!rmeta.ok())
        return rmeta.status();
      Expected<runtime::ModuleMetadata> rmd = runtime::parseMetadata(*rmeta);
      if (!rmd.ok())
        return rmd.status().withContext(dir + "/" + c->reduce.metadata);
      const runtime::KernelMetadata *rk = rmd->find(c->reduce.kernel);
      if (!rk || rk->params.size() != 6)
        return Status::error(dir + "/" + c->reduce.metadata +
                             ": no split-K reduce kernel '" + c->reduce.kernel +
                             "'");
      ptrTypes[2] = cppType(rk->params[1].type);
      aot::CppKernelsOptions ro;
      std::string rbase = options.baseName + "_reduce";
      ro.namespaceName = options.namespaceName + "::reduce";
      ro.headerInclude = rbase + ".h";
      ro.origin = "tilec-tune split-K reduce (" + c->reduce.kernel + ")";
      ro.binaryName = c->reduce.binary;
      ro.metadataName = c->reduce.metadata;
      auto rgen = aot::generateCppKernels(*rbin, *rmeta, ro);
      if (!rgen.ok())
        return rgen.status();
      files.push_back({rbase + ".h", rgen->header});
      files.push_back({rbase + ".cpp", rgen->source});
      reduceEmbedded = true;
      reduceKernel = c->reduce.kernel;
      reduceBlockN = c->reduce.blockN;
    }
    if (Status st = embedCandidate(*c, *binary, *meta, options, files);
        !st.ok())
      return st;
  }

  // One entry per bucket (the first winner of a bucket counts).
  struct Entry {
    int64_t m, n, k, align;
    int id;
    int64_t blockM, blockN, splitK;
    bool persistent;
    int64_t ctas;
    GemmShape measured;
  };
  std::map<std::string, Entry> table;
  for (const auto &[shape, w] : winners) {
    const Candidate *c = m.find(w.id);
    table.emplace(gemmBucket(shape),
                  Entry{pow2AtLeast16(shape.m), pow2AtLeast16(shape.n),
                        pow2AtLeast16(shape.k), alignOf(shape), w.id,
                        valueOf(c->params, "BLOCK_M"),
                        valueOf(c->params, "BLOCK_N"), splitKOf(*c),
                        valueOf(c->params, "PERSISTENT") == 1,
                        std::max<int64_t>(1, valueOf(c->params, "CLUSTER")),
                        w.measuredShape});
  }

  const std::string ns = options.namespaceName;
  const std::string rt = "::tilec::runtime::";
  std::string h;
  h += "// Generated by tilec-tune aot from the candidates of " + m.source +
       " (" + m.target + ", " + m.compiler + ").\n// Do not edit.\n";
  const std::string guard = headerGuard(options);
  h += "#ifndef " + guard + "\n#define " + guard + "\n\n#include \"tilec/Runtime/Runtime.h\"\n\n#include <cstddef>\n#include <cstdint>\n\n";
  h += "namespace " + ns + " {\n\n";
  h += "/// C = A * B (row-major, row strides in elements) with the kernel "
       "tuned for\n/// the shape's bucket; grid and kernel chosen here. A "
       "split-K plan (SPLIT_K > 1)\n/// launches two kernels and needs "
       "`workspace` of workspaceBytes(...) bytes\n/// (f32, not shared "
       "between concurrent calls); others ignore it. " +
       std::to_string(table.size()) + " buckets tuned:\n";
  for (const auto &[bucket, e] : table)
    h += "///   " + bucket + ": candidate " + std::to_string(e.id) + " (" +
         describe(m.find(e.id)->params) + ")\n";
  h += rt + "Status " + m.kernel + "(CUstream stream, " + ptrTypes[0] +
       " a, " + ptrTypes[1] + " b,\n    " + ptrTypes[2] +
       " c, int32_t M, int32_t N, int32_t K, int32_t stride_am,\n"
       "    int32_t stride_bk, int32_t stride_cm,\n    " + rt +
       "DevicePtr<float> workspace = {}, size_t workspace_bytes = 0);\n\n";
  h += "/// The workspace the plan for this shape needs, in bytes (0: one "
       "kernel).\nsize_t workspaceBytes(int64_t M, int64_t N, int64_t K, "
       "int64_t stride_am,\n                      int64_t stride_bk, int64_t "
       "stride_cm);\n\n";
  h += "/// The candidate the table takes for a shape with these strides, or -1 "
       "if\n/// none can take them.\nint tunedCandidate(int64_t M, int64_t N, "
       "int64_t K, int64_t stride_am,\n                   int64_t stride_bk, "
       "int64_t stride_cm);\n\n";
  h += "} // namespace " + ns + "\n\n#endif\n";

  std::string s;
  s += "// Generated by tilec-tune aot. Do not edit.\n";
  s += "#include \"" + options.baseName + ".h\"\n";
  for (int id : ids)
    s += "#include \"" + options.baseName + "_c" + std::to_string(id) + ".h\"\n";
  if (reduceEmbedded)
    s += "#include \"" + options.baseName + "_reduce.h\"\n";
  s += "\n#include <algorithm>\n#include <cstdlib>\n#include <string>\n\nnamespace " + ns +
       " {\n\nnamespace {\n\n";
  s += "struct Entry {\n  int64_t m, n, k, align;\n  int id;\n  int64_t "
       "blockM, blockN, splitK;\n  bool persistent; // one program per SM\n"
       "  int64_t ctas;     // programs per cluster\n};\n\n";
  s += "// bucket (M, N, K rounded up to powers of two, at least 16; the\n"
       "// strides' alignment) -> the winner measured there.\n";
  s += "const Entry kTable[] = {\n";
  for (const auto &[bucket, e] : table)
    s += "    {" + std::to_string(e.m) + ", " + std::to_string(e.n) + ", " +
         std::to_string(e.k) + ", " + std::to_string(e.align) + ", " +
         std::to_string(e.id) + ", " + std::to_string(e.blockM) + ", " +
         std::to_string(e.blockN) + ", " + std::to_string(e.splitK) + ", " +
         (e.persistent ? "true" : "false") + ", " + std::to_string(e.ctas) +
         "}, // " + bucket +
         ", measured on " +
         std::to_string(e.measured.m) + "x" + std::to_string(e.measured.n) +
         "x" + std::to_string(e.measured.k) + "\n";
  s += "};\n\n";
  s += R"(int64_t pow2AtLeast16(int64_t v) {
  int64_t p = 16;
  while (p < v)
    p *= 2;
  return p;
}

)" + std::string(kDistanceCpp) + R"(const Entry *find(int64_t M, int64_t N, int64_t K, int64_t sa, int64_t sb,
                  int64_t sc) {
  int64_t align = 1;
  while (align < 16 && sa % (align * 2) == 0 && sb % (align * 2) == 0 &&
         sc % (align * 2) == 0)
    align *= 2;
  const int64_t m = pow2AtLeast16(M), n = pow2AtLeast16(N),
                k = pow2AtLeast16(K);
  const Entry *best = nullptr;
  int64_t bestCost = 0;
  for (const Entry &e : kTable) {
    if (e.align > align) // its kernel's divisibility hints refuse the strides
      continue;
    // A split-K plan's workspace has row stride N, which its kernels
    // compiled for 16-divisible strides need to be.
    if (e.splitK > 1 && N % 16 != 0)
      continue;
    // The same bucket first, then the same N, K and alignment with the
    // nearest M, then the nearest in all three.
    int64_t cost = distance(e.m, m) + 1000 * (distance(e.n, n) +
                                              distance(e.k, k)) +
                   (e.align == align ? 0 : 100000);
    if (!best || cost < bestCost)
      best = &e, bestCost = cost;
  }
  return best;
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

int tunedCandidate(int64_t M, int64_t N, int64_t K, int64_t stride_am,
                   int64_t stride_bk, int64_t stride_cm) {
  const Entry *e = find(M, N, K, stride_am, stride_bk, stride_cm);
  return e ? e->id : -1;
}

size_t workspaceBytes(int64_t M, int64_t N, int64_t K, int64_t stride_am,
                      int64_t stride_bk, int64_t stride_cm) {
  const Entry *e = find(M, N, K, stride_am, stride_bk, stride_cm);
  return e && e->splitK > 1 ? size_t(e->splitK) * M * N * sizeof(float) : 0;
}

)";
  s += rt + "Status " + m.kernel + "(CUstream stream, " + ptrTypes[0] +
       " a, " + ptrTypes[1] + " b,\n    " + ptrTypes[2] +
       " c, int32_t M, int32_t N, int32_t K, int32_t stride_am,\n"
       "    int32_t stride_bk, int32_t stride_cm,\n    " + rt +
       "DevicePtr<float> workspace, size_t workspace_bytes) {\n";
  s += "  const Entry *e = find(M, N, K, stride_am, stride_bk, stride_cm);\n"
       "  if (!e)\n    return " + rt +
       "Status::error(\"" + m.kernel +
       ": no tuned kernel takes strides (\" +\n        std::to_string(stride_am) + \", \" + "
       "std::to_string(stride_bk) + \", \" +\n        std::to_string(stride_cm) + \")\");\n";
  // In clusters: the tile rows rounded up to whole clusters.
  s += "  " + rt + "Grid grid(cdiv(cdiv(M, e->blockM), e->ctas) * e->ctas, "
       "cdiv(N, e->blockN), e->splitK);\n";
  // A persistent winner walks the tiles with as many programs as the
  // device current on this thread runs at once (Kernel::residentPrograms:
  // one per SM, or the clusters that fit times their programs).
  s += "  if (e->persistent) {\n"
       "    int resident = 0;\n"
       "    switch (e->id) {\n";
  for (int id : ids) {
    const Candidate *c = m.find(id);
    if (valueOf(c->params, "PERSISTENT") != 1)
      continue;
    std::string cn = "c" + std::to_string(id);
    s += "    case " + std::to_string(id) + ": {\n"
         "      auto k = " + cn + "::kernels();\n"
         "      if (!k.ok())\n        return k.status();\n"
         "      auto r = (*k)->" + m.kernel + "Kernel().residentPrograms();\n"
         "      if (!r.ok())\n        return r.status();\n"
         "      resident = *r;\n      break;\n    }\n";
  }
  s += "    }\n"
       "    if (resident < 1)\n"
       "      return " + rt + "Status::error(\"" + m.kernel +
       ": no program count for the persistent kernel\");\n"
       "    grid = " + rt + "Grid(uint32_t(std::min<int64_t>(\n"
       "        int64_t(grid.x) * grid.y, resident)));\n  }\n";
  s += "  const size_t need = workspaceBytes(M, N, K, stride_am, stride_bk, "
       "stride_cm);\n"
       "  if (need > workspace_bytes || (need && !workspace))\n"
       "    return " + rt + "Status::error(\"" + m.kernel +
       ": the tuned plan (candidate \" +\n"
       "        std::to_string(e->id) + \", SPLIT_K=\" + "
       "std::to_string(e->splitK) +\n"
       "        \") needs a workspace of \" + std::to_string(need) + "
       "\" bytes, got \" +\n"
       "        std::to_string(workspace_bytes));\n";
  s += "  " + rt + "Status s;\n  switch (e->id) {\n";
  for (int id : ids) {
    const Candidate *c = m.find(id);
    bool split = splitKOf(*c) > 1;
    auto operand = [&](int i, const char *name, const char *shape,
                       const char *stride) {
      // Descriptor parameters take the tensor the pointer holds.
      Expected<std::string> meta = readAll(dir + "/" + c->metadata);
      Expected<runtime::ModuleMetadata> md =
          meta.ok() ? runtime::parseMetadata(*meta)
                    : Expected<runtime::ModuleMetadata>(meta.status());
      const runtime::KernelMetadata *k = md.ok() ? md->find(m.kernel) : nullptr;
      if (k && k->params[i].kind == runtime::ParamInfo::Kind::TensorDesc)
        return rt + "tensorDesc(" + name + ", {" + shape + "}, {" + stride +
               ", 1})";
      return std::string(name);
    };
    s += "  case " + std::to_string(id) + ":\n    s = c" + std::to_string(id) +
         "::" + m.kernel + "(stream, grid, " + operand(0, "a", "M, K", "stride_am") +
         ",\n        " + operand(1, "b", "K, N", "stride_bk") + ", " +
         (split ? "workspace, M, N, K, stride_am, stride_bk, N);\n"
                : "c, M, N, K, stride_am, stride_bk, stride_cm);\n");
    if (split)
      s += "    if (!s.ok())\n      return s;\n    return reduce::" +
           reduceKernel + "(stream, " + rt + "Grid(M, cdiv(N, " +
           std::to_string(reduceBlockN) +
           ")), workspace,\n        c, M, N, stride_cm, int32_t(e->splitK));\n";
    else
      s += "    return s;\n";
  }
  s += "  }\n  return " + rt + "Status::error(\"" + m.kernel +
       ": the table names no embedded kernel\");\n}\n\n";
  s += "} // namespace " + ns + "\n";
  files.push_back({options.baseName + ".h", h});
  files.push_back({options.baseName + ".cpp", s});
  return files;
}

Expected<std::vector<GeneratedFile>> tune::generateArgsDispatch(
    const Manifest &m, const std::string &dir,
    const std::vector<std::pair<ArgsDispatchKey, Winner>> &winners,
    const DispatchOptions &options) {
  if (winners.empty())
    return Status::error("no winners to put in the table");
  std::vector<GeneratedFile> files;
  std::map<int, runtime::KernelMetadata> kernels; // per embedded winner
  std::optional<runtime::KernelMetadata> first;
  int firstId = -1;
  for (const auto &[key, w] : winners) {
    const Candidate *c = m.find(w.id);
    if (!c || c->pruned)
      return Status::error("the winner for " + key.bucket + ", candidate " +
                           std::to_string(w.id) +
                           ", is not a candidate of the folder");
    if (kernels.count(w.id))
      continue;
    if (splitKOf(*c) > 1)
      return Status::error("the winner for " + key.bucket + ", candidate " +
                           std::to_string(w.id) +
                           ", is a split-K plan: args problems take one "
                           "kernel");
    Expected<CandidateFiles> read = readCandidate(dir, *c);
    if (!read.ok())
      return read.status();
    const std::string *binary = &read->binary, *meta = &read->metadata;
    const runtime::KernelMetadata *k = read->parsed.find(m.kernel);
    if (!k)
      return Status::error(dir + "/" + c->metadata + ": no kernel '" +
                           m.kernel + "'");
    if (first) {
      bool same = k->params.size() == first->params.size();
      for (size_t i = 0; same && i < k->params.size(); ++i)
        same = k->params[i].name == first->params[i].name &&
               k->params[i].kind == first->params[i].kind &&
               k->params[i].type == first->params[i].type &&
               k->params[i].desc.rank == first->params[i].desc.rank;
      if (!same)
        return Status::error("candidate " + std::to_string(w.id) +
                             "'s parameters (" + k->signature() +
                             ") are not candidate " + std::to_string(firstId) +
                             "'s (" + first->signature() +
                             "): one function cannot launch both");
      if (k->grid.empty() != first->grid.empty())
        return Status::error(
            "candidate " + std::to_string(k->grid.empty() ? w.id : firstId) +
            " has no grid rule (tile.grid) but candidate " +
            std::to_string(k->grid.empty() ? firstId : w.id) +
            " has one: the table launches every winner alike");
    } else {
      first = *k;
      firstId = w.id;
    }
    kernels.emplace(w.id, *k);
    if (Status st = embedCandidate(*c, *binary, *meta, options, files);
        !st.ok())
      return st;
  }

  // One entry per key; two problems of one key must agree on the winner
  // (the table could not tell them apart).
  struct Entry {
    ArgsDispatchKey key;
    int id;
  };
  std::vector<Entry> table;
  for (const auto &[key, w] : winners) {
    auto same = std::find_if(table.begin(), table.end(),
                             [&](const Entry &e) { return e.key == key; });
    if (same == table.end()) {
      table.push_back({key, w.id});
      continue;
    }
    if (same->id != w.id)
      return Status::error(
          "the problems of buckets '" + same->key.bucket + "' and '" +
          key.bucket + "' have the same integer arguments and descriptor "
          "shapes but different winners (candidates " +
          std::to_string(same->id) + " and " + std::to_string(w.id) +
          "): a pointer has no size at run time, so the table cannot tell "
          "them apart");
  }

  const runtime::KernelMetadata &k = *first;
  const bool rule = !k.grid.empty();
  const std::string ns = options.namespaceName;
  const std::string rt = "::tilec::runtime::";
  const std::vector<std::string> names = aot::cppParamNames(
      k, {"stream", "grid", "e", "find", "entryFor", "kTable", "Entry",
          "tunedCandidate", "keyValue", "keyAlign", "distance", "kKey",
          "kParams"});
  // The parameters as declared, and as passed on.
  std::string params, args;
  for (size_t i = 0; i < k.params.size(); ++i) {
    std::string type = aot::cppParamType(k.params[i]);
    params += (i ? ", " : "") + type + (type.back() == '&' ? "" : " ") +
              names[i];
    args += (i ? ", " : "") + names[i];
  }
  // The key's expressions (argsDispatchKey's order) and each parameter's
  // integer for the divisibility checks.
  std::vector<std::string> values, aligns, ints;
  for (size_t i = 0; i < k.params.size(); ++i) {
    const runtime::ParamInfo &p = k.params[i];
    const std::string &n = names[i];
    if (p.kind == runtime::ParamInfo::Kind::TensorDesc) {
      for (int d = 0; d < p.desc.rank; ++d) {
        values.push_back("keyValue(" + n + ".shape[" + std::to_string(d) +
                         "])");
        aligns.push_back("1");
      }
      ints.push_back("0");
    } else if (p.kind == runtime::ParamInfo::Kind::Pointer) {
      ints.push_back("int64_t(" + n + ".address)");
    } else if (!isFloat(p.type)) {
      values.push_back("keyValue(int64_t(" + n + "))");
      aligns.push_back("keyAlign(int64_t(" + n + "))");
      ints.push_back("int64_t(" + n + ")");
    } else {
      ints.push_back("0");
    }
  }
  auto list = [](const std::vector<std::string> &items) {
    std::string s;
    for (const std::string &i : items)
      s += (s.empty() ? "" : ", ") + i;
    return "{" + s + "}";
  };
  auto numbers = [&](const std::vector<int64_t> &items) {
    std::vector<std::string> texts;
    for (int64_t v : items)
      texts.push_back(std::to_string(v));
    return list(texts);
  };

  std::string h;
  h += "// Generated by tilec-tune aot from the candidates of " + m.source +
       " (" + m.target + ", " + m.compiler + ").\n// Do not edit.\n";
  const std::string guard = headerGuard(options);
  h += "#ifndef " + guard + "\n#define " + guard +
       "\n\n#include \"tilec/Runtime/Runtime.h\"\n\n#include <cstdint>\n\n";
  h += "namespace " + ns + " {\n\n";
  h += "/// " + m.kernel + " with the candidate tuned for the arguments' "
       "bucket (integer\n/// arguments rounded up to powers of two with "
       "their alignment, descriptor\n/// shapes rounded up), else the "
       "nearest one whose tile.divisibility hints\n/// the arguments meet; " +
       (rule ? std::string("launched on its own grid rule.")
             : std::string("launched on `grid`.")) +
       " " + std::to_string(table.size()) + " bucket" +
       (table.size() == 1 ? "" : "s") + " tuned:\n";
  for (const Entry &e : table)
    h += "///   " + e.key.bucket + ": candidate " + std::to_string(e.id) +
         " (" + describe(m.find(e.id)->params) + ")\n";
  h += rt + "Status " + m.kernel + "(CUstream stream, " +
       (rule ? "" : "const " + rt + "Grid &grid, ") + params + ");\n\n";
  h += "/// The candidate the table takes for these arguments, or -1 if "
       "none can take\n/// them.\nint tunedCandidate(" + params + ");\n\n";
  h += "} // namespace " + ns + "\n\n#endif\n";

  std::string s;
  s += "// Generated by tilec-tune aot. Do not edit.\n";
  s += "#include \"" + options.baseName + ".h\"\n";
  for (const auto &[id, _] : kernels)
    s += "#include \"" + options.baseName + "_c" + std::to_string(id) +
         ".h\"\n";
  s += "\n#include <array>\n#include <bit>\n#include <cstddef>\n\n"
       "namespace " + ns + " {\n\nnamespace {\n\n";
  s += "constexpr size_t kKey = " + std::to_string(values.size()) +
       ", kParams = " + std::to_string(k.params.size()) + ";\n\n";
  s += "struct Entry {\n  int id;\n  /// The key: each integer argument "
       "rounded up to a power of two and its\n  /// alignment (at most 16), "
       "each descriptor dimension rounded up.\n  std::array<int64_t, kKey> "
       "value, align;\n  /// Per parameter, its kernel's tile.divisibility "
       "(1: none).\n  std::array<int64_t, kParams> divisibility;\n};\n\n";
  s += "const Entry kTable[] = {\n";
  for (const Entry &e : table) {
    std::vector<int64_t> div;
    for (const runtime::ParamInfo &p : kernels.at(e.id).params)
      div.push_back(p.kind == runtime::ParamInfo::Kind::TensorDesc
                        ? 1
                        : p.divisibility);
    s += "    {" + std::to_string(e.id) + ", " + numbers(e.key.values) +
         ", " + numbers(e.key.aligns) + ", " + numbers(div) + "}, // " +
         e.key.bucket + "\n";
  }
  s += "};\n\n";
  s += R"(int64_t keyValue(int64_t v) {
  return v > 0 ? int64_t(std::bit_ceil(uint64_t(v))) : v;
}

int64_t keyAlign(int64_t v) {
  int64_t align = 1;
  while (align < 16 && v != 0 && v % (2 * align) == 0)
    align *= 2;
  return align;
}

)" + std::string(kDistanceCpp) + R"(/// The entry of the key, else the nearest (an alignment that differs
/// counts most), among those whose kernel takes the arguments.
[[maybe_unused]] const Entry *find(const std::array<int64_t, kKey> &value,
                                   const std::array<int64_t, kKey> &align,
                                   const std::array<int64_t, kParams> &ints) {
  const Entry *best = nullptr;
  int64_t bestCost = 0;
  for (const Entry &e : kTable) {
    bool takes = true;
    for (size_t i = 0; i < kParams; ++i)
      takes = takes && ints[i] % e.divisibility[i] == 0;
    if (!takes)
      continue;
    int64_t cost = 0;
    for (size_t i = 0; i < kKey; ++i)
      cost += distance(e.value[i], value[i]) +
              (e.align[i] == align[i] ? 0 : 1000);
    if (!best || cost < bestCost)
      best = &e, bestCost = cost;
  }
  return best;
}

)";
  s += "const Entry *entryFor(" + params + ") {\n  return find(" +
       list(values) + ", " + list(aligns) + ",\n              " + list(ints) +
       ");\n}\n\n} // namespace\n\n";
  s += "int tunedCandidate(" + params + ") {\n  const Entry *e = entryFor(" +
       args + ");\n  return e ? e->id : -1;\n}\n\n";
  s += rt + "Status " + m.kernel + "(CUstream stream, " +
       (rule ? "" : "const " + rt + "Grid &grid, ") + params + ") {\n";
  s += "  const Entry *e = entryFor(" + args + ");\n";
  s += "  if (!e)\n    return " + rt + "Status::error(\"" + m.kernel +
       ": no tuned kernel takes these arguments (each winner's "
       "tile.divisibility hints refuse them)\");\n";
  s += "  switch (e->id) {\n";
  for (const auto &[id, _] : kernels)
    s += "  case " + std::to_string(id) + ":\n    return c" +
         std::to_string(id) + "::" + m.kernel + "(stream, " +
         (rule ? "" : "grid, ") + args + ");\n";
  s += "  }\n  return " + rt + "Status::error(\"" + m.kernel +
       ": the table names no embedded kernel\");\n}\n\n";
  s += "} // namespace " + ns + "\n";
  files.push_back({options.baseName + ".h", h});
  files.push_back({options.baseName + ".cpp", s});
  return files;
}
