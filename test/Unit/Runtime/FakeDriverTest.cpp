//===- FakeDriverTest.cpp - the runtime against a stand-in driver ---------===//
//
// Runs the runtime's real code, from dlopen to cuLaunchKernel, against
// FakeCuda.cpp (see there): module loading and the cubin cache, kernel
// lookup, shared-memory opt-in, the bytes each argument becomes, context
// recovery, bound launches and graphs.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Cache.h"
#include "tilec/Runtime/DLPack.h"
#include "tilec/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tilec::runtime;

namespace {

// Before main: every Driver::get() of this program loads the fake, and PTX
// is compiled by its linker, not by an installed ptxas (whose real cubins
// the fake cannot load) unless a test asks for one.
const bool kFakeDriverSet = (setenv("TILEC_LIBCUDA", TILEC_FAKE_CUDA, 1),
                             setenv("TILEC_RUNTIME_PTXAS", "off", 1), true);

/// The fake's test hooks, found in the copy the runtime loaded.
struct Fake {
  /// Looked up at each use: the runtime loads the library on first need.
  template <typename F> F get(const char *name) {
    void *handle = dlopen(TILEC_FAKE_CUDA, RTLD_NOW | RTLD_NOLOAD);
    EXPECT_NE(handle, nullptr) << "the fake driver is not loaded";
    auto f = reinterpret_cast<F>(dlsym(handle, name));
    EXPECT_NE(f, nullptr) << name;
    return f;
  }
  int links() { return get<int (*)()>("fake_linkCount")(); }
  int moduleLoads() { return get<int (*)()>("fake_moduleLoadCount")(); }
  int allocations() { return get<int (*)()>("fake_liveAllocations")(); }
  int launches() { return get<int (*)()>("fake_launchCount")(); }
  std::vector<unsigned char> param(int launch, int index) {
    size_t size = 0;
    const unsigned char *p = get<const unsigned char *(*)(int, int, size_t *)>(
        "fake_launchParam")(launch, index, &size);
    return {p, p + size};
  }
  std::vector<unsigned> shape(int launch) {
    std::vector<unsigned> out(5);
    get<void (*)(int, unsigned *)>("fake_launchShape")(launch, out.data());
    return out;
  }
  void clearCurrent() { get<void (*)()>("fake_clearCurrent")(); }
  int newSignatures() { return get<int (*)()>("fake_newSignatures")(); }
};

const char *kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry add(.param .u64 x, .param .u64 y, .param .u64 z, .param .u32 n)
{ ret; }
.visible .entry probe(.param .u64 x, .param .u64 y, .param .u32 n,
  .param .u64 m, .param .f32 eps, .param .b16 h, .param .b16 b,
  .param .u32 flag)
{ ret; }
.visible .entry shared100k(.param .u32 n) { ret; }
.visible .entry shared300k(.param .u32 n) { ret; }
.visible .entry heavy(.param .u32 n) { ret; }
)";

const char *kAddParams = R"(
  {"name": "x", "kind": "ptr", "type": "f32", "divisibility": 16},
  {"name": "y", "kind": "ptr", "type": "f32", "divisibility": 16},
  {"name": "z", "kind": "ptr", "type": "f32", "divisibility": 16},
  {"name": "n", "kind": "scalar", "type": "i32"})";

std::string metadata(const std::string &target = "sm_90",
                     const std::string &extraKernels = "") {
  return R"({"format": "tilec-kernels", "version": 1, "target": ")" + target +
         R"(", "kernels": [
    {"name": "add", "num_warps": 4, "threads_per_program": 128,
     "shared_bytes": 0, "params": [)" +
         kAddParams + R"(]},
    {"name": "probe", "num_warps": 4, "threads_per_program": 128,
     "shared_bytes": 0, "params": [
      {"name": "x", "kind": "ptr", "type": "f32", "divisibility": 16},
      {"name": "y", "kind": "ptr", "type": "f16"},
      {"name": "n", "kind": "scalar", "type": "i32", "divisibility": 16},
      {"name": "m", "kind": "scalar", "type": "i64"},
      {"name": "eps", "kind": "scalar", "type": "f32"},
      {"name": "h", "kind": "scalar", "type": "f16"},
      {"name": "b", "kind": "scalar", "type": "bf16"},
      {"name": "flag", "kind": "scalar", "type": "i1"}]},
    {"name": "shared100k", "num_warps": 8, "threads_per_program": 256,
     "shared_bytes": 100000, "params": [
      {"name": "n", "kind": "scalar", "type": "i32"}]},
    {"name": "shared300k", "num_warps": 8, "threads_per_program": 256,
     "shared_bytes": 300000, "params": [
      {"name": "n", "kind": "scalar", "type": "i32"}]},
    {"name": "heavy", "num_warps": 32, "threads_per_program": 1024,
     "shared_bytes": 0, "params": [
      {"name": "n", "kind": "scalar", "type": "i32"}]})" +
         extraKernels + "]}";
}

/// A fresh folder in this process's scratch folder, which is removed at
/// exit.
std::string tempDir(const std::string &name) {
  struct Scratch {
    std::string path;
    Scratch() {
      const char *tmp = std::getenv("TMPDIR");
      path = std::string(tmp && *tmp ? tmp : "/tmp") + "/tilec-fake-test-" +
             std::to_string(getpid());
    }
    ~Scratch() {
      if (std::system(("rm -rf '" + path + "'").c_str()) != 0)
        std::fprintf(stderr, "could not remove %s\n", path.c_str());
    }
  };
  static Scratch scratch;
  std::string dir = scratch.path + "/" + name;
  std::string cmd = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return dir;
}

/// Constructed before main, so destroyed after every function-local static
/// (the driver singleton among them): where an AOT program's generated
/// global keeps its module.
std::optional<Module> gModuleAtExit;

/// Set in a child about to exit: operator delete then fills what it frees
/// with 0x5a and keeps it, so that a use after free reads that garbage
/// whatever malloc does next (a call through it crashes).
bool gQuarantineFrees = false;

} // namespace

void operator delete(void *p) noexcept {
  if (p && gQuarantineFrees) {
    std::memset(p, 0x5a, malloc_usable_size(p));
    return;
  }
  std::free(p);
}
void operator delete(void *p, std::size_t) noexcept { operator delete(p); }

namespace {

/// What the fake takes for a cubin: a 64-bit ELF header whose e_shoff (no
/// sections) ends the image, then the PTX.
std::string fakeCubin(std::string_view ptx) {
  std::string elf(64, '\0');
  std::memcpy(elf.data(),
              "\x7f"
              "ELF\x02\x01\x01",
              7);
  uint64_t end = 64 + ptx.size();
  for (int i = 0; i < 8; ++i)
    elf[0x28 + i] = char(end >> (8 * i));
  elf[0x34] = 64; // e_ehsize
  elf[0x3a] = 64; // e_shentsize
  return elf + std::string(ptx);
}

class FakeDriver : public ::testing::Test {
protected:
  void SetUp() override {
    auto c = Context::create(0);
    ASSERT_TRUE(c.ok()) << c.message();
    ctx.emplace(std::move(*c));
    LoadOptions o;
    o.cacheDir = tempDir("cache");
    options = o;
    auto m = Module::loadPtx(*ctx, kPtx, metadata(), options);
    ASSERT_TRUE(m.ok()) << m.message();
    module.emplace(std::move(*m));
  }
  Kernel kernel(const char *name) {
    auto k = module->kernel(name);
    EXPECT_TRUE(k.ok()) << k.message();
    return *k;
  }
  std::optional<Context> ctx;
  std::optional<Module> module;
  LoadOptions options;
  Fake fake;
};

TEST_F(FakeDriver, ModulesMayOutliveTheDriverSingleton) {
  // Failed before (issue 17; valgrind: invalid read in ~ModuleState): at
  // exit the driver singleton was destroyed before a global's ~ModuleState,
  // which then called through the freed driver. The quarantine makes that
  // call crash the child every time.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto m = Module::loadPtx(*ctx, kPtx, metadata(), options);
    if (!m.ok())
      _exit(3);
    gModuleAtExit.emplace(std::move(*m));
    ctx.reset();
    module.reset();
    gQuarantineFrees = true;
    std::exit(0); // runs the static destructors
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << (WIFSIGNALED(status)
              ? "killed by signal " + std::to_string(WTERMSIG(status))
              : "exit status " + std::to_string(WEXITSTATUS(status)));
}

TEST_F(FakeDriver, ContextAndDevice) {
  EXPECT_EQ(ctx->deviceName(), "Fake GPU");
  EXPECT_EQ(ctx->arch(), "sm_90");
  EXPECT_EQ(ctx->computeCapabilityMajor(), 9);
  EXPECT_EQ(*Context::deviceCount(), 2);
  auto missing = Context::create(2);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(),
            "there is no CUDA device 2 (the driver sees 2 devices)");
  EXPECT_EQ(Context::create(-1).message(),
            "there is no CUDA device -1 (the driver sees 2 devices)");
  auto current = Context::current();
  ASSERT_TRUE(current.ok()) << current.message();
  EXPECT_EQ(current->get(), ctx->get());
  fake.clearCurrent();
  auto none = Context::current();
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.message(), "no CUDA context is current on this thread: "
                            "create a tilec::runtime::Context first");
  EXPECT_TRUE(ctx->makeCurrent().ok());
  EXPECT_TRUE(ctx->synchronize().ok());
  // CUDA 13 gave cuCtxGetDevice and cuCtxSynchronize a context parameter;
  // the runtime must ask for the signatures it calls (a lookup at 13000
  // passed garbage as the context and crashed on the H200).
  EXPECT_EQ(fake.newSignatures(), 0);
  EXPECT_EQ(ctx->driver().version(), 13000);
  EXPECT_NE(ctx->driver().identity().find("13000 "), std::string::npos);
}

TEST_F(FakeDriver, Buffers) {
  int before = fake.allocations();
  {
    auto b = DeviceBuffer<float>::allocate(*ctx, 100);
    ASSERT_TRUE(b.ok()) << b.message();
    EXPECT_EQ(fake.allocations(), before + 1);
    EXPECT_EQ(b->size(), 100u);
    EXPECT_EQ(b->bytes(), 400u);
    std::vector<float> in(100), out(100, -1);
    for (int i = 0; i < 100; ++i)
      in[i] = i * 0.5f;
    ASSERT_TRUE(b->copyFromHost(in).ok());
    ASSERT_TRUE(b->copyToHost(out).ok());
    EXPECT_EQ(in, out);
    ASSERT_TRUE(b->memory().fill32(0x7fc00000u).ok());
    ASSERT_TRUE(b->copyToHost(out).ok());
    EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[99]));
    ASSERT_TRUE(b->memory().fill16(0x3c00).ok());
    ASSERT_TRUE(b->memory().fill8(0).ok());
    std::vector<float> big(101);
    Status s = b->copyFromHost(big);
    EXPECT_EQ(s.message(), "copy to the device of 404 bytes at offset 0 "
                           "does not fit in a device buffer of 400 bytes");
    s = b->memory().copyToHost(out.data(), 8, 396);
    EXPECT_EQ(s.message(), "copy to the host of 8 bytes at offset 396 does "
                           "not fit in a device buffer of 400 bytes");
    auto copy = DeviceBuffer<float>::fromHost(*ctx, in);
    ASSERT_TRUE(copy.ok());
    ASSERT_TRUE(b->memory().fill8(0).ok());
    ASSERT_TRUE(b->memory().copyFrom(copy->memory()).ok());
    ASSERT_TRUE(b->copyToHost(out).ok());
    EXPECT_EQ(in, out);

    DeviceBuffer<float> moved = std::move(*b);
    EXPECT_EQ(moved.size(), 100u);
    EXPECT_EQ(b->memory().fill8(0).message(),
              "fill: the device buffer was moved from or never made");
    auto odd = DeviceMemory::allocate(*ctx, 3);
    ASSERT_TRUE(odd.ok());
    EXPECT_EQ(odd->fill16(0).message(),
              "fill16 needs a size that is a multiple of 2 bytes, not 3");
    EXPECT_EQ(odd->fill32(0).message(),
              "fill32 needs a size that is a multiple of 4 bytes, not 3");
    auto empty = DeviceBuffer<int>::allocate(*ctx, 0);
    ASSERT_TRUE(empty.ok()) << empty.message();
    EXPECT_TRUE(empty->copyFromHost({}).ok());
  }
  EXPECT_EQ(fake.allocations(), before) << "every buffer freed";
}

TEST_F(FakeDriver, PtxLoadsGoThroughTheCache) {
  // SetUp's load compiled the PTX and stored the cubin.
  EXPECT_EQ(module->loadInfo().source, LoadInfo::Source::CompiledPtx);
  std::string file = module->loadInfo().cacheFile;
  EXPECT_EQ(file.rfind(options.cacheDir + "/", 0), 0u) << file;
  struct stat st;
  EXPECT_EQ(stat(file.c_str(), &st), 0) << file;
  EXPECT_EQ(module->loadInfo().cacheNote, "");

  int links = fake.links();
  auto again = Module::loadPtx(*ctx, kPtx, metadata(), options);
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_EQ(again->loadInfo().source, LoadInfo::Source::CachedCubin);
  EXPECT_EQ(again->loadInfo().cacheFile, file);
  EXPECT_EQ(fake.links(), links) << "a cache hit does not compile";
  EXPECT_GE(again->loadInfo().milliseconds, 0.0);

  // Other PTX is another entry.
  std::string other = std::string(kPtx) + "// changed\n";
  auto third = Module::loadPtx(*ctx, other, metadata(), options);
  ASSERT_TRUE(third.ok()) << third.message();
  EXPECT_EQ(third->loadInfo().source, LoadInfo::Source::CompiledPtx);
  EXPECT_NE(third->loadInfo().cacheFile, file);
  EXPECT_EQ(fake.links(), links + 1);

  // The cache can be turned off.
  LoadOptions off = options;
  off.useCache = false;
  auto uncached = Module::loadPtx(*ctx, kPtx, metadata(), off);
  ASSERT_TRUE(uncached.ok());
  EXPECT_EQ(uncached->loadInfo().source, LoadInfo::Source::CompiledPtx);
  EXPECT_EQ(uncached->loadInfo().cacheNote, "the cache is off for this load");
  EXPECT_EQ(uncached->loadInfo().cacheFile, "");

  // An entry the driver refuses is rebuilt and replaced.
  std::string name = file.substr(file.rfind('/') + 1);
  std::string key = name.substr(0, name.size() - std::string(".cubin").size());
  ASSERT_TRUE(CubinCache(options.cacheDir).store(key, "not a cubin").ok());
  auto rebuilt = Module::loadPtx(*ctx, kPtx, metadata(), options);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.message();
  EXPECT_EQ(rebuilt->loadInfo().source, LoadInfo::Source::CompiledPtx);
  EXPECT_NE(rebuilt->loadInfo().cacheNote.find("the cached cubin was refused "
                                               "(cannot load the kernels on "
                                               "device 0 (Fake GPU): "
                                               "cuModuleLoadData failed: "
                                               "CUDA_ERROR_INVALID_IMAGE"),
            std::string::npos)
      << rebuilt->loadInfo().cacheNote;
  auto healed = Module::loadPtx(*ctx, kPtx, metadata(), options);
  EXPECT_EQ(healed->loadInfo().source, LoadInfo::Source::CachedCubin);
}

/// Writes an executable script `name` into a scratch folder; returns its
/// path.
std::string writeScript(const std::string &name, const std::string &body) {
  std::string path = tempDir("scripts-" + name) + "/" + name;
  FILE *f = std::fopen(path.c_str(), "w");
  EXPECT_TRUE(f) << path;
  std::fputs(body.c_str(), f);
  std::fclose(f);
  EXPECT_EQ(chmod(path.c_str(), 0755), 0);
  return path;
}

std::string readText(const std::string &path) {
  std::string text;
  if (FILE *f = std::fopen(path.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
      text.append(buf, n);
    std::fclose(f);
  }
  return text;
}

TEST_F(FakeDriver, PtxasCompilesWhenInstalled) {
  // A stand-in ptxas: records its arguments and writes the stand-in driver's
  // kind of cubin ("FAKECUBIN\n" + the PTX) where -o says.
  std::string argsFile = tempDir("ptxas-args") + "/args";
  std::string ptxas = writeScript(
      "ptxas",
      "#!/bin/sh\necho \"$@\" > '" + argsFile +
          "'\nin=$3; out=$5\necho 'ptxas info    : fine'\n"
          "printf 'FAKECUBIN\\n' > \"$out\" && cat \"$in\" >> \"$out\"\n");
  LoadOptions o = options;
  o.ptxas = ptxas;
  int links = fake.links();
  auto m = Module::loadPtx(*ctx, kPtx, metadata(), o);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->loadInfo().source, LoadInfo::Source::CompiledPtx);
  EXPECT_EQ(m->loadInfo().compiler, "ptxas " + ptxas);
  EXPECT_EQ(m->loadInfo().compilerNote, "");
  EXPECT_EQ(m->loadInfo().jitLog, "ptxas info    : fine\n");
  EXPECT_EQ(fake.links(), links) << "ptxas, not the driver's linker";
  std::string args = readText(argsFile);
  EXPECT_EQ(args.rfind("-arch=sm_90 -O3 ", 0), 0u) << args;
  EXPECT_TRUE(m->kernel("add").ok());
  // Its cubin is cached under its own key, apart from the linker's.
  EXPECT_NE(m->loadInfo().cacheFile, module->loadInfo().cacheFile);
  auto again = Module::loadPtx(*ctx, kPtx, metadata(), o);
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_EQ(again->loadInfo().source, LoadInfo::Source::CachedCubin);
  EXPECT_EQ(again->loadInfo().cacheFile, m->loadInfo().cacheFile);
  EXPECT_EQ(again->loadInfo().compiler, "ptxas " + ptxas);

  // A ptxas that fails: the driver's linker compiles, and says why.
  std::string broken = writeScript(
      "broken-ptxas",
      "#!/bin/sh\necho 'ptxas fatal   : Unsupported .version 9.9'\nexit 1\n");
  o.ptxas = broken;
  o.useCache = false;
  auto linked = Module::loadPtx(*ctx, kPtx, metadata(), o);
  ASSERT_TRUE(linked.ok()) << linked.message();
  EXPECT_EQ(linked->loadInfo().compiler, "the driver's linker");
  EXPECT_EQ(linked->loadInfo().compilerNote,
            broken + " -arch=sm_90 failed: ptxas fatal   : Unsupported "
                     ".version 9.9");
  EXPECT_EQ(fake.links(), links + 1);

  // One that succeeds without writing the cubin.
  std::string silent = writeScript("silent-ptxas", "#!/bin/sh\nexit 0\n");
  o.ptxas = silent;
  auto nothing = Module::loadPtx(*ctx, kPtx, metadata(), o);
  ASSERT_TRUE(nothing.ok()) << nothing.message();
  EXPECT_EQ(nothing->loadInfo().compiler, "the driver's linker");
  EXPECT_EQ(nothing->loadInfo().compilerNote, silent + " wrote no cubin");

  // "off", a path that is not there, and the environment.
  o.ptxas = "off";
  auto off = Module::loadPtx(*ctx, kPtx, metadata(), o);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->loadInfo().compiler, "the driver's linker");
  EXPECT_EQ(off->loadInfo().compilerNote,
            "ptxas is off (LoadOptions::ptxas or TILEC_RUNTIME_PTXAS)");
  o.ptxas = "/nonexistent/ptxas";
  auto missing = Module::loadPtx(*ctx, kPtx, metadata(), o);
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->loadInfo().compilerNote,
            "no ptxas at '/nonexistent/ptxas'");
  o.ptxas = "";
  setenv("TILEC_RUNTIME_PTXAS", ptxas.c_str(), 1);
  auto fromEnv = Module::loadPtx(*ctx, kPtx, metadata(), o);
  setenv("TILEC_RUNTIME_PTXAS", "off", 1); // as kFakeDriverSet left it
  ASSERT_TRUE(fromEnv.ok()) << fromEnv.message();
  EXPECT_EQ(fromEnv->loadInfo().compiler, "ptxas " + ptxas);
}

TEST_F(FakeDriver, CacheFolderFromTheEnvironment) {
  std::string dir = tempDir("env-cache");
  setDefaultCacheDir("");
  setenv("TILEC_CACHE_DIR", dir.c_str(), 1);
  auto m = Module::loadPtx(*ctx, kPtx, metadata());
  unsetenv("TILEC_CACHE_DIR");
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->loadInfo().cacheFile.rfind(dir + "/", 0), 0u)
      << m->loadInfo().cacheFile;
  // The API setting wins over the environment.
  std::string api = tempDir("api-cache");
  setDefaultCacheDir(api);
  auto n = Module::loadPtx(*ctx, kPtx, metadata());
  setDefaultCacheDir("");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->loadInfo().cacheFile.rfind(api + "/", 0), 0u);
}

TEST_F(FakeDriver, UnwritableCacheStillLoads) {
  std::string dir = tempDir("blocked");
  std::string file = dir + "/file";
  { std::ofstream(file) << "x"; }
  LoadOptions o;
  o.cacheDir = file + "/cache";
  auto m = Module::loadPtx(*ctx, kPtx, metadata(), o);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->loadInfo().source, LoadInfo::Source::CompiledPtx);
  EXPECT_EQ(m->loadInfo().cacheFile, "");
  EXPECT_EQ(m->loadInfo().cacheNote, "cannot create the cubin cache folder " +
                                         file + "/cache: Not a directory");
}

TEST_F(FakeDriver, LoadErrors) {
  auto bad = Module::loadPtx(*ctx, std::string(kPtx) + "SYNTAX ERROR\n",
                             metadata(), options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(),
            "the CUDA driver could not compile the PTX (cuLinkAddData: "
            "CUDA_ERROR_INVALID_PTX (fake driver error)):\nptxas application "
            "ptx input, line 3; error   : syntax error (fake)");

  auto meta = Module::loadPtx(*ctx, kPtx, "{}", options);
  EXPECT_EQ(meta.message(), "invalid kernel metadata: missing \"format\"");

  auto newer = Module::loadPtx(*ctx, kPtx, metadata("sm_100a"), options);
  EXPECT_EQ(newer.message(), "the kernels were compiled for sm_100a but "
                             "device 0 (Fake GPU) is sm_90");
  // A chip tilec does not know is refused by the metadata reader (the one
  // table of tilec/Target/Chip.h), before any device check.
  auto unknown = Module::loadPtx(*ctx, kPtx, metadata("sm_89a"), options);
  EXPECT_EQ(unknown.message(),
            "invalid kernel metadata: \"target\": unknown GPU target "
            "'sm_89a' (known: sm_80, sm_89, sm_90, sm_90a, sm_100a)");
  EXPECT_TRUE(Module::loadPtx(*ctx, kPtx, metadata("sm_80"), options).ok());
  EXPECT_TRUE(Module::loadPtx(*ctx, kPtx, metadata("sm_90a"), options).ok());

  auto ghost = Module::loadPtx(
      *ctx, kPtx, metadata("sm_90", R"(, {"name": "ghost", "num_warps": 1,
        "threads_per_program": 32, "shared_bytes": 0, "params": []})"),
      options);
  EXPECT_EQ(ghost.message(), "kernel 'ghost' is in the metadata but not in "
                             "the module (CUDA_ERROR_NOT_FOUND (fake driver "
                             "error))");

  auto notCubin = Module::loadCubin(*ctx, kPtx, metadata());
  EXPECT_EQ(notCubin.message(), "the data is not a cubin (no ELF header); "
                                "load PTX text with Module::loadPtx");
  auto elf = Module::loadCubin(*ctx, fakeCubin(kPtx), metadata());
  ASSERT_TRUE(elf.ok()) << elf.message();
  EXPECT_EQ(elf->loadInfo().source, LoadInfo::Source::Cubin);
}

TEST_F(FakeDriver, CubinsAreReadToTheEndTheirHeaderGives) {
  // Failed before (issue 17; ASan: global-buffer-overflow on an AOT
  // header's embedded cubin): the fake took a cubin's length with strlen.
  // Here the image ends right before an inaccessible page.
  std::string image = fakeCubin(kPtx);
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  size_t span = (image.size() + page - 1) / page * page;
  auto *base =
      static_cast<char *>(mmap(nullptr, span + page, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(base, MAP_FAILED);
  ASSERT_EQ(mprotect(base + span, page, PROT_NONE), 0);
  char *at = base + span - image.size();
  std::memcpy(at, image.data(), image.size());
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto m =
        Module::loadCubin(*ctx, std::string_view(at, image.size()), metadata());
    _exit(m.ok() && m->kernel("add").ok() ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << (WIFSIGNALED(status)
              ? "killed by signal " + std::to_string(WTERMSIG(status))
              : "exit status " + std::to_string(WEXITSTATUS(status)));
  munmap(base, span + page);
}

TEST_F(FakeDriver, LoadFiles) {
  std::string dir = tempDir("files");
  { std::ofstream(dir + "/k.ptx") << kPtx; }
  { std::ofstream(dir + "/k.json") << metadata(); }
  auto m = Module::loadFiles(*ctx, dir + "/k.ptx", "", options);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->metadata().kernelNames(),
            "add, probe, shared100k, shared300k, heavy");
  { std::ofstream(dir + "/k.cubin", std::ios::binary) << fakeCubin(kPtx); }
  auto c = Module::loadFiles(*ctx, dir + "/k.cubin", dir + "/k.json");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->loadInfo().source, LoadInfo::Source::Cubin);

  auto missing = Module::loadFiles(*ctx, dir + "/none.ptx");
  EXPECT_EQ(missing.message(),
            "cannot read " + dir + "/none.ptx: No such file or directory");
  { std::ofstream(dir + "/lone.ptx") << kPtx; }
  auto noJson = Module::loadFiles(*ctx, dir + "/lone.ptx");
  EXPECT_EQ(noJson.message(),
            "cannot read " + dir + "/lone.json: No such file or directory");
  { std::ofstream(dir + "/junk.ptx") << "hello"; }
  { std::ofstream(dir + "/junk.json") << metadata(); }
  auto junk = Module::loadFiles(*ctx, dir + "/junk.ptx");
  EXPECT_EQ(junk.message(), dir + "/junk.ptx: is neither PTX (no .target "
                                  "directive) nor a cubin");
  { std::ofstream(dir + "/badmeta.ptx") << kPtx; }
  { std::ofstream(dir + "/badmeta.json") << "[]"; }
  auto badMeta = Module::loadFiles(*ctx, dir + "/badmeta.ptx");
  EXPECT_EQ(badMeta.message(), dir + "/badmeta.ptx: invalid kernel "
                                     "metadata: the document is an array, "
                                     "not an object");
}

TEST_F(FakeDriver, KernelLookup) {
  auto none = module->kernel("nope");
  EXPECT_EQ(none.message(), "the module has no kernel 'nope' (its kernels: "
                            "add, probe, shared100k, shared300k, heavy)");
  Kernel add = kernel("add");
  EXPECT_EQ(add.name(), "add");
  EXPECT_EQ(add.blockThreads(), 128u);
  EXPECT_EQ(add.metadata().params.size(), 4u);

  auto big = module->kernel("shared300k");
  EXPECT_EQ(big.message(), "kernel 'shared300k' needs 300000 bytes of shared "
                           "memory (300000 dynamic) but device 0 (Fake GPU) "
                           "allows at most 232448");
  auto heavy = module->kernel("heavy");
  EXPECT_EQ(heavy.message(), "kernel 'heavy' runs 1024 threads per program "
                             "but its code allows at most 256 (it uses 255 "
                             "registers per thread)");
}

TEST_F(FakeDriver, SharedMemoryAbove48KiBIsOptedIn) {
  // The fake, like the driver, refuses >48 KiB unless the function's
  // attribute was raised: this launch passing shows the runtime raised it.
  Kernel k = kernel("shared100k");
  int before = fake.launches();
  Status s = k.launch(nullptr, Grid(3), 7);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(fake.launches(), before + 1);
  EXPECT_EQ(fake.shape(before), (std::vector<unsigned>{3, 1, 1, 256, 100000}));
}

TEST_F(FakeDriver, AddRunsEndToEnd) {
  Kernel add = kernel("add");
  const int n = 3000; // ragged: 3 programs of 1024, the last masked
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = 0.25f * float(i);
  }
  auto dx = DeviceBuffer<float>::fromHost(*ctx, x);
  auto dy = DeviceBuffer<float>::fromHost(*ctx, y);
  auto dz = DeviceBuffer<float>::allocate(*ctx, n + 100);
  ASSERT_TRUE(dx.ok() && dy.ok() && dz.ok());
  ASSERT_TRUE(dz->memory().fill32(0x7fc00000u).ok());
  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(stream.ok()) << stream.message();
  Status s = add.launch(*stream, Grid((n + 1023) / 1024), *dx, *dy, *dz, n);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(stream->synchronize().ok());
  std::vector<float> z(n + 100);
  ASSERT_TRUE(dz->copyToHost(z).ok());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(z[i], 1.25f * float(i)) << i;
  for (int i = n; i < n + 100; ++i)
    ASSERT_TRUE(std::isnan(z[i])) << "written past n at " << i;
  auto shape = fake.shape(fake.launches() - 1);
  EXPECT_EQ(shape, (std::vector<unsigned>{3, 1, 1, 128, 0}));
}

TEST_F(FakeDriver, ArgumentsReachTheDriverAsTheAbiWants) {
  Kernel probe = kernel("probe");
  auto x = DevicePtr<float>::fromAddress(0x100000);
  auto y = DevicePtr<Half>::fromAddress(0x200002);
  int before = fake.launches();
  Status s = probe.launch(nullptr, Grid(2, 3, 4), x, y, -32, int64_t(-5), 1.5,
                          Half::fromFloat(-2.0f), 3.0f, true);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(fake.launches(), before + 1);
  EXPECT_EQ(fake.shape(before), (std::vector<unsigned>{2, 3, 4, 128, 0}));
  using Bytes = std::vector<unsigned char>;
  EXPECT_EQ(fake.param(before, 0), (Bytes{0, 0, 0x10, 0, 0, 0, 0, 0}));
  EXPECT_EQ(fake.param(before, 1), (Bytes{2, 0, 0x20, 0, 0, 0, 0, 0}));
  EXPECT_EQ(fake.param(before, 2), (Bytes{0xe0, 0xff, 0xff, 0xff}));
  EXPECT_EQ(fake.param(before, 3),
            (Bytes{0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(fake.param(before, 4), (Bytes{0, 0, 0xc0, 0x3f})); // 1.5f
  EXPECT_EQ(fake.param(before, 5), (Bytes{0x00, 0xc0}));       // f16 -2
  EXPECT_EQ(fake.param(before, 6), (Bytes{0x40, 0x40}));       // bf16 3
  EXPECT_EQ(fake.param(before, 7), (Bytes{1, 0, 0, 0}));       // i1 true
}

TEST_F(FakeDriver, RefusedLaunchesLaunchNothing) {
  Kernel add = kernel("add");
  auto x = DevicePtr<float>::fromAddress(0x1000);
  int before = fake.launches();
  Status s = add.launch(nullptr, Grid(1), x, x, x + 1, 10);
  EXPECT_EQ(s.message(), "kernel 'add', parameter 'z' (#2): address 0x1004 "
                         "is not a multiple of 16 bytes (the divisibility "
                         "the kernel was compiled for)");
  s = add.launch(nullptr, Grid(1), x, x, x);
  EXPECT_EQ(s.message(), "kernel 'add' takes 4 arguments (x: ptr<f32>, y: "
                         "ptr<f32>, z: ptr<f32>, n: i32) but 3 were given");
  s = add.launch(nullptr, Grid(0), x, x, x, 10);
  EXPECT_EQ(s.message(), "kernel 'add': grid (0, 1, 1) is empty: x, y and z "
                         "must each be at least 1");
  auto half = DevicePtr<Half>::fromAddress(0x1000);
  s = add.launch(nullptr, Grid(1), x, half, x, 10);
  EXPECT_EQ(s.message(), "kernel 'add', parameter 'y' (#1): expects a "
                         "pointer to f32 but got a pointer to f16");
  EXPECT_EQ(fake.launches(), before);
  // A launch the driver refuses (the fake refuses stream 0x1 as an invalid
  // handle) names the kernel and the launch's shape.
  s = add.launch(reinterpret_cast<CUstream>(1), Grid(5), x, x, x, 10);
  EXPECT_EQ(s.message(), "launch of kernel 'add' (grid (5, 1, 1), 128 "
                         "threads, 0 bytes of shared memory) failed: "
                         "cuLaunchKernel: CUDA_ERROR_INVALID_HANDLE (fake "
                         "driver error)");
  EXPECT_EQ(fake.launches(), before);
}

TEST_F(FakeDriver, LaunchRecoversTheContextOnOtherThreads) {
  Kernel add = kernel("add");
  auto x = DevicePtr<float>::fromAddress(0);
  fake.clearCurrent(); // as if user code had switched contexts away
  int before = fake.launches();
  Status s = add.launch(nullptr, Grid(1), x, x, x, 0);
  EXPECT_TRUE(s.ok()) << s.message();
  Status fromThread;
  std::thread t([&] { fromThread = add.launch(nullptr, Grid(1), x, x, x, 0); });
  t.join();
  EXPECT_TRUE(fromThread.ok()) << fromThread.message();
  EXPECT_EQ(fake.launches(), before + 2);
}

TEST_F(FakeDriver, BoundLaunches) {
  Kernel add = kernel("add");
  const int n = 2048;
  std::vector<float> ones(n, 1.0f), out(n);
  auto dx = DeviceBuffer<float>::fromHost(*ctx, ones);
  auto dz = DeviceBuffer<float>::allocate(*ctx, n);
  auto bound = add.bind(*dx, *dx, *dz, n);
  ASSERT_TRUE(bound.ok()) << bound.message();
  int before = fake.launches();
  ASSERT_TRUE(bound->launch(nullptr, Grid(2)).ok());
  ASSERT_TRUE(bound->launch(nullptr, Grid(2)).ok());
  EXPECT_EQ(fake.launches(), before + 2);
  ASSERT_TRUE(dz->copyToHost(out).ok());
  EXPECT_EQ(out, std::vector<float>(n, 2.0f));
  EXPECT_EQ(bound->launch(nullptr, Grid(1, 0)).message(),
            "kernel 'add': grid (1, 0, 1) is empty: x, y and z must each be "
            "at least 1");
  auto bad = add.bind(*dx, *dx, *dz, 1.0f);
  EXPECT_EQ(bad.message(), "kernel 'add', parameter 'n' (#3): expects an i32 "
                           "scalar but got a floating-point value (f32)");
}

TEST_F(FakeDriver, Graphs) {
  Kernel add = kernel("add");
  const int n = 1024;
  std::vector<float> ones(n, 1.0f), out(n);
  auto dx = DeviceBuffer<float>::fromHost(*ctx, ones);
  auto dz = DeviceBuffer<float>::allocate(*ctx, n);
  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(stream.ok());
  int before = fake.launches();
  auto graph = Graph::capture(*ctx, *stream, [&]() -> Status {
    for (int i = 0; i < 3; ++i)
      TILEC_RETURN_IF_ERROR(add.launch(*stream, Grid(1), *dx, *dx, *dz, n));
    return Status();
  });
  ASSERT_TRUE(graph.ok()) << graph.message();
  EXPECT_EQ(fake.launches(), before) << "captured, not run";
  ASSERT_TRUE(graph->launch(*stream).ok());
  ASSERT_TRUE(graph->launch(*stream).ok());
  EXPECT_EQ(fake.launches(), before + 6);
  ASSERT_TRUE(dz->copyToHost(out).ok());
  EXPECT_EQ(out, std::vector<float>(n, 2.0f));

  auto onDefault = Graph::capture(*ctx, nullptr, [] { return Status(); });
  EXPECT_EQ(onDefault.message(), "graph capture needs a created stream "
                                 "(Stream::create), not the default stream");
  auto failing = Graph::capture(*ctx, *stream, [&] {
    return add.launch(*stream, Grid(1), *dx, *dx, *dz);
  });
  EXPECT_EQ(failing.message(),
            "graph capture: kernel 'add' takes 4 arguments (x: ptr<f32>, y: "
            "ptr<f32>, z: ptr<f32>, n: i32) but 3 were given");
  Graph moved = std::move(*graph);
  EXPECT_TRUE(moved.launch(*stream).ok());
}

TEST_F(FakeDriver, KernelsRunInTheirOwnContext) {
  // Device 1's context becomes current; a kernel of device 0 still launches
  // (the runtime makes its context current), and device 1's loads its own.
  Kernel add0 = kernel("add");
  auto ctx1 = Context::create(1);
  ASSERT_TRUE(ctx1.ok()) << ctx1.message();
  EXPECT_NE(ctx1->get(), ctx->get());
  auto current = Context::current();
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(current->ordinal(), 1);
  auto x = DevicePtr<float>::fromAddress(0);
  EXPECT_TRUE(add0.launch(nullptr, Grid(1), x, x, x, 0).ok());
  auto m1 = Module::loadPtx(*ctx1, kPtx, metadata(), options);
  ASSERT_TRUE(m1.ok()) << m1.message();
  auto add1 = m1->kernel("add");
  ASSERT_TRUE(add1.ok());
  EXPECT_TRUE(add1->launch(nullptr, Grid(1), x, x, x, 0).ok());
}

TEST_F(FakeDriver, AllocationFailuresNameTheDevice) {
  auto huge = DeviceBuffer<float>::allocate(*ctx, size_t(1) << 42);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.message(),
            "cannot allocate 17592186044416 bytes on device 0 (Fake GPU): "
            "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (fake driver "
            "error)");
}

TEST_F(FakeDriver, CaptureBrokenByASynchronize) {
  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(stream.ok());
  // The recording ignores the failed synchronize, so the capture itself
  // reports that it was invalidated.
  auto graph = Graph::capture(*ctx, *stream, [&] {
    Status ignored = stream->synchronize();
    (void)ignored;
    return Status();
  });
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.message(),
            "graph capture (was something not capturable, such as a "
            "synchronous copy, put on the stream?): cuStreamEndCapture "
            "failed: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED (fake driver "
            "error)");
  // The stream works again afterwards.
  EXPECT_TRUE(stream->synchronize().ok());
}

TEST_F(FakeDriver, Events) {
  auto a = Event::create(*ctx);
  auto b = Event::create(*ctx);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(a->record(nullptr).ok());
  ASSERT_TRUE(b->record(nullptr).ok());
  ASSERT_TRUE(b->synchronize().ok());
  auto ms = Event::elapsedMs(*a, *b);
  ASSERT_TRUE(ms.ok()) << ms.message();
  EXPECT_GE(*ms, 0.0f);
}

TEST_F(FakeDriver, ObjectsOutliveEachOther) {
  // A kernel keeps its module and context alive after both handles go.
  Kernel add = kernel("add");
  module.reset();
  ctx.reset();
  auto x = DevicePtr<float>::fromAddress(0);
  EXPECT_TRUE(add.launch(nullptr, Grid(1), x, x, x, 0).ok());
}

} // namespace

namespace {

/// The fake add's metadata `md` with the grid rule cdiv(n, 1024).
std::string withGridRule(std::string md) {
  std::string from = "\"shared_bytes\": 0, \"params\": [";
  md.replace(md.find(from), from.size(),
             "\"shared_bytes\": 0, \"grid\": [\"cdiv(n, 1024)\"], "
             "\"params\": [");
  return md;
}

/// The fake add's metadata `md` with n taken from `source` (tile.from).
std::string withFrom(std::string md, const std::string &source) {
  std::string n = "{\"name\": \"n\", ";
  md.replace(md.find(n), n.size(), n + "\"from\": \"" + source + "\", ");
  return md;
}

/// The fake's add with a grid rule and extents, as tilec writes for
/// examples/add.tile.
Expected<Module> ruledAdd(const Context &ctx, const LoadOptions &options) {
  std::string md = withGridRule(metadata());
  for (const char *p : {"\"x\"", "\"y\"", "\"z\""}) {
    std::string param = std::string("{\"name\": ") + p + ", ";
    md.replace(md.find(param), param.size(), param + "\"extent\": \"n\", ");
  }
  return Module::loadPtx(ctx, kPtx, md, options);
}

/// A 1-D DLPack view of `count` floats at `address`.
struct Dl {
  int64_t shape[2];
  int64_t strides[2];
  DLTensor t{};
  Dl(uint64_t address, int64_t count) {
    shape[0] = count;
    t.data = reinterpret_cast<void *>(address);
    t.device = {kDLCUDA, 0};
    t.ndim = 1;
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape;
  }
};

} // namespace

TEST_F(FakeDriver, LaunchesOnTheGridOfTheRule) {
  auto m = ruledAdd(*ctx, options);
  ASSERT_TRUE(m.ok()) << m.message();
  auto add = m->kernel("add");
  ASSERT_TRUE(add.ok());
  const int n = 3000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = 2.0f;
  }
  auto dx = DeviceBuffer<float>::fromHost(*ctx, x);
  auto dy = DeviceBuffer<float>::fromHost(*ctx, y);
  auto dz = DeviceBuffer<float>::allocate(*ctx, n);
  ASSERT_TRUE(dx.ok() && dy.ok() && dz.ok());
  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(stream.ok());
  int before = fake.launches();
  Status s = add->launch(*stream, *dx, *dy, *dz, n);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(stream->synchronize().ok());
  ASSERT_EQ(fake.launches(), before + 1);
  EXPECT_EQ(fake.shape(before), (std::vector<unsigned>{3, 1, 1, 128, 0}));
  std::vector<float> z(n);
  ASSERT_TRUE(dz->copyToHost(z).ok());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(z[i], float(i) + 2.0f) << i;
  // No elements: no programs, no launch, no error.
  s = add->launch(*stream, *dx, *dy, *dz, 0);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(fake.launches(), before + 1);
  // The explicit grid still wins when given.
  s = add->launch(*stream, Grid(1), *dx, *dy, *dz, 10);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(fake.shape(before + 1), (std::vector<unsigned>{1, 1, 1, 128, 0}));
  // A negative count is a grid the launch refuses.
  s = add->launch(*stream, *dx, *dy, *dz, -5000);
  EXPECT_EQ(s.message(), "kernel 'add': grid (-4, 1, 1) is empty: x, y and z "
                         "must each be at least 1");
  // Kernels without a rule need the grid.
  s = kernel("add").launch(*stream, *dx, *dy, *dz, n);
  EXPECT_EQ(s.message(), "kernel 'add' declares no grid rule (tile.grid): "
                         "give the grid to the launch");
  EXPECT_EQ(fake.launches(), before + 2);
}

TEST_F(FakeDriver, DLPackTensorsHaveTheirShape) {
  // z with a shape rule ["n / 50", "50"] (tile.shape): a DLPack tensor for
  // it must have exactly those sizes.
  std::string md = metadata();
  std::string z = "{\"name\": \"z\", ";
  md.replace(md.find(z), z.size(),
             z + "\"shape\": [\"n / 50\", \"50\"], ");
  auto m = Module::loadPtx(*ctx, kPtx, md, options);
  ASSERT_TRUE(m.ok()) << m.message();
  Kernel add = *m->kernel("add");
  const int n = 1500;
  auto dx = DeviceBuffer<float>::allocate(*ctx, n);
  auto dz = DeviceBuffer<float>::allocate(*ctx, n);
  ASSERT_TRUE(dx.ok() && dz.ok());
  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(stream.ok());
  Dl tx(dx->ptr().address, n);
  int64_t shape[2] = {30, 50};
  DLTensor tz{};
  tz.data = reinterpret_cast<void *>(dz->ptr().address);
  tz.device = {kDLCUDA, 0};
  tz.ndim = 2;
  tz.dtype = {kDLFloat, 32, 1};
  tz.shape = shape;
  int before = fake.launches();
  Status s = add.launch(*stream, Grid(2), tx.t, tx.t, tz, n);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(fake.launches(), before + 1);
  shape[0] = 29;
  EXPECT_EQ(add.launch(*stream, Grid(2), tx.t, tx.t, tz, n).message(),
            "kernel 'add', parameter 'z' (#2): shape[0] is 29 but the "
            "kernel's shape [\"n / 50\", \"50\"] says 30");
  tz.ndim = 1;
  shape[0] = 1500;
  EXPECT_EQ(add.launch(*stream, Grid(2), tx.t, tx.t, tz, n).message(),
            "kernel 'add', parameter 'z' (#2): the tensor has 1 dimensions "
            "but the kernel's shape [\"n / 50\", \"50\"] has 2");
  tz.ndim = 2;
  shape[0] = 30;
  EXPECT_EQ(add.launch(*stream, Grid(2), tx.t, tx.t, tz, 2.5f).message(),
            "kernel 'add', parameter 'z' (#2): its size 0 \"n / 50\" reads "
            "'n' as an integer, but got a floating-point value (f32)");
  EXPECT_EQ(fake.launches(), before + 1);
}

TEST_F(FakeDriver, DLPackTensorsGiveTheScalarsTakenFromThem) {
  // n taken from x's element count (tile.from): the value given must agree.
  std::string md = metadata();
  auto m = Module::loadPtx(*ctx, kPtx, withFrom(md, "x.numel()"), options);
  ASSERT_TRUE(m.ok()) << m.message();
  Kernel add = *m->kernel("add");
  const int count = 1500;
  auto dx = DeviceBuffer<float>::allocate(*ctx, count);
  ASSERT_TRUE(dx.ok());
  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(stream.ok());
  Dl tx(dx->ptr().address, count);
  int before = fake.launches();
  Status s = add.launch(*stream, Grid(2), tx.t, tx.t, tx.t, count);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(add.launch(*stream, Grid(2), tx.t, tx.t, tx.t, count - 1).message(),
            "kernel 'add', parameter 'n' (#3): is 1499 but its tile.from "
            "\"x.numel()\" is 1500 for the tensor given");
  // n taken as z's row stride: z may have any stride there, and only there.
  auto m2 = Module::loadPtx(*ctx, kPtx, withFrom(md, "z.stride(0)"), options);
  ASSERT_TRUE(m2.ok()) << m2.message();
  Kernel add2 = *m2->kernel("add");
  int64_t shape[2] = {20, 50}, strides[2] = {64, 1};
  DLTensor tz{};
  tz.data = reinterpret_cast<void *>(dx->ptr().address);
  tz.device = {kDLCUDA, 0};
  tz.ndim = 2;
  tz.dtype = {kDLFloat, 32, 1};
  tz.shape = shape;
  tz.strides = strides;
  s = add2.launch(*stream, Grid(2), tx.t, tx.t, tz, 64);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(add2.launch(*stream, Grid(2), tx.t, tx.t, tz, 50).message(),
            "kernel 'add', parameter 'n' (#3): is 50 but its tile.from "
            "\"z.stride(0)\" is 64 for the tensor given");
  strides[1] = 2;
  EXPECT_EQ(add2.launch(*stream, Grid(2), tx.t, tx.t, tz, 64).message(),
            "kernel 'add', parameter 'z' (#2): strides[1] is 2 but the kernel "
            "reads dense row-major memory, where it is 1 (make the tensor "
            "contiguous)");
  // n a quotient of two tensors' sizes: checked exact, then equal.
  auto m3 = Module::loadPtx(*ctx, kPtx, withFrom(md, "x.numel() / z.size(1)"),
                            options);
  ASSERT_TRUE(m3.ok()) << m3.message();
  Kernel add3 = *m3->kernel("add");
  strides[0] = 50, strides[1] = 1; // z: [20, 50], dense
  s = add3.launch(*stream, Grid(2), tx.t, tx.t, tz, 30);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(add3.launch(*stream, Grid(2), tx.t, tx.t, tz, 20).message(),
            "kernel 'add', parameter 'n' (#3): is 20 but its tile.from "
            "\"x.numel() / z.size(1)\" is 30 for the tensors given");
  shape[1] = 7, strides[0] = 7;
  EXPECT_EQ(add3.launch(*stream, Grid(2), tx.t, tx.t, tz, 30).message(),
            "kernel 'add', parameter 'n' (#3): has no value: its tile.from "
            "\"x.numel() / z.size(1)\" divides 1500 by 7, which does not go "
            "exactly");
  shape[1] = 0;
  EXPECT_EQ(add3.launch(*stream, Grid(2), tx.t, tx.t, tz, 30).message(),
            "kernel 'add', parameter 'n' (#3): has no value: its tile.from "
            "\"x.numel() / z.size(1)\" divides 1500 by 0, which does not go "
            "exactly");
  EXPECT_EQ(fake.launches(), before + 3);
}

TEST_F(FakeDriver, FromTensorTakesTheValueOfTheSource) {
  // n = x.numel() (tile.from) and the grid by the rule: the launch takes
  // the tensors and fromTensor alone.
  std::string md = withGridRule(metadata());
  auto m = Module::loadPtx(*ctx, kPtx, withFrom(md, "x.numel()"), options);
  ASSERT_TRUE(m.ok()) << m.message();
  Kernel add = *m->kernel("add");
  const int count = 1500;
  std::vector<float> x(count);
  for (int i = 0; i < count; ++i)
    x[i] = float(i);
  auto dx = DeviceBuffer<float>::fromHost(*ctx, x);
  auto dz = DeviceBuffer<float>::allocate(*ctx, count);
  ASSERT_TRUE(dx.ok() && dz.ok());
  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(stream.ok());
  Dl tx(dx->ptr().address, count), tz(dz->ptr().address, count);
  int before = fake.launches();
  Status s = add.launch(*stream, tx.t, tx.t, tz.t, fromTensor);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(stream->synchronize().ok());
  ASSERT_EQ(fake.launches(), before + 1);
  EXPECT_EQ(fake.shape(before), (std::vector<unsigned>{2, 1, 1, 128, 0}));
  int32_t given;
  std::vector<unsigned char> bytes = fake.param(before, 3);
  ASSERT_EQ(bytes.size(), 4u);
  std::memcpy(&given, bytes.data(), 4);
  EXPECT_EQ(given, count);
  std::vector<float> z(count);
  ASSERT_TRUE(dz->copyToHost(z).ok());
  for (int i = 0; i < count; ++i)
    ASSERT_EQ(z[i], 2.0f * float(i)) << i;
  // An explicit grid and a bound launch take it too.
  s = add.launch(*stream, Grid(2), tx.t, tx.t, tz.t, fromTensor);
  EXPECT_TRUE(s.ok()) << s.message();
  auto bound = add.bind(tx.t, tx.t, tz.t, fromTensor);
  ASSERT_TRUE(bound.ok()) << bound.message();
  EXPECT_TRUE(bound->launch(*stream, Grid(2)).ok());
  EXPECT_EQ(fake.launches(), before + 3);
  // A plain address carries no sizes.
  EXPECT_EQ(add.launch(*stream, *dx, tx.t, tz.t, fromTensor).message(),
            "kernel 'add', parameter 'n' (#3): was given fromTensor, but its "
            "tile.from \"x.numel()\" reads 'x', given as a pointer to f32, "
            "which carries no sizes: give a DLPack tensor or a tensor "
            "descriptor for it, or the value");
  // A parameter without tile.from.
  auto plain = Module::loadPtx(*ctx, kPtx, md, options);
  ASSERT_TRUE(plain.ok()) << plain.message();
  EXPECT_EQ(plain->kernel("add")
                ->launch(*stream, tx.t, tx.t, tz.t, fromTensor)
                .message(),
            "kernel 'add', parameter 'n' (#3): was given fromTensor, but the "
            "kernel declares no tile.from for it: give its value");
  // A dimension the tensor lacks, and a quotient that does not go.
  auto m2 = Module::loadPtx(*ctx, kPtx, withFrom(md, "x.size(1)"), options);
  ASSERT_TRUE(m2.ok()) << m2.message();
  EXPECT_EQ(m2->kernel("add")
                ->launch(*stream, tx.t, tx.t, tz.t, fromTensor)
                .message(),
            "kernel 'add', parameter 'n' (#3): its tile.from \"x.size(1)\" "
            "names a dimension the tensor given for 'x' (rank 1) does not "
            "have");
  auto m3 = Module::loadPtx(*ctx, kPtx, withFrom(md, "x.numel() / z.size(0)"),
                            options);
  ASSERT_TRUE(m3.ok()) << m3.message();
  Dl t7(dz->ptr().address, 7);
  EXPECT_EQ(m3->kernel("add")
                ->launch(*stream, tx.t, tx.t, t7.t, fromTensor)
                .message(),
            "kernel 'add', parameter 'n' (#3): has no value: its tile.from "
            "\"x.numel() / z.size(0)\" divides 1500 by 7, which does not go "
            "exactly");
  EXPECT_EQ(fake.launches(), before + 3);
}

TEST_F(FakeDriver, DLPackTensorsAreCheckedAndLaunched) {
  auto m = ruledAdd(*ctx, options);
  ASSERT_TRUE(m.ok()) << m.message();
  Kernel add = *m->kernel("add");
  const int n = 1500;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * float(i);
    y[i] = 1.0f;
  }
  auto dx = DeviceBuffer<float>::fromHost(*ctx, x);
  auto dy = DeviceBuffer<float>::fromHost(*ctx, y);
  auto dz = DeviceBuffer<float>::allocate(*ctx, n);
  ASSERT_TRUE(dx.ok() && dy.ok() && dz.ok());
  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(stream.ok());
  Dl tx(dx->ptr().address, n), ty(dy->ptr().address, n);
  // A managed tensor, as from_dlpack hands over; z as a 2-D 30 x 50 view.
  DLManagedTensor tz{};
  int64_t zshape[2] = {30, 50};
  int64_t zstrides[2] = {50, 1};
  tz.dl_tensor.data = reinterpret_cast<void *>(dz->ptr().address);
  tz.dl_tensor.device = {kDLCUDA, 0};
  tz.dl_tensor.ndim = 2;
  tz.dl_tensor.dtype = {kDLFloat, 32, 1};
  tz.dl_tensor.shape = zshape;
  tz.dl_tensor.strides = zstrides;
  int before = fake.launches();
  Status s = add.launch(*stream, tx.t, &ty.t, &tz, n);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(stream->synchronize().ok());
  std::vector<float> z(n);
  ASSERT_TRUE(dz->copyToHost(z).ok());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(z[i], 0.5f * float(i) + 1.0f) << i;
  ASSERT_EQ(fake.launches(), before + 1);
  EXPECT_EQ(fake.shape(before), (std::vector<unsigned>{2, 1, 1, 128, 0}));

  // Each refusal names the parameter and launches nothing.
  auto refused = [&](const DLTensor &bad) {
    return add.launch(*stream, tx.t, bad, &tz, n).message();
  };
  Dl cpu(dy->ptr().address, n);
  cpu.t.device = {kDLCPU, 0};
  EXPECT_EQ(refused(cpu.t), "kernel 'add', parameter 'y' (#1): expects a CUDA "
                            "tensor but got a DLPack tensor of float32 on "
                            "kDLCPU");
  Dl half(dy->ptr().address, n);
  half.t.dtype = {kDLFloat, 16, 1};
  EXPECT_EQ(refused(half.t), "kernel 'add', parameter 'y' (#1): expects a "
                             "tensor of f32 but got a DLPack tensor of "
                             "float16 on kDLCUDA");
  Dl lanes(dy->ptr().address, n);
  lanes.t.dtype = {kDLFloat, 32, 4};
  EXPECT_EQ(refused(lanes.t), "kernel 'add', parameter 'y' (#1): expects a "
                              "tensor of f32 but got a DLPack tensor of "
                              "float32x4 on kDLCUDA");
  Dl offset(dy->ptr().address, n);
  offset.t.byte_offset = 4;
  std::string message = refused(offset.t);
  EXPECT_NE(message.find("kernel 'add', parameter 'y' (#1): address 0x"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("(data + byte_offset) is not a multiple of 16 bytes "
                         "(the divisibility the kernel was compiled for)"),
            std::string::npos)
      << message;
  Dl small(dy->ptr().address, n - 1);
  EXPECT_EQ(refused(small.t), "kernel 'add', parameter 'y' (#1): the tensor "
                              "has 1499 elements but the kernel reaches 1500 "
                              "(extent \"n\")");
  Dl strided(dy->ptr().address, n);
  strided.t.ndim = 2;
  strided.shape[0] = 750;
  strided.shape[1] = 2;
  strided.strides[0] = 1;
  strided.strides[1] = 750;
  strided.t.strides = strided.strides;
  EXPECT_EQ(refused(strided.t), "kernel 'add', parameter 'y' (#1): "
                                "strides[1] is 750 but the kernel reads dense "
                                "row-major memory, where it is 1 (make the "
                                "tensor contiguous)");
  // Without a grid the rule reads n first; with one, the extent does.
  EXPECT_EQ(add.launch(*stream, tx.t, ty.t, &tz, 2.5f).message(),
            "kernel 'add', parameter 'n' (#3): the grid rule [\"cdiv(n, "
            "1024)\"] reads it as an integer, but got a floating-point value "
            "(f32)");
  EXPECT_EQ(add.launch(*stream, Grid(1), tx.t, ty.t, &tz, 2.5f).message(),
            "kernel 'add', parameter 'x' (#0): its extent \"n\" reads 'n' as "
            "an integer, but got a floating-point value (f32)");
  // A DLPack tensor for a scalar parameter is a plain mismatch.
  EXPECT_EQ(kernel("add").launch(*stream, Grid(1), tx.t, ty.t, &tz, tx.t)
                .message(),
            "kernel 'add', parameter 'n' (#3): expects an i32 scalar but got "
            "a DLPack tensor of float32 on kDLCUDA");
  EXPECT_EQ(fake.launches(), before + 1);
}

// A kernel in clusters (metadata num_ctas, PTX .reqnctapercluster): the
// launch checks the grid against the cluster before the driver sees it,
// and residentPrograms() asks the driver how many clusters fit (the fake
// device's GPCs hold 64 of 2 and 32 of 4: 128 programs, not its 132 SMs).
TEST_F(FakeDriver, Clusters) {
  const char *ptx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry pairs(.param .u32 n)
.explicitcluster
.reqnctapercluster 2, 1, 1
{ ret; }
.visible .entry quads(.param .u32 n)
.explicitcluster
.reqnctapercluster 4, 1, 1
{ ret; }
.visible .entry nofit(.param .u32 n)
.explicitcluster
.reqnctapercluster 2, 1, 1
{ ret; }
)";
  auto meta = [](const char *name, int ctas) {
    return std::string(R"({"name": ")") + name +
           R"(", "num_warps": 4, "threads_per_program": 128,
     "shared_bytes": 0, "num_ctas": )" + std::to_string(ctas) +
           R"(, "params": [{"name": "n", "kind": "scalar", "type": "i32"}]})";
  };
  std::string md = R"({"format": "tilec-kernels", "version": 1, "target": "sm_90a", "kernels": [)" +
                   meta("pairs", 2) + ", " + meta("quads", 4) + ", " +
                   meta("nofit", 2) + "]}";
  auto m = Module::loadPtx(*ctx, ptx, md, options);
  ASSERT_TRUE(m.ok()) << m.message();
  auto pairs = m->kernel("pairs");
  ASSERT_TRUE(pairs.ok()) << pairs.message();
  EXPECT_EQ(pairs->metadata().numCtas, 2);
  EXPECT_TRUE(pairs->launch(nullptr, Grid(6), int32_t(1)).ok());
  EXPECT_EQ(pairs->launch(nullptr, Grid(5, 2), int32_t(1)).message(),
            "kernel 'pairs': grid (5, 2, 1): x must be a multiple of 2: the "
            "kernel's programs run in clusters of 2 along x (num_ctas)");
  auto resident = pairs->residentPrograms();
  ASSERT_TRUE(resident.ok()) << resident.message();
  EXPECT_EQ(*resident, 128);
  auto quads = m->kernel("quads");
  ASSERT_TRUE(quads.ok()) << quads.message();
  auto residentQuads = quads->residentPrograms();
  ASSERT_TRUE(residentQuads.ok()) << residentQuads.message();
  EXPECT_EQ(*residentQuads, 128);
  // No cluster fits: an error, not a grid of 0.
  auto nofit = m->kernel("nofit");
  ASSERT_TRUE(nofit.ok()) << nofit.message();
  EXPECT_EQ(nofit->residentPrograms().message(),
            "kernel 'nofit': no cluster of 2 programs fits device 0 (Fake "
            "GPU) (128 threads and 0 bytes of shared memory each)");
  // Programs alone: the SM count.
  auto alone = kernel("add").residentPrograms();
  ASSERT_TRUE(alone.ok()) << alone.message();
  EXPECT_EQ(*alone, 132);
}
