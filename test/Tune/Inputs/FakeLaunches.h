// What the AOT test programs share: the stand-in driver's context and its
// record of launches (fake_launchCount, fake_launchShape: the grid of each
// launch, since it runs nothing real).
#ifndef TILEC_TEST_TUNE_FAKELAUNCHES_H
#define TILEC_TEST_TUNE_FAKELAUNCHES_H

#include "tilec/Runtime/Runtime.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

struct FakeLaunches {
  int (*count)();
  void (*shape)(int, unsigned *);

  /// The launch functions of the driver TILEC_LIBCUDA names (loaded by
  /// the runtime already).
  static FakeLaunches open() {
    void *fake = dlopen(std::getenv("TILEC_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
    return {reinterpret_cast<int (*)()>(dlsym(fake, "fake_launchCount")),
            reinterpret_cast<void (*)(int, unsigned *)>(
                dlsym(fake, "fake_launchShape"))};
  }
  /// "launch grid X x Y x Z" for every launch from `from` on.
  void print(int from) const {
    for (int i = from; i < count(); ++i) {
      unsigned g[6] = {};
      shape(i, g);
      std::printf("launch grid %u x %u x %u\n", g[0], g[1], g[2]);
    }
  }
};

/// Device 0's context, or the process exits printing why.
inline tilec::runtime::Context contextOrExit() {
  auto ctx = tilec::runtime::Context::create(0);
  if (!ctx.ok()) {
    std::printf("%s\n", ctx.message().c_str());
    std::exit(1);
  }
  return std::move(*ctx);
}

#endif
