// %nwarpid is the number of warp identifiers of an SM (PTX ISA: "the
// maximum number of warp identifiers"; 64 on sm_80 and sm_90), above every
// %warpid; it read the CTA's warp count (1 for a one-warp block) before
// (adversarial test s7h1, 2026-11-27; written for kperf).
#include "kperf_cuda.h"
extern "C" __global__ void warp_ids(int* o) {
  int t = threadIdx.x;
  o[2 * t] = __nvvm_read_ptx_sreg_nwarpid();
  o[2 * t + 1] = __nvvm_read_ptx_sreg_warpid() < __nvvm_read_ptx_sreg_nwarpid();
}
