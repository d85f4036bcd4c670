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
  JsonWriter &beginObject(bool oneLine = false) { return open('{', oneLine); }
  JsonWriter &endObject() { return close('}'); }
  JsonWriter &beginArray(bool oneLine = false) { return open('[', oneLine); }
  JsonWriter &endArray() { return close(']'); }
  JsonWriter &key(std::string_view k) {
    separate();
    out_ += runtime::json::quote(k);
    out_ += ": ";
    afterKey_ = true;
    return *this;
  }
  JsonWriter &value(std::string_view s) { return raw(runtime::json::quote(s)); }
  JsonWriter &value(const char *s) { return value(std::string_view(s)); }
  JsonWriter &value(const std::string &s) { return value(std::string_view(s)); }
  JsonWriter &value(bool b) { return raw(b ? "true" : "false"); }
  JsonWriter &value(int v) { return value(int64_t(v)); }
  JsonWriter &value(int64_t v) { return raw(std::to_string(v)); }
  JsonWriter &value(uint64_t v) { return raw(std::to_string(v)); }
  /// Doubles print with 15 significant digits (what the numbers written
  /// here need to read back equal); NaN and infinities, which JSON lacks,
  /// as null.
  JsonWriter &value(double v) {
    if (!std::isfinite(v))
      return raw("null");
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return raw(buf);
  }
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
  struct Level {
    bool first = true;
    bool oneLine = false;
  };
  JsonWriter &open(char c, bool oneLine) {
    separate();
    out_ += c;
    bool inherited = !levels_.empty() && levels_.back().oneLine;
    levels_.push_back({true, oneLine || inherited});
    return *this;
  }
  JsonWriter &close(char c) {
    Level level = levels_.back();
    levels_.pop_back();
    if (!level.first && !level.oneLine)
      newline();
    out_ += c;
    return *this;
  }
  void newline() {
    out_ += '\n';
    out_.append(2 * levels_.size(), ' ');
  }
  /// Writes what goes before a value or key: nothing right after a key,
  /// else a comma unless first in its container, then a line break unless
  /// the container is on one line.
  void separate() {
    if (afterKey_) {
      afterKey_ = false;
      return;
    }
    if (levels_.empty())
      return;
    Level &level = levels_.back();
    if (!level.first)
      out_ += level.oneLine ? ", " : ",";
    level.first = false;
    if (!level.oneLine)
      newline();
  }

  std::string out_;
  std::vector<Level> levels_;
  bool afterKey_ = false;
};

struct DeviceModel;
struct Resources;
struct WorkloadAnalysis;
/// Writers of the documents that others embed (a profile holds analyses,
/// analyses hold their device model).
void writeDeviceModel(JsonWriter &w, const DeviceModel &model);
void writeAnalysis(JsonWriter &w, const WorkloadAnalysis &analysis);
void writeResources(JsonWriter &w, const Resources &resources);

} // namespace tilec::analyzer

#endif // TILEC_LIB_ANALYZER_MODEL_JSONWRITER_H
