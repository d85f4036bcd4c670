//===- Fields.h - checked reading of the model's JSON files -----*- C++ -*-===//
//
// Readers of the performance model's JSON files (device models, analyses,
// profiles) over the documents tilec::json::parse gives. An error names the
// file and the path to the value concerned ("p.json: at
// workloads[0].measured[1].reps: ..."), and unknown keys are refused so that
// a misspelt field is not silently ignored.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_PERFMODEL_MODEL_FIELDS_H
#define TILEC_LIB_PERFMODEL_MODEL_FIELDS_H

#include "tilec/PerfModel/Analysis.h"
#include "tilec/PerfModel/DeviceModel.h"
#include "tilec/Support/Json.h"
#include "tilec/Support/Status.h"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::perfmodel {

/// Where a value is: the file and the path to it in the document.
struct JsonPlace {
  std::string origin; ///< the file ("p.json")
  std::string path;   ///< "" for the document, else "points[0].vars"

  JsonPlace member(std::string_view key) const {
    return {origin,
            path.empty() ? std::string(key) : path + "." + std::string(key)};
  }
  JsonPlace element(size_t index) const {
    return {origin, path + "[" + std::to_string(index) + "]"};
  }
  /// "ORIGIN: at PATH: MESSAGE" ("ORIGIN: MESSAGE" for the document).
  Status error(const std::string &message) const {
    return Status::error(origin + ": " +
                         (path.empty() ? "" : "at " + path + ": ") + message);
  }
};

/// Reads members of one JSON object at `place`; `what` names the object in
/// messages ("a device model").
class FieldReader {
public:
  FieldReader(const json::Value &object, JsonPlace place, std::string what)
      : object_(object), place_(std::move(place)), what_(std::move(what)) {}

  /// An error at the object itself, or at its member `key`.
  Status error(const std::string &message) const {
    return place_.error(message);
  }
  Status error(std::string_view key, const std::string &message) const {
    return place_.member(key).error(message);
  }
  /// The object is not an object, or has a key outside `known`.
  Status check(const std::vector<std::string_view> &known) const {
    if (!object_.is_object())
      return error(what_ + " must be an object, not " +
                   json::kindName(object_));
    for (const auto &[key, value] : object_.items()) {
      bool ok = false;
      for (std::string_view k : known)
        ok |= k == key;
      if (!ok)
        return error(key, fmt::format("unknown key '{}' in {} (known: {})", key,
                                      what_, fmt::join(known, ", ")));
    }
    return Status();
  }

  const json::Value *find(std::string_view key) const {
    if (!object_.is_object())
      return nullptr;
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }
  Status missing(std::string_view key) const {
    return error(what_ + " has no '" + std::string(key) + "'");
  }
  /// Where member `key` is, for readers of nested values.
  JsonPlace place(std::string_view key) const { return place_.member(key); }
  const JsonPlace &place() const { return place_; }

  /// A number; `positive` excludes 0, else it must be at least 0.
  Status number(std::string_view key, double &out, bool required,
                bool positive = true) const {
    const json::Value *v = find(key);
    if (!v)
      return required ? missing(key) : Status();
    if (!v->is_number())
      return error(key, "'" + std::string(key) + "' must be a number, not " +
                            json::kindName(*v));
    double d = v->get<double>();
    if (positive ? !(d > 0) : d < 0)
      return error(key, fmt::format("'{}' must be {}, got {:g}", key,
                                    positive ? "positive" : "at least 0", d));
    out = d;
    return Status();
  }
  /// A non-negative integer (no fraction); `positive` excludes 0.
  Status integer(std::string_view key, int64_t &out, bool required,
                 bool positive = false) const {
    const json::Value *v = find(key);
    if (!v)
      return required ? missing(key) : Status();
    std::optional<int64_t> i = json::asInt64(*v);
    if (!i || *i < (positive ? 1 : 0))
      return error(key, "'" + std::string(key) + "' must be " +
                            (positive ? "a positive" : "a non-negative") +
                            " integer");
    out = *i;
    return Status();
  }
  Status string(std::string_view key, std::string &out, bool required) const {
    const json::Value *v = find(key);
    if (!v)
      return required ? missing(key) : Status();
    if (!v->is_string())
      return error(key, "'" + std::string(key) + "' must be a string, not " +
                            json::kindName(*v));
    out = v->get<std::string>();
    return Status();
  }
  Status boolean(std::string_view key, bool &out, bool required) const {
    const json::Value *v = find(key);
    if (!v)
      return required ? missing(key) : Status();
    if (!v->is_boolean())
      return error(key, "'" + std::string(key) + "' must be true or false");
    out = v->get<bool>();
    return Status();
  }
  /// An array (or error); null if absent and not required.
  Status array(std::string_view key, const json::Value *&out,
               bool required) const {
    out = find(key);
    if (!out)
      return required ? missing(key) : Status();
    if (!out->is_array())
      return error(key, "'" + std::string(key) + "' must be an array, not " +
                            json::kindName(*out));
    return Status();
  }

private:
  const json::Value &object_;
  JsonPlace place_;
  std::string what_;
};

/// Readers and writers of the documents that others embed (a profile holds
/// analyses and resources, analyses hold their device model).
Status readResources(const json::Value &value, const JsonPlace &place,
                     Resources &out);
/// parseDeviceModel on an already parsed value.
Expected<DeviceModel> deviceModelFromJson(const json::Value &value,
                                          const JsonPlace &place,
                                          const DeviceModel &fallback);
Expected<WorkloadAnalysis> analysisFromJson(const json::Value &value,
                                            const JsonPlace &place);
json::Value deviceModelTree(const DeviceModel &model);
json::Value analysisTree(const WorkloadAnalysis &analysis);
json::Value resourcesTree(const Resources &resources);

} // namespace tilec::perfmodel

#endif // TILEC_LIB_PERFMODEL_MODEL_FIELDS_H
