// Two kernels in one file: `broken`'s region marker never ends, which
// instrumenting it refuses. `kperf run` of `good` instrumented every kernel
// of the file and failed on `broken` (adversarial test s9h7, 2026-11-27;
// written for kperf); it instruments the launched one.
#include "kperf_cuda.h"
extern "C" __device__ void kperf_region_start(const char*);
extern "C" __device__ void kperf_region_end(const char*);
extern "C" __global__ void broken(float* o) {
  kperf_region_start("never_ends");
  o[threadIdx.x] = 1.0f;
}
extern "C" __global__ void good(float* o) {
  o[threadIdx.x] = 2.0f * threadIdx.x;
}
