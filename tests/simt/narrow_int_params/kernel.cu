// bool, signed char and short parameters beside the wider ones (adversarial
// test, 2026-11-27: the SIMT target refused i1/i8/i16 parameters).
#include "../../../corpus/cuda/kperf_cuda.h"
extern "C" __global__ void params(bool flag, signed char c, short s, unsigned char uc, unsigned u,
                                  long long ll, float f, double d, double *out) {
  if (threadIdx.x == 0) {
    out[0] = flag; out[1] = c; out[2] = s; out[3] = uc; out[4] = u; out[5] = (double)ll;
    out[6] = f; out[7] = d;
  }
}
