// __activemask() in a loop whose trip count is lane & 3, then once after
// it. On a GPU the warp reconverges after the loop: `after` is the whole
// warp. clang lays the loop's exit block out before its body, so sites
// numbered in layout order closed the after-loop gathering first, once
// per group of lanes leaving together (0x11111111, 0x22222222, ...):
// adversarial retest, 2026-11-27.
#include "kperf_cuda.h"
#define __activemask() __nvvm_activemask()
extern "C" __global__ void divloop(const int *in, unsigned *o) {
  int t = threadIdx.x, lane = t & 31;
  unsigned x = 0;
  for (int i = 0; i < (lane & 3); ++i) x ^= __activemask() * (i + 1);
  unsigned after = __activemask();
  o[2*t] = x; o[2*t+1] = after;
}
