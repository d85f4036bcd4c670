//===- GridRuleTest.cpp - grid and extent expressions ---------------------===//

#include "tilec/Support/GridRule.h"

#include <gtest/gtest.h>

#include <climits>

using namespace tilec;

namespace {

/// add's parameters: three pointers and n, plus an i64 m and an f32 s.
const grid::ParamRef kParams[] = {
    {"x", false, "a pointer"}, {"y", false, "a pointer"},
    {"n", true, ""},           {"m", true, ""},
    {"s", false, "an f32 scalar"}};

int64_t eval(const char *text, int64_t n, int64_t m = 0) {
  auto e = grid::parse(text, kParams);
  EXPECT_TRUE(e.ok()) << text << ": " << e.message();
  if (!e.ok())
    return INT64_MIN;
  const int64_t values[] = {0, 0, n, m, 0};
  auto v = e->evaluate(values);
  EXPECT_TRUE(v.ok()) << text << ": " << v.message();
  return v.ok() ? *v : INT64_MIN;
}

std::string parseError(const char *text) {
  auto e = grid::parse(text, kParams);
  EXPECT_FALSE(e.ok()) << text;
  return e.ok() ? "" : e.message();
}

std::string evalError(const char *text, int64_t n, int64_t m = 0) {
  auto e = grid::parse(text, kParams);
  EXPECT_TRUE(e.ok()) << e.message();
  const int64_t values[] = {0, 0, n, m, 0};
  auto v = e->evaluate(values);
  EXPECT_FALSE(v.ok()) << text;
  return v.ok() ? "" : v.message();
}

TEST(GridRule, Evaluates) {
  EXPECT_EQ(eval("cdiv(n, 1024)", 3001), 3);
  EXPECT_EQ(eval("cdiv(n, 1024)", 3072), 3);
  EXPECT_EQ(eval("cdiv(n, 1024)", 0), 0);
  EXPECT_EQ(eval("cdiv(n, 1024)", 1), 1);
  EXPECT_EQ(eval("cdiv(n, 4)", -7), -1); // the ceiling of -1.75
  EXPECT_EQ(eval("n", 37), 37);
  EXPECT_EQ(eval("  n * m ", 37, 400), 14800);
  // Precedence and associativity: * / % before + -, left to right.
  EXPECT_EQ(eval("1 + n * 2", 5), 11);
  EXPECT_EQ(eval("(1 + n) * 2", 5), 12);
  EXPECT_EQ(eval("n - 3 - 1", 10), 6);
  EXPECT_EQ(eval("n / 2 / 2", 17), 4);
  EXPECT_EQ(eval("n % 5", 17), 2);
  EXPECT_EQ(eval("-n + 20", 17), 3);
  EXPECT_EQ(eval("- -n", 17), 17);
  EXPECT_EQ(eval("min(n, m)", 3, 9), 3);
  EXPECT_EQ(eval("max(n, m)", 3, 9), 9);
  EXPECT_EQ(eval("cdiv(n * m, 2048)", 33, 1008), 17);
  EXPECT_EQ(eval("max(1, cdiv(min(n, 4096), 128))", 100000), 32);
}

TEST(GridRule, ReadsOnlyTheParametersNamed) {
  auto e = grid::parse("cdiv(m, n) + m", kParams);
  ASSERT_TRUE(e.ok());
  ASSERT_EQ(e->params().size(), 2u);
  EXPECT_EQ(e->params()[0], 3);
  EXPECT_EQ(e->params()[1], 2);
  EXPECT_EQ(e->text(), "cdiv(m, n) + m");
}

TEST(GridRule, ParseErrors) {
  EXPECT_EQ(parseError("cdiv(q, 1024)"),
            "at character 6 of \"cdiv(q, 1024)\": unknown parameter 'q' (the "
            "kernel's integer parameters: n, m)");
  EXPECT_EQ(parseError("x + 1"),
            "at character 1 of \"x + 1\": parameter 'x' is a pointer; a grid "
            "or extent rule reads i32 and i64 scalar parameters only");
  EXPECT_EQ(parseError("s"),
            "at character 1 of \"s\": parameter 's' is an f32 scalar; a grid "
            "or extent rule reads i32 and i64 scalar parameters only");
  EXPECT_EQ(parseError("ceil(n, 2)"),
            "at character 1 of \"ceil(n, 2)\": unknown function 'ceil' (the "
            "functions: cdiv, min, max)");
  EXPECT_EQ(parseError("cdiv(n)"),
            "at character 7 of \"cdiv(n)\": expected ',' (cdiv takes two "
            "arguments) but found ')'");
  EXPECT_EQ(parseError("(n + 1"),
            "at character 7 of \"(n + 1\": expected ')' but the expression "
            "ends");
  EXPECT_EQ(parseError("n +"), "at character 4 of \"n +\": expected a "
                               "number, a parameter or '(' but the "
                               "expression ends");
  EXPECT_EQ(parseError(""), "at character 1 of \"\": expected a number, a "
                            "parameter or '(' but the expression ends");
  EXPECT_EQ(parseError("n 1"),
            "at character 3 of \"n 1\": unexpected '1' after the expression");
  EXPECT_EQ(parseError("n $ 2"),
            "at character 3 of \"n $ 2\": unexpected '$' after the "
            "expression");
  EXPECT_EQ(parseError("12ab"), "at character 3 of \"12ab\": a number must "
                                "not run into letters");
  EXPECT_NE(parseError("99999999999999999999").find("does not fit in 64 bits"),
            std::string::npos);
  // Nesting deeper than the evaluation stack is refused when parsed.
  std::string deep;
  for (int i = 0; i < 20; ++i)
    deep += "n + (";
  deep += "n";
  for (int i = 0; i < 20; ++i)
    deep += ")";
  EXPECT_NE(parseError(deep.c_str()).find("nests more than 16 values deep"),
            std::string::npos);
}

TEST(GridRule, EvaluationErrors) {
  EXPECT_EQ(evalError("cdiv(n, m)", 5, 0),
            "\"cdiv(n, m)\" divides by zero");
  EXPECT_EQ(evalError("n / m", 5, 0), "\"n / m\" divides by zero");
  EXPECT_EQ(evalError("n % m", 5, 0), "\"n % m\" divides by zero");
  EXPECT_EQ(evalError("n * m", INT64_MAX, 2),
            "\"n * m\" overflows 64-bit integers");
  EXPECT_EQ(evalError("n + 1", INT64_MAX), "\"n + 1\" overflows 64-bit "
                                           "integers");
  EXPECT_EQ(evalError("-n", INT64_MIN), "\"-n\" overflows 64-bit integers");
  EXPECT_EQ(evalError("n / m", INT64_MIN, -1),
            "\"n / m\" overflows 64-bit integers");
}

TEST(GridRule, ToCpp) {
  auto e = grid::parse("max(1, cdiv(n * m, 2048)) - -n % 3", kParams);
  ASSERT_TRUE(e.ok());
  const std::string names[] = {"x", "y", "n_", "m_", "s"};
  EXPECT_EQ(e->toCpp(names),
            "(std::max(int64_t(1), cdiv((int64_t(n_) * int64_t(m_)), "
            "int64_t(2048))) - ((-int64_t(n_)) % int64_t(3)))");
}

TEST(GridRule, RuleText) {
  grid::Rule rule;
  EXPECT_TRUE(rule.empty());
  rule.dims.push_back(*grid::parse("cdiv(n, 128)", kParams));
  rule.dims.push_back(*grid::parse("m", kParams));
  EXPECT_EQ(rule.text(), "[\"cdiv(n, 128)\", \"m\"]");
}

} // namespace

namespace {

/// A kernel's parameters for tile.from: a pointer of unknown rank, a rank-2
/// descriptor, two integer scalars.
const grid::ParamRef kSourceParams[] = {{"x", false, "a pointer", 0},
                                        {"d", false, "a tensor descriptor", 2},
                                        {"n", true, "an i32 scalar"},
                                        {"ld", true, "an i32 scalar"}};

std::string sourceError(const char *text) {
  auto s = grid::parseSource(text, kSourceParams);
  EXPECT_FALSE(s.ok()) << text;
  return s.ok() ? "" : s.message();
}

} // namespace

TEST(GridRuleSource, Parses) {
  auto s = grid::parseSource("d.size(1)", kSourceParams);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s->kind, grid::Source::Kind::Size);
  EXPECT_EQ(s->param, 1);
  EXPECT_EQ(s->dim, 1);
  EXPECT_EQ(s->text, "d.size(1)");
  s = grid::parseSource(" x . stride ( -2 ) ", kSourceParams);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s->kind, grid::Source::Kind::Stride);
  EXPECT_EQ(s->param, 0);
  EXPECT_EQ(s->dim, -2);
  s = grid::parseSource("x.numel()", kSourceParams);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s->kind, grid::Source::Kind::Numel);
  // A descriptor's negative dimensions within its rank.
  EXPECT_TRUE(grid::parseSource("d.stride(-2)", kSourceParams).ok());
}

TEST(GridRuleSource, Errors) {
  EXPECT_EQ(sourceError("n.size(0)"),
            "at character 1 of \"n.size(0)\": parameter 'n' is an i32 scalar, "
            "not a tensor (a pointer or a tensor descriptor)");
  EXPECT_EQ(sourceError("q.size(0)"),
            "at character 1 of \"q.size(0)\": unknown parameter 'q' (the "
            "kernel's tensor parameters: x, d)");
  EXPECT_EQ(sourceError("d.size(2)"),
            "at character 8 of \"d.size(2)\": dimension 2 is out of range for "
            "'d' (rank 2)");
  EXPECT_EQ(sourceError("d.stride(-3)"),
            "at character 10 of \"d.stride(-3)\": dimension -3 is out of range "
            "for 'd' (rank 2)");
  EXPECT_EQ(sourceError("x.size(5)"),
            "at character 8 of \"x.size(5)\": dimension 5 is out of range for "
            "'x' (tensors have at most 5)");
  EXPECT_EQ(sourceError("x.shape(0)"),
            "at character 3 of \"x.shape(0)\": expected size(d), stride(d) or "
            "numel() but found 'shape'");
  EXPECT_EQ(sourceError("x"), "at character 2 of \"x\": expected '.' after "
                              "the parameter but the expression ends");
  EXPECT_EQ(sourceError("x.size(a)"),
            "at character 8 of \"x.size(a)\": expected a dimension (an integer)");
  EXPECT_EQ(sourceError("x.numel(0)"),
            "at character 9 of \"x.numel(0)\": expected ')' but found '0'");
  EXPECT_EQ(sourceError("x.size(0) * 2"),
            "at character 11 of \"x.size(0) * 2\": unexpected '*' after the "
            "source");
  EXPECT_EQ(sourceError(""), "at character 1 of \"\": expected a tensor "
                             "parameter's name (as in \"a.size(0)\")");
}

TEST(GridRuleSource, Quotients) {
  auto s = grid::parseSource("x.numel() / d.size(-1)", kSourceParams);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s->kind, grid::Source::Kind::Numel);
  EXPECT_EQ(s->param, 0);
  ASSERT_TRUE(s->divisor.has_value());
  EXPECT_EQ(s->divisor->kind, grid::Source::Kind::Size);
  EXPECT_EQ(s->divisor->param, 1);
  EXPECT_EQ(s->divisor->dim, -1);
  // The same quotient however spaced; not the same as its numerator.
  auto spaced = grid::parseSource(" x.numel()/d.size( -1 ) ", kSourceParams);
  ASSERT_TRUE(spaced.ok()) << spaced.message();
  EXPECT_EQ(*s, *spaced);
  EXPECT_FALSE(*s == *grid::parseSource("x.numel()", kSourceParams));

  EXPECT_EQ(sourceError("x.size(0) / x.stride(0)"),
            "at character 13 of \"x.size(0) / x.stride(0)\": a quotient "
            "divides sizes or numel(), not strides");
  EXPECT_EQ(sourceError("d.stride(0) / x.size(0)"),
            "at character 1 of \"d.stride(0) / x.size(0)\": a quotient "
            "divides sizes or numel(), not strides");
  EXPECT_EQ(sourceError("x.size(0) / "),
            "at character 13 of \"x.size(0) / \": expected a tensor "
            "parameter's name (as in \"a.size(0)\")");
  EXPECT_EQ(sourceError("x.size(0) / n.size(0)"),
            "at character 13 of \"x.size(0) / n.size(0)\": parameter 'n' is "
            "an i32 scalar, not a tensor (a pointer or a tensor descriptor)");
  EXPECT_EQ(sourceError("x.size(0) / d.size(0) / d.size(1)"),
            "at character 23 of \"x.size(0) / d.size(0) / d.size(1)\": "
            "unexpected '/' after the source");
}

TEST(GridRuleSource, TermValues) {
  const int64_t sizes[] = {4, 3, 5}, strides[] = {100, 20, 2};
  using T = grid::Source::Term;
  using K = grid::Source::Kind;
  EXPECT_EQ(*grid::termValue(T{K::Numel, 0, 0}, sizes, strides, 3), 60);
  EXPECT_EQ(*grid::termValue(T{K::Size, 0, -1}, sizes, strides, 3), 5);
  EXPECT_EQ(*grid::termValue(T{K::Stride, 0, 1}, sizes, strides, 3), 20);
  // Compact row-major without strides.
  EXPECT_EQ(*grid::termValue(T{K::Stride, 0, 0}, sizes, nullptr, 3), 15);
  EXPECT_FALSE(grid::termValue(T{K::Size, 0, 3}, sizes, strides, 3).ok());
  EXPECT_FALSE(grid::termValue(T{K::Size, 0, -4}, sizes, strides, 3).ok());
}
