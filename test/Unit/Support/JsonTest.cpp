//===- JsonTest.cpp - strict parsing and readable writing of JSON ---------===//
//
// tilec::json over nlohmann/json: what the parse adds (duplicate keys,
// nesting, whole-number checks, messages with a line and column or a path)
// and the writer's layout.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/Json.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

using namespace tilec;

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
  EXPECT_TRUE(parseOk("null").is_null());
  EXPECT_TRUE(parseOk(" true ").get<bool>());
  EXPECT_EQ(json::asInt64(parseOk("-42")), -42);
  EXPECT_EQ(json::asInt64(parseOk("9223372036854775807")), INT64_MAX);
  // Past int64, or written with a fraction or exponent: a number, not an
  // exact whole number.
  EXPECT_TRUE(parseOk("9223372036854775808").is_number());
  EXPECT_EQ(json::asInt64(parseOk("9223372036854775808")), std::nullopt);
  EXPECT_EQ(json::asInt64(parseOk("1.5e3")), std::nullopt);
  EXPECT_EQ(json::asInt64(parseOk("16.0")), std::nullopt);
  EXPECT_DOUBLE_EQ(parseOk("1.5e3").get<double>(), 1500.0);
}

TEST(Json, StringsAndShow) {
  EXPECT_EQ(parseOk(R"("a\"b\\c\/d\n\t")").get<std::string>(), "a\"b\\c/d\n\t");
  EXPECT_EQ(parseOk(R"("\ud83d\ude00")").get<std::string>(),
            "\xf0\x9f\x98\x80");
  EXPECT_EQ(json::quote("a\"b\\\n\x01"), R"("a\"b\\\n\u0001")");
  std::string odd = "x\ty\"z\\\x1f";
  EXPECT_EQ(parseOk(json::quote(odd)).get<std::string>(), odd);
  EXPECT_EQ(json::show(parseOk("\"x\"")), "\"x\"");
  EXPECT_EQ(json::show(parseOk("12")), "12");
  EXPECT_EQ(json::show(parseOk("1.5")), "1.5");
  EXPECT_EQ(json::show(parseOk("false")), "false");
  EXPECT_EQ(json::show(parseOk("[1]")), "an array");
  EXPECT_EQ(json::show(parseOk("{}")), "an object");
  EXPECT_EQ(json::show(parseOk("null")), "null");
}

TEST(Json, ObjectsKeepDocumentOrder) {
  json::Value v = parseOk("{\"b\": [1, 2, {\"c\": null}],\n  \"a\": \"x\"}");
  ASSERT_TRUE(v.is_object());
  std::vector<std::string> keys;
  for (const auto &[key, value] : v.items())
    keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"b", "a"}));
  EXPECT_TRUE(v["b"][2]["c"].is_null());
}

TEST(Json, SyntaxErrorsNameLineAndColumn) {
  // nlohmann's words, without its "[json.exception...] parse error at"
  // prefix.
  EXPECT_EQ(parseError("{\"a\": 1,\n \"b\" 2}"),
            "line 2, column 6: syntax error while parsing object separator "
            "- unexpected number literal; expected ':'");
  EXPECT_EQ(parseError(""), "line 1, column 1: syntax error while parsing "
                            "value - unexpected end of input; expected '[', "
                            "'{', or a literal");
  EXPECT_EQ(parseError("{} x"),
            "line 1, column 4: syntax error while parsing value - invalid "
            "literal; last read: '{} x'; expected end of input");
}

TEST(Json, DuplicateKeysAreErrors) {
  EXPECT_EQ(parseError("{\"a\": 1,\n \"a\": 2}"), "duplicate key \"a\"");
  EXPECT_EQ(parseError(R"({"k": [0, {"p": {"x": 1, "x": 2}}]})"),
            "duplicate key \"x\" in k[1].p");
  // The same key in different objects is fine.
  parseOk(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]})");
}

TEST(Json, DuplicateCheckIsLinear) {
  // 200k keys: a quadratic check takes minutes; this one well under a
  // second (allow 10 s for a loaded machine).
  std::string text = "{";
  for (int i = 0; i < 200000; ++i)
    text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
  auto start = std::chrono::steady_clock::now();
  json::Value v = parseOk(text + "}");
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(v.size(), 200000u);
  EXPECT_LT(seconds, 10.0);
  EXPECT_EQ(parseError(text + ",\"k7\":2}"), "duplicate key \"k7\"");
}

TEST(Json, NestingIsLimited) {
  EXPECT_EQ(
      parseError(std::string(200, '[')),
      "JSON nested deeper than 128 levels at " + [] {
        std::string path;
        for (int i = 0; i < 127; ++i)
          path += "[0]";
        return path;
      }());
  std::string deep(json::kMaxDepth, '[');
  parseOk(deep + std::string(json::kMaxDepth, ']'));
}

TEST(Json, WriterLayout) {
  json::Value v = {{"format", "x"},
                   {"grid", {1, 2, 3}},
                   {"args", json::Value::array({{{"name", "a"}, {"n", 1}}})},
                   {"empty", json::Value::array()},
                   {"derived", {{"ratio", 0.1}, {"inner", {{"nan", NAN}}}}}};
  EXPECT_EQ(json::write(v), R"({
  "format": "x",
  "grid": [1, 2, 3],
  "args": [
    {"name": "a", "n": 1}
  ],
  "empty": [],
  "derived": {
    "ratio": 0.1,
    "inner": {"nan": null}
  }
}
)");
  // Doubles to 15 significant digits.
  EXPECT_EQ(json::write({{"x", 1.0 / 3}, {"y", -2.5e-300}, {"z", 1e20}}),
            "{\"x\": 0.333333333333333, \"y\": -2.5e-300, \"z\": 1e+20}\n");
}

} // namespace
