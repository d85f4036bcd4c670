// A program on the C++ that `tilec-tune aot` writes: one matmul call per
// shape, through the embedded winners and their dispatch table, on the
// stand-in driver (which launches nothing real: the launch's grid is what
// the test checks, through the fake's fake_launchShape).
#include "tuned.h"

#include "FakeLaunches.h"

using namespace tilec::runtime;

int main() {
  Context ctx = contextOrExit();
  auto buf = DeviceBuffer<BFloat16>::allocate(ctx, 3000 * 300);
  FakeLaunches fake = FakeLaunches::open();
  struct { int m, n, k; } shapes[] = {{100, 128, 64}, {128, 112, 64},
                                      {2000, 256, 64}, {3000, 256, 64},
                                      {100, 120, 64}};
  for (auto s : shapes) {
    int id = tilec_tuned::tunedCandidate(s.m, s.n, s.k, s.k, s.n, s.n);
    Status st = tilec_tuned::matmul(nullptr, buf->ptr(), buf->ptr(),
                                    buf->ptr(), s.m, s.n, s.k, s.k, s.n, s.n);
    unsigned g[6] = {};
    if (st.ok())
      fake.shape(fake.count() - 1, g);
    std::printf("%dx%dx%d: candidate %d, %s, grid %u x %u\n", s.m, s.n, s.k,
                id, st.ok() ? "launched" : st.message().c_str(), g[0], g[1]);
  }
  return 0;
}
