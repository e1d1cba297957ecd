// 40000 B of static shared memory and the spec's 200000 B of dynamic
// shared memory: 240000 B per CTA, beyond the 227 KiB any NVIDIA GPU
// launches (sm_90). Before, the SIMT target ran it, 100 MB too
// (adversarial test s7h1, 2026-11-27; written for kperf).
#include "kperf_cuda.h"
extern "C" __global__ void big_shared(int* o) {
  __shared__ int fixed[10000];
  extern __shared__ int dynamic[];
  int t = threadIdx.x;
  fixed[t] = t;
  dynamic[t] = 2 * t;
  __syncthreads();
  o[t] = fixed[31 - t] + dynamic[t];
}
