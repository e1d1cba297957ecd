// 49153 B of static shared memory, one byte past the 48 KiB ptxas accepts
// (more must be dynamic shared memory, opted in). Before, the SIMT target
// ran it (adversarial test s9h7, 2026-11-27; written for kperf).
#include "kperf_cuda.h"
#define SIZE 49153
extern "C" __global__ void st(int* o) {
  __shared__ char buf[SIZE];
  int t = threadIdx.x;
  buf[t * 997 % SIZE] = t;
  __syncthreads();
  o[t] = buf[(t * 997) % SIZE];
}
