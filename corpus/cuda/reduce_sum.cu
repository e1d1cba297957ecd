// Sum of an fp32 array in three phases, annotated with kperf regions.
//
//   "accumulate"   grid-stride loop: each thread sums 4-wide vectors, then the tail;
//   "warp_reduce"  shuffle tree inside each warp;
//   "block_reduce" the warps' partial sums through shared memory, one atomic per CTA.
// *out must be zeroed before the launch.
#include "kperf_cuda.h"

constexpr int THREADS = 256;
constexpr int WARPS = THREADS / 32;

static __device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int d = 16; d > 0; d /= 2)
    v += __builtin_bit_cast(float, __nvvm_shfl_sync_down_i32(0xffffffffu, __builtin_bit_cast(int, v), d, 0x1f));
  return v;
}

extern "C" __global__ void __launch_bounds__(THREADS)
reduce_sum(const float *__restrict__ in, long n, float *__restrict__ out) {
  __shared__ float partial[WARPS];
  const long tid = (long)blockIdx.x * THREADS + threadIdx.x;
  const long stride = (long)gridDim.x * THREADS;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  kperf_region_start("accumulate");
  float s = 0.0f;
  const long n4 = n / 4;
  const float4 *in4 = reinterpret_cast<const float4 *>(in);
  for (long i = tid; i < n4; i += stride) {
    const float4 v = in4[i];
    s += (v.x + v.y) + (v.z + v.w);
  }
  for (long i = n4 * 4 + tid; i < n; i += stride) s += in[i];
  kperf_region_end("accumulate");

  kperf_region_start("warp_reduce");
  s = warp_sum(s);
  kperf_region_end("warp_reduce");

  kperf_region_start("block_reduce");
  if (lane == 0) partial[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < WARPS ? partial[lane] : 0.0f;
    s = warp_sum(s);
    if (lane == 0) __nvvm_atom_add_gen_f(out, s);
  }
  kperf_region_end("block_reduce");
}
