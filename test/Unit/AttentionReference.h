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

} // namespace tilec::test

#endif // TILEC_TEST_UNIT_ATTENTIONREFERENCE_H
