//===- CudaToolsTest.cpp - the search for ptxas, libdevice, the toolkit ---===//
//
// Each search against fake toolkit folders made here: the order of the
// places tried, a configured path used alone, and what is said when nothing
// is found. The environment is set for each case and restored after.
//
//===----------------------------------------------------------------------===//

#include "tilec/Support/CudaTools.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

using namespace tilec;

namespace {

/// A fresh folder under the test's temporary folder.
std::string freshDir(const std::string &name) {
  const char *tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") +
                    "/tilec-cudatools-" + std::to_string(getpid()) + "-" + name;
  std::string cmd = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return dir;
}

void writeFile(const std::string &path, bool executable) {
  std::string dir = path.substr(0, path.rfind('/'));
  std::string cmd = "mkdir -p '" + dir + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ofstream(path) << "#!/bin/sh\n";
  ASSERT_EQ(::chmod(path.c_str(), executable ? 0755 : 0644), 0);
}

/// A fake toolkit at `root`: bin/ptxas and, if asked, libdevice.
std::string fakeToolkit(const std::string &root, bool libdevice = true) {
  writeFile(root + "/bin/ptxas", true);
  if (libdevice)
    writeFile(root + "/" + std::string(cuda::kLibdeviceSubpath), false);
  return root;
}

/// Sets (or, for null, unsets) the variables the search reads, for one test.
class Env {
public:
  Env(std::initializer_list<std::pair<const char *, const char *>> values) {
    for (const char *name :
         {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH", "PATH", "TEST_PTXAS"}) {
      const char *old = std::getenv(name);
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
      ::unsetenv(name);
    }
    for (auto [name, value] : values)
      if (value)
        ::setenv(name, value, 1);
  }
  Env(const Env &) = delete;
  ~Env() {
    for (auto &[name, value] : saved_) {
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  }

private:
  std::map<std::string, std::optional<std::string>> saved_;
};

TEST(CudaTools, PtxasOrder) {
  std::string base = freshDir("order");
  std::string home = fakeToolkit(base + "/home");
  std::string path = fakeToolkit(base + "/path");
  std::string fixed = fakeToolkit(base + "/fixed");
  std::string pathList = "/nonexistent:" + path + "/bin";
  {
    Env env({{"CUDA_HOME", home.c_str()}, {"PATH", pathList.c_str()}});
    EXPECT_EQ(cuda::findPtxas("", nullptr, nullptr, fixed),
              home + "/bin/ptxas");
  }
  {
    Env env({{"CUDA_HOME", "/nonexistent"},
             {"CUDA_PATH", home.c_str()},
             {"PATH", pathList.c_str()}});
    EXPECT_EQ(cuda::findPtxas("", nullptr, nullptr, fixed),
              home + "/bin/ptxas");
  }
  {
    Env env({{"PATH", pathList.c_str()}});
    EXPECT_EQ(cuda::findPtxas("", nullptr, nullptr, fixed),
              path + "/bin/ptxas");
  }
  {
    Env env({{"PATH", "/nonexistent"}});
    EXPECT_EQ(cuda::findPtxas("", nullptr, nullptr, fixed),
              fixed + "/bin/ptxas");
  }
}

TEST(CudaTools, PtxasConfiguredIsUsedAlone) {
  std::string base = freshDir("configured");
  std::string home = fakeToolkit(base + "/home");
  std::string other = fakeToolkit(base + "/other");
  Env env({{"CUDA_HOME", home.c_str()},
           {"TEST_PTXAS", (other + "/bin/ptxas").c_str()}});
  // The option wins over the variable, the variable over the search.
  EXPECT_EQ(cuda::findPtxas(home + "/bin/ptxas", "TEST_PTXAS"),
            home + "/bin/ptxas");
  EXPECT_EQ(cuda::findPtxas("", "TEST_PTXAS"), other + "/bin/ptxas");
  // A configured ptxas that is not there is not replaced by another.
  std::string why;
  EXPECT_EQ(cuda::findPtxas(base + "/none/ptxas", "TEST_PTXAS", &why), "");
  EXPECT_EQ(why, "no ptxas at '" + base + "/none/ptxas'");
  // Nor is one that is not executable.
  writeFile(base + "/plain/ptxas", false);
  EXPECT_EQ(cuda::findPtxas(base + "/plain/ptxas", nullptr, &why), "");
  EXPECT_EQ(why, "no ptxas at '" + base + "/plain/ptxas'");
}

TEST(CudaTools, PtxasNotFound) {
  std::string base = freshDir("none");
  Env env({{"PATH", base.c_str()}});
  std::string why;
  EXPECT_EQ(cuda::findPtxas("", "TEST_PTXAS", &why, base + "/fixed"), "");
  EXPECT_EQ(why, "no ptxas found ($TEST_PTXAS, $CUDA_HOME/bin, "
                 "$CUDA_PATH/bin, PATH, " +
                     base + "/fixed/bin/ptxas)");
  // A folder named ptxas is not a ptxas.
  ASSERT_EQ(::mkdir((base + "/ptxas").c_str(), 0755), 0);
  EXPECT_EQ(cuda::findPtxas("", nullptr, nullptr, base + "/fixed"), "");
}

TEST(CudaTools, Toolkit) {
  std::string base = freshDir("toolkit");
  std::string home = fakeToolkit(base + "/home");
  std::string path = fakeToolkit(base + "/path");
  std::string bare = fakeToolkit(base + "/bare", /*libdevice=*/false);
  std::string fixed = fakeToolkit(base + "/fixed");
  std::string pathBin = path + "/bin";
  {
    Env env({{"CUDA_HOME", home.c_str()}, {"PATH", pathBin.c_str()}});
    EXPECT_EQ(cuda::findToolkit(fixed), home);
    EXPECT_EQ(cuda::findLibdevice(fixed),
              home + "/nvvm/libdevice/libdevice.10.bc");
  }
  {
    // CUDA_ROOT comes first; a set variable is used alone, even when it
    // has no libdevice and others would.
    Env env({{"CUDA_ROOT", bare.c_str()}, {"CUDA_HOME", home.c_str()}});
    EXPECT_EQ(cuda::findToolkit(fixed), "");
    EXPECT_EQ(cuda::findLibdevice(fixed), "");
  }
  {
    Env env({{"CUDA_PATH", home.c_str()}, {"PATH", pathBin.c_str()}});
    EXPECT_EQ(cuda::findToolkit(fixed), home);
  }
  {
    // The folder above the ptxas in PATH, else the fixed root.
    Env env({{"PATH", pathBin.c_str()}});
    EXPECT_EQ(cuda::findToolkit(fixed), path);
  }
  {
    std::string bareBin = bare + "/bin";
    Env env({{"PATH", bareBin.c_str()}});
    EXPECT_EQ(cuda::findToolkit(fixed), fixed);
    EXPECT_EQ(cuda::findToolkit(base + "/nothing"), "");
  }
}

} // namespace
