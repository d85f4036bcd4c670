// A program on the C++ that `tilec-tune aot` writes for a split-K winner:
// the call without a workspace is refused with the bytes it needs; with
// one, two launches (the slices, then the reduce), whose grids the stand-in
// driver records.
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
  const int M = 16, N = 4096, K = 4096;
  auto a = DeviceBuffer<BFloat16>::allocate(*ctx, size_t(M) * K);
  auto b = DeviceBuffer<BFloat16>::allocate(*ctx, size_t(K) * N);
  auto c = DeviceBuffer<BFloat16>::allocate(*ctx, size_t(M) * N);
  void *fake = dlopen(std::getenv("TILEC_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
  auto count = reinterpret_cast<int (*)()>(dlsym(fake, "fake_launchCount"));
  auto shape = reinterpret_cast<void (*)(int, unsigned *)>(
      dlsym(fake, "fake_launchShape"));
  size_t bytes = tilec_tuned::workspaceBytes(M, N, K, K, N, N);
  std::printf("workspace %zu bytes\n", bytes);
  Status st = tilec_tuned::matmul(nullptr, a->ptr(), b->ptr(), c->ptr(), M, N,
                                  K, K, N, N);
  std::printf("without: %s\n", st.ok() ? "launched" : st.message().c_str());
  auto ws = DeviceBuffer<float>::allocate(*ctx, bytes / sizeof(float));
  int before = count();
  st = tilec_tuned::matmul(nullptr, a->ptr(), b->ptr(), c->ptr(), M, N, K, K,
                           N, N, ws->ptr(), bytes);
  std::printf("with: %s, %d launches\n", st.ok() ? "ok" : st.message().c_str(),
              count() - before);
  for (int i = before; i < count(); ++i) {
    unsigned g[6] = {};
    shape(i, g);
    std::printf("launch grid %u x %u x %u\n", g[0], g[1], g[2]);
  }
  return 0;
}
