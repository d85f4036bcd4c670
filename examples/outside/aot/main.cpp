// Built against an installed tilec with find_package(tilec): launches the
// axpy kernel of axpy_kernels.h (tilec --emit=cpp-header) on ragged sizes
// and checks it against the same sum on the CPU. No kernel file is read at
// run time: the code and its metadata are compiled into the program.
#include "axpy_kernels.h"

#include <cmath>
#include <cstdio>
#include <vector>

using namespace tilec::runtime;

namespace {

/// y = a * x + y on `n` elements on the GPU; the largest error against the
/// CPU, or a negative number after printing why it could not run.
double axpyError(Context &ctx, float a, int n) {
  std::vector<float> x(n), y(n), want(n), got(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 17) - 8.f;
    y[i] = float(i % 5) * 0.25f;
    want[i] = a * x[i] + y[i];
  }
  auto dx = DeviceBuffer<float>::fromHost(ctx, x);
  auto dy = DeviceBuffer<float>::fromHost(ctx, y);
  if (!dx.ok() || !dy.ok()) {
    std::printf("error: %s\n", (dx.ok() ? dy : dx).message().c_str());
    return -1;
  }
  // The grid follows from n (the kernel's tile.grid): no Grid argument.
  Status s = tilec_kernels::axpy(nullptr, a, *dx, *dy, n);
  if (s.ok())
    s = ctx.synchronize();
  if (s.ok())
    s = dy->copyToHost(got);
  if (!s.ok()) {
    std::printf("error: %s\n", s.message().c_str());
    return -1;
  }
  double worst = 0;
  for (int i = 0; i < n; ++i)
    worst = std::fmax(worst, std::fabs(double(got[i]) - want[i]));
  return worst;
}

} // namespace

int main() {
  auto ctx = Context::create(0);
  if (!ctx.ok()) {
    std::printf("%s\n", ctx.message().c_str());
    return 1;
  }
  bool ok = true;
  // One partial block, one exact block, several with a ragged end.
  for (int n : {16, 256, 1008}) {
    double error = axpyError(*ctx, 1.5f, n);
    std::printf("axpy n=%d: max error %g\n", n, error);
    ok &= error == 0;
  }
  // The metadata's checks hold for the header's functions too.
  auto dx = DeviceBuffer<float>::allocate(*ctx, 16);
  if (dx.ok()) {
    Status refused = tilec_kernels::axpy(nullptr, 1.f, *dx, *dx, 15);
    std::printf("n=15 is refused: %s\n", refused.message().c_str());
    ok &= !refused.ok();
  }
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
