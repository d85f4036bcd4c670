//===- HostArgs.cpp - kernel arguments from command-line specs ------------===//
//
// A buffer spec is a comma-separated list of key[=value] items (n=, in=,
// rand=, min=, max=, fill=, iota, out=, print); a buffer with no source is
// an output: it starts filled with 0xff bytes (NaN for floats, so that
// unwritten elements stand out in the result) and reads of unwritten
// elements are reported. Random values come from a seeded mt19937_64 mapped
// to [min, max) by hand, so they are the same on every platform.
//
//===----------------------------------------------------------------------===//

#include "tilec/interp/HostArgs.h"
#include "FloatFormats.h"
#include "Memory.h"

#include "dialect/TileDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <random>

using namespace tilec;
using namespace tilec::interp;
using llvm::createStringError;
using llvm::StringRef;

Arg HostArg::toArg() {
  Arg arg = !isBuffer  ? (isFloat(dtype) ? Arg::scalar(dtype, floatValue)
                                              : Arg::scalarInt(dtype, intValue))
            : isOutput ? Arg::output(data.data(), count(), dtype)
                       : Arg::buffer(data.data(), count(), dtype);
  if (!name.empty())
    arg.named(name);
  return arg;
}

static llvm::Error specError(StringRef name, StringRef spec,
                             const llvm::Twine &why) {
  return createStringError("argument %" + name + " ('" + spec + "'): " + why);
}

static bool parseFloat(StringRef text, double &value) {
  std::string s = text.trim().str();
  if (s.empty())
    return false;
  char *end = nullptr;
  value = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

static bool parseInt(StringRef text, int64_t &value) {
  text = text.trim();
  if (text == "true" || text == "false") {
    value = text == "true";
    return true;
  }
  return !text.getAsInteger(0, value);
}

/// Writes element `i` of `data` from a double (floats) or an int.
static void setElement(HostArg &arg, size_t i, double value) {
  uint8_t *addr = arg.data.data() + i * dtypeSize(arg.dtype);
  if (isFloat(arg.dtype))
    storeFloat(addr, arg.dtype, value);
  else
    storeInt(addr, arg.dtype, int64_t(value));
}

/// The elements of a .npy or raw file of `dtype`.
static llvm::Expected<std::vector<uint8_t>>
readElements(StringRef path, DType dtype, StringRef name, StringRef spec) {
  if (path.ends_with(".npy")) {
    llvm::Expected<NpyArray> array = readNpy(path, dtype);
    if (!array)
      return array.takeError();
    return std::move(array->data);
  }
  auto file = llvm::MemoryBuffer::getFile(path, false, false);
  if (!file)
    return createStringError("cannot read '" + path +
                             "': " + file.getError().message());
  StringRef bytes = (*file)->getBuffer();
  if (bytes.size() % dtypeSize(dtype))
    return specError(name, spec,
                     "the file's " + llvm::Twine(bytes.size()) +
                         " bytes are not a whole number of " +
                         dtypeName(dtype) + " elements");
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

llvm::Expected<HostArg> tilec::parseHostArg(StringRef spec, mlir::Type param,
                                            StringRef name) {
  HostArg arg;
  arg.spec = spec.str();
  arg.name = name.str();
  auto ptr = dyn_cast<mlir::tile::PointerType>(param);
  if (!ptr) {
    std::optional<DType> dtype = dtypeOf(param);
    if (!dtype)
      return specError(name, spec, "parameters of this type are not supported");
    arg.dtype = *dtype;
    bool ok = isFloat(*dtype) ? parseFloat(spec, arg.floatValue)
                                   : parseInt(spec, arg.intValue);
    if (!ok) {
      std::string type;
      llvm::raw_string_ostream os(type);
      os << param;
      return specError(name, spec, "expected a scalar of type " + type);
    }
    return arg;
  }

  std::optional<DType> dtype = dtypeOf(ptr.getPointeeType());
  if (!dtype)
    return specError(name, spec, "buffers of this type are not supported");
  arg.isBuffer = true;
  arg.dtype = *dtype;
  std::optional<int64_t> count, seed, iota;
  std::optional<double> fill, lo, hi;
  std::string inPath;
  for (StringRef item : llvm::split(spec, ',')) {
    auto [key, value] = item.trim().split('=');
    bool hasValue = item.contains('=');
    auto needInt = [&](std::optional<int64_t> &out) -> llvm::Error {
      int64_t v;
      if (!hasValue || !parseInt(value, v))
        return specError(name, spec, key + " needs an integer value");
      out = v;
      return llvm::Error::success();
    };
    auto needFloat = [&](std::optional<double> &out) -> llvm::Error {
      double v;
      if (!hasValue || !parseFloat(value, v))
        return specError(name, spec, key + " needs a number");
      out = v;
      return llvm::Error::success();
    };
    llvm::Error err = llvm::Error::success();
    if (key == "n")
      err = needInt(count);
    else if (key == "rand")
      err = needInt(seed);
    else if (key == "min")
      err = needFloat(lo);
    else if (key == "max")
      err = needFloat(hi);
    else if (key == "fill")
      err = needFloat(fill);
    else if (key == "iota")
      iota = 0;
    else if (key == "in" && hasValue && !value.empty())
      inPath = value.str();
    else if (key == "out" && hasValue && !value.empty())
      arg.outPath = value.str();
    else if (key == "print" && !hasValue)
      arg.print = true;
    else if (key == "expect" && hasValue && !value.empty())
      arg.expectPath = value.str();
    else if (key == "atol")
      err = needFloat(arg.atol);
    else if (key == "rtol")
      err = needFloat(arg.rtol);
    else
      return specError(name, spec,
                       "unknown item '" + item +
                           "' (expected n=, in=, rand=, min=, max=, fill=, "
                           "iota, out=, print, expect=, atol=, rtol=, or a "
                           "scalar for a scalar parameter)");
    if (err)
      return err;
  }
  int sources =
      !inPath.empty() + seed.has_value() + fill.has_value() + iota.has_value();
  if (sources > 1)
    return specError(name, spec, "give at most one of in=, rand=, fill=, iota");
  if (count && *count < 0)
    return specError(name, spec, "n must not be negative");
  size_t size = dtypeSize(*dtype);

  if (!inPath.empty()) {
    llvm::Expected<std::vector<uint8_t>> data =
        readElements(inPath, *dtype, name, spec);
    if (!data)
      return data.takeError();
    arg.data = std::move(*data);
    if (count && uint64_t(*count) != arg.count())
      return specError(name, spec,
                       "n=" + llvm::Twine(*count) + " but the file holds " +
                           llvm::Twine(arg.count()) + " elements");
    return arg;
  }
  if (!count)
    return specError(name, spec, "a buffer needs n=COUNT or in=FILE");
  arg.data.assign(*count * size, 0);
  if (fill) {
    for (int64_t i = 0; i < *count; ++i)
      setElement(arg, i, *fill);
  } else if (iota) {
    for (int64_t i = 0; i < *count; ++i)
      setElement(arg, i, double(i));
  } else if (seed) {
    bool floating = isFloat(*dtype);
    double a = lo.value_or(floating ? -1.0 : -100.0);
    double b = hi.value_or(floating ? 1.0 : 100.0);
    if (*dtype == DType::I1) {
      a = lo.value_or(0);
      b = hi.value_or(1);
    }
    if (!(a <= b))
      return specError(name, spec, "min must not exceed max");
    std::mt19937_64 rng(*seed);
    for (int64_t i = 0; i < *count; ++i) {
      double u = double(rng() >> 11) * 0x1.0p-53; // [0, 1)
      double v = floating ? a + u * (b - a)
                         : std::floor(a + u * (std::floor(b) - a + 1));
      setElement(arg, i, v);
    }
  } else {
    arg.isOutput = true;
    std::fill(arg.data.begin(), arg.data.end(), 0xff);
  }
  return arg;
}

llvm::Error tilec::writeHostOutputs(std::vector<HostArg> &args,
                                    llvm::raw_ostream &os) {
  for (HostArg &arg : args) {
    if (!arg.isBuffer)
      continue;
    if (arg.print) {
      size_t size = dtypeSize(arg.dtype);
      for (size_t i = 0, n = arg.count(); i < n; ++i) {
        const uint8_t *addr = arg.data.data() + i * size;
        os << "%" << arg.name << "[" << i << "] = ";
        if (isFloat(arg.dtype))
          os << llvm::format("%.9g", loadFloat(addr, arg.dtype));
        else if (arg.dtype == DType::I1)
          os << (*addr ? 1 : 0);
        else
          os << loadInt(addr, arg.dtype);
        os << "\n";
      }
    }
    if (arg.outPath.empty())
      continue;
    StringRef path(arg.outPath);
    if (path.ends_with(".npy")) {
      if (llvm::Error err = writeNpy(path, arg.dtype, arg.data))
        return err;
      continue;
    }
    std::error_code ec;
    llvm::raw_fd_ostream file(path, ec, llvm::sys::fs::OF_None);
    if (ec)
      return createStringError("cannot write '" + arg.outPath +
                               "': " + ec.message());
    file.write(reinterpret_cast<const char *>(arg.data.data()),
               arg.data.size());
  }
  return llvm::Error::success();
}

/// Default comparison tolerances: a few units in the last place of the
/// dtype, relative, and as much absolute near zero.
static std::pair<double, double> defaultTolerance(DType dtype) {
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

llvm::Error tilec::checkHostExpectations(std::vector<HostArg> &args) {
  for (HostArg &arg : args) {
    if (!arg.isBuffer || arg.expectPath.empty())
      continue;
    llvm::Expected<std::vector<uint8_t>> want =
        readElements(arg.expectPath, arg.dtype, arg.name, arg.spec);
    if (!want)
      return want.takeError();
    size_t size = dtypeSize(arg.dtype), n = arg.count();
    if (want->size() != arg.data.size())
      return createStringError("%" + arg.name + " has " + llvm::Twine(n) +
                               " elements but '" + arg.expectPath + "' holds " +
                               llvm::Twine(want->size() / size));
    auto [defaultAtol, defaultRtol] = defaultTolerance(arg.dtype);
    double atol = arg.atol.value_or(defaultAtol);
    double rtol = arg.rtol.value_or(defaultRtol);
    bool floating = isFloat(arg.dtype);
    auto value = [&](const uint8_t *addr) {
      return floating ? loadFloat(addr, arg.dtype)
                     : double(loadInt(addr, arg.dtype));
    };
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; ++i) {
      double got = value(arg.data.data() + i * size);
      double expected = value(want->data() + i * size);
      bool same =
          (std::isnan(got) && std::isnan(expected)) || got == expected ||
          std::fabs(got - expected) <= atol + rtol * std::fabs(expected);
      if (!same && !bad++)
        first = i;
    }
    if (!bad)
      continue;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "%" << arg.name << " differs from '" << arg.expectPath << "' in "
       << bad << " of " << n << " elements (atol " << llvm::format("%g", atol)
       << ", rtol " << llvm::format("%g", rtol) << "); the first is [" << first
       << "]: " << llvm::format("%.9g", value(arg.data.data() + first * size))
       << ", expected "
       << llvm::format("%.9g", value(want->data() + first * size));
    return createStringError(text);
  }
  return llvm::Error::success();
}
