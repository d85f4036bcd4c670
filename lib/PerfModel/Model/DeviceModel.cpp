//===- DeviceModel.cpp - built-in GPU models, JSON overrides, occupancy ---===//
//
// The built-in numbers are the vendors' datasheet peaks (dense, boost
// clock). The SFU and INT32 rates are not on the datasheets; they follow
// from the SM's units (16 MUFU and 64 INT32 lanes per SM per clock on
// sm_80/sm_90, as the architecture whitepapers give) times SMs times clock.
// The launch overhead is the typical host cost of one cuLaunchKernel; it is
// the number most worth overriding with a measurement.
//
//===----------------------------------------------------------------------===//

#include "tilec/PerfModel/DeviceModel.h"
#include "tilec/Target/Chip.h"

#include "Fields.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

using namespace tilec::perfmodel;
using tilec::json::Value;
namespace json = tilec::json;

namespace {

DeviceModel hopper(std::string id, std::string name, double bandwidthGBps,
                   std::string source) {
  DeviceModel m;
  m.id = std::move(id);
  m.name = std::move(name);
  m.arch = "sm_90";
  m.source = std::move(source);
  m.sms = 132;
  m.clockGHz = 1.98;
  m.bandwidthGBps = bandwidthGBps;
  m.l2MB = 50;
  m.fp32TFlops = 66.9;
  m.fp16TFlops = 133.8;
  m.fp64TFlops = 33.5;
  m.int32Tops = 132 * 64 * 1.98e-3;
  m.sfuTops = 132 * 16 * 1.98e-3;
  m.tensorBf16TFlops = 989.4;
  m.tensorF16TFlops = 989.4;
  m.tensorTf32TFlops = 494.7;
  m.tensorFp8TFlops = 1978.9;
  m.tensorInt8Tops = 1978.9;
  m.launchUs = 4.0;
  m.smemPerSM = 228 * 1024;
  m.smemPerBlock = 227 * 1024;
  return m;
}

std::vector<DeviceModel> makeBuiltins() {
  std::vector<DeviceModel> models;
  models.push_back(hopper("h200", "NVIDIA H200 SXM", 4800,
                          "NVIDIA H200 datasheet (dense peaks)"));
  models.push_back(hopper("h100", "NVIDIA H100 SXM", 3350,
                          "NVIDIA H100 datasheet (dense peaks)"));
  DeviceModel a;
  a.id = "a100";
  a.name = "NVIDIA A100 SXM 80GB";
  a.arch = "sm_80";
  a.source = "NVIDIA A100 datasheet (dense peaks)";
  a.sms = 108;
  a.clockGHz = 1.41;
  a.bandwidthGBps = 2039;
  a.l2MB = 40;
  a.fp32TFlops = 19.5;
  a.fp16TFlops = 78;
  a.fp64TFlops = 9.7;
  a.int32Tops = 108 * 64 * 1.41e-3;
  a.sfuTops = 108 * 16 * 1.41e-3;
  a.tensorBf16TFlops = 312;
  a.tensorF16TFlops = 312;
  a.tensorTf32TFlops = 156;
  a.tensorFp8TFlops = 0; // no fp8 tensor cores before Hopper
  a.tensorInt8Tops = 624;
  a.launchUs = 4.0;
  a.smemPerSM = 164 * 1024;
  a.smemPerBlock = 163 * 1024;
  models.push_back(a);
  return models;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char &c : out)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// The overridable numeric fields, with their JSON keys. Every key here is
/// also what deviceModelJson writes, so a written model reads back.
struct DoubleField {
  const char *key;
  double DeviceModel::*member;
  bool positive; ///< else zero is allowed (a GPU without that unit)
};
const DoubleField kDoubles[] = {
    {"clock_ghz", &DeviceModel::clockGHz, true},
    {"bandwidth_gbps", &DeviceModel::bandwidthGBps, true},
    {"l2_mb", &DeviceModel::l2MB, false},
    {"fp32_tflops", &DeviceModel::fp32TFlops, true},
    {"fp16_tflops", &DeviceModel::fp16TFlops, false},
    {"fp64_tflops", &DeviceModel::fp64TFlops, false},
    {"int32_tops", &DeviceModel::int32Tops, false},
    {"sfu_tops", &DeviceModel::sfuTops, true},
    {"launch_us", &DeviceModel::launchUs, false},
};
struct TensorField {
  const char *key;
  double DeviceModel::*member;
};
const TensorField kTensor[] = {
    {"bf16", &DeviceModel::tensorBf16TFlops},
    {"f16", &DeviceModel::tensorF16TFlops},
    {"tf32", &DeviceModel::tensorTf32TFlops},
    {"fp8", &DeviceModel::tensorFp8TFlops},
    {"i8", &DeviceModel::tensorInt8Tops},
};
struct IntField {
  const char *key;
  int DeviceModel::*member;
};
const IntField kInts[] = {
    {"sms", &DeviceModel::sms},
    {"regs_per_sm", &DeviceModel::regsPerSM},
    {"max_regs_per_thread", &DeviceModel::maxRegsPerThread},
    {"reg_alloc_unit", &DeviceModel::regAllocUnit},
    {"smem_alloc_unit", &DeviceModel::smemAllocUnit},
    {"smem_reserved_per_block", &DeviceModel::smemReservedPerBlock},
    {"max_threads_per_sm", &DeviceModel::maxThreadsPerSM},
    {"max_blocks_per_sm", &DeviceModel::maxBlocksPerSM},
};
struct Int64Field {
  const char *key;
  int64_t DeviceModel::*member;
};
const Int64Field kInt64s[] = {
    {"smem_per_sm", &DeviceModel::smemPerSM},
    {"smem_per_block", &DeviceModel::smemPerBlock},
};

} // namespace

double DeviceModel::tensorRate(std::string_view kind) const {
  double tflops = kind == "bf16"                       ? tensorBf16TFlops
                  : kind == "f16"                      ? tensorF16TFlops
                  : kind == "tf32" || kind == "tf32x3" ? tensorTf32TFlops
                  : kind == "fp8"                      ? tensorFp8TFlops
                  : kind == "i8"                       ? tensorInt8Tops
                                                       : 0;
  return tflops * 1e12;
}

const std::vector<DeviceModel> &tilec::perfmodel::builtinDeviceModels() {
  static const std::vector<DeviceModel> models = makeBuiltins();
  return models;
}

Expected<DeviceModel>
tilec::perfmodel::builtinDeviceModel(std::string_view id) {
  std::string ids;
  for (const DeviceModel &m : builtinDeviceModels()) {
    if (m.id == lower(id))
      return m;
    ids += (ids.empty() ? "" : ", ") + m.id;
  }
  return Status::error("unknown device '" + std::string(id) +
                       "' (built-in models: " + ids +
                       "; or give a device model JSON file)");
}

Expected<DeviceModel>
tilec::perfmodel::parseDeviceModel(std::string_view text,
                                   const std::string &origin,
                                   const DeviceModel &fallback) {
  auto parsed = json::parse(text);
  if (!parsed.ok())
    return Status::error(origin + ": not JSON: " + parsed.message());
  return deviceModelFromJson(*parsed, JsonPlace{origin, ""}, fallback);
}

Expected<DeviceModel> tilec::perfmodel::deviceModelFromJson(
    const Value &value, const JsonPlace &place, const DeviceModel &fallback) {
  FieldReader r(value, place, "a device model");
  std::vector<std::string_view> known = {"base", "id",     "name",
                                         "arch", "source", "tensor_tflops"};
  for (const auto &f : kDoubles)
    known.push_back(f.key);
  for (const auto &f : kInts)
    known.push_back(f.key);
  for (const auto &f : kInt64s)
    known.push_back(f.key);
  TILEC_RETURN_IF_ERROR(r.check(known));

  DeviceModel m = fallback;
  if (const Value *base = r.find("base")) {
    if (!base->is_string())
      return r.error("base", "'base' must be a string naming a built-in model");
    auto b = builtinDeviceModel(base->get<std::string>());
    if (!b.ok())
      return r.error("base", b.message());
    m = *b;
  }
  TILEC_RETURN_IF_ERROR(r.string("id", m.id, false));
  TILEC_RETURN_IF_ERROR(r.string("name", m.name, false));
  TILEC_RETURN_IF_ERROR(r.string("arch", m.arch, false));
  TILEC_RETURN_IF_ERROR(r.string("source", m.source, false));
  // The chip the model's kernels are compiled for (ptxas -arch): one of
  // tilec's chips, from the one table of them.
  if (auto chip = tilec::lookupChip(m.arch); !chip.ok())
    return r.error("arch", "'arch': " + chip.message());
  for (const auto &f : kDoubles)
    TILEC_RETURN_IF_ERROR(r.number(f.key, m.*f.member, false, f.positive));
  for (const auto &f : kInts) {
    int64_t v = m.*f.member;
    TILEC_RETURN_IF_ERROR(r.integer(f.key, v, false, /*positive=*/true));
    if (v > (int64_t(1) << 30))
      return r.error(f.key,
                     "'" + std::string(f.key) + "' is implausibly large");
    m.*f.member = int(v);
  }
  for (const auto &f : kInt64s)
    TILEC_RETURN_IF_ERROR(r.integer(f.key, m.*f.member, false, true));
  if (const Value *tensor = r.find("tensor_tflops")) {
    FieldReader t(*tensor, r.place("tensor_tflops"), "'tensor_tflops'");
    TILEC_RETURN_IF_ERROR(t.check({"bf16", "f16", "tf32", "fp8", "i8"}));
    for (const auto &f : kTensor)
      TILEC_RETURN_IF_ERROR(t.number(f.key, m.*f.member, false, false));
  }
  if (m.smemPerBlock > m.smemPerSM)
    return r.error("'smem_per_block' (" + std::to_string(m.smemPerBlock) +
                   ") exceeds 'smem_per_sm' (" + std::to_string(m.smemPerSM) +
                   ")");
  return m;
}

Expected<DeviceModel>
tilec::perfmodel::loadDeviceModel(const std::string &idOrPath) {
  bool looksLikeFile = idOrPath.find('/') != std::string::npos ||
                       idOrPath.find(".json") != std::string::npos;
  if (!looksLikeFile)
    return builtinDeviceModel(idOrPath);
  std::ifstream in(idOrPath, std::ios::binary);
  if (!in)
    return Status::error("cannot read device model '" + idOrPath + "'");
  std::stringstream text;
  text << in.rdbuf();
  // A file without "base" overrides the H200, the GPU we measure on.
  return parseDeviceModel(text.str(), idOrPath, *builtinDeviceModel("h200"));
}

Value tilec::perfmodel::deviceModelTree(const DeviceModel &m) {
  Value j = Value::object();
  j["id"] = m.id;
  j["name"] = m.name;
  j["arch"] = m.arch;
  j["source"] = m.source;
  for (const auto &f : kInts)
    j[f.key] = m.*f.member;
  for (const auto &f : kDoubles)
    j[f.key] = m.*f.member;
  Value &tensor = j["tensor_tflops"] = Value::object();
  for (const auto &f : kTensor)
    tensor[f.key] = m.*f.member;
  for (const auto &f : kInt64s)
    j[f.key] = m.*f.member;
  return j;
}

std::string tilec::perfmodel::deviceModelJson(const DeviceModel &m) {
  return json::write(deviceModelTree(m));
}

Occupancy tilec::perfmodel::computeOccupancy(const DeviceModel &m,
                                             const Resources &r) {
  Occupancy o;
  int threads = r.threadsPerProgram;
  if (threads <= 0 || threads > 1024) {
    o.error = "a program of " + std::to_string(threads) +
              " threads cannot launch (CUDA allows 1..1024)";
    return o;
  }
  int warps = (threads + 31) / 32;
  int maxWarps = m.maxThreadsPerSM / 32;
  struct Limit {
    const char *what;
    int64_t programs;
  };
  std::vector<Limit> limits = {{"threads", maxWarps / warps},
                               {"programs per SM", m.maxBlocksPerSM}};
  if (r.registers >= 0) {
    if (r.registers > m.maxRegsPerThread) {
      o.error = std::to_string(r.registers) +
                " registers per thread exceed "
                "the limit of " +
                std::to_string(m.maxRegsPerThread);
      return o;
    }
    // Registers go to warps in units of regAllocUnit; a thread uses at
    // least one register.
    int64_t perWarp = int64_t(std::max(r.registers, 1)) * 32;
    perWarp = (perWarp + m.regAllocUnit - 1) / m.regAllocUnit * m.regAllocUnit;
    int64_t warpsByRegs = m.regsPerSM / perWarp;
    limits.push_back({"registers", warpsByRegs / warps});
  } else {
    o.upperBound = true;
  }
  if (r.staticSharedBytes >= 0) {
    int64_t bytes = r.sharedBytes();
    if (bytes > m.smemPerBlock) {
      o.error = std::to_string(bytes) +
                " bytes of shared memory per program "
                "exceed the limit of " +
                std::to_string(m.smemPerBlock);
      return o;
    }
    int64_t perBlock = bytes + m.smemReservedPerBlock;
    perBlock =
        (perBlock + m.smemAllocUnit - 1) / m.smemAllocUnit * m.smemAllocUnit;
    limits.push_back({"shared memory", m.smemPerSM / perBlock});
  } else {
    o.upperBound = true;
  }
  int64_t best = limits.front().programs;
  for (const Limit &l : limits)
    best = std::min(best, l.programs);
  for (const Limit &l : limits)
    if (l.programs == best)
      o.limiter += (o.limiter.empty() ? "" : "+") + std::string(l.what);
  if (best <= 0) {
    o.error = "a program does not fit on an SM (limited by " + o.limiter + ")";
    return o;
  }
  o.programsPerSM = int(best);
  o.fraction = double(best * warps) / maxWarps;
  return o;
}
