//===- HostArgsTest.cpp - argument specs, generation and comparison -------===//
//
// The spec language tilec-run and tilec-gpu-run share: scalars of every
// type, buffers from each source, the bytes random generation gives (fixed
// across platforms and tools), every malformed spec's message, writing,
// printing and the comparison rule.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/HostArgs.h"
#include "tilec/Support/FloatFormats.h"
#include "tilec/Support/Npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <unistd.h>

using namespace tilec;

namespace {

HostParam buffer(DType dtype, const std::string &name = "x") {
  return {name, true, dtype};
}
HostParam scalar(DType dtype, const std::string &name = "n") {
  return {name, false, dtype};
}

HostArg parseOk(const std::string &spec, const HostParam &param) {
  Expected<HostArg> arg = parseHostArg(spec, param);
  EXPECT_TRUE(arg.ok()) << spec << ": " << arg.message();
  return arg.ok() ? *arg : HostArg();
}

std::string parseError(const std::string &spec, const HostParam &param) {
  Expected<HostArg> arg = parseHostArg(spec, param);
  EXPECT_FALSE(arg.ok()) << "parsed: " << spec;
  return arg.message();
}

template <typename T> T element(const HostArg &arg, size_t i) {
  T v;
  std::memcpy(&v, arg.data.data() + i * sizeof(T), sizeof(T));
  return v;
}

std::string tempPath(const std::string &name) {
  const char *tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/tilec-hostargs-test-" +
         std::to_string(getpid()) + "-" + name;
}

TEST(HostArgs, IntegerScalars) {
  EXPECT_EQ(parseOk("1000", scalar(DType::I32)).intValue, 1000);
  EXPECT_EQ(parseOk(" -7 ", scalar(DType::I32)).intValue, -7);
  EXPECT_EQ(parseOk("0x10", scalar(DType::I32)).intValue, 16);
  EXPECT_EQ(parseOk("-0x10", scalar(DType::I32)).intValue, -16);
  EXPECT_EQ(parseOk("0b101", scalar(DType::I32)).intValue, 5);
  EXPECT_EQ(parseOk("0o17", scalar(DType::I32)).intValue, 15);
  EXPECT_EQ(parseOk("017", scalar(DType::I32)).intValue, 15);
  EXPECT_EQ(parseOk("0", scalar(DType::I32)).intValue, 0);
  EXPECT_EQ(parseOk("true", scalar(DType::I1)).intValue, 1);
  EXPECT_EQ(parseOk("false", scalar(DType::I1)).intValue, 0);
  EXPECT_EQ(parseOk("1", scalar(DType::I1)).intValue, 1);
  EXPECT_EQ(parseOk("-9223372036854775808", scalar(DType::I64)).intValue,
            INT64_MIN);
  EXPECT_EQ(parseOk("9223372036854775807", scalar(DType::I64)).intValue,
            INT64_MAX);
  EXPECT_EQ(parseOk("-128", scalar(DType::I8)).intValue, -128);
  EXPECT_FALSE(parseOk("5", scalar(DType::I32)).isBuffer);

  EXPECT_EQ(parseError("abc", scalar(DType::I32)),
            "argument %n ('abc'): expected a scalar of type i32");
  EXPECT_EQ(parseError("", scalar(DType::I32)),
            "argument %n (''): expected a scalar of type i32");
  EXPECT_EQ(parseError("1.5", scalar(DType::I32)),
            "argument %n ('1.5'): expected a scalar of type i32");
  EXPECT_EQ(parseError("09", scalar(DType::I32)),
            "argument %n ('09'): expected a scalar of type i32");
  EXPECT_EQ(parseError("n=4", scalar(DType::I32)),
            "argument %n ('n=4'): expected a scalar of type i32");
  EXPECT_EQ(parseError("9223372036854775808", scalar(DType::I64)),
            "argument %n ('9223372036854775808'): expected a scalar of type "
            "i64");
  EXPECT_EQ(parseError("4294967296", scalar(DType::I32)),
            "argument %n ('4294967296'): value 4294967296 does not fit in i32");
  EXPECT_EQ(parseError("-129", scalar(DType::I8)),
            "argument %n ('-129'): value -129 does not fit in i8");
  EXPECT_EQ(parseError("32768", scalar(DType::I16)),
            "argument %n ('32768'): value 32768 does not fit in i16");
  EXPECT_EQ(parseError("2", scalar(DType::I1, "flag")),
            "argument %flag ('2'): value 2 does not fit in i1");
}

TEST(HostArgs, FloatScalars) {
  EXPECT_EQ(parseOk("1e-5", scalar(DType::F32)).floatValue, 1e-5);
  EXPECT_EQ(parseOk("-2.5", scalar(DType::F16)).floatValue, -2.5);
  EXPECT_TRUE(std::isinf(parseOk("inf", scalar(DType::F32)).floatValue));
  EXPECT_TRUE(std::isnan(parseOk("nan", scalar(DType::BF16)).floatValue));
  EXPECT_EQ(parseOk("0x1p3", scalar(DType::F64)).floatValue, 8.0);
  EXPECT_EQ(parseOk("1e300", scalar(DType::F64)).floatValue, 1e300);
  EXPECT_EQ(parseOk("65504", scalar(DType::F16)).floatValue, 65504.0);

  EXPECT_EQ(parseError("x", scalar(DType::F32, "eps")),
            "argument %eps ('x'): expected a scalar of type f32");
  EXPECT_EQ(parseError("1e5x", scalar(DType::F32, "eps")),
            "argument %eps ('1e5x'): expected a scalar of type f32");
  EXPECT_EQ(parseError("1e40", scalar(DType::F32, "eps")),
            "argument %eps ('1e40'): value 1e40 overflows f32");
  EXPECT_EQ(parseError("70000", scalar(DType::F16, "h")),
            "argument %h ('70000'): value 70000 overflows f16");
}

TEST(HostArgs, BufferSources) {
  HostArg out = parseOk("n=3", buffer(DType::F32));
  EXPECT_TRUE(out.isBuffer);
  EXPECT_TRUE(out.isOutput);
  EXPECT_EQ(out.count(), 3u);
  EXPECT_EQ(out.data, std::vector<uint8_t>(12, kPoisonByte));
  EXPECT_TRUE(std::isnan(element<float>(out, 0)));

  HostArg fill = parseOk("n=3,fill=2.5", buffer(DType::F32));
  EXPECT_FALSE(fill.isOutput);
  EXPECT_EQ(element<float>(fill, 2), 2.5f);
  HostArg fill16 = parseOk("n=2,fill=0.1", buffer(DType::F16));
  EXPECT_EQ(element<uint16_t>(fill16, 1), 0x2e66); // 0.1 rounded to f16
  HostArg ints = parseOk("n=2,fill=-3", buffer(DType::I16));
  EXPECT_EQ(element<int16_t>(ints, 1), -3);
  HostArg iota = parseOk("iota, n=4", buffer(DType::I64));
  EXPECT_EQ(element<int64_t>(iota, 3), 3);
  HostArg bools = parseOk("n=2,fill=1", buffer(DType::I1));
  EXPECT_EQ(bools.data, (std::vector<uint8_t>{1, 1}));
  HostArg empty = parseOk("n=0", buffer(DType::F32));
  EXPECT_EQ(empty.count(), 0u);

  HostArg all = parseOk("n=2,rand=1,save=a.npy,out=b.npy,print,expect=c.npy,"
                        "atol=0.5,rtol=0",
                        buffer(DType::F32));
  EXPECT_EQ(all.savePath, "a.npy");
  EXPECT_EQ(all.outPath, "b.npy");
  EXPECT_TRUE(all.print);
  EXPECT_EQ(all.expectPath, "c.npy");
  EXPECT_EQ(all.atol, 0.5);
  EXPECT_EQ(all.rtol, 0.0);
}

/// Random data is a seeded mt19937_64 mapped by hand: these bytes are what
/// every platform and both tools produce, so inputs made by tilec-run and by
/// tilec-gpu-run from one seed are the same.
TEST(HostArgs, RandomDataIsFixed) {
  HostArg f = parseOk("n=3,rand=1", buffer(DType::F32));
  std::mt19937_64 rng(1);
  for (int i = 0; i < 3; ++i) {
    double u = double(rng() >> 11) * 0x1.0p-53;
    EXPECT_EQ(element<float>(f, i), float(-1.0 + 2.0 * u)) << i;
  }
  EXPECT_EQ(element<uint32_t>(f, 0), 0xbf3b7485u); // a known answer
  HostArg again = parseOk("n=3,rand=1,min=-1,max=1", buffer(DType::F32));
  EXPECT_EQ(again.data, f.data);
  EXPECT_NE(parseOk("n=3,rand=2", buffer(DType::F32)).data, f.data);

  // Integers are uniform over [min, max], both ends included.
  HostArg ints = parseOk("n=2000,rand=9,min=5,max=7", buffer(DType::I32));
  int seen[3] = {0, 0, 0};
  for (size_t i = 0; i < ints.count(); ++i) {
    int32_t v = element<int32_t>(ints, i);
    ASSERT_TRUE(v >= 5 && v <= 7) << v;
    ++seen[v - 5];
  }
  EXPECT_GT(seen[0], 500);
  EXPECT_GT(seen[2], 500);
  HostArg bools = parseOk("n=100,rand=3", buffer(DType::I1));
  for (uint8_t b : bools.data)
    EXPECT_LE(b, 1);
  // Narrow floats are rounded to their type.
  HostArg bf = parseOk("n=50,rand=4,min=0,max=100", buffer(DType::BF16));
  for (size_t i = 0; i < bf.count(); ++i) {
    double v = decodeFloat(element<uint16_t>(bf, i), DType::BF16);
    EXPECT_TRUE(v >= 0 && v <= 100) << v;
    EXPECT_EQ(v, roundToFormat(v, FloatFormat::BF16));
  }
}

TEST(HostArgs, EveryMalformedBufferSpec) {
  HostParam x = buffer(DType::F32);
  EXPECT_EQ(parseError("5", x),
            "argument %x ('5'): unknown item '5' (expected n=, in=, rand=, "
            "min=, max=, fill=, iota, save=, out=, print, expect=, atol=, "
            "rtol=, or a scalar for a scalar parameter)");
  auto unknown = [&](const std::string &spec) {
    std::string m = parseError(spec, x);
    return m.substr(0, m.find(" (expected"));
  };
  EXPECT_EQ(unknown("n=4,"), "argument %x ('n=4,'): unknown item ''");
  EXPECT_EQ(unknown("n=4,iota=1"),
            "argument %x ('n=4,iota=1'): unknown item 'iota=1'");
  EXPECT_EQ(unknown("n=4,print=yes"),
            "argument %x ('n=4,print=yes'): unknown item 'print=yes'");
  EXPECT_EQ(parseError("rand=1", x),
            "argument %x ('rand=1'): a buffer needs n=COUNT or in=FILE");
  EXPECT_EQ(parseError("n=abc", x),
            "argument %x ('n=abc'): n needs an integer value");
  EXPECT_EQ(parseError("n", x), "argument %x ('n'): n needs an integer value");
  EXPECT_EQ(parseError("n=4,rand=x", x),
            "argument %x ('n=4,rand=x'): rand needs an integer value");
  EXPECT_EQ(parseError("n=-3", x), "argument %x ('n=-3'): n must not be "
                                   "negative");
  EXPECT_EQ(parseError("n=4,rand=1,min=x", x),
            "argument %x ('n=4,rand=1,min=x'): min needs a number");
  EXPECT_EQ(parseError("n=4,rand=1,max=", x),
            "argument %x ('n=4,rand=1,max='): max needs a number");
  EXPECT_EQ(parseError("n=4,fill=a", x),
            "argument %x ('n=4,fill=a'): fill needs a number");
  EXPECT_EQ(parseError("n=4,expect=r.npy,atol=x", x),
            "argument %x ('n=4,expect=r.npy,atol=x'): atol needs a number");
  EXPECT_EQ(parseError("n=4,expect=r.npy,rtol", x),
            "argument %x ('n=4,expect=r.npy,rtol'): rtol needs a number");
  for (std::string key : {"in", "save", "out", "expect"}) {
    EXPECT_EQ(parseError("n=4," + key + "=", x), "argument %x ('n=4," + key +
                                                     "='): " + key +
                                                     " needs a file name");
    EXPECT_EQ(parseError("n=4," + key, x),
              "argument %x ('n=4," + key + "'): " + key + " needs a file name");
  }
  EXPECT_EQ(parseError("n=4,n=5", x), "argument %x ('n=4,n=5'): n is given "
                                      "twice");
  EXPECT_EQ(parseError("n=4,out=a,out=b", x),
            "argument %x ('n=4,out=a,out=b'): out is given twice");
  EXPECT_EQ(parseError("n=4,rand=1,fill=2", x),
            "argument %x ('n=4,rand=1,fill=2'): give at most one of in=, "
            "rand=, fill=, iota");
  EXPECT_EQ(parseError("in=a.npy,iota", x),
            "argument %x ('in=a.npy,iota'): give at most one of in=, rand=, "
            "fill=, iota");
  EXPECT_EQ(parseError("n=4,min=0", x),
            "argument %x ('n=4,min=0'): min= and max= need rand=");
  EXPECT_EQ(parseError("n=4,atol=0", x),
            "argument %x ('n=4,atol=0'): atol= and rtol= need expect=");
  EXPECT_EQ(parseError("n=4,expect=r.npy,rtol=-1", x),
            "argument %x ('n=4,expect=r.npy,rtol=-1'): atol and rtol must not "
            "be negative");
  EXPECT_EQ(parseError("n=4,expect=r.npy,atol=nan", x),
            "argument %x ('n=4,expect=r.npy,atol=nan'): atol and rtol must "
            "not be negative");
  EXPECT_EQ(parseError("n=4,rand=1,min=2,max=1", x),
            "argument %x ('n=4,rand=1,min=2,max=1'): min must not exceed max");
  EXPECT_EQ(parseError("n=4,rand=1,min=-inf", x),
            "argument %x ('n=4,rand=1,min=-inf'): rand range must be finite");
  EXPECT_EQ(parseError("n=4,rand=1,min=0,max=300", buffer(DType::I8)),
            "argument %x ('n=4,rand=1,min=0,max=300'): rand range [0, 300] "
            "exceeds i8");
  EXPECT_EQ(parseError("n=4,fill=1.5", buffer(DType::I32)),
            "argument %x ('n=4,fill=1.5'): fill=1.5 is not a value of i32");
  EXPECT_EQ(parseError("n=4,fill=2", buffer(DType::I1)),
            "argument %x ('n=4,fill=2'): fill=2 is not a value of i1");
  EXPECT_EQ(parseError("n=300,iota", buffer(DType::I8)),
            "argument %x ('n=300,iota'): iota of 300 elements does not fit in "
            "i8");
  EXPECT_EQ(parseError("n=5000000000", x),
            "argument %x ('n=5000000000'): n=5000000000 is too large (at most "
            "16 GiB per buffer)");
}

TEST(HostArgs, FilesInAndOut) {
  std::string npy = tempPath("in.npy"), raw = tempPath("in.raw");
  std::vector<uint8_t> bytes = {0, 0, 128, 63, 0, 0, 0, 64}; // 1.0f, 2.0f
  ASSERT_TRUE(writeNpy(npy, DType::F32, bytes).ok());
  ASSERT_TRUE(writeFileBytes(raw, "\x01\x02\x03\x04\x05\x06\x07\x08").ok());
  HostArg fromNpy = parseOk("in=" + npy, buffer(DType::F32));
  EXPECT_EQ(fromNpy.data, bytes);
  EXPECT_FALSE(fromNpy.isOutput);
  EXPECT_EQ(fromNpy.inPath, npy);
  EXPECT_EQ(parseOk("in=" + raw + ",n=4", buffer(DType::I16)).count(), 4u);
  EXPECT_EQ(parseError("in=" + npy + ",n=3", buffer(DType::F32)),
            "argument %x ('in=" + npy +
                ",n=3'): n=3 but the file holds 2 elements");
  EXPECT_EQ(parseError("in=" + npy, buffer(DType::F16)),
            "'" + npy +
                "' holds elements of type '<f4', but the parameter "
                "needs f16 ('<f2')");
  ASSERT_TRUE(writeFileBytes(raw, "abcde").ok());
  EXPECT_EQ(parseError("in=" + raw, buffer(DType::F32)),
            "'" + raw + "' holds 5 bytes, not a whole number of f32 elements");
  EXPECT_EQ(parseError("in=" + tempPath("none.npy"), buffer(DType::F32)),
            "cannot read '" + tempPath("none.npy") +
                "': No such file or directory");

  // save= writes the contents as they are before the run, out= after it.
  std::string saved = tempPath("saved.npy"), written = tempPath("out.raw");
  HostArg arg = parseOk("n=2,iota,save=" + saved + ",out=" + written + ",print",
                        buffer(DType::F32, "y"));
  std::vector<HostArg> args = {arg};
  ASSERT_TRUE(saveHostInputs(args).ok());
  args[0].data[3] = 0x7f; // the "run": element 0 becomes NaN (0x7f000000)
  std::string printed;
  ASSERT_TRUE(writeHostOutputs(args, printed).ok());
  EXPECT_EQ(printed, "%y[0] = 1.70141183e+38\n%y[1] = 1\n");
  Expected<NpyArray> before = readNpy(saved, DType::F32);
  ASSERT_TRUE(before.ok()) << before.message();
  EXPECT_EQ(before->data, arg.data);
  Expected<std::string> after = readFileBytes(written);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(std::vector<uint8_t>(after->begin(), after->end()), args[0].data);
  args[0].outPath = "/nonexistent/y.npy";
  EXPECT_EQ(writeHostOutputs(args, printed).message(),
            "cannot write '/nonexistent/y.npy': No such file or directory");
  args[0].savePath = "/nonexistent/x.raw";
  EXPECT_EQ(saveHostInputs(args).message(),
            "cannot write '/nonexistent/x.raw': No such file or directory");
  for (const std::string &p : {npy, raw, saved, written})
    std::remove(p.c_str());
}

TEST(HostArgs, FormatElement) {
  uint8_t b[8] = {1, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(formatElement(b, DType::I1), "1");
  uint8_t minus1[8];
  std::memset(minus1, 0xff, 8);
  EXPECT_EQ(formatElement(minus1, DType::I32), "-1");
  EXPECT_EQ(formatElement(minus1, DType::I8), "-1");
  EXPECT_EQ(formatElement(minus1, DType::F32), "-nan");
  uint16_t half = 0x3c00;
  EXPECT_EQ(formatElement(reinterpret_cast<uint8_t *>(&half), DType::F16), "1");
  float third = 1.0f / 3;
  EXPECT_EQ(formatElement(reinterpret_cast<uint8_t *>(&third), DType::F32),
            "0.333333343");
}

std::vector<uint8_t> floats(std::initializer_list<float> values) {
  std::vector<uint8_t> out(values.size() * 4);
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

TEST(HostArgs, ComparisonRule) {
  EXPECT_EQ(defaultTolerance(DType::F32), std::make_pair(1e-6, 1e-5));
  EXPECT_EQ(defaultTolerance(DType::F16), std::make_pair(1e-3, 2e-3));
  EXPECT_EQ(defaultTolerance(DType::BF16), std::make_pair(1e-2, 1.6e-2));
  EXPECT_EQ(defaultTolerance(DType::F64), std::make_pair(1e-12, 1e-10));
  EXPECT_EQ(defaultTolerance(DType::F8E4M3FN), std::make_pair(0.0625, 0.125));
  EXPECT_EQ(defaultTolerance(DType::F8E5M2), std::make_pair(0.125, 0.25));
  EXPECT_EQ(defaultTolerance(DType::I32), std::make_pair(0.0, 0.0));

  float nan = std::nanf(""), inf = INFINITY;
  // |got - want| <= atol + rtol * |want|: 100 +- 1 passes rtol 0.01 only.
  Comparison c = compareElements(DType::F32, floats({101, nan, inf, 0}),
                                 floats({100, nan, inf, 0}), 0, 0.01);
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.count, 4u);
  EXPECT_EQ(c.maxAbsError, 1.0);
  EXPECT_EQ(c.maxAbsErrorAt, 0u);
  EXPECT_DOUBLE_EQ(c.normRelError, 0.01);
  c = compareElements(DType::F32, floats({101.5f, 1, -inf, nan, 3}),
                      floats({100, nan, inf, 1, 3}), 0, 0.01);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.mismatches, 4u);
  EXPECT_EQ(c.firstMismatches, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(c.unwritten, 0u);
  c = compareElements(DType::F32, floats({101.5f, 1, -inf, nan, 3}),
                      floats({100, nan, inf, 1, 3}), 0, 0.01, /*keep=*/2);
  EXPECT_EQ(c.firstMismatches, (std::vector<size_t>{0, 1}));
  // atol carries zero references.
  EXPECT_TRUE(
      compareElements(DType::F32, floats({1e-7f}), floats({0}), 1e-6, 0).ok());
  EXPECT_FALSE(
      compareElements(DType::F32, floats({1e-5f}), floats({0}), 1e-6, 0).ok());
  EXPECT_DOUBLE_EQ(
      compareElements(DType::F32, floats({3}), floats({0}), 0, 0).normRelError,
      3.0);

  // Poison left where the reference has a value: never written.
  std::vector<uint8_t> poison(8, kPoisonByte);
  c = compareElements(DType::F32, poison, floats({1, nan}), 0, 0);
  EXPECT_EQ(c.mismatches, 1u); // NaN matches NaN
  EXPECT_EQ(c.unwritten, 1u);

  // Integers: exact unless told, past 2^53 too; i1 as 0/1.
  int64_t a[2] = {(int64_t(1) << 60) + 1, 5}, b[2] = {int64_t(1) << 60, 5};
  std::span<const uint8_t> sa(reinterpret_cast<uint8_t *>(a), 16),
      sb(reinterpret_cast<uint8_t *>(b), 16);
  c = compareElements(DType::I64, sa, sb, 0, 0);
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_TRUE(compareElements(DType::I64, sa, sb, 1, 0).ok());
  uint8_t t[1] = {1}, u[1] = {2};
  EXPECT_TRUE(compareElements(DType::I1, t, u, 0, 0).ok());
  // bf16: 1 and 1.0078125 (one ulp) are within its default rtol.
  uint16_t one = 0x3f80, next = 0x3f81;
  EXPECT_TRUE(
      compareElements(DType::BF16, {reinterpret_cast<uint8_t *>(&next), 2},
                      {reinterpret_cast<uint8_t *>(&one), 2}, 1e-2, 1.6e-2)
          .ok());
}

TEST(HostArgs, CheckExpectations) {
  std::string ref = tempPath("ref.npy");
  ASSERT_TRUE(writeNpy(ref, DType::F32, floats({0, 1, 2, 3.004f})).ok());
  HostArg y = parseOk("n=4,iota,expect=" + ref, buffer(DType::F32, "y"));
  std::vector<HostArg> args = {y};
  EXPECT_EQ(checkHostExpectations(args).message(),
            "%y differs from '" + ref +
                "' in 1 of 4 elements (atol 1e-06, rtol 1e-05); the first "
                "is [3]: 3, expected 3.00399995");
  args[0].rtol = 1e-2;
  EXPECT_TRUE(checkHostExpectations(args).ok());
  HostArg five = parseOk("n=5,iota,expect=" + ref, buffer(DType::F32, "y"));
  EXPECT_EQ(readExpected(five).message(),
            "%y has 5 elements but '" + ref + "' holds 4");
  args = {five};
  EXPECT_EQ(checkHostExpectations(args).message(),
            "%y has 5 elements but '" + ref + "' holds 4");
  HostArg ints = parseOk("n=4,fill=7,expect=" + ref, buffer(DType::I32, "k"));
  args = {ints};
  EXPECT_EQ(checkHostExpectations(args).message(),
            "'" + ref +
                "' holds elements of type '<f4', but the parameter "
                "needs i32 ('<i4')");
  std::remove(ref.c_str());
}

} // namespace

// A NUL byte is not a blank: "n=\0 7" once read as n=7 (found by
// tilec-fuzz-argspec; the input is in test/Fuzz/corpus/argspec).
TEST(HostArgs, NulIsNotBlank) {
  using namespace std::string_literals;
  std::string count = parseError("n=\0 7"s, buffer(DType::F32));
  EXPECT_NE(count.find("argument %x"), std::string::npos) << count;
  parseError("\0"s "7", scalar(DType::I32));
  parseError("2.5\0"s, scalar(DType::F32));
  EXPECT_EQ(parseOk(" 7\t", scalar(DType::I32)).intValue, 7);
}

// The buffer limit is the caller's (the fuzzer asks for 64 MiB); the tools'
// 16 GiB is the default.
TEST(HostArgs, BufferLimit) {
  Expected<HostArg> big = parseHostArg("n=20000000", buffer(DType::F32), 64 << 20);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.message(), "argument %x ('n=20000000'): n=20000000 is too "
                           "large (at most 67108864 bytes per buffer)");
  EXPECT_EQ(parseOk("n=16", buffer(DType::F32)).count(), 16u);
}
