// Thread 5 fails an assertion and would then set a flag the other 63
// threads spin on. On a GPU the assertion's trap ends the launch at once;
// here the run hung silently (the message held with the CTA's printf
// lines, no thread at a barrier for the patience note): adversarial
// retest, 2026-11-27. Now, when no thread comes anywhere for the patience,
// the launch fails and the message is written.
#include "kperf_cuda.h"
extern "C" __device__ void __assertfail(const char *, const char *, unsigned, const char *,
                                        unsigned long);
#define assert(e) ((e) ? (void)0 : __assertfail(#e, "kernel.cu", __LINE__, __func__, 1))
extern "C" __global__ void forever(const int *x, int *o) {
  __shared__ volatile int flag;
  int t = threadIdx.x;
  if (t == 0) flag = 0;
  __syncthreads();
  if (t == 5) { assert(x[t] < 0); flag = 1; }
  else { while (flag == 0) { } }
  o[t] = 1;
}
