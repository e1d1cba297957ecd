// __activemask() in a __noinline__ helper reached through a function
// pointer from both arms of an if/else (adversarial test s9h7,
// 2026-11-27; written for kperf): each call reads its arm's lanes. Before,
// only direct calls were told apart, and every lane read 0xffffffff.
#include "kperf_cuda.h"
#define __activemask() __nvvm_activemask()
typedef unsigned (*fp_t)(void);
__device__ __noinline__ unsigned mh() { return __activemask(); }
__device__ __noinline__ unsigned mh2() { return __activemask() ^ 2u; }
__device__ fp_t tbl[2] = {mh, mh2};
extern "C" __global__ void viafp(unsigned* o, int sel) {
  int t = threadIdx.x;
  fp_t p = tbl[sel];
  unsigned a;
  if (t % 3 == 0)
    a = p();
  else
    a = p() | 0x80000000u;
  o[t] = a;
}
