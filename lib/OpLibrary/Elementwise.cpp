//===- Elementwise.cpp - PyTorch's pointwise ops, and matmul of tiles -----===//
//
// Composite activations (gelu, silu, softplus, ...) compute in f32 for
// f16/bf16 inputs and round once, as PyTorch's CUDA kernels do; integers
// give f32 where PyTorch does.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include <cmath>

namespace tilec::ops {

using detail::opmath;

/// The dtype of a math op's result: the input's float type, f32 for ints.
static DType mathResult(const Value &x) {
  return isFloat(x.dtype()) ? x.dtype() : DType::F32;
}

/// Fails for null and pointer inputs of an activation.
static void requireNumbers(const Value &x, std::string_view op) {
  if (x.isNull())
    buildError(op, "the input is a default-constructed (null) Value");
  if (x.isPointer())
    buildError(op, "needs a tile of numbers, got " + x.typeStr());
}

Value add(const Operand &a, const Operand &b, SourceLoc loc) {
  CallSite site("add", loc);
  return a + b;
}

Value sub(const Operand &a, const Operand &b, SourceLoc loc) {
  CallSite site("sub", loc);
  return a - b;
}

Value mul(const Operand &a, const Operand &b, SourceLoc loc) {
  CallSite site("mul", loc);
  return a * b;
}

/// An operand as floats: integer Values and numbers become f32.
static Operand asFloat(const Operand &x) {
  switch (x.kind()) {
  case Operand::Kind::Value:
    return isFloat(x.value().dtype()) ? x : Operand(x.value().to(DType::F32));
  case Operand::Kind::Float:
    return x;
  case Operand::Kind::Unsigned:
    return static_cast<double>(x.unsignedValue());
  default:
    return static_cast<double>(x.intValue());
  }
}

Value div(const Operand &a, const Operand &b, SourceLoc loc) {
  CallSite site("div", loc);
  // torch.div is true division: integers divide as floats.
  if (!isFloat(resultType({a, b})))
    return asFloat(a) / asFloat(b);
  return a / b;
}

Value neg(const Value &x, SourceLoc loc) {
  CallSite site("neg", loc);
  return -x;
}

Value relu(const Value &x, SourceLoc loc) {
  CallSite site("relu", loc);
  requireNumbers(x, "relu");
  if (x.dtype() == DType::I1)
    buildError("relu", "is not defined for i1 tiles (" + x.typeStr() + ")");
  // maximum, not a compare-select: relu(NaN) is NaN.
  return maximum(x, 0);
}

Value gelu(const Value &x, std::string_view approximate, SourceLoc loc) {
  CallSite site("gelu", loc);
  requireNumbers(x, "gelu");
  if (approximate != "none" && approximate != "tanh")
    buildError("gelu", "approximate must be \"none\" or \"tanh\", got \"" +
                           std::string(approximate) + "\"");
  if (!isFloat(x.dtype()))
    buildError("gelu", "needs a floating-point tile, got " + x.typeStr());
  Value v = opmath(x);
  Value g;
  if (approximate == "tanh") {
    const double kBeta = std::sqrt(2.0 / M_PI), kKappa = 0.044715;
    Value inner = kBeta * (v + kKappa * v * v * v);
    g = 0.5 * v * (1 + tanh(inner));
  } else {
    g = 0.5 * v * (1 + erf(v * M_SQRT1_2));
  }
  return g.to(x.dtype());
}

Value sigmoid(const Value &x, SourceLoc loc) {
  CallSite site("sigmoid", loc);
  requireNumbers(x, "sigmoid");
  Value v = opmath(x);
  return (1 / (1 + exp(-v))).to(mathResult(x));
}

Value silu(const Value &x, SourceLoc loc) {
  CallSite site("silu", loc);
  requireNumbers(x, "silu");
  if (!isFloat(x.dtype()))
    buildError("silu", "needs a floating-point tile, got " + x.typeStr());
  Value v = opmath(x);
  return (v / (1 + exp(-v))).to(x.dtype());
}

Value softplus(const Value &x, double beta, double threshold, SourceLoc loc) {
  CallSite site("softplus", loc);
  requireNumbers(x, "softplus");
  if (!isFloat(x.dtype()))
    buildError("softplus", "needs a floating-point tile, got " + x.typeStr());
  Value v = opmath(x);
  Value bx = v * beta;
  // Above the threshold log1p(exp(bx)) / beta equals x to f32 precision and
  // exp would overflow.
  return where(bx > threshold, v, log1p(exp(bx)) / beta).to(x.dtype());
}

Value clamp(const Value &x, const std::optional<Operand> &min,
            const std::optional<Operand> &max, SourceLoc loc) {
  CallSite site("clamp", loc);
  requireNumbers(x, "clamp");
  if (!min && !max)
    buildError("clamp", "at least one of min and max must be given");
  Value r = x;
  if (min)
    r = maximum(r, *min);
  if (max)
    r = minimum(r, *max);
  return r;
}

Value matmul(const Value &a, const Value &b, SourceLoc loc) {
  CallSite site("matmul", loc);
  requireNumbers(a, "matmul");
  requireNumbers(b, "matmul");
  Value r = a.kernel().dot(a, b);
  return isFloat(a.dtype()) ? r.to(a.dtype()) : r;
}

} // namespace tilec::ops
