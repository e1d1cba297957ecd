// Tiled SGEMM with a shared-memory K loop, annotated with kperf regions.
//
// C[M,N] = alpha * A[M,K] @ B[K,N] + beta * C, row-major fp32.
// A CTA of TILE x TILE threads computes a (TILE*WORK) x TILE block of C: each
// thread owns WORK outputs in one column, spaced TILE rows apart, so every B
// value read from shared memory is reused WORK times from a register.
// Per K step the CTA stages a (TILE*WORK) x TILE slab of A and a TILE x TILE
// slab of B in shared memory (regions "load_tile"), then multiplies them out
// of shared memory ("compute_tile"). The epilogue is region "store_c".
#include "kperf_cuda.h"

constexpr int TILE = 16;
constexpr int WORK = 4;

extern "C" __global__ void __launch_bounds__(TILE * TILE)
sgemm_tiled(int M, int N, int K, float alpha, const float *__restrict__ A,
            const float *__restrict__ B, float beta, float *__restrict__ C) {
  __shared__ float As[TILE * WORK][TILE + 1];  // +1: no bank conflicts on column reads
  __shared__ float Bs[TILE][TILE];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * TILE + tx;
  const int row0 = blockIdx.y * TILE * WORK + ty;

  float acc[WORK];
#pragma unroll
  for (int w = 0; w < WORK; ++w) acc[w] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += TILE) {
    kperf_region_start("load_tile");
#pragma unroll
    for (int w = 0; w < WORK; ++w) {
      const int r = row0 + w * TILE, c = k0 + tx;
      As[ty + w * TILE][tx] = (r < M && c < K) ? A[(long)r * K + c] : 0.0f;
    }
    {
      const int r = k0 + ty;
      Bs[ty][tx] = (r < K && col < N) ? B[(long)r * N + col] : 0.0f;
    }
    __syncthreads();
    kperf_region_end("load_tile");

    kperf_region_start("compute_tile");
#pragma unroll
    for (int kk = 0; kk < TILE; ++kk) {
      const float b = Bs[kk][tx];
#pragma unroll
      for (int w = 0; w < WORK; ++w) acc[w] += As[ty + w * TILE][kk] * b;
    }
    __syncthreads();  // the next load_tile overwrites As/Bs
    kperf_region_end("compute_tile");
  }

  kperf_region_start("store_c");
#pragma unroll
  for (int w = 0; w < WORK; ++w) {
    const int r = row0 + w * TILE;
    if (r < M && col < N) {
      float *c = &C[(long)r * N + col];
      *c = alpha * acc[w] + (beta != 0.0f ? beta * *c : 0.0f);
    }
  }
  kperf_region_end("store_c");
}
