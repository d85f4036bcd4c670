//===- JsonTest.cpp - the runtime's JSON reader ---------------------------===//

#include "tilec/runtime/Json.h"

#include <gtest/gtest.h>

using namespace tilec::runtime;

namespace {

json::Value parseOk(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.ok()) << v.message();
  return v.ok() ? *v : json::Value();
}

std::string parseError(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_FALSE(v.ok()) << "parsed: " << text;
  return v.message();
}

TEST(Json, Scalars) {
  EXPECT_TRUE(parseOk("null").isNull());
  EXPECT_TRUE(parseOk(" true ").asBool());
  EXPECT_FALSE(parseOk("false").asBool());
  json::Value i = parseOk("-42");
  EXPECT_TRUE(i.isInteger());
  EXPECT_EQ(i.asInt(), -42);
  json::Value big = parseOk("9223372036854775807");
  EXPECT_TRUE(big.isInteger());
  EXPECT_EQ(big.asInt(), INT64_MAX);
  // Past int64: still a number, no longer an exact integer.
  json::Value huge = parseOk("9223372036854775808");
  EXPECT_TRUE(huge.isNumber());
  EXPECT_FALSE(huge.isInteger());
  json::Value f = parseOk("1.5e3");
  EXPECT_FALSE(f.isInteger());
  EXPECT_DOUBLE_EQ(f.asDouble(), 1500.0);
  EXPECT_FALSE(parseOk("16.0").isInteger());
}

TEST(Json, StringsAndEscapes) {
  EXPECT_EQ(parseOk(R"("a\"b\\c\/d\n\t")").asString(), "a\"b\\c/d\n\t");
  EXPECT_EQ(parseOk(R"("\u00e9")").asString(), "\xc3\xa9");
  EXPECT_EQ(parseOk(R"("\ud83d\ude00")").asString(), "\xf0\x9f\x98\x80");
  EXPECT_EQ(json::quote("a\"b\\\n\x01"), R"("a\"b\\\n\u0001")");
  // quote() and parse() round-trip.
  std::string odd = "x\ty\"z\\\x1f";
  EXPECT_EQ(parseOk(json::quote(odd)).asString(), odd);
}

TEST(Json, ContainersKeepOrderAndPositions) {
  json::Value v = parseOk("{\"b\": [1, 2, {\"c\": null}],\n  \"a\": \"x\"}");
  ASSERT_TRUE(v.isObject());
  ASSERT_EQ(v.members().size(), 2u);
  EXPECT_EQ(v.members()[0].first, "b");
  EXPECT_EQ(v.members()[1].first, "a");
  const json::Value *b = v.find("b");
  ASSERT_TRUE(b && b->isArray());
  EXPECT_EQ(b->elements().size(), 3u);
  EXPECT_TRUE(b->elements()[2].find("c")->isNull());
  EXPECT_EQ(v.find("missing"), nullptr);
  const json::Value *a = v.find("a");
  EXPECT_EQ(a->line(), 2u);
  EXPECT_EQ(a->column(), 8u);
  EXPECT_TRUE(parseOk("[]").elements().empty());
  EXPECT_TRUE(parseOk("{}").members().empty());
}

TEST(Json, Errors) {
  EXPECT_EQ(parseError(""),
            "line 1, column 1: expected a JSON value, found the end of the "
            "text");
  EXPECT_EQ(parseError("{\"a\": 1,}"),
            "line 1, column 9: expected a string key in the object");
  EXPECT_EQ(parseError("{\"a\" 1}"),
            "line 1, column 6: expected ':' after the key \"a\"");
  EXPECT_EQ(parseError("{\"a\": 1 \"b\": 2}"),
            "line 1, column 9: expected ',' or '}' in the object");
  EXPECT_EQ(parseError("[1 2]"),
            "line 1, column 4: expected ',' or ']' in the array");
  EXPECT_EQ(parseError("{\"a\": 1,\n \"a\": 2}"),
            "line 2, column 2: duplicate key \"a\"");
  EXPECT_EQ(parseError("\"abc"), "line 1, column 5: unterminated string");
  EXPECT_EQ(parseError("\"a\nb\""),
            "line 1, column 3: control character in a string (escape it)");
  EXPECT_EQ(parseError(R"("\x")"),
            "line 1, column 3: invalid escape '\\x' in a string");
  EXPECT_EQ(parseError(R"("\u12g4")"),
            "line 1, column 6: expected 4 hex digits after \\u");
  EXPECT_EQ(parseError(R"("\udc00")"),
            "line 1, column 8: unpaired UTF-16 surrogate in \\u escape");
  EXPECT_EQ(parseError("-"),
            "line 1, column 2: expected a digit in the number");
  EXPECT_EQ(parseError("1."),
            "line 1, column 3: expected a digit after '.' in the number");
  EXPECT_EQ(parseError("1e+"),
            "line 1, column 4: expected a digit in the number's exponent");
  EXPECT_EQ(parseError("tru"), "line 1, column 1: expected a JSON value, "
                               "found 't'");
  EXPECT_EQ(parseError("{} x"),
            "line 1, column 4: unexpected text after the JSON value");
  EXPECT_EQ(parseError(std::string(200, '[')),
            "line 1, column 130: JSON nested deeper than 128 levels");
}

} // namespace
