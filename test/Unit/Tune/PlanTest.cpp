//===- PlanTest.cpp - split-K plans and TMA candidates in the tuner -------===//
//
// The runtime half of the tuner for the candidates that are not one
// pointer kernel: the manifest's families and reduce steps, the shape
// pruning of measure (shapeSkipReason), the plan in the cache's entries
// (stored, compared with the manifest, a corrupted plan ignored and the
// entry rewritten by the next measurement), and a split-K plan measured as
// two launches on the stand-in driver.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Cache.h"
#include "tilec/Support/Json.h"
#include "tilec/Tune/Manifest.h"
#include "tilec/Tune/Measure.h"
#include "tilec/Tune/TuneCache.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fstream>
#include <unistd.h>

using namespace tilec;
using namespace tilec::tune;

namespace {

const bool kFakeDriverSet = (setenv("TILEC_LIBCUDA", TILEC_FAKE_CUDA, 1),
                             setenv("TILEC_RUNTIME_PTXAS", "off", 1), true);

int fakeLaunches() {
  void *lib = dlopen(TILEC_FAKE_CUDA, RTLD_NOW | RTLD_NOLOAD);
  auto f = reinterpret_cast<int (*)()>(dlsym(lib, "fake_launchCount"));
  return f ? f() : -1;
}

/// Launch `i`'s grid and block (the fake records both).
std::vector<unsigned> launchShape(int i) {
  void *lib = dlopen(TILEC_FAKE_CUDA, RTLD_NOW | RTLD_NOLOAD);
  auto f = reinterpret_cast<void (*)(int, unsigned *)>(
      dlsym(lib, "fake_launchShape"));
  std::vector<unsigned> g(6);
  if (f)
    f(i, g.data());
  return g;
}

std::string tempDir() {
  char tmpl[] = "/tmp/tilec-plan-test-XXXXXX";
  return mkdtemp(tmpl);
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// A PTX entry `name` with `params` parameters (u64 pointers first).
std::string ptxEntry(const std::string &name, int pointers, int scalars) {
  std::string p;
  for (int i = 0; i < pointers + scalars; ++i)
    p += std::string(i ? ",\n" : "") + "\t.param ." +
         (i < pointers ? "u64 " : "u32 ") + name + "_param_" +
         std::to_string(i);
  return ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry " +
         name + "(\n" + p + "\n)\n{\n\tret;\n}\n";
}

std::string metadata(const std::string &name,
                     const std::vector<std::pair<std::string, std::string>>
                         &params /* name, "ptr:T" or "i32" */) {
  std::string p;
  for (const auto &[n, t] : params) {
    bool ptr = t.rfind("ptr:", 0) == 0;
    p += std::string(p.empty() ? "" : ", ") + "{\"name\": \"" + n +
         "\", \"kind\": \"" + (ptr ? "ptr" : "scalar") + "\", \"type\": \"" +
         (ptr ? t.substr(4) : t) + "\", \"divisibility\": " +
         (ptr ? "16" : "1") + "}";
  }
  return "{\"format\": \"tilec-kernels\", \"version\": 1, \"target\": "
         "\"sm_90\", \"kernels\": [{\"name\": \"" + name +
         "\", \"num_warps\": 4, \"threads_per_program\": 128, "
         "\"shared_bytes\": 0, \"params\": [" + p + "]}]}\n";
}

ParamValues params(int64_t bm, int64_t bn, int64_t split) {
  return {{"BLOCK_M", bm}, {"BLOCK_N", bn}, {"BLOCK_K", 64},
          {"num_stages", 4}, {"TMA", 0},    {"SPLIT_K", split}};
}

/// A folder of a plain candidate (0) and a split-K plan (1, SPLIT_K=4) that
/// shares the reduce kernel of the folder.
Manifest makeFolder(const std::string &dir) {
  Manifest m;
  m.kernel = "matmul";
  m.source = "builder:matmul";
  m.kernelHash = "0123";
  m.families = {{"cp.async", {{"BLOCK_M", {64}}, {"SPLIT_K", {1}}}},
                {"splitk", {{"BLOCK_M", {64}}, {"SPLIT_K", {4}}}}};
  m.space = {{"BLOCK_M", {64}}, {"SPLIT_K", {1, 4}}};
  m.compiler = "tilec test";
  m.target = "sm_90";
  m.problem = "gemm";
  const std::vector<std::pair<std::string, std::string>> gemm = {
      {"a", "ptr:bf16"}, {"b", "ptr:bf16"}, {"c", "ptr:bf16"},
      {"M", "i32"},      {"N", "i32"},      {"K", "i32"},
      {"stride_am", "i32"}, {"stride_bk", "i32"}, {"stride_cm", "i32"}};
  auto split = gemm;
  split[2].second = "ptr:f32";
  for (int id = 0; id < 2; ++id) {
    Candidate c;
    c.id = id;
    c.family = id ? "splitk" : "cp.async";
    c.params = params(64, 64, id ? 4 : 1);
    c.binary = "c" + std::to_string(id) + ".ptx";
    c.metadata = "c" + std::to_string(id) + ".json";
    writeFile(dir + "/" + c.binary, ptxEntry("matmul", 3, 6));
    writeFile(dir + "/" + c.metadata, metadata("matmul", id ? split : gemm));
    if (id)
      c.reduce = {"matmul_splitk_reduce", "reduce.ptx", "reduce.json", 1024};
    m.candidates.push_back(c);
  }
  writeFile(dir + "/reduce.ptx", ptxEntry("matmul_splitk_reduce", 2, 4));
  writeFile(dir + "/reduce.json",
            metadata("matmul_splitk_reduce",
                     {{"ws", "ptr:f32"}, {"c", "ptr:bf16"}, {"M", "i32"},
                      {"N", "i32"}, {"stride_cm", "i32"}, {"splits", "i32"}}));
  writeFile(dir + "/manifest.json", writeManifest(m));
  return m;
}

TEST(TunePlan, ManifestCarriesFamiliesAndReduceSteps) {
  std::string dir = tempDir();
  Manifest m = makeFolder(dir);
  Expected<Manifest> back = readManifest(dir);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(writeManifest(*back), writeManifest(m));
  ASSERT_EQ(back->families.size(), 2u);
  EXPECT_EQ(back->families[1].name, "splitk");
  EXPECT_EQ(back->candidates[1].family, "splitk");
  EXPECT_EQ(back->candidates[1].reduce, m.candidates[1].reduce);
  EXPECT_EQ(splitKOf(back->candidates[1]), 4);
  EXPECT_EQ(splitKOf(back->candidates[0]), 1);
  // The families are part of the space: another family, another key.
  Manifest other = m;
  other.families[1].dims[1].values = {8};
  EXPECT_NE(other.spaceHash(), m.spaceHash());

  std::string good = writeManifest(m);
  auto error = [&](const std::string &from, const std::string &to) {
    std::string s = good;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    Expected<Manifest> r = parseManifest(s.replace(at, from.size(), to));
    return r.ok() ? std::string("parsed") : r.message();
  };
  EXPECT_EQ(error("\"block_n\": 1024", "\"block_n\": 0"),
            "candidates[1].reduce.block_n: expected a positive integer");
  EXPECT_EQ(error("\"kernel\": \"matmul_splitk_reduce\"", "\"kernel\": 5"),
            "candidates[1].reduce.kernel: expected a string, got 5");
  EXPECT_EQ(error("\"SPLIT_K\": 4}", "\"SPLIT_K\": 1}"),
            "candidates[1].reduce: without SPLIT_K > 1");
  EXPECT_EQ(error("\"SPLIT_K\": 1}", "\"SPLIT_K\": 2}"),
            "candidates[0]: SPLIT_K > 1 without 'reduce'");
  EXPECT_EQ(error("\"families\": [", "\"families\": 3, \"x\": ["),
            "manifest.families: expected an array");
}

TEST(TunePlan, ShapePruningReasons) {
  Candidate plain, tma, split;
  plain.params = params(64, 128, 1);
  tma.params = params(128, 128, 1);
  tma.params[4].second = 1; // TMA
  split.params = params(64, 64, 8);
  const int sms = 132;
  EXPECT_EQ(shapeSkipReason(plain, {16, 4096, 4096}, sms, 2), "");
  EXPECT_EQ(shapeSkipReason(tma, {1000, 1000, 1001}, sms, 2),
            "tensor descriptors need row strides of a multiple of 16 bytes; "
            "rows of 1001 (A) and 1000 (B) elements of 2 bytes are not");
  EXPECT_EQ(shapeSkipReason(tma, {1000, 1000, 1000}, sms, 2), "");
  EXPECT_EQ(shapeSkipReason(tma, {16, 4096, 4096}, sms, 2),
            "BLOCK_M=128 for M=16: more rows than M's bucket (16) and than "
            "the least tile (64)");
  EXPECT_EQ(shapeSkipReason(tma, {100, 4096, 4096}, sms, 2), "");
  // M=16, N=4096: 64 tiles of 64x64; 8 slices of 8 steps.
  EXPECT_EQ(shapeSkipReason(split, {16, 4096, 4096}, sms, 2), "");
  EXPECT_EQ(shapeSkipReason(split, {1024, 4096, 4096}, sms, 2),
            "the 1024 output tiles alone make two waves of the 132 SMs: "
            "nothing for split-K to fill");
  EXPECT_EQ(shapeSkipReason(split, {128, 4096, 4096}, sms, 2),
            "SPLIT_K=8 x 128 tiles = 1024 programs, over four waves of the "
            "132 SMs");
  EXPECT_EQ(shapeSkipReason(split, {16, 4096, 1024}, sms, 2),
            "K=1024 is 16 steps of 64: 8 slices would have fewer steps than "
            "the 4 stages of the pipeline");
}

TEST(TunePlan, CacheEntriesCarryThePlan) {
  std::string dir = tempDir(), cacheDir = tempDir();
  Manifest m = makeFolder(dir);
  TuneCache cache(cacheDir);
  TuneKeyParts parts = keyParts(m, "M16xN4096xK4096/a16", "Fake GPU sm_90");
  EXPECT_EQ(parts.text().substr(0, 21), "tilec-tune winner v2\n");
  Winner w = winnerOf(m, m.candidates[1]);
  EXPECT_EQ(w.plan.describe(), "SPLIT_K=4: matmul, matmul_splitk_reduce");
  w.medianMs = 0.01;
  w.measuredShape = {16, 4096, 4096};
  ASSERT_TRUE(cache.store(parts, w).ok());
  CacheLookup hit = cache.lookup(parts, m);
  ASSERT_TRUE(hit.winner) << hit.ignored;
  EXPECT_EQ(hit.winner->plan, w.plan);
  EXPECT_EQ(hit.winner->plan.reduceBlockN, 1024);

  // Entries whose plan is damaged or is not the candidate's are ignored.
  runtime::CubinCache raw(cacheDir + "/tune");
  std::string good = *raw.lookup(tuneKey(parts));
  auto storeEdited = [&](const std::string &from, const std::string &to) {
    std::string s = good;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    ASSERT_TRUE(raw.store(tuneKey(parts), s.replace(at, from.size(), to)).ok());
  };
  storeEdited("\"split_k\": 4", "\"split_k\": \"four\"");
  EXPECT_EQ(cache.lookup(parts, m).ignored,
            "an entry without a well-formed plan (split_k, tma, kernels, "
            "reduce_block_n)");
  storeEdited("\"split_k\": 4", "\"split_k\": 8");
  EXPECT_EQ(cache.lookup(parts, m).ignored,
            "an entry whose plan (SPLIT_K=8: matmul, matmul_splitk_reduce) "
            "is not candidate 1's (SPLIT_K=4: matmul, matmul_splitk_reduce)");
  storeEdited("\"split_k\": 4", "\"split_k\": 1");
  EXPECT_EQ(cache.lookup(parts, m).ignored,
            "an entry whose plan has 2 kernels for SPLIT_K=1");
  storeEdited("\"version\": 2", "\"version\": 1");
  EXPECT_EQ(cache.lookup(parts, m).ignored,
            "an entry of another format version (this tilec-tune writes 2)");
}

MeasureOptions quiet(const std::string &cacheDir) {
  MeasureOptions o;
  o.warmup = 2;
  o.reps = 5;
  o.checkSamples = 0; // the fake's kernels compute nothing
  o.cacheDir = cacheDir;
  return o;
}

TEST(TunePlan, SplitPlanMeasuredAsTwoLaunchesAndRewrittenWhenCorrupt) {
  ASSERT_TRUE(kFakeDriverSet);
  std::string dir = tempDir(), cacheDir = tempDir();
  Manifest m = makeFolder(dir);
  Expected<runtime::Context> ctx = runtime::Context::create(0);
  ASSERT_TRUE(ctx.ok()) << ctx.message();
  // Only the split-K plan: it must win, and be timed as two launches.
  Manifest onlySplit = m;
  onlySplit.candidates[0].pruned = true;
  int before = fakeLaunches();
  Expected<TuneResult> r =
      tuneGemm(*ctx, onlySplit, dir, {16, 4096, 4096}, quiet(cacheDir));
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->winner.id, 1);
  EXPECT_EQ(r->winner.plan.splitK, 4);
  // 1 checked launch + 1 more warm-up + 5 timed, each two kernels.
  ASSERT_EQ(fakeLaunches() - before, 2 * (2 + 5));
  // The slices: (cdiv(16, 64), cdiv(4096, 64), 4); the reduce: (16, 4).
  std::vector<unsigned> slices = launchShape(before);
  std::vector<unsigned> reduce = launchShape(before + 1);
  EXPECT_EQ(std::vector<unsigned>(slices.begin(), slices.begin() + 3),
            (std::vector<unsigned>{1, 64, 4}));
  EXPECT_EQ(std::vector<unsigned>(reduce.begin(), reduce.begin() + 3),
            (std::vector<unsigned>{16, 4, 1}));

  // A second process takes the plan from the cache; a corrupted plan is
  // ignored, measured again and the entry rewritten whole.
  Expected<TuneResult> hit =
      tuneGemm(*ctx, onlySplit, dir, {16, 4096, 4096}, quiet(cacheDir));
  ASSERT_TRUE(hit.ok() && hit->fromCache);
  EXPECT_EQ(hit->winner.plan, r->winner.plan);
  runtime::CubinCache raw(cacheDir + "/tune");
  std::string entry = *raw.lookup(r->key);
  size_t at = entry.find("\"kernels\": [");
  ASSERT_NE(at, std::string::npos) << entry;
  entry.replace(at, 12, "\"kernels\": [\"other\", ");
  ASSERT_TRUE(raw.store(r->key, entry).ok());
  before = fakeLaunches();
  Expected<TuneResult> again =
      tuneGemm(*ctx, onlySplit, dir, {16, 4096, 4096}, quiet(cacheDir));
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_FALSE(again->fromCache);
  EXPECT_EQ(again->cacheNote.substr(0, 29), "ignored an entry whose plan h");
  EXPECT_GT(fakeLaunches(), before);
  Expected<TuneResult> fixed =
      tuneGemm(*ctx, onlySplit, dir, {16, 4096, 4096}, quiet(cacheDir));
  ASSERT_TRUE(fixed.ok() && fixed->fromCache);

  // On a shape that fills the GPU, the plan is skipped with its reason
  // and the one-kernel candidate wins.
  Expected<TuneResult> big =
      tuneGemm(*ctx, m, dir, {4096, 4096, 4096}, quiet(cacheDir));
  ASSERT_TRUE(big.ok()) << big.message();
  EXPECT_EQ(big->winner.id, 0);
  ASSERT_EQ(big->times.size(), 2u);
  EXPECT_EQ(big->times[0].id, 1);
  EXPECT_EQ(big->times[0].skipped,
            "the 4096 output tiles alone make two waves of the 132 SMs: "
            "nothing for split-K to fill");
}

} // namespace
