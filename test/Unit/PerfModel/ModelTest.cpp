//===- ModelTest.cpp - device models, occupancy, floors, JSON, reports ----===//
//
// The MLIR-free half of the analyzer (what tilec-profile links): every
// device-model error message, CUDA's occupancy rules on known cases, the
// floors and FLOP classes of hand-made counts, the analysis and profile
// JSON round trips and their errors, the reports and the SVG charts.
//
//===----------------------------------------------------------------------===//

#include "tilec/PerfModel/Analysis.h"
#include "tilec/PerfModel/DeviceModel.h"
#include "tilec/PerfModel/Report.h"
#include "tilec/PerfModel/Verdict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

using namespace tilec::perfmodel;

namespace {

DeviceModel h200() { return *builtinDeviceModel("h200"); }

std::string modelError(const std::string &json) {
  auto m = parseDeviceModel(json, "m.json", h200());
  EXPECT_FALSE(m.ok()) << json;
  return m.ok() ? "" : m.message();
}

//===----------------------------------------------------------------------===//
// Device models
//===----------------------------------------------------------------------===//

TEST(DeviceModel, BuiltinsFromDatasheets) {
  DeviceModel h = h200();
  EXPECT_EQ(h.sms, 132);
  EXPECT_EQ(h.bandwidthGBps, 4800);
  EXPECT_EQ(h.arch, "sm_90");
  EXPECT_DOUBLE_EQ(h.tensorRate("bf16"), 989.4e12);
  EXPECT_DOUBLE_EQ(h.tensorRate("tf32x3"), h.tensorRate("tf32"));
  EXPECT_EQ(h.tensorRate("nonsense"), 0);
  // 16 MUFU lanes per SM per clock.
  EXPECT_NEAR(h.sfuTops, 132 * 16 * 1.98e-3, 1e-9);
  auto h100 = builtinDeviceModel("H100"); // case-insensitive
  ASSERT_TRUE(h100.ok());
  EXPECT_EQ(h100->bandwidthGBps, 3350);
  auto a100 = builtinDeviceModel("a100");
  ASSERT_TRUE(a100.ok());
  EXPECT_EQ(a100->arch, "sm_80");
  EXPECT_EQ(a100->sms, 108);
  EXPECT_EQ(a100->tensorFp8TFlops, 0);
  auto none = builtinDeviceModel("h300");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.message(),
            "unknown device 'h300' (built-in models: h200, h100, a100; or "
            "give a device model JSON file)");
}

TEST(DeviceModel, OverridesMeasuredCeilings) {
  auto m = parseDeviceModel(
      R"({"base": "h100", "name": "mine", "bandwidth_gbps": 4240,
          "tensor_tflops": {"bf16": 790}, "launch_us": 4.2, "sms": 130,
          "smem_per_sm": 100000, "smem_per_block": 90000})",
      "m.json", h200());
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->id, "h100"); // from the base
  EXPECT_EQ(m->name, "mine");
  EXPECT_EQ(m->bandwidthGBps, 4240);
  EXPECT_EQ(m->tensorBf16TFlops, 790);
  EXPECT_EQ(m->tensorF16TFlops, 989.4); // untouched
  EXPECT_EQ(m->launchUs, 4.2);
  EXPECT_EQ(m->sms, 130);
  EXPECT_EQ(m->smemPerBlock, 90000);
  // No base: the fallback.
  auto f = parseDeviceModel(R"({"bandwidth_gbps": 1})", "m.json", h200());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->id, "h200");
  EXPECT_EQ(f->bandwidthGBps, 1);
}

TEST(DeviceModel, WrittenModelsReadBack) {
  for (const DeviceModel &m : builtinDeviceModels()) {
    auto back = parseDeviceModel(deviceModelJson(m), "m.json", h200());
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back->id, m.id);
    EXPECT_EQ(back->arch, m.arch);
    EXPECT_EQ(back->sms, m.sms);
    EXPECT_DOUBLE_EQ(back->sfuTops, m.sfuTops);
    EXPECT_DOUBLE_EQ(back->tensorTf32TFlops, m.tensorTf32TFlops);
    EXPECT_EQ(back->smemPerSM, m.smemPerSM);
  }
}

TEST(DeviceModel, EveryError) {
  EXPECT_EQ(modelError("{"),
            "m.json: not JSON: line 1, column 2: syntax error while parsing "
            "object key - unexpected end of input; expected string literal");
  EXPECT_EQ(modelError("[1]"),
            "m.json: a device model must be an object, not an array");
  EXPECT_NE(modelError(R"({"bandwith_gbps": 4240})")
                .find("m.json: at bandwith_gbps: unknown key "
                      "'bandwith_gbps' in a device model (known: base, id"),
            std::string::npos);
  EXPECT_EQ(modelError(R"({"bandwidth_gbps": "fast"})"),
            "m.json: at bandwidth_gbps: 'bandwidth_gbps' must be a number, "
            "not a string");
  EXPECT_EQ(modelError(R"({"fp32_tflops": -1})"),
            "m.json: at fp32_tflops: 'fp32_tflops' must be positive, got "
            "-1");
  EXPECT_EQ(modelError(R"({"base": "h300"})"),
            "m.json: at base: unknown device 'h300' (built-in "
            "models: h200, h100, a100; or give a device model JSON file)");
  EXPECT_EQ(modelError(R"({"base": 3})"),
            "m.json: at base: 'base' must be a string naming a "
            "built-in model");
  EXPECT_EQ(modelError(R"({"arch": "sm_70"})"),
            "m.json: at arch: 'arch': unknown GPU target 'sm_70' (known: "
            "sm_80, sm_89, sm_90, sm_90a, sm_100a)");
  EXPECT_EQ(modelError(R"({"sms": 1.5})"),
            "m.json: at sms: 'sms' must be a positive integer");
  EXPECT_EQ(modelError(R"({"sms": 0})"),
            "m.json: at sms: 'sms' must be a positive integer");
  EXPECT_EQ(modelError(R"({"tensor_tflops": {"bf17": 1}})"),
            "m.json: at tensor_tflops.bf17: unknown key 'bf17' in "
            "'tensor_tflops' (known: bf16, f16, tf32, fp8, i8)");
  EXPECT_EQ(modelError(R"({"tensor_tflops": 5})"),
            "m.json: at tensor_tflops: 'tensor_tflops' must be an object, "
            "not a number");
  EXPECT_EQ(modelError(R"({"smem_per_block": 300000})"),
            "m.json: 'smem_per_block' (300000) exceeds "
            "'smem_per_sm' (233472)");
  auto missing = loadDeviceModel("/nonexistent/m.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(),
            "cannot read device model '/nonexistent/m.json'");
}

TEST(DeviceModel, ShippedMeasuredH200Reads) {
  auto m = loadDeviceModel(std::string(TILEC_EXAMPLES_DIR) +
                           "/devices/h200-measured.json");
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->id, "h200");
  EXPECT_EQ(m->bandwidthGBps, 4240);
}

//===----------------------------------------------------------------------===//
// Occupancy
//===----------------------------------------------------------------------===//

Occupancy occupancy(int threads, int regs, int64_t smem,
                    const DeviceModel &m = h200()) {
  Resources r;
  r.threadsPerProgram = threads;
  r.registers = regs;
  r.staticSharedBytes = smem;
  return computeOccupancy(m, r);
}

TEST(Occupancy, CudaRules) {
  Occupancy o = occupancy(128, 32, 0);
  EXPECT_EQ(o.programsPerSM, 16);
  EXPECT_EQ(o.fraction, 1.0);
  EXPECT_EQ(o.limiter, "threads+registers");
  // 64 registers: 2048 per warp, 32 warps, 4 programs of 8 warps.
  o = occupancy(256, 64, 0);
  EXPECT_EQ(o.programsPerSM, 4);
  EXPECT_EQ(o.fraction, 0.5);
  EXPECT_EQ(o.limiter, "registers");
  // 48 registers round to 1536 per warp: 42 warps, 10 programs of 4.
  o = occupancy(128, 48, 0);
  EXPECT_EQ(o.programsPerSM, 10);
  EXPECT_DOUBLE_EQ(o.fraction, 40.0 / 64);
  // 41 registers allocate as 48.
  EXPECT_EQ(occupancy(128, 41, 0).programsPerSM, 10);
  // Shared memory: 100 KB + 1 KB reserved per program, 228 KB per SM.
  o = occupancy(128, 16, 100 * 1024);
  EXPECT_EQ(o.programsPerSM, 2);
  EXPECT_EQ(o.limiter, "shared memory");
  // 32 threads: the 32-programs-per-SM limit.
  o = occupancy(32, 16, 0);
  EXPECT_EQ(o.programsPerSM, 32);
  EXPECT_EQ(o.limiter, "programs per SM");
  EXPECT_DOUBLE_EQ(o.fraction, 0.5);
  // A100 has less shared memory per SM.
  EXPECT_EQ(
      occupancy(128, 16, 100 * 1024, *builtinDeviceModel("a100")).programsPerSM,
      1);
}

TEST(Occupancy, UnknownAndImpossible) {
  Resources r;
  r.threadsPerProgram = 256;
  Occupancy o = computeOccupancy(h200(), r);
  EXPECT_TRUE(o.upperBound);
  EXPECT_EQ(o.programsPerSM, 8);
  EXPECT_EQ(occupancy(128, 300, 0).error,
            "300 registers per thread exceed the limit of 255");
  EXPECT_EQ(occupancy(128, 32, 300000).error,
            "300000 bytes of shared memory per program exceed the limit of "
            "232448");
  EXPECT_EQ(occupancy(2048, 32, 0).error,
            "a program of 2048 threads cannot launch (CUDA allows 1..1024)");
  // 1024 threads of 128 registers need 131072 registers: none fit.
  EXPECT_EQ(occupancy(1024, 128, 0).error,
            "a program does not fit on an SM (limited by registers)");
}

//===----------------------------------------------------------------------===//
// FLOP classes and floors
//===----------------------------------------------------------------------===//

/// The counts of add over n elements in one launch of 1024-wide programs.
LaunchCounts addCounts(uint64_t n) {
  uint64_t programs = (n + 1023) / 1024, lanes = programs * 1024;
  LaunchCounts c;
  c.grid = {int64_t(programs), 1, 1};
  c.ops = {{"arith.addf", "f32", lanes},
           {"arith.addi", "i32", lanes},
           {"arith.cmpi", "i32", lanes},
           {"tile.addptr", "ptr", 3 * lanes}};
  for (const char *name : {"x", "y"})
    c.buffers.push_back({name, "f32", 4, n, n, 0, 0, lanes - n, 0});
  c.buffers.push_back({"z", "f32", 4, n, 0, n, 0, 0, lanes - n});
  return c;
}

TEST(Floors, AddIsBandwidthBound) {
  LaunchCounts c = addCounts(uint64_t(1) << 28);
  EXPECT_EQ(c.minimalBytes(), 12ull << 28);
  EXPECT_EQ(c.issuedBytes(), 12ull << 28);
  WorkByClass w = classifyWork(c);
  EXPECT_EQ(w.fp32Flops, double(1 << 28));
  EXPECT_EQ(w.intOps, double(5ull << 28));
  EXPECT_EQ(w.totalOps(), double(1 << 28));
  Prediction p = predictLaunch(h200(), c);
  EXPECT_DOUBLE_EQ(p.memory, double(12ull << 28) / 4.8e12);
  EXPECT_DOUBLE_EQ(p.fp32, double(1 << 28) / (66.9e12 / 2));
  EXPECT_EQ(p.limit, "memory");
  EXPECT_EQ(p.regime(), "bandwidth");
  EXPECT_EQ(p.floor, p.memory);
}

TEST(Floors, TinyAddIsOverheadBound) {
  LaunchCounts c = addCounts(1000);
  EXPECT_EQ(c.maskedLanes(), 3u * 24);
  Prediction p = predictLaunch(h200(), c);
  EXPECT_EQ(p.limit, "launch");
  EXPECT_EQ(p.regime(), "overhead");
  EXPECT_EQ(p.floor, 4e-6);
}

TEST(Floors, ClassesOfSpecialFunctionsAndDots) {
  LaunchCounts c;
  c.ops = {{"math.exp", "f32", 100},  {"math.cos", "f32", 10},
           {"arith.divf", "f32", 5},  {"math.fma", "f32", 7},
           {"arith.addf", "bf16", 3}, {"arith.mulf", "f64", 2},
           {"arith.select", "i1", 9}, {"arith.cmpf", "f32", 4},
           {"arith.extf", "f32", 6},  {"arith.remsi", "i32", 1}};
  c.dots = {{"bf16", 1000, 800}, {"tf32x3", 50, 50}, {"ieee", 40, 40}};
  WorkByClass w = classifyWork(c);
  EXPECT_EQ(w.special.at("exp"), 100);
  EXPECT_EQ(w.special.at("cos"), 10);
  EXPECT_EQ(w.specialTotal(), 110);
  // divf 5 + fma 2*7 + cmpf 4 + ieee dot 40.
  EXPECT_EQ(w.fp32Flops, 5 + 14 + 4 + 40);
  EXPECT_EQ(w.fp16Flops, 3);
  EXPECT_EQ(w.fp64Flops, 2);
  EXPECT_EQ(w.intOps, 9 + 1);
  EXPECT_EQ(w.cvtOps, 6);
  EXPECT_EQ(w.tensorFlops.at("bf16"), 1000);
  EXPECT_EQ(w.tensorTotal(), 1050);
  EXPECT_EQ(w.tensorUseful, 850);
  // MUFU: exp 1, divf 1 each; cos none.
  EXPECT_EQ(w.sfuInstrs, 100 + 5);
  // FMA pipe: exp 4, cos 20, divf 8, fma 1, cmpf 1 each; ieee dot FMAs.
  EXPECT_EQ(w.fp32PipeInstrs, 400 + 200 + 40 + 7 + 4 + 20);
  EXPECT_EQ(w.intPipeInstrs, 9 + 20);
  Prediction p = predictLaunch(h200(), c);
  // tf32x3 runs three tf32 passes.
  EXPECT_DOUBLE_EQ(p.tensor, 1000 / 989.4e12 + 150 / 494.7e12);
  // Dots compiled to FMAs count on the FMA pipe.
  LaunchCounts fma;
  fma.dots = {{"fma:bf16", uint64_t(1e12), uint64_t(1e12)}};
  WorkByClass f = classifyWork(fma);
  EXPECT_EQ(f.tensorTotal(), 0);
  EXPECT_EQ(f.fp32Flops, 1e12);
  EXPECT_EQ(f.fp32PipeInstrs, 5e11);
  EXPECT_EQ(predictLaunch(h200(), fma).limit, "fp32");
  // fp8 on an A100: no such tensor cores, an infinite floor.
  c.dots = {{"fp8", 10, 10}};
  EXPECT_TRUE(std::isinf(predictLaunch(*builtinDeviceModel("a100"), c).tensor));
}

//===----------------------------------------------------------------------===//
// Verdicts from synthetic timings
//===----------------------------------------------------------------------===//

TEST(Verdict, BandwidthBoundAddDoubles) {
  Prediction p = predictLaunch(h200(), addCounts(uint64_t(1) << 28));
  Verdict v = judge(p, {0.741e-3, 0.745e-3, 10}, nullptr);
  EXPECT_EQ(v.regime, "bandwidth");
  EXPECT_NEAR(v.bandwidthFraction, p.memory / 0.741e-3, 1e-12);
  PointMeasurement twice{1.48e-3, 1.49e-3, 10};
  v = judge(p, {0.741e-3, 0.745e-3, 10}, &twice);
  EXPECT_EQ(v.regime, "bandwidth");
  EXPECT_NEAR(v.doublingRatio, 2.0, 1e-12);
  EXPECT_EQ(v.reason.substr(0, 39), "2N/N time 2.00: time follows the work; ");
}

TEST(Verdict, TinyKernelIsOverheadBound) {
  Prediction p = predictLaunch(h200(), addCounts(4096));
  PointMeasurement n{2.5e-6, 4.2e-6, 100}, twice{2.6e-6, 4.3e-6, 100};
  Verdict v = judge(p, n, &twice);
  EXPECT_EQ(v.regime, "overhead");
  EXPECT_NEAR(v.doublingRatio, 4.3 / 4.2, 1e-12);
  EXPECT_EQ(v.reason.substr(0, 50),
            "2N/N time 1.02: twice the work costs little more; ");
  // Without the doubling: the GPU idles most of the wall time.
  v = judge(p, {1e-6, 4e-6, 100}, nullptr);
  EXPECT_EQ(v.regime, "overhead");
  EXPECT_NEAR(v.deviceShare, 0.25, 1e-12);
}

TEST(Verdict, MatmulIsComputeBound) {
  Prediction p;
  p.memory = 8.4e-5;
  p.tensor = 1.11e-3;
  p.launch = 4e-6;
  PointMeasurement n{1.6e-3, 1.6e-3, 30}, twice{3.2e-3, 3.2e-3, 30};
  Verdict v = judge(p, n, &twice);
  EXPECT_EQ(v.regime, "compute");
  EXPECT_EQ(v.pipe, "tensor");
  EXPECT_NEAR(v.computeFraction, 1.11 / 1.6, 1e-12);
  EXPECT_NEAR(v.bandwidthFraction, 0.084 / 1.6, 1e-12);
}

TEST(Verdict, BelowEveryCeiling) {
  // cos(cos(x)): 83% of the bandwidth, the FMA pipe at half its peak.
  Prediction p;
  p.memory = 506e-6;
  p.fp32 = 321e-6;
  PointMeasurement n{615e-6, 616e-6, 10}, twice{1230e-6, 1232e-6, 10};
  Verdict v = judge(p, n, &twice);
  EXPECT_EQ(v.regime, "bandwidth");
  EXPECT_NE(v.reason.find("; below every ceiling: instruction issue, latency "
                          "or occupancy limits it"),
            std::string::npos)
      << v.reason;
  // At 98% of the bandwidth the bandwidth explains it.
  PointMeasurement fast{516e-6, 517e-6, 10}, fastTwice{1032e-6, 1034e-6, 10};
  v = judge(p, fast, &fastTwice);
  EXPECT_EQ(v.reason.find("below every ceiling"), std::string::npos);
}

TEST(Verdict, PartlyFixedCost) {
  Prediction p;
  p.memory = 1e-5;
  p.launch = 4e-6;
  PointMeasurement n{1.5e-5, 1.6e-5, 10}, twice{2.4e-5, 2.4e-5, 10};
  Verdict v = judge(p, n, &twice); // ratio 1.5, GPU busy 94%
  EXPECT_EQ(v.regime, "bandwidth");
  EXPECT_NE(v.reason.find("partly fixed cost"), std::string::npos);
  PointMeasurement idle{4e-6, 1.6e-5, 10};
  v = judge(p, idle, &twice); // ratio 1.5, GPU busy 25%
  EXPECT_EQ(v.regime, "overhead");
  EXPECT_EQ(judge(p, {0, 0, 0}, nullptr).regime, "unknown");
}

//===----------------------------------------------------------------------===//
// JSON round trips and errors
//===----------------------------------------------------------------------===//

WorkloadAnalysis sampleAnalysis() {
  WorkloadAnalysis a;
  a.name = "add <tiny> & more";
  a.group = "g";
  a.label = "first";
  a.batchVar = "N";
  a.device = h200();
  for (uint64_t n : {1000u, 2000u}) {
    WorkloadPoint p;
    p.vars = {{"N", int64_t(n)}};
    LaunchAnalysis l;
    l.module = "add";
    l.kernel = "add";
    l.counts = addCounts(n);
    l.counts.evaluations = 3;
    l.counts.notes = {"a note"};
    l.counts.dots = {{"bf16", 8, 6}};
    for (const char *name : {"x", "y", "z"}) {
      LaunchArg arg;
      arg.name = name;
      arg.isBuffer = true;
      arg.type = "f32";
      arg.count = n;
      arg.buffer = name;
      l.args.push_back(arg);
    }
    LaunchArg scalar;
    scalar.name = "n";
    scalar.type = "i32";
    scalar.intValue = int64_t(n);
    l.args.push_back(scalar);
    LaunchArg eps;
    eps.name = "eps";
    eps.type = "f32";
    eps.isFloat = true;
    eps.floatValue = 1e-5;
    l.args.push_back(eps);
    l.resources.threadsPerProgram = 128;
    l.resources.registers = 25;
    l.resources.staticSharedBytes = 0;
    l.resources.source = "ptxas -v";
    p.launches.push_back(l);
    a.points.push_back(p);
  }
  return a;
}

TEST(AnalysisJson, RoundTrip) {
  WorkloadAnalysis a = sampleAnalysis();
  std::string text = analysisJson(a);
  auto back = parseAnalysisJson(text, "a.json");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->name, a.name);
  EXPECT_EQ(back->group, "g");
  EXPECT_EQ(back->batchVar, "N");
  ASSERT_EQ(back->points.size(), 2u);
  const LaunchAnalysis &l = back->points[1].launches[0];
  EXPECT_EQ(back->points[1].vars[0].second, 2000);
  EXPECT_EQ(l.counts.grid[0], 2);
  EXPECT_EQ(l.counts.opCount("tile.addptr", "ptr"), 3u * 2048);
  EXPECT_EQ(l.counts.buffers[2].stored, 2000u);
  EXPECT_EQ(l.counts.buffers[0].maskedLoads, 48u);
  EXPECT_EQ(l.counts.dots[0].useful, 6u);
  EXPECT_EQ(l.counts.notes, std::vector<std::string>{"a note"});
  EXPECT_EQ(l.args[3].intValue, 2000);
  EXPECT_TRUE(l.args[4].isFloat);
  EXPECT_DOUBLE_EQ(l.args[4].floatValue, 1e-5);
  EXPECT_EQ(l.resources.registers, 25);
  EXPECT_EQ(l.resources.source, "ptxas -v");
  // Written again, the same text: nothing is lost.
  EXPECT_EQ(analysisJson(*back), text);
}

std::string analysisError(std::string text, const std::string &from,
                          const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  auto a = parseAnalysisJson(text, "a.json");
  EXPECT_FALSE(a.ok());
  return a.ok() ? "" : a.message();
}

TEST(AnalysisJson, Errors) {
  std::string text = analysisJson(sampleAnalysis());
  EXPECT_NE(analysisError(text, "\"tilec-analysis\"", "\"other\"")
                .find("not a tilec-analysis document (format 'other')"),
            std::string::npos);
  EXPECT_NE(analysisError(text, "\"version\": 1", "\"version\": 2")
                .find("analysis version 2 is not supported"),
            std::string::npos);
  EXPECT_NE(analysisError(text, "\"grid\": [1, 1, 1]", "\"grid\": [1, 1]")
                .find("a.json: at points[0].launches[0].grid: 'grid' must "
                      "have 3 entries (x, y, z)"),
            std::string::npos);
  EXPECT_NE(analysisError(text, "[\"arith.addf\", \"f32\", 1024]",
                          "[\"arith.addf\", 1024]")
                .find("a.json: at points[0].launches[0].ops[0]: each of "
                      "'ops' must be [op, type, count]"),
            std::string::npos);
  EXPECT_NE(analysisError(text, "\"evaluations\"", "\"evaluation\"")
                .find("unknown key 'evaluation' in a launch"),
            std::string::npos);
  EXPECT_NE(analysisError(text, "\"loaded\": 1000", "\"loaded\": -1")
                .find("'loaded' must be a non-negative integer"),
            std::string::npos);
  EXPECT_NE(
      analysisError(text, "\"bandwidth_gbps\": 4800", "\"bandwidth_gbps\": 0")
          .find("a.json: at device.bandwidth_gbps: 'bandwidth_gbps' must "
                "be positive, got 0"),
      std::string::npos);
  auto bad = parseAnalysisJson("nope", "a.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message().substr(0, 21), "a.json: not JSON: lin");
}

TEST(ProfileJson, RoundTripAndReports) {
  ProfileRun run;
  run.device = "NVIDIA H200 (sm_90)";
  run.date = "2026-11-30";
  run.model = h200();
  WorkloadProfile w;
  w.analysis = sampleAnalysis();
  w.measured = {{2.5e-6, 4.2e-6, 100}, {2.6e-6, 4.3e-6, 100}};
  w.resources = {{128, 24, 0, 0, -1, -1, "cuFuncGetAttribute"}};
  WorkloadProfile second = w;
  second.analysis.label = "second";
  second.measured = {{5e-6, 8.4e-6, 100}};
  WorkloadProfile failed;
  failed.analysis = sampleAnalysis();
  failed.analysis.group.clear();
  failed.error = "allocating buffer 'x': out of memory";
  run.workloads = {w, second, failed};
  std::string text = profileJson(run);
  auto back = parseProfileJson(text, "p.json");
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_EQ(back->workloads.size(), 3u);
  EXPECT_EQ(back->workloads[0].measured[1].wallSeconds, 4.3e-6);
  EXPECT_EQ(back->workloads[0].resources[0].registers, 24);
  EXPECT_EQ(back->workloads[2].error, failed.error);
  EXPECT_EQ(profileJson(*back), text);

  std::string report = profileReport(*back);
  EXPECT_NE(report.find("tilec-profile on NVIDIA H200 (sm_90), 2026-11-30"),
            std::string::npos);
  EXPECT_NE(report.find("overhead"), std::string::npos);
  // The group compares the second member with the first.
  EXPECT_NE(report.find("g: first 2.5 us, second 5 us (2.00x); minimal "
                        "bytes 12.0 KB vs 12.0 KB"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("note: add <tiny> & more: allocating buffer 'x': out "
                        "of memory"),
            std::string::npos);

  std::string svg = rooflineSvg(*back);
  EXPECT_EQ(svg.substr(0, 4), "<svg");
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  // Names are escaped; every workload has a hollow and, if measured, a
  // filled marker.
  EXPECT_NE(svg.find("add &lt;tiny&gt; &amp; more"), std::string::npos);
  EXPECT_EQ(svg.find("<tiny>"), std::string::npos);
  EXPECT_NE(svg.find("DRAM 4800 GB/s"), std::string::npos);
  EXPECT_NE(svg.find("bf16 tensor 989 TFLOP/s"), std::string::npos);

  std::string sweep = sweepSvg(back->workloads[0], back->model);
  EXPECT_NE(sweep.find("<polyline"), std::string::npos);
  EXPECT_NE(sweep.find("time against N"), std::string::npos);

  auto bad = parseProfileJson(R"({"format": "tilec-profile", "version": 3})",
                              "p.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "p.json: at version: profile version 3 is "
                           "not supported (this tool reads version 1)");
}

TEST(Report, LinesOfAnyLength) {
  // Report lines were formatted into a 1024-byte buffer and cut there.
  ProfileRun run;
  run.device = std::string(2000, 'd');
  run.date = "2026-11-30";
  run.model = h200();
  std::string report = profileReport(run);
  EXPECT_NE(report.find("tilec-profile on " + run.device + ", 2026-11-30\n"),
            std::string::npos);
  EXPECT_NE(report.find("launch 4.0 us\n"), std::string::npos) << report;
}

TEST(Report, AnalysisReportNamesTheBound) {
  WorkloadAnalysis a = sampleAnalysis();
  a.points[0].launches[0].counts = addCounts(uint64_t(1) << 28);
  // Every program re-reads y: 4x its size.
  a.points[0].launches[0].counts.buffers[1].loaded = uint64_t(1) << 30;
  std::string r = analysisReport(a);
  EXPECT_NE(r.find("== add <tiny> & more  [N=1000]  on NVIDIA H200 SXM"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("re-read: y 4x"), std::string::npos) << r;
  EXPECT_NE(r.find("-> bandwidth-bound"), std::string::npos) << r;
  EXPECT_NE(r.find("occupancy 100% (16 programs/SM, limit: "
                   "threads+registers)"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("2N/N     predicted time ratio"), std::string::npos);
}

TEST(Format, Units) {
  EXPECT_EQ(formatBytes(3221225472.0), "3.22 GB");
  EXPECT_EQ(formatBytes(999), "999 B");
  EXPECT_EQ(formatCount(268435456), "268 M");
  EXPECT_EQ(formatSeconds(0.741e-3), "741 us");
  EXPECT_EQ(formatSeconds(1.6e-3), "1.6 ms");
  EXPECT_EQ(formatSeconds(2.5e-9), "2.5 ns");
}

} // namespace
