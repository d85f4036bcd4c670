//===- HostArgs.cpp - kernel arguments from command-line specs ------------===//
//
// A buffer spec is a comma-separated list of key[=value] items (n=, in=,
// rand=, min=, max=, fill=, iota, save=, out=, print, expect=, atol=,
// rtol=); a buffer with no source is an output: it starts as kPoisonByte
// bytes. Random values come from a seeded mt19937_64 mapped to [min, max) by
// hand, so they are the same on every platform and in every tool. Every
// malformed spec is an error naming the argument and the spec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/HostArgs.h"
#include "tilec/Support/FloatFormats.h"
#include "tilec/Support/Npy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

using namespace tilec;

/// Drops blanks at both ends. (Not strchr: it finds a NUL byte too, in the
/// terminator, so "n=\0 7" read as n=7; the fuzzer found it.)
static std::string_view trim(std::string_view s) {
  constexpr std::string_view blanks = " \t\n\r";
  while (!s.empty() && blanks.find(s.front()) != std::string_view::npos)
    s.remove_prefix(1);
  while (!s.empty() && blanks.find(s.back()) != std::string_view::npos)
    s.remove_suffix(1);
  return s;
}

static std::string formatDouble(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  return buffer;
}

static std::string formatShort(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

/// Parses a number as strtod does (1e-5, 0x1p3, inf, nan), all of `text`.
static bool parseFloat(std::string_view text, double &value) {
  std::string s(trim(text));
  if (s.empty())
    return false;
  char *end = nullptr;
  value = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

/// Parses an integer: decimal, 0x hex, 0b binary, 0o or 0-prefixed octal,
/// optionally negative, or true/false; false if it does not fit in int64.
static bool parseInt(std::string_view text, int64_t &value) {
  text = trim(text);
  if (text == "true" || text == "false") {
    value = text == "true";
    return true;
  }
  bool negative = !text.empty() && text.front() == '-';
  if (negative)
    text.remove_prefix(1);
  unsigned radix = 10;
  if (text.size() > 1 && text[0] == '0') {
    char p = char(text[1] | 0x20);
    radix = p == 'x' ? 16 : p == 'b' ? 2 : 8;
    text.remove_prefix(p == 'x' || p == 'b' || p == 'o' ? 2 : 1);
  }
  if (text.empty())
    return false;
  uint64_t v = 0;
  for (char c : text) {
    unsigned digit = c >= '0' && c <= '9' ? unsigned(c - '0')
                     : (c | 0x20) >= 'a' && (c | 0x20) <= 'z'
                         ? unsigned((c | 0x20) - 'a' + 10)
                         : 99;
    if (digit >= radix ||
        v > (std::numeric_limits<uint64_t>::max() - digit) / radix)
      return false;
    v = v * radix + digit;
  }
  uint64_t limit = uint64_t(std::numeric_limits<int64_t>::max()) + negative;
  if (v > limit)
    return false;
  value = negative ? int64_t(0 - v) : int64_t(v);
  return true;
}

/// The range of an integer dtype's values (i1: 0 and 1).
static std::pair<int64_t, int64_t> intRange(DType dtype) {
  if (dtype == DType::I1)
    return {0, 1};
  unsigned bits = bitWidth(dtype);
  if (bits >= 64)
    return {std::numeric_limits<int64_t>::min(),
            std::numeric_limits<int64_t>::max()};
  return {-(int64_t(1) << (bits - 1)), (int64_t(1) << (bits - 1)) - 1};
}

static void storeElement(uint8_t *addr, DType dtype, double value) {
  if (isFloat(dtype))
    storeFloatElement(addr, dtype, value);
  else
    storeIntElement(addr, dtype, int64_t(value));
}

std::string tilec::formatElement(const uint8_t *addr, DType dtype) {
  return isFloat(dtype) ? formatDouble(loadFloatElement(addr, dtype))
                        : std::to_string(loadIntElement(addr, dtype));
}

namespace {
/// Builds the messages of one spec.
struct SpecErrors {
  std::string_view name, spec;
  Status operator()(const std::string &why) const {
    return Status::error("argument %" + std::string(name) + " ('" +
                         std::string(spec) + "'): " + why);
  }
};
} // namespace

static Expected<HostArg> parseScalar(HostArg arg, const SpecErrors &error) {
  std::string type(dtypeName(arg.dtype));
  if (isFloat(arg.dtype)) {
    if (!parseFloat(arg.spec, arg.floatValue))
      return error("expected a scalar of type " + type);
    if (std::isfinite(arg.floatValue) &&
        std::isinf(roundToFormat(arg.floatValue, formatOf(arg.dtype))))
      return error("value " + std::string(trim(arg.spec)) + " overflows " +
                   type);
    return arg;
  }
  if (!parseInt(arg.spec, arg.intValue))
    return error("expected a scalar of type " + type);
  auto [lo, hi] = intRange(arg.dtype);
  if (arg.intValue < lo || arg.intValue > hi)
    return error("value " + std::to_string(arg.intValue) + " does not fit in " +
                 type);
  return arg;
}

Expected<HostArg> tilec::parseHostArg(std::string_view spec,
                                    const HostParam &param,
                                    uint64_t maxBufferBytes) {
  HostArg arg;
  arg.spec = std::string(spec);
  arg.name = param.name;
  arg.dtype = param.dtype;
  SpecErrors error{param.name, spec};
  if (!param.isPointer)
    return parseScalar(std::move(arg), error);

  arg.isBuffer = true;
  DType dtype = param.dtype;
  std::string type(dtypeName(dtype));
  std::optional<int64_t> count, seed;
  std::optional<double> fill, lo, hi;
  bool iota = false;
  std::vector<std::string> seen;
  for (std::string_view rest = spec;;) {
    size_t comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    size_t eq = item.find('=');
    bool hasValue = eq != std::string_view::npos;
    std::string key(trim(item.substr(0, eq)));
    std::string_view value = hasValue ? trim(item.substr(eq + 1)) : "";
    auto needInt = [&](std::optional<int64_t> &out) -> Status {
      int64_t v;
      if (!hasValue || !parseInt(value, v))
        return error(key + " needs an integer value");
      out = v;
      return Status();
    };
    auto needFloat = [&](std::optional<double> &out) -> Status {
      double v;
      if (!hasValue || !parseFloat(value, v))
        return error(key + " needs a number");
      out = v;
      return Status();
    };
    auto needPath = [&](std::string &out) -> Status {
      if (!hasValue || value.empty())
        return error(key + " needs a file name");
      out = std::string(value);
      return Status();
    };
    Status status;
    if (key == "n")
      status = needInt(count);
    else if (key == "rand")
      status = needInt(seed);
    else if (key == "min")
      status = needFloat(lo);
    else if (key == "max")
      status = needFloat(hi);
    else if (key == "fill")
      status = needFloat(fill);
    else if (key == "iota" && !hasValue)
      iota = true;
    else if (key == "in")
      status = needPath(arg.inPath);
    else if (key == "save")
      status = needPath(arg.savePath);
    else if (key == "out")
      status = needPath(arg.outPath);
    else if (key == "print" && !hasValue)
      arg.print = true;
    else if (key == "expect")
      status = needPath(arg.expectPath);
    else if (key == "atol")
      status = needFloat(arg.atol);
    else if (key == "rtol")
      status = needFloat(arg.rtol);
    else
      return error("unknown item '" + std::string(item) +
                   "' (expected n=, in=, rand=, min=, max=, fill=, iota, "
                   "save=, out=, print, expect=, atol=, rtol=, or a scalar "
                   "for a scalar parameter)");
    if (!status.ok())
      return status;
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      return error(key + " is given twice");
    seen.push_back(key);
    if (comma == std::string_view::npos)
      break;
    rest = rest.substr(comma + 1);
  }

  int sources =
      !arg.inPath.empty() + seed.has_value() + fill.has_value() + int(iota);
  if (sources > 1)
    return error("give at most one of in=, rand=, fill=, iota");
  if ((lo || hi) && !seed)
    return error("min= and max= need rand=");
  if ((arg.atol || arg.rtol) && arg.expectPath.empty())
    return error("atol= and rtol= need expect=");
  if ((arg.atol && !(*arg.atol >= 0)) || (arg.rtol && !(*arg.rtol >= 0)))
    return error("atol and rtol must not be negative");
  if (count && *count < 0)
    return error("n must not be negative");
  size_t size = dtypeSize(dtype);
  if (count && uint64_t(*count) > maxBufferBytes / size) {
    std::string limit = maxBufferBytes >= (uint64_t(1) << 30)
                            ? std::to_string(maxBufferBytes >> 30) + " GiB"
                            : std::to_string(maxBufferBytes) + " bytes";
    return error("n=" + std::to_string(*count) + " is too large (at most " +
                 limit + " per buffer)");
  }

  if (!arg.inPath.empty()) {
    Expected<std::vector<uint8_t>> data = readElements(arg.inPath, dtype);
    if (!data.ok())
      return data.status();
    arg.data = std::move(*data);
    if (count && uint64_t(*count) != arg.count())
      return error("n=" + std::to_string(*count) + " but the file holds " +
                   std::to_string(arg.count()) + " elements");
    return arg;
  }
  if (!count)
    return error("a buffer needs n=COUNT or in=FILE");
  arg.data.assign(size_t(*count) * size, 0);
  if (fill) {
    if (!isFloat(dtype)) {
      auto [min, max] = intRange(dtype);
      if (*fill != std::trunc(*fill) || *fill < double(min) ||
          *fill > double(max))
        return error("fill=" + formatShort(*fill) + " is not a value of " +
                     type);
    }
    for (int64_t i = 0; i < *count; ++i)
      storeElement(arg.data.data() + i * size, dtype, *fill);
  } else if (iota) {
    if (!isFloat(dtype) && *count > 0 && *count - 1 > intRange(dtype).second)
      return error("iota of " + std::to_string(*count) +
                   " elements does not fit in " + type);
    for (int64_t i = 0; i < *count; ++i)
      storeElement(arg.data.data() + i * size, dtype, double(i));
  } else if (seed) {
    bool floating = isFloat(dtype);
    double a = lo.value_or(floating ? -1.0 : -100.0);
    double b = hi.value_or(floating ? 1.0 : 100.0);
    if (dtype == DType::I1) {
      a = lo.value_or(0);
      b = hi.value_or(1);
    }
    if (!(a <= b))
      return error("min must not exceed max");
    if (!floating) {
      auto [min, max] = intRange(dtype);
      if (a < double(min) || b > double(max))
        return error("rand range [" + formatShort(a) + ", " + formatShort(b) +
                     "] exceeds " + type);
    } else if (!std::isfinite(b - a)) {
      return error("rand range must be finite");
    }
    std::mt19937_64 rng(*seed);
    for (int64_t i = 0; i < *count; ++i) {
      double u = double(rng() >> 11) * 0x1.0p-53; // [0, 1)
      double v = floating ? a + u * (b - a)
                          : std::floor(a + u * (std::floor(b) - a + 1));
      storeElement(arg.data.data() + i * size, dtype, v);
    }
  } else {
    arg.isOutput = true;
    std::fill(arg.data.begin(), arg.data.end(), kPoisonByte);
  }
  return arg;
}

Expected<std::vector<uint8_t>> tilec::readElements(const std::string &path,
                                                 DType dtype) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0) {
    Expected<NpyArray> array = readNpy(path, dtype);
    if (!array.ok())
      return array.status();
    return std::move(array->data);
  }
  Expected<std::string> bytes = readFileBytes(path);
  if (!bytes.ok())
    return bytes.status();
  if (bytes->size() % dtypeSize(dtype))
    return Status::error("'" + path + "' holds " +
                         std::to_string(bytes->size()) +
                         " bytes, not a whole number of " +
                         std::string(dtypeName(dtype)) + " elements");
  return std::vector<uint8_t>(bytes->begin(), bytes->end());
}

/// Writes `arg`'s buffer to `path`: .npy, else raw bytes.
static Status writeBuffer(const HostArg &arg, const std::string &path) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0)
    return writeNpy(path, arg.dtype, arg.data);
  return writeFileBytes(
      path, std::string_view(reinterpret_cast<const char *>(arg.data.data()),
                             arg.data.size()));
}

Status tilec::saveHostInputs(const std::vector<HostArg> &args) {
  for (const HostArg &arg : args)
    if (arg.isBuffer && !arg.savePath.empty())
      if (Status s = writeBuffer(arg, arg.savePath); !s.ok())
        return s;
  return Status();
}

Status tilec::writeHostOutputs(const std::vector<HostArg> &args,
                               std::string &printed) {
  for (const HostArg &arg : args) {
    if (!arg.isBuffer)
      continue;
    if (arg.print) {
      size_t size = dtypeSize(arg.dtype);
      for (size_t i = 0, n = arg.count(); i < n; ++i)
        printed += "%" + arg.name + "[" + std::to_string(i) + "] = " +
                   formatElement(arg.data.data() + i * size, arg.dtype) + "\n";
    }
    if (!arg.outPath.empty())
      if (Status s = writeBuffer(arg, arg.outPath); !s.ok())
        return s;
  }
  return Status();
}

std::pair<double, double> tilec::defaultTolerance(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return {1e-12, 1e-10};
  case DType::F32:
    return {1e-6, 1e-5};
  case DType::F16:
    return {1e-3, 2e-3};
  case DType::BF16:
    return {1e-2, 1.6e-2};
  case DType::F8E4M3FN:
    return {0.0625, 0.125};
  case DType::F8E5M2:
    return {0.125, 0.25};
  default:
    return {0, 0};
  }
}

Comparison tilec::compareElements(DType dtype, std::span<const uint8_t> got,
                                  std::span<const uint8_t> want, double atol,
                                  double rtol, size_t keep) {
  Comparison c;
  c.atol = atol;
  c.rtol = rtol;
  size_t size = dtypeSize(dtype);
  c.count = std::min(got.size(), want.size()) / size;
  bool floating = isFloat(dtype);
  auto isPoison = [&](const uint8_t *p) {
    return std::all_of(p, p + size, [](uint8_t b) { return b == kPoisonByte; });
  };
  double err2 = 0, ref2 = 0;
  for (size_t i = 0; i < c.count; ++i) {
    const uint8_t *g = got.data() + i * size, *w = want.data() + i * size;
    bool same;
    double error = 0, reference = 0;
    bool finite = true;
    if (floating) {
      double x = loadFloatElement(g, dtype), y = loadFloatElement(w, dtype);
      error = std::fabs(x - y);
      reference = std::fabs(y);
      finite = std::isfinite(x) && std::isfinite(y);
      // An infinity matches only itself (rtol * inf would accept anything).
      same = (std::isnan(x) && std::isnan(y)) || x == y ||
             (finite && error <= atol + rtol * reference);
    } else {
      int64_t x = loadIntElement(g, dtype), y = loadIntElement(w, dtype);
      // The distance in uint64, exact where a double difference would not
      // be (past 2^53).
      uint64_t distance =
          x > y ? uint64_t(x) - uint64_t(y) : uint64_t(y) - uint64_t(x);
      error = double(distance);
      reference = std::fabs(double(y));
      double bound = std::floor(atol + rtol * reference);
      same = x == y || bound >= 0x1p64 || distance <= uint64_t(bound);
    }
    if (finite) {
      if (error > c.maxAbsError) {
        c.maxAbsError = error;
        c.maxAbsErrorAt = i;
      }
      err2 += error * error;
      ref2 += reference * reference;
    }
    if (same)
      continue;
    ++c.mismatches;
    if (isPoison(g) && !isPoison(w))
      ++c.unwritten;
    if (c.firstMismatches.size() < keep)
      c.firstMismatches.push_back(i);
  }
  c.normRelError = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  return c;
}

Expected<std::vector<uint8_t>> tilec::readExpected(const HostArg &arg) {
  Expected<std::vector<uint8_t>> want = readElements(arg.expectPath, arg.dtype);
  if (!want.ok())
    return want.status();
  size_t size = dtypeSize(arg.dtype);
  if (want->size() != arg.data.size())
    return Status::error("%" + arg.name + " has " +
                         std::to_string(arg.count()) + " elements but '" +
                         arg.expectPath + "' holds " +
                         std::to_string(want->size() / size));
  return want;
}

Status tilec::checkHostExpectations(const std::vector<HostArg> &args) {
  for (const HostArg &arg : args) {
    if (!arg.isBuffer || arg.expectPath.empty())
      continue;
    Expected<std::vector<uint8_t>> want = readExpected(arg);
    if (!want.ok())
      return want.status();
    auto [defaultAtol, defaultRtol] = defaultTolerance(arg.dtype);
    Comparison c = compareElements(arg.dtype, arg.data, *want,
                                   arg.atol.value_or(defaultAtol),
                                   arg.rtol.value_or(defaultRtol), /*keep=*/1);
    if (c.ok())
      continue;
    size_t first = c.firstMismatches.front(), size = dtypeSize(arg.dtype);
    return Status::error(
        "%" + arg.name + " differs from '" + arg.expectPath + "' in " +
        std::to_string(c.mismatches) + " of " + std::to_string(c.count) +
        " elements (atol " + formatShort(c.atol) + ", rtol " +
        formatShort(c.rtol) + "); the first is [" + std::to_string(first) +
        "]: " + formatElement(arg.data.data() + first * size, arg.dtype) +
        ", expected " + formatElement(want->data() + first * size, arg.dtype));
  }
  return Status();
}

namespace {
/// A whole number of at most 18 digits.
bool parseDimension(const std::string &text, int64_t &value) {
  if (text.empty() || text.size() > 18)
    return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    value = value * 10 + (c - '0');
  }
  return true;
}

/// "200x64" -> {200, 64}; false unless every dimension is a whole number.
bool parseDims(std::string_view text, std::vector<int64_t> &dims) {
  dims.clear();
  size_t start = 0;
  while (true) {
    size_t x = text.find('x', start);
    int64_t v = 0;
    if (!parseDimension(std::string(text.substr(start, x - start)), v))
      return false;
    dims.push_back(v);
    if (x == std::string_view::npos)
      return true;
    start = x + 1;
  }
}

} // namespace

std::string tilec::splitTensorDescSpec(const std::string &spec,
                                       const std::string &name,
                                       std::string &rest, TensorDescSpec &d) {
  auto error = [&](const std::string &what) {
    return "argument %" + name + " ('" + spec + "'): " + what;
  };
  bool hasSize = false, hasShape = false;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = std::min(spec.find(',', start), spec.size());
    std::string item = spec.substr(start, comma - start);
    start = comma + 1;
    if (item.rfind("shape=", 0) == 0 || item.rfind("strides=", 0) == 0) {
      bool isShape = item[1] == 'h';
      std::string value = item.substr(item.find('=') + 1);
      if (!parseDims(value, isShape ? d.shape : d.strides))
        return error(std::string(isShape ? "shape" : "strides") +
                     "= expects dimensions like 200x64 (elements, outermost "
                     "first), got '" +
                     value + "'");
      hasShape |= isShape;
      continue;
    }
    hasSize |= item.rfind("n=", 0) == 0 || item.rfind("in=", 0) == 0;
    rest += (rest.empty() ? "" : ",") + item;
  }
  if (!hasShape)
    return error("a tensor descriptor needs shape=D0xD1... (elements, "
                 "outermost first) beside its buffer");
  if (!hasSize) {
    // The last element the tensor reaches, plus one.
    uint64_t span = 1;
    std::vector<int64_t> strides = d.strides;
    if (strides.empty()) {
      strides.assign(d.shape.size(), 1);
      for (size_t i = d.shape.size(); i-- > 1;)
        strides[i - 1] = strides[i] * d.shape[i];
    }
    for (size_t i = 0; i < d.shape.size() && i < strides.size(); ++i)
      span +=
          uint64_t(std::max<int64_t>(d.shape[i] - 1, 0)) * uint64_t(strides[i]);
    rest += (rest.empty() ? "" : ",") + ("n=" + std::to_string(span));
  }
  return "";
}

bool tilec::parseGridText(std::string_view text, int64_t dims[3]) {
  dims[0] = dims[1] = dims[2] = 1;
  size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    size_t comma = text.find(',', start);
    std::string_view word = text.substr(
        start, comma == std::string_view::npos ? comma : comma - start);
    if (word.empty() || word.size() > 18)
      return false;
    int64_t v = 0;
    for (char c : word) {
      if (c < '0' || c > '9')
        return false;
      v = v * 10 + (c - '0');
    }
    dims[i] = v;
    if (comma == std::string_view::npos)
      return true;
    start = comma + 1;
  }
  return false; // a fourth dim
}
