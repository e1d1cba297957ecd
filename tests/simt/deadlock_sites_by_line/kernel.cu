// Lanes 0-15 wait in __syncwarp (through an inlined helper, as clang's own
// CUDA headers define it) for lanes 16-31, which wait at __syncthreads: a
// GPU hangs. The deadlock report named "barrier 0" and "warp operations"
// only, then the helper's line; it names each site by the user's line,
// with the helper's after it (adversarial tests, 2026-11-27). Compiled
// with -gline-tables-only.
#include "kperf_cuda.h"
static __device__ __forceinline__ void sync_warp(unsigned mask) { __nvvm_bar_warp_sync(mask); }
extern "C" __global__ void dl(int *o) {
  int t = threadIdx.x;
  if (t < 16)
    sync_warp(0xffffffffu);
  else
    __syncthreads();
  o[t] = 1;
}
