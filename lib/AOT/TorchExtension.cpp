//===- TorchExtension.cpp - generating PyTorch operator bindings ----------===//
//
// The generated file, in order: the AOT header and source (CppKernels.cpp;
// binary and metadata embedded), then in an anonymous namespace
//   - `moduleMetadata()`: the embedded metadata, parsed on first use;
//   - `descOf(...)` (kernels with tensor_desc parameters): a tensor's
//     TensorDescArg, from its sizes and strides;
//   - `kernelsOn(device)`: the kernels loaded into a device's primary
//     context on first use;
// and per kernel
//   - `<k>_check(...)`: the TORCH_CHECKs both implementations share
//     (device, dtype, contiguity or a descriptor's rank, extents);
//   - `<k>_cuda(...)`: the checks, each address read once and its alignment
//     checked, then the launch on the current stream of the tensors' device
//     through the runtime (which checks the scalars, the pointers'
//     divisibility, the descriptors' sizes and strides and the grid again,
//     with the kernel's and parameter's names in the message);
//   - `<k>_meta(...)`: the checks, then the launch's own without a GPU
//     (runtime::checkLaunch), for torch.compile's fake tensors;
//   - `<k>_op()`, `<k>_autograd(...)`, `<k>_inplace_or_view(...)`: the
//     kernels above the backends (the Autograd and ADInplaceOrView keys):
//     with grad mode on, a tensor that requires grad is refused (no
//     backward); the version counters of what the kernel writes are bumped;
//     then the call goes on below ADInplaceOrView through the typed handle;
// and the TORCH_LIBRARY_FRAGMENT / TORCH_LIBRARY_IMPL blocks. The CUDA
// implementation is registered for the CPU key as well, so that a CPU
// tensor gets the "must be a CUDA tensor" message instead of PyTorch's
// "no kernel for backend CPU". Without the Autograd kernel, every call
// would go through PyTorch's boxed autograd fallback, which boxes each
// argument, then the ADInplaceOrView fallthrough, which bumps nothing.
//
// In the kernel-order form, outputs are passed in: a pointer marked
// `tile.output` is `Tensor(a!)` in the schema (mutated in place) and the
// others plain `Tensor`; with no pointer marked, every pointer is declared
// mutable (the conservative schema: torch.compile then assumes each may be
// written). A tensor_desc parameter is mutable when the kernel stores
// through it (the metadata's "output", which tilec derives). When every
// output has a shape (`tile.shape`) and some input tensor fixes the
// device, the default overload allocates the outputs and returns them
// (`add(Tensor x, Tensor y, SymInt n) -> Tensor`, `<k>_alloc_*` below) and
// the kernel-order form is the `out` overload. Any tensor with a shape is
// checked against it.
//
//===----------------------------------------------------------------------===//

#include "tilec/AOT/TorchExtension.h"
#include "tilec/AOT/CppKernels.h"
#include "tilec/Runtime/Metadata.h"

#include <map>
#include <set>
#include <vector>

namespace tilec::aot {

using runtime::DType;
using runtime::Expected;
using runtime::KernelMetadata;
using runtime::ParamInfo;
using runtime::Status;

namespace {

/// The type of integer rules in the generated code.
constexpr std::string_view kSymInt = "c10::SymInt";

/// A C++ identifier (isCppIdentifier) that also suits a schema and a
/// Python attribute: no leading underscore.
bool isIdentifier(std::string_view s) {
  return isCppIdentifier(s) && s[0] != '_';
}

/// Names a schema argument may not take: Python and C++ keywords that are
/// plausible parameter names, and the names the generated code uses.
const std::set<std::string_view> kReservedNames = {
    "and",    "as",       "assert", "async",  "await",  "break",  "class",
    "continue", "def",    "del",    "elif",   "else",   "except", "finally",
    "for",    "from",     "global", "if",     "import", "in",     "is",
    "lambda", "nonlocal", "not",    "or",     "pass",   "raise",  "return",
    "try",    "while",    "with",   "yield",  "None",   "True",   "False",
    "int",    "float",    "bool",   "double", "char",   "long",   "short",
    "auto",   "const",    "new",    "delete", "this",   "struct", "union",
    "grid",   "stream",   "guard",  "args",   "status", "kernels", "need",
    "device", "default",  "switch", "case",   "void",   "unsigned", "signed",
    "programs", "cdiv",   "descOf", "kernelsOn", "moduleMetadata", "keys",
    "handle", "hasElements", "elementCount", "hasShape", "shapeOf",
    "sizesOf", "outputSize", "symText", "denseExcept", "spanOf", "c10", "at"};

/// Whether `name` ends with a suffix the generated code appends to a
/// parameter's name for its locals (`x_address`, `x_desc`; a quotient
/// source's `group_num`, `group_den`), so that it could clash.
bool hasLocalSuffix(std::string_view name) {
  for (std::string_view suffix : {"_address", "_desc", "_num", "_den"})
    if (name.size() > suffix.size() &&
        name.substr(name.size() - suffix.size()) == suffix)
      return true;
  return false;
}

/// The schema's and C++ code's name of each parameter: the metadata's where
/// usable, else argN.
std::vector<std::string> argNames(const KernelMetadata &k) {
  std::vector<std::string> names;
  std::set<std::string> used;
  for (size_t i = 0; i < k.params.size(); ++i) {
    std::string n = k.params[i].name;
    if (!isIdentifier(n) || kReservedNames.count(n) || hasLocalSuffix(n) ||
        used.count(n))
      n = "arg" + std::to_string(i);
    while (used.count(n))
      n += "_";
    used.insert(n);
    names.push_back(n);
  }
  return names;
}

/// at::ScalarType of an element type, and the name PyTorch prints for it.
struct TorchType {
  const char *scalarType;
  const char *printed;
};
TorchType torchType(DType t) {
  switch (t) {
  case DType::I1:
    return {"at::kBool", "torch.bool"};
  case DType::I8:
    return {"at::kChar", "torch.int8"};
  case DType::I16:
    return {"at::kShort", "torch.int16"};
  case DType::I32:
    return {"at::kInt", "torch.int32"};
  case DType::I64:
    return {"at::kLong", "torch.int64"};
  case DType::F16:
    return {"at::kHalf", "torch.float16"};
  case DType::BF16:
    return {"at::kBFloat16", "torch.bfloat16"};
  case DType::F32:
    return {"at::kFloat", "torch.float32"};
  case DType::F64:
    return {"at::kDouble", "torch.float64"};
  case DType::F8E4M3FN:
    return {"at::kFloat8_e4m3fn", "torch.float8_e4m3fn"};
  case DType::F8E5M2:
    return {"at::kFloat8_e5m2", "torch.float8_e5m2"};
  }
  return {"at::kFloat", "?"};
}

const char *dtypeEnum(DType t) {
  switch (t) {
  case DType::I1:
    return "I1";
  case DType::I8:
    return "I8";
  case DType::I16:
    return "I16";
  case DType::I32:
    return "I32";
  case DType::I64:
    return "I64";
  case DType::F16:
    return "F16";
  case DType::BF16:
    return "BF16";
  case DType::F32:
    return "F32";
  case DType::F64:
    return "F64";
  case DType::F8E4M3FN:
    return "F8E4M3FN";
  case DType::F8E5M2:
    return "F8E5M2";
  }
  return "F32";
}

bool isIntegerScalar(DType t) { return t == DType::I32 || t == DType::I64; }

/// The schema type and the C++ parameter type of a scalar. Integers are
/// SymInt: under torch.compile's dynamic shapes an integer computed from a
/// size (`x.numel()`) stays symbolic instead of being specialized.
std::pair<std::string, std::string> scalarTypes(DType t) {
  if (t == DType::I1)
    return {"bool", "bool"};
  if (isIntegerScalar(t))
    return {"SymInt", "c10::SymInt"};
  return {"float", "double"};
}

/// "128x64" of a descriptor's block (what one descriptor_load moves).
std::string tileText(const ParamInfo &p) {
  std::string s;
  for (int d = 0; d < p.desc.rank; ++d)
    s += (d ? "x" : "") + std::to_string(p.desc.tile[d]);
  return s;
}

bool isIntegerScalar(const ParamInfo &p) {
  return p.kind == ParamInfo::Kind::Scalar && isIntegerScalar(p.type);
}

bool isTensor(const ParamInfo &p) {
  return p.kind == ParamInfo::Kind::Pointer ||
         p.kind == ParamInfo::Kind::TensorDesc;
}

/// One kernel's binding.
struct Binding {
  const KernelMetadata &k;
  /// The kernel's index in the metadata (the Meta implementation's lookup).
  size_t index;
  std::vector<std::string> names;
  std::string library;
  bool hasRule() const { return !k.grid.empty(); }
  std::string op() const { return library + "." + k.name; }

  bool anyPointerOutput() const {
    for (const ParamInfo &p : k.params)
      if (p.kind == ParamInfo::Kind::Pointer && p.output)
        return true;
    return false;
  }
  /// Whether the kernel may write through tensor parameter `p`: a pointer
  /// marked tile.output, every pointer of a kernel that marks none (the
  /// conservative schema), a descriptor the kernel stores through (the
  /// metadata's "output", which tilec derives for descriptors).
  bool mutated(const ParamInfo &p) const {
    if (p.kind == ParamInfo::Kind::TensorDesc)
      return p.output;
    return p.output || !anyPointerOutput();
  }

  /// Whether the operator's default overload allocates `p`: an output (a
  /// pointer marked tile.output, a descriptor the kernel stores through)
  /// with a shape (tile.shape).
  static bool shapedOutput(const ParamInfo &p) {
    return isTensor(p) && p.output && !p.shape.empty();
  }
  /// Whether the kernel gets an allocating default overload: every output
  /// has a shape, and some other tensor (an input) fixes the device. Its
  /// kernel-order form is then the `out` overload.
  bool allocates() const {
    bool anyOutput = false, anyInput = false;
    for (const ParamInfo &p : k.params) {
      if (!isTensor(p))
        continue;
      if (mutated(p)) {
        if (!shapedOutput(p))
          return false;
        anyOutput = true;
      } else {
        anyInput = true;
      }
    }
    if (!anyOutput || !anyInput)
      return false;
    // An output's size (or an input's extent) that reads a scalar derived
    // from an output could not be known before that output exists.
    for (const ParamInfo &p : k.params) {
      std::vector<const grid::Expr *> rules;
      if (p.extent)
        rules.push_back(&*p.extent);
      for (const grid::Expr &e : p.shape)
        rules.push_back(&e);
      for (const grid::Expr *e : rules)
        for (int used : e->params())
          if (outputDerived(size_t(used)))
            return false;
    }
    return true;
  }
  /// Whether the operator computes scalar `i` from a tensor it is given
  /// (tile.from) instead of taking it.
  bool derived(size_t i) const { return k.params[i].from.has_value(); }
  /// Whether scalar `i` is computed from an output the allocating form
  /// allocates (a stride of it): known only after the allocation.
  bool outputDerived(size_t i) const {
    if (!derived(i))
      return false;
    const grid::Source &src = *k.params[i].from;
    return shapedOutput(k.params[size_t(src.param)]) ||
           (src.divisor && shapedOutput(k.params[size_t(src.divisor->param)]));
  }
  /// The forms of an operator's functions. Full: the kernel-order form's
  /// schema (the `out` overload of an allocating kernel; the only form
  /// otherwise), Alloc: the allocating overload's (the shaped outputs left
  /// out and returned); neither takes a derived scalar. Kernel: every
  /// parameter (the shared checks and the launch); AllocCheck: what the
  /// allocating form checks before it allocates (the inputs, the scalars
  /// not derived from outputs).
  enum class Form { Full, Alloc, Kernel, AllocCheck };
  bool skipped(size_t i, Form form) const {
    switch (form) {
    case Form::Full:
      return derived(i);
    case Form::Alloc:
      return derived(i) || shapedOutput(k.params[i]);
    case Form::Kernel:
      return false;
    case Form::AllocCheck:
      return outputDerived(i) || shapedOutput(k.params[i]);
    }
    return false;
  }
  /// The overload's name in the schema and in m.impl: "add", "add.out".
  std::string qualifiedName(Form form) const {
    return form == Form::Full && allocates() ? k.name + ".out" : k.name;
  }
  std::string overloadName(Form form) const {
    return form == Form::Full && allocates() ? "out" : "";
  }
  /// The C++ functions' prefix: "add" (Full), "add_alloc" (Alloc).
  std::string prefix(Form form) const {
    return form == Form::Alloc || form == Form::AllocCheck ? k.name + "_alloc"
                                                           : k.name;
  }
  size_t returnCount(Form form) const {
    size_t n = 0;
    if (form == Form::Alloc)
      for (const ParamInfo &p : k.params)
        n += shapedOutput(p);
    return n;
  }
  /// "void", "at::Tensor", "std::tuple<at::Tensor, at::Tensor>".
  std::string cppReturn(Form form) const {
    size_t n = returnCount(form);
    if (n == 0)
      return "void";
    if (n == 1)
      return "at::Tensor";
    std::string s = "std::tuple<";
    for (size_t i = 0; i < n; ++i)
      s += i ? ", at::Tensor" : "at::Tensor";
    return s + ">";
  }

  /// "add.out(Tensor x, Tensor y, Tensor(a!) z, SymInt n) -> ()",
  /// "add(Tensor x, Tensor y, SymInt n) -> Tensor".
  std::string schema(Form form) const {
    std::string s = qualifiedName(form) + "(";
    char alias = 'a';
    bool firstParam = true;
    for (size_t i = 0; i < k.params.size(); ++i) {
      if (skipped(i, form))
        continue;
      const ParamInfo &p = k.params[i];
      s += firstParam ? "" : ", ";
      firstParam = false;
      if (isTensor(p))
        s += mutated(p) ? std::string("Tensor(") + alias++ + "!) " : "Tensor ";
      else
        s += scalarTypes(p.type).first + " ";
      s += names[i];
    }
    if (!hasRule())
      s += std::string(firstParam ? "" : ", ") + "int[] grid";
    size_t n = returnCount(form);
    std::string returns = n == 0 ? "()" : n == 1 ? "Tensor" : "(";
    for (size_t i = 0; n > 1 && i < n; ++i)
      returns += i ? ", Tensor" : "Tensor";
    if (n > 1)
      returns += ")";
    return s + ") -> " + returns;
  }

  /// "const at::Tensor &x, ..., c10::SymInt n[, at::IntArrayRef grid]", or
  /// with `typesOnly` "const at::Tensor &, ..., c10::SymInt".
  std::string cppParams(Form form = Form::Full, bool typesOnly = false) const {
    std::string s;
    for (size_t i = 0; i < k.params.size(); ++i) {
      if (skipped(i, form))
        continue;
      const ParamInfo &p = k.params[i];
      s += s.empty() ? "" : ", ";
      s += isTensor(p) ? "const at::Tensor &" : scalarTypes(p.type).second;
      if (!typesOnly)
        s += (isTensor(p) ? "" : " ") + names[i];
    }
    if (!hasRule())
      s += std::string(s.empty() ? "" : ", ") +
           (typesOnly ? "at::IntArrayRef" : "at::IntArrayRef grid");
    return s;
  }
  /// "void(const at::Tensor &, ..., c10::SymInt)": the implementations'
  /// C++ function type, which the typed operator handle names.
  std::string cppFunctionType(Form form) const {
    return cppReturn(form) + "(" + cppParams(form, true) + ")";
  }
  std::string callArgs(Form form = Form::Full) const {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i)
      if (!skipped(i, form))
        s += (s.empty() ? "" : ", ") + names[i];
    if (!hasRule())
      s += std::string(s.empty() ? "" : ", ") + "grid";
    return s;
  }
  /// The first tensor parameter of the form, which fixes the device; -1 if
  /// none.
  int firstTensor(Form form = Form::Full) const {
    for (size_t i = 0; i < k.params.size(); ++i)
      if (isTensor(k.params[i]) && !skipped(i, form))
        return int(i);
    return -1;
  }

  /// The dimensions of tensor parameter `t` whose strides the kernel takes
  /// as scalars (tile.from "t.stride(d)"), as written.
  std::vector<int> takenStrides(size_t t) const {
    std::vector<int> dims;
    for (const ParamInfo &p : k.params)
      if (p.from && p.from->param == int(t) &&
          p.from->kind == grid::Source::Kind::Stride)
        dims.push_back(p.from->dim);
    return dims;
  }
  /// The C++ code computing each derived scalar `i` that `which(i)` picks
  /// from the tensors it names (`const c10::SymInt M = a.sym_size(0);`),
  /// after one check per tensor that it has the dimensions they read.
  template <typename Which> std::string derivation(Which which) const {
    // First one check per tensor, that it has the most dimensions any of
    // these scalars reads (named in the message), then the scalars.
    struct Need {
      int dims = 0;
      size_t scalar = 0;
    };
    std::map<int, Need> needs; // by tensor parameter, in parameter order
    auto note = [&](const grid::Source::Term &t, size_t scalar) {
      if (t.kind == grid::Source::Kind::Numel)
        return;
      int dims = t.dim >= 0 ? t.dim + 1 : -t.dim;
      Need &n = needs[t.param];
      if (dims > n.dims)
        n = {dims, scalar};
    };
    for (size_t i = 0; i < k.params.size(); ++i)
      if (derived(i) && which(i)) {
        note(k.params[i].from->numerator(), i);
        if (k.params[i].from->divisor)
          note(*k.params[i].from->divisor, i);
      }
    std::string s;
    for (const auto &[param, need] : needs) {
      const std::string &n = names[size_t(param)];
      std::string d = std::to_string(need.dims);
      s += "  TORCH_CHECK(" + n + ".dim() >= " + d + ", \"" + op() + ": " + n +
           " must have at least " + d + " dimension" +
           (need.dims == 1 ? "" : "s") + " (the kernel takes " +
           names[need.scalar] + " from it: tile.from \\\"" +
           k.params[need.scalar].from->text + "\\\"), got \", " +
           "std::to_string(" + n + ".dim()));\n";
    }
    auto term = [&](const grid::Source::Term &t) {
      const std::string &n = names[size_t(t.param)];
      if (t.kind == grid::Source::Kind::Numel)
        return n + ".sym_numel()";
      return n +
             (t.kind == grid::Source::Kind::Size ? ".sym_size("
                                                  : ".sym_stride(") +
             std::to_string(t.dim) + ")";
    };
    for (size_t i = 0; i < k.params.size(); ++i) {
      if (!derived(i) || !which(i))
        continue;
      const grid::Source &src = *k.params[i].from;
      std::string value = term(src.numerator());
      if (src.divisor) {
        // The quotient of two SymInts, checked exact first (a guard when
        // traced symbolically).
        std::string num = names[i] + "_num", den = names[i] + "_den";
        s += "  const c10::SymInt " + num + " = " + value + ";\n";
        s += "  const c10::SymInt " + den + " = " + term(*src.divisor) + ";\n";
        s += "  TORCH_CHECK(" + den + " != 0 && " + num + " % " + den +
             " == 0, \"" + op() + ": " + names[i] + " is tile.from \\\"" +
             src.text + "\\\", which needs a whole quotient, but \", symText(" +
             num + "), \" / \", symText(" + den + "), \" is not one\");\n";
        value = num + " / " + den;
      }
      s += "  const c10::SymInt " + names[i] + " = " + value +
           ";  // tile.from \"" + src.text + "\"\n";
    }
    return s;
  }

  /// `["M", "N"]`: a parameter's tile.shape as the kernel declares it.
  /// With `inLiteral`, its quotes escaped for a C++ string literal.
  static std::string shapeText(const ParamInfo &p, bool inLiteral = false) {
    std::string quote = inLiteral ? "\\\"" : "\"";
    std::string s = "[";
    for (size_t d = 0; d < p.shape.size(); ++d)
      s += (d ? ", " : "") + quote + p.shape[d].text() + quote;
    return s + "]";
  }
  /// The C++ expressions of parameter `i`'s sizes: "{M, cdiv(N, 2)}".
  std::string shapeCpp(size_t i) const {
    std::string s = "{";
    for (size_t d = 0; d < k.params[i].shape.size(); ++d)
      s += (d ? ", " : "") + k.params[i].shape[d].toCpp(names, kSymInt);
    return s + "}";
  }
  /// The check that tensor `i` has the sizes of its tile.shape.
  std::string shapeCheck(size_t i) const {
    const ParamInfo &p = k.params[i];
    const std::string &n = names[i];
    return "  TORCH_CHECK(hasShape(" + n + ", " + shapeCpp(i) + "), \"" +
           op() + ": " + n + " must have shape \", shapeOf(" + shapeCpp(i) +
           "), \" (tile.shape " + shapeText(p, true) + "), got \", sizesOf(" + n +
           "));\n";
  }

  /// The checks both implementations make: device, dtype, layout, extents,
  /// the grid argument's length. Not the alignment of addresses, which the
  /// CUDA implementation checks on the addresses it reads once (meta
  /// tensors have none).
  std::string checkFunction(Form form) const {
    std::string s =
        form == Form::Kernel
            ? "/// The checks of " + op() + " before any launch (and " +
                  "before its Meta\n/// implementation's launch checks).\n"
            : "/// The checks of " + op() + "'s inputs before its outputs are " +
                  "allocated.\n";
    s += "void " + prefix(form) + "_check(" + cppParams(form) + ") {\n";
    // Scalars only some checks read (extents) are still parameters.
    for (size_t i = 0; i < k.params.size(); ++i)
      if (!isTensor(k.params[i]) && !skipped(i, form))
        s += "  (void)" + names[i] + ";\n";
    int first = firstTensor(form);
    for (size_t i = 0; i < k.params.size(); ++i) {
      const ParamInfo &p = k.params[i];
      if (!isTensor(p) || skipped(i, form))
        continue;
      const std::string &n = names[i];
      std::string pre = "\"" + op() + ": " + n;
      TorchType t = torchType(p.type);
      std::string type(runtime::dtypeName(p.type));
      bool desc = p.kind == ParamInfo::Kind::TensorDesc;
      std::string kernelType = desc ? "tensor_desc<" + tileText(p) + "x" +
                                          type + ">"
                                    : "ptr<" + type + ">";
      s += "  // " + n + ": " + kernelType;
      if (desc)
        s += ", moved by the TMA through its sizes and strides";
      if (p.divisibility > 1)
        s += ", " + std::to_string(p.divisibility) + "-byte aligned";
      if (p.output)
        s += desc ? ", written (descriptor_store)" : ", written (tile.output)";
      if (!p.shape.empty())
        s += ", shape " + shapeText(p);
      else if (p.extent)
        s += ", reaches " + p.extent->text() + " elements";
      s += "\n";
      // Meta tensors are accepted: they are torch.compile's fake tensors.
      s += "  TORCH_CHECK(" + n + ".is_cuda() || " + n + ".is_meta(), " + pre +
           " must be a CUDA tensor, got a tensor on \", " + n +
           ".device());\n";
      if (int(i) != first)
        s += "  TORCH_CHECK(" + n + ".device() == " + names[first] +
             ".device(), " + pre + " is on \", " + n + ".device(), \" but " +
             names[first] + " on \", " + names[first] + ".device());\n";
      s += "  TORCH_CHECK(" + n + ".scalar_type() == " + t.scalarType + ", " +
           pre + " must be " + t.printed + " (the kernel's " + kernelType +
           "), got \", " + n + ".scalar_type());\n";
      if (desc) {
        // The rest of the descriptor's rules (16-byte aligned base and
        // strides, unit innermost stride, sizes the TMA takes) are the
        // runtime's checkTensorDesc, at the launch or in checkLaunch.
        s += "  TORCH_CHECK(" + n + ".dim() == " +
             std::to_string(p.desc.rank) + ", " + pre + " must have " +
             std::to_string(p.desc.rank) + " dimension" +
             (p.desc.rank == 1 ? "" : "s") + " (the kernel's " + kernelType +
             "), got \", std::to_string(" + n + ".dim()));\n";
        if (!p.shape.empty())
          s += shapeCheck(i);
        continue;
      }
      std::vector<int> taken = takenStrides(i);
      if (taken.empty()) {
        s += "  TORCH_CHECK(" + n + ".is_contiguous(), " + pre +
             " must be contiguous (the kernel indexes it as dense row-major "
             "memory; call .contiguous())\");\n";
      } else {
        // The kernel takes these strides: the other dimensions are dense.
        std::string dims, which;
        for (int d : taken) {
          dims += (dims.empty() ? "" : ", ") + std::to_string(d);
          which += (which.empty() ? "" : ", ") + n + ".stride(" +
                   std::to_string(d) + ")";
        }
        s += "  TORCH_CHECK(denseExcept(" + n + ", {" + dims + "}), " + pre +
             " must be dense row-major apart from " + which +
             ", which the kernel takes (tile.from); call .contiguous()\");\n";
      }
      if (!p.shape.empty()) {
        // The extent is the shape's product: the sizes say more.
        s += shapeCheck(i);
      } else if (p.extent) {
        s += "  {\n    const c10::SymInt need = " +
             p.extent->toCpp(names, kSymInt) + ";\n";
        // Integers (and addresses) go into messages through std::to_string:
        // on the H200's PyTorch 2.11, a TORCH_CHECK that fails with an
        // integer argument crashes the process (a minimal load_inline
        // extension does too), while strings, devices and dtypes are fine.
        if (taken.empty())
          s += "    TORCH_CHECK(hasElements(" + n + ", need), " + pre +
               " has \", elementCount(" + n + "), \" elements but the kernel "
               "reaches \", symText(need), " +
               "\" (tile.extent \\\"" + p.extent->text() + "\\\")\");\n  }\n";
        else // A strided view reaches from its first element to its last.
          s += "    TORCH_CHECK(spanOf(" + n + ") >= need, " + pre +
               " spans \", symText(spanOf(" + n + ")), \" elements but the "
               "kernel reaches \", symText(need), " +
               "\" (tile.extent \\\"" + p.extent->text() + "\\\")\");\n  }\n";
      }
    }
    if (!hasRule())
      s += "  TORCH_CHECK(grid.size() >= 1 && grid.size() <= 3, \"" + op() +
           ": grid must list 1 to 3 program counts (x, y, z): the kernel "
           "declares no grid rule (tile.grid), got \", "
           "std::to_string(grid.size()), \" entries\");\n";
    s += "}\n\n";
    return s;
  }

  /// The runtime's arguments: `address(i)` is the C++ expression of tensor
  /// i's address. Descriptors first get a TensorDescArg on the frame.
  template <typename Address> std::string argsCode(Address address) const {
    std::string s;
    for (size_t i = 0; i < k.params.size(); ++i)
      if (k.params[i].kind == ParamInfo::Kind::TensorDesc)
        s += "  const ::tilec::runtime::TensorDescArg " + names[i] +
             "_desc = descOf(" + names[i] + ", ::tilec::runtime::DType::" +
             dtypeEnum(k.params[i].type) + ", " + address(i) + ");\n";
    s += "  const ::tilec::runtime::ArgValue args[] = {\n";
    for (size_t i = 0; i < k.params.size(); ++i) {
      const ParamInfo &p = k.params[i];
      if (p.kind == ParamInfo::Kind::Pointer)
        s += "      ::tilec::runtime::pointerArg(::tilec::runtime::DType::" +
             std::string(dtypeEnum(p.type)) + ", " + address(i) + "),\n";
      else if (p.kind == ParamInfo::Kind::TensorDesc)
        s += "      ::tilec::runtime::makeArg(" + names[i] + "_desc),\n";
      else if (isIntegerScalar(p))
        s += "      ::tilec::runtime::makeArg(" + names[i] +
             ".expect_int()),\n";
      else
        s += "      ::tilec::runtime::makeArg(" + names[i] + "),\n";
    }
    if (k.params.empty())
      s += "      ::tilec::runtime::ArgValue(),\n";
    s += "  };\n";
    return s;
  }
  std::string explicitGrid() const {
    return "  const ::tilec::runtime::Grid programs(grid[0], grid.size() > 1 "
           "? grid[1] : 1, grid.size() > 2 ? grid[2] : 1);\n";
  }

  std::string cudaFunction(const std::string &ns) const {
    std::string s = "/// " + op() + " on CUDA tensors.\n";
    s += "void " + k.name + "_cuda(" + cppParams() + ") {\n";
    s += derivation([](size_t) { return true; });
    s += "  " + k.name + "_check(" + callArgs(Form::Kernel) + ");\n";
    s += "  " + k.name + "_launch(" + callArgs(Form::Kernel) + ");\n";
    s += "}\n\n";
    return launchFunction(ns) + s + metaFunction();
  }

  /// `<k>_launch`: after the checks (`<k>_check`, or the allocating form's
  /// input checks and outputs it made itself), the addresses' alignment
  /// and the launch on the current stream.
  std::string launchFunction(const std::string &ns) const {
    std::string s = "/// " + op() + "'s launch, its tensors checked.\n";
    s += "void " + k.name + "_launch(" + cppParams(Form::Kernel) + ") {\n";
    int first = firstTensor(Form::Kernel);
    // Each address is read once (data_ptr() is a call into c10 that checks
    // the storage), const unless the schema says the kernel writes there.
    for (size_t i = 0; i < k.params.size(); ++i) {
      const ParamInfo &p = k.params[i];
      if (!isTensor(p))
        continue;
      const std::string &n = names[i];
      s += "  const uint64_t " + n + "_address = reinterpret_cast<uint64_t>(" +
           n + (mutated(p) ? ".mutable_data_ptr()" : ".const_data_ptr()") +
           ");\n";
      if (p.kind == ParamInfo::Kind::Pointer && p.divisibility > 1)
        s += "  TORCH_CHECK(" + n + "_address % " +
             std::to_string(p.divisibility) + " == 0, \"" + op() + ": " + n +
             "'s data must be " + std::to_string(p.divisibility) +
             "-byte aligned (the kernel was compiled for it: "
             "tile.divisibility), got address \", std::to_string(" + n +
             "_address));\n";
    }
    s += argsCode([&](size_t i) { return names[i] + "_address"; });
    if (first >= 0) {
      s += "  const int device = " + names[first] + ".device().index();\n";
      // A CUDAGuard costs a device query, and a query and a primary-context
      // probe when it restores; the common call is on the current device,
      // so the guard (same semantics: set, then restored) is built only
      // when the tensors are elsewhere. With one visible device (PyTorch
      // counts them once) they cannot be elsewhere, so not even the
      // device query is made.
      s += "  std::optional<c10::cuda::CUDAGuard> guard;\n";
      s += "  if (c10::cuda::device_count() > 1 && c10::cuda::current_device() "
           "!= device) [[unlikely]]\n";
      s += "    guard.emplace(static_cast<c10::DeviceIndex>(device));\n";
    } else {
      s += "  const int device = c10::cuda::current_device();\n";
    }
    s += "  const " + ns + "::Kernels &kernels = kernelsOn(device);\n";
    s += "  CUstream stream = at::cuda::getCurrentCUDAStream(static_cast<c10::"
         "DeviceIndex>(device)).stream();\n";
    std::string count = std::to_string(k.params.size());
    if (hasRule()) {
      s += "  // The grid: " + k.grid.text() +
           " (the kernel's tile.grid, evaluated by the runtime).\n";
      s += "  ::tilec::runtime::Status status = kernels." + k.name +
           "Kernel().launchArgs(stream, args, " + count + ");\n";
    } else {
      s += explicitGrid();
      s += "  ::tilec::runtime::Status status = kernels." + k.name +
           "Kernel().launchArgs(stream, programs, args, " + count + ");\n";
    }
    s += "  TORCH_CHECK(status.ok(), \"" + op() + ": \", status.message());\n";
    s += "}\n\n";
    return s;
  }

  std::string metaFunction() const {
    std::string s;
    s += "/// " + op() + " on meta (fake) tensors: the checks, then the "
         "launch's own\n/// (scalars, descriptors, the grid) without a GPU; "
         "meta tensors have no\n/// address, so 0 stands in.\n";
    s += "void " + k.name + "_meta(" + cppParams() + ") {\n";
    s += derivation([](size_t) { return true; });
    s += "  " + k.name + "_check(" + callArgs(Form::Kernel) + ");\n";
    std::string symbolic;
    for (size_t i = 0; i < k.params.size(); ++i)
      if (isIntegerScalar(k.params[i]))
        symbolic += (symbolic.empty() ? "" : " || ") + names[i] +
                    ".is_symbolic()";
    if (!symbolic.empty())
      s += "  // Symbolic integers (torch.compile's dynamic shapes) have no "
           "value to check\n  // yet: the CUDA implementation checks them "
           "at the launch.\n  if (" + symbolic + ")\n    return;\n";
    s += argsCode([](size_t) { return std::string("0"); });
    if (!hasRule())
      s += explicitGrid();
    s += "  const ::tilec::runtime::Status status = "
         "::tilec::runtime::checkLaunch(moduleMetadata().kernels[" +
         std::to_string(index) + "], " + (hasRule() ? "nullptr" : "&programs") +
         ", args, " + std::to_string(k.params.size()) + ");\n";
    s += "  TORCH_CHECK(status.ok(), \"" + op() + ": \", status.message());\n";
    s += "}\n\n";
    return s;
  }

  /// The kernels above the backends: `<k>_op()`, the operator's typed
  /// handle; `<k>_autograd` for the Autograd keys (the grad check, the
  /// version counters, then the backends); `<k>_inplace_or_view` for the
  /// ADInplaceOrView key (the version counters), which a call reaches when
  /// only autograd is excluded (inference mode, another kernel's
  /// AutoDispatchBelowAutograd). Both redispatch below ADInplaceOrView on
  /// the keys they were called with, so that fake and functional tensors
  /// (Python key) reach torch.compile's handlers and meta tensors the Meta
  /// implementation.
  std::string autogradFunctions(Form form) const {
    std::string sig = cppFunctionType(form);
    std::string name = prefix(form);
    std::string ret = cppReturn(form);
    std::string s = "/// " + library + "." + qualifiedName(form) +
                    "'s handle, to redispatch below autograd.\n";
    s += "const c10::TypedOperatorHandle<" + sig + "> &" + name + "_op() {\n";
    s += "  static const c10::TypedOperatorHandle<" + sig +
         "> handle =\n      c10::Dispatcher::singleton().findSchemaOrThrow(\"" +
         library + "::" + k.name + "\", \"" + overloadName(form) +
         "\").typed<" + sig + ">();\n";
    s += "  return handle;\n}\n\n";
    std::string params = cppParams(form);
    std::string args = callArgs(form);
    params = "c10::DispatchKeySet keys" + (params.empty() ? "" : ", " + params);
    std::string redispatch = name + "_op().redispatch(keys & "
                             "c10::after_ADInplaceOrView_keyset" +
                             (args.empty() ? "" : ", " + args) + ")";
    // The version counters of what the kernel writes, bumped after it ran
    // (as PyTorch's own in-place kernels do), so that autograd refuses a
    // saved tensor the kernel overwrote; an inference tensor refuses the
    // bump outside inference mode, as for any in-place op. The allocating
    // form writes only the tensors it returns.
    std::string bumps;
    for (size_t i = 0; i < k.params.size(); ++i)
      if (isTensor(k.params[i]) && mutated(k.params[i]) && !skipped(i, form))
        bumps += "  " + names[i] + ".unsafeGetTensorImpl()->bump_version();\n";
    std::string anyGrad;
    for (size_t i = 0; i < k.params.size(); ++i)
      if (isTensor(k.params[i]) && !skipped(i, form))
        anyGrad += std::string(anyGrad.empty() ? "" : " || ") + names[i] +
                   ".requires_grad()";
    s += "/// " + library + "." + qualifiedName(form) +
         (form == Form::Alloc ? " (allocating)" : "") +
         " on the Autograd keys. The operator has no backward: "
         "with grad\n/// mode on, a tensor that requires grad is refused "
         "(rather than a result\n/// autograd would silently not "
         "differentiate). Then the backends.\n";
    s += ret + " " + name + "_autograd(" + params + ") {\n";
    if (!anyGrad.empty()) {
      // requires_grad() asks the tensor's autograd metadata (none on most
      // tensors); the grad mode, a thread-local, is read only when some
      // tensor asks for grad.
      s += "  if ((" + anyGrad + ") && c10::GradMode::is_enabled()) [[unlikely]] {\n";
      for (size_t i = 0; i < k.params.size(); ++i)
        if (isTensor(k.params[i]) && !skipped(i, form))
          s += "    TORCH_CHECK(!" + names[i] + ".requires_grad(), \"" + op() +
               ": " + names[i] +
               " requires grad, but the operator has no backward (tilec "
               "kernels are forward only): call it under torch.no_grad() or "
               "torch.inference_mode(), or pass " +
               names[i] + ".detach()\");\n";
      s += "  }\n";
    }
    if (form == Form::Alloc) {
      // Nothing it is given is written: no version counter to bump, and
      // the ADInplaceOrView key falls through.
      s += "  return " + redispatch + ";\n}\n\n";
      return s;
    }
    s += "  " + redispatch + ";\n" + bumps + "}\n\n";
    s += "/// " + op() + " on the ADInplaceOrView key: the version counters.\n";
    s += "void " + name + "_inplace_or_view(" + params + ") {\n";
    s += "  " + redispatch + ";\n" + bumps + "}\n\n";
    return s;
  }

  /// The allocating form's implementations: the inputs checked, each shaped
  /// output allocated (contiguous, on the inputs' device, of the kernel's
  /// element type). On CUDA the outputs come from at::detail::empty_cuda
  /// (the caching allocator without a dispatch: the sizes have values
  /// there) and go straight to the launch, since nothing about them is left
  /// to check; under the Meta key they are meta tensors of symbolic sizes
  /// and the kernel-order form's Meta implementation checks everything.
  std::string allocFunction(const std::string &backend) const {
    std::string s = "/// " + op() + " allocating its outputs (" + backend +
                    ").\n";
    s += cppReturn(Form::Alloc) + " " + k.name + "_alloc_" + backend + "(" +
         cppParams(Form::Alloc) + ") {\n";
    s += derivation([&](size_t i) { return !outputDerived(i); });
    s += "  " + k.name + "_alloc_check(" + callArgs(Form::AllocCheck) + ");\n";
    const std::string &first = names[firstTensor(Form::Alloc)];
    std::string returned;
    for (size_t i = 0; i < k.params.size(); ++i) {
      const ParamInfo &p = k.params[i];
      if (!shapedOutput(p))
        continue;
      std::string sizes;
      for (size_t d = 0; d < p.shape.size(); ++d)
        sizes += std::string(d ? ",\n       " : "") + "outputSize(" +
                 p.shape[d].toCpp(names, kSymInt) + ", \"" + op() +
                 ": cannot allocate " +
                 names[i] + ": size " + std::to_string(d) + " of its tile.shape " +
                 shapeText(p, true) + " is \")" +
                 (backend == "cuda" ? ".expect_int()" : "");
      if (backend == "cuda")
        s += "  at::Tensor " + names[i] +
             " = at::detail::empty_cuda(\n      {" + sizes + "},\n      " +
             torchType(p.type).scalarType + ", " + first +
             ".device(), std::nullopt);\n";
      else
        s += "  at::Tensor " + names[i] + " = at::empty_symint(\n      {" +
             sizes + "},\n      " + first + ".options().dtype(" +
             torchType(p.type).scalarType + "));\n";
      returned += (returned.empty() ? "" : ", ") + names[i];
    }
    if (backend == "cuda")
      s += derivation([&](size_t i) { return outputDerived(i); }) + "  " +
           k.name + "_launch(" + callArgs(Form::Kernel) + ");\n";
    else // The kernel-order form's Meta implementation derives them again.
      s += "  " + k.name + "_meta(" + callArgs() + ");\n";
    s += returnCount(Form::Alloc) == 1
             ? "  return " + returned + ";\n"
             : "  return {" + returned + "};\n";
    return s + "}\n\n";
  }
};

} // namespace

Expected<std::string> generateTorchExtension(std::string_view binary,
                                             std::string_view metadataJson,
                                             const TorchExtensionOptions &options) {
  if (!isIdentifier(options.library))
    return Status::error("the operator library '" + options.library +
                         "' is not an identifier (torch.ops.<library>)");
  auto metadata = runtime::parseMetadata(metadataJson);
  if (!metadata.ok())
    return options.metadataName.empty()
               ? metadata.status()
               : metadata.status().withContext(options.metadataName);
  if (metadata->kernels.empty())
    return Status::error("the metadata has no kernels to bind");
  // The AOT code in a namespace of its own per extension, so that two
  // extensions in one process never share a symbol.
  CppKernelsOptions aot;
  aot.namespaceName = "tilec_torch_" + metadata->kernels.front().name;
  aot.headerInclude = "";
  aot.origin = options.origin;
  aot.binaryName = options.binaryName;
  aot.metadataName = options.metadataName;
  auto generated = generateCppKernels(binary, metadataJson, aot);
  if (!generated.ok())
    return generated.status();
  const std::string &ns = aot.namespaceName;

  std::string origin = options.origin.empty() ? "" : " from " + options.origin;
  for (char &c : origin)
    if (c == '\n' || c == '\r')
      c = ' ';
  std::string s;
  s += "// Generated by tilec" + origin + ". Do not edit.\n";
  s += "// A PyTorch C++ extension: the kernels as torch.ops." +
       options.library + ".<name>, their " + metadata->target +
       " code embedded.\n// Build it against the tilec runtime "
       "(docs/pytorch.md):\n//\n"
       "//   torch.utils.cpp_extension.load(name=\"tilec_ops\", sources=[THIS],\n"
       "//       extra_include_paths=[PREFIX + \"/include\"], extra_ldflags=[\n"
       "//       \"-L\" + PREFIX + \"/lib\", \"-lTilecRuntime\", "
       "\"-lTilecSupport\", \"-lTilecChip\", \"-ldl\"],\n"
       "//       is_python_module=False)\n//\n// Operators:\n";
  std::vector<Binding> bindings;
  bool anyDesc = false;
  for (size_t i = 0; i < metadata->kernels.size(); ++i) {
    const KernelMetadata &k = metadata->kernels[i];
    bindings.push_back({k, i, argNames(k), options.library});
    anyDesc |= k.tensorDescCount() != 0;
  }
  using Form = Binding::Form;
  for (const Binding &b : bindings) {
    if (b.allocates())
      s += "//   " + options.library + "::" + b.schema(Form::Alloc) + "\n";
    s += "//   " + options.library + "::" + b.schema(Form::Full) + "\n";
  }
  s += "\n#include <ATen/ATen.h>\n#include <ATen/cuda/CUDAContext.h>\n"
       "#include <ATen/cuda/EmptyTensor.h>\n#include <c10/cuda/CUDAGuard.h>\n"
       "#include <torch/library.h>\n\n"
       "#include <algorithm>\n#include <array>\n#include <atomic>\n"
       "#include <initializer_list>\n#include <tuple>\n"
       "#include <cstdint>\n#include <mutex>\n#include <optional>\n#include <sstream>\n"
       "#include <string>\n\n";
  s += "// --- the kernels and their loader (tilec's AOT code) "
       "-----------------------\n";
  s += generated->header + "\n" + generated->source + "\n";
  s += "// --- the operators "
       "---------------------------------------------------------\n";
  s += "namespace {\n\n";
  s += "/// Ceiling division, as tile.grid and tile.extent rules mean it.\n"
       "[[maybe_unused]] int64_t cdiv(int64_t a, int64_t b) {\n"
       "  return b == 0 ? 0 : a / b + ((a % b != 0) && ((a < 0) == (b < 0)));"
       "\n}\n\n";
  s += "/// The same on PyTorch's integers; symbolic ones are sizes (a >= 0, "
       "b > 0).\n"
       "[[maybe_unused]] c10::SymInt cdiv(const c10::SymInt &a, const "
       "c10::SymInt &b) {\n"
       "  if (const std::optional<int64_t> x = a.maybe_as_int())\n"
       "    if (const std::optional<int64_t> y = b.maybe_as_int())\n"
       "      return c10::SymInt(cdiv(*x, *y));\n"
       "  return (a + b - 1) / b;\n}\n\n";
  s += "/// The embedded metadata, parsed once: the Meta implementations check\n"
       "/// launches against it without a GPU.\n";
  s += "const ::tilec::runtime::ModuleMetadata &moduleMetadata() {\n";
  s += "  static const ::tilec::runtime::ModuleMetadata parsed = [] {\n";
  s += "    auto m = ::tilec::runtime::parseMetadata(" + ns +
       "::metadataJson());\n";
  s += "    TORCH_CHECK(m.ok(), \"tilec: \", m.message());\n";
  s += "    return std::move(*m);\n  }();\n  return parsed;\n}\n\n";
  // Under torch.compile with dynamic shapes the Meta implementation sees
  // symbolic sizes, which numel() and sizes() refuse.
  s += "/// Whether `t` has at least `need` elements. A symbolic count (the "
       "Meta\n/// implementation under torch.compile's dynamic shapes) is "
       "decided by a\n/// guard: the graph is kept only for sizes that "
       "pass.\n"
       "[[maybe_unused]] bool hasElements(const at::Tensor &t,\n"
       "                                  const c10::SymInt &need) {\n"
       "  if (!t.unsafeGetTensorImpl()->has_symbolic_sizes_strides()) "
       "[[likely]]\n"
       "    if (const std::optional<int64_t> n = need.maybe_as_int())\n"
       "      return t.numel() >= *n;\n"
       "  return t.sym_numel() >= need;\n}\n\n";
  s += "/// `v` for a message (a symbolic one as its expression).\n"
       "[[maybe_unused]] std::string symText(const c10::SymInt &v) {\n"
       "  if (const std::optional<int64_t> n = v.maybe_as_int())\n"
       "    return std::to_string(*n);\n"
       "  std::ostringstream os;\n  os << v;\n"
       "  return os.str();\n}\n\n";
  s += "/// `t`'s element count for a message (a symbolic one as its "
       "expression).\n"
       "[[maybe_unused]] std::string elementCount(const at::Tensor &t) {\n"
       "  if (!t.unsafeGetTensorImpl()->has_symbolic_sizes_strides())\n"
       "    return std::to_string(t.numel());\n"
       "  std::ostringstream os;\n  os << t.sym_numel();\n"
       "  return os.str();\n}\n\n";
  s += "/// Whether `t` has the sizes `sizes` (symbolic ones decided by guards).\n"
       "[[maybe_unused]] bool hasShape(const at::Tensor &t,\n"
       "                               std::initializer_list<c10::SymInt> sizes) {\n"
       "  if (t.dim() != static_cast<int64_t>(sizes.size()))\n"
       "    return false;\n"
       "  const bool symbolic = t.unsafeGetTensorImpl()->has_symbolic_sizes_strides();\n"
       "  int64_t d = 0;\n"
       "  for (const c10::SymInt &size : sizes) {\n"
       "    const std::optional<int64_t> n = size.maybe_as_int();\n"
       "    if (!symbolic && n ? t.size(d) != *n : t.sym_size(d) != size)\n"
       "      return false;\n"
       "    ++d;\n"
       "  }\n"
       "  return true;\n}\n\n";
  s += "/// \"[4, 1000]\": sizes for a message.\n"
       "[[maybe_unused]] std::string shapeOf(std::initializer_list<c10::SymInt> "
       "sizes) {\n"
       "  std::string s = \"[\";\n"
       "  for (const c10::SymInt &size : sizes)\n"
       "    s += (s.size() > 1 ? \", \" : \"\") + symText(size);\n"
       "  return s + \"]\";\n}\n\n";
  // Integers go through std::to_string, not a stream: on the GPU machine's
  // PyTorch 2.11, formatting an integer into a stream in the extension
  // crashes the process (as a TORCH_CHECK with an integer argument does).
  s += "/// `t`'s sizes for a message (symbolic ones as their expressions).\n"
       "[[maybe_unused]] std::string sizesOf(const at::Tensor &t) {\n"
       "  std::string s = \"[\";\n"
       "  for (const c10::SymInt &size : t.sym_sizes())\n"
       "    s += (s.size() > 1 ? \", \" : \"\") + symText(size);\n"
       "  return s + \"]\";\n}\n\n";
  s += "/// Whether `t` is dense and row-major in every dimension but `taken` "
       "(whose\n/// strides the kernel takes as arguments; negative ones count "
       "from the\n/// last): each other dimension of more than one element "
       "steps over the\n/// dimensions after it. Symbolic strides are decided "
       "by guards.\n"
       "[[maybe_unused]] bool denseExcept(const at::Tensor &t,\n"
       "                                  std::initializer_list<int64_t> taken) {\n"
       "  const int64_t rank = t.dim();\n"
       "  c10::SymInt expect = 1;\n"
       "  for (int64_t d = rank - 1; d >= 0; --d) {\n"
       "    const c10::SymInt size = t.sym_size(d), stride = t.sym_stride(d);\n"
       "    if (size == 0)\n      return true;\n"
       "    if (size == 1)\n      continue;\n"
       "    bool free = false;\n"
       "    for (int64_t f : taken)\n      free |= (f < 0 ? f + rank : f) == d;\n"
       "    if (!free && stride != expect)\n      return false;\n"
       "    expect = stride * size;\n"
       "  }\n  return true;\n}\n\n";
  s += "/// The elements a strided view reaches, from its first to its last.\n"
       "[[maybe_unused]] c10::SymInt spanOf(const at::Tensor &t) {\n"
       "  c10::SymInt span = 1;\n"
       "  for (int64_t d = 0; d < t.dim(); ++d) {\n"
       "    if (t.sym_size(d) == 0)\n      return 0;\n"
       "    span = span + (t.sym_size(d) - 1) * t.sym_stride(d);\n"
       "  }\n  return span;\n}\n\n";
  s += "/// A size of an allocated output, which its rule may make negative.\n"
       "[[maybe_unused]] c10::SymInt outputSize(c10::SymInt size, const char "
       "*what) {\n"
       "  TORCH_CHECK(size >= 0, what, symText(size));\n"
       "  return size;\n}\n\n";
  if (anyDesc)
    s += "/// The descriptor argument of `t` at `address`: its sizes and strides "
         "in\n/// elements, outermost first, as the runtime takes them (the "
         "operator\n/// checked the rank, at most 5). Symbolic sizes (dynamic "
         "shapes, in the\n/// Meta implementation) are specialized: the "
         "checks need numbers.\n"
         "::tilec::runtime::TensorDescArg descOf(const at::Tensor &t, "
         "::tilec::runtime::DType type,\n"
         "                                       uint64_t address) {\n"
         "  ::tilec::runtime::TensorDescArg d;\n"
         "  d.address = address;\n  d.type = type;\n"
         "  d.rank = d.strideCount = static_cast<int>(t.dim());\n"
         "  if (t.unsafeGetTensorImpl()->has_symbolic_sizes_strides()) "
         "[[unlikely]] {\n"
         "    const c10::SymIntArrayRef sizes = t.sym_sizes(), strides = "
         "t.sym_strides();\n"
         "    for (int i = 0; i < d.rank; ++i) {\n"
         "      d.shape[i] = sizes[i].guard_int(__FILE__, __LINE__);\n"
         "      d.strides[i] = strides[i].guard_int(__FILE__, __LINE__);\n"
         "    }\n    return d;\n  }\n"
         "  const at::IntArrayRef sizes = t.sizes(), strides = t.strides();\n"
         "  for (int i = 0; i < d.rank; ++i) {\n"
         "    d.shape[i] = sizes[i];\n    d.strides[i] = strides[i];\n  }\n"
         "  return d;\n}\n\n";
  s += "/// The kernels loaded into device `device`'s primary context (the one\n"
       "/// PyTorch uses), on first use; later calls read one atomic.\n";
  s += "const " + ns + "::Kernels &kernelsOn(int device) {\n";
  s += "  constexpr int kMaxDevices = 64;\n";
  s += "  static std::array<std::atomic<const " + ns +
       "::Kernels *>, kMaxDevices> loaded{};\n";
  s += "  static std::array<std::optional<" + ns +
       "::Kernels>, kMaxDevices> kernels;\n";
  s += "  static std::mutex mutex;\n";
  s += "  TORCH_CHECK(device >= 0 && device < kMaxDevices, \"tilec: device \", "
       "std::to_string(device), \" is out of range\");\n";
  s += "  if (const auto *k = loaded[device].load(std::memory_order_acquire))\n"
       "    return *k;\n";
  s += "  std::lock_guard<std::mutex> lock(mutex);\n";
  s += "  if (!kernels[device]) {\n";
  s += "    auto context = ::tilec::runtime::Context::create(device);\n";
  s += "    TORCH_CHECK(context.ok(), \"tilec: \", context.message());\n";
  s += "    auto k = " + ns + "::Kernels::load(*context);\n";
  s += "    TORCH_CHECK(k.ok(), \"tilec: \", k.message());\n";
  s += "    kernels[device].emplace(std::move(*k));\n";
  s += "    loaded[device].store(&*kernels[device], std::memory_order_release);\n";
  s += "  }\n  return *kernels[device];\n}\n\n";
  for (const Binding &b : bindings) {
    s += b.checkFunction(Form::Kernel) + b.cudaFunction(ns) +
         b.autogradFunctions(Form::Full);
    if (b.allocates())
      s += b.checkFunction(Form::AllocCheck) + b.allocFunction("cuda") +
           b.allocFunction("meta") + b.autogradFunctions(Form::Alloc);
  }
  s += "} // namespace\n\n";
  s += "TORCH_LIBRARY_FRAGMENT(" + options.library + ", m) {\n";
  for (const Binding &b : bindings)
    for (Form form : {Form::Alloc, Form::Full})
      if (form == Form::Full || b.allocates())
        s += "  m.def(\"" + b.schema(form) + "\");\n";
  s += "}\n\n";
  // TORCH_FN: the kernels as compile-time function pointers, which the
  // dispatcher's wrappers call directly.
  // One block per key; `alloc` adds each allocating default overload.
  auto impls = [&](const char *key, const char *suffix, bool alloc) {
    std::string block =
        "TORCH_LIBRARY_IMPL(" + options.library + ", " + key + ", m) {\n";
    for (const Binding &b : bindings) {
      block += "  m.impl(\"" + b.qualifiedName(Form::Full) + "\", TORCH_FN(" +
               b.k.name + suffix + "));\n";
      if (alloc && b.allocates())
        block += "  m.impl(\"" + b.qualifiedName(Form::Alloc) +
                 "\", TORCH_FN(" + b.k.name + "_alloc" + suffix + "));\n";
    }
    return block + "}\n";
  };
  s += impls("CUDA", "_cuda", true) + "\n";
  s += "// CPU tensors reach the CUDA implementation's check (\"must be a CUDA\n"
       "// tensor\") instead of PyTorch's missing-backend error.\n";
  s += impls("CPU", "_cuda", true) + "\n";
  s += "// torch.compile traces with fake tensors through the Meta key.\n";
  s += impls("Meta", "_meta", true) + "\n";
  s += "// Unboxed kernels where PyTorch would run its boxed autograd fallback\n"
       "// (every argument boxed, then redispatched) and the ADInplaceOrView\n"
       "// fallthrough: the grad check and the version counters, then the\n"
       "// backends. An allocating overload writes nothing it is given: its\n"
       "// ADInplaceOrView key falls through.\n";
  s += impls("Autograd", "_autograd", true) + "\n";
  s += impls("ADInplaceOrView", "_inplace_or_view", false);
  return s;
}

} // namespace tilec::aot
