//===- Npy.cpp - reading and writing .npy files ---------------------------===//
//
// The .npy format: "\x93NUMPY", a version, a little-endian header length and
// a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape':
// (n,)}, then the raw elements. Only what kernels need is accepted:
// little-endian (or byte-sized) numbers in C order.
//
//===----------------------------------------------------------------------===//

#include "tilec/interp/HostArgs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec;
using llvm::createStringError;
using llvm::StringRef;

/// The descr of a dtype, and the raw-bits descr of those numpy lacks.
static StringRef descrOf(DType dtype) {
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

/// Reads the value of `'key':` in the header dict.
static StringRef dictValue(StringRef header, StringRef key) {
  size_t pos = header.find(("'" + key + "'").str());
  if (pos == StringRef::npos)
    return {};
  StringRef rest = header.drop_front(pos + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return {};
  rest = rest.ltrim();
  if (rest.starts_with("(")) // a shape tuple
    return rest.take_until([](char c) { return c == ')'; }).drop_front();
  if (rest.starts_with("'"))
    return rest.drop_front().take_until([](char c) { return c == '\''; });
  return rest.take_until([](char c) { return c == ',' || c == '}'; }).trim();
}

llvm::Expected<NpyArray> tilec::readNpy(StringRef path, DType expected) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return createStringError("cannot read '" + path +
                             "': " + file.getError().message());
  StringRef bytes = (*file)->getBuffer();
  auto bad = [&](const llvm::Twine &why) {
    return createStringError("'" + path + "' is not a valid .npy file: " + why);
  };
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10)
    return bad("it does not start with the \\x93NUMPY magic");
  unsigned major = uint8_t(bytes[6]);
  size_t headerLen, start;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return bad("truncated header");
    headerLen = uint32_t(uint8_t(bytes[8])) | uint32_t(uint8_t(bytes[9])) << 8 |
                uint32_t(uint8_t(bytes[10])) << 16 |
                uint32_t(uint8_t(bytes[11])) << 24;
    start = 12;
  } else {
    return bad("unknown format version " + llvm::Twine(major));
  }
  if (start + headerLen > bytes.size())
    return bad("truncated header");
  StringRef header = bytes.substr(start, headerLen);
  StringRef descr = dictValue(header, "descr");
  if (dictValue(header, "fortran_order") == "True")
    return bad("Fortran order is not supported; save a C-order array");
  NpyArray array;
  array.dtype = expected;
  StringRef want = descrOf(expected);
  // Byte-sized types may be spelled with '|', '<' or '='.
  auto normalize = [](StringRef d) {
    return d.size() > 1 && (d[0] == '|' || d[0] == '=' || d[0] == '<')
               ? d.drop_front()
               : d;
  };
  if (descr.empty() || normalize(descr) != normalize(want))
    return createStringError("'" + path + "' holds elements of type '" + descr +
                             "', but the parameter needs " +
                             dtypeName(expected) + " ('" + want + "')");
  uint64_t count = 1;
  for (StringRef dim : llvm::split(dictValue(header, "shape"), ',')) {
    dim = dim.trim();
    if (dim.empty())
      continue;
    int64_t d;
    if (dim.getAsInteger(10, d) || d < 0)
      return bad("bad shape entry '" + dim + "'");
    array.shape.push_back(d);
    count *= d;
  }
  StringRef payload = bytes.drop_front(start + headerLen);
  uint64_t need = count * dtypeSize(expected);
  if (payload.size() != need)
    return bad("the header promises " + llvm::Twine(need) +
               " bytes of data, the file holds " + llvm::Twine(payload.size()));
  array.data.assign(payload.begin(), payload.end());
  return array;
}

llvm::Error tilec::writeNpy(StringRef path, DType dtype,
                            llvm::ArrayRef<uint8_t> data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return createStringError("cannot write '" + path + "': " + ec.message());
  std::string header = ("{'descr': '" + descrOf(dtype) +
                        "', 'fortran_order': False, 'shape': (" +
                        llvm::Twine(data.size() / dtypeSize(dtype)) + ",), }")
                           .str();
  // Pad with spaces so that the data starts at a multiple of 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  os << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff)
     << char(header.size() >> 8) << header;
  os.write(reinterpret_cast<const char *>(data.data()), data.size());
  return llvm::Error::success();
}
