//===- JsonWriter.h - writing JSON without LLVM -----------------*- C++ -*-===//
//
// The model library builds with the runtime alone (-DTILEC_RUNTIME_ONLY=ON),
// so it cannot use llvm::json. This writer emits objects one member per line
// up to a nesting depth, and more deeply nested values on one line, which
// keeps the analysis files readable and diffable.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_ANALYZER_MODEL_JSONWRITER_H
#define TILEC_LIB_ANALYZER_MODEL_JSONWRITER_H

#include "tilec/runtime/Json.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::analyzer {

class JsonWriter {
public:
  /// Objects and arrays nested deeper than `expandDepth` print on one line.
  explicit JsonWriter(int expandDepth = 2) : expandDepth_(expandDepth) {}

  JsonWriter &beginObject() { return open('{'); }
  JsonWriter &endObject() { return close('}'); }
  JsonWriter &beginArray() { return open('['); }
  JsonWriter &endArray() { return close(']'); }
  JsonWriter &key(std::string_view k) {
    separate();
    out_ += runtime::json::quote(k);
    out_ += ": ";
    afterKey_ = true;
    return *this;
  }
  JsonWriter &value(std::string_view s) {
    return raw(runtime::json::quote(s));
  }
  JsonWriter &value(const char *s) { return value(std::string_view(s)); }
  JsonWriter &value(const std::string &s) { return value(std::string_view(s)); }
  JsonWriter &value(bool b) { return raw(b ? "true" : "false"); }
  JsonWriter &value(int v) { return value(int64_t(v)); }
  JsonWriter &value(int64_t v) { return raw(std::to_string(v)); }
  JsonWriter &value(uint64_t v) { return raw(std::to_string(v)); }
  /// Doubles print with up to 15 significant digits (round-trip for the
  /// values written here); NaN and infinities, which JSON lacks, as null.
  JsonWriter &value(double v) {
    if (!std::isfinite(v))
      return raw("null");
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return raw(buf);
  }
  JsonWriter &null() { return raw("null"); }
  /// Inserts already-formatted JSON as a value.
  JsonWriter &raw(std::string_view text) {
    separate();
    out_ += text;
    return *this;
  }

  template <typename T> JsonWriter &member(std::string_view k, const T &v) {
    key(k);
    return value(v);
  }

  std::string take() {
    out_ += '\n';
    return std::move(out_);
  }

private:
  JsonWriter &open(char c) {
    separate();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter &close(char c) {
    bool empty = first_.back();
    first_.pop_back();
    if (!empty && expanded(first_.size()))
      newline(first_.size());
    out_ += c;
    return *this;
  }
  bool expanded(size_t depth) const { return int(depth) < expandDepth_; }
  void newline(size_t depth) {
    out_ += '\n';
    out_.append(2 * depth, ' ');
  }
  /// Writes what goes before a value or key: nothing after a key, else a
  /// comma unless first in its container, and the line break.
  void separate() {
    if (afterKey_) {
      afterKey_ = false;
      return;
    }
    if (first_.empty())
      return;
    if (!first_.back())
      out_ += expanded(first_.size() - 1) ? "," : ", ";
    first_.back() = false;
    if (expanded(first_.size() - 1))
      newline(first_.size());
  }

  std::string out_;
  std::vector<bool> first_;
  bool afterKey_ = false;
  int expandDepth_;
};

} // namespace tilec::analyzer

#endif // TILEC_LIB_ANALYZER_MODEL_JSONWRITER_H
