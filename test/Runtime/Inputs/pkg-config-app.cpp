// A program outside the tree, built against the installed runtime with
// pkg-config alone (test/Runtime/install-pkg-config.test): it opens a
// context (with no driver, the error says so) and rounds a float to bf16.
#include "tilec/Runtime/Runtime.h"

#include <cstdio>

int main() {
  auto ctx = tilec::runtime::Context::create(0);
  std::printf("%s; bf16(3) = 0x%04x\n",
              ctx.ok() ? "a context" : ctx.message().c_str(),
              unsigned(tilec::runtime::BFloat16(3.0f).bits));
  return 0;
}
