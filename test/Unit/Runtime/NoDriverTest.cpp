//===- NoDriverTest.cpp - the runtime on a machine without a driver -------===//
//
// A program built with the runtime must start anywhere and answer every call
// with a clear error when libcuda is missing or is not a usable driver.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>

using namespace tilec::runtime;

namespace {

const char *kMissing = "/nonexistent/tilec-test/libcuda.so.1";
const std::string kMissingMessage =
    std::string("no CUDA driver found: ") + kMissing +
    " could not be loaded (" + kMissing +
    ": cannot open shared object file: No such file or directory)";

TEST(NoDriver, LibraryPathIsOverridable) {
  unsetenv("TILEC_LIBCUDA");
  EXPECT_EQ(Driver::defaultLibraryPath(), "libcuda.so.1");
  setenv("TILEC_LIBCUDA", "", 1);
  EXPECT_EQ(Driver::defaultLibraryPath(), "libcuda.so.1");
  setenv("TILEC_LIBCUDA", kMissing, 1);
  EXPECT_EQ(Driver::defaultLibraryPath(), kMissing);
}

TEST(NoDriver, EveryEntryPointReportsIt) {
  setenv("TILEC_LIBCUDA", kMissing, 1);
  auto driver = Driver::get();
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.message(), kMissingMessage);
  auto ctx = Context::create(0);
  ASSERT_FALSE(ctx.ok());
  EXPECT_EQ(ctx.message(), kMissingMessage);
  auto current = Context::current();
  ASSERT_FALSE(current.ok());
  EXPECT_EQ(current.message(), kMissingMessage);
  auto count = Context::deviceCount();
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.message(), kMissingMessage);
  // The failure is not remembered: a second call tries again.
  EXPECT_EQ(Driver::get().message(), kMissingMessage);
}

TEST(NoDriver, SearchPathNamesTheLibrary) {
  auto d = Driver::load("libtilec-no-such-driver.so.1");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.message(),
            "no CUDA driver found: libtilec-no-such-driver.so.1 could not be "
            "loaded (libtilec-no-such-driver.so.1: cannot open shared object "
            "file: No such file or directory)");
}

TEST(NoDriver, ALibraryThatIsNotADriver) {
  // libm is always there and has no cuGetProcAddress_v2.
  auto d = Driver::load("libm.so.6");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.message().find("the CUDA driver /"), std::string::npos)
      << d.message();
  EXPECT_NE(d.message().find("libm.so.6 is too old: it has no "
                             "cuGetProcAddress_v2 (tilec needs a driver for "
                             "CUDA 12.0 or newer)"),
            std::string::npos)
      << d.message();
}

/// Driver::load of the fake driver in `mode` (TILEC_FAKE_CUDA_MODE).
std::string loadFakeIn(const char *mode) {
  setenv("TILEC_FAKE_CUDA_MODE", mode, 1);
  auto d = Driver::load(TILEC_FAKE_CUDA);
  unsetenv("TILEC_FAKE_CUDA_MODE");
  EXPECT_FALSE(d.ok()) << mode;
  return d.message();
}

TEST(NoDriver, BrokenDrivers) {
  char real[4096];
  ASSERT_NE(realpath(TILEC_FAKE_CUDA, real), nullptr);
  const std::string where = "the CUDA driver " + std::string(real);
  EXPECT_EQ(loadFakeIn("nodevice"),
            where + " failed to initialise: cuInit failed: "
                    "CUDA_ERROR_NO_DEVICE (fake driver error)");
  EXPECT_EQ(loadFakeIn("old"),
            where + " supports CUDA 11.8; tilec needs CUDA 12.0 or newer");
  EXPECT_EQ(loadFakeIn("partial"),
            where + " lacks cuGraphLaunch (tilec needs a driver for CUDA "
                    "12.0 or newer)");
  // The same library, working.
  auto ok = Driver::load(TILEC_FAKE_CUDA);
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ((*ok)->version(), 13000);
  EXPECT_EQ((*ok)->libraryFile(), real);
}

#ifdef TILEC_TEST_CUDA_STUB
TEST(NoDriver, TheLinkStubIsNotADriver) {
  // CUDA's link stub exports every symbol and fails every call.
  auto d = Driver::load(TILEC_TEST_CUDA_STUB);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.message().find("CUDA_ERROR_STUB_LIBRARY (the library is "
                             "CUDA's link stub, not a driver)"),
            std::string::npos)
      << d.message();
  EXPECT_EQ(d.message().rfind("the CUDA driver " TILEC_TEST_CUDA_STUB, 0), 0u)
      << d.message();
}
#endif

} // namespace
