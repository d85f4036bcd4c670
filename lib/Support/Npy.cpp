//===- Npy.cpp - reading and writing .npy files ---------------------------===//
//
// The .npy format: "\x93NUMPY", a version, a little-endian header length and
// a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape':
// (n,)}, then the raw elements. Only what kernels need is accepted:
// little-endian (or byte-sized) numbers in C order. Every malformed file is
// an error naming the file and what is wrong; sizes are checked for
// overflow, so no header can make the reader trust a short payload.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/Npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace tilec;

std::string_view tilec::npyDescr(DType dtype) {
  switch (dtype) {
  case DType::I1:
    return "|b1";
  case DType::I8:
    return "|i1";
  case DType::I16:
    return "<i2";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::F16:
    return "<f2";
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::BF16:
    return "<u2";
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return "|u1";
  }
  return "";
}

static std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' ||
                        s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// The text of the value of `key` in the header dict (a string's contents,
/// a tuple's contents, or a bare token), or nothing if the key is absent.
static std::optional<std::string_view> dictValue(std::string_view header,
                                                 std::string_view key) {
  for (char quote : {'\'', '"'}) {
    std::string quoted = quote + std::string(key) + quote;
    size_t pos = header.find(quoted);
    if (pos == std::string_view::npos)
      continue;
    std::string_view rest = trim(header.substr(pos + quoted.size()));
    if (rest.empty() || rest.front() != ':')
      return std::nullopt;
    rest = trim(rest.substr(1));
    if (rest.empty())
      return std::string_view();
    if (rest.front() == '(' || rest.front() == '\'' || rest.front() == '"') {
      char close = rest.front() == '(' ? ')' : rest.front();
      size_t end = rest.find(close, 1);
      return rest.substr(1, end == std::string_view::npos ? end : end - 1);
    }
    return trim(rest.substr(0, rest.find_first_of(",}")));
  }
  return std::nullopt;
}

/// Whether two descrs name the same little-endian type: the byte-order
/// mark may be '<' or '=' (x86 is little-endian), and anything for
/// byte-sized types.
static bool sameDescr(std::string_view got, std::string_view want) {
  auto body = [](std::string_view d) {
    return d.size() > 1 && std::strchr("<=|>", d[0]) ? d.substr(1) : d;
  };
  if (got.empty() || body(got) != body(want))
    return false;
  bool byteSized = want[0] == '|';
  return byteSized || got[0] == '<' || got[0] == '=';
}

Expected<NpyArray> tilec::parseNpy(std::string_view bytes, DType expected,
                                 std::string_view path) {
  auto bad = [&](const std::string &why) {
    return Status::error("'" + std::string(path) +
                         "' is not a valid .npy file: " + why);
  };
  if (bytes.substr(0, 6) != "\x93NUMPY")
    return bad("it does not start with the \\x93NUMPY magic");
  if (bytes.size() < 10)
    return bad("truncated header");
  unsigned major = uint8_t(bytes[6]);
  size_t headerLen = 0, start = 0;
  if (major == 1) {
    headerLen = size_t(uint8_t(bytes[8])) | size_t(uint8_t(bytes[9])) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return bad("truncated header");
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
    start = 12;
  } else {
    return bad("unknown format version " + std::to_string(major));
  }
  if (headerLen > bytes.size() - start)
    return bad("truncated header");
  std::string_view header = bytes.substr(start, headerLen);

  std::optional<std::string_view> descr = dictValue(header, "descr");
  if (!descr)
    return bad("the header has no 'descr'");
  if (std::optional<std::string_view> order =
          dictValue(header, "fortran_order")) {
    if (*order == "True")
      return bad("Fortran order is not supported; save a C-order array");
    if (*order != "False")
      return bad("bad 'fortran_order' value '" + std::string(*order) + "'");
  }
  std::string_view want = npyDescr(expected);
  if (!sameDescr(*descr, want))
    return Status::error(
        "'" + std::string(path) + "' holds elements of type '" +
        std::string(*descr) + "', but the parameter needs " +
        std::string(dtypeName(expected)) + " ('" + std::string(want) + "')");

  std::optional<std::string_view> shape = dictValue(header, "shape");
  if (!shape)
    return bad("the header has no 'shape'");
  NpyArray array;
  array.dtype = expected;
  uint64_t count = 1;
  const uint64_t limit = std::numeric_limits<uint64_t>::max() / 16;
  // "(2, 3)", "(n,)" or "()": entries separated by commas, one trailing
  // comma allowed.
  for (std::string_view rest = trim(*shape); !rest.empty();) {
    size_t comma = rest.find(',');
    std::string_view dim = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view()
                                           : trim(rest.substr(comma + 1));
    uint64_t d = 0;
    bool digits = !dim.empty();
    for (char c : dim) {
      if (c < '0' || c > '9' || d > limit / 10) {
        digits = false;
        break;
      }
      d = d * 10 + uint64_t(c - '0');
    }
    if (!digits)
      return bad("bad shape entry '" + std::string(dim) + "'");
    if (d && count > limit / d)
      return bad("the shape (" + std::string(*shape) + ") is too large");
    array.shape.push_back(int64_t(d));
    count *= d;
  }
  std::string_view payload = bytes.substr(start + headerLen);
  uint64_t need = count * dtypeSize(expected);
  if (payload.size() != need)
    return bad("the header promises " + std::to_string(need) +
               " bytes of data, the file holds " +
               std::to_string(payload.size()));
  array.data.assign(payload.begin(), payload.end());
  return array;
}

Expected<NpyArray> tilec::readNpy(const std::string &path, DType expected) {
  Expected<std::string> bytes = readFileBytes(path);
  if (!bytes.ok())
    return bytes.status();
  return parseNpy(*bytes, expected, path);
}

std::string tilec::formatNpy(DType dtype, std::span<const uint8_t> data,
                             std::span<const int64_t> shape) {
  std::string dims;
  if (shape.empty()) {
    dims = std::to_string(data.size() / dtypeSize(dtype)) + ",";
  } else {
    for (size_t i = 0; i < shape.size(); ++i)
      dims += (i ? ", " : "") + std::to_string(shape[i]);
    if (shape.size() == 1)
      dims += ",";
  }
  std::string header = "{'descr': '" + std::string(npyDescr(dtype)) +
                       "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char *>(data.data()), data.size());
  return out;
}

Status tilec::writeNpy(const std::string &path, DType dtype,
                       std::span<const uint8_t> data,
                       std::span<const int64_t> shape) {
  return writeFileBytes(path, formatNpy(dtype, data, shape));
}

Expected<std::string> tilec::readFileBytes(const std::string &path) {
  auto fail = [&](int err) {
    return Status::error("cannot read '" + path + "': " + std::strerror(err));
  };
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return fail(errno);
  std::string bytes;
  char buffer[1 << 16];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0)
    bytes.append(buffer, got);
  // A folder opens but does not read (EISDIR).
  int err = std::ferror(file) ? errno : 0;
  std::fclose(file);
  if (err)
    return fail(err);
  return bytes;
}

Status tilec::writeFileBytes(const std::string &path, std::string_view data) {
  auto fail = [&](int err) {
    return Status::error("cannot write '" + path + "': " + std::strerror(err));
  };
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return fail(errno);
  bool written = std::fwrite(data.data(), 1, data.size(), file) == data.size();
  int err = written ? 0 : errno;
  // A full disk may only show when the buffer is flushed.
  if (std::fclose(file) != 0 && written)
    err = errno;
  if (!written || err)
    return fail(err ? err : EIO);
  return Status();
}
