// A thread that never stops computing (written for kperf, 2026-11-28): on a
// GPU the kernel hangs; the SIMT target hung without a word. Thread 0 spins
// on a flag nothing sets, in memory the compiler must re-read.
#include "kperf_cuda.h"
extern "C" __global__ void __launch_bounds__(32) spin(volatile int *flag, int *out) {
  if (threadIdx.x == 0) {
    while (*flag == 0) {
    }
  }
  out[threadIdx.x] = 1;
}
