// A loop of 10 iterations with a barrier in each, every thread its own unit
// (--granularity thread): 2 + 2 + 2 × 10 = 24 records per thread.
// Written for kperf adversarial testing (s10h1, 2026-11-28): with
// `--buffer global --strategy flush --slots 4`, each thread's staging ring
// sat `slots` records apart where the flushed segments sit `flush slots`
// apart, inside unit 0's segment: unit 0 kept other threads' last records,
// its own START records were gone, and replay counted nothing lost.
#include "kperf_cuda.h"
extern "C" __global__ void loop(float *out, int n) {
  float x = threadIdx.x;
  for (int i = 0; i < n; i++) { x = x * 0.5f + 1.0f; __syncthreads(); }
  out[threadIdx.x] = x;
}
