// Does racecheck see a race in the ping-pong turn protocol itself? Two
// consumer warpgroups take turns (bar.sync own id / bar.arrive the
// other's, 256 threads) for `iters` rounds, then exchange data through
// shared memory across warpgroups, separated by bar.sync 1, 256 (the
// epilogue of attention_tma_d128_n128_overlap_pingpong). REG=1: the turn
// barriers' ids in registers (2 + g, 3 - g); REG=0: immediates.
#include <cstdio>
#include <cuda_runtime.h>
template <int REG, int WS>
__global__ void __launch_bounds__(384, 1) k(int *out, int iters) {
  __shared__ int s[256];
  int t = threadIdx.x, g = t / 128;
  // WS: a third warpgroup (threads 256..383) as the producer of warp
  // specialization, registers moved to the consumers by setmaxnreg.
  if (WS) {
    if (t >= 256) {
      asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
      return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  }
  auto sync2 = [&](int id) {
    if (REG) asm volatile("bar.sync %0, 256;" ::"r"(id));
    else if (id == 2) asm volatile("bar.sync 2, 256;");
    else asm volatile("bar.sync 3, 256;");
  };
  auto arrive = [&](int id) {
    if (REG) asm volatile("bar.arrive %0, 256;" ::"r"(id));
    else if (id == 2) asm volatile("bar.arrive 2, 256;");
    else asm volatile("bar.arrive 3, 256;");
  };
  int acc = t;
  if (g == 1) asm volatile("bar.arrive 2, 256;");   // start
  asm volatile("bar.sync 1, 256;");
  for (int i = 0; i < iters; ++i) {
    sync2(2 + g);          // wait for the turn
    acc = acc * 3 + i;
    arrive(3 - g);         // pass it on
  }
  if (g == 0) asm volatile("bar.sync 2, 256;");     // finish
  asm volatile("bar.sync 1, 256;");
  s[t] = acc;
  asm volatile("bar.sync 1, 256;");
  out[t] = s[255 - t];
}
int main() {
  int *d; cudaMalloc(&d, 256 * 4);
  k<1, 0><<<1, 256>>>(d, 5); k<0, 0><<<1, 256>>>(d, 5);
  k<1, 1><<<1, 384>>>(d, 5); k<0, 1><<<1, 384>>>(d, 5);
  int e = cudaDeviceSynchronize(); printf("done %d\n", e);
  return e;
}
