//===- NpyTest.cpp - .npy files and whole-file I/O ------------------------===//
//
// Round trips of every dtype and shape, the header as numpy writes it, and
// every malformed file with its message.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/Npy.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <unistd.h>

using namespace tilec;

namespace {

/// A .npy file's bytes with `header` as given (padded like numpy's) and
/// `payload` after it, in format `major`.
std::string npyBytes(const std::string &header, const std::string &payload,
                     int major = 1) {
  std::string h = header;
  size_t prefix = major == 1 ? 10 : 12;
  h.append((64 - (prefix + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  std::string out = "\x93NUMPY";
  out += char(major);
  out += char(0);
  for (size_t i = 0; i < prefix - 8; ++i)
    out += char((h.size() >> (8 * i)) & 0xff);
  return out + h + payload;
}

std::string parseError(const std::string &bytes, DType dtype = DType::F32) {
  Expected<NpyArray> array = parseNpy(bytes, dtype, "t.npy");
  EXPECT_FALSE(array.ok());
  return array.message();
}

std::string tempPath(const std::string &name) {
  const char *tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/tilec-npy-test-" +
         std::to_string(getpid()) + "-" + name;
}

TEST(Npy, RoundTripsEveryDType) {
  for (int d = 0; d <= int(DType::F8E5M2); ++d) {
    DType dtype = DType(d);
    std::vector<uint8_t> data(5 * dtypeSize(dtype));
    for (size_t i = 0; i < data.size(); ++i)
      data[i] = uint8_t(i * 37 + 1);
    std::string bytes = formatNpy(dtype, data);
    // numpy starts the data at a multiple of 64 bytes.
    EXPECT_EQ((bytes.size() - data.size()) % 64, 0u);
    Expected<NpyArray> back = parseNpy(bytes, dtype, "x.npy");
    ASSERT_TRUE(back.ok()) << dtypeName(dtype) << ": " << back.message();
    EXPECT_EQ(back->data, data) << dtypeName(dtype);
    EXPECT_EQ(back->shape, std::vector<int64_t>{5}) << dtypeName(dtype);
    EXPECT_EQ(back->dtype, dtype);
  }
}

TEST(Npy, HeaderAsNumpyWritesIt) {
  std::vector<uint8_t> data(12);
  std::string bytes = formatNpy(DType::F32, data);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes.find("{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (3,), }"),
            std::string::npos);
  EXPECT_EQ(bytes[bytes.size() - data.size() - 1], '\n');
  int64_t shape2[] = {2, 3};
  std::string matrix = formatNpy(DType::BF16, data, shape2);
  EXPECT_NE(matrix.find("'descr': '<u2'"), std::string::npos);
  EXPECT_NE(matrix.find("'shape': (2, 3), }"), std::string::npos);
  Expected<NpyArray> back = parseNpy(matrix, DType::BF16, "m.npy");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_NE(formatNpy(DType::F8E4M3FN, {}).find("'descr': '|u1'"),
            std::string::npos);
  EXPECT_NE(formatNpy(DType::I1, {}).find("'descr': '|b1'"), std::string::npos);
}

TEST(Npy, ReadsWhatOtherWritersWrite) {
  std::string payload(8, '\0');
  // Versions 2 and 3 (4-byte header length), double quotes, no spaces.
  for (int major : {2, 3}) {
    Expected<NpyArray> a = parseNpy(
        npyBytes("{\"descr\":\"<i4\",\"fortran_order\":False,\"shape\":(2,)}",
                 payload, major),
        DType::I32, "v.npy");
    ASSERT_TRUE(a.ok()) << a.message();
    EXPECT_EQ(a->shape, std::vector<int64_t>{2});
  }
  // A 0-d array holds one element; an empty one none.
  Expected<NpyArray> scalar = parseNpy(
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
               std::string(4, '\0')),
      DType::F32, "s.npy");
  ASSERT_TRUE(scalar.ok()) << scalar.message();
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(scalar->data.size(), 4u);
  Expected<NpyArray> empty = parseNpy(
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 7), }",
               ""),
      DType::F32, "e.npy");
  ASSERT_TRUE(empty.ok()) << empty.message();
  EXPECT_EQ(empty->shape, (std::vector<int64_t>{0, 7}));
  // Native byte order is little-endian here; byte-sized types take any mark.
  EXPECT_TRUE(parseNpy(npyBytes("{'descr': '=f4', 'shape': (1,)}",
                                std::string(4, '\0')),
                       DType::F32, "n.npy")
                  .ok());
  EXPECT_TRUE(parseNpy(npyBytes("{'descr': '<i1', 'shape': (1,)}",
                                std::string(1, '\0')),
                       DType::I8, "b.npy")
                  .ok());
  EXPECT_TRUE(parseNpy(npyBytes("{'descr': '|u1', 'shape': (3, )}",
                                std::string(3, '\0')),
                       DType::F8E5M2, "u.npy")
                  .ok());
}

TEST(Npy, EveryMalformedFile) {
  std::string good4 = std::string(4, '\0');
  EXPECT_EQ(parseError("hello"), "'t.npy' is not a valid .npy file: it does "
                                 "not start with the \\x93NUMPY magic");
  EXPECT_EQ(parseError(""), "'t.npy' is not a valid .npy file: it does not "
                            "start with the \\x93NUMPY magic");
  EXPECT_EQ(parseError(std::string("\x93NUMPY\x01", 7)),
            "'t.npy' is not a valid .npy file: truncated header");
  EXPECT_EQ(parseError(std::string("\x93NUMPY\x02\x00\x10\x00", 10)),
            "'t.npy' is not a valid .npy file: truncated header");
  EXPECT_EQ(parseError(std::string("\x93NUMPY\x09\x00\x00\x00", 10)),
            "'t.npy' is not a valid .npy file: unknown format version 9");
  EXPECT_EQ(parseError(std::string("\x93NUMPY\x01\x00\xff\x00{}", 12)),
            "'t.npy' is not a valid .npy file: truncated header");
  EXPECT_EQ(parseError(npyBytes("{'shape': (1,)}", good4)),
            "'t.npy' is not a valid .npy file: the header has no 'descr'");
  EXPECT_EQ(parseError(npyBytes("{'descr': '<f4'}", good4)),
            "'t.npy' is not a valid .npy file: the header has no 'shape'");
  EXPECT_EQ(
      parseError(npyBytes(
          "{'descr': '<f4', 'fortran_order': True, 'shape': (1,)}", good4)),
      "'t.npy' is not a valid .npy file: Fortran order is not "
      "supported; save a C-order array");
  EXPECT_EQ(
      parseError(npyBytes(
          "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,)}", good4)),
      "'t.npy' is not a valid .npy file: bad 'fortran_order' value "
      "'Maybe'");
  EXPECT_EQ(parseError(npyBytes("{'descr': '<i4', 'shape': (1,)}", good4)),
            "'t.npy' holds elements of type '<i4', but the parameter needs "
            "f32 ('<f4')");
  // Big-endian data would be read wrong: refused.
  EXPECT_EQ(parseError(npyBytes("{'descr': '>f4', 'shape': (1,)}", good4)),
            "'t.npy' holds elements of type '>f4', but the parameter needs "
            "f32 ('<f4')");
  // bf16 is stored as its bits; a float array is not bf16.
  EXPECT_EQ(parseError(npyBytes("{'descr': '<f2', 'shape': (2,)}", good4),
                       DType::BF16),
            "'t.npy' holds elements of type '<f2', but the parameter needs "
            "bf16 ('<u2')");
  EXPECT_EQ(parseError(npyBytes("{'descr': '<f4', 'shape': (a,)}", good4)),
            "'t.npy' is not a valid .npy file: bad shape entry 'a'");
  EXPECT_EQ(parseError(npyBytes("{'descr': '<f4', 'shape': (-1,)}", good4)),
            "'t.npy' is not a valid .npy file: bad shape entry '-1'");
  EXPECT_EQ(parseError(npyBytes("{'descr': '<f4', 'shape': (1,,)}", good4)),
            "'t.npy' is not a valid .npy file: bad shape entry ''");
  // A shape whose size overflows must not wrap around to the payload's.
  EXPECT_EQ(parseError(npyBytes("{'descr': '<f4', 'shape': (4294967296, "
                                "4294967296)}",
                                "")),
            "'t.npy' is not a valid .npy file: the shape (4294967296, "
            "4294967296) is too large");
  EXPECT_EQ(parseError(npyBytes("{'descr': '<f4', 'shape': (2,)}", good4)),
            "'t.npy' is not a valid .npy file: the header promises 8 bytes "
            "of data, the file holds 4");
  EXPECT_EQ(parseError(npyBytes("{'descr': '<f4', 'shape': (0,)}", good4)),
            "'t.npy' is not a valid .npy file: the header promises 0 bytes "
            "of data, the file holds 4");
}

TEST(Npy, Files) {
  std::string path = tempPath("a.npy");
  std::vector<uint8_t> data = {1, 2, 3, 4, 5, 6, 7, 8};
  ASSERT_TRUE(writeNpy(path, DType::I16, data).ok());
  Expected<NpyArray> back = readNpy(path, DType::I16);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->data, data);
  std::remove(path.c_str());

  EXPECT_EQ(readNpy(tempPath("missing.npy"), DType::F32).message(),
            "cannot read '" + tempPath("missing.npy") +
                "': No such file or directory");
  EXPECT_EQ(readFileBytes("/").message(), "cannot read '/': Is a directory");
  EXPECT_EQ(writeNpy("/nonexistent/dir/a.npy", DType::F32, {}).message(),
            "cannot write '/nonexistent/dir/a.npy': No such file or directory");
  // A full disk shows only when the data is flushed: still an error.
  if (access("/dev/full", W_OK) == 0)
    EXPECT_EQ(writeFileBytes("/dev/full", std::string(100000, 'x')).message(),
              "cannot write '/dev/full': No space left on device");
}

} // namespace
