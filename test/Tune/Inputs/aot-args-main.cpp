// A program on the C++ that `tilec-tune aot --problem` writes for an args
// problem (test/Tune/tilec-tune-args.test): one add per n, through the
// embedded winners and their dispatch table on the integer argument n, on
// the stand-in driver (its record of launches gives each grid).
#include "tuned.h"

#include "FakeLaunches.h"

using namespace tilec::runtime;

int main() {
  Context ctx = contextOrExit();
  auto buf = DeviceBuffer<float>::allocate(ctx, 20480);
  FakeLaunches fake = FakeLaunches::open();
  struct {
    int n;
    int64_t offset; // elements past the buffer's start
  } calls[] = {{1000, 0}, {5000, 0}, {700, 0}, {3000, 0}, {20000, 0},
               {1000, 1}};
  for (auto c : calls) {
    DevicePtr<float> x = buf->ptr() + c.offset, y = buf->ptr(), z = buf->ptr();
    int id = tilec_tuned::tunedCandidate(x, y, z, c.n);
    int before = fake.count();
    Status st = tilec_tuned::add(nullptr, x, y, z, c.n);
    unsigned g[6] = {};
    if (st.ok() && fake.count() == before + 1)
      fake.shape(before, g);
    std::printf("n=%d offset %lld: candidate %d, %s, grid %u\n", c.n,
                static_cast<long long>(c.offset), id,
                st.ok() ? "launched" : st.message().c_str(), g[0]);
  }
  return 0;
}
