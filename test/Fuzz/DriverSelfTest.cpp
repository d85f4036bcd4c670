//===- DriverSelfTest.cpp - a target that fails on demand -----------------===//
//
// Linked with the standalone driver (FuzzDriver.cpp) for its own test,
// test/Fuzz/driver.test: each way an input can break the budget or the
// process is asked for by the input's first word, so that the test sees
// the driver report each as a finding and keep going.
//
//===----------------------------------------------------------------------===//

#include "FuzzHooks.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace {
int depth = 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view in(reinterpret_cast<const char *>(data), size);
  depth = in.starts_with("deep") ? 2 : 0;
  if (in.starts_with("segv")) {
    volatile int *null = nullptr;
    *null = 1;
  }
  if (in.starts_with("abort"))
    std::abort();
  if (in.starts_with("exit"))
    std::exit(3);
  if (in.starts_with("spin"))
    for (;;)
      asm volatile(""); // a side effect: the loop is not UB, and stays
  if (in.starts_with("sleep"))
    for (;;)
      pause();
  if (in.starts_with("grow")) {
    // Touched pages, as a runaway container would: the resident set (or
    // the address space) reaches the budget.
    std::vector<char *> blocks;
    for (;;) {
      char *b = new char[16 << 20];
      std::memset(b, 1, 16 << 20);
      blocks.push_back(b);
    }
  }
  if (in.starts_with("huge")) {
    // One allocation over the budget: operator new fails at once.
    volatile size_t n = size_t(64) << 30;
    char *b = new char[n];
    b[0] = 1;
  }
  return 0;
}

int tilec::fuzz::inputDepth() { return depth; }

std::string tilec::fuzz::describeInput(const uint8_t *, size_t size) {
  return "selftest INPUT (" + std::to_string(size) + " bytes)";
}
