// A float4 store 4 bytes into a float buffer: clang writes four float
// stores, the first promised `align 16`; NVPTX's vectorizer (and the
// host's) join them into one 16-byte store, which a GPU stops as a
// misaligned address. On the host it faulted as "a null or non-canonical
// address, far outside every buffer" (adversarial test s10h1, 2026-11-28).
#include "kperf_cuda.h"
extern "C" __global__ void misaligned(float *out, int off) {
  float4 *p = (float4 *)((char *)out + off);
  p[threadIdx.x] = float4{1, 2, 3, 4};
}
