//===- AttentionReference.h - scaled dot-product attention in double ------===//
//
// The float64 host reference of the attention tests (interpreter and
// builder): PyTorch's scaled_dot_product_attention with is_causal's
// top-left mask, grouped-query heads (query head h reads K/V head
// h / (H / Hkv)), and the natural-log log-sum-exp of the scaled scores that
// the forward saves for the backward.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_UNIT_ATTENTIONREFERENCE_H
#define TILEC_TEST_UNIT_ATTENTIONREFERENCE_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tilec::test {

struct AttentionShape {
  int64_t batch, heads, kvHeads, seq, dim;
  bool causal;
  double scale;
};

/// q is [batch, heads, seq, dim], k and v [batch, kvHeads, seq, dim], all
/// contiguous; o gets [batch, heads, seq, dim] and lse [batch, heads, seq].
inline void attentionReference(const AttentionShape &s,
                               const std::vector<float> &q,
                               const std::vector<float> &k,
                               const std::vector<float> &v,
                               std::vector<double> &o,
                               std::vector<double> &lse) {
  int64_t group = s.heads / s.kvHeads, S = s.seq, D = s.dim;
  o.assign(s.batch * s.heads * S * D, 0);
  lse.assign(s.batch * s.heads * S, 0);
  std::vector<double> p(S);
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h) {
      const float *qh = &q[(b * s.heads + h) * S * D];
      const float *kh = &k[(b * s.kvHeads + h / group) * S * D];
      const float *vh = &v[(b * s.kvHeads + h / group) * S * D];
      for (int64_t i = 0; i < S; ++i) {
        int64_t keys = s.causal ? i + 1 : S;
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < keys; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += double(qh[i * D + d]) * kh[j * D + d];
          p[j] = dot * s.scale;
          mx = std::max(mx, p[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < keys; ++j)
          sum += p[j] = std::exp(p[j] - mx);
        double *oi = &o[((b * s.heads + h) * S + i) * D];
        for (int64_t j = 0; j < keys; ++j)
          for (int64_t d = 0; d < D; ++d)
            oi[d] += p[j] / sum * vh[j * D + d];
        lse[(b * s.heads + h) * S + i] = mx + std::log(sum);
      }
    }
}

/// The gradients of attentionReference's O for the upstream gradient dO
/// ([batch, heads, seq, dim]): dq like q, dk and dv like k and v (summed
/// over the query heads of each group), in double, from P recomputed
/// exactly: dV = P^T dO, dP = dO V^T, dS = P * (dP - rowsum(dO * O)),
/// dQ = scale dS K, dK = scale dS^T Q.
inline void attentionBackwardReference(
    const AttentionShape &s, const std::vector<float> &q,
    const std::vector<float> &k, const std::vector<float> &v,
    const std::vector<float> &dout, std::vector<double> &dq,
    std::vector<double> &dk, std::vector<double> &dv) {
  int64_t group = s.heads / s.kvHeads, S = s.seq, D = s.dim;
  dq.assign(s.batch * s.heads * S * D, 0);
  dk.assign(s.batch * s.kvHeads * S * D, 0);
  dv.assign(s.batch * s.kvHeads * S * D, 0);
  std::vector<double> p(S), dp(S);
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h) {
      int64_t qh = (b * s.heads + h) * S * D,
              kh = (b * s.kvHeads + h / group) * S * D;
      for (int64_t i = 0; i < S; ++i) {
        int64_t keys = s.causal ? i + 1 : S;
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < keys; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += double(q[qh + i * D + d]) * k[kh + j * D + d];
          p[j] = dot * s.scale;
          mx = std::max(mx, p[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < keys; ++j)
          sum += p[j] = std::exp(p[j] - mx);
        double delta = 0; // rowsum(dO * O) = sum_j P_ij dP_ij
        for (int64_t j = 0; j < keys; ++j) {
          p[j] /= sum;
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += double(dout[qh + i * D + d]) * v[kh + j * D + d];
          dp[j] = dot;
          delta += p[j] * dot;
        }
        for (int64_t j = 0; j < keys; ++j) {
          double ds = p[j] * (dp[j] - delta);
          for (int64_t d = 0; d < D; ++d) {
            dv[kh + j * D + d] += p[j] * dout[qh + i * D + d];
            dq[qh + i * D + d] += s.scale * ds * k[kh + j * D + d];
            dk[kh + j * D + d] += s.scale * ds * q[qh + i * D + d];
          }
        }
      }
    }
}

} // namespace tilec::test

#endif // TILEC_TEST_UNIT_ATTENTIONREFERENCE_H
