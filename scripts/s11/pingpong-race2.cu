// Session 11: does racecheck report the ping-pong epilogue's exchange when
// warpgroup 1 reaches the epilogue long before warpgroup 0 (as in the
// attention forward, where warpgroup 0 still runs its last turn)? The turn
// protocol of scripts/s10/pingpong-race.cu (bar.sync own id / bar.arrive
// the other's, 256 threads; warpgroup 1 hands over the first turn,
// warpgroup 0 takes the last), then an exchange across warpgroups between
// two bar.sync 1, 256. DELAY: warpgroup 0 spins ~DELAY cycles in its last
// turn. BAL: warpgroup 1 also waits once more on a barrier of its own
// (bar.sync 6, 128), which orders nothing between the warpgroups but
// makes both have waited on the same number of barriers.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
template <int DELAY, int BAL>
__global__ void __launch_bounds__(256, 1) k(int *out, int iters) {
  __shared__ int s[256];
  int t = threadIdx.x, g = t / 128;
  int acc = t;
  if (g == 1) asm volatile("bar.arrive 2, 256;");   // start
  asm volatile("bar.sync 1, 256;");
  for (int i = 0; i < iters; ++i) {
    if (g == 0) asm volatile("bar.sync 2, 256;"); else asm volatile("bar.sync 3, 256;");
    acc = acc * 3 + i;
    if (DELAY && g == 0 && i == iters - 1) {
      long long c0 = clock64();
      while (clock64() - c0 < DELAY) acc += 1;
    }
    if (g == 0) asm volatile("bar.arrive 3, 256;"); else asm volatile("bar.arrive 2, 256;");
  }
  if (g == 0) asm volatile("bar.sync 2, 256;");     // finish
  if (BAL && g == 1) asm volatile("bar.sync 6, 128;");
  asm volatile("bar.sync 1, 256;");
  s[t] = acc;
  asm volatile("bar.sync 1, 256;");
  out[t] = s[255 - t];
}
int main(int argc, char **argv) {
  // argv[1]: 0 plain, 1 DELAY, 2 DELAY + BAL, 3 plain with one turn each.
  int v = argc > 1 ? atoi(argv[1]) : 0;
  int *d; cudaMalloc(&d, 256 * 4);
  if (v == 0) k<0, 0><<<1, 256>>>(d, 5);
  if (v == 1) k<1000000, 0><<<1, 256>>>(d, 5);
  if (v == 2) k<1000000, 1><<<1, 256>>>(d, 5);
  if (v == 3) k<0, 0><<<1, 256>>>(d, 1);
  int e = cudaDeviceSynchronize(); printf("variant %d: %d\n", v, e);
  return e;
}
