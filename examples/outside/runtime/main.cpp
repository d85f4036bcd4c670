// Built against an installed tilec with find_package(tilec): a context (with
// no driver, the error says why) and a bf16 rounding, the runtime's types.
#include "tilec/Runtime/Runtime.h"

#include <cstdio>

int main() {
  auto ctx = tilec::runtime::Context::create(0);
  std::printf("%s; bf16(3) = 0x%04x\n",
              ctx.ok() ? "a context" : ctx.message().c_str(),
              unsigned(tilec::runtime::BFloat16(3.0f).bits));
  return 0;
}
