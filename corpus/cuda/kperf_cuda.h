// Minimal CUDA device-side prelude for compiling with clang without a CUDA
// installation (-nocudainc -nocudalib), plus kperf's region markers.
//
// clang only defines CUDA's keywords (__global__, __device__, __shared__, ...)
// and threadIdx/blockIdx/... through the CUDA headers it wraps
// (__clang_cuda_runtime_wrapper.h), which need CUDA's own headers. The
// attributes and builtins below are clang's own, so they need nothing else:
//   - __attribute__((global|device|shared|launch_bounds)) are what CUDA's
//     macros expand to;
//   - __clang_cuda_builtin_vars.h (in clang's resource include directory)
//     declares threadIdx, blockIdx, blockDim, gridDim as special variables;
//   - __syncthreads, __nvvm_shfl_sync_down_i32 and __nvvm_atom_add_gen_f are
//     NVPTX builtins.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

// CUDA's vector_types.h is not available either.
struct __attribute__((aligned(16))) float4 {
  float x, y, z, w;
};

#include <__clang_cuda_builtin_vars.h>

// kperf region markers: kperf's instrumenter replaces each call by a record
// (clock read + store) of the region `name` starting or ending; `name` must be
// a string literal. Without kperf they are unresolved external functions, so
// the markers also keep LLVM from moving code across a region boundary.
extern "C" __device__ void kperf_region_start(const char *name);
extern "C" __device__ void kperf_region_end(const char *name);
