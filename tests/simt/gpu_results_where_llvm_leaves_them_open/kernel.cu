// Arithmetic whose result LLVM IR leaves open but the PTX instruction the
// NVPTX back end emits fixes, where x86-64 differs (adversarial test s5h4,
// 2026-11-27, k09/k10; written for kperf):
//  - float -> int conversions out of range and of NaN: cvt.rzi saturates,
//    NaN -> 0 (x86: 0x80000000);
//  - shifts by 32..63: shl/shr.b32 clamp the amount (0, or the sign fill);
//    x86 takes it modulo 32;
//  - integer division by zero and INT_MIN / -1: no trap on a GPU (PTX leaves
//    x/0 unspecified; kperf gives -1 and remainder x); x86 raises SIGFPE.
#include "kperf_cuda.h"
extern "C" __global__ void gpu_results(const int* fx, const int* ix, int* o) {
  int t = threadIdx.x;
  float f = __builtin_bit_cast(float, fx[t]);
  int a = ix[t], b = ix[t + 32];
  int* p = o + t * 10;
  p[0] = (int)f;
  p[1] = (int)(unsigned)f;
  p[2] = (int)((long long)f >> 16);
  p[3] = (int)(short)(_Float16)(f * 0.001f);
  p[4] = a << (b & 63);
  p[5] = a >> (b & 63);
  p[6] = (int)((unsigned)a >> (b & 63));
  p[7] = a / b;
  p[8] = a % b;
  p[9] = (int)((unsigned)a / (unsigned)b);
}
