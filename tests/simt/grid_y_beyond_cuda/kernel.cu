// A grid of 70000 CTAs in y: CUDA launches at most 65535 in y and z (and
// 2^31 - 1 in x). Before, the SIMT target ran it (adversarial test s7h1,
// 2026-11-27; written for kperf).
#include "kperf_cuda.h"
extern "C" __global__ void rows(int* o) {
  if (threadIdx.x == 0) o[blockIdx.y] = blockIdx.y;
}
