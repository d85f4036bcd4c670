//===- Analysis.cpp - FLOP classes, time floors, the analysis JSON --------===//
//
// The counts come from the static analysis (lib/PerfModel/Cost) exactly; the
// classification of ops into pipes and the instruction cost of special
// functions below are a model. Special functions and f32 division are not
// single instructions: libdevice expands them into FMA-pipe instructions
// plus MUFU (special-function unit) operations. The costs are estimates of
// the common, in-range path of libdevice's implementations (docs/analyzer.md
// lists them); they matter only for kernels whose floor is the FMA or MUFU
// pipe.
//
//===----------------------------------------------------------------------===//

#include "tilec/PerfModel/Analysis.h"

#include "Fields.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

using namespace tilec::perfmodel;
using tilec::json::Value;
namespace json = tilec::json;

namespace {

enum class OpKind { Float, Special, Int, Cvt };

struct OpInfo {
  std::string_view op;
  OpKind kind;
  double flops;    ///< FLOPs per element (Float)
  double pipe;     ///< instructions on the FMA (Float/Special) or INT pipe
  double mufu = 0; ///< MUFU operations per element
};

// clang-format off
const OpInfo kOps[] = {
  // Float arithmetic: one FMA-pipe instruction each.
  {"arith.addf", OpKind::Float, 1, 1}, {"arith.subf", OpKind::Float, 1, 1},
  {"arith.mulf", OpKind::Float, 1, 1}, {"arith.negf", OpKind::Float, 1, 1},
  {"arith.maximumf", OpKind::Float, 1, 1},
  {"arith.minimumf", OpKind::Float, 1, 1},
  {"arith.maxnumf", OpKind::Float, 1, 1},
  {"arith.minnumf", OpKind::Float, 1, 1},
  {"arith.cmpf", OpKind::Float, 1, 1}, {"arith.select", OpKind::Float, 1, 1},
  {"math.fma", OpKind::Float, 2, 1}, {"math.absf", OpKind::Float, 1, 1},
  {"math.copysign", OpKind::Float, 1, 1}, {"math.floor", OpKind::Float, 1, 1},
  {"math.ceil", OpKind::Float, 1, 1}, {"math.round", OpKind::Float, 1, 1},
  {"math.roundeven", OpKind::Float, 1, 1}, {"math.trunc", OpKind::Float, 1, 1},
  {"math.clampf", OpKind::Float, 2, 2},
  // IEEE division: reciprocal on the MUFU, Newton steps and scaling.
  {"arith.divf", OpKind::Float, 1, 8, 1}, {"arith.remf", OpKind::Float, 1, 12, 1},
  // Special functions: evaluations (1 op each), FMA-pipe instructions, MUFU.
  {"math.exp", OpKind::Special, 1, 4, 1}, {"math.exp2", OpKind::Special, 1, 1, 1},
  {"math.expm1", OpKind::Special, 1, 12, 1},
  {"math.log", OpKind::Special, 1, 12, 1}, {"math.log2", OpKind::Special, 1, 12, 1},
  {"math.log10", OpKind::Special, 1, 12, 1},
  {"math.log1p", OpKind::Special, 1, 14, 1},
  {"math.sin", OpKind::Special, 1, 20, 0}, {"math.cos", OpKind::Special, 1, 20, 0},
  {"math.tan", OpKind::Special, 1, 28, 1}, {"math.tanh", OpKind::Special, 1, 12, 1},
  {"math.sinh", OpKind::Special, 1, 14, 1}, {"math.cosh", OpKind::Special, 1, 14, 1},
  {"math.asin", OpKind::Special, 1, 20, 1}, {"math.acos", OpKind::Special, 1, 20, 1},
  {"math.atan", OpKind::Special, 1, 20, 1}, {"math.atan2", OpKind::Special, 1, 24, 1},
  {"math.asinh", OpKind::Special, 1, 20, 1},
  {"math.acosh", OpKind::Special, 1, 20, 1},
  {"math.atanh", OpKind::Special, 1, 20, 1},
  {"math.erf", OpKind::Special, 1, 14, 1}, {"math.erfc", OpKind::Special, 1, 20, 1},
  // erf under tile.approx_math (Support/ApproxErf.h): min, 5 fma, mul, sub,
  // copysign on the FMA pipe, one MUFU.EX2.
  {"math.erf.approx", OpKind::Special, 1, 9, 1},
  {"math.sqrt", OpKind::Special, 1, 4, 1}, {"math.rsqrt", OpKind::Special, 1, 1, 1},
  {"math.cbrt", OpKind::Special, 1, 12, 1}, {"math.powf", OpKind::Special, 1, 30, 2},
  {"math.fpowi", OpKind::Special, 1, 10, 0},
  // Integer and pointer arithmetic: one INT-pipe instruction each, except
  // division by a value not known at compile time (a ~20-instruction
  // sequence).
  {"arith.addi", OpKind::Int, 0, 1}, {"arith.subi", OpKind::Int, 0, 1},
  {"arith.muli", OpKind::Int, 0, 1}, {"arith.andi", OpKind::Int, 0, 1},
  {"arith.ori", OpKind::Int, 0, 1}, {"arith.xori", OpKind::Int, 0, 1},
  {"arith.shli", OpKind::Int, 0, 1}, {"arith.shrsi", OpKind::Int, 0, 1},
  {"arith.shrui", OpKind::Int, 0, 1}, {"arith.cmpi", OpKind::Int, 0, 1},
  {"arith.minsi", OpKind::Int, 0, 1}, {"arith.maxsi", OpKind::Int, 0, 1},
  {"arith.minui", OpKind::Int, 0, 1}, {"arith.maxui", OpKind::Int, 0, 1},
  {"arith.extsi", OpKind::Int, 0, 1}, {"arith.extui", OpKind::Int, 0, 1},
  {"arith.trunci", OpKind::Int, 0, 1}, {"arith.index_cast", OpKind::Int, 0, 1},
  {"arith.index_castui", OpKind::Int, 0, 1}, {"math.absi", OpKind::Int, 0, 1},
  {"arith.divsi", OpKind::Int, 0, 20}, {"arith.divui", OpKind::Int, 0, 20},
  {"arith.remsi", OpKind::Int, 0, 20}, {"arith.remui", OpKind::Int, 0, 20},
  {"arith.ceildivsi", OpKind::Int, 0, 22},
  {"arith.ceildivui", OpKind::Int, 0, 22},
  {"arith.floordivsi", OpKind::Int, 0, 22},
  {"tile.addptr", OpKind::Int, 0, 1},
  // Conversions.
  {"arith.extf", OpKind::Cvt, 0, 1}, {"arith.truncf", OpKind::Cvt, 0, 1},
  {"arith.sitofp", OpKind::Cvt, 0, 1}, {"arith.uitofp", OpKind::Cvt, 0, 1},
  {"arith.fptosi", OpKind::Cvt, 0, 1}, {"arith.fptoui", OpKind::Cvt, 0, 1},
  {"arith.bitcast", OpKind::Cvt, 0, 0},
};
// clang-format on

const OpInfo *findOp(std::string_view op) {
  for (const OpInfo &info : kOps)
    if (info.op == op)
      return &info;
  return nullptr;
}

bool isIntType(std::string_view type) {
  return type == "i1" || type == "i8" || type == "i16" || type == "i32" ||
         type == "i64" || type == "index" || type == "ptr";
}

} // namespace

uint64_t LaunchCounts::opCount(const std::string &op,
                               const std::string &type) const {
  for (const OpCount &c : ops)
    if (c.op == op && c.type == type)
      return c.count;
  return 0;
}

uint64_t LaunchCounts::minimalBytes() const {
  uint64_t sum = 0;
  for (const BufferTraffic &b : buffers)
    sum += b.minimalBytes();
  return sum;
}
uint64_t LaunchCounts::minimalReadBytes() const {
  uint64_t sum = 0;
  for (const BufferTraffic &b : buffers)
    sum += b.read() ? b.bytes() : 0;
  return sum;
}
uint64_t LaunchCounts::minimalWrittenBytes() const {
  uint64_t sum = 0;
  for (const BufferTraffic &b : buffers)
    sum += b.written() ? b.bytes() : 0;
  return sum;
}
uint64_t LaunchCounts::issuedBytes() const {
  uint64_t sum = 0;
  for (const BufferTraffic &b : buffers)
    sum += b.issuedBytes();
  return sum;
}
uint64_t LaunchCounts::maskedLanes() const {
  uint64_t sum = 0;
  for (const BufferTraffic &b : buffers)
    sum += b.maskedLoads + b.maskedStores;
  return sum;
}

double WorkByClass::tensorTotal() const {
  double sum = 0;
  for (const auto &[kind, flops] : tensorFlops)
    sum += flops;
  return sum;
}
double WorkByClass::specialTotal() const {
  double sum = 0;
  for (const auto &[name, count] : special)
    sum += count;
  return sum;
}
double WorkByClass::totalOps() const {
  return tensorTotal() + fp32Flops + fp16Flops + fp64Flops + specialTotal();
}

WorkByClass tilec::perfmodel::classifyWork(const LaunchCounts &counts) {
  WorkByClass w;
  for (const OpCount &c : counts.ops) {
    const OpInfo *info = findOp(c.op);
    if (!info)
      continue; // shape, memory and debug ops are not arithmetic
    double n = double(c.count);
    // A select or compare of integers is integer work.
    OpKind kind = info->kind;
    if (kind == OpKind::Float && isIntType(c.type))
      kind = OpKind::Int;
    switch (kind) {
    case OpKind::Float:
      if (c.type == "f64") {
        w.fp64Flops += info->flops * n;
        w.fp64PipeInstrs += info->pipe * n;
      } else if (c.type == "f16" || c.type == "bf16") {
        w.fp16Flops += info->flops * n;
        w.fp16PipeInstrs += info->pipe * n;
      } else {
        w.fp32Flops += info->flops * n;
        w.fp32PipeInstrs += info->pipe * n;
      }
      w.sfuInstrs += info->mufu * n;
      break;
    case OpKind::Special: {
      std::string name(c.op.substr(c.op.find('.') + 1));
      w.special[name] += n;
      // libdevice computes f16/bf16 special functions in f32; f64 ones on
      // the f64 pipe.
      (c.type == "f64" ? w.fp64PipeInstrs : w.fp32PipeInstrs) += info->pipe * n;
      w.sfuInstrs += info->mufu * n;
      break;
    }
    case OpKind::Int:
      w.intOps += n;
      w.intPipeInstrs += (info->kind == OpKind::Int ? info->pipe : 1) * n;
      break;
    case OpKind::Cvt:
      w.cvtOps += n;
      break;
    }
  }
  for (const DotCount &d : counts.dots) {
    if (d.kind == "ieee" || std::string_view(d.kind).starts_with("fma:")) {
      // f32 dots at ieee precision, and dots compiled without tensor-core
      // instructions, run as FMAs.
      w.fp32Flops += double(d.flops);
      w.fp32PipeInstrs += double(d.flops) / 2;
      continue;
    }
    w.tensorFlops[d.kind] += double(d.flops);
    w.tensorUseful += double(d.useful);
  }
  return w;
}

std::string Prediction::regime() const {
  if (limit == "memory")
    return "bandwidth";
  if (limit == "launch")
    return "overhead";
  return "compute";
}

namespace {

/// Seconds for `work` at `rate` per second; infinite when the GPU lacks the
/// unit.
double seconds(double work, double rate) {
  if (work <= 0)
    return 0;
  return rate > 0 ? work / rate : std::numeric_limits<double>::infinity();
}

Prediction predictFrom(const DeviceModel &m, const WorkByClass &w,
                       uint64_t minimalBytes) {
  Prediction p;
  p.memory = seconds(double(minimalBytes), m.bandwidthGBps * 1e9);
  for (const auto &[kind, flops] : w.tensorFlops)
    p.tensor +=
        seconds(kind == "tf32x3" ? 3 * flops : flops, m.tensorRate(kind));
  // FMA-pipe peaks count an FMA as two FLOPs: instructions run at half.
  p.fp32 = seconds(w.fp32PipeInstrs, m.fp32TFlops * 1e12 / 2);
  p.fp16 = seconds(w.fp16PipeInstrs, m.fp16TFlops * 1e12 / 2);
  p.fp64 = seconds(w.fp64PipeInstrs, m.fp64TFlops * 1e12 / 2);
  p.sfu = seconds(w.sfuInstrs, m.sfuTops * 1e12);
  p.integer = seconds(w.intPipeInstrs, m.int32Tops * 1e12);
  p.launch = m.launchUs * 1e-6;
  return p;
}

void pickLimit(Prediction &p) {
  const std::pair<const char *, double> parts[] = {
      {"memory", p.memory}, {"tensor", p.tensor}, {"fp32", p.fp32},
      {"fp16", p.fp16},     {"fp64", p.fp64},     {"sfu", p.sfu},
      {"launch", p.launch}};
  p.limit = parts[0].first;
  double best = -1;
  for (const auto &[name, s] : parts)
    if (s > best) {
      best = s;
      p.limit = name;
    }
  if (p.floor == 0)
    p.floor = best;
}

} // namespace

Prediction tilec::perfmodel::predictLaunch(const DeviceModel &model,
                                           const LaunchCounts &counts) {
  Prediction p =
      predictFrom(model, classifyWork(counts), counts.minimalBytes());
  pickLimit(p);
  return p;
}

uint64_t WorkloadPoint::minimalBytes() const {
  uint64_t sum = 0;
  for (const LaunchAnalysis &l : launches)
    sum += l.counts.minimalBytes();
  return sum;
}
uint64_t WorkloadPoint::issuedBytes() const {
  uint64_t sum = 0;
  for (const LaunchAnalysis &l : launches)
    sum += l.counts.issuedBytes();
  return sum;
}
WorkByClass WorkloadPoint::work() const {
  WorkByClass sum;
  for (const LaunchAnalysis &l : launches) {
    WorkByClass w = classifyWork(l.counts);
    for (const auto &[k, v] : w.tensorFlops)
      sum.tensorFlops[k] += v;
    for (const auto &[k, v] : w.special)
      sum.special[k] += v;
    sum.tensorUseful += w.tensorUseful;
    sum.fp32Flops += w.fp32Flops;
    sum.fp16Flops += w.fp16Flops;
    sum.fp64Flops += w.fp64Flops;
    sum.intOps += w.intOps;
    sum.cvtOps += w.cvtOps;
    sum.fp32PipeInstrs += w.fp32PipeInstrs;
    sum.fp16PipeInstrs += w.fp16PipeInstrs;
    sum.fp64PipeInstrs += w.fp64PipeInstrs;
    sum.sfuInstrs += w.sfuInstrs;
    sum.intPipeInstrs += w.intPipeInstrs;
  }
  return sum;
}
Prediction WorkloadPoint::predict(const DeviceModel &model) const {
  Prediction total;
  for (const LaunchAnalysis &l : launches) {
    Prediction p = predictLaunch(model, l.counts);
    total.memory += p.memory;
    total.tensor += p.tensor;
    total.fp32 += p.fp32;
    total.fp16 += p.fp16;
    total.fp64 += p.fp64;
    total.sfu += p.sfu;
    total.integer += p.integer;
    total.launch += p.launch;
    total.floor += p.floor;
  }
  pickLimit(total);
  return total;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace {

Value predictionTree(const Prediction &p) {
  return Value{
      {"floor_s", p.floor},   {"limit", p.limit},     {"regime", p.regime()},
      {"memory_s", p.memory}, {"tensor_s", p.tensor}, {"fp32_s", p.fp32},
      {"fp16_s", p.fp16},     {"fp64_s", p.fp64},     {"sfu_s", p.sfu},
      {"int_s", p.integer},   {"launch_s", p.launch}};
}

/// The "derived" numbers of a launch or a point (written for readers, not
/// read back).
Value derivedTree(const WorkByClass &work, uint64_t minimal, uint64_t issued,
                  const Prediction &prediction) {
  return Value{{"minimal_bytes", minimal},
               {"issued_bytes", issued},
               {"tensor_flops", work.tensorTotal()},
               {"tensor_useful_flops", work.tensorUseful},
               {"fp32_flops", work.fp32Flops},
               {"fp16_flops", work.fp16Flops},
               {"fp64_flops", work.fp64Flops},
               {"special_evaluations", work.specialTotal()},
               {"int_ops", work.intOps},
               {"intensity", minimal ? work.totalOps() / double(minimal) : 0.0},
               {"prediction", predictionTree(prediction)}};
}

Value launchTree(const LaunchAnalysis &l, const DeviceModel &model) {
  const LaunchCounts &c = l.counts;
  Value j = Value::object();
  j["module"] = l.module;
  j["kernel"] = l.kernel;
  j["grid"] = Value::array();
  for (int64_t g : c.grid)
    j["grid"].push_back(g);
  Value &args = j["args"] = Value::array();
  for (const LaunchArg &a : l.args) {
    Value arg = {{"name", a.name}, {"type", a.type}};
    if (a.isBuffer) {
      arg["buffer"] = a.buffer;
      arg["count"] = a.count;
    } else if (a.isFloat) {
      arg["value"] = a.floatValue;
    } else {
      arg["value"] = a.intValue;
    }
    args.push_back(std::move(arg));
  }
  j["resources"] = resourcesTree(l.resources);
  Value &ops = j["ops"] = Value::array();
  for (const OpCount &op : c.ops)
    ops.push_back(Value::array({op.op, op.type, op.count}));
  Value &dots = j["dots"] = Value::array();
  for (const DotCount &d : c.dots)
    dots.push_back(
        {{"kind", d.kind}, {"flops", d.flops}, {"useful", d.useful}});
  Value &buffers = j["buffers"] = Value::array();
  for (const BufferTraffic &b : c.buffers)
    buffers.push_back({{"name", b.name},
                       {"type", b.type},
                       {"element_bytes", int64_t(b.elementBytes)},
                       {"elements", b.elements},
                       {"loaded", b.loaded},
                       {"stored", b.stored},
                       {"atomics", b.atomics},
                       {"masked_loads", b.maskedLoads},
                       {"masked_stores", b.maskedStores}});
  j["evaluations"] = c.evaluations;
  j["notes"] = Value::array();
  for (const std::string &n : c.notes)
    j["notes"].push_back(n);
  j["derived"] = derivedTree(classifyWork(c), c.minimalBytes(), c.issuedBytes(),
                             predictLaunch(model, c));
  return j;
}

} // namespace

Value tilec::perfmodel::resourcesTree(const Resources &r) {
  return Value{{"threads_per_program", r.threadsPerProgram},
               {"registers", r.registers},
               {"static_shared_bytes", r.staticSharedBytes},
               {"dynamic_shared_bytes", r.dynamicSharedBytes},
               {"spill_bytes", r.spillBytes},
               {"stack_bytes", r.stackBytes},
               {"source", r.source}};
}

Value tilec::perfmodel::analysisTree(const WorkloadAnalysis &a) {
  Value j = {{"format", "tilec-analysis"},
             {"version", 1},
             {"name", a.name},
             {"group", a.group},
             {"label", a.label},
             {"batch_var", a.batchVar}};
  j["device"] = deviceModelTree(a.device);
  Value &points = j["points"] = Value::array();
  for (const WorkloadPoint &p : a.points) {
    Value point = Value::object();
    Value &vars = point["vars"] = Value::object();
    for (const auto &[name, value] : p.vars)
      vars[name] = value;
    Value &launches = point["launches"] = Value::array();
    for (const LaunchAnalysis &l : p.launches)
      launches.push_back(launchTree(l, a.device));
    point["derived"] = derivedTree(p.work(), p.minimalBytes(), p.issuedBytes(),
                                   p.predict(a.device));
    points.push_back(std::move(point));
  }
  return j;
}

std::string tilec::perfmodel::analysisJson(const WorkloadAnalysis &a) {
  return json::write(analysisTree(a));
}

namespace {

Status readUnsigned(const FieldReader &r, std::string_view key, uint64_t &out,
                    bool required) {
  int64_t v = 0;
  TILEC_RETURN_IF_ERROR(r.integer(key, v, required));
  out = uint64_t(v);
  return Status();
}

Status readLaunch(const Value &v, const JsonPlace &place, LaunchAnalysis &l) {
  FieldReader o(v, place, "a launch");
  TILEC_RETURN_IF_ERROR(
      o.check({"module", "kernel", "grid", "args", "resources", "ops", "dots",
               "buffers", "evaluations", "notes", "derived"}));
  TILEC_RETURN_IF_ERROR(o.string("module", l.module, true));
  TILEC_RETURN_IF_ERROR(o.string("kernel", l.kernel, true));
  const Value *grid = nullptr;
  TILEC_RETURN_IF_ERROR(o.array("grid", grid, true));
  if (grid->size() != 3)
    return o.error("grid", "'grid' must have 3 entries (x, y, z)");
  for (size_t i = 0; i < 3; ++i) {
    std::optional<int64_t> g = json::asInt64((*grid)[i]);
    if (!g || *g < 1)
      return o.place("grid").element(i).error(
          "grid sizes must be positive integers");
    l.counts.grid[i] = *g;
  }
  const Value *args = nullptr;
  TILEC_RETURN_IF_ERROR(o.array("args", args, true));
  for (size_t i = 0; i < args->size(); ++i) {
    FieldReader ar((*args)[i], o.place("args").element(i), "an argument");
    TILEC_RETURN_IF_ERROR(
        ar.check({"name", "type", "buffer", "count", "value"}));
    LaunchArg arg;
    TILEC_RETURN_IF_ERROR(ar.string("name", arg.name, true));
    TILEC_RETURN_IF_ERROR(ar.string("type", arg.type, true));
    arg.isBuffer = ar.find("buffer") != nullptr;
    if (arg.isBuffer) {
      TILEC_RETURN_IF_ERROR(ar.string("buffer", arg.buffer, true));
      TILEC_RETURN_IF_ERROR(readUnsigned(ar, "count", arg.count, true));
    } else {
      const Value *value = ar.find("value");
      if (!value || !value->is_number())
        return ar.error("scalar argument '" + arg.name +
                        "' needs a numeric 'value'");
      arg.isFloat = arg.type[0] == 'f' || arg.type[0] == 'b';
      std::optional<int64_t> whole = json::asInt64(*value);
      if (arg.isFloat)
        arg.floatValue = value->get<double>();
      else if (!whole)
        return ar.error("value", "integer argument '" + arg.name +
                                     "' needs an integer value");
      else
        arg.intValue = *whole;
    }
    l.args.push_back(arg);
  }
  const Value *res = o.find("resources");
  if (!res)
    return o.missing("resources");
  TILEC_RETURN_IF_ERROR(readResources(*res, o.place("resources"), l.resources));
  const Value *ops = nullptr;
  TILEC_RETURN_IF_ERROR(o.array("ops", ops, true));
  for (size_t i = 0; i < ops->size(); ++i) {
    const Value &op = (*ops)[i];
    std::optional<int64_t> count =
        op.is_array() && op.size() == 3 ? json::asInt64(op[2]) : std::nullopt;
    if (!count || *count < 0 || !op[0].is_string() || !op[1].is_string())
      return o.place("ops").element(i).error(
          "each of 'ops' must be [op, type, count]");
    l.counts.ops.push_back(
        {op[0].get<std::string>(), op[1].get<std::string>(), uint64_t(*count)});
  }
  const Value *dots = nullptr;
  TILEC_RETURN_IF_ERROR(o.array("dots", dots, false));
  if (dots)
    for (size_t i = 0; i < dots->size(); ++i) {
      FieldReader dr((*dots)[i], o.place("dots").element(i), "a dot");
      TILEC_RETURN_IF_ERROR(dr.check({"kind", "flops", "useful"}));
      DotCount dc;
      TILEC_RETURN_IF_ERROR(dr.string("kind", dc.kind, true));
      TILEC_RETURN_IF_ERROR(readUnsigned(dr, "flops", dc.flops, true));
      TILEC_RETURN_IF_ERROR(readUnsigned(dr, "useful", dc.useful, true));
      l.counts.dots.push_back(dc);
    }
  const Value *buffers = nullptr;
  TILEC_RETURN_IF_ERROR(o.array("buffers", buffers, true));
  for (size_t i = 0; i < buffers->size(); ++i) {
    FieldReader br((*buffers)[i], o.place("buffers").element(i), "a buffer");
    TILEC_RETURN_IF_ERROR(
        br.check({"name", "type", "element_bytes", "elements", "loaded",
                  "stored", "atomics", "masked_loads", "masked_stores"}));
    BufferTraffic t;
    TILEC_RETURN_IF_ERROR(br.string("name", t.name, true));
    TILEC_RETURN_IF_ERROR(br.string("type", t.type, true));
    int64_t eb = 0;
    TILEC_RETURN_IF_ERROR(br.integer("element_bytes", eb, true, true));
    t.elementBytes = unsigned(eb);
    TILEC_RETURN_IF_ERROR(readUnsigned(br, "elements", t.elements, true));
    TILEC_RETURN_IF_ERROR(readUnsigned(br, "loaded", t.loaded, true));
    TILEC_RETURN_IF_ERROR(readUnsigned(br, "stored", t.stored, true));
    TILEC_RETURN_IF_ERROR(readUnsigned(br, "atomics", t.atomics, false));
    TILEC_RETURN_IF_ERROR(
        readUnsigned(br, "masked_loads", t.maskedLoads, false));
    TILEC_RETURN_IF_ERROR(
        readUnsigned(br, "masked_stores", t.maskedStores, false));
    l.counts.buffers.push_back(t);
  }
  TILEC_RETURN_IF_ERROR(
      readUnsigned(o, "evaluations", l.counts.evaluations, false));
  const Value *notes = nullptr;
  TILEC_RETURN_IF_ERROR(o.array("notes", notes, false));
  if (notes)
    for (size_t i = 0; i < notes->size(); ++i) {
      if (!(*notes)[i].is_string())
        return o.place("notes").element(i).error("'notes' must hold strings");
      l.counts.notes.push_back((*notes)[i].get<std::string>());
    }
  return Status();
}

} // namespace

Status tilec::perfmodel::readResources(const Value &v, const JsonPlace &place,
                                       Resources &r) {
  FieldReader o(v, place, "'resources'");
  TILEC_RETURN_IF_ERROR(o.check({"threads_per_program", "registers",
                                 "static_shared_bytes", "dynamic_shared_bytes",
                                 "spill_bytes", "stack_bytes", "source"}));
  int64_t threads = 0;
  TILEC_RETURN_IF_ERROR(o.integer("threads_per_program", threads, true, true));
  r.threadsPerProgram = int(threads);
  // -1 means unknown, so these are read as plain integers.
  auto readSigned = [&](std::string_view key, int64_t &out) -> Status {
    const Value *x = o.find(key);
    if (!x)
      return Status();
    std::optional<int64_t> i = json::asInt64(*x);
    if (!i || *i < -1)
      return o.error(key, "'" + std::string(key) +
                              "' must be an integer (-1: unknown)");
    out = *i;
    return Status();
  };
  int64_t regs = r.registers;
  TILEC_RETURN_IF_ERROR(readSigned("registers", regs));
  r.registers = int(regs);
  TILEC_RETURN_IF_ERROR(readSigned("static_shared_bytes", r.staticSharedBytes));
  TILEC_RETURN_IF_ERROR(
      o.integer("dynamic_shared_bytes", r.dynamicSharedBytes, false));
  TILEC_RETURN_IF_ERROR(readSigned("spill_bytes", r.spillBytes));
  TILEC_RETURN_IF_ERROR(readSigned("stack_bytes", r.stackBytes));
  TILEC_RETURN_IF_ERROR(o.string("source", r.source, false));
  return Status();
}

Expected<WorkloadAnalysis>
tilec::perfmodel::analysisFromJson(const Value &v, const JsonPlace &place) {
  FieldReader o(v, place, "an analysis");
  // The format first: another tilec file gets a message that says so.
  std::string format;
  if (v.is_object())
    TILEC_RETURN_IF_ERROR(o.string("format", format, true));
  if (v.is_object() && format != "tilec-analysis")
    return o.error("format",
                   "not a tilec-analysis document (format '" + format + "')");
  TILEC_RETURN_IF_ERROR(o.check({"format", "version", "name", "group", "label",
                                 "batch_var", "device", "points"}));
  int64_t version = 0;
  TILEC_RETURN_IF_ERROR(o.integer("version", version, true));
  if (version != 1)
    return o.error("version",
                   "analysis version " + std::to_string(version) +
                       " is not supported (this tool reads version 1)");
  WorkloadAnalysis a;
  TILEC_RETURN_IF_ERROR(o.string("name", a.name, true));
  TILEC_RETURN_IF_ERROR(o.string("group", a.group, false));
  TILEC_RETURN_IF_ERROR(o.string("label", a.label, false));
  TILEC_RETURN_IF_ERROR(o.string("batch_var", a.batchVar, false));
  const Value *device = o.find("device");
  if (!device)
    return o.missing("device");
  // Written by deviceModelJson: every field, read with the --device reader.
  auto model = deviceModelFromJson(*device, o.place("device"),
                                   *builtinDeviceModel("h200"));
  if (!model.ok())
    return model.status();
  a.device = *model;
  const Value *points = nullptr;
  TILEC_RETURN_IF_ERROR(o.array("points", points, true));
  if (points->empty())
    return o.error("points", "'points' is empty");
  for (size_t i = 0; i < points->size(); ++i) {
    FieldReader pr((*points)[i], o.place("points").element(i), "a point");
    TILEC_RETURN_IF_ERROR(pr.check({"vars", "launches", "derived"}));
    WorkloadPoint point;
    if (const Value *vars = pr.find("vars")) {
      if (!vars->is_object())
        return pr.error("vars", "'vars' must be an object");
      for (const auto &[name, value] : vars->items()) {
        std::optional<int64_t> x = json::asInt64(value);
        if (!x)
          return pr.place("vars").member(name).error("variable '" + name +
                                                     "' must be an integer");
        point.vars.push_back({name, *x});
      }
    }
    const Value *launches = nullptr;
    TILEC_RETURN_IF_ERROR(pr.array("launches", launches, true));
    if (launches->empty())
      return pr.error("launches", "'launches' is empty");
    for (size_t k = 0; k < launches->size(); ++k) {
      LaunchAnalysis launch;
      TILEC_RETURN_IF_ERROR(
          readLaunch((*launches)[k], pr.place("launches").element(k), launch));
      point.launches.push_back(std::move(launch));
    }
    a.points.push_back(std::move(point));
  }
  return a;
}

Expected<WorkloadAnalysis>
tilec::perfmodel::parseAnalysisJson(std::string_view text,
                                    const std::string &origin) {
  auto parsed = json::parse(text);
  if (!parsed.ok())
    return Status::error(origin + ": not JSON: " + parsed.message());
  return analysisFromJson(*parsed, JsonPlace{origin, ""});
}
