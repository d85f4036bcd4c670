//===- Metadata.cpp - reading and checking kernel metadata ----------------===//
//
// Turns a `tilec-kernels` JSON document into ModuleMetadata, checking each
// field against docs/metadata.md. A message names the path to the bad field
// ("kernels[0] 'softmax': params[2] 'n_cols': ...") and what was expected.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Metadata.h"
#include "tilec/Runtime/TensorDesc.h"
#include "tilec/Support/Json.h"
#include "tilec/Target/Chip.h"

#include <cstdio>

namespace tilec::runtime {

using json::Value;

unsigned ParamInfo::abiBytes() const {
  if (kind == Kind::Pointer)
    return 8;
  if (kind == Kind::TensorDesc)
    return 128;
  return type == DType::I1 ? 4 : dtypeSize(type);
}

std::string KernelMetadata::signature() const {
  std::string out;
  for (const ParamInfo &p : params) {
    if (!out.empty())
      out += ", ";
    out += p.name + ": ";
    if (p.kind == ParamInfo::Kind::Pointer) {
      out += "ptr<" + std::string(dtypeName(p.type)) + ">";
    } else if (p.kind == ParamInfo::Kind::TensorDesc) {
      out += "tensor_desc<" + std::string(dtypeName(p.type)) + ", ";
      for (int d = 0; d < p.desc.rank; ++d)
        out += (d ? "x" : "") + std::to_string(p.desc.tile[d]);
      out += ">";
    } else {
      out += dtypeName(p.type);
    }
  }
  return out;
}

unsigned KernelMetadata::tensorDescCount() const {
  unsigned n = 0;
  for (const ParamInfo &p : params)
    n += p.kind == ParamInfo::Kind::TensorDesc;
  return n;
}

const KernelMetadata *ModuleMetadata::find(std::string_view name) const {
  for (const KernelMetadata &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

std::string ModuleMetadata::kernelNames() const {
  std::string out;
  for (const KernelMetadata &k : kernels)
    out += (out.empty() ? "" : ", ") + k.name;
  return out.empty() ? "none" : out;
}

namespace {

using json::show;

/// The kind of JSON value a field must be.
enum class Kind { String, Number, Array };

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::String:
    return "a string";
  case Kind::Number:
    return "a number";
  case Kind::Array:
    return "an array";
  }
  return "a value";
}

bool isKind(const Value &v, Kind kind) {
  switch (kind) {
  case Kind::String:
    return v.is_string();
  case Kind::Number:
    return v.is_number();
  case Kind::Array:
    return v.is_array();
  }
  return false;
}

/// Reads fields of one JSON object, prefixing errors with where it is.
class Fields {
public:
  Fields(const Value &object, std::string where)
      : object_(object), where_(std::move(where)) {}

  Status error(const std::string &what) const {
    return Status::error("invalid kernel metadata: " + where_ + what);
  }

  /// The member `key`, or null.
  const Value *find(const char *key) const {
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }

  Expected<const Value *> get(const char *key, Kind kind) const {
    const Value *v = find(key);
    if (!v)
      return error("missing \"" + std::string(key) + "\"");
    if (!isKind(*v, kind))
      return error("\"" + std::string(key) + "\" is " + show(*v) + ", not " +
                   kindName(kind));
    return v;
  }

  Expected<std::string> string(const char *key) const {
    auto v = get(key, Kind::String);
    if (!v.ok())
      return v.status();
    const std::string &text = (*v)->get_ref<const std::string &>();
    if (text.empty())
      return error("\"" + std::string(key) + "\" is empty");
    return text;
  }

  /// An integer field in [lo, hi]; `expected` describes the range.
  Expected<int64_t> integer(const char *key, int64_t lo, int64_t hi,
                            const char *expected) const {
    auto v = get(key, Kind::Number);
    if (!v.ok())
      return v.status();
    std::optional<int64_t> i = json::asInt64(**v);
    if (!i || *i < lo || *i > hi)
      return error("\"" + std::string(key) + "\" is " + show(**v) + ", not " +
                   expected);
    return *i;
  }

  const Value &object() const { return object_; }
  const std::string &where() const { return where_; }

private:
  const Value &object_;
  std::string where_;
};

bool isScalarAbiType(DType t) {
  return t == DType::I1 || t == DType::I32 || t == DType::I64 ||
         t == DType::F16 || t == DType::BF16 || t == DType::F32;
}

/// The element type of a pointer, the type of a scalar: `"type"`.
Status readType(const Fields &f, ParamInfo &p) {
  auto typeText = f.string("type");
  if (!typeText.ok())
    return typeText.status();
  std::optional<DType> type = parseDType(*typeText);
  if (!type)
    return f.error("\"type\" is " + json::quote(*typeText) + ", not one of " +
                   std::string(allDTypeNames()));
  p.type = *type;
  return Status();
}

/// The optional `"divisibility"` of an integer or a pointer.
Status readDivisibility(const Fields &f, ParamInfo &p) {
  if (!f.find("divisibility"))
    return Status();
  auto div = f.integer("divisibility", 1, int64_t(1) << 40,
                       "a whole number of 1 or more");
  if (!div.ok())
    return div.status();
  p.divisibility = *div;
  bool integral = p.kind == ParamInfo::Kind::Pointer ||
                  (isInteger(p.type) && p.type != DType::I1);
  if (p.divisibility != 1 && !integral)
    return f.error("\"divisibility\" " + std::to_string(p.divisibility) +
                   " applies to integers and pointers, not to " +
                   std::string(dtypeName(p.type)) + " scalars");
  return Status();
}

/// `"kind": "ptr"`: a global pointer to elements of `"type"`.
Status readPointer(const Fields &f, ParamInfo &p) {
  p.kind = ParamInfo::Kind::Pointer;
  TILEC_RETURN_IF_ERROR(readType(f, p));
  return readDivisibility(f, p);
}

/// `"kind": "scalar"`: a value of `"type"` passed by value.
Status readScalar(const Fields &f, ParamInfo &p) {
  p.kind = ParamInfo::Kind::Scalar;
  TILEC_RETURN_IF_ERROR(readType(f, p));
  if (!isScalarAbiType(p.type))
    return f.error("a scalar of type " + std::string(dtypeName(p.type)) +
                   " is not in the kernel ABI (scalars are i1 i32 i64 f16 "
                   "bf16 f32)");
  return readDivisibility(f, p);
}

/// `"kind": "tensor_desc"`: a TMA descriptor of `"type"` elements, passed
/// by value; rank, block, swizzle and fill checked against what the TMA
/// can do.
Status readTensorDesc(const Fields &f, ParamInfo &p) {
  p.kind = ParamInfo::Kind::TensorDesc;
  TILEC_RETURN_IF_ERROR(readType(f, p));
  std::string type(dtypeName(p.type));
  if (tensorMapDataType(p.type) < 0)
    return f.error("a tensor descriptor of " + type +
                   " elements is not supported (the TMA moves i8 i16 i32 "
                   "i64 f16 bf16 f32 f64 f8E4M3FN f8E5M2)");
  auto rank = f.integer("rank", 1, kMaxTensorRank, "a rank from 1 to 5");
  if (!rank.ok())
    return rank.status();
  TensorDescInfo &d = p.desc;
  d.rank = static_cast<int>(*rank);
  auto block = f.get("block", Kind::Array);
  if (!block.ok())
    return block.status();
  const Value &dims = **block;
  if (dims.size() != size_t(d.rank))
    return f.error("\"block\" has " + std::to_string(dims.size()) +
                   " dimensions but \"rank\" is " + std::to_string(d.rank));
  for (int i = 0; i < d.rank; ++i) {
    std::optional<int64_t> e = json::asInt64(dims[i]);
    if (!e || *e < 1 || *e > 256)
      return f.error("\"block\"[" + std::to_string(i) + "] is " +
                     show(dims[i]) +
                     ", not a whole number from 1 to 256 (the TMA's box "
                     "limit)");
    d.block[i] = *e;
  }
  // The kernel's block: whole boxes along each dimension.
  for (int i = 0; i < d.rank; ++i)
    d.tile[i] = d.block[i];
  if (f.find("tile")) {
    auto tile = f.get("tile", Kind::Array);
    if (!tile.ok())
      return tile.status();
    const Value &t = **tile;
    if (t.size() != size_t(d.rank))
      return f.error("\"tile\" has " + std::to_string(t.size()) +
                     " dimensions but \"rank\" is " + std::to_string(d.rank));
    for (int i = 0; i < d.rank; ++i) {
      std::optional<int64_t> e = json::asInt64(t[i]);
      if (!e || *e < d.block[i] || *e % d.block[i] != 0 || *e > (1 << 20))
        return f.error("\"tile\"[" + std::to_string(i) + "] is " +
                       show(t[i]) + ", not a multiple of the box's " +
                       std::to_string(d.block[i]));
      d.tile[i] = *e;
    }
  }
  int64_t innerBytes = d.block[d.rank - 1] * dtypeSize(p.type);
  if (innerBytes % 16 != 0)
    return f.error("the block's innermost dimension is " +
                   std::to_string(innerBytes) + " bytes (" +
                   std::to_string(d.block[d.rank - 1]) + " x " + type +
                   "), not a multiple of 16");
  if (f.find("swizzle")) {
    auto swizzle = f.integer("swizzle", 0, 128, "0, 32, 64 or 128");
    if (!swizzle.ok())
      return swizzle.status();
    if (*swizzle != 0 && *swizzle != 32 && *swizzle != 64 && *swizzle != 128)
      return f.error("\"swizzle\" is " + std::to_string(*swizzle) +
                     ", not 0, 32, 64 or 128");
    d.swizzle = static_cast<int>(*swizzle);
  }
  if (d.swizzle != 0 && innerBytes > d.swizzle)
    return f.error("the block's innermost dimension is " +
                   std::to_string(innerBytes) + " bytes (" +
                   std::to_string(d.block[d.rank - 1]) + " x " + type +
                   "), more than the " + std::to_string(d.swizzle) +
                   "-byte swizzle span");
  if (f.find("fill")) {
    auto fill = f.string("fill");
    if (!fill.ok())
      return fill.status();
    if (*fill != "zero" && *fill != "nan")
      return f.error("\"fill\" is " + json::quote(*fill) +
                     ", not \"zero\" or \"nan\"");
    d.nanFill = *fill == "nan";
    if (d.nanFill && !isFloat(p.type))
      return f.error("\"fill\" \"nan\" needs floating-point elements, not " +
                     type);
  }
  if (const Value *div = f.find("divisibility")) {
    std::optional<int64_t> v = json::asInt64(*div);
    if (!v || *v != 1)
      return f.error("\"divisibility\" applies to integers and pointers, not "
                     "to tensor descriptors (the TMA needs 16-byte alignment "
                     "anyway)");
  }
  return Status();
}

/// The parameter kinds and their readers: a new kind is one entry and one
/// function reading its fields.
struct ParamKindReader {
  const char *name;
  Status (*read)(const Fields &, ParamInfo &);
};
constexpr ParamKindReader kParamKinds[] = {
    {"ptr", readPointer},
    {"scalar", readScalar},
    {"tensor_desc", readTensorDesc},
};

Expected<ParamInfo> parseParam(const Value &v, const std::string &where) {
  if (!v.is_object())
    return Status::error("invalid kernel metadata: " + where + "is " + show(v) +
                         ", not an object");
  ParamInfo p;
  {
    Fields f(v, where);
    auto name = f.string("name");
    if (!name.ok())
      return name.status();
    p.name = *name;
  }
  Fields f(v, where.substr(0, where.size() - 2) + " '" + p.name + "': ");
  auto kind = f.string("kind");
  if (!kind.ok())
    return kind.status();
  std::string known;
  for (const ParamKindReader &k : kParamKinds) {
    if (*kind == k.name) {
      TILEC_RETURN_IF_ERROR(k.read(f, p));
      return p;
    }
    // "a", "b" or "c"
    bool last = &k == std::end(kParamKinds) - 1;
    known += std::string(known.empty() ? "" : last ? " or " : ", ") + "\"" +
             k.name + "\"";
  }
  return f.error("\"kind\" is " + json::quote(*kind) + ", not " + known);
}

/// `"resources"`: what ptxas reported, every field a count of 0 or more
/// (registers up to 255, the most a thread has).
Expected<KernelResources> parseResources(const Value &v,
                                         const std::string &where) {
  Fields f(v, where + "\"resources\": ");
  if (!v.is_object())
    return f.error("is " + show(v) + ", not an object");
  KernelResources r;
  auto registers = f.integer("registers", 0, 255, "a whole number from 0 to 255");
  if (!registers.ok())
    return registers.status();
  r.registers = static_cast<int>(*registers);
  for (auto [key, field] :
       {std::pair{"spill_store_bytes", &r.spillStoreBytes},
        std::pair{"spill_load_bytes", &r.spillLoadBytes},
        std::pair{"stack_bytes", &r.stackBytes},
        std::pair{"static_shared_bytes", &r.staticSharedBytes}}) {
    // Only "registers" is required: a count left out is 0.
    if (!f.find(key))
      continue;
    auto n = f.integer(key, 0, INT32_MAX, "a whole number of bytes (0 or more)");
    if (!n.ok())
      return n.status();
    *field = *n;
  }
  return r;
}

Expected<KernelMetadata> parseKernel(const Value &v, const std::string &where) {
  if (!v.is_object())
    return Status::error("invalid kernel metadata: " + where + "is " + show(v) +
                         ", not an object");
  KernelMetadata k;
  {
    Fields f(v, where);
    auto name = f.string("name");
    if (!name.ok())
      return name.status();
    k.name = *name;
  }
  std::string here = where.substr(0, where.size() - 2) + " '" + k.name + "': ";
  Fields f(v, here);

  auto warps = f.integer("num_warps", 1, 32, "a whole number from 1 to 32");
  if (!warps.ok())
    return warps.status();
  k.numWarps = static_cast<int>(*warps);
  auto threads = f.integer("threads_per_program", 1, 1024,
                           "a whole number from 1 to 1024");
  if (!threads.ok())
    return threads.status();
  k.threadsPerProgram = static_cast<int>(*threads);
  if (k.threadsPerProgram != 32 * k.numWarps)
    return f.error("\"threads_per_program\" is " +
                   std::to_string(k.threadsPerProgram) + " but num_warps " +
                   std::to_string(k.numWarps) + " means " +
                   std::to_string(32 * k.numWarps) + " threads");
  auto shared = f.integer("shared_bytes", 0, INT32_MAX,
                          "a whole number of bytes (0 or more)");
  if (!shared.ok())
    return shared.status();
  k.sharedBytes = *shared;
  if (f.find("num_ctas")) {
    auto ctas = f.integer("num_ctas", 1, 4, "1, 2 or 4");
    if (!ctas.ok())
      return ctas.status();
    if (*ctas == 3)
      return f.error("\"num_ctas\" must be 1, 2 or 4, got 3");
    k.numCtas = static_cast<int>(*ctas);
  }

  if (const Value *r = f.find("resources")) {
    auto resources = parseResources(*r, here);
    if (!resources.ok())
      return resources.status();
    k.resources = *resources;
  }

  auto params = f.get("params", Kind::Array);
  if (!params.ok())
    return params.status();
  const Value &list = **params;
  for (size_t i = 0; i < list.size(); ++i) {
    auto p = parseParam(list[i], here + "params[" + std::to_string(i) + "]: ");
    if (!p.ok())
      return p.status();
    for (size_t j = 0; j < k.params.size(); ++j)
      if (k.params[j].name == p->name)
        return f.error("params[" + std::to_string(i) + "] '" + p->name +
                       "': a parameter named '" + p->name +
                       "' comes earlier (params[" + std::to_string(j) + "])");
    k.params.push_back(std::move(*p));
  }
  // Rules name parameters, so they are read once all are known.
  std::vector<grid::ParamRef> refs;
  std::vector<std::string> whats;
  whats.reserve(k.params.size());
  for (const ParamInfo &p : k.params) {
    bool integer = p.kind == ParamInfo::Kind::Scalar &&
                   (p.type == DType::I32 || p.type == DType::I64);
    whats.push_back(p.kind == ParamInfo::Kind::Pointer ? "a pointer"
                    : p.kind == ParamInfo::Kind::TensorDesc
                        ? "a tensor descriptor"
                        : "an " + std::string(dtypeName(p.type)) + " scalar");
    refs.push_back({p.name, integer, whats.back()});
  }
  for (size_t i = 0; i < list.size(); ++i) {
    Fields pf(list[i], here + "params[" + std::to_string(i) + "] '" +
                           k.params[i].name + "': ");
    if (pf.find("output")) {
      const Value *out = pf.find("output");
      if (!out->is_boolean())
        return pf.error("\"output\" is " + show(*out) + ", not true or false");
      if (k.params[i].kind == ParamInfo::Kind::Scalar)
        return pf.error(
            "\"output\" applies to pointers and tensor descriptors only");
      k.params[i].output = out->get<bool>();
    }
    if (pf.find("extent")) {
      if (k.params[i].kind != ParamInfo::Kind::Pointer)
        return pf.error("\"extent\" applies to pointers only");
      auto text = pf.string("extent");
      if (!text.ok())
        return text.status();
      auto e = grid::parse(*text, refs);
      if (!e.ok())
        return pf.error("\"extent\" " + e.message());
      k.params[i].extent = std::move(*e);
    }
    if (const Value *shape = pf.find("shape")) {
      ParamInfo &p = k.params[i];
      if (p.kind == ParamInfo::Kind::Scalar)
        return pf.error(
            "\"shape\" applies to pointers and tensor descriptors only");
      if (!shape->is_array())
        return pf.error("\"shape\" is " + show(*shape) +
                        ", not an array of 1 to " +
                        std::to_string(kMaxTensorRank) + " strings");
      if (shape->empty() || shape->size() > size_t(kMaxTensorRank))
        return pf.error("\"shape\" has " + std::to_string(shape->size()) +
                        " sizes, not 1 to " + std::to_string(kMaxTensorRank));
      if (p.kind == ParamInfo::Kind::TensorDesc &&
          shape->size() != size_t(p.desc.rank))
        return pf.error("\"shape\" has " + std::to_string(shape->size()) +
                        " sizes but the descriptor's rank is " +
                        std::to_string(p.desc.rank));
      for (size_t d = 0; d < shape->size(); ++d) {
        const Value &size = (*shape)[d];
        if (!size.is_string())
          return pf.error("\"shape\"[" + std::to_string(d) + "] is " +
                          show(size) + ", not a string");
        auto e = grid::parse(size.get_ref<const std::string &>(), refs);
        if (!e.ok())
          return pf.error("\"shape\"[" + std::to_string(d) + "] " +
                          e.message());
        p.shape.push_back(std::move(*e));
      }
    }
  }
  // Sources name tensors and their ranks (a pointer's from its shape, read
  // above).
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ParamInfo &p = k.params[i];
    refs[i].tensorRank = p.kind == ParamInfo::Kind::TensorDesc ? p.desc.rank
                         : p.kind == ParamInfo::Kind::Pointer
                             ? int(p.shape.size())
                             : -1;
  }
  for (size_t i = 0; i < list.size(); ++i) {
    Fields pf(list[i], here + "params[" + std::to_string(i) + "] '" +
                           k.params[i].name + "': ");
    if (!pf.find("from"))
      continue;
    if (!refs[i].integerScalar)
      return pf.error("\"from\" applies to i32 and i64 scalars only");
    auto text = pf.string("from");
    if (!text.ok())
      return text.status();
    auto source = grid::parseSource(*text, refs);
    if (!source.ok())
      return pf.error("\"from\" " + source.message());
    k.params[i].from = std::move(*source);
  }
  if (const Value *g = f.find("grid")) {
    if (!g->is_array())
      return f.error("\"grid\" is " + show(*g) +
                     ", not an array of 1 to 3 strings (x, y, z)");
    if (g->empty() || g->size() > 3)
      return f.error("\"grid\" has " + std::to_string(g->size()) +
                     " entries, not 1 to 3 (x, y, z)");
    for (size_t d = 0; d < g->size(); ++d) {
      const Value &dim = (*g)[d];
      if (!dim.is_string())
        return f.error("\"grid\"[" + std::to_string(d) + "] is " +
                       show(dim) + ", not a string");
      auto e = grid::parse(dim.get_ref<const std::string &>(), refs);
      if (!e.ok())
        return f.error("\"grid\"[" + std::to_string(d) + "] " + e.message());
      k.grid.dims.push_back(std::move(*e));
    }
  }
  return k;
}

} // namespace

Expected<ModuleMetadata> parseMetadata(std::string_view text) {
  auto doc = json::parse(text);
  if (!doc.ok())
    return doc.status().withContext("invalid kernel metadata: not JSON");
  if (!doc->is_object())
    return Status::error("invalid kernel metadata: the document is " +
                         show(*doc) + ", not an object");
  Fields f(*doc, "");
  ModuleMetadata m;

  auto format = f.string("format");
  if (!format.ok())
    return format.status();
  if (*format != "tilec-kernels")
    return f.error("\"format\" is " + json::quote(*format) +
                   ", not \"tilec-kernels\"");
  auto version =
      f.integer("version", 1, INT32_MAX, "a whole number of 1 or more");
  if (!version.ok())
    return version.status();
  if (*version != kMetadataVersion)
    return f.error("\"version\" is " + std::to_string(*version) +
                   "; this runtime reads version " +
                   std::to_string(kMetadataVersion) +
                   " (use a runtime and tilec of one release)");
  m.version = static_cast<int>(*version);
  auto target = f.string("target");
  if (!target.ok())
    return target.status();
  if (auto chip = lookupChip(*target); !chip.ok())
    return f.error("\"target\": " + chip.message());
  m.target = *target;

  auto kernels = f.get("kernels", Kind::Array);
  if (!kernels.ok())
    return kernels.status();
  const Value &list = **kernels;
  for (size_t i = 0; i < list.size(); ++i) {
    auto k = parseKernel(list[i], "kernels[" + std::to_string(i) + "]: ");
    if (!k.ok())
      return k.status();
    for (size_t j = 0; j < m.kernels.size(); ++j)
      if (m.kernels[j].name == k->name)
        return f.error("kernels[" + std::to_string(i) + "] '" + k->name +
                       "': a kernel named '" + k->name +
                       "' comes earlier (kernels[" + std::to_string(j) + "])");
    m.kernels.push_back(std::move(*k));
  }
  return m;
}

} // namespace tilec::runtime
