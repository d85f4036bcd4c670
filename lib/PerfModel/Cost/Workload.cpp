//===- Workload.cpp - sizes as expressions, workload files ----------------===//
//
// Workloads name their sizes once (N = 2^28) and derive grids, buffer sizes
// and scalars from them (cdiv(N, 1024)), so that the analyzer can double
// the batch variable for the 2N point or sweep it, and every derived value
// follows.
//
//===----------------------------------------------------------------------===//

#include "tilec/PerfModel/Analyzer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

using namespace tilec::perfmodel;
using llvm::StringRef;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Recursive descent over: sum := product (('+'|'-') product)*,
/// product := power (('*'|'/'|'%') power)*, power := unary ('^' power)?,
/// unary := '-' unary | atom, atom := number | name | name '(' args ')' |
/// '(' sum ')'.
class ExprParser {
public:
  ExprParser(StringRef text, const Vars &vars) : text_(text), vars_(vars) {}

  llvm::Expected<int64_t> parse() {
    int64_t v = 0;
    if (!sum(v))
      return fail("expression '" + text_ + "': " + error_ + " at position " +
                  llvm::Twine(errorAt_ + 1));
    skip();
    if (pos_ != text_.size()) {
      errorAt_ = pos_;
      return fail("expression '" + text_ + "': unexpected '" +
                  text_.substr(pos_, 1) + "' at position " +
                  llvm::Twine(pos_ + 1));
    }
    return v;
  }

private:
  void skip() {
    while (pos_ < text_.size() && std::isspace(uint8_t(text_[pos_])))
      ++pos_;
  }
  bool err(const std::string &message) {
    if (error_.empty()) {
      error_ = message;
      errorAt_ = pos_;
    }
    return false;
  }
  bool eat(char c) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool overflow() { return err("the value overflows 64 bits"); }

  bool sum(int64_t &v) {
    if (!product(v))
      return false;
    for (;;) {
      bool plus = eat('+');
      if (!plus && !eat('-'))
        return true;
      int64_t r;
      if (!product(r))
        return false;
      if (plus ? __builtin_add_overflow(v, r, &v)
               : __builtin_sub_overflow(v, r, &v))
        return overflow();
    }
  }
  bool product(int64_t &v) {
    if (!power(v))
      return false;
    for (;;) {
      char op = 0;
      for (char c : {'*', '/', '%'})
        if (!op && eat(c))
          op = c;
      if (!op)
        return true;
      skip();
      size_t at = pos_;
      int64_t r;
      if (!power(r))
        return false;
      if (op == '*') {
        if (__builtin_mul_overflow(v, r, &v))
          return overflow();
        continue;
      }
      if (r == 0) {
        pos_ = at;
        return err("division by zero");
      }
      // Floor division and its modulo, as Python's // and %.
      int64_t q = v / r, m = v % r;
      if (m != 0 && ((m < 0) != (r < 0))) {
        --q;
        m += r;
      }
      v = op == '/' ? q : m;
    }
  }
  bool power(int64_t &v) {
    if (!unary(v))
      return false;
    if (!eat('^'))
      return true;
    int64_t e;
    if (!power(e))
      return false;
    if (e < 0)
      return err("negative exponent");
    int64_t base = v;
    v = 1;
    for (int64_t i = 0; i < e; ++i)
      if (__builtin_mul_overflow(v, base, &v))
        return overflow();
    return true;
  }
  bool unary(int64_t &v) {
    if (eat('-')) {
      if (!unary(v))
        return false;
      if (__builtin_sub_overflow(int64_t(0), v, &v))
        return overflow();
      return true;
    }
    return atom(v);
  }
  bool atom(int64_t &v) {
    skip();
    if (eat('(')) {
      if (!sum(v))
        return false;
      if (!eat(')'))
        return err("expected ')'");
      return true;
    }
    if (pos_ < text_.size() && std::isdigit(uint8_t(text_[pos_]))) {
      size_t start = pos_;
      while (pos_ < text_.size() && std::isalnum(uint8_t(text_[pos_])))
        ++pos_;
      StringRef digits = text_.slice(start, pos_);
      unsigned long long x;
      if (llvm::getAsUnsignedInteger(digits, 0, x) || x > INT64_MAX) {
        pos_ = start;
        return err("bad number '" + digits.str() + "'");
      }
      v = int64_t(x);
      return true;
    }
    if (pos_ < text_.size() &&
        (std::isalpha(uint8_t(text_[pos_])) || text_[pos_] == '_')) {
      size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(uint8_t(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      StringRef name = text_.slice(start, pos_);
      if (eat('(')) {
        int64_t a, b;
        if (!sum(a) || !eat(','))
          return error_.empty() ? err("expected ','") : false;
        if (!sum(b) || !eat(')'))
          return error_.empty() ? err("expected ')'") : false;
        if (name == "cdiv") {
          if (b <= 0) {
            pos_ = start;
            return err("cdiv by a divisor that is not positive");
          }
          v = a / b + (a % b > 0);
        } else if (name == "min") {
          v = std::min(a, b);
        } else if (name == "max") {
          v = std::max(a, b);
        } else {
          pos_ = start;
          return err("unknown function '" + name.str() +
                     "' (known: cdiv, min, max)");
        }
        return true;
      }
      auto it = vars_.find(name.str());
      if (it == vars_.end()) {
        pos_ = start;
        std::string known;
        for (const auto &[k, _] : vars_)
          known += (known.empty() ? "" : ", ") + k;
        return err("unknown variable '" + name.str() + "'" +
                   (known.empty() ? std::string(" (no variables are set)")
                                  : " (set: " + known + ")"));
      }
      v = it->second;
      return true;
    }
    return err(pos_ < text_.size()
                   ? "unexpected '" + text_.substr(pos_, 1).str() + "'"
                   : std::string("unexpected end"));
  }

  StringRef text_;
  const Vars &vars_;
  size_t pos_ = 0;
  std::string error_;
  size_t errorAt_ = 0;
};

} // namespace

llvm::Expected<int64_t> tilec::perfmodel::evalExpr(StringRef expr,
                                                   const Vars &vars) {
  if (expr.trim().empty())
    return fail("empty expression");
  return ExprParser(expr, vars).parse();
}

llvm::Expected<Vars> tilec::perfmodel::evalVars(const WorkloadSpec &spec,
                                                const Vars &overrides) {
  Vars vars = overrides;
  // In dependency order: a variable may use any other; resolve repeatedly.
  std::vector<std::pair<std::string, std::string>> pending;
  for (const auto &v : spec.vars)
    if (!overrides.count(v.first))
      pending.push_back(v);
  while (!pending.empty()) {
    std::vector<std::pair<std::string, std::string>> left;
    std::string firstError;
    for (const auto &[name, expr] : pending) {
      auto value = evalExpr(expr, vars);
      if (value) {
        vars[name] = *value;
        continue;
      }
      std::string message = toString(value.takeError());
      if (firstError.empty())
        firstError = "variable '" + name + "': " + message;
      left.push_back({name, expr});
    }
    if (left.size() == pending.size())
      return fail(firstError);
    pending = std::move(left);
  }
  return vars;
}

llvm::Expected<std::array<int64_t, 3>>
tilec::perfmodel::evalGrid(const LaunchSpec &spec, const Vars &vars) {
  if (spec.grid.empty() || spec.grid.size() > 3)
    return fail("the grid needs 1 to 3 sizes, got " +
                llvm::Twine(spec.grid.size()));
  std::array<int64_t, 3> grid = {1, 1, 1};
  for (size_t i = 0; i < spec.grid.size(); ++i) {
    auto v = evalExpr(spec.grid[i], vars);
    if (!v)
      return v.takeError();
    grid[i] = *v;
  }
  return grid;
}

llvm::Expected<std::vector<LaunchArg>>
tilec::perfmodel::evalArgs(const LaunchSpec &spec, const Vars &vars,
                           const std::vector<std::string> &names,
                           const std::vector<bool> &isPointer,
                           const std::vector<bool> &isFloat) {
  std::string signature;
  for (size_t i = 0; i < names.size(); ++i)
    signature += (i ? ", " : "") + names[i];
  if (spec.args.size() != names.size())
    return fail("kernel '" + spec.kernel + "' takes " +
                llvm::Twine(names.size()) + " arguments (" + signature +
                ") but " + llvm::Twine(spec.args.size()) +
                (spec.args.size() == 1 ? " was" : " were") + " given");
  std::vector<LaunchArg> args;
  for (size_t i = 0; i < names.size(); ++i) {
    StringRef text = StringRef(spec.args[i]).trim();
    std::string where = "argument " + std::to_string(i) + " ('" + names[i] +
                        "' = '" + text.str() + "')";
    LaunchArg arg;
    arg.name = names[i];
    if (isPointer[i]) {
      arg.isBuffer = true;
      bool haveCount = false;
      llvm::SmallVector<StringRef> items;
      text.split(items, ',');
      for (StringRef item : items) {
        auto [key, value] = item.trim().split('=');
        key = key.trim();
        value = value.trim();
        if (key == "n") {
          auto n = evalExpr(value, vars);
          if (!n)
            return fail(where + ": " + toString(n.takeError()));
          if (*n < 0)
            return fail(where + ": a buffer cannot have " + llvm::Twine(*n) +
                        " elements");
          arg.count = uint64_t(*n);
          haveCount = true;
        } else if (key == "buf" && !value.empty()) {
          arg.buffer = value.str();
        } else if ((key == "shape" || key == "strides") && !value.empty()) {
          // A tensor descriptor's tensor: D0xD1.. (expressions).
          llvm::SmallVector<StringRef> dims;
          value.split(dims, 'x');
          std::vector<int64_t> &out = key == "shape" ? arg.shape : arg.strides;
          for (StringRef dim : dims) {
            auto n = evalExpr(dim.trim(), vars);
            if (!n)
              return fail(where + ": " + toString(n.takeError()));
            out.push_back(*n);
          }
        } else {
          return fail(where + ": '" + names[i] +
                      "' is a pointer: give n=COUNT[,buf=NAME] (unknown "
                      "item '" +
                      item.trim() + "')");
        }
      }
      if (!haveCount)
        return fail(where + ": '" + names[i] +
                    "' is a pointer: give its buffer size as n=COUNT");
    } else if (isFloat[i]) {
      arg.isFloat = true;
      std::string s = text.str();
      char *end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (!s.empty() && end && *end == '\0') {
        arg.floatValue = d;
      } else {
        auto n = evalExpr(text, vars);
        if (!n)
          return fail(where + ": '" + names[i] +
                      "' is a float: give a number (" +
                      toString(n.takeError()) + ")");
        arg.floatValue = double(*n);
      }
    } else {
      if (text.contains('='))
        return fail(where + ": '" + names[i] +
                    "' is a scalar: give a value, not a buffer");
      auto n = evalExpr(text, vars);
      if (!n)
        return fail(where + ": " + toString(n.takeError()));
      arg.intValue = *n;
    }
    args.push_back(std::move(arg));
  }
  return args;
}

//===----------------------------------------------------------------------===//
// Workload files
//===----------------------------------------------------------------------===//

namespace {

/// "workloads[2] ('add fp32 2^28')" for messages.
std::string where(size_t i, StringRef name) {
  return "workloads[" + std::to_string(i) + "]" +
         (name.empty() ? "" : " ('" + name.str() + "')");
}

llvm::Error stringList(const llvm::json::Object &o, StringRef key,
                       std::vector<std::string> &out, const std::string &at,
                       bool required) {
  const llvm::json::Value *v = o.get(key);
  if (!v)
    return required ? fail(at + ": '" + key + "' is missing")
                    : llvm::Error::success();
  const llvm::json::Array *a = v->getAsArray();
  if (!a)
    return fail(at + ": '" + key + "' must be an array of strings");
  for (const llvm::json::Value &e : *a) {
    if (auto s = e.getAsString())
      out.push_back(s->str());
    else if (auto n = e.getAsInteger())
      out.push_back(std::to_string(*n));
    else if (auto d = e.getAsNumber())
      out.push_back(llvm::formatv("{0}", *d).str());
    else
      return fail(at + ": '" + key + "' must hold strings or numbers");
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::vector<WorkloadSpec>>
tilec::perfmodel::parseWorkloadsFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail("cannot read workloads file '" + path +
                "': " + buffer.getError().message());
  auto json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return fail(path + ": not JSON: " + toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *list = root ? root->getArray("workloads") : nullptr;
  if (!list)
    return fail(path + ": expected {\"workloads\": [...]}");
  llvm::SmallString<128> dir(path);
  llvm::sys::path::remove_filename(dir);
  std::vector<WorkloadSpec> specs;
  for (size_t i = 0; i < list->size(); ++i) {
    const llvm::json::Object *w = (*list)[i].getAsObject();
    if (!w)
      return fail(path + ": " + where(i, "") + " must be an object");
    WorkloadSpec spec;
    if (auto name = w->getString("name"))
      spec.name = name->str();
    std::string at = path.str() + ": " + where(i, spec.name);
    for (const auto &kv : *w) {
      StringRef key = kv.first;
      if (key != "name" && key != "group" && key != "label" && key != "vars" &&
          key != "batch" && key != "sweep" && key != "launches")
        return fail(at + ": unknown key '" + key +
                    "' (known: name, group, label, vars, batch, sweep, "
                    "launches)");
    }
    if (spec.name.empty())
      return fail(at + ": 'name' is missing");
    if (auto g = w->getString("group"))
      spec.group = g->str();
    if (auto l = w->getString("label"))
      spec.label = l->str();
    if (auto b = w->getString("batch"))
      spec.batchVar = b->str();
    if (const llvm::json::Value *vars = w->get("vars")) {
      const llvm::json::Object *o = vars->getAsObject();
      if (!o)
        return fail(at + ": 'vars' must be an object of expressions");
      for (const auto &kv : *o) {
        std::string expr;
        if (auto s = kv.second.getAsString())
          expr = s->str();
        else if (auto n = kv.second.getAsInteger())
          expr = std::to_string(*n);
        else
          return fail(at + ": variable '" + kv.first.str() +
                      "' must be an expression string or an integer");
        spec.vars.push_back({kv.first.str(), expr});
      }
    }
    if (!spec.batchVar.empty()) {
      bool found = false;
      for (const auto &v : spec.vars)
        found |= v.first == spec.batchVar;
      if (!found)
        return fail(at + ": the batch variable '" + spec.batchVar +
                    "' is not among its vars");
    }
    if (llvm::Error e = stringList(*w, "sweep", spec.sweep, at, false))
      return e;
    if (!spec.sweep.empty() && spec.batchVar.empty())
      return fail(at + ": 'sweep' needs a 'batch' variable to vary");
    const llvm::json::Array *launches = w->getArray("launches");
    if (!launches || launches->empty())
      return fail(at + ": 'launches' must be a non-empty array");
    for (size_t j = 0; j < launches->size(); ++j) {
      std::string lat = at + ", launches[" + std::to_string(j) + "]";
      const llvm::json::Object *l = (*launches)[j].getAsObject();
      if (!l)
        return fail(lat + " must be an object");
      for (const auto &kv : *l) {
        StringRef key = kv.first;
        if (key != "file" && key != "kernel" && key != "grid" && key != "args")
          return fail(lat + ": unknown key '" + key +
                      "' (known: file, kernel, grid, args)");
      }
      LaunchSpec launch;
      auto file = l->getString("file");
      if (!file)
        return fail(lat + ": 'file' is missing");
      llvm::SmallString<128> full(dir);
      llvm::sys::path::append(full, *file);
      launch.file =
          llvm::sys::path::is_absolute(*file) ? file->str() : full.str().str();
      if (auto k = l->getString("kernel"))
        launch.kernel = k->str();
      if (llvm::Error e = stringList(*l, "grid", launch.grid, lat, true))
        return e;
      if (llvm::Error e = stringList(*l, "args", launch.args, lat, true))
        return e;
      spec.launches.push_back(std::move(launch));
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}
