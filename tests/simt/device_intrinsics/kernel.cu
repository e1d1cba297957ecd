// Integer and float device intrinsics that are not libdevice, and the
// scoped atomics, each with a known answer (tests/simt/device_intrinsics).
// Written for kperf (adversarial test, 2026-11-27). clang's CUDA headers
// define __umulhi, __byte_perm, __sad, __float2int_rn, __saturatef,
// __fdividef, atomicAdd_block, ... as these builtins.
#include "../../../corpus/cuda/kperf_cuda.h"

extern "C" __global__ void intrinsics(int *out, long long *lout, int *gi, unsigned *gu,
                                      long long *gl, float *gf, double *gd) {
  __shared__ int s_count;
  int t = threadIdx.x;
  if (t == 0) s_count = 0;
  __syncthreads();
  int a = t * 123456789 - 987654321;
  int b = t * -7654321 + 55555;
  unsigned ua = (unsigned)a, ub = (unsigned)b;
  long long la = (long long)a * 3000000001LL + t, lb = (long long)b * -4000000003LL;
  float x = (t - 32) * 0.75f;
  if (t == 61) x = -3e9f;
  if (t == 62) x = 3e9f;
  if (t == 63) x = __builtin_nanf("");
  int k = 0;
  out[k++ * 64 + t] = __nvvm_mulhi_i(a, b);
  out[k++ * 64 + t] = (int)__nvvm_mulhi_ui(ua, ub);
  out[k++ * 64 + t] = __nvvm_prmt(a, b, (t * 0x9137) & 0xffff);
  out[k++ * 64 + t] = __nvvm_sad_i(a >> 8, b >> 8, t);
  out[k++ * 64 + t] = (int)__nvvm_sad_ui(ua, ub, (unsigned)t);
  out[k++ * 64 + t] = __nvvm_f2i_rn(x);
  out[k++ * 64 + t] = __nvvm_f2i_rz(x);
  out[k++ * 64 + t] = __nvvm_f2i_rm(x);
  out[k++ * 64 + t] = __nvvm_f2i_rp(x);
  out[k++ * 64 + t] = (int)__nvvm_f2ui_rn(x);
  out[k++ * 64 + t] = __builtin_bit_cast(int, __nvvm_saturate_f(x * 0.05f));
  out[k++ * 64 + t] = __builtin_bit_cast(int, __nvvm_div_approx_f(x, 4.0f));
  out[k++ * 64 + t] = __builtin_bit_cast(int, __nvvm_rsqrt_approx_f(4.0f * (t + 1) * (t + 1)));
  out[k++ * 64 + t] = __builtin_bit_cast(int, __nvvm_ex2_approx_f((float)(t % 10)));
  out[k++ * 64 + t] = __builtin_bit_cast(int, __nvvm_lg2_approx_f((float)(1 << (t % 20))));
  out[k++ * 64 + t] = __builtin_bit_cast(int, __nvvm_rcp_rn_f((float)(t + 1)));
  out[k++ * 64 + t] = __nvvm_match_any_sync_i32(0xffffffffu, t % 5);
  int pred = 0;
  out[k++ * 64 + t] = __nvvm_match_all_sync_i32p(0xffffffffu, t / 32, &pred);
  out[k++ * 64 + t] = pred;
  out[k++ * 64 + t] = __nvvm_match_any_sync_i64(0xffffffffu, ((long long)(t % 3) << 33) | 7);
  lout[0 * 64 + t] = __nvvm_mulhi_ll(la, lb);
  lout[1 * 64 + t] = (long long)__nvvm_mulhi_ull((unsigned long long)la, (unsigned long long)lb);
  lout[2 * 64 + t] = __nvvm_f2ll_rn(x);
  // Scoped atomics, 64 threads.
  __nvvm_atom_cta_add_gen_i(&s_count, 1);
  __nvvm_atom_cta_add_gen_i(&gi[0], 1);
  __nvvm_atom_sys_add_gen_i(&gi[1], t);
  __nvvm_atom_cta_max_gen_i(&gi[2], (t * 7) % 50);
  __nvvm_atom_cta_xchg_gen_i(&gi[3], 5);
  int old;
  do { old = *(volatile int *)&gi[4]; } while (__nvvm_atom_cta_cas_gen_i(&gi[4], old, old + 2) != old);
  __nvvm_atom_cta_and_gen_i(&gi[5], ~(1 << (t % 31)));
  __nvvm_atom_cta_xor_gen_i(&gi[6], t);
  __nvvm_atom_cta_inc_gen_ui(&gu[0], 9u);
  __nvvm_atom_cta_dec_gen_ui(&gu[1], 5u);
  // Signed, as NVPTX lowers atomicMax_block on unsigned: 0x80000000 loses to 1.
  __nvvm_atom_cta_max_gen_ui(&gu[2], t == 0 ? 0x80000000u : 1u);
  __nvvm_atom_sys_min_gen_ll(&gl[0], -(long long)t * 1000000007LL);
  __nvvm_atom_sys_or_gen_ll(&gl[1], 1LL << t);
  __nvvm_atom_sys_cas_gen_ll(&gl[2], 0, 0);
  __nvvm_atom_cta_add_gen_f(&gf[0], 0.5f);
  __nvvm_atom_sys_add_gen_d(&gd[0], 0.25);
  __syncthreads();
  if (t == 0) gi[7] = s_count;
}
