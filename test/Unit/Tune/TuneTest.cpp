//===- TuneTest.cpp - the tuner's manifest, cache and measurement ---------===//
//
// Runs against the stand-in driver (test/lib/FakeCuda): its kernels do not
// compute, so the measurement tests turn the result check off, and one test
// shows that with the check on a kernel that writes nothing cannot win.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Cache.h"
#include "tilec/Tune/Dispatch.h"
#include "tilec/Tune/Manifest.h"
#include "tilec/Tune/Measure.h"
#include "tilec/Tune/TuneCache.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <dlfcn.h>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
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

std::string tempDir() {
  char tmpl[] = "/tmp/tilec-tune-test-XXXXXX";
  return mkdtemp(tmpl);
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.')
        names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

/// A PTX entry with the GEMM's parameters, for the fake's loader.
const char *kGemmPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry matmul(
	.param .u64 matmul_param_0,
	.param .u64 matmul_param_1,
	.param .u64 matmul_param_2,
	.param .u32 matmul_param_3,
	.param .u32 matmul_param_4,
	.param .u32 matmul_param_5,
	.param .u32 matmul_param_6,
	.param .u32 matmul_param_7,
	.param .u32 matmul_param_8
)
{
	ret;
}
)";

std::string gemmMetadata(int warps) {
  std::string p;
  const char *names[] = {"a", "b", "c", "M", "N", "K",
                         "stride_am", "stride_bk", "stride_cm"};
  for (int i = 0; i < 9; ++i)
    p += std::string(i ? ", " : "") + "{\"name\": \"" + names[i] +
         "\", \"kind\": \"" + (i < 3 ? "ptr" : "scalar") + "\", \"type\": \"" +
         (i < 3 ? "bf16" : "i32") + "\", \"divisibility\": " +
         (i < 3 ? "16" : "1") + "}";
  return "{\"format\": \"tilec-kernels\", \"version\": 1, \"target\": "
         "\"sm_90\", \"kernels\": [{\"name\": \"matmul\", \"num_warps\": " +
         std::to_string(warps) + ", \"threads_per_program\": " +
         std::to_string(32 * warps) + ", \"shared_bytes\": 0, \"params\": [" +
         p + "]}]}\n";
}

/// A folder of three candidates, the second pruned.
Manifest makeFolder(const std::string &dir) {
  Manifest m;
  m.kernel = "matmul";
  m.source = "builder:matmul";
  m.kernelHash = "0123";
  m.space = {{"BLOCK_M", {64, 128}}, {"BLOCK_N", {64}}, {"num_warps", {4, 8}}};
  m.compiler = "tilec test";
  m.target = "sm_90";
  m.problem = "gemm";
  int id = 0;
  for (int bm : {64, 128})
    for (int w : {4, 8}) {
      if (id == 3)
        break;
      Candidate c;
      c.id = id;
      c.params = {{"BLOCK_M", bm}, {"BLOCK_N", 64}, {"num_warps", w}};
      if (id == 1) {
        c.pruned = true;
        c.reason = "ptxas spills 8 bytes to local memory (255 registers)";
      } else {
        c.binary = "c" + std::to_string(id) + ".ptx";
        c.metadata = "c" + std::to_string(id) + ".json";
        writeFile(dir + "/" + c.binary, kGemmPtx);
        writeFile(dir + "/" + c.metadata, gemmMetadata(w));
      }
      m.candidates.push_back(c);
      ++id;
    }
  writeFile(dir + "/manifest.json", writeManifest(m));
  return m;
}

TEST(TuneBucket, PowersOfTwoAtLeast16) {
  EXPECT_EQ(gemmBucket({1, 4096, 4096}), "M16xN4096xK4096/a16");
  EXPECT_EQ(gemmBucket({16, 14336, 4096}), "M16xN16384xK4096/a16");
  EXPECT_EQ(gemmBucket({17, 4096, 14336}), "M32xN4096xK16384/a16");
  EXPECT_EQ(gemmBucket({1000, 1024, 1025}), "M1024xN1024xK2048/a1");
  EXPECT_EQ(gemmBucket({16384, 16, 16}), "M16384xN16xK16/a16");
  EXPECT_EQ(gemmBucket({3, 24, 40}), "M16xN32xK64/a8");
}

TEST(TuneBucket, ArgsRoundSizesKeepAlignmentAndDropFloats) {
  using runtime::ParamInfo;
  std::vector<ParamInfo> params(5);
  params[0] = {.name = "x", .kind = ParamInfo::Kind::Pointer,
               .type = DType::F32};
  params[1] = {.name = "a", .kind = ParamInfo::Kind::TensorDesc,
               .type = DType::BF16};
  params[2] = {.name = "n", .type = DType::I32};
  params[3] = {.name = "scale", .type = DType::F32};
  params[4] = {.name = "flag", .type = DType::I32};
  std::vector<HostArg> args(5);
  args[0].isBuffer = true;
  args[0].dtype = DType::F32;
  args[0].data.resize(1000 * 4);
  args[1].isBuffer = true;
  args[1].dtype = DType::BF16;
  args[1].desc.shape = {100, 64};
  args[2].intValue = 1000;
  args[3].dtype = DType::F32;
  args[3].floatValue = 0.125;
  args[4].intValue = 0;
  EXPECT_EQ(argsBucket(params, args),
            "x[1024] a[128x64] n=1024/a8 flag=0/a1");
  // Sizes within one power of two share a bucket; the alignment does not.
  args[2].intValue = 1024;
  EXPECT_EQ(argsBucket(params, args),
            "x[1024] a[128x64] n=1024/a16 flag=0/a1");
  args[2].intValue = 513;
  EXPECT_EQ(argsBucket(params, args),
            "x[1024] a[128x64] n=1024/a1 flag=0/a1");
  // The float scalar leaves no trace.
  args[3].floatValue = 7;
  EXPECT_EQ(argsBucket(params, args),
            "x[1024] a[128x64] n=1024/a1 flag=0/a1");
}

TEST(TuneBucket, ShapeParsing) {
  Expected<GemmShape> s = parseGemmShape("16x14336x4096");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s->m, 16);
  EXPECT_EQ(s->n, 14336);
  EXPECT_EQ(s->k, 4096);
  for (const char *bad : {"", "16", "16x32", "16x32x", "0x1x1", "1x1x1x1",
                          "ax1x1", "1x1x4294967296", "-1x2x3"}) {
    Expected<GemmShape> b = parseGemmShape(bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_EQ(b.message(), "'" + std::string(bad) +
                               "' is not a GEMM shape MxNxK (each in [1, "
                               "2^31 - 1])");
  }
}

TEST(TuneKey, EveryPartMatters) {
  TuneKeyParts base{"k", "s", "gemm", "M16xN16xK16", "H200 sm_90", "tilec 1"};
  std::string key = tuneKey(base);
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(key, tuneKey(base));
  std::string TuneKeyParts::*fields[] = {
      &TuneKeyParts::kernelHash, &TuneKeyParts::spaceHash,
      &TuneKeyParts::problem,    &TuneKeyParts::bucket,
      &TuneKeyParts::device,     &TuneKeyParts::compiler};
  for (auto field : fields) {
    TuneKeyParts other = base;
    other.*field += "x";
    EXPECT_NE(tuneKey(other), key) << base.text();
  }
}

TEST(TuneKey, SpaceHashFollowsTheSpace) {
  Manifest m;
  m.space = {{"BLOCK_M", {64, 128}}};
  std::string h = m.spaceHash();
  m.space[0].values.push_back(256); // a value added: other winners
  EXPECT_NE(m.spaceHash(), h);
  m.space[0].values = {128, 64};
  EXPECT_NE(m.spaceHash(), h);
  m.space = {{"BLOCK_N", {64, 128}}};
  EXPECT_NE(m.spaceHash(), h);
}

TEST(TuneManifest, RoundTripAndErrors) {
  std::string dir = tempDir();
  Manifest m = makeFolder(dir);
  Expected<Manifest> back = readManifest(dir);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(writeManifest(*back), writeManifest(m));
  ASSERT_EQ(back->candidates.size(), 3u);
  EXPECT_TRUE(back->candidates[1].pruned);
  EXPECT_EQ(back->candidates[1].reason, m.candidates[1].reason);
  EXPECT_EQ(describe(back->candidates[2].params),
            "BLOCK_M=128 BLOCK_N=64 num_warps=4");

  auto error = [](std::string text) {
    Expected<Manifest> r = parseManifest(text);
    return r.ok() ? std::string("parsed") : r.message();
  };
  std::string good = writeManifest(m);
  auto edit = [&](const std::string &from, const std::string &to) {
    std::string s = good;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  EXPECT_EQ(error(edit("\"tilec-tune-candidates\"", "\"x\"")),
            "manifest.format: not a tilec-tune-candidates manifest");
  EXPECT_EQ(error(edit("\"version\": 2", "\"version\": 3")),
            "manifest.version: 3 is not a version this tilec-tune reads (1, "
            "2)");
  EXPECT_EQ(error(edit("\"problem\": \"gemm\",", "")),
            "manifest: missing 'problem'");
  EXPECT_EQ(error(edit("\"status\": \"pruned\"", "\"status\": \"maybe\"")),
            "candidates[1].status: expected \"ok\" or \"pruned\", got "
            "\"maybe\"");
  EXPECT_EQ(error(edit("\"id\": 2", "\"id\": 0")),
            "candidates[2].id: 0 is used twice");
  EXPECT_EQ(error(edit("\"binary\": \"c0.ptx\"", "\"binary\": 3")),
            "candidates[0].binary: expected a string, got 3");
  EXPECT_NE(error("{"), "parsed");
  EXPECT_EQ(readManifest(dir + "/none").message(),
            "cannot read '" + dir + "/none/manifest.json'");
}

TEST(TuneCacheTest, StoreLookupAndDamage) {
  std::string dir = tempDir(), cacheDir = tempDir() + "/nested/cache";
  Manifest m = makeFolder(dir);
  TuneCache cache(cacheDir);
  TuneKeyParts parts = keyParts(m, "M16xN64xK64", "Fake GPU sm_90");
  EXPECT_FALSE(cache.lookup(parts, m).winner);
  EXPECT_EQ(cache.lookup(parts, m).ignored, "");

  Winner w = winnerOf(m, m.candidates[2]);
  w.medianMs = 0.25;
  w.measuredShape = {16, 64, 64};
  w.measured = 2;
  ASSERT_TRUE(cache.store(parts, w).ok());
  // Written through a temporary file renamed into place: nothing else is
  // left in the folder.
  EXPECT_EQ(listDir(cacheDir + "/tune"),
            std::vector<std::string>{tuneKey(parts) + ".cubin"});
  CacheLookup hit = cache.lookup(parts, m);
  ASSERT_TRUE(hit.winner);
  EXPECT_EQ(hit.winner->id, 2);
  EXPECT_EQ(hit.winner->medianMs, 0.25);
  EXPECT_EQ(hit.winner->measuredShape.k, 64);
  EXPECT_EQ(describe(hit.winner->params), describe(w.params));

  // Another bucket, device or space is another entry.
  TuneKeyParts other = parts;
  other.device = "Other GPU sm_90";
  EXPECT_FALSE(cache.lookup(other, m).winner);

  std::string path = cache.pathFor(tuneKey(parts));
  std::string bytes = readFile(path);
  // Damaged bytes (the entry's checksum), truncation.
  writeFile(path, bytes.substr(0, bytes.size() / 2));
  EXPECT_FALSE(cache.lookup(parts, m).winner);
  EXPECT_EQ(cache.lookup(parts, m).ignored,
            "a damaged entry (length or checksum)");
  std::string flipped = bytes;
  flipped[flipped.size() - 3] ^= 1;
  writeFile(path, flipped);
  EXPECT_EQ(cache.lookup(parts, m).ignored,
            "a damaged entry (length or checksum)");
  // A whole entry whose contents are not a winner.
  runtime::CubinCache raw(cacheDir + "/tune");
  ASSERT_TRUE(raw.store(tuneKey(parts), "not json").ok());
  EXPECT_EQ(cache.lookup(parts, m).ignored.substr(0, 29),
            "an entry that is not JSON (li");
  ASSERT_TRUE(raw.store(tuneKey(parts), "{\"format\": \"x\"}").ok());
  EXPECT_EQ(cache.lookup(parts, m).ignored,
            "an entry without the fields of a winner");
  // An entry stored under this key by other parts.
  ASSERT_TRUE(cache.store(other, w).ok());
  ASSERT_TRUE(
      raw.store(tuneKey(parts), *raw.lookup(tuneKey(other))).ok());
  EXPECT_EQ(cache.lookup(parts, m).ignored,
            "an entry of other key parts (a hash collision or an edited "
            "file)");
  // A winner the manifest does not have, or pruned.
  w.id = 1;
  ASSERT_TRUE(cache.store(parts, w).ok());
  EXPECT_EQ(cache.lookup(parts, m).ignored,
            "an entry naming candidate 1, which the manifest does not have "
            "(or pruned)");
  // Rewritten: whole again.
  w.id = 0;
  ASSERT_TRUE(cache.store(parts, w).ok());
  ASSERT_TRUE(cache.lookup(parts, m).winner);
  EXPECT_EQ(cache.lookup(parts, m).winner->id, 0);
}

TEST(TuneCacheTest, ConcurrentWritersNeverShowHalfAnEntry) {
  std::string dir = tempDir(), cacheDir = tempDir();
  Manifest m = makeFolder(dir);
  TuneKeyParts parts = keyParts(m, "M16xN64xK64", "Fake GPU sm_90");
  std::vector<pid_t> children;
  for (int p = 0; p < 4; ++p) {
    pid_t pid = fork();
    if (pid == 0) {
      TuneCache cache(cacheDir);
      Winner w = winnerOf(m, m.candidates[p % 2 == 0 ? 0 : 2]);
      w.medianMs = p;
      int bad = 0;
      for (int i = 0; i < 40; ++i) {
        if (!cache.store(parts, w).ok())
          ++bad;
        CacheLookup r = cache.lookup(parts, m);
        if (!r.winner || !r.ignored.empty())
          ++bad;
      }
      _exit(bad == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(listDir(cacheDir + "/tune").size(), 1u);
}

MeasureOptions quiet(const std::string &cacheDir,
                     std::vector<std::string> *lines) {
  MeasureOptions o;
  o.warmup = 2;
  o.reps = 5;
  o.checkSamples = 0; // the fake's kernels compute nothing
  o.cacheDir = cacheDir;
  o.progress = [lines](const std::string &l) { lines->push_back(l); };
  return o;
}

TEST(TuneMeasure, MeasuresThenReusesTheCache) {
  ASSERT_TRUE(kFakeDriverSet);
  std::string dir = tempDir(), cacheDir = tempDir();
  Manifest m = makeFolder(dir);
  Expected<runtime::Context> ctx = runtime::Context::create(0);
  ASSERT_TRUE(ctx.ok()) << ctx.message();
  std::vector<std::string> lines;
  int before = fakeLaunches();
  Expected<TuneResult> r =
      tuneGemm(*ctx, m, dir, {100, 64, 32}, quiet(cacheDir, &lines));
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_FALSE(r->fromCache);
  EXPECT_EQ(r->bucket, "M128xN64xK32/a16");
  // Two candidates (one pruned), each 1 checked launch + 1 more warm-up +
  // 5 timed.
  EXPECT_EQ(fakeLaunches() - before, 2 * (2 + 5));
  ASSERT_EQ(r->times.size(), 2u);
  EXPECT_TRUE(r->times[0].measured);
  EXPECT_TRUE(r->winner.id == 0 || r->winner.id == 2);
  ASSERT_EQ(lines.size(), 2u);
  const std::string head =
      "[1/2] candidate 0 (BLOCK_M=64 BLOCK_N=64 num_warps=4): ";
  EXPECT_EQ(lines[0].substr(0, head.size()), head);
  EXPECT_NE(lines[0].find(" ms; best "), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("; best "), std::string::npos) << lines[1];
  // 2 x the fake's 1 MiB L2 over (100x32 + 32x64 + 100x64) bf16 = 23296
  // bytes per set: 91 sets, capped at 64.
  EXPECT_EQ(r->rotatingSets, 64);
  EXPECT_EQ(listDir(cacheDir + "/tune").size(), 1u);

  // A second run (any shape of the bucket) measures nothing.
  lines.clear();
  before = fakeLaunches();
  Expected<TuneResult> again =
      tuneGemm(*ctx, m, dir, {128, 48, 32}, quiet(cacheDir, &lines));
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_TRUE(again->fromCache);
  EXPECT_EQ(again->winner.id, r->winner.id);
  EXPECT_EQ(again->winner.measuredShape.m, 100);
  EXPECT_EQ(fakeLaunches(), before);
  EXPECT_TRUE(lines.empty());

  // A corrupted entry is ignored, measured again and rewritten.
  writeFile(again->cacheFile, "garbage");
  Expected<TuneResult> third =
      tuneGemm(*ctx, m, dir, {128, 48, 32}, quiet(cacheDir, &lines));
  ASSERT_TRUE(third.ok()) << third.message();
  EXPECT_FALSE(third->fromCache);
  EXPECT_EQ(third->cacheNote, "ignored a damaged entry (length or checksum) "
                              "at " + third->cacheFile);
  Expected<TuneResult> fourth =
      tuneGemm(*ctx, m, dir, {128, 48, 32}, quiet(cacheDir, &lines));
  ASSERT_TRUE(fourth.ok());
  EXPECT_TRUE(fourth->fromCache);

  // Without the cache: measured, nothing stored.
  MeasureOptions off = quiet(cacheDir, &lines);
  off.useCache = false;
  before = fakeLaunches();
  Expected<TuneResult> fresh = tuneGemm(*ctx, m, dir, {128, 48, 32}, off);
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(fresh->fromCache);
  EXPECT_GT(fakeLaunches(), before);
}

TEST(TuneMeasure, RotationFollowsTheL2AndAWrongResultCannotWin) {
  std::string dir = tempDir(), cacheDir = tempDir();
  Manifest m = makeFolder(dir);
  Expected<runtime::Context> ctx = runtime::Context::create(0);
  ASSERT_TRUE(ctx.ok());
  std::vector<std::string> lines;
  MeasureOptions o = quiet(cacheDir, &lines);
  o.checkSamples = 4;
  // 2 MiB over (256x256 + 256x256 + 256x256) x 2 bytes: 6 sets.
  Expected<TuneResult> r = tuneGemm(*ctx, m, dir, {256, 256, 256}, o);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->rotatingSets, 6);
  // The fake computes nothing: C stays poisoned (NaN), and no candidate
  // wins or is stored.
  EXPECT_EQ(r->winner.id, -1);
  ASSERT_EQ(r->times.size(), 2u);
  EXPECT_EQ(r->times[0].error.substr(0, 24), "wrong result: C[0, 0] = ");
  EXPECT_NE(r->times[0].error.find("nan, expected "), std::string::npos)
      << r->times[0].error;
  EXPECT_TRUE(listDir(cacheDir + "/tune").empty());
}

TEST(TuneMeasure, RefusesWhatItCannotLaunch) {
  std::string dir = tempDir();
  Manifest m = makeFolder(dir);
  Expected<runtime::Context> ctx = runtime::Context::create(0);
  ASSERT_TRUE(ctx.ok());
  MeasureOptions o;
  o.useCache = false;
  Manifest other = m;
  other.problem = "conv";
  EXPECT_EQ(tuneGemm(*ctx, other, dir, {16, 16, 16}, o).message(),
            "the manifest's problem is 'conv', not 'gemm'");
  Manifest noBlock = m;
  for (Candidate &c : noBlock.candidates)
    c.params.erase(c.params.begin());
  EXPECT_EQ(tuneGemm(*ctx, noBlock, dir, {16, 16, 16}, o).message(),
            "candidate 0 has no BLOCK_M and BLOCK_N parameters, which the "
            "gemm problem's grid needs");
  Manifest allPruned = m;
  for (Candidate &c : allPruned.candidates)
    c.pruned = true;
  EXPECT_EQ(tuneGemm(*ctx, allPruned, dir, {16, 16, 16}, o).message(),
            "every candidate of the manifest was pruned");
  writeFile(dir + "/c0.json",
            "{\"format\": \"tilec-kernels\", \"version\": 1, \"target\": "
            "\"sm_90\", \"kernels\": [{\"name\": \"matmul\", \"num_warps\": "
            "4, \"threads_per_program\": 128, \"shared_bytes\": 0, "
            "\"params\": [{\"name\": \"x\", \"kind\": \"ptr\", \"type\": "
            "\"f32\", \"divisibility\": 1}]}]}\n");
  EXPECT_EQ(tuneGemm(*ctx, m, dir, {16, 16, 16}, o).message(),
            "kernel 'matmul' (x: ptr<f32>) is not a GEMM kernel(a, b, c, M, "
            "N, K, stride_am, stride_bk, stride_cm): 3 pointers (a, b may be "
            "tensor descriptors) to bf16, f16 or f32, then 6 i32");
}

} // namespace

namespace {

/// The GEMM folder's candidates as an args problem's winners: keys of M.
ArgsDispatchKey keyOfM(int64_t m) {
  ArgsDispatchKey k;
  k.bucket = "M=" + std::to_string(m);
  k.values = {m, 64, 64, 64, 64, 64};
  k.aligns = {16, 16, 16, 16, 16, 16};
  return k;
}

Winner winnerOf(int id) {
  Winner w;
  w.id = id;
  return w;
}

} // namespace

TEST(TuneDispatch, ArgsTableAndItsRefusals) {
  std::string dir = tempDir();
  Manifest m = makeFolder(dir);
  DispatchOptions options;
  // Two buckets, two winners, no grid rule: the function takes the grid.
  auto files = generateArgsDispatch(
      m, dir, {{keyOfM(64), winnerOf(0)}, {keyOfM(1024), winnerOf(2)}},
      options);
  ASSERT_TRUE(files.ok()) << files.message();
  ASSERT_EQ(files->size(), 6u);
  const std::string &header = (*files)[4].text;
  EXPECT_EQ((*files)[4].name, "tuned.h");
  EXPECT_NE(header.find("Status matmul(CUstream stream, const "
                        "::tilec::runtime::Grid &grid, "
                        "::tilec::runtime::DevicePtr<::tilec::runtime::"
                        "BFloat16> a,"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("///   M=64: candidate 0 (BLOCK_M=64"),
            std::string::npos);
  const std::string &source = (*files)[5].text;
  EXPECT_NE(source.find("{0, {64, 64, 64, 64, 64, 64}, {16, 16, 16, 16, 16, "
                        "16}, {16, 16, 16, 1, 1, 1, 1, 1, 1}}, // M=64"),
            std::string::npos)
      << source;
  EXPECT_NE(source.find("return c2::matmul(stream, grid, a, b, c, M, N, K, "
                        "stride_am, stride_bk, stride_cm);"),
            std::string::npos);

  // One key, two winners: the table could not tell them apart.
  ArgsDispatchKey other = keyOfM(64);
  other.bucket = "M=64 a[99]";
  EXPECT_EQ(generateArgsDispatch(m, dir,
                                 {{keyOfM(64), winnerOf(0)},
                                  {other, winnerOf(2)}},
                                 options)
                .message(),
            "the problems of buckets 'M=64' and 'M=64 a[99]' have the same "
            "integer arguments and descriptor shapes but different winners "
            "(candidates 0 and 2): a pointer has no size at run time, so the "
            "table cannot tell them apart");
  // The same winner twice is one entry.
  EXPECT_TRUE(generateArgsDispatch(
                  m, dir, {{keyOfM(64), winnerOf(0)}, {other, winnerOf(0)}},
                  options)
                  .ok());
  EXPECT_EQ(generateArgsDispatch(m, dir, {{keyOfM(64), winnerOf(1)}}, options)
                .message(),
            "the winner for M=64, candidate 1, is not a candidate of the "
            "folder");
  EXPECT_EQ(generateArgsDispatch(m, dir, {}, options).message(),
            "no winners to put in the table");
  // Candidate 2 with a grid rule, candidate 0 without.
  std::string ruled = gemmMetadata(4);
  ruled.replace(ruled.find("\"params\""), 8,
                "\"grid\": [\"cdiv(M, 64)\"], \"params\"");
  writeFile(dir + "/c2.json", ruled);
  EXPECT_EQ(generateArgsDispatch(m, dir,
                                 {{keyOfM(64), winnerOf(0)},
                                  {keyOfM(1024), winnerOf(2)}},
                                 options)
                .message(),
            "candidate 0 has no grid rule (tile.grid) but candidate 2 has "
            "one: the table launches every winner alike");
  // Candidate 2 of another signature.
  std::string f32 = gemmMetadata(4);
  f32.replace(f32.find("\"bf16\""), 6, "\"f32\"");
  writeFile(dir + "/c2.json", f32);
  std::string message = generateArgsDispatch(m, dir,
                                             {{keyOfM(64), winnerOf(0)},
                                              {keyOfM(1024), winnerOf(2)}},
                                             options)
                            .message();
  EXPECT_NE(message.find("candidate 2's parameters (a: ptr<f32>, b: "
                         "ptr<bf16>"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("are not candidate 0's (a: ptr<bf16>"),
            std::string::npos)
      << message;
}
