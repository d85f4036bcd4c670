//===- Common.h - helpers shared by the op library --------------*- C++ -*-===//
//
// Everything here uses the public builder API only. Each public op opens a
// CallSite with its PyTorch name, so the ops it builds carry the user's line.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_OPS_COMMON_H
#define TILEC_LIB_OPS_COMMON_H

#include "tilec/Ops.h"

#include <string>

namespace tilec::ops::detail {

/// f16, bf16 and the f8 formats: computed in f32 (PyTorch's opmath type).
inline bool isNarrowFloat(DType t) { return isFloat(t) && bitWidth(t) < 32; }

/// `x` in the type its math runs in: f32 for narrow floats and integers.
inline Value opmath(const Value &x) {
  DType t = x.dtype();
  if (isNarrowFloat(t) || isInteger(t))
    return x.to(DType::F32);
  return x;
}

/// Fails unless `x` (checked non-null by normalizeDim) holds floats, as
/// PyTorch's mean/var/norms require.
inline void requireFloat(const Value &x, std::string_view op) {
  if (x.isPointer() || !isFloat(x.dtype()))
    buildError(op, "needs a floating-point tile (as torch." + std::string(op) +
                       "), got " + x.typeStr());
}

/// `dim` normalized against `x`'s rank; fails for scalars and out-of-range
/// dims.
int normalizeDim(const Value &x, int dim, std::string_view op);

/// Reduces `x` along `dim` with `combiner`, lanes that are padding along
/// `dim` replaced by `neutral` first. The result is padding where every lane
/// reduced was padding.
Value maskedReduce(const Value &x, int dim, bool keepdim,
                   const std::function<Value(Value, Value)> &combiner,
                   const Operand &neutral);

/// The number of non-padding lanes along `dim` (an f32 scalar or tile that
/// broadcasts against the reduced result, with keepdim).
Value validCount(const Value &x, int dim, bool keepdim);

/// The sum along `dim` of `x` (already in its compute type), padding
/// excluded.
Value maskedSum(const Value &x, int dim, bool keepdim);

/// The maximum along `dim`, padding excluded; NaN propagates.
Value maskedMax(const Value &x, int dim, bool keepdim);

/// The attention generators' shared checks of `config` (dtype, powers of
/// two, blockM a multiple of blockN), as errors of generator `gen`;
/// `diagonalOf` names the program whose causal diagonal needs the last
/// ("" or "dQ "), or is null when no program's diagonal depends on the
/// blocks (the dK/dV kernel without stored dS).
void checkAttentionConfig(const AttentionConfig &config, const char *gen,
                          const char *diagonalOf);

} // namespace tilec::ops::detail

#endif // TILEC_LIB_OPS_COMMON_H
