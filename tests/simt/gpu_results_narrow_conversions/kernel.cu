// Float -> 8-bit integer conversions out of range, as NVPTX compiles them
// (adversarial test, 2026-11-27; written for kperf). PTX has no 8-bit
// registers: `(signed char)f` is `cvt.rzi.s16.f32`, saturating to 16 bits.
// A store of the byte keeps the low 8 bits (300.0 -> 44); a widening of it
// reads the 16-bit register, which the back end takes as already extended
// (`cvt.s32.s16`: (int)(signed char)300.0f is 300). LLVM IR calls both
// poison; x86-64 gave 127 and 0x80 patterns.
#include "kperf_cuda.h"
extern "C" __global__ void narrow(const int* fbits, int* sb_packed, int* ub_packed, int* si, int* ui) {
  int t = threadIdx.x;
  signed char* sb = (signed char*)sb_packed;
  unsigned char* ub = (unsigned char*)ub_packed;
  signed char s = (signed char)__builtin_bit_cast(float, fbits[t]);
  unsigned char u = (unsigned char)__builtin_bit_cast(float, fbits[t]);
  sb[t] = s;
  ub[t] = u;
  si[t] = s;
  ui[t] = u;
}
