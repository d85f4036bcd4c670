//===- AttentionTest.cpp - examples/attention.tile against float64 --------===//
//
// The flash attention forward runs in the interpreter at small ragged sizes
// (seq not a multiple of the 128-query or 64-key blocks), causal and not,
// multi-head and grouped-query, with contiguous [batch, heads, seq, dim]
// tensors and with [batch, seq, heads, dim] ones (strides as parameters),
// against attentionReference, at head_dim 64 (the file's default) and 128
// (`--param HEAD_DIM=128 --param num_warps=8`). O is bf16 (P is rounded to
// bf16 before P V), so it is compared at bf16 tolerance; lse is f32.
//
//===----------------------------------------------------------------------===//

#include "../AttentionReference.h"
#include "TestUtil.h"

#include "tilec/Params.h"

using namespace tilec;
using namespace tilec::test;

namespace {

class AttentionTest : public InterpreterTest {};

struct Case {
  int64_t batch, heads, kvHeads, seq;
  bool causal;
  bool seqMajor; ///< [batch, seq, heads, dim] storage instead of bhsd
};

/// Strides (batch, head, seq) in elements of a [b, h, s, D] tensor stored
/// bhsd or bshd.
struct Strides {
  int32_t b, h, s;
};
Strides stridesOf(const Case &c, int64_t heads, int64_t D) {
  if (c.seqMajor)
    return {int32_t(c.seq * heads * D), int32_t(D), int32_t(heads * D)};
  return {int32_t(heads * c.seq * D), int32_t(c.seq * D), int32_t(D)};
}

/// bf16 storage of the contiguous bhsd values `x` at the given strides.
std::vector<uint16_t> pack(const std::vector<float> &x, const Case &c,
                           int64_t heads, Strides st, int64_t D) {
  std::vector<uint16_t> out(x.size());
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t s = 0; s < c.seq; ++s)
        for (int64_t d = 0; d < D; ++d)
          out[b * st.b + h * st.h + s * st.s + d] =
              toBF16(x[((b * heads + h) * c.seq + s) * D + d]);
  return out;
}

/// The values the kernel sees: x rounded to bf16.
std::vector<float> roundBF16(std::vector<float> x) {
  for (float &v : x)
    v = fromBF16(toBF16(v));
  return x;
}

void runCases(mlir::ModuleOp module, int64_t D, std::string &errors) {
  for (Case c : {Case{1, 2, 2, 100, false, false}, Case{1, 2, 2, 100, true, false},
                 Case{2, 4, 2, 100, true, true}, Case{1, 4, 1, 150, false, true},
                 Case{1, 2, 2, 1, true, false}, Case{1, 1, 1, 200, true, false}}) {
    std::string what = "attention D=" + std::to_string(D) +
                       " B=" + std::to_string(c.batch) +
                       " H=" + std::to_string(c.heads) +
                       " Hkv=" + std::to_string(c.kvHeads) +
                       " S=" + std::to_string(c.seq) +
                       (c.causal ? " causal" : "") +
                       (c.seqMajor ? " bshd" : " bhsd");
    int64_t nq = c.batch * c.heads * c.seq * D,
            nkv = c.batch * c.kvHeads * c.seq * D;
    // Scores of a few units (|q.k| * scale up to ~5) make the softmax peaked
    // enough that the online rescaling matters.
    auto qf = roundBF16(randomFloats(nq, 41, -2, 2));
    auto kf = roundBF16(randomFloats(nkv, 42, -2, 2));
    auto vf = roundBF16(randomFloats(nkv, 43));
    Strides sq = stridesOf(c, c.heads, D), skv = stridesOf(c, c.kvHeads, D);
    auto q = pack(qf, c, c.heads, sq, D), k = pack(kf, c, c.kvHeads, skv, D),
         v = pack(vf, c, c.kvHeads, skv, D);
    std::vector<uint16_t> o(nq);
    std::vector<float> lse(c.batch * c.heads * c.seq);
    double scale = 1 / std::sqrt(double(D));
    ASSERT_TRUE(mlir::succeeded(runKernel(
        module, "attention", {ceilDiv(c.seq, 128), c.batch * c.heads},
        {Arg::buffer(q.data(), q.size(), DType::BF16),
         Arg::buffer(k.data(), k.size(), DType::BF16),
         Arg::buffer(v.data(), v.size(), DType::BF16),
         Arg::output(o.data(), o.size(), DType::BF16),
         Arg::output(lse.data(), lse.size()), Arg::scalar(int32_t(c.batch)),
         Arg::scalar(int32_t(c.seq)),
         Arg::scalar(int32_t(c.heads)),
         Arg::scalar(int32_t(c.heads / c.kvHeads)), Arg::scalar(sq.b),
         Arg::scalar(sq.h), Arg::scalar(sq.s), Arg::scalar(skv.b),
         Arg::scalar(skv.h), Arg::scalar(skv.s), Arg::scalar(skv.b),
         Arg::scalar(skv.h), Arg::scalar(skv.s), Arg::scalar(sq.b),
         Arg::scalar(sq.h), Arg::scalar(sq.s), Arg::scalar(float(scale)),
         Arg::scalar(c.causal)})))
        << what << ": " << errors;
    std::vector<double> wantO, wantL;
    attentionReference({c.batch, c.heads, c.kvHeads, c.seq, D, c.causal, scale},
                       qf, kf, vf, wantO, wantL);
    std::vector<float> gotO(nq), wantOf(nq);
    for (int64_t b = 0; b < c.batch; ++b)
      for (int64_t h = 0; h < c.heads; ++h)
        for (int64_t s = 0; s < c.seq; ++s)
          for (int64_t d = 0; d < D; ++d) {
            int64_t i = ((b * c.heads + h) * c.seq + s) * D + d;
            gotO[i] = fromBF16(o[b * sq.b + h * sq.h + s * sq.s + d]);
            wantOf[i] = float(wantO[i]);
          }
    expectClose(gotO, wantOf, 1e-2, 1e-2, what + " O");
    std::vector<float> wantLf(wantL.begin(), wantL.end());
    expectClose(lse, wantLf, 1e-4, 1e-4, what + " lse");
  }
}

TEST_F(AttentionTest, Forward) {
  auto module = parseExample("attention.tile");
  ASSERT_TRUE(module);
  runCases(*module, 64, errors);
}

TEST_F(AttentionTest, ForwardHeadDim128) {
  llvm::SourceMgr sourceMgr;
  TileParams params;
  std::string readError;
  auto module = parseTileFileWithParams(
      std::string(TILEC_EXAMPLES_DIR) + "/attention.tile", sourceMgr, context,
      {{"HEAD_DIM", 128}, {"num_warps", 8}}, params, readError);
  ASSERT_TRUE(module) << readError << errors;
  EXPECT_EQ(params.describeChosen(), "HEAD_DIM=128, num_warps=8");
  runCases(*module, 128, errors);
}

} // namespace
