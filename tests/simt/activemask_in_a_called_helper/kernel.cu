// __activemask() inside __noinline__ device functions, called from both
// arms of a divergent if/else, after the join, and through a second helper
// under a branch (adversarial test, 2026-11-27; written for kperf). On a
// GPU each call reads the lanes that made it: the arms' lanes apart, the
// whole warp after the join. Before, the helper's one activemask site
// gathered the lanes of both arms: every lane read 0xffffffff.
#include "kperf_cuda.h"
#define __activemask() __nvvm_activemask()
__device__ __noinline__ unsigned mask_here() { return __activemask(); }
__device__ __noinline__ unsigned through_another() { return mask_here() ^ 1u; }
extern "C" __global__ void in_helpers(unsigned* o) {
  int t = threadIdx.x;
  unsigned a;
  if (t % 3 == 0)
    a = mask_here();
  else
    a = mask_here() | 0x80000000u;
  unsigned b = mask_here();
  unsigned c = 0;
  if ((t & 31) < 10)
    c = through_another();
  o[3 * t] = a;
  o[3 * t + 1] = b;
  o[3 * t + 2] = c;
}
