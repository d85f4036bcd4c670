//===- Manifest.cpp - a folder of compiled tuning candidates --------------===//
//
// The format is strict (unknown shapes of fields are errors naming the
// field) because the measuring side runs on another machine: a manifest
// that does not say what it means should stop there, not launch a kernel
// with the wrong grid.
//
//===----------------------------------------------------------------------===//

#include "tilec/Tune/Manifest.h"
#include "tilec/Runtime/Cache.h"
#include "tilec/Support/Json.h"
#include "tilec/Version.h"

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace tilec;
using namespace tilec::tune;

std::string tune::describe(const ParamValues &params) {
  std::string out;
  for (const auto &[name, value] : params)
    out += (out.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return out;
}

int64_t tune::valueOf(const ParamValues &params, const std::string &name) {
  for (const auto &[n, v] : params)
    if (n == name)
      return v;
  return -1;
}

std::string tune::compilerIdentity() {
  std::string id = "tilec " TILEC_VERSION;
  if (*TILEC_GIT_COMMIT)
    id += std::string(", commit ") + TILEC_GIT_COMMIT;
  return id;
}

int64_t tune::splitKOf(const Candidate &c) {
  return std::max<int64_t>(1, valueOf(c.params, "SPLIT_K"));
}

bool tune::usesTma(const Candidate &c) { return valueOf(c.params, "TMA") == 1; }

namespace {
std::string spaceText(const std::vector<SpaceDim> &dims) {
  std::string text;
  for (const SpaceDim &d : dims) {
    text += d.name + "=";
    for (int64_t v : d.values)
      text += std::to_string(v) + ",";
    text += ";";
  }
  return text;
}

json::Value spaceJson(const std::vector<SpaceDim> &dims) {
  json::Value space = json::Value::object();
  for (const SpaceDim &d : dims)
    space[d.name] = d.values;
  return space;
}
} // namespace

std::string Manifest::spaceHash() const {
  // Without families the text is what version 1 hashed: its cache entries
  // keep their keys.
  std::string text = spaceText(space);
  for (const SpaceFamily &f : families)
    text += "family " + f.name + ":" + spaceText(f.dims);
  return runtime::hash128Hex(text);
}

const Candidate *Manifest::find(int id) const {
  for (const Candidate &c : candidates)
    if (c.id == id)
      return &c;
  return nullptr;
}

std::string tune::writeManifest(const Manifest &m) {
  json::Value j = json::Value::object();
  j["format"] = "tilec-tune-candidates";
  j["version"] = 2;
  j["kernel"] = m.kernel;
  j["source"] = m.source;
  j["kernel_hash"] = m.kernelHash;
  j["compiler"] = m.compiler;
  j["target"] = m.target;
  j["problem"] = m.problem;
  j["space"] = spaceJson(m.space);
  if (!m.families.empty()) {
    json::Value fams = json::Value::array();
    for (const SpaceFamily &f : m.families) {
      json::Value o = json::Value::object();
      o["name"] = f.name;
      o["space"] = spaceJson(f.dims);
      fams.push_back(o);
    }
    j["families"] = fams;
  }
  j["space_hash"] = m.spaceHash();
  json::Value cands = json::Value::array();
  for (const Candidate &c : m.candidates) {
    json::Value o = json::Value::object();
    o["id"] = c.id;
    if (!c.family.empty())
      o["family"] = c.family;
    json::Value params = json::Value::object();
    for (const auto &[n, v] : c.params)
      params[n] = v;
    o["params"] = params;
    if (c.pruned) {
      o["status"] = "pruned";
      o["reason"] = c.reason;
    } else {
      o["status"] = "ok";
      o["binary"] = c.binary;
      o["metadata"] = c.metadata;
      o["registers"] = c.registers;
      o["spill_bytes"] = c.spillBytes;
      o["shared_bytes"] = c.sharedBytes;
      if (!c.reduce.kernel.empty()) {
        json::Value r = json::Value::object();
        r["kernel"] = c.reduce.kernel;
        r["binary"] = c.reduce.binary;
        r["metadata"] = c.reduce.metadata;
        r["block_n"] = c.reduce.blockN;
        o["reduce"] = r;
      }
    }
    o["compile_ms"] = c.compileMs;
    cands.push_back(o);
  }
  j["candidates"] = cands;
  return json::write(j);
}

namespace {

/// Field access with messages that name the field.
struct Reader {
  std::string error;

  const json::Value *member(const json::Value &o, const char *key,
                            const std::string &where) {
    if (!error.empty())
      return nullptr;
    auto it = o.find(key);
    if (it == o.end()) {
      error = where + ": missing '" + key + "'";
      return nullptr;
    }
    return &*it;
  }
  std::string string(const json::Value &o, const char *key,
                     const std::string &where) {
    const json::Value *v = member(o, key, where);
    if (!v)
      return "";
    if (!v->is_string()) {
      error = where + "." + key + ": expected a string, got " + json::show(*v);
      return "";
    }
    return v->get<std::string>();
  }
  int64_t integer(const json::Value &o, const char *key,
                  const std::string &where) {
    const json::Value *v = member(o, key, where);
    if (!v)
      return 0;
    std::optional<int64_t> n = json::asInt64(*v);
    if (!n) {
      error = where + "." + key + ": expected an integer, got " +
              json::show(*v);
      return 0;
    }
    return *n;
  }
};

} // namespace

Expected<Manifest> tune::parseManifest(const std::string &text) {
  Expected<json::Value> doc = json::parse(text);
  if (!doc.ok())
    return doc.status();
  const json::Value &j = *doc;
  if (!j.is_object())
    return Status::error("expected an object, got " + json::show(j));
  Reader r;
  Manifest m;
  if (r.string(j, "format", "manifest") != "tilec-tune-candidates" &&
      r.error.empty())
    return Status::error("manifest.format: not a tilec-tune-candidates "
                         "manifest");
  if (int64_t v = r.integer(j, "version", "manifest");
      r.error.empty() && v != 1 && v != 2)
    return Status::error("manifest.version: " + std::to_string(v) +
                         " is not a version this tilec-tune reads (1, 2)");
  m.kernel = r.string(j, "kernel", "manifest");
  m.source = r.string(j, "source", "manifest");
  m.kernelHash = r.string(j, "kernel_hash", "manifest");
  m.compiler = r.string(j, "compiler", "manifest");
  m.target = r.string(j, "target", "manifest");
  m.problem = r.string(j, "problem", "manifest");
  auto parseSpace = [](const json::Value &space, const std::string &where,
                       std::vector<SpaceDim> &out) -> Status {
    if (!space.is_object())
      return Status::error(where + ": expected an object");
    for (auto it = space.begin(); it != space.end(); ++it) {
      SpaceDim d{it.key(), {}};
      if (!it->is_array())
        return Status::error(where + "." + it.key() +
                             ": expected an array of integers");
      for (const json::Value &v : *it) {
        std::optional<int64_t> n = json::asInt64(v);
        if (!n)
          return Status::error(where + "." + it.key() +
                               ": expected integers, got " + json::show(v));
        d.values.push_back(*n);
      }
      out.push_back(d);
    }
    return Status();
  };
  if (const json::Value *space = r.member(j, "space", "manifest"))
    if (Status s = parseSpace(*space, "manifest.space", m.space); !s.ok())
      return s;
  if (auto fams = j.find("families"); fams != j.end()) {
    if (!fams->is_array())
      return Status::error("manifest.families: expected an array");
    for (size_t i = 0; i < fams->size(); ++i) {
      std::string where = "families[" + std::to_string(i) + "]";
      const json::Value &o = (*fams)[i];
      if (!o.is_object())
        return Status::error(where + ": expected an object");
      SpaceFamily f;
      f.name = r.string(o, "name", where);
      const json::Value *space = r.member(o, "space", where);
      if (!r.error.empty())
        return Status::error(r.error);
      if (Status s = parseSpace(*space, where + ".space", f.dims); !s.ok())
        return s;
      m.families.push_back(std::move(f));
    }
  }
  const json::Value *cands = r.member(j, "candidates", "manifest");
  if (!r.error.empty())
    return Status::error(r.error);
  if (!cands->is_array())
    return Status::error("manifest.candidates: expected an array");
  for (size_t i = 0; i < cands->size(); ++i) {
    const json::Value &o = (*cands)[i];
    std::string where = "candidates[" + std::to_string(i) + "]";
    if (!o.is_object())
      return Status::error(where + ": expected an object");
    Candidate c;
    c.id = static_cast<int>(r.integer(o, "id", where));
    if (auto f = o.find("family"); f != o.end()) {
      if (!f->is_string())
        return Status::error(where + ".family: expected a string, got " +
                             json::show(*f));
      c.family = f->get<std::string>();
    }
    if (const json::Value *p = r.member(o, "params", where)) {
      if (!p->is_object())
        return Status::error(where + ".params: expected an object");
      for (auto it = p->begin(); it != p->end(); ++it) {
        std::optional<int64_t> n = json::asInt64(*it);
        if (!n)
          return Status::error(where + ".params." + it.key() +
                               ": expected an integer, got " +
                               json::show(*it));
        c.params.emplace_back(it.key(), *n);
      }
    }
    std::string status = r.string(o, "status", where);
    if (r.error.empty() && status != "ok" && status != "pruned")
      return Status::error(where + ".status: expected \"ok\" or \"pruned\", "
                                   "got \"" + status + "\"");
    c.pruned = status == "pruned";
    if (c.pruned) {
      c.reason = r.string(o, "reason", where);
    } else {
      c.binary = r.string(o, "binary", where);
      c.metadata = r.string(o, "metadata", where);
      c.registers = static_cast<int>(r.integer(o, "registers", where));
      c.spillBytes = r.integer(o, "spill_bytes", where);
      c.sharedBytes = r.integer(o, "shared_bytes", where);
      if (auto red = o.find("reduce"); red != o.end()) {
        std::string rw = where + ".reduce";
        if (!red->is_object())
          return Status::error(rw + ": expected an object");
        c.reduce.kernel = r.string(*red, "kernel", rw);
        c.reduce.binary = r.string(*red, "binary", rw);
        c.reduce.metadata = r.string(*red, "metadata", rw);
        c.reduce.blockN = r.integer(*red, "block_n", rw);
        if (r.error.empty() && c.reduce.blockN < 1)
          return Status::error(rw + ".block_n: expected a positive integer");
      }
      // A split-K candidate without its reduce step could not be launched.
      if (r.error.empty() && (splitKOf(c) > 1) != !c.reduce.kernel.empty())
        return Status::error(where + (splitKOf(c) > 1
                                          ? ": SPLIT_K > 1 without 'reduce'"
                                          : ".reduce: without SPLIT_K > 1"));
    }
    if (auto it = o.find("compile_ms"); it != o.end() && it->is_number())
      c.compileMs = it->get<double>();
    if (!r.error.empty())
      return Status::error(r.error);
    if (m.find(c.id))
      return Status::error(where + ".id: " + std::to_string(c.id) +
                           " is used twice");
    m.candidates.push_back(std::move(c));
  }
  return m;
}

Expected<Manifest> tune::readManifest(const std::string &dir) {
  std::string path = dir + "/manifest.json";
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot read '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  Expected<Manifest> m = parseManifest(text.str());
  if (!m.ok())
    return m.status().withContext(path);
  return m;
}
