//===- Json.cpp - a small JSON reader -------------------------------------===//
//
// A recursive-descent parser over the text with a position counter; every
// error names the line and column where the parser stopped and what it
// expected there.
//
//===----------------------------------------------------------------------===//

#include "tilec/runtime/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace tilec::runtime::json {

const Value *Value::find(std::string_view key) const {
  for (const auto &[k, v] : object_)
    if (k == key)
      return &v;
  return nullptr;
}

const char *Value::kindName(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "a boolean";
  case Kind::Number:
    return "a number";
  case Kind::String:
    return "a string";
  case Kind::Array:
    return "an array";
  case Kind::Object:
    return "an object";
  }
  return "a value";
}

/// Deeper nesting than any metadata needs; guards the recursion.
static constexpr unsigned kMaxDepth = 128;

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  Expected<Value> parseDocument() {
    Value v;
    skipSpace();
    if (!parseValue(v, 0))
      return error_;
    skipSpace();
    if (pos_ != text_.size()) {
      fail("unexpected text after the JSON value");
      return error_;
    }
    return v;
  }

private:
  bool fail(const std::string &what) {
    error_ = Status::error("line " + std::to_string(line_) + ", column " +
                           std::to_string(column()) + ": " + what);
    return false;
  }
  unsigned column() const {
    return static_cast<unsigned>(pos_ - lineStart_) + 1;
  }
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      lineStart_ = pos_ + 1;
    }
    ++pos_;
  }
  void skipSpace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' ||
                        peek() == '\r'))
      advance();
  }
  bool consumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return false;
    pos_ += word.size();
    return true;
  }

  bool parseValue(Value &v, unsigned depth) {
    if (depth > kMaxDepth)
      return fail("JSON nested deeper than " + std::to_string(kMaxDepth) +
                  " levels");
    v.line_ = line_;
    v.column_ = column();
    if (atEnd())
      return fail("expected a JSON value, found the end of the text");
    char c = peek();
    switch (c) {
    case '{':
      return parseObject(v, depth);
    case '[':
      return parseArray(v, depth);
    case '"':
      v.kind_ = Value::Kind::String;
      return parseString(v.string_);
    case 't':
    case 'f':
    case 'n':
      if (consumeWord("true")) {
        v.kind_ = Value::Kind::Bool;
        v.bool_ = true;
        return true;
      }
      if (consumeWord("false")) {
        v.kind_ = Value::Kind::Bool;
        return true;
      }
      if (consumeWord("null"))
        return true;
      break;
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return parseNumber(v);
    }
    return fail(std::string("expected a JSON value, found '") + c + "'");
  }

  bool parseObject(Value &v, unsigned depth) {
    v.kind_ = Value::Kind::Object;
    advance(); // {
    skipSpace();
    if (peek() == '}') {
      advance();
      return true;
    }
    while (true) {
      skipSpace();
      if (peek() != '"')
        return fail("expected a string key in the object");
      std::string key;
      unsigned keyLine = line_, keyColumn = column();
      if (!parseString(key))
        return false;
      if (v.find(key)) {
        line_ = keyLine;
        pos_ = lineStart_ + keyColumn - 1;
        return fail("duplicate key \"" + key + "\"");
      }
      skipSpace();
      if (peek() != ':')
        return fail("expected ':' after the key \"" + key + "\"");
      advance();
      skipSpace();
      Value member;
      if (!parseValue(member, depth + 1))
        return false;
      v.object_.emplace_back(std::move(key), std::move(member));
      skipSpace();
      if (peek() == ',') {
        advance();
        continue;
      }
      if (peek() == '}') {
        advance();
        return true;
      }
      return fail("expected ',' or '}' in the object");
    }
  }

  bool parseArray(Value &v, unsigned depth) {
    v.kind_ = Value::Kind::Array;
    advance(); // [
    skipSpace();
    if (peek() == ']') {
      advance();
      return true;
    }
    while (true) {
      skipSpace();
      Value element;
      if (!parseValue(element, depth + 1))
        return false;
      v.array_.push_back(std::move(element));
      skipSpace();
      if (peek() == ',') {
        advance();
        continue;
      }
      if (peek() == ']') {
        advance();
        return true;
      }
      return fail("expected ',' or ']' in the array");
    }
  }

  static void appendUtf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  bool parseHex4(uint32_t &out) {
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = peek();
      uint32_t d;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        return fail("expected 4 hex digits after \\u");
      out = out * 16 + d;
      advance();
    }
    return true;
  }

  bool parseString(std::string &out) {
    advance(); // opening quote
    while (true) {
      if (atEnd())
        return fail("unterminated string");
      char c = peek();
      if (c == '"') {
        advance();
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in a string (escape it)");
      if (c != '\\') {
        out += c;
        advance();
        continue;
      }
      advance();
      if (atEnd())
        return fail("unterminated string");
      char e = peek();
      advance();
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp;
        if (!parseHex4(cp))
          return false;
        if (cp >= 0xd800 && cp < 0xdc00) { // high surrogate: needs its pair
          uint32_t low;
          if (!consumeWord("\\u") || !parseHex4(low) || low < 0xdc00 ||
              low >= 0xe000)
            return fail("unpaired UTF-16 surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        } else if (cp >= 0xdc00 && cp < 0xe000) {
          return fail("unpaired UTF-16 surrogate in \\u escape");
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --pos_;
        return fail(std::string("invalid escape '\\") + e + "' in a string");
      }
    }
  }

  bool parseNumber(Value &v) {
    size_t start = pos_;
    bool integral = true;
    if (peek() == '-')
      advance();
    if (peek() == '0') {
      advance();
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9')
        advance();
    } else {
      return fail("expected a digit in the number");
    }
    if (peek() == '.') {
      integral = false;
      advance();
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("expected a digit after '.' in the number");
      while (peek() >= '0' && peek() <= '9')
        advance();
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      advance();
      if (peek() == '+' || peek() == '-')
        advance();
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("expected a digit in the number's exponent");
      while (peek() >= '0' && peek() <= '9')
        advance();
    }
    std::string literal(text_.substr(start, pos_ - start));
    v.kind_ = Value::Kind::Number;
    v.number_ = std::strtod(literal.c_str(), nullptr);
    if (integral) {
      errno = 0;
      long long i = std::strtoll(literal.c_str(), nullptr, 10);
      if (errno == 0) {
        v.isInt_ = true;
        v.int_ = i;
      }
    }
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  unsigned line_ = 1;
  size_t lineStart_ = 0;
  Status error_;
};

Expected<Value> parse(std::string_view text) {
  return Parser(text).parseDocument();
}

std::string quote(std::string_view text) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        out += "\\u00";
        out += hex[(c >> 4) & 0xf];
        out += hex[c & 0xf];
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

} // namespace tilec::runtime::json
