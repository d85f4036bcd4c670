//===- Json.cpp - strict JSON reading and readable writing ----------------===//
//
// parse() drives nlohmann's SAX parser with a handler that builds the tree
// itself, so that it sees each key as it is read: nlohmann's own tree builder
// keeps the last of duplicate keys without a word.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/Json.h"

#include <cmath>
#include <cstdio>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tilec::json {

namespace {

/// Builds a Value from SAX events, refusing duplicate keys and deep nesting.
class StrictBuilder {
public:
  explicit StrictBuilder(Value &root) : root_(root) {}

  bool null() { return put(nullptr); }
  bool boolean(bool b) { return put(b); }
  bool number_integer(Value::number_integer_t v) { return put(v); }
  bool number_unsigned(Value::number_unsigned_t v) { return put(v); }
  bool number_float(Value::number_float_t v, const Value::string_t &) {
    return put(v);
  }
  bool string(Value::string_t &s) { return put(std::move(s)); }
  bool binary(Value::binary_t &) { return put(nullptr); } // not in JSON text

  bool start_object(std::size_t) { return open(Value::object()); }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(Value::array()); }
  bool end_array() { return close(); }

  bool key(Value::string_t &k) {
    Frame &top = stack_.back();
    if (!top.keys.insert(k).second) {
      error_ = "duplicate key " + quote(k) +
               (stack_.size() > 1 ? " in " + path(stack_.size()) : "");
      return false;
    }
    // Appended to the ordered map's vector directly: its own insert looks
    // for the key first, which would make a large object quadratic (the set
    // above has done that check).
    auto &members = top.value->get_ref<Value::object_t &>();
    using Base = Value::object_t::Container;
    static_cast<Base &>(members).emplace_back(k, nullptr);
    top.slot = &members.back().second;
    top.key = k;
    return true;
  }

  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::json::exception &e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 2:
    // syntax error ..." -> "line 1, column 2: syntax error ...".
    std::string what = e.what();
    if (size_t at = what.find("] "); at != std::string::npos)
      what.erase(0, at + 2);
    if (what.rfind("parse error at ", 0) == 0)
      what.erase(0, 15);
    error_ = what;
    return false;
  }

  const std::string &error() const { return error_; }

private:
  struct Frame {
    Value *value = nullptr;
    Value *slot = nullptr; ///< the member the next value of an object fills
    std::string key;       ///< that member's key
    std::unordered_set<std::string> keys; ///< an object's keys so far
  };

  /// Where the next value goes: the document, the next element of an
  /// array, or the member whose key was just read.
  Value *place() {
    if (stack_.empty())
      return &root_;
    Frame &top = stack_.back();
    if (top.value->is_array()) {
      top.value->push_back(nullptr);
      return &top.value->back();
    }
    return top.slot;
  }
  template <typename T> bool put(T &&v) {
    *place() = Value(std::forward<T>(v));
    return true;
  }
  bool open(Value container) {
    if (stack_.size() >= kMaxDepth) {
      error_ = "JSON nested deeper than " + std::to_string(kMaxDepth) +
               " levels at " + path(stack_.size());
      return false;
    }
    Value *v = place();
    *v = std::move(container);
    stack_.emplace_back();
    stack_.back().value = v;
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  /// The path to the container at depth `depth` (1 = the document):
  /// "kernels[0].params".
  std::string path(size_t depth) const {
    std::string out;
    for (size_t i = 0; i + 1 < depth; ++i) {
      const Frame &f = stack_[i];
      if (f.value->is_array())
        out += "[" + std::to_string(f.value->size() - 1) + "]";
      else
        out += (out.empty() ? "" : ".") + f.key;
    }
    return out.empty() ? "the document" : out;
  }

  Value &root_;
  std::vector<Frame> stack_;
  std::string error_;
};

void writeTo(std::string &out, const Value &v, unsigned indent) {
  auto scalarsOnly = [](const Value &c) {
    for (const Value &e : c)
      if (e.is_structured())
        return false;
    return true;
  };
  switch (v.type()) {
  case Value::value_t::object:
  case Value::value_t::array: {
    bool object = v.is_object();
    if (v.empty()) {
      out += object ? "{}" : "[]";
      return;
    }
    bool oneLine = scalarsOnly(v);
    out += object ? '{' : '[';
    bool first = true;
    auto separate = [&] {
      if (!first)
        out += oneLine ? ", " : ",";
      first = false;
      if (!oneLine) {
        out += '\n';
        out.append(2 * (indent + 1), ' ');
      }
    };
    if (object) {
      for (const auto &[key, member] : v.items()) {
        separate();
        out += quote(key);
        out += ": ";
        writeTo(out, member, indent + 1);
      }
    } else {
      for (const Value &element : v) {
        separate();
        writeTo(out, element, indent + 1);
      }
    }
    if (!oneLine) {
      out += '\n';
      out.append(2 * indent, ' ');
    }
    out += object ? '}' : ']';
    return;
  }
  case Value::value_t::number_float: {
    double d = v.get<double>();
    if (!std::isfinite(d)) {
      out += "null";
      return;
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", d);
    out += buf;
    return;
  }
  case Value::value_t::string:
    out += quote(v.get_ref<const std::string &>());
    return;
  default:
    out += v.dump();
  }
}

} // namespace

Expected<Value> parse(std::string_view text) {
  Value root;
  StrictBuilder builder(root);
  bool ok = Value::sax_parse(text.begin(), text.end(), &builder,
                             Value::input_format_t::json, /*strict=*/true);
  if (!ok)
    return Status::error(builder.error());
  return root;
}

const char *kindName(const Value &value) {
  switch (value.type()) {
  case Value::value_t::null:
    return "null";
  case Value::value_t::boolean:
    return "a boolean";
  case Value::value_t::number_integer:
  case Value::value_t::number_unsigned:
  case Value::value_t::number_float:
    return "a number";
  case Value::value_t::string:
    return "a string";
  case Value::value_t::array:
    return "an array";
  case Value::value_t::object:
    return "an object";
  default:
    return "a value";
  }
}

std::string show(const Value &value) {
  if (value.is_string())
    return quote(value.get_ref<const std::string &>());
  if (value.is_number_integer())
    return value.dump();
  if (value.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", value.get<double>());
    return buf;
  }
  if (value.is_boolean())
    return value.get<bool>() ? "true" : "false";
  return kindName(value);
}

std::string quote(std::string_view text) {
  return Value(std::string(text))
      .dump(-1, ' ', /*ensure_ascii=*/false, Value::error_handler_t::replace);
}

std::optional<int64_t> asInt64(const Value &value) {
  if (value.is_number_unsigned()) {
    uint64_t u = value.get<uint64_t>();
    if (u > uint64_t(INT64_MAX))
      return std::nullopt;
    return int64_t(u);
  }
  if (value.is_number_integer())
    return value.get<int64_t>();
  return std::nullopt;
}

std::string write(const Value &value) {
  std::string out;
  writeTo(out, value, 0);
  return out + '\n';
}

} // namespace tilec::json
