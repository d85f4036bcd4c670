//===- Json.h - a small JSON reader for kernel metadata ---------*- C++ -*-===//
//
// The runtime may not use LLVM or third-party code, so it reads the metadata
// with this reader: RFC 8259 JSON into a tree, with line/column positions for
// error messages. Integers without fraction or exponent that fit in int64 are
// kept exactly. Nesting is limited so that hostile input cannot exhaust the
// stack.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_JSON_H
#define TILEC_RUNTIME_JSON_H

#include "tilec/runtime/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilec::runtime::json {

/// One JSON value; objects keep their keys in document order.
class Value {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isNumber() const { return kind_ == Kind::Number; }
  /// A number written without fraction or exponent that fits in int64.
  bool isInteger() const { return kind_ == Kind::Number && isInt_; }
  bool isString() const { return kind_ == Kind::String; }
  bool isArray() const { return kind_ == Kind::Array; }
  bool isObject() const { return kind_ == Kind::Object; }

  bool asBool() const { return bool_; }
  double asDouble() const { return number_; }
  int64_t asInt() const { return int_; }
  const std::string &asString() const { return string_; }
  const std::vector<Value> &elements() const { return array_; }
  const std::vector<std::pair<std::string, Value>> &members() const {
    return object_;
  }
  /// The member named `key` of an object, or null if absent.
  const Value *find(std::string_view key) const;

  /// 1-based position of the value's first character in the text.
  unsigned line() const { return line_; }
  unsigned column() const { return column_; }

  /// "an object", "a string", ... for error messages.
  static const char *kindName(Kind kind);

private:
  friend class Parser;
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  bool isInt_ = false;
  double number_ = 0;
  int64_t int_ = 0;
  std::string string_;
  std::vector<Value> array_;
  std::vector<std::pair<std::string, Value>> object_;
  unsigned line_ = 1, column_ = 1;
};

/// Parses `text` as one JSON document. Errors read
/// "line L, column C: <what was expected>"; duplicate keys in one object are
/// errors.
Expected<Value> parse(std::string_view text);

/// `text` as a JSON string literal, quotes included.
std::string quote(std::string_view text);

} // namespace tilec::runtime::json

#endif // TILEC_RUNTIME_JSON_H
