// A read one past a __shared__ int[33] (adversarial test s9h7, 2026-11-27;
// written for kperf). Its guarded buffer was 16-aligned, so 12 bytes of
// canary followed the array and the read returned 0xa5a5a5a5 unseen; the
// array now ends where its guard begins, and the read faults naming it.
#include "kperf_cuda.h"
extern "C" __global__ void k_overread(int* o, int lim) {
  __shared__ int a[33];
  __shared__ int b[33];
  int t = threadIdx.x;
  if (t < 33) { a[t] = t; b[t] = 100 + t; }
  __syncthreads();
  if (t < lim) o[t] = a[t] + (t == 0 ? b[0] : 0);
}
