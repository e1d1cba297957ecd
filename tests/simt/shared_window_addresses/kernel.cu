// Shared addresses as 32-bit integers and back, as __cvta_generic_to_shared
// gives them (adversarial test s9h7, 2026-11-27; written for kperf).
#include "kperf_cuda.h"
typedef __attribute__((address_space(3))) int sint;
extern "C" __global__ void cv(int* o) {
  __shared__ int a[64];
  __shared__ int b[64];
  int t = threadIdx.x;
  unsigned sa = (unsigned)(unsigned long)(sint*)&a[t];
  unsigned sb = (unsigned)(unsigned long)(sint*)&b[t];
  *(sint*)(unsigned long)sa = t;
  *(sint*)(unsigned long)sb = 100 + t;
  __syncthreads();
  o[t] = a[(t + 1) & 63] + b[t];
  o[64 + t] = (int)(sb - sa);
}
