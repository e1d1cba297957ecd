// An int read 2 bytes into an int buffer: a GPU stops it as a misaligned
// address; the host read it silently (adversarial test s10h1, 2026-11-28).
#include "kperf_cuda.h"
extern "C" __global__ void mis_int(int *out, const int *in, int off) {
  out[threadIdx.x] = *(const int *)((const char *)in + off + 4 * threadIdx.x);
}
