//===- CppKernels.cpp - generating ahead-of-time C++ kernel headers -------===//
//
// The generated header declares, in the chosen namespace:
//   - class Kernels: the kernels loaded into one context, one typed member
//     function per kernel (for programs that use several contexts);
//   - load(context): loads them for the free functions;
//   - one free function per kernel, launching on the context loaded by
//     load(), or on first use into the thread's current context.
// The source embeds the PTX (as string literals, one per line, so diffs stay
// readable) or the cubin (as bytes) and the metadata JSON verbatim; the
// runtime parses it at load, so the launch checks see exactly what the
// generator saw.
//
//===----------------------------------------------------------------------===//

#include "tilec/AOT/CppKernels.h"
#include "tilec/Runtime/Metadata.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>
#include <vector>

namespace tilec::aot {

using runtime::Expected;
using runtime::KernelMetadata;
using runtime::ParamInfo;
using runtime::DType;
using runtime::Status;

namespace {

const std::set<std::string_view> &cppKeywords() {
  static const std::set<std::string_view> words = {
      "alignas",       "alignof",     "and",
      "and_eq",        "asm",         "auto",
      "bitand",        "bitor",       "bool",
      "break",         "case",        "catch",
      "char",          "char8_t",     "char16_t",
      "char32_t",      "class",       "compl",
      "concept",       "const",       "consteval",
      "constexpr",     "constinit",   "const_cast",
      "continue",      "co_await",    "co_return",
      "co_yield",      "decltype",    "default",
      "delete",        "do",          "double",
      "dynamic_cast",  "else",        "enum",
      "explicit",      "export",      "extern",
      "false",         "float",       "for",
      "friend",        "goto",        "if",
      "inline",        "int",         "long",
      "mutable",       "namespace",   "new",
      "noexcept",      "not",         "not_eq",
      "nullptr",       "operator",    "or",
      "or_eq",         "private",     "protected",
      "public",        "register",    "reinterpret_cast",
      "requires",      "return",      "short",
      "signed",        "sizeof",      "static",
      "static_assert", "static_cast", "struct",
      "switch",        "template",    "this",
      "thread_local",  "throw",       "true",
      "try",           "typedef",     "typeid",
      "typename",      "union",       "unsigned",
      "using",         "virtual",     "void",
      "volatile",      "wchar_t",     "while",
      "xor",           "xor_eq"};
  return words;
}


/// Names the generated namespace declares besides the kernels.
/// (Kernel names may equal the generated functions' locals: a local hides
/// the function's own name harmlessly.)
const std::set<std::string_view> kGeneratedNames = {
    "Kernels",      "load",    "kernels", "binary",
    "metadataJson", "context", "module",  "options"};

const char *hostPointee(DType t) {
  switch (t) {
  case DType::I1:
    return "bool";
  case DType::I8:
    return "int8_t";
  case DType::I16:
    return "int16_t";
  case DType::I32:
    return "int32_t";
  case DType::I64:
    return "int64_t";
  case DType::F16:
    return "::tilec::runtime::Half";
  case DType::BF16:
    return "::tilec::runtime::BFloat16";
  case DType::F32:
    return "float";
  case DType::F64:
    return "double";
  case DType::F8E4M3FN:
    return "::tilec::runtime::Float8E4M3FN";
  case DType::F8E5M2:
    return "::tilec::runtime::Float8E5M2";
  }
  return "void";
}

} // namespace

std::string cppParamType(const ParamInfo &p) {
  if (p.kind == ParamInfo::Kind::Pointer)
    return std::string("::tilec::runtime::DevicePtr<") + hostPointee(p.type) +
           ">";
  // The runtime encodes the CUtensorMap from it at launch (and caches it).
  if (p.kind == ParamInfo::Kind::TensorDesc)
    return "const ::tilec::runtime::TensorDescArg &";
  return hostPointee(p.type);
}

/// The C++ names of a kernel's parameters: the metadata's where it is a
/// usable identifier, `name_` where it is a C++ keyword or a name the
/// generated code uses (`reserved`), else argN.
std::vector<std::string> cppParamNames(const KernelMetadata &k,
                                       const std::set<std::string> &reserved) {
  std::vector<std::string> names;
  std::set<std::string> used = reserved;
  for (size_t i = 0; i < k.params.size(); ++i) {
    std::string n = k.params[i].name;
    while (cppKeywords().count(n) || used.count(n))
      n += "_";
    if (!isCppIdentifier(n))
      n = "arg" + std::to_string(i);
    while (used.count(n))
      n += "_";
    used.insert(n);
    names.push_back(n);
  }
  return names;
}

namespace {

std::string paramDoc(const ParamInfo &p) {
  std::string d = p.name + ": ";
  if (p.kind == ParamInfo::Kind::TensorDesc) {
    d += "tensor descriptor of " + std::string(runtime::dtypeName(p.type)) +
         ", rank " + std::to_string(p.desc.rank) + ", block ";
    for (int i = 0; i < p.desc.rank; ++i)
      d += (i ? "x" : "") + std::to_string(p.desc.tile[i]);
    d += " (tensorDesc(ptr, shape, strides): elements, outermost first)";
    return d;
  }
  d += p.kind == ParamInfo::Kind::Pointer
           ? "ptr<" + std::string(runtime::dtypeName(p.type)) + ">"
           : std::string(runtime::dtypeName(p.type));
  if (p.divisibility != 1)
    d += " (multiple of " + std::to_string(p.divisibility) +
         (p.kind == ParamInfo::Kind::Pointer ? " bytes)" : ")");
  return d;
}

/// `(CUstream stream, const Grid &grid, DevicePtr<float> x, ...)`.
std::string signature(const KernelMetadata &k,
                      const std::vector<std::string> &names) {
  std::string s = "CUstream stream, const ::tilec::runtime::Grid &grid";
  for (size_t i = 0; i < k.params.size(); ++i) {
    std::string type = cppParamType(k.params[i]);
    // `const T &name`, as clang-format writes references.
    if (type.back() == '&')
      s += ", " + type + names[i];
    else
      s += ", " + type + " " + names[i];
  }
  return s;
}

/// The signature of the launch by the kernel's grid rule: no grid.
std::string ruleSignature(const KernelMetadata &k,
                          const std::vector<std::string> &names) {
  std::string s = signature(k, names);
  size_t grid = s.find(", const ::tilec::runtime::Grid &grid");
  return s.erase(grid, std::string(", const ::tilec::runtime::Grid &grid").size());
}

std::string argList(const std::vector<std::string> &names) {
  std::string s;
  for (const std::string &n : names)
    s += ", " + n;
  return s;
}

/// A C++ string literal of `text` with no trigraph or escape surprises.
std::string literal(std::string_view text) {
  std::string out = "\"";
  char prev = 0;
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u >= 0x7f || (c == '?' && prev == '?')) {
      // Octal escapes take at most three digits, so a following digit
      // cannot extend them.
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", u);
      out += buf;
    } else {
      out += c;
    }
    prev = c;
  }
  return out + "\"";
}

/// `text` as adjacent string literals, one per line of the text.
std::string literalLines(std::string_view text, const char *indent) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    out += indent + literal(text.substr(start, end - start)) + "\n";
    start = end;
  }
  if (out.empty())
    out = std::string(indent) + "\"\"\n";
  return out;
}

std::string byteArray(std::string_view data) {
  std::string out;
  char buf[8];
  for (size_t i = 0; i < data.size(); ++i) {
    if (i % 16 == 0)
      out += "    ";
    std::snprintf(buf, sizeof buf, "0x%02x,",
                  static_cast<unsigned char>(data[i]));
    out += buf;
    out += i % 16 == 15 || i + 1 == data.size() ? "\n" : " ";
  }
  return out;
}

/// The names of the PTX's `.entry` functions, in order.
std::vector<std::string> ptxEntries(std::string_view ptx) {
  std::vector<std::string> names;
  for (size_t at = ptx.find(".entry"); at != std::string_view::npos;
       at = ptx.find(".entry", at + 6)) {
    size_t start = at + 6;
    // ".entry" is a whole directive, followed by space and the name.
    if (start >= ptx.size() || (ptx[start] != ' ' && ptx[start] != '\t'))
      continue;
    while (start < ptx.size() && (ptx[start] == ' ' || ptx[start] == '\t'))
      ++start;
    size_t end = start;
    while (end < ptx.size() && ptx[end] != '(' && ptx[end] != ' ' &&
           ptx[end] != '\t' && ptx[end] != '\n')
      ++end;
    if (end > start)
      names.emplace_back(ptx.substr(start, end - start));
  }
  return names;
}

/// `s` with "FILE: " in front when the file is named.
Status inFile(const std::string &file, const Status &s) {
  return file.empty() ? s : s.withContext(file);
}

} // namespace

bool isCppIdentifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9'))
    return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_'))
      return false;
  // Names with a double underscore or _Capital are reserved in C++.
  if (s.find("__") != std::string_view::npos ||
      (s[0] == '_' && s.size() > 1 && s[1] >= 'A' && s[1] <= 'Z'))
    return false;
  return !cppKeywords().count(s);
}

namespace {

/// The generator proper: `metadata` describes the kernels, `metadataJson`
/// (its file form) is what the source embeds for the runtime to load.
Expected<CppKernels> generate(std::string_view binary,
                              const runtime::ModuleMetadata &metadata,
                              std::string_view metadataJson,
                              const CppKernelsOptions &options) {

  // The namespace: identifiers separated by ::.
  std::vector<std::string> nsParts;
  {
    std::string_view ns = options.namespaceName;
    size_t start = 0;
    while (true) {
      size_t sep = ns.find("::", start);
      std::string part(ns.substr(start, sep == std::string_view::npos
                                            ? std::string_view::npos
                                            : sep - start));
      if (!isCppIdentifier(part))
        return Status::error("the namespace '" + options.namespaceName +
                             "' is not a C++ namespace name");
      nsParts.push_back(part);
      if (sep == std::string_view::npos)
        break;
      start = sep + 2;
    }
  }
  for (const KernelMetadata &k : metadata.kernels) {
    if (!isCppIdentifier(k.name))
      return inFile(options.metadataName,
                    Status::error("kernel '" + k.name +
                                  "' cannot be a C++ function name (rename "
                                  "the kernel, or load it with "
                                  "tilec::runtime::Module)"));
    if (kGeneratedNames.count(k.name))
      return inFile(options.metadataName,
                    Status::error("kernel '" + k.name +
                                  "' would clash with the generated '" +
                                  k.name + "' (rename the kernel)"));
    // Each kernel also names a member `<name>_` and an accessor
    // `<name>Kernel`.
    for (const KernelMetadata &other : metadata.kernels)
      if (other.name == k.name + "_" || other.name == k.name + "Kernel")
        return inFile(options.metadataName,
                      Status::error("kernel '" + other.name +
                                    "' would clash with the generated '" +
                                    other.name + "' of kernel '" + k.name +
                                    "' (rename one of them)"));
  }
  // Parameters never take a name the generated code uses.
  std::set<std::string> reserved = {"stream", "grid",     "kernels", "k",
                                    "loaded", "context_", "module_"};
  for (const KernelMetadata &k : metadata.kernels)
    reserved.insert(k.name + "_");

  bool isCubin = binary.size() >= 4 &&
                 (std::memcmp(binary.data(),
                              "\x7f"
                              "ELF",
                              4) == 0 ||
                  std::memcmp(binary.data(), "\x50\xed\x55\xba", 4) == 0);
  if (!isCubin && binary.find(".target") == std::string_view::npos)
    return inFile(options.binaryName,
                  Status::error("the kernels are neither PTX (no .target "
                                "directive) nor a cubin"));
  // A kernel the metadata names but the PTX lacks would only fail at load.
  // (A cubin's symbols are not read here; the runtime checks at load.)
  if (!isCubin) {
    std::vector<std::string> entries = ptxEntries(binary);
    for (const KernelMetadata &k : metadata.kernels) {
      if (std::find(entries.begin(), entries.end(), k.name) != entries.end())
        continue;
      std::string list;
      for (const std::string &e : entries)
        list += (list.empty() ? "" : ", ") + e;
      return inFile(options.binaryName,
                    Status::error("kernel '" + k.name +
                                  "' of the metadata is not an .entry of the "
                                  "PTX (its entries: " +
                                  (list.empty() ? "none" : list) + ")"));
    }
  }

  std::string ns = options.namespaceName;
  std::string guard = "TILEC_AOT_";
  for (char c : ns + "_" + options.headerInclude)
    guard += (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A')
             : (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c
                                                                : '_';
  std::string origin = options.origin.empty() ? "" : " from " + options.origin;
  const char *rt = "::tilec::runtime::";

  // --- header ---------------------------------------------------------------
  std::string h;
  h += "// Generated by tilec-aot" + origin + ". Do not edit.\n";
  h += "// Kernels for " + metadata.target +
       " (or newer), embedded with their metadata; link the tilec runtime.\n";
  h += "#ifndef " + guard + "\n#define " + guard + "\n\n";
  h += "#include \"tilec/Runtime/Runtime.h\"\n\n#include <cstdint>\n"
       "#include <string_view>\n#include <utility>\n\n";
  h += "namespace " + ns + " {\n\n";
  h += "/// The kernels, loaded into one context.\nclass Kernels {\npublic:\n";
  h += "  /// Loads the embedded kernels into `context`";
  h += isCubin ? ".\n" : " (PTX, compiled through\n  /// the cubin cache).\n";
  h += "  static " + std::string(rt) + "Expected<Kernels> load(const " + rt +
       "Context &context,\n      const " + rt +
       "LoadOptions &options = {});\n\n";
  for (const KernelMetadata &k : metadata.kernels) {
    auto names = cppParamNames(k, reserved);
    h += "  /// " + k.name + ": " + std::to_string(k.threadsPerProgram) +
         " threads per program";
    if (k.sharedBytes)
      h += ", " + std::to_string(k.sharedBytes) + " bytes of shared memory";
    h += ".\n";
    for (const ParamInfo &p : k.params)
      h += "  ///   " + paramDoc(p) + "\n";
    h += "  " + std::string(rt) + "Status " + k.name + "(" +
         signature(k, names) + ") const {\n";
    h += "    return " + k.name + "_.launch(stream, grid" + argList(names) +
         ");\n  }\n";
    if (!k.grid.empty()) {
      h += "  /// " + k.name + " on the grid of its rule " + k.grid.text() +
           ".\n";
      h += "  " + std::string(rt) + "Status " + k.name + "(" +
           ruleSignature(k, names) + ") const {\n";
      h += "    return " + k.name + "_.launch(stream" + argList(names) +
           ");\n  }\n";
    }
    h += "  const " + std::string(rt) + "Kernel &" + k.name +
         "Kernel() const { return " + k.name + "_; }\n\n";
  }
  h += "  const " + std::string(rt) +
       "Context &context() const { return "
       "context_; }\n";
  h += "  const " + std::string(rt) +
       "Module &module() const { return "
       "module_; }\n\n";
  h += "private:\n  Kernels(" + std::string(rt) + "Context context, " + rt +
       "Module module";
  for (const KernelMetadata &k : metadata.kernels)
    h += ",\n          " + std::string(rt) + "Kernel " + k.name;
  h += ")\n      : context_(std::move(context)), module_(std::move(module))";
  for (const KernelMetadata &k : metadata.kernels)
    h += ",\n        " + k.name + "_(std::move(" + k.name + "))";
  h += " {}\n  " + std::string(rt) + "Context context_;\n  " + rt +
       "Module module_;\n";
  for (const KernelMetadata &k : metadata.kernels)
    h += "  " + std::string(rt) + "Kernel " + k.name + "_;\n";
  h += "};\n\n";
  h += "/// Loads the kernels into `context` for the functions below. Loading\n"
       "/// again into the same context does nothing; into another one is an\n"
       "/// error (use Kernels::load for several contexts).\n";
  h += std::string(rt) + "Status load(const " + rt +
       "Context &context,\n    "
       "const " +
       rt + "LoadOptions &options = {});\n";
  h += "/// The kernels loaded by load(), or else loaded now into the context\n"
       "/// current on this thread.\n";
  h += std::string(rt) + "Expected<const Kernels *> kernels();\n\n";
  for (const KernelMetadata &k : metadata.kernels) {
    auto names = cppParamNames(k, reserved);
    h += "/// Launches " + k.name + " (see Kernels::" + k.name + ").\n";
    h += std::string(rt) + "Status " + k.name + "(" + signature(k, names) +
         ");\n";
    if (!k.grid.empty())
      h += "/// Launches " + k.name + " on the grid of its rule " +
           k.grid.text() + ".\n" + std::string(rt) + "Status " + k.name +
           "(" + ruleSignature(k, names) + ");\n";
  }
  h += "\n/// The embedded " + std::string(isCubin ? "cubin" : "PTX") +
       " and metadata.\nstd::string_view binary();\n"
       "std::string_view metadataJson();\n\n";
  h += "} // namespace " + ns + "\n\n#endif // " + guard + "\n";

  // --- source ---------------------------------------------------------------
  std::string s;
  s += "// Generated by tilec-aot" + origin + ". Do not edit.\n";
  // Empty: the header's text comes first in the same file (the PyTorch
  // extension, TorchExtension.cpp).
  if (!options.headerInclude.empty())
    s += "#include \"" + options.headerInclude + "\"\n\n";
  s += "#include <atomic>\n#include <mutex>\n#include <optional>\n\n";
  s += "namespace " + ns + " {\n\nnamespace {\n\n";
  if (isCubin) {
    s += "alignas(8) const unsigned char kBinary[] = {\n" + byteArray(binary) +
         "};\n\n";
  } else {
    s += "const char kBinary[] =\n" + literalLines(binary, "    ") + ";\n\n";
  }
  s += "const char kMetadata[] =\n" + literalLines(metadataJson, "    ") +
       ";\n\n";
  s += "std::mutex gMutex;\nstd::optional<Kernels> gKernels;\n"
       "std::atomic<const Kernels *> gLoaded{nullptr};\n\n";
  s += "} // namespace\n\n";
  if (isCubin)
    s += "std::string_view binary() {\n  return std::string_view(\n"
         "      reinterpret_cast<const char *>(kBinary), sizeof kBinary);\n}\n";
  else
    s += "std::string_view binary() {\n  return std::string_view(kBinary, "
         "sizeof kBinary - 1);\n}\n";
  s += "std::string_view metadataJson() {\n  return std::string_view("
       "kMetadata, sizeof kMetadata - 1);\n}\n\n";

  s += std::string(rt) + "Expected<Kernels> Kernels::load(const " + rt +
       "Context &context,\n    const " + rt + "LoadOptions &options) {\n";
  s += isCubin ? "  auto module = " + std::string(rt) +
                     "Module::loadCubin(context, binary(), metadataJson());\n"
               : "  auto module = " + std::string(rt) +
                     "Module::loadPtx(context, binary(), metadataJson(), "
                     "options);\n";
  if (isCubin)
    s += "  (void)options; // a cubin needs no compiling, hence no cache\n";
  s += "  if (!module.ok())\n    return module.status()";
  s += options.origin.empty()
           ? ";\n"
           : ".withContext(" + literal("the kernels of " + options.origin) +
                 ");\n";
  for (const KernelMetadata &k : metadata.kernels) {
    s += "  auto " + k.name + " = module->kernel(" + literal(k.name) + ");\n";
    s += "  if (!" + k.name + ".ok())\n    return " + k.name + ".status();\n";
  }
  s += "  return Kernels(context, std::move(*module)";
  for (const KernelMetadata &k : metadata.kernels)
    s += ", std::move(*" + k.name + ")";
  s += ");\n}\n\n";

  s += std::string(rt) + "Status load(const " + rt +
       "Context &context,\n    "
       "const " +
       rt + "LoadOptions &options) {\n";
  s += "  std::lock_guard<std::mutex> lock(gMutex);\n";
  s += "  if (gKernels) {\n    if (gKernels->context().get() == "
       "context.get())\n      return {};\n";
  s += "    return " + std::string(rt) + "Status::error(\"the kernels of " +
       ns + " are loaded into another context; use " + ns +
       "::Kernels::load for a second one\");\n  }\n";
  s += "  auto k = Kernels::load(context, options);\n  if (!k.ok())\n"
       "    return k.status();\n";
  s += "  gKernels.emplace(std::move(*k));\n"
       "  gLoaded.store(&*gKernels, std::memory_order_release);\n"
       "  return {};\n}\n\n";

  s += std::string(rt) + "Expected<const Kernels *> kernels() {\n";
  s += "  if (const Kernels *k = gLoaded.load(std::memory_order_acquire))\n"
       "    return k;\n";
  s += "  auto context = " + std::string(rt) +
       "Context::current();\n"
       "  if (!context.ok())\n    return context.status();\n";
  s += "  if (" + std::string(rt) +
       "Status s = load(*context); !s.ok())\n"
       "    return s;\n";
  s += "  return gLoaded.load(std::memory_order_acquire);\n}\n\n";

  for (const KernelMetadata &k : metadata.kernels) {
    auto names = cppParamNames(k, reserved);
    s += std::string(rt) + "Status " + k.name + "(" + signature(k, names) +
         ") {\n";
    s += "  const Kernels *k = gLoaded.load(std::memory_order_acquire);\n";
    s += "  if (!k) [[unlikely]] {\n    auto loaded = kernels();\n"
         "    if (!loaded.ok())\n      return loaded.status();\n"
         "    k = *loaded;\n  }\n";
    s += "  return k->" + k.name + "(stream, grid" + argList(names) +
         ");\n}\n\n";
    if (!k.grid.empty()) {
      s += std::string(rt) + "Status " + k.name + "(" +
           ruleSignature(k, names) + ") {\n";
      s += "  const Kernels *k = gLoaded.load(std::memory_order_acquire);\n";
      s += "  if (!k) [[unlikely]] {\n    auto loaded = kernels();\n"
           "    if (!loaded.ok())\n      return loaded.status();\n"
           "    k = *loaded;\n  }\n";
      s += "  return k->" + k.name + "(stream" + argList(names) + ");\n}\n\n";
    }
  }
  s += "} // namespace " + ns + "\n";
  return CppKernels{std::move(h), std::move(s)};
}

} // namespace

Expected<CppKernels> generateCppKernels(std::string_view binary,
                                        std::string_view metadataJson,
                                        const CppKernelsOptions &options) {
  auto metadata = runtime::parseMetadata(metadataJson);
  if (!metadata.ok())
    return inFile(options.metadataName, metadata.status());
  return generate(binary, *metadata, metadataJson, options);
}

Expected<CppKernels> generateCppKernels(std::string_view binary,
                                        const runtime::ModuleMetadata &metadata,
                                        const CppKernelsOptions &options) {
  return generate(binary, metadata, runtime::writeMetadata(metadata), options);
}

} // namespace tilec::aot
