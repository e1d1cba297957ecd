// __activemask() after an if/else that reconverges. On a GPU the warp
// reconverges at the if/else's end, so `after` is the full warp (the same
// holds for the warp-aggregated-atomics idiom in NVIDIA's blog "CUDA Pro Tip:
// Optimized Filtering with Warp-Aggregated Atomics", which calls
// __activemask() in `if (pred)` after earlier divergent code).
// Written for kperf adversarial testing (s5h4, 2026-11-27).
#include "kperf_cuda.h"
#define __activemask() __nvvm_activemask()
#define __reduce_add_sync(m, v) __nvvm_redux_sync_add(v, m)
#ifndef ITER
#define ITER 50
#endif
extern "C" __global__ void am(const int* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  unsigned a, w = 0;
  if (lane % 3 == 0) {
    a = __activemask();
  } else if (lane % 3 == 1) {
    a = __activemask();
  } else {
    // a little work, then a warp op of this group only
    int x = in[t];
    for (int k = 0; k < (x & 7) * ITER; k++) x = x * 1103515245 + 12345;
    a = 0x24924924u;
    w = __reduce_add_sync(0x24924924u, x & 1);
  }
  unsigned after = __activemask();
  out[3 * t] = a;
  out[3 * t + 1] = after;
  out[3 * t + 2] = w;
}
