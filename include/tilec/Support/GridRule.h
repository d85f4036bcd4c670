//===- GridRule.h - launch grids and sizes from kernel arguments -*- C++ -*-===//
//
// A kernel declares how its launch grid follows from its scalar arguments
// (`tile.grid = ["cdiv(M, 128)", "cdiv(N, 128)"]`, docs/dialect.md), how
// many elements a pointer parameter reaches (`tile.extent = "n"`) and the
// sizes of the tensor a parameter addresses (`tile.shape`). Each is a
// small integer expression over the kernel's integer scalar parameters:
//
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '%') unary)*
//   unary   := '-' unary | primary
//   primary := INTEGER | PARAM | FUNC '(' expr ',' expr ')' | '(' expr ')'
//   FUNC    := cdiv | min | max
//
// in 64-bit signed arithmetic: `/` and `%` truncate as in C, cdiv(a, b) is
// the ceiling of a / b, and overflow or a division by zero is an error at
// evaluation. The compiler (the tile dialect's verifier), the runtime's
// metadata reader and the generated PyTorch operators parse the same text
// with this one parser, so a rule means the same everywhere. MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_GRIDRULE_H
#define TILEC_SUPPORT_GRIDRULE_H

#include "tilec/Support/Status.h"

#include <cstdint>
#include <span>
#include <optional>
#include <string>
#include <algorithm>
#include <string_view>
#include <vector>

namespace tilec::grid {

/// What the parser needs to know of one kernel parameter.
struct ParamRef {
  std::string_view name;
  /// An i32 or i64 scalar: the only parameters an expression may name.
  bool integerScalar = false;
  /// How to say what it is otherwise ("a pointer", "an f32 scalar").
  std::string_view what;
  /// A pointer or tensor descriptor (what a Source may name): its rank
  /// when known (a descriptor's; a pointer's tile.shape), 0 when not; -1
  /// for a scalar.
  int tensorRank = -1;
};

/// A parsed expression: a postfix program over the parameters' values.
class Expr {
public:
  /// The most values evaluation keeps at once (deeper nesting is refused at
  /// parse time, so evaluation needs no heap).
  static constexpr int kMaxDepth = 16;

  /// The value for the parameters' values `values` (indexed like the
  /// parameters given to parse(); only the integer scalars named are read).
  /// Errors: overflow, division by zero.
  Expected<int64_t> evaluate(std::span<const int64_t> values) const;

  /// The text it was parsed from.
  const std::string &text() const { return text_; }
  /// The parameter indices it reads, in first-use order.
  const std::vector<int> &params() const { return params_; }
  /// C++ code computing it, with each parameter `i` spelled `names[i]` and
  /// the helpers `cdiv(a, b)`, `std::min`, `std::max` (for generated code
  /// that checks arguments before launching; no overflow checks), every
  /// value of type `type` (`int64_t`; `c10::SymInt` for PyTorch's symbolic
  /// integers, whose operators the code then uses).
  std::string toCpp(std::span<const std::string> names,
                    std::string_view type = "int64_t") const;

  /// Same program over the same parameters (what metadata round trips and
  /// comparisons of kernel metadata need); the texts may differ in blanks.
  bool operator==(const Expr &other) const {
    return params_ == other.params_ && steps_.size() == other.steps_.size() &&
           std::equal(steps_.begin(), steps_.end(), other.steps_.begin(),
                      [](const Step &a, const Step &b) {
                        return a.op == b.op && a.value == b.value;
                      });
  }

private:
  friend Expected<Expr> parse(std::string_view, std::span<const ParamRef>);
  enum class Op : uint8_t { Const, Param, Neg, Add, Sub, Mul, Div, Mod,
                            CDiv, Min, Max };
  struct Step {
    Op op;
    int64_t value; ///< Const: the constant; Param: the parameter index
  };
  std::string text_;
  std::vector<Step> steps_;
  std::vector<int> params_;
};

/// Parses `text` against a kernel's parameters. An error says where in the
/// text (a 1-based character position) and what is wrong: bad syntax, an
/// unknown parameter, a parameter that is not an integer scalar:
///   at character 6 of "cdiv(m, 1024)": unknown parameter 'm' (the
///   kernel's integer parameters: n)
Expected<Expr> parse(std::string_view text, std::span<const ParamRef> params);

/// Where a binding that is given tensors takes an integer scalar argument
/// from, instead of the caller (`tile.from = "a.size(0)"` on the scalar,
/// docs/dialect.md):
///
///   source := term ( '/' term )?
///   term   := PARAM '.' ( 'size' '(' INT ')' | 'stride' '(' INT ')'
///                       | 'numel' '(' ')' )
///
/// PARAM is a pointer or tensor descriptor parameter; a negative INT
/// counts from the last dimension, as PyTorch's `t.size(-1)`. Strides are
/// in elements. A quotient (`"q.size(1) / k.size(1)"`, `"x.numel() /
/// x.size(-1)"`) divides sizes or numel() exactly: a binding refuses
/// tensors whose divisor is zero or does not divide. The numerator is the
/// Term the Source is.
struct Source {
  enum class Kind : uint8_t { Size, Stride, Numel };
  struct Term {
    Kind kind = Kind::Size;
    /// The tensor parameter's index.
    int param = -1;
    /// Size, Stride: the dimension as written (may be negative).
    int dim = 0;
    bool operator==(const Term &) const = default;
  };
  Kind kind = Kind::Size;
  int param = -1;
  int dim = 0;
  /// A quotient's divisor.
  std::optional<Term> divisor;
  /// The text it was parsed from.
  std::string text;

  Term numerator() const { return {kind, param, dim}; }
  bool operator==(const Source &o) const {
    return numerator() == o.numerator() && divisor == o.divisor;
  }
};

/// The value of `term` for a tensor of `rank` dimensions with these sizes
/// and strides (null: compact row-major); an error if the tensor lacks the
/// dimension.
Expected<int64_t> termValue(const Source::Term &term, const int64_t *sizes,
                            const int64_t *strides, int rank);

/// Parses `text` against a kernel's parameters; errors as parse()'s, and
/// for a parameter that is not a tensor or a dimension out of its known
/// rank:
///   at character 1 of "n.size(0)": parameter 'n' is an i32 scalar, not a
///   tensor (a pointer or a tensor descriptor)
Expected<Source> parseSource(std::string_view text,
                             std::span<const ParamRef> params);

/// A launch grid: one expression per dimension, x first (1 to 3).
struct Rule {
  std::vector<Expr> dims;
  bool empty() const { return dims.empty(); }
  /// `["cdiv(n, 1024)"]`, for messages and docs.
  std::string text() const;

  bool operator==(const Rule &) const = default;
};

} // namespace tilec::grid

#endif // TILEC_SUPPORT_GRIDRULE_H
