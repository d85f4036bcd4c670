//===- Args.cpp - checking and packing kernel arguments -------------------===//
//
// packArgs runs on every launch, so the common path is a loop of compares
// and stores; every message is built in a cold function that the common path
// only calls on failure.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Args.h"
#include "DLPackChecks.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace tilec::runtime {

namespace {

/// "an i32", "a bf16": the article that reads right before a type name.
std::string withArticle(DType t) {
  std::string_view name = dtypeName(t);
  return (name[0] == 'i' || name[0] == 'f' ? "an " : "a ") + std::string(name);
}

std::string expectedText(const ParamInfo &p) {
  if (p.kind == ParamInfo::Kind::Pointer)
    return "a pointer to " + std::string(dtypeName(p.type));
  if (p.kind == ParamInfo::Kind::TensorDesc)
    return "a tensor descriptor of " + std::string(dtypeName(p.type)) +
           " (rank " + std::to_string(p.desc.rank) + ")";
  return withArticle(p.type) + " scalar";
}

[[gnu::cold, gnu::noinline]] Status
paramError(const KernelMetadata &k, size_t index, const std::string &what) {
  return Status::error("kernel '" + k.name + "', parameter '" +
                       k.params[index].name + "' (#" + std::to_string(index) +
                       "): " + what);
}

/// The value a rule reads from argument `a`: an integer that fits int64_t.
bool ruleValue(const ArgValue &a, int64_t &value) {
  if (a.kind == ArgValue::Kind::SignedInt)
    value = a.i;
  else if (a.kind == ArgValue::Kind::UnsignedInt && a.u <= INT64_MAX)
    value = int64_t(a.u);
  else
    return false;
  return true;
}

[[gnu::cold, gnu::noinline]] Status
mismatch(const KernelMetadata &k, size_t index, const ArgValue &arg) {
  return paramError(k, index,
                    "expects " + expectedText(k.params[index]) + " but got " +
                        describeArg(arg));
}

[[gnu::cold, gnu::noinline]] Status noMapSlots(const KernelMetadata &k,
                                               size_t index) {
  return paramError(k, index,
                    "a tensor descriptor parameter needs a launch through "
                    "Kernel (packArgs was given no place for its map)");
}

[[gnu::cold, gnu::noinline]] Status countError(const KernelMetadata &k,
                                               size_t count) {
  return Status::error("kernel '" + k.name + "' takes " +
                       std::to_string(k.params.size()) + " argument" +
                       (k.params.size() == 1 ? "" : "s") + " (" +
                       k.signature() + ") but " + std::to_string(count) +
                       (count == 1 ? " was" : " were") + " given");
}

std::string valueText(const ArgValue &a) {
  switch (a.kind) {
  case ArgValue::Kind::SignedInt:
    return std::to_string(a.i);
  case ArgValue::Kind::UnsignedInt:
    return std::to_string(a.u);
  case ArgValue::Kind::Float: {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", a.f);
    return buf;
  }
  case ArgValue::Kind::Bool:
    return a.b ? "true" : "false";
  case ArgValue::Kind::Pointer: {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx",
                  static_cast<unsigned long long>(a.address));
    return buf;
  }
  case ArgValue::Kind::TensorDesc:
    return "a tensor descriptor";
  case ArgValue::Kind::DLTensor:
    return "a DLPack tensor";
  case ArgValue::Kind::FromTensor:
    return "fromTensor";
  }
  return "?";
}

[[gnu::cold, gnu::noinline]] Status
rangeError(const KernelMetadata &k, size_t index, const ArgValue &arg) {
  return paramError(k, index,
                    "value " + valueText(arg) + " does not fit in " +
                        std::string(dtypeName(k.params[index].type)));
}

[[gnu::cold, gnu::noinline]] Status
divisibilityError(const KernelMetadata &k, size_t index, const ArgValue &arg) {
  const ParamInfo &p = k.params[index];
  std::string what =
      p.kind == ParamInfo::Kind::Pointer
          ? "address " + valueText(arg) + " is not a multiple of " +
                std::to_string(p.divisibility) + " bytes"
          : "value " + valueText(arg) + " is not a multiple of " +
                std::to_string(p.divisibility);
  return paramError(k, index,
                    what + " (the divisibility the kernel was compiled for)");
}

/// Integer argument as int64, or false when it does not fit in [lo, hi].
bool intValue(const ArgValue &a, int64_t lo, int64_t hi, int64_t &out) {
  if (a.kind == ArgValue::Kind::UnsignedInt) {
    if (a.u > static_cast<uint64_t>(hi))
      return false;
    out = static_cast<int64_t>(a.u);
    return true;
  }
  if (a.i < lo || a.i > hi)
    return false;
  out = a.i;
  return true;
}

/// The sizes and strides an argument carries: a descriptor's or a DLPack
/// tensor's; none for anything else (a plain address has no sizes).
std::optional<TensorSizes> argSizes(const ArgValue &a) {
  if (a.kind == ArgValue::Kind::TensorDesc)
    return TensorSizes{a.desc->shape, a.desc->strides, a.desc->rank};
  if (a.kind == ArgValue::Kind::DLTensor)
    return dlTensorSizes(a);
  return std::nullopt;
}

/// The value of parameter `j`'s tile.from for the tensor of its numerator
/// (`num`) and, for a quotient, of its divisor (`den`); located errors for
/// a dimension a tensor lacks and a quotient that does not go exactly.
Expected<int64_t> sourceValue(const KernelMetadata &kernel, size_t j,
                              const TensorSizes &num, const TensorSizes *den) {
  const grid::Source &from = *kernel.params[j].from;
  auto noDimension = [&](int tensor, int tensorRank) {
    return paramError(kernel, j,
                      "its tile.from \"" + from.text +
                          "\" names a dimension the tensor given for '" +
                          kernel.params[size_t(tensor)].name + "' (rank " +
                          std::to_string(tensorRank) + ") does not have");
  };
  Expected<int64_t> v =
      grid::termValue(from.numerator(), num.sizes, num.strides, num.rank);
  if (!v.ok())
    return noDimension(from.param, num.rank);
  if (!from.divisor)
    return v;
  Expected<int64_t> d =
      grid::termValue(*from.divisor, den->sizes, den->strides, den->rank);
  if (!d.ok())
    return noDimension(from.divisor->param, den->rank);
  if (*d == 0 || *v % *d)
    return paramError(kernel, j,
                      "has no value: its tile.from \"" + from.text +
                          "\" divides " + std::to_string(*v) + " by " +
                          std::to_string(*d) + ", which does not go exactly");
  return *v / *d;
}

} // namespace

std::string describeArg(const ArgValue &arg) {
  switch (arg.kind) {
  case ArgValue::Kind::Pointer:
    return "a pointer to " + std::string(dtypeName(arg.type));
  case ArgValue::Kind::SignedInt:
    return "an integer (" + std::string(dtypeName(arg.type)) + ")";
  case ArgValue::Kind::UnsignedInt:
    return "an unsigned integer (" + std::string(dtypeName(arg.type)) + ")";
  case ArgValue::Kind::Float:
    return "a floating-point value (" + std::string(dtypeName(arg.type)) + ")";
  case ArgValue::Kind::Bool:
    return "a bool";
  case ArgValue::Kind::TensorDesc:
    return "a tensor descriptor of " + std::string(dtypeName(arg.type)) +
           " (rank " + std::to_string(arg.desc->rank) + ")";
  case ArgValue::Kind::DLTensor:
    return describeDLTensor(arg.dlTensor);
  case ArgValue::Kind::FromTensor:
    return "fromTensor (not resolved: call resolveFromTensor first)";
  }
  return "an unknown value";
}

Status resolveFromTensor(const KernelMetadata &kernel, const ArgValue *args,
                         size_t count, ArgValue *out) {
  if (count != kernel.params.size())
    return countError(kernel, count);
  std::copy(args, args + count, out);
  for (size_t j = 0; j < count; ++j) {
    if (args[j].kind != ArgValue::Kind::FromTensor)
      continue;
    const ParamInfo &p = kernel.params[j];
    const std::optional<grid::Source> &from = p.from;
    if (!from)
      return paramError(kernel, j,
                        "was given fromTensor, but the kernel declares no "
                        "tile.from for it: give its value");
    // The sizes and strides of the tensor argument at `t`.
    auto sizesOf = [&](size_t t) -> Expected<TensorSizes> {
      if (std::optional<TensorSizes> sz = argSizes(args[t]))
        return *sz;
      return paramError(kernel, j,
                        "was given fromTensor, but its tile.from \"" +
                            from->text + "\" reads '" + kernel.params[t].name +
                            "', given as " + describeArg(args[t]) +
                            ", which carries no sizes: give a DLPack tensor "
                            "or a tensor descriptor for it, or the value");
    };
    Expected<TensorSizes> num = sizesOf(size_t(from->param));
    if (!num.ok())
      return num.status();
    Expected<TensorSizes> den = TensorSizes{};
    if (from->divisor && !(den = sizesOf(size_t(from->divisor->param))).ok())
      return den.status();
    Expected<int64_t> v =
        sourceValue(kernel, j, *num, from->divisor ? &*den : nullptr);
    if (!v.ok())
      return v.status();
    out[j] = ArgValue();
    out[j].kind = ArgValue::Kind::SignedInt;
    out[j].type = p.type;
    out[j].i = *v;
  }
  return Status();
}

Status packArgs(const KernelMetadata &kernel, const ArgValue *args,
                size_t count, uint64_t *slots, void **pointers,
                const TensorMapSlots *maps) {
  const size_t n = kernel.params.size();
  if (count != n) [[unlikely]]
    return countError(kernel, count);
  size_t nextMap = 0;
  for (size_t i = 0; i < n; ++i) {
    const ParamInfo &p = kernel.params[i];
    const ArgValue &a = args[i];
    uint64_t slot = 0;
    if (p.kind == ParamInfo::Kind::TensorDesc) {
      // By value: the kernel's parameter is the 128-byte map itself.
      if (a.kind != ArgValue::Kind::TensorDesc || a.type != p.type) [[unlikely]]
        return mismatch(kernel, i, a);
      if (!maps) [[unlikely]]
        return noMapSlots(kernel, i);
      TensorMapBytes &map = maps->maps[nextMap++];
      TILEC_RETURN_IF_ERROR(maps->encoder->encode(kernel, i, *a.desc, map));
      // After the encoder's checks (the rank among them).
      if (!p.shape.empty()) [[unlikely]]
        TILEC_RETURN_IF_ERROR(
            checkShape(kernel, i, a.desc->shape, a.desc->rank, args, count));
      TILEC_RETURN_IF_ERROR(checkSources(kernel, i, a.desc->shape,
                                         a.desc->strides, a.desc->rank, args,
                                         count));
      pointers[i] = &map;
      continue;
    }
    if (p.kind == ParamInfo::Kind::Pointer) {
      if (a.kind == ArgValue::Kind::DLTensor) {
        // Out of line (DLPack.cpp): the checks need dlpack.h and, for the
        // extent, the other arguments.
        Expected<uint64_t> address = checkDLTensor(kernel, i, args, count);
        if (!address.ok()) [[unlikely]]
          return address.status();
        pointers[i] = &slots[i];
        slots[i] = *address;
        continue;
      }
      if (a.kind != ArgValue::Kind::Pointer || a.type != p.type) [[unlikely]]
        return mismatch(kernel, i, a);
      if (a.address % static_cast<uint64_t>(p.divisibility) != 0) [[unlikely]]
        return divisibilityError(kernel, i, a);
      slot = a.address;
    } else {
      switch (p.type) {
      case DType::I32:
      case DType::I64: {
        if (a.kind != ArgValue::Kind::SignedInt &&
            a.kind != ArgValue::Kind::UnsignedInt) [[unlikely]]
          return mismatch(kernel, i, a);
        int64_t v;
        bool fits = p.type == DType::I32
                        ? intValue(a, std::numeric_limits<int32_t>::min(),
                                   std::numeric_limits<int32_t>::max(), v)
                        : intValue(a, std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::max(), v);
        if (!fits) [[unlikely]]
          return rangeError(kernel, i, a);
        if (v % p.divisibility != 0) [[unlikely]]
          return divisibilityError(kernel, i, a);
        if (p.type == DType::I32) {
          int32_t v32 = static_cast<int32_t>(v);
          std::memcpy(&slot, &v32, 4);
        } else {
          std::memcpy(&slot, &v, 8);
        }
        break;
      }
      case DType::I1: {
        // The ABI widens i1 to a 32-bit 0 or 1; integers 0 and 1 pass too.
        int64_t v;
        if (a.kind == ArgValue::Kind::Bool)
          v = a.b;
        else if (a.kind == ArgValue::Kind::SignedInt ||
                 a.kind == ArgValue::Kind::UnsignedInt) {
          if (!intValue(a, 0, 1, v)) [[unlikely]]
            return rangeError(kernel, i, a);
        } else [[unlikely]] {
          return mismatch(kernel, i, a);
        }
        slot = static_cast<uint64_t>(v);
        break;
      }
      case DType::F32:
      case DType::F16:
      case DType::BF16: {
        if (a.kind != ArgValue::Kind::Float) [[unlikely]]
          return mismatch(kernel, i, a);
        float f = static_cast<float>(a.f);
        if (p.type == DType::F32) {
          if (std::isinf(f) && std::isfinite(a.f)) [[unlikely]]
            return rangeError(kernel, i, a);
          std::memcpy(&slot, &f, 4);
        } else if (p.type == DType::F16) {
          Half h = Half::fromFloat(f);
          if ((h.bits & 0x7fff) == 0x7c00 && std::isfinite(a.f)) [[unlikely]]
            return rangeError(kernel, i, a);
          slot = h.bits;
        } else {
          BFloat16 b = BFloat16::fromFloat(f);
          if ((b.bits & 0x7fff) == 0x7f80 && std::isfinite(a.f)) [[unlikely]]
            return rangeError(kernel, i, a);
          slot = b.bits;
        }
        break;
      }
      default: // parseMetadata admits no other scalar types
        return mismatch(kernel, i, a);
      }
    }
    slots[i] = slot;
    pointers[i] = &slots[i];
  }
  return Status();
}

Status checkGrid(const KernelMetadata &kernel, const Grid &grid) {
  if (grid.x >= 1 && grid.y >= 1 && grid.z >= 1 && grid.x <= INT32_MAX &&
      grid.y <= 65535 && grid.z <= 65535 &&
      grid.x % kernel.numCtas == 0) [[likely]]
    return Status();
  std::string shape = "(" + std::to_string(grid.x) + ", " +
                      std::to_string(grid.y) + ", " + std::to_string(grid.z) +
                      ")";
  std::string prefix = "kernel '" + kernel.name + "': grid " + shape;
  if (grid.x < 1 || grid.y < 1 || grid.z < 1)
    return Status::error(prefix +
                         " is empty: x, y and z must each be at least 1");
  if (grid.x > INT32_MAX)
    return Status::error(prefix + ": x exceeds the CUDA limit 2147483647");
  if (grid.y > 65535 || grid.z > 65535)
    return Status::error(prefix + ": " + (grid.y > 65535 ? "y" : "z") +
                         " exceeds the CUDA limit 65535");
  return Status::error(prefix + ": x must be a multiple of " +
                       std::to_string(kernel.numCtas) +
                       ": the kernel's programs run in clusters of " +
                       std::to_string(kernel.numCtas) +
                       " along x (num_ctas)");
}

Expected<int64_t> evaluateParamRule(const KernelMetadata &kernel, size_t index,
                                    const grid::Expr &rule,
                                    const std::string &what,
                                    const ArgValue *args, size_t count) {
  // A launch with DLPack tensors gets here per tensor: no heap for the
  // usual few parameters.
  int64_t inlineValues[kInlineParams] = {};
  std::vector<int64_t> heap;
  int64_t *values = inlineValues;
  if (count > kInlineParams) {
    heap.resize(count);
    values = heap.data();
  }
  for (int i : rule.params()) {
    const ArgValue &a = args[i];
    if (!ruleValue(a, values[i]))
      return paramError(kernel, index,
                        "its " + what + " \"" + rule.text() + "\" reads '" +
                            kernel.params[i].name +
                            "' as an integer, but got " + describeArg(a));
  }
  auto v = rule.evaluate(std::span<const int64_t>(values, count));
  if (!v.ok())
    return paramError(kernel, index, what + ": " + v.message());
  return *v;
}

Status checkShape(const KernelMetadata &kernel, size_t index,
                  const int64_t *sizes, int rank, const ArgValue *args,
                  size_t count) {
  const ParamInfo &p = kernel.params[index];
  if (p.shape.empty())
    return Status();
  auto shapeText = [&] {
    std::string s = "[";
    for (size_t d = 0; d < p.shape.size(); ++d)
      s += (d ? ", \"" : "\"") + p.shape[d].text() + "\"";
    return s + "]";
  };
  if (size_t(rank) != p.shape.size())
    return paramError(kernel, index,
                      "the tensor has " + std::to_string(rank) +
                          " dimensions but the kernel's shape " + shapeText() +
                          " has " + std::to_string(p.shape.size()));
  for (int d = 0; d < rank; ++d) {
    Expected<int64_t> want =
        evaluateParamRule(kernel, index, p.shape[d],
                          "size " + std::to_string(d), args, count);
    if (!want.ok())
      return want.status();
    if (sizes[d] != *want)
      return paramError(kernel, index,
                        "shape[" + std::to_string(d) + "] is " +
                            std::to_string(sizes[d]) + " but the kernel's "
                            "shape " + shapeText() + " says " +
                            std::to_string(*want));
  }
  return Status();
}

Status checkSources(const KernelMetadata &kernel, size_t index,
                    const int64_t *sizes, const int64_t *strides, int rank,
                    const ArgValue *args, size_t count) {
  for (size_t j = 0; j < kernel.params.size() && j < count; ++j) {
    const std::optional<grid::Source> &from = kernel.params[j].from;
    // A quotient is checked with its numerator's tensor.
    if (!from || from->param != int(index)) [[likely]]
      continue;
    int64_t given;
    if (!ruleValue(args[j], given))
      continue; // not an integer: packArgs' error for parameter j
    // A quotient's divisor comes from this tensor or from another
    // argument that carries its sizes (a descriptor, a DLPack tensor); a
    // plain address does not, and then the quotient cannot be checked, as
    // a source of a plain address is not.
    TensorSizes here{sizes, strides, rank};
    std::optional<TensorSizes> den;
    if (from->divisor) {
      size_t d = size_t(from->divisor->param);
      den = d == index  ? std::optional(here)
            : d < count ? argSizes(args[d])
                        : std::nullopt;
      if (!den)
        continue;
    }
    Expected<int64_t> want =
        sourceValue(kernel, j, here, den ? &*den : nullptr);
    if (!want.ok())
      return want.status();
    if (given != *want)
      return paramError(kernel, j,
                        "is " + std::to_string(given) + " but its tile.from \"" +
                            from->text + "\" is " + std::to_string(*want) +
                            (from->divisor ? " for the tensors given"
                                           : " for the tensor given"));
  }
  return Status();
}

Expected<Grid> ruleGrid(const KernelMetadata &kernel, const ArgValue *args,
                        size_t count) {
  if (kernel.grid.empty())
    return Status::error("kernel '" + kernel.name +
                         "' declares no grid rule (tile.grid): give the "
                         "grid to the launch");
  if (count != kernel.params.size()) {
    // packArgs words the count error as every launch does.
    std::vector<uint64_t> slots(count + 1);
    std::vector<void *> pointers(count + 1);
    return packArgs(kernel, args, count, slots.data(), pointers.data());
  }
  // Only the integer parameters a rule names are read; a kernel has at most
  // a few hundred parameters (4 KiB of them), so a stack array would do,
  // but the rule path is not the hot one.
  int64_t inlineValues[kInlineParams] = {};
  std::vector<int64_t> heapValues;
  int64_t *values = inlineValues;
  if (count > kInlineParams) {
    heapValues.resize(count);
    values = heapValues.data();
  }
  for (const grid::Expr &e : kernel.grid.dims)
    for (int i : e.params()) {
      const ArgValue &a = args[i];
      if (!ruleValue(a, values[i])) [[unlikely]]
        return paramError(kernel, i,
                          "the grid rule " + kernel.grid.text() +
                              " reads it as an integer, but got " +
                              describeArg(a));
    }
  int64_t dims[3] = {1, 1, 1};
  static const char *axes[] = {"x", "y", "z"};
  for (size_t d = 0; d < kernel.grid.dims.size(); ++d) {
    auto v = kernel.grid.dims[d].evaluate(
        std::span<const int64_t>(values, count));
    if (!v.ok())
      return v.status().withContext("kernel '" + kernel.name +
                                    "': grid rule " + axes[d]);
    dims[d] = *v;
  }
  return Grid(dims[0], dims[1], dims[2]);
}

namespace {

/// Checks a descriptor argument as the module's encoder would before
/// encoding it, and encodes nothing (checkLaunch has no driver).
class CheckingEncoder final : public TensorMapEncoder {
public:
  Status encode(const KernelMetadata &kernel, size_t index,
                const TensorDescArg &arg, TensorMapBytes &) override {
    TensorMapRequest request;
    return checkTensorDesc(kernel, index, arg, request);
  }
};

} // namespace

Status checkLaunch(const KernelMetadata &kernel, const Grid *grid,
                   const ArgValue *args, size_t count) {
  Grid programs;
  if (grid) {
    programs = *grid;
  } else {
    Expected<Grid> rule = ruleGrid(kernel, args, count);
    if (!rule.ok())
      return rule.status();
    if (rule->x == 0 || rule->y == 0 || rule->z == 0)
      return Status();
    programs = *rule;
  }
  // Not a launch's hot path (tracing): the heap is fine.
  CheckingEncoder encoder;
  std::vector<TensorMapBytes> maps(kernel.tensorDescCount() + 1);
  TensorMapSlots slots{&encoder, maps.data()};
  std::vector<uint64_t> values(count + 1);
  std::vector<void *> pointers(count + 1);
  TILEC_RETURN_IF_ERROR(packArgs(kernel, args, count, values.data(),
                                 pointers.data(), &slots));
  return checkGrid(kernel, programs);
}

} // namespace tilec::runtime
