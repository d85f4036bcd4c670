//===- GridRule.cpp - parsing and evaluating grid expressions -------------===//
//
// A recursive-descent parser (the grammar is in GridRule.h) that emits a
// postfix program; evaluation runs it on a fixed-size stack with overflow
// checks, so a launch pays a few dozen instructions for its grid.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/GridRule.h"

#include <cctype>

namespace tilec::grid {

namespace {

bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The parser state lives in one struct so that the recursive functions stay
// small.
struct Parser {
  std::string_view text;
  std::span<const ParamRef> params;
  size_t pos = 0;
  int depth = 0, maxDepth = 0;
  std::string error;
  size_t errorAt = 0;

  struct Step {
    uint8_t op;
    int64_t value;
  };
  std::vector<Step> steps;
  std::vector<int> used;

  bool fail(size_t at, std::string message) {
    if (error.empty()) {
      error = std::move(message);
      errorAt = at;
    }
    return false;
  }
  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool peek(char c) {
    skipSpace();
    return pos < text.size() && text[pos] == c;
  }
  bool expect(char c, const char *what) {
    if (peek(c)) {
      ++pos;
      return true;
    }
    return fail(pos, std::string("expected ") + what +
                         (pos < text.size()
                              ? std::string(" but found '") + text[pos] + "'"
                              : std::string(" but the expression ends")));
  }
  /// Each value pushed deepens the evaluation stack; each binary op pops one.
  bool push(uint8_t op, int64_t value, size_t at) {
    steps.push_back({op, value});
    if (++depth > maxDepth)
      maxDepth = depth;
    if (depth > Expr::kMaxDepth)
      return fail(at, "the expression nests more than " +
                          std::to_string(Expr::kMaxDepth) + " values deep");
    return true;
  }
  void binary(uint8_t op) {
    steps.push_back({op, 0});
    --depth;
  }

  bool parseExpr();
  bool parseTerm();
  bool parseUnary();
  bool parsePrimary();
  bool parseIdentifier();
};

// Op codes as Expr::Op (parse() checks that they agree).
enum : uint8_t { kConst, kParam, kNeg, kAdd, kSub, kMul, kDiv, kMod, kCDiv,
                 kMin, kMax };

bool Parser::parseExpr() {
  if (!parseTerm())
    return false;
  while (peek('+') || peek('-')) {
    char op = text[pos++];
    if (!parseTerm())
      return false;
    binary(op == '+' ? kAdd : kSub);
  }
  return true;
}

bool Parser::parseTerm() {
  if (!parseUnary())
    return false;
  while (peek('*') || peek('/') || peek('%')) {
    char op = text[pos++];
    if (!parseUnary())
      return false;
    binary(op == '*' ? kMul : op == '/' ? kDiv : kMod);
  }
  return true;
}

bool Parser::parseUnary() {
  if (peek('-')) {
    ++pos;
    if (!parseUnary())
      return false;
    steps.push_back({kNeg, 0});
    return true;
  }
  return parsePrimary();
}

bool Parser::parsePrimary() {
  skipSpace();
  if (pos >= text.size())
    return fail(pos, "expected a number, a parameter or '(' but the "
                     "expression ends");
  char c = text[pos];
  if (c == '(') {
    ++pos;
    return parseExpr() && expect(')', "')'");
  }
  if (std::isdigit(static_cast<unsigned char>(c))) {
    size_t start = pos;
    int64_t v = 0;
    while (pos < text.size() &&
           std::isdigit(static_cast<unsigned char>(text[pos]))) {
      if (__builtin_mul_overflow(v, 10, &v) ||
          __builtin_add_overflow(v, text[pos] - '0', &v))
        return fail(start, "the number " +
                               std::string(text.substr(start, 20)) +
                               " does not fit in 64 bits");
      ++pos;
    }
    if (pos < text.size() && isIdentChar(text[pos]))
      return fail(pos, "a number must not run into letters");
    return push(kConst, v, start);
  }
  if (isIdentStart(c))
    return parseIdentifier();
  return fail(pos, std::string("expected a number, a parameter or '(' but "
                               "found '") +
                       c + "'");
}

bool Parser::parseIdentifier() {
  size_t start = pos;
  while (pos < text.size() && isIdentChar(text[pos]))
    ++pos;
  std::string_view name = text.substr(start, pos - start);
  if (peek('(')) {
    uint8_t op = name == "cdiv" ? kCDiv
                 : name == "min" ? kMin
                 : name == "max" ? kMax
                                 : kConst;
    if (op == kConst)
      return fail(start, "unknown function '" + std::string(name) +
                             "' (the functions: cdiv, min, max)");
    ++pos;
    std::string comma = "',' (" + std::string(name) + " takes two arguments)";
    if (!parseExpr() || !expect(',', comma.c_str()))
      return false;
    if (!parseExpr() || !expect(')', "')'"))
      return false;
    binary(op);
    return true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].name != name)
      continue;
    if (!params[i].integerScalar)
      return fail(start, "parameter '" + std::string(name) + "' is " +
                             std::string(params[i].what) +
                             "; a grid or extent rule reads i32 and i64 "
                             "scalar parameters only");
    bool seen = false;
    for (int u : used)
      seen |= u == int(i);
    if (!seen)
      used.push_back(int(i));
    return push(kParam, int64_t(i), start);
  }
  std::string known;
  for (const ParamRef &p : params)
    if (p.integerScalar)
      known += (known.empty() ? "" : ", ") + std::string(p.name);
  return fail(start, "unknown parameter '" + std::string(name) +
                         "' (the kernel's integer parameters: " +
                         (known.empty() ? "none" : known) + ")");
}

} // namespace

Expected<Expr> parse(std::string_view text, std::span<const ParamRef> params) {
  static_assert(uint8_t(Expr::Op::Const) == kConst &&
                uint8_t(Expr::Op::Param) == kParam &&
                uint8_t(Expr::Op::Neg) == kNeg &&
                uint8_t(Expr::Op::CDiv) == kCDiv &&
                uint8_t(Expr::Op::Max) == kMax);
  Parser p;
  p.text = text;
  p.params = params;
  bool ok = p.parseExpr();
  if (ok) {
    p.skipSpace();
    if (p.pos < text.size())
      ok = p.fail(p.pos, std::string("unexpected '") + text[p.pos] +
                             "' after the expression");
  }
  if (!ok)
    return Status::error("at character " + std::to_string(p.errorAt + 1) +
                         " of \"" + std::string(text) + "\": " + p.error);
  Expr e;
  e.text_ = std::string(text);
  for (const Parser::Step &s : p.steps)
    e.steps_.push_back({static_cast<Expr::Op>(s.op), s.value});
  e.params_ = std::move(p.used);
  return e;
}

Expected<Source> parseSource(std::string_view text,
                             std::span<const ParamRef> params) {
  Parser p;
  p.text = text;
  p.params = params;
  Source s;
  s.text = std::string(text);
  auto word = [&]() {
    p.skipSpace();
    size_t start = p.pos;
    while (p.pos < text.size() && isIdentChar(text[p.pos]))
      ++p.pos;
    return text.substr(start, p.pos - start);
  };
  std::optional<Status> error;
  auto fail = [&](size_t at, const std::string &message) {
    error = Status::error("at character " + std::to_string(at + 1) + " of \"" +
                          std::string(text) + "\": " + message);
    return std::nullopt;
  };
  // One `PARAM.size(d)`, `PARAM.stride(d)` or `PARAM.numel()`.
  auto term = [&]() -> std::optional<Source::Term> {
    Source::Term t;
    p.skipSpace();
    size_t nameAt = p.pos;
    std::string_view name = word();
    if (name.empty() || !isIdentStart(name[0]))
      return fail(nameAt, "expected a tensor parameter's name (as in "
                          "\"a.size(0)\")");
    const ParamRef *ref = nullptr;
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].name == name) {
        ref = &params[i];
        t.param = int(i);
      }
    if (!ref) {
      std::string known;
      for (const ParamRef &r : params)
        if (r.tensorRank >= 0)
          known += (known.empty() ? "" : ", ") + std::string(r.name);
      return fail(nameAt, "unknown parameter '" + std::string(name) +
                              "' (the kernel's tensor parameters: " +
                              (known.empty() ? "none" : known) + ")");
    }
    if (ref->tensorRank < 0)
      return fail(nameAt, "parameter '" + std::string(name) + "' is " +
                              std::string(ref->what) +
                              ", not a tensor (a pointer or a tensor "
                              "descriptor)");
    if (!p.expect('.', "'.' after the parameter"))
      return fail(p.errorAt, p.error);
    size_t methodAt = (p.skipSpace(), p.pos);
    std::string_view method = word();
    if (method == "size")
      t.kind = Source::Kind::Size;
    else if (method == "stride")
      t.kind = Source::Kind::Stride;
    else if (method == "numel")
      t.kind = Source::Kind::Numel;
    else
      return fail(methodAt, "expected size(d), stride(d) or numel() but "
                            "found '" +
                                std::string(method) + "'");
    if (!p.expect('(', "'('"))
      return fail(p.errorAt, p.error);
    if (t.kind != Source::Kind::Numel) {
      p.skipSpace();
      size_t dimAt = p.pos;
      bool negative = p.peek('-');
      if (negative)
        ++p.pos;
      size_t digits = p.pos;
      int64_t dim = 0;
      while (p.pos < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[p.pos])) &&
             dim < 100)
        dim = dim * 10 + (text[p.pos++] - '0');
      if (p.pos == digits)
        return fail(dimAt, "expected a dimension (an integer)");
      t.dim = int(negative ? -dim : dim);
      int rank = ref->tensorRank;
      if (rank > 0 ? t.dim >= rank || t.dim < -rank : dim >= 5)
        return fail(dimAt, "dimension " + std::to_string(t.dim) +
                               " is out of range for '" + std::string(name) +
                               "'" +
                               (rank > 0
                                    ? " (rank " + std::to_string(rank) + ")"
                                    : " (tensors have at most 5)"));
    }
    if (!p.expect(')', "')'"))
      return fail(p.errorAt, p.error);
    return t;
  };
  size_t numeratorAt = (p.skipSpace(), p.pos);
  std::optional<Source::Term> numerator = term();
  if (!numerator)
    return *error;
  s.kind = numerator->kind, s.param = numerator->param, s.dim = numerator->dim;
  p.skipSpace();
  if (p.peek('/')) {
    ++p.pos;
    size_t divisorAt = (p.skipSpace(), p.pos);
    s.divisor = term();
    if (!s.divisor)
      return *error;
    // A stride is the one source whose tensor may be a strided view; a
    // quotient of one would say nothing a kernel can rely on.
    for (auto [t, at] : {std::pair{*numerator, numeratorAt},
                         {*s.divisor, divisorAt}})
      if (t.kind == Source::Kind::Stride) {
        fail(at, "a quotient divides sizes or numel(), not strides");
        return *error;
      }
    p.skipSpace();
  }
  if (p.pos < text.size()) {
    fail(p.pos, std::string("unexpected '") + text[p.pos] +
                    "' after the source");
    return *error;
  }
  return s;
}

Expected<int64_t> termValue(const Source::Term &term, const int64_t *sizes,
                            const int64_t *strides, int rank) {
  int64_t value = 1;
  if (term.kind == Source::Kind::Numel) {
    for (int d = 0; d < rank; ++d)
      value *= sizes[d];
    return value;
  }
  int d = term.dim < 0 ? term.dim + rank : term.dim;
  if (d < 0 || d >= rank)
    return Status::error("dimension " + std::to_string(term.dim) +
                         " is out of range for a tensor of rank " +
                         std::to_string(rank));
  if (term.kind == Source::Kind::Size)
    return sizes[d];
  if (strides)
    return strides[d];
  for (int e = d + 1; e < rank; ++e) // compact row-major
    value *= sizes[e];
  return value;
}

Expected<int64_t> Expr::evaluate(std::span<const int64_t> values) const {
  int64_t stack[kMaxDepth];
  int top = 0;
  auto overflow = [&] {
    return Status::error("\"" + text_ + "\" overflows 64-bit integers");
  };
  for (const Step &s : steps_) {
    if (s.op == Op::Const) {
      stack[top++] = s.value;
      continue;
    }
    if (s.op == Op::Param) {
      stack[top++] = values[size_t(s.value)];
      continue;
    }
    if (s.op == Op::Neg) {
      if (stack[top - 1] == INT64_MIN)
        return overflow();
      stack[top - 1] = -stack[top - 1];
      continue;
    }
    int64_t b = stack[--top];
    int64_t &a = stack[top - 1];
    switch (s.op) {
    case Op::Add:
      if (__builtin_add_overflow(a, b, &a))
        return overflow();
      break;
    case Op::Sub:
      if (__builtin_sub_overflow(a, b, &a))
        return overflow();
      break;
    case Op::Mul:
      if (__builtin_mul_overflow(a, b, &a))
        return overflow();
      break;
    case Op::Div:
    case Op::Mod:
    case Op::CDiv:
      if (b == 0)
        return Status::error("\"" + text_ + "\" divides by zero");
      if (a == INT64_MIN && b == -1)
        return overflow();
      if (s.op == Op::Div) {
        a = a / b;
      } else if (s.op == Op::Mod) {
        a = a % b;
      } else {
        // The ceiling: truncation rounds toward zero, so step up when the
        // quotient is positive and inexact.
        int64_t q = a / b;
        a = q + ((a % b != 0) && ((a < 0) == (b < 0)));
      }
      break;
    case Op::Min:
      a = a < b ? a : b;
      break;
    case Op::Max:
      a = a > b ? a : b;
      break;
    default:
      break;
    }
  }
  return stack[0];
}

std::string Expr::toCpp(std::span<const std::string> names,
                        std::string_view type) const {
  std::vector<std::string> stack;
  const std::string t(type);
  for (const Step &s : steps_) {
    if (s.op == Op::Const) {
      stack.push_back(t + "(" + std::to_string(s.value) + ")");
      continue;
    }
    if (s.op == Op::Param) {
      stack.push_back(t + "(" + names[size_t(s.value)] + ")");
      continue;
    }
    if (s.op == Op::Neg) {
      stack.back() = "(-" + stack.back() + ")";
      continue;
    }
    std::string b = std::move(stack.back());
    stack.pop_back();
    std::string &a = stack.back();
    switch (s.op) {
    case Op::Add:
      a = "(" + a + " + " + b + ")";
      break;
    case Op::Sub:
      a = "(" + a + " - " + b + ")";
      break;
    case Op::Mul:
      a = "(" + a + " * " + b + ")";
      break;
    case Op::Div:
      a = "(" + a + " / " + b + ")";
      break;
    case Op::Mod:
      a = "(" + a + " % " + b + ")";
      break;
    case Op::CDiv:
      a = "cdiv(" + a + ", " + b + ")";
      break;
    case Op::Min:
      a = "std::min(" + a + ", " + b + ")";
      break;
    case Op::Max:
      a = "std::max(" + a + ", " + b + ")";
      break;
    default:
      break;
    }
  }
  return stack.empty() ? t + "(0)" : stack.back();
}

std::string Rule::text() const {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    out += (i ? ", \"" : "\"") + dims[i].text() + "\"";
  return out + "]";
}

} // namespace tilec::grid
