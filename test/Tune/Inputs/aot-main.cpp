// A program on the C++ that `tilec-tune aot` writes: one matmul call per
// shape, through the embedded winners and their dispatch table, on the
// stand-in driver (which launches nothing real: the launch's grid is what
// the test checks, through the fake's fake_launchShape).
#include "tuned.h"

#include <cstdio>
#include <dlfcn.h>

using namespace tilec::runtime;

int main() {
  auto ctx = Context::create(0);
  if (!ctx.ok()) {
    std::printf("%s\n", ctx.message().c_str());
    return 1;
  }
  auto buf = DeviceBuffer<BFloat16>::allocate(*ctx, 3000 * 300);
  void *fake = dlopen(std::getenv("TILEC_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
  auto count = reinterpret_cast<int (*)()>(dlsym(fake, "fake_launchCount"));
  auto shape = reinterpret_cast<void (*)(int, unsigned *)>(
      dlsym(fake, "fake_launchShape"));
  struct { int m, n, k; } shapes[] = {{100, 128, 64}, {128, 112, 64},
                                      {2000, 256, 64}, {3000, 256, 64},
                                      {100, 120, 64}};
  for (auto s : shapes) {
    int id = tilec_tuned::tunedCandidate(s.m, s.n, s.k, s.k, s.n, s.n);
    Status st = tilec_tuned::matmul(nullptr, buf->ptr(), buf->ptr(),
                                    buf->ptr(), s.m, s.n, s.k, s.k, s.n, s.n);
    unsigned g[6] = {};
    if (st.ok())
      shape(count() - 1, g);
    std::printf("%dx%dx%d: candidate %d, %s, grid %u x %u\n", s.m, s.n, s.k,
                id, st.ok() ? "launched" : st.message().c_str(), g[0], g[1]);
  }
  return 0;
}
