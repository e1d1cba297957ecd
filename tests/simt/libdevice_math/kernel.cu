// CUDA math functions through libdevice on the SIMT target (adversarial
// test s7h4 F-libdevice, 2026-11-27; written for kperf). With CUDA's headers
// expf is __nv_expf; here the __nv_ names are declared directly, as
// -nocudainc leaves them. The SIMT target links libdevice.10.bc (Triton's
// copy, or a CUDA toolkit's) as a CUDA build does; before, every __nv_ call
// was refused.
#include "kperf_cuda.h"
extern "C" __device__ float __nv_expf(float);
extern "C" __device__ float __nv_tanhf(float);
extern "C" __device__ float __nv_erff(float);
extern "C" __device__ float __nv_logf(float);
extern "C" __device__ float __nv_sinf(float);
extern "C" __device__ float __nv_powf(float, float);
extern "C" __device__ float __nv_rsqrtf(float);
extern "C" __device__ float __nv_roundf(float);
extern "C" __device__ double __nv_exp(double);
extern "C" __device__ double __nv_sin(double);
extern "C" __global__ void math(const float* x, float* e, float* t, float* r, float* l,
                                float* s, float* p, float* q, float* n, double* d, double* ds) {
  int i = threadIdx.x;
  float v = x[i];
  e[i] = __nv_expf(v);
  t[i] = __nv_tanhf(v);
  r[i] = __nv_erff(v);
  l[i] = __nv_logf(v + 5.0f);
  s[i] = __nv_sinf(v * 10.0f);
  p[i] = __nv_powf(v + 5.0f, 1.5f);
  q[i] = __nv_rsqrtf(v + 5.0f);
  n[i] = __nv_roundf(v * 4.0f + 0.5f);
  d[i] = __nv_exp((double)v);
  // A large argument: the double sine's Payne-Hanek range reduction runs
  // libdevice's multiword inline PTX.
  ds[i] = __nv_sin((double)v * 1.0e6);
}
