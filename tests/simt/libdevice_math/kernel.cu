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
extern "C" __device__ float __nv_int2float_rz(int);
extern "C" __device__ float __nv_ull2float_ru(unsigned long long);
extern "C" __device__ float __nv_double2float_rd(double);
extern "C" __device__ unsigned short __nv_float2half_rn(float);
extern "C" __global__ void math(const float* x, float* e, float* t, float* r, float* l,
                                float* s, float* p, float* q, float* n, double* d, double* ds,
                                float* c1, float* c2, float* c3, int* c4) {
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
  // A huge argument: the double sine's Payne-Hanek range reduction
  // (libdevice's __internal_trig_reduction_slowpathd) runs its multiword
  // inline PTX, untranslated until 2026-11-27: garbage beyond 2^31.
  ds[i] = __nv_sin((double)v * 1.0e20);
  // Conversions with directed rounding, and to half.
  c1[i] = __nv_int2float_rz(16777217 + 3 * i);
  c2[i] = __nv_ull2float_ru(0xFFFFFFFFFFFFFFFFull - 12345ull * i);
  c3[i] = __nv_double2float_rd(1.0 / 3.0 + i);
  c4[i] = __nv_float2half_rn(v * 1.1f);
}
