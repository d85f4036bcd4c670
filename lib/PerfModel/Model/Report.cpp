//===- Report.cpp - text reports and the profile JSON ---------------------===//

#include "tilec/PerfModel/Report.h"

#include "Format.h"

#include "Fields.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

using namespace tilec::perfmodel;
using tilec::json::Value;
namespace json = tilec::json;

namespace {

/// Three significant digits with a decimal prefix.
std::string scaled(double v, const char *unit) {
  static const char *prefixes[] = {"", " K", " M", " G", " T", " P", " E"};
  int i = 0;
  double a = std::fabs(v);
  while (a >= 999.5 && i < 6) {
    a /= 1000;
    v /= 1000;
    ++i;
  }
  const char *fmt = a >= 99.95   ? "%.0f%s%s"
                    : a >= 9.995 ? "%.1f%s%s"
                                 : "%.2f%s%s";
  if (i == 0 && v == std::floor(v))
    fmt = "%.0f%s%s";
  std::string sep = (i == 0 && unit[0]) ? " " : "";
  return format(fmt, v, (i ? prefixes[i] : sep.c_str()), unit);
}

std::string pct(double fraction) { return format("%.0f%%", 100 * fraction); }

std::string gridText(const std::array<int64_t, 3> &g) {
  if (g[1] == 1 && g[2] == 1)
    return format("(%lld)", (long long)g[0]);
  if (g[2] == 1)
    return format("(%lld, %lld)", (long long)g[0], (long long)g[1]);
  return format("(%lld, %lld, %lld)", (long long)g[0], (long long)g[1],
                (long long)g[2]);
}

std::string varsText(const WorkloadPoint &p) {
  std::string s;
  for (const auto &[name, value] : p.vars)
    s += (s.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return s;
}

/// "fp32 1.34 G | special 268 M (erf) | tensor 0": the FLOP classes present.
std::string workText(const WorkByClass &w) {
  std::string s;
  auto add = [&](const std::string &part) {
    s += (s.empty() ? "" : " | ") + part;
  };
  if (w.tensorTotal() > 0) {
    std::string kinds;
    for (const auto &[k, v] : w.tensorFlops)
      kinds += (kinds.empty() ? "" : ", ") + k;
    std::string useful =
        w.tensorUseful < w.tensorTotal()
            ? format(", %s useful",
                     pct(w.tensorUseful / w.tensorTotal()).c_str())
            : "";
    add("tensor " + formatCount(w.tensorTotal()) + " (" + kinds + useful + ")");
  }
  if (w.fp32Flops > 0 || w.tensorTotal() == 0)
    add("fp32 " + formatCount(w.fp32Flops));
  if (w.fp16Flops > 0)
    add("fp16/bf16 " + formatCount(w.fp16Flops));
  if (w.fp64Flops > 0)
    add("fp64 " + formatCount(w.fp64Flops));
  if (w.specialTotal() > 0) {
    std::string names;
    for (const auto &[k, v] : w.special)
      names += (names.empty() ? "" : ", ") + k;
    add("special " + formatCount(w.specialTotal()) + " (" + names + ")");
  }
  add("int " + formatCount(w.intOps));
  return s;
}

std::string floorsText(const Prediction &p) {
  std::string s;
  const std::pair<const char *, double> parts[] = {
      {"memory", p.memory}, {"tensor", p.tensor}, {"fp32", p.fp32},
      {"fp16", p.fp16},     {"fp64", p.fp64},     {"sfu", p.sfu},
      {"launch", p.launch}};
  for (const auto &[name, secs] : parts)
    if (secs > 0 || std::string(name) == "memory")
      s += (s.empty() ? "" : " | ") + formatSeconds(secs) + " " + name;
  return s;
}

std::string regimeText(const std::string &regime, const std::string &pipe) {
  if (regime == "compute" && !pipe.empty())
    return "compute (" + pipe + ")";
  return regime;
}

std::string predictedBound(const Prediction &p) {
  std::string pipe = p.regime() == "compute" ? p.limit : "";
  return regimeText(p.regime(), pipe);
}

/// Minimal time of `p` relative to the 2N point, if there is one.
std::string doublingText(const WorkloadAnalysis &a) {
  if (a.points.size() < 2)
    return "";
  double t0 = a.points[0].predict(a.device).floor;
  double t1 = a.points[1].predict(a.device).floor;
  std::string from, to;
  for (const auto &[name, value] : a.points[0].vars)
    if (name == a.batchVar)
      from = std::to_string(value);
  for (const auto &[name, value] : a.points[1].vars)
    if (name == a.batchVar)
      to = std::to_string(value);
  return format("  2N/N     predicted time ratio %.2f (%s %s -> %s)\n",
                t0 > 0 ? t1 / t0 : 0.0, a.batchVar.c_str(), from.c_str(),
                to.c_str());
}

std::string resourcesText(const Resources &r, const DeviceModel &m,
                          uint64_t programs) {
  std::string s = format("%d threads", r.threadsPerProgram);
  if (r.registers >= 0)
    s += format(", %d registers", r.registers);
  else
    s += ", registers unknown";
  if (r.staticSharedBytes >= 0)
    s += ", " + formatBytes(double(r.sharedBytes())) + " shared";
  if (r.spillBytes > 0)
    s += ", " + formatBytes(double(r.spillBytes)) + " spilled";
  if (!r.source.empty())
    s += " (" + r.source + ")";
  Occupancy o = computeOccupancy(m, r);
  if (!o.error.empty())
    return s + "\n  occupancy cannot launch: " + o.error;
  double waves = double(programs) / (double(o.programsPerSM) * m.sms);
  s += format("\n  occupancy %s%s (%d programs/SM, limit: %s), %.2f waves on "
              "%d SMs",
              o.upperBound ? "at most " : "", pct(o.fraction).c_str(),
              o.programsPerSM, o.limiter.c_str(), waves, m.sms);
  if (waves < 1)
    s += " (GPU not filled)";
  return s;
}

} // namespace

std::string tilec::perfmodel::workloadSlug(const std::string &name) {
  std::string s;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      s += char(std::tolower(static_cast<unsigned char>(c)));
    else if (!s.empty() && s.back() != '-')
      s += '-';
  }
  while (!s.empty() && s.back() == '-')
    s.pop_back();
  return s.empty() ? "workload" : s;
}

std::string tilec::perfmodel::formatBytes(double bytes) {
  return scaled(bytes, "B");
}
std::string tilec::perfmodel::formatCount(double count) {
  return scaled(count, "");
}
std::string tilec::perfmodel::formatSeconds(double s) {
  if (!std::isfinite(s))
    return "inf";
  if (s >= 1)
    return format("%.3g s", s);
  if (s >= 1e-3)
    return format("%.3g ms", s * 1e3);
  if (s >= 1e-6)
    return format("%.3g us", s * 1e6);
  if (s >= 1e-12)
    return format("%.3g ns", s * 1e9);
  return "0";
}

std::string tilec::perfmodel::analysisReport(const WorkloadAnalysis &a) {
  const DeviceModel &m = a.device;
  std::string out = "== " + a.name;
  if (!a.points.empty() && !a.points[0].vars.empty())
    out += "  [" + varsText(a.points[0]) + "]";
  out += "  on " + m.name + " (" + m.source + ")\n";
  if (a.points.empty())
    return out;
  const WorkloadPoint &p = a.points[0];
  for (const LaunchAnalysis &l : p.launches) {
    const LaunchCounts &c = l.counts;
    WorkByClass w = classifyWork(c);
    Prediction pred = predictLaunch(m, c);
    out += format("launch %s  grid %s = %s programs\n", l.kernel.c_str(),
                  gridText(c.grid).c_str(),
                  formatCount(double(c.programs())).c_str());
    out += "  ops      " + workText(w) + "\n";
    uint64_t minimal = c.minimalBytes(), issued = c.issuedBytes();
    out += format("  bytes    minimal %s (read %s, written %s) | issued %s "
                  "(%.2fx)",
                  formatBytes(double(minimal)).c_str(),
                  formatBytes(double(c.minimalReadBytes())).c_str(),
                  formatBytes(double(c.minimalWrittenBytes())).c_str(),
                  formatBytes(double(issued)).c_str(),
                  minimal ? double(issued) / double(minimal) : 0.0);
    std::string reread;
    for (const BufferTraffic &b : c.buffers) {
      double times = b.elements ? double(b.loaded) / double(b.elements) : 0;
      if (times > 1.01)
        reread +=
            (reread.empty() ? "" : ", ") + b.name + format(" %.0fx", times);
    }
    if (!reread.empty())
      out += ", re-read: " + reread;
    out += format(" | masked-off lanes %s\n",
                  formatCount(double(c.maskedLanes())).c_str());
    double ridgeFp32 = m.fp32TFlops * 1e3 / m.bandwidthGBps;
    double ridgeTensor = m.tensorBf16TFlops * 1e3 / m.bandwidthGBps;
    out += format("  intensity %.3g ops/B (ridge points: fp32 %.3g, bf16 "
                  "tensor %.3g)\n",
                  minimal ? w.totalOps() / double(minimal) : 0.0, ridgeFp32,
                  ridgeTensor);
    out += "  program  " + resourcesText(l.resources, m, c.programs()) + "\n";
    out += "  floor    " + floorsText(pred) + "  -> " + predictedBound(pred) +
           "-bound\n";
    for (const std::string &note : c.notes)
      out += "  note     " + note + "\n";
  }
  if (p.launches.size() > 1) {
    Prediction total = p.predict(m);
    out += format(
        "all %zu launches: minimal %s, floor %s -> %s-bound\n",
        p.launches.size(), formatBytes(double(p.minimalBytes())).c_str(),
        formatSeconds(total.floor).c_str(), predictedBound(total).c_str());
  }
  out += doublingText(a);
  return out;
}

Verdict tilec::perfmodel::judgeWorkload(const WorkloadProfile &w,
                                        const DeviceModel &model) {
  if (w.measured.empty() || w.analysis.points.empty())
    return Verdict{"unknown", "", 0, 0, "", 0, 0, "not measured"};
  Prediction p = w.analysis.points[0].predict(model);
  const PointMeasurement *doubled =
      w.measured.size() > 1 && w.analysis.points.size() > 1 ? &w.measured[1]
                                                            : nullptr;
  return judge(p, w.measured[0], doubled);
}

std::string tilec::perfmodel::profileReport(const ProfileRun &run) {
  const DeviceModel &m = run.model;
  std::string out = format(
      "tilec-profile on %s, %s\nceilings (%s): %.0f GB/s, bf16 tensor %.0f "
      "TFLOP/s, fp32 %.1f TFLOP/s, sfu %.2f Tops/s, launch %.1f us\n\n",
      run.device.c_str(), run.date.c_str(), m.name.c_str(), m.bandwidthGBps,
      m.tensorBf16TFlops, m.fp32TFlops, m.sfuTops, m.launchUs);
  out +=
      format("%-30s %9s %6s %5s %8s %5s %5s  %-17s %s\n", "workload", "time",
             "GB/s", "%BW", "ops/s", "%pipe", "2N/N", "verdict", "predicted");
  std::vector<std::string> notes;
  for (const WorkloadProfile &w : run.workloads) {
    std::string name = w.analysis.name.substr(0, 30);
    if (w.measured.empty()) {
      out += format("%-30s %s\n", name.c_str(),
                    w.error.empty() ? "not measured" : "FAILED (see below)");
      if (!w.error.empty())
        notes.push_back(w.analysis.name + ": " + w.error);
      continue;
    }
    const WorkloadPoint &p = w.analysis.points[0];
    const PointMeasurement &meas = w.measured[0];
    Prediction pred = p.predict(m);
    Verdict v = judgeWorkload(w, m);
    double t = meas.deviceSeconds;
    std::string ratio =
        v.doublingRatio > 0 ? format("%.2f", v.doublingRatio) : "-";
    out +=
        format("%-30s %9s %6.0f %5s %8s %5s %5s  %-17s %s %s\n", name.c_str(),
               formatSeconds(t).c_str(), double(p.minimalBytes()) / t / 1e9,
               pct(v.bandwidthFraction).c_str(),
               formatCount(p.work().totalOps() / t).c_str(),
               v.computePipe.empty() ? "-" : pct(v.computeFraction).c_str(),
               ratio.c_str(), regimeText(v.regime, v.pipe).c_str(),
               predictedBound(pred).c_str(), formatSeconds(pred.floor).c_str());
    if (meas.wallSeconds > 0 && v.deviceShare < 0.5)
      notes.push_back(w.analysis.name + ": wall " +
                      formatSeconds(meas.wallSeconds) +
                      " per iteration, GPU "
                      "busy " +
                      pct(v.deviceShare) + " of it");
  }
  // Groups: each member against the first.
  std::map<std::string, std::vector<const WorkloadProfile *>> groups;
  std::vector<std::string> order;
  for (const WorkloadProfile &w : run.workloads) {
    if (w.analysis.group.empty())
      continue;
    if (!groups.count(w.analysis.group))
      order.push_back(w.analysis.group);
    groups[w.analysis.group].push_back(&w);
  }
  if (!order.empty())
    out += "\n";
  for (const std::string &g : order) {
    const auto &members = groups[g];
    std::string line = g + ":";
    const WorkloadProfile *first = members.front();
    std::string sep = " ";
    for (const WorkloadProfile *w : members) {
      std::string label =
          w->analysis.label.empty() ? w->analysis.name : w->analysis.label;
      line += sep + label + " ";
      sep = ", ";
      if (w->measured.empty()) {
        line += "not measured";
        continue;
      }
      double t = w->measured[0].deviceSeconds;
      line += formatSeconds(t);
      if (w != first && !first->measured.empty())
        line += format(" (%.2fx)", t / first->measured[0].deviceSeconds);
    }
    // The bytes each moves, which is what fusion saves.
    line += "; minimal bytes";
    sep = " ";
    for (const WorkloadProfile *w : members) {
      line += sep + formatBytes(double(w->analysis.points[0].minimalBytes()));
      sep = " vs ";
    }
    out += line + "\n";
  }
  if (!notes.empty())
    out += "\n";
  for (const std::string &n : notes)
    out += "note: " + n + "\n";
  return out;
}

//===----------------------------------------------------------------------===//
// Profile JSON
//===----------------------------------------------------------------------===//

std::string tilec::perfmodel::profileJson(const ProfileRun &run) {
  Value j = {{"format", "tilec-profile"},
             {"version", 1},
             {"device", run.device},
             {"date", run.date}};
  j["model"] = deviceModelTree(run.model);
  Value &workloads = j["workloads"] = Value::array();
  for (const WorkloadProfile &p : run.workloads) {
    Value w = Value::object();
    w["analysis"] = analysisTree(p.analysis);
    Value &measured = w["measured"] = Value::array();
    for (const PointMeasurement &m : p.measured)
      measured.push_back({{"device_s", m.deviceSeconds},
                          {"wall_s", m.wallSeconds},
                          {"reps", m.reps}});
    Value &resources = w["resources"] = Value::array();
    for (const Resources &r : p.resources)
      resources.push_back(resourcesTree(r));
    w["error"] = p.error;
    if (!p.measured.empty()) {
      Verdict v = judgeWorkload(p, run.model);
      w["verdict"] = {{"regime", v.regime},
                      {"pipe", v.pipe},
                      {"bandwidth_fraction", v.bandwidthFraction},
                      {"compute_fraction", v.computeFraction},
                      {"compute_pipe", v.computePipe},
                      {"doubling_ratio", v.doublingRatio},
                      {"device_share", v.deviceShare},
                      {"reason", v.reason}};
    }
    workloads.push_back(std::move(w));
  }
  return json::write(j);
}

Expected<ProfileRun>
tilec::perfmodel::parseProfileJson(std::string_view text,
                                   const std::string &origin) {
  auto parsed = json::parse(text);
  if (!parsed.ok())
    return Status::error(origin + ": not JSON: " + parsed.message());
  FieldReader o(*parsed, JsonPlace{origin, ""}, "a profile");
  // The format first: another tilec file gets a message that says so.
  std::string format;
  if (parsed->is_object())
    TILEC_RETURN_IF_ERROR(o.string("format", format, true));
  if (parsed->is_object() && format != "tilec-profile")
    return o.error("format",
                   "not a tilec-profile document (format '" + format + "')");
  TILEC_RETURN_IF_ERROR(
      o.check({"format", "version", "device", "date", "model", "workloads"}));
  int64_t version = 0;
  TILEC_RETURN_IF_ERROR(o.integer("version", version, true));
  if (version != 1)
    return o.error("version",
                   "profile version " + std::to_string(version) +
                       " is not supported (this tool reads version 1)");
  ProfileRun run;
  TILEC_RETURN_IF_ERROR(o.string("device", run.device, false));
  TILEC_RETURN_IF_ERROR(o.string("date", run.date, false));
  const Value *model = o.find("model");
  if (!model)
    return o.missing("model");
  auto m = deviceModelFromJson(*model, o.place("model"),
                               *builtinDeviceModel("h200"));
  if (!m.ok())
    return m.status();
  run.model = *m;
  const Value *workloads = nullptr;
  TILEC_RETURN_IF_ERROR(o.array("workloads", workloads, true));
  for (size_t i = 0; i < workloads->size(); ++i) {
    FieldReader wr((*workloads)[i], o.place("workloads").element(i),
                   "a workload");
    TILEC_RETURN_IF_ERROR(
        wr.check({"analysis", "measured", "resources", "error", "verdict"}));
    WorkloadProfile p;
    const Value *analysis = wr.find("analysis");
    if (!analysis)
      return wr.missing("analysis");
    auto a = analysisFromJson(*analysis, wr.place("analysis"));
    if (!a.ok())
      return a.status();
    p.analysis = std::move(*a);
    const Value *measured = nullptr;
    TILEC_RETURN_IF_ERROR(wr.array("measured", measured, false));
    if (measured)
      for (size_t k = 0; k < measured->size(); ++k) {
        FieldReader mr((*measured)[k], wr.place("measured").element(k),
                       "a measurement");
        TILEC_RETURN_IF_ERROR(mr.check({"device_s", "wall_s", "reps"}));
        PointMeasurement pm;
        TILEC_RETURN_IF_ERROR(mr.number("device_s", pm.deviceSeconds, true));
        TILEC_RETURN_IF_ERROR(mr.number("wall_s", pm.wallSeconds, true));
        int64_t reps = 0;
        TILEC_RETURN_IF_ERROR(mr.integer("reps", reps, false));
        pm.reps = int(reps);
        p.measured.push_back(pm);
      }
    if (p.measured.size() > p.analysis.points.size())
      return wr.error("measured", "more measurements than analysed points");
    const Value *resources = nullptr;
    TILEC_RETURN_IF_ERROR(wr.array("resources", resources, false));
    if (resources)
      for (size_t k = 0; k < resources->size(); ++k) {
        Resources r;
        TILEC_RETURN_IF_ERROR(readResources(
            (*resources)[k], wr.place("resources").element(k), r));
        p.resources.push_back(r);
      }
    TILEC_RETURN_IF_ERROR(wr.string("error", p.error, false));
    run.workloads.push_back(std::move(p));
  }
  return run;
}
