// A program on the C++ that `tilec-tune aot` writes for a split-K winner:
// the call without a workspace is refused with the bytes it needs; with
// one, two launches (the slices, then the reduce), whose grids the stand-in
// driver records.
#include "tuned.h"

#include "FakeLaunches.h"

using namespace tilec::runtime;

int main() {
  Context ctx = contextOrExit();
  const int M = 16, N = 4096, K = 4096;
  auto a = DeviceBuffer<BFloat16>::allocate(ctx, size_t(M) * K);
  auto b = DeviceBuffer<BFloat16>::allocate(ctx, size_t(K) * N);
  auto c = DeviceBuffer<BFloat16>::allocate(ctx, size_t(M) * N);
  FakeLaunches fake = FakeLaunches::open();
  size_t bytes = tilec_tuned::workspaceBytes(M, N, K, K, N, N);
  std::printf("workspace %zu bytes\n", bytes);
  Status st = tilec_tuned::matmul(nullptr, a->ptr(), b->ptr(), c->ptr(), M, N,
                                  K, K, N, N);
  std::printf("without: %s\n", st.ok() ? "launched" : st.message().c_str());
  auto ws = DeviceBuffer<float>::allocate(ctx, bytes / sizeof(float));
  int before = fake.count();
  st = tilec_tuned::matmul(nullptr, a->ptr(), b->ptr(), c->ptr(), M, N, K, K,
                           N, N, ws->ptr(), bytes);
  std::printf("with: %s, %d launches\n", st.ok() ? "ok" : st.message().c_str(),
              fake.count() - before);
  fake.print(before);
  return 0;
}
