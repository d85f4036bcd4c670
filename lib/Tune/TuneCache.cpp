//===- TuneCache.cpp - the persistent cache of tuning winners -------------===//

#include "tilec/Tune/TuneCache.h"
#include "tilec/Runtime/Cache.h"
#include "tilec/Support/Json.h"

#include <sys/stat.h>

using namespace tilec;
using namespace tilec::tune;

Expected<GemmShape> tune::parseGemmShape(const std::string &text) {
  GemmShape s;
  int64_t *dims[] = {&s.m, &s.n, &s.k};
  size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    size_t end = text.find('x', at);
    if ((i < 2) != (end != std::string::npos))
      break;
    std::string part = text.substr(at, end == std::string::npos
                                           ? std::string::npos
                                           : end - at);
    char *stop = nullptr;
    long long v = part.empty() ? 0 : std::strtoll(part.c_str(), &stop, 10);
    if (part.empty() || *stop || v < 1 || v > (int64_t(1) << 31) - 1)
      return Status::error("'" + text +
                           "' is not a GEMM shape MxNxK (each in [1, "
                           "2^31 - 1])");
    *dims[i] = v;
    at = end + 1;
    if (i == 2)
      return s;
  }
  return Status::error("'" + text + "' is not a GEMM shape MxNxK (each in "
                                    "[1, 2^31 - 1])");
}

std::string tune::gemmBucket(const GemmShape &s) {
  auto up = [](int64_t v) {
    int64_t p = 16;
    while (p < v)
      p *= 2;
    return std::to_string(p);
  };
  // The row strides are K (A) and N (B, C): kernels compiled for 16-element
  // strides cannot take others, so alignment splits a bucket.
  int64_t align = 1;
  while (align < 16 && s.k % (align * 2) == 0 && s.n % (align * 2) == 0)
    align *= 2;
  return "M" + up(s.m) + "xN" + up(s.n) + "xK" + up(s.k) + "/a" +
         std::to_string(align);
}

std::string GemmPlan::describe() const {
  if (kernels.size() <= 1)
    return "1 kernel";
  std::string out = "SPLIT_K=" + std::to_string(splitK) + ":";
  for (size_t i = 0; i < kernels.size(); ++i)
    out += (i ? ", " : " ") + kernels[i];
  return out;
}

GemmPlan tune::planOf(const Manifest &m, const Candidate &c) {
  GemmPlan p;
  p.splitK = splitKOf(c);
  p.tma = usesTma(c);
  p.kernels = {m.kernel};
  if (!c.reduce.kernel.empty()) {
    p.kernels.push_back(c.reduce.kernel);
    p.reduceBlockN = c.reduce.blockN;
  }
  return p;
}

Winner tune::winnerOf(const Manifest &m, const Candidate &c) {
  Winner w;
  w.id = c.id;
  w.params = c.params;
  w.plan = planOf(m, c);
  return w;
}

// v2: entries carry the plan (split-K); a v1 entry has another key, so it
// is never read as a v2 one.
std::string TuneKeyParts::text() const {
  return "tilec-tune winner v2\nkernel " + kernelHash + "\nspace " +
         spaceHash + "\nproblem " + problem + "\nbucket " + bucket +
         "\ndevice " + device + "\ncompiler " + compiler + "\n";
}

TuneKeyParts tune::keyParts(const Manifest &m, const std::string &bucket,
                            const std::string &device) {
  return {m.kernelHash, m.spaceHash(), m.problem, bucket, device, m.compiler};
}

std::string tune::tuneKey(const TuneKeyParts &parts) {
  return runtime::hash128Hex(parts.text());
}

TuneCache::TuneCache(std::string dir) : dir_(std::move(dir) + "/tune") {}

std::string TuneCache::pathFor(const std::string &key) const {
  return runtime::CubinCache(dir_).pathFor(key);
}

CacheLookup TuneCache::lookup(const TuneKeyParts &parts,
                              const Manifest &manifest) const {
  CacheLookup result;
  std::string key = tuneKey(parts);
  runtime::CubinCache cache(dir_);
  std::optional<std::string> bytes = cache.lookup(key);
  if (!bytes) {
    struct stat st;
    if (::lstat(cache.pathFor(key).c_str(), &st) == 0)
      result.ignored = "a damaged entry (length or checksum)";
    return result;
  }
  auto ignore = [&](std::string why) {
    result.ignored = std::move(why);
    return result;
  };
  Expected<json::Value> doc = json::parse(*bytes);
  if (!doc.ok())
    return ignore("an entry that is not JSON (" + doc.message() + ")");
  const json::Value &j = *doc;
  if (!j.is_object() || j.value("format", "") != "tilec-tune-winner" ||
      !j.contains("key") || !j["key"].is_string() ||
      !j.contains("id") || !json::asInt64(j["id"]) ||
      !j.contains("median_ms") || !j["median_ms"].is_number() ||
      !j.contains("shape") || !j["shape"].is_array() ||
      j["shape"].size() != 3)
    return ignore("an entry without the fields of a winner");
  if (json::asInt64(j.value("version", json::Value(0))).value_or(0) != 2)
    return ignore("an entry of another format version (this tilec-tune "
                  "writes 2)");
  GemmPlan plan;
  {
    const json::Value *p = j.contains("plan") ? &j["plan"] : nullptr;
    bool ok = p && p->is_object() && p->contains("split_k") &&
              json::asInt64((*p)["split_k"]) &&
              *json::asInt64((*p)["split_k"]) >= 1 && p->contains("tma") &&
              p->at("tma").is_boolean() && p->contains("kernels") &&
              p->at("kernels").is_array() && !p->at("kernels").empty() &&
              p->contains("reduce_block_n") &&
              json::asInt64((*p)["reduce_block_n"]);
    for (size_t i = 0; ok && i < p->at("kernels").size(); ++i)
      ok = p->at("kernels")[i].is_string();
    if (!ok)
      return ignore("an entry without a well-formed plan (split_k, tma, "
                    "kernels, reduce_block_n)");
    plan.splitK = *json::asInt64((*p)["split_k"]);
    plan.tma = p->at("tma").get<bool>();
    for (const json::Value &k : p->at("kernels"))
      plan.kernels.push_back(k.get<std::string>());
    plan.reduceBlockN = *json::asInt64((*p)["reduce_block_n"]);
    if ((plan.kernels.size() > 1) != (plan.splitK > 1) ||
        plan.kernels.size() > 2)
      return ignore("an entry whose plan has " +
                    std::to_string(plan.kernels.size()) +
                    " kernels for SPLIT_K=" + std::to_string(plan.splitK));
  }
  if (j["key"].get<std::string>() != parts.text())
    return ignore("an entry of other key parts (a hash collision or an "
                  "edited file)");
  Winner w;
  w.id = static_cast<int>(*json::asInt64(j["id"]));
  w.medianMs = j["median_ms"].get<double>();
  w.measured = static_cast<int>(json::asInt64(j.value("measured", json::Value(0))).value_or(0));
  w.measuredShape = {json::asInt64(j["shape"][0]).value_or(0),
                     json::asInt64(j["shape"][1]).value_or(0),
                     json::asInt64(j["shape"][2]).value_or(0)};
  const Candidate *c = manifest.find(w.id);
  if (!c || c->pruned)
    return ignore("an entry naming candidate " + std::to_string(w.id) +
                  ", which the manifest does not have (or pruned)");
  GemmPlan want = planOf(manifest, *c);
  if (plan != want)
    return ignore("an entry whose plan (" + plan.describe() +
                  ") is not candidate " + std::to_string(w.id) + "'s (" +
                  want.describe() + ")");
  w.params = c->params;
  w.plan = plan;
  result.winner = w;
  return result;
}

Status TuneCache::store(const TuneKeyParts &parts, const Winner &w) const {
  json::Value j = json::Value::object();
  j["format"] = "tilec-tune-winner";
  j["version"] = 2;
  j["key"] = parts.text();
  json::Value plan = json::Value::object();
  plan["split_k"] = w.plan.splitK;
  plan["tma"] = w.plan.tma;
  plan["kernels"] = w.plan.kernels;
  plan["reduce_block_n"] = w.plan.reduceBlockN;
  j["plan"] = plan;
  j["id"] = w.id;
  json::Value params = json::Value::object();
  for (const auto &[n, v] : w.params)
    params[n] = v;
  j["params"] = params;
  j["median_ms"] = w.medianMs;
  j["shape"] = {w.measuredShape.m, w.measuredShape.n, w.measuredShape.k};
  j["measured"] = w.measured;
  return runtime::CubinCache(dir_).store(tuneKey(parts), json::write(j));
}
