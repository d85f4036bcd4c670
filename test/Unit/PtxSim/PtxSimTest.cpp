//===- PtxSimTest.cpp - the PTX simulator on hand-written PTX -------------===//
//
// Each test runs one instruction in a one-thread kernel that loads its
// operands from a buffer and stores the result back. What the simulator
// does not model (an instruction, a type, a modifier that changes the
// result) must be an error that names the instruction and its PTX line:
// a silent 0 or an ignored modifier would show as a compiler bug in the
// differential tests.
//
//===----------------------------------------------------------------------===//

#include "PtxSim.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// A kernel `k(u64 buf)`: %r1..%r3 (and %rd4..%rd6) are loaded from buf[0..2]
/// (32-bit and 64-bit views), `body` runs, %r9 (or %rd9) is stored to buf[3].
/// The body starts on PTX line 12.
std::string kernel(const std::string &body, bool wide = false) {
  return ".version 8.0\n"                                        // 1
         ".target sm_90\n"                                       // 2
         ".address_size 64\n"                                    // 3
         ".visible .entry k(\n"                                  // 4
         "  .param .u64 buf\n"                                   // 5
         ")\n"                                                   // 6
         "{\n"                                                   // 7
         "  ld.param.u64 %rd1, [buf];\n"                         // 8
         "  ld.global.b32 %r1, [%rd1]; ld.global.b32 %r2, [%rd1+8];\n" // 9
         "  ld.global.b32 %r3, [%rd1+16]; ld.global.b64 %rd4, [%rd1];\n" // 10
         "  ld.global.b64 %rd5, [%rd1+8]; ld.global.b64 %rd6, [%rd1+16];\n" // 11
         + body + "\n" +                                         // 12
         (wide ? "  st.global.b64 [%rd1+24], %rd9;\n"
               : "  st.global.b32 [%rd1+24], %r9;\n") +
         "  ret;\n"
         "}\n";
}

struct Result {
  std::string error;
  uint64_t out = 0;
};

/// Runs `kernel(body)` on one thread with buf = {a, b, c, 0} (8 bytes each).
Result run(const std::string &body, uint64_t a, uint64_t b = 0,
           uint64_t c = 0, bool wide = false) {
  std::vector<uint64_t> buf = {a, b, c, 0};
  ptxsim::Launch launch;
  uint64_t addr = reinterpret_cast<uint64_t>(buf.data());
  launch.params.emplace_back(8);
  std::memcpy(launch.params[0].data(), &addr, 8);
  Result r;
  r.error = ptxsim::run(kernel(body, wide), "k", launch,
                        [&](uint64_t p, uint64_t n) {
                          return p >= addr && p + n <= addr + 32;
                        });
  r.out = wide ? buf[3] : buf[3] & 0xffffffff;
  return r;
}

uint64_t bits(float f) { return std::bit_cast<uint32_t>(f); }
float flt(uint64_t u) { return std::bit_cast<float>(uint32_t(u)); }

/// The error names the instruction and its line, and says what is missing.
void expectUnsupported(const Result &r, const std::string &instruction,
                       const std::string &what) {
  EXPECT_NE(r.error.find("line 12 '" + instruction + "'"), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find(what), std::string::npos) << r.error;
}

TEST(PtxSim, SupportedInstructionRuns) {
  Result r = run("  add.f32 %r9, %r1, %r2;", bits(1.5f), bits(2.25f));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(flt(r.out), 3.75f);
}

// The unary approximations compute on one float: their packed forms were
// converted as 0 before.
TEST(PtxSim, PackedUnaryIsAnError) {
  Result r = run("  tanh.approx.f16x2 %r9, %r1;", 0x3c003c00);
  expectUnsupported(r, "tanh.approx.f16x2 %r9, %r1",
                    "unsupported type .f16x2 for this instruction");
  r = run("  ex2.approx.ftz.bf16x2 %r9, %r1;", 0x3f803f80);
  expectUnsupported(r, "ex2.approx.ftz.bf16x2 %r9, %r1",
                    "unsupported type .bf16x2");
}

TEST(PtxSim, TestpOfAnIntegerIsAnError) {
  Result r = run("  testp.finite.b32 %p1, %r1;\n"
                 "  selp.b32 %r9, 1, 0, %p1;",
                 7);
  expectUnsupported(r, "testp.finite.b32 %p1, %r1", "unsupported type .b32");
}

// Types the simulator has no encoding for were dropped from the opcode.
TEST(PtxSim, UnmodelledTypeIsAnError) {
  Result r = run("  cvt.rn.satfinite.e2m1x2.f32 %h9, %r1, %r2;", bits(1.0f),
                 bits(2.0f));
  expectUnsupported(r, "cvt.rn.satfinite.e2m1x2.f32 %h9, %r1, %r2",
                    "unsupported type .e2m1x2");
  r = run("  cvt.rna.f16.f32 %h9, %r1;", bits(1.0f));
  expectUnsupported(r, "cvt.rna.f16.f32 %h9, %r1",
                    "rounding .rna is simulated only for cvt to .tf32");
}

// fp8 pairs (sm_89): cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, a, b puts a
// in the high byte, rounds to nearest even and saturates; cvt.rn.f16x2
// from them widens each byte exactly, low to low.
TEST(PtxSim, Fp8PairConversions) {
  auto down = [](const char *fmt, float a, float b) {
    Result r = run(std::string("  cvt.rn.satfinite.") + fmt +
                       ".f32 %rs9, %r1, %r2;\n  cvt.u32.u16 %r9, %rs9;",
                   bits(a), bits(b));
    EXPECT_EQ(r.error, "");
    return uint32_t(r.out);
  };
  EXPECT_EQ(down("e4m3x2", 1.0f, 2.0f), 0x3840u);  // 1.0 = 0x38, 2.0 = 0x40
  EXPECT_EQ(down("e4m3x2", 1000.0f, -448.0f), 0x7efeu); // saturated, 448
  EXPECT_EQ(down("e4m3x2", 1.0625f, 0.0f), 0x3800u); // a tie: to even (1.0)
  EXPECT_EQ(down("e5m2x2", 1.0f, 1e6f), 0x3c7bu);  // 57344 = 0x7b
  auto up = [](const char *fmt, uint32_t pair) {
    Result r = run(std::string("  cvt.u16.u32 %rs1, %r1;\n  cvt.rn.f16x2.") +
                       fmt + " %r9, %rs1;",
                   pair);
    EXPECT_EQ(r.error, "");
    return uint32_t(r.out);
  };
  EXPECT_EQ(up("e4m3x2", 0x3840), 0x3c004000u); // (2.0, 1.0) as f16x2
  EXPECT_EQ(up("e4m3x2", 0x7efe), 0x5f00df00u); // 448, -448
  EXPECT_EQ(up("e5m2x2", 0x3c7b), 0x3c007b00u); // 1.0, 57344
  // Other forms are errors, not wrong numbers.
  expectUnsupported(run("  cvt.rn.e4m3x2.f32 %rs9, %r1, %r2;", 0, 0),
                    "cvt.rn.e4m3x2.f32 %rs9, %r1, %r2",
                    "only cvt.rn.satfinite.e4m3x2.f32");
}

// cvt.rna.tf32.f32 keeps 10 mantissa bits, rounding ties away from zero,
// and leaves the low 13 bits 0.
TEST(PtxSim, Tf32RoundsToNearestTiesAway) {
  auto tf32 = [](uint32_t u) {
    Result r = run("  cvt.rna.tf32.f32 %r9, %r1;", u);
    EXPECT_EQ(r.error, "");
    return uint32_t(r.out);
  };
  EXPECT_EQ(tf32(0x3f800fff), 0x3f800000u); // below the tie: down
  EXPECT_EQ(tf32(0x3f801000), 0x3f802000u); // the tie: away from zero
  EXPECT_EQ(tf32(0xbf801000), 0xbf802000u); // the same for negatives
  EXPECT_EQ(tf32(0x3f803000), 0x3f804000u); // a tie with an odd kept bit
  EXPECT_EQ(tf32(0x7f800000), 0x7f800000u); // Inf stays Inf
  EXPECT_NE(tf32(0x7f800001) & 0x7fffff, 0u); // NaN stays NaN
}

TEST(PtxSim, UnknownInstructionIsAnError) {
  Result r = run("  bar.red.popc.u32 %r1, 0, %p1;", 0);
  expectUnsupported(r, "bar.red.popc.u32 %r1, 0, %p1",
                    "unsupported modifier .red");
  r = run("  mul24.lo.s32 %r9, %r1, %r2;", 3, 4);
  expectUnsupported(r, "mul24.lo.s32 %r9, %r1, %r2",
                    "unsupported instruction mul24.lo.s32");
  r = run("  cp.async.bulk.prefetch.L2.global [%rd1], 16;", 0);
  expectUnsupported(r, "cp.async.bulk.prefetch.L2.global [%rd1], 16",
                    "unsupported instruction cp.async.bulk.prefetch");
}

// tile.print's vprintf: the call is the error, not the .param symbols of
// its block (which were reported first as unknown).
TEST(PtxSim, CallIsAnError) {
  Result r = run("  {\n"
                 "  .param .b64 param0;\n"
                 "  st.param.b64 [param0+0], %rd4;\n"
                 "  call.uni (retval0), vprintf, (param0);\n"
                 "  }",
                 0);
  EXPECT_NE(r.error.find("line 15 'call.uni (retval0), vprintf, (param0)': "
                         "unsupported instruction call.uni"),
            std::string::npos)
      << r.error;
  r = run("  st.global.b32 [nowhere], %r1;", 0);
  EXPECT_NE(r.error.find("line 12: unknown symbol nowhere"), std::string::npos)
      << r.error;
}

// Modifiers that change the result were ignored: a saturating add wrapped,
// .relu of fma did nothing, prmt's modes read as the default one.
TEST(PtxSim, IgnoredModifierIsAnError) {
  Result r = run("  add.sat.s32 %r9, %r1, %r2;", 0x7fffffff, 1);
  expectUnsupported(r, "add.sat.s32 %r9, %r1, %r2",
                    "unsupported modifier .sat");
  r = run("  fma.rn.relu.f32 %r9, %r1, %r2, %r3;", bits(-1.0f), bits(1.0f),
          0);
  expectUnsupported(r, "fma.rn.relu.f32 %r9, %r1, %r2, %r3",
                    "unsupported modifier .relu");
  r = run("  prmt.b32.f4e %r9, %r1, %r2, %r3;", 1, 2, 3);
  expectUnsupported(r, "prmt.b32.f4e %r9, %r1, %r2, %r3",
                    "unsupported modifier .f4e");
  r = run("  sqrt.rz.f32 %r9, %r1;", bits(2.0f));
  expectUnsupported(r, "sqrt.rz.f32 %r9, %r1", "unsupported modifier .rz");
  r = run("  cvt.rz.f16.f32 %h9, %r1;\n  cvt.u32.u16 %r9, %h9;",
          bits(1.0009765625f + 0.0001f));
  expectUnsupported(r, "cvt.rz.f16.f32 %h9, %r1",
                    "rounding .rz of cvt to .f16 is not simulated");
}

// cvt to s8 in a 16-bit register sign-extends: max.s16 of -1 and 0 is 0
// (the simulator masked the result to 8 bits, 255).
TEST(PtxSim, NarrowSignedCvtSignExtends) {
  Result r = run("  cvt.s8.s32 %rs1, %r1;\n"
                 "  cvt.u16.u32 %rs2, %r2;\n"
                 "  max.s16 %rs3, %rs1, %rs2;\n"
                 "  cvt.s32.s16 %r9, %rs3;",
                 0xffffffff, 0);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.out, 0u);
  r = run("  cvt.s8.s32 %rs1, %r1;\n  cvt.s32.s16 %r9, %rs1;", 0x1ff);
  EXPECT_EQ(r.out, 0xffffffffu); // 0x1ff chopped to s8 is -1
  r = run("  cvt.u8.s32 %rs1, %r1;\n  cvt.u32.u16 %r9, %rs1;", 0xffffffff);
  EXPECT_EQ(r.out, 0xffu);
}

// A signed load into a 64-bit register sign-extends to 64 bits (the
// simulator kept 32: gen_500_8869, an i64 tile's trunci + extsi that LLVM
// made one ld.shared.s32 into a %rd after a reshape through shared memory);
// an unsigned one zero-extends; a declared .b64 register of another name
// sign-extends too.
TEST(PtxSim, SignedLoadIntoWideRegister) {
  Result r = run("  ld.global.s32 %rd9, [%rd1];", 0xfffffffe, 0, 0,
                 /*wide=*/true);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.out, 0xfffffffffffffffeull);
  r = run("  ld.global.u32 %rd9, [%rd1];", 0xfffffffe, 0, 0, /*wide=*/true);
  EXPECT_EQ(r.out, 0xfffffffeull);
  r = run("  ld.global.s16 %rd9, [%rd1];", 0x8001, 0, 0, /*wide=*/true);
  EXPECT_EQ(r.out, 0xffffffffffff8001ull);
  r = run("  .reg .b64 %w<2>;\n  ld.global.s8 %w1, [%rd1];\n  mov.b64 %rd9, %w1;",
          0x80, 0, 0, /*wide=*/true);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.out, 0xffffffffffffff80ull);
  r = run("  ld.global.s8 %r9, [%rd1];", 0x80);
  EXPECT_EQ(r.out, 0xffffff80u);
}

// A b32 load over three written bytes of shared memory and one that
// nothing wrote (merged i8 loads) runs; a load of unwritten bytes only is
// an error.
TEST(PtxSim, WidenedSharedLoad) {
  const char *store = "  .shared .align 4 .b8 sm[8];\n"
                      "  mov.u32 %r4, sm;\n"
                      "  st.shared.b8 [%r4], %rs1;\n"
                      "  st.shared.b8 [%r4+1], %rs1;\n"
                      "  st.shared.b8 [%r4+2], %rs1;\n";
  Result r = run(std::string(store) + "  ld.shared.b32 %r9, [%r4];", 0);
  EXPECT_EQ(r.error, "");
  r = run(std::string(store) + "  ld.shared.b32 %r9, [%r4+4];", 0);
  EXPECT_NE(r.error.find("reads shared byte 1028, which nothing wrote"),
            std::string::npos)
      << r.error;
}

// tilec's f16/bf16 fadd atomics: atom.add.noftz on 2 bytes.
TEST(PtxSim, HalfAtomicAdd) {
  Result r = run("  cvt.u16.u32 %rs2, %r1;\n"
                 "  atom.global.acq_rel.gpu.add.noftz.f16 %rs1, [%rd1+16], "
                 "%rs2;\n"
                 "  ld.global.b32 %r9, [%rd1+16];",
                 0x3c00, 0, 0x3e00); // 1 + 1.5
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.out, 0x4100u); // 2.5
  r = run("  cvt.u16.u32 %rs2, %r1;\n"
          "  atom.global.add.noftz.bf16 %rs1, [%rd1+16], %rs2;\n"
          "  ld.global.b32 %r9, [%rd1+16];",
          0x3f80, 0, 0x4040); // 1 + 3
  EXPECT_EQ(r.out, 0x4080u);  // 4
  r = run("  atom.global.max.f16 %rs1, [%rd1+16], %rs2;", 0);
  expectUnsupported(r, "atom.global.max.f16 %rs1, [%rd1+16], %rs2",
                    "unsupported type .f16");
}

// Packed 16-bit integer min/max (LLVM's vector smax of i16 pairs): each
// half on its own; the simulator refused the type before it knew it.
TEST(PtxSim, PackedIntegerMinMax) {
  Result r = run("  max.s16x2 %r9, %r1, %r2;", 0xfffe0003, 0x00010005);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.out, 0x00010005u); // max(-2, 1), max(3, 5)
  r = run("  min.u16x2 %r9, %r1, %r2;", 0xfffe0003, 0x00010005);
  EXPECT_EQ(r.out, 0x00010003u);
  r = run("  max.relu.s16x2 %r9, %r1, %r2;", 0xfffe0003, 0xffff0001);
  EXPECT_EQ(r.out, 0x00000003u);
  r = run("  add.s16x2 %r9, %r1, %r2;", 1, 2);
  expectUnsupported(r, "add.s16x2 %r9, %r1, %r2", "unsupported type .s16x2");
}

// LLVM emits max.NaN.f32 for maximum(): a NaN operand gives NaN, where
// plain max returns the other operand.
TEST(PtxSim, MaxNaNPropagates) {
  float nan = std::nanf("");
  Result r = run("  max.NaN.f32 %r9, %r1, %r2;", bits(nan), bits(2.0f));
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(std::isnan(flt(r.out)));
  r = run("  max.f32 %r9, %r1, %r2;", bits(nan), bits(2.0f));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(flt(r.out), 2.0f);
  r = run("  min.NaN.f32 %r9, %r1, %r2;", bits(3.0f), bits(2.0f));
  EXPECT_EQ(flt(r.out), 2.0f);
}

// libdevice's expf rounds an fma down (fma.rm.f32): 1 + 2^-30 is 1 rounded
// down and 1 + 2^-23 rounded up; the default mode gives 1 for both.
TEST(PtxSim, DirectedRoundingOfFma) {
  float tiny = std::ldexp(1.0f, -30);
  Result r = run("  fma.rp.f32 %r9, %r1, %r2, %r3;", bits(1.0f), bits(1.0f),
                 bits(tiny));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(flt(r.out), std::nextafter(1.0f, 2.0f));
  r = run("  fma.rm.f32 %r9, %r1, %r2, %r3;", bits(1.0f), bits(1.0f),
          bits(-tiny));
  EXPECT_EQ(flt(r.out), std::nextafter(1.0f, 0.0f));
  r = run("  fma.rn.f32 %r9, %r1, %r2, %r3;", bits(1.0f), bits(1.0f),
          bits(-tiny));
  EXPECT_EQ(flt(r.out), 1.0f);
  r = run("  add.rz.f32 %r9, %r1, %r2;", bits(1.0f),
          bits(std::ldexp(1.0f, -24) * 1.5f));
  EXPECT_EQ(flt(r.out), 1.0f);
  r = run("  add.rn.f32 %r9, %r1, %r2;", bits(1.0f),
          bits(std::ldexp(1.0f, -24) * 1.5f));
  EXPECT_EQ(flt(r.out), std::nextafter(1.0f, 2.0f));
}

} // namespace
