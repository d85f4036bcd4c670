//===- CacheTest.cpp - cache keys and the cubin cache's files -------------===//

#include "tilec/Runtime/Cache.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <set>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tilec::runtime;

namespace {

/// This process's scratch folder, removed when the process exits normally
/// (forked children leave with _exit and keep it).
const std::string &scratchBase() {
  struct Scratch {
    std::string path;
    Scratch() {
      const char *tmp = std::getenv("TMPDIR");
      path = std::string(tmp && *tmp ? tmp : "/tmp") + "/tilec-cache-test-" +
             std::to_string(getpid());
      mkdir(path.c_str(), 0755);
    }
    ~Scratch() {
      if (std::system(("rm -rf '" + path + "'").c_str()) != 0)
        std::fprintf(stderr, "could not remove %s\n", path.c_str());
    }
  };
  static Scratch scratch;
  return scratch.path;
}

/// A fresh folder under the test's temporary directory.
std::string freshDir(const std::string &name) {
  const std::string &base = scratchBase();
  std::string dir = base + "/" + name;
  std::string cmd = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return dir;
}

std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
        names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

TEST(Cache, Hash128) {
  // XXH3-128's published answer for no input (xxhash.h's self-test).
  EXPECT_EQ(hash128Hex(""), "99aa06d3014798d86001c324468d497f");
  // Same input, same hash; inputs that differ in one byte or in length
  // (across XXH3's 16/128/240-byte code paths), distinct hashes.
  std::set<std::string> hashes;
  for (size_t n : {1, 15, 16, 17, 128, 129, 240, 241, 100000}) {
    std::string text(n, 'x');
    EXPECT_EQ(hash128Hex(text), hash128Hex(std::string(n, 'x'))) << n;
    EXPECT_EQ(hash128Hex(text).size(), 32u);
    hashes.insert(hash128Hex(text));
    text[n / 2] = 'y';
    hashes.insert(hash128Hex(text));
  }
  EXPECT_EQ(hashes.size(), 18u);
}

TEST(Cache, KeyDependsOnEveryPart) {
  CubinCacheKeyParts base{".version 8.0\n.target sm_90\n", "sm_90",
                          "13000 /usr/lib/libcuda.so.580.1 123", "O4"};
  std::string key = cubinCacheKey(base);
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(cubinCacheKey(base), key); // stable
  std::set<std::string> keys{key};
  CubinCacheKeyParts p = base;
  p.ptx = ".version 8.0\n.target sm_90\n ";
  keys.insert(cubinCacheKey(p));
  p = base;
  p.deviceArch = "sm_100";
  keys.insert(cubinCacheKey(p));
  p = base;
  p.driverIdentity = "13000 /usr/lib/libcuda.so.580.2 123";
  keys.insert(cubinCacheKey(p));
  p = base;
  p.jitOptions = "O3";
  keys.insert(cubinCacheKey(p));
  // Moving text across a field boundary changes the key too.
  p = base;
  p.deviceArch = "sm_9";
  p.driverIdentity = "013000 /usr/lib/libcuda.so.580.1 123";
  keys.insert(cubinCacheKey(p));
  EXPECT_EQ(keys.size(), 6u);
}

TEST(Cache, DefaultFolderPrecedence) {
  setDefaultCacheDir("");
  setenv("TILEC_CACHE_DIR", "/a/tilec-dir", 1);
  setenv("XDG_CACHE_HOME", "/b/xdg", 1);
  setenv("HOME", "/c/home", 1);
  EXPECT_EQ(*defaultCacheDir(), "/a/tilec-dir");
  unsetenv("TILEC_CACHE_DIR");
  EXPECT_EQ(*defaultCacheDir(), "/b/xdg/tilec");
  setenv("XDG_CACHE_HOME", "", 1);
  EXPECT_EQ(*defaultCacheDir(), "/c/home/.cache/tilec");
  setDefaultCacheDir("/d/api");
  EXPECT_EQ(*defaultCacheDir(), "/d/api");
  setDefaultCacheDir("");
  unsetenv("HOME");
  auto none = defaultCacheDir();
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.message(), "no cubin cache folder: set TILEC_CACHE_DIR, "
                            "XDG_CACHE_HOME or HOME, or call "
                            "setDefaultCacheDir");
}

TEST(Cache, StoreAndLookup) {
  std::string dir = freshDir("roundtrip") + "/nested/deeper";
  CubinCache cache(dir);
  std::string key = cubinCacheKey({"ptx", "sm_90", "drv", "O4"});
  EXPECT_FALSE(cache.lookup(key).has_value()); // folder absent
  std::string cubin("\x7f"
                    "ELF\0binary\0data",
                    15);
  Status s = cache.store(key, cubin);
  ASSERT_TRUE(s.ok()) << s.message();
  auto back = cache.lookup(key);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, cubin);
  EXPECT_EQ(cache.pathFor(key), dir + "/" + key + ".cubin");
  // Only the entry remains: the temporary file was renamed.
  EXPECT_EQ(listDir(dir), std::vector<std::string>{key + ".cubin"});
  // Storing again replaces the entry.
  ASSERT_TRUE(cache.store(key, "other").ok());
  EXPECT_EQ(*cache.lookup(key), "other");
  // An empty cubin is a valid entry.
  ASSERT_TRUE(cache.store("empty", "").ok());
  EXPECT_EQ(*cache.lookup("empty"), "");
}

TEST(Cache, DamagedEntriesAreAbsent) {
  std::string dir = freshDir("damaged");
  CubinCache cache(dir);
  std::string cubin(4096, 'c');
  ASSERT_TRUE(cache.store("k", cubin).ok());
  std::string path = cache.pathFor("k");
  std::string whole;
  {
    std::ifstream in(path, std::ios::binary);
    whole.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_EQ(whole.size(), 32u + 4096u);
  auto write = [&](const std::string &data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << data;
  };
  std::string flipped = whole;
  flipped[1000] ^= 1;
  write(flipped);
  EXPECT_FALSE(cache.lookup("k").has_value()) << "checksum";
  write(whole.substr(0, whole.size() - 1));
  EXPECT_FALSE(cache.lookup("k").has_value()) << "truncated";
  write(whole.substr(0, 20));
  EXPECT_FALSE(cache.lookup("k").has_value()) << "shorter than a header";
  std::string magic = whole;
  magic[0] = 'X';
  write(magic);
  EXPECT_FALSE(cache.lookup("k").has_value()) << "magic";
  write(whole);
  EXPECT_TRUE(cache.lookup("k").has_value()) << "restored";
}

TEST(Cache, HostileEntriesAreAbsentAtOnce) {
  // Each case failed before: a FIFO blocked lookup forever (the alarm turns
  // that into a failure), a 1 TiB sparse file threw std::bad_alloc.
  std::string dir = freshDir("hostile");
  CubinCache cache(dir);
  ASSERT_TRUE(cache.store("k", "cubin").ok());
  std::string path = cache.pathFor("fifo");
  ASSERT_EQ(mkfifo(path.c_str(), 0644), 0);
  alarm(20);
  EXPECT_FALSE(cache.lookup("fifo").has_value());
  std::string huge = cache.pathFor("huge");
  { std::ofstream(huge) << "TILECCB1"; }
  ASSERT_EQ(truncate(huge.c_str(), off_t(1) << 40), 0);
  EXPECT_FALSE(cache.lookup("huge").has_value());
  ASSERT_EQ(mkdir(cache.pathFor("dir").c_str(), 0755), 0);
  EXPECT_FALSE(cache.lookup("dir").has_value());
  alarm(0);
  EXPECT_EQ(*cache.lookup("k"), "cubin");
}

TEST(Cache, StoreErrors) {
  std::string base = freshDir("errors");
  ASSERT_EQ(mkdir(base.c_str(), 0755), 0);
  std::string file = base + "/a-file";
  { std::ofstream(file) << "x"; }
  Status s = CubinCache(file + "/sub").store("k", "data");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cannot create the cubin cache folder " + file +
                             "/sub: Not a directory");
  s = CubinCache(file).store("k", "data");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "the cubin cache folder " + file + " is not a folder");
  s = CubinCache("").store("k", "data");
  EXPECT_EQ(s.message(), "the cubin cache folder is an empty path");
  if (geteuid() != 0) { // root writes through permissions
    std::string ro = base + "/read-only";
    ASSERT_EQ(mkdir(ro.c_str(), 0555), 0);
    s = CubinCache(ro).store("k", "data");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.message().rfind(
                  "cannot write the cubin cache file " + ro + "/.tmp-", 0),
              0u)
        << s.message();
    EXPECT_NE(s.message().find(": Permission denied"), std::string::npos);
  }
  // A key naming an entry inside a missing subfolder fails the rename and
  // leaves no temporary file behind.
  std::string dir = base + "/clean";
  s = CubinCache(dir).store("missing/k", "data");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot rename " + dir + "/.tmp-"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(listDir(dir).empty());
}

TEST(Cache, ConcurrentWritersNeverExposeHalfAnEntry) {
  // Several processes store different 1 MiB cubins under one key while
  // reading it back: every read must be absent or one of the whole cubins.
  std::string dir = freshDir("concurrent");
  const int kProcs = 4, kRounds = 40;
  const size_t kBytes = 1 << 20;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      CubinCache cache(dir);
      int bad = 0;
      for (int r = 0; r < kRounds; ++r) {
        if (!cache.store("shared", std::string(kBytes, char('a' + p))).ok())
          bad |= 1;
        if (auto got = cache.lookup("shared")) {
          char c = (*got)[0];
          if (got->size() != kBytes || c < 'a' || c >= 'a' + kProcs ||
              *got != std::string(kBytes, c))
            bad |= 2;
        }
      }
      _exit(bad);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1: a store failed, 2: a torn read";
  }
  EXPECT_EQ(listDir(dir), std::vector<std::string>{"shared.cubin"});
}

} // namespace
