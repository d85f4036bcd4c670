//===- ArgsTest.cpp - argument checks and packing -------------------------===//

#include "tilec/Runtime/Args.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace tilec::runtime;

namespace {

/// x: ptr<f32> div 16, y: ptr<f16>, n: i32 div 16, m: i64, eps: f32,
/// h: f16, b: bf16, flag: i1.
KernelMetadata probe() {
  auto m = parseMetadata(R"({"format": "tilec-kernels", "version": 1,
    "target": "sm_90", "kernels": [{"name": "probe", "num_warps": 4,
    "threads_per_program": 128, "shared_bytes": 0, "params": [
      {"name": "x", "kind": "ptr", "type": "f32", "divisibility": 16},
      {"name": "y", "kind": "ptr", "type": "f16"},
      {"name": "n", "kind": "scalar", "type": "i32", "divisibility": 16},
      {"name": "m", "kind": "scalar", "type": "i64"},
      {"name": "eps", "kind": "scalar", "type": "f32"},
      {"name": "h", "kind": "scalar", "type": "f16"},
      {"name": "b", "kind": "scalar", "type": "bf16"},
      {"name": "flag", "kind": "scalar", "type": "i1"}]}]})");
  EXPECT_TRUE(m.ok()) << m.message();
  return m->kernels[0];
}

struct Packed {
  Status status;
  uint64_t slots[16] = {};
  void *pointers[16] = {};
};

template <typename... Args> Packed pack(const Args &...args) {
  static const KernelMetadata k = probe();
  Packed p;
  const ArgValue values[] = {makeArg(args)...};
  p.status = packArgs(k, values, sizeof...(Args), p.slots, p.pointers);
  return p;
}

const auto X = DevicePtr<float>::fromAddress(0x7f0000001000);
const auto Y = DevicePtr<Half>::fromAddress(0x7f0000002002);

/// The probe's arguments with parameter `index` replaced by `arg`.
template <typename T> std::string errorWith(size_t index, const T &arg) {
  static const KernelMetadata k = probe();
  ArgValue values[] = {makeArg(X),
                       makeArg(Y),
                       makeArg(int32_t(64)),
                       makeArg(int64_t(1) << 40),
                       makeArg(1e-5f),
                       makeArg(Half::fromFloat(0.5f)),
                       makeArg(BFloat16::fromFloat(2.0f)),
                       makeArg(true)};
  values[index] = makeArg(arg);
  uint64_t slots[8];
  void *pointers[8];
  Status s = packArgs(k, values, 8, slots, pointers);
  EXPECT_FALSE(s.ok()) << "parameter " << index;
  return s.message();
}

TEST(Args, PacksEachTypeIntoItsSlot) {
  Packed p = pack(X, Y, 64, int64_t(1) << 40, 1e-5, Half::fromFloat(0.5f),
                  BFloat16::fromFloat(2.0f), true);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(p.pointers[i], &p.slots[i]);
  EXPECT_EQ(p.slots[0], X.address);
  EXPECT_EQ(p.slots[1], Y.address);
  int32_t n;
  std::memcpy(&n, &p.slots[2], 4);
  EXPECT_EQ(n, 64);
  EXPECT_EQ(p.slots[3], uint64_t(1) << 40);
  float eps;
  std::memcpy(&eps, &p.slots[4], 4);
  EXPECT_EQ(eps, 1e-5f); // a double argument rounds to the f32 parameter
  EXPECT_EQ(p.slots[5], 0x3800u); // f16 0.5
  EXPECT_EQ(p.slots[6], 0x4000u); // bf16 2.0
  EXPECT_EQ(p.slots[7], 1u);      // i1 widened to a 32-bit 1
  // Negative i32 values fill exactly the low 4 bytes.
  Packed q = pack(X, Y, -16, -1, 0.0f, 1.0f, 1.0f, 0);
  ASSERT_TRUE(q.status.ok()) << q.status.message();
  EXPECT_EQ(q.slots[2], 0xfffffff0u);
  EXPECT_EQ(q.slots[3], ~uint64_t(0));
  EXPECT_EQ(q.slots[5], 0x3c00u); // float 1.0 -> f16
  EXPECT_EQ(q.slots[6], 0x3f80u); // float 1.0 -> bf16
  EXPECT_EQ(q.slots[7], 0u);      // integer 0 passes as i1 false
  // Unsigned integers within range pass; null pointers are divisible.
  Packed r = pack(DevicePtr<float>(), Y, uint32_t(32), uint64_t(7), 1.0f, 1.0f,
                  1.0f, false);
  EXPECT_TRUE(r.status.ok()) << r.status.message();
}

TEST(Args, CountMismatch) {
  EXPECT_EQ(pack(X, Y, 64).status.message(),
            "kernel 'probe' takes 8 arguments (x: ptr<f32>, y: ptr<f16>, n: "
            "i32, m: i64, eps: f32, h: f16, b: bf16, flag: i1) but 3 were "
            "given");
  auto one = parseMetadata(R"({"format": "tilec-kernels", "version": 1,
    "target": "sm_90", "kernels": [{"name": "one", "num_warps": 1,
    "threads_per_program": 32, "shared_bytes": 0, "params": [
      {"name": "n", "kind": "scalar", "type": "i32"}]}]})");
  ASSERT_TRUE(one.ok());
  Status s = packArgs(one->kernels[0], nullptr, 0, nullptr, nullptr);
  EXPECT_EQ(s.message(),
            "kernel 'one' takes 1 argument (n: i32) but 0 were given");
  ArgValue two[] = {makeArg(1), makeArg(2)};
  uint64_t slots[2];
  void *ptrs[2];
  EXPECT_EQ(packArgs(one->kernels[0], two, 2, slots, ptrs).message(),
            "kernel 'one' takes 1 argument (n: i32) but 2 were given");
}

TEST(Args, PointerMismatches) {
  EXPECT_EQ(errorWith(0, 5),
            "kernel 'probe', parameter 'x' (#0): expects a pointer to f32 but "
            "got an integer (i32)");
  EXPECT_EQ(errorWith(0, uint64_t(0x1000)),
            "kernel 'probe', parameter 'x' (#0): expects a pointer to f32 but "
            "got an unsigned integer (i64)");
  EXPECT_EQ(errorWith(0, DevicePtr<Half>::fromAddress(0x1000)),
            "kernel 'probe', parameter 'x' (#0): expects a pointer to f32 but "
            "got a pointer to f16");
  EXPECT_EQ(errorWith(1, DevicePtr<BFloat16>::fromAddress(0x1000)),
            "kernel 'probe', parameter 'y' (#1): expects a pointer to f16 but "
            "got a pointer to bf16");
  EXPECT_EQ(errorWith(1, 2.0f),
            "kernel 'probe', parameter 'y' (#1): expects a pointer to f16 but "
            "got a floating-point value (f32)");
  EXPECT_EQ(errorWith(0, X + 1),
            "kernel 'probe', parameter 'x' (#0): address 0x7f0000001004 is "
            "not a multiple of 16 bytes (the divisibility the kernel was "
            "compiled for)");
}

TEST(Args, ScalarMismatches) {
  EXPECT_EQ(errorWith(2, X),
            "kernel 'probe', parameter 'n' (#2): expects an i32 scalar but "
            "got a pointer to f32");
  EXPECT_EQ(errorWith(2, 64.0),
            "kernel 'probe', parameter 'n' (#2): expects an i32 scalar but "
            "got a floating-point value (f64)");
  EXPECT_EQ(errorWith(2, true),
            "kernel 'probe', parameter 'n' (#2): expects an i32 scalar but "
            "got a bool");
  EXPECT_EQ(errorWith(2, int64_t(1) << 32),
            "kernel 'probe', parameter 'n' (#2): value 4294967296 does not "
            "fit in i32");
  EXPECT_EQ(errorWith(2, uint32_t(0x80000000u)),
            "kernel 'probe', parameter 'n' (#2): value 2147483648 does not "
            "fit in i32");
  EXPECT_EQ(errorWith(2, 100),
            "kernel 'probe', parameter 'n' (#2): value 100 is not a multiple "
            "of 16 (the divisibility the kernel was compiled for)");
  EXPECT_EQ(errorWith(3, ~uint64_t(0)),
            "kernel 'probe', parameter 'm' (#3): value 18446744073709551615 "
            "does not fit in i64");
  EXPECT_EQ(errorWith(4, 1),
            "kernel 'probe', parameter 'eps' (#4): expects an f32 scalar but "
            "got an integer (i32)");
  EXPECT_EQ(errorWith(4, 1e300),
            "kernel 'probe', parameter 'eps' (#4): value 1e+300 does not fit "
            "in f32");
  EXPECT_EQ(errorWith(5, 70000.0f),
            "kernel 'probe', parameter 'h' (#5): value 70000 does not fit in "
            "f16");
  EXPECT_EQ(errorWith(5, int16_t(1)),
            "kernel 'probe', parameter 'h' (#5): expects an f16 scalar but "
            "got an integer (i16)");
  EXPECT_EQ(errorWith(6, 1e39),
            "kernel 'probe', parameter 'b' (#6): value 1e+39 does not fit in "
            "bf16");
  EXPECT_EQ(errorWith(6, X),
            "kernel 'probe', parameter 'b' (#6): expects a bf16 scalar but "
            "got a pointer to f32");
  EXPECT_EQ(errorWith(7, 2),
            "kernel 'probe', parameter 'flag' (#7): value 2 does not fit in "
            "i1");
  EXPECT_EQ(errorWith(7, 1.0f),
            "kernel 'probe', parameter 'flag' (#7): expects an i1 scalar but "
            "got a floating-point value (f32)");
}

TEST(Args, NonFiniteFloatsPass) {
  // Infinities and NaNs are values a kernel may be given on purpose.
  Packed p = pack(X, Y, 0, 0, -INFINITY, NAN, INFINITY, false);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.slots[5] & 0x7c00, 0x7c00u);
  EXPECT_EQ(p.slots[6], 0x7f80u);
}

TEST(Args, Grids) {
  KernelMetadata k = probe();
  EXPECT_TRUE(checkGrid(k, Grid(1)).ok());
  EXPECT_TRUE(checkGrid(k, Grid(INT32_MAX, 65535, 65535)).ok());
  EXPECT_EQ(checkGrid(k, Grid(0)).message(),
            "kernel 'probe': grid (0, 1, 1) is empty: x, y and z must each "
            "be at least 1");
  EXPECT_EQ(checkGrid(k, Grid(4, -1)).message(),
            "kernel 'probe': grid (4, -1, 1) is empty: x, y and z must each "
            "be at least 1");
  EXPECT_EQ(checkGrid(k, Grid(int64_t(1) << 31)).message(),
            "kernel 'probe': grid (2147483648, 1, 1): x exceeds the CUDA "
            "limit 2147483647");
  EXPECT_EQ(checkGrid(k, Grid(1, 65536)).message(),
            "kernel 'probe': grid (1, 65536, 1): y exceeds the CUDA limit "
            "65535");
  EXPECT_EQ(checkGrid(k, Grid(1, 1, 70000)).message(),
            "kernel 'probe': grid (1, 1, 70000): z exceeds the CUDA limit "
            "65535");
}

TEST(Args, Describe) {
  EXPECT_EQ(describeArg(makeArg(DevicePtr<int8_t>())), "a pointer to i8");
  EXPECT_EQ(describeArg(makeArg(short(1))), "an integer (i16)");
  EXPECT_EQ(describeArg(makeArg(uint8_t(1))), "an unsigned integer (i8)");
  EXPECT_EQ(describeArg(makeArg(BFloat16())), "a floating-point value (bf16)");
  EXPECT_EQ(describeArg(makeArg(false)), "a bool");
}

/// add's shape with a 2-D rule: x: ptr<f32>, n: i32, m: i64, s: f32.
KernelMetadata ruled(const char *grid) {
  std::string json = R"({"format": "tilec-kernels", "version": 1,
    "target": "sm_90", "kernels": [{"name": "ruled", "num_warps": 4,
    "threads_per_program": 128, "shared_bytes": 0, "params": [
      {"name": "x", "kind": "ptr", "type": "f32"},
      {"name": "n", "kind": "scalar", "type": "i32"},
      {"name": "m", "kind": "scalar", "type": "i64"},
      {"name": "s", "kind": "scalar", "type": "f32"}])";
  if (grid)
    json += std::string(R"(, "grid": )") + grid;
  json += "}]}";
  auto md = parseMetadata(json);
  EXPECT_TRUE(md.ok()) << md.message();
  return md->kernels[0];
}

template <typename... Args>
Expected<Grid> gridOf(const KernelMetadata &k, const Args &...args) {
  const ArgValue values[] = {makeArg(args)...};
  return ruleGrid(k, values, sizeof...(Args));
}

TEST(Args, RuleGrid) {
  const KernelMetadata k = ruled(R"j(["cdiv(n, 1024)", "m / 2"])j");
  auto g = gridOf(k, X, int32_t(3001), int64_t(7), 1.0f);
  ASSERT_TRUE(g.ok()) << g.message();
  EXPECT_EQ(g->x, 3);
  EXPECT_EQ(g->y, 3);
  EXPECT_EQ(g->z, 1);
  // Unsigned integers that fit are read too; empty inputs give 0 programs.
  g = gridOf(k, X, 0u, uint64_t(9), 1.0f);
  ASSERT_TRUE(g.ok()) << g.message();
  EXPECT_EQ(g->x, 0);
  EXPECT_EQ(g->y, 4);

  EXPECT_EQ(gridOf(ruled(nullptr), X, 1, int64_t(1), 1.0f).message(),
            "kernel 'ruled' declares no grid rule (tile.grid): give the grid "
            "to the launch");
  EXPECT_EQ(gridOf(k, X, 1).message(),
            "kernel 'ruled' takes 4 arguments (x: ptr<f32>, n: i32, m: i64, "
            "s: f32) but 2 were given");
  EXPECT_EQ(gridOf(k, X, 1.5f, int64_t(1), 1.0f).message(),
            "kernel 'ruled', parameter 'n' (#1): the grid rule [\"cdiv(n, "
            "1024)\", \"m / 2\"] reads it as an integer, but got " +
                describeArg(makeArg(1.5f)));
  EXPECT_EQ(gridOf(k, X, 1, UINT64_MAX, 1.0f).message(),
            "kernel 'ruled', parameter 'm' (#2): the grid rule [\"cdiv(n, "
            "1024)\", \"m / 2\"] reads it as an integer, but got " +
                describeArg(makeArg(UINT64_MAX)));
  const KernelMetadata over = ruled(R"j(["1", "m * m"])j");
  EXPECT_EQ(gridOf(over, X, 1, int64_t(1) << 40, 1.0f).message(),
            "kernel 'ruled': grid rule y: \"m * m\" overflows 64-bit "
            "integers");
}

} // namespace
