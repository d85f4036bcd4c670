//===- JsonRead.h - checked access to parsed JSON ---------------*- C++ -*-===//
//
// Readers of the analyzer's JSON files (device models, analyses, profiles)
// report the file, the line and the column of the first bad value, and
// refuse unknown keys so that a misspelt field is not silently ignored.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_ANALYZER_MODEL_JSONREAD_H
#define TILEC_LIB_ANALYZER_MODEL_JSONREAD_H

#include "tilec/analyzer/DeviceModel.h"
#include "tilec/runtime/Json.h"
#include "tilec/runtime/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::analyzer {

/// Reads members of one JSON object, with errors "ORIGIN: line L, column C:
/// MESSAGE" pointing at the value concerned.
class JsonObjectReader {
public:
  JsonObjectReader(const runtime::json::Value &object, std::string origin,
                   std::string what)
      : object_(object), origin_(std::move(origin)), what_(std::move(what)) {}

  /// An error at `at`.
  runtime::Status error(const runtime::json::Value &at,
                        const std::string &message) const {
    return runtime::Status::error(origin_ + ": line " +
                                  std::to_string(at.line()) + ", column " +
                                  std::to_string(at.column()) + ": " + message);
  }
  /// The object itself is not an object, or has a key outside `known`.
  runtime::Status check(const std::vector<std::string_view> &known) const {
    if (!object_.isObject())
      return error(object_, what_ + " must be an object, not " +
                                runtime::json::Value::kindName(object_.kind()));
    for (const auto &[key, value] : object_.members()) {
      bool ok = false;
      std::string list;
      for (std::string_view k : known) {
        ok |= k == key;
        list += (list.empty() ? "" : ", ") + std::string(k);
      }
      if (!ok)
        return error(value, "unknown key '" + key + "' in " + what_ +
                                " (known: " + list + ")");
    }
    return runtime::Status();
  }

  const runtime::json::Value *find(std::string_view key) const {
    return object_.find(key);
  }
  runtime::Status missing(std::string_view key) const {
    return error(object_, what_ + " has no '" + std::string(key) + "'");
  }

  /// A number; `minimum` is exclusive when `positive`.
  runtime::Status number(std::string_view key, double &out, bool required,
                         bool positive = true) const {
    const runtime::json::Value *v = find(key);
    if (!v)
      return required ? missing(key) : runtime::Status();
    if (!v->isNumber())
      return error(*v, "'" + std::string(key) + "' must be a number, not " +
                           runtime::json::Value::kindName(v->kind()));
    if (positive ? !(v->asDouble() > 0) : v->asDouble() < 0)
      return error(*v, "'" + std::string(key) + "' must be " +
                           (positive ? "positive" : "at least 0") + ", got " +
                           formatNumber(v->asDouble()));
    out = v->asDouble();
    return runtime::Status();
  }
  /// A non-negative integer (no fraction); `positive` excludes 0.
  runtime::Status integer(std::string_view key, int64_t &out, bool required,
                          bool positive = false) const {
    const runtime::json::Value *v = find(key);
    if (!v)
      return required ? missing(key) : runtime::Status();
    if (!v->isInteger() || v->asInt() < (positive ? 1 : 0))
      return error(*v, "'" + std::string(key) + "' must be " +
                           (positive ? "a positive" : "a non-negative") +
                           " integer");
    out = v->asInt();
    return runtime::Status();
  }
  runtime::Status string(std::string_view key, std::string &out,
                         bool required) const {
    const runtime::json::Value *v = find(key);
    if (!v)
      return required ? missing(key) : runtime::Status();
    if (!v->isString())
      return error(*v, "'" + std::string(key) + "' must be a string, not " +
                           runtime::json::Value::kindName(v->kind()));
    out = v->asString();
    return runtime::Status();
  }
  runtime::Status boolean(std::string_view key, bool &out,
                          bool required) const {
    const runtime::json::Value *v = find(key);
    if (!v)
      return required ? missing(key) : runtime::Status();
    if (!v->isBool())
      return error(*v, "'" + std::string(key) + "' must be true or false");
    out = v->asBool();
    return runtime::Status();
  }
  /// An array (or error); null if absent and not required.
  runtime::Status array(std::string_view key, const runtime::json::Value *&out,
                        bool required) const {
    out = find(key);
    if (!out)
      return required ? missing(key) : runtime::Status();
    if (!out->isArray())
      return error(*out, "'" + std::string(key) + "' must be an array, not " +
                             runtime::json::Value::kindName(out->kind()));
    return runtime::Status();
  }

  const std::string &origin() const { return origin_; }

  static std::string formatNumber(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
  }

private:
  const runtime::json::Value &object_;
  std::string origin_;
  std::string what_;
};

/// Reads what writeResources wrote.
runtime::Status readResources(const runtime::json::Value &value,
                              const std::string &origin, Resources &out);

} // namespace tilec::analyzer

#endif // TILEC_LIB_ANALYZER_MODEL_JSONREAD_H
