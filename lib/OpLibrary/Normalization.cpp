//===- Normalization.cpp - softmax, log_softmax, layer_norm, rms_norm -----===//
//
// All four compute in f32 (for f16/bf16 inputs), exclude padding from their
// reductions, divide by the true count and round to the input dtype once.
// Softmax subtracts the maximum first, so exp never overflows.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

namespace tilec::ops {

using detail::maskedMax;
using detail::maskedSum;
using detail::opmath;
using detail::validCount;

Value softmax(const Value &x, int dim, SourceLoc loc) {
  CallSite site("softmax", loc);
  int d = detail::normalizeDim(x, dim, "softmax");
  detail::requireFloat(x, "softmax");
  // A 1-D tile reduces to a scalar, which broadcasts without keepdim.
  bool keep = x.rank() > 1;
  Value v = opmath(x);
  Value e = exp(v - maskedMax(v, d, keep));
  return (e / maskedSum(e, d, keep)).to(x.dtype());
}

Value log_softmax(const Value &x, int dim, SourceLoc loc) {
  CallSite site("log_softmax", loc);
  int d = detail::normalizeDim(x, dim, "log_softmax");
  detail::requireFloat(x, "log_softmax");
  // A 1-D tile reduces to a scalar, which broadcasts without keepdim.
  bool keep = x.rank() > 1;
  Value v = opmath(x);
  Value shifted = v - maskedMax(v, d, keep);
  Value lse = log(maskedSum(exp(shifted), d, keep));
  return (shifted - lse).to(x.dtype());
}

Value layer_norm(const Value &x, const std::optional<Value> &weight,
                 const std::optional<Value> &bias, const Operand &eps,
                 SourceLoc loc) {
  CallSite site("layer_norm", loc);
  int d = detail::normalizeDim(x, -1, "layer_norm");
  detail::requireFloat(x, "layer_norm");
  // A 1-D tile reduces to a scalar, which broadcasts without keepdim.
  bool keep = x.rank() > 1;
  Value v = opmath(x);
  Value n = validCount(v, d, keep);
  Value centered = v - maskedSum(v, d, keep) / n;
  // Biased variance, two-pass: no cancellation for large means.
  Value var = maskedSum(centered * centered, d, keep) / n;
  Value y = centered * rsqrt(var + eps);
  if (weight)
    y = y * *weight;
  if (bias)
    y = y + *bias;
  return y.to(x.dtype());
}

/// torch.finfo(type).eps.
static double epsilonOf(DType type) {
  switch (type) {
  case DType::F16:
    return 0.0009765625;
  case DType::BF16:
    return 0.0078125;
  case DType::F64:
    return 2.220446049250313e-16;
  case DType::F8E4M3FN:
    return 0.125;
  case DType::F8E5M2:
    return 0.25;
  default:
    return 1.1920928955078125e-07;
  }
}

Value rms_norm(const Value &x, const std::optional<Value> &weight,
               const std::optional<Operand> &eps, SourceLoc loc) {
  CallSite site("rms_norm", loc);
  int d = detail::normalizeDim(x, -1, "rms_norm");
  detail::requireFloat(x, "rms_norm");
  // A 1-D tile reduces to a scalar, which broadcasts without keepdim.
  bool keep = x.rank() > 1;
  Value v = opmath(x);
  Value ms = maskedSum(v * v, d, keep) / validCount(v, d, keep);
  Operand e = eps ? *eps : Operand(epsilonOf(x.dtype()));
  Value y = v * rsqrt(ms + e);
  if (weight)
    y = y * *weight;
  return y.to(x.dtype());
}

} // namespace tilec::ops
